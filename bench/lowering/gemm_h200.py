#!/usr/bin/env python3
"""Run the argus sm_90a GEMM kernels (PTX from bench/lowering/compile.sh) on
an NVIDIA GPU through the CUDA driver API (ctypes on libcuda, in PyTorch's
context), check them against PyTorch, time them, and measure probe overhead.

Kernel ABI (docs/Lowering.md): each memref argument of rank r is a global
pointer followed by r int64 sizes (row-major, contiguous); index arguments
are int64; with probes, the probe buffer pointer comes last. The probe
buffer follows runtime/include/argus/runtime/ProbeFormat.h.

Usage: python3 gemm_h200.py [--ptx DIR] [--size 4096] [--reps 50] [--out DIR]
"""
import argparse
import ctypes
import json
import os
import statistics
import struct
import sys

import numpy as np

try:
    import torch
    CU = ctypes.CDLL("libcuda.so.1")
except (ImportError, OSError):  # decode_raw still works without a GPU
    torch = None
    CU = None

PROBE_MAGIC = 0x53475241
HEADER = 64
SLOT = 8
RECORD = 32


def check(res, what):
    if res != 0:
        name = ctypes.c_char_p()
        CU.cuGetErrorName(res, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: {name.value.decode() if name.value else res}")


class Kernel:
    def __init__(self, path, name):
        data = open(path, "rb").read()
        if path.endswith(".ptx"):
            data += b"\0"
        self.module = ctypes.c_void_p()
        # Load with a JIT error log so bad PTX says why.
        log = ctypes.create_string_buffer(16384)
        opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, _SIZE_BYTES
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, 16384)
        res = CU.cuModuleLoadDataEx(ctypes.byref(self.module), data, 2, opts, vals)
        if res != 0:
            print(log.value.decode(errors="replace"), file=sys.stderr)
        check(res, f"cuModuleLoadDataEx({path})")
        self.fn = ctypes.c_void_p()
        check(CU.cuModuleGetFunction(ctypes.byref(self.fn), self.module, name.encode()),
              f"cuModuleGetFunction({name})")

    def launch(self, grid, block, args, stream=0):
        holders = []
        for a in args:
            if isinstance(a, torch.Tensor):
                holders.append(ctypes.c_void_p(a.data_ptr()))
            else:
                holders.append(ctypes.c_int64(a))
        ptrs = (ctypes.c_void_p * len(holders))(
            *[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        check(CU.cuLaunchKernel(self.fn, grid[0], grid[1], 1, block, 1, 1, 0,
                                ctypes.c_void_p(stream), ptrs, None), "cuLaunchKernel")


def gemm_args(A, B, C, probe=None):
    M, K = A.shape
    _, N = B.shape
    args = [A, M, K, B, K, N, C, M, N, K]
    if probe is not None:
        args.append(probe)
    return args


def make_probe_buffer(num_slots, capacity, warps_per_block, clock_kind=0):
    size = ((HEADER + SLOT * num_slots + 31) & ~31) + num_slots * capacity * RECORD
    buf = torch.zeros(size, dtype=torch.uint8, device="cuda")
    hdr = struct.pack("<8I8I", PROBE_MAGIC, 1, num_slots, capacity, RECORD,
                      clock_kind, warps_per_block, 32, *([0] * 8))
    buf[:HEADER] = torch.frombuffer(bytearray(hdr), dtype=torch.uint8).cuda()
    return buf


def reset_probe_buffer(buf, num_slots):
    buf[HEADER:HEADER + SLOT * num_slots].zero_()


def decode(buf, regions):
    """Decode a probe buffer (ProbeFormat.h) into per-region stats."""
    return decode_raw(buf.cpu().numpy(), regions)


def decode_raw(raw, regions):
    magic, ver, num_slots, cap, rsize, clock, wpb, ws = struct.unpack_from("<8I", raw, 0)
    assert magic == PROBE_MAGIC and rsize == RECORD
    slots = np.frombuffer(raw, dtype=np.uint32, count=2 * num_slots, offset=HEADER).reshape(-1, 2)
    roff = (HEADER + SLOT * num_slots + 31) & ~31
    rec_dt = np.dtype([("id", "<u4"), ("flags", "<u4"), ("block", "<u4"), ("warp", "<u4"),
                       ("iter", "<u4"), ("hw", "<u4"), ("ts", "<u8")])
    recs = np.frombuffer(raw, dtype=rec_dt, count=num_slots * cap, offset=roff).reshape(num_slots, cap)
    counts = np.minimum(slots[:, 0], cap)
    dropped = int(slots[:, 1].sum())
    valid = np.arange(cap)[None, :] < counts[:, None]
    slot_idx = np.broadcast_to(np.arange(num_slots)[:, None], (num_slots, cap))[valid]
    r = recs[valid]
    key = (slot_idx.astype(np.uint64) << np.uint64(40)) | (r["id"].astype(np.uint64) << np.uint64(32)) \
        | r["iter"].astype(np.uint64)
    is_end = (r["flags"] & 1) == 1
    kb, ke = key[~is_end], key[is_end]
    ob, oe = np.argsort(kb, kind="stable"), np.argsort(ke, kind="stable")
    durations = {}
    bad = abs(len(kb) - len(ke))
    per_warp = {}
    if len(kb) == len(ke) and np.array_equal(kb[ob], ke[oe]):
        d = r["ts"][is_end][oe].astype(np.int64) - r["ts"][~is_end][ob].astype(np.int64)
        ids = r["id"][is_end][oe]
        its = r["iter"][is_end][oe]
        sl = slot_idx[is_end][oe]
        bad += int((d < 0).sum())
        for rid in np.unique(ids):
            durations[int(rid)] = d[ids == rid]
        for s_ in range(min(4, num_slots)):
            m = sl == s_
            per_warp[s_] = [(int(i), int(t), int(x)) for i, t, x in zip(ids[m], its[m], d[m])]
    else:
        bad = max(bad, 1)
    stats = {}
    for rid, ds in sorted(durations.items()):
        a = np.array(ds, dtype=np.float64)
        stats[regions.get(str(rid), str(rid))] = {
            "id": rid, "count": len(ds), "mean_ns": float(a.mean()),
            "p50_ns": float(np.percentile(a, 50)), "p99_ns": float(np.percentile(a, 99)),
            "total_ns": float(a.sum())}
    hw = recs[0, :max(1, min(int(counts[0]), cap))]["hw"]
    return {"records": int(np.minimum(counts, cap).sum()), "dropped": dropped,
            "unpaired": bad, "regions": stats, "slot0_sm": int(hw[0]),
            "per_warp_first8": {str(k): v[:12] for k, v in per_warp.items()}}


def time_ms(fn, reps, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times), min(times), max(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx", default=os.path.join(os.path.dirname(__file__), "ptx"))
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--capacity", type=int, default=1024)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()

    torch.manual_seed(0)
    torch.zeros(1, device="cuda")  # make PyTorch's context current
    dev = torch.cuda.get_device_name()
    manifest = json.load(open(os.path.join(args.ptx, "manifest.json")))
    print(f"device: {dev}", flush=True)

    # Correctness on several shapes (fresh random inputs each), then timing.
    check_shapes = [(256, 192, 128), (1024, 512, 768), (2048, 2048, 2048)]
    rows = []
    report = {"device": dev, "kernels": {}}
    S = args.size
    A = torch.randn(S, S, device="cuda", dtype=torch.float16)
    B = torch.randn(S, S, device="cuda", dtype=torch.float16)
    t_torch, _, _ = time_ms(lambda: torch.matmul(A, B), args.reps)
    flops = 2.0 * S * S * S
    print(f"torch.matmul fp16 {S}^3: {t_torch:.3f} ms, {flops / t_torch / 1e9:.1f} TFLOP/s", flush=True)

    for name, info in manifest.items():
        entry = {}
        try:
            kern = Kernel(os.path.join(args.ptx, name + ".ptx"), name)
        except RuntimeError as e:
            print(f"{name}: {e}")
            rows.append((name, "LOAD FAIL", "", "", "", "", ""))
            continue
        ok = True
        for (M, N, K) in check_shapes:
            a = torch.randn(M, K, device="cuda", dtype=torch.float16)
            b = torch.randn(K, N, device="cuda", dtype=torch.float16)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
            kern.launch((N // 64, M // 64), info["block"], gemm_args(a, b, c))
            torch.cuda.synchronize()
            ref = a.double() @ b.double()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            nan = bool(torch.isnan(c).any().item())
            good = (not nan) and err < 1e-3
            ok &= good
            print(f"  {name} {M}x{N}x{K}: rel err {err:.2e} nan={nan} {'ok' if good else 'FAIL'}", flush=True)
            entry.setdefault("checks", []).append({"shape": [M, N, K], "rel_err": err, "nan": nan})
        C = torch.empty(S, S, device="cuda", dtype=torch.float32)
        grid = (S // 64, S // 64)
        t, tmin, tmax = time_ms(lambda: kern.launch(grid, info["block"], gemm_args(A, B, C)), args.reps)
        ref = A.double() @ B.double()
        err = ((C.double() - ref).norm() / ref.norm()).item()
        entry.update({"ms": t, "min_ms": tmin, "max_ms": tmax, "tflops": flops / t / 1e9,
                      "rel_err_big": err})
        # Probes: all signals, and duration only.
        num_slots = grid[0] * grid[1] * (info["block"] // 32)
        probe_res = {}
        for variant in ("probes", "probes_duration"):
            path = os.path.join(args.ptx, f"{name}.{variant}.ptx")
            if not os.path.exists(path):
                continue
            pk = Kernel(path, name)
            buf = make_probe_buffer(num_slots, args.capacity, info["block"] // 32)

            def run():
                reset_probe_buffer(buf, num_slots)
                pk.launch(grid, info["block"], gemm_args(A, B, C, buf))

            # The reset is timed too; time it alone and subtract.
            t_reset, _, _ = time_ms(lambda: reset_probe_buffer(buf, num_slots), args.reps)
            tp, _, _ = time_ms(run, args.reps)
            tp -= t_reset
            C.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            perr = ((C.double() - ref).norm() / ref.norm()).item()
            dec = decode(buf, info["regions"])
            probe_res[variant] = {"ms": tp, "overhead_pct": 100.0 * (tp - t) / t, "rel_err": perr,
                                  "decoded": dec}
            print(f"  {name} {variant}: {tp:.3f} ms ({100.0 * (tp - t) / t:+.1f}%), err {perr:.1e}, "
                  f"records {dec['records']}, dropped {dec['dropped']}, unpaired {dec['unpaired']}", flush=True)
            for rn, st in dec["regions"].items():
                print(f"      region {st['id']:2d} {rn:12s} n={st['count']:8d} mean {st['mean_ns']:10.1f} ns"
                      f"  p50 {st['p50_ns']:10.1f}  p99 {st['p99_ns']:10.1f}", flush=True)
        entry["probes"] = probe_res
        report["kernels"][name] = entry
        pr = probe_res.get("probes", {}).get("overhead_pct", float("nan"))
        pd = probe_res.get("probes_duration", {}).get("overhead_pct", float("nan"))
        rows.append((name, "ok" if ok and err < 1e-3 else "FAIL", f"{t:.3f}", f"{flops / t / 1e9:.1f}",
                     f"{t_torch / t:.3f}", f"{pd:+.1f}%", f"{pr:+.1f}%"))

    report["torch_ms"] = t_torch
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "gemm_h200.json"), "w") as f:
        json.dump(report, f, indent=1, default=str)
    print()
    print(f"GEMM {S}x{S}x{S} fp16 -> fp32 on {dev}; torch.matmul (cuBLAS, fp16 out) "
          f"{t_torch:.3f} ms = {flops / t_torch / 1e9:.1f} TFLOP/s; median of {args.reps}")
    hdr = ("kernel", "check", "ms", "TFLOP/s", "x torch", "probes dur", "probes all")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
