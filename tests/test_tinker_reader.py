"""TinkerReader on the trimmed tinker-cookbook fixtures (tests/fixtures/tinker)."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from reportgen.errors import InputError
from reportgen.model import LogNode, Run
from reportgen.sources.tinker import (
    MAX_DEPTH,
    TinkerReader,
    lognode_from_json,
    looks_like_tinker,
    sanitize_label,
)
from reportgen.storage import Storage

FIX = Path(__file__).parent / "fixtures" / "tinker"


def copy_fixture(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(FIX / name, dst)
    return dst


def scan(path: Path | str) -> tuple[TinkerReader, Run]:
    reader = TinkerReader(Storage(str(path)))
    return reader, reader.scan()


def ref_summary(run: Run) -> dict[str, Any]:
    """What the index shows, without paths (compare runs across layouts/storages)."""

    def refs(rs: list) -> list[tuple]:
        return [
            (r.kind, r.label, r.number, r.status, r.has_texts, r.rollouts, r.reward_mean, sorted(r.headline.items()))
            for r in rs
        ]

    return {
        "iterations": refs(run.iterations),
        "evals": {k: refs(v) for k, v in sorted(run.evals.items())},
        "prefix": run.eval_metric_prefix,
    }


def write_jsonl(path: Path, rows: list[Any]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


# ------------------------------------------------------------------ scan
def test_scan_arith_sync_header_and_lists():
    _, run = scan(FIX / "arith_sync")
    assert run.format == "tinker"
    assert run.title == "arith_sync"
    assert run.model == "Qwen/Qwen3-8B"
    assert run.algorithm == "importance_sampling"
    assert run.config["eval_every"] == 2
    for key, value in {
        "learning_rate": 4e-05,
        "lora_rank": 32,
        "loss_fn": "importance_sampling",
        "renderer_name": "qwen3_disable_thinking",
        "max_tokens": 16,
        "eval_every": 2,
        "save_every": 2,
        "num_groups_to_log": 4,
        "groups_per_batch": 6,
        "group_size": 4,
        "mode": "sync",
    }.items():
        assert run.info[key] == value, key
    assert run.info["crashed"] is False
    assert run.info["resumed"] is False
    assert run.info["completed"] is True
    assert run.info["evaluators"] == 3
    assert run.info["iterations"] == 6
    assert run.warnings == []

    nums = [r.number for r in run.iterations]
    assert nums == [0, 1, 2, 3, 4, 5]  # every metrics step, sorted
    assert [r.has_texts for r in run.iterations] == [True, True, True, False, False, False]
    assert all(r.kind == "train" for r in run.iterations)
    first = run.iterations[0]
    assert first.rollouts == 24
    assert first.reward_mean == pytest.approx(0.4041666666666666)
    assert set(first.headline) == {
        "env/all/reward/total",
        "env/all/correct",
        "optim/kl_sample_train_v1",
        "optim/entropy",
    }
    assert first.locator["logtree"] == "iteration_000000/train_logtree.json"
    assert any("final evaluation" in n for n in run.iterations[5].notes)

    assert sorted(run.evals) == ["1", "arith-hard_v2_x", "test"]
    assert [r.number for r in run.evals["test"]] == [0, 2, 5]
    assert [r.number for r in run.evals["1"]] == [0, 2, 5]
    assert [r.number for r in run.evals["arith-hard_v2_x"]] == [0]
    t0 = run.evals["test"][0]
    assert (t0.kind, t0.label, t0.has_texts, t0.rollouts) == ("eval", "test", True, 6)
    assert t0.reward_mean == pytest.approx(0.3333333333333333)
    assert run.evals["1"][0].reward_mean is None  # no metric prefix for an index label

    assert sorted(run.timing) == [0, 1, 2, 3, 4]
    assert run.code_diff and run.code_diff.startswith("### module: tinker_cookbook")


def test_eval_label_metric_prefix():
    _, run = scan(FIX / "arith_sync")
    assert run.eval_metric_prefix == {"arith-hard_v2_x": "arith-hard v2/x", "test": "test"}
    assert "1" not in run.eval_metric_prefix
    assert run.evals["arith-hard_v2_x"][0].headline["env/all/correct"] == pytest.approx(1 / 3)


def test_eval_prefix_synthetic(tmp_path):
    write_jsonl(
        tmp_path / "metrics.jsonl",
        [
            {
                "step": 0,
                "progress/batch": 0,
                "arith-hard v2/x/env/all/correct": 0.5,
                "my eval!/env/all/reward/total": 0.25,
                "eval/by_step/test/env/all/reward/total": 0.1,
                "env/all/reward/total": 0.3,
            }
        ],
    )
    d = tmp_path / "iteration_000000"
    d.mkdir()
    for name in ("eval_arith-hard_v2_x_logtree.json", "eval_my_eval_logtree.json", "eval_1_logtree.json"):
        (d / name).write_text(json.dumps({"title": "t", "root": {"tag": "body", "attrs": {}, "children": []}}))
    _, run = scan(tmp_path)
    assert run.eval_metric_prefix == {"arith-hard_v2_x": "arith-hard v2/x", "my_eval": "my eval!"}
    assert run.evals["my_eval"][0].reward_mean == 0.25


@pytest.mark.parametrize(
    ("name", "label"),
    [("arith-hard v2/x", "arith-hard_v2_x"), ("", "unnamed"), ("..a b..", "a_b"), ("test", "test"), ("1", "1")],
)
def test_sanitize_label(name, label):
    assert sanitize_label(name) == label


def test_checkpoints_final_and_rolling():
    _, run = scan(FIX / "arith_sync")
    cps = run.checkpoints
    assert [c.name for c in cps] == ["000001", "000002", "000003", "000004", "000005", "final"]
    assert [c.rolling for c in cps] == [True, False, True, False, True, False]
    assert [c.final for c in cps] == [False] * 5 + [True]
    assert cps[0].sampler_path is None and cps[0].state_path.endswith("/weights/000001")
    assert cps[-1].batch == 5
    assert set(cps[0].extra) == {"cumulative_tokens", "discarded_tokens"}
    assert "rolling" not in cps[0].extra


def test_the_index_names_each_kind_of_checkpoint(tmp_path):
    """spec §5: periodic, rolling, final and the async mode's initial "000000" (batch 0)."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    (tmp_path / "run").mkdir()
    write_jsonl(
        tmp_path / "run" / "checkpoints.jsonl",
        [
            {"name": "000000", "batch": 0, "state_path": "s0", "sampler_path": "p0"},
            {"name": "000001", "batch": 1, "state_path": "s1", "rolling": True},
            {"name": "000002", "batch": 2, "state_path": "s2", "sampler_path": "p2"},
            {"name": "final", "batch": 3, "state_path": "s3", "sampler_path": "p3"},
        ],
    )
    write_jsonl(tmp_path / "run" / "metrics.jsonl", [{"step": 0}])
    build(str(tmp_path / "run"), tmp_path / "site", BuildOptions(jobs=1))
    page = BeautifulSoup((tmp_path / "site" / "index.html").read_text("utf-8"), "html.parser")
    rows = [[td.get_text() for td in tr.find_all("td")][:3] for tr in page.select("table tr") if tr.find("td")]
    kinds = {r[0]: r[2] for r in rows if len(r) == 3 and r[0] in ("000000", "000001", "000002", "final")}
    assert kinds == {"000000": "initial", "000001": "rolling", "000002": "periodic", "final": "final"}


def test_checkpoint_final_flag(tmp_path):
    write_jsonl(tmp_path / "checkpoints.jsonl", [{"name": "000004", "batch": 4, "final": True, "epoch": 1}])
    write_jsonl(tmp_path / "metrics.jsonl", [{"step": 0}])
    _, run = scan(tmp_path)
    assert run.checkpoints[0].final is True
    assert run.checkpoints[0].extra == {"epoch": 1}


def test_nan_metric_and_duplicated_final_step():
    _, run = scan(FIX / "arith_sync")
    t = run.metrics
    assert t.steps.count(5) == 1
    row0 = t.steps.index(0)
    assert math.isnan(t.columns["custom/nan_metric"][row0])
    assert t.get(0, "custom/nan_metric") is None
    # step 5: final-eval row and cost-totals row merged
    assert t.get(5, "test/env/all/reward/total") is not None
    assert t.get(5, "tokens/cumulative/sampled") == 811
    assert t.get(5, "env/all/reward/total") is None


def test_metrics_edge_cases(tmp_path):
    lines = [
        '{"step": 0, "a": 1, "b": NaN, "c": Infinity, "d": -Infinity, "flag": true, "s": "x", "n": null}',
        '{"step": 0, "a": 2, "e": 3}',
        '{"progress/batch": 1, "a": 5}',
        '{"training_client/step": 2, "a": 6}',
        '{"a": 7, "note": "no step"}',
        "{not json",
        "[1, 2]",
        "",
        '{"step": 3.0, "a": 8}',
    ]
    (tmp_path / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    _, run = scan(tmp_path)
    t = run.metrics
    assert t.steps == [0, 1, 2, 3]
    assert t.get(0, "a") == 2  # later row wins
    assert t.get(0, "e") == 3
    for name in ("b", "c", "d"):
        assert math.isnan(t.columns[name][0])
    assert "flag" not in t.columns and "s" not in t.columns and "n" not in t.columns
    assert (t.get(1, "a"), t.get(2, "a"), t.get(3, "a")) == (5, 6, 8)
    assert run.info["unstepped_metrics"] == [{"line": 5, "values": {"a": 7, "note": "no step"}}]
    assert any(re.search(r"metrics\.jsonl:6: bad JSON", w) for w in run.warnings)
    assert any("metrics.jsonl:7" in w for w in run.warnings)
    assert [r.number for r in run.iterations] == [0, 1, 2, 3]


def test_old_style_resume_without_truncation(tmp_path):
    rows = [{"step": s, "progress/batch": s, "x": s} for s in (0, 1, 2, 1, 2, 3)]
    write_jsonl(tmp_path / "metrics.jsonl", rows)
    _, run = scan(tmp_path)
    assert run.segments == [{"resumed_at": 1, "file": "metrics.jsonl", "truncated": False}]
    assert run.info["resumed"] is True
    assert run.metrics.steps == [0, 1, 2, 3]


def test_resumed_run():
    _, run = scan(FIX / "arith_resumed")
    assert run.segments == [{"resumed_at": 2, "file": "metrics.jsonl.pre_resume_000002", "dropped_rows": 1}]
    assert run.info["resumed"] is True
    assert any("pre_resume_000002" in w for w in run.warnings)
    assert [r.number for r in run.iterations] == [0, 1, 2, 3, 4, 5]
    assert [r.segment for r in run.iterations] == [0, 0, 1, 1, 1, 1]
    assert not any(r.has_texts for r in run.iterations)
    # current metrics.jsonl wins over the backup
    assert run.metrics.get(2, "env/all/reward/total") == pytest.approx(0.7875)
    # duplicated timing step: the later line wins
    lines = [json.loads(x) for x in (FIX / "arith_resumed" / "timing_spans.jsonl").read_text().splitlines()]
    last2 = [x for x in lines if x["step"] == 2][-1]
    reader = TinkerReader(Storage(str(FIX / "arith_resumed")))
    run = reader.scan()
    at = run.timing[2]
    assert reader.timing_spans(":".join(map(str, at)), []) == last2["spans"]
    assert run.iterations[2].locator is None  # no page: no timing to show
    assert len({c.state_path.split(":")[1] for c in run.checkpoints if c.state_path}) == 2


def test_config_nan_and_bad_diff(tmp_path):
    (tmp_path / "config.json").write_text('{"model_name": "m", "loss_fn": "ppo", "temperature": NaN}')
    (tmp_path / "code.diff").write_bytes(b"diff \xff\xfe\n")
    _, run = scan(tmp_path)
    assert run.model == "m" and run.algorithm == "ppo"
    assert math.isnan(run.config["temperature"])
    assert "\ufffd" in run.code_diff
    assert any("code.diff" in w and "UTF-8" in w for w in run.warnings)


def test_missing_source_raises(tmp_path):
    with pytest.raises(InputError):
        TinkerReader(Storage(str(tmp_path / "nope"))).scan()


def test_looks_like_tinker(tmp_path):
    for name in ("arith_sync", "arith_resumed", "calc_agent_multiturn", "flat_arith_sync"):
        assert looks_like_tinker(Storage(str(FIX / name)))
    assert not looks_like_tinker(Storage(str(tmp_path)))
    (tmp_path / "config.json").write_text('{"model_name": "m"}')
    assert not looks_like_tinker(Storage(str(tmp_path)))
    (tmp_path / "config.json").write_text('{"loss_fn": "importance_sampling"}')
    assert looks_like_tinker(Storage(str(tmp_path)))
    other = tmp_path / "other"
    other.mkdir()
    (other / "eval_x_iteration_000003.html").write_text("x")
    assert looks_like_tinker(Storage(str(other)))


# --------------------------------------------------------------- layouts
def _to_flat(src: Path, dst: Path) -> None:
    """Rewrite an iteration_NNNNNN/ run with the flat names."""
    dst.mkdir()
    for p in src.iterdir():
        if p.is_file():
            shutil.copy(p, dst / p.name)
            continue
        n = p.name.split("_")[1]
        for f in p.iterdir():
            m = re.match(r"^(train|eval_.*?)(\.html|_logtree\.json|_rollout_summaries\.jsonl)$", f.name)
            assert m, f.name
            shutil.copy(f, dst / f"{m.group(1)}_iteration_{n}{m.group(2)}")


def test_both_layouts_same_iterations(tmp_path):
    flat = tmp_path / "flat"
    _to_flat(FIX / "arith_sync", flat)
    r_dir, run_dir = scan(FIX / "arith_sync")
    r_flat, run_flat = scan(flat)
    assert ref_summary(run_dir) == ref_summary(run_flat)
    a = r_dir.load(run_dir.iterations[0])
    b = r_flat.load(run_flat.iterations[0])
    assert a.groups == b.groups
    assert a.logtree == b.logtree


def test_flat_fixture():
    reader, run = scan(FIX / "flat_arith_sync")
    assert [(r.number, r.has_texts) for r in run.iterations] == [(0, True), (1, True)]
    assert {k: [r.number for r in v] for k, v in run.evals.items()} == {"1": [0], "test": [0]}
    assert run.iterations[0].locator["summaries"] == "train_iteration_000000_rollout_summaries.jsonl"
    it = reader.load(run.iterations[0])
    assert [g.has_text for g in it.groups] == [True] + [False] * 5
    # same summaries as the subdirectory layout
    d_reader, d_run = scan(FIX / "arith_sync")
    d_it = d_reader.load(d_run.iterations[0])
    assert [[m.reward for m in g.members] for g in it.groups] == [[m.reward for m in g.members] for g in d_it.groups]


def test_flat_names_wide_numbers_empty_and_underscored_labels(tmp_path):
    root = {"tag": "body", "attrs": {}, "children": []}
    for name in (
        "eval__iteration_000000.html",
        "eval__iteration_000000_logtree.json",
        "eval_my_eval_x_iteration_000003_logtree.json",
        "train_iteration_1234567_logtree.json",
        "timing_gantt.html",
    ):
        (tmp_path / name).write_text(json.dumps({"title": "t", "root": root}))
    summary = {"group_idx": 0, "traj_idx": 0, "total_reward": 1.0, "steps": []}
    write_jsonl(tmp_path / "train_iteration_1234567_rollout_summaries.jsonl", [summary])
    d = tmp_path / "iteration_1000000"
    d.mkdir()
    (d / "eval_a_b_logtree.json").write_text(json.dumps({"title": "t", "root": root}))
    (d / "timing_gantt.html").write_text("x")
    _, run = scan(tmp_path)
    assert [r.number for r in run.iterations] == [1234567]
    assert run.iterations[0].rollouts == 1
    assert {k: [r.number for r in v] for k, v in run.evals.items()} == {"": [0], "my_eval_x": [3], "a_b": [1000000]}


def test_eval_only_iteration_dir():
    _, run = scan(FIX / "arith_sync")
    # iteration_000005/ holds only eval files: no train page with texts
    five = [r for r in run.iterations if r.number == 5][0]
    assert not five.has_texts and five.locator is None
    assert run.evals["test"][-1].number == 5


def test_tmp_files_ignored(tmp_path):
    run_dir = copy_fixture("arith_sync", tmp_path)
    (run_dir / "iteration_000001" / ".train_logtree.json.1234.tmp").write_text("{partial")
    (run_dir / ".train_iteration_000009_logtree.json.55.tmp").write_text("{partial")
    (run_dir / ".metrics.jsonl.77.tmp").write_text("{partial")
    d7 = run_dir / "iteration_000007"
    d7.mkdir()
    (d7 / ".eval_test_logtree.json.9.tmp").write_text("{")
    reader, run = scan(run_dir)
    assert ref_summary(run) == ref_summary(scan(FIX / "arith_sync")[1])
    assert run.warnings == []
    reader.load(run.iterations[1])


# ----------------------------------------------------------------- load
def test_load_arith_train_groups():
    reader, run = scan(FIX / "arith_sync")
    it = reader.load(run.iterations[0])
    assert it.warnings == []
    assert it.logtree == {
        "title": "RL Iteration 0",
        "started_at": "2026-11-29T07:39:28.476977",
        "path": "/home/user/runs/arith_sync/iteration_000000/train.html",
    }
    assert isinstance(it.logtree_root, LogNode) and it.logtree_root.tag == "body"
    assert [g.id for g in it.groups] == [0, 1, 2, 3, 4, 5]
    assert [g.has_text for g in it.groups] == [True, True, False, False, False, False]
    assert run.iterations[0].groups == 6
    g0 = it.groups[0]
    assert [m.role for m in g0.prompt.messages] == ["user", "assistant", "user"]
    assert g0.prompt.messages[-1].content == "What is 44 + 47?"
    assert len(g0.conversations) == 4
    assert all([m.role for m in c] == ["assistant"] for c in g0.conversations)
    rewards = [m.reward for m in g0.members]
    assert rewards == sorted(rewards, reverse=True)
    assert [m.member for m in g0.members] == [3, 1, 2, 0]
    top, worst = g0.members[0], g0.members[-1]
    assert top.badges == ["correct"]
    assert worst.badges == ["incorrect", "bad format"]
    assert worst.steps[0].metrics == {"format": 0.0, "correct": 0.0}
    assert (top.sampling_step, top.tags, top.final_reward, top.final_ob_len) == (0, ["problems"], 0.0, 0)
    # the responses differ and carry no index: none is attributed to a member
    assert all(m.messages is None for m in g0.members)
    assert it.groups[4].prompt is None and it.groups[4].conversations == []


def test_load_calc_conversations_and_messages():
    reader, run = scan(FIX / "calc_agent_multiturn")
    it = reader.load(run.iterations[0])
    g0 = it.groups[0]
    assert [m.role for m in g0.prompt.messages] == ["system", "user"]
    assert g0.prompt.messages[1].content == "Compute: 26 * 28"
    assert len(g0.conversations) == 4
    assert all(c[0].role == "assistant" for c in g0.conversations)  # prompt prefix moved out
    # attributed through the env's assistant_content / tool_call logs
    assert all(m.messages is not None for m in g0.members)
    by_member = {m.member: m for m in g0.members}
    m3 = by_member[3]
    assert "parse_error" in m3.badges and "correct" in m3.badges
    first = m3.messages[0]
    assert [p.type for p in first.parts] == ["thinking", "text", "text"]
    assert first.parts[0].text == "Two calls at once."
    tc = first.tool_calls[0]
    assert (tc.id, tc.name, tc.arguments) == (None, "calculator", '{"expression": "26 * 28"}')
    assert first.unparsed_tool_calls[0].error.startswith("Invalid JSON")
    assert "<tool_call>" in first.unparsed_tool_calls[0].raw_text
    tool = m3.messages[1]
    assert (tool.role, tool.name, tool.tool_call_id) == ("tool", "calculator", "")
    assert by_member[1].messages[-1].parts[-1].text.endswith("The answer is 738.")
    assert [g.has_text for g in it.groups] == [True, True, False]
    assert len(it.groups[1].conversations) == 1


def test_load_calc_eval_truncated():
    reader, run = scan(FIX / "calc_agent_multiturn")
    it = reader.load(run.evals["test"][0])
    members = [m for g in it.groups for m in g.members]
    trunc = [m for m in members if m.truncated]
    assert len(trunc) == 1 and "stop/max_tokens" in trunc[0].badges
    assert it.logtree["title"] == "Running evaluation test 0"


def test_load_eval_without_summaries():
    reader, run = scan(FIX / "arith_sync")
    it = reader.load(run.evals["1"][0])
    assert it.groups == [] and it.logtree["title"] == "Running evaluation  0"
    assert (
        reader.logtree_bytes(run.evals["1"][0])
        == (FIX / "arith_sync/iteration_000000/eval_1_logtree.json").read_bytes()
    )


def test_async_style_no_logtrees(tmp_path):
    run_dir = copy_fixture("arith_sync", tmp_path)
    for p in run_dir.glob("iteration_*/train*"):
        if not p.name.endswith("_rollout_summaries.jsonl"):
            p.unlink()
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    for r in rows:  # async rows: training_client/step instead of progress/batch
        if "progress/batch" in r:
            r["training_client/step"] = r.pop("progress/batch")
            del r["step"]
    write_jsonl(run_dir / "metrics.jsonl", rows)
    reader, run = scan(run_dir)
    assert [r.number for r in run.iterations] == [0, 1, 2, 3, 4, 5]
    ref = run.iterations[0]
    assert ref.has_texts and ref.status == "completed"
    assert any("no logtree" in n for n in ref.notes)
    assert reader.logtree_bytes(ref) is None
    it = reader.load(ref)
    assert it.logtree is None and it.logtree_root is None
    assert len(it.groups) == 6 and not any(g.has_text for g in it.groups)
    assert all(len(g.members) == 4 for g in it.groups)


EXC_NODE = {
    "tag": "details",
    "attrs": {"class": "lt-exc", "open": "open"},
    "children": [
        {"tag": "summary", "attrs": {}, "children": ["Exception: RuntimeError: sampler died"]},
        {
            "tag": "pre",
            "attrs": {},
            "children": ["Traceback (most recent call last):\n  ...\nRuntimeError: sampler died"],
        },
    ],
}


def test_crashed_style_iteration(tmp_path):
    run_dir = copy_fixture("arith_sync", tmp_path)
    (run_dir / "iteration_000001" / "train_rollout_summaries.jsonl").unlink()
    lt = run_dir / "iteration_000001" / "train_logtree.json"
    doc = json.loads(lt.read_text())
    doc["root"]["children"].append(EXC_NODE)
    lt.write_text(json.dumps(doc, indent=2))
    reader, run = scan(run_dir)
    ref = run.iterations[1]
    assert ref.status == "crashed" and ref.has_texts
    assert any("exception" in n for n in ref.notes)
    assert run.info["crashed"] is True
    it = reader.load(ref)
    # groups rebuilt from the logtree's "Trajectory {i} Episode" sections
    assert len(it.groups) == 1 and it.groups[0].has_text and it.groups[0].id == 0
    m = it.groups[0].members
    assert len(m) == 1 and m[0].member == 0
    assert m[0].reward is not None and m[0].steps and m[0].steps[0].ob_len is not None
    # the sampled tokens, as a summary gives them: the card's "N tok" chip
    assert m[0].tokens == sum(s.ac_len for s in m[0].steps if s.ac_len is not None) > 0
    assert "correct" in m[0].steps[0].metrics
    assert len(it.groups[0].conversations) == 2


def test_missing_summaries_without_exception(tmp_path):
    run_dir = copy_fixture("arith_sync", tmp_path)
    (run_dir / "iteration_000001" / "train_rollout_summaries.jsonl").unlink()
    (run_dir / "iteration_000002" / "train_rollout_summaries.jsonl").unlink()
    _, run = scan(run_dir)
    # the steps' metrics were logged: tinker skipped the batches (every group failed or was
    # filtered: rl/train.py writes no summaries, logs the step and goes on)
    assert [r.status for r in run.iterations[1:3]] == ["skipped", "skipped"]
    assert all(any("skipped the batch" in n for n in r.notes) for r in run.iterations[1:3])
    metrics = run_dir / "metrics.jsonl"
    rows = [line for line in metrics.read_text().splitlines() if json.loads(line).get("step") not in (1, 2)]
    metrics.write_text("\n".join(rows) + "\n")
    _, run = scan(run_dir)
    assert run.iterations[1].status == "crashed"  # later iterations exist: it never finished
    assert run.iterations[2].status == "incomplete"  # the newest one: a live run may still write it
    assert any("still" in n for n in run.iterations[2].notes)


def test_crash_found_at_load(tmp_path):
    run_dir = copy_fixture("arith_sync", tmp_path)
    lt = run_dir / "iteration_000002" / "train_logtree.json"
    doc = json.loads(lt.read_text())
    doc["root"]["children"].append(EXC_NODE)
    lt.write_text(json.dumps(doc))
    reader, run = scan(run_dir)
    ref = run.iterations[2]
    assert ref.status == "completed"  # summaries exist: scan does not open the logtree
    reader.load(ref)
    assert ref.status == "crashed"


@pytest.mark.parametrize("torn", ['{"title": "x", "root": ', "", "[]"])
def test_an_unreadable_logtree_costs_its_page_the_logtree_only(tmp_path, torn):
    """A torn, empty or non-object logtree (a crash while tinker wrote it) is a warning naming
    the file: the build goes on, the page says why and shows the summaries, and the logtree
    JSON beside it is one the views export (valid JSON), not the torn bytes."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    bad = run_dir / "iteration_000001" / "train_logtree.json"
    bad.write_text(torn)
    reader, run = scan(run_dir)
    it = reader.load(run.iterations[1])
    assert any(w.startswith(str(bad)) and "rollout summaries only" in w for w in it.warnings)
    assert sum(len(g.members) for g in it.groups) == 24
    assert reader.logtree_bytes(run.iterations[1]) is None
    for jobs in (1, 2):
        out = tmp_path / f"site{jobs}"
        result = build(str(run_dir), out, BuildOptions(jobs=jobs))
        assert any("iteration_000001/train_logtree.json" in w for w in result.warnings)
        page = BeautifulSoup((out / "train_iteration_000001.html").read_text(), "html.parser")
        said = [p.get_text() for p in page.select("p.warning")]
        assert any(
            re.search(r"train_logtree\.json(:\d+:\d+)?: bad logtree JSON", w) and "summaries only" in w for w in said
        )
        assert len(page.select("article.member")) == 24
        json.loads((out / "train_iteration_000001_logtree.json").read_text())
        assert (out / "train_iteration_000002.html").exists()


def test_a_pre_0_6_resume_that_redoes_the_last_step_is_found(tmp_path):
    """Before 0.6 tinker did not truncate metrics.jsonl on resume (spec §9): steps
    [0, 1, 2, 2, 3, ...] mean a resume at 2, the same as [0, 1, 2, 3, 2, 3, ...]; the final
    step's second row (final eval, totals) and async eval rows at a training step are not."""
    run_dir = copy_fixture("arith_resumed", tmp_path)
    for f in run_dir.glob("metrics.jsonl.pre_resume_*"):
        f.unlink()
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in rows if "progress/batch" in r]
    # the earlier attempt of step 2, with a key the re-run does not log (cost/* when the
    # pricing fetch fails on resume), then the re-run
    again = dict(train[2], **{"env/all/reward/total": -5.0, "cost/dead_only": 123.0})
    rows.insert(rows.index(train[2]), again)
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, run = scan(run_dir)
    assert [s["resumed_at"] for s in run.segments] == [2]
    assert any(w.startswith("run resumed at step 2") for w in run.warnings)
    assert run.metrics.get(2, "env/all/reward/total") == train[2]["env/all/reward/total"]  # the later row
    # the later row replaces the earlier one whole: nothing of the dead attempt is left
    assert "cost/dead_only" not in run.metrics.columns
    assert run.metrics.steps == sorted(set(run.metrics.steps))
    _, plain = scan(copy_fixture("arith_sync", tmp_path / "plain"))
    assert plain.segments == []  # step 5 twice (final eval, totals): no resume


@pytest.mark.parametrize("eval_first", [True, False])
def test_a_pre_0_6_async_resume_keeps_nothing_of_the_dead_attempts_training_row(tmp_path, eval_first):
    """Async mode logs an evaluation's row apart (spec §3), before or after the training row of
    its step. A pre-0.6 resume at step 2: the dead attempt's training row of step 2 logged
    kl_policy_base, the re-run does not; its evaluation row merged into the dead row, which
    the drop then kept whole (kl_policy_base = 42 stayed at step 2)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()

    def train(step: int, **extra: float) -> dict:
        return {"step": step, "progress/batch": step, "env/all/reward/total": step / 10, **extra}

    def ev(step: int, value: float) -> dict:
        return {"step": step, "test/env/all/reward/total": value}

    # the dead attempt crashed in step 3, after step 2's training row (and, train first, the
    # evaluation of snapshot 2 that followed it)
    rows = [train(0), train(1), ev(1, 0.5), train(2, kl_policy_base=42.0)] + ([] if eval_first else [ev(2, 0.9)])
    # the re-run from the checkpoint of step 2: its evaluation of snapshot 2 and training rows
    rerun = [ev(2, 0.25), train(2), train(3)] if eval_first else [train(2), ev(2, 0.25), train(3)]
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows + rerun))
    _, run = scan(run_dir)
    assert [s["resumed_at"] for s in run.segments] == [2]
    assert run.metrics.get(2, "kl_policy_base") is None
    assert "kl_policy_base" not in run.metrics.columns
    assert run.metrics.get(2, "test/env/all/reward/total") == 0.25
    assert run.metrics.get(1, "test/env/all/reward/total") == 0.5
    assert run.metrics.get(2, "env/all/reward/total") == 0.2
    assert run.metrics.steps == [0, 1, 2, 3]


def test_bad_summary_lines_warn(tmp_path):
    run_dir = copy_fixture("arith_sync", tmp_path)
    p = run_dir / "iteration_000001" / "train_rollout_summaries.jsonl"
    lines = p.read_text().splitlines()
    lines.insert(2, "{broken")
    lines.insert(3, '"a string"')
    p.write_text("\n".join(lines) + "\n")
    reader, run = scan(run_dir)
    it = reader.load(run.iterations[1])
    assert sum(len(g.members) for g in it.groups) == 24
    assert any("train_rollout_summaries.jsonl:3" in w for w in it.warnings)
    assert any("train_rollout_summaries.jsonl:4" in w for w in it.warnings)


# -------------------------------------------------------------- lognode
def test_lognode_unescape_and_raw_html():
    root = lognode_from_json(
        {
            "tag": "body",
            "attrs": {"class": "lt-root"},
            "children": [
                {
                    "tag": "p",
                    "attrs": {"class": "lt-p"},
                    "children": ["&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#x27;q&#x27;"],
                },
                {"tag": "div", "attrs": {}, "children": ["<b onclick='x()'>bold</b>"]},
                {
                    "tag": "div",
                    "attrs": {},
                    "children": ["<i>dropped</i>"],
                    "data": {"type": "conversation", "messages": []},
                },
                {"tag": "div", "attrs": {"class": "answer"}, "children": ["plain &amp; simple"]},
            ],
        }
    )
    p, raw, conv, plain = root.children
    assert isinstance(p, LogNode) and p.children == ["<script>alert(1)</script> & 'q'"] and not p.raw_html
    assert isinstance(raw, LogNode) and raw.raw_html and raw.children == ["<b onclick='x()'>bold</b>"]
    assert isinstance(conv, LogNode) and conv.children == [] and conv.data["type"] == "conversation"
    assert isinstance(plain, LogNode) and plain.children == ["plain & simple"] and not plain.raw_html


def test_lognode_robust_to_bad_nodes():
    root = lognode_from_json(
        {
            "tag": None,
            "attrs": {"class": 3, "x": None},
            "children": [None, 5, {"children": "nope"}, {"tag": "weird-tag"}, ["list"]],
        }
    )
    assert root.tag == "div" and root.attrs == {"class": "3", "x": "None"}
    assert [c.tag for c in root.children if isinstance(c, LogNode)] == ["p", "div", "weird-tag", "p"]
    assert lognode_from_json("just text").children == ["just text"]


def test_lognode_depth_cut():
    node: dict[str, Any] = {"tag": "div", "attrs": {}, "children": ["leaf"]}
    for _ in range(MAX_DEPTH + 100):
        node = {"tag": "section", "attrs": {}, "children": [node]}
    root = lognode_from_json(node)
    depth, n = 0, root
    while isinstance(n.children[0], LogNode) and n.children[0].tag == "section":
        n = n.children[0]
        depth += 1
    assert depth == MAX_DEPTH
    cut = n.children[0]
    assert isinstance(cut, LogNode) and cut.attrs == {"class": "lt-cut"}
    assert "deeper than" in cut.children[0]


# ------------------------------------------------------------ storages
def _load_all(reader: TinkerReader, run: Run) -> list[Any]:
    out = []
    for ref in run.iterations + [r for v in run.evals.values() for r in v]:
        if ref.has_texts:
            it = reader.load(ref)
            out.append((ref.kind, ref.label, ref.number, it.groups, it.logtree, reader.logtree_bytes(ref)))
    return out


def _same_run(a: Run, b: Run) -> None:
    assert ref_summary(a) == ref_summary(b)
    assert a.title == b.title and a.model == b.model and a.config == b.config
    assert a.checkpoints == b.checkpoints and a.timing == b.timing and a.code_diff == b.code_diff
    assert a.segments == b.segments and a.info == b.info
    assert a.metrics.steps == b.metrics.steps and a.metrics.names() == b.metrics.names()


def test_memory_fs_same_run():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    base = "/reportgen-test/arith_sync"
    if fs.exists(base):
        fs.rm(base, recursive=True)
    src = FIX / "arith_sync"
    for p in src.rglob("*"):
        if p.is_file():
            fs.pipe(f"{base}/{p.relative_to(src).as_posix()}", p.read_bytes())
    try:
        local_reader, local = scan(src)
        mem_reader, mem = scan(f"memory://{base}")
        assert mem.source == f"memory://{base}"
        _same_run(local, mem)
        assert _load_all(local_reader, local) == _load_all(mem_reader, mem)
        assert looks_like_tinker(mem_reader.storage)
    finally:
        fs.rm(base, recursive=True)


def _s3_available() -> bool:
    try:
        import boto3  # noqa: F401
        import s3fs  # noqa: F401
        from moto.server import ThreadedMotoServer  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        return False
    return True


@pytest.mark.skipif(not _s3_available(), reason="moto[server], s3fs or boto3 not installed")
def test_s3_source_through_moto(monkeypatch):
    import boto3
    from moto.server import ThreadedMotoServer

    for k, v in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(k, v)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        s3.create_bucket(Bucket="bucket")
        src = FIX / "calc_agent_multiturn"
        for p in src.rglob("*"):
            if p.is_file():
                s3.put_object(Bucket="bucket", Key=f"run/{p.relative_to(src).as_posix()}", Body=p.read_bytes())
        storage = Storage("s3://bucket/run", storage_options={"client_kwargs": {"endpoint_url": endpoint}})
        assert looks_like_tinker(storage)
        s3_reader = TinkerReader(storage)
        remote = s3_reader.scan()
        local_reader, local = scan(src)
        assert remote.title == "run"
        remote.title = local.title
        _same_run(local, remote)
        assert _load_all(local_reader, local) == _load_all(s3_reader, remote)
    finally:
        server.stop()


# ------------------------------------------------------------------ 0.1.0: HTML only
def _conversation_texts(doc: Any) -> list[tuple[str, str]]:
    """(role, text) of every message of every conversation node of a logtree JSON document."""
    out: list[tuple[str, str]] = []
    stack = [doc["root"]]
    while stack:
        n = stack.pop()
        if not isinstance(n, dict):
            continue
        data = n.get("data")
        if isinstance(data, dict) and data.get("type") == "conversation":
            for m in data["messages"]:
                c = m["content"]
                parts = c if isinstance(c, list) else [{"type": "text", "text": c}]
                for p in parts:
                    t = p.get("text", p.get("thinking", ""))
                    if t.strip():
                        out.append((m["role"], t))
        stack.extend(n.get("children", []))
    return sorted(out)


def test_html_only_iterations_read_from_the_report(tmp_path):
    """0.1.0 runs have no JSON: the HTML report gives the conversations (minus tool calls)."""
    from reportgen.sources.tinker_html import logtree_from_html

    reader, run = scan(FIX / "v010_html")
    assert [(r.number, r.has_texts) for r in run.iterations] == [(0, True), (1, False)]
    assert {k: [(r.number, r.has_texts) for r in v] for k, v in run.evals.items()} == {
        "1": [(1, True)],
        "test": [(0, True)],
    }
    ref = run.iterations[0]
    assert any("logtree HTML" in n for n in ref.notes)
    it = reader.load(ref)
    assert it.logtree is not None and it.logtree["title"] == "RL Iteration 0"
    assert it.logtree["started_at"] == "2026-11-29T07:39:32"
    # the same groups, prompts and conversations as the JSON of the same iteration
    # (tests/fixtures keeps a trimmed JSON: its conversations are a subset)
    html_doc = logtree_from_html((FIX / "v010_html" / "train_iteration_000000.html").read_text(encoding="utf-8"))
    trimmed = json.loads((FIX / "calc_agent_multiturn" / "iteration_000000" / "train_logtree.json").read_text())
    from_html = _conversation_texts(html_doc)
    assert set(_conversation_texts(trimmed)) <= set(from_html)
    assert ("assistant", "I should use the calculator for this.") in from_html  # a thinking part
    assert len(it.groups) == 2 and all(g.has_text for g in it.groups)  # the logged groups
    g0 = it.groups[0]
    assert [m.role for m in g0.prompt.messages] == ["system", "user"]
    assert g0.prompt.messages[1].content == "Compute: 26 * 28"
    assert len(g0.members) == 4
    exported = json.loads(reader.logtree_bytes(ref))
    assert exported["title"] == "RL Iteration 0" and exported["root"]["attrs"] == {"class": "lt-root"}
    assert _conversation_texts(exported) == from_html


def test_html_only_run_builds_pages_with_every_text(tmp_path):
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build
    from reportgen.sources.tinker_html import logtree_from_html

    out = tmp_path / "site"
    build(str(FIX / "v010_html"), out, BuildOptions(jobs=1))
    for src, page in [
        ("train_iteration_000000.html", "train_iteration_000000.html"),
        ("eval_test_iteration_000000.html", "eval_test_iteration_000000.html"),
        ("eval_1_iteration_000001.html", "eval_1_iteration_000001.html"),
    ]:
        doc = logtree_from_html((FIX / "v010_html" / src).read_text(encoding="utf-8"))
        text = BeautifulSoup((out / page).read_text(encoding="utf-8"), "html.parser").get_text()
        texts = _conversation_texts(doc)
        assert texts or src.startswith("eval_1"), src
        for _, t in texts:
            for line in t.splitlines():
                assert line.strip() in text, (src, line)
        assert (out / page.replace(".html", "_logtree.json")).exists()


def test_html_report_is_hostile_input():
    """Scripts, styles, stray and unclosed tags, entities and deep nesting stay text or go."""
    from reportgen.sources.tinker_html import MAX_NESTING, logtree_from_html

    doc = logtree_from_html(
        "<html><head><title>t</title><style>body{}</style><script>alert(1)</script></head>"
        '<body class="lt-root"><h1 class="lt-title">A &amp; B</h1></span></div>'
        "<script>alert(2)</script>"
        '<div class="lt-conversation"><div class="lt-message lt-message-user">'
        '<span class="lt-message-role">user:</span><div class="lt-message-content">'
        '<span class="lt-text-part">x &lt;img src=x onerror=alert(3)&gt; &amp;amp;</span></div></div></div>'
        + "<div>" * (MAX_NESTING * 3)
        + "deep"
        + "<p>unclosed"
    )
    assert doc["title"] == "A & B"
    flat = json.dumps(doc)
    assert "alert(1)" not in flat and "alert(2)" not in flat and "body{}" not in flat
    assert _conversation_texts(doc) == [("user", "x <img src=x onerror=alert(3)> &amp;")]
    assert "deep" in flat and "unclosed" in flat
    import orjson

    orjson.dumps(doc)  # within orjson's nesting limit
    node = lognode_from_json(doc["root"])
    assert node.tag == "body"
    # constructs html.parser asserts on are read as text, not raised
    for odd in (
        "<![ x <![CDATA[<b>y</b>]]> z",
        "<!--m\x00<!<![</title><script]]> class=<head<!<details&#x</<![CDATA[q",
    ):
        doc = logtree_from_html(f'<body class="lt-root"><p>{odd}</p></body>')
        json.dumps(doc)
    from reportgen.sources.tinker import node_text

    assert node_text(lognode_from_json(logtree_from_html("<p><![ x</p>")["root"])) == "<![ x"


def test_members_without_text_are_not_duplicates(tmp_path):
    """arith_sync's trajectories have no attributed text (the env blocks are unlabelled, spec
    §12.9): all "" would compare equal, and every member was badged a duplicate."""
    from reportgen.views.iteration import duplicate_ids

    reader, run = scan(FIX / "arith_sync")
    it = reader.load(run.iterations[0])
    assert it.groups and all(m.messages is None and m.completion is None for g in it.groups for m in g.members)
    assert all(duplicate_ids(g) == set() for g in it.groups)
    g = it.groups[0]
    g.members[0].completion = g.members[1].completion = "91"  # texts, equal: still duplicates
    assert duplicate_ids(g) == {id(g.members[0]), id(g.members[1])}


def test_index_lists_stepless_rows_and_the_whole_model_name(tmp_path):
    """DiscardedWorkLog rows (no step, spec §3) are on the index, every key and value; a
    tinker model name ("org/model") is shown whole, not cut at its last slash."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    with open(run_dir / "metrics.jsonl", "a") as f:
        f.write('{"discarded/groups": 3.0, "discarded/why <b>": "stale"}\n')
    config = json.loads((run_dir / "config.json").read_text())
    config["model_name"] = "org-x/family/Model-7B"
    (run_dir / "config.json").write_text(json.dumps(config))
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    rows = index.select("section.unstepped tbody tr")
    n = len((run_dir / "metrics.jsonl").read_text().splitlines())
    assert [r.td.get_text() for r in rows] == [str(n)]
    text = rows[0].get_text(" ")
    assert "discarded/groups" in text and "3.0" in text and "discarded/why <b>" in text and "stale" in text
    model = [d for d in index.select("dl div") if d.dt.get_text() == "model"]
    assert model and model[0].dd.get_text() == "org-x/family/Model-7B"


def test_a_file_in_both_layouts_is_read_once_and_said(tmp_path):
    """The iteration_NNNNNN/ file wins over a flat one of the same iteration; the flat one is
    named in a warning (a note for ``reportgen check``), not dropped silently."""
    from reportgen.check import check

    run_dir = copy_fixture("arith_sync", tmp_path)
    shutil.copy(run_dir / "iteration_000001" / "train_logtree.json", run_dir / "train_iteration_000001_logtree.json")
    _, run = scan(run_dir)
    said = [w for w in run.warnings if "train_iteration_000001_logtree.json: ignored" in w]
    assert len(said) == 1 and "iteration_000001/train_logtree.json" in said[0]
    assert run.iterations[1].locator["logtree"] == "iteration_000001/train_logtree.json"
    rep = check(str(run_dir))
    assert any("train_iteration_000001_logtree.json: ignored" in n for n in rep.notes)
    assert not any("ignored" in p.message for p in rep.problems)


def test_tool_call_content_parts_are_the_messages_calls():
    """Renderers' ToolCallPart and UnparsedToolCallPart (spec §7.3: tinker's HTML draws them)
    are calls of the message, drawn as calls, not JSON text; one also in tool_calls is one call."""
    from reportgen.sources.tinker import message_from_json

    call = {"type": "function", "id": "c1", "function": {"name": "calc", "arguments": '{"x": "<1>"}'}}
    msg = message_from_json(
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "tool_call", "tool_call": call},
                {"type": "unparsed_tool_call", "raw_text": "<tool_call>{", "error": "Invalid JSON"},
            ],
            "tool_calls": [call, {"type": "function", "id": "c2", "function": {"name": "other", "arguments": "{}"}}],
        }
    )
    assert [(c.id, c.name, c.arguments) for c in msg.tool_calls] == [
        ("c1", "calc", '{"x": "<1>"}'),
        ("c2", "other", "{}"),
    ]
    assert [(u.raw_text, u.error) for u in msg.unparsed_tool_calls] == [("<tool_call>{", "Invalid JSON")]
    assert [p.type for p in msg.parts or []] == ["text"]


def test_schema_3_summaries_keep_what_they_add(tmp_path):
    """The unreleased schema 3 (spec §0) adds a conversation and status fields: the build says
    the version once a file, the conversation becomes the trajectory's, the rest its metadata."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    p = run_dir / "iteration_000001" / "train_rollout_summaries.jsonl"
    recs = [json.loads(line) for line in p.read_text().splitlines()]
    for i, r in enumerate(recs):
        r.update(
            schema_version=3,
            conversation=[{"role": "user", "content": f"q-{i} <x>"}, {"role": "assistant", "content": f"a-{i} & b"}],
            status="error" if i == 0 else "ok",
            error_message="timed out <e>" if i == 0 else None,
            stop_reason="length",
        )
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    result = build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    said = [w for w in result.warnings if "schema_version 3" in w]
    assert len(said) == 1 and said[0].startswith(f"{p}:1:")
    page = BeautifulSoup((tmp_path / "site" / "train_iteration_000001.html").read_text(), "html.parser")
    text = page.get_text()
    for i in range(len(recs)):
        assert f"q-{i} <x>" in text and f"a-{i} & b" in text
    assert "timed out <e>" in text and "stop_reason" in text
    # the logtree JSON beside the page is tinker's own, as written
    logtree = (tmp_path / "site" / "train_iteration_000001_logtree.json").read_bytes()
    assert logtree == (run_dir / "iteration_000001" / "train_logtree.json").read_bytes()


def test_a_torn_last_line_is_left_unread_as_observe_says(tmp_path):
    """A live run's last metrics row without its newline is being written: said as observe
    says it ('incomplete ... left unread'), not as a bad line skipped."""
    run_dir = copy_fixture("arith_sync", tmp_path)
    with open(run_dir / "metrics.jsonl", "a") as f:
        f.write('{"step": 9, "progress/ba')
    n = len((run_dir / "metrics.jsonl").read_text().splitlines())
    _, run = scan(run_dir)
    said = [w for w in run.warnings if "metrics.jsonl" in w]
    assert said == [
        f"{run_dir / 'metrics.jsonl'}:{n}: the last line is incomplete (24 bytes, no newline yet): left unread"
    ]


def test_two_equal_calls_of_one_message_stay_two():
    """Folding a content part's call into tool_calls must not fold tool_calls' own: a model
    may call a tool twice alike in one turn (ids are null with some renderers)."""
    from reportgen.sources.tinker import message_from_json

    call = {"type": "function", "id": None, "function": {"name": "calc", "arguments": "{}"}}
    msg = message_from_json(
        {
            "role": "assistant",
            "content": [{"type": "tool_call", "tool_call": call}],
            "tool_calls": [call, call],
            "unparsed_tool_calls": [{"raw_text": "x", "error": "e"}, {"raw_text": "x", "error": "e"}],
        }
    )
    assert len(msg.tool_calls) == 2 and len(msg.unparsed_tool_calls) == 2


def test_a_group_dropped_before_export_does_not_shift_the_logtree_sections(tmp_path):
    """Stream and async modes drop constant-reward groups before export, and failed groups
    are dropped in every mode, so the summaries' group_idx renumber the exported groups
    while the logtree's "Group Rollout" sections are the logged ones (spec §6, §7.2). A
    section goes to the group whose trajectories have its token counts; the dropped one is
    shown apart, not attached to the next group's rollouts."""
    src = tmp_path / "run"
    shutil.copytree(FIX / "arith_sync", src)
    path = src / "iteration_000000" / "train_rollout_summaries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    kept = []
    for r in rows:
        if r["group_idx"] == 0:
            continue  # dropped before export
        r["group_idx"] -= 1
        kept.append(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    whole = TinkerReader(Storage(str(FIX / "arith_sync")))
    whole_it = whole.load(whole.scan().iterations[0])
    reader = TinkerReader(Storage(str(src)))
    it = reader.load(reader.scan().iterations[0])

    def prompt_of(g):
        return g.prompt.messages[-1].plain_text() if g.prompt else None

    logged = [g for g in whole_it.groups if g.has_text]
    assert len(logged) == 2
    by_id = {g.id: g for g in it.groups}
    # exported group 0 is the logged group 1; group 0's section stands apart, with the
    # trajectories the logtree details; exported group 1 had no section
    assert prompt_of(by_id[0]) == prompt_of(logged[1]) and by_id[0].has_text
    assert not by_id[1].has_text
    apart = [g for g in it.groups if g.id is None]
    assert len(apart) == 1 and prompt_of(apart[0]) == prompt_of(logged[0])
    assert apart[0].label == "logged group 1, not exported"
    # (the trimmed fixture details one trajectory a group)
    assert apart[0].members and {m.reward for m in apart[0].members} <= {m.reward for m in logged[0].members}
    assert any("1 of the logtree's 2 group sections (number 1) match no group" in w for w in it.warnings)
    # the real run pairs every section with the group of its place
    assert not any("match no group" in w for w in whole_it.warnings)


def test_v010_eval_names_with_a_slash_wrote_into_folders(tmp_path):
    """tinker 0.1.0 did not sanitize an evaluator's name (spec §0): "arith-hard v2/x" wrote
    eval_arith-hard v2/x_iteration_000000.html, a file in a folder. Its pages are found,
    and its metrics (prefix "arith-hard v2/x") are its own."""
    src = copy_fixture("v010_html", tmp_path)
    report = (src / "eval_test_iteration_000000.html").read_text()
    (src / "eval_arith-hard v2").mkdir()
    (src / "eval_arith-hard v2" / "x_iteration_000000.html").write_text(report)
    rows = [json.loads(line) for line in (src / "metrics.jsonl").read_text().splitlines()]
    rows[0]["arith-hard v2/x/env/all/correct"] = 0.75
    write_jsonl(src / "metrics.jsonl", rows)
    reader, run = scan(src)
    assert "arith-hard_v2_x" in run.evals, sorted(run.evals)
    ref = run.evals["arith-hard_v2_x"][0]
    assert ref.number == 0 and ref.locator["html"] == "eval_arith-hard v2/x_iteration_000000.html"
    assert run.eval_metric_prefix["arith-hard_v2_x"] == "arith-hard v2/x"
    assert ref.headline["env/all/correct"] == 0.75
    assert reader.load(ref).groups


def test_a_label_shortened_for_file_names_keeps_its_metrics(tmp_path):
    """A label past 100 characters is shortened in output file names; its metrics, named by
    the whole prefix, are still matched to it."""
    long = "very-long-evaluator-name/" + "x" * 120
    write_jsonl(
        tmp_path / "metrics.jsonl",
        [{"step": 0, "progress/batch": 0, f"{long}/env/all/correct": 0.5, "env/all/reward/total": 0.3}],
    )
    d = tmp_path / "iteration_000000"
    d.mkdir()
    (d / f"eval_{sanitize_label(long)}_logtree.json").write_text(
        json.dumps({"title": "t", "root": {"tag": "body", "attrs": {}, "children": []}})
    )
    _, run = scan(tmp_path)
    (label,) = run.evals
    assert len(label) < 100 and run.eval_metric_prefix == {label: long}
    assert run.evals[label][0].headline["env/all/correct"] == 0.5


def test_rollout_counts_are_what_the_pages_show(tmp_path):
    """An iteration's rollout count is its summaries' lines (what its page shows): the
    total_episodes metric also counts groups dropped before export; and a total_episodes
    past any count (1e300) is no count, not a crash."""
    src = copy_fixture("arith_sync", tmp_path)
    rows = [json.loads(line) for line in (src / "metrics.jsonl").read_text().splitlines()]
    rows[0]["env/all/total_episodes"] = 1e300
    rows[1]["env/all/total_episodes"] = 1000.0
    write_jsonl(src / "metrics.jsonl", rows)
    _, run = scan(src)
    by_step = {r.number: r for r in run.iterations}
    for step in (0, 1):
        lines = (src / f"iteration_{step:06d}" / "train_rollout_summaries.jsonl").read_text().splitlines()
        assert by_step[step].rollouts == len(lines)
    from reportgen.site import build

    build(str(src), tmp_path / "site")


def test_code_diff_lines_are_coloured_by_their_hunk(tmp_path):
    """code.diff (spec §8): inside a hunk a line is added, deleted or context by its first
    character, whatever follows ("--x" is a deleted "-x", "++y" an added "+y"); the
    "-- repo-wide ... --" header is a header, not a deletion."""
    from bs4 import BeautifulSoup

    from reportgen.site import build

    src = copy_fixture("arith_sync", tmp_path)
    (src / "code.diff").write_text(
        "### repo: /x @ abc\nmodules: tinker_cookbook\n-- repo-wide (vs HEAD, staged+unstaged) --\n"
        "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n--x\n++y\n c\n"
        "@@ -10 +10,2 @@\n-old\n+new\n+more\n"
    )
    build(str(src), tmp_path / "site")
    page = BeautifulSoup((tmp_path / "site" / "code_diff.html").read_text(), "html.parser")
    classes = {s.get_text(): (s.get("class") or [""])[0] for s in page.select("pre span")}
    assert classes["-- repo-wide (vs HEAD, staged+unstaged) --"] == "file"
    assert classes["--x"] == "del" and classes["++y"] == "add"
    assert classes["--- a/f.py"] == "file" and classes["+++ b/f.py"] == "file"
    assert classes["-old"] == "del" and classes["+more"] == "add"


def test_a_page_without_a_logtree_exports_the_summaries_in_tinkers_vocabulary(tmp_path):
    """Without a logtree (async mode, num_groups_to_log=0) the logtree JSON beside the page is
    made from the rollout summaries: for an agent env their step logs are the only text, so
    each trajectory's steps go in as tinker details them ("Trajectory {i} Episode", "Turn k",
    "Step stats", "Step Metrics", "Diagnostics", "Episode totals"), which this reader reads
    back to the same trajectories; a logged dict is its JSON, not a Python repr."""
    from reportgen.site import build
    from reportgen.sources.tinker import _trajectory_sig, group_sections, parse_group_section

    src = copy_fixture("calc_agent_multiturn", tmp_path)
    it_dir = src / "iteration_000000"
    (it_dir / "train_logtree.json").unlink()
    (it_dir / "train.html").unlink()
    path = it_dir / "train_rollout_summaries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["steps"][0]["logs"]["dict_log"] = {"a": [1, 2], "b": "<x>"}
    rows[0]["trajectory_metrics"] = {"zero_reward_on_limit": 1.0}
    write_jsonl(path, rows)
    build(str(src), tmp_path / "site")
    raw = (tmp_path / "site" / "train_iteration_000000_logtree.json").read_text()
    doc = json.loads(raw)
    import html as html_mod

    def strings(n):
        if isinstance(n, str):
            yield n
        elif isinstance(n, dict):
            for c in n.get("children", []):
                yield from strings(c)

    shown = [html_mod.unescape(x) for x in strings(doc["root"])]
    logged = [v.strip() for r in rows for s in r["steps"] for v in s["logs"].values() if isinstance(v, str)]
    assert logged and all(any(v in x for x in shown) for v in logged)
    assert "dict_log: " + '{"a":[1,2],"b":"<x>"}' in shown
    assert "<x>" not in raw and "{'a'" not in raw  # escaped once, as logtree strings are
    assert "trajectory_metrics/zero_reward_on_limit" in shown
    # read back: the same trajectories, by their token counts and returns
    reader, run = scan(src)
    want = {g.id: sorted(map(_trajectory_sig, g.members), key=repr) for g in reader.load(run.iterations[0]).groups}
    back = [parse_group_section(s) for s in group_sections(lognode_from_json(doc["root"]))]
    assert [sorted(map(_trajectory_sig, s.members), key=repr) for s in back] == [want[g] for g in sorted(want)]
    assert sorted(m.reward for m in back[0].members) == sorted(r["total_reward"] for r in rows if r["group_idx"] == 0)
    # and the page shows the dict as JSON
    page = (tmp_path / "site" / "train_iteration_000000.html").read_text()
    assert "{&#34;a&#34;:[1,2],&#34;b&#34;:&#34;&lt;x&gt;&#34;}" in page or '{"a":[1,2]' in page.replace("&#34;", '"')
    assert "{&#39;a&#39;" not in page and "{'a'" not in page


def test_metric_values_that_are_not_numbers_are_said(tmp_path):
    """Nothing makes a metric a number (spec §3): a string, a boolean, a list cannot be
    charted; the build says which (file and line), check lists it as a note."""
    from reportgen.check import check

    src = copy_fixture("arith_sync", tmp_path)
    rows = [json.loads(line) for line in (src / "metrics.jsonl").read_text().splitlines()]
    rows[1]["custom/str"] = "hello"
    rows[2]["custom/bool"] = True
    rows[2]["custom/str"] = "0.5"
    write_jsonl(src / "metrics.jsonl", rows)
    _, run = scan(src)
    said = [w for w in run.warnings if "are not numbers" in w]
    assert len(said) == 1 and "3 value(s) of 2 metric(s)" in said[0]
    assert "'custom/str' (line 2)" in said[0] and "'custom/bool' (line 3)" in said[0]
    assert "custom/str" not in run.metrics.columns
    report = check(str(src))
    assert not any("are not numbers" in p.message for p in report.problems)
    assert any("are not numbers" in n for n in report.notes)


def test_timing_spans_become_metrics_and_bad_lines_are_said(tmp_path):
    """timing_spans.jsonl (spec §8) is shown: each step's span seconds summed by name, as
    metrics timing_spans/<name>. A line that is not an object in it or in
    checkpoints.jsonl is said with its line; a bad config.json or logtree is said with its
    line and column, and code.diff's invalid UTF-8 with its first line."""
    src = copy_fixture("arith_sync", tmp_path)
    spans = [json.loads(line) for line in (src / "timing_spans.jsonl").read_text().splitlines()]
    want: dict[str, float] = {}
    for sp in spans[0]["spans"]:
        want[sp["name"]] = want.get(sp["name"], 0.0) + sp["duration"]
    with open(src / "timing_spans.jsonl", "a") as f:
        f.write('"not an object"\n')
    with open(src / "checkpoints.jsonl", "a") as f:
        f.write("[1, 2]\n")
    (src / "config.json").write_text('{\n  "a": 1,\n  "b": \n}\n')
    (src / "code.diff").write_bytes(b"### repo\nline two\nbad \xff byte\n")
    # a metric of metrics.jsonl named as a span's is kept, and said
    name = spans[0]["spans"][0]["name"]
    rows = [json.loads(line) for line in (src / "metrics.jsonl").read_text().splitlines()]
    rows[0][f"timing_spans/{name}"] = 123.0
    write_jsonl(src / "metrics.jsonl", rows)
    want.pop(name)
    _, run = scan(src)
    assert run.metrics.get(rows[0]["step"], f"timing_spans/{name}") == 123.0
    assert any("span metrics named as metrics.jsonl's own are left out" in w and name in w for w in run.warnings)
    for name, seconds in want.items():
        assert run.metrics.get(spans[0]["step"], f"timing_spans/{name}") == pytest.approx(seconds)
    said = "\n".join(run.warnings)
    n_spans = len(spans) + 1
    assert f"timing_spans.jsonl:{n_spans}: not an object; skipped" in said
    n_ckpt = len((src / "checkpoints.jsonl").read_text().splitlines())
    assert f"checkpoints.jsonl:{n_ckpt}: not an object; skipped" in said
    assert "config.json:4:1: not valid JSON" in said
    assert "code.diff:3: invalid UTF-8 replaced by U+FFFD" in said


def test_a_summary_line_of_another_step_or_split_is_said(tmp_path):
    """A rollout-summaries line whose iteration or split is not its file's is read as the
    file's, and said once, with its line."""
    src = copy_fixture("arith_sync", tmp_path)
    path = src / "iteration_000001" / "train_rollout_summaries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[3]["iteration"] = 99
    rows[5]["split"] = "eval/other"
    write_jsonl(path, rows)
    reader, run = scan(src)
    it = reader.load(run.iterations[1])
    said = [w for w in it.warnings if "is not this file's" in w]
    assert len(said) == 1 and "train_rollout_summaries.jsonl:4: iteration 99, split 'train'" in said[0]
    assert sum(len(g.members) for g in it.groups) == len(rows)


def test_every_relative_link_and_anchor_of_a_tinker_site_resolves(tmp_path):
    """Every page's relative links reach a file of the site, and their #anchors an id in it
    (an evaluator page's "all iterations" leads to its row of the index)."""
    from urllib.parse import unquote, urlsplit

    from bs4 import BeautifulSoup

    from reportgen.site import build

    site = tmp_path / "site"
    build(str(FIX / "arith_sync"), site)
    ids: dict[str, set[str]] = {}
    pages = sorted(site.glob("*.html"))
    for p in pages:
        soup = BeautifulSoup(p.read_text(), "html.parser")
        all_ids = [e["id"] for e in soup.select("[id]")]
        ids[p.name] = set(all_ids)
        assert len(all_ids) == len(ids[p.name]), p.name  # no id twice (an evaluator's section and rows)
        assert len(soup.select("h1")) == 1, p.name  # the logtree's title is no second h1
    for p in pages:
        for a in BeautifulSoup(p.read_text(), "html.parser").select("a[href]"):
            u = urlsplit(a["href"])
            if u.scheme or u.netloc:
                continue
            target = unquote(u.path) or p.name
            assert (site / target).exists(), (p.name, a["href"])
            if u.fragment and "=" not in u.fragment and target.endswith(".html"):
                assert unquote(u.fragment) in ids[target], (p.name, a["href"])
    assert any(
        a["href"] == "index.html#ev-test-0"
        for a in BeautifulSoup((site / "eval_test_iteration_000000.html").read_text(), "html.parser").select("a")
    )


def test_the_index_shows_a_nan_in_the_config_as_the_file_wrote_it(tmp_path):
    """tinker writes config.json with json.dumps, NaN and Infinity as bare tokens: the index's
    config.json block shows them so, not as null."""
    from bs4 import BeautifulSoup

    from reportgen.site import build

    src = copy_fixture("arith_sync", tmp_path)
    text = (src / "config.json").read_text().rstrip()
    (src / "config.json").write_text(text[:-1].rstrip() + ', "odd": NaN, "far": -Infinity}\n')
    build(str(src), tmp_path / "site")
    shown = (
        BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
        .select_one("section.config pre")
        .get_text()
    )
    assert '"odd": NaN' in shown and '"far": -Infinity' in shown


def test_a_linked_evaluator_folder_is_not_followed(tmp_path):
    """Folders of 0.1.0 evaluator names are walked, links among them are not: eval_x -> .
    would read the run again, and eval_y -> elsewhere what is not the run's."""
    src = copy_fixture("v010_html", tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret_iteration_000000.html").write_text((src / "eval_test_iteration_000000.html").read_text())
    (src / "eval_loop").symlink_to(src)
    (src / "eval_out").symlink_to(outside)
    (src / "eval_real").mkdir()
    (src / "eval_real" / "inner").symlink_to(src)
    _, run = scan(src)
    assert not any("loop" in label or "out" in label or "secret" in label or "inner" in label for label in run.evals)


def test_evaluators_known_only_from_the_metrics_are_listed_with_every_step(tmp_path):
    """An evaluator's results are merged into the training rows at eval steps, and the final
    evaluation has a row of its own (spec §3): the index lists every step that has one of its
    values, with a page or "metrics only", also for an evaluator that wrote no file at all
    (arith_resumed), and the run's summary (run.json) has its last result."""
    from bs4 import BeautifulSoup

    from reportgen.site import build

    fixtures = Path(__file__).parent / "fixtures" / "tinker"
    site = tmp_path / "s"
    build(str(fixtures / "arith_sync"), site)
    soup = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    rows = {
        sec["id"]: [[td.get_text(strip=True) for td in tr.select("td")] for tr in sec.select("tbody tr")]
        for sec in soup.select("section.evals")
    }
    hard = rows["evaluator-arith-hard_v2_x"]
    assert [r[0] for r in hard] == ["0", "2", "4", "5"]  # pages only for step 0
    assert hard[0][-1] == "texts" and hard[2][-1] == "metrics only"
    link = soup.select_one("#evaluator-arith-hard_v2_x tbody tr a")
    assert link is not None and link["href"] == "eval_arith-hard_v2_x_iteration_000000.html"
    assert [r[0] for r in rows["evaluator-test"]] == ["0", "2", "4", "5"]
    assert rows["evaluator-test"][2][1:] == ["1", "1", "1", "metrics only"]
    # an eval page's headline names the evaluator's metrics, not the training ones
    page = BeautifulSoup((site / "eval_test_iteration_000000.html").read_text(), "html.parser")
    labels = [dt.get_text(strip=True) for dt in page.select("dl.headline dt")]
    assert labels and all(label.startswith("test/env/all/") for label in labels), labels

    resumed = tmp_path / "r"
    build(str(fixtures / "arith_resumed"), resumed)
    soup = BeautifulSoup((resumed / "index.html").read_text(), "html.parser")
    header = {d.dt.get_text(strip=True): d.dd.get_text(strip=True) for d in soup.select("dl > div") if d.dt}
    assert header["evaluators"] == "arith-hard v2/x, test"
    ids = [sec["id"] for sec in soup.select("section.evals")]
    assert ids == ["evaluator-arith-hard_v2/x", "evaluator-test"]  # no blank in an id
    assert all(len(sec.select("tbody tr")) == 4 for sec in soup.select("section.evals"))
    summary = json.loads((resumed / "run.json").read_text())
    assert [e["label"] for e in summary["evals"]] == ["arith-hard v2/x", "test"]
    assert summary["evals"][1]["step"] == 5


def test_the_final_step_is_listed_but_not_counted_as_an_iteration(tmp_path):
    """Step N after N training steps holds the final evaluation and the cost totals (spec
    §3): the index lists it as such, not as a completed iteration, and counts 5 iterations."""
    from bs4 import BeautifulSoup

    from reportgen.site import build

    site = tmp_path / "s"
    build(str(Path(__file__).parent / "fixtures" / "tinker" / "arith_sync"), site)
    soup = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    header = {d.dt.get_text(strip=True): d.dd.get_text(" ", strip=True) for d in soup.select("dl > div") if d.dt}
    assert header["iterations"] == "5 + 1 final"
    status = {tr["id"]: tr.select("td")[1].get_text(strip=True) for tr in soup.select("#iterations tbody tr")}
    assert status["u4"] == "completed" and status["u5"] == "final evaluation or totals"
    assert json.loads((site / "run.json").read_text())["iterations"] == 5


def test_equal_conversations_go_one_to_each_member_and_are_not_shown_again():
    """Several trajectories of a group may say the same thing (727 three times): each member
    takes a conversation object of its own, so the page's "not attributable" list (the
    conversations no member took, by identity) holds none of them again."""
    from .test_iteration_view import groups_html

    reader, run = scan(FIX / "calc_agent_multiturn")
    it = reader.load(run.iterations[0])
    for g in it.groups:
        if not g.conversations:
            continue
        taken = [m.messages for m in g.members if m.messages is not None]
        assert len({id(c) for c in taken}) == len(taken), g.id  # no object given twice
        ids = {id(c) for c in g.conversations}
        assert all(id(c) in ids for c in taken), g.id
    g0 = it.groups[0]
    assert len(g0.conversations) == 4 and all(m.messages is not None for m in g0.members)
    assert len({tuple(map(repr, m.messages)) for m in g0.members}) < 4  # two of them are equal
    html = groups_html([g0], observe=False)
    assert "not attributable" not in html


def test_the_build_line_counts_rollouts_as_the_index_does(tmp_path):
    """The CLI's last line gives the index's rollout count (every train iteration's, with
    texts or not) and the evaluations' apart, a rebuild the same as the build."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    _, run = scan(run_dir)
    train = sum(r.rollouts for r in run.iterations)
    evals = sum(r.rollouts for refs in run.evals.values() for r in refs)
    assert train and evals
    for _ in range(2):
        res = build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
        assert f", {train:,} rollouts (and {evals:,} in evaluations), " in res.summary()
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    shown = {d.dt.get_text(): d.dd.get_text() for d in index.select("dl div")}
    assert shown["rollouts"] == f"{train:,}"


def test_pages_of_one_step_link_each_other_and_a_new_one_renders_them_again(tmp_path):
    """A train page links its step's evaluations and an eval page the training iteration and
    the other evaluators; an eval page that appears later is linked by a rebuild (the
    pages' keys hold the step's pages)."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    it0 = run_dir / "iteration_000000"
    aside = tmp_path / "aside"
    aside.mkdir()
    for f in it0.glob("eval_test*"):  # evaluator "test" writes its step 0 after the first build
        f.rename(aside / f.name)
    site = tmp_path / "site"

    def links(page: str) -> list[str]:
        soup = BeautifulSoup((site / page).read_text(), "html.parser")
        return [a["href"] for a in soup.select("p.same-step a")]

    build(str(run_dir), site, BuildOptions(jobs=1))
    assert links("train_iteration_000000.html") == [
        "eval_1_iteration_000000.html",
        "eval_arith-hard_v2_x_iteration_000000.html",
    ]
    for f in aside.iterdir():
        f.rename(it0 / f.name)
    build(str(run_dir), site, BuildOptions(jobs=1))
    assert links("train_iteration_000000.html")[-1] == "eval_test_iteration_000000.html"
    assert links("eval_test_iteration_000000.html") == [
        "train_iteration_000000.html",
        "eval_1_iteration_000000.html",
        "eval_arith-hard_v2_x_iteration_000000.html",
    ]


def test_trace_events_become_one_chrome_trace_file_linked_from_the_index(tmp_path):
    """trace_events.jsonl (one Chrome trace event a line, Config.enable_trace) is written as
    trace_events.json, {"traceEvents": [...]}, which Perfetto opens as it is; a bad line is
    skipped and said; a rebuild without the file drops it."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("calc_agent_multiturn", tmp_path)
    events = [
        {"name": "do_sync_training", "ph": "B", "pid": 0, "tid": 7, "ts": 646264110.985, "args": {"track": "main"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "ts": 0, "args": {"name": "main </script>"}},
        {"name": "do_sync_training", "ph": "E", "pid": 0, "tid": 7, "ts": 646265110.5, "args": {}},
    ]
    lines = [json.dumps(events[0]), "{torn", json.dumps(events[1]), json.dumps(events[2])]
    (run_dir / "trace_events.jsonl").write_text("\n".join(lines) + "\n")
    site = tmp_path / "site"
    res = build(str(run_dir), site, BuildOptions(jobs=1))
    assert json.loads((site / "trace_events.json").read_text()) == {"traceEvents": events}
    assert any("trace_events.jsonl:2: bad JSON line skipped" in w for w in res.warnings)
    index = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    link = index.select_one("p.trace a")
    assert link is not None and link["href"] == "trace_events.json"
    assert "3 events" in index.select_one("p.trace").get_text()
    (run_dir / "trace_events.jsonl").unlink()
    build(str(run_dir), site, BuildOptions(jobs=1))
    assert not (site / "trace_events.json").exists()
    assert BeautifulSoup((site / "index.html").read_text(), "html.parser").select_one("p.trace") is None


def test_an_html_report_alone_in_the_latest_iteration_folder_is_one_being_written(tmp_path):
    """tinker 0.2+ writes train.html (a plain open(), not atomic) before the logtree JSON: a
    half-written report alone in the latest iteration_NNNNNN/ was read as a finished 0.1.0
    iteration, its members from whatever the half held. An HTML report alone in an older
    folder, or in the flat layout of 0.1.0, is still read."""
    src = tmp_path / "run"
    shutil.copytree(FIX / "arith_sync", src)
    shutil.rmtree(src / "iteration_000005")  # the final evaluations: not yet, in a live run
    last = src / "iteration_000002"
    for f in last.glob("train*"):
        if f.name != "train.html":
            f.unlink()
    html = (last / "train.html").read_bytes()
    (last / "train.html").write_bytes(html[: len(html) // 2])
    _reader, run = scan(src)
    ref = next(r for r in run.iterations if r.number == 2)
    assert ref.status == "incomplete" and not ref.has_texts and "html" not in (ref.locator or {})
    assert any("still be writing" in n for n in ref.notes) and not any("0.1.0" in n for n in ref.notes)
    # the same report alone in an older folder: read from the HTML, as it is all there is
    older = src / "iteration_000001"
    for f in older.glob("train*"):
        if f.name != "train.html":
            f.unlink()
    _reader, run = scan(src)
    ref = next(r for r in run.iterations if r.number == 1)
    assert ref.has_texts and any("0.1.0" in n for n in ref.notes)


def _paired(groups: list[list[Any]], sections: list[list[Any] | None], any_order: bool = False) -> list[int | None]:
    """``_pair_sections`` on groups and sections given as the token counts of their
    trajectories (one step each); a section of None has no trajectory details."""
    from reportgen.model import Member, Step
    from reportgen.sources.tinker import GroupSection, _pair_sections

    def members(lens: list[Any]) -> list[Member]:
        out = []
        for i, x in enumerate(lens):
            n, reward = x if isinstance(x, tuple) else (x, None)  # (tokens, total reward)
            m = Member(i, reward=reward)
            m.steps = [Step(0, n, n, None, True, {}, {})]
            m.final_ob_len = n
            out.append(m)
        return out

    secs = []
    for lens in sections:
        s = GroupSection()
        s.members = members(lens) if lens is not None else []
        secs.append(s)
    return _pair_sections(list(range(len(groups))), {g: members(x) for g, x in enumerate(groups)}, secs, any_order)


def test_a_failed_groups_section_pairs_with_no_group():
    """A group that failed keeps its logged prompt and answers but gets no "Trajectory
    Details" (added after grading) and is not exported: its section belonged to the next
    group by order, and every later section moved one group on."""
    groups = [[5, 6], [7, 8], [9, 10], [11, 12], [13, 14]]  # D0, D2, D3, D4, D5 exported
    assert _paired(groups, [[5, 6], None, [7, 8], [9, 10]]) == [0, None, 1, 2]
    # no section with details at all: by order, as the spec says
    assert _paired(groups, [None, None]) == [0, 1]


def test_stream_minibatch_summaries_pair_in_the_order_groups_finished():
    """Stream-minibatch mode exports its summaries in the order the groups finished, not the
    order they started (the logtree's): only there, a section finds its group on either side."""
    groups = [[9, 9], [5, 5], [11, 11], [7, 7], [13, 13]]  # finished: D2, D0, D3, D1, D4
    sections = [[5, 5], [7, 7], [9, 9], [11, 11]]  # started: D0, D1, D2, D3
    assert _paired(groups, sections, any_order=True) == [1, 3, 0, 2]
    assert _paired(groups, sections) == [None, None, 0, 2]  # batch order: never a later group


def test_a_torn_summaries_line_is_not_counted(tmp_path):
    """A summaries file cut inside its last line: the iteration's count is the members the
    page shows (it counted the cut line too)."""
    run_dir = copy_fixture("arith_sync", tmp_path)
    path = run_dir / "iteration_000001" / "train_rollout_summaries.jsonl"
    data = path.read_bytes()
    lines = data.count(b"\n")
    path.write_bytes(data[:-20])  # the last line without its end
    reader, run = scan(run_dir)
    ref = next(r for r in run.iterations if r.number == 1)
    it = reader.load(ref)
    assert ref.rollouts == lines - 1 == sum(len(g.members) for g in it.groups if g.id is not None)


def test_groups_of_the_same_token_counts_pair_by_their_rewards():
    """A constant-reward group dropped in stream mode beside a kept one of the same token
    counts: the section's "total_return" (written with 3 decimals) tells them apart."""
    groups = [[(5, 1.0), (5, 1.0)], [(5, 0.0), (5, 1.0)], [(7, 0.5), (7, 0.25)]]  # D0, D2, D3 (D1 dropped)
    sections = [[(5, 1.0), (5, 1.0)], [(5, 1.0), (5, 1.0)], [(5, 0.0), (5, 1.0)], [(7, 0.5), (7, 0.25)]]
    assert _paired(groups, sections, any_order=True) == [0, None, 1, 2]
    # a reward the section rounded to 3 decimals is the same reward
    assert _paired([[(5, 1 / 3)]], [[(5, 0.333)]]) == [0]


def test_unknown_step_keys_of_a_summary_are_shown_with_its_logs(tmp_path):
    """A later schema's keys inside ``steps[]`` (a step's text, its stop reason) were dropped
    unseen; they are shown and searched with the step's logs, which keep their own values."""
    run_dir = copy_fixture("arith_sync", tmp_path)
    path = run_dir / "iteration_000001" / "train_rollout_summaries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["steps"][0]["text"] = "STEP-TEXT"
    rows[0]["steps"][0]["stop_reason"] = "length"
    rows[0]["steps"][0].setdefault("logs", {})["own"] = "kept"
    write_jsonl(path, rows)
    reader, run = scan(run_dir)
    it = reader.load(next(r for r in run.iterations if r.number == 1))
    member = next(m for g in it.groups for m in g.members if m.steps and m.steps[0].logs.get("text") == "STEP-TEXT")
    assert member.steps[0].logs["stop_reason"] == "length" and member.steps[0].logs["own"] == "kept"


def test_an_evaluator_without_a_name_is_said_to_have_none(tmp_path):
    """tinker 0.1.0 wrote an evaluator of an empty name as eval__iteration_N.html (spec §0):
    its page was "Eval , step 0" and the index listed ", test"."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("v010_html", tmp_path)
    named = sorted(run_dir.glob("eval_test_iteration_*.html"))[0]
    named.rename(run_dir / named.name.replace("eval_test_", "eval__"))
    site = tmp_path / "site"
    build(str(run_dir), site, BuildOptions(jobs=1))
    page = sorted(site.glob("eval__iteration_*.html"))[0]
    assert BeautifulSoup(page.read_text("utf-8"), "html.parser").title.get_text().startswith("Eval (no name), step ")
    index = BeautifulSoup((site / "index.html").read_text("utf-8"), "html.parser")
    facts = {d.find("dt").get_text(): d.find("dd").get_text() for d in index.select("dl.facts-grid > div")}
    assert "(no name)" in facts["evaluators"].split(", ")


def test_a_nested_v010_report_of_the_latest_step_is_read(tmp_path):
    """0.1.0's report of an evaluator named "a/b" sits in eval_a/ (flat layout, finished): only
    an HTML report alone in iteration_NNNNNN/ is one being written."""
    run_dir = copy_fixture("v010_html", tmp_path)
    latest = max(run_dir.glob("eval_*_iteration_*.html"), key=lambda p: p.name.rsplit("_", 1)[1])
    (run_dir / "eval_a").mkdir()
    number = latest.name.rsplit("_", 1)[1]
    (run_dir / "eval_a" / f"b_iteration_{number}").write_bytes(latest.read_bytes())
    _reader, run = scan(run_dir)
    ref = next(r for refs in run.evals.values() for r in refs if "a" in r.label and "b" in r.label)
    assert ref.has_texts and ref.status != "incomplete" and "html" in ref.locator


def _crash_in_final_eval(run_dir: Path) -> None:
    """The run raised while evaluator "test" sampled at step 5 (tinker's final evaluation):
    a partial logtree ending with the exception, no summaries, no metrics or checkpoint after."""
    it5 = run_dir / "iteration_000005"
    (it5 / "eval_test_rollout_summaries.jsonl").unlink()
    lt = it5 / "eval_test_logtree.json"
    doc = json.loads(lt.read_text())
    doc["root"]["children"].append(EXC_NODE)
    lt.write_text(json.dumps(doc))
    rows = (run_dir / "metrics.jsonl").read_text().splitlines()
    (run_dir / "metrics.jsonl").write_text("".join(r + "\n" for r in rows if json.loads(r)["step"] != 5))
    ckpts = (run_dir / "checkpoints.jsonl").read_text().splitlines()
    (run_dir / "checkpoints.jsonl").write_text("".join(c + "\n" for c in ckpts if '"final"' not in c))


def test_a_crash_in_an_evaluation_is_the_runs_crash(tmp_path):
    """Spec §7.2 item 3 holds for an evaluator's logtree too: the run summary, the sweep's
    status and ``check`` say the run crashed (the evaluator's page alone said so before)."""
    from bs4 import BeautifulSoup

    from reportgen.check import check
    from reportgen.site import BuildOptions, build
    from reportgen.sweep import run_status

    run_dir = copy_fixture("arith_sync", tmp_path)
    _crash_in_final_eval(run_dir)
    _, run = scan(run_dir)
    ref = next(r for r in run.evals["test"] if r.number == 5)
    assert ref.status == "crashed" and any("exception" in n for n in ref.notes)
    assert run.info["crashed"] is True
    status, why = run_status(run)
    assert status == "crashed" and "evaluator 'test' at step 5" in why
    report = check(str(run_dir))
    crashed = [p for p in report.problems if p.kind == "crashed iteration"]
    assert len(crashed) == 1 and crashed[0].file.endswith("iteration_000005/eval_test_logtree.json")
    assert "evaluator test, step 5" in crashed[0].message
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    soup = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    status_dd = next(dt for dt in soup.find_all("dt") if dt.get_text(strip=True) == "status").find_next("dd")
    assert "crashed" in status_dd.get_text()


def test_a_crash_only_load_finds_is_on_the_index(tmp_path):
    """An exception the scan's look at the logtree's tail misses (summaries were written, so
    the scan does not open the logtree) still makes the index's status "crashed"."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    lt = run_dir / "iteration_000002" / "train_logtree.json"
    doc = json.loads(lt.read_text())
    doc["root"]["children"].append(EXC_NODE)
    lt.write_text(json.dumps(doc))
    from reportgen.check import check

    crashed = [p for p in check(str(run_dir)).problems if p.kind == "crashed iteration"]
    assert [p.file.rsplit("/", 2)[-2] for p in crashed] == ["iteration_000002"]
    for jobs in (1, 2):
        site = tmp_path / f"site{jobs}"
        build(str(run_dir), site, BuildOptions(jobs=jobs))
        soup = BeautifulSoup((site / "index.html").read_text(), "html.parser")
        status_dd = next(dt for dt in soup.find_all("dt") if dt.get_text(strip=True) == "status").find_next("dd")
        assert "crashed" in status_dd.get_text(), jobs


def test_a_crlf_code_diff_is_shown_line_for_line(tmp_path):
    """A code.diff with CRLF line ends (written on Windows, or a diff of CRLF files) shows one
    line a line: a CR kept in the HTML is one more line break to the browser's parser, which
    showed the diff double-spaced; the file's last newline starts no empty line."""
    from reportgen.site import build

    src = copy_fixture("arith_sync", tmp_path)
    lines = [
        "### repo: /x @ abc",
        "diff --git a/f.py b/f.py",
        "--- a/f.py",
        "+++ b/f.py",
        "@@ -1,2 +1,2 @@",
        " a",
        "-x",
        "+y\rz",
    ]
    (src / "code.diff").write_bytes(("\r\n".join(lines) + "\r\n").encode())
    build(str(src), tmp_path / "site")
    html = (tmp_path / "site" / "code_diff.html").read_text()
    pre = html[html.index('<pre class="diff">') : html.index("</pre>")]
    assert "\r" not in pre
    spans = re.findall(r'<span class="(\w+)">(.*?)</span>', pre, re.S)
    assert [t for _, t in spans] == [*lines[:-1], "+y\u240dz"]
    assert [c for c, _ in spans][-3:] == ["ctx", "del", "add"]
    # the index counts the file's lines as wc -l does: the last newline starts none
    assert "(8 lines)" in (tmp_path / "site" / "index.html").read_text()


def test_a_repeated_trajectory_index_gets_its_own_card_and_anchor(tmp_path):
    """tinker numbers a group's trajectories 0..n-1; summaries that repeat an index (merged or
    hand-made) gave two cards the same HTML id ("g0-m1" twice), so a link opened the first:
    the later one takes the next free index, and a warning says so."""
    from collections import Counter

    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    path = run_dir / "iteration_000001" / "train_rollout_summaries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[2]["traj_idx"] = 1  # group 0: trajectories 0, 1, 1, 3
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reader, run = scan(run_dir)
    it = reader.load(run.iterations[1])
    assert sorted(m.member for m in it.groups[0].members) == [0, 1, 3, 4]
    assert any("group 0: trajectory index 1 repeats" in w for w in it.warnings)
    result = build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    assert any("trajectory index 1 repeats" in w for w in result.warnings)
    page = next((tmp_path / "site").glob("train_iteration_000001*.html"))
    soup = BeautifulSoup(page.read_text(), "html.parser")
    ids = Counter(el["id"] for el in soup.find_all(id=True))
    assert [i for i, n in ids.items() if n > 1] == []
    assert {"g0-m0", "g0-m1", "g0-m3", "g0-m4"} <= set(ids)


def test_an_rl_loop_run_has_its_reward_on_the_index(tmp_path):
    """recipes/rl_loop.py, tinker's minimal loop, logs only progress/*, optim/lr, time/total and
    reward/total (no env/all/...): the index charts that reward and lists it by step, and the
    run's summary for a sweep scores the run by it."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    src = tmp_path / "rl-loop"
    src.mkdir()
    rows = [
        {
            "progress/batch": b,
            "optim/lr": 4e-5,
            "progress/done_frac": (b + 1) / 3,
            "time/total": 9.5,
            "reward/total": r,
            "step": b,
        }
        for b, r in enumerate([0.25, 0.5, 0.625])
    ]
    (src / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (src / "config.json").write_text(json.dumps({"model_name": "meta-llama/Llama-3.1-8B", "group_size": 16}))
    _, run = scan(src)
    assert [r.reward_mean for r in run.iterations] == [0.25, 0.5, 0.625]
    build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    site = tmp_path / "site"
    soup = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    table = soup.select_one("table#iterations") or soup.find("table")
    heads = [th.get_text(" ", strip=True) for th in table.find_all("th")]
    assert any("reward/total" in h for h in heads), heads
    assert "0.625" in table.get_text()
    first_chart = soup.select_one("#chart-c0")
    assert first_chart is not None and "reward/total" in str(first_chart)
    summary = json.loads((site / "run.json").read_text())
    assert summary["reward"]["metric"] == "reward/total" and summary["reward"]["final"] == 0.625


def test_a_message_key_no_renderer_writes_is_shown_not_dropped(tmp_path):
    """A conversation message with keys outside renderers.Message (a later renderer's
    "reasoning_content", a hostile key) shows them as parts named by their key, after the
    content, on the page and in the logtree JSON beside it; nothing of the message is lost."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("calc_agent_multiturn", tmp_path)
    lt = run_dir / "iteration_000000" / "train_logtree.json"
    doc = json.loads(lt.read_text())
    stack, msgs = [doc["root"]], []
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            data = n.get("data")
            if isinstance(data, dict) and data.get("type") == "conversation":
                msgs.extend(m for m in data["messages"] if m.get("role") == "assistant")
            stack.extend(n.get("children", []))
    assert msgs
    msgs[0]["reasoning_content"] = "Because <b>26</b> times 28 is 728."
    msgs[0]["<script>"] = {"score": 3}
    lt.write_text(json.dumps(doc))
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    page = tmp_path / "site" / "train_iteration_000000.html"
    html = page.read_text()
    soup = BeautifulSoup(html, "html.parser")
    labels = [p.get_text() for p in soup.select("p.part-type")]
    assert "reasoning_content" in labels and "<script>" in labels
    assert "Because <b>26</b> times 28 is 728." in soup.get_text()
    assert "<b>26</b>" not in html and "&lt;script&gt;" in html
    exported = (tmp_path / "site" / "train_iteration_000000_logtree.json").read_text()
    assert "reasoning_content" in exported


def _valid_logtree(raw: bytes) -> dict:
    """Spec §7.1's document: strict JSON in UTF-8, title, started_at and path strings, a root node."""
    doc = json.loads(raw.decode("utf-8"), parse_constant=lambda c: pytest.fail(f"bare {c}"))
    assert all(isinstance(doc[k], str) for k in ("title", "started_at", "path")), {k: doc.get(k) for k in doc}
    stack = [doc["root"]]
    while stack:
        n = stack.pop()
        assert isinstance(n, dict) and isinstance(n["tag"], str) and isinstance(n["attrs"], dict)
        assert isinstance(n["children"], list)
        stack.extend(c for c in n["children"] if not isinstance(c, str))
    return doc


@pytest.mark.parametrize("case", ["no root", "string root", "invalid UTF-8", "numbers in the header"])
def test_the_logtree_beside_a_page_is_always_a_valid_document(tmp_path, case):
    """The logtree JSON beside a page was tinker's file byte for byte whenever it parsed: one
    without a root node, or with invalid UTF-8, or a number for started_at, was copied out
    invalid (spec §7.1). A file without a root is now a warning (the page shows the
    summaries, the export is made from them); the others are written again as read."""
    from reportgen.check import check
    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    lt = run_dir / "iteration_000001" / "train_logtree.json"
    doc = json.loads(lt.read_text())
    if case == "no root":
        del doc["root"]
    elif case == "string root":
        doc["root"] = "hello"
    elif case == "numbers in the header":
        doc["started_at"], doc["path"] = 5, None
    raw = json.dumps(doc).encode()
    if case == "invalid UTF-8":
        raw = raw.replace(b"Trajectory", b"Traj\xff\xfectory", 1)
        assert raw != json.dumps(doc).encode()
    lt.write_bytes(raw)
    result = build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    out = _valid_logtree((tmp_path / "site" / "train_iteration_000001_logtree.json").read_bytes())
    if case in ("no root", "string root"):
        assert any("no root node" in w for w in result.warnings)
        assert any("no root node" in p.message for p in check(str(run_dir)).problems)
    elif case == "invalid UTF-8":
        assert any("invalid UTF-8" in w for w in result.warnings)
        assert "\ufffd" in json.dumps(out, ensure_ascii=False)
    else:
        assert out["started_at"] == "" and out["path"] == ""
        assert out["root"] == doc["root"]
    # every other page's export too, including those reportgen makes itself
    for path in (tmp_path / "site").glob("*_logtree.json"):
        _valid_logtree(path.read_bytes())


def test_made_logtrees_have_string_headers(tmp_path):
    """Logtrees reportgen writes itself (async mode: no train logtree; tinker 0.1.0: read back
    from the HTML) have strings for started_at and path, as tinker's (spec §7.1), not null."""
    from reportgen.site import BuildOptions, build

    for name in ("v010_html", "arith_sync"):
        run_dir = copy_fixture(name, tmp_path)
        if name == "arith_sync":
            for p in run_dir.glob("iteration_*/train_logtree.json"):
                p.unlink()
            for p in run_dir.glob("iteration_*/train.html"):
                p.unlink()
        site = tmp_path / f"site-{name}"
        build(str(run_dir), site, BuildOptions(jobs=1))
        files = list(site.glob("*_logtree.json"))
        assert files
        for path in files:
            _valid_logtree(path.read_bytes())


def test_an_evaluation_being_written_is_incomplete(tmp_path):
    """A live run's latest evaluator logtree without its summaries yet (tinker writes them
    after the logtree) is "incomplete", as a train step in that state, and check says so;
    an earlier one without summaries is left as it is (no crash shown)."""
    from reportgen.check import check

    run_dir = copy_fixture("arith_sync", tmp_path)
    (run_dir / "iteration_000005" / "eval_test_rollout_summaries.jsonl").unlink()
    _, run = scan(run_dir)
    ref = next(r for r in run.evals["test"] if r.number == 5)
    assert ref.status == "incomplete" and any("no rollout summaries yet" in n for n in ref.notes)
    assert run.info["crashed"] is False
    # evaluator "1" logs a logtree and never summaries: not waited for
    assert next(r for r in run.evals["1"] if r.number == 5).status == "completed"
    _, clean = scan(copy_fixture("arith_sync", tmp_path / "clean"))
    assert all(r.status == "completed" for refs in clean.evals.values() for r in refs)
    problems = [p for p in check(str(run_dir)).problems if "eval_test_logtree.json" in p.file]
    assert problems and "evaluator test, step 5" in problems[0].message
    run_dir2 = copy_fixture("arith_sync", tmp_path / "b")
    (run_dir2 / "iteration_000002" / "eval_test_rollout_summaries.jsonl").unlink()
    _, run2 = scan(run_dir2)
    assert next(r for r in run2.evals["test"] if r.number == 2).status == "completed"


def test_an_incomplete_step_is_said_in_tinkers_words(tmp_path):
    """A tinker step being written is not an "incomplete update, or incomplete export"
    (observe's words for an update without its record): the index and its page say so."""
    from bs4 import BeautifulSoup

    from reportgen.site import BuildOptions, build

    run_dir = copy_fixture("arith_sync", tmp_path)
    latest = run_dir / "iteration_000006"
    latest.mkdir()
    shutil.copy(run_dir / "iteration_000002" / "train_logtree.json", latest / "train_logtree.json")
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    row = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser").select_one("tr#u6")
    assert "being written, or the run stopped there" in row.get_text(" ")
    page = BeautifulSoup((tmp_path / "site" / "train_iteration_000006.html").read_text(), "html.parser")
    status = page.select_one("span.status").get_text()
    assert "being written" in status and "export" not in status


def test_a_repeated_index_takes_an_index_no_member_has():
    """The index given to a repeated trajectory is past every index of its group: [1, 1, 2]
    gave the second 1 the index 2, which the third member had."""
    from reportgen.model import Group, Member
    from reportgen.sources.tinker import _unique_members

    g = Group(id=0, prompt=None, members=[Member(member=1), Member(member=1), Member(member=2)], has_text=False)
    warnings: list[str] = []
    _unique_members(g, warnings)
    assert [m.member for m in g.members] == [1, 3, 2] and len(warnings) == 1
