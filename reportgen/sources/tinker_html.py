"""Read a tinker logtree HTML report into the logtree JSON shape (spec §7).

tinker-cookbook 0.1.0 writes only ``train_iteration_NNNNNN.html`` and
``eval_<name>_iteration_NNNNNN.html``: no JSON export.  Their markup is the
logtree's own (spec §7.3), so this module turns it back into the node dicts of
``Trace.to_dict`` and the tinker reader treats it as a logtree JSON:

- every element below ``<body>`` becomes ``{tag, attrs, children}``; text
  children are HTML-escaped again, as logtree strings are (``lognode_from_json``
  unescapes them once); ``<head>``, ``<style>`` and ``<script>`` are dropped,
  and so is the indentation between block elements;
- each ``div.lt-conversation`` becomes a node with conversation ``data``
  (``{"type": "conversation", "messages": [...]}``) rebuilt from its
  ``div.lt-message lt-message-<role>`` blocks: text parts, thinking parts and
  images as content parts, tool-call parts as text.  The HTML never holds a
  message's ``tool_calls`` (spec §7.3), so neither does the result.

Nothing here renders: the views see the same tree as for a JSON logtree, with
the same depth cap and the same escaping rules.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser
from typing import Any

# logtree reports nest about 15 elements deep; the cap keeps the JSON export within
# orjson's 255 levels (a node is two: its dict and its children list)
MAX_NESTING = 100
_DROPPED = {"head", "style", "script", "title", "template", "noscript"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# children of these are blocks: the whitespace between them is the file's indentation
_BLOCKS = {"body", "section", "div", "table", "thead", "tbody", "tfoot", "tr", "ul", "ol", "details"}


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: dict[str, Any] = {"tag": "body", "attrs": {}, "children": []}
        self.stack: list[dict[str, Any]] = [self.root]
        self.dropped = 0  # depth inside <head>, <style>, <script>...

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, opened=True)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # "<x/>": an element that holds nothing (html.parser's default would end the
        # innermost open <x>, an ancestor when the nesting cap kept this one from opening)
        self._start(tag, attrs, opened=False)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], opened: bool) -> None:
        if tag in _DROPPED:
            if tag not in _VOID and opened:
                self.dropped += 1
            return
        if self.dropped or tag in ("html", "meta", "link", "base"):
            return
        values = {k: v or "" for k, v in attrs}
        if tag == "body":
            self.root["attrs"] = values
            return
        node: dict[str, Any] = {"tag": tag, "attrs": values, "children": []}
        self.stack[-1]["children"].append(node)
        if opened and tag not in _VOID and len(self.stack) < MAX_NESTING:
            self.stack.append(node)  # past the cap, what follows stays in the deepest kept element

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropped = max(0, self.dropped - 1)
            return
        if self.dropped or tag in ("body", "html"):
            return
        # close the innermost open element of that tag; a stray end tag closes nothing
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i]["tag"] == tag:
                closed = self.stack[i]
                del self.stack[i:]
                if tag == "div" and "lt-conversation" in closed["attrs"].get("class", "").split():
                    _to_conversation(closed)
                return

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        parent = self.stack[-1]
        if parent["tag"] in _BLOCKS and not data.strip():
            return
        kids = parent["children"]
        text = html.escape(data, quote=True)
        if kids and isinstance(kids[-1], str):
            kids[-1] += text
        else:
            kids.append(text)


def _classes(node: dict[str, Any]) -> list[str]:
    return str(node["attrs"].get("class", "")).split()


def _text(node: dict[str, Any] | str) -> str:
    """The text a browser shows for a subtree (its strings unescaped, in order)."""
    out: list[str] = []
    stack: list[dict[str, Any] | str] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, str):
            out.append(html.unescape(n))
        else:
            stack.extend(reversed(n["children"]))
    return "".join(out)


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every element below ``node``, in document order."""
    out: list[dict[str, Any]] = []
    stack = [c for c in reversed(node["children"]) if isinstance(c, dict)]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(c for c in reversed(n["children"]) if isinstance(c, dict))
    return out


def _message(div: dict[str, Any]) -> dict[str, Any]:
    role = next((c[len("lt-message-") :] for c in _classes(div) if c.startswith("lt-message-")), "")
    content: dict[str, Any] | None = None
    parts: list[dict[str, Any]] = []
    for n in _walk(div):
        cls = _classes(n)
        if not role and "lt-message-role" in cls:
            role = _text(n).strip().rstrip(":")
        elif "lt-message-content" in cls:
            content = n
    for n in content["children"] if content is not None else []:
        if isinstance(n, str):
            if n.strip():
                parts.append({"type": "text", "text": html.unescape(n)})
            continue
        cls = _classes(n)
        if "lt-thinking-part" in cls:
            pre = [c for c in n["children"] if isinstance(c, dict) and c["tag"] != "summary"]
            parts.append({"type": "thinking", "thinking": "".join(_text(c) for c in pre)})
        elif "lt-image-part" in cls:
            parts.append({"type": "image"})
        else:  # text parts, tool-call parts, anything else: its text
            parts.append({"type": "text", "text": _text(n)})
    msg: dict[str, Any] = {"role": role or "unknown"}
    if len(parts) == 1 and parts[0]["type"] == "text":
        msg["content"] = parts[0]["text"]
    elif not parts:
        msg["content"] = ""
    else:
        msg["content"] = parts
    return msg


def _to_conversation(node: dict[str, Any]) -> None:
    """Turn a parsed ``div.lt-conversation`` into the node ``log_formatter`` writes in JSON."""
    messages = [_message(n) for n in _walk(node) if "lt-message" in _classes(n)]
    node["children"] = []
    node["data"] = {"type": "conversation", "messages": messages}


def logtree_from_html(text: str) -> dict[str, Any]:
    """The logtree document (``title``, ``started_at``, ``path``, ``root``) of a logtree HTML report."""
    builder = _TreeBuilder()
    # logtree never writes a marked section ("<![CDATA[" and the like), and html.parser
    # asserts on malformed ones: shown as the text they are, nothing is lost
    builder.feed(text.replace("<![", "&lt;!["))
    builder.close()
    root = builder.root
    title = None
    started = None
    for n in root["children"][:3]:
        if isinstance(n, dict) and "lt-title" in _classes(n):
            title = _text(n)
        elif isinstance(n, dict) and "lt-subtitle" in _classes(n):
            sub = _text(n)
            started = sub[len("Generated ") :] if sub.startswith("Generated ") else None
    # spec §7.1: strings; the HTML does not say where it was written
    return {"title": title or "", "started_at": started or "", "path": "", "root": root}
