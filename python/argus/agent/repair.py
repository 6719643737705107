"""Repair rules: map a counterexample to a fix of the variant.

Each rule looks at a violated check (its kind, the op, the counterexample's
elements, tags and notes) and the variant's knobs, and returns the knob
changes that remove the cause, with an explanation; None when it does not
apply. Rules are tried in order."""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple

Fix = Tuple[dict, str]


def _async_writer(cx: dict) -> bool:
    return any("copy_async" in n for n in cx.get("notes", []))


def _no_barrier(cx: dict) -> bool:
    return any("no barrier" in n or "barrier" in n and "without" in n for n in cx.get("notes", []))


def wait_count(check: dict, v) -> Optional[Fix]:
    """A read not ordered after an async copy: the wait_group count lets
    too many groups stay in flight."""
    if check["kind"] != "unsynchronized-read" or v.stages < 2:
        return None
    cx = (check.get("counterexamples") or [{}])[0]
    if not _async_writer(cx) or v.wait_count <= v.stages - 2:
        return None
    return ({"wait": None}, f"read of a cp.async slab not yet waited for at "
            f"{check.get('location')}: wait_group {v.wait_count} -> {v.stages - 2}")


def missing_barrier(check: dict, v) -> Optional[Fix]:
    """Threads read (or overwrite) shared memory another thread wrote (or
    still reads) with no barrier in between."""
    if check["kind"] not in ("unsynchronized-read", "unsynchronized-write"):
        return None
    if v.barrier_after_wait:
        return None
    return ({"barrier_after_wait": True}, f"{check['kind']} at {check.get('location')}: "
            "add the barrier after wait_group")


def stage_offset(check: dict, v) -> Optional[Fix]:
    """At the mma, A and B disagree on k by a whole number of k-slabs: one
    operand reads the wrong pipeline stage."""
    if check["kind"] not in ("assert", "unwritten-read", "unsynchronized-read"):
        return None
    if v.a_stage_offset == 0:
        return None
    for cx in check.get("counterexamples") or []:
        tags = {e["operand"]: e.get("tags", {}) for e in cx.get("elements", [])}
        a, b = tags.get("a", {}), tags.get("b", {})
        if "k" in a and "k" in b and a["k"] != b["k"] and (a["k"] - b["k"]) % v.tile_k == 0:
            slabs = (a["k"] - b["k"]) // v.tile_k
            new = (v.a_stage_offset - slabs) % v.stages
            return ({"a_stage_offset": new}, f"a.k - b.k = {a['k'] - b['k']} = {slabs} k-slab(s) "
                    f"at {check.get('location')}: A stage offset {v.a_stage_offset} -> {new}")
    if check["kind"] != "assert":
        return ({"a_stage_offset": 0}, f"{check['kind']} of a pipeline stage at "
                f"{check.get('location')}: read the stage that was waited for")
    return None


def swizzle_mismatch(check: dict, v) -> Optional[Fix]:
    """Elements meet with tags that differ by less than a slab, or in m/n:
    written through the swizzled layout but read through another."""
    if check["kind"] != "assert" or not v.read_unswizzled:
        return None
    for cx in check.get("counterexamples") or []:
        tags = {e["operand"]: e.get("tags", {}) for e in cx.get("elements", [])}
        a, b, acc = tags.get("a", {}), tags.get("b", {}), tags.get("acc", {})
        if a.get("k") != b.get("k") or a.get("m") != acc.get("m") or b.get("n") != acc.get("n"):
            return ({"read_unswizzled": False}, f"tags disagree at {check.get('location')} "
                    f"(a={a}, b={b}, acc={acc}) and the buffers are read through an unswizzled "
                    "view of swizzled data: read with the layout they were written with")
    return None


RULES: List[Callable] = [wait_count, missing_barrier, stage_offset, swizzle_mismatch]


def propose_repair(record: dict, variant) -> Optional[Fix]:
    """The first applicable fix over the record's violated checks."""
    for check in record.get("violations", []):
        for rule in RULES:
            fix = rule(check, variant)
            if fix is not None:
                return fix
    return None
