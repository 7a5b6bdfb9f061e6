"""``reportgen check SOURCE``: what is wrong with an export or a log_path, line by line.

The check runs the readers exactly as a build does (``scan`` and then ``load``
of every iteration), so it finds what a build would warn about and nothing it
would not read.  The observe reader reports each skipped line, broken batch,
torn tail and non-finite metric (a note: the run's NaN, not a fault) through its ``notes`` hook; the tinker reader
names file and line in its warnings.  A few things no build needs are looked at
here only: torn tails of tinker's JSONL files, ``schema_version`` of rollout
summaries, files an iteration should have and does not, and the errors and warnings a
tinker run logged in ``logs.log`` (notes: what the run logged is no fault of its files).

Nothing is written; the input is opened read-only, as by a build.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import InputError
from .model import IterationRef, Run
from .sources import Progress
from .sources.detect import open_source
from .sources.jsonl import LineError, brief, parse_line
from .sources.tinker import SUMMARY_VERSIONS
from .storage import shown_text
from .views.text import counted

MAX_PROBLEMS = 10_000  # kept in full; the counts go on past it

# reader warnings that the observe notes already list line by line
_OBSERVE_DETAILED = (
    "unreadable or stray line",
    "broken off by a newer one",
    "the last batch is unfinished",
    "the last line is incomplete",
    "held invalid UTF-8",
)
# the tinker reader's warning for a flat file that an iteration_NNNNNN/ file replaces
_BOTH_LAYOUTS = "holds the same file in the iteration_NNNNNN/ layout"
_WHERE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<message>.*)$", re.S)
_UTF8 = re.compile(r"^(?P<file>.+?): (?P<n>\d+) line\(s\) held invalid UTF-8")


def _one(plural: str) -> str:
    """ "1 evaluators" -> "1 evaluator": the facts' names are plural nouns, the last word in -s."""
    return plural[:-1] if plural.endswith("s") and not plural.endswith("ss") else plural


@dataclass
class Problem:
    """One thing wrong, where it is."""

    file: str
    line: int | None
    kind: str
    message: str

    def text(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class CheckReport:
    """Everything ``reportgen check`` found."""

    source: str
    format: str | None = None
    problems: list[Problem] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    facts: dict[str, Any] = field(default_factory=dict)
    # what a build says about the input that is not wrong with it (a renamed evaluator
    # label, a resumed run): listed, but the exit code stays 0
    notes: list[str] = field(default_factory=list)
    fatal: bool = False  # the input could not be read to its end
    seconds: float = 0.0
    _seen: set[tuple[str, int | None, str, str]] = field(default_factory=set, repr=False)

    @property
    def ok(self) -> bool:
        """No problem at all."""
        return not self.counts

    def add(self, file: str, line: int | None, kind: str, message: str) -> None:
        """Record one problem (duplicates are dropped)."""
        # file names may hold undecodable bytes (surrogates): printable text only
        file = file.encode("utf-8", "replace").decode("utf-8")
        message = message.encode("utf-8", "replace").decode("utf-8")
        key = (file, line, kind, message)
        if key in self._seen:
            return
        self._seen.add(key)
        self.counts[kind] += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(file, line, kind, message))

    def summary(self) -> str:
        """The last line of the text output (a count of one in the singular)."""
        what = f"{self.source} ({self.format or 'unknown format'})"
        if self.ok:
            facts = ", ".join(
                f"{v:,} {_one(k.replace('_', ' ')) if v == 1 else k.replace('_', ' ')}"
                for k, v in self.facts.items()
                if isinstance(v, int) and not isinstance(v, bool)
            )
            return f"reportgen check: {what}: no problem found ({facts})"
        total = sum(self.counts.values())
        kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"reportgen check: {what}: {counted(total, 'problem')}: {kinds}"

    def lines(self) -> list[str]:
        """The text output, one problem a line, then the notes and the summary."""
        out = [p.text() for p in self.problems]
        total = sum(self.counts.values())
        if total > len(self.problems):
            out.append(f"… and {total - len(self.problems)} more")
        out.extend(f"note: {n}" for n in self.notes)
        out.append(self.summary())
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` output."""
        return {
            "source": self.source,
            "format": self.format,
            "ok": self.ok,
            "fatal": self.fatal,
            "counts": dict(sorted(self.counts.items())),
            "total": sum(self.counts.values()),
            "facts": self.facts,
            "notes": self.notes,
            "problems": [asdict(p) for p in self.problems],
            "seconds": round(self.seconds, 3),
        }


def check(source: str, fmt: str | None = None, progress: Progress | None = None) -> CheckReport:
    """Check one observe export or tinker log_path; never raises for bad input.

    ``progress(done, total, unit)`` as a build's: the bytes scanned, then the iterations loaded."""
    t0 = time.perf_counter()
    report = CheckReport(source=source)
    try:
        reader = open_source(source, fmt)
    except InputError as exc:
        report.fatal = True
        detail = exc.detail
        if fmt is None:
            from .sweep import plan_sweep

            try:
                plan = plan_sweep([source])
            except InputError:
                plan = None
            if plan is not None:  # a folder of runs, as build takes it: say so, and how
                names = ", ".join(name for name, _ in plan.runs[:5]) + (" …" if len(plan.runs) > 5 else "")
                runs = counted(len(plan.runs), "run")
                detail = f"a folder of {runs} (a sweep: {names}); check each run: reportgen check RUN"
        report.add(exc.path or source, exc.line, "unreadable source", detail)
        report.seconds = time.perf_counter() - t0
        return report
    try:
        from .sources.observe import ObserveReader

        if isinstance(reader, ObserveReader):
            report.format = "observe"
            _check_observe(reader, report, progress)
        else:
            report.format = "tinker"
            _check_tinker(reader, report, progress)
    finally:
        close = getattr(reader, "close", None)
        if close:
            close()
    report.seconds = time.perf_counter() - t0
    return report


def _load_all(reader: Any, run: Run, report: CheckReport, default_file: str, progress: Progress | None) -> None:
    """Load every iteration with texts, as a build would; their warnings become problems."""
    refs: list[IterationRef] = [r for r in run.iterations if r.has_texts]
    for label in sorted(run.evals):
        refs.extend(r for r in run.evals[label] if r.has_texts)
    rollouts = 0
    unexported: list[str] = []  # iterations whose logtree shows groups the summaries do not hold
    unit = run.iterations_word
    for done, ref in enumerate(refs):
        if progress is not None:
            progress(done, len(refs), unit)
        what = ("update" if run.format == "observe" else "step") + f" {ref.number}"
        if ref.kind == "eval":
            what = f"evaluator {ref.label}, step {ref.number}"
        try:
            it = reader.load(ref)
        except InputError as exc:
            report.add(exc.path or default_file, exc.line, "unreadable file", f"{what}: {exc.detail}")
            continue
        rollouts += ref.rollouts
        for w in it.warnings:
            if "schema_version" in w:
                continue  # listed line by line by _scan_jsonl, as "unknown version"
            if _UNEXPORTED_GROUPS in w:
                # groups tinker logged and did not export (failed; constant reward in stream
                # and async modes, spec §6): what the run did, one note for the run
                unexported.append(what)
                continue
            said = w.partition(": ")[2].startswith(f"{what}: ")  # the reader named the update
            _add_warning(report, w, default_file, "iteration warning", prefix="" if said else f"{what}: ")
    if unexported:
        shown = ", ".join(unexported[:5]) + (" …" if len(unexported) > 5 else "")
        report.notes.append(
            f"{counted(len(unexported), 'iteration')} logged groups that match no exported group (failed, or of "
            f"constant reward in stream and async modes; their pages show them apart): {shown}"
        )
    report.facts["with_texts"] = len(refs)  # iterations whose texts were read (a page or more each)
    report.facts["rollouts"] = rollouts


def _add_warning(report: CheckReport, warning: str, default_file: str, kind: str, prefix: str = "") -> None:
    """A reader warning as a problem; ``file:line: ...`` warnings keep their place."""
    m = _UTF8.match(warning)
    if m:
        report.add(m.group("file"), None, "invalid UTF-8", f"{m.group('n')} line(s) replaced by U+FFFD")
        return
    m = _WHERE.match(warning)
    if m:
        message = m.group("message")
        report.add(m.group("file"), int(m.group("line")), _kind(message, "unreadable line"), prefix + message)
        return
    root = default_file.rstrip("/")
    head, sep, rest = warning.partition(": ")
    if sep and (head == root or head.startswith(root + "/")):
        report.add(head, None, _kind(rest, kind), prefix + rest)
    else:
        report.add(default_file, None, _kind(warning, kind), prefix + warning)


def _kind(message: str, default: str) -> str:
    low = message.lower()
    if "read as this file's" in low:
        return "misplaced line"  # read, as the file's: not an unreadable one
    if "invalid utf-8" in low:
        return "invalid UTF-8"
    if "bad json line" in low or "not an object" in low:
        return "unreadable line"
    if "not valid json" in low or "bad logtree json" in low:
        return "unreadable file"
    return default


# ---------------------------------------------------------------- observe
def _check_observe(reader: Any, report: CheckReport, progress: Progress | None) -> None:
    reader.notes = []
    path = reader.path
    try:
        run = reader.scan(progress=progress)
        run.warnings.extend(reader.storage.refused_warnings())
    except InputError as exc:
        for line, kind, message in reader.notes:
            report.add(path, line, kind, message)
        report.fatal = True
        report.add(
            exc.path or path,
            exc.line,
            "unknown version" if "schema version" in exc.detail else "unreadable file",
            exc.detail,
        )
        return
    nonfinite: dict[str, list[int]] = {}
    for line, kind, message in reader.notes:
        if kind == "non-finite metric":
            nonfinite.setdefault(message.rpartition(" = ")[0], []).append(line)
        else:
            report.add(path, line, kind, message)
    # a null metric is how the writer says NaN or infinity (observe-spec §0, §7.16): what the
    # run computed, not something wrong with the export; one note a metric
    for name, lines in sorted(nonfinite.items()):
        shown = ", ".join(map(str, lines[:5])) + (" …" if len(lines) > 5 else "")
        report.notes.append(
            shown_text(
                f"{path}:{lines[0]}: {name}: {len(lines)} NaN or infinite value(s) (line {shown}); charts leave them out"
            )
        )
    if not reader.storage.is_file(reader.file):
        # observe-spec §1.3 rule 9: an empty export, not an error (a run that wrote nothing yet)
        report.notes.append(shown_text(f"{path}: no observe.jsonl: the export is empty"))
    for w in run.warnings:
        if any(marker in w for marker in _OBSERVE_DETAILED) or "no observe.jsonl here" in w:
            continue
        # what reportgen shows of the run, not a fault of it; and the structural holes, which
        # are evidence of dropped batches (observe-spec §1.2), not a fault of the file
        if _METRIC_NAMES_BOUND in w or any(marker in w for marker in _STRUCTURAL_HOLES):
            report.notes.append(shown_text(f"{path}: {w}"))
            continue
        _add_warning(report, w, path, "run")
    report.facts.update(
        updates=len(run.iterations),
        segments=len(run.segments),
        lines=int(run.info.get("lines", 0)),
    )
    _load_all(reader, run, report, path, progress)


# ----------------------------------------------------------------- tinker
def _jsonl_files(reader: Any, run: Run) -> list[str]:
    st = reader.storage
    names = st.listdir("")
    files = [n for n in names if n.endswith(".jsonl") or ".jsonl." in n]
    for refs in [run.iterations, *run.evals.values()]:
        for ref in refs:
            loc = ref.locator if isinstance(ref.locator, dict) else {}
            if loc.get("summaries"):
                files.append(loc["summaries"])
    return sorted(set(files))


def _scan_jsonl(reader: Any, rel: str, report: CheckReport, summaries: bool) -> int | None:
    """Torn tail and summary versions of one JSONL file; returns the torn line's number."""
    st = reader.storage
    display = st.display(rel)
    torn: int | None = None
    try:
        with st.open(rel) as f:
            lineno = 0
            last = b""
            for raw in f:
                lineno += 1
                last = raw
                if summaries and raw.strip():
                    try:
                        rec, _ = parse_line(raw)
                    except LineError:
                        continue
                    if isinstance(rec, dict) and "schema_version" in rec:
                        v = rec["schema_version"]
                        if isinstance(v, bool) or v not in SUMMARY_VERSIONS:
                            report.add(display, lineno, "unknown version", f"schema_version {brief(v)} (reads 1)")
            if last and not last.endswith(b"\n") and last.strip():
                try:
                    parse_line(last)
                except LineError:
                    torn = lineno
                    report.add(display, lineno, "torn tail", f"the last line is cut ({len(last)} bytes, no newline)")
    except InputError as exc:
        report.add(display, None, "unreadable file", exc.detail)
    except OSError as exc:
        report.add(display, None, "unreadable file", str(exc))
    return torn


# the tinker reader's warning of logged group sections without an exported group (build_groups)
_UNEXPORTED_GROUPS = "match no group of the rollout summaries"
# the warning of model.MetricTable.left_out_warning: a limit of the site, a note
_METRIC_NAMES_BOUND = "distinct metric names:"
# observe-spec §1.2: the signs of dropped batches (the writer drops under back-pressure, and
# says so in a metric), and an update without its record: what the run did, not a fault of
# the file, so notes (exit 0), as the missing numbers and the updates due for texts are
_STRUCTURAL_HOLES = (
    "are missing from the list",
    "were due for texts",
    "export batch(es) were dropped",
    "have no update record",
)
# tinker metrics that are not numbers: nothing makes them numbers (spec §3), what the run logged
_NOT_NUMBERS = "are not numbers (strings, booleans"


def _check_tinker(reader: Any, report: CheckReport, progress: Progress | None) -> None:
    st = reader.storage
    try:
        run = reader.scan()
        run.warnings.extend(reader.storage.refused_warnings())
    except InputError as exc:
        report.fatal = True
        report.add(exc.path or st.display(), exc.line, "unreadable file", exc.detail)
        return
    names = set(st.listdir(""))
    for required, why in (("metrics.jsonl", "no metrics: the index has no numbers"), ("config.json", "no config")):
        if required not in names:
            report.add(st.display(required), None, "missing file", why)
    torn: dict[str, int] = {}
    for rel in _jsonl_files(reader, run):
        t = _scan_jsonl(reader, rel, report, summaries=rel.endswith("_rollout_summaries.jsonl"))
        if t is not None:
            torn[st.display(rel)] = t
    for w in run.warnings:
        m = _WHERE.match(w)
        if m and torn.get(m.group("file")) == int(m.group("line")):
            continue  # the torn tail, already listed
        if (
            w.startswith(("evaluator file label", "run resumed at step"))
            or _BOTH_LAYOUTS in w
            or _METRIC_NAMES_BOUND in w
            or _NOT_NUMBERS in w
        ):
            # facts about the layout, not problems: what build says, without a failing exit
            report.notes.append(shown_text(w))
            continue
        _add_warning(report, w, st.display(), "run")
    # tinker writes NaN and Infinity as bare tokens by design (spec §3: json.dumps with
    # allow_nan), and a metric that is NaN is what the run computed: a note, not a problem
    nonfinite = run.info.get("nonfinite_metrics") or {}
    for key, lines in sorted(nonfinite.items()):
        shown = ", ".join(map(str, lines[:5])) + (" …" if len(lines) > 5 else "")
        report.notes.append(
            shown_text(
                f"{st.display('metrics.jsonl')}:{lines[0]}: {key}: {len(lines)} NaN or infinite value(s) (line {shown}); "
                "charts leave them out"
            )
        )
    unstepped = run.info.get("unstepped_metrics") or []
    if unstepped:
        report.notes.append(
            f"{st.display('metrics.jsonl')}: {len(unstepped)} row(s) without a step (discarded work): "
            "listed on the index"
        )
    report.facts.update(
        iterations=len(run.iterations),
        evaluators=len(run.evals),
        metrics_rows=len(run.metrics),
    )
    _check_log(reader, report)
    before = sum(report.counts.values())
    # trace_events.jsonl, which the build converts line by line: its bad lines, as it warns of them
    trace: list[str] = []
    events = reader.trace_records(trace)
    if events is not None:
        try:
            for _ in events:
                pass
        except InputError as exc:
            report.add(exc.path or st.display(), exc.line, "unreadable file", exc.detail)
        for w in trace:
            _add_warning(report, w, st.display(), "run")
    _load_all(reader, run, report, st.display(), progress)
    # torn tails read again by load(): listed once
    if sum(report.counts.values()) != before:
        _drop_torn_duplicates(report, torn)
    # after load(), which marks an iteration (train or evaluator) whose logtree ends with an
    # exception past the tail the scan looks at
    for refs in [run.iterations, *run.evals.values()]:
        for ref in refs:
            loc = ref.locator if isinstance(ref.locator, dict) else {}
            where = st.display(loc.get("logtree") or loc.get("html") or loc.get("summaries") or "")
            for note in ref.notes:
                if "tinker skipped the batch" in note:  # what the run did, not a fault of its files
                    report.notes.append(f"{where}: {_what(ref)}: {note}")
                elif "no rollout summaries" in note:
                    report.add(where, None, "missing file", f"{_what(ref)}: {note}")
                elif "exception" in note:
                    report.add(where, None, "crashed iteration", f"{_what(ref)}: {note}")


# C0 and C1 controls of a log's text, shown escaped: a terminal would obey an escape sequence
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _one_line(text: str, limit: int = 200) -> str:
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if len(text) <= limit else text[:limit] + "…"


def _check_log(reader: Any, report: CheckReport) -> None:
    """The run's own log (logs.log), read as a build reads it for its page: unreadable or
    invalid UTF-8 is a problem (a build warns of it); its errors and warnings are notes,
    the first of each quoted (what the run logged is no fault of the files)."""
    log = getattr(reader, "log_records", None)
    records = log() if log is not None else None
    if records is None:
        return
    name = reader.storage.display(getattr(reader, "log_file", "logs.log"))
    counts: Counter[str] = Counter()
    first: dict[str, tuple[int, str]] = {}
    replaced: int | None = None
    lines = 0
    try:
        for rec in records:
            lines = rec.line + rec.n_lines - 1
            if rec.replaced and replaced is None:
                replaced = rec.line
            cls = rec.severity
            if cls in ("error", "warning"):
                counts[cls] += 1
                first.setdefault(cls, (rec.line, rec.gist()))
    except InputError as exc:
        report.add(exc.path or name, exc.line, "unreadable file", exc.detail)
        return
    except OSError as exc:
        report.add(name, None, "unreadable file", str(exc.strerror or exc))
        return
    if replaced is not None:
        report.add(name, replaced, "invalid UTF-8", "replaced by U+FFFD")
    for cls in ("error", "warning"):
        if counts[cls]:
            line, text = first[cls]
            report.notes.append(
                shown_text(
                    f"{name}:{line}: {counts[cls]:,} {cls} record(s) in the run's log; the first: {_one_line(text)}"
                )
            )
    report.facts["log_lines"] = lines


def _what(ref: IterationRef) -> str:
    return f"evaluator {ref.label}, step {ref.number}" if ref.kind == "eval" else f"step {ref.number}"


def _drop_torn_duplicates(report: CheckReport, torn: dict[str, int]) -> None:
    keep = []
    for p in report.problems:
        if p.kind == "unreadable line" and torn.get(p.file) == p.line:
            report.counts[p.kind] -= 1
            if not report.counts[p.kind]:
                del report.counts[p.kind]
            continue
        keep.append(p)
    report.problems = keep


__all__ = ["CheckReport", "Problem", "check"]
