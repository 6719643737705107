"""Tables and JSON summaries of evaluation records."""

from __future__ import annotations

from typing import Iterable, List

from .timing import FAST_P, fast_p, geomean


def _fmt(x, spec="{:.3f}") -> str:
    return "-" if x is None else spec.format(x)


def kernels_cell(r: dict) -> str:
    ks = r.get("kernels") or []
    if not ks:
        return "-"
    proved = sum(1 for k in ks if k.get("status") == "proved")
    unknown = sum(1 for k in ks if k.get("status") == "unknown")
    bad = len(ks) - proved - unknown
    return f"{proved}/{len(ks)} proved" + (f", {unknown} unknown" if unknown else "") + \
        (f", {bad} failed" if bad else "")


def table(records: Iterable[dict]) -> str:
    rows = [("task", "status", "kernels", "correct", "solution ms", "eager ms", "compile ms",
             "speedup", "vs compile", "reason")]
    for r in records:
        t = r.get("timing") or {}
        sol = (t.get("solution_ms") or {}).get("median")
        eag = (t.get("eager_ms") or {}).get("median")
        com = (t.get("compile_ms") or {}).get("median")
        correct = {True: "yes", False: "NO", None: "not checked"}[r.get("correct")]
        reason = (r.get("reasons") or [""])[0]
        rows.append((r.get("task", "?"), r.get("status", "?"), kernels_cell(r), correct,
                     _fmt(sol), _fmt(eag), _fmt(com), _fmt(r.get("speedup"), "{:.2f}x"),
                     _fmt(r.get("speedup_compile"), "{:.2f}x"),
                     reason if len(reason) <= 100 else reason[:97] + "..."))
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary(records: List[dict]) -> dict:
    """fast_p for p in FAST_P, counts and the geomean speedup of the
    accepted, correct tasks."""
    out = {"tasks": len(records),
           "accepted": sum(1 for r in records if r.get("accepted")),
           "correct": sum(1 for r in records if r.get("correct") is True),
           "correctness_checked": sum(1 for r in records if r.get("correct") is not None),
           "failures": {k: sum(1 for r in records if r.get("failure") == k)
                        for k in ("timeout", "fault", "error")}}
    for p in FAST_P:
        out[f"fast_{p:g}"] = fast_p(records, p)
    ok = [r.get("speedup") for r in records if r.get("accepted") and r.get("correct")]
    out["geomean_speedup"] = geomean(ok)
    ok_c = [r.get("speedup_compile") for r in records if r.get("accepted") and r.get("correct")]
    out["geomean_speedup_vs_compile"] = geomean(ok_c)
    return out


def summary_text(s: dict) -> str:
    fp = ", ".join(f"fast_{p:g} = {_fmt(s.get(f'fast_{p:g}'), '{:.0%}')}" for p in FAST_P)
    return (f"{s['tasks']} tasks: {s['accepted']} accepted, {s['correct']} correct "
            f"({s['correctness_checked']} checked); {fp}; geomean speedup "
            f"{_fmt(s.get('geomean_speedup'), '{:.2f}x')}")
