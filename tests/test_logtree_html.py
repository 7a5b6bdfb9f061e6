"""render_logtree / collect_texts: faithful, escaped once, never live markup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from markupsafe import Markup

from reportgen.model import LogNode
from reportgen.sources.tinker import TinkerReader, lognode_from_json
from reportgen.storage import Storage
from reportgen.views.logtree_html import collect_texts, format_arguments, render_logtree

FIX = Path(__file__).parent / "fixtures" / "tinker"


def soup_of(markup: str) -> BeautifulSoup:
    return BeautifulSoup(markup, "html.parser")


def load_root(run_name: str, kind: str = "train", number: int = 0, label: str = "") -> LogNode:
    reader = TinkerReader(Storage(str(FIX / run_name)))
    run = reader.scan()
    refs = run.iterations if kind == "train" else run.evals[label]
    ref = [r for r in refs if r.number == number][0]
    root = reader.load(ref).logtree_root
    assert root is not None
    return root


def node(tag: str, children: list[Any] | None = None, cls: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"tag": tag, "attrs": {"class": cls} if cls else {}, "children": children or []}
    out.update(extra)
    return out


def section(title: str, level: int, children: list[Any]) -> dict[str, Any]:
    return node(
        "section", [node(f"h{level}", [title], f"lt-h{level}"), node("div", children, "lt-section-body")], "lt-section"
    )


def render_json(obj: dict[str, Any]) -> tuple[Markup, BeautifulSoup]:
    html = render_logtree(lognode_from_json(obj))
    return html, soup_of(html)


def assert_all_texts_shown(root: LogNode) -> None:
    html = render_logtree(root)
    text = soup_of(html).get_text()
    missing = [t for t in collect_texts(root) if t not in text]
    assert missing == []


@pytest.mark.parametrize(
    ("run_name", "kind", "label"),
    [
        ("arith_sync", "train", ""),
        ("arith_sync", "eval", "arith-hard_v2_x"),
        ("arith_sync", "eval", "1"),
        ("calc_agent_multiturn", "train", ""),
        ("calc_agent_multiturn", "eval", "test"),
        ("flat_arith_sync", "train", ""),
    ],
)
def test_every_text_appears(run_name, kind, label):
    root = load_root(run_name, kind, 0, label)
    assert_all_texts_shown(root)


def test_render_returns_markup_and_structure():
    root = load_root("arith_sync")
    html = render_logtree(root)
    assert isinstance(html, Markup)
    s = soup_of(html)
    assert s.find("body") is None
    assert s.find("div", class_="lt-root")
    assert s.find("h2", class_="lt-title").get_text() == "RL Iteration 0"
    groups = s.select('section.lt-section[data-depth="1"]')
    assert len(groups) == 2
    assert groups[0].find("h2", class_="lt-h lt-depth-1").get_text() == "Group Rollout"
    # captions became <caption>, no stray caption divs before tables
    caps = [c.get_text() for c in s.find_all("caption")]
    assert "Reward components" in caps and "Step stats" in caps and "Episode totals" in caps
    assert s.find("div", class_="lt-table-caption") is None
    assert s.find("p", class_="lt-p")
    # conversations rendered from data
    user = s.select("div.lt-msg.lt-msg-user")
    assert [m.select_one("div.lt-text").get_text() for m in user[:2]] == ["What is 4 + 5?", "What is 44 + 47?"]
    assert user[0].select_one("span.lt-role").get_text() == "user"


def test_calc_conversation_rendering():
    s = soup_of(render_logtree(load_root("calc_agent_multiturn")))
    assert s.select("div.lt-msg.lt-msg-system") and s.select("div.lt-msg.lt-msg-tool")
    thinking = s.select("details.lt-thinking")
    assert thinking and thinking[0].find("summary").get_text() == "Thinking"
    calls = s.select("div.lt-tool-call")
    assert calls and calls[0].find("code", class_="lt-tool-name").get_text() == "calculator"
    assert calls[0].find("pre", class_="lt-tool-args").get_text() == '{\n  "expression": "26 * 28"\n}'
    unparsed = s.select("div.lt-unparsed-tool-call")
    assert unparsed and "Invalid JSON" in unparsed[0].get_text()
    assert "<tool_call>" in unparsed[0].find("pre").get_text()
    tool = s.select("div.lt-msg-tool")[0]
    assert "calculator" in tool.find(class_="lt-msg-head").get_text()
    assert s.find("details", class_="lt-details").find("summary").get_text() == "System prompt (with tool specs)"


def test_escaped_script_text_shows_as_text():
    html, s = render_json(node("body", [node("p", ["&lt;script&gt;alert(1)&lt;/script&gt;"], "lt-p")], "lt-root"))
    assert s.find("script") is None
    assert "<script>alert(1)</script>" in s.get_text()
    assert "&amp;lt;" not in html  # escaped exactly once


def test_raw_html_never_becomes_markup():
    raw = '<b onclick="steal()">bold</b><script>alert(2)</script><img src=x onerror=alert(3)>'
    html, s = render_json(node("body", [node("div", [raw]), node("div", [raw], "answer")], "lt-root"))
    for tag in ("b", "script", "img"):
        assert s.find(tag) is None
    pres = s.select("pre.lt-raw-html")
    assert [p.get_text() for p in pres] == [raw, raw]
    assert "raw HTML from the log, shown as text" in s.get_text()


def test_raw_html_in_a_table_cell_stays_in_its_cell():
    """A cell holding raw markup (a "<" the log did not escape) keeps its td: a div in its
    place was moved out of the table by the browser, and the row's other cells moved left
    under the wrong heads."""
    row = node("tr", [node("td", ["a < b"]), node("td", ["2"])])
    _, s = render_json(node("body", [node("table", [node("tbody", [row])])], "lt-root"))
    assert not s.select("tr > div")
    cells = s.select("table tr > td")
    assert [c.get_text(" ", strip=True) for c in cells] == ["raw HTML from the log, shown as text a < b", "2"]
    assert s.select_one("table td.lt-raw-html-block pre.lt-raw-html") is not None


def test_log_attributes_not_copied():
    attrs = {
        "class": "answer evil",
        "onclick": "x()",
        "onmouseover": "y()",
        "style": "color:red",
        "href": "javascript:z()",
        "src": "http://x/y.png",
        "id": "boom",
    }
    obj = node(
        "body",
        [
            {"tag": "div", "attrs": attrs, "children": ["hello"]},
            {"tag": "a", "attrs": attrs, "children": ["link text"]},
            {"tag": "img", "attrs": attrs, "children": []},
            {"tag": "script", "attrs": {}, "children": ["alert(4)"]},
            {"tag": "style", "attrs": {}, "children": ["body{display:none}"]},
            {"tag": "iframe", "attrs": attrs, "children": []},
            {"tag": "span", "attrs": attrs, "children": ["s"]},
        ],
    )
    html, s = render_json(obj)
    for el in s.find_all(True):
        for name in el.attrs:
            assert not name.startswith("on") and name not in ("style", "href", "src", "id"), (el.name, name)
    for tag in ("a", "img", "script", "style", "iframe"):
        assert s.find(tag) is None
    assert s.find("div", class_="lt-answer").get_text() == "hello"
    assert "evil" not in html
    text = s.get_text()
    assert "link text" in text and "alert(4)" in text and "[image]" in text


def test_smuggled_markup_child_is_escaped():
    root = LogNode("p", {"class": "lt-p"}, [Markup("<b>x</b>")])
    s = soup_of(render_logtree(root))
    assert s.find("b") is None and "<b>x</b>" in s.get_text()


def test_section_depth_and_heading_levels():
    inner: dict[str, Any] = node("p", ["deep text"], "lt-p")
    for level in range(8, 0, -1):
        inner = section(f"S{level}", min(level + 1, 6), [inner])
    _, s = render_json(node("body", [inner], "lt-root"))
    for d in range(1, 9):
        sec = s.select_one(f'section[data-depth="{d}"]')
        h = sec.find(class_=f"lt-depth-{d}")
        assert h.name == f"h{min(d + 1, 6)}" and h.get_text() == f"S{d}"
        assert "lt-h" in h["class"]
    assert "deep text" in s.get_text()


def test_exception_block_open_and_styled():
    exc = node(
        "details",
        [node("summary", ["Exception: RuntimeError: boom"]), node("pre", ["Traceback...\nRuntimeError: boom"])],
        "lt-exc",
    )
    exc["attrs"]["open"] = "open"
    _, s = render_json(
        node(
            "body",
            [exc, node("details", [node("summary", ["s"]), node("pre", ["p"], "lt-details-body")], "lt-details")],
            "lt-root",
        )
    )
    d = s.find("details", class_="lt-exc")
    assert d.has_attr("open") and "lt-error" in d["class"]
    assert d.find("summary").get_text() == "Exception: RuntimeError: boom"
    plain = s.find("details", class_="lt-details")
    assert not plain.has_attr("open")


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # logtree writes the heading as it is: a quote or a "<" in the message is no markup
        ("Exception: KeyError: 'k'", "Exception: KeyError: 'k'"),
        ("Exception: TypeError: '<' not supported", "Exception: TypeError: '<' not supported"),
        # and an escaped one is read once
        ("Exception: KeyError: &#x27;k&#x27;", "Exception: KeyError: 'k'"),
    ],
)
def test_an_exception_blocks_heading_is_text(written, shown):
    exc = node("details", [node("summary", [written]), node("pre", ["Traceback"])], "lt-exc")
    _, s = render_json(node("body", [exc], "lt-root"))
    d = s.find("details", class_="lt-exc")
    assert d.find("summary").get_text() == shown
    assert not s.select(".lt-raw-html-block") and "raw HTML" not in s.get_text()
    # a raw string elsewhere is still shown as raw markup, as text
    _, s2 = render_json(node("body", [node("div", ["<b>x</b>"])], "lt-root"))
    assert s2.select(".lt-raw-html-block") and not s2.find("b")


def test_conversation_edge_cases():
    data = {
        "type": "conversation",
        "messages": [
            {"role": "Weird Role!", "content": "w"},
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "http://example.com/cat.png"},
                    {"type": "image"},
                    {"type": "text", "text": "look"},
                    {"type": "mystery", "foo": 1},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "thinking", "thinking": "hmm <think>"}, {"type": "text", "text": "ok"}],
                "tool_calls": [
                    {"type": "function", "id": "c1", "function": {"name": "f", "arguments": "not json {"}},
                    {"type": "function", "id": None, "function": {"name": "g", "arguments": '{"b": [1, 2], "a": "é"}'}},
                    "garbage",
                ],
                "unparsed_tool_calls": [{"raw_text": "<call>", "error": "bad"}],
                "trainable": False,
            },
            {"role": "tool", "content": "result", "tool_call_id": "c1", "name": "f"},
            "not a message",
        ],
    }
    root = lognode_from_json(node("body", [node("div", [], data=data)], "lt-root"))
    html = render_logtree(root)
    s = soup_of(html)
    assert s.select_one("div.lt-msg.lt-msg-weird-role")
    assert s.find("img") is None
    images = [i.get_text() for i in s.select("div.lt-image")]
    assert images == ["[image] http://example.com/cat.png", "[image]"]
    assert "mystery" in s.get_text()
    args = [p.get_text() for p in s.select("pre.lt-tool-args")]
    assert args == ["not json {", '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "é"\n}']
    assert "hmm <think>" in s.select_one("details.lt-thinking").get_text()
    assert "not trained" in s.get_text()
    tool = s.select_one("div.lt-msg-tool")
    assert "f" in tool.find(class_="lt-msg-name").get_text() and "c1" in tool.get_text()
    assert_all_texts_shown(root)


def test_format_arguments():
    assert format_arguments('{"a": 1}') == '{\n  "a": 1\n}'
    assert format_arguments("oops") == "oops"
    assert format_arguments("42") == "42"
    assert format_arguments({"x": "é"}) == '{\n  "x": "é"\n}'


def test_pre_leading_newline_kept():
    html, _ = render_json(node("body", [node("pre", ["\nfirst line"], "lt-details-body")], "lt-root"))
    # browsers drop one newline right after <pre>: it is doubled
    assert "\n\nfirst line</pre>" in html


def test_pre_newline_rule_applies_to_each_pre():
    """Pres nested in pres, a pre as the root and a pre whose first child is an element."""
    inner = node("pre", ["\ninner"])
    html, _ = render_json(node("pre", ["\nouter", inner, "tail"]))
    assert html.count('<pre class="lt-pre">') == 2
    assert '<pre class="lt-pre">\n\nouter<pre class="lt-pre">\n\ninner</pre>tail</pre>' in html
    html, _ = render_json(node("body", [node("pre", [node("span", ["\nx"])])]))
    assert '<pre class="lt-pre"><span>\nx</span></pre>' in html


def test_unknown_data_rendered_as_json():
    root = lognode_from_json(node("body", [node("div", ["x"], data={"type": "table", "rows": [1, 2]})]))
    s = soup_of(render_logtree(root))
    assert '"rows"' in s.select_one("div.lt-data").get_text()
    assert_all_texts_shown(root)


@pytest.mark.parametrize("depth", [1000, 5000])
def test_very_deep_tree_renders(depth):
    root = LogNode("p", {}, ["bottom"])
    for i in range(depth):
        tag = "section" if i % 2 else "div"
        root = LogNode(tag, {}, [root] if tag == "div" else [LogNode("h6", {}, [f"t{i}"]), root])
    html = render_logtree(root)
    assert "bottom" in html and "deeper nesting shown flat" in html
    texts = list(collect_texts(root))
    assert "bottom" in texts and len(texts) == depth // 2 + 1
    assert "bottom" in soup_of(html).get_text()


def test_fixture_logtree_json_roundtrip_unchanged():
    """The texts shown are the JSON strings unescaped once (no double escaping)."""
    raw = json.loads((FIX / "calc_agent_multiturn/iteration_000000/train_logtree.json").read_text())
    root = lognode_from_json(raw["root"])
    text = soup_of(render_logtree(root)).get_text()
    assert 'calculator({"expression": "26 * 28"})' in text
    assert "&quot;" not in text
