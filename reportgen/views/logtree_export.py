"""Export an observe iteration as a tinker-style logtree JSON.

The vocabulary is tinker-cookbook's (``Trace.to_dict``): nodes are
``{tag, attrs, children, data?}``, string children are HTML-escaped text, and
each rollout is one node whose ``data`` is ``{"type": "conversation",
"messages": [...]}``, so tinker's ``find_conversations`` snippet finds every
rollout of the update.  Tool calls use tinker's ``tool_calls`` shape.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import orjson

from ..model import TOKENS_NONE, Group, GroupOutline, Iteration, Member, Message, Prompt, Run
from .html import esc_text
from .text import compact_json, fmt, kept, line_count, log_text, num_text, pretty_json

# logtree strings are HTML-escaped text: markupsafe's entities, which a browser unescapes as
# html.escape's; esc_text skips the texts with nothing to escape (most of them here)
_esc = esc_text


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


def _row(k: str, v: str) -> dict[str, Any]:
    return {
        "tag": "tr",
        "attrs": {},
        "children": [
            {"tag": "td", "attrs": {}, "children": [k]},
            {"tag": "td", "attrs": {}, "children": [v]},
        ],
    }


class _Pieces:
    """Serialized JSON of the nodes that repeat across the members of a run (rows of reward
    components, metadata blocks), as ``orjson.Fragment``s: each is built and serialized once.

    Callers given ``None`` instead (the fallback for documents orjson cannot write) build
    plain dicts.
    """

    def __init__(self) -> None:
        self.cache: dict[Any, Any] = {}

    def get(self, key: tuple[str, ...], build: Any, *args: Any) -> Any:
        hit = self.cache.get(key)
        if hit is None:
            if sum(map(len, key)) > _PIECE_MAX:  # a long text (a judge's explanation) is seldom repeated
                return build(*args)
            hit = orjson.Fragment(kept(orjson.dumps(build(*args))))
            if len(self.cache) >= 4096:  # keys hold input strings: keep the cache bounded
                self.cache.clear()
            self.cache[key] = hit
        return hit


_PIECE_MAX = 512  # characters of a cached piece's key: the cache stays under a few MiB


_PIECES = _Pieces()


def _table(caption: str, rows: list[tuple[str, str]], pieces: _Pieces | None = None) -> list[dict[str, Any]]:
    # a hot path (one table per rollout): the constant header shared, rows serialized once;
    # keys and values arrive escaped: most are our own formatted numbers
    body = {
        "tag": "tbody",
        "attrs": {},
        "children": [_row(k, v) for k, v in rows]
        if pieces is None
        else [pieces.get(("row", k, v), _row, k, v) for k, v in rows],
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


def _state(m: Member) -> str:
    return _state_text(m.skip_reason, m.trained)


def _state_text(skip_reason: str | None, trained: bool | None) -> str:
    if skip_reason:
        return f"skipped: {skip_reason}"
    return "unknown execution" if trained is None else ("trained" if trained else "not trained")


def _members_table(members: list[Member], tinker: bool = False) -> dict[str, Any]:
    """One tab-separated text table per group (a row per member): cheap, and readable in any
    logtree viewer. tinker's trajectories have no advantage nor training state."""
    if tinker:
        rows = ["member\treward\ttokens\ttruncated"]
        rows += [
            f"{m.member}\t{fmt(m.reward)}\t{'–' if m.tokens is None else m.tokens}\t{'yes' if m.truncated else 'no'}"
            for m in members
        ]
        return _node("pre", "lt-details-body", [_esc("\n".join(rows))])
    rows = ["member\treward\tadvantage\ttokens\ttruncated\tstate"]
    rows += [
        f"{m.member}\t{fmt(m.reward)}\t{fmt(m.advantage)}\t{'–' if m.tokens is None else m.tokens}\t"
        f"{'yes' if m.truncated else 'no'}\t{_state(m)}"
        for m in members
    ]
    return _node("pre", "lt-details-body", [_esc("\n".join(rows))])


def _facts_table(g: GroupOutline) -> dict[str, Any]:
    """``_members_table`` of a group outline's members, from their facts: the same text."""
    f = g.facts
    reasons = f.skip_reasons
    rows = ["member\treward\tadvantage\ttokens\ttruncated\tstate"]
    for p in g.positions:
        r, a, t, k, x = f.reward[p], f.advantage[p], f.tokens[p], f.skip[p], f.trained[p]
        state = _state_text(reasons[k] if k >= 0 else None, None if x < 0 else x == 1)
        rows.append(
            f"{f.member[p]}\t{fmt(None if r != r else r)}\t{fmt(None if a != a else a)}\t"
            f"{'–' if t == TOKENS_NONE else t}\t{'yes' if f.truncated[p] else 'no'}\t{state}"
        )
    return _node("pre", "lt-details-body", [_esc("\n".join(rows))])


def _step_row(step_index: int | None, kind: str, reward: float | None, indices: list[int]) -> tuple[str, str]:
    return _esc(f"step {step_index} reward ({kind})"), _esc(f"{fmt(reward)} on messages {indices}")


def _member_extras(m: Member, pieces: _Pieces | None) -> list[dict[str, Any]]:
    """What only some members have: judge explanation, step rewards, terminal reward, metadata."""
    rows: list[tuple[str, str]] = []
    if m.terminal_reward_raw is not None:
        rows.append(("terminal_reward_raw", fmt(m.terminal_reward_raw)))
    if m.judge_explanation is not None:
        rows.append(("judge_explanation", _esc(m.judge_explanation)))
    for s in m.step_rewards:
        rows.append(_step_row(s.step_index, s.kind, s.reward, s.message_indices))
    out = _table(f"Member {m.member}: reward components", rows, pieces) if rows else []
    if m.metadata is not None and m.metadata != {}:
        body = _esc(pretty_json(m.metadata))
        out.append(
            _node(
                "details",
                "lt-details",
                [
                    _node("summary", None, [f"Member {m.member}: metadata"]),
                    _node("pre", "lt-details-body", [body])
                    if pieces is None
                    else pieces.get(("meta", body), _node, "pre", "lt-details-body", [body]),
                ],
            )
        )
    return out


def _prompt_extras(p: Prompt) -> list[dict[str, Any]]:
    """What the page shows of a prompt besides its messages: its ``reward_text`` when it is
    not the last user message (observe-spec §2.2: both viewers show it only then) and its
    scenario metadata."""
    out: list[dict[str, Any]] = []
    users = [x.content for x in p.messages or [] if x.role == "user"]
    if p.reward_text is not None and (not users or p.reward_text != users[-1]):
        out.append(_details(f"Prompt {p.key}: reward_text", _esc(p.reward_text)))
    if p.metadata is not None and p.metadata != {}:
        out.append(_details(f"Prompt {p.key}: scenario metadata", _esc(pretty_json(p.metadata))))
    return out


def _last_says(p: Prompt) -> bool:
    """Whether the prompt's last message is the user message its reward_text repeats."""
    if not p.messages:
        return False
    last = p.messages[-1]
    return last.role == "user" and last.content == p.reward_text


def _details(summary: str, body: str) -> dict[str, Any]:
    return _node(
        "details", "lt-details", [_node("summary", None, [_esc(summary)]), _node("pre", "lt-details-body", [body])]
    )


def _member_nodes(members: list[Member], fragments: bool) -> list[Any]:
    """A conversation node per member (its prompt included), each followed by its extras."""
    pieces = _PIECES if fragments else None
    out: list[Any] = []
    shared: dict[int, list[Any]] = {}  # prompt messages, built once per prompt
    told: set[int] = set()  # prompts whose extras are out
    for m in members:
        p = m.prompt
        # a PPO member carries a prompt of its own, whose reward_text is its last user
        # message: that cheap test first (building the extras of every member's prompt,
        # to find none, cost a PPO build 3-8%)
        if (
            p is not None
            and (p.metadata is not None or (p.reward_text is not None and not _last_says(p)))
            and id(p) not in told
        ):
            told.add(id(p))
            out.extend(_prompt_extras(p))
        if p is not None and p.messages is not None:
            head = shared.get(id(p))
            if head is None:
                head = [_message(x) for x in p.messages]
                if fragments:  # the prompt leads every member's conversation: serialize it once
                    head = [orjson.Fragment(kept(orjson.dumps(x))) for x in head]
                shared[id(p)] = head
        else:
            head = []
        if m.completion is not None:
            messages = [*head, {"role": "assistant", "content": m.completion}]
        else:
            messages = (head if m.prefix else []) + [_message(x) for x in m.messages or []]
        out.append(
            {
                "tag": "div",
                "attrs": {"class": "lt-conversation", "data-member": str(m.member)},
                "children": [],
                # the member's facts ride along with the conversation tinker's readers look for
                "data": {
                    "type": "conversation",
                    "member": m.member,
                    "reward": m.reward,
                    "reward_raw": m.reward_raw,
                    "advantage": m.advantage,
                    "tokens": m.tokens,
                    "truncated": m.truncated,
                    "skip_reason": m.skip_reason,
                    "trained": m.trained,
                    "messages": messages,
                },
            }
        )
        if (
            m.terminal_reward_raw is not None
            or m.judge_explanation is not None
            or m.step_rewards
            or (m.metadata is not None and m.metadata != {})
        ):
            out.extend(_member_extras(m, pieces))
    return out


def _group_section(g: Group, fragments: bool, members: bool = True, tinker: bool = False) -> dict[str, Any]:
    """One group as a logtree section: its members table, then a conversation node per member
    (``members=False``: the table alone, for group_parts to add the members in slices), and for
    tinker the trajectories' steps as tinker details them (``_trajectory_details``)."""
    caption = "Members" if not tinker else _esc(f"Members of {_group_title(g.id, '').lower()}")
    body: list[Any] = [
        {"tag": "div", "attrs": {"class": "lt-table-caption"}, "children": [caption]},
        _members_table(g.members, tinker),
    ]
    if members:
        body += _member_nodes(g.members, fragments)
    if tinker:
        # titled as tinker titles a group's section, so that its readers find it (spec §7.2)
        body += _trajectory_details(g.members)
        return _section("Group Rollout", 2, body)
    return _section(_group_title(g.id, g.prompt.key if g.prompt else ""), 2, body)


def _number_text(v: Any) -> str:
    """A number as tinker's tables print it (``str()``: the shortest round-trip form), a dash
    for none."""
    if v is None:
        return "–"
    return num_text(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _esc(log_text(v))


def _trajectory_details(members: list[Member]) -> list[dict[str, Any]]:
    """tinker's "Trajectory Details" (spec §7.2) of trajectories read from rollout summaries,
    for a page with no logtree of its own (async mode, ``num_groups_to_log=0``, an unreadable
    logtree): each step's stats, metrics and logs, and the episode totals, in the vocabulary
    tinker writes and ``sources.tinker`` reads; with the facts only summaries give (tags, the
    sampling step, the trajectory metrics)."""
    episodes: list[Any] = []
    for m in members:
        if not m.steps:
            continue
        details: list[Any] = []
        for k, s in enumerate(m.steps, 1):
            body = _table(
                "Step stats",
                [
                    ("ob_len", _number_text(s.ob_len)),
                    ("ac_len", _number_text(s.ac_len)),
                    ("step_reward", _number_text(s.reward)),
                ],
            )
            if s.metrics:
                rows = [(_esc(str(key)), _number_text(v)) for key, v in s.metrics.items()]
                body.append(_section("Step Metrics", 6, _table("Metrics emitted by env.step", rows)))
            if s.logs:
                diagnostics: list[Any] = []
                for key, v in s.logs.items():
                    t = log_text(v)
                    if line_count(t) > 1 or len(t) > 120:
                        diagnostics.append(_details(str(key), _esc(t)))
                    else:
                        diagnostics.append(_node("p", "lt-p", [_esc(f"{key}: {t}")]))
                body.append(_section("Diagnostics", 6, diagnostics))
            details.append(_section(f"Turn {k}", 6, body))
        step_rewards = [s.reward for s in m.steps if s.reward is not None]
        details += _table(
            "Episode totals",
            [
                ("num_turns", str(len(m.steps))),
                ("final_ob_len", _number_text(m.final_ob_len)),
                ("sum_step_rewards", _number_text(sum(step_rewards)) if step_rewards else "–"),
                ("final_group_reward", _number_text(m.final_reward)),
                ("total_return", _number_text(m.reward)),
            ],
        )
        facts: list[tuple[str, str]] = []
        if m.tags:
            facts.append(("tags", _esc(", ".join(map(str, m.tags)))))
        if m.sampling_step is not None:
            facts.append(("sampling_client_step", str(m.sampling_step)))
        facts += [
            (_esc(f"trajectory_metrics/{key}"), _number_text(v)) for key, v in (m.trajectory_metrics or {}).items()
        ]
        if facts:
            details += _table("Trajectory facts (rollout summaries)", facts)
        episodes.append(_section(f"Trajectory {m.member} Episode", 4, [_section("Episode Details", 5, details)]))
    return [_section("Trajectory Details", 3, episodes)] if episodes else []


def _group_title(gid: int | None, key: str) -> str:
    label = f"Group {gid}" if gid is not None else "Rollouts"
    return f"{label}" + (f" ({key})" if key else "")


def _outline_section(g: GroupOutline) -> dict[str, Any]:
    """``_group_section(group, True, False)`` of the group a ``GroupOutline`` stands for."""
    body: list[Any] = [
        {"tag": "div", "attrs": {"class": "lt-table-caption"}, "children": ["Members"]},
        _facts_table(g),
    ]
    return _section(_group_title(g.id, g.prompt_key or ""), 2, body)


# a group's members dumped at a time: a PPO batch of 65,536 rollouts is one group, whose
# whole section (its nodes, then its bytes) held 90 MiB more than its slices do
MEMBERS_PER_SLICE = 1024
_SECTION_END = b"]}]}"  # the section's body, its div, its children and the section close


def group_parts(g: Group, tinker: bool = False) -> Iterator[bytes]:
    """The bytes of one group's section, in one piece, or a slice of its members at a time for
    a group larger than MEMBERS_PER_SLICE: the same bytes either way."""
    members = g.members
    if tinker:  # a tinker group is a few trajectories, each with its details after them
        yield _dumps(_group_section(g, True, tinker=True), partial(_group_section, g, False, True, True))
        return
    if len(members) <= MEMBERS_PER_SLICE:
        yield _dumps(_group_section(g, True), partial(_group_section, g, False))
        return
    head = _dumps(_group_section(g, True, False), partial(_group_section, g, False, False))
    yield head[: -len(_SECTION_END)]
    for a in range(0, len(members), MEMBERS_PER_SLICE):
        part = members[a : a + MEMBERS_PER_SLICE]
        yield b","
        yield _dumps(_member_nodes(part, True), partial(_member_nodes, part, False))[1:-1]
    yield _SECTION_END


def outline_group_parts(g: GroupOutline, load: Callable[[array], Group]) -> Iterator[bytes]:
    """``group_parts`` of the group a ``GroupOutline`` stands for, its members loaded a slice of
    MEMBERS_PER_SLICE at a time (``load(positions)``: those members as a group): the same bytes,
    and never the whole group at once."""
    positions = g.positions
    if len(positions) <= MEMBERS_PER_SLICE:
        yield from group_parts(load(positions))
        return
    head = _dumps(_outline_section(g), partial(_outline_section, g))
    yield head[: -len(_SECTION_END)]
    for a in range(0, len(positions), MEMBERS_PER_SLICE):
        part = load(positions[a : a + MEMBERS_PER_SLICE]).members
        yield b","
        yield _dumps(_member_nodes(part, True), partial(_member_nodes, part, False))[1:-1]
    yield _SECTION_END


def _subtitle(fmt: str, ref: Any) -> str:
    """What the iteration is: "update 3, segment 0, status completed" (observe), "step 3,
    status completed" (tinker, with its segment once a resume numbered them)."""
    parts = [f"{'update' if fmt == 'observe' else 'step'} {ref.number}"]
    if ref.segment is not None:
        parts.append(f"segment {ref.segment}")
    parts.append(f"status {ref.status}")
    return ", ".join(parts)


def _document(it: Iteration, page: str, sections: list[Any], run_format: str = "observe") -> dict[str, Any]:
    ref = it.ref
    title = f"RL Iteration {ref.number}"
    root = _node(
        "body",
        "lt-root",
        [
            _node("h1", "lt-title", [_esc(title)]),
            _node("div", "lt-subtitle", [_esc(_subtitle(run_format, ref))]),
            *sections,
        ],
    )
    # "root" last, and "children" last in it: logtree_parts relies on the document ending "]}}"
    return {"title": title, "started_at": ref.time or "", "path": page, "root": root}


def logtree_dict(run: Run, it: Iteration, page: str, fragments: bool = False) -> dict[str, Any]:
    """The logtree of one iteration page (``fragments``: repeated nodes as ``orjson.Fragment``,
    which only orjson can write).

    Each group is a section holding a text table (a row per member) and then
    one conversation node per member, whose ``data`` is the member's whole
    conversation (prompt included), as tinker logs a trajectory, with the
    member's number, reward, advantage, tokens and training state beside it.
    """
    tinker = run.format == "tinker"
    return _document(it, page, [_group_section(g, fragments, tinker=tinker) for g in it.groups], run.format)


def _dumps(value: Any, plain: Callable[[], Any]) -> bytes:
    """orjson's bytes of ``value``, or the fallback encoder's of ``plain()`` (the same value
    without ``orjson.Fragment`` pieces, which only orjson can write)."""
    try:
        # every key is a string (ours, or parsed from JSON): OPT_NON_STR_KEYS would cost 15% more
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # integers past 64 bits (from the stdlib parser)
        return compact_json(plain()).encode("utf-8", "replace")


def logtree_head(run: Run, it: Iteration, page: str) -> bytes:
    """The logtree JSON document up to its first section (``it``'s ref only is read): then a
    comma and ``group_parts`` for each group, and LOGTREE_END."""
    head = _document(it, page, [], run.format)
    return _dumps(head, lambda: head)[: -len(LOGTREE_END)]


LOGTREE_END = b"]}}"


def logtree_parts(run: Run, it: Iteration, page: str) -> Iterator[bytes]:
    """The logtree JSON file content, a group at a time: the bytes of logtree_dict's document
    without holding its whole tree, nor its whole text, for an update of thousands of groups."""
    yield logtree_head(run, it, page)
    tinker = run.format == "tinker"
    for g in it.groups:
        yield b","
        yield from group_parts(g, tinker)
    yield LOGTREE_END


def logtree_bytes(run: Run, it: Iteration, page: str) -> bytes:
    """The logtree JSON file content."""
    return b"".join(logtree_parts(run, it, page))
