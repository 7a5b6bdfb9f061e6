"""The command line: ``reportgen build``, ``reportgen index``, ``reportgen demo``.

Exit codes: 0 built (warnings on stderr), 1 bad input or I/O error (one
message naming the file and line, no traceback), 2 usage.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import __version__
from .errors import InputError, OutputError

if TYPE_CHECKING:
    from .site import BuildOptions
    from .sweep import SweepPlan


# what a terminal would act on rather than show: C0 and C1 controls (an escape sequence can
# set the window's title, move the cursor, or hide the lines before it) and the bidi controls
# that turn a line around; messages quote file names, metric names and lines of the input
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _terminal_safe(text: str) -> str:
    """``text`` with the controls a terminal would act on written as escapes (\\x1b, \\u202e)."""
    return _TERMINAL_CONTROLS.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def _echo(message: str, err: bool = False) -> None:
    click.echo(_terminal_safe(message), err=err)


def _fail(message: str) -> None:
    _echo(f"reportgen: error: {message}", err=True)
    sys.exit(1)


def _site_state(exc: BaseException) -> str:
    """What the failed build left in OUT: the previous site, unless the build had begun to move
    its files in, and then finished that (``site.build`` marks the exception)."""
    if getattr(exc, "reportgen_site_replaced", False):
        return "the new site was already being put in place and is complete"
    return "the previous site is untouched"


def internal_error(exc: BaseException) -> str:
    """One line for an unexpected error, pointing at where it happened."""
    import traceback

    tb = traceback.extract_tb(exc.__traceback__)
    where = f" (at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
    return (
        f"internal error {type(exc).__name__}: {exc}{where}; {_site_state(exc)}. "
        "Please report it with the input that caused it (REPORTGEN_DEBUG=1 shows the traceback)."
    )


class _Progress:
    """A one-line progress bar on a terminal, nothing when piped or quiet: the export read (a
    large observe export takes seconds), then the updates rendered, with the time left."""

    def __init__(self, enabled: bool, verb: str = "rendering") -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.verb = verb  # what is done to the updates after the export is read
        self.shown = False
        self.unit = ""
        self.began = 0.0
        self.width = 0  # of the line shown, blanked by the next one

    def __call__(self, done: int, total: int, unit: str = "pages") -> None:
        if not self.enabled or total <= 0:
            return
        now = time.monotonic()
        if unit != self.unit:  # a new phase: its own clock
            self.unit, self.began = unit, now
        width = 30
        filled = int(width * min(done, total) / total)
        bar = f"[{'#' * filled}{'.' * (width - filled)}]"
        if unit == "bytes":
            text = f"reading {bar} {done / 2**20:,.0f}/{total / 2**20:,.0f} MiB"
        else:
            text = f"{self.verb} {bar} {done:,}/{total:,} {unit}"
        elapsed = now - self.began
        if 0 < done < total and elapsed >= 2:  # a rate of the first second says little
            text += f", {_duration(elapsed * (total - done) / done)} left"
        # a line longer than the terminal wraps, and "\r" then rewrites only its last row
        cols = shutil.get_terminal_size((80, 24)).columns
        if len(text) >= cols:
            text = text[: max(1, cols - 1)]
        sys.stderr.write("\r" + text.ljust(min(self.width, max(1, cols - 1))))
        sys.stderr.flush()
        self.width = len(text)
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.shown = False


def _duration(seconds: float) -> str:
    """About how long: "8 s", "3 min 20 s", "2 h 5 min"."""
    s = max(1, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _live_report(bar: _Progress, quiet: bool) -> Callable[[str], None]:
    """What ``watch`` and ``serve`` say: warnings and errors on stderr, the rest on stdout
    unless ``quiet``; the progress bar cleared first."""

    def report(message: str) -> None:
        bar.close()
        if message.startswith("reportgen:"):
            _echo(message, err=True)
        elif not quiet or message.startswith("serving "):  # where to look, even when quiet
            _echo(message)

    return report


def _interval_option(with_watch: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--interval`` of ``build --watch`` and ``serve``."""
    what = "seconds between checks of the source (at least twice the last build)."
    return click.option(
        "--interval",
        type=click.FloatRange(min=0.1),
        default=2.0,
        show_default=True,
        help=f"With --watch: {what}" if with_watch else what.capitalize(),
    )


def _page_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--groups-per-page``, ``--jobs``, ``--markdown`` and ``--search``, of ``build`` and ``serve``."""
    f = click.option(
        "--search",
        type=click.Choice(["auto", "on", "off"]),
        default="auto",
        show_default=True,
        help="Add search.html, which searches every text of the run, and a data file beside each page "
        "(they repeat the texts; auto: unless the export is over 64 MiB).",
    )(f)
    f = click.option(
        "--markdown",
        type=click.Choice(["auto", "on", "off"]),
        default="auto",
        show_default=True,
        help="Add the rendered-markdown view of every text (auto: unless the export is over 64 MiB).",
    )(f)
    f = click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=0),
        default=0,
        help="Worker processes parsing a large observe export and rendering pages, or building the runs of a "
        "sweep (0: one per usable core, at most 8; at most 4 runs of a sweep at once, and fewer render "
        "workers when an update is so large that N would hold more than 400 MiB). The output does not depend on it.",
    )(f)
    return click.option(
        "--groups-per-page",
        type=click.IntRange(min=1),
        default=50,
        show_default=True,
        help="Groups per iteration page (a group of more than 1,024 members gets pages of its own).",
    )(f)


def _options(
    fmt: str | None,
    title: str | None,
    force: bool,
    groups_per_page: int,
    jobs: int,
    markdown: str,
    search: str = "auto",
) -> BuildOptions:
    """The build options of the command line (``--jobs 0``: one worker per usable core)."""
    from .site import BuildOptions, default_jobs

    return BuildOptions(
        fmt=fmt,
        title=title,
        force=force,
        groups_per_page=groups_per_page,
        jobs=jobs or default_jobs(),
        markdown=markdown,
        search=search,
    )


_QUIET = click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors.")
_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["observe", "tinker"]),
    default=None,
    help="Read SOURCE as this format (for a folder holding both, or nothing yet).",
)


def run_build(
    source: str,
    out: str,
    fmt: str | None,
    title: str | None,
    force: bool,
    quiet: bool,
    groups_per_page: int = 50,
    jobs: int = 0,
    markdown: str = "auto",
    search: str = "auto",
) -> None:
    """Build one site and report, mapping errors to exit codes."""
    from .site import build

    progress = _Progress(not quiet)
    try:
        with _exit_codes(before=progress.close):
            options = _options(fmt, title, force, groups_per_page, jobs, markdown, search)
            result = build(source, Path(out), options, progress)
    finally:
        progress.close()
    for w in result.warnings:
        _echo(f"reportgen: warning: {w}", err=True)
    if not quiet:
        _echo(result.summary())


def _stopped(exc: KeyboardInterrupt) -> None:
    """The end of a watch or a server: Ctrl-C, the way to stop one, exits 0; SIGTERM and
    SIGHUP exit 128 + the signal's number (143, 129), as a build they stop does."""
    if isinstance(exc, Terminated):
        sys.exit(128 + exc.signum)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, taken as Ctrl-C is: the build stops where it is and cleans up (its
    workers cancelled, its staging folder removed, a move into OUT finished)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminated(signum: int, _frame: Any) -> None:
    raise Terminated(signum)


class _Commands(click.Group):
    """The command group: an interrupt before a command's own handling begins (a SIGTERM
    while its modules load) still exits 130 or 128 + the signal, not click's "Aborted!" and
    1, the code of bad input."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            _echo(f"reportgen: interrupted; {_site_state(exc)}", err=True)
            sys.exit(128 + exc.signum if isinstance(exc, Terminated) else 130)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def main() -> None:
    """Turn the logs of an RL run into a static website.

    \b
    Example:
      reportgen build runs/42 -o site
      reportgen demo -o demo-site
    """
    # without these, `kill PID` ended the process where it stood: its staging folder left
    # for the next build to clean, `serve` gone without a word (a worker pool's processes
    # die with it: memory.ignore_interrupts)
    if threading.current_thread() is threading.main_thread():
        sigs = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
        # a signal ignored by whoever started us stays ignored (`nohup reportgen serve`)
        old = {sig: signal.signal(sig, _terminated) for sig in sigs if signal.getsignal(sig) is signal.SIG_DFL}
        click.get_current_context().call_on_close(lambda: [signal.signal(k, v) for k, v in old.items()])


@main.command()
@click.argument("sources", metavar="SOURCE...", nargs=-1, required=True)
@click.option(
    "-o", "--out", "out", required=True, type=click.Path(file_okay=False), help="Folder to write the site to."
)
@_FORMAT
@click.option("--title", default=None, help="The site's title (default: the run's folder name).")
@click.option(
    "--force", is_flag=True, help="Replace a non-empty folder that is not a reportgen site (its files are deleted)."
)
@_page_options
@click.option("--watch", is_flag=True, help="Keep the site current while the run grows (Ctrl-C stops).")
@_interval_option(with_watch=True)
@_QUIET
def build(
    sources: tuple[str, ...],
    out: str,
    fmt: str | None,
    title: str | None,
    force: bool,
    groups_per_page: int,
    jobs: int,
    markdown: str,
    search: str,
    watch: bool,
    interval: float,
    quiet: bool,
) -> None:
    """Build the site of the run at SOURCE into OUT, or one site for a sweep of runs.

    SOURCE is a folder holding observe.jsonl (or that file), or a
    tinker-cookbook log_path; a URL (s3://, gs://, memory://) works
    with the 'cloud' extra. A folder holding runs one level down, or
    several SOURCEs, make a sweep: a site per run in OUT/<run>/ and an
    index comparing them (see docs/publishing.md).

    \b
    Example:
      reportgen build runs/42 -o site
      reportgen build runs/42/observe/observe.jsonl -o site --title "GRPO 42"
      reportgen build s3://bucket/runs/exp1 -o site --format tinker
      reportgen build runs/ -o site --jobs 4
      reportgen build runs/41 runs/42 -o site --title "lr sweep"
    """
    from .sweep import plan_sweep

    given = click.get_current_context().get_parameter_source("interval")
    if not watch and given is not None and given.name == "COMMANDLINE":
        raise click.UsageError("--interval is the --watch's: add --watch, or leave it out")
    with _exit_codes():
        plan = plan_sweep(list(sources), Path(out))
    if watch:
        if plan is not None:
            raise click.UsageError("--watch follows one run: watch or serve each run of a sweep on its own")
        from .live import require_source
        from .live import watch as watch_run

        options = _options(fmt, title, force, groups_per_page, jobs, markdown, search)
        with _exit_codes():
            require_source(sources[0])  # a typo fails now, not after a wait
        if not quiet:
            _echo(f"watching {sources[0]} (Ctrl-C stops)")
        bar = _Progress(not quiet)
        # OUT refused at the first build, or anything the watch cannot go on after: one message
        with _exit_codes(before=bar.close):
            try:
                watch_run(
                    sources[0], Path(out), options, interval=interval, report=_live_report(bar, quiet), progress=bar
                )
            except KeyboardInterrupt as exc:
                bar.close()
                if not quiet:
                    _echo("stopped")
                _stopped(exc)
        return
    if plan is None:
        run_build(sources[0], out, fmt, title, force, quiet, groups_per_page, jobs, markdown, search)
    else:
        run_sweep(plan, out, fmt, title, force, quiet, groups_per_page, jobs, markdown, search)


@contextlib.contextmanager
def _exit_codes(before: Callable[[], None] | None = None) -> Iterator[None]:
    """Map errors to exit codes and one message; ``before`` runs first (clears a progress bar)."""
    try:
        yield
    except (InputError, OutputError) as exc:
        if before:
            before()
        _fail(str(exc))
    except OSError as exc:
        if before:
            before()
        _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    except KeyboardInterrupt as exc:
        if before:
            before()
        _echo(f"reportgen: interrupted; {_site_state(exc)}", err=True)
        sys.exit(128 + exc.signum if isinstance(exc, Terminated) else 130)
    except Exception as exc:  # a bug of ours: still one clear message, never a traceback
        if os.environ.get("REPORTGEN_DEBUG"):
            raise
        if before:
            before()
        _fail(internal_error(exc))


def run_sweep(
    plan: SweepPlan,
    out: str,
    fmt: str | None,
    title: str | None,
    force: bool,
    quiet: bool,
    groups_per_page: int = 50,
    jobs: int = 0,
    markdown: str = "auto",
    search: str = "auto",
) -> None:
    """Build a sweep (a site per run and the index comparing them) and report."""
    from .sweep import build_sweep

    bar = _Progress(not quiet, "building")

    def on_run(name: str, ok: bool, message: str) -> None:
        if ok and not quiet:
            bar.close()
            _echo(message)

    options = _options(fmt, title, force, groups_per_page, jobs, markdown, search)
    with _exit_codes(bar.close):
        result = build_sweep(
            plan,
            Path(out),
            options,
            jobs=options.jobs,
            on_run=on_run,
            progress=bar,
        )
        bar.close()
        for w in result.warnings:
            _echo(f"reportgen: warning: {w}", err=True)
        if not quiet:
            _echo(result.summary())


@main.command()
@click.argument("site", type=click.Path(file_okay=False))
@click.option("--title", default=None, help="The sweep's title (default: the one recorded, else the folder's name).")
@click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors.")
@click.option("--force", is_flag=True, help="Replace a SITE/index.html that reportgen did not write.")
def index(site: str, title: str | None, quiet: bool, force: bool) -> None:
    """Write SITE/index.html comparing the run sites in SITE/*/ (no source needed).

    Each run site carries run.json, a summary of itself; run sites built
    separately (on several CI machines) are assembled into one sweep by
    copying them into SITE and running this.

    \b
    Example:
      reportgen build runs/41 -o site/41 && reportgen build runs/42 -o site/42
      reportgen index site --title "lr sweep"
    """
    from .sweep import write_sweep_index
    from .views.text import counted

    with _exit_codes():
        result = write_sweep_index(Path(site), title, force=force)
        for w in result.warnings:
            _echo(f"reportgen: warning: {w}", err=True)
        if not quiet:
            _echo(f"wrote {result.path}: an index of {counted(result.runs, 'run')}")


@main.command()
@click.option("-o", "--out", "out", default="reportgen-demo", show_default=True, type=click.Path(file_okay=False))
@click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors.")
@click.option(
    "--force", is_flag=True, help="Replace a non-empty folder that is not a reportgen site (its files are deleted)."
)
def demo(out: str, quiet: bool, force: bool) -> None:
    """Build the bundled example runs into OUT and say where to open them.

    \b
    Example:
      reportgen demo -o demo-site
      xdg-open demo-site/index.html
    """
    from .demo_site import build_demo

    try:
        index = build_demo(Path(out), quiet=quiet, force=force)
    except (InputError, OutputError) as exc:
        _fail(str(exc))
        return
    _echo(f"open {index.resolve().as_uri()}")


@main.command()
@click.argument("source")
@click.option(
    "-o",
    "--out",
    "out",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder for the site (default: a temporary folder, removed when serve stops).",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0 picks a free port.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Bind another address only on purpose (other machines can then read the run; any Host header is answered).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a browser.")
@_FORMAT
@click.option("--title", default=None, help="The site's title.")
@click.option(
    "--force",
    is_flag=True,
    help="With -o: replace a non-empty folder that is not a reportgen site (its files are deleted).",
)
@_page_options
@_interval_option(with_watch=False)
@_QUIET
def serve(
    source: str,
    out: str | None,
    port: int,
    host: str,
    open_browser: bool,
    fmt: str | None,
    title: str | None,
    force: bool,
    groups_per_page: int,
    jobs: int,
    markdown: str,
    search: str,
    interval: float,
    quiet: bool,
) -> None:
    """Keep the site of a live run current and serve it read-only on 127.0.0.1.

    Open pages learn that new updates arrived; the index refreshes its charts.

    \b
    Example:
      reportgen serve runs/42 --open
      reportgen serve runs/42 -o site --port 8080
    """
    import tempfile

    from .live import PortError
    from .live import serve as serve_site

    # without -o the site lives in a temporary folder, removed when serve stops: a site per
    # session would otherwise pile up in /tmp, gigabytes each for a large run
    from .sweep import plan_sweep

    with _exit_codes():
        sweep = plan_sweep([source], Path(out) if out else None) is not None
    if sweep:
        raise click.UsageError("serve follows one run, and this is a folder of runs (a sweep): serve each run")
    scratch = None if out else Path(tempfile.mkdtemp(prefix="reportgen-serve-"))
    target = scratch / "site" if scratch is not None else Path(str(out))
    options = _options(fmt, title, force, groups_per_page, jobs, markdown, search)
    bar = _Progress(not quiet)
    try:
        # a port in use, OUT refused, or the watch's own failure: one message, as build's
        with _exit_codes(before=bar.close):
            try:
                serve_site(
                    source,
                    target,
                    options,
                    host=host,
                    port=port,
                    open_browser=open_browser,
                    interval=interval,
                    report=_live_report(bar, quiet),
                    progress=bar,
                )
            except KeyboardInterrupt as exc:
                bar.close()
                if not quiet:
                    _echo("stopped")
                _stopped(exc)
            except PortError as exc:
                _fail(str(exc.strerror))
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


@main.command("check")
@click.argument("source")
@_FORMAT
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (for CI) instead of text.")
def check_command(source: str, fmt: str | None, as_json: bool) -> None:
    """Validate an observe export or a tinker log_path and list its problems.

    Each problem names its file and line: torn tails, broken or unfinished
    batches, unreadable lines, unknown schema versions, invalid UTF-8, missing
    files. Exit 0: no problem; 1: problems (or unreadable). What a build says that is no
    fault of the files (NaN metrics, a resume, renamed labels) is a note, exit 0.

    \b
    Example:
      reportgen check runs/42
      reportgen check runs/exp1 --json > check.json
    """
    import json

    from .check import CheckReport, check

    bar = _Progress(True, "checking")
    try:
        report = check(source, fmt, bar)
    except Exception as exc:  # a bug of ours: still an answer, never a traceback
        if os.environ.get("REPORTGEN_DEBUG"):
            raise
        report = CheckReport(source=source, fatal=True)
        message = f"{type(exc).__name__}: {exc}; please report it (REPORTGEN_DEBUG=1 shows the traceback)"
        report.add(source, None, "internal error", message)
    finally:
        bar.close()
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
    else:
        for line in report.lines():
            _echo(line)
    sys.exit(0 if report.ok else 1)
