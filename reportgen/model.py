"""The normalized run: what every reader produces and every view consumes.

A reader turns its input format into these objects; nothing here knows about
HTML or about any file format.  Two levels exist so that memory stays bounded:

* :class:`Run` is small and lives for the whole build: the header, the list of
  :class:`IterationRef` (one line per iteration, no texts) and the metric
  table.
* :class:`Iteration` holds the texts of one page (groups, members, messages)
  and is produced, rendered and dropped one at a time.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ToolCall:
    """A call made by an assistant message."""

    id: str | None
    name: str
    arguments: Any  # JSON value as logged (object in practice; string for tinker)


@dataclass(slots=True)
class UnparsedToolCall:
    """A tool call the parser could not read (tinker)."""

    raw_text: str
    error: str


@dataclass(slots=True)
class Part:
    """A content part of a tinker message: text, thinking or image."""

    type: str  # "text" | "thinking" | "image" | other (shown as text)
    text: str = ""


@dataclass(slots=True)
class Message:
    """One message of a prompt or a conversation."""

    role: str
    content: str = ""
    parts: list[Part] | None = None  # set when the source has content parts
    tool_calls: Sequence[ToolCall] = ()  # (), not a new list for every message without calls
    unparsed_tool_calls: Sequence[UnparsedToolCall] = ()
    tool_call_id: str | None = None
    is_error: bool = False
    name: str | None = None  # tool name on tinker tool messages
    trainable: bool | None = None

    def plain_text(self) -> str:
        """All the text of the message, parts joined."""
        if self.parts is None:
            return self.content
        return "\n".join(p.text for p in self.parts if p.type != "image")


@dataclass(slots=True)
class StepReward:
    """A reward carried by one step of an agentic trajectory."""

    step_index: int | None
    kind: str
    reward: float | None
    message_indices: list[int]


@dataclass(slots=True)
class Step:
    """One step of a tinker trajectory (rollout summaries)."""

    step_idx: int
    ob_len: int | None
    ac_len: int | None
    reward: float | None
    episode_done: bool
    metrics: dict[str, Any]
    logs: dict[str, Any]


@dataclass(slots=True)
class Prompt:
    """The prompt a group (or a PPO member) answers."""

    key: str
    messages: list[Message] | None  # None: the prompt record never arrived
    reward_text: str | None = None
    metadata: Any = None


@dataclass(slots=True)
class Member:
    """One rollout (completion or trajectory) with its effective state.

    The fields that only some rollouts have default to ``()`` or None, not to a new list or
    dict: five containers made and freed for every rollout were a third of its construction
    (6,800 instructions against 4,100). A reader that fills one gives its own.
    """

    member: int
    reward: float | None = None
    reward_raw: float | None = None
    judge_term: float | None = None
    advantage: float | None = None
    advantage_min: float | None = None
    advantage_max: float | None = None
    tokens: int | None = None
    seed: int | None = None
    truncated: bool = False
    eligible: bool | None = None
    trained: bool | None = None
    skip_reason: str | None = None
    completion: str | None = None  # completion form (PPO/GRPO)
    messages: list[Message] | None = None  # conversation form
    prefix: bool = True
    step_rewards: Sequence[StepReward] = ()
    terminal_reward_raw: float | None = None
    judge_explanation: str | None = None
    metadata: Any = None
    prompt: Prompt | None = None  # PPO: each member carries its own prompt
    # tinker rollout summaries
    final_reward: float | None = None
    tags: Sequence[str] = ()
    sampling_step: int | None = None
    trajectory_metrics: Mapping[str, Any] | None = None
    steps: Sequence[Step] = ()
    final_ob_len: int | None = None
    badges: Sequence[str] = ()  # extra badges (tinker)

    @property
    def turns(self) -> int:
        """Number of assistant messages."""
        if not self.messages:
            return 0
        return sum(1 for m in self.messages if m.role == "assistant")

    @property
    def n_tool_calls(self) -> int:
        """Number of tool calls across the conversation."""
        if not self.messages:
            return 0
        return sum(len(m.tool_calls) for m in self.messages)

    @property
    def tool_errors(self) -> int:
        """Number of tool results flagged as errors."""
        if not self.messages:
            return 0
        return sum(1 for m in self.messages if m.role == "tool" and m.is_error)

    def full_text(self) -> str:
        """The member's whole text, as used for duplicate detection and search."""
        if self.completion is not None:
            return self.completion
        out: list[str] = []
        for m in self.messages or ():
            out.append(m.plain_text())
            for c in m.tool_calls:
                out.append(f"{c.name} {_json_text(c.arguments)}")
        return "\n".join(out)


def _json_text(value: Any) -> str:
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # past orjson's 255 levels, or an integer past 64 bits
        pass
    import json
    import sys

    # str() would recurse at Python's own limit: a value 1,000 levels deep raised RecursionError
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 20_000))
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""
    finally:
        sys.setrecursionlimit(limit)


@dataclass(slots=True)
class Group:
    """Members answering the same prompt (or PPO's single flat group)."""

    id: int | None
    prompt: Prompt | None
    members: list[Member]
    has_text: bool = True  # tinker: False for groups beyond num_groups_to_log
    # tinker: conversations logged for this group, in completion order and not
    # attributable to a member in general (prompt prefix moved to ``prompt``)
    conversations: list[list[Message]] = field(default_factory=list)
    label: str | None = None  # what its card calls a group without an id (else "rollouts")

    @property
    def size(self) -> int:
        """How many members it has (``GroupOutline.size`` too)."""
        return len(self.members)

    def rewards(self) -> list[float]:
        """Finite rewards of the members."""
        return [m.reward for m in self.members if m.reward is not None and math.isfinite(m.reward)]


@dataclass(slots=True)
class LogNode:
    """A node of a tinker logtree: tag, attributes, children, optional data."""

    tag: str
    attrs: dict[str, str]
    children: list[LogNode | str]  # strings are plain (already unescaped) text
    data: Any = None
    raw_html: bool = False  # the node held raw log_html markup (shown as text)


# the note of an observe update due for texts whose rollout batch never arrived (observe-spec
# §1.2: a structural hole); the index says it on the update's row
DUE_NOTE = "due for texts (every {every}), but no rollouts arrived: a dropped batch"
# tinker: a step of metrics.jsonl without a training row, the final evaluation and the cost
# totals written at step N after N training steps (tinker-spec §3): listed, but no iteration
NO_TRAINING_NOTE = "no training row at this step (final evaluation or totals)"
UNNAMED = "(no name)"  # an evaluator tinker 0.1.0 wrote with an empty name (eval__iteration_N.html)


LOG_SEVERITIES = ("debug", "info", "warning", "error", "other")
_SEVERITY = {"DEBUG": "debug", "INFO": "info", "WARNING": "warning", "WARN": "warning", "ERROR": "error"}
_SEVERITY.update(CRITICAL="error", FATAL="error")


@dataclass(slots=True)
class LogRecord:
    """One record of a run's own log (tinker's ``logs.log``): its first line and the lines
    that continue it (a multi-line message, a traceback, a table), read one at a time."""

    line: int  # of its first line in the file, from 1
    level: str | None  # "INFO", "WARNING", ...; None for text before the first record
    source: str | None  # "logger:lineno"
    lines: list[str]  # the message's lines, the first one without its header
    cut: int = 0  # characters past the kept ones (an endless line or record)
    replaced: bool = False  # invalid UTF-8 replaced by U+FFFD in it
    dropped_lines: int = 0  # lines past the kept ones (a record of endless lines)

    @property
    def n_lines(self) -> int:
        """Its lines in the file, the ones past what is kept included."""
        return len(self.lines) + self.dropped_lines

    @property
    def severity(self) -> str:
        """Its level as one of LOG_SEVERITIES: Python's levels, and "other" for a level a
        program named and for text before any record."""
        return _SEVERITY.get(self.level or "", "other")

    def gist(self, lines: int = 4) -> str:
        """Its first lines that are not blank, stripped, on one line (joined by " ⏎ ")."""
        return " ⏎ ".join(t.strip() for t in self.lines[:lines] if t.strip())

    @property
    def starts_run(self) -> bool:
        """Whether it is the line tinker-cookbook logs when a run starts (or resumes)."""
        return self.lines[0].startswith("Command line invocation:")


@dataclass(slots=True)
class IterationRef:
    """One iteration as listed on the index: no texts."""

    kind: str  # "train" or "eval"
    number: int
    label: str = ""  # evaluator label for eval pages
    segment: int | None = None
    status: str = "completed"  # completed | skipped | incomplete | crashed
    has_texts: bool = False
    rollouts: int = 0
    groups: int = 0
    trained: int = 0
    unknown: int = 0  # rollouts whose training is not known (observe: no outcome, §2.7)
    reward_mean: float | None = None
    time: str | None = None
    headline: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # where the reader finds the texts again; opaque to views
    locator: Any = None

    @property
    def page(self) -> str:
        """File name of the iteration's page (first page when paged)."""
        return page_name(self.kind, self.label, self.number)


def page_name(kind: str, label: str, number: int, page: int = 1) -> str:
    """The site's file name for an iteration page."""
    base = f"train_iteration_{number:06d}" if kind == "train" else f"eval_{label}_iteration_{number:06d}"
    return base + (f"_p{page}.html" if page > 1 else ".html")


@dataclass(slots=True)
class Iteration:
    """The texts of one iteration page."""

    ref: IterationRef
    groups: list[Group]
    logtree: dict[str, Any] | None = None  # tinker: the parsed logtree JSON (title, started_at, root)
    logtree_root: LogNode | None = None
    warnings: list[str] = field(default_factory=list)
    timing: list[dict[str, Any]] | None = None  # tinker: the step's spans (timing_spans.jsonl)


TOKENS_NONE = -(1 << 63)  # MemberFacts.tokens: no token count


@dataclass(slots=True)
class MemberFacts:
    """The members of an iteration read in two passes (``Outline``), a column per fact and a
    position per member (in the order the reader met them): what the figures of a whole group
    (its header, the table of all groups, the iteration's counts) and its logtree table need,
    about 40 bytes a member where a loaded ``Member`` holds 600 and more. None is NaN in the
    float columns, -1 in ``trained`` and ``skip``, ``TOKENS_NONE`` in ``tokens``."""

    member: array = field(default_factory=lambda: array("q"))
    reward: array = field(default_factory=lambda: array("d"))
    advantage: array = field(default_factory=lambda: array("d"))
    tokens: array = field(default_factory=lambda: array("q"))
    truncated: bytearray = field(default_factory=bytearray)
    eligible: array = field(default_factory=lambda: array("b"))  # 1, 0, -1: unknown
    trained: array = field(default_factory=lambda: array("b"))  # 1 trained, 0 not, -1 unknown
    skip: array = field(default_factory=lambda: array("i"))  # index into skip_reasons
    skip_reasons: list[str] = field(default_factory=list)


@dataclass(slots=True)
class GroupOutline:
    """A group of an ``Outline``: its id, its prompt's key and where its members' facts are
    (``positions``, in member order), never their texts."""

    id: int | None
    prompt_key: str | None  # the key every member shares (None: they differ, or no group)
    facts: MemberFacts
    positions: array  # the facts' positions of its members, in member order

    @property
    def size(self) -> int:
        """How many members it has."""
        return len(self.positions)

    def rewards(self) -> list[float]:
        """Finite rewards of the members, in member order (``Group.rewards``)."""
        col = self.facts.reward
        return [r for r in map(col.__getitem__, self.positions) if r == r]


@dataclass(slots=True)
class Outline:
    """An iteration too large to hold whole (an observe update of hundreds of thousands of
    rollouts): every group's figures without their members, whose texts the reader loads a few
    groups at a time (``load_members``), so that a build holds one page of them."""

    ref: IterationRef
    groups: list[GroupOutline]
    warnings: list[str] = field(default_factory=list)
    locator: Any = None  # the reader's own: where each member's record is


# the distinct metric names a run keeps: a table is dense (a value per name and step), so
# names that change every step (a series per task of a large dataset) made it grow with the
# square of the run: 22 GB for a 50 MiB export of 20 new names an update
MAX_METRIC_NAMES = 1000
# names kept past MAX_METRIC_NAMES, up to MAX_PRIORITY_NAMES more: the headline and chart
# metrics of both formats (sources/observe.py and sources/tinker.py HEADLINE, views/charts.py),
# which a run logging a series per task of a large dataset must not lose to names met
# earlier (an export's metrics are in its writer's order, "env/..." before "reward/...").
# A tinker name counts with an evaluator's prefix too ("test/env/all/reward/total").
PRIORITY_METRICS = frozenset(
    {
        "reward/mean",
        "reward/std",
        "batch/trained_fraction",
        "policy/kl",
        "completions/length_mean",
        "agent/turns_per_traj_mean",
        "agent/tool_calls_per_traj",
        "agent/failed_fraction",
        "env/all/reward/total",
        "reward/total",
        "time/total",
        "env/all/correct",
        "env/all/format",
        "env/all/total_episodes",
        "env/all/ac_tokens_per_turn",
        "env/all/turns_per_episode",
        "optim/kl_sample_train_v1",
        "optim/kl_sample_train_v2",
        "optim/entropy",
        "optim/lr",
        "tokens/sampled",
        "tokens/prefill_cached",
        "tokens/prefill_uncached",
        "tokens/trained",
        "cost/step_usd",
        "cost/cumulative_usd",
        "progress/batch",
        "progress/done_frac",
    }
)
MAX_PRIORITY_NAMES = 200


def is_priority_metric(name: str) -> bool:
    """Whether ``name`` is kept past MAX_METRIC_NAMES (PRIORITY_METRICS, or one of them after
    an evaluator's prefix)."""
    if name in PRIORITY_METRICS:
        return True
    i = name.find("/env/all/")
    return i > 0 and name[i + 1 :] in PRIORITY_METRICS


def room_for(name: str, distinct: int, priority: int) -> bool:
    """Whether a new metric name is kept, with ``distinct`` names kept so far, ``priority``
    of them kept past the bound."""
    return distinct < MAX_METRIC_NAMES or (priority < MAX_PRIORITY_NAMES and is_priority_metric(name))


class MetricTable:
    """Metrics by step, stored column-wise so 10,000 x 200 values stay small.

    Missing and null values are NaN; ``present`` tells a real NaN from a gap. Names past the
    first MAX_METRIC_NAMES are counted in ``left_out`` (values) and ``left_out_names`` (the
    first few), not kept, but for the headline and chart metrics (``is_priority_metric``).
    """

    def __init__(self) -> None:
        self.steps: list[int] = []
        self._row: dict[int, int] = {}
        self.columns: dict[str, array] = {}
        self.times: list[float | None] = []  # seconds since epoch, when known
        self.left_out = 0
        self.left_out_names: list[str] = []
        self.past_bound = 0  # priority names kept past MAX_METRIC_NAMES

    def row_for(self, step: int, time: float | None = None) -> int:
        """Index of the row for ``step``, created if new."""
        i = self._row.get(step)
        if i is None:
            i = len(self.steps)
            self._row[step] = i
            self.steps.append(step)
            self.times.append(time)
            for col in self.columns.values():
                col.append(math.nan)
        elif time is not None:
            self.times[i] = time
        return i

    def drop_from(self, step: int, but: set[int] | frozenset[int] = frozenset()) -> None:
        """Forget the rows of ``step`` and later but those of ``but`` (an attempt that a resume
        replaces)."""
        keep = [i for i, s in enumerate(self.steps) if s < step or s in but]
        if len(keep) == len(self.steps):
            return
        self.steps = [self.steps[i] for i in keep]
        self.times = [self.times[i] for i in keep]
        self._row = {s: i for i, s in enumerate(self.steps)}
        for name, col in list(self.columns.items()):
            kept = array("d", [col[i] for i in keep])
            if all(map(math.isnan, kept)) and not all(map(math.isnan, col)):
                del self.columns[name]  # a metric only the replaced attempt logged
            else:
                self.columns[name] = kept
        self.past_bound = max(0, len(self.columns) - MAX_METRIC_NAMES)

    def set(self, row: int, name: str, value: float | None) -> None:
        """Store one value (None becomes a gap)."""
        col = self.columns.get(name)
        if col is None:
            if not room_for(name, len(self.columns), self.past_bound):
                self.leave_out(name)
                return
            if len(self.columns) >= MAX_METRIC_NAMES:
                self.past_bound += 1
            col = array("d", [math.nan]) * len(self.steps)
            self.columns[name] = col
        col[row] = math.nan if value is None else value

    def left_out_warning(self) -> str | None:
        """What the run is told of the names left out, if any."""
        if not self.left_out:
            return None
        some = ", ".join(self.left_out_names)
        return (
            f"more than {MAX_METRIC_NAMES:,} distinct metric names: {self.left_out:,} "
            f"value{'' if self.left_out == 1 else 's'} of the later names "
            f"{'is' if self.left_out == 1 else 'are'} left out of the charts and downloads (the first: {some})"
        )

    def leave_out(self, name: str) -> None:
        """Count a value of a name past MAX_METRIC_NAMES."""
        self.left_out += 1
        if len(self.left_out_names) < 5 and name not in self.left_out_names:
            self.left_out_names.append(name)

    def fill(self, steps: list[int], times: list[float | None], rows: list[Any], names: list[str]) -> None:
        """Fill an empty table at once: ``rows[r][i]`` is the value of ``names[i]`` at
        ``steps[r]`` (NaN or past the row's end: a gap; a row may be None). The same table as
        ``row_for`` and ``set`` for each value, columns in the order they would add them, at a
        fraction of the cost (a call per value was 0.2 s of every scan of 6,859 updates)."""
        if self.steps:
            raise ValueError("fill() needs an empty table")
        self.steps = list(steps)
        self.times = list(times)
        self._row = {s: i for i, s in enumerate(self.steps)}
        width = len(names)
        gap = array("d", [math.nan]) * width
        # every row padded to the names' width into one array, whose columns are its slices
        # of step ``width``, all in C: a comprehension per column took 0.2 s of every rebuild
        # of 6,859 updates x 49 metrics, and transposing with zip() made a Python float of
        # every value (170 bytes a value at the peak: 750 MiB for 8,833 updates x 500)
        whole = array("d")
        for m in rows:
            if m is None:
                whole.extend(gap)
            elif len(m) == width:  # most rows: no slice copied first
                whole.extend(m)
            else:
                whole.extend(m[:width])
                if len(m) < width:
                    whole.extend(gap[len(m) :])
        found = []
        for i, name in enumerate(names):
            col = whole[i::width] if width else array("d")
            first = next((r for r, v in enumerate(col) if v == v), None)  # NaN != NaN: a gap
            if first is not None:
                found.append((first, i, name, col))
        del whole
        for _first, _i, name, col in sorted(found, key=lambda f: (f[0], f[1])):
            self.columns[name] = col

    def row_of(self, step: int) -> int | None:
        """The row of ``step``, or None."""
        return self._row.get(step)

    def get(self, step: int, name: str) -> float | None:
        """The finite value of ``name`` at ``step``, or None."""
        i = self._row.get(step)
        col = self.columns.get(name)
        if i is None or col is None:
            return None
        v = col[i]
        return v if math.isfinite(v) else None

    def has_finite(self, name: str) -> bool:
        """Whether the column holds at least one finite value."""
        col = self.columns.get(name)
        return col is not None and any(math.isfinite(v) for v in col)

    def names(self) -> list[str]:
        """Metric names, sorted."""
        return sorted(self.columns)

    def __len__(self) -> int:
        return len(self.steps)


@dataclass(slots=True)
class Checkpoint:
    """A saved checkpoint (tinker)."""

    name: str
    batch: int | None
    state_path: str | None
    sampler_path: str | None
    rolling: bool
    final: bool
    extra: dict[str, Any]


@dataclass(slots=True)
class Run:
    """The whole run, without texts."""

    format: str  # "observe" | "tinker"
    source: str  # as given by the user
    title: str
    algorithm: str | None = None
    model: str | None = None
    every: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    segments: list[dict[str, Any]] = field(default_factory=list)
    iterations: list[IterationRef] = field(default_factory=list)  # train pages, in order
    evals: dict[str, list[IterationRef]] = field(default_factory=dict)  # label -> eval pages
    metrics: MetricTable = field(default_factory=MetricTable)
    warnings: list[str] = field(default_factory=list)
    # what loading a page said (also on that page): printed by the build it was rendered in,
    # kept off the index, which a rebuild that reuses the page must write the same
    page_warnings: list[str] = field(default_factory=list)
    dropped_batches: int = 0
    config: Any = None
    checkpoints: list[Checkpoint] = field(default_factory=list)
    code_diff: str | None = None
    # tinker: step -> (offset, length, CRC-32) of its line in timing_spans.jsonl (the last
    # line of a step wins), read again by the page that shows it: a run's spans are not kept
    timing: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)  # extra header facts (tinker)
    eval_metric_prefix: dict[str, str] = field(default_factory=dict)  # label -> metric prefix
    # prompt key -> train iteration numbers where it was sampled (for cross-links)
    prompt_index: dict[str, list[int]] = field(default_factory=dict)
    # observe: the first update of each segment's run of visible updates, in order; prompt
    # keys are a segment's own (spec §1.4), so cross-links stay inside these ranges
    segment_starts: list[int] = field(default_factory=list)

    def segment_range(self, number: int) -> tuple[int, float]:
        """[first, end) of the update numbers of ``number``'s segment (all of them without starts)."""
        starts = self.segment_starts
        i = bisect_right(starts, number)
        return (starts[i - 1] if i else 0), (starts[i] if i < len(starts) else math.inf)

    @property
    def iterations_word(self) -> str:
        """What its iterations are called in counts: "updates" (observe) or "iterations"."""
        return "updates" if self.format == "observe" else "iterations"

    def trained_count(self) -> int:
        """Its iterations as the index and run.json count them: not tinker's final step of
        evaluation and totals (NO_TRAINING_NOTE), which is listed but trained nothing."""
        return sum(1 for r in self.iterations if NO_TRAINING_NOTE not in r.notes)
