"""The iteration page as a rollout viewer: markdown safety, math, highlighting, the page's data for the JS."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from reportgen.model import Group, Member, Message, Prompt, ToolCall
from reportgen.site import BuildOptions, build
from reportgen.views import cards
from reportgen.views.iteration import compact_line, json_tree
from reportgen.views.markdown import highlight_code, render_markdown

from .obs import Obs

FIXTURES = Path(__file__).parent / "fixtures"

MD_TEXT = (
    "**bold** and $x^2$ and \\boxed{42}\n"
    "```python\nprint('hi')  # c\n```\n"
    "[bad](javascript:alert(1)) [good](https://example.com) ![img](http://example.com/a.png) <b>raw</b>"
)


def synthetic_run(directory: Path) -> Path:
    """A GRPO run for the viewer: 7 groups in update 1 (paged by 3), skips, duplicates, nulls, markdown."""
    o = Obs().run("grpo", group_size=4)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    prompts = [o.prompt(f"p:{g}", f"Question {g}: what is {g} + {g}?") for g in range(7)]
    rollouts = []
    outcome = []
    for g in range(7):
        rewards: list[float | None] = [1.0, 0.5, 0.0, 0.0]
        for m in range(4):
            extra: dict = {"prompt": f"p:{g}", "advantage": (rewards[m] or 0) - 0.375, "eligible": True}
            text = f"Answer {words[g]} {m}: the result is {2 * g + m}."
            if g == 0 and m == 0:
                text = MD_TEXT
            if g == 1:  # uniform rewards: zero signal, and two identical texts
                rewards = [1.0, 1.0, 1.0, 1.0]
                extra.update(advantage=0.0, eligible=False, trained=False, skip_reason="zero_signal")
                text = "same answer" if m < 2 else f"other answer {m}"
            if g == 2 and m == 3:
                extra.update(truncated=True, eligible=False, trained=False, skip_reason="truncated")
                text = "Let me think step by step and never stop"
            if g == 2 and m == 2:
                rewards[m] = None
                extra.update(reward_raw=None)
            extra.setdefault("reward_raw", rewards[m])
            if g == 0 and m == 1:
                extra["reward_raw"] = 0.25
                extra["judge_term"] = 0.25
            rollouts.append(o.rollout(1, g, m, text, reward=rewards[m], **extra))
            outcome.append((g, m, extra.get("trained", True) is not False))
    o.batch(*prompts, *rollouts)
    o.batch(o.outcome(1, *outcome))
    o.batch(o.update(1, reward__mean=0.4))
    # update 2 samples p:0 and p:1 again (cross links), with a changed final answer for the diff
    o.batch(
        *[
            o.rollout(2, g, m, f"Answer {words[g]} {m}: the result is {2 * g + m + 1}.", prompt=f"p:{g}", reward=m / 4)
            for g in range(2)
            for m in range(4)
        ]
    )
    o.batch(o.outcome(2, *[(g, m, True) for g in range(2) for m in range(4)]))
    o.batch(o.update(2, reward__mean=0.5))
    o.batch(o.rollout(3, 0, 0, "last update", prompt="p:0"))
    o.batch(o.outcome(3, (0, 0, True)))
    o.batch(o.update(3, reward__mean=0.6))
    return o.write(directory)


def recurring_run(directory: Path, updates: int = 14) -> Path:
    """A GRPO run that samples prompt p:0 in every update (a small dataset, many epochs)."""
    o = Obs().run("grpo", group_size=2)
    o.batch(o.prompt("p:0", "What is 2 + 2?"))
    for n in range(1, updates + 1):
        o.batch(*[o.rollout(n, 0, m, f"update {n} answer {m}", prompt="p:0", reward=float(m)) for m in range(2)])
        o.batch(o.outcome(n, (0, 0, True), (0, 1, True)))
        o.batch(o.update(n, reward__mean=0.5))
    return o.write(directory)


def resumed_recurring_run(directory: Path) -> Path:
    """p:0 sampled in every update: updates 1..16 in segment 0, then a resume from 14 whose
    segment writes p:0 again, another question (the keys are a segment's own), for 15..24."""
    o = Obs().run("grpo", group_size=2)

    def update(n: int) -> None:
        o.batch(*[o.rollout(n, 0, m, f"update {n} answer {m}", prompt="p:0", reward=float(m)) for m in range(2)])
        o.batch(o.update(n, reward__mean=0.5))

    o.batch(o.prompt("p:0", "What is 2 + 2?"))
    for n in range(1, 17):
        update(n)
    o.run("grpo", resumed=14, group_size=2)
    o.batch(o.prompt("p:0", "Name a prime."))
    for n in range(15, 25):
        update(n)
    return o.write(directory)


def build_synthetic(tmp: Path, groups_per_page: int = 3) -> Path:
    out = tmp / "site"
    build(str(synthetic_run(tmp / "src")), out, BuildOptions(groups_per_page=groups_per_page))
    return out


def groups_html(groups: list[Group], observe: bool = True) -> str:
    """The groups' HTML as a page of them holds it (no markdown, no links to other updates)."""
    return "".join(
        cards.group_chunks(
            groups,
            md=False,
            page_key="1",
            training_known=observe,
            train=True,
            observe=observe,
            others=lambda k: ([], 0),
            facts=cards.PageGroups(),
        )
    )


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module")
def syn(tmp_path_factory) -> Path:
    return build_synthetic(tmp_path_factory.mktemp("syn"))


# ------------------------------------------------------------------ markdown
def test_markdown_is_safe():
    html = str(
        render_markdown(MD_TEXT + "\n<script>alert(1)</script> [d](data:text/html,x) [v](VBScript:x) [f](file:///e)")
    )
    s = BeautifulSoup(html, "html.parser")
    assert not s.find("img") and not s.find("script") and not s.find("b")
    hrefs = [a["href"] for a in s.find_all("a")]
    assert hrefs == ["https://example.com"]
    assert s.find("a")["rel"] == ["noopener", "noreferrer", "nofollow"]
    assert "[image: img]" in s.get_text() and "http://example.com/a.png" in s.get_text()
    assert "<b>raw</b>" in s.get_text()  # raw HTML stays text
    assert "javascript:alert(1)" in s.get_text()


def test_math_spans():
    s = BeautifulSoup(str(render_markdown(MD_TEXT)), "html.parser")
    maths = [(m.get_text(), "display" in m["class"]) for m in s.select("span.math")]
    assert maths == [("x^2", False), ("\\boxed{42}", False)]
    s2 = BeautifulSoup(
        str(render_markdown("a $$\\sum_i x_i$$ b \\(y_1\\) \\[z\\] `$q$` costs $5 and $10")), "html.parser"
    )
    assert [m.get_text() for m in s2.select("span.math")] == ["\\sum_i x_i", "y_1", "z"]
    assert "$q$" in s2.find("code").get_text() and "costs $5 and $10" in s2.get_text()
    # markdown never mangles TeX: underscores and backslashes survive
    s3 = BeautifulSoup(str(render_markdown("$a_1 * b_2 \\\\ c$")), "html.parser")
    assert s3.select_one("span.math").get_text() == "a_1 * b_2 \\\\ c"


def test_code_highlighting():
    out = highlight_code("def f(x):  # note\n    return 'a' + 1", "python")
    assert '<span class="hl-k">def</span>' in out and '<span class="hl-c"># note</span>' in out
    assert '<span class="hl-s">&#39;a&#39;</span>' in out
    assert '<span class="hl-p">&#34;k&#34;</span>' in highlight_code('{"k": 1}', "json")
    assert '<span class="hl-v">$HOME</span>' in highlight_code("echo $HOME", "sh")
    assert highlight_code("<x>", "cobol") == "&lt;x&gt;"
    html = str(render_markdown("```js\nconst a = `<b>`; // c\n```"))
    assert 'data-lang="js"' in html and "&lt;b&gt;" in html and "<b>" not in html


def test_json_tree_and_compact_line():
    tree = str(json_tree({"a": [1, "x\ny"], "b": None, "<k>": "<v>"}))
    assert "<details" in tree and "&lt;k&gt;" in tree and "<k>" not in tree
    assert BeautifulSoup(tree, "html.parser").select("pre.jt-long")[0].get_text() == "x\ny"
    m = Member(
        member=0,
        messages=[
            Message("system", "s"),
            Message("assistant", "", tool_calls=[ToolCall("c1", "search", {})]),
            Message("tool", "err", tool_call_id="c1", is_error=True, name="search"),
            Message("assistant", "done"),
        ],
    )
    assert compact_line(m) == "system → assistant[search] → tool(search)! → assistant"
    assert compact_line(Member(member=1, completion="first line\nsecond")) == "first line"
    assert compact_line(Member(member=2, completion="  \n\n ")) == "(no text)"


# ------------------------------------------------------------------ pages
def test_every_page_of_a_paginated_update_has_the_table_of_all_its_groups(syn):
    """Sorting orders one page's cards; the table of all groups, on every page, lists every
    group with its page, figures and a link to it, so that a reader finds them all."""
    pages = ["train_iteration_000001.html", "train_iteration_000001_p2.html", "train_iteration_000001_p3.html"]
    for name in pages:
        s = soup(syn / name)
        table = s.select_one("details#all-groups")
        assert table is not None and not table.has_attr("open")
        assert table.summary.get_text(" ", strip=True) == "all 7 groups of this update, on 3 pages"
        rows = table.select("tbody tr")
        assert [r.a["href"] for r in rows] == [f"{pages[g // 3]}#g{g}" for g in range(7)]
        cells = [[td.get_text(" ", strip=True) for td in r.select("td")] for r in rows]
        assert cells[0] == ["group 0", "1", "4", "0.375", "0 … 1", "4/4"]
        assert cells[1] == ["group 1", "1", "4", "1", "1 … 1", "0/4"]  # zero signal: none trained
        assert cells[2][3:5] == ["0.500", "0 … 1"]  # a reward missing: of the three known
        assert [c[1] for c in cells] == ["1", "1", "1", "2", "2", "2", "3"]
        assert [r["data-order"] for r in rows] == [str(i) for i in range(7)]
        assert (rows[1]["data-mean"], rows[1]["data-spread"]) == ("1.0", "0.0")
        assert [r["data-page"] for r in rows] == [c[1] for c in cells]  # the script marks this page's
    # an update on one page has no such table
    assert soup(syn / "train_iteration_000002.html").select_one("#all-groups") is None


def test_past_a_bound_the_table_of_all_groups_is_on_the_first_page_only(tmp_path, monkeypatch):
    import reportgen.views.iteration as iteration_view

    monkeypatch.setattr(iteration_view, "OVERVIEW_EVERYWHERE", 5)
    monkeypatch.setattr("reportgen.site.OVERVIEW_EVERYWHERE", 5)
    site = build_synthetic(tmp_path)
    first = soup(site / "train_iteration_000001.html")
    assert len(first.select("#all-groups tbody tr")) == 7 and first.select_one("a.to-overview") is None
    for name in ("train_iteration_000001_p2.html", "train_iteration_000001_p3.html"):
        s = soup(site / name)
        assert s.select_one("#all-groups") is None
        assert s.select_one("nav.subpages a.to-overview")["href"] == "train_iteration_000001.html#all-groups"


def test_pages_carry_both_renderings_and_viewer_data(syn):
    s = soup(syn / "train_iteration_000001.html")
    v = s.select_one("#rg-viewer")
    assert v["data-key"] == "1" and v["data-page"] == "1"
    assert v["data-pages"].split() == [
        "train_iteration_000001.html",
        "train_iteration_000001_p2.html",
        "train_iteration_000001_p3.html",
    ]
    m = s.select_one("#g0-m0")
    assert m["data-cid"] == "1:0:0"
    assert m.select_one("pre.text.has-md").get_text() == MD_TEXT  # exact text, untouched
    md = m.select_one("div.md")
    assert md.select_one("strong").get_text() == "bold" and md.select_one("span.math")
    assert not s.find("img")
    assert all(
        a["href"].startswith(("https:", "#", "train_", "index", "eval_", "search.html")) or a["href"].endswith(".json")
        for a in s.find_all("a", href=True)
    )
    dup = [x["data-member"] for x in s.select("#g1 .member[data-dup=true]")]
    assert sorted(dup) == ["0", "1"]
    assert s.select_one("#g1 .member")["data-skip"] == "zero_signal"
    assert s.select_one("#g2-m2")["data-reward"] == ""
    # later updates sampling the same prompt are linked from prompts.js (old pages stay unchanged)
    assert s.select_one("#g0 .others .olist") is not None
    assert s.select_one("#g0")["data-prompt"] == "p:0"
    assert s.find("script", src="prompts.js") is not None
    prompts = (syn / "prompts.js").read_text()
    assert '"p:0":[1,2' in prompts
    assert [o["value"] for o in s.select("#f-skip option")] == ["", "truncated", "zero_signal"]
    head = s.find("head")
    assert head.find("link", href="assets/viewer.css") and head.find("link", href="assets/vendor/katex.min.css")


def test_csp_rules_hold_on_every_page(syn):
    for page in syn.glob("*.html"):
        s = soup(page)
        assert not [t for t in s.find_all("script") if not t.get("src") and t.get("type") != "application/json"]
        assert not [t for t in s.find_all(True) if t.has_attr("style")]
        assert not any(a.startswith("on") for t in s.find_all(True) for a in t.attrs)
        assert not s.find("img")


def test_markdown_can_be_turned_off(tmp_path):
    from reportgen.sources.observe import ObserveReader
    from reportgen.storage import Storage
    from reportgen.views.iteration import iteration_context

    reader = ObserveReader(Storage(str(synthetic_run(tmp_path / "src"))))
    run = reader.scan()
    it = reader.load(run.iterations[0])
    ctx = iteration_context(run, it, None, None, markdown=False)
    assert ctx["markdown"] is False
    assert 'class="md"' not in ctx["groups_html"] and "has-md" not in ctx["groups_html"]
    on = iteration_context(run, it, None, None)
    assert on["groups_html"].count('<div class="md">') >= on["n_members"]  # every completion, and prompts


def test_chunked_groups_are_the_joined_groups_a_group_each(tmp_path):
    """The site writes a page's groups a group at a time (``chunked``): the chunks joined are
    the groups' HTML, one chunk per group, and a wide character (an emoji) stays in its own."""
    from reportgen.sources.observe import ObserveReader
    from reportgen.storage import Storage
    from reportgen.views.iteration import iteration_context

    reader = ObserveReader(Storage(str(synthetic_run(tmp_path / "src"))))
    run = reader.scan()
    it = reader.load(run.iterations[0])
    it.groups[1].members[0].completion = "smile \U0001f642 <b>"
    for md in (False, True):
        joined = iteration_context(run, it, None, None, markdown=md)
        chunked = iteration_context(run, it, None, None, markdown=md, chunked=True)
        chunks = chunked["groups_chunks"]
        assert chunked["groups_html"] is None and joined["groups_chunks"] == chunks
        assert isinstance(chunks, list) and len(chunks) == len(it.groups) == joined["n_groups"] > 2
        assert "".join(chunks) == str(joined["groups_html"])
        assert [c.isascii() for c in chunks] == [i != 1 for i in range(len(chunks))]
        assert "smile \U0001f642 &lt;b&gt;" in chunks[1]
    it.groups = []
    chunks = iteration_context(run, it, None, None, chunked=True)["groups_chunks"]
    assert chunks == [str(iteration_context(run, it, None, None)["groups_html"])] and "No rollout" in chunks[0]


def test_final_answer_marked_and_tool_results_indexed():
    out = Path(__file__).parent / "fixtures" / "observe" / "examples"
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        site = Path(d) / "s"
        build(str(out), site)
        s = soup(site / "train_iteration_000001.html")
        finals = s.select(".member [data-final]")
        assert len(finals) == len(s.select(".member"))
        assert all(f["data-role"] == "assistant" for f in finals)
        # the fixture's step rewards point at its tool results: each is drawn on its own
        # (spec 5.2), and its call says where
        results = s.select('.msg[data-role="tool"][data-index]')
        assert results and not s.select(".result[data-index]")
        apart = [p.get_text() for p in s.select("details.call .result-apart")]
        assert apart and all("a step reward points at it" in t for t in apart)
        assert {f"#{r['data-index']}," for r in results} >= {t.split()[2] for t in apart}
        assert "Tomorrow Paris will be sunny" in " ".join(f.get_text() for f in finals)
        assert re.search(r"\d+:0:\d+", s.select_one(".member")["data-cid"])


def test_tool_results_pair_with_the_nearest_preceding_call():
    from reportgen.views.iteration import conversation_view

    msgs = [
        Message("assistant", "", tool_calls=[ToolCall("call_0", "search", {"q": "a"})]),
        Message("tool", "first", tool_call_id="call_0"),
        Message("assistant", "", tool_calls=[ToolCall("call_0", "read", {}), ToolCall("call_1", "list", {})]),
        Message("tool", "second", tool_call_id="call_0"),
        Message("tool", "parse error", tool_call_id="parse_error_1", is_error=True),
        Message("assistant", "done"),
    ]
    views, _ = conversation_view(msgs, [])
    first_call, second_call, third_call = views[0].calls[0], views[2].calls[0], views[2].calls[1]
    assert first_call.result is views[1] and second_call.result is views[3]
    assert third_call.result is None  # drawn with "no result"
    assert views[4].standalone and views[4].unknown_call
    assert views[5].final and not views[0].final
    # tinker: tool messages without ids answer the latest turn's calls in order, by name
    tk = [
        Message("assistant", "", tool_calls=[ToolCall(None, "calc", "1+1"), ToolCall(None, "calc", "2+2")]),
        Message("tool", "2", name="calc"),
        Message("tool", "4", name="calc"),
    ]
    v2, _ = conversation_view(tk, [])
    assert [c.result.text.text for c in v2[0].calls] == ["2", "4"]
    assert not v2[1].unknown_call and not v2[1].standalone
    # observe: the trainer's viewers pair by id alone; a result without one answers no call
    ob = [
        Message("assistant", "", tool_calls=[ToolCall("call_0", "read", {})]),
        Message("tool", "WHO-AM-I"),
        Message("assistant", "done"),
    ]
    v3, _ = conversation_view(ob, [], by_id=True)
    assert v3[0].calls[0].result is None and v3[1].standalone and v3[1].unknown_call


def test_a_batch_of_many_prompts_lists_its_first_keys_escaped():
    members = [
        Member(member=i, completion="a", reward=None, prompt=Prompt(key=f"<k{i}>", messages=[Message("user", "q")]))
        for i in range(11)
    ]
    html = groups_html([Group(id=None, prompt=None, members=members)])
    shown = ", ".join(f"&lt;k{i}&gt;" for i in range(8))
    assert f"11 different prompts ({shown} and 3 more): each rollout shows its own" in html


def test_an_observe_tool_result_without_an_id_answers_no_call(tmp_path):
    """A page: the call says "no result", the tool message stands alone as "unknown call"."""
    o = Obs().run(algorithm="agent_grpo")
    msgs = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_0", "name": "read", "arguments": {}}]},
        {"role": "tool", "content": "WHO-AM-I"},
        {"role": "assistant", "content": "done"},
    ]
    o.batch(o.prompt(), o.rollout(1, 0, 0, None, messages=msgs))
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site, BuildOptions(markdown="off"))
    card = soup(site / "train_iteration_000001.html").select_one("article.member")
    call = card.select_one("details.call")
    assert call.select_one(".result") is None and "no result" in call.summary.get_text()
    alone = card.select_one('.msg[data-role="tool"]')
    assert "WHO-AM-I" in alone.get_text() and "unknown call" in alone.select_one(".chip.unknown").get_text()


def test_tinker_pages_have_no_training_badges():
    src = FIXTURES / "tinker" / "calc_agent_multiturn"
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        site = Path(d) / "s"
        build(str(src), site)
        s = soup(site / "train_iteration_000000.html")
        chips = [c.get_text() for c in s.select(".member .chip")]
        assert "unknown execution" not in chips and "trained" not in chips
        assert {"correct", "incorrect"} & set(chips)
        assert s.select_one("#f-badge") is not None and s.select_one("#f-trained") is None
        # conversations, but no message that says a tool failed: no "tool errors" filter,
        # which could only hide every member (the parse errors are in the badge filter)
        assert s.select(".member .msg") and s.select_one("#f-errors") is None


def test_fast_text_helpers_agree_with_the_plain_ones():
    """esc_text skips markupsafe when a text has nothing to escape; fold_count counts a
    prefix, then searches or counts the rest: both must give what escape() and line_count()
    give, on every kind of text, short and long, with newlines on either side of the prefix."""
    from markupsafe import escape

    from reportgen.views.html import esc_text
    from reportgen.views.text import _PREFIX, FOLD_CHARS, fold_count, line_count

    from .hostile import hostile

    texts = [
        "",
        "plain words only",
        "a & b",
        "<script>alert(1)</script>",
        'it\'s "quoted"',
        "x > y",
        "\n" * 19,
        "\n" * 20,
        "a\n" * 20,
        "a\n" * 21 + "b",
        "line\r\nline\n",
        "\u2028\n\x00<",
        hostile("completion"),
        "word " * 2000,
        "line\n" * 600,
        "x" * 2500 + "\n" * 20,
        "x" * 2500 + "\n" * 19,
        # around the counted prefix: newlines just before, at and after its end
        "\n" * (_PREFIX - 1) + "x" * 10,
        "x" * (_PREFIX - 1) + "\n" + "x" * 10,
        "x" * (_PREFIX - 1) + "\n" * 25,
        "x" * _PREFIX + "\n" * 25,
        "x" * _PREFIX + "\n" * 20,
        "x" * _PREFIX + "\n" * 21,
        "x" * (_PREFIX - 10) + "\n" * 5 + "y" * 3000 + "\n" * 14,
        "x" * (_PREFIX - 10) + "\n" * 5 + "y" * 3000 + "\n" * 15,
        "\n".join(f"step {i}: " + "w " * (i % 40) for i in range(90)),  # a reasoning trace
        "{" + '"k": 1, ' * 900 + "}",  # a long line of JSON
        "x" * FOLD_CHARS + "\n" * 3,  # past FOLD_CHARS: folds whatever its lines
        "x" * (FOLD_CHARS - 3) + "\n" * 3,
    ]
    from reportgen.views.text import num_text

    for v in [0.0, -0.0, 0.0, -0.0, 1.0, 0.1, -0.578125, 1e-300, 5e-324, 1.7976931348623157e308, 3, -7, 2**70]:
        assert num_text(v) == str(v), v
        assert num_text(v) == f"{v}", v
    for t in texts:
        assert esc_text(t) == str(escape(t)), t
        for n in (0, 1, 2, 19, 20, 21):
            folds = line_count(t) > n or len(t) > FOLD_CHARS
            assert fold_count(t, n) == (line_count(t) if folds else 0), (t, n)


def test_long_text_escaping_gives_markupsafes_entities():
    """A long text sparse in "<" is escaped by str.replace (html._replaced), ASCII or wide, the
    rest by markupsafe: both ways must give escape()'s bytes, on each side of the length
    threshold and of the density sample, for every special character, ASCII or not."""
    import random

    from markupsafe import escape

    from reportgen.views.html import _REPLACE_DENSE, _REPLACE_MIN, _REPLACE_PROBE, _replaced, esc_content, esc_text

    from .hostile import hostile

    def checked(t: str) -> None:
        want = str(escape(t))
        assert esc_text(t) == want, t[:80]
        assert esc_content(t) == (want if any(c in t for c in "&<>") else t), t[:80]
        assert _replaced(t) == want, t[:80]

    trace = (
        "<think>\n"
        + "\n".join(f"step {i}: " + ('a < b & c > d, it\'s "x"' if i % 5 == 0 else "add the carry") for i in range(120))
        + "\n</think> 42"
    )
    assert len(trace) > _REPLACE_MIN and trace.count("<", 0, _REPLACE_PROBE) <= _REPLACE_DENSE
    dense = '<div class="a">x &amp; y</div>\n' * 100
    assert dense.count("<", 0, _REPLACE_PROBE) > _REPLACE_DENSE
    quoted = '{\n  "key": "a < b",\n  "other": "it\'s"\n}\n' * 60  # pretty JSON: dense in quotes
    assert quoted.count('"', 0, _REPLACE_PROBE) > _REPLACE_DENSE
    for t in [
        trace,
        dense,
        quoted,
        trace.replace("step", "步骤"),  # wide (UCS-2): replace too
        trace.replace("step", "\U0001d465 \u2264"),  # UCS-4
        trace + "\U0001f642",
        "&" * _REPLACE_MIN,
        "&amp;&lt;" * 300,  # entities already in the text are escaped again
        "a" * (_REPLACE_MIN - 2) + "<>",
        "a" * (_REPLACE_MIN - 1) + "<>",
        "<" * _REPLACE_DENSE + "a" * _REPLACE_MIN + "'\"",
        "<" * (_REPLACE_DENSE + 1) + "a" * _REPLACE_MIN + "'\"",
        "a" * (_REPLACE_PROBE - 1) + "<" * 40 + "a" * _REPLACE_MIN,
        hostile("completion") * 20,
    ]:
        checked(t)
    rnd = random.Random(6)
    alphabet = ["a", " ", "\n", "&", "<", ">", '"', "'", "\u00e9", "word " * 20, "&#39;", "\x00"]
    for _ in range(300):
        weights = [rnd.random() for _ in alphabet]
        checked("".join(rnd.choices(alphabet, weights, k=rnd.choice([10, 600, 1500]))))


def test_plain_prompt_block_agrees_with_the_general_one():
    """A PPO member's prompt of plain short messages is written by a short path
    (cards._plain_prompt); it must give the general path's bytes, or hand over to it."""
    from reportgen.model import Part, Prompt, UnparsedToolCall
    from reportgen.views.cards import _plain_prompt, _prompt_block
    from reportgen.views.iteration import _prompt_view

    from .hostile import hostile

    def general(p: Prompt) -> str:
        out: list[str] = []
        _prompt_block(out.append, _prompt_view(p, False))
        return "".join(out)

    cut = "x" * 50 + "…[+12 chars]"
    texts = ["What is 2 + 2?", "", "a & b <c> \"d\" 'e'", hostile("prompt"), "l\n" * 20, "l\n" * 21, cut]
    roles = ["user", "assistant", "developer", 'ro"le<x>', "tool", "system"]
    simple = []
    prompts = [Prompt("k", None), Prompt("k", []), Prompt('<k&"', [Message("user", "q")])]
    for t in texts:
        for r in roles:
            prompts.append(Prompt("p:1", [Message(r, t)]))
            prompts.append(Prompt("p:2", [Message("user", "first"), Message(r, t), Message("user", "last")]))
        prompts += [
            Prompt("p:3", [Message("user", t)], reward_text=t),
            Prompt("p:3", [Message("user", t)], reward_text=t + "!"),
            Prompt("p:3", [Message("user", t), Message("assistant", "a")], reward_text="a"),
            Prompt("p:4", [Message("user", t)], metadata={"k": t}),
            Prompt("p:4", [Message("user", t)], metadata={}),
            Prompt("p:5", [Message("user", t, parts=[Part("text", t)])]),
            Prompt("p:6", [Message("assistant", t, tool_calls=[ToolCall("c1", "f", {"a": t})])]),
            Prompt("p:7", [Message("assistant", t, unparsed_tool_calls=[UnparsedToolCall(t, "bad")])]),
            Prompt("p:8", [Message("user", t, is_error=True)]),
            # a GRPO group's prompt: system messages first (folded), then the others
            Prompt("p:9", [Message("system", t), Message("user", "q")]),
            Prompt("p:9", [Message("system", t), Message("system", "s2\nline"), Message("user", t)]),
            Prompt("p:9", [Message("user", "q"), Message("system", t)]),
            Prompt("p:9", [Message("system", t, is_error=True), Message("user", "q")]),
        ]
    for p in prompts:
        plain = _plain_prompt(p)
        if plain is not None:
            assert plain == general(p), p
            simple.append(p)
    # the short path is taken for plain prompts, not only refused
    assert len(simple) >= 25
    assert sum(1 for p in simple if p.messages and p.messages[0].role == "system") >= 8
    assert any(len(p.messages or []) == 3 for p in simple)
    assert any(p.reward_text is not None for p in simple)


def test_plain_conversation_agrees_with_the_general_one():
    """An agentic member's messages are written by a short path (cards._plain_conversation)
    when markdown is off; the whole card must be the general path's bytes, and the page's
    filter facts the same, on random conversations of every shape, or it hands over."""
    import random

    from reportgen.model import Group, Part, StepReward, UnparsedToolCall
    from reportgen.views import cards

    from .hostile import hostile

    rnd = random.Random(6)
    cut = "x" * 30 + "…[+12 chars]"
    texts = ["", " ", "Let me check.", "a & b <c> \"d\" 'e'", hostile("tool"), "l\n" * 20, "l\n" * 21, cut, "Lyon ☀ →"]
    ids = ["call_0", "call_1", 'c<&"', None, ""]
    names = ["get_forecast", "search", "", 'n<a>"me']
    args = [{}, {"city": "Lyon"}, {"q": cut}, ["x", cut], "1+1", cut, {"deep": [{"a": "b"}] * 3}]
    roles = ["assistant", "assistant", "tool", "tool", "user", "system", 'ro"le<x>']

    def message() -> Message:
        role = rnd.choice(roles)
        calls = []
        if role != "tool" and rnd.random() < 0.6:
            calls = [ToolCall(rnd.choice(ids), rnd.choice(names), rnd.choice(args)) for _ in range(rnd.randint(1, 3))]
        msg = Message(role, rnd.choice(texts), tool_calls=calls)
        if role == "tool":
            msg.tool_call_id = rnd.choice(["call_0", "call_1", "call_9", 'c<&"', "call_0"])
            msg.is_error = rnd.random() < 0.3
            msg.name = rnd.choice([None, None, "named"])
        if rnd.random() < 0.03:
            msg.parts = [Part("text", "p")]
        if rnd.random() < 0.03:
            msg.unparsed_tool_calls = [UnparsedToolCall("raw", "bad")]
        if role == "tool" and rnd.random() < 0.03:
            msg.tool_call_id = None
        return msg

    def member(i: int) -> Member:
        msgs = [message() for _ in range(rnd.randint(0, 7))]
        m = Member(i, reward=rnd.choice([None, 1.0, -0.5]), advantage=rnd.choice([None, 0.25]), messages=msgs)
        m.step_rewards = [
            StepReward(
                rnd.choice([None, 1, 2]),
                rnd.choice(["tool_result", "context", "k<"]),
                rnd.choice([None, 0.0, 0.25, -1.0]),
                rnd.sample(range(-1, 9), rnd.randint(0, 3)),
            )
            for _ in range(rnd.randint(0, 3))
        ]
        m.prefix = rnd.random() < 0.9
        m.judge_explanation = rnd.choice([None, "fine", cut])
        m.metadata = rnd.choice([None, {}, {"k": "v"}, {"k": cut}])
        return m

    def card(m: Member, plain: bool) -> tuple[str, tuple[object, ...]]:
        out: list[str] = []
        facts = cards.PageGroups()
        saved = cards._plain_conversation
        if not plain:
            cards._plain_conversation = lambda m: None  # type: ignore[assignment]
        try:
            g = Group(id=0, prompt=None, members=[m])
            cards._member(out.append, m, g, "g0", "group 0", "0", set(), False, "1", True, False, facts)
        finally:
            cards._plain_conversation = saved
        return "".join(out), (facts.tool_names, facts.badge_names, facts.skip_reasons, facts.has_conversations)

    taken = 0
    for i in range(3000):
        m = member(i)
        if cards._plain_conversation(m) is not None:
            taken += 1
        assert card(m, True) == card(m, False), [
            (x.role, x.content, x.tool_calls, x.tool_call_id) for x in m.messages or []
        ]
    # the short path is taken for most conversations, not only refused
    assert taken > 2000


def test_same_prompt_links_only_the_nearest_earlier_updates(tmp_path):
    """A prompt sampled again every update: a page links the 10 nearest earlier updates and
    counts the others, so its size does not grow with the run (prompts.js lists them all)."""
    from reportgen.views.iteration import OTHERS_SHOWN

    out = tmp_path / "site"
    build(str(recurring_run(tmp_path / "src")), out, BuildOptions())
    assert OTHERS_SHOWN == 10
    for n, shown, cut in ((1, [], 0), (5, [1, 2, 3, 4], 0), (11, list(range(1, 11)), 0), (14, list(range(4, 14)), 3)):
        s = soup(out / f"train_iteration_{n:06d}.html")
        others = s.select_one("#g0 p.others")
        assert [a.get_text() for a in others.select("a.xlink")] == [str(k) for k in shown]
        assert [a["href"] for a in others.select("a.xlink")] == [
            f"train_iteration_{k:06d}.html#prompt=p%3A0" for k in shown
        ]
        assert others.has_attr("hidden") == (not shown)
        ocut = others.select_one(".ocut")
        assert (ocut.get_text() if ocut else None) == (f"{cut} earlier, " if cut else None)
    prompts = (out / "prompts.js").read_text()
    assert '"p:0":[' + ",".join(str(k) for k in range(1, 15)) + "]" in prompts


def test_plain_conversation_pairs_results_past_65536_calls():
    """A message may hold any number of calls (hostile input): a result still finds its
    call, and the card is the general path's."""
    from reportgen.model import Group
    from reportgen.views import cards

    n = 70_000
    calls = [ToolCall(f"c{i}", "f", {}) for i in range(n)]
    m = Member(
        0,
        reward=1.0,
        messages=[Message("assistant", "", tool_calls=calls), Message("tool", "r", tool_call_id=f"c{n - 1}")],
    )
    conv = cards._plain_conversation(m)
    assert conv is not None and conv.calls == n and conv.compact.endswith("tool(f)")
    out: list[str] = []
    facts = cards.PageGroups()
    g = Group(id=0, prompt=None, members=[m])
    cards._member(out.append, m, g, "g0", "group 0", "0", set(), False, "1", True, False, facts)
    general: list[str] = []
    saved = cards._plain_conversation
    cards._plain_conversation = lambda m: None  # type: ignore[assignment]
    try:
        cards._member(general.append, m, g, "g0", "group 0", "0", set(), False, "1", True, False, cards.PageGroups())
    finally:
        cards._plain_conversation = saved
    html = "".join(out)
    assert html == "".join(general)
    assert html.count('data-role="tool" data-index="1"') == 1 and html.count("no result") == n - 1


def test_duplicates_are_whole_texts_not_lengths():
    """A group's duplicates are the members whose whole text another member has: texts of
    one length that differ are not duplicates, conversations compare their whole text."""

    def dups(texts: list[str | list[Message]]) -> list[str]:
        members = [
            Member(i, reward=1.0, completion=t) if isinstance(t, str) else Member(i, reward=1.0, messages=t)
            for i, t in enumerate(texts)
        ]
        html = groups_html([Group(id=0, prompt=None, members=members)])
        s = BeautifulSoup(html, "html.parser")
        return sorted(x["data-member"] for x in s.select(".member[data-dup=true]"))

    assert dups(["abc", "abd", "xy", "abe"]) == []  # one length, three texts
    assert dups(["abc", "abd", "abc", "xy"]) == ["0", "2"]
    assert dups(["a", "b", "a", "b", "c"]) == ["0", "1", "2", "3"]
    assert dups(["", ""]) == ["0", "1"]
    conv = [Message("user", "q"), Message("assistant", "same")]
    other = [Message("user", "q"), Message("assistant", "samf")]
    assert dups([conv, list(conv), other]) == ["0", "1"]


def test_cut_clusters_keeps_letters_with_their_marks_and_emoji_whole():
    from reportgen.views.text import cut_clusters

    assert cut_clusters("abc", 5) == "abc"
    assert cut_clusters("cafe\u0301s", 4) == "caf"  # not "cafe" without its accent
    assert cut_clusters("cafe\u0301s", 5) == "cafe\u0301"
    assert cut_clusters("ok\U0001f44d\U0001f3fdz", 3) == "ok"  # the skin tone stays with its hand
    assert cut_clusters("a\U0001f469\u200d\U0001f4bbz", 3) == "a"  # nor is a ZWJ sequence split
    assert cut_clusters("\u0301" * 10, 4) == "\u0301" * 4  # marks only: cut where asked


def test_fold_summary_of_reasoning_traces_and_blank_lines():
    """fold_summary skips blank lines; a trace that opens with <think> and has an answer after
    its last </think> is summed up by its first thought and that answer; any other shape keeps
    the first two lines."""
    from reportgen.views.text import fold_summary

    assert fold_summary("a\nb\nc") == "a \u23ce b (3 lines)"
    assert fold_summary("\n \na\n\n b \nc") == "a \u23ce b (6 lines)"
    assert fold_summary(" \n<think>\nplan\n</think>\n\nok\n") == "<think> plan \u2026 </think> ok (7 lines)"
    assert fold_summary("<think></think>ok") == "<think> \u2026 </think> ok (1 line)"
    # two think blocks: the answer is after the last one
    assert fold_summary("<think>a</think>mid<think>b</think>end") == "<think> a \u2026 </think> end (1 line)"
    assert fold_summary("<think>\n</think>x\n<think>y</think>z") == "<think> \u2026 </think> z (3 lines)"
    assert fold_summary("<think>\nplan\n</think>\n\n") == "<think> \u23ce plan (5 lines)"  # no answer yet
    assert fold_summary("<think>\nplan\nno end") == "<think> \u23ce plan (3 lines)"
    assert fold_summary("text <think>\nx\n</think> y") == "text <think> \u23ce x (3 lines)"  # not an opening
    long = "<think>" + "y" * 10_000 + "</think>" + "z" * 300
    assert (
        fold_summary(long, 1)
        == "<think> " + "y" * 60 + " \u2026 </think> " + "z" * 100 + "\u2026 (1 line, 10,315 characters)"
    )
    assert fold_summary("a\nb", 99).endswith("(99 lines)")


def test_a_long_text_of_few_lines_folds_too():
    """A text past FOLD_CHARS folds whatever its lines (a degenerate generation, a blob on
    one line), and its summary says its size; a long answer under it stays open."""
    from reportgen.views.cards import _plain_text
    from reportgen.views.text import FOLD_CHARS, fold_count

    blob = "the " * 50_000
    assert fold_count(blob) == 1
    assert fold_count("a\n" * 3 + "x" * FOLD_CHARS) == 4
    assert fold_count("x" * FOLD_CHARS) == 0 and fold_count("para " * 1000) == 0  # 5,000 characters
    assert fold_count("l\n" * 30) == 31  # lines fold as before
    out: list[str] = []
    _plain_text(out.append, blob)
    page = BeautifulSoup("".join(out), "html.parser")
    fold = page.select_one("details")
    assert fold is not None and fold.select_one("pre").get_text() == blob  # in the page, folded
    assert fold.select_one("summary").get_text(" ", strip=True).endswith("(1 line, 200,000 characters)")


def test_paginate_gives_a_large_group_pages_of_its_own():
    """``per`` groups a page in order; a group of more than ``most`` members gets pages of its
    own, ``most`` members each; the groups around it are not moved across it."""
    from reportgen.model import Group
    from reportgen.views.iteration import paginate

    def grp(i: int, n: int) -> Group:
        return Group(id=i, prompt=None, members=[object()] * n)  # type: ignore[list-item]

    small = [grp(i, 2) for i in range(5)]
    assert [[(g.id, a, b) for g, a, b in p] for p in paginate(small, 2, 3)] == [
        [(0, 0, 2), (1, 0, 2)],
        [(2, 0, 2), (3, 0, 2)],
        [(4, 0, 2)],
    ]
    mixed = [grp(0, 2), grp(1, 7), grp(2, 3), grp(3, 2)]
    assert [[(g.id, a, b) for g, a, b in p] for p in paginate(mixed, 50, 3)] == [
        [(0, 0, 2)],
        [(1, 0, 3)],
        [(1, 3, 6)],
        [(1, 6, 7)],
        [(2, 0, 3), (3, 0, 2)],
    ]
    assert paginate([], 50, 3) == [[]]
    assert len(paginate([grp(0, 1024)], 50)) == 1  # a PPO batch of 1,024 keeps one page
    assert len(paginate([grp(0, 1025)], 50)) == 2


def test_deep_values_cost_in_proportion_to_their_size():
    """A value 250 levels deep: the tree folds 40 levels and gives the rest as compact JSON,
    and pretty JSON of it is compact, where indentation made the text grow with the square of
    the depth (700 MB of site from 10 MiB of such metadata)."""
    import orjson

    from reportgen.views.text import pretty_json

    def deep(levels: int) -> dict:
        top: dict = {}
        cur = top
        for _ in range(levels):
            cur["n"] = {"pad": "x" * 10}
            cur = cur["n"]
        return top

    tree = str(json_tree(deep(120)))
    assert tree.count("<details") == 41
    assert len(str(json_tree(deep(240)))) < 2.2 * len(tree)  # twice as deep, twice as long
    for levels in (240, 250):  # past 64 KiB of indented text
        compact = orjson.dumps(deep(levels)).decode()
        assert pretty_json(deep(levels)) == compact
    small = {"a": [1, 2]}
    assert pretty_json(small) == '{\n  "a": [\n    1,\n    2\n  ]\n}'  # indented as before


def test_summaries_lose_bidi_controls_and_write_our_marks_as_references():
    """esc_marks: a summary we made keeps every character but the bidi embedding, override
    and isolate controls (which would turn our own words around), and writes its marks as
    character references, ASCII or wide."""
    from markupsafe import escape

    from reportgen.views.html import esc_marks

    controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    for s in [
        "plain <b> & 'x'",
        "a\u202eb … c ⏎ d → e",
        "步骤 \U0001f642" + controls + "x",
        controls,
        "\u200f\u202f\u2065\u206a",
    ]:
        want = str(escape(s)).replace("\u23ce", "&#9166;").replace("\u2026", "&#8230;").replace("\u2192", "&#8594;")
        for c in controls:
            want = want.replace(c, "")
        assert esc_marks(s) == want, s


def test_small_metrics_keep_three_significant_digits():
    """Three decimals left one significant digit under 0.01: a KL of -0.0014748 read -0.001,
    next to -0.00092 read with three (0.001 and above keep their three decimals)."""
    from reportgen.views.text import fmt

    assert fmt(-0.0014748) == "-0.00147" and fmt(0.0035996) == "0.0036" and fmt(-0.00092) == "-0.00092"
    assert fmt(0.25) == "0.250" and fmt(0.0359) == "0.036" and fmt(0.01) == "0.010" and fmt(0.005) == "0.005"
    assert fmt(1e-05) == "1e-05" and fmt(0.0) == "0" and fmt(12345.678) == "12345.678"


def test_markdown_headings_start_below_the_pages_own():
    """A model's "# Tools" in a system prompt is no heading of the page (h1 the page, h2 a
    group, h3 a part of a member): a text's headings start at h4."""
    from reportgen.views.markdown import render_markdown

    html = str(render_markdown("# Tools\n\n## sub\n\n#### four\n\n###### six\n\ntext"))
    assert "<h4>Tools</h4>" in html and "<h5>sub</h5>" in html and "<h6>four</h6>" in html
    assert "<h6>six</h6>" in html and "<h1" not in html and "<h2" not in html and "<h3" not in html
