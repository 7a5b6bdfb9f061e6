"""Render a tinker logtree (:class:`LogNode` tree) as safe HTML.

The output follows tinker's own page (spec §7) with a few improvements:
section depth comes from nesting (tinker caps headings at h6), a table's
caption becomes its ``<caption>``, exception blocks are open and styled as
errors, and conversations are rendered from their ``data`` including the tool
calls tinker's HTML drops.

Safety: every string from the log is escaped exactly once (the reader already
unescaped logtree text).  Tags come from a fixed vocabulary chosen here; no
attribute of the log is copied (only known classes are translated).  Raw
``log_html`` markup is shown as text.  The walk is iterative, so any depth is
fine; element nesting is flattened past :data:`MAX_NESTING` so browsers (which
cap DOM depth) still show everything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from markupsafe import Markup

from ..model import LogNode, Message
from ..sources.tinker import conversation_from_data, node_classes, node_text, section_body, section_title
from .html import attrs_html, el, esc_str, join

MAX_NESTING = 400

# tags emitted as themselves (structure only, never attributes from the log)
_PLAIN_TAGS = {
    "div", "span", "p", "pre", "code", "ul", "ol", "li", "dl", "dt", "dd", "b", "strong", "i", "em",
    "u", "s", "small", "sub", "sup", "blockquote", "br", "hr", "article", "header", "footer", "main",
    "aside", "figure", "figcaption", "mark", "kbd", "samp", "var", "q", "cite", "abbr", "time",
    "thead", "tbody", "tfoot", "tr", "th", "td", "summary",
}  # fmt: skip
_KNOWN_CLASSES = {"answer": "lt-answer", "reward": "lt-reward", "lt-error": "lt-error"}
_HEADING = re.compile(r"h[1-6]")

LOGTREE_CSS = """
.lt-root{font-size:14px}
.lt-section{border-left:2px solid var(--lt-border,#ddd);padding-left:.75em;margin:.5em 0}
.lt-section[data-depth="1"]{border-left-width:3px}
.lt-h{margin:.4em 0;font-weight:600}
.lt-depth-1{font-size:1.3em}.lt-depth-2{font-size:1.15em}.lt-depth-3{font-size:1.05em}
.lt-p,.lt-text,.lt-pre,.lt-raw-html,.lt-tool-args{white-space:pre-wrap;word-break:break-word}
.lt-table{border-collapse:collapse;margin:.3em 0}
.lt-table caption{text-align:left;font-style:italic;color:var(--lt-sub,#666)}
.lt-table th,.lt-table td{border:1px solid var(--lt-border,#ddd);padding:2px 6px;vertical-align:top}
.lt-exc{border:2px solid #c0392b;background:#fdecea;padding:.4em;border-radius:4px}
.lt-exc>summary{color:#c0392b;font-weight:600}
.lt-msg{border-radius:6px;padding:.4em .6em;margin:.3em 0;border:1px solid var(--lt-border,#ddd)}
.lt-msg-head{font-size:.85em;color:var(--lt-sub,#666);margin-bottom:.2em}
.lt-msg-user{background:#eef5ff}.lt-msg-assistant{background:#f1faf1}
.lt-msg-system{background:#f6f6f6}.lt-msg-tool{background:#fff8e6}
.lt-tool-call,.lt-unparsed-tool-call{border:1px dashed #999;padding:.3em;margin:.3em 0}
.lt-error,.lt-unparsed-tool-call{border-color:#c0392b}
.lt-raw-html-block .lt-note,.lt-note{font-size:.85em;color:var(--lt-sub,#666)}
"""


def _cls(*names: str) -> str:
    return " ".join(n for n in names if n)


def _role_class(role: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", role.lower()).strip("-") or "unknown"


def format_arguments(arguments: Any) -> str:
    """Tool-call arguments pretty-printed when they are JSON, else as given."""
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments
        if not isinstance(value, (dict, list)):
            return arguments
    else:
        value = arguments
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(arguments)


def _data_text(data: Any) -> str:
    try:
        return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(data)


def _pre(cls: str, text: str) -> Markup:
    # HTML drops one newline right after <pre>; double it so none is lost
    return el("pre", {"class": cls}, "\n" + text if text.startswith(("\n", "\r")) else text)


# ------------------------------------------------------------ conversations
def render_messages(messages: list[Message]) -> Markup:
    """A conversation as labelled message blocks."""
    return el("div", {"class": "lt-conversation"}, [render_message(m) for m in messages])


def render_message(m: Message) -> Markup:
    """One message: head (role, name, ids), content, tool calls."""
    head: list[object] = [el("span", {"class": "lt-role"}, m.role)]
    if m.name:
        head.append(el("span", {"class": "lt-msg-name"}, " ", m.name))
    if m.tool_call_id:
        head.append(el("span", {"class": "lt-tool-call-id"}, " id: ", m.tool_call_id))
    if m.trainable is False:
        head.append(el("span", {"class": "lt-untrained"}, " (not trained)"))
    body: list[object] = []
    if m.parts is None:
        if m.content:
            body.append(el("div", {"class": "lt-text"}, m.content))
    else:
        for p in m.parts:
            if p.type == "text":
                if p.text:
                    body.append(el("div", {"class": "lt-text"}, p.text))
            elif p.type == "thinking":
                body.append(
                    el(
                        "details",
                        {"class": "lt-thinking"},
                        el("summary", None, "Thinking"),
                        el("div", {"class": "lt-text"}, p.text),
                    )
                )
            elif p.type == "image":
                body.append(el("div", {"class": "lt-image"}, "[image]", " " + p.text if p.text else ""))
            else:
                body.append(
                    el(
                        "div",
                        {"class": "lt-part lt-part-other"},
                        el("span", {"class": "lt-part-type"}, p.type),
                        _pre("lt-pre", p.text),
                    )
                )
    for tc in m.tool_calls:
        tc_head: list[object] = ["Tool call ", el("code", {"class": "lt-tool-name"}, tc.name)]
        if tc.id:
            tc_head.append(el("span", {"class": "lt-tool-call-id"}, " id: ", tc.id))
        body.append(
            el(
                "div",
                {"class": "lt-tool-call"},
                el("div", {"class": "lt-tool-head"}, tc_head),
                _pre("lt-tool-args", format_arguments(tc.arguments)),
            )
        )
    for u in m.unparsed_tool_calls:
        body.append(
            el(
                "div",
                {"class": "lt-unparsed-tool-call lt-error"},
                el(
                    "div",
                    {"class": "lt-tool-head"},
                    "Unparsed tool call: ",
                    el("span", {"class": "lt-error-text"}, u.error),
                ),
                _pre("lt-raw", u.raw_text),
            )
        )
    return el(
        "div",
        {"class": f"lt-msg lt-msg-{_role_class(m.role)}"},
        el("div", {"class": "lt-msg-head"}, head),
        body,
    )


# ------------------------------------------------------------------- frames
class _Frame:
    """A node being rendered: its pending items, and the tag that closes it.

    Frames write their opening tag, their children and their closing tag into one
    output list, so each text is copied once whatever its depth (building a string
    per element copied every text once per enclosing element).  A ``<pre>`` collects
    its own children: HTML drops the newline right after ``<pre>``, so a content
    that starts with one gets another.
    """

    __slots__ = ("items", "pos", "close", "depth", "nesting", "out", "pre_cls")

    def __init__(self, items: list[Any], close: str, depth: int, nesting: int, pre_cls: str | None = None) -> None:
        self.items = items  # ("t", text) | ("m", Markup) | ("n", LogNode, caption)
        self.pos = 0
        self.close = close
        self.depth = depth  # enclosing sections
        self.nesting = nesting  # emitted element depth
        self.out: list[str] = []  # replaced by the parent's list unless this is a <pre>
        self.pre_cls = pre_cls


def _items(children: list[LogNode | str]) -> list[Any]:
    """Children as render items; a table caption is attached to its table."""
    items: list[Any] = []
    caption: LogNode | None = None
    for c in children:
        if isinstance(c, LogNode) and c.tag == "div" and "lt-table-caption" in node_classes(c) and not c.raw_html:
            if caption is not None:
                items.append(("n", caption, None))
            caption = c
            continue
        if caption is not None:
            if isinstance(c, LogNode) and c.tag == "table":
                items.append(("n", c, node_text(caption, limit=100000)))
                caption = None
                continue
            if isinstance(c, str) and not c.strip():
                items.append(("t", str(c)))
                continue
            items.append(("n", caption, None))
            caption = None
        # str(): a Markup smuggled into the tree is still escaped
        items.append(("t", str(c)) if isinstance(c, str) else ("n", c, None))
    if caption is not None:
        items.append(("n", caption, None))
    return items


def _tags(tag: str, attrs: dict[str, object | None] | None, before: list[object] | None = None) -> tuple[str, str]:
    """The opening (with what comes first inside) and closing markup of what el() would write."""
    if before:
        return f"<{tag}{attrs_html(attrs) if attrs else ''}>{join(before)}", f"</{tag}>"
    # a page opens a few kinds of element thousands of times: each rendered once
    key = (tag, *attrs.items()) if attrs else (tag,)
    tags = _TAGS_CACHE.get(key)
    if tags is None:
        tags = (f"<{tag}{attrs_html(attrs) if attrs else ''}>", f"</{tag}>")
        if len(_TAGS_CACHE) < 4096:  # tag names of unknown elements come from the log
            _TAGS_CACHE[key] = tags
    return tags


_TAGS_CACHE: dict[tuple[Any, ...], tuple[str, str]] = {}


def _frame(
    items: list[Any],
    tag: str,
    attrs: dict[str, object | None] | None,
    depth: int,
    nesting: int,
    before: list[object] | None = None,
) -> tuple[str, _Frame]:
    opening, closing = _tags(tag, attrs, before)
    return opening, _Frame(items, closing, depth, nesting)


def _open(node: LogNode, caption: str | None, depth: int, nesting: int) -> tuple[str, _Frame] | Markup:
    """Start rendering ``node``: its opening markup and a frame for its children, or finished markup."""
    classes = node_classes(node)
    tag = node.tag.lower()
    if node.raw_html:
        return _open_raw(node, tag, depth, nesting)
    flatten = nesting >= MAX_NESTING

    conv = conversation_from_data(node.data)
    if conv is not None or node.data is not None:
        lead = (
            render_messages(conv)
            if conv is not None
            else el("div", {"class": "lt-data"}, _pre("lt-pre", _data_text(node.data)))
        )
        return _frame(_items(node.children), "div", {"class": "lt-formatter"}, depth, nesting + 1, [lead])

    if flatten:
        note = el("p", {"class": "lt-note"}, "[deeper nesting shown flat]") if nesting == MAX_NESTING else ""
        return str(note), _Frame(_items(node.children), "", depth, nesting + 1)

    n = nesting + 1
    if tag == "section":
        title = section_title(node)
        d = depth + 1
        if title is None:
            return _frame(_items(node.children), "section", {"class": "lt-section", "data-depth": d}, d, n)
        heading = node.children[0]
        assert isinstance(heading, LogNode)
        head = el(f"h{min(d + 1, 6)}", {"class": f"lt-h lt-depth-{d}"}, node_text(heading, limit=100000))
        opening = f'<section class="lt-section" data-depth="{d}">{head}<div class="lt-section-body">'
        return opening, _Frame(_items(section_body(node)), "</div></section>", d, n)
    if tag in ("body", "html"):
        return _frame(_items(node.children), "div", {"class": "lt-root"}, depth, n)
    if _HEADING.fullmatch(tag):
        if "lt-title" in classes:
            # the page has its own h1: the logtree's title is the heading of its part of it
            return _frame(_items(node.children), "h2", {"class": "lt-title"}, depth, n)
        level = min(depth + 2, 6)
        return _frame(_items(node.children), f"h{level}", {"class": f"lt-h lt-depth-{depth + 1}"}, depth, n)
    if tag == "details":
        exc = "lt-exc" in classes
        kids = node.children
        has_summary = any(isinstance(c, LogNode) and c.tag == "summary" for c in kids)
        before: list[object] = [] if has_summary else [el("summary", None, "Exception" if exc else "Details")]
        attrs: dict[str, object | None] = {"class": "lt-exc lt-error" if exc else "lt-details", "open": exc}
        return _frame(_items(kids), "details", attrs, depth, n, before)
    if tag == "table":
        cap: list[object] = [el("caption", None, caption)] if caption is not None else []
        return _frame(_items(node.children), "table", {"class": "lt-table"}, depth, n, cap)
    if tag == "p":
        return _frame(_items(node.children), "p", {"class": _cls("lt-p", *_translate(classes))}, depth, n)
    if tag == "pre":
        return "", _Frame(_items(node.children), "</pre>", depth, n, pre_cls=_cls("lt-pre", *_translate(classes)))
    if tag == "div":
        known = [c for c in classes if c in ("lt-subtitle", "lt-table-caption", "lt-section-body")]
        return _frame(_items(node.children), "div", {"class": _cls(*known, *_translate(classes)) or None}, depth, n)
    if tag in ("br", "hr"):
        return el(tag)
    if tag == "img":
        return el("span", {"class": "lt-image"}, "[image]")
    if tag == "a":
        return _frame(_items(node.children), "span", {"class": "lt-link"}, depth, n)
    if tag in _PLAIN_TAGS:
        return _frame(_items(node.children), tag, {"class": _cls(*_translate(classes)) or None}, depth, n)
    # script, style, iframe, form, svg, ...: children shown as text in a neutral box
    safe = re.sub(r"[^a-z0-9-]+", "-", tag)[:30]
    return _frame(_items(node.children), "div", {"class": "lt-unknown", "data-tag": safe}, depth, n)


def _translate(classes: list[str]) -> list[str]:
    return [_KNOWN_CLASSES[c] for c in classes if c in _KNOWN_CLASSES]


# a raw node of these keeps its tag (they hold any content): a div in a table row is moved
# out of the table by the browser, and a cell taken out shifts the row's other cells
_RAW_KEEPS_TAG = {"td", "th", "li", "dd", "dt"}


def _open_raw(node: LogNode, tag: str, depth: int, nesting: int) -> tuple[str, _Frame]:
    """A node holding raw ``log_html`` markup: its strings shown as text."""
    items: list[Any] = []
    for c in node.children:
        if isinstance(c, str):
            items.append(("m", _pre("lt-raw-html", str(c))))
        else:
            items.append(("n", c, None))
    note = el("div", {"class": "lt-note"}, "raw HTML from the log, shown as text")
    box = tag if tag in _RAW_KEEPS_TAG else "div"
    return _frame(items, box, {"class": "lt-raw-html-block"}, depth, nesting + 1, [note])


def render_logtree(root: LogNode) -> Markup:
    """The whole tree as escaped HTML (iterative: any depth)."""
    first = _open(root, None, 0, 0)
    if isinstance(first, Markup):
        return first
    out: list[str] = []
    opening, frame = first
    if frame.pre_cls is None:
        out.append(opening)
        frame.out = out
    stack: list[_Frame] = [frame]
    while stack:
        f = stack[-1]
        if f.pos < len(f.items):
            item = f.items[f.pos]
            f.pos += 1
            if item[0] == "m":
                f.out.append(item[1])
            elif item[0] == "t":
                f.out.append(esc_str(item[1]))
            else:
                opened = _open(item[1], item[2], f.depth, f.nesting)
                if isinstance(opened, Markup):
                    f.out.append(opened)
                else:
                    opening, child = opened
                    if child.pre_cls is None:
                        f.out.append(opening)
                        child.out = f.out
                    stack.append(child)
            continue
        stack.pop()
        if f.pre_cls is None:
            f.out.append(f.close)
        else:
            text = "".join(f.out)
            if text.startswith(("\n", "\r")):  # HTML drops one line break right after <pre>
                text = "\n" + text
            parent = stack[-1].out if stack else out
            parent.append(f'<pre class="{esc_str(f.pre_cls)}">{text}</pre>')
    return Markup("".join(out))


# -------------------------------------------------------------------- texts
def message_texts(m: Message) -> Iterator[str]:
    """Every text a rendered message shows."""
    yield m.role
    if m.name:
        yield m.name
    if m.tool_call_id:
        yield m.tool_call_id
    if m.parts is None:
        yield m.content
    else:
        for p in m.parts:
            yield p.text
            if p.type not in ("text", "thinking", "image"):
                yield p.type
    for tc in m.tool_calls:
        yield tc.name
        if tc.id:
            yield tc.id
        yield format_arguments(tc.arguments)
    for u in m.unparsed_tool_calls:
        yield u.raw_text
        yield u.error


def collect_texts(root: LogNode) -> Iterator[str]:
    """Every text of the tree, as the page shows it (strings, messages, data)."""
    stack: list[LogNode | str] = [root]
    while stack:
        n = stack.pop()
        if isinstance(n, str):
            yield n
            continue
        conv = conversation_from_data(n.data)
        if conv is not None:
            for m in conv:
                yield from message_texts(m)
        elif n.data is not None:
            yield _data_text(n.data)
        stack.extend(reversed(n.children))
