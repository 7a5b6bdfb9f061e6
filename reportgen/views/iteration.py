"""The context of an iteration page: groups, members, conversations, badges.

Everything a template shows is decided here (sorting, badges, tool-result
pairing, folding); templates only lay it out.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson
from markupsafe import Markup

from ..model import Group, GroupOutline, Iteration, IterationRef, Member, Message, Prompt, Run, page_name
from .html import esc
from .text import any_cut, compact_json, cut_chars, cut_clusters, fmt, fold_count, fold_summary, kept, pretty_json

# how many earlier updates that sampled a group's prompt its header links (the nearest ones);
# prompts.js lists them all for the script to fill in
OTHERS_SHOWN = 10


@dataclass(slots=True)
class TextView:
    """A text with its folding decision."""

    text: str
    folded: bool
    summary: str
    cut: int | None
    md: Markup | None = None  # the markdown rendering, next to the exact text


def rolecls(role: str) -> str:
    """A role as a CSS class suffix: letters, digits and dashes only."""
    r = "".join(ch for ch in role.lower() if ch.isalnum() or ch == "-")
    return r or "other"


def _markdown(text: str) -> Markup | None:
    # markdown-it is imported on first use: large builds (markdown off) never pay for it
    from .markdown import render_markdown

    return render_markdown(text)


def text_view(text: str, fold: bool | None = None, md: bool = False, lines: int | None = None) -> TextView:
    """Fold long texts (over 20 lines) but keep them in the page; ``md`` adds the markdown
    rendering. ``lines`` is ``fold_count(text)`` when the caller has it already."""
    if fold is None:
        if lines is None:
            lines = fold_count(text)
        folded = lines > 0
    else:
        folded = fold
    rendered = _markdown(text) if md and text.strip() else None
    return TextView(text, folded, fold_summary(text, lines or 0) if folded else "", cut_chars(text), rendered)


@dataclass(slots=True)
class CallView:
    """A tool call with the result that answers it."""

    id: str | None
    name: str
    arguments: str
    arguments_cut: bool
    result: MessageView | None = None


@dataclass(slots=True)
class MessageView:
    """A message as drawn: role, text, calls, chips."""

    index: int  # index in the member's messages (or -1 for prompt messages)
    role: str
    text: TextView
    parts: list[tuple[str, TextView]] | None
    calls: list[CallView] = field(default_factory=list)
    unparsed: list[tuple[str, str]] = field(default_factory=list)
    tool_name: str | None = None  # for tool messages: the name of the call answered
    tool_call_id: str | None = None
    is_error: bool = False
    unknown_call: bool = False
    step_rewards: list[dict[str, Any]] = field(default_factory=list)
    standalone: bool = True  # False when drawn inside its call
    final: bool = False  # the final answer (last non-empty assistant message)


@dataclass(slots=True)
class PromptView:
    """A prompt as drawn."""

    key: str
    missing: bool
    system: list[MessageView]
    messages: list[MessageView]
    reward_text: TextView | None
    metadata_json: str | None
    metadata_tree: Markup | None = None


def _msg_view(index: int, msg: Message, md: bool = False) -> MessageView:
    # tool output is mostly JSON or logs: always shown exactly
    md = md and msg.role != "tool"
    parts = None
    if msg.parts is not None:
        parts = [
            (p.type, text_view(p.text, fold=True if p.type == "thinking" else None, md=md and p.type != "image"))
            for p in msg.parts
        ]
    # positional (a keyword call costs about a third more; several messages per rollout)
    return MessageView(
        index,
        msg.role,
        text_view(msg.content, None, md),
        parts,
        [_call_view(c.id, c.name, c.arguments) for c in msg.tool_calls] if msg.tool_calls else [],
        [(u.raw_text, u.error) for u in msg.unparsed_tool_calls] if msg.unparsed_tool_calls else [],
        msg.name,
        msg.tool_call_id,
        msg.is_error,
    )


def _call_view(cid: str | None, name: str, arguments: Any) -> CallView:
    if isinstance(arguments, str):
        return CallView(cid, name, arguments, cut_chars(arguments) is not None)
    text = pretty_json(arguments)
    # a string ending with the cut marker shows in its JSON: the walk is needed only then
    return CallView(cid, name, text, " chars]" in text and any_cut(arguments))


def conversation_view(
    messages: list[Message], step_rewards: Sequence[Any] | None = None, md: bool = False, by_id: bool = False
) -> tuple[list[MessageView], list[dict[str, Any]]]:
    """Messages with each tool result attached to the call it answers.

    A result belongs to the nearest preceding call with its id (ids such as
    ``call_0`` repeat across turns).  A result without an id answers the first
    unanswered call of the latest turn (tinker's messages have no ids), unless
    ``by_id`` (observe: the trainer's viewers pair by id alone).  A result no
    call claims is "unknown call"; a call without a result says "no result".  A
    result a step reward points at is drawn on its own (its call says where).
    """
    views = [_msg_view(i, m, md) for i, m in enumerate(messages)]
    final = next((v for v in reversed(views) if v.role == "assistant" and messages[v.index].plain_text().strip()), None)
    if final is not None:
        final.final = True
    open_calls: dict[str, CallView] = {}
    latest: list[CallView] = []  # the calls of the latest assistant message
    for v in views:
        if v.role == "assistant" and v.calls:
            latest = v.calls
            for c in v.calls:
                if c.id:
                    open_calls[c.id] = c  # the latest call with this id
        elif v.role == "tool":
            if v.tool_call_id or by_id:
                call = open_calls.get(v.tool_call_id) if v.tool_call_id else None
            else:
                # no id (tinker's messages): the first unanswered call of the latest turn, by name when known
                call = next(
                    (c for c in latest if c.result is None and (not v.tool_name or c.name == v.tool_name)), None
                )
            if call is not None and call.result is None:
                call.result = v
                v.standalone = False
                if not v.tool_name:
                    v.tool_name = call.name
            elif call is not None:
                v.tool_name = v.tool_name or call.name
            else:
                v.unknown_call = bool(v.tool_call_id) or by_id or not v.tool_name
    unattributed: list[dict[str, Any]] = []
    for sr in step_rewards or []:
        chip = {"step": sr.step_index, "kind": sr.kind, "reward": sr.reward, "text": fmt_signed(sr.reward)}
        valid = [i for i in sr.message_indices if 0 <= i < len(views)]
        if not valid:
            unattributed.append(chip)
        for i in valid:
            views[i].step_rewards.append(chip)
            # a tool result a step reward points at is drawn on its own, as the trainer's
            # viewer draws it (spec §5.2); its call says where
            views[i].standalone = True
    return views, unattributed


def fmt_signed(value: float | None) -> str:
    """A reward with its sign."""
    if value is None:
        return "–"
    return ("+" if value > 0 else "") + fmt(value)


def _prompt_view(p: Prompt | None, md: bool = False) -> PromptView | None:
    if p is None:
        return None
    if p.messages is None:
        return PromptView(key=p.key, missing=True, system=[], messages=[], reward_text=None, metadata_json=None)
    views = [_msg_view(-1, m, md) for m in p.messages]
    system = [v for v in views if v.role == "system"]
    for v in system:
        v.text.folded = True
        v.text.summary = fold_summary(v.text.text)
    others = [v for v in views if v.role != "system"]
    last_user = next((m.content for m in reversed(p.messages) if m.role == "user"), None)
    rt = text_view(p.reward_text, md=md) if p.reward_text is not None and p.reward_text != last_user else None
    meta = pretty_json(p.metadata) if p.metadata is not None else None
    return PromptView(
        key=p.key,
        missing=False,
        system=system,
        messages=others,
        reward_text=rt,
        metadata_json=meta,
        metadata_tree=json_tree(p.metadata) if p.metadata is not None else None,
    )


def _prompt_preview(p: Prompt | None) -> str:
    if p is None:
        return ""
    if p.messages is None:
        return f"{p.key} (prompt record not received)"
    last = next((m for m in reversed(p.messages) if m.role == "user"), None)
    text = last.content if last else (p.messages[-1].content if p.messages else "")
    text = " ".join(text.split())
    return text[:200] + ("…" if len(text) > 200 else "")


def _sort_key(m: Member) -> tuple[int, float, int]:
    r = m.reward
    return (1, 0.0, m.member) if r is None else (0, -r, m.member)


def compact_line(m: Member) -> str:
    """retrograd's compact mode: one line per trajectory, or the completion's first line."""
    if m.messages is None:
        first = (m.completion or "").strip().split("\n", 1)[0]
        if not first:
            return "(no text)"  # as a conversation's "(empty conversation)": the line says so
        return cut_clusters(first, 160) + ("…" if len(first) > 160 else "")
    out = []
    names: dict[str, str] = {}  # call id -> tool name, the latest call winning (ids repeat across turns)
    for msg in m.messages:
        if msg.role == "assistant" and msg.tool_calls:
            names.update((c.id, c.name) for c in msg.tool_calls if c.id)
            out.append(f"assistant[{', '.join(c.name for c in msg.tool_calls)}]")
        elif msg.role == "tool":
            name = msg.name or names.get(msg.tool_call_id or "") or msg.tool_call_id or "?"
            out.append(f"tool({name})" + ("!" if msg.is_error else ""))
        else:
            out.append(msg.role)
    return " → ".join(out) if out else "(empty conversation)"


JSON_TREE_MAX_NODES = 3000


def json_tree(value: Any) -> Markup:
    """A JSON value as nested <details> (objects and arrays fold), escaped; huge values stay flat JSON."""
    # small values (trajectory metadata) repeat across the members of a run: render each once.
    # The key is the value's JSON; null is left out because NaN and inf serialize as null too
    key = None
    if type(value) is dict or type(value) is list:
        try:
            key = orjson.dumps(value)
        except (TypeError, orjson.JSONEncodeError):
            key = None
        if key is not None and (len(key) > 1024 or b"null" in key):
            key = None
        if key is not None:
            hit = _JSON_TREES.get(key)
            if hit is not None:
                return hit
    out = _json_tree(value)
    if key is not None:
        if len(_JSON_TREES) >= 512:
            _JSON_TREES.clear()
        _JSON_TREES[kept(key)] = out
    return out


_JSON_TREES: dict[bytes, Markup] = {}


def _json_tree(value: Any) -> Markup:
    # written into one list of parts: elements nested in elements (html.el) copied every
    # subtree once per level, quadratic in the depth (2.6 ms a rollout for metadata 250
    # levels deep), and cost 30 us a node
    budget = [JSON_TREE_MAX_NODES]
    out: list[str] = ['<div class="jtree">']
    w = out.append

    def scalar(v: Any) -> None:
        if isinstance(v, str):
            if "\n" in v or len(v) > 200:
                # HTML drops one line break right after <pre> (see html.esc_pre)
                text = "\n" + v if v.startswith(("\n", "\r")) else v
                w(f'<pre class="jt-str jt-long">{esc(text)}</pre>')
            else:
                w(f'<span class="jt-str">{esc(pretty_json(v))}</span>')
        elif v is None or isinstance(v, bool):
            w(f'<span class="jt-lit">{esc(pretty_json(v))}</span>')
        elif isinstance(v, (int, float)):
            w(f'<span class="jt-num">{esc(pretty_json(v))}</span>')
        else:
            w(f'<span class="jt-str">{esc(str(v))}</span>')

    def node(v: Any, depth: int) -> None:
        budget[0] -= 1
        if not isinstance(v, (dict, list)):
            scalar(v)
            return
        if budget[0] < 0 or depth > 40:
            # past 40 levels compact: indentation grows with the depth, a deep value's text
            # with its square
            w(f'<pre class="json">{esc(pretty_json(v) if depth <= 40 else compact_json(v))}</pre>')
            return
        items = list(v.items()) if isinstance(v, dict) else list(enumerate(v))
        if not items:
            w(f'<span class="jt-lit">{"{}" if isinstance(v, dict) else "[]"}</span>')
            return
        n = len(items)
        what = f"{{{n} key{'s' if n != 1 else ''}}}" if isinstance(v, dict) else f"[{n}]"
        w(f'<details class="jt"{" open" if depth < 2 else ""}><summary>{esc(what)}</summary><ul>')
        for k, x in items:
            w(f'<li><span class="jt-key">{esc(str(k))}</span><span class="jt-colon">: </span>')
            node(x, depth + 1)
            w("</li>")
        w("</ul></details>")

    node(value, 0)
    w("</div>")
    return Markup("".join(out))


def _badges(m: Member, duplicate: bool, cut: bool, training_known: bool = True) -> list[tuple[str, str]]:
    b: list[tuple[str, str]] = []
    if m.tool_errors:
        b.append(("bad", f"{m.tool_errors} tool error" + ("s" if m.tool_errors > 1 else "")))
    if m.truncated:
        b.append(("warn", "truncated"))
    if m.skip_reason:
        b.append(("bad", f"skipped: {m.skip_reason}"))
    elif m.eligible is False:
        b.append(("bad", "skipped"))
    if not training_known:
        pass  # tinker logs nothing about training per trajectory: no "unknown execution" on every member
    elif m.trained is True:
        b.append(("good", "trained"))
    elif m.trained is None:
        b.append(("unknown", "unknown execution"))
    elif not m.skip_reason and m.eligible is not False:
        # the outcome says it was not trained, with no reason and eligible: the viewer shows
        # no chip at all, which reads as nothing known; this says what the outcome said
        b.append(("info", "not trained"))
    if duplicate:
        b.append(("info", "duplicate"))
    if cut:
        b.append(("info", "cut"))
    for extra in m.badges:
        b.append((_extra_badge_class(extra), extra))
    return b


def _extra_badge_class(text: str) -> str:
    """Colour of a tinker badge: good news green, failures red, the rest neutral."""
    if text == "correct":
        return "good"
    if text in ("incorrect", "parse_error", "bad format", "tool_calls_dropped") or text.startswith("stop/"):
        return "bad" if text != "stop/length" else "warn"
    return "info"


def _summary(m: Member) -> str | None:
    meta = m.metadata
    if isinstance(meta, dict) and isinstance(meta.get("summary"), str):
        return meta["summary"]
    return None


def any_cut_member(m: Member) -> bool:
    """Whether any text of a conversation member was cut by the exporter."""
    for msg in m.messages or ():
        if cut_chars(msg.content) is not None or any(any_cut(c.arguments) for c in msg.tool_calls):
            return True
    return cut_chars(m.judge_explanation) is not None or any_cut(m.metadata)


def page_key(ref: IterationRef) -> str:
    """The iteration part of a compare id: the number, or ``label@number`` for eval pages."""
    return str(ref.number) if ref.kind == "train" else f"{ref.label}@{ref.number}"


# a page shows at most this many members of one group: a larger group (a PPO batch of
# 65,536 rollouts) gets pages of its own, as a page of all of them (200 MiB) is more than
# a browser loads
ROLLOUTS_PER_PAGE = 1024

# (group, first member, end) of each group shown on a page: the members by reward, as the
# page sorts them; the group of an iteration read in two passes is its outline
PageEntry = tuple[Group | GroupOutline, int, int]


# the figures of a whole group (``whole_figures``): lowest, highest, mean and std of its
# rewards, its members, how many are trained, of unknown execution, whether one is skipped as
# zero_signal
Figures = tuple[float | None, float | None, float | None, float | None, int, int, int, bool]

# a page entry that is a part of a larger group: (the group or its outline, first member, end,
# the ids of the part's duplicate members and the whole group's figures, both found once for
# all its parts: a PPO batch of 65,536 has 64 of them)
PagePart = tuple[Group | GroupOutline, int, int, set[int], Figures]


def duplicate_ids(g: Group) -> set[int]:
    """``id()`` of the members of ``g`` whose whole text another member of it has; none for PPO's
    flat batch, which has no groups (as the Vue viewer)."""
    if g.id is None:
        return set()
    members = g.members
    whole = [m.completion if m.completion is not None else m.full_text() for m in members]
    # texts of different lengths differ: a group whose lengths are all different (most of
    # them) has no duplicates, and its fresh texts are not hashed (1,100 instructions a
    # GRPO rollout of 460 characters)
    if len(set(map(len, whole))) == len(members):
        return set()
    texts: dict[str, int] = {}
    for t in whole:
        texts[t] = texts.get(t, 0) + 1
    if len(texts) == len(members):
        return set()
    # a member with no text at all (a tinker trajectory whose conversation the logtree does
    # not attribute, an async run's) duplicates nothing: only texts are compared
    return {id(m) for m, t in zip(members, whole) if texts[t] > 1 and (m.completion is not None or m.messages)}


class DuplicateTexts:
    """The members whose whole text another member of their group has (what ``duplicate_ids``
    finds), for a group given a slice of members at a time (``add``): each text is kept as its
    length and a 128-bit digest, never whole."""

    __slots__ = ("seen", "keyed")

    def __init__(self) -> None:
        self.seen: dict[tuple[int, bytes], int] = {}
        self.keyed: list[tuple[int, tuple[int, bytes]]] = []

    def add(self, members: Iterable[Member]) -> None:
        seen = self.seen
        for m in members:
            whole = m.completion if m.completion is not None else m.full_text()
            key = (len(whole), hashlib.blake2b(whole.encode("utf-8", "surrogatepass"), digest_size=16).digest())
            seen[key] = seen.get(key, 0) + 1
            if m.completion is not None or m.messages:  # a member with no text at all duplicates nothing
                self.keyed.append((m.member, key))

    def members(self) -> set[int]:
        """The numbers of the duplicate members."""
        return {member for member, key in self.keyed if self.seen[key] > 1}


def ranked(g: GroupOutline) -> array:
    """The positions of a group outline's members in the order a page shows them (by reward,
    highest first, members without one last; ``_sort_key``)."""
    rewards = g.facts.reward
    positions = g.positions
    # -reward, or inf for none: a stable sort of the member order breaks ties by member, as
    # _sort_key's member number does
    keys = [math.inf if r != r else -r for r in map(rewards.__getitem__, positions)]
    return array("q", [positions[i] for i in sorted(range(len(keys)), key=keys.__getitem__)])


def whole_figures(g: Group | GroupOutline) -> Figures:
    """The figures of a whole group (``Figures``), from its members or, for a group read in
    two passes, from their facts: its header's and its row's in the table of all groups."""
    if isinstance(g, Group):
        members = g.members
        states = [m.trained for m in members]
        zero = any(m.skip_reason == "zero_signal" for m in members)
        return (*reward_stats(g.rewards()), len(members), states.count(True), states.count(None), zero)
    facts = g.facts
    col = list(map(facts.trained.__getitem__, g.positions))
    reasons = facts.skip_reasons
    zero = False
    if "zero_signal" in reasons:
        zero_id = reasons.index("zero_signal")
        zero = zero_id in map(facts.skip.__getitem__, g.positions)
    return (*reward_stats(g.rewards()), g.size, col.count(1), col.count(-1), zero)


def id_part(n: int) -> str:
    """A group or member id as written in an anchor: ``3``, or ``n3`` for -3 (the writer
    chooses the ids, and ``g-1`` already names the second place of PPO's batch without a
    group, so a minus sign cannot stand for itself)."""
    return str(n) if n >= 0 else f"n{-n}"


def group_anchor(g: Group | GroupOutline, index: int) -> tuple[str, str]:
    """(anchor, label) of a group on its page, ``index`` its place there: ``g3`` and "group 3"
    (``gn3`` and "group -3" for a negative id), or ``g-0`` and "rollouts" for PPO's batch
    without a group. Cards, the table of all groups and the search's links all name a group
    so; ``assets/reportgen.js`` (``ANCHOR_RE``) reads these shapes."""
    gid = g.id
    if gid is not None:
        return (f"g{gid}" if gid >= 0 else f"gn{-gid}"), f"group {gid}"
    return f"g-{index}", getattr(g, "label", None) or "rollouts"


def member_anchor(group: str, member: int) -> str:
    """The anchor of a member card in the group of anchor ``group``: ``g3-m2``, ``g3-mn2``
    for member -2 (``cards._member`` writes the same inline)."""
    return f"{group}-m{id_part(member)}"


def reward_stats(rewards: Sequence[float]) -> tuple[float | None, float | None, float | None, float | None]:
    """(lowest, highest, mean, std) of a group's rewards; all None without rewards."""
    if not rewards:
        return None, None, None, None
    mean = sum(rewards) / len(rewards)
    # (r - mean) ** 2 raises OverflowError past 1e154; a product is inf, shown as a dash
    std = math.sqrt(sum((r - mean) * (r - mean) for r in rewards) / len(rewards))
    return min(rewards), max(rewards), mean, std


# the table of every group of a paginated iteration is on each of its pages up to this many
# groups; past it, on the first page only (4,096 groups on 82 pages would repeat 82 tables
# of 4,096 rows), which the other pages link
OVERVIEW_EVERYWHERE = 300


@dataclass(slots=True)
class OverviewRow:
    """A group in the table of all groups of a paginated iteration."""

    label: str
    anchor: str
    page: int  # the page it starts on, from 1
    members: int
    low: float | None
    high: float | None
    mean: float | None
    trained: int | None  # None where training is not known (tinker)
    unknown: int


def groups_overview(plan: Sequence[Sequence[PageEntry]], training_known: bool) -> list[OverviewRow]:
    """Every group of a paginated iteration (``paginate``'s plan), in page order, with the
    figures of its header, so that a reader sees and orders them all from any page."""
    rows: list[OverviewRow] = []
    for p, entries in enumerate(plan, 1):
        for index, (g, a, _b) in enumerate(entries):
            if a:
                continue  # a later part of a large group: the row is its first page's
            low, high, mean, _std, size, trained, unknown, _zero = whole_figures(g)
            anchor, label = group_anchor(g, index)
            rows.append(
                OverviewRow(
                    label=label,
                    anchor=anchor,
                    page=p,
                    members=size,
                    low=low,
                    high=high,
                    mean=mean,
                    trained=trained if training_known else None,
                    unknown=unknown if training_known else 0,
                )
            )
    return rows


def paginate(groups: Sequence[Group | GroupOutline], per: int, most: int | None = None) -> list[list[PageEntry]]:
    """An iteration's pages: ``per`` groups a page, in their order, except that a group of more
    than ``most`` (ROLLOUTS_PER_PAGE) members gets pages of its own, ``most`` of its members
    each. Always one page at least (an iteration without rollouts says so on it)."""
    if most is None:
        most = ROLLOUTS_PER_PAGE
    pages: list[list[PageEntry]] = []
    page: list[PageEntry] = []
    for g in groups:
        n = g.size
        if n <= most:
            page.append((g, 0, n))
            if len(page) >= per:
                pages.append(page)
                page = []
            continue
        if page:
            pages.append(page)
            page = []
        pages.extend([(g, a, min(n, a + most))] for a in range(0, n, most))
    if page or not pages:
        pages.append(page)
    return pages


def page_groups(
    entries: list[PageEntry], large: dict[int, tuple[list[Member], set[int], Figures]]
) -> tuple[list[Group], dict[int, PagePart]]:
    """The groups a page shows, a part of a large group as a group of its own, and each such
    part by its ``id()`` (for ``iteration_context``'s ``parts``). ``large`` keeps a large
    group's members sorted by reward, its duplicates and its figures, by the group's ``id()``,
    from page to page of an iteration."""
    shown: list[Group] = []
    parts: dict[int, PagePart] = {}
    for g, a, b in entries:
        assert isinstance(g, Group)  # outline_page_groups takes outlines
        if a == 0 and b == len(g.members):
            shown.append(g)
            continue
        known = large.get(id(g))
        if known is None:
            known = large[id(g)] = (sorted(g.members, key=_sort_key), duplicate_ids(g), whole_figures(g))
        members, dups, figures = known
        part = Group(
            id=g.id,
            prompt=g.prompt,
            members=members[a:b],
            has_text=g.has_text,
            conversations=g.conversations if a == 0 else [],  # shown once, with the first part
        )
        parts[id(part)] = (g, a, b, dups, figures)
        shown.append(part)
    return shown, parts


def page_picks(
    entries: list[PageEntry], large: dict[int, tuple[array, set[int], Figures]]
) -> list[tuple[GroupOutline, array]]:
    """The members a page of an iteration read in two passes shows, as the positions of each of
    its groups' outlines (for the reader's ``load_members``): a whole group in member order, a
    part of a large group by reward (``large``: its ``ranked`` positions, the numbers of its
    duplicate members and its figures, by the outline's ``id()``, filled by the caller before
    its first page)."""
    picks: list[tuple[GroupOutline, array]] = []
    for g, a, b in entries:
        assert isinstance(g, GroupOutline)
        if a == 0 and b == g.size:
            picks.append((g, g.positions))
        else:
            picks.append((g, large[id(g)][0][a:b]))
    return picks


def outline_page_groups(
    entries: list[PageEntry], loaded: list[Group], large: dict[int, tuple[array, set[int], Figures]]
) -> tuple[list[Group], dict[int, PagePart]]:
    """``page_groups`` for an iteration read in two passes: ``loaded`` holds the members of
    ``page_picks(entries, large)``, a part of a large group by reward already."""
    parts: dict[int, PagePart] = {}
    for (g, a, b), part in zip(entries, loaded):
        if a == 0 and b == g.size:
            continue
        _ranked, dups, figures = large[id(g)]
        parts[id(part)] = (g, a, b, {id(m) for m in part.members if m.member in dups} if dups else set(), figures)
    return loaded, parts


# the pages of each step of the run being built, made once (its refs are final after the scan)
_STEP_PAGES: tuple[Run | None, dict[int, list[tuple[str, str, str]]]] = (None, {})


def same_step(run: Run, ref: IterationRef) -> list[tuple[str, str]]:
    """(what, page) of the other pages of this step: a tinker train page links its step's
    evaluations, an eval page the training iteration and the other evaluators. (In the
    page's key too: a page of the step that appears later changes it.)"""
    global _STEP_PAGES
    if run.format == "observe":
        return []
    if _STEP_PAGES[0] is not run:
        by_step: dict[int, list[tuple[str, str, str]]] = {}
        for r in run.iterations:
            if r.has_texts:
                by_step.setdefault(r.number, []).append(("", f"iteration {r.number}", r.page))
        for label in sorted(run.evals):
            for r in run.evals[label]:
                if r.has_texts:
                    by_step.setdefault(r.number, []).append((label, f"eval {label}", r.page))
        _STEP_PAGES = (run, by_step)
    mine = ref.label if ref.kind == "eval" else ""
    return [(what, page) for label, what, page in _STEP_PAGES[1].get(ref.number, []) if label != mine]


def iteration_context(
    run: Run,
    it: Iteration,
    prev_ref: IterationRef | None,
    next_ref: IterationRef | None,
    markdown: bool = True,
    chunked: bool = False,
    parts: dict[int, PagePart] | None = None,
) -> dict[str, Any]:
    """The template context of an iteration page; ``markdown`` adds the markdown rendering of
    every text. ``groups_chunks`` holds the groups' HTML as a text per group
    (``cards.group_chunks``); ``chunked``: the caller places and encodes them itself, as
    ``site`` does, and ``groups_html`` (their join) is left None. ``parts``: the groups of
    ``it.groups`` that are a part of a larger group (``page_groups``)."""
    from .cards import PageGroups, group_chunks

    ref = it.ref
    key = page_key(ref)
    observe = run.format == "observe"
    train = ref.kind == "train"
    number = ref.number

    seg_first = run.segment_range(number)[0]

    def others(pkey: str) -> tuple[list[tuple[int, str]], int]:
        # later updates come from prompts.js: old pages stay unchanged when a run grows; of
        # the earlier ones only the nearest are in the HTML, so a page's size does not grow
        # with the run (a small dataset is sampled again every few updates)
        # a key names a prompt of its own segment only (spec §1.4: a resumed segment writes
        # its prompts again, maybe others under the same keys)
        numbers = run.prompt_index.get(pkey, [])
        lo = bisect_left(numbers, seg_first)
        end = bisect_left(numbers, number)
        start = max(lo, end - OTHERS_SHOWN)
        q = quote(pkey, safe="")
        return [(n, f"{page_name('train', '', n)}#prompt={q}") for n in numbers[start:end]], start - lo

    facts = PageGroups()
    chunks = group_chunks(
        it.groups,
        md=markdown,
        page_key=key,
        training_known=observe,
        train=train,
        observe=observe,
        others=others,
        facts=facts,
        parts=parts,
    )
    logtree_html = None
    if it.logtree_root is not None:
        from .logtree_html import render_logtree  # tinker only: keeps observe builds from importing it

        logtree_html = render_logtree(it.logtree_root)
    timing = None
    if it.timing:
        from .timing import timing_view  # tinker only

        timing = timing_view(it.timing)
    return {
        "run": run,
        "ref": ref,
        "it": it,
        "groups_html": None if chunked else Markup("".join(chunks)),
        "groups_chunks": chunks,
        "n_groups": facts.n_groups,
        "prev": prev_ref,
        "next": next_ref,
        "skip_reasons": sorted(facts.skip_reasons),
        "tool_names": sorted(facts.tool_names),
        "badge_names": sorted(facts.badge_names),
        "n_members": sum(len(g.members) for g in it.groups),
        "markdown": markdown,
        "training_known": observe,
        "page_key": key,
        "has_conversations": facts.has_conversations,
        # tinker's messages never say that a tool failed (no is_error): no filter that
        # could only hide every member (its parse errors are badges, in the badge filter)
        "tool_errors_known": observe,
        # a filter of groups without learning signal, where there are groups (not a PPO batch)
        "equal_filter": any(g.id is not None for g in it.groups),
        "logtree_html": logtree_html,
        "timing": timing,
        "same_step": same_step(run, ref),
        # prompts.js adds the later updates to a group's "same prompt in" links: a page of
        # PPO members (no group prompt) does not load it (a megabyte on a PPO run)
        "prompt_links": bool(run.prompt_index)
        and train
        and any(g.prompt is not None and g.prompt.key for g in it.groups),
    }
