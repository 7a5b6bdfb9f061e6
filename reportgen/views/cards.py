"""The groups of an iteration page, rendered in Python.

A page holds thousands of member cards; a Jinja macro call per card and per
text costs about twenty times the string building below (measured in
``benchmarks/bench_build.py``), so this one hot part of ``iteration.html`` is
written here.  The rules of the templates hold: every text and attribute value
that comes from the input goes through :func:`esc` (markupsafe's escaper);
what is written as is are numbers (``fmt()`` writes digits, signs, dots, ``e``
and dashes; ints and float reprs) and the tags, classes and attribute names of
this module.  The result, a text per group (:func:`group_chunks`), is wrapped in
``Markup`` or encoded only by its callers (``iteration_context``, ``site``).  The
reward mini-bars and advantage bars are drawn by ``reportgen.js`` from
``data-reward`` and ``data-adv``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import Markup

from ..model import Group, Member, Prompt
from .html import esc, esc_marks, esc_pre, esc_str
from .iteration import (
    MessageView,
    OverviewRow,
    PagePart,
    PromptView,
    TextView,
    _badges,
    _prompt_preview,
    _prompt_view,
    _sort_key,
    _summary,
    any_cut_member,
    compact_line,
    conversation_view,
    duplicate_ids,
    fmt_signed,
    group_anchor,
    json_tree,
    rolecls,
    text_view,
    whole_figures,
)
from .text import (
    CUT_TAILS,
    any_cut,
    cut_chars,
    fmt,
    fold_count,
    fold_summary,
    line_count,
    log_text,
    num_text,
    pretty_json,
)


def _f(value: float | int | None) -> str:
    """fmt() with its dash as a character reference: pages stay ASCII, which encodes as a copy."""
    out = fmt(value)
    return "&#8211;" if out == "–" else out


def _dual(w: Callable[[str], Any], text: str, md: Markup | None, cls: str = "text") -> None:
    if md is None:
        w(f'<pre class="{cls}">{esc_pre(text)}</pre>')
    else:
        w(f'<pre class="{cls} has-md">{esc_pre(text)}</pre><div class="md">{md}</div>')


def _text(w: Callable[[str], Any], text: str, md: bool, fold: bool | None = None) -> None:
    """textblock() of a plain text: fold past 20 lines, markdown next to it, the cut note."""
    _textview(w, text_view(text, fold=fold, md=md))


def _textview(w: Callable[[str], Any], tv: TextView, cls: str = "text") -> None:
    if tv.folded:
        w(f'<details class="fold"><summary>{esc_marks(tv.summary)}</summary>')
        _dual(w, tv.text, tv.md, cls)
        w("</details>")
    else:
        _dual(w, tv.text, tv.md, cls)
    if tv.cut:
        w(f'<p class="cutnote">cut by the exporter: {esc(tv.cut)} more characters not exported</p>')


def _chips(w: Callable[[str], Any], chips: list[dict[str, Any]], kind: bool = False) -> None:
    """Step-reward chips; with ``kind``, each says its kind too (no message to place it by:
    "step 3 (context) +0.050", as the trainer's viewer writes them)."""
    for c in chips:
        r = c["reward"]
        cls = "pos" if r and r > 0 else ("neg" if r and r < 0 else "zero")
        # step rewards repeat across the members of a run: each chip is rendered once
        key = (cls, c["kind"], c["step"], c["text"], kind)
        html = _CHIPS.get(key)
        if html is None:
            shown = f" ({esc(c['kind'])})" if kind and c["kind"] else ""
            html = (
                f'<span class="chip sr {cls}" title="{esc(c["kind"])} reward of step {esc(c["step"])}">'
                f"step {esc(c['step'])}{shown} {esc(c['text'])}</span>"
            )
            if len(_CHIPS) >= 1024:  # kinds come from the input: keep the cache bounded
                _CHIPS.clear()
            if len(c["kind"]) < 64:
                _CHIPS[key] = html
        w(html)


_CHIPS: dict[tuple[str, Any, Any, str, bool], str] = {}
_ROLES: dict[str, tuple[str, str]] = {}  # role -> (escaped CSS class suffix, escaped role)


def _role(role: str) -> tuple[str, str]:
    out = _ROLES.get(role)
    if out is None:
        out = (esc(rolecls(role)), esc(role))
        if len(_ROLES) < 256 and len(role) < 64:  # roles come from the input: keep the cache small
            _ROLES[role] = out
    return out


def _apart(index: int) -> str:
    """What a call says of its result drawn on its own (a step reward points at it)."""
    return f'\n<p class="result-apart">result: message #{index}, on its own below (a step reward points at it)</p>'


# chips both conversation paths write (_message and _plain_conversation)
_FINAL_ATTR = ' data-final="1"'
_FINAL_CHIP = ' <span class="chip final">final answer</span>'
_ERROR_CHIP = ' <span class="chip bad">error</span>'
_CUT_CHIP = ' <span class="chip info">cut</span>'


def _message(w: Callable[[str], Any], mv: MessageView) -> None:
    """One message (the ``message`` macro of the templates before this module)."""
    rc, role = _role(mv.role)
    index = f' data-index="{mv.index}"' if mv.index >= 0 else ""
    final = ' data-final="1"' if mv.final else ""
    w(
        f'<div class="msg role-{rc}{" is-error" if mv.is_error else ""}" data-role="{role}"{index}{final}'
        f'>\n<div class="msg-head"><span class="role">{role}</span>'
    )
    if mv.role == "tool":
        w(f' <span class="toolname">{esc(mv.tool_name or "unknown call")}</span>')
        if mv.tool_call_id:
            w(f' <code class="callid">({esc(mv.tool_call_id)})</code>')
        if mv.unknown_call:
            w(' <span class="chip unknown">unknown call</span>')
        if mv.is_error:
            w(_ERROR_CHIP)
    final_chip = _FINAL_CHIP if mv.final else ""
    index_span = f' <span class="idx">#{mv.index}</span>' if mv.index >= 0 else ""
    if mv.step_rewards:
        w(f"{final_chip}{index_span}\n")
        _chips(w, mv.step_rewards)
        w("</div>")
    else:
        w(f"{final_chip}{index_span}\n</div>")
    if mv.parts is not None:
        for kind, tv in mv.parts:
            if kind == "thinking":
                w(f'<details class="thinking"><summary>Thinking ({len(tv.text)} chars)</summary>')
                _dual(w, tv.text, tv.md)
                w("</details>")
            elif kind == "image":
                w('<p class="image-part">[image]')
                if tv.text:
                    w(f" <code>{esc(tv.text)}</code>")
                w("</p>")
            elif kind == "text":
                if tv.text:
                    _textview(w, tv)
            else:  # a part or message field of another kind: named, as the logtree export names it
                w(f'<p class="part-type">{esc(kind)}</p>')
                _textview(w, tv)
    elif mv.text.text or not mv.calls:
        _textview(w, mv.text)
    for c in mv.calls:
        name = esc(c.name)
        r = c.result
        cid = f' <code class="callid">{esc(c.id)}</code>' if c.id else ""
        state = ' <span class="chip unknown">no result</span>' if r is None else (_ERROR_CHIP if r.is_error else "")
        cut = _CUT_CHIP if c.arguments_cut else ""
        w(
            f'\n<details class="call" open data-tool="{name}">\n<summary><span class="callname">{name}</span>'
            f'{cid}{state}{cut}</summary>\n<pre class="args">{esc_pre(c.arguments)}</pre>'
        )
        if r is not None and r.standalone:
            w(_apart(r.index))
        elif r is not None:
            n = line_count(r.text.text)
            failed = r.is_error
            chip = _ERROR_CHIP if failed else ""
            w(
                f'\n<div class="result{" is-error" if failed else ""}" data-role="tool" data-index="{r.index}">'
                f'<div class="msg-head"><span class="role">result</span> <span class="lines">{n} line'
                f"{'' if n == 1 else 's'}</span>{chip}"
                f' <span class="idx">#{r.index}</span> '
            )
            _chips(w, r.step_rewards)
            w("</div>")
            _textview(w, r.text)
            w("</div>")
        w("\n</details>")
    for raw, err in mv.unparsed:
        w(
            '\n<div class="unparsed"><div class="msg-head"><span class="chip bad">unparsed tool call</span> '
            f'<span class="err">{esc(err)}</span></div><pre class="args">{esc_pre(raw)}</pre></div>'
        )
    w("\n</div>")


def _plain_text(w: Callable[[str], Any], text: str) -> bool:
    """_textview() of ``text_view(text)`` (no markdown), a short text written at once (every
    completion and message goes through here); returns whether the exporter cut it."""
    lines = fold_count(text)
    if lines or text.endswith(CUT_TAILS):
        tv = text_view(text, None, False, lines)
        _textview(w, tv)
        return tv.cut is not None
    w(f'<pre class="text">{esc_pre(text)}</pre>')
    return False


class _Conv:
    """What the plain path learns of a conversation while it writes it (see _plain_conversation)."""

    __slots__ = ("html", "unattributed", "cut", "tools", "turns", "calls", "tool_errors", "compact")

    def __init__(self) -> None:
        self.html = ""
        self.unattributed: list[dict[str, Any]] = []
        self.cut = False
        self.tools: set[str] = set()
        self.turns = self.calls = self.tool_errors = 0
        self.compact = ""


def _plain_conversation(m: Member) -> _Conv | None:
    """A conversation's messages written in one walk, without views; None when it needs them.

    conversation_view() and _message() build a MessageView, a TextView and a CallView for
    every message and call, then draw them: two thirds of the instructions of an agentic
    rollout's card (144k of 216k; this path takes 104k).  This writes the same bytes for the common shapes (markdown off, no
    content parts, no unparsed calls, every tool message with its call id) and learns on the
    way what the card's header needs (cut, tools, turns, calls, tool errors, compact line).
    ``tests/test_iteration_view.py`` holds it to the general path on every shape it takes.
    """
    messages = m.messages
    if messages is None:
        return None
    n = len(messages)
    final = -1
    for i, msg in enumerate(messages):
        if msg.parts is not None or msg.unparsed_tool_calls:
            return None
        role = msg.role
        if role == "tool":
            if not msg.tool_call_id:
                return None
        elif role == "assistant" and msg.content.strip():
            final = i
    out = _Conv()
    # step rewards: chips by message index, as conversation_view gives them
    chips: dict[int, list[dict[str, Any]]] = {}
    for sr in m.step_rewards:
        chip = {"step": sr.step_index, "kind": sr.kind, "reward": sr.reward, "text": fmt_signed(sr.reward)}
        valid = [i for i in sr.message_indices if 0 <= i < n]
        if not valid:
            out.unattributed.append(chip)
        for i in valid:
            chips.setdefault(i, []).append(chip)
    # pairing: a result belongs to the nearest preceding call with its id (ids repeat across
    # turns); each call takes one result, a later result with its id stays on its own
    open_calls: dict[str, tuple[int, int]] = {}  # call id -> (message, call) of the latest call
    result_of: dict[tuple[int, int], int] = {}  # (message, call) -> index of its result
    inside: set[int] = set()  # results drawn inside their call
    names: dict[int, str] = {}  # tool message -> the name of the call it answers
    unknown: set[int] = set()
    compact: list[str] = []
    tool_set = out.tools
    for i, msg in enumerate(messages):
        role = msg.role
        calls = msg.tool_calls
        if calls:
            out.calls += len(calls)
            for c in calls:
                tool_set.add(c.name)
        if role == "assistant":
            out.turns += 1
            if calls:
                for j, c in enumerate(calls):
                    if c.id:
                        open_calls[c.id] = (i, j)
                compact.append(f"assistant[{', '.join(c.name for c in calls)}]")
            else:
                compact.append(role)
        elif role == "tool":
            tcid = msg.tool_call_id or ""  # never empty here: such a tool message takes the general path
            at = open_calls.get(tcid)
            name = msg.name
            if at is not None:
                call_name = messages[at[0]].tool_calls[at[1]].name
                if at not in result_of:
                    result_of[at] = i
                    if i not in chips:  # one a step reward points at is drawn on its own
                        inside.add(i)
                names[i] = name or call_name
            else:
                if name:
                    names[i] = name
                unknown.add(i)
            if msg.is_error:
                out.tool_errors += 1
            shown = name or (call_name if at is not None else "") or tcid
            compact.append(f"tool({shown})!" if msg.is_error else f"tool({shown})")
        else:
            compact.append(role)
    out.compact = " → ".join(compact) if compact else "(empty conversation)"
    parts: list[str] = []
    w = parts.append
    cut = False
    for i, msg in enumerate(messages):
        if i in inside:
            continue
        role = msg.role
        rc, erole = _role(role)
        err = msg.is_error
        fin = i == final
        w(
            f'<div class="msg role-{rc}{" is-error" if err else ""}" data-role="{erole}" data-index="{i}"'
            f'{_FINAL_ATTR if fin else ""}>\n<div class="msg-head"><span class="role">{erole}</span>'
        )
        if role == "tool":
            w(f' <span class="toolname">{esc(names.get(i) or "unknown call")}</span>')
            w(f' <code class="callid">({esc(msg.tool_call_id)})</code>')
            if i in unknown:
                w(' <span class="chip unknown">unknown call</span>')
            if err:
                w(_ERROR_CHIP)
        head = f'{_FINAL_CHIP if fin else ""} <span class="idx">#{i}</span>\n'
        mine = chips.get(i)
        if mine:
            w(head)
            _chips(w, mine)
            w("</div>")
        else:
            w(head + "</div>")
        calls = msg.tool_calls
        text = msg.content
        if text or not calls:
            cut = _plain_text(w, text) or cut
        for j, c in enumerate(calls):
            name = esc(c.name)
            args = c.arguments
            if isinstance(args, str):
                args_text = args
                args_cut = cut_chars(args) is not None
            else:
                args_text = pretty_json(args)
                args_cut = " chars]" in args_text and any_cut(args)
            cut = cut or args_cut
            r = result_of.get((i, j))  # only an assistant's calls take results
            res = None if r is None else messages[r]
            cid = f' <code class="callid">{esc(c.id)}</code>' if c.id else ""
            state = (
                ' <span class="chip unknown">no result</span>' if res is None else (_ERROR_CHIP if res.is_error else "")
            )
            w(
                f'\n<details class="call" open data-tool="{name}">\n<summary><span class="callname">{name}</span>'
                f"{cid}{state}{_CUT_CHIP if args_cut else ''}"
                f'</summary>\n<pre class="args">{esc_pre(args_text)}</pre>'
            )
            if r is not None and r not in inside:
                w(_apart(r))
            elif r is not None and res is not None:
                rtext = res.content
                k = line_count(rtext)
                failed = res.is_error
                w(
                    f'\n<div class="result{" is-error" if failed else ""}" data-role="tool" data-index="{r}">'
                    f'<div class="msg-head"><span class="role">result</span> <span class="lines">{k} line'
                    f"{'' if k == 1 else 's'}</span>{_ERROR_CHIP if failed else ''}"
                    f' <span class="idx">#{r}</span> '
                )
                _chips(w, chips.get(r, []))
                w("</div>")
                cut = _plain_text(w, rtext) or cut
                w("</div>")
            w("\n</details>")
        w("\n</div>")
    out.cut = cut
    out.html = "".join(parts)
    return out


def _prompt_block(w: Callable[[str], Any], pv: PromptView | None) -> None:
    if pv is None:
        return
    if pv.missing:
        w(
            f'<p class="missing prompt-missing">Prompt <code class="pkey">{esc(pv.key)}</code>: '
            "prompt record not received.</p>"
        )
        return
    w(f'<details class="prompt" open><summary>Prompt <code class="pkey">{esc(pv.key)}</code></summary>')
    for mv in pv.system:
        w(f'<details class="system"><summary>system: {esc_marks(mv.text.summary)}</summary>')
        _dual(w, mv.text.text, mv.text.md)
        w("</details>")
    for mv in pv.messages:
        _message(w, mv)
    if pv.reward_text:
        w(
            '<div class="reward-text"><div class="msg-head"><span class="role">reward text</span> '
            "(differs from the last user message)</div>"
        )
        _textview(w, pv.reward_text)
        w("</div>")
    if pv.metadata_tree:
        w(f'<details class="json"><summary>scenario metadata</summary>{pv.metadata_tree}</details>')
    w("</details>")


def _plain_prompt(p: Prompt) -> str | None:
    """The prompt block of a prompt of plain short messages, written at once; None otherwise.

    A PPO member carries its own prompt, so this runs once per rollout (and a GRPO group's
    once per group): building the PromptView and its MessageViews cost about a third of such
    a card.  The output is the bytes ``_prompt_block`` writes for the same prompt; anything
    it would draw differently (a system message after another message, parts, calls, a tool
    or error message, a fold, a cut note, a reward text or metadata) takes that path instead.
    """
    messages = p.messages
    if not messages or p.metadata is not None:
        return None
    out = [f'<details class="prompt" open><summary>Prompt <code class="pkey">{esc(p.key)}</code></summary>']
    last_user = None
    others = False  # a message that is not a system one came: _prompt_block writes system ones first
    for m in messages:
        role = m.role
        text = m.content
        if (
            role == "tool"
            or m.parts is not None
            or m.tool_calls
            or m.unparsed_tool_calls
            or m.is_error
            or text.endswith(CUT_TAILS)
            or fold_count(text)
        ):
            return None
        if role == "system":
            if others:
                return None
            out.append(
                f'<details class="system"><summary>system: {esc_marks(fold_summary(text))}</summary>'
                f'<pre class="text">{esc_pre(text)}</pre></details>'
            )
            continue
        others = True
        if role == "user":
            last_user = text
        rc, erole = _role(role)
        out.append(
            f'<div class="msg role-{rc}" data-role="{erole}">\n<div class="msg-head"><span class="role">{erole}</span>'
            f'\n</div><pre class="text">{esc_pre(text)}</pre>\n</div>'
        )
    if p.reward_text is not None and p.reward_text != last_user:
        return None
    out.append("</details>")
    return "".join(out)


def _kvs(w: Callable[[str], Any], items: Mapping[str, Any]) -> None:
    for k, v in items.items():
        # Jinja's "is number": booleans too; a dict or a list as its JSON, never a repr
        shown = fmt(v) if isinstance(v, (int, float)) else log_text(v)
        w(f'<span class="kv"><span class="k">{esc(k)}</span> {esc(shown)}</span> ')


def _steps(w: Callable[[str], Any], m: Member) -> None:
    """A tinker trajectory's steps (rollout summaries)."""
    n = len(m.steps)
    # its own scroller: wider than a phone, it must not make the whole group scroll sideways
    w(f'<div class="table-wrap"><table class="steps">\n<caption>{n} step{"" if n == 1 else "s"}')
    if m.tags:
        w(f" · tags {esc(', '.join(str(t) for t in m.tags))}")
    if m.sampling_step is not None:
        w(f" · sampled at step {esc(m.sampling_step)}")
    if m.final_ob_len is not None:
        w(f" · final ob_len {esc(m.final_ob_len)}")
    w(
        "</caption>\n<thead><tr><th>step</th><th>ob_len</th><th>ac_len</th><th>reward</th><th>done</th>"
        "<th>metrics</th><th>logs</th></tr></thead>\n<tbody>\n"
    )
    for s in m.steps:
        w(
            f"<tr><td>{esc(s.step_idx)}</td><td>{'–' if s.ob_len is None else esc(s.ob_len)}</td>"
            f"<td>{'–' if s.ac_len is None else esc(s.ac_len)}</td><td>{esc(fmt(s.reward))}</td>"
            f"<td>{'yes' if s.episode_done else 'no'}</td>\n<td>"
        )
        _kvs(w, s.metrics)
        w("</td>\n<td>")
        for k, v in s.logs.items():
            t = log_text(v)
            if line_count(t) > 1 or len(t) > 120:
                w(
                    f'<details class="log"><summary>{esc(k)} ({line_count(t)} lines)</summary>'
                    f'<pre class="text">{esc_pre(t)}</pre></details>'
                )
            else:
                w(f'<div class="kv"><span class="k">{esc(k)}:</span> <span class="log-v">{esc(t)}</span></div>')
        w("</td></tr>\n")
    w("</tbody>\n</table></div>\n")
    if m.trajectory_metrics:
        w('<p class="kvs">trajectory metrics: ')
        _kvs(w, m.trajectory_metrics)
        w("</p>")


_BADGE_CACHE: dict[tuple[Any, ...], tuple[list[str], str, str]] = {}


def _badge_parts(badges: list[tuple[str, str]]) -> tuple[list[str], str, str]:
    """A member's badge names, its escaped ``data-badges`` value and its chips."""
    names = [t for _, t in badges]
    chips = "".join([f'<span class="chip {cls}">{esc_str(text)}</span>' for cls, text in badges])
    return names, esc_str(LIST_SEP.join(names)), chips


class PageGroups:
    """What the groups of one page contribute to the rest of the page (filters, flags)."""

    __slots__ = ("skip_reasons", "tool_names", "badge_names", "has_conversations", "n_groups")

    def __init__(self) -> None:
        self.skip_reasons: set[str] = set()
        self.tool_names: set[str] = set()
        self.badge_names: set[str] = set()
        self.has_conversations = False
        self.n_groups = 0


# joins the names of data-tools and data-badges (reportgen.js splits on it): names come from
# the logs and may hold spaces or "|" ("get weather", "skipped: a|b"); a line break in one,
# which no tool parser lets through, would cost only that name's filter
LIST_SEP = "\n"


def overview_rows(rows: list[OverviewRow], hrefs: list[str], training_known: bool) -> Markup:
    """The rows of the table of all groups of a paginated iteration (``groups_overview``), the
    same on each of its pages (reportgen.js marks the page's own): written once per
    iteration, here rather than in the template, where they cost as much as a tenth of a
    GRPO build of 64 groups an update."""
    out = []
    for i, r in enumerate(rows):
        spread = "" if r.low is None or r.high is None else r.high - r.low
        trained = ""
        if training_known:
            more = f", {r.unknown:,} unknown" if r.unknown else ""
            trained = f'<td class="num">{r.trained or 0:,}/{r.members:,}{more}</td>'
        out.append(
            f'<tr data-order="{i}" data-page="{r.page}" data-mean="{"" if r.mean is None else r.mean}" '
            f'data-spread="{spread}"><td><a href="{esc(hrefs[r.page - 1])}#{esc(r.anchor)}">{esc(r.label)}</a></td>'
            f'<td>{r.page}</td><td class="num">{r.members:,}</td><td class="num">{_f(r.mean)}</td>'
            f'<td class="num">{_f(r.low)} &#8230; {_f(r.high)}</td>{trained}</tr>\n'
        )
    return Markup("".join(out))


MEMBERS_PER_CHUNK = 1024
PROMPT_KEYS_SHOWN = 8  # a PPO batch samples a prompt per rollout: the first few keys, then a count


def group_chunks(
    groups: list[Group],
    *,
    md: bool,
    page_key: str,
    training_known: bool,
    train: bool,
    observe: bool,
    others: Callable[[str], tuple[list[tuple[int, str]], int]],
    facts: PageGroups,
    parts: dict[int, PagePart] | None = None,
) -> list[str]:
    """The ``<section class="groups">`` content of one page (every group panel and member
    card) as one text per group (per MEMBERS_PER_CHUNK members of a larger group), which the
    site encodes and writes one by one: a
    character outside the BMP (an emoji) makes Python store a joined text at four bytes a
    character, so a few in a GRPO page of 1 MiB made joining and encoding it take 9 ms
    instead of 0.5; here each widens its own group only."""
    chunks: list[str] = []
    out: list[str] = []
    w = out.append
    per_member_prompt = any(g.id is None for g in groups)
    facts.n_groups = len(groups)
    page_key = esc_str(page_key)  # escaped once here: every card's data-cid holds it

    def flush() -> None:
        chunks.append("".join(out))
        out.clear()

    for i, g in enumerate(groups):
        _group(
            w,
            flush,
            g,
            i,
            per_member_prompt and g.id is None,
            md,
            page_key,
            training_known,
            train,
            observe,
            others,
            facts,
            parts.get(id(g)) if parts else None,
        )
        flush()
    if not groups:
        chunks.append('<p class="missing">No rollout was exported for this iteration.</p>\n')
    return chunks


def _members_prompts(members: list[Member], paged: bool) -> str:
    """The preview of a group without a prompt of its own (a PPO batch): its members' prompt
    when they share one, else how many prompts they sample (each card shows its own); of
    this page's members when the group has pages of its own (counting the whole group on
    each of its pages would cost its size times its pages)."""
    keys = dict.fromkeys(m.prompt.key if m.prompt is not None else None for m in members)
    if len(keys) <= 1:
        return _prompt_preview(members[0].prompt) if members else ""
    # the distinct keys, as the trainer's viewer lists them in the card's header (spec §5.1)
    named = [k for k in keys if k]
    shown = ", ".join(named[:PROMPT_KEYS_SHOWN])
    if len(named) > PROMPT_KEYS_SHOWN:
        shown += f" and {len(named) - PROMPT_KEYS_SHOWN:,} more"
    return (
        f"{len(keys):,} different prompts{' on this page' if paged else ''}"
        f"{f' ({shown})' if shown else ''}: each rollout shows its own"
    )


def _group(
    w: Callable[[str], Any],
    flush: Callable[[], None],
    g: Group,
    index: int,
    with_prompt_per_member: bool,
    md: bool,
    page_key: str,
    training_known: bool,
    train: bool,
    observe: bool,
    others: Callable[[str], tuple[list[tuple[int, str]], int]],
    facts: PageGroups,
    part: PagePart | None,
) -> None:
    # ``part``: ``g`` holds members [a, b) of a larger group, whose figures the header gives
    members = sorted(g.members, key=_sort_key)
    n = len(members)
    dups = duplicate_ids(g) if part is None else part[3]
    rmin, rmax, mean, std, size, n_trained, unknown, zero_signal = whole_figures(g) if part is None else part[4]
    spread = (rmax - rmin) if rmax is not None and rmin is not None else None
    anchor, label = group_anchor(g, index)
    gkey = str(g.id) if g.id is not None else "-"
    pkey = g.prompt.key if g.prompt is not None else None
    w(
        f'<section class="group" id="{anchor}" aria-labelledby="{anchor}-h" data-prompt="{esc(pkey or "")}" '
        f'data-group="{gkey}" data-order="{index}" data-mean="{"" if mean is None else mean}" '
        f'data-spread="{"" if spread is None else spread}">\n<header class="group-head">\n'
        f'<h2 id="{anchor}-h"><a class="anchor" href="#{anchor}">{label}</a></h2>\n'
    )
    w(
        f'<span class="range" title="lowest &#8230; highest reward">{_f(rmin)} &#8230; {_f(rmax)}</span>\n'
        f'<span class="stat">mean <b>{_f(mean)}</b></span>\n<span class="stat">std {_f(std)}</span>\n'
    )
    if training_known:
        # "unknown execution": neither counted as trained nor as not
        w(f'<span class="stat">{n_trained:,}/{size:,} trained{f", {unknown:,} unknown" if unknown else ""}</span>\n')
    w('<span class="stat shown-count" hidden></span>\n')
    if zero_signal:
        w('<span class="chip bad">zero_signal</span>\n')
    if not g.has_text:
        w('<span class="chip unknown">no logtree text</span>\n')
    preview = _prompt_preview(g.prompt) if g.prompt is not None else _members_prompts(members, part is not None)
    if preview:
        w(f'<p class="preview">{esc_marks(preview)}</p>\n')
    if part is not None:
        a, b, total = part[1], part[2], size
        w(
            f'<p class="part">this page: {"rollouts" if g.id is None else "members"} {a + 1:,}&#8211;{b:,} of {total:,}, by reward '
            "(the figures above are of all of them)</p>\n"
        )
    if pkey and train:
        links, cut = others(pkey)
        w(f'<p class="others"{"" if links else " hidden"}>same prompt in {"updates" if observe else "steps"}: ')
        w('<span class="olist">')
        if cut:
            w(f'<span class="ocut">{cut} earlier, </span>')
        w(", ".join(f'<a class="xlink" href="{esc(href)}">{esc(k)}</a>' for k, href in links))
        w("</span></p>\n")
    w(f'</header>\n<div class="group-body" id="{anchor}-body">\n')
    if not with_prompt_per_member:
        # a prompt of plain short messages (leading system messages folded) is written
        # without its views, as a PPO member's is
        plain = None if md or g.prompt is None else _plain_prompt(g.prompt)
        if plain is None:
            _prompt_block(w, _prompt_view(g.prompt, md))
        else:
            w(plain)
    w('\n<div class="members">\n')
    # a huge group (a PPO batch of 65,536) is cut into texts of MEMBERS_PER_CHUNK members,
    # so that no text of the whole group is made, nor its bytes, beside its cards
    for start in range(0, n, MEMBERS_PER_CHUNK):
        for m in members[start : start + MEMBERS_PER_CHUNK] if n > MEMBERS_PER_CHUNK else members:
            _member(w, m, g, anchor, label, gkey, dups, md, page_key, training_known, with_prompt_per_member, facts)
        if start + MEMBERS_PER_CHUNK < n:
            flush()
    w("</div>\n")
    convs = []
    if g.conversations:  # tinker's conversations not attributed to a member
        given = {id(m.messages) for m in members if m.messages is not None}
        convs = [conversation_view(c, None, md)[0] for c in g.conversations if id(c) not in given]
    if convs:
        k = len(convs)
        w(
            f'<section class="convs" aria-label="Conversations of {label}">\n<h3>{k} conversation'
            f"{'' if k == 1 else 's'} logged for this group, not attributable to one member</h3>\n"
        )
        for ci, conv in enumerate(convs):
            w(
                f'<details class="conv"{" open" if ci == 0 else ""}><summary>conversation {ci + 1} '
                f"({len(conv)} messages)</summary>\n"
            )
            for mv in conv:
                if mv.standalone:
                    _message(w, mv)
            w("\n</details>\n")
        w("</section>\n")
    w("</div>\n</section>\n")


def _member(
    w: Callable[[str], Any],
    m: Member,
    g: Group,
    anchor: str,
    label: str,
    gkey: str,
    dups: set[int],
    md: bool,
    page_key: str,
    training_known: bool,
    own_prompt: bool,
    facts: PageGroups,
) -> None:
    # the hottest function of a build (once per rollout): few calls, one f-string per part
    completion = m.completion
    member = m.member
    if completion is not None:
        dup = id(m) in dups
        cut = completion.endswith(CUT_TAILS) and cut_chars(completion) is not None
        msgs: list[MessageView] | None = None
        conv: _Conv | None = None
        unattributed: list[dict[str, Any]] | tuple[()] = ()  # no list made for every completion
        tools: list[str] | tuple[()] = ()
        compact = ""
        tool_errors = 0
    else:
        dup = id(m) in dups
        msgs = None
        unattributed = []
        conv = None if md else _plain_conversation(m)
        if conv is not None:
            facts.has_conversations = True
            unattributed = conv.unattributed
            cut = conv.cut or cut_chars(m.judge_explanation) is not None or any_cut(m.metadata)
            tools = sorted(conv.tools)
            facts.tool_names.update(tools)
            turns, calls, tool_errors = conv.turns, conv.calls, conv.tool_errors
            compact = conv.compact
        elif m.messages is not None:
            # an observe member (training_known) pairs a tool result with its call by id alone
            msgs, unattributed = conversation_view(m.messages, m.step_rewards, md, by_id=training_known)
            facts.has_conversations = True
            # one walk of the views, which hold each text's and each call's cut already
            # (any_cut_member would test them all again)
            cut = False
            tool_set: set[str] = set()
            turns = calls = tool_errors = 0
            for mv in msgs:
                if mv.text.cut is not None:
                    cut = True
                role = mv.role
                if role == "assistant":
                    turns += 1
                elif role == "tool" and mv.is_error:
                    tool_errors += 1
                for c in mv.calls:
                    calls += 1
                    tool_set.add(c.name)
                    if c.arguments_cut:
                        cut = True
            cut = cut or cut_chars(m.judge_explanation) is not None or any_cut(m.metadata)
            tools = sorted(tool_set)
            facts.tool_names.update(tools)
        else:
            cut = any_cut_member(m)
            tools = []
            turns = calls = tool_errors = 0
        if conv is None:
            compact = compact_line(m)
    if not m.badges:
        # the badges follow from a few facts: one rendering per combination
        bkey = (m.truncated, m.skip_reason, m.eligible, m.trained, dup, cut, training_known, tool_errors)
        parts = _BADGE_CACHE.get(bkey)
        if parts is None:
            parts = _badge_parts(_badges(m, dup, cut, training_known))
            if len(_BADGE_CACHE) < 1024 and len(m.skip_reason or "") < 64:  # skip reasons come from the input
                _BADGE_CACHE[bkey] = parts
    else:
        parts = _badge_parts(_badges(m, dup, cut, training_known))
    names, names_attr, chips = parts
    facts.badge_names.update(names)
    skip = m.skip_reason
    if skip:
        facts.skip_reasons.add(skip)
    # iteration.member_anchor, inline: once per rollout
    ma = f"{anchor}-m{member}" if member >= 0 else f"{anchor}-mn{-member}"
    summary = _summary(m) if m.metadata is not None else None
    summ = "" if summary is None else f' data-summary="{esc_marks(summary)}"'
    reward = m.reward
    adv = m.advantage
    # attributes at their default (empty, 0, false) are left out: reportgen.js reads them so
    extra = ""
    if skip:
        extra += f' data-skip="{esc(skip)}"'
    if m.truncated:
        extra += ' data-truncated="true"'
    if tools:
        extra += f' data-tools="{esc(LIST_SEP.join(map(str, tools)))}"'
    if tool_errors:
        extra += f' data-toolerrors="{tool_errors}"'
    if dup:
        extra += ' data-dup="true"'
    adv_attr = "" if adv is None else f' data-adv="{num_text(adv)}"'
    trained = m.trained
    eligible = m.eligible
    # the spans of the header that only some members have, in their order
    spans = ""
    raw = m.reward_raw
    if raw is not None and raw != reward:
        spans += f'<span class="raw" title="reward before shaping">raw {fmt(raw)}</span>\n'
    if m.judge_term:
        spans += f'<span class="judge" title="judge term of the reward">judge {fmt(m.judge_term)}</span>\n'
    if m.final_reward is not None:
        spans += f'<span class="raw">final {fmt(m.final_reward)}</span>\n'
    if adv is not None:
        # the bar beside it is drawn by reportgen.js from data-adv
        spans += f'<span class="adv" title="advantage">adv {fmt(adv)}</span>\n'
    if m.advantage_min is not None:
        spans += (
            f'<span class="adv" title="advantage min and max over tokens">[{fmt(m.advantage_min)}, '
            f"{fmt(m.advantage_max)}]</span>\n"
        )
    tokens = m.tokens
    if tokens is not None:
        spans += f'<span class="tok">{tokens if type(tokens) is int else esc(tokens)} tok</span>\n'
    seed = m.seed
    if seed is not None:
        spans += f'<span class="seed">seed {seed if type(seed) is int else esc(seed)}</span>\n'
    if msgs is not None or conv is not None:
        spans += (
            f'<span class="turns">{turns} turn{"" if turns == 1 else "s"}</span> '
            f'<span class="calls">{calls} call{"" if calls == 1 else "s"}</span>\n'
        )
    # a completion's compact line (its first line) is written by reportgen.js when asked for
    compact_p = "" if completion is not None else f'<p class="compact">{esc_marks(compact)}</p>\n'
    w(
        f'<article class="member" id="{ma}" aria-label="{label}, member {member}" '
        f'data-cid="{page_key}:{gkey}:{member}" data-member="{member}" '
        f'data-reward="{"" if reward is None else num_text(reward)}" '
        f'data-trained="{"null" if trained is None else ("true" if trained else "false")}" '
        f'data-eligible="{"null" if eligible is None else ("true" if eligible else "false")}"'
        f'{extra} data-badges="{names_attr}"'
        f"{adv_attr}"
        f"{summ}"
        f'>\n<header class="member-head">\n<a class="anchor" href="#{ma}">#{member}</a>\n'
        f'<span class="reward" title="reward">{_f(reward)}</span>\n{spans}'
        f'<span class="badges">{chips}</span>\n</header>\n{compact_p}<div class="member-body">\n'
    )
    if m.prompt and g.id is None:
        plain = None if md else _plain_prompt(m.prompt)
        if plain is None:
            _prompt_block(w, _prompt_view(m.prompt, md))
        else:
            w(plain)
    if completion is not None:
        w(
            '<div class="msg role-assistant completion" data-role="completion" data-final="1">'
            '<div class="msg-head"><span class="role">completion</span></div>'
        )
        if md:
            _text(w, completion, md)
        else:
            _plain_text(w, completion)
        w("</div>\n")
    elif msgs is not None or conv is not None:
        if not m.prefix:
            w('<p class="note">Full conversation: the scenario prefix did not match.</p>\n')
        elif (g.prompt is not None and not own_prompt) or m.prompt is not None:
            w('<p class="note subtle">The conversation starts after the scenario\'s prefix.</p>\n')
        if conv is not None:
            w(conv.html)
        else:
            for mv in msgs:  # type: ignore[union-attr]  # set when conv is None
                if mv.standalone:
                    _message(w, mv)
        if not m.messages:
            w('<p class="missing">This member\'s conversation is empty.</p>\n')
    elif not m.steps:
        w('<p class="missing">This member\'s content was not exported.</p>\n')
    if unattributed:
        w('<p class="unattributed">step rewards without a message: ')
        _chips(w, unattributed, kind=True)
        w("</p>\n")
    if m.terminal_reward_raw is not None:
        w(f'<p class="terminal">terminal reward {fmt(m.terminal_reward_raw)}</p>\n')
    if m.judge_explanation is not None:
        w('<div class="judge-box"><div class="msg-head"><span class="role">judge explanation</span></div>')
        _text(w, m.judge_explanation, md)
        w("</div>\n")
    if m.steps:
        _steps(w, m)
    if m.metadata is not None and m.metadata != {}:  # (None, {}) would be a new tuple and dict each time
        w(f'<details class="json"><summary>trajectory metadata</summary>{json_tree(m.metadata)}</details>\n')
    w("</div>\n</article>\n")
