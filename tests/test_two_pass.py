"""An update read in two passes (``ObserveReader.outline``, then ``load_members`` a page at a
time) gives the site of the update loaded whole, byte for byte: every page, the logtree JSON,
the search files and the state file. The thresholds are forced to nothing here, so that
small exports take the two-pass path."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import reportgen.site as site_mod
import reportgen.sources.observe as observe
import reportgen.views.iteration as iteration_view
import reportgen.views.logtree_export as logtree_export
from reportgen.resources import demo_dir
from reportgen.site import STATE, BuildOptions, build
from reportgen.sources.detect import open_source
from reportgen.sources.observe import _member, _merged

from .obs import Obs
from .test_incremental import small_main_process
from .test_live import _split_demo

FIXTURES = Path(__file__).parent / "fixtures"


def files(site: Path, state: bool = True) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and (state or p.name != STATE)
    }


def force_two_passes(monkeypatch) -> list[int]:
    """Every update read in two passes from now on; returns the list that counts them and the
    most members a single ``load_members`` call was asked for, a call at a time."""
    monkeypatch.setattr(observe, "TWO_PASS_BYTES", 0)
    monkeypatch.setattr(observe, "TWO_PASS_ROLLOUTS", 0)
    loads: list[int] = []
    real = observe.ObserveReader.load_members

    def counted(self, outline, picks):
        picks = [(g, list(p)) for g, p in picks]
        loads.append(sum(len(p) for _g, p in picks))
        return real(self, outline, picks)

    monkeypatch.setattr(observe.ObserveReader, "load_members", counted)
    return loads


def same_sites(tmp_path: Path, monkeypatch, src: Path, **options: Any) -> dict[str, bytes]:
    """Build ``src`` loaded whole, then in two passes: the same files; returns them."""
    opts = {"jobs": 1, **options}
    build(str(src), tmp_path / "whole", BuildOptions(**opts))
    outlined: list[int] = []
    real = site_mod._render_outline
    monkeypatch.setattr(site_mod, "_render_outline", lambda *a: outlined.append(1) or real(*a))
    loads = force_two_passes(monkeypatch)
    build(str(src), tmp_path / "two", BuildOptions(**opts))
    assert outlined and loads
    whole, two = files(tmp_path / "whole"), files(tmp_path / "two")
    assert sorted(whole) == sorted(two)
    assert [k for k in whole if whole[k] != two[k]] == []
    return two


def test_the_fixtures_and_demos(tmp_path, monkeypatch):
    for name, src in (
        ("examples", FIXTURES / "observe" / "examples"),
        ("grpo", demo_dir() / "grpo"),
        ("agent", demo_dir() / "agent"),  # conversations with tool calls, step rewards
    ):
        for per in (1, 50):
            d = tmp_path / f"{name}{per}"
            d.mkdir()
            with monkeypatch.context() as m:
                same_sites(d, m, src, groups_per_page=per, search="on")


def test_grpo_with_duplicates_and_resumes(tmp_path, monkeypatch):
    o = Obs().run("grpo", group_size=4)
    o.batch(*[o.prompt(f"p:{g}", f"question {g} <b>") for g in range(3)])
    for n in (1, 2, 3):
        o.batch(
            *[
                o.rollout(n, g, m, "same" if m < 2 else f"u{n} g{g} m{m} &", prompt=f"p:{g}", reward=m / 3)
                for g in range(3)
                for m in range(4)
            ]
        )
        o.batch(o.update(n, reward__mean=0.5))
    o.run("grpo", resumed=1, group_size=4)  # updates 2 and 3 again, then 4
    for n in (2, 3, 4):
        o.batch(
            *[
                o.rollout(n, g, m, f"again {n} {g} {m}" if m else "", prompt=f"p:{g}")
                for g in range(2)
                for m in range(4)
            ]
        )
        o.batch(o.update(n))
    two = same_sites(tmp_path, monkeypatch, o.write(tmp_path / "src"), groups_per_page=2, search="on")
    assert "train_iteration_000004_p1.html" not in two and "train_iteration_000004.html" in two
    assert b'data-dup="true"' in two["train_iteration_000001.html"]


def test_ppo_batch_over_pages_by_reward(tmp_path, monkeypatch):
    """PPO: one group of every member, cut into pages by reward and into logtree slices."""
    monkeypatch.setattr(iteration_view, "ROLLOUTS_PER_PAGE", 3)
    monkeypatch.setattr(logtree_export, "MEMBERS_PER_SLICE", 2)
    o = Obs().run("ppo")
    rewards = [0.5, None, 0.1, 0.5, -0.0, 0.0, 0.9, None, 0.3, 0.7]
    o.batch(
        *[o.prompt(f"p:{m}", f"ppo question {m}", reward_text="other") for m in range(10) if m != 4],
        *[
            o.rollout(1, None, m, "same" if m in (1, 2) else f"c{m}", prompt=f"p:{m}", reward=r)
            for m, r in enumerate(rewards)
        ],
    )
    o.batch(o.outcome(1, *[(None, m, m % 3 == 0) for m in range(10)]))
    o.batch(o.update(1))
    two = same_sites(tmp_path, monkeypatch, o.write(tmp_path / "src"), search="on")
    assert "train_iteration_000001_p4.html" in two


def test_selection_outcome_after_the_rollouts_and_a_member_written_twice(tmp_path, monkeypatch):
    o = Obs().run("agent_grpo", group_size=3)
    o.batch(o.prompt("s:a", "scenario a"), o.prompt("s:b", "scenario b"))
    conv = [
        {
            "role": "assistant",
            "content": "let me look",
            "tool_calls": [{"id": "c1", "name": "search", "arguments": {"q": "<x>"}}],
        },
        {"role": "tool", "content": "found", "tool_call_id": "c1"},
        {"role": "tool", "content": "boom", "tool_call_id": "c9", "is_error": True},
        {"role": "assistant", "content": "done"},
    ]
    o.batch(
        o.rollout(1, 0, 0, None, prompt="s:a", messages=conv, prefix=True, reward=0.1),
        o.rollout(
            1,
            0,
            1,
            None,
            prompt="s:a",
            messages=conv[:2],
            step_rewards=[{"step_index": 0, "kind": "tool", "reward": 0.5, "message_indices": [1]}],
        ),
        # written twice: the later record wins, in the place of the first
        o.rollout(1, 1, 0, None, prompt="s:a", messages=conv[:1], reward=0.2),
        o.rollout(1, 1, 1, None, prompt="s:b", messages=[], reward=None, skip_reason="zero_signal"),
    )
    o.batch(
        o.rollout(1, 1, 0, None, prompt="s:b", messages=conv, reward=0.8, judge_explanation="better <b>"),
        o.rollout(1, 0, 2, None, prompt="s:a", messages=conv, metadata={"k": [1, 2]}),
    )
    o.batch(
        {
            "type": "selection",
            "update": 1,
            "entries": [
                {"group": 0, "member": 0, "advantage": 0.5, "eligible": True},
                {"group": 0, "member": 1, "eligible": False, "skip_reason": "zero_signal"},
                {"group": 1, "member": 0, "advantage": -1.5, "skip_reason": "late"},
                {"group": 7, "member": 0, "advantage": 1.0},  # no such rollout
                "not an entry",
            ],
        }
    )
    o.batch(o.outcome(1, (0, 0, True), (1, 0, False), (1, 1, True)))
    o.batch(o.outcome(1, (0, 0, False)))  # the last outcome wins
    o.batch(o.update(1))
    two = same_sites(tmp_path, monkeypatch, o.write(tmp_path / "src"), groups_per_page=1, search="on")
    doc = json.loads(two["train_iteration_000001_logtree.json"])
    assert "Group 1 (s:b)" in json.dumps(doc)


def test_missing_prompts_a_torn_record_and_null_and_negative_groups(tmp_path, monkeypatch):
    o = Obs().run("grpo")
    o.batch(o.prompt("p:0", "zero"))
    o.batch(
        o.rollout(1, None, 0, "no group", prompt="p:0"),
        o.rollout(1, -1, 0, "group -1", prompt="p:gone"),
        o.rollout(1, 2, -3, "negative member", prompt="p:gone"),
        o.rollout(1, 2, 1, "no key", prompt=None),
        o.rollout(1, 3, 0, "a number for a key", prompt=5),
    )
    o.batch(o.update(1))
    o.batch(o.rollout(2, 0, 0, "second", prompt="p:0"), o.rollout(2, 0, 1, "second too", prompt="p:0"))
    o.batch(o.update(2))
    src = o.write(tmp_path / "src")
    data = (src / "observe.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    # a line of update 2's batch torn in the middle and the export cut inside a record
    lines[-2] = lines[-2][: len(lines[-2]) // 2] + b"\n"
    (src / "observe.jsonl").write_bytes(b"".join(lines) + lines[-1][:20])
    two = same_sites(tmp_path, monkeypatch, src, groups_per_page=2, search="on")
    assert b"prompt record not received for , 5, p:gone" not in two["train_iteration_000001.html"]
    assert b"prompt record not received for" in two["train_iteration_000001.html"]


def test_a_large_group_with_duplicates_across_its_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(iteration_view, "ROLLOUTS_PER_PAGE", 3)
    monkeypatch.setattr(logtree_export, "MEMBERS_PER_SLICE", 4)
    o = Obs().run("grpo", group_size=9)
    o.batch(*[o.prompt(f"p:{g}", f"question {g}") for g in range(3)])
    rewards = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8, 0.2, 0.9, None]
    o.batch(
        o.rollout(1, 0, 0, "small", prompt="p:0"),
        *[
            o.rollout(1, 1, m, "twin" if m in (0, 7) else f"big {m}", prompt="p:1", reward=r)
            for m, r in enumerate(rewards)
        ],
        o.rollout(1, 1, 9, None, prompt="p:1", messages=[]),  # no text: never a duplicate
        o.rollout(1, 1, 10, None, prompt="p:1", messages=[]),
        o.rollout(1, 2, 0, "small", prompt="p:2"),
    )
    o.batch(o.update(1))
    two = same_sites(tmp_path, monkeypatch, o.write(tmp_path / "src"), groups_per_page=2, search="on")
    dup_pages = [k for k, v in two.items() if k.endswith(".html") and b'data-dup="true"' in v]
    assert len(dup_pages) == 2  # the two twins are on the first and the third page of group 1


def test_the_search_file_written_a_page_at_a_time_is_written_at_once(tmp_path):
    """The search file of an update read in two passes gets its items a page at a time: the
    bytes of ``shard_bytes`` of them all, and the fallback encoder's for the whole file when
    orjson refuses an item of a later page (a lone surrogate, which an observe export cannot
    hold but a title from undecodable bytes may)."""
    from reportgen.site import SiteWriter, _ShardFile
    from reportgen.views.search import ShardParts, shard_bytes

    pages = ["a.html", "a_p2.html", "a_p3.html"]
    for bad in (None, 1, 2):
        per_page = [
            [[0, "g0", "group 0 · prompt", None, "question <b> é"], [0, "g0-m1", "group 0 · #1", 0.1, "x"]],
            [],
            [[2, "g2-m0", "group 2 · #0", 1e16, "text 2"], [2, "g2-m1", "group 2 · #1", None, "y"]],
        ]
        if bad is not None:
            per_page[bad * 2 - 2][bad - 1][4] = "lone \ud800 <"
        name = f"s{bad}.js"
        writer = SiteWriter(tmp_path)
        shard = _ShardFile(writer, name, ShardParts("a.html", "Update 1", pages))
        for items in per_page:
            shard.add(items)
        shard.close()
        assert writer.files == [name]
        whole = shard_bytes("a.html", "Update 1", pages, [i for items in per_page for i in items])
        assert (tmp_path / name).read_bytes() == whole
        assert (b"\\ud800" in whole) == (bad is not None)
    writer = SiteWriter(tmp_path)
    empty = _ShardFile(writer, "none.js", ShardParts("a.html", "Update 1", pages))
    empty.add([])
    empty.close()
    assert writer.files == [] and not (tmp_path / "none.js").exists()


def test_parallel_two_pass_build_is_the_serial_whole_one(tmp_path, monkeypatch):
    pools = small_main_process(monkeypatch)
    src = demo_dir() / "grpo"
    build(str(src), tmp_path / "serial", BuildOptions(jobs=1, groups_per_page=3))
    force_two_passes(monkeypatch)
    build(str(src), tmp_path / "parallel", BuildOptions(jobs=2, groups_per_page=3))
    assert pools == [2]
    assert files(tmp_path / "serial") == files(tmp_path / "parallel")


def test_rebuild_after_an_append_in_two_passes_equals_a_full_build(tmp_path, monkeypatch):
    src, rest = _split_demo(tmp_path)
    full = tmp_path / "full"
    inc = tmp_path / "inc"
    force_two_passes(monkeypatch)
    build(str(src), inc, BuildOptions(jobs=1))
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    assert build(str(src), inc, BuildOptions(jobs=1)).reused > 0
    monkeypatch.setattr(observe, "TWO_PASS_BYTES", 96 << 20)
    monkeypatch.setattr(observe, "TWO_PASS_ROLLOUTS", 1 << 17)
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert files(inc, state=False) == files(full, state=False)


def test_a_page_holds_one_pages_members(tmp_path, monkeypatch):
    """Two passes load at most a page of members at a time (a logtree slice of a large group)."""
    monkeypatch.setattr(iteration_view, "ROLLOUTS_PER_PAGE", 5)
    monkeypatch.setattr(logtree_export, "MEMBERS_PER_SLICE", 4)
    o = Obs().run("grpo", group_size=3)
    o.batch(*[o.prompt(f"p:{g}", f"question {g}") for g in range(20)])
    o.batch(*[o.rollout(1, g, m, f"t{g}.{m}", prompt=f"p:{g}") for g in range(20) for m in range(3 if g else 12)])
    o.batch(o.update(1))
    loads = force_two_passes(monkeypatch)
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1, groups_per_page=2))
    assert sum(loads) == 12 + 12 + 19 * 3  # the large group twice: its logtree slices, its pages
    assert max(loads) == 6  # two groups of 3; the large one 4 (a slice) or 5 (a page) at a time


def test_only_huge_updates_take_two_passes(tmp_path, monkeypatch):
    o = Obs().run("grpo")
    o.batch(o.prompt("p:0"), *[o.rollout(1, 0, m, "x" * 100) for m in range(4)])
    o.batch(o.update(1))
    reader = open_source(str(o.write(tmp_path / "src")))
    ref = reader.scan().iterations[0]
    assert reader.outline(ref) is None
    monkeypatch.setattr(observe, "TWO_PASS_ROLLOUTS", 4)
    outline = reader.outline(ref)
    assert outline is not None and ref.rollouts == 4 and outline.groups[0].size == 4
    monkeypatch.setattr(observe, "TWO_PASS_ROLLOUTS", 5)
    assert reader.outline(ref) is None
    monkeypatch.setattr(observe, "TWO_PASS_BYTES", reader.input_bytes(ref))
    assert reader.outline(ref) is not None
    # a token count past 64 bits: no column holds it, the update is loaded whole
    o2 = Obs().run("grpo")
    o2.batch(o2.prompt("p:0"), o2.rollout(1, 0, 0, "x", tokens=2**70))
    o2.batch(o2.update(1))
    reader2 = open_source(str(o2.write(tmp_path / "src2")))
    assert reader2.outline(reader2.scan().iterations[0]) is None


@pytest.mark.parametrize("seed", range(3))
def test_the_first_pass_merges_as_load_does(seed):
    """``_merged`` (the first pass) gives the eligible, advantage, skip reason and trained state
    that ``_member`` (load) gives, for any rollout, selection entry and outcome."""
    r = random.Random(seed)
    values = [None, True, False, 0, 1, 0.5, -2.0, float("nan"), float("inf"), "", "zero_signal", "x", [], {}]
    for _ in range(3000):
        rec: dict[str, Any] = {"member": r.randint(-2, 5)}
        for k in ("eligible", "advantage", "skip_reason", "trained"):
            if r.random() < 0.7:
                rec[k] = r.choice(values)
        sel = None
        if r.random() < 0.6:
            sel = {k: r.choice(values) for k in ("eligible", "advantage", "skip_reason") if r.random() < 0.7}
        out = r.choice([None, True, False])
        m = _member(rec, sel, out)
        assert _merged(rec, sel, out) == (m.eligible, m.advantage, m.skip_reason, m.trained)


def test_a_record_rewritten_in_place_between_the_passes_is_not_taken(tmp_path, monkeypatch):
    """The export rewritten in place between the two passes, lines of the same lengths swapped:
    the record at a member's offset is now another update's. It is not shown as this
    update's member (it was, with no warning); the page says the file changed."""
    force_two_passes(monkeypatch)
    o = Obs().run()
    o.batch(o.prompt("p:0", "q"))
    o.batch(Obs.rollout(1, 0, 0, "text of update 1 member 0", prompt="p:0", reward=1.0))
    o.batch(o.update(1))
    o.batch(Obs.rollout(2, 0, 0, "text of update 2 member 0", prompt="p:0", reward=0.0))
    o.batch(o.update(2))
    src = o.write(tmp_path / "src")
    path = src / "observe.jsonl"
    real = observe.ObserveReader.outline

    def outline_then_swap(self, ref):
        out = real(self, ref)
        if ref.number == 1:
            lines = path.read_bytes().split(b"\n")
            a, b = [i for i, line in enumerate(lines) if b'"rollout"' in line]
            assert len(lines[a]) == len(lines[b])
            lines[a], lines[b] = lines[b], lines[a]
            path.write_bytes(b"\n".join(lines))
        return out

    monkeypatch.setattr(observe.ObserveReader, "outline", outline_then_swap)
    result = build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    page = (tmp_path / "site" / "train_iteration_000001.html").read_text()
    assert "text of update 2" not in page
    assert any("changed while it was read" in w for w in result.warnings)
