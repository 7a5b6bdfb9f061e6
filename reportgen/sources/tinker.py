"""Reader for tinker-cookbook RL ``log_path`` directories.

See ``tinker-spec.md``.  Everything goes through :class:`Storage`, so local
folders and fsspec URLs read the same way.

Layouts
    Both the ``iteration_NNNNNN/{train,eval_<label>}{.html,_logtree.json,
    _rollout_summaries.jsonl}`` subdirectories (0.2+) and the flat
    ``train_iteration_NNNNNN*`` / ``eval_<label>_iteration_NNNNNN*`` names
    (0.1.0 and the unreleased flat-JSON builds) are discovered; hidden
    ``.<name>.<pid>.tmp`` files of a live run are ignored.  An iteration with
    only ``.html`` (0.1.0) is read from the HTML report (``tinker_html``), which
    gives the same tree as a logtree JSON minus the tool calls; otherwise the
    HTML is not read.

Logtree strings (the raw-HTML rule)
    Logtree string children are ``html.escape(s, quote=True)`` output, which can
    never contain a literal ``<``, ``>``, ``"`` or ``'``.  ``log_html()`` content
    is the only other kind of string, so a string child holding one of those
    four characters is raw markup: its node gets ``raw_html=True`` and all its
    strings are kept verbatim (views show them as text, never as markup).  Any
    other string is unescaped once (``html.unescape``), which is exactly the
    text a browser would have shown, whichever of the two it was.  A node with
    conversation ``data`` is rendered from the data; its string children (the
    formatter's markup, dropped by tinker anyway) are discarded.  One exception:
    the heading of an exception block (``details.lt-exc > summary``), which
    logtree writes unescaped ("Exception: KeyError: 'k'"), is text.

Groups and conversations
    Rollout summaries give the groups and members.  The "Group Rollout"
    sections of the logtree carry no index (spec §7.2): a section goes to the
    next group whose trajectories have the token counts its "Trajectory
    Details" give, so that a group dropped before export (failed, or of
    constant reward in stream and async modes) does not shift the others; a
    section no group has is shown apart, and without trajectory details the
    k-th section is the k-th ``group_idx`` in sorted order
    (``_pair_sections``).  Groups past the logged ones have ``has_text=False``.
    Inside a section, the conversation under a "Prompt" heading becomes
    ``Group.prompt``; the other conversations ("Policy Response", "Episode
    transcript", ...) go to ``Group.conversations`` in completion order.  Without a "Prompt" section, the leading non-assistant
    messages shared by all conversations become the prompt.  Conversations are
    unlabelled, so a member only gets ``messages`` when the match is certain:
    one member, all conversations identical, or a unique match between the
    last assistant text and the member's ``assistant_content`` log.  Without
    summaries (crashed or HTML-only iteration) members come from the
    "Trajectory {i} Episode" sections; without a logtree (async mode) groups
    come from the summaries alone.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import posixpath
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import InputError
from ..model import (
    NO_TRAINING_NOTE,
    Checkpoint,
    Group,
    Iteration,
    IterationRef,
    LogNode,
    LogRecord,
    Member,
    Message,
    Part,
    Prompt,
    Run,
    Step,
    ToolCall,
    UnparsedToolCall,
)
from ..storage import SITE_MARKER, Storage
from . import Progress
from .jsonl import LineError, brief, parse_line, text_of
from .tinker_html import logtree_from_html

MAX_DEPTH = 500  # logtree nesting kept; deeper subtrees are cut with a note

_SUFFIXES = {".html": "html", "_logtree.json": "logtree", "_rollout_summaries.jsonl": "summaries"}
_SUFFIX_RE = r"(\.html|_logtree\.json|_rollout_summaries\.jsonl)"
_ITER_DIR_RE = re.compile(r"^iteration_([0-9]{6,})$")
_DIR_FILE_RE = re.compile(r"^(?:(train)|eval_(.*?))" + _SUFFIX_RE + "$")
_FLAT_FILE_RE = re.compile(r"^(?:(train)|eval_(.*))_iteration_([0-9]{6,})" + _SUFFIX_RE + "$")
_FLAT_ANY_RE = re.compile(r"_iteration_[0-9]{6,}")
# rollout summaries (spec §6): the versions read, and the keys of schema 1
SUMMARY_VERSIONS = (1,)
SUMMARY_KEYS = frozenset(
    (
        "schema_version",
        "split",
        "iteration",
        "group_idx",
        "traj_idx",
        "tags",
        "sampling_client_step",
        "total_reward",
        "final_reward",
        "trajectory_metrics",
        "steps",
        "final_ob_len",
    )
)
_UNSTEPPED_KEPT = 1000  # metrics rows without a step that the index lists (the first ones)
_PENDING_ROWS = 10_000  # metrics rows without a training row held back for a resume (_read_metrics)
_PRE_RESUME_RE = re.compile(r"^metrics\.jsonl\.pre_resume_([0-9]+)$")
_RAW_CHARS = re.compile(r"[<>\"']")
_TRAJ_RE = re.compile(r"^Trajectory ([0-9]+) Episode$")
_TURN_RE = re.compile(r"^Turn ([0-9]+)$")

RL_LOOP_REWARD = "reward/total"
HEADLINE = ("env/all/reward/total", "env/all/correct", "optim/kl_sample_train_v1", "optim/entropy")
_INFO_KEYS = (
    "learning_rate",
    "lora_rank",
    "loss_fn",
    "renderer_name",
    "max_tokens",
    "eval_every",
    "save_every",
    "num_groups_to_log",
    "temperature",
    "kl_penalty_coef",
    "num_substeps",
    "max_steps",
    "num_epochs",
    "recipe_name",
    "wandb_project",
    "wandb_name",
    "rolling_save_every",
    "remove_constant_reward_groups",
    "rollout_json_export",
)
_TRUNCATION_KEYS = ("stop/max_tokens", "stop/length", "max_tokens_reached", "truncated")


def _is_site(st: Storage, folder: str) -> bool:
    """Whether ``folder`` is a site reportgen wrote: a build into ``log_path/eval_site`` (or
    ``iteration_999999``) must not read its own pages as the run's the next time."""
    return st.is_file(f"{folder}/{SITE_MARKER}")


def _nested_files(st: Storage, folder: str, depth: int) -> Iterator[str]:
    """The files under ``folder``, ``depth`` folders deep at most, as paths from the root; a
    folder that is a link is not followed (``eval_x -> .`` would read the run again, and one
    leading out of the source would read what is not the run's)."""
    for child in sorted(st.listdir(folder)):
        if child.startswith("."):
            continue
        rel = f"{folder}/{child}"
        if st.is_dir(rel):
            if depth > 1 and not st.is_link(rel) and not _is_site(st, rel):
                yield from _nested_files(st, rel, depth - 1)
        else:
            yield rel


def sanitize_label(name: str) -> str:
    """tinker's file-name rule for evaluator labels (spec §2)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "unnamed"


def looks_like_tinker(storage: Storage) -> bool:
    """Whether the source looks like a tinker-cookbook ``log_path``."""
    names = storage.listdir("")
    if "metrics.jsonl" in names:
        return True
    if any(_ITER_DIR_RE.match(n) for n in names):
        return True
    if any(_FLAT_ANY_RE.search(n) and not n.startswith(".") for n in names):
        return True
    if "config.json" in names:
        try:
            cfg = _loads(storage.read_bytes("config.json"))
        except (InputError, ValueError):
            return False
        return isinstance(cfg, dict) and "loss_fn" in cfg
    return False


def _loads(raw: bytes | str, replaced: list[int] | None = None, deep: bool = False) -> Any:
    """Strict JSON first (fast), then Python's json for NaN/Infinity.

    Invalid UTF-8 and lone surrogate escapes become U+FFFD (counted in
    ``replaced[0]``); a bad document raises ValueError. ``deep``: past 1,024 levels too
    (a logtree, which lognode_from_json walks without recursion).
    """
    value, rep = parse_line(raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass"), deep)
    if rep and replaced is not None:
        replaced[0] += 1
    return value


def _fact(v: Any) -> Any:
    """A header fact from the config: a number or a text as it is, anything else as its JSON
    text (a template's str() of a list nested 1,000 levels raised RecursionError)."""
    return v if isinstance(v, (int, float, str)) else text_of(v)


def _utf8_note(where: str, n: int) -> str:
    return f"{where}: {n} line(s) held invalid UTF-8 (replaced by U+FFFD)"


def _number(v: Any) -> float | None:
    """A metric value as float; None for non-numbers (bools included)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:  # an integer past 1e308
        return math.nan
    return f if math.isfinite(f) else math.nan


def _finite(v: Any) -> float | None:
    f = _number(v)
    return f if f is not None and math.isfinite(f) else None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def _row_step(row: dict[str, Any]) -> int | None:
    for key in ("step", "progress/batch", "training_client/step"):
        if key in row:
            s = _int(row[key])
            if s is not None and 0 <= s < 2**53:  # 1e125 is no step: a row without one
                return s
    return None


LOG_FILE = "logs.log"
TIMING_FILE = "timing_spans.jsonl"
TRACE_FILE = "trace_events.jsonl"  # Chrome trace events, with Config.enable_trace (spec §8)
# a locator key that names no file: the step's line in TIMING_FILE, "offset:length:crc32"
TIMING_AT = "@timing"
LOG_LINE_MAX = 16384  # bytes of one line of logs.log kept (a line of megabytes is cut)
LOG_RECORD_MAX = 65536  # characters of one record kept (a traceback or table is far less)
# logging's format in tinker-cookbook (utils/ml_log.py): "%(name)s:%(lineno)d [%(levelname)s] %(message)s"
# (a logger's name may hold colons, not blanks; a level is a name in capitals, as Python's
# and addLevelName's by custom, or "Level 5", logging's name for a number it has no name
# for: a traceback's "RuntimeError: bad dim:1 [expected 3]" continues its record)
_LOG_HEAD = re.compile(r"([^\s\[\]]+):([0-9]+) \[([A-Z][A-Z0-9_]{0,39}|Level -?[0-9]{1,9})\] ?(.*)\Z", re.S)


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def _chars(data: bytes) -> int:
    """The characters of UTF-8 bytes (a byte that is not valid UTF-8 counts as one)."""
    return len(data.translate(None, _CONTINUATION_BYTES))


def _bounded_lines(f: Any, limit: int) -> Iterator[tuple[int, bytes, int]]:
    """The lines of a binary file: (number from 1, the line without its end of line and cut
    at ``limit`` bytes, the characters cut); a line is never held longer than ``limit``."""
    no = 0
    while True:
        raw = f.readline(limit)
        if not raw:
            return
        no += 1
        dropped = 0
        if not raw.endswith(b"\n"):
            # the characters past the bound, counted as UTF-8 lead bytes (never held together)
            cut = False
            while len(rest := f.readline(limit)) == limit and not rest.endswith(b"\n"):
                dropped += _chars(rest)
                cut = True
            rest = rest.removesuffix(b"\n").removesuffix(b"\r")  # the end of line is no character
            if rest:
                dropped += _chars(rest)
                cut = True
            if cut:  # cut inside a character: its first bytes go too (no U+FFFD for them)
                lead = len(raw) - 1
                while lead > 0 and len(raw) - lead < 4 and raw[lead] & 0xC0 == 0x80:
                    lead -= 1
                if raw[lead] >= 0xC0 and len(raw) - lead < (2 if raw[lead] < 0xE0 else 3 if raw[lead] < 0xF0 else 4):
                    raw = raw[:lead]
                    dropped += 1
            raw += b"\n"
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        yield no, raw, dropped


class TinkerReader:
    """Reads a tinker-cookbook RL ``log_path`` into the model."""

    # load() marks an iteration whose logtree ends with an exception "crashed" (site writes
    # the charts, which show statuses, after every page)
    status_from_load = True

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._html_doc: tuple[str, dict[str, Any]] | None = None
        self._unreadable: set[str] = set()  # logtree files load() could not read
        self._replaced = False  # the last logtree read held invalid UTF-8
        # (logtree, its bytes) when the file is not fit to copy beside its page: load() -> logtree_bytes()
        self._fixed: tuple[str, bytes] | None = None
        self._has_log = False  # logs.log is among the run's names (scan)
        self._has_trace = False  # trace_events.jsonl too
        # stream-minibatch mode (config.json): summaries in the order groups finished (scan)
        self._stream = False

    # ------------------------------------------------------------------ scan
    def scan(self, jobs: int = 1, progress: Progress | None = None) -> Run:
        """One pass over the run: header, metrics, iteration list; no texts.

        ``progress`` is not called: this reads the run's small files only (metrics, config,
        checkpoints, file names); the logtrees are read a page at a time by ``load``."""
        st = self.storage
        title = posixpath.basename(st.root.rstrip("/").replace("\\", "/")) or st.display()
        run = Run(format="tinker", source=st.display(), title=title)
        if not st.is_dir(""):
            raise InputError("not a directory", st.display())
        names = st.listdir("")
        name_set = set(names)

        if "config.json" in name_set:
            self._read_config(run)
        train_steps: set[int] = set()
        if "metrics.jsonl" in name_set:
            train_steps = self._read_metrics(run)
        self._read_resumes(run, names)
        if "checkpoints.jsonl" in name_set:
            self._read_checkpoints(run)
        if "code.diff" in name_set:
            text, replaced = st.read_text("code.diff")
            run.code_diff = text
            if replaced:
                raw = st.read_bytes("code.diff")
                try:
                    raw.decode("utf-8")
                    where = ""
                except UnicodeDecodeError as exc:  # the first bad byte's line
                    where = ":" + str(raw.count(b"\n", 0, exc.start) + 1)
                run.warnings.append(f"{st.display('code.diff')}{where}: invalid UTF-8 replaced by U+FFFD")
        if TIMING_FILE in name_set:
            self._read_timing(run)
        said = run.metrics.left_out_warning()  # after the timing spans' names, which count too
        if said:
            run.warnings.append(said)
        self._discover_iterations(run, names, train_steps)

        run.info["resumed"] = bool(run.segments)
        run.info["crashed"] = any(r.status == "crashed" for refs in (run.iterations, *run.evals.values()) for r in refs)
        run.info["iterations"] = len(run.iterations)
        run.info["iterations_with_texts"] = sum(1 for r in run.iterations if r.has_texts)
        run.info["evaluators"] = len(run.evals)
        run.info["completed"] = any(c.final for c in run.checkpoints)
        run.info["has_trace_events"] = self._has_trace = TRACE_FILE in name_set
        run.info["has_logs"] = self._has_log = LOG_FILE in name_set
        return run

    def _read_config(self, run: Run) -> None:
        st = self.storage
        replaced = [0]
        try:
            cfg = _loads(st.read_bytes("config.json"), replaced)
        except ValueError as exc:
            where = getattr(exc, "where", "")  # ":line:column" of the fault
            run.warnings.append(f"{st.display('config.json')}{where}: not valid JSON ({exc}); ignored")
            return
        if replaced[0]:
            run.warnings.append(_utf8_note(st.display("config.json"), replaced[0]))
        run.config = cfg
        self._stream = isinstance(cfg, dict) and bool(cfg.get("stream_minibatch_config"))
        if not isinstance(cfg, dict):
            kind = "a list" if isinstance(cfg, list) else "not an object"
            run.warnings.append(f"{st.display('config.json')}: {kind}, not the object tinker writes; shown as it is")
            return
        model = cfg.get("model_name")
        run.model = model if isinstance(model, str) else None
        loss = cfg.get("loss_fn")
        run.algorithm = loss if isinstance(loss, str) else None
        for key in _INFO_KEYS:
            if key in cfg and cfg[key] is not None:
                run.info[key] = _fact(cfg[key])
        ds = cfg.get("dataset_builder")
        if isinstance(ds, dict):
            for src, dst in (("batch_size", "groups_per_batch"), ("group_size", "group_size")):
                if isinstance(ds.get(src), int):
                    run.info[dst] = ds[src]
        for mode, sub in (("async", "async_config"), ("stream-minibatch", "stream_minibatch_config")):
            sc = cfg.get(sub)
            if isinstance(sc, dict):
                run.info["mode"] = mode
                if isinstance(sc.get("groups_per_batch"), int):
                    run.info["groups_per_batch"] = sc["groups_per_batch"]
                if mode == "async" and sc.get("max_steps_off_policy") is not None:
                    run.info["max_steps_off_policy"] = _fact(sc["max_steps_off_policy"])
                if mode == "stream-minibatch" and sc.get("num_minibatches") is not None:
                    run.info["num_minibatches"] = _fact(sc["num_minibatches"])
        run.info.setdefault("mode", "sync")
        evs = cfg.get("evaluator_builders")
        if isinstance(evs, list):
            run.info["evaluator_builders"] = len(evs)

    def _iter_jsonl(self, rel: str, warnings: list[str], objects: bool = False) -> Iterator[tuple[int, Any]]:
        """(line number, value) for each non-empty line; bad lines become warnings, and with
        ``objects`` so do lines that are not a JSON object (skipped: every record is one)."""
        for lineno, _, _, value in self._iter_jsonl_at(rel, warnings, objects):
            yield lineno, value

    def _iter_jsonl_at(
        self, rel: str, warnings: list[str], objects: bool = False
    ) -> Iterator[tuple[int, int, bytes, Any]]:
        """As ``_iter_jsonl``, with each line's byte offset and bytes: (line number, offset,
        the line's bytes, value)."""
        replaced = [0]
        offset = 0
        with self.storage.open(rel) as f:
            for lineno, raw in enumerate(f, 1):
                at = offset
                offset += len(raw)
                if not raw.strip():
                    continue
                try:
                    value = _loads(raw, replaced)
                except (ValueError, RecursionError) as exc:
                    if not raw.endswith(b"\n"):  # the last line, being written (a live run)
                        warnings.append(
                            f"{self.storage.display(rel)}:{lineno}: the last line is incomplete "
                            f"({len(raw)} bytes, no newline yet): left unread"
                        )
                        continue
                    warnings.append(f"{self.storage.display(rel)}:{lineno}: bad JSON line skipped ({exc})")
                    continue
                if objects and not isinstance(value, dict):
                    warnings.append(f"{self.storage.display(rel)}:{lineno}: not an object; skipped")
                    continue
                yield lineno, at, raw, value
        if replaced[0]:
            warnings.append(_utf8_note(self.storage.display(rel), replaced[0]))

    def _read_metrics(self, run: Run) -> set[int]:
        """Merge rows by step; returns steps that have a training row."""
        table = run.metrics
        unstepped: list[dict[str, Any]] = []
        train_steps: set[int] = set()
        last_train_step = -1
        not_numbers: dict[str, list[int]] = {}  # metric -> lines whose value is no number
        nonfinite: dict[str, list[int]] = {}  # metric -> line numbers (for ``reportgen check``)
        # rows read since the last training row, not yet in the table: a pre-0.6 resume drops
        # the earlier attempt's rows from its step before they go in (see below)
        pending: list[tuple[int, int, dict[str, Any]]] = []

        def put(lineno: int, step: int, row: dict[str, Any]) -> None:
            i = table.row_for(step)
            for key, value in row.items():
                if key == "step":
                    continue
                num = _number(value)
                if num is not None:
                    table.set(i, key, num)
                    if math.isnan(num):
                        nonfinite.setdefault(key, []).append(lineno)
                elif value is not None:
                    # nothing makes a metric a number (spec §3): a string, a boolean or a
                    # list cannot be charted; said, not dropped unseen
                    not_numbers.setdefault(key, []).append(lineno)

        for lineno, row in self._iter_jsonl("metrics.jsonl", run.warnings, objects=True):
            step = _row_step(row)
            if step is None:
                # DiscardedWorkLog (spec §3): shown on the index as they are, not charted
                if len(unstepped) < _UNSTEPPED_KEPT:
                    unstepped.append({"line": lineno, "values": row})
                continue
            is_train = "progress/batch" in row or "training_client/step" in row
            if not is_train:
                pending.append((lineno, step, row))
                if len(pending) > _PENDING_ROWS:  # no training row for long: no resume to wait for
                    for args in pending:
                        put(*args)
                    pending.clear()
                continue
            # pre-0.6 resumes append re-run steps without truncating (spec §9): a training
            # row at or below the step of the one before it, which the same step again is
            # (a crash in the step after the checkpoint's, as in the fixture arith_resumed,
            # redoes the checkpoint's step first)
            if step <= last_train_step and not any(s.get("resumed_at") == step for s in run.segments):
                run.segments.append({"resumed_at": step, "file": "metrics.jsonl", "truncated": False})
                run.warnings.append(
                    f"run resumed at step {step}: {self.storage.display('metrics.jsonl')}:{lineno} repeats "
                    "steps already logged (tinker-cookbook before 0.6 kept the earlier attempt's rows); "
                    "the later rows are used"
                )
            if step <= last_train_step:
                # the earlier attempt's rows from here on are replaced whole, not merged key by
                # key: a key the re-run does not log (cost/* when its pricing fetch failed, a
                # conditional KL) must not keep the dead attempt's value. The rows read since
                # the last training row go in after the drop: async mode logs an evaluation's
                # row apart, before the training row of its step (the re-run's), or after the
                # training row it follows (the earlier attempt's: its keys are an evaluation's)
                table.drop_from(step)
                train_steps = {s for s in train_steps if s < step}
            for args in pending:
                put(*args)
            pending.clear()
            last_train_step = step
            train_steps.add(step)
            put(lineno, step, row)
        for args in pending:
            put(*args)
        if not_numbers:
            where = self.storage.display("metrics.jsonl")
            first = sorted(not_numbers.items(), key=lambda kv: kv[1][0])
            shown = ", ".join(f"{k!r} (line {lines[0]})" for k, lines in first[:5]) + (" …" if len(first) > 5 else "")
            run.warnings.append(
                f"{where}: {sum(map(len, not_numbers.values())):,} value(s) of {len(not_numbers):,} metric(s) are not "
                f"numbers (strings, booleans, lists, objects) and are left out of the charts and downloads: {shown}"
            )
        if unstepped:
            run.info["unstepped_metrics"] = unstepped
        if nonfinite:
            run.info["nonfinite_metrics"] = nonfinite
        return train_steps

    def _read_resumes(self, run: Run, names: list[str]) -> None:
        st = self.storage
        for name in names:
            m = _PRE_RESUME_RE.match(name)
            if not m:
                continue
            at = int(m.group(1))
            dropped = 0
            for _, row in self._iter_jsonl(name, run.warnings):
                if isinstance(row, dict):
                    s = _row_step(row)
                    if s is not None and s >= at:
                        dropped += 1
            run.segments.append({"resumed_at": at, "file": name, "dropped_rows": dropped})
            run.warnings.append(
                f"run resumed at step {at}: {dropped} metrics row(s) of the earlier attempt were replaced "
                f"(kept in {st.display(name)}); metrics.jsonl is used"
            )
        run.segments.sort(key=lambda s: s["resumed_at"])
        if run.segments:
            run.info["resumed_at"] = [s["resumed_at"] for s in run.segments]

    def _read_checkpoints(self, run: Run) -> None:
        for _, rec in self._iter_jsonl("checkpoints.jsonl", run.warnings, objects=True):
            known = ("name", "batch", "state_path", "sampler_path", "rolling", "final")
            name = text_of(rec.get("name", ""))
            run.checkpoints.append(
                Checkpoint(
                    name=name,
                    batch=_int(rec.get("batch")),
                    state_path=rec.get("state_path") if isinstance(rec.get("state_path"), str) else None,
                    sampler_path=rec.get("sampler_path") if isinstance(rec.get("sampler_path"), str) else None,
                    rolling=bool(rec.get("rolling")),
                    final=name == "final" or rec.get("final") is True,
                    extra={k: v for k, v in rec.items() if k not in known},
                )
            )

    def _read_timing(self, run: Run) -> None:
        """timing_spans.jsonl (spec §8): where each step's line is (``run.timing``: its page
        reads the spans again) and their seconds summed by name as metrics
        ``timing_spans/<name>`` (the explorer and the downloads show them), the last line of a
        step winning (a resume does not truncate this file, spec §9)."""
        sums: dict[int, dict[str, float]] = {}
        for _, at, raw, rec in self._iter_jsonl_at(TIMING_FILE, run.warnings, objects=True):
            step = _int(rec.get("step"))
            spans = rec.get("spans")
            if step is None or not isinstance(spans, list):
                continue
            # where the line is and a checksum of it: a line rewritten at the same length
            # changes its page's key (and the page reads it again only if it is the same)
            run.timing[step] = (at, len(raw), zlib.crc32(raw))
            totals: dict[str, float] = {}
            for sp in spans:
                if not isinstance(sp, dict):
                    continue
                name, seconds = sp.get("name"), _finite(sp.get("duration"))
                if isinstance(name, str) and seconds is not None:
                    totals[name] = totals.get(name, 0.0) + seconds
            sums[step] = totals
        table = run.metrics
        logged = set(table.columns)  # metrics.jsonl's own: a span never overwrites one
        taken: set[str] = set()
        for step, totals in sorted(sums.items()):
            if table.row_of(step) is None:
                continue  # a step with no metrics row (a dead attempt's): no row of its own
            row = table.row_for(step)
            for name, seconds in totals.items():
                metric = f"timing_spans/{name}"
                if metric in logged:
                    taken.add(metric)
                    continue
                table.set(row, metric, seconds)
        if taken:
            some = ", ".join(repr(n) for n in sorted(taken)[:5]) + (" …" if len(taken) > 5 else "")
            run.warnings.append(
                f"{self.storage.display(TIMING_FILE)}: span metrics named as metrics.jsonl's own are "
                f"left out (metrics.jsonl's are kept): {some}"
            )

    # ------------------------------------------------------------ iterations
    def _discover_iterations(self, run: Run, names: list[str], train_steps: set[int]) -> None:
        st = self.storage
        found: dict[tuple[str, str, int], dict[str, str]] = {}
        safe_labels: dict[str, str] = {}  # label in the file name -> label used in output file names

        def add(kind: str, label: str, n: int, suffix: str, rel: str, prefer: bool) -> None:
            if n >= 2**53:  # as a metrics row's step: past it no number is exact (a page name, a chart's x)
                run.warnings.append(f"{st.display(rel)}: iteration number {n} is past 2^53; ignored")
                return
            if kind == "eval":
                label = self._safe_label(label, safe_labels, run)
            slot = found.setdefault((kind, label, n), {})
            key = _SUFFIXES[suffix]
            if key in slot and slot[key] != rel:
                kept, dropped = (rel, slot[key]) if prefer else (slot[key], rel)
                run.warnings.append(
                    f"{st.display(dropped)}: ignored, {st.display(kept)} holds the same file in the "
                    "iteration_NNNNNN/ layout (tinker 0.2+), which is read instead"
                )
            if prefer or key not in slot:
                slot[key] = rel

        for name in names:
            if name.startswith(".") or name.endswith(".tmp"):
                continue
            m = _FLAT_FILE_RE.match(name)
            if m:
                kind = "train" if m.group(1) else "eval"
                add(kind, m.group(2) or "", int(m.group(3)), m.group(4), name, False)
            elif name.startswith("eval_") and st.is_dir(name):
                # tinker 0.1.0 did not sanitize an evaluator's name (spec §0): one holding a
                # "/" wrote its reports into folders, eval_a/b_iteration_000010.html
                if st.is_link(name) or _is_site(st, name):
                    continue
                for rel in _nested_files(st, name, 8):
                    m = _FLAT_FILE_RE.match(rel)
                    if m and not m.group(1) and not posixpath.basename(rel).endswith(".tmp"):
                        add("eval", m.group(2) or "", int(m.group(3)), m.group(4), rel, False)
        for name in names:
            dm = _ITER_DIR_RE.match(name)
            if not dm or _is_site(st, name):
                continue
            n = int(dm.group(1))
            for fname in st.listdir(name):
                if fname.startswith(".") or fname.endswith(".tmp"):
                    continue
                fm = _DIR_FILE_RE.match(fname)
                if fm:
                    kind = "train" if fm.group(1) else "eval"
                    add(kind, fm.group(2) or "", n, fm.group(3), f"{name}/{fname}", True)

        run.eval_metric_prefix = self._match_prefixes(run, safe_labels)
        resumes = [s["resumed_at"] for s in run.segments]
        rollout_export = not (isinstance(run.config, dict) and run.config.get("rollout_json_export") is False)

        train: dict[int, IterationRef] = {}
        unfinished: list[tuple[IterationRef, bool]] = []  # (ref, logtree ends with an exception)
        unfinished_evals: list[IterationRef] = []  # the latest step's evaluator logtrees without summaries
        latest = max((n for _k, _l, n in found), default=None)
        for (kind, label, n), files in sorted(found.items()):
            ref = IterationRef(kind=kind, number=n, label=label if kind == "eval" else "", locator=dict(files))
            ref.has_texts = bool(files)
            in_folder = _ITER_DIR_RE.match(files.get("html", "").split("/", 1)[0]) is not None
            if "logtree" not in files and "summaries" not in files and n == latest and in_folder:
                # an HTML report alone in iteration_NNNNNN/ (0.2+) is one being written: tinker
                # writes it first, with a plain open(), then the logtree JSON (spec §1)
                del ref.locator["html"]
                ref.has_texts = False
                ref.status = "incomplete"
                ref.notes.append("only its HTML report so far: the run may still be writing this iteration")
            elif "logtree" not in files and "summaries" not in files:
                # tinker 0.1.0: the HTML report is the only record of the texts
                ref.notes.append(
                    "read from the logtree HTML (no logtree JSON or rollout summaries, as tinker-cookbook 0.1.0 "
                    "wrote): the HTML holds no tool calls, so tool results show as answering an unknown call"
                )
            prefix = "" if kind == "train" else run.eval_metric_prefix.get(label)
            self._fill_headline(run, ref, prefix)
            if "summaries" in files:
                # what the page shows: the episodes a metric counts include the groups
                # dropped before export (failed, or constant in stream and async modes)
                ref.rollouts = self._count_lines(files["summaries"]) or ref.rollouts
            if kind == "train":
                if "logtree" in files and "summaries" not in files and rollout_export:
                    unfinished.append((ref, self._tail_has_exception(files["logtree"])))
                elif "summaries" in files and "logtree" not in files:
                    ref.notes.append("no logtree (async mode or num_groups_to_log=0)")
                if resumes:
                    ref.segment = sum(1 for r in resumes if r <= n)
                at = run.timing.get(n)
                if at is not None:  # in the page's key too: its spans change, its page does
                    ref.locator[TIMING_AT] = f"{at[0]}:{at[1]}:{at[2]}"
                train[n] = ref
            else:
                # an evaluator that raised writes its partial logtree with the exception at
                # the end (spec §7.2 item 3) and no summaries; the run stopped there
                if "logtree" in files and "summaries" not in files:
                    if self._tail_has_exception(files["logtree"]):
                        ref.status = "crashed"
                        ref.notes.append("the logtree ends with an exception")
                    elif n == latest and rollout_export:
                        unfinished_evals.append(ref)
                run.evals.setdefault(label, []).append(ref)

        for step in run.metrics.steps:
            if step in train:
                continue
            ref = IterationRef(kind="train", number=step, has_texts=False)
            self._fill_headline(run, ref, "")
            if train_steps and step not in train_steps:
                ref.notes.append(NO_TRAINING_NOTE)
            if resumes:
                ref.segment = sum(1 for r in resumes if r <= step)
            train[step] = ref
        run.iterations = [train[n] for n in sorted(train)]
        last_with_files = max((r.number for r in run.iterations if r.locator), default=None)
        logged = set(run.metrics.steps)
        for ref in unfinished_evals:
            # as a train step's, the summaries come after the logtree; but only an evaluator that
            # writes them is waited for (one that logs a logtree alone, the fixture's "1", is not)
            if any("summaries" in (r.locator or {}) for r in run.evals.get(ref.label, [])):
                ref.status = "incomplete"
                ref.notes.append("no rollout summaries yet: the run may still be writing this iteration")
        for ref, exc in unfinished:
            if exc:
                ref.status = "crashed"
                ref.notes.append("the logtree ends with an exception")
            elif ref.number in logged:
                # rl/train.py: "all groups failed or filtered, skipping batch" writes no
                # summaries, yet logs the step's metrics and goes on (no crash, no live write)
                ref.status = "skipped"
                ref.notes.append(
                    "no rollout summaries, but the step's metrics were logged: every group failed or was "
                    "filtered out, and tinker skipped the batch"
                )
            elif ref.number == last_with_files:
                # a live run writes the logtree before the summaries
                ref.status = "incomplete"
                ref.notes.append("no rollout summaries yet: the run may still be writing this iteration")
            else:
                ref.status = "crashed"
                ref.notes.append("no rollout summaries: the iteration did not finish")

    @staticmethod
    def _safe_label(raw: str, known: dict[str, str], run: Run) -> str:
        """An evaluator label fit for output file names: tinker's rule, short, one per raw label.

        tinker sanitises labels itself, so this only changes hand-made or hostile file
        names (``<``, ``?``, ``#``, invalid UTF-8, names too long for ``_iteration_N_pK.html``).
        """
        safe = known.get(raw)
        if safe is not None:
            return safe
        safe = sanitize_label(raw) if raw else ""  # "eval__iteration_N": an empty label is safe as it is
        if len(safe) > 100:
            safe = safe[:90] + "_" + hashlib.sha1(raw.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        taken = set(known.values())
        base, k = safe, 2
        while safe in taken:
            safe = f"{base}_{k}"
            k += 1
        known[raw] = safe
        if safe != raw:
            shown = raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            run.warnings.append(f"evaluator file label {shown!r} is written as {safe!r}")
        return safe

    def _match_prefixes(self, run: Run, safe_labels: dict[str, str]) -> dict[str, str]:
        """Eval label (as in output file names) -> unsanitized metric-key prefix (spec §2, §12.4).

        ``safe_labels`` maps the label of each eval file name to its output label
        (``_safe_label``). A file's label is its metric prefix sanitized (0.2+), or the
        prefix itself (0.1.0 did not sanitize)."""
        candidates: dict[str, str] = {}
        for key in run.metrics.columns:
            i = key.find("/env/all/")
            if i <= 0:
                continue
            prefix = key[:i]
            for raw in (sanitize_label(prefix), prefix):
                label = safe_labels.get(raw)
                if label is None:
                    continue
                other = candidates.setdefault(label, prefix)
                if other != prefix:
                    msg = f"metric prefixes {other!r} and {prefix!r} both map to eval label {label!r}; using the first"
                    if msg not in run.warnings:
                        run.warnings.append(msg)
                break
        return candidates

    def _fill_headline(self, run: Run, ref: IterationRef, prefix: str | None) -> None:
        if prefix is None:
            return
        p = f"{prefix}/" if prefix else ""
        for key in HEADLINE:
            if f"{p}{key}" in run.metrics.columns:
                ref.headline[key] = run.metrics.get(ref.number, f"{p}{key}")
        ref.reward_mean = run.metrics.get(ref.number, f"{p}env/all/reward/total")
        if ref.reward_mean is None and not p:
            # recipes/rl_loop.py, the minimal loop, logs its batch's mean reward as "reward/total"
            ref.reward_mean = run.metrics.get(ref.number, RL_LOOP_REWARD)
        episodes = run.metrics.get(ref.number, f"{p}env/all/total_episodes")
        if episodes is not None and 0 <= episodes < 2**53:  # a count; 1e300 is none
            ref.rollouts = int(episodes)

    def _count_lines(self, rel: str) -> int:
        """The records of a JSONL file, as load reads them: a last line without its newline
        counts only if it parses (a torn line of a summaries file being written does not)."""
        n = 0
        last = b""
        try:
            with self.storage.open(rel) as f:
                for line in f:
                    if line.strip():
                        n += 1
                        last = line
        except InputError:
            return 0
        if last and not last.endswith(b"\n"):
            try:
                parse_line(last)
            except LineError:
                n -= 1
        return n

    def _tail_has_exception(self, rel: str) -> bool:
        """Cheap check that a logtree ends with a ``details.lt-exc`` block.

        The exception block is the last thing written, so it sits in the tail
        of the file; reading only the tail keeps the scan cheap.
        """
        try:
            size = self.storage.size(rel)
            with self.storage.open(rel) as f:
                f.seek(max(0, size - 262144))
                return b"lt-exc" in f.read()
        except (InputError, OSError):
            return False

    # ------------------------------------------------------------------ trace events
    def trace_records(self, warnings: list[str]) -> Iterator[dict[str, Any]] | None:
        """The events of ``trace_events.jsonl`` (Chrome trace format, one object a line), one
        at a time; None without the file (after ``scan``). Bad lines are skipped and said in
        ``warnings``, as any JSONL file's."""
        if not self._has_trace:
            return None
        return (rec for _, rec in self._iter_jsonl(TRACE_FILE, warnings, objects=True))

    # ------------------------------------------------------------------ logs.log
    log_file = LOG_FILE

    def log_records(self) -> Iterator[LogRecord] | None:
        """The records of ``logs.log`` (tinker-cookbook's Python logging, ``name:lineno
        [LEVEL] message``, appended at every start), one at a time; None without the file
        (after ``scan``). A name that is not a regular file raises InputError when read.
        A line that does not begin a record continues the one before it (a multi-line
        message, a traceback, a Rich table)."""
        return self._log_records() if self._has_log else None

    def _log_records(self) -> Iterator[LogRecord]:
        cur: LogRecord | None = None
        kept = 0  # characters the current record keeps
        with self.storage.open(LOG_FILE) as f:
            for no, raw, dropped in _bounded_lines(f, LOG_LINE_MAX):
                try:
                    text, replaced = raw.decode("utf-8"), False
                except UnicodeDecodeError:
                    text, replaced = raw.decode("utf-8", "replace"), True
                if no == 1:
                    text = text.removeprefix("\ufeff")  # a byte order mark is no part of a logger's name
                m = _LOG_HEAD.match(text)
                if m is not None or cur is None:
                    if m is None and not text.strip():
                        continue  # blank lines before the first record: nothing to show
                    if cur is not None:
                        yield cur
                    if m is None:
                        cur = LogRecord(line=no, level=None, source=None, lines=[text])
                    else:
                        cur = LogRecord(line=no, level=m[3], source=f"{m[1]}:{m[2]}", lines=[m[4]])
                    kept = len(cur.lines[0])
                    cur.cut, cur.replaced = dropped, replaced
                    continue
                cur.replaced = cur.replaced or replaced
                if kept + len(text) > LOG_RECORD_MAX:  # a record of endless lines: its start is kept
                    cur.cut += len(text) + dropped + 1
                    cur.dropped_lines += 1
                    kept = LOG_RECORD_MAX + 1  # and nothing after the first line left out (no hole)
                    continue
                cur.lines.append(text)
                kept += len(text) + 1
                cur.cut += dropped
        if cur is not None:
            yield cur

    # ------------------------------------------------------------------ load
    def logtree_bytes(self, ref: IterationRef) -> bytes | None:
        """The logtree JSON as written by tinker; for an iteration with only the HTML report
        (0.1.0), the logtree read back from it; None when there is neither."""
        loc = ref.locator or {}
        rel = loc.get("logtree")
        if rel in self._unreadable or loc.get("html") in self._unreadable:
            return None  # the views export one from the summaries
        if rel:
            fixed, self._fixed = self._fixed, None
            if fixed is not None and fixed[0] == rel:
                return fixed[1]
            return self.storage.read_bytes(rel)
        html_rel = loc.get("html")
        if not html_rel:
            return None
        cached = self._html_doc
        doc = cached[1] if cached is not None and cached[0] == html_rel else self._read_logtree_html(html_rel, [])
        self._html_doc = None
        try:
            return orjson.dumps(doc)
        except (TypeError, orjson.JSONEncodeError):  # the views export one from the groups instead
            return None

    def timing_spans(self, at: str, warnings: list[str]) -> list[dict[str, Any]] | None:
        """The spans of the timing_spans.jsonl line at ``at`` ("offset:length:crc32", a
        locator's ``TIMING_AT``); None, said in ``warnings``, when the file no longer holds
        that line."""
        display = self.storage.display(TIMING_FILE)
        try:
            offset, length, crc = (int(x) for x in at.split(":"))
            with self.storage.open(TIMING_FILE) as f:
                f.seek(offset)
                raw = f.read(length)
            rec = _loads(raw, [0]) if len(raw) == length and zlib.crc32(raw) == crc else None
        except (ValueError, RecursionError, InputError):
            rec = None
        spans = rec.get("spans") if isinstance(rec, dict) else None
        if not isinstance(spans, list):
            warnings.append(f"{display}: this step's line changed since the scan; its timing is not shown")
            return None
        return [sp for sp in spans if isinstance(sp, dict)]

    def load(self, ref: IterationRef) -> Iteration:
        """The texts of one iteration: logtree tree and groups."""
        loc: dict[str, str] = ref.locator or {}
        it = Iteration(ref=ref, groups=[])
        if loc.get(TIMING_AT):
            it.timing = self.timing_spans(loc[TIMING_AT], it.warnings)
        root: LogNode | None = None
        doc: dict[str, Any] | None = None
        rel = loc.get("logtree") or loc.get("html")
        if rel:
            try:
                doc = (
                    self._read_logtree(rel, it.warnings)
                    if loc.get("logtree")
                    else self._read_logtree_html(rel, it.warnings)
                )
            except InputError as exc:
                # one torn or empty logtree (a crash or a full disk while tinker wrote it)
                # must not cost the run its site: the page says so and shows the summaries
                self._unreadable.add(rel)
                it.warnings.append(f"{exc}; its page shows the rollout summaries only")
        if doc is not None and rel and loc.get("logtree"):
            root_obj = doc.get("root")
            if not isinstance(root_obj, dict) or not isinstance(root_obj.get("tag"), str):
                # spec §7.1: a document is its root node; without one there is nothing to
                # show or to export as tinker's (the views export one from the summaries)
                self._unreadable.add(rel)
                it.warnings.append(
                    f"{self.storage.display(rel)}: bad logtree JSON: no root node; its page shows the rollout summaries only"
                )
                doc = None
            elif self._replaced or any(not isinstance(doc.get(k), str) for k in ("title", "started_at", "path")):
                # the copy beside the page must be valid JSON and a §7.1 document: the text as
                # read (U+FFFD for invalid UTF-8), the header fields as strings
                fixed = {
                    **doc,
                    **{k: doc[k] if isinstance(doc.get(k), str) else "" for k in ("title", "started_at", "path")},
                }
                fixed["root"] = fixed.pop("root")  # last, as tinker writes it
                try:
                    self._fixed = (rel, orjson.dumps(fixed))
                except (TypeError, orjson.JSONEncodeError):  # past 255 levels or 64-bit integers
                    try:
                        self._fixed = (rel, json.dumps(fixed, ensure_ascii=False).encode("utf-8", "replace"))
                    except (ValueError, RecursionError):
                        self._fixed = None  # the file as it is
        if doc is not None:
            it.logtree = {k: v for k, v in doc.items() if k != "root"}
            for key in ("title", "started_at", "path"):  # always there, a string or None
                it.logtree[key] = doc[key] if isinstance(doc.get(key), str) else None
            root = lognode_from_json(doc.get("root"))
            it.logtree_root = root
            if ends_with_exception(root):
                ref.status = "crashed"
                if "the logtree ends with an exception" not in ref.notes:
                    ref.notes.append("the logtree ends with an exception")
        by_group: dict[int, list[Member]] = {}
        if loc.get("summaries"):
            by_group = self._read_summaries(loc["summaries"], it.warnings, ref)
        sections = [parse_group_section(s) for s in group_sections(root)] if root is not None else []
        it.groups = build_groups(
            by_group, sections, it.warnings, have_summaries=bool(loc.get("summaries")), any_order=self._stream
        )
        ref.groups = len(it.groups)
        if not ref.rollouts:
            ref.rollouts = sum(len(g.members) for g in it.groups)
        return it

    def _read_logtree(self, rel: str, warnings: list[str] | None = None) -> dict[str, Any]:
        raw = self.storage.read_bytes(rel)
        replaced = [0]
        try:
            doc = _loads(raw, replaced, deep=True)
        except (ValueError, RecursionError) as exc:
            msg = "logtree nested too deeply" if isinstance(exc, RecursionError) else f"bad logtree JSON: {exc}"
            raise InputError(msg, self.storage.display(rel) + getattr(exc, "where", "")) from exc
        if replaced[0] and warnings is not None:
            warnings.append(_utf8_note(self.storage.display(rel), replaced[0]))
        if not isinstance(doc, dict):
            raise InputError("bad logtree JSON: top level is not an object", self.storage.display(rel))
        self._replaced = bool(replaced[0])
        return doc

    def _read_logtree_html(self, rel: str, warnings: list[str]) -> dict[str, Any]:
        """A logtree HTML report (tinker 0.1.0) as the logtree JSON document it was rendered from."""
        raw = self.storage.read_bytes(rel)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            warnings.append(f"{self.storage.display(rel)}: invalid UTF-8 replaced by U+FFFD")
        try:
            doc = logtree_from_html(text)
        except (AssertionError, ValueError, RecursionError) as exc:  # html.parser's rare complaints
            raise InputError(f"unreadable logtree HTML: {exc}", self.storage.display(rel)) from exc
        self._html_doc = (rel, doc)  # logtree_bytes() exports it next, without parsing again
        return doc

    def _read_summaries(
        self, rel: str, warnings: list[str], ref: IterationRef | None = None
    ) -> dict[int, list[Member]]:
        by_group: dict[int, list[Member]] = {}
        said_version = said_other = False
        for lineno, rec in self._iter_jsonl(rel, warnings, objects=True):
            if ref is not None and not said_other:
                # the file is the step's and split's (spec §6): a line saying otherwise is
                # read as the file's, and said once
                it_n, split = rec.get("iteration"), rec.get("split")
                other_step = it_n is not None and _int(it_n) != ref.number
                other_split = isinstance(split, str) and (
                    split != "train" if ref.kind == "train" else not split.startswith("eval/")
                )
                if other_step or other_split:
                    said_other = True
                    warnings.append(
                        f"{self.storage.display(rel)}:{lineno}: iteration {brief(it_n)}, split {brief(split)} is not "
                        f"this file's (step {ref.number}, {'train' if ref.kind == 'train' else 'an evaluator'}); "
                        "read as this file's"
                    )
            v = rec.get("schema_version", 1)
            if not said_version and (isinstance(v, bool) or v not in SUMMARY_VERSIONS):
                said_version = True
                warnings.append(
                    f"{self.storage.display(rel)}:{lineno}: schema_version {brief(v)} (reads 1): the fields it "
                    "adds are shown as trajectory metadata, a conversation as the trajectory's"
                )
            gid = _int(rec.get("group_idx"))
            by_group.setdefault(gid if gid is not None else -1, []).append(member_from_summary(rec, lineno))
        return by_group


# ---------------------------------------------------------------- summaries
def member_from_summary(rec: dict[str, Any], fallback_index: int) -> Member:
    """One rollout-summary line as a :class:`Member`.

    Keys schema 1 does not have (the unreleased schema 3 of spec §0 adds ``conversation``,
    ``status``, ``error_type``, ``error_message``, ``stop_reason``, ``model_name``) are kept
    as the member's metadata, and a ``conversation`` list as its messages: nothing a file
    holds is dropped unseen."""
    steps: list[Step] = []
    raw_steps = rec.get("steps")
    for i, s in enumerate(raw_steps if isinstance(raw_steps, list) else []):
        if not isinstance(s, dict):
            continue
        idx = _int(s.get("step_idx"))
        metrics = s.get("metrics")
        logs = s.get("logs")
        logs = logs if isinstance(logs, dict) else {}
        unknown = [k for k in s if k not in _STEP_KEYS]
        if unknown:  # a later schema's step keys: shown (and searched) with the step's logs
            logs = {**{k: s[k] for k in unknown}, **logs}
        steps.append(
            Step(
                step_idx=idx if idx is not None else i,
                ob_len=_int(s.get("ob_len")),
                ac_len=_int(s.get("ac_len")),
                reward=_finite(s.get("reward")),
                episode_done=bool(s.get("episode_done")),
                metrics=metrics if isinstance(metrics, dict) else {},
                logs=logs,
            )
        )
    traj = _int(rec.get("traj_idx"))
    tags = rec.get("tags")
    tm = rec.get("trajectory_metrics")
    tm = tm if isinstance(tm, dict) else {}
    tokens = [s.ac_len for s in steps if s.ac_len is not None]
    m = Member(
        member=traj if traj is not None else fallback_index,
        reward=_finite(rec.get("total_reward")),
        final_reward=_finite(rec.get("final_reward")),
        tags=[text_of(t) for t in tags] if isinstance(tags, list) else [],
        sampling_step=_int(rec.get("sampling_client_step")),
        trajectory_metrics=tm,
        steps=steps,
        final_ob_len=_int(rec.get("final_ob_len")),
        tokens=sum(tokens) if tokens else None,
    )
    if not rec.keys() <= SUMMARY_KEYS:
        extra = {k: v for k, v in rec.items() if k not in SUMMARY_KEYS}
        conv = extra.pop("conversation", None)
        if isinstance(conv, list) and conv:
            m.messages = [message_from_json(x) for x in conv]
        elif conv is not None:
            extra["conversation"] = conv
        if extra:
            m.metadata = extra
    _derive_badges(m)
    return m


def _derive_badges(m: Member) -> None:
    """Chips and the truncated flag from step metrics (spec §6)."""
    badges: list[str] = []
    correct: float | None = None
    fmt: float | None = None
    for s in m.steps:
        for key, value in s.metrics.items():
            v = _finite(value)
            if v is None:
                continue
            if key in _TRUNCATION_KEYS and v >= 1:
                m.truncated = True
            if key == "parse_error" and v > 0:
                badges.append("parse_error")
            elif key.startswith("stop/") and v == 1 and key != "stop/completed":
                badges.append(key)
            elif key == "correct":
                correct = v
            elif key == "format":
                fmt = v
        if "tool_calls_dropped" in s.logs:
            badges.append("tool_calls_dropped")
    if correct is not None:
        badges.append("correct" if correct >= 0.5 else "incorrect")
    if fmt is not None and fmt < 0.5:
        badges.append("bad format")
    if m.trajectory_metrics and _finite(m.trajectory_metrics.get("zero_reward_on_limit")):
        badges.append("zero_reward_on_limit")
    m.badges = list(dict.fromkeys(badges))


# ------------------------------------------------------------------ logtree
def lognode_from_json(obj: Any) -> LogNode:
    """Convert a logtree JSON node (iteratively; depth capped at MAX_DEPTH)."""
    root = LogNode("div", {}, [])
    # (json node, target LogNode, depth, whether its parent is an exception block)
    stack: list[tuple[Any, LogNode, int, bool]] = [(obj, root, 0, False)]
    while stack:
        src, node, depth, in_exc = stack.pop()
        if not isinstance(src, dict):
            node.tag = "p"
            node.children = [text_of(src)] if src is not None else []
            continue
        tag = src.get("tag")
        node.tag = tag if isinstance(tag, str) and tag else "div"
        attrs = src.get("attrs")
        node.attrs = (
            {str(k): text_of(v) if isinstance(v, (list, dict)) else str(v) for k, v in attrs.items()}
            if isinstance(attrs, dict)
            else {}
        )
        children = src.get("children")
        children = children if isinstance(children, list) else []
        if "data" in src:
            node.data = src["data"]
        if isinstance(node.data, dict) and node.data.get("type") == "conversation":
            children = [c for c in children if not isinstance(c, str)]
        strings = [c for c in children if isinstance(c, str)]
        node.raw_html = any(_RAW_CHARS.search(s) for s in strings)
        exc_summary = in_exc and node.tag == "summary"
        if exc_summary:
            # logtree writes an exception block's heading ("Exception: KeyError: 'k'") as
            # it is, not escaped: text, and a quote in it does not make it markup
            node.raw_html = False
        if depth >= MAX_DEPTH and any(isinstance(c, dict) for c in children):
            node.children = [c if node.raw_html else html.unescape(c) for c in strings]
            node.children.append(LogNode("p", {"class": "lt-cut"}, [f"[nesting deeper than {MAX_DEPTH} levels cut]"]))
            continue
        out: list[LogNode | str] = []
        exc = node.tag == "details" and "lt-exc" in node.attrs.get("class", "").split()
        for c in children:
            if isinstance(c, str):
                verbatim = node.raw_html or (exc_summary and _RAW_CHARS.search(c) is not None)
                out.append(c if verbatim else html.unescape(c))
            elif c is None:
                continue
            else:
                child = LogNode("div", {}, [])
                out.append(child)
                stack.append((c, child, depth + 1, exc))
        node.children = out
    return root


def node_classes(node: LogNode) -> list[str]:
    """The class names of a node."""
    return node.attrs.get("class", "").split()


def node_text(node: LogNode | str, limit: int = 10000) -> str:
    """Concatenated text of a subtree (iterative, bounded)."""
    out: list[str] = []
    stack: list[LogNode | str] = [node]
    size = 0
    while stack and size < limit:
        n = stack.pop()
        if isinstance(n, str):
            out.append(n)
            size += len(n)
        else:
            stack.extend(reversed(n.children))
    return "".join(out)


def section_title(node: LogNode) -> str | None:
    """The heading text of a logtree ``section``, if it is one."""
    if node.tag != "section" or not node.children:
        return None
    first = node.children[0]
    if isinstance(first, LogNode) and re.fullmatch(r"h[1-6]", first.tag):
        return node_text(first).strip()
    return None


def section_body(node: LogNode) -> list[LogNode | str]:
    """Children of a section after its heading (flattening ``lt-section-body``)."""
    out: list[LogNode | str] = []
    for c in node.children[1:]:
        if isinstance(c, LogNode) and c.tag == "div" and "lt-section-body" in node_classes(c):
            out.extend(c.children)
        else:
            out.append(c)
    return out


def group_sections(root: LogNode | None) -> list[LogNode]:
    """The "Group Rollout" sections in document order (not nested in each other)."""
    out: list[LogNode] = []
    if root is None:
        return out
    stack: list[LogNode] = [root]
    while stack:
        n = stack.pop()
        if section_title(n) == "Group Rollout":
            out.append(n)
            continue
        stack.extend(reversed([c for c in n.children if isinstance(c, LogNode)]))
    return out


def ends_with_exception(root: LogNode | None) -> bool:
    """Whether the last element of the tree (at any depth) is ``details.lt-exc``."""
    n = root
    while n is not None:
        if n.tag == "details" and "lt-exc" in node_classes(n):
            return True
        nodes = [c for c in n.children if isinstance(c, LogNode)]
        n = nodes[-1] if nodes else None
    return False


def conversation_from_data(data: Any) -> list[Message] | None:
    """Messages of a ``{"type": "conversation"}`` data node, or None."""
    if not isinstance(data, dict) or data.get("type") != "conversation":
        return None
    msgs = data.get("messages")
    if not isinstance(msgs, list):
        return []
    return [message_from_json(m) for m in msgs]


def _s(v: Any) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else _dumps(v)


def _dumps(v: Any) -> str:
    try:
        return json.dumps(v, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # deeper than json.dumps goes: unsorted
        return text_of(v)


def message_from_json(m: Any) -> Message:
    """One conversation message (spec §7.1) as a :class:`Message`."""
    if not isinstance(m, dict):
        return Message(role="unknown", content=_s(m))
    role = m.get("role")
    msg = Message(role=role if isinstance(role, str) and role else "unknown")
    content = m.get("content")
    part_calls: list[Any] = []  # tool_call parts (renderers' ToolCallPart), told as the message's calls
    part_unparsed: list[Any] = []
    if isinstance(content, list):
        parts: list[Part] = []
        for p in content:
            if not isinstance(p, dict):
                parts.append(Part("text", _s(p)))
                continue
            ptype = p.get("type")
            ptype = ptype if isinstance(ptype, str) else "unknown"
            if ptype == "text":
                parts.append(Part("text", _s(p.get("text"))))
            elif ptype == "thinking":
                parts.append(Part("thinking", _s(p.get("thinking"))))
            elif ptype == "image":
                img = p.get("image")
                parts.append(Part("image", img if isinstance(img, str) else ""))
            elif ptype == "tool_call" and isinstance(p.get("tool_call"), dict):
                part_calls.append(p["tool_call"])
            elif ptype == "unparsed_tool_call":
                part_unparsed.append(p)
            else:
                parts.append(Part(ptype, _dumps({k: v for k, v in p.items() if k != "type"})))
        msg.parts = parts
    else:
        msg.content = _s(content)
    calls = m.get("tool_calls")
    tool_calls: list[ToolCall] = []
    calls = calls if isinstance(calls, list) else []
    # a call in both the message's tool_calls and a content part is one call (two equal
    # calls in tool_calls stay two: a model may call a tool twice alike)
    listed = {_dumps(tc) for tc in calls} if part_calls else set()
    for tc in [*calls, *(tc for tc in part_calls if _dumps(tc) not in listed)]:
        if not isinstance(tc, dict):
            continue
        fn = tc.get("function")
        fn = fn if isinstance(fn, dict) else {}
        args = fn.get("arguments")
        tid = tc.get("id")
        tool_calls.append(
            ToolCall(
                id=tid if isinstance(tid, str) else None,
                name=_s(fn.get("name")),
                arguments=args if isinstance(args, str) else _s(args),
            )
        )
    if tool_calls:
        msg.tool_calls = tool_calls
    unparsed = m.get("unparsed_tool_calls")
    unparsed = [u for u in (unparsed if isinstance(unparsed, list) else []) if isinstance(u, dict)]
    pairs = [(_s(u.get("raw_text")), _s(u.get("error"))) for u in unparsed]
    pairs += [p for p in ((_s(u.get("raw_text")), _s(u.get("error"))) for u in part_unparsed) if p not in pairs]
    if pairs:
        msg.unparsed_tool_calls = [UnparsedToolCall(raw_text=r, error=e) for r, e in pairs]
    tcid = m.get("tool_call_id")
    msg.tool_call_id = tcid if isinstance(tcid, str) else None
    name = m.get("name")
    msg.name = name if isinstance(name, str) else None
    trainable = m.get("trainable")
    msg.trainable = trainable if isinstance(trainable, bool) else None
    if not m.keys() <= _MESSAGE_KEYS:
        # a key a later renderer adds ("reasoning_content", say) is shown, not dropped:
        # a part of its own, named by the key, after the content
        parts = msg.parts if msg.parts is not None else ([Part("text", msg.content)] if msg.content else [])
        for k, v in m.items():
            if k not in _MESSAGE_KEYS and v is not None:
                parts.append(Part(_s(k) or "(empty key)", v if isinstance(v, str) else _dumps(v)))
        msg.parts, msg.content = parts, ""
    return msg


# the keys of a renderers.Message (spec §7.1) that message_from_json reads
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "unparsed_tool_calls", "tool_call_id", "name", "trainable"})


class GroupSection:
    """What one "Group Rollout" section holds."""

    def __init__(self) -> None:
        self.prompt: list[Message] | None = None
        self.conversations: list[list[Message]] = []
        self.members: list[Member] = []  # from "Trajectory {i} Episode"


def parse_group_section(sec: LogNode) -> GroupSection:
    """Conversations and trajectory details of one group section."""
    gs = GroupSection()
    # (node, title of the innermost enclosing section)
    stack: list[tuple[LogNode, str]] = [(c, "") for c in reversed(section_body(sec)) if isinstance(c, LogNode)]
    while stack:
        n, where = stack.pop()
        title = section_title(n)
        if title == "Trajectory Details":
            gs.members.extend(_members_from_details(n))
            continue
        conv = conversation_from_data(n.data)
        if conv is not None:
            if where == "Prompt" and gs.prompt is None:
                gs.prompt = conv
            elif where != "Prompt":
                gs.conversations.append(conv)
        inner = title if title is not None else where
        stack.extend((c, inner) for c in reversed(n.children) if isinstance(c, LogNode))
    return gs


def _kv_tables(nodes: list[LogNode | str]) -> Iterator[tuple[str, dict[str, str]]]:
    """(caption, key->value) for the two-column tables among ``nodes``."""
    caption = ""
    for n in nodes:
        if not isinstance(n, LogNode):
            continue
        if "lt-table-caption" in node_classes(n):
            caption = node_text(n).strip()
            continue
        if n.tag == "table":
            rows: dict[str, str] = {}
            for part in n.children:
                if isinstance(part, LogNode) and part.tag == "tbody":
                    for tr in part.children:
                        if isinstance(tr, LogNode):
                            cells = [node_text(td) for td in tr.children if isinstance(td, LogNode)]
                            if len(cells) == 2:
                                rows[cells[0]] = cells[1]
            yield caption, rows
        caption = ""


def _float(s: str | None) -> float | None:
    try:
        f = float(s) if s is not None else None
    except ValueError:
        return None
    return f if f is not None and math.isfinite(f) else None


def _members_from_details(details: LogNode) -> list[Member]:
    """Members rebuilt from "Trajectory {i} Episode" sections (no summaries)."""
    out: list[Member] = []
    for ep in section_body(details):
        if not isinstance(ep, LogNode):
            continue
        m = _TRAJ_RE.match(section_title(ep) or "")
        if not m:
            continue
        steps: list[Step] = []
        mem = Member(member=int(m.group(1)), steps=steps)
        body = section_body(ep)
        # "Episode totals" follows the turns inside "Episode Details"
        for sub in body:
            if isinstance(sub, LogNode) and section_title(sub) == "Episode Details":
                for turn in section_body(sub):
                    if isinstance(turn, LogNode):
                        tm = _TURN_RE.match(section_title(turn) or "")
                        if tm:
                            steps.append(_step_from_turn(int(tm.group(1)) - 1, turn))
                body = body + section_body(sub)
        for caption, rows in _kv_tables(body):
            if caption == "Episode totals":
                mem.reward = _float(rows.get("total_return"))
                mem.final_reward = _float(rows.get("final_group_reward"))
                fol = _float(rows.get("final_ob_len"))
                mem.final_ob_len = int(fol) if fol is not None else None
        if mem.steps:
            mem.steps[-1].episode_done = True
        tokens = [s.ac_len for s in steps if s.ac_len is not None]
        mem.tokens = sum(tokens) if tokens else None  # as from a summary: the sampled tokens
        _derive_badges(mem)
        out.append(mem)
    return out


def _step_from_turn(idx: int, turn: LogNode) -> Step:
    step = Step(step_idx=idx, ob_len=None, ac_len=None, reward=None, episode_done=False, metrics={}, logs={})
    body = section_body(turn)
    for caption, rows in _kv_tables(body):
        if caption == "Step stats":
            ob, ac = _float(rows.get("ob_len")), _float(rows.get("ac_len"))
            step.ob_len = int(ob) if ob is not None else None
            step.ac_len = int(ac) if ac is not None else None
            step.reward = _float(rows.get("step_reward"))
    for sub in body:
        if not isinstance(sub, LogNode):
            continue
        title = section_title(sub)
        if title == "Step Metrics":
            for _, rows in _kv_tables(section_body(sub)):
                for k, v in rows.items():
                    f = _float(v)
                    if f is not None:
                        step.metrics[k] = f
        elif title == "Diagnostics":
            for d in section_body(sub):
                if not isinstance(d, LogNode):
                    continue
                if d.tag == "p":
                    key, sep, value = node_text(d).partition(": ")
                    if sep:
                        step.logs[key] = value
                elif d.tag == "details":
                    kids = [c for c in d.children if isinstance(c, LogNode)]
                    if len(kids) >= 2:
                        step.logs[node_text(kids[0])] = node_text(kids[1])
    return step


# ------------------------------------------------------------------- groups
def _sort_members(members: list[Member]) -> list[Member]:
    return sorted(members, key=lambda m: (m.reward is None, -(m.reward or 0.0), m.member))


def _prompt_key(messages: list[Message]) -> str:
    text = "\x00".join(f"{m.role}\x01{m.plain_text()}" for m in messages)
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:12]


def _split_prompt(gs: GroupSection) -> tuple[list[Message] | None, list[list[Message]]]:
    """Prompt and responses; a shared non-assistant lead becomes the prompt."""
    convs = gs.conversations
    if gs.prompt is not None or not convs:
        return gs.prompt, convs
    leads = []
    for c in convs:
        k = next((i for i, m in enumerate(c) if m.role == "assistant"), len(c))
        leads.append(c[:k])
    first = leads[0]
    if first and all(lead == first for lead in leads):
        return first, [c[len(first) :] for c in convs]
    return None, convs


def _conv_key(conv: list[Message]) -> tuple[str, tuple[str, ...]]:
    """Final assistant text and every tool call, as an env's logs show them."""
    text = ""
    calls: list[str] = []
    for m in conv:
        if m.role != "assistant":
            continue
        text = m.content if m.parts is None else "".join(p.text for p in m.parts if p.type == "text")
        calls.extend(f"{c.name}({c.arguments})" for c in m.tool_calls)
    return text.strip(), tuple(calls)


def _member_key(m: Member) -> tuple[str, tuple[str, ...]] | None:
    """The same key from ``AgentToolMessageEnv`` step logs, if it logged them."""
    if not m.steps or not isinstance(m.steps[-1].logs.get("assistant_content"), str):
        return None
    calls: list[str] = []
    for s in m.steps:
        keys = sorted((int(k[10:]), k) for k in s.logs if re.fullmatch(r"tool_call_[0-9]+", k))
        calls.extend(str(s.logs[k]) for _, k in keys)
    return text_of(m.steps[-1].logs["assistant_content"]).strip(), tuple(calls)


def _attribute(members: list[Member], convs: list[list[Message]]) -> None:
    """Give members their conversation only where the match is certain."""
    members = [m for m in members if m.messages is None]  # a summary's own conversation stands
    if not convs or not members:
        return
    if len(members) == 1 and len(convs) == 1:
        members[0].messages = convs[0]
        return
    # each member takes a conversation of its own, even among equal ones: the group's page
    # shows the conversations no member took (by identity), and an equal copy given to a
    # second member was shown again there, as "not attributable"
    if len(convs) == len(members) and all(c == convs[0] for c in convs):
        for m, c in zip(members, convs, strict=True):
            m.messages = c
        return
    # match on the env's own logs; members whose key is shared by several
    # different conversations stay unattributed
    member_keys = {i: k for i, m in enumerate(members) if (k := _member_key(m)) is not None}
    conv_keys = [_conv_key(c) for c in convs]
    seen: set[Any] = set()
    for key in member_keys.values():
        if key in seen:
            continue
        seen.add(key)
        same_members = [j for j, k in member_keys.items() if k == key]
        same_convs = [c for c, k in zip(convs, conv_keys, strict=True) if k == key]
        if not same_convs or len(same_convs) != len(same_members):
            continue
        if all(c == same_convs[0] for c in same_convs):
            for j, c in zip(same_members, same_convs, strict=True):
                members[j].messages = c


_STEP_KEYS = frozenset(("step_idx", "ob_len", "ac_len", "reward", "episode_done", "metrics", "logs"))


def _trajectory_sig(m: Member, reward: bool = False) -> tuple[Any, ...]:
    """What a trajectory's rollout summary and its "Trajectory {i} Episode" section both say
    of it: the token counts of its turns and of the whole conversation; with ``reward``, its
    total reward as the section writes it (rollouts.py: ``f"{total_return:.3f}"``)."""
    sig = tuple((s.ob_len, s.ac_len) for s in m.steps), m.final_ob_len
    if reward:
        return (*sig, None if m.reward is None else f"{m.reward:.3f}")
    return sig


def _group_sig(members: list[Member], reward: bool = False) -> Counter[tuple[Any, ...]] | None:
    if not members or not any(m.steps for m in members):
        return None
    return Counter(_trajectory_sig(m, reward) for m in members)


_PAIR_WINDOW = 256


def _pair_sections(
    ids: list[int], by_group: dict[int, list[Member]], sections: list[GroupSection], any_order: bool = False
) -> list[int | None]:
    """The summary group (its place in ``ids``) of each section, None for a section no group
    matches.

    The sections are the first ``num_groups_to_log`` groups of the batch and the summaries
    the groups exported, in batch order: groups that failed, and in stream and async modes
    constant-reward groups, are dropped before export, so the k-th section is the k-th
    ``group_idx`` or one before it (spec §6, §7.2). A section goes to the first such group,
    after the last one paired, that has every trajectory it details (the token counts of
    "Step stats" and "Episode totals"), or whose trajectories it all details (a summaries
    file whose last line is torn); a section that none has is a group that was not
    exported. A section without trajectory details, where others have them, is a group
    that failed before grading (rollouts.do_group_rollout adds them after it): not exported,
    and no group's. Only when no section has details, or none matches, are they paired by
    order, as the spec says.

    ``any_order``: stream-minibatch mode, whose summaries come in the order the groups
    finished (rl/train.py fills its batch from the queue), not the order they started:
    a section goes to the nearest matching group not yet taken, on either side."""
    # rewards tell apart groups of the same token counts (a constant-reward group dropped in
    # stream mode beside one kept): compared where every detailed trajectory has one
    reward = all(m.reward is not None for s in sections for m in s.members if m.steps)
    group_sigs = [_group_sig(by_group[g], reward) for g in ids]
    sec_sigs = [_group_sig(s.members, reward) for s in sections]
    by_order: list[int | None] = [k if k < len(ids) else None for k in range(len(sections))]
    if all(sig is None for sig in sec_sigs) or all(sig is None for sig in group_sigs):
        return by_order
    out: list[int | None] = []
    taken: set[int] = set()
    cur = 0

    def fits(j: int, sig: Counter[tuple[Any, ...]]) -> bool:
        g = group_sigs[j]
        return j not in taken and g is not None and (sig <= g or g <= sig)

    for k, sig in enumerate(sec_sigs):
        if sig is None:
            out.append(None)
            continue
        # at most _PAIR_WINDOW groups dropped before a section: sections that match nothing
        # would otherwise cost a comparison with every group before them (quadratic)
        j = next((j for j in range(max(cur, k - _PAIR_WINDOW), min(k + 1, len(ids))) if fits(j, sig)), None)
        if j is None and any_order:
            near = sorted(
                range(max(0, k - _PAIR_WINDOW), min(len(ids), k + _PAIR_WINDOW + 1)), key=lambda i: abs(i - k)
            )
            j = next((i for i in near if fits(i, sig)), None)
        out.append(j)
        if j is not None:
            taken.add(j)
            cur = max(cur, j + 1)
    return out if any(j is not None for j in out) else by_order


def build_groups(
    by_group: dict[int, list[Member]],
    sections: list[GroupSection],
    warnings: list[str],
    have_summaries: bool,
    any_order: bool = False,
) -> list[Group]:
    """Join summary groups and logtree sections (spec §7.2; ``_pair_sections``)."""
    groups: list[Group] = []
    ids = sorted(by_group)
    # a summary line without a group_idx (key -1) is no group of the batch: no section is its
    indexed = [g for g in ids if g >= 0]
    pairs = _pair_sections(indexed, by_group, sections, any_order) if have_summaries else [None] * len(sections)
    section_of = {indexed[j]: k for k, j in enumerate(pairs) if j is not None}
    unpaired = [k for k, j in enumerate(pairs) if j is None]
    if have_summaries and unpaired:
        shown = ", ".join(str(k + 1) for k in unpaired[:10]) + (" …" if len(unpaired) > 10 else "")
        warnings.append(
            f"{len(unpaired)} of the logtree's {len(sections)} group sections (number {shown}) match no group of "
            "the rollout summaries (a group dropped before export: failed, or of constant reward in stream and "
            "async modes); they are shown without a group index, with the trajectories the logtree details"
        )
    for gid in ids:
        members = _sort_members(by_group[gid])
        k = section_of.get(gid)
        groups.append(_group(gid if gid >= 0 else None, members, sections[k] if k is not None else None))
    for k in unpaired:
        sec = sections[k]
        group = _group(None if have_summaries else k, _sort_members(sec.members), sec)
        if have_summaries:
            group.label = f"logged group {k + 1}, not exported"
        groups.append(group)
    for g in groups:
        _unique_members(g, warnings)
    return groups


def _unique_members(g: Group, warnings: list[str]) -> None:
    """Give a trajectory whose index repeats in its group (hand-made or merged summaries:
    tinker numbers a group's trajectories 0..n-1) the next free index, so that each card has
    its own anchor and link; the warning says which."""
    seen: set[int] = set()
    repeated: list[int] = []
    free = max((m.member for m in g.members), default=-1) + 1  # past every index the group has
    for m in g.members:
        if m.member in seen:
            repeated.append(m.member)
            m.member, free = free, free + 1
        seen.add(m.member)
    if repeated:
        shown = ", ".join(map(str, sorted(set(repeated))[:10]))
        where = f"group {g.id}" if g.id is not None else (g.label or "a group without an index")
        n = len(repeated)
        warnings.append(
            f"{where}: trajectory index {shown} repeats; {'its later trajectory is' if n == 1 else f'{n} later trajectories are'} "
            "shown under the next free index"
        )


def _group(gid: int | None, members: list[Member], sec: GroupSection | None) -> Group:
    if sec is None:
        return Group(id=gid, prompt=None, members=members, has_text=False)
    prompt_msgs, convs = _split_prompt(sec)
    prompt = Prompt(key=_prompt_key(prompt_msgs), messages=prompt_msgs) if prompt_msgs is not None else None
    _attribute(members, convs)
    return Group(id=gid, prompt=prompt, members=members, has_text=True, conversations=convs)
