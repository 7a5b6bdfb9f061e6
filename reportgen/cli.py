"""The command line: ``reportgen build``, ``reportgen demo``.

Exit codes: 0 built (warnings on stderr), 1 bad input or I/O error (one
message naming the file and line, no traceback), 2 usage.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import __version__
from .errors import InputError, OutputError


def _fail(message: str) -> None:
    click.echo(f"reportgen: error: {message}", err=True)
    sys.exit(1)


def internal_error(exc: BaseException) -> str:
    """One line for an unexpected error, pointing at where it happened."""
    import traceback

    tb = traceback.extract_tb(exc.__traceback__)
    where = f" (at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
    return (
        f"internal error {type(exc).__name__}: {exc}{where}; the previous site is untouched. "
        "Please report it with the input that caused it (REPORTGEN_DEBUG=1 shows the traceback)."
    )


class _Progress:
    """A one-line progress bar on a terminal, nothing when piped or quiet."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        width = 30
        filled = int(width * done / total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} pages")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


def run_build(
    source: str, out: str, fmt: str | None, title: str | None, force: bool, quiet: bool, groups_per_page: int = 50
) -> None:
    """Build one site and report, mapping errors to exit codes."""
    from .site import BuildOptions, build

    progress = _Progress(not quiet)
    try:
        result = build(
            source,
            Path(out),
            BuildOptions(fmt=fmt, title=title, force=force, groups_per_page=groups_per_page),
            progress,
        )
    except (InputError, OutputError) as exc:
        progress.close()
        _fail(str(exc))
        return
    except OSError as exc:
        progress.close()
        _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return
    except KeyboardInterrupt:
        progress.close()
        click.echo("reportgen: interrupted; the previous site is untouched", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug of ours: still one clear message, never a traceback
        progress.close()
        if os.environ.get("REPORTGEN_DEBUG"):
            raise
        _fail(internal_error(exc))
        return
    progress.close()
    for w in result.warnings:
        click.echo(f"reportgen: warning: {w}", err=True)
    if not quiet:
        click.echo(result.summary())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def main() -> None:
    """Turn the logs of an RL run into a static website.

    \b
    Example:
      reportgen build runs/42 -o site
      reportgen demo -o demo-site
    """


@main.command()
@click.argument("source")
@click.option(
    "-o", "--out", "out", required=True, type=click.Path(file_okay=False), help="Folder to write the site to."
)
@click.option("--format", "fmt", type=click.Choice(["observe", "tinker"]), default=None, help="Force the input format.")
@click.option("--title", default=None, help="The site's title (default: the run's folder name).")
@click.option("--force", is_flag=True, help="Write into a non-empty folder that is not a reportgen site.")
@click.option(
    "--groups-per-page", type=click.IntRange(min=1), default=50, show_default=True, help="Groups per iteration page."
)
@click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors.")
def build(
    source: str, out: str, fmt: str | None, title: str | None, force: bool, groups_per_page: int, quiet: bool
) -> None:
    """Build the site of the run at SOURCE into OUT.

    SOURCE is a folder holding observe.jsonl (or that file), or a
    tinker-cookbook log_path; a URL (s3://, gs://, memory://) works
    with the 'cloud' extra.

    \b
    Example:
      reportgen build runs/42 -o site
      reportgen build runs/42/observe/observe.jsonl -o site --title "GRPO 42"
      reportgen build s3://bucket/runs/exp1 -o site --format tinker
    """
    run_build(source, out, fmt, title, force, quiet, groups_per_page)


@main.command()
@click.option("-o", "--out", "out", default="reportgen-demo", show_default=True, type=click.Path(file_okay=False))
@click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors.")
def demo(out: str, quiet: bool) -> None:
    """Build the bundled example runs into OUT and say where to open them.

    \b
    Example:
      reportgen demo -o demo-site
      xdg-open demo-site/index.html
    """
    from .demo_site import build_demo

    try:
        index = build_demo(Path(out), quiet=quiet)
    except (InputError, OutputError) as exc:
        _fail(str(exc))
        return
    click.echo(f"open {index.resolve().as_uri()}")
