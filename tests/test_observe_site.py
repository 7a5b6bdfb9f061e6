"""The observe site, read the way a user reads it (BeautifulSoup)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from bs4 import BeautifulSoup

from reportgen.site import BuildOptions, build
from reportgen.sources.detect import open_source

from .obs import Obs

FIXTURES = Path(__file__).parent / "fixtures"


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def find_conversations(node):
    """tinker's documented snippet, verbatim."""
    results = []
    if isinstance(node, dict):
        if node.get("data", {}).get("type") == "conversation":
            results.append(node["data"])
        for child in node.get("children", []):
            if isinstance(child, dict):
                results.extend(find_conversations(child))
    return results


def all_site_text(site: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8")
        for p in site.rglob("*")
        if p.suffix in (".html", ".json", ".js") and "assets" not in p.parts
    )


@pytest.fixture(scope="module")
def examples_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build(str(FIXTURES / "observe" / "examples"), out)
    return out


def test_layout(examples_site):
    names = {p.name for p in examples_site.iterdir()}
    assert {
        ".nojekyll",
        ".reportgen-site",
        "assets",
        "index.html",
        "train_iteration_000001.html",
        "train_iteration_000001_logtree.json",
        "train_iteration_000002.html",
        "train_iteration_000002_logtree.json",
    } <= names
    pages = sorted(n for n in names if n.startswith(("train_", "eval_")))
    assert pages == [
        "train_iteration_000001.html",
        "train_iteration_000001_logtree.json",
        "train_iteration_000001_search.js",
        "train_iteration_000002.html",
        "train_iteration_000002_logtree.json",
        "train_iteration_000002_search.js",
    ]
    assert {"search.html", "search_index.js"} <= names  # a small export: the search of every text
    assert (examples_site / "assets" / "reportgen.css").is_file()


def test_index_lists_updates_and_header(examples_site):
    s = soup(examples_site / "index.html")
    text = s.get_text(" ")
    assert "agent_grpo" in text
    assert "qwen3-4b-instruct-2507-q4_k_m.gguf" in text and "/models/" not in s.find("dl").get_text()
    rows = s.select("#iterations tbody tr")
    assert [r.find("td").get_text(strip=True) for r in rows] == ["1", "2"]
    assert rows[0].find("a")["href"] == "train_iteration_000001.html"
    assert "skipped" in rows[1].get_text()


def test_run_parameters_stand_apart_from_the_counts(tmp_path):
    """The run record's params (its planned "updates" among them) are listed under their own
    label, not among the counts of what the export holds, where "updates" means those read."""
    o = Obs().run("grpo", group_size=2, updates=50)
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, "a"), o.rollout(1, 0, 1, "b"))
    o.batch(o.update(1))
    src = o.write(tmp_path / "run")
    build(str(src), tmp_path / "site")
    s = soup(tmp_path / "site" / "index.html")
    facts = {d.find("dt").get_text(): d.find("dd").get_text() for d in s.select("dl.facts-grid:not(.params) > div")}
    params = {d.find("dt").get_text(): d.find("dd").get_text() for d in s.select("dl.params > div")}
    assert facts["updates"] == "1"
    assert params == {"group_size": "2", "updates": "50"}
    label = s.select_one("dl.params")["aria-labelledby"]
    assert "parameters" in s.find(id=label).get_text()


def test_index_table_rows(tmp_path):
    """A row per update: its link and texts count when it has texts, its segment (a class
    where the segment changes), its status (escaped: it comes from the input), its metrics."""
    o = Obs().run(every=None)
    o.batch(o.prompt("p:1"), *(Obs.rollout(1, 0, m, prompt="p:1") for m in range(3)))
    o.batch(Obs.update(1, reward__mean=0.25))
    o.batch(Obs.update(2, status="<b>odd</b>", reward__mean=float("nan")))
    o.run(resumed=2, every=None)
    o.batch(Obs.update(3, status="incomplete", reward__mean=1.5))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "run")), site, BuildOptions(jobs=1))
    html = (site / "index.html").read_text()
    assert "<b>odd</b>" not in html and "&lt;b&gt;odd&lt;/b&gt;" in html
    rows = soup(site / "index.html").select("#iterations tbody tr")
    cells = [[td.get_text(strip=True) for td in r.find_all("td")] for r in rows]
    assert cells == [
        ["1", "0", "completed", "0.250", "3 texts"],
        ["2", "0", "<b>odd</b>", "–", "no texts"],
        ["3", "1", "incomplete update, or incomplete export", "1.500", "no texts"],
    ]
    assert [r["id"] for r in rows] == ["u1", "u2", "u3"]
    assert [r.find("a")["href"] for r in rows[:1]] == ["train_iteration_000001.html"]
    assert [a["href"] for a in rows[0].find_all("a")] == ["train_iteration_000001.html"] * 2
    assert rows[1].find("a") is None and rows[2].find("a") is None
    assert rows[1]["class"] == ["status-<b>odd</b>", "textless"]
    assert "seg-change" in rows[2]["class"] and "seg-change" not in rows[1]["class"]
    assert rows[0]["class"] == ["status-completed"]
    # an export without updates says so
    empty = Obs().run()
    build(str(empty.write(tmp_path / "empty")), tmp_path / "empty-site", BuildOptions(jobs=1))
    rows = soup(tmp_path / "empty-site" / "index.html").select("#iterations tbody tr")
    assert [r.get_text(strip=True) for r in rows] == ["No update in this export."]


def test_every_visible_text_on_its_page_and_logtree(examples_site):
    page = soup(examples_site / "train_iteration_000001.html").get_text()
    for text in (
        "Tomorrow Paris will be sunny, between 13 and 21 °C.",
        "error: unknown day '2026-03-16'",
        "I could not get tomorrow's forecast for Paris.",
        "Called get_forecast and quoted both temperatures.",
        "get_forecast",
        "tool_error",
    ):
        assert text in page
    tree = json.loads((examples_site / "train_iteration_000001_logtree.json").read_text())
    convs = find_conversations(tree["root"])
    assert len(convs) == 2
    finals = [c["messages"][-1]["content"] for c in convs]
    assert "Tomorrow Paris will be sunny, between 13 and 21 °C." in finals
    first = convs[0]["messages"]
    assert first[0]["role"] == "system" and first[1]["role"] == "user"  # prefix prepended
    calls = [m for c in convs for m in c["messages"] if m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "get_forecast"
    assert json.loads(calls[0]["tool_calls"][0]["function"]["arguments"])["city"] == "Paris"


def test_hidden_and_superseded_texts_appear_nowhere(examples_site):
    everything = all_site_text(examples_site)
    # segment 0 (PPO) and 1 (GRPO) are hidden by fresh runs
    assert "Paris is the capital of France." not in everything
    assert "17 * 23 = 391." not in everything
    # segment 2's update 2 (prefix false) is superseded by segment 3's resume
    assert "# Tools" not in everything
    assert "Quoted a temperature." not in everything


def test_badges_and_states(examples_site):
    s = soup(examples_site / "train_iteration_000002.html")
    chips = [c.get_text() for c in s.select(".member .chip")]
    assert "truncated" in chips and "skipped: update_skipped" in chips
    assert "unknown execution" not in chips  # both have trained false
    head = s.select_one(".it-head").get_text()
    assert "skipped" in head
    s1 = soup(examples_site / "train_iteration_000001.html")
    assert "1 tool error" in [c.get_text() for c in s1.select(".chip")]
    assert s1.select_one("#g0-m0") is not None


def test_nav_links(examples_site):
    s1 = soup(examples_site / "train_iteration_000001.html")
    assert s1.select_one("#nav-next")["href"] == "train_iteration_000002.html"
    assert s1.select_one("#nav-prev") is None
    s2 = soup(examples_site / "train_iteration_000002.html")
    assert s2.select_one("#nav-prev")["href"] == "train_iteration_000001.html"


def test_hostile_text_is_escaped(tmp_path):
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>{{ 7*7 }}</script><!--"
    o = Obs().run()
    o.batch(o.prompt("p:<b>", evil), o.rollout(1, 0, 0, evil, prompt="p:<b>"))
    o.batch(o.update(1, **{"reward__mean": 0.5}))
    d = o.write(tmp_path / "src")
    out = tmp_path / "site"
    build(str(d), out)
    for page in out.glob("*.html"):
        s = soup(page)
        assert not [t for t in s.find_all("script") if not t.get("src") and t.get("type") != "application/json"]
        assert not s.find("img")
        assert not any(a for t in s.find_all(True) for a in t.attrs if a.startswith("on"))
    text = soup(out / "train_iteration_000001.html").get_text()
    assert evil in text


def test_groups_markup_of_ascii_texts_is_ascii(tmp_path):
    """Our own marks in folds, previews and compact lines (⏎ … →) are character references:
    a page's groups markup stays ASCII when its texts are (a plain copy when encoded), and
    the reader sees the same characters."""
    long = "\n".join(f"line {i}" for i in range(40))
    conv = [
        {"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}]},
        {"role": "tool", "content": "y", "tool_call_id": "c1"},
    ]
    o = Obs().run()
    o.batch(
        o.prompt("p:0", "q" * 300),
        o.rollout(1, 0, 0, long),
        o.rollout(1, 0, 1, None, messages=conv),
    )
    o.batch(o.update(1))
    out = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), out)
    raw = (out / "train_iteration_000001.html").read_bytes()
    groups = raw[raw.index(b'<section class="groups"') : raw.index(b'<p id="rg-none"')]
    assert groups.isascii()
    s = soup(out / "train_iteration_000001.html")
    assert s.select_one("details.fold summary").get_text().startswith("line 0 \u23ce line 1 (40 lines)")
    assert s.select_one("p.preview").get_text().endswith("\u2026")
    assert s.select_one("p.compact").get_text() == "assistant[f] \u2192 tool(f)"


def test_folded_texts_are_summed_up_by_their_lines_and_a_reasoning_trace_by_its_answer(tmp_path):
    """A folded text's summary is its first two lines that are not blank; a reasoning
    model's trace (``<think>`` … ``</think>`` answer) shows its first thought and its answer,
    escaped, so a page of folded traces can be read closed."""
    steps = "\n".join(f"Step {i}: <carry> & check" for i in range(30))
    trace = f"<think>\n\n{steps}\n</think>\n\nThe answer is <b>42</b> & done.\n"
    plain = "\n\n  first  \n\nsecond\n" + "x\n" * 30
    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, trace), o.rollout(1, 0, 1, plain))
    o.batch(o.update(1))
    out = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), out)
    s = soup(out / "train_iteration_000001.html")
    summaries = {a["data-member"]: a.select_one("details.fold summary").get_text() for a in s.select("article.member")}
    assert summaries["0"] == "<think> Step 0: <carry> & check … </think> The answer is <b>42</b> & done. (36 lines)"
    assert summaries["1"] == "first \u23ce second (36 lines)"
    raw = (out / "train_iteration_000001.html").read_text()
    assert "The answer is &lt;b&gt;42&lt;/b&gt; &amp; done. (36 lines)</summary>" in raw
    assert "<b>42</b>" not in raw


def test_cut_text_is_shown_as_cut(tmp_path):
    o = Obs().run()
    o.batch(o.prompt(), o.rollout(1, 0, 0, "Let me compute…[+92 chars]"))
    o.batch(o.update(1))
    out = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), out)
    s = soup(out / "train_iteration_000001.html")
    assert "cut" in [c.get_text() for c in s.select(".chip")]
    assert "92 more characters" in s.get_text()


def test_failed_build_leaves_previous_site(tmp_path):
    from reportgen.errors import InputError

    o = Obs().run()
    o.batch(o.prompt(), o.rollout(1, 0, 0, "first build"))
    o.batch(o.update(1))
    src = o.write(tmp_path / "src")
    out = tmp_path / "site"
    build(str(src), out)
    before = (out / "train_iteration_000001.html").read_bytes()
    with open(src / "observe.jsonl", "a") as f:
        f.write('{"v":7,"type":"update","segment":0,"batch_id":5,"batch_index":0,"batch_len":1}\n')
    with pytest.raises(InputError):
        build(str(src), out)
    assert (out / "train_iteration_000001.html").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if "reportgen-tmp" in p.name]


def test_refuses_foreign_nonempty_folder(tmp_path):
    from reportgen.errors import OutputError

    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError):
        build(str(FIXTURES / "observe" / "examples"), out)
    assert (out / "thesis.tex").read_text() == "precious"


def test_repeated_extras_are_shared_and_long_ones_not_kept(tmp_path):
    """The logtree export serializes a repeated reward-component row once (a Fragment), but
    never keeps a long text (a judge's explanation per member) in that cache; the JSON holds
    every member's explanation either way."""
    from reportgen.views import logtree_export

    o = Obs().run("agent_grpo", group_size=3)
    long = ["explanation " + str(m) * 600 for m in range(3)]
    rollouts = [
        o.rollout(
            1,
            0,
            m,
            None,
            prompt="s:a",
            messages=[{"role": "assistant", "content": f"hi {m}"}],
            judge_explanation=long[m],
            terminal_reward_raw=1.0,
        )
        for m in range(3)
    ]
    o.batch(o.prompt("s:a", "task"), *rollouts)
    o.batch(o.outcome(1, *[(0, m, True) for m in range(3)]))
    o.batch(o.update(1))
    logtree_export._PIECES.cache.clear()
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    cached = list(logtree_export._PIECES.cache)
    assert ("row", "terminal_reward_raw", "1") in cached
    assert not any(t in "".join(k) for k in cached for t in long)
    doc = json.loads((tmp_path / "site" / "train_iteration_000001_logtree.json").read_text())
    text = json.dumps(doc)
    assert all(t in text for t in long) and text.count('"terminal_reward_raw"') == 3


def test_a_ppo_batch_of_one_prompt_previews_it(tmp_path):
    """A PPO batch whose rollouts all sample one prompt previews it in its header."""
    o = Obs().run("ppo")
    o.batch(
        o.prompt("p:0", "the only question"), *[o.rollout(1, None, i, f"answer {i}", prompt="p:0") for i in range(3)]
    )
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    page = soup(tmp_path / "site" / "train_iteration_000001.html")
    assert page.select_one("p.preview").get_text() == "the only question"
    # one batch, no groups: no "equal rewards" filter, which GRPO pages have (test_viewer)
    assert page.select_one("#f-flat") is None and page.select_one("#f-dup") is not None


def test_a_ppo_batch_of_several_pages_counts_the_prompts_of_each(tmp_path, monkeypatch):
    """A PPO batch larger than a page: each page's header counts the prompts of its own rollouts."""
    import reportgen.views.iteration as iteration_view

    monkeypatch.setattr(iteration_view, "ROLLOUTS_PER_PAGE", 2)
    o = Obs().run("ppo")
    o.batch(
        *[o.prompt(f"p:{i}", f"question {i}") for i in range(3)],
        *[o.rollout(1, None, i, f"answer {i}", prompt=f"p:{i % 3}", reward=i / 10) for i in range(5)],
    )
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    previews = [
        soup(tmp_path / "site" / f"train_iteration_000001{n}.html").select_one("p.preview") for n in ("", "_p2", "_p3")
    ]
    # by reward: members 4 and 3 (p:1, p:0), then 2 and 1 (p:2, p:1), then 0 (p:0)
    assert [p.get_text() if p else None for p in previews] == [
        "2 different prompts on this page (p:1, p:0): each rollout shows its own",
        "2 different prompts on this page (p:2, p:1): each rollout shows its own",
        "question 0",
    ]


def test_counts_are_written_with_thousands_separators(tmp_path):
    """Counts read as the pager writes them: 1,200 rollouts, not 1200."""
    o = Obs().run("ppo")
    o.batch(o.prompt("p:0", "q"), *[o.rollout(1, None, i, "a", prompt="p:0") for i in range(1200)])
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    page = soup(tmp_path / "site" / "train_iteration_000001.html")
    facts = page.select_one("p.facts").get_text(" ", strip=True)
    assert "1,200 rollouts in 1 group" in facts and "0/1,200 trained" in facts, facts
    assert "0/1,200 trained" in page.select_one(".group-head").get_text(" ", strip=True)
    index = soup(tmp_path / "site" / "index.html")
    assert "1,200 texts" in index.get_text(" ", strip=True)
    assert [dd.get_text() for dt, dd in zip(index.select("dt"), index.select("dd")) if dt.get_text() == "rollouts"] == [
        "1,200"
    ]


def test_index_counts_a_long_run_with_thousands_separators(tmp_path):
    o = Obs().run("grpo", group_size=1)
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, "a", prompt="p:0"))
    for n in range(1, 1002):
        o.batch(o.update(n, reward__mean=0.5))
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    index = soup(tmp_path / "site" / "index.html")
    facts = {dt.get_text(): dd.get_text() for dt, dd in zip(index.select(".run-head dt"), index.select(".run-head dd"))}
    assert facts["updates"] == "1,001" and facts["with texts"] == "1"
    assert "of 1,001 updates" in index.select_one(".rg-downloads").get_text(" ", strip=True)


def test_only_pages_with_group_prompts_load_the_prompt_index(tmp_path):
    """prompts.js extends the "same prompt in" links of group prompts; a page of PPO members
    (each with its own prompt, no group prompt) shows no such links and does not load it."""
    o = Obs().run("ppo")
    for n in (1, 2):
        o.batch(
            *[o.prompt(f"p:{i}", f"question {i}") for i in range(3)],
            *[o.rollout(n, None, i, f"answer {n}.{i}", prompt=f"p:{i}") for i in range(3)],
        )
        o.batch(o.update(n))
    ppo = tmp_path / "ppo"
    build(str(o.write(tmp_path / "src")), ppo, BuildOptions(jobs=1))
    page = soup(ppo / "train_iteration_000002.html")
    assert "question 1" in page.get_text()
    assert page.find("script", src="prompts.js") is None and page.select("p.others") == []
    # the batch's header previews no one member's prompt as if it were the batch's
    # it lists their keys, as the trainer's viewer does (spec 5.1), the first 8 of a large batch
    assert page.select_one("p.preview").get_text() == "3 different prompts (p:0, p:1, p:2): each rollout shows its own"

    g = Obs().run("grpo", group_size=2)
    for n in (1, 2):
        g.batch(g.prompt("p:0", "question 0"), *[g.rollout(n, 0, m, f"a{m}", prompt="p:0") for m in range(2)])
        g.batch(g.update(n))
    grpo = tmp_path / "grpo"
    build(str(g.write(tmp_path / "gsrc")), grpo, BuildOptions(jobs=1))
    for n in (1, 2):
        assert soup(grpo / f"train_iteration_00000{n}.html").find("script", src="prompts.js") is not None


def test_same_prompt_links_stay_inside_a_segment(tmp_path):
    """A prompt key names a prompt of its own segment (spec 1.4): after a resume that writes
    p:0 again, another question, the resumed updates link each other only, and so do the
    earlier ones; prompts.js says where each segment starts, for the later links."""
    from .test_iteration_view import resumed_recurring_run

    site = tmp_path / "site"
    build(str(resumed_recurring_run(tmp_path / "src")), site, BuildOptions(jobs=1))

    def earlier(n: int) -> tuple[list[str], str]:
        page = soup(site / f"train_iteration_{n:06d}.html")
        cut = page.select_one("#g0 .ocut")
        return [a.get_text() for a in page.select("#g0 p.others a.xlink")], cut.get_text() if cut else ""

    assert "Name a prime." in soup(site / "train_iteration_000015.html").get_text()
    assert earlier(15) == ([], "")  # update 14 sampled p:0 of segment 0: another prompt
    assert earlier(20) == (["15", "16", "17", "18", "19"], "")
    assert earlier(14) == ([str(k) for k in range(4, 14)], "3 earlier, ")
    js = (site / "prompts.js").read_text("utf-8")
    assert "window.RG_SEGMENT_STARTS = [1,15];" in js


def test_logtree_written_a_group_at_a_time_falls_back_per_group(tmp_path):
    """The logtree JSON is written a group at a time; a group that orjson cannot write (a
    token count past 64 bits in the model) goes through the fallback encoder alone, and the
    file is still one JSON document with every group in order."""
    from reportgen.views.logtree_export import logtree_dict, logtree_parts

    o = Obs().run("grpo", group_size=2)
    prompts = [o.prompt(f"p:{g}", f"question {g}") for g in range(3)]
    rollouts = [
        o.rollout(
            1, g, m, f"answer {g}.{m}" + ("\ud800" if g == 1 else ""), prompt=f"p:{g}", tokens=2**70 if g == 1 else 5
        )
        for g in range(3)
        for m in range(2)
    ]
    o.batch(*prompts, *rollouts)
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    raw = (tmp_path / "site" / "train_iteration_000001_logtree.json").read_bytes()
    doc = json.loads(raw)
    sections = doc["root"]["children"][2:]
    assert [s["children"][0]["children"][0] for s in sections] == [f"Group {g} (p:{g})" for g in range(3)]
    assert "answer 1.0\ufffd" in json.dumps(doc, ensure_ascii=False)
    # the lone surrogate sends the line to the stdlib parser, which reads 2**70 as orjson does
    # in a strict line: a float, not a token count
    reader = open_source(str(tmp_path / "src"))
    run = reader.scan()
    it = reader.load(run.iterations[0])
    assert [m.tokens for m in it.groups[1].members] == [None, None]
    assert [m.tokens for m in it.groups[0].members] == [5, 5]
    # a model holding an integer orjson cannot write: that group alone takes the fallback
    for m in it.groups[1].members:
        m.tokens = 2**70
    parts = list(logtree_parts(run, it, "p.html"))
    whole = b"".join(parts)
    assert whole.count(str(2**70).encode()) == 4  # in the members table and in each conversation's data
    assert [s["children"][0]["children"][0] for s in json.loads(whole)["root"]["children"][2:]] == [
        f"Group {g} (p:{g})" for g in range(3)
    ]
    # with orjson able to write every group, the parts are its bytes of the whole document
    for m in it.groups[1].members:
        m.tokens = 7
    parts = list(logtree_parts(run, it, "p.html"))
    assert len(parts) == 2 + 2 * 3 and b"".join(parts) == orjson.dumps(logtree_dict(run, it, "p.html"))


def test_logtree_of_a_group_larger_than_a_slice_is_written_in_slices(tmp_path, monkeypatch):
    """A group of more members than MEMBERS_PER_SLICE (a PPO batch is one group) is dumped a
    slice of members at a time: the same bytes as the whole document, and a slice orjson
    cannot write (a token count past 64 bits) goes through the fallback alone."""
    from reportgen.views import logtree_export
    from reportgen.views.logtree_export import logtree_dict, logtree_parts

    monkeypatch.setattr(logtree_export, "MEMBERS_PER_SLICE", 2)
    o = Obs().run("grpo", group_size=5)
    o.batch(*[o.prompt(f"p:{g}", f"question {g}") for g in range(2)])
    o.batch(*[o.rollout(1, g, m, f"answer {g}.{m} <&>", prompt=f"p:{g}") for g in range(2) for m in range(5)])
    o.batch(o.update(1))
    reader = open_source(str(o.write(tmp_path / "src")))
    run = reader.scan()
    it = reader.load(run.iterations[0])
    parts = list(logtree_parts(run, it, "p.html"))
    # the head, then per group: a comma, its head, three slices of 2, 2 and 1 members (each
    # after a comma) and its end
    assert len(parts) == 2 + 2 * (3 + 2 * 3)
    assert b"".join(parts) == orjson.dumps(logtree_dict(run, it, "p.html"))
    it.groups[1].members[3].tokens = 2**70
    doc = json.loads(b"".join(logtree_parts(run, it, "p.html")))
    assert doc == json.loads(json.dumps(logtree_dict(run, it, "p.html")))
    assert doc["root"]["children"][3]["children"][1]["children"][5]["data"]["tokens"] == 2**70


def test_logtree_of_an_update_of_several_pages_is_the_whole_document(tmp_path):
    """An update's groups are split over pages; its logtree JSON is one document with every
    group once and in order, whatever the number of pages or workers."""
    from reportgen.views.logtree_export import logtree_bytes

    o = Obs().run("grpo", group_size=2)
    o.batch(*[o.prompt(f"p:{g}", f"question {g}") for g in range(5)])
    o.batch(*[o.rollout(1, g, m, f"answer {g}.{m} <&>", prompt=f"p:{g}") for g in range(5) for m in range(2)])
    o.batch(o.update(1))
    src = o.write(tmp_path / "src")
    for per, jobs in ((2, 1), (50, 1), (1, 2)):
        site = tmp_path / f"site{per}"
        build(str(src), site, BuildOptions(jobs=jobs, groups_per_page=per))
        reader = open_source(str(src))
        run = reader.scan()
        assert len(run.iterations) == 1
        for ref in run.iterations:
            it = reader.load(ref)
            name = ref.page[: -len(".html")] + "_logtree.json"
            assert (site / name).read_bytes() == logtree_bytes(run, it, ref.page), (per, name)
        pages = sorted(site.glob("train_iteration_000001*.html"))
        assert len(pages) == -(-5 // per)
        shown = [a["id"] for page in pages for a in soup(page).select("section.group")]
        assert shown == [f"g{g}" for g in range(5)]


def test_a_group_larger_than_a_page_is_split_by_reward_with_the_figures_of_all(tmp_path, monkeypatch):
    """A group of more than ROLLOUTS_PER_PAGE members (a PPO batch of 65,536 made one page of
    200 MiB) gets pages of its own, its members by reward; each part's header gives the
    figures of the whole group, duplicates are found across parts, and the logtree JSON
    stays one document."""
    import reportgen.views.iteration as iteration_view
    from reportgen.views.logtree_export import logtree_bytes

    monkeypatch.setattr(iteration_view, "ROLLOUTS_PER_PAGE", 3)
    o = Obs().run("grpo", group_size=7)
    o.batch(*[o.prompt(f"p:{g}", f"question {g}") for g in range(3)])
    rewards = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8, 0.2]
    o.batch(
        o.rollout(1, 0, 0, "small 0", prompt="p:0", reward=1.0),
        *[
            o.rollout(1, 1, m, "same text" if m in (1, 2) else f"big {m}", prompt="p:1", reward=r)
            for m, r in enumerate(rewards)
        ],
        o.rollout(1, 2, 0, "small 2", prompt="p:2", reward=0.0),
    )
    o.batch(o.update(1))
    src = o.write(tmp_path / "src")
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    names = ["", "_p2", "_p3", "_p4", "_p5"]
    pages = [soup(site / f"train_iteration_000001{n}.html") for n in names]
    assert not (site / "train_iteration_000001_p6.html").exists()
    captions = [p.select_one("nav.subpages").get_text(" ", strip=True).split(":")[0] for p in pages]
    assert captions == [
        "groups 1–1 of 3",
        "group 1, members 1–3 of 7 (by reward)",
        "group 1, members 4–6 of 7 (by reward)",
        "group 1, members 7–7 of 7 (by reward)",
        "groups 3–3 of 3",
    ]
    members = [[a["id"] for a in p.select("article.member")] for p in pages]
    by_reward = sorted(range(7), key=lambda m: -rewards[m])
    assert [len(m) for m in members] == [1, 3, 3, 1, 1]
    assert [int(x.rsplit("m", 1)[1]) for x in members[1] + members[2] + members[3]] == by_reward
    for p, (a, b) in zip(pages[1:4], ((1, 3), (4, 6), (7, 7))):
        head = p.select_one("section.group .group-head").get_text(" ", strip=True)
        assert "0/7 trained" in head and "0.100 … 0.900" in head and "mean 0.500" in head, head
        assert (
            p.select_one(".group-head .part").get_text(" ", strip=True).startswith(f"this page: members {a}–{b} of 7")
        )
    dup = {a["id"] for p in pages for a in p.select("article.member") if "duplicate" in a.get_text(" ")}
    assert sorted(int(x.rsplit("m", 1)[1]) for x in dup) == [1, 2]  # on different parts
    reader = open_source(str(src))
    run = reader.scan()
    it = reader.load(run.iterations[0])
    assert (site / "train_iteration_000001_logtree.json").read_bytes() == logtree_bytes(run, it, run.iterations[0].page)


def test_logtree_holds_the_prompts_reward_text_and_metadata(tmp_path):
    """What the page shows of a prompt is in the logtree beside it too: a reward_text that is
    not the last user message (once per prompt, none when it is that message) and the scenario
    metadata (a rubric, say)."""
    o = Obs().run()
    o.batch(
        o.prompt("p:0", "what is <2+2>?", reward_text="score <this> instead"),
        o.prompt("p:1", "same", reward_text="same"),
        *[o.rollout(1, 0, m) for m in range(3)],
        o.rollout(1, 1, 0, prompt="p:1"),
    )
    o.batch(o.update(1))
    a = Obs().run("agent_grpo")
    a.batch(
        a.prompt("s:t", "q", metadata={"rubric": "quote <temps>"}),
        *[
            a.rollout(1, 0, m, None, prompt="s:t", messages=[{"role": "assistant", "content": "hi"}], prefix=True)
            for m in range(2)
        ],
    )
    a.batch(a.update(1))
    for src, name, want in ((o, "grpo", "score &lt;this&gt; instead"), (a, "agent", "quote &lt;temps&gt;")):
        out = tmp_path / name
        build(str(src.write(tmp_path / f"{name}-src")), out)
        raw = (out / "train_iteration_000001_logtree.json").read_text()
        json.loads(raw)
        assert raw.count(want) == 1, name
    assert "Prompt p:1: reward_text" not in (tmp_path / "grpo" / "train_iteration_000001_logtree.json").read_text()


def test_group_header_counts_unknown_execution_apart(tmp_path):
    """ "k/N trained" counted a member with no outcome entry (unknown execution) as not
    trained: "1/3 trained" read as two left out; it says "1/3 trained, 2 unknown"."""
    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), *[o.rollout(1, 0, m, f"a{m}") for m in range(3)], o.outcome(1, (0, 0, True)))
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site")
    page = soup(tmp_path / "site" / "train_iteration_000001.html")
    assert "1/3 trained, 2 unknown" in page.select_one("section.group header").get_text(" ")
    # and the update's header, which counts every group (observe-spec §2.7: unknown execution)
    assert "1/3 trained, 2 unknown" in page.select_one("p.facts").get_text(" ")
    # kept by a rebuild that reuses the page (its state record)
    build(str(tmp_path / "src"), tmp_path / "site")
    assert "1/3 trained, 2 unknown" in soup(tmp_path / "site" / "train_iteration_000001.html").select_one(
        "p.facts"
    ).get_text(" ")


def test_an_outcome_of_not_trained_without_a_reason_has_a_chip(tmp_path):
    """observe-spec §2.7: an outcome entry "trained: false" for an eligible member with no
    skip reason left the card without a training chip at all (the viewer's rules), which
    reads as nothing known: it says "not trained"; skipped members keep "skipped" alone."""
    o = Obs().run()
    o.batch(
        o.prompt("p:0", "q"),
        o.rollout(1, 0, 0, "a0", eligible=True),
        o.rollout(1, 0, 1, "a1", eligible=True),
        o.rollout(1, 0, 2, "a2", eligible=False, skip_reason="zero_signal"),
        o.outcome(1, (0, 0, True), (0, 1, False), (0, 2, False)),
    )
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site")
    page = soup(tmp_path / "site" / "train_iteration_000001.html")
    chips = {card["id"]: [c.get_text() for c in card.select("span.chip")] for card in page.select("[id^='g0-m']")}
    assert "trained" in chips["g0-m0"] and "not trained" not in chips["g0-m0"]
    assert "not trained" in chips["g0-m1"]
    assert "skipped: zero_signal" in chips["g0-m2"] and "not trained" not in chips["g0-m2"]


def negative_ids_run(directory: Path) -> Path:
    """An export whose writer chose negative ids: groups -1, 0 and 1, members -3, -1, -2, and a
    batch without a group (None) in the same update, so that PPO's ``g-<index>`` anchors and
    the groups' share a page; two groups a page, so the update has the table of all groups."""
    o = Obs().run("grpo", group_size=2)
    o.batch(
        o.prompt("p:0", "q"),
        o.prompt("p:1", "r"),
        o.rollout(1, -1, -3, "neg member of a neg group", prompt="p:0", reward=0.25),
        o.rollout(1, -1, 0, "member 0 of group -1", prompt="p:0", reward=0.5),
        o.rollout(1, None, 2, "no group, member 2", prompt="p:1"),
        o.rollout(1, None, -2, "no group, member -2", prompt="p:1", reward=0.0),
        o.rollout(1, 0, -1, "member -1 of group 0", prompt="p:0"),
        o.rollout(1, 1, 5, "member 5 of group 1", prompt="p:0"),
    )
    o.batch(o.update(1))
    return o.write(directory)


def test_negative_ids_get_anchors_every_link_reaches(tmp_path):
    """Group -1 was anchored ``g-1``, the anchor of the second place of a batch without a group
    (so two elements had one id), and member -3 ``g-1-m-3``, which the page's script refused.
    A minus sign in an id is written ``n`` (``gn1``, ``g0-mn1``): every ``#`` link of a page,
    to itself or to another page of the update, and every search result reaches an element
    of that id, and no id is given twice."""
    from .test_search import data_of

    site = tmp_path / "site"
    build(str(negative_ids_run(tmp_path / "src")), site, BuildOptions(groups_per_page=2))
    pages = sorted(site.glob("train_iteration_000001*.html"))
    assert [p.name for p in pages] == ["train_iteration_000001.html", "train_iteration_000001_p2.html"]
    ids: dict[str, list[str]] = {}
    docs = {}
    for p in pages:
        docs[p.name] = doc = soup(p)
        ids[p.name] = [t["id"] for t in doc.find_all(id=True)]
        assert len(ids[p.name]) == len(set(ids[p.name])), p.name
    assert {"gn1", "gn1-mn3", "gn1-m0", "g-1", "g-1-mn2", "g-1-m2"} <= set(ids["train_iteration_000001.html"])
    assert {"g0-mn1", "g1-m5"} <= set(ids["train_iteration_000001_p2.html"])
    for name, doc in docs.items():
        for a in doc.find_all(href=True):
            page, sep, frag = a["href"].partition("#")
            if not sep or page == "index.html":
                continue
            assert frag in ids[page or name], (name, a["href"])
        labels = {a["href"]: a.get_text() for a in doc.select("#all-groups tbody a")}
        assert labels["train_iteration_000001.html#gn1"] == "group -1"
        assert labels["train_iteration_000001.html#g-1"] == "rollouts"
    shard = data_of(site / "train_iteration_000001_search.js", "RG_SEARCH_SHARD")
    assert shard["items"]
    for page, anchor, *_ in shard["items"]:
        assert anchor in ids[shard["pages"][page]], anchor
    card = docs["train_iteration_000001.html"].select_one("#gn1-mn3")
    assert card["data-cid"] == "1:-1:-3" and card["data-member"] == "-3"
    assert card.select_one("a.anchor").get_text() == "#-3"


def test_structural_holes_are_said(tmp_path):
    """observe-spec §1.2: besides the metric, the evidence of dropped batches is structural:
    update numbers missing from the list, and an update due for texts (update % every == 0)
    without rollouts. The index warns of both and marks the update's row."""
    from reportgen.check import check

    o = Obs().run("grpo", every=2)
    for n in (1, 2, 3, 4, 5, 6, 8, 9, 10, 14):
        if n % 2 == 0 and n not in (8, 14):
            o.batch(o.prompt(f"p:{n}", "q"), o.rollout(n, 0, 0, "a", prompt=f"p:{n}"))
        o.batch(o.update(n))
    src = o.write(tmp_path / "src")
    build(str(src), tmp_path / "site")
    index = soup(tmp_path / "site" / "index.html")
    warnings = " ".join(p.get_text(" ", strip=True) for p in index.select(".warning, .warnings li"))
    assert "4 update number(s) are missing from the list" in warnings and ": 7, 11-13." in warnings, warnings
    assert (
        "2 update(s) were due for texts (update % every == 0) but have no rollouts (a dropped batch): 8, 14."
        in warnings
    )
    assert index.select_one("#u8 .due").get_text() == "no texts: dropped"
    assert "every 2" in index.select_one("#u8 .due")["title"]
    assert index.select_one("#u9 .due") is None and index.select_one("#u9 .subtle").get_text() == "no texts"
    # for check, notes: evidence of a drop, not a fault of the file (exit code 0)
    report = check(str(src))
    assert report.problems == []
    said = " ".join(report.notes)
    assert "missing from the list" in said and "due for texts" in said


def test_the_older_writers_feed_manifest_counts_dropped_batches(tmp_path):
    """observe-spec §1.2, §5.1: the older writer's feed/manifest.js says how many batches its
    latest segment dropped; read as JSON text (never run), it joins the warning. Anything
    else in that file is left alone."""
    from reportgen.check import check

    o = Obs().run("grpo", every=None)
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, "a"))
    o.batch(o.update(1))
    src = o.write(tmp_path / "src")
    (src / "feed").mkdir()
    manifest = src / "feed" / "manifest.js"
    manifest.write_text(
        'RG_FEED.manifest({"chunks":3,"dropped_batches":2,"generation":1,"segment":0,"updated_at":"t"});\n'
    )
    build(str(src), tmp_path / "site")
    index = soup(tmp_path / "site" / "index.html")
    assert "2 export batch(es) were dropped" in index.get_text(" ")
    assert any("2 export batch(es) were dropped" in n for n in check(str(src)).notes)  # what the run did: a note
    for text in ("RG_FEED.manifest(alert(1));\n", "not a manifest", 'RG_FEED.manifest({"dropped_batches":"2"});\n'):
        manifest.write_text(text)
        build(str(src), tmp_path / "site2")
        assert "were dropped" not in soup(tmp_path / "site2" / "index.html").get_text(" ")


def test_step_rewards_without_a_message_say_their_kind(tmp_path):
    """Spec §5.1: "step rewards without a message: step i (kind) r"; the chips placed on a
    message keep their kind in the title only (the message says where they are)."""
    from .obs import one_conversation

    messages = [{"role": "assistant", "content": "done"}]
    steps = [
        {"step_index": 7, "kind": "context", "reward": 0.05, "message_indices": []},
        {"step_index": 1, "kind": "tool_result", "reward": -0.25, "message_indices": [0]},
    ]
    one_conversation(messages, step_rewards=steps).write(tmp_path / "src")
    build(str(tmp_path / "src"), tmp_path / "site")
    page = soup(next((tmp_path / "site").glob("train_iteration_*1.html")))
    line = page.select_one(".member p.unattributed")
    assert line is not None
    assert line.get_text(" ", strip=True) == "step rewards without a message: step 7 (context) +0.050"
    placed = page.select_one('.member .msg[data-index="0"] .chip.sr')
    assert placed.get_text(strip=True) == "step 1 -0.250"
    assert placed["title"] == "tool_result reward of step 1"


def test_an_agentic_runs_index_lists_its_tool_error_fraction(tmp_path):
    """agent/tool_error_fraction, where the run logs it, is a column of the index's table
    (which updates' tools failed most); a run without it gets no such column."""
    o = Obs().run("agent_grpo")
    o.batch(o.update(1, reward__mean=0.5, agent__tool_error_fraction=0.25))
    o.batch(o.update(2, reward__mean=0.7, agent__tool_error_fraction=0.125))
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(jobs=1))
    page = soup(tmp_path / "site" / "index.html")
    heads = [th.get_text() for th in page.select("#iterations thead th")]
    assert "agent/tool_error_fraction" in heads
    col = heads.index("agent/tool_error_fraction")
    assert [tr.find_all("td")[col].get_text() for tr in page.select("#iterations tbody tr")] == ["0.250", "0.125"]


def test_the_header_says_whose_texts_every_it_shows(tmp_path):
    """Segments that export texts every 2 and every 3 updates: the header's figure is the
    latest segment's, and it says so (the segments table lists each)."""
    o = Obs().run(every=2)
    for n in (1, 2):
        o.batch(o.update(n))
    o.run(resumed=2, every=3)
    o.batch(o.update(3))
    build(str(o.write(tmp_path / "src")), tmp_path / "site")
    index = soup(tmp_path / "site" / "index.html")
    texts = next(dt for dt in index.find_all("dt") if dt.get_text() == "texts").find_next("dd").get_text(" ")
    assert "every 3 updates" in texts and "latest segment" in texts
    o2 = Obs().run(every=3)
    o2.batch(o2.update(1))
    o2.run(resumed=1, every=3)
    o2.batch(o2.update(2))
    build(str(o2.write(tmp_path / "src2")), tmp_path / "site2")
    index = soup(tmp_path / "site2" / "index.html")
    texts = next(dt for dt in index.find_all("dt") if dt.get_text() == "texts").find_next("dd").get_text(" ")
    assert texts == "every 3 updates"


def test_one_rollout_is_said_in_the_singular(tmp_path):
    """An update of one rollout: "1 rollout in 1 group" on its page, "1 text" on the index."""
    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, "a"))
    o.batch(o.update(1))
    build(str(o.write(tmp_path / "src")), tmp_path / "site")
    page = soup(tmp_path / "site" / "train_iteration_000001.html").get_text(" ")
    assert "1 rollout in 1 group" in page and "1 rollouts" not in page
    row = soup(tmp_path / "site" / "index.html").select_one("tr#u1").get_text(" ")
    assert "1 text" in row and "1 texts" not in row


def test_invisible_characters_are_named_where_no_span_can_mark_them(tmp_path):
    """A tool name, skip reason or title holding a right-to-left override or a zero width
    space: the page's script marks such characters in texts, but an <option> and the <title>
    hold no markup, so they are named there (⟨U+202E⟩); the option's value stays exact (the
    filter compares it with the cards' data)."""
    from reportgen.site import BuildOptions

    from .obs import one_conversation

    messages = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "calc\u202eexe", "arguments": "{}"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
    ]
    o = one_conversation(messages, eligible=False, skip_reason="zero\u200bsignal")
    build(str(o.write(tmp_path / "src")), tmp_path / "site", BuildOptions(title="run\u202e42"))
    page = soup(tmp_path / "site" / "train_iteration_000001.html")
    tool = [opt for opt in page.select("#f-tool option") if opt.get("value")]
    assert [(o["value"], o.get_text()) for o in tool] == [("calc\u202eexe", "tool: calc\u27e8U+202E\u27e9exe")]
    skip = [opt for opt in page.select("#f-skip option") if opt.get("value")]
    assert [(o["value"], o.get_text()) for o in skip] == [("zero\u200bsignal", "skipped: zero\u27e8U+200B\u27e9signal")]
    assert "run\u27e8U+202E\u27e942" in page.title.get_text() and "\u202e" not in page.title.get_text()
    index = soup(tmp_path / "site" / "index.html")
    assert "\u202e" not in index.title.get_text()
