"""The page of a run's own log (tinker's ``logs.log``): its records as HTML, a few at a time.

A log grows with the run (tinker-cookbook appends to it at every start, and a logged
trajectory group is a few KB), so the page is bounded whatever the log's length. It shows
the log's first ``HEAD_BYTES``; past them, the log's first error and first warning, then
errors up to ``ERROR_BYTES`` and warnings up to ``WARNING_BYTES`` (each its own room: a
flood of warnings never crowds out an error), the run's starts up to ``START_BYTES``; then
the log's last ``TAIL_BYTES``. It says where and how much it left out. A record is counted
by at least the bytes it will take in the page (its texts escaped, in UTF-8, and its
markup), a gap marker with the record after it. The counts in the page's summary are the
whole log's.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model import LOG_SEVERITIES, LogRecord
from .html import esc, esc_pre
from .text import cut_clusters, fold_summary

LOG_PAGE = "logs.html"
LOG_SHARD = "logs_search.js"  # the records the page shows, for search.html (views.search's format)
HEAD_BYTES = 2 << 20
ERROR_BYTES = 1 << 20
WARNING_BYTES = 1 << 20
START_BYTES = 256 << 10
TAIL_BYTES = 1 << 20
FOLD_LINES = 12  # a record of more lines is folded to its first ones
STARTS_LISTED = 1000  # starts named in the summary (a crash loop can restart thousands of times)
COMMAND_SHOWN = 200  # characters of a start's command line in the summary's list
ERROR_QUOTED = 200  # characters of the first error's message the index quotes

NOTABLE = {"error": ERROR_BYTES, "warning": WARNING_BYTES}  # a severity with a room of its own

_MARKUP = 200  # the bytes of a record's markup, and of the "more characters" note
_GAP = 200  # about the bytes of a gap marker


@dataclass(slots=True)
class LogSummary:
    """What the page's summary and the index say of the whole log."""

    lines: int = 0
    records: int = 0
    levels: Counter[str] = field(default_factory=Counter)  # by severity (the filter's classes)
    starts: list[tuple[int, str]] = field(default_factory=list)  # shown starts: (line, command line)
    n_starts: int = 0
    left_out_records: int = 0
    left_out_lines: int = 0
    left_out_notable: int = 0  # warnings and errors the page has no room for
    cut_records: int = 0  # records with a line or lines past what is kept
    replaced_line: int | None = None  # the first line with invalid UTF-8
    first: dict[str, int] = field(default_factory=dict)  # severity -> its first record shown
    first_error: str = ""  # the first error's message, on one line, cut (the index quotes it)

    @property
    def classes(self) -> list[tuple[str, int]]:
        """The severities present, with their record counts, in LOG_SEVERITIES order."""
        return [(c, self.levels[c]) for c in LOG_SEVERITIES if self.levels[c]]


def _bytes(text: str) -> int:
    """At least the bytes of ``text`` escaped, in UTF-8: each of < > & " ' as an entity."""
    n = len(text.encode("utf-8", "replace"))
    if "<" in text or ">" in text or "&" in text or '"' in text or "'" in text:
        n += 3 * (text.count("<") + text.count(">")) + 4 * (text.count("&") + text.count('"') + text.count("'"))
    return n


def _size(rec: LogRecord) -> int:
    """At least the bytes the record takes in the page: its texts escaped, in UTF-8 (the
    logger's name and level too: either may be a line's 16 KiB), the summary of a folded
    one (its first lines again, at most), and its markup."""
    n = _MARKUP + _bytes(rec.source or "") + _bytes(rec.level or "")
    longest = 0
    for line in rec.lines:
        k = _bytes(line)
        n += k + 1
        longest = max(longest, k)
    if len(rec.lines) > FOLD_LINES:  # two of its lines, cut at 160 clusters (a cluster may be long)
        n += 2 * longest + 64
    return n


def record_html(rec: LogRecord, start: int | None = None) -> str:
    """One record: its line number (a link to itself), level, logger and message; a long
    one folded to its first lines. ``start``: the run start it opens, counted from 1."""
    cls = rec.severity
    text = "\n".join(rec.lines)
    if rec.cut:
        text += f"\n… {rec.cut:,} more characters in logs.log"
    link = f'<a class="ln" href="#L{rec.line}">{rec.line}</a>'
    about = ""
    if rec.level is not None:
        about += f' <span class="lvl">{esc(rec.level)}</span>'
    if rec.source is not None:
        about += f' <span class="lsrc">{esc(rec.source)}</span>'
    head = link + about
    title = ""
    if start is not None:
        title = (
            f'<h2 class="lstart" id="start-{start}">Start {start} <span class="subtle">(line {rec.line})</span></h2>\n'
        )
    if len(rec.lines) > FOLD_LINES:
        # the line's link beside the fold, not in its summary: a link inside a summary is a
        # control inside a control (a keyboard or a screen reader reaches one of them)
        return (
            f'{title}<div class="lrec lv-{cls} lfold" id="L{rec.line}">{link}<details><summary>{about} '
            f'<span class="lsum">{esc(fold_summary(text, rec.n_lines))}</span></summary>'
            f'<pre class="lmsg">{esc_pre(text)}</pre></details></div>\n'
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


def log_parts(records: Iterable[LogRecord], items: list[list[Any]] | None = None) -> tuple[LogSummary, list[str]]:
    """The page's records as HTML pieces, and the summary of the whole log; bounded in size
    and in memory whatever the log's length (see the module's docstring). ``items``: filled
    with the shown records as search items (``views.search.shard_items``' form)."""
    summary = LogSummary()
    out: list[str] = []
    shown = 0
    used = {"error": 0, "warning": 0, "start": 0}
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
        if rec.severity not in summary.first and rec.severity == "error":
            text = rec.gist()
            summary.first_error = text if len(text) <= ERROR_QUOTED else cut_clusters(text, ERROR_QUOTED) + "…"
        summary.first.setdefault(rec.severity, rec.line)
        if items is not None:
            who = " ".join(x for x in (f"line {rec.line}", rec.level, rec.source) if x)
            items.append([0, f"L{rec.line}", who, None, "\n".join(rec.lines)])
        if start is not None and len(summary.starts) < STARTS_LISTED:  # the list links shown starts only
            command = rec.lines[0].partition(":")[2].strip()
            summary.starts.append(
                (rec.line, cut_clusters(command, COMMAND_SHOWN) + ("…" if len(command) > COMMAND_SHOWN else ""))
            )

    def leave_out(rec: LogRecord) -> None:
        nonlocal gap_records, gap_lines
        gap_records += 1
        gap_lines += rec.n_lines
        summary.left_out_records += 1
        summary.left_out_lines += rec.n_lines
        if rec.severity in NOTABLE:
            summary.left_out_notable += 1

    def room_for(rec: LogRecord, start: int | None, size: int) -> bool:
        """Whether a record past the head and leaving the tail is shown: the log's first error
        and warning always, then each class while its room lasts."""
        cls = rec.severity
        if cls in NOTABLE and (cls not in summary.first or used[cls] + size <= NOTABLE[cls]):
            used[cls] += size
            return True
        if start is not None and used["start"] + size <= START_BYTES:
            used["start"] += size
            return True
        return False

    for rec in records:
        cls = rec.severity
        summary.records += 1
        summary.lines = rec.line + rec.n_lines - 1
        summary.levels[cls] += 1
        summary.cut_records += bool(rec.cut)
        if rec.replaced and summary.replaced_line is None:
            summary.replaced_line = rec.line
        start: int | None = None
        if rec.starts_run:
            summary.n_starts += 1
            start = summary.n_starts
        size = _size(rec)
        if in_head and shown + size <= HEAD_BYTES:
            shown += size
            emit(rec, start)
            continue
        in_head = False
        # the last TAIL_BYTES wait here; what leaves them is shown if there is room for it
        tail.append((rec, start, size))
        tail_size += size
        while tail_size > TAIL_BYTES and len(tail) > 1:
            old, old_start, old_size = tail.popleft()
            tail_size -= old_size
            if room_for(old, old_start, old_size + (_GAP if gap_records else 0)):
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
