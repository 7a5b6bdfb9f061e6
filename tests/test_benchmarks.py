"""The benchmark generators at tiny sizes: their exports read cleanly and build (both formats)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from reportgen.site import BuildOptions, build

ROOT = Path(__file__).resolve().parent.parent


def _gen():
    spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "benchmarks" / "gen.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_observe_generator_builds(tmp_path):
    gen = _gen()
    gen.generate(tmp_path / "obs", 0.3, 4, 4, 1, 40, 0.2, 5)
    assert (tmp_path / "obs" / "observe.jsonl.tail").stat().st_size > 0
    r = build(str(tmp_path / "obs"), tmp_path / "site", BuildOptions(jobs=2))
    assert r.updates > 2 and r.rollouts == 16 * r.updates and not r.warnings


def test_observe_generator_resumes(tmp_path):
    """--resume-at: a second segment resumes 4 updates back; the site shows each update once."""
    gen = _gen()
    gen.generate(tmp_path / "obs", 0.4, 4, 4, 1, 40, 0.0, 5, resume_at=0.5)
    lines = [json.loads(x) for x in (tmp_path / "obs" / "observe.jsonl").read_text().splitlines()]
    runs = [x for x in lines if x["type"] == "run"]
    updates = [x["update"] for x in lines if x["type"] == "update"]
    assert len(runs) == 2 and runs[0]["resumed_from_update"] is None
    k = runs[1]["resumed_from_update"]
    again = {u for u in updates if updates.count(u) > 1}
    assert again == {k + 1, k + 2, k + 3, k + 4} and len(updates) == len(set(updates)) + 4
    r = build(str(tmp_path / "obs"), tmp_path / "site", BuildOptions(jobs=1))
    assert r.updates == len(set(updates)) and not r.warnings


@pytest.mark.parametrize("like,flat", [("calc_agent_multiturn", False), ("arith_sync", True)])
def test_tinker_generator_builds(tmp_path, like, flat):
    gen = _gen()
    src = tmp_path / "tk"
    gen.generate_tinker(src, 0.3, like, flat, 0.25)
    assert (src / "tail" / "metrics.jsonl").exists()
    steps = [json.loads(line)["step"] for line in (src / "metrics.jsonl").read_text().splitlines()]
    assert steps == list(range(len(steps)))
    r = build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    assert r.updates == len(steps) and r.rollouts > 0
    pages = sorted(p.name for p in (tmp_path / "site").glob("train_iteration_*.html"))
    # every repeated iteration that had a train logtree in the fixture has its page
    assert pages[0] == "train_iteration_000000.html" and len(pages) >= len(steps) // 2


def test_agent_and_ppo_shapes_build(tmp_path):
    """--algorithm agent (conversations, tool calls, step rewards, member gaps) and ppo (one
    flat group, a prompt per rollout) read without warnings and show what they wrote."""
    from bs4 import BeautifulSoup

    gen = _gen()
    gen.generate(tmp_path / "agent", 0.2, 3, 4, 1, 40, 0.0, 0, "agent")
    gen.generate(tmp_path / "ppo", 0.2, 2, 8, 1, 40, 0.0, 0, "ppo")
    head = json.loads((tmp_path / "agent" / "observe.jsonl").read_text().splitlines()[0])
    assert head["algorithm"] == "agent_grpo"
    r = build(str(tmp_path / "agent"), tmp_path / "agent-site", BuildOptions(jobs=1))
    assert r.updates > 2 and 0 < r.rollouts <= 12 * r.updates and not r.warnings
    page = BeautifulSoup((tmp_path / "agent-site" / "train_iteration_000001.html").read_text(), "html.parser")
    assert page.select("details.call .result") and page.select(".chip.sr")
    r = build(str(tmp_path / "ppo"), tmp_path / "ppo-site", BuildOptions(jobs=1))
    assert r.updates > 2 and r.rollouts == 16 * r.updates and not r.warnings
    page = BeautifulSoup((tmp_path / "ppo-site" / "train_iteration_000001.html").read_text(), "html.parser")
    groups = page.select("section.group")
    assert len(groups) == 1 and groups[0]["data-group"] == "-"
    members = groups[0].select("article.member")
    assert len(members) == 16 and all(m.select_one("details.prompt") for m in members)
