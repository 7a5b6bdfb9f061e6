"""Export an observe iteration as a tinker-style logtree JSON.

The vocabulary is tinker-cookbook's (``Trace.to_dict``): nodes are
``{tag, attrs, children, data?}``, string children are HTML-escaped text, and
each rollout is one node whose ``data`` is ``{"type": "conversation",
"messages": [...]}``, so tinker's ``find_conversations`` snippet finds every
rollout of the update.  Tool calls use tinker's ``tool_calls`` shape.
"""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from ..model import Iteration, Member, Message, Run
from .text import compact_json, fmt, pretty_json


def _esc(text: str) -> str:
    # markupsafe's C escaper: the same entities a browser unescapes as html.escape's
    return str(escape(text))


def _node(tag: str, cls: str | None, children: list[Any], data: Any = None) -> dict[str, Any]:
    n: dict[str, Any] = {"tag": tag, "attrs": {"class": cls} if cls else {}, "children": children}
    if data is not None:
        n["data"] = data
    return n


def _section(title: str, level: int, body: list[Any]) -> dict[str, Any]:
    lv = min(level, 6)
    return _node(
        "section",
        "lt-section",
        [_node(f"h{lv}", f"lt-h{lv}", [_esc(title)]), _node("div", "lt-section-body", body)],
    )


_THEAD = {
    "tag": "thead",
    "attrs": {},
    "children": [
        {
            "tag": "tr",
            "attrs": {},
            "children": [
                {"tag": "th", "attrs": {}, "children": ["key"]},
                {"tag": "th", "attrs": {}, "children": ["value"]},
            ],
        }
    ],
}


def _table(caption: str, rows: list[tuple[str, str]]) -> list[dict[str, Any]]:
    # a hot path (one table per rollout): literal dicts, the constant header shared;
    # keys and values arrive escaped: most are our own formatted numbers
    body = {
        "tag": "tbody",
        "attrs": {},
        "children": [
            {
                "tag": "tr",
                "attrs": {},
                "children": [
                    {"tag": "td", "attrs": {}, "children": [k]},
                    {"tag": "td", "attrs": {}, "children": [v]},
                ],
            }
            for k, v in rows
        ],
    }
    return [
        {"tag": "div", "attrs": {"class": "lt-table-caption"}, "children": [caption]},
        {"tag": "table", "attrs": {"class": "lt-table"}, "children": [_THEAD, body]},
    ]


def _message(m: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [
            {
                "type": "function",
                "id": c.id,
                "function": {
                    "name": c.name,
                    "arguments": c.arguments if isinstance(c.arguments, str) else compact_json(c.arguments),
                },
            }
            for c in m.tool_calls
        ]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.is_error:
        out["is_error"] = True
    return out


def member_messages(m: Member) -> list[dict[str, Any]]:
    """The whole conversation of a member: prompt, then completion or turns."""
    prompt = m.prompt.messages if m.prompt is not None and m.prompt.messages is not None else []
    if m.completion is not None:
        return [_message(x) for x in prompt] + [{"role": "assistant", "content": m.completion}]
    turns = m.messages or []
    head = prompt if m.prefix else []
    return [_message(x) for x in head] + [_message(x) for x in turns]


def _member_rows(m: Member) -> list[tuple[str, str]]:
    rows = [
        ("reward", fmt(m.reward)),
        ("reward_raw", fmt(m.reward_raw)),
        ("judge_term", fmt(m.judge_term)),
        ("advantage", fmt(m.advantage)),
        ("tokens", fmt(m.tokens)),
        ("seed", "–" if m.seed is None else str(m.seed)),
        ("truncated", str(m.truncated).lower()),
        ("skip_reason", _esc(m.skip_reason) if m.skip_reason else "–"),
        ("trained", "unknown execution" if m.trained is None else str(m.trained).lower()),
    ]
    if m.terminal_reward_raw is not None:
        rows.append(("terminal_reward_raw", fmt(m.terminal_reward_raw)))
    if m.judge_explanation is not None:
        rows.append(("judge_explanation", _esc(m.judge_explanation)))
    for s in m.step_rewards:
        rows.append(
            (_esc(f"step {s.step_index} reward ({s.kind})"), _esc(f"{fmt(s.reward)} on messages {s.message_indices}"))
        )
    return rows


def logtree_dict(run: Run, it: Iteration, page: str) -> dict[str, Any]:
    """The logtree of one iteration page."""
    ref = it.ref
    title = f"RL Iteration {ref.number}"
    sections = []
    for g in it.groups:
        body: list[Any] = []
        for m in g.members:
            inner = [_node("div", None, [], {"type": "conversation", "messages": member_messages(m)})]
            inner += _table("Reward components", _member_rows(m))
            if m.metadata not in (None, {}):
                meta = pretty_json(m.metadata)
                inner.append(
                    _node(
                        "details",
                        "lt-details",
                        [_node("summary", None, ["metadata"]), _node("pre", "lt-details-body", [_esc(meta)])],
                    )
                )
            body.append(_section(f"Member {m.member}", 3, inner))
        label = f"Group {g.id}" if g.id is not None else "Rollouts"
        key = g.prompt.key if g.prompt else ""
        sections.append(_section(f"{label}" + (f" ({key})" if key else ""), 2, body))
    root = _node(
        "body",
        "lt-root",
        [
            _node("h1", "lt-title", [_esc(title)]),
            _node("div", "lt-subtitle", [_esc(f"update {ref.number}, segment {ref.segment}, status {ref.status}")]),
            *sections,
        ],
    )
    return {"title": title, "started_at": ref.time, "path": page, "root": root}


def logtree_bytes(run: Run, it: Iteration, page: str) -> bytes:
    """The logtree JSON file content."""
    return compact_json(logtree_dict(run, it, page)).encode("utf-8", "replace")
