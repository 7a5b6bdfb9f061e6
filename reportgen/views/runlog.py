"""The page of a run's own log (tinker's ``logs.log``): its records as HTML, a few at a time.

A log grows with the run (tinker-cookbook appends to it at every start, and a logged
trajectory group is a few KB), so the page is bounded: it shows the log's first
``HEAD_CHARS`` characters, then every warning and error up to ``NOTABLE_CHARS`` and
the first ``STARTS_LISTED`` starts of the run, then its last ``TAIL_CHARS``, and says where
and how much it left out
(a record counts its markup too: the page of a log of short records stays as small).
The counts in the page's summary are the whole log's.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import LogRecord
from .html import esc, esc_pre
from .text import fold_summary

LOG_PAGE = "logs.html"
HEAD_CHARS = 2 << 20
NOTABLE_CHARS = 2 << 20
TAIL_CHARS = 1 << 20
FOLD_LINES = 12  # a record of more lines is folded to its first ones
STARTS_LISTED = 1000  # starts named in the summary (a crash loop can restart thousands of times)

# the filter's classes: Python's levels, and "other" for custom ones and text before any record
LEVEL_CLASSES = ("debug", "info", "warning", "error", "other")
_CLASS = {"DEBUG": "debug", "INFO": "info", "WARNING": "warning", "WARN": "warning", "ERROR": "error"}
_CLASS.update(CRITICAL="error", FATAL="error")
NOTABLE = frozenset(("warning", "error"))


def level_class(level: str | None) -> str:
    """The filter class of a record's level."""
    return _CLASS.get(level or "", "other")


@dataclass(slots=True)
class LogSummary:
    """What the page's summary and the index say of the whole log."""

    lines: int = 0
    records: int = 0
    levels: Counter[str] = field(default_factory=Counter)  # by filter class
    starts: list[tuple[int, str]] = field(default_factory=list)  # (line, command line)
    n_starts: int = 0
    left_out_records: int = 0
    left_out_lines: int = 0
    left_out_notable: int = 0  # warnings and errors the page has no room for
    cut_records: int = 0  # records with a line or lines past what is kept
    replaced_line: int | None = None  # the first line with invalid UTF-8
    first: dict[str, int] = field(default_factory=dict)  # filter class -> its first record shown

    @property
    def classes(self) -> list[tuple[str, int]]:
        """The filter classes present, with their record counts, in LEVEL_CLASSES order."""
        return [(c, self.levels[c]) for c in LEVEL_CLASSES if self.levels[c]]


_MARKUP = 160  # about the bytes of a record's markup: a log of short records is mostly markup


def _size(rec: LogRecord) -> int:
    return sum(map(len, rec.lines)) + len(rec.lines) + _MARKUP


def _end_line(rec: LogRecord) -> int:
    return rec.line + len(rec.lines) - 1


def record_html(rec: LogRecord, start: int | None = None) -> str:
    """One record: its line number (a link to itself), level, logger and message; a long
    one folded to its first lines. ``start``: the run start it opens, counted from 1."""
    cls = level_class(rec.level)
    text = "\n".join(rec.lines)
    if rec.cut:
        text += f"\n… {rec.cut:,} more characters in logs.log"
    head = f'<a class="ln" href="#L{rec.line}">{rec.line}</a>'
    if rec.level is not None:
        head += f' <span class="lvl">{esc(rec.level)}</span>'
    if rec.source is not None:
        head += f' <span class="lsrc">{esc(rec.source)}</span>'
    title = ""
    if start is not None:
        title = (
            f'<h2 class="lstart" id="start-{start}">Start {start} <span class="subtle">(line {rec.line})</span></h2>\n'
        )
    if len(rec.lines) > FOLD_LINES:
        return (
            f'{title}<details class="lrec lv-{cls}" id="L{rec.line}"><summary>{head} '
            f'<span class="lsum">{esc(fold_summary(text))}</span></summary>'
            f'<pre class="lmsg">{esc_pre(text)}</pre></details>\n'
        )
    if "\n" not in text:  # on the line of its header
        return (
            f'{title}<div class="lrec lv-{cls}" id="L{rec.line}">{head} <span class="lmsg">{esc(text)}</span></div>\n'
        )
    return f'{title}<div class="lrec lv-{cls}" id="L{rec.line}">{head}<pre class="lmsg">{esc_pre(text)}</pre></div>\n'


def _gap_html(records: int, lines: int) -> str:
    word = "record" if records == 1 else "records"
    return (
        f'<p class="lgap">⋯ {lines:,} line{"s" if lines != 1 else ""} ({records:,} {word}) left out here: '
        "the page shows the log's start, its warnings, errors and starts, and its end ⋯</p>\n"
    )


def log_parts(records: Iterable[LogRecord]) -> tuple[LogSummary, list[str]]:
    """The page's records as HTML pieces, and the summary of the whole log; bounded in size
    and in memory whatever the log's length (see the module's docstring)."""
    summary = LogSummary()
    out: list[str] = []
    shown = notable_shown = 0
    tail: deque[tuple[LogRecord, int | None, int]] = deque()
    tail_size = 0
    gap_records = gap_lines = 0
    in_head = True

    def emit(rec: LogRecord, start: int | None) -> None:
        nonlocal gap_records, gap_lines
        if gap_records:
            out.append(_gap_html(gap_records, gap_lines))
            gap_records = gap_lines = 0
        out.append(record_html(rec, start))
        summary.first.setdefault(level_class(rec.level), rec.line)

    def leave_out(rec: LogRecord) -> None:
        nonlocal gap_records, gap_lines
        gap_records += 1
        gap_lines += len(rec.lines)
        summary.left_out_records += 1
        summary.left_out_lines += len(rec.lines)
        if level_class(rec.level) in NOTABLE:
            summary.left_out_notable += 1

    for rec in records:
        cls = level_class(rec.level)
        summary.records += 1
        summary.lines = _end_line(rec)
        summary.levels[cls] += 1
        summary.cut_records += bool(rec.cut)
        if rec.replaced and summary.replaced_line is None:
            summary.replaced_line = rec.line
        start: int | None = None
        if rec.starts_run:
            summary.n_starts += 1
            start = summary.n_starts
            if len(summary.starts) < STARTS_LISTED:
                summary.starts.append((rec.line, rec.lines[0].partition(":")[2].strip()))
        size = _size(rec)
        if in_head and shown + size <= HEAD_CHARS:
            shown += size
            emit(rec, start)
            continue
        in_head = False
        # the last TAIL_CHARS wait here; what leaves them is shown if notable and in room
        tail.append((rec, start, size))
        tail_size += size
        while tail_size > TAIL_CHARS and len(tail) > 1:
            old, old_start, old_size = tail.popleft()
            tail_size -= old_size
            if old_start is not None and old_start <= STARTS_LISTED:
                emit(old, old_start)  # the summary's list of starts links it
            elif level_class(old.level) in NOTABLE and notable_shown + old_size <= NOTABLE_CHARS:
                notable_shown += old_size
                emit(old, old_start)
            else:
                leave_out(old)
    for rec, start, _ in tail:
        emit(rec, start)
    return summary, out


def summary_text(summary: LogSummary) -> str:
    """The index's words for the log: its lines, starts, warnings and errors."""
    parts = [f"{summary.lines:,} line{'s' if summary.lines != 1 else ''}"]
    if summary.n_starts:
        parts.append(f"{summary.n_starts:,} start{'s' if summary.n_starts != 1 else ''}")
    for cls, word in (("warning", "warning"), ("error", "error")):
        n = summary.levels[cls]
        if n:
            parts.append(f"{n:,} {word}{'s' if n != 1 else ''}")
    return ", ".join(parts)
