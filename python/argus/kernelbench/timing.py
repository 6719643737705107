"""Timing and the speed metrics.

Method (``time_cuda``), the same for the solution, eager PyTorch and
``torch.compile``:

* ``warmup`` calls (default 10) first, not timed (the solution's exports
  are loaded, torch.compile compiles, caches warm up);
* then ``repetitions`` timed calls (default 100), each bracketed by a pair
  of CUDA events on the current stream, so the time is the GPU time from the
  first operation of ``forward`` to its last, glue (views, allocation,
  copies) included, launch gaps included;
* before each timed call the L2 cache is flushed (``flush_l2``, default on)
  by zeroing a buffer of twice the L2 size (256 MiB when the size is
  unknown), outside the events: every call starts with cold caches, as
  KernelBench's newer timing does;
* the result is the median of the repetitions (also kept: mean, min, max).

A speedup is eager median / solution median (and torch.compile median /
solution median). fast_p is KernelBench's: the fraction of tasks that are
correct *and* have speedup > p over eager; fast_0 is the fraction correct.
"""

from __future__ import annotations

import math
import statistics
from typing import Callable, Dict, Iterable, List, Optional

FAST_P = (0.0, 0.8, 1.0, 1.5, 2.0)


def summarize(times: List[float]) -> Dict[str, float]:
    return {"median": statistics.median(times), "mean": statistics.fmean(times),
            "min": min(times), "max": max(times), "n": len(times)}


def time_cuda(fn: Callable[[], object], warmup: int = 10, repetitions: int = 100,
              flush_l2: bool = True) -> Dict[str, float]:
    """See the module docstring. Needs torch with CUDA."""
    import torch
    flush = None
    if flush_l2:
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = getattr(props, "L2_cache_size", 0) or (128 << 20)
        flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repetitions):
        if flush is not None:
            flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return summarize(times)


def fast_p(records: Iterable[dict], p: float) -> Optional[float]:
    """The fraction of ``records`` that were accepted (proved, honest) and
    correct (``correct`` True) with ``speedup`` > p (p = 0: accepted and
    correct). A task whose evaluation failed counts as not correct. None
    when correctness was checked for no record (no GPU, no executor)."""
    recs = list(records)
    if not recs or all(r.get("correct") is None and r.get("accepted") is not False
                       for r in recs):
        return None
    if all(r.get("correct") is None for r in recs):
        return None
    if p > 0 and all(r.get("speedup") is None for r in recs):
        return None  # correctness checked, speed not measured (no GPU)
    ok = 0
    for r in recs:
        if r.get("correct") is not True or not r.get("accepted"):
            continue
        if p == 0 or (r.get("speedup") is not None and r["speedup"] > p):
            ok += 1
    return ok / len(recs)


def geomean(values: Iterable[float]) -> Optional[float]:
    v = [x for x in values if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None
