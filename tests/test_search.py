"""The search of every text: its data files, search.html and the option that adds them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

import reportgen.site as site_mod
from reportgen.site import BuildOptions, build

from .obs import Obs, one_conversation

HOSTILE = "</script><img src=x onerror=alert(1)> <!-- & \u2028 'q' \"d\""


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def data_of(path: Path, name: str) -> Any:
    """The JSON a data file assigns to ``window.<name>``, checked inert (no ``<`` at all)."""
    body = path.read_bytes()
    assert b"<" not in body, path.name
    m = re.fullmatch(rf"window\.{name} = (.*);\n", body.decode(), re.S)
    assert m, path.name
    return json.loads(m.group(1))


def grpo_run(directory: Path) -> Path:
    """Update 1: 3 groups of 2 (paged by 2 below), one text hostile; update 2: no text kept;
    update 3: one group."""
    o = Obs().run("grpo", group_size=2)
    o.batch(*[o.prompt(f"p:{g}", f"question {g}") for g in range(3)])
    o.batch(
        *[
            o.rollout(1, g, m, HOSTILE if (g, m) == (2, 1) else f"answer {g}.{m}", prompt=f"p:{g}", reward=m * 0.5)
            for g in range(3)
            for m in range(2)
        ]
    )
    o.batch(o.update(1))
    o.batch(o.update(2))
    o.batch(o.rollout(3, 0, 0, "third update", prompt="p:0", reward=float("nan")))
    o.batch(o.update(3))
    return o.write(directory)


def test_every_text_is_in_the_data_file_beside_its_page(tmp_path):
    site = tmp_path / "site"
    build(str(grpo_run(tmp_path / "src")), site, BuildOptions(groups_per_page=2))
    index = data_of(site / "search_index.js", "RG_SEARCH_INDEX")
    assert index == [
        ["train_iteration_000001_search.js", "Update 1", "train_iteration_000001.html"],
        ["train_iteration_000003_search.js", "Update 3", "train_iteration_000003.html"],
    ]
    assert not (site / "train_iteration_000002_search.js").exists()  # no text kept: nothing to search
    one = data_of(site / "train_iteration_000001_search.js", "RG_SEARCH_SHARD")
    assert one["key"] == "train_iteration_000001.html" and one["title"] == "Update 1"
    assert one["pages"] == ["train_iteration_000001.html", "train_iteration_000001_p2.html"]
    items = one["items"]
    assert items[:3] == [
        [0, "g0", "group 0 · prompt", None, "question 0"],
        [0, "g0-m0", "group 0 · #0", 0.0, "answer 0.0"],
        [0, "g0-m1", "group 0 · #1", 0.5, "answer 0.1"],
    ]
    assert len(items) == 9  # 3 prompts and 6 members
    # group 2 is on the second page, its hostile text exact (JSON's \u003c is "<" again)
    assert [0 if i[1].startswith(("g0", "g1")) else 1 for i in items] == [i[0] for i in items]
    assert [i[4] for i in items if i[1] == "g2-m1"] == [HOSTILE]
    three = data_of(site / "train_iteration_000003_search.js", "RG_SEARCH_SHARD")
    assert three["items"][1][3] is None  # a NaN reward is no number
    page = soup(site / "search.html")
    assert "2 updates" in page.select_one("p.subtle").get_text(" ")
    assert [s["src"] for s in page.select("script")][:3] == ["search_index.js", "assets/match.js", "assets/search.js"]
    # every page links it; an iteration page's own search matches as it does (match.js first)
    for name in ("index.html", "train_iteration_000001_p2.html", "train_iteration_000003.html"):
        page = soup(site / name)
        assert page.select_one("a.to-search")["href"] == "search.html", name
        if name != "index.html":
            srcs = [s["src"] for s in page.select("script")]
            assert srcs.index("assets/match.js") == srcs.index("assets/reportgen.js") - 1, name


def test_ppo_members_bring_their_prompts_and_conversations_their_calls(tmp_path):
    o = Obs().run("ppo")
    o.batch(
        o.prompt("p:a", "first question"),
        o.prompt("p:b", "second question"),
        o.rollout(1, None, 0, "one", prompt="p:a"),
        o.rollout(1, None, 1, "two", prompt="p:b"),
    )
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "ppo")), tmp_path / "s1")
    items = data_of(tmp_path / "s1" / "train_iteration_000001_search.js", "RG_SEARCH_SHARD")["items"]
    assert sorted((i[1], i[2], i[4]) for i in items) == [
        ("g-0-m0", "rollouts · #0", "one"),
        ("g-0-m0", "rollouts · #0 · prompt", "first question"),
        ("g-0-m1", "rollouts · #1", "two"),
        ("g-0-m1", "rollouts · #1 · prompt", "second question"),
    ]
    messages = [
        {
            "role": "assistant",
            "content": "let me look",
            "tool_calls": [{"id": "c1", "name": "grep", "arguments": {"q": "needle"}}],
        },
        {"role": "tool", "content": "found the needle", "tool_call_id": "c1"},
        {"role": "assistant", "content": "done"},
    ]
    one_conversation(messages, judge_explanation="judged fair").write(tmp_path / "agent")
    build(str(tmp_path / "agent"), tmp_path / "s2")
    items = data_of(tmp_path / "s2" / "train_iteration_000001_search.js", "RG_SEARCH_SHARD")["items"]
    member = [i for i in items if i[1] == "g0-m0"]
    assert len(member) == 1  # the scenario's prompt once, for the group, not again for its member
    text = member[0][4]
    # as the card shows them: the call's name, its arguments as indented JSON
    for part in ("let me look", "grep", '"q": "needle"', "found the needle", "done", "judged fair"):
        assert part in text, part


def test_search_off_and_auto_on_a_large_export(tmp_path, monkeypatch):
    src = grpo_run(tmp_path / "src")
    off = tmp_path / "off"
    build(str(src), off, BuildOptions(search="off"))
    assert not list(off.glob("*search*")) and soup(off / "index.html").select_one("a.to-search") is None
    monkeypatch.setattr(site_mod, "SEARCH_AUTO_LIMIT", 10)
    big = build(str(src), tmp_path / "auto")
    assert not list((tmp_path / "auto").glob("*search*"))
    assert any("no search of every text (--search on adds it" in w for w in big.warnings)
    on = tmp_path / "on"
    build(str(src), on, BuildOptions(search="on"))
    assert (on / "search.html").is_file() and len(list(on.glob("*_search.js"))) == 2


def test_turning_search_off_rebuilds_and_leaves_no_data_file(tmp_path):
    src = grpo_run(tmp_path / "src")
    site = tmp_path / "site"
    build(str(src), site)
    assert (site / "search.html").is_file()
    again = build(str(src), site, BuildOptions(search="off"))
    assert again.reused == 0  # another option: a full build
    assert not list(site.glob("*search*"))


@pytest.mark.parametrize("jobs", [1, 2])
def test_cli_option(tmp_path, jobs):
    from click.testing import CliRunner

    from reportgen.cli import main

    src = grpo_run(tmp_path / "src")
    r = CliRunner().invoke(main, ["build", str(src), "-o", str(tmp_path / "s"), "--search", "off", "-j", str(jobs)])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "s" / "search.html").exists()
    r = CliRunner().invoke(main, ["build", str(src), "-o", str(tmp_path / "s"), "--search", "nope"])
    assert r.exit_code == 2


def test_what_a_prompt_block_and_a_group_show_is_found(tmp_path):
    """A prompt's reward text and scenario metadata, and tinker's conversations that the
    logtree attributes to no member (in arith_sync, every answer of an eval group)."""
    o = Obs().run()
    o.batch(
        o.prompt("p:0", "q", reward_text="grade the SENTINEL-R", metadata={"rubric": "SENTINEL-M"}),
        o.rollout(1, 0, 0, "a", metadata={"note": "SENTINEL-X"}),
    )
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "s")
    items = data_of(tmp_path / "s" / "train_iteration_000001_search.js", "RG_SEARCH_SHARD")["items"]
    prompt = next(i[4] for i in items if i[2] == "group 0 · prompt")
    assert "SENTINEL-R" in prompt and "SENTINEL-M" in prompt
    assert "SENTINEL-X" in next(i[4] for i in items if i[2] == "group 0 · #0")
    fixture = Path(__file__).parent / "fixtures" / "tinker" / "arith_sync"
    build(str(fixture), tmp_path / "tk")
    shard = tmp_path / "tk" / "eval_arith-hard_v2_x_iteration_000000_search.js"
    items = data_of(shard, "RG_SEARCH_SHARD")["items"]
    assert [i[1:3] for i in items if "conversation" in i[2]] == [
        ["g0", "group 0 · conversation 1"],
        ["g0", "group 0 · conversation 2"],
        ["g0", "group 0 · conversation 3"],
    ]
    assert any("La réponse est 37." in i[4] for i in items)
    index = data_of(tmp_path / "tk" / "search_index.js", "RG_SEARCH_INDEX")
    assert any(e[0] == shard.name and e[1] == "Eval arith-hard_v2_x, step 0" for e in index)


def test_match_js_tables_hold_what_python_normalizes():
    """assets/match.js normalizes a text only when it holds a character of its UNSTABLE table,
    and cuts a text before characters outside ATTACH: the tables, written from Chromium's
    Unicode (scripts/match_tables.py), hold every such character of Python's too."""
    import importlib.util
    import sys
    import unicodedata

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("match_tables", root / "scripts" / "match_tables.py")
    assert spec and spec.loader
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    ours = tables.file_tables((root / "assets" / "match.js").read_text(encoding="utf-8"))
    combining, later, changed = set(), set(), set()
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        if unicodedata.combining(c):
            combining.add(cp)
        if not unicodedata.is_normalized("NFC", c):
            changed.add(cp)
        later.update(ord(x) for x in unicodedata.normalize("NFD", c)[1:])
    assert not (combining | later) - ours["attach"]
    assert not (combining | later | changed) - ours["unstable"]
    assert min(ours["unstable"]) >= 0x300  # an ASCII or Latin-1 text is never read against the table


def test_tinker_step_logs_are_searched(tmp_path):
    """An agent env's step logs (assistant_content, tool calls and results) are what a
    trajectory says when no logtree attributes a conversation to it: search.html finds
    them, as the page's own search does (its .log-v and folded logs)."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(Path(__file__).parent / "fixtures" / "tinker" / "calc_agent_multiturn", src)
    for name in ("train_logtree.json", "train.html"):
        (src / "iteration_000000" / name).unlink()
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(search="on"))
    rows = [
        json.loads(line)
        for line in (src / "iteration_000000" / "train_rollout_summaries.jsonl").read_text().splitlines()
    ]
    said = rows[0]["steps"][-1]["logs"]["assistant_content"]
    items = data_of(site / "train_iteration_000000_search.js", "RG_SEARCH_SHARD")["items"]
    assert any(said in i[4] for i in items)
    page = soup(site / "train_iteration_000000.html")
    assert said in [e.get_text() for e in page.select(".log-v, details.log pre.text")]


def test_the_search_page_says_its_keys(tmp_path):
    """The search page has keys of its own (/, Enter, Esc) and no help dialog: it lists them
    beside the box (inside the form, which only JavaScript shows: the keys need it too)."""
    from bs4 import BeautifulSoup

    site = tmp_path / "site"
    build(str(grpo_run(tmp_path / "src")), site)
    soup = BeautifulSoup((site / "search.html").read_text(), "html.parser")
    hint = soup.select_one("#rs-form .keys-hint")
    assert hint is not None
    assert [k.get_text() for k in hint.find_all("kbd")] == ["/", "Enter", "Esc"]
