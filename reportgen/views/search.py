"""The run-wide text search: a data file per iteration, read by ``search.html``.

Browser find and a page's own search reach one page. ``search.html`` searches every text
of the run: it loads ``<page>_search.js`` one iteration at a time with a ``<script>`` tag
(no fetch: the site opens from ``file://``), each setting ``RG_SEARCH_SHARD`` to the
iteration's texts, and lists the matches with links to the members. The files repeat
the pages' texts, which is why a large export gets them only when asked (``--search``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import orjson

from ..model import Group, Member, Message, Prompt
from .iteration import group_anchor, member_anchor
from .text import log_text, pretty_json

INDEX_FILE = "search_index.js"


def shard_name(first_page: str) -> str:
    """The search data file of the iteration whose first page is ``first_page``: beside it, as
    its logtree JSON is (the state file names flat files only)."""
    return f"{first_page[: -len('.html')]}_search.js"


def _messages_parts(messages: Sequence[Message]) -> list[str]:
    parts: list[str] = []
    for msg in messages:
        if msg.role == "tool" and msg.name:
            parts.append(msg.name)
        parts.append(msg.plain_text())
        for c in msg.tool_calls:
            parts.append(c.name)
            parts.append(c.arguments if isinstance(c.arguments, str) else pretty_json(c.arguments))
        for u in msg.unparsed_tool_calls:
            parts.append(u.raw_text)
    return parts


def _prompt_text(p: Prompt) -> str:
    """A prompt's texts as its block shows them: messages, the reward text, the scenario
    metadata."""
    parts = _messages_parts(p.messages or ())
    if p.reward_text:
        parts.append(p.reward_text)
    if p.metadata is not None:
        parts.append(pretty_json(p.metadata))
    return "\n".join(parts)


def _member_text(m: Member) -> str:
    """A member's texts as its card shows them, so that search.html finds what a page's own
    search finds there: tool call arguments as the card prints them (a string as it is,
    other values as indented JSON), tool names, tinker's step logs, the judge's explanation,
    the metadata."""
    parts = [m.completion] if m.completion is not None else _messages_parts(m.messages or ())
    for s in m.steps:  # tinker: what the env logged at each step (an agent env's only text)
        parts.extend(log_text(v) for v in s.logs.values())
    if m.judge_explanation:
        parts.append(m.judge_explanation)
    if m.metadata is not None:
        parts.append(pretty_json(m.metadata))
    return "\n".join(parts)


def shard_items(groups: Sequence[Group], page: int) -> list[list[Any]]:
    """The searchable texts of one page's groups, as ``[page, anchor, who, reward, text]``:
    a group's prompt once (``gN``), then every member with a text (``gN-mM``), as the page
    anchors them; ``page`` is the page's index among the iteration's pages."""
    items: list[list[Any]] = []
    for index, g in enumerate(groups):
        anchor, label = group_anchor(g, index)
        if g.prompt is not None and g.prompt.messages:
            items.append([page, anchor, f"{label} · prompt", None, _prompt_text(g.prompt)])
        # tinker: conversations the logtree does not attribute to a member, shown in the group
        given = {id(m.messages) for m in g.members if m.messages is not None}
        convs = [c for c in g.conversations if id(c) not in given]
        for ci, conv in enumerate(convs, 1):
            items.append([page, anchor, f"{label} · conversation {ci}", None, "\n".join(_messages_parts(conv))])
        for m in g.members:
            who = f"{label} · #{m.member}"
            ma = member_anchor(anchor, m.member)
            mp = m.prompt
            # PPO: each member its own prompt; a member of a group says the group's again
            if mp is not None and mp.messages and (g.prompt is None or mp.key != g.prompt.key):
                items.append([page, ma, f"{who} · prompt", None, _prompt_text(mp)])
            if m.completion is None and not m.messages and not any(s.logs for s in m.steps):
                continue
            r = m.reward
            items.append([page, ma, who, r if r is not None and math.isfinite(r) else None, _member_text(m)])
    return items


def _inert_json(value: Any) -> bytes:
    """JSON with every ``<`` as ``\\u003c``: like every data file of the site, no ``</script>`` or
    ``<!--`` even where no HTML is parsed. ``<`` is only ever inside a string here. Not
    ``text.script_json``: its ``str.translate`` would walk every text of the run once more
    (these files hold them all), where a ``bytes.replace`` finds the few ``<`` with memchr;
    the keys here are ours, so its ``__proto__`` rule has nothing to do."""
    try:
        return _orjson_inert(value)
    except (TypeError, orjson.JSONEncodeError):  # a lone surrogate, a number past 64 bits
        return _plain_inert(value)


def _orjson_inert(value: Any) -> bytes:
    return orjson.dumps(value).replace(b"<", b"\\u003c")


def _plain_inert(value: Any) -> bytes:
    """``_inert_json``'s fallback encoder."""
    return json.dumps(value, ensure_ascii=True, default=str).encode().replace(b"<", b"\\u003c")


def shard_bytes(key: str, title: str, pages: list[str], items: list[list[Any]]) -> bytes:
    """The search data file of an iteration: ``window.RG_SEARCH_SHARD = {...}``, which
    search.js reads when the file has loaded."""
    return SHARD_START + _inert_json({"key": key, "title": title, "pages": pages, "items": items}) + b";\n"


class ShardParts:
    """``shard_bytes`` of an iteration whose items come a page at a time (an update read in two
    passes): ``head()``, then ``items(...)`` for each page that has any, then END, give the same
    bytes as ``shard_bytes`` of all the items. Those are orjson's unless orjson refuses one
    (a lone surrogate), when the whole file is the fallback encoder's: ``items`` then raises
    ``ShardRefused``, and the caller starts again with ``plain`` set, the items written so far
    read back by ``written_items``."""

    def __init__(self, key: str, title: str, pages: list[str]) -> None:
        self.doc = {"key": key, "title": title, "pages": pages, "items": []}
        self.plain = False  # the fallback encoder's bytes
        self.started = False  # an item was given since head()

    def _dumps(self, value: Any) -> bytes:
        if self.plain:
            return _plain_inert(value)
        try:
            return _orjson_inert(value)
        except (TypeError, orjson.JSONEncodeError):
            raise ShardRefused from None

    def head(self) -> bytes:
        """The file up to its first item."""
        self.started = False
        return SHARD_START + self._dumps(self.doc)[: -len(b"]}")]

    def items(self, items: list[list[Any]]) -> bytes:
        """Some more items (not none), with the separator before them."""
        data = self._dumps(items)[1:-1]
        sep = b"" if not self.started else (b", " if self.plain else b",")
        self.started = True
        return sep + data

    @staticmethod
    def written_items(data: bytes, head: bytes) -> list[list[Any]]:
        """The items of a file begun as ``head`` and given orjson's items since."""
        return list(orjson.loads(b"[" + data[len(head) :] + b"]"))

    END = b"]};\n"


class ShardRefused(Exception):
    """orjson refused a search item: the file is the fallback encoder's (``ShardParts``)."""


SHARD_START = b"window.RG_SEARCH_SHARD = "


def index_bytes(shards: list[tuple[str, str, str]]) -> bytes:
    """``search_index.js``: the data files in page order, as [file, title, key]."""
    return b"window.RG_SEARCH_INDEX = " + _inert_json([list(s) for s in shards]) + b";\n"
