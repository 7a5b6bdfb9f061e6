"""Reader for retrograd ``observe.jsonl`` exports (schema v1).

It follows the trainer's own lenient reader (``reader.rs``), section by
section of the spec:

* 1.3 only complete batches count: a torn last line and an unfinished last
  batch are left unread; a batch broken off by a newer one and unparseable
  lines are skipped and counted; blank lines are ignored; a line with another
  integer ``v`` is an error.
* 1.4 ``run`` records decide which segments are visible: a fresh run hides
  every earlier segment, ``resumed_from_update = K`` caps earlier segments at
  K (cumulatively); the highest segment wins an update number.  A segment
  whose ``run`` record never arrived is not active, as in ``reader.rs``.
* 2.7 selection and outcome records override the rollouts.

``scan`` reads the file once and keeps only byte spans and small records;
``load`` seeks back to one update's batches, so memory is bounded by the
largest update.  Duplicate records: the last one ingested wins.
"""

from __future__ import annotations

import hashlib
import io
import math
import multiprocessing
import os
import posixpath
import sys
import zlib
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields
from datetime import datetime
from itertools import islice
from typing import IO, Any

import orjson

from ..errors import InputError
from ..memory import MEMORY_BUDGET, ignore_interrupts, rss
from ..model import (
    DUE_NOTE,
    MAX_METRIC_NAMES,
    TOKENS_NONE,
    Group,
    GroupOutline,
    Iteration,
    IterationRef,
    Member,
    MemberFacts,
    Message,
    MetricTable,
    Outline,
    Prompt,
    Run,
    StepReward,
    ToolCall,
    room_for,
)
from ..storage import Storage, shown_text
from . import Progress
from .jsonl import (
    LineError,
    brief,
    finite_or_none,
    int_or_none,
    json_text,
    key_bytes,
    nan_to_null,
    parse_line,
    str_or_none,
    text_of,
)

FILE = "observe.jsonl"
HEADLINE = ("reward/mean", "reward/std", "batch/trained_fraction", "policy/kl")
# IterationRef's fields, in the order _finish gives them
_REF_FIELDS = (
    "kind", "number", "label", "segment", "status", "has_texts", "rollouts", "groups", "trained",
    "unknown", "reward_mean", "time", "headline", "notes", "locator",
)  # fmt: skip
if tuple(f.name for f in fields(IterationRef)) != _REF_FIELDS:  # pragma: no cover - a programming error
    raise ImportError("IterationRef's fields changed: update observe._REF_FIELDS and _finish")
_CHUNK = 8 << 20


def looks_like_observe(storage: Storage) -> bool:
    """Whether the directory holds an observe export."""
    return storage.is_file(FILE)


@dataclass(slots=True)
class _UpdateIndex:
    """What scan keeps of one (segment, update): spans and small facts."""

    segment: int
    update: int
    rollout_spans: list[tuple[int, int]] = field(default_factory=list)
    side_spans: list[tuple[int, int]] = field(default_factory=list)  # selection, outcome
    status: str | None = None  # from the update record
    time: str | None = None
    metrics: array | None = None  # by metric index; NaN = absent or null
    rollouts: int = 0
    # ids of the prompt keys its rollouts sampled (ObserveReader._key_names), in arrival order
    # with repeats until _finish sorts them: 4 bytes a rollout, where a set of the key strings
    # cost about 150 (a PPO export samples a prompt per rollout). Rollouts of a group go to
    # prompt_ids (the run's prompt index: "same prompt in updates"), rollouts without a
    # group (PPO) to flat_ids, which only page keys read: a member's prompt has no such links
    prompt_ids: array = field(default_factory=lambda: array("i"))
    flat_ids: array = field(default_factory=lambda: array("i"))
    tidy: bool = False  # prompt_ids and flat_ids sorted without repeats (by _finish, or restored so)
    seconds: float | None = None  # time as a timestamp (parsed once: 35 ms for 68,089 updates)


@dataclass(slots=True)
class _Segment:
    segment: int
    algorithm: str | None
    model: str | None
    every: int | None
    params: dict[str, Any]
    resumed_from_update: int | None
    time: str | None
    line: int


@dataclass(slots=True)
class _ScanState:
    """Where the scan stopped: enough to go on reading a file that grew."""

    consumed: int = 0  # offset after the last complete batch
    line_no: int = 0
    skipped_lines: int = 0
    broken_batches: int = 0
    utf8_replaced: int = 0
    bad_numbers: int = 0  # records skipped for an update number no writer makes
    first_skip: tuple[int, str] | None = None  # the first line skipped, and why (the warning names it)
    segments: list[_Segment] = field(default_factory=list)
    active: dict[int, float] = field(default_factory=dict)  # segment -> upto (inf = no limit)


def _first_skip(value: Any) -> tuple[int, str] | None:
    """A state's first skipped line: ``[line, why]`` or null (ValueError for anything else)."""
    if value is None:
        return None
    if isinstance(value, list) and len(value) == 2 and type(value[0]) is int and isinstance(value[1], str):
        return value[0], value[1]
    raise ValueError("first_skip is not [line, why]")


def _parse_time(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _header_ok(rec: dict[str, Any]) -> bool:
    """Whether the line reads as reader.rs's header: ``segment``, ``batch_id``,
    ``batch_index`` and ``batch_len`` unsigned integers (``v`` is tested apart). A batch_len
    of 0 reads, and then breaks the open batch and cannot start one; a line without a string
    ``type`` reads too and takes its place in its batch, whose ingest ignores it, as it
    ignores any type it does not know (spec §1.1, §1.3 rules 3 and 5)."""
    for k in ("segment", "batch_id", "batch_index", "batch_len"):
        v = rec.get(k)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            return False
    return rec["segment"] < 2**32  # a u32 (spec §1.1): a larger one does not deserialize


_UPDATE_KINDS = frozenset(("rollout", "selection", "outcome", "update"))
# line codes of the classifier
_BLANK, _UNREADABLE, _NOT_RECORD, _BAD_VERSION, _OK, _REPLACED, _TAIL, _BATCH = range(8)
# the kind of a run of consecutive rollouts of one update, summarized by a worker: an int,
# which no record's kind is (_slim keeps a str or None), so that no line can claim it (a
# "type" of "\u0000rollouts" was taken for one, and its missing fields raised IndexError)
_RUN = 0
# below this, forking workers costs more than it saves; a rebuild's scan of the 5% a run
# appended is above it (9.7 MiB of the 190 MiB benchmark: 0.116 s serial, 0.092 s with 2 workers)
_PARALLEL_MIN = 4 << 20
# a scan worker's RSS: every page of the main process at the fork (counted again in the
# worker's RSS) and up to 3 bytes for every byte of its range (its slim records until they
# are sent back; freed memory stays in the worker, see site.tune_malloc). Measured with 8 MiB
# ranges and the main process at 25-31 MiB: 27-30 MiB a worker on GRPO, up to 46-53 on
# updates of 55 MiB, whose batches the main process assembles line by line meanwhile
# (25 -> 57-78 MiB: _SCAN_MAIN_GROWTH). 8 workers summed 375-393 MiB there, the 6 that
# memory.MEMORY_BUDGET now allows 281-290 MiB.
_SCAN_BYTES_PER_RANGE_BYTE = 3
_SCAN_MAIN_GROWTH = 64 << 20
_MIN_RANGE = 2 << 20  # the least a scan worker is given
_RANGE_PIECE = 1 << 20  # a scan worker reads its range this much at a time


def _prompt_key(key: Any) -> str:
    """A rollout's prompt key as ``load`` looks it up: a missing or non-string ``prompt`` is
    the key "" (``reader.rs``: ``prompt.unwrap_or_default()``), so a prompt record of key ""
    is in the page's key too (a rebuild kept a page without the prompt a full build shows)."""
    return key if type(key) is str else ""


def _slim(rec: dict[str, Any]) -> tuple[Any, ...]:
    """What the scan keeps of a record: (type, segment, batch_id, batch_index, batch_len, ...).

    Rollouts add (update, prompt key, whether they have no group); prompts their key; update records the
    update number and the record; run records the record; selection and
    outcome records the update number.  Texts are never kept.
    """
    kind = rec.get("type")
    if type(kind) is not str:
        kind = None  # a record of no type: ingested as one of a type not known
    head = (kind, rec["segment"], rec["batch_id"], rec["batch_index"], rec["batch_len"])
    if kind == "rollout":
        return (*head, rec.get("update"), _prompt_key(rec.get("prompt")), rec.get("group") is None)
    if kind == "prompt":
        return (*head, rec.get("key"))
    if kind == "run":
        return (*head, rec)
    if kind == "update":
        metrics = rec.pop("metrics", None)
        return (*head, rec.get("update"), rec, _packed_metrics(metrics) if type(metrics) is dict else None)
    return (*head, rec.get("update"))


class _Metrics:
    """An update record's metrics as the scan keeps them: names, values (NaN for a value that
    is not a finite number) and the null or non-finite values ``check`` reports.

    A worker packs them so that the main process, which ingests every update in turn, takes
    a row in one copy when the names come in the same order as before (a dict of 500 floats
    was 48 KB to send and 500 steps of the main process's loop; 4 KB and none now)."""

    __slots__ = ("names", "values", "bad")

    def __init__(self, names: tuple[str, ...], values: array, bad: list[tuple[str, Any]]) -> None:
        self.names = names
        self.values = values
        self.bad = bad

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Metrics, (self.names, self.values, self.bad))

    def __eq__(self, other: object) -> bool:  # NaN for NaN: the same bytes
        return (
            isinstance(other, _Metrics)
            and self.names == other.names
            and self.values.tobytes() == other.values.tobytes()
            and repr(self.bad) == repr(other.bad)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"_Metrics({self.names!r}, {self.values!r}, {self.bad!r})"


def _packed_metrics(metrics: dict[str, Any]) -> _Metrics:
    values = list(metrics.values())
    if all(type(v) is float for v in values) and all(map(math.isfinite, values)):
        return _Metrics(tuple(metrics), array("d", values), [])
    bad = [(k, v) for k, v in metrics.items() if v is None or (type(v) is float and not math.isfinite(v))]
    row = array("d", [math.nan if (f := finite_or_none(v)) is None else f for v in values])
    return _Metrics(tuple(metrics), row, bad)


def _classify(raw: bytes) -> tuple[int, Any]:
    """(code, slim record or detail) of one line that is not blank."""
    try:
        rec, replaced = parse_line(raw, constants=False)
    except LineError as exc:
        return _UNREADABLE, str(exc)
    v = rec.get("v") if isinstance(rec, dict) else None
    # reader.rs reads ``v`` as a u32: any other value (a string, true, 1.0, -1, 2^32) makes a
    # line it skips and counts; an integer other than 1 is another schema, an error (§1.3)
    if type(v) is not int or not 0 <= v < 2**32:
        return _NOT_RECORD, None
    if not _header_ok(rec):
        return _NOT_RECORD, (v if v != 1 else None)
    if v != 1:
        return _BAD_VERSION, v
    return (_REPLACED if replaced else _OK), _slim(rec)


def lines_of(data: bytes) -> list[bytes]:
    """The lines of ``data``, each with its newline, the last one without when ``data`` does not
    end with one.

    ``bytes.split(b"\\n")`` tests every byte in a loop of its own (4,900 instructions for a line
    of 850 bytes, as much as a fifth of parsing it); ``readlines()`` finds them with memchr (900).
    """
    nl = data.find(b"\n")
    if nl < 0 or nl == len(data) - 1:
        # one line (a huge one, a text of 60 MiB, comes alone): itself, not a copy of it
        return [data]
    return io.BytesIO(data).readlines()


def _whole_lines(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The bytes of ``pieces`` again, cut after a newline: blocks of whole lines, then the bytes
    after the last newline, if any. A line longer than a piece is joined once, not copied
    again with every piece that adds to it."""
    held: list[bytes] = []
    for piece in pieces:
        cut = piece.rfind(b"\n") + 1
        if not cut:
            held.append(piece)
            continue
        if held:
            held.append(piece[:cut])
            block = b"".join(held)
            # the pieces go before the block does: a line of 60 MiB was held twice
            held = [piece[cut:]] if cut < len(piece) else []
            yield block
            del block
        else:
            block = piece if cut == len(piece) else piece[:cut]
            held = [piece[cut:]] if cut < len(piece) else []
            yield block
            del block
    if held:
        yield b"".join(held)


def _classify_lines(data: bytes, out: list[tuple[int, int, Any]]) -> bytes:
    """Classify the complete lines of ``data``; returns the bytes after the last newline."""
    lines = lines_of(data)
    rest = lines.pop() if lines and lines[-1][-1:] != b"\n" else b""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    append = out.append
    for raw in lines:  # each with its newline, which JSON takes as blank space
        # the common case inline (a well-formed record of the current schema); anything
        # else takes the careful path of _classify, which gives the same answer for it
        try:
            rec = loads(raw)
        except decode_error:
            rec = None
        if type(rec) is dict:
            kind = rec.get("type")
            seg = rec.get("segment")
            bid = rec.get("batch_id")
            bi = rec.get("batch_index")
            bl = rec.get("batch_len")
            v = rec.get("v")
            if (
                type(kind) is str
                and type(seg) is int
                and type(bid) is int
                and type(bi) is int
                and type(bl) is int
                and type(v) is int
                and v == 1
                and 0 <= seg < 4294967296
                and bid >= 0
                and bi >= 0
                and bl >= 1
            ):
                if kind == "rollout":
                    pk = rec.get("prompt")  # _prompt_key inlined: once a rollout
                    if type(pk) is not str:
                        pk = ""
                    append(
                        (len(raw) - 1, _OK, (kind, seg, bid, bi, bl, rec.get("update"), pk, rec.get("group") is None))
                    )
                else:
                    append((len(raw) - 1, _OK, _slim(rec)))
                continue
        raw = raw[:-1]
        if not raw.strip():
            append((len(raw), _BLANK, None))
        else:
            code, detail = _classify(raw)
            append((len(raw), code, detail))
    return rest


def _classify_stream(f: IO[bytes], offset: int) -> Iterator[tuple[int, int, Any]]:
    if offset:
        f.seek(offset)
    rest = b""
    for block in _whole_lines(iter(lambda: f.read(_CHUNK), b"")):
        out: list[tuple[int, int, Any]] = []
        rest = _classify_lines(block, out)  # b"" but after the last block
        yield from out
    if rest:
        yield len(rest), _TAIL, None


def _range_pieces(f: IO[bytes], start: int, b: int) -> Iterator[bytes]:
    """The bytes from ``start`` (where f is) to ``b``, _RANGE_PIECE at a time, then the rest of the
    line that crosses ``b``; they stop early where the file does (a torn tail)."""
    left = b - start
    last = b"\n"
    while left > 0:
        piece = f.read(min(_RANGE_PIECE, left))
        if not piece:
            return
        left -= len(piece)
        last = piece
        yield piece
    if last[-1:] != b"\n":
        yield from _rest_of_line(f)  # the line that crosses b


def _rest_of_line(f: IO[bytes]) -> Iterator[bytes]:
    """The bytes from f's position to the end of its line (its newline included, or the end
    of the file), a piece at a time: readline() held a line of 60 MiB whole."""
    while True:
        piece = f.read(_RANGE_PIECE)
        if not piece:
            return
        k = piece.find(b"\n")
        if k >= 0:
            yield piece[: k + 1]
            return
        yield piece


def _classify_range(task: tuple[str, int, int, int, int]) -> list[tuple[int, int, Any]]:
    """In a worker: classify the lines that start in [a, b) (the first one at or after a)."""
    path, a, b, base, size = task
    out: list[tuple[int, int, Any]] = []
    with open(path, "rb") as f:
        start = a
        if a > base:
            f.seek(a - 1)
            if f.read(1) != b"\n":  # a is inside a line: the previous range owns it
                start = a + sum(map(len, _rest_of_line(f)))
        f.seek(start)
        # read in pieces: a worker then holds a piece and the range's slim records, not
        # the range's bytes and their lines too (8 MiB or more each)
        rest = b""
        for block in _whole_lines(_range_pieces(f, start, b)):
            rest = _classify_lines(block, out)  # b"" but after the last block: a torn tail
    out = _summarize_batches(out)
    if rest:
        out.append((len(rest), _TAIL, None))
    return out


def _summarize_batches(lines: list[tuple[int, int, Any]]) -> list[tuple[int, int, Any]]:
    """Collapse every complete, well-formed batch of a range into one entry (in a worker).

    Such a batch is what the serial scan would assemble and ingest line by line, whatever
    came before it, so the main process can ingest the summary instead:
    ``(bytes with newlines, _BATCH, (lines, records))`` where ``records`` are the slim
    records with their offsets inside the batch, and each run of consecutive rollouts of
    one update is one record of kind ``_RUN`` carrying [count, prompt keys of rollouts with a
    group, prompt keys of rollouts without one], a key repeated by consecutive rollouts once.
    """
    out: list[tuple[int, int, Any]] = []
    i, n = 0, len(lines)
    while i < n:
        size, code, rec = lines[i]
        total = rec[4] if code == _OK else 0
        if code != _OK or rec[3] != 0 or total < 2 or i + total > n:
            out.append(lines[i])
            i += 1
            continue
        seg, bid = rec[1], rec[2]
        for j in range(1, total):
            c2 = lines[i + j]
            r2 = c2[2]
            if c2[1] != _OK or r2[3] != j or r2[1] != seg or r2[2] != bid or r2[4] != total:
                break
        else:
            records: list[tuple[tuple[Any, ...], int, int]] = []
            pos = 0
            # the open run of rollouts: its record, first byte and [count, keys, flat keys],
            # appended when it ends (a new tuple for every rollout, to move its end, was 4%
            # of a scan worker's instructions)
            run: tuple[Any, ...] | None = None
            run_start = 0
            keys: list[Any] = []
            update: Any = None
            for size2, _code, r in lines[i : i + total]:
                end = pos + size2 + 1
                if r[0] == "rollout":
                    u = r[5]
                    if run is not None and type(u) is type(update) and u == update:
                        keys[0] += 1
                        # a group's members come together: its key is sent once, not once
                        # per member (ingest drops a key equal to the one before it anyway)
                        same = keys[2 if r[7] else 1]
                        if not same or same[-1] != r[6]:
                            same.append(r[6])
                        pos = end
                        continue
                    if run is not None:
                        records.append((run, run_start, pos))
                    update = u
                    keys = [1, [], [r[6]]] if r[7] else [1, [r[6]], []]
                    run, run_start = (_RUN, r[1], r[2], r[3], r[4], u, keys), pos
                else:
                    if run is not None:
                        records.append((run, run_start, pos))
                        run = None
                    records.append((r, pos, end))
                pos = end
            if run is not None:
                records.append((run, run_start, pos))
            out.append((pos, _BATCH, (total, records)))
            i += total
            continue
        out.append(lines[i])
        i += 1
    return out


def scan_workers_for_memory(jobs: int, step: int) -> int:
    """At most ``jobs`` scan workers for ranges of ``step`` bytes, and no more than fit
    MEMORY_BUDGET with this process: 6 of 8 asked for, this process at 26 MiB and ranges of
    8 MiB."""
    main = rss()
    per_worker = main + _SCAN_BYTES_PER_RANGE_BYTE * step
    return max(1, min(jobs, (MEMORY_BUDGET - main - _SCAN_MAIN_GROWTH) // per_worker))


# a prompt's span packed in one integer below 2**63 (orjson writes it into page keys): lines
# up to 256 MiB at offsets below 32 GiB; any other span stays a tuple
_SPAN_BITS = 28
_SPAN_MASK = (1 << _SPAN_BITS) - 1
_START_LIMIT = 1 << (63 - _SPAN_BITS)


def _pack_span(start: int, end: int) -> int | tuple[int, int]:
    """A span of the file, as one integer when it fits (the index keeps one per prompt)."""
    n = end - start
    if 0 <= n <= _SPAN_MASK and 0 <= start < _START_LIMIT:
        return start << _SPAN_BITS | n
    return (start, end)


def _unpack_span(packed: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(packed, tuple):
        return packed
    start = packed >> _SPAN_BITS
    return start, start + (packed & _SPAN_MASK)


class _Spans:
    """One segment's prompt spans by key id (ids are dense: ``ObserveReader._key_names``).

    Packed spans sit in an array, 8 bytes an entry (-1: none); a dict held a table slot and
    an int object for each, 15 MiB for 196,000 PPO prompts in the main process, counted
    again by the render worker forked from it. A span that does not pack (a tuple) is kept
    in a dict beside it."""

    __slots__ = ("packed", "other")

    def __init__(self) -> None:
        self.packed = array("q")
        self.other: dict[int, tuple[int, int]] = {}

    def __setitem__(self, i: int, span: int | tuple[int, int]) -> None:
        packed = self.packed
        if type(span) is int:
            if i >= len(packed):
                packed.frombytes(b"\xff" * (8 * (i + 1 - len(packed))))  # -1s
            packed[i] = span
            if self.other:
                self.other.pop(i, None)
        else:
            self.other[i] = span  # type: ignore[assignment]  # a tuple: mypy keeps the union
            if i < len(packed):
                packed[i] = -1

    def get(self, i: int, default: Any = None) -> int | tuple[int, int] | Any:
        """The span of key id ``i``, as _pack_span gave it."""
        packed = self.packed
        if i < len(packed):
            v = packed[i]
            if v >= 0:
                return v
        return self.other.get(i, default)

    def items(self) -> Iterator[tuple[int, int | tuple[int, int]]]:
        """(key id, span), packed spans in id order, then the others."""
        for i, v in enumerate(self.packed):
            if v >= 0:
                yield i, v
        yield from self.other.items()


_NO_SPANS = _Spans()  # a segment without prompt records: read, never written


class ObserveReader:
    """Reads one ``observe.jsonl`` (see the module docstring)."""

    def __init__(self, storage: Storage, file: str = FILE) -> None:
        self.storage = storage
        self.file = file
        self.path = self.storage.display(self.file)
        self._updates: dict[tuple[int, int], _UpdateIndex] = {}
        # segment -> its prompt spans by key id (_Spans: packed, 8 bytes a prompt): every render
        # worker forked from this process counts these pages again
        self._prompts: dict[int, _Spans] = {}
        # every prompt key met, once: a run's index must not keep a string per rollout
        self._key_ids: dict[str, int] = {}
        self._key_names: list[str] = []
        self._metric_index: dict[str, int] = {}
        self._crc_at: tuple[int, int] | None = None  # (end, CRC-32 of the bytes before it): _fingerprint
        self._left_out = MetricTable()  # counts the values of names past MAX_METRIC_NAMES
        # the last update's metric names, their indices, those left out, and whether they
        # are the index's first names in order (_metric_row)
        self._last_names: tuple[tuple[str, ...], array, list[str], bool] | None = None
        self._fh: IO[bytes] | None = None
        # load(): the prompt records met in the update's rollout batches, by start offset
        self._batch_prompts: dict[int, Prompt] = {}
        self.utf8_replaced = 0
        self._changed = False  # load() met bytes other than those scanned
        # set to a list by ``reportgen check``: (line, kind, message) of every problem scan() meets
        self.notes: list[tuple[int, str, str]] | None = None
        self._st = _ScanState()
        self.resumed_scan = False

    def _note_broken(self, line: int, key: tuple[int, int, int] | None, got: int, by: int) -> None:
        if self.notes is not None and key is not None:
            self._note(
                line,
                "broken batch",
                f"batch {key[1]} of segment {key[0]}: {got} of {key[2]} lines, broken off by line {by}",
            )

    def _note(self, line: int, kind: str, message: str) -> None:
        if self.notes is not None and len(self.notes) < 100_000:
            self.notes.append((line, kind, message))

    # ------------------------------------------------------------------ scan
    def scan(self, jobs: int = 1, progress: Progress | None = None) -> Run:
        """Index the file and build the run (no texts).

        With ``jobs > 1`` and a large local file, the lines are parsed by
        forked worker processes (``_classify_range``) and the batches are
        assembled here, in file order, exactly as in a serial scan.
        ``progress(done, total, "bytes")`` hears of the bytes read since the
        last build's offset, about every 1% of them.
        """
        run = Run(format="observe", source=self.storage.display_root, title="")
        if not self.storage.is_file(self.file):
            # an empty export, not an error (reader.rs)
            run.title = _title_for(self.storage)
            run.warnings.append(f"{self.path}: no observe.jsonl here; the export is empty.")
            return run
        st = self._st
        if not st.consumed:
            self._refuse_compressed()
        segments = st.segments
        active = st.active
        # (slim record, start, end) of the batch being assembled, each run of consecutive
        # rollouts of one update as one record of kind _RUN, as a scan worker sends a batch it
        # holds whole (_summarize_batches): a batch of 400,000 rollouts (one update of 200 MiB)
        # held 160 MiB of line records here until its last line; ``open_n`` counts its lines
        open_batch: list[Any] = []
        open_n = 0
        # batch indices of the open batch's lines that come after a line of no record (blank,
        # unreadable): a note's line is then the batch's first line + index + gaps before it
        open_gaps: list[int] = []
        open_key: tuple[int, int, int] | None = None
        batch_line = 0
        # counters since the last committed offset: lines after it are read again next time
        line_no = st.line_no
        skipped_lines = st.skipped_lines
        bad_numbers = st.bad_numbers
        broken_batches = st.broken_batches
        utf8 = st.utf8_replaced
        pending_tail = 0
        first_skip = st.first_skip  # the first line skipped, and why: kept in the state

        def skip(line: int, why: str) -> None:
            nonlocal skipped_lines, first_skip
            skipped_lines += 1
            first_skip = first_skip or (line, why)
            self._note(line, "unreadable line", why)

        def bad_number(line: int, value: Any, records: int) -> None:
            nonlocal bad_numbers
            bad_numbers += records
            if self.notes is not None:  # a note a record: a run's rollouts are consecutive lines
                said = f"update {brief(value)}: not an integer from 0 to 2^53; skipped"
                for k in range(records):
                    self._note(line + k, "bad update number", said)

        def put(rec: tuple[Any, ...], start: int, end: int) -> None:
            """Add a line to the open batch (a rollout to the run of its update before it)."""
            nonlocal open_n
            open_n += 1
            if rec[0] == "rollout":
                if open_batch:
                    last = open_batch[-1]
                    run = last[0]
                    u = rec[5]
                    # the next line, too: a blank line inside a batch ends a run, as it ends
                    # a worker's summary (which takes consecutive records only)
                    if run[0] == _RUN and type(u) is type(run[5]) and u == run[5] and last[3] == line_no - 1:
                        last[3] = line_no
                        keys = run[6]
                        keys[0] += 1
                        # a group's members come together: its key once (as _summarize_batches)
                        same = keys[2 if rec[7] else 1]
                        if not same or same[-1] != rec[6]:
                            same.append(rec[6])
                        last[2] = end
                        return
                keys = [1, [], [rec[6]]] if rec[7] else [1, [rec[6]], []]
                open_batch.append([(_RUN, rec[1], rec[2], rec[3], rec[4], rec[5], keys), start, end, line_no])
            else:
                open_batch.append((rec, start, end))

        def ingest(batch: list[tuple[tuple[Any, ...], int, int]], bline: int, gaps: list[int] | None = None) -> None:
            start = batch[0][1]
            end = batch[-1][2]

            def line_of(index: int) -> int:
                return bline + index + (bisect_right(gaps, index) if gaps else 0)

            last: tuple[Any, _UpdateIndex] | None = None  # (update number, index) of the previous rollout
            key_ids = self._key_ids
            key_names = self._key_names

            def key_id(key: str) -> int:
                i = key_ids.get(key)
                if i is None:
                    i = key_ids[key] = len(key_names)
                    key_names.append(key)
                return i

            def add_key(u: _UpdateIndex, pk: str, flat: bool) -> None:
                i = key_id(pk)
                ids = u.flat_ids if flat else u.prompt_ids
                if not ids or ids[-1] != i:  # a group's members come together
                    ids.append(i)
                    u.tidy = False

            for rec, s, e in batch:
                kind, seg = rec[0], rec[1]
                if kind == "rollout" and last is not None and rec[5] == last[0] and type(rec[5]) is int:
                    same = last[1]  # the same update as the previous rollout of this batch
                    same.rollouts += 1
                    pk = rec[6]
                    if type(pk) is str:
                        add_key(same, pk, rec[7])
                    continue
                if kind == _RUN:
                    n = int_or_none(rec[5])
                    if n is None or not 0 <= n < 2**53:
                        bad_number(line_of(rec[3]), rec[5], rec[6][0])
                        continue
                    found = self._updates.get((seg, n))
                    if found is None:
                        found = self._updates[(seg, n)] = _UpdateIndex(seg, n)
                    if not found.rollout_spans or found.rollout_spans[-1] != (start, end):
                        found.rollout_spans.append((start, end))
                    found.rollouts += rec[6][0]
                    for flat in (False, True):
                        for pk in rec[6][2 if flat else 1]:
                            if type(pk) is str:
                                add_key(found, pk, flat)
                    last = None
                    continue
                if kind == "run":
                    full = rec[5]
                    resumed = int_or_none(full.get("resumed_from_update"))
                    every = int_or_none(full.get("every"))
                    params = full.get("params")
                    segments.append(
                        _Segment(
                            seg,
                            str_or_none(full.get("algorithm")),
                            str_or_none(full.get("model")),
                            max(every, 1) if every is not None else None,
                            # NaN as null, as the trainer writes it (spec §1), and as the
                            # state file keeps it: a rebuild shows what a full build does
                            nan_to_null(params) if isinstance(params, dict) else {},
                            resumed,
                            str_or_none(full.get("time")),
                            bline,
                        )
                    )
                    if resumed is None:
                        active.clear()
                    else:
                        for k in active:
                            active[k] = min(active[k], resumed)
                    active[seg] = math.inf
                elif kind == "prompt":
                    key = rec[5]
                    if isinstance(key, str):
                        spans = self._prompts.get(seg)
                        if spans is None:
                            spans = self._prompts[seg] = _Spans()
                        spans[key_id(key)] = _pack_span(s, e)
                elif kind in _UPDATE_KINDS:
                    n = int_or_none(rec[5])
                    if n is None or not 0 <= n < 2**53:  # an update number no writer makes
                        bad_number(line_of(rec[3]), rec[5], 1)
                        continue
                    found = self._updates.get((seg, n))
                    if found is None:
                        found = self._updates[(seg, n)] = _UpdateIndex(seg, n)
                    u = found
                    if kind == "rollout":
                        last = (n, u)
                        if not u.rollout_spans or u.rollout_spans[-1] != (start, end):
                            u.rollout_spans.append((start, end))
                        u.rollouts += 1
                        pk = rec[6]
                        if isinstance(pk, str):
                            add_key(u, pk, rec[7])
                    elif kind == "update":
                        full, packed = rec[6], rec[7]
                        if self.notes is not None and packed is not None:
                            for name, value in packed.bad:  # its line: the update's batch_index
                                self._note(
                                    line_of(rec[3]),
                                    "non-finite metric",
                                    f"{name} = {'null' if value is None else value}",
                                )
                        status = full.get("status")
                        u.status = status if isinstance(status, str) else "completed"
                        u.time = str_or_none(full.get("time"))
                        u.seconds = _parse_time(u.time)
                        u.metrics = self._metric_row(packed)
                    else:
                        u.side_spans.append((s, e))

        # bytes to read, for ``progress``: reported at the end of a batch, about every 1%
        first = st.consumed
        to_read = 0
        if progress is not None:
            try:
                to_read = max(0, self.storage.size(self.file) - first)
            except (OSError, InputError):
                progress = None
        step = max(1 << 20, to_read // 100)
        next_report = first + step

        def commit(offset: int) -> None:
            nonlocal next_report
            st.consumed = offset
            if progress is not None and offset >= next_report:
                progress(min(offset - first, to_read), to_read, "bytes")
                next_report = offset + step
            st.line_no, st.skipped_lines, st.broken_batches, st.utf8_replaced, st.bad_numbers = (
                line_no,
                skipped_lines,
                broken_batches,
                utf8,
                bad_numbers,
            )
            st.first_skip = first_skip

        try:
            offset = st.consumed
            for size, code, rec in self._classified(offset, jobs):
                if (
                    code == _OK
                    and open_batch
                    and rec[3] == open_n
                    and rec[4] != rec[3] + 1
                    and open_key == (rec[1], rec[2], rec[4])
                ):
                    # the common case first: the next line of the open batch, not its last
                    line_no += 1
                    start = offset
                    offset += size + 1
                    put(rec, start, offset)
                    continue
                if code == _TAIL:
                    pending_tail = size
                    break
                if code == _BATCH:
                    # a complete batch a worker summarized: what the lines below would do with it
                    total, records = rec
                    if open_batch:
                        broken_batches += 1
                        self._note_broken(batch_line, open_key, open_n, line_no + 1)
                        open_batch, open_n, open_gaps = [], 0, []
                    batch_line = line_no + 1
                    line_no += total
                    ingest([(r, offset + a, offset + b) for r, a, b in records], batch_line)
                    offset += size
                    commit(offset)
                    continue
                line_no += 1
                start = offset
                offset += size + 1
                if code == _BLANK:
                    if open_batch:
                        open_gaps.append(open_n)
                    else:
                        commit(offset)
                    continue
                if code == _UNREADABLE:
                    skip(line_no, f"not JSON ({rec})")
                    if open_batch:
                        open_gaps.append(open_n)
                    continue
                if code == _NOT_RECORD:
                    if rec is not None:  # another integer v
                        raise InputError(f"schema version v={rec}; this reportgen reads v=1 only", self.path, line_no)
                    skip(line_no, "not a record: v, segment, batch_id, batch_index or batch_len missing or wrong")
                    if open_batch:
                        open_gaps.append(open_n)
                    continue
                if code == _BAD_VERSION:
                    raise InputError(
                        f"schema version v={brief(rec)}; this reportgen reads v=1 only", self.path, line_no
                    )
                if code == _REPLACED:
                    utf8 += 1
                    self._note(line_no, "invalid UTF-8", "replaced by U+FFFD")
                key = (rec[1], rec[2], rec[4])
                index = rec[3]
                if open_batch and key == open_key and index == open_n:
                    put(rec, start, offset)
                else:
                    if open_batch:
                        broken_batches += 1
                        self._note_broken(batch_line, open_key, open_n, line_no)
                        open_batch, open_n, open_gaps = [], 0, []
                    if index != 0:
                        skip(line_no, f"stray line: batch_index {index} of batch {rec[2]} outside its batch")
                        continue
                    if rec[4] < 1:
                        skip(line_no, "batch_len 0: a line that starts no batch")
                        continue
                    open_key = key
                    open_batch, open_n, open_gaps = [], 0, []
                    put(rec, start, offset)
                    batch_line = line_no
                if open_n == rec[4]:
                    # the runs as (record, start, end), as ingest takes every record
                    ingest([(r[0], r[1], r[2]) if type(r) is list else r for r in open_batch], batch_line, open_gaps)
                    open_batch, open_n, open_gaps = [], 0, []
                    commit(offset)
        except OSError as exc:
            raise InputError(f"cannot read: {exc}", self.path) from exc
        consumed = st.consumed
        self.utf8_replaced = utf8
        if first_skip is not None and not (segments or self._updates or self._prompts or open_batch or broken_batches):
            # lines, and not one record among them: another file (a tinker metrics.jsonl,
            # a log) rather than an export with bad lines; an empty site would say nothing
            raise InputError(
                f"not an observe export: none of its {line_no:,} line(s) is an observe record ({first_skip[1]})",
                self.path,
                first_skip[0],
            )

        self._finish(run, segments, active, consumed)
        if skipped_lines:
            # where to look (`reportgen check` lists every one): the first this scan met
            where = f" The first: line {first_skip[0]}, {first_skip[1]}." if first_skip is not None else ""
            run.warnings.append(f"{self.path}: {skipped_lines} unreadable or stray line(s) were skipped.{where}")
        if st.bad_numbers:
            run.warnings.append(
                f"{self.path}: {st.bad_numbers} record(s) with an update number no writer makes (not an integer "
                "from 0 to 2^53) were skipped."
            )
        if broken_batches:
            run.warnings.append(f"{self.path}: {broken_batches} batch(es) broken off by a newer one were skipped.")
        if open_batch:
            n_open = open_batch[0][0][4]
            self._note(
                batch_line,
                "unfinished batch",
                f"the last batch has {open_n} of {n_open} lines (a live or crashed run)",
            )
            run.warnings.append(
                f"{self.path}: the last batch is unfinished ({open_n} of {n_open}"
                " lines): left unread (a live or crashed run)."
            )
        if pending_tail:
            self._note(line_no + 1, "torn tail", f"the last line has no newline ({pending_tail} bytes left unread)")
            run.warnings.append(f"{self.path}: the last line is incomplete ({pending_tail} bytes): left unread.")
        if self.utf8_replaced:
            run.warnings.append(f"{self.path}: {self.utf8_replaced} line(s) held invalid UTF-8 (replaced by U+FFFD).")
        run.info["bytes_read"] = consumed
        run.info["lines"] = line_no
        return run

    def _refuse_compressed(self) -> None:
        """A compressed export would read as thousands of unreadable lines and an empty site:
        say what it is instead."""
        try:
            with self.storage.open(self.file) as f:
                head = f.read(6)
        except OSError as exc:
            raise InputError(f"cannot read: {exc}", self.path) from exc
        for magic, kind, tool, _suffix in COMPRESSED:
            if head.startswith(magic):
                raise InputError(
                    f"a {kind} file, not JSON lines: reportgen reads the export uncompressed ({tool} it first)",
                    self.path,
                )

    def _classified(self, offset: int, jobs: int) -> Iterator[tuple[int, int, Any]]:
        """(bytes, code, slim record or detail) of every line from ``offset``, in file order."""
        size = None
        if jobs > 1 and not self.storage.remote and "fork" in multiprocessing.get_all_start_methods():
            try:
                size = self.storage.size(self.file)
            except (OSError, InputError):
                size = None
        path = self.storage.local_path(self.file) if size is not None else None
        if size is None or path is None or size - offset < _PARALLEL_MIN:
            with self.storage.open(self.file) as f:
                yield from _classify_stream(f, offset)
            return
        left = size - offset
        # ranges of 8 MiB (fewer batches cut at their ends, which this process assembles line by
        # line), or one per worker for a rebuild's few MiB, or more for a file too large for 8 MiB
        step = max(_MIN_RANGE, min(_CHUNK, -(-left // jobs)), -(-left // (jobs * 8)))
        bounds = [(a, min(a + step, size)) for a in range(offset, size, step)]
        workers = min(len(bounds), scan_workers_for_memory(jobs, step))
        if workers < 2:
            # one worker reads no faster than this process and counts its pages again: a
            # rebuild's main process holding the index of 68,089 updates (209 MiB) forked
            # one for the 9.5 MiB appended and summed 418 MiB
            with self.storage.open(self.file) as f:
                yield from _classify_stream(f, offset)
            return
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=ignore_interrupts) as pool:
            try:
                # a range or so ahead of the workers, not all at once: this process ingests
                # more slowly than they classify when updates carry hundreds of metrics, and
                # pool.map() had their results pile up here (29 MiB a range of such updates:
                # a build of 16,780 updates of 500 metrics held 300 MiB more at some runs)
                todo = iter([(path, a, b, offset, size) for a, b in bounds])
                ahead = deque(pool.submit(_classify_range, t) for t in islice(todo, workers + 1))
                while ahead:
                    part = ahead.popleft().result()
                    nxt = next(todo, None)
                    if nxt is not None:
                        ahead.append(pool.submit(_classify_range, nxt))
                    yield from part
                    del part
            except BaseException:  # Ctrl-C, an error: the ranges not begun are not read
                pool.shutdown(wait=True, cancel_futures=True)
                raise

    # ----------------------------------------------------------- incremental
    # ----------------------------------------------------------- incremental
    def _fingerprint(self, end: int) -> list[str]:
        """Hashes of the file's head and of the bytes just before ``end``, and the CRC-32 of
        every byte before ``end``: an edit in the middle that keeps the file's length (a
        redacted key, ``sed -i``) must not leave its pages stale. The CRC reads the whole
        prefix, 0.03-0.04 s for 190 MiB in the page cache (1% of the full build); a rebuild
        continues the CRC it checked instead of reading the prefix a second time. Not for a
        remote export (s3://, gs://): a rebuild would download the whole file again."""
        with self.storage.open(self.file) as f:
            head = f.read(min(end, 65536))
            f.seek(max(0, end - 65536))
            tail = f.read(end - max(0, end - 65536))
            hashes = [hashlib.sha256(head).hexdigest(), hashlib.sha256(tail).hexdigest()]
            if self.storage.remote:
                return hashes
            start, crc = self._crc_at if self._crc_at is not None and self._crc_at[0] <= end else (0, 0)
            f.seek(start)
            at = start
            while at < end:
                piece = f.read(min(8 << 20, end - at))
                if not piece:
                    break
                crc = zlib.crc32(piece, crc)
                at += len(piece)
            self._crc_at = (at, crc)
        return [*hashes, f"{crc:08x}"]

    def state(self) -> dict[str, Any]:
        """The scan's index as plain JSON data, to go on reading next time. The updates'
        metric rows, as large as the run's metric table, are not in it: ``metric_rows()``."""
        st = self._st
        names = list(self._metric_index)
        return {
            "file": self.file,
            "fingerprint": self._fingerprint(st.consumed) if st.consumed else None,
            "scan": {
                "consumed": st.consumed,
                "line_no": st.line_no,
                "skipped_lines": st.skipped_lines,
                "first_skip": None if st.first_skip is None else list(st.first_skip),
                "bad_numbers": st.bad_numbers,
                "broken_batches": st.broken_batches,
                "utf8_replaced": st.utf8_replaced,
                # the run record's params as JSON text, read back by parse_line: any depth
                # (orjson writes 255 levels, the stdlib parser reads 20,000) and the values
                # exactly as a full build reads them
                "segments": [
                    [
                        g.segment,
                        g.algorithm,
                        g.model,
                        g.every,
                        json_text(g.params),
                        g.resumed_from_update,
                        g.time,
                        g.line,
                    ]
                    for g in st.segments
                ],
                "active": [[k, None if v == math.inf else v] for k, v in st.active.items()],
            },
            "metric_names": names,
            "metrics_left_out": [self._left_out.left_out, self._left_out.left_out_names],
            "prompt_keys": self._key_names,
            "prompts": [[seg, i, *_unpack_span(v)] for seg, spans in self._prompts.items() for i, v in spans.items()],
            "updates": self._update_columns(),
        }

    def _update_columns(self) -> dict[str, list[Any]]:
        """The updates as columns, their spans and prompt key ids only where an update has
        some: most updates of a long run have none. As a list of ten values an update, they
        took 23 ms of a rebuild of 19,370 updates to parse; the whole state now takes 10."""
        ups = list(self._updates.values())
        spans = [[j, u.rollout_spans, u.side_spans] for j, u in enumerate(ups) if u.rollout_spans or u.side_spans]
        keys = [
            [
                j,
                u.prompt_ids.tolist() if u.tidy else sorted(set(u.prompt_ids)),
                u.flat_ids.tolist() if u.tidy else sorted(set(u.flat_ids)),
            ]
            for j, u in enumerate(ups)
            if u.prompt_ids or u.flat_ids
        ]
        return {
            "segment": [u.segment for u in ups],
            "update": [u.update for u in ups],
            "status": [u.status for u in ups],
            "time": [u.time for u in ups],
            "seconds": [u.seconds for u in ups],
            "row": [None if u.metrics is None else len(u.metrics) for u in ups],  # its values: metric_rows()
            "rollouts": [u.rollouts for u in ups],
            "spans": spans,
            "keys": keys,
        }

    def metric_rows(self) -> Iterator[bytes]:
        """The updates' metric rows, in the order of ``state()``'s updates, as float64
        little-endian values (NaN: no value), a few hundred rows to a piece: the state file's
        companion (``site.ROWS``). In the JSON state, as base64 texts, a rebuild of 19,370
        updates of 72 metrics spent 0.13 s parsing, decoding and encoding them."""
        rows = (u.metrics for u in self._updates.values() if u.metrics is not None)
        while batch := list(islice(rows, 256)):
            yield b"".join(map(_row_bytes, batch))

    def restore(self, state: dict[str, Any], rows: bytes | memoryview = b"") -> bool:
        """Take up a previous scan if the file only grew since; False if it must be read again.
        ``rows``: what ``metric_rows()`` gave with that state."""
        try:
            sc = state["scan"]
            consumed = int(sc["consumed"])
            if state.get("file") != self.file or not self.storage.is_file(self.file):
                return False
            if consumed and (
                self.storage.size(self.file) < consumed or self._fingerprint(consumed) != state["fingerprint"]
            ):
                return False  # shrunk or rewritten: a resume cut the tail, read from byte 0
            st = _ScanState(
                consumed=consumed,
                line_no=int(sc["line_no"]),
                skipped_lines=int(sc["skipped_lines"]),
                first_skip=_first_skip(sc.get("first_skip")),
                bad_numbers=int(sc["bad_numbers"]),
                broken_batches=int(sc["broken_batches"]),
                utf8_replaced=int(sc["utf8_replaced"]),
                segments=[_Segment(g[0], g[1], g[2], g[3], _params_of(g[4]), g[5], g[6], g[7]) for g in sc["segments"]],
                # an update number stays an int, as a full scan keeps it (the state file is then the same)
                active={int(k): math.inf if v is None else v if type(v) is int else float(v) for k, v in sc["active"]},
            )
            metric_index = {str(name): i for i, name in enumerate(state["metric_names"])}
            left_out = MetricTable()
            count, some = state.get("metrics_left_out", [0, []])
            left_out.left_out = int(count)
            left_out.left_out_names = [str(n) for n in some][:5]
            key_names = state["prompt_keys"]
            if not isinstance(key_names, list) or not all(type(k) is str for k in key_names):
                return False
            n_keys = len(key_names)

            def key_id(i: Any) -> int:
                if type(i) is not int or not 0 <= i < n_keys:
                    raise ValueError("prompt key id out of range")
                return i

            def key_ids(ids: Any) -> array:
                out = array("i", ids)  # TypeError for anything but integers
                if out and (min(out) < 0 or max(out) >= n_keys):
                    raise ValueError("prompt key id out of range")
                return out

            view = memoryview(rows).cast("B")
            at = 0
            size = len(view)

            prompts: dict[int, _Spans] = {}
            for seg, i, a, b in state["prompts"]:
                spans = prompts.get(int(seg))
                if spans is None:
                    spans = prompts[int(seg)] = _Spans()
                spans[key_id(i)] = _pack_span(int(a), int(b))
            updates: dict[tuple[int, int], _UpdateIndex] = {}
            cols = state["updates"]
            segs, ns, statuses, times, seconds, lens, rolls = (
                cols[k] for k in ("segment", "update", "status", "time", "seconds", "row", "rollouts")
            )
            count = len(ns)
            if not all(type(c) is list and len(c) == count for c in (segs, ns, statuses, times, seconds, lens, rolls)):
                raise ValueError("update columns of different lengths")
            if not all(type(t) is float for t in seconds if t is not None):
                raise ValueError("a time that is not a timestamp")
            span_of: dict[int, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = {}
            for j, rs, ss in cols["spans"]:
                if type(j) is not int or not 0 <= j < count:
                    raise ValueError("update index out of range")
                span_of[j] = ([(int(a), int(b)) for a, b in rs], [(int(a), int(b)) for a, b in ss])
            ids_of: dict[int, tuple[array, array]] = {}
            for j, keys, flat in cols["keys"]:
                if type(j) is not int or not 0 <= j < count:
                    raise ValueError("update index out of range")
                ids_of[j] = (key_ids(keys), key_ids(flat))
            swap = sys.byteorder != "little"
            for j, (seg, n, status, time, stamp, length, rollouts) in enumerate(
                zip(segs, ns, statuses, times, seconds, lens, rolls)
            ):
                got = span_of.get(j)
                rs, ss = ([], []) if got is None else got  # lists of its own: the scan appends to them
                keys_of = ids_of.get(j)
                row = None
                if length is not None:  # the row's values: the next 8 * length bytes of ROWS
                    if type(length) is not int or length < 0 or at + 8 * length > size:
                        raise ValueError("metric row out of range")
                    row = array("d")
                    row.frombytes(view[at : at + 8 * length])
                    if swap:
                        row.byteswap()
                    at += 8 * length
                updates[(int(seg), int(n))] = _UpdateIndex(
                    int(seg),
                    int(n),
                    rs,
                    ss,
                    status,
                    time,
                    row,
                    int(rollouts),
                    array("i") if keys_of is None else keys_of[0],
                    array("i") if keys_of is None else keys_of[1],
                    True,
                    stamp,
                )
            if at != size:
                raise ValueError("metric rows left over")
        except (KeyError, IndexError, TypeError, ValueError, OSError, InputError):
            return False
        # taken up only whole: a state refused halfway leaves the scan from byte 0 as it was
        self._metric_index = metric_index
        self._last_names = None
        self._updates = updates
        self._prompts = prompts
        self._left_out = left_out
        self._key_names = key_names
        self._key_ids = {k: i for i, k in enumerate(key_names)}
        self._st = st
        self.resumed_scan = True
        return True

    def input_bytes(self, ref: IterationRef) -> int:
        """How many bytes of the export load(ref) reads: what a worker's memory follows."""
        u = self._updates[ref.locator]
        return sum(b - a for a, b in u.rollout_spans) + sum(b - a for a, b in u.side_spans)

    def page_key(self, ref: IterationRef) -> str:
        """A hash of everything an update's page is made of, as far as the index knows."""
        seg, n = ref.locator
        u = self._updates[(seg, n)]
        # the prompts in id order (_finish sorts the ids): the same bytes give the same ids,
        # and the names are in the key, so an id that names another prompt changes it
        names = self._key_names
        span = self._prompts.get(seg, _NO_SPANS).get
        prompts = [([names[i] for i in ids], [span(i) for i in ids]) for ids in (u.prompt_ids, u.flat_ids)]
        return hashlib.sha256(key_bytes((seg, n, u.rollout_spans, u.side_spans, prompts))).hexdigest()

    def _metric_row(self, packed: _Metrics | None) -> array:
        """The update's row, by metric index (NaN: no value). Names met in the order of the
        previous update's take their values in one copy."""
        index = self._metric_index
        if packed is None:
            return array("d", [math.nan]) * len(index)
        names, values = packed.names, packed.values
        cached = self._last_names
        if cached is not None and cached[0] == names:
            at, left_out = cached[1], cached[2]
        else:
            at = array("q")
            left_out = []
            for name in names:
                i = index.get(name)
                if i is None:
                    if not room_for(name, len(index), max(0, len(index) - MAX_METRIC_NAMES)):
                        left_out.append(name)
                        at.append(-1)
                        continue
                    i = index[name] = len(index)
                at.append(i)
            self._last_names = (names, at, left_out, at.tolist() == list(range(len(at))))
            cached = self._last_names
        for name in left_out:
            self._left_out.leave_out(name)
        if cached[3]:  # the first len(names) metrics, in their order
            row = array("d", values)
            if len(index) > len(row):
                row.extend(array("d", [math.nan]) * (len(index) - len(row)))
            return row
        row = array("d", [math.nan]) * len(index)
        for j, i in enumerate(at):
            if i >= 0:
                row[i] = values[j]
        return row

    def _finish(self, run: Run, segments: list[_Segment], active: dict[int, float], consumed: int) -> None:
        run.title = _title_for(self.storage)
        seg_by_id = {s.segment: s for s in segments}  # the last run record of a segment wins
        visible: dict[int, _UpdateIndex] = {}
        for (seg, n), u in self._updates.items():
            upto = active.get(seg)
            if upto is None or n > upto:
                continue
            cur = visible.get(n)
            if cur is None or seg > cur.segment:
                visible[n] = u
        hidden_segments = sorted({s for (s, _n) in self._updates} - set(active))
        orphan = [s for s in hidden_segments if s not in seg_by_id]
        if orphan:
            run.warnings.append(
                f"{self.path}: segment(s) {', '.join(map(str, orphan))} have records but no run record; "
                "they are hidden, as the trainer's reader does."
            )
        last = seg_by_id.get(max(active)) if active else (segments[-1] if segments else None)
        if last is not None:
            run.algorithm = last.algorithm
            run.model = last.model
            run.every = last.every
            run.params = dict(last.params)
        for s in segments:
            run.segments.append(
                {
                    "segment": s.segment,
                    "algorithm": s.algorithm,
                    "model": s.model,
                    "every": s.every,
                    "resumed_from_update": s.resumed_from_update,
                    "time": s.time,
                    "visible": s.segment in active,
                    "upto": None if active.get(s.segment, math.inf) == math.inf else int(active[s.segment]),
                    "line": s.line,
                }
            )
        names = list(self._metric_index)
        table = run.metrics
        dropped_by_seg: dict[int, float] = {}
        di = self._metric_index.get("observe/dropped_batches")
        for u in self._updates.values():
            if not u.tidy:  # a rebuild's restored updates are (0.1 s for 6,859 of them)
                u.prompt_ids = array("i", sorted(set(u.prompt_ids)))
                u.flat_ids = array("i", sorted(set(u.flat_ids)))
                u.tidy = True
        key_names = self._key_names
        index = run.prompt_index
        order = sorted(visible)
        table.fill(order, [visible[n].seconds for n in order], [visible[n].metrics for n in order], names)
        table.left_out, table.left_out_names = self._left_out.left_out, list(self._left_out.left_out_names)
        said = table.left_out_warning()
        if said:
            run.warnings.append(said)
        at = self._metric_index.get
        heads = [(k, at(k, len(names))) for k in HEADLINE]  # past the end: never a value
        # structural holes, the evidence of dropped batches besides the metric (§1.2)
        due: list[int] = []  # updates due for texts (update % every == 0) without rollouts
        gaps: list[tuple[int, int]] = []  # update numbers missing from the list
        prev: int | None = None
        if order:
            # updates are numbered from 1, a resumed segment's from K + 1 (spec §2, §1.4):
            # missing first numbers are missing numbers too (dropped batches, §1.2)
            first_run = seg_by_id.get(visible[order[0]].segment)
            if first_run is not None:
                since = first_run.resumed_from_update
                expected = 1 if since is None else since + 1
                if type(expected) is int and 0 <= expected < order[0]:
                    prev = expected - 1
        isfinite = math.isfinite
        iterations = run.iterations
        for n in order:
            u = visible[n]
            m = u.metrics
            if m is not None and di is not None and di < len(m) and not math.isnan(m[di]):
                dropped_by_seg[u.segment] = m[di]
            status = u.status or "incomplete"
            # table.get's values, from the row itself (a loop: a comprehension is a call)
            headline: dict[str, float | None] = dict.fromkeys(HEADLINE)
            if m is not None:
                width = len(m)
                for k, i in heads:
                    if i < width and isfinite(m[i]):
                        headline[k] = m[i]
            # positional (_REF_FIELDS' order, checked at import): by keyword, with the
            # defaults made, it took 1.1 µs an update against 0.4 (19,370 updates a rebuild)
            ref = IterationRef(
                "train", n, "", u.segment, status, u.rollouts > 0, u.rollouts, 0, 0, 0,
                headline["reward/mean"], u.time, headline, [], (u.segment, n),
            )  # fmt: skip
            if u.status is None:
                ref.notes.append("incomplete update, or incomplete export")
            elif not u.rollouts:
                run_rec = seg_by_id.get(u.segment)
                every = run_rec.every if run_rec is not None else None
                if every is not None and n % every == 0:
                    ref.notes.append(DUE_NOTE.format(every=every))
                    due.append(n)
            if prev is not None and n > prev + 1:
                gaps.append((prev + 1, n - 1))
            prev = n
            if not iterations or iterations[-1].segment != ref.segment:
                run.segment_starts.append(n)
            iterations.append(ref)
            for i in u.prompt_ids:
                numbers = index.get(key_names[i])
                if numbers is None:
                    index[key_names[i]] = [n]
                else:
                    numbers.append(n)
        feed = self._feed_dropped()
        if feed is not None and feed[0] in active:
            # the older writer's manifest counts the drops of its latest segment too (§1.2)
            dropped_by_seg[feed[0]] = max(dropped_by_seg.get(feed[0], 0.0), float(feed[1]))
        run.dropped_batches = int(sum(dropped_by_seg.values()))
        if run.dropped_batches:
            detail = ", ".join(f"segment {s}: {int(v)}" for s, v in sorted(dropped_by_seg.items()) if v)
            run.warnings.insert(
                0,
                f"{run.dropped_batches} export batch(es) were dropped: some updates are missing data ({detail}).",
            )
        if gaps:
            missing = sum(b - a + 1 for a, b in gaps)
            shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in gaps[:20]) + (" …" if len(gaps) > 20 else "")
            run.warnings.append(
                f"{missing:,} update number(s) are missing from the list (no record of them: dropped batches, "
                f"or a crash): {shown}."
            )
        if due:
            shown = ", ".join(map(str, due[:20])) + (" …" if len(due) > 20 else "")
            run.warnings.append(
                f"{len(due):,} update(s) were due for texts (update % every == 0) but have no rollouts "
                f"(a dropped batch): {shown}."
            )
        incomplete = [r.number for r in run.iterations if r.status == "incomplete"]
        if incomplete:
            shown = ", ".join(map(str, incomplete[:20])) + (" …" if len(incomplete) > 20 else "")
            run.warnings.append(
                f"{len(incomplete)} update(s) have no update record (incomplete update, or incomplete export): {shown}."
            )
        superseded = sum(1 for k in self._updates if k[0] in active) - len(visible)
        hidden = sum(1 for k in self._updates if k[0] not in active)
        if superseded > 0 or hidden:
            run.info["hidden_updates"] = superseded + hidden

    def _feed_dropped(self) -> tuple[int, int] | None:
        """(segment, dropped batches) of the older writer's ``feed/manifest.js`` beside the
        export (spec §5.1: ``RG_FEED.manifest(<json>);``), or None. Read as JSON text, never run;
        a manifest that is not one is not the writer's, and is left alone."""
        rel = posixpath.join(posixpath.dirname(self.file), "feed", "manifest.js")
        try:
            if not self.storage.is_file(rel) or self.storage.size(rel) > 1 << 20:
                return None
            text = self.storage.read_bytes(rel).decode("utf-8").strip()
        except (OSError, InputError, UnicodeDecodeError):
            return None
        head, tail = "RG_FEED.manifest(", ");"
        if not (text.startswith(head) and text.endswith(tail)):
            return None
        try:
            manifest = orjson.loads(text[len(head) : -len(tail)])
        except orjson.JSONDecodeError:
            return None
        if not isinstance(manifest, dict):
            return None
        seg, dropped = int_or_none(manifest.get("segment")), int_or_none(manifest.get("dropped_batches"))
        if seg is None or dropped is None or dropped <= 0:
            return None
        return seg, dropped

    # ------------------------------------------------------------------ load
    def _read_pieces(self, span: tuple[int, int]) -> Iterator[bytes]:
        """The bytes of a span, _RANGE_PIECE at a time (none of them empty)."""
        a, b = span
        if self._fh is None:
            self._fh = self.storage.open(self.file)
        try:
            self._fh.seek(a)
            left = b - a
            while left > 0:
                piece = self._fh.read(min(_RANGE_PIECE, left))
                if not piece:
                    break
                left -= len(piece)
                yield piece
        except OSError:
            self._changed = True
            return
        if left > 0:
            self._changed = True  # the file shrank since the scan (a resume cut its tail)

    def _iter_records(self, span: tuple[int, int]) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """(start offset, end offset, record) of every record of a span, each as soon as it is
        parsed (its line's bytes are ``[start, end)``, its newline included).

        The span is read a piece at a time: read whole, an update of 55 MiB held its bytes
        and then its lines besides the members built from them (122 MiB more RSS after its
        load, against 59 read in pieces)."""
        loads = orjson.loads
        pos = span[0]
        first = True
        for block in _whole_lines(self._read_pieces(span)):
            for raw in lines_of(block):  # each with its newline (blank space to JSON), the last maybe not
                start = pos
                pos += len(raw)
                if raw.isspace():  # copies nothing
                    continue
                try:
                    rec = loads(raw)  # parse_line's first step, without its call for each of thousands of lines
                except orjson.JSONDecodeError:
                    try:
                        rec, _ = parse_line(raw, constants=False)
                    except LineError:
                        if first:  # a span starts at a record that parsed during the scan
                            self._changed = True
                        first = False
                        continue
                first = False
                if type(rec) is dict:
                    yield start, pos, rec

    def _records(self, span: tuple[int, int]) -> list[dict[str, Any]]:
        """The records of a span."""
        return [rec for _start, _end, rec in self._iter_records(span)]

    def close(self) -> None:
        """Close the file handle kept open by load()."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def logtree_bytes(self, ref: IterationRef) -> bytes | None:
        """Observe exports have no logtree: the views export one."""
        return None

    def load(self, ref: IterationRef) -> Iteration:
        """The texts of one visible update."""
        seg, n = ref.locator
        u = self._updates[(seg, n)]
        self._changed = False
        try:
            return self._load(ref, seg, n, u)
        finally:
            self._batch_prompts = {}

    def _side(
        self, u: _UpdateIndex
    ) -> tuple[dict[tuple[int | None, int], dict[str, Any]], dict[tuple[int | None, int], bool]]:
        """The selection entry and the outcome of each (group, member) of an update: the last
        record of each wins (spec 2.7)."""
        selection: dict[tuple[int | None, int], dict[str, Any]] = {}
        outcome: dict[tuple[int | None, int], bool] = {}
        for span in u.side_spans:
            for rec in self._records(span):
                entries = rec.get("entries")
                if not isinstance(entries, list):
                    continue
                kind = rec.get("type")
                if kind != "selection" and kind != "outcome":
                    continue
                for e in entries:  # thousands per update: int_or_none inlined
                    if type(e) is not dict:
                        continue
                    m = e.get("member")
                    if type(m) is not int:
                        continue
                    g = e.get("group")
                    k = (g if type(g) is int else None, m)
                    if kind == "selection":
                        selection[k] = e
                    else:
                        t = e.get("trained")
                        if t is True or t is False:
                            outcome[k] = t
        return selection, outcome

    def _load(self, ref: IterationRef, seg: int, n: int, u: _UpdateIndex) -> Iteration:
        selection, outcome = self._side(u)
        # each rollout becomes a Member as soon as it is parsed, while its record is still in
        # the CPU's cache (parsing a whole span first and reading its records back afterwards
        # made load() 2.9-3.3 times the bare parse, against 2.3-2.4); the last record of a
        # (group, member) wins, as the writer's reader does
        rollouts: dict[tuple[int | None, int], tuple[Member, Any]] = {}
        batch_prompts = self._batch_prompts = {}
        selection_of = selection.get
        outcome_of = outcome.get
        for span in u.rollout_spans:
            for start, _end, rec in self._iter_records(span):
                get = rec.get
                if get("type") != "rollout" or get("update") != n or get("segment") != seg:
                    # a prompt written in the update's own batch (PPO: a prompt per rollout)
                    # is used as parsed here, if it is the record the scan found for its key;
                    # kept as its Prompt, not its record (PPO, 65,536 rollouts an update:
                    # the records held 57 MiB more)
                    if get("type") == "prompt":
                        pk = get("key")
                        if type(pk) is str:
                            batch_prompts[start] = _prompt_record(pk, rec)
                    continue
                member = get("member")
                if type(member) is not int:
                    member = int_or_none(member)
                    if member is None:
                        continue
                group = get("group")
                gm = (group if type(group) is int else int_or_none(group), member)
                rollouts[gm] = (_member(rec, selection_of(gm), outcome_of(gm)), get("prompt"))
        prompts: dict[str, Prompt] = {}
        warnings: list[str] = []
        groups: dict[int | None, list[Member]] = {}
        for gm, (mem, key) in rollouts.items():
            if type(key) is not str:
                key = ""
            prompt = prompts.get(key)
            if prompt is None:
                prompt = prompts[key] = self._prompt(seg, key)
            mem.prompt = prompt
            group_list = groups.get(gm[0])
            if group_list is None:
                group_list = groups[gm[0]] = []
            group_list.append(mem)
        missing = sorted(k for k, p in prompts.items() if p.messages is None)
        if missing:
            warnings.append(self._missing_warning(n, missing))
        if self._changed:
            warnings.append(self._changed_warning())
        out_groups = []
        for g in sorted(groups, key=lambda x: -1 if x is None else x):
            members = sorted(groups[g], key=lambda mm: mm.member)
            keys = {mm.prompt.key for mm in members if mm.prompt is not None}
            prompt = members[0].prompt if len(keys) == 1 and g is not None else None
            out_groups.append(Group(id=g, prompt=prompt, members=members))
        ref.rollouts = len(rollouts)
        ref.groups = len(out_groups)
        ref.trained = sum(1 for grp in out_groups for mm in grp.members if mm.trained)
        ref.unknown = sum(1 for grp in out_groups for mm in grp.members if mm.trained is None)
        rewards = [mm.reward for grp in out_groups for mm in grp.members if mm.reward is not None]
        ref.reward_mean = sum(rewards) / len(rewards) if rewards else ref.headline.get("reward/mean")
        return Iteration(ref=ref, groups=out_groups, warnings=warnings)

    def _missing_warning(self, n: int, missing: list[str]) -> str:
        shown = ", ".join(k or '"" (rollouts without a prompt key)' for k in missing[:5])
        shown += f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        return f"{self.path}: update {n}: prompt record not received for {shown}"

    def _changed_warning(self) -> str:
        return (
            f"{self.path} changed while it was read (shorter or rewritten since the scan): "
            "this update may be incomplete; build again for a consistent site"
        )

    def _prompt_span(self, seg: int, key: str) -> tuple[int, tuple[int, int]] | None:
        """The key's id and the span of the prompt record the scan found for it in ``seg``."""
        i = self._key_ids.get(key)
        packed = None if i is None else self._prompts.get(seg, _NO_SPANS).get(i)
        return None if packed is None or i is None else (i, _unpack_span(packed))

    def _prompt(self, seg: int, key: str) -> Prompt:
        found = self._prompt_span(seg, key)
        if found is None:
            return Prompt(key=key, messages=None)
        span = found[1]
        parsed = self._batch_prompts.get(span[0])
        if parsed is not None:
            return parsed if parsed.key == key else Prompt(key=key, messages=None)
        for rec in self._records(span):
            if rec.get("type") == "prompt" and rec.get("key") == key:
                return _prompt_record(key, rec)
        return Prompt(key=key, messages=None)

    # ------------------------------------------------------------------ two passes
    def outline(self, ref: IterationRef) -> Outline | None:
        """A huge update in two passes, or None when ``load(ref)`` may hold it whole.

        The first pass (this) reads the update's records once and keeps, a few numbers a
        member, what the iteration needs as a whole: which record of each (group, member)
        wins and where it is, the group sizes and order, the merged selection and outcome,
        the facts of the group figures and of the logtree's tables (``MemberFacts``), and the
        iteration's counts, set on ``ref`` as ``load`` sets them. ``load_members`` then reads
        back the members of a few groups at a time: the same ``Member`` objects ``load``
        makes. An update that reads fewer than TWO_PASS_BYTES and has fewer than
        TWO_PASS_ROLLOUTS rollouts is loaded whole (None), as is one whose ids or token
        counts no column holds (past 64 bits)."""
        seg, n = ref.locator
        u = self._updates[(seg, n)]
        if self.input_bytes(ref) < TWO_PASS_BYTES and u.rollouts < TWO_PASS_ROLLOUTS:
            return None
        self._changed = False
        try:
            return self._outline(ref, seg, n, u)
        except OverflowError:
            return None

    def _outline(self, ref: IterationRef, seg: int, n: int, u: _UpdateIndex) -> Outline:
        selection, outcome = self._side(u)
        facts = MemberFacts()
        member_col, reward_col, adv_col, tokens_col = facts.member, facts.reward, facts.advantage, facts.tokens
        truncated_col, eligible_col, trained_col, skip_col = facts.truncated, facts.eligible, facts.trained, facts.skip
        skip_ids: dict[str, int] = {}
        offsets = array("q")
        ends = array("q")
        keys = array("i")  # the prompt key's id (ObserveReader._key_ids), or -2 - its place in ``local``
        local: dict[str, int] = {}  # keys the index has no id for
        key_ids = self._key_ids
        spans = self._prompts.get(seg, _NO_SPANS)
        # ids of the keys whose scanned prompt record is in the update's own batches (load's
        # _batch_prompts): found without reading it again
        in_batch = bytearray(len(self._key_names))
        # the winning record of each (group, member), by group in the order groups first
        # appear (load's dicts keep that order), then by member
        at: dict[int | None, dict[int, int]] = {}
        selection_of = selection.get
        outcome_of = outcome.get
        nan = math.nan
        # the columns' appends, bound once: eleven a rollout
        add_offset, add_end, add_key = offsets.append, ends.append, keys.append
        add_member, add_reward, add_adv, add_tokens = (
            member_col.append,
            reward_col.append,
            adv_col.append,
            tokens_col.append,
        )
        add_truncated, add_eligible, add_trained, add_skip = (
            truncated_col.append,
            eligible_col.append,
            trained_col.append,
            skip_col.append,
        )
        last_g: int | None = None
        members: dict[int, int] | None = None
        for span in u.rollout_spans:
            for start, end, rec in self._iter_records(span):
                get = rec.get
                if get("type") != "rollout" or get("update") != n or get("segment") != seg:
                    if get("type") == "prompt":
                        pk = get("key")
                        if type(pk) is str:
                            i = key_ids.get(pk)
                            if i is not None:
                                packed = spans.get(i)
                                if packed is not None and _unpack_span(packed)[0] == start:
                                    in_batch[i] = 1
                    continue
                member = get("member")
                if type(member) is not int:
                    member = int_or_none(member)
                    if member is None:
                        continue
                group = get("group")
                g = group if type(group) is int else int_or_none(group)
                gm = (g, member)
                eligible, advantage, skip, trained = _merged(rec, selection_of(gm), outcome_of(gm))
                key = get("prompt")
                if type(key) is not str:
                    key = ""
                kid = key_ids.get(key)
                if kid is None:
                    kid = local.get(key)
                    if kid is None:
                        kid = local[key] = -2 - len(local)
                sid = -1 if skip is None else skip_ids.setdefault(skip, len(skip_ids))
                reward = finite_or_none(get("reward"))
                tokens = get("tokens")
                if type(tokens) is not int:
                    tokens = TOKENS_NONE
                elif tokens == TOKENS_NONE:
                    raise OverflowError("a token count the column keeps for none")
                if members is None or g != last_g:  # a group's rollouts mostly come together
                    last_g = g
                    members = at.get(g)
                    if members is None:
                        members = at[g] = {}
                # a later record of the same (group, member) wins: it takes a new position
                members[member] = len(offsets)
                add_offset(start)
                add_end(end)
                add_key(kid)
                add_member(member)  # _member's int(rec["member"])
                add_reward(nan if reward is None else reward)
                add_adv(nan if advantage is None else advantage)
                add_tokens(tokens)
                add_truncated(get("truncated") is True)
                add_eligible(-1 if eligible is None else eligible)
                add_trained(-1 if trained is None else trained)
                add_skip(sid)
        facts.skip_reasons = list(skip_ids)
        names = self._key_names
        local_names = list(local)

        def name_of(kid: int) -> str:
            return names[kid] if kid >= 0 else local_names[-2 - kid]

        groups: list[GroupOutline] = []
        for g in sorted(at, key=lambda x: -1 if x is None else x):
            by_member = at[g]
            positions = array("q", [by_member[m] for m in sorted(by_member)])
            shared = {keys[p] for p in positions}
            prompt_key = name_of(next(iter(shared))) if len(shared) == 1 and g is not None else None
            groups.append(GroupOutline(g, prompt_key, facts, positions))
        del at
        used = sorted({name_of(kid) for kid in {keys[p] for grp in groups for p in grp.positions}})
        missing = [k for k in used if not self._prompt_found(seg, k, in_batch)]
        warnings: list[str] = []
        if missing:
            warnings.append(self._missing_warning(n, missing))
        if self._changed:
            warnings.append(self._changed_warning())
        ref.rollouts = sum(grp.size for grp in groups)
        ref.groups = len(groups)
        ref.trained = sum(1 for grp in groups for p in grp.positions if trained_col[p] == 1)
        ref.unknown = sum(1 for grp in groups for p in grp.positions if trained_col[p] < 0)
        rewards = [r for grp in groups for r in grp.rewards()]
        ref.reward_mean = sum(rewards) / len(rewards) if rewards else ref.headline.get("reward/mean")
        return Outline(ref, groups, warnings, (seg, facts, offsets, ends, keys, local_names))

    def _prompt_found(self, seg: int, key: str, in_batch: bytearray) -> bool:
        """Whether ``_prompt(seg, key)`` finds the key's record (``in_batch``: the ids of the keys
        whose record the update's own batches hold)."""
        found = self._prompt_span(seg, key)
        if found is None:
            return False
        i, span = found
        if in_batch[i]:
            return True
        return any(rec.get("type") == "prompt" and rec.get("key") == key for rec in self._records(span))

    def load_members(self, outline: Outline, picks: list[tuple[GroupOutline, Iterable[int]]]) -> list[Group]:
        """The members at these positions of each group of an ``outline``, in the order given,
        as ``Group``s with their prompts: the records are read back where the first pass found
        them (a few reads for members and prompts that lie close), and each member is the
        ``Member`` that ``load`` makes of it. Members of one key share one ``Prompt``."""
        seg, facts, offsets, ends, keys, local_names = outline.locator
        names = self._key_names
        spans_of = self._prompts.get(seg, _NO_SPANS).get
        wanted = [(g, list(positions)) for g, positions in picks]
        spans: dict[int, int] = {}
        kids: set[int] = set()
        for _g, positions in wanted:
            for p in positions:
                spans[offsets[p]] = ends[p]
                kids.add(keys[p])
        prompt_spans: dict[int, tuple[int, int]] = {}
        for kid in kids:
            packed = spans_of(kid) if kid >= 0 else None
            if packed is not None:
                a, b = prompt_spans[kid] = _unpack_span(packed)
                spans[a] = b
        records = self._read_spans(spans)
        prompts: dict[int, Prompt] = {}
        for kid in kids:
            key = names[kid] if kid >= 0 else local_names[-2 - kid]
            span = prompt_spans.get(kid)
            rec = None if span is None else records.get(span[0])
            if rec is not None and rec.get("type") == "prompt" and rec.get("key") == key:
                prompts[kid] = _prompt_record(key, rec)
            else:
                prompts[kid] = Prompt(key=key, messages=None)
        eligible_col, adv_col, skip_col, trained_col = facts.eligible, facts.advantage, facts.skip, facts.trained
        skip_reasons = facts.skip_reasons
        out: list[Group] = []
        n = outline.ref.locator[1]
        for g, positions in wanted:
            members: list[Member] = []
            for p in positions:
                rec = records.get(offsets[p])
                mem = None
                # the record the first pass found there, or the file was rewritten in place
                # (lines of the same lengths swapped showed another update's rollouts)
                if (
                    rec is not None
                    and rec.get("type") == "rollout"
                    and rec.get("update") == n
                    and rec.get("segment") == seg
                    and _group_id(rec.get("group")) == g.id
                ):
                    try:
                        mem = _member(rec, None, None)
                    except (KeyError, TypeError, ValueError):
                        mem = None
                    if mem is not None and mem.member != facts.member[p]:
                        mem = None
                if mem is None:  # the file changed since the first pass
                    self._changed = True
                    mem = Member(facts.member[p])
                # the selection and outcome the first pass merged
                e = eligible_col[p]
                mem.eligible = None if e < 0 else e == 1
                v = adv_col[p]
                mem.advantage = None if v != v else v
                k = skip_col[p]
                mem.skip_reason = None if k < 0 else skip_reasons[k]
                t = trained_col[p]
                mem.trained = None if t < 0 else t == 1
                mem.prompt = prompts[keys[p]]
                members.append(mem)
            prompt = prompts[keys[positions[0]]] if g.prompt_key is not None and positions else None
            out.append(Group(id=g.id, prompt=prompt, members=members))
        said = self._changed_warning()
        if self._changed and said not in outline.warnings:  # the pages after this one say it
            outline.warnings.append(said)
        return out

    def _read_spans(self, spans: dict[int, int]) -> dict[int, dict[str, Any]]:
        """The record of each span ``start: end`` (one line each), by its start: spans that lie
        within _GAP of each other are read in one piece (of at most _MAX_PIECE). A span that
        no longer holds a record (the file changed) is left out."""
        out: dict[int, dict[str, Any]] = {}
        items = sorted(spans.items())
        if self._fh is None:
            self._fh = self.storage.open(self.file)
        fh = self._fh
        try:  # a local file is read with pread: a buffered read of a few hundred bytes reads 8 KiB
            fd: int | None = fh.fileno()
        except (OSError, AttributeError, io.UnsupportedOperation):
            fd = None
        loads = orjson.loads
        i = 0
        while i < len(items):
            a, end = items[i]
            j = i + 1
            while j < len(items) and items[j][0] - end <= _GAP and items[j][1] - a <= _MAX_PIECE:
                end = max(end, items[j][1])
                j += 1
            try:
                if fd is not None:
                    data = os.pread(fd, end - a, a)
                else:
                    fh.seek(a)
                    data = fh.read(end - a)
            except OSError:
                self._changed = True
                return out
            if len(data) < end - a:
                self._changed = True  # the file shrank since the scan
            for s, e in items[i:j]:
                raw = data[s - a : e - a]
                try:
                    rec = loads(raw)
                except orjson.JSONDecodeError:
                    try:
                        rec, _ = parse_line(raw, constants=False)
                    except LineError:
                        self._changed = True
                        continue
                if type(rec) is dict:
                    out[s] = rec
            i = j
        return out


# two passes (ObserveReader.outline) for an update that reads this many bytes, or has this many
# rollouts: loaded whole, one of 275,664 short rollouts (140 MiB) took the build to 376 MiB
# (613 bytes a loaded member, 1,241 at the peak of load())
TWO_PASS_BYTES = 96 << 20
TWO_PASS_ROLLOUTS = 1 << 17
# load_members reads records this close to each other in one piece, of at most _MAX_PIECE
_GAP = 16 << 10
_MAX_PIECE = 4 << 20


def _group_id(group: Any) -> int | None:
    """A rollout's group as load and the first pass key it."""
    return group if type(group) is int else int_or_none(group)


def _merged(
    rec: dict[str, Any], sel: dict[str, Any] | None, trained_out: bool | None
) -> tuple[bool | None, float | None, str | None, bool | None]:
    """(eligible, advantage, skip reason, trained) of a rollout with its selection entry and
    outcome merged: what ``_member`` makes of them (a test holds the two together)."""
    g = rec.get
    eligible = g("eligible")
    if type(eligible) is not bool:
        eligible = None
    advantage = finite_or_none(g("advantage"))
    skip = g("skip_reason")
    if type(skip) is not str:
        skip = None
    if sel is not None:
        if isinstance(sel.get("eligible"), bool):
            eligible = sel["eligible"]
        if advantage is None:
            advantage = finite_or_none(sel.get("advantage"))
        if skip is None:
            skip = str_or_none(sel.get("skip_reason"))
    if trained_out is not None:
        trained: bool | None = trained_out
    elif g("trained") is False or eligible is False:
        trained = False
    else:
        trained = None
    return eligible, advantage, skip, trained


def _params_of(text: Any) -> dict[str, Any]:
    """The params ``state`` wrote as JSON text (ValueError for anything else: the state is read again)."""
    if type(text) is not str:
        raise ValueError("params")
    try:
        value, _ = parse_line(text.encode("utf-8", "surrogatepass"))
    except LineError as exc:
        raise ValueError("params") from exc
    if type(value) is not dict:
        raise ValueError("params")
    return value


def _prompt_record(key: str, rec: dict[str, Any]) -> Prompt:
    """The Prompt of a prompt record."""
    return Prompt(
        key=key,
        messages=_messages(rec.get("messages")),
        reward_text=str_or_none(rec.get("reward_text")),
        metadata=rec.get("metadata") if "metadata" in rec else None,
    )


def _row_bytes(row: array) -> bytes:
    """A metric row in the state's companion file: its float64 values, little-endian."""
    if sys.byteorder != "little":
        row = array("d", row)
        row.byteswap()
    return row.tobytes()


# what an export may have been packed with: magic number, name, the tool that unpacks it, suffix
COMPRESSED = (
    (b"\x1f\x8b", "gzip-compressed", "gunzip", ".gz"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd", ".zst"),
    (b"BZh", "bzip2-compressed", "bunzip2", ".bz2"),
    (b"\xfd7zXZ\x00", "xz-compressed", "unxz", ".xz"),
    (b"PK\x03\x04", "zip", "unzip", ".zip"),
)


def _title_for(storage: Storage) -> str:
    """The run's folder name: runs/42 and runs/42/observe give 42, and so does "." in runs/42
    (the folder's own name, not the path as typed)."""
    root = storage.root.replace("\\", "/").rstrip("/")
    name = root.rsplit("/", 1)[-1]
    if name == "observe":
        parent = root.rsplit("/", 2)
        if len(parent) >= 2 and parent[-2]:
            name = parent[-2]
    return shown_text(name) if name else storage.display_root


def _messages(value: Any) -> list[Message]:
    if not isinstance(value, list):
        return []
    out = []
    for m in value:
        if not isinstance(m, dict):
            continue
        calls: list[ToolCall] | tuple[()] = ()  # most messages have none: no list for them
        raw_calls = m.get("tool_calls")
        if isinstance(raw_calls, list) and raw_calls:
            calls = []
            for c in raw_calls:
                if isinstance(c, dict):
                    cid = c.get("id")
                    name = c.get("name", "")
                    calls.append(
                        ToolCall(
                            cid if type(cid) is str else (None if cid is None else text_of(cid)),
                            name if type(name) is str else text_of(name),
                            c.get("arguments", {}),
                        )
                    )
        content = m.get("content", "")
        tcid = m.get("tool_call_id")
        role = m.get("role", "")
        # positional: a keyword call of the dataclass costs about a third more (once per message)
        out.append(
            Message(
                role if type(role) is str else text_of(role),
                content if type(content) is str else text_of(content),
                None,
                calls,
                (),
                tcid if type(tcid) is str else (None if tcid is None else text_of(tcid)),
                m.get("is_error") is True,
            )
        )
    return out


def _step_rewards(value: Any) -> list[StepReward]:
    if not isinstance(value, list):
        return []
    out = []
    for s in value:
        if not isinstance(s, dict):
            continue
        reward = finite_or_none(s.get("reward"))
        if reward is None:
            # the writer's null is a NaN or an infinity, which the server filters out (§5.2)
            continue
        idx = s.get("message_indices")
        kind = s.get("kind", "")
        out.append(
            StepReward(
                int_or_none(s.get("step_index")),
                kind if type(kind) is str else text_of(kind),
                reward,
                [i for i in idx if type(i) is int] if type(idx) is list else [],
            )
        )
    return out


def _member(rec: dict[str, Any], sel: dict[str, Any] | None, trained_out: bool | None) -> Member:
    """One rollout with the §2.7 merge applied."""
    # the merge is _merged's, written out here: this runs once a rollout, and the call and
    # its tuple cost 2% of a load (tests/test_two_pass.py holds the two together)
    g = rec.get
    eligible = g("eligible")
    if type(eligible) is not bool:
        eligible = None
    advantage = finite_or_none(g("advantage"))
    skip = g("skip_reason")
    if type(skip) is not str:
        skip = None
    if sel is not None:
        if isinstance(sel.get("eligible"), bool):
            eligible = sel["eligible"]
        if advantage is None:
            advantage = finite_or_none(sel.get("advantage"))
        if skip is None:
            skip = str_or_none(sel.get("skip_reason"))
    if trained_out is not None:
        trained: bool | None = trained_out
    elif g("trained") is False or eligible is False:
        trained = False
    else:
        trained = None
    seed = g("seed")
    tokens = g("tokens")
    completion = g("completion", _ABSENT)
    if completion is _ABSENT:
        text = None
        messages = _messages(g("messages"))
    else:
        text = completion if type(completion) is str else text_of(completion)
        messages = None
    # positional up to ``messages`` (model.Member's field order): a keyword call of the
    # dataclass costs about three times as much, once per rollout
    mem = Member(
        int(rec["member"]),
        finite_or_none(g("reward")),
        finite_or_none(g("reward_raw")),
        finite_or_none(g("judge_term")),
        advantage,
        None,
        None,
        tokens if type(tokens) is int else None,
        seed if type(seed) is int else None,
        g("truncated") is True,
        eligible,
        trained,
        skip,
        text,
        messages,
    )
    metadata = g("metadata")
    if metadata is not None:
        mem.metadata = metadata
    # the rarer fields, absent from most rollouts: set only when present
    if g("prefix") is False:
        mem.prefix = False
    steps = g("step_rewards")
    if steps:
        mem.step_rewards = _step_rewards(steps)
    v = g("advantage_min")
    if v is not None:
        mem.advantage_min = finite_or_none(v)
    v = g("advantage_max")
    if v is not None:
        mem.advantage_max = finite_or_none(v)
    v = g("terminal_reward_raw")
    if v is not None:
        mem.terminal_reward_raw = finite_or_none(v)
    judge = g("judge_explanation")
    if type(judge) is str:
        mem.judge_explanation = judge
    return mem


_ABSENT = object()
