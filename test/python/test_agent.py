"""The agent loop: repair from counterexamples, batch measurement, policies."""

import json
import os

import pytest

import argus
from argus.agent import (AgentLoop, Budget, GemmTask, KnowledgeBasePolicy, Policy, Variant,
                         build_gemm, copy_layout, format_table)


def test_copy_layout_matches_handwritten_examples():
    assert copy_layout(64, 32, 128, 8) == "((4,32),(8,2)):((512,1),(64,32))"
    assert copy_layout(32, 64, 128, 8) == "((8,16),(8,2)):((256,1),(32,16))"
    with pytest.raises(argus.ShapeError):
        copy_layout(64, 30, 128, 8)


@pytest.mark.parametrize("bug", [dict(stages=3, wait=2), dict(a_stage_offset=1),
                                 dict(read_unswizzled=True), dict(barrier_after_wait=False),
                                 dict(stages=3, wait=2, a_stage_offset=1)])
def test_policy_repairs_planted_bug(bug, need_verifier):
    """From a variant with a planted bug, the built-in policy reaches a
    verified variant by following the counterexample, within 4 steps."""
    start = Variant(**bug)
    loop = AgentLoop(GemmTask(), KnowledgeBasePolicy(start=start), Budget(steps=4),
                     measure="none", compile=False)
    hist = loop.run()
    assert hist[0]["status"] == "violated" and hist[0]["violations"][0]["counterexamples"]
    first_ok = next(i for i, r in enumerate(hist) if r["status"] == "verified")
    assert first_ok <= 3
    # Every step up to it was a repair driven by a counterexample.
    for r in hist[1:first_ok + 1]:
        assert r["note"].startswith("repair: ")
    fixed = Variant.from_dict(hist[first_ok]["variant"])
    assert fixed.wait_count == fixed.stages - 2 and fixed.a_stage_offset == 0
    assert not fixed.read_unswizzled and fixed.barrier_after_wait


def test_batch_write_and_resume(tmp_path, need_verifier):
    if not argus.has_pass("argus-to-nvptx"):
        pytest.skip("argus-to-nvptx not built into the _argus extension")
    d = tmp_path / "batch"
    log = tmp_path / "log.jsonl"
    task = GemmTask(512, 512, 512)
    loop = AgentLoop(task, KnowledgeBasePolicy(start=Variant()), Budget(steps=3),
                     log_path=str(log), measure="batch", batch_dir=str(d))
    hist = loop.run()
    pending = [r for r in hist if r["status"] == "pending"]
    assert pending
    for r in pending:
        spec = json.load(open(d / (r["batch"] + ".json")))
        assert spec["kernel"] == r["kernel"] and spec["format"] == "ptx"
        assert ".entry " + r["kernel"] in open(d / spec["module"]).read()
        kinds = [(a["name"], a.get("dtype")) for a in spec["args"]]
        assert kinds[0] == ("A", "f16") and kinds[6] == ("C", "f32") and kinds[9] == ("K", "i64")
        assert spec["check"]["C"] == 6 and spec["grid"][:2] == [512 // 64, 512 // 64]
    # A GPU host answers with argus-run --batch's results.json.
    results = {"schema": "argus.batch_results/1", "results": [
        {"name": r["batch"], "status": "ok", "time_ms": {"median": 0.05 + 0.01 * i},
         "check": {"passed": True}} for i, r in enumerate(pending)]}
    json.dump(results, open(d / "results.json", "w"))
    loop2 = AgentLoop(task, KnowledgeBasePolicy(start=Variant()), Budget(steps=5),
                      log_path=str(log), measure="batch", batch_dir=str(d))
    loop2.load_history(str(log))
    assert loop2.resume() == len(pending)
    best = loop2.best()
    assert best["status"] == "measured" and best["time_ms"] == pytest.approx(0.05)
    assert best["tflops"] > 0
    assert loop2.policy.incumbent == Variant.from_dict(best["variant"])
    loop2.run()
    assert len(loop2.history) == 5
    assert "measured" in format_table(loop2.history)


def test_user_policy_receives_records(need_verifier):
    import llm_policy
    prompts = []

    def fake_llm(prompt):
        prompts.append(prompt)
        # A "model" that reads the feedback and fixes the wait count.
        return json.dumps({"stages": 2, "wait": None}) if "unsynchronized-read" in prompt \
            else json.dumps({"stages": 2})

    pol = llm_policy.LLMPolicy(fake_llm, start=Variant(wait=1))
    loop = AgentLoop(GemmTask(), pol, Budget(steps=2), measure="none", compile=False)
    hist = loop.run()
    assert hist[0]["status"] == "violated" and hist[1]["status"] == "verified"
    assert "thread" in prompts[0] and "unsynchronized-read" in prompts[0]
    assert isinstance(pol, Policy)


def test_agent_cli(capsys, need_verifier):
    from argus.agent.__main__ import main
    assert main(["--steps", "3"]) == 0
    out = capsys.readouterr().out
    assert "violated" in out and "repair" in out and "best:" in out


def test_build_errors_are_records():
    loop = AgentLoop(GemmTask(), KnowledgeBasePolicy(start=Variant(vector=7)), Budget(steps=1),
                     measure="none", compile=False)
    r = loop.run()[0]
    assert r["status"] == "build_error" and "vector 7" in r["errors"][0]
    r = AgentLoop(GemmTask(), KnowledgeBasePolicy(start=Variant(split_k=2)), Budget(steps=1),
                  measure="none").run()[0]
    assert r["status"] == "unsupported"


def test_feedback_shows_where_the_time_goes():
    from argus.agent import format_feedback
    rec = {"step": 3, "summary": "stages=2", "status": "measured", "time_ms": 0.91,
           "correct": True, "violations": [], "errors": [],
           "regions": [
               {"id": 2, "name": "mainloop", "unit": "ns", "mean": {"value": 80000.0},
                "count": {"value": 4}, "total": {"value": 320000.0}},
               {"id": 3, "name": "wait", "unit": "ns", "mean": {"value": 198.0},
                "count": {"value": 512}, "total": {"value": 101376.0},
                "per_iteration": {"iterations": [{"iteration": 0, "mean": 410.0},
                                                 {"iteration": 127, "mean": 190.0}]}},
               {"id": 4, "name": "empty", "mean": None, "count": {"value": 0}}]}
    text = format_feedback(rec)
    lines = text.splitlines()
    assert lines[2].startswith("  region mainloop: mean 80000 ns over 4 intervals, 76%")
    assert lines[3].startswith("  region wait: mean 198 ns over 512 intervals, 24%")
    assert "iteration 0: 410, iteration 127: 190" in lines[3]
    assert "empty" not in text
    rec["regions"] = None
    assert "region" not in format_feedback(rec)
