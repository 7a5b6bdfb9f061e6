"""``reportgen demo``: build the bundled example runs and a page listing them."""

from __future__ import annotations

from pathlib import Path

from .resources import demo_dir
from .site import BuildOptions, build
from .sweep import write_runs_index


def build_demo(out: Path, quiet: bool = False) -> Path:
    """Build every bundled run under ``out/<name>/``; returns the top index."""
    runs = []
    out.mkdir(parents=True, exist_ok=True)
    for src in sorted(p for p in demo_dir().iterdir() if p.is_dir() and not p.name.startswith("_")):
        result = build(str(src), out / src.name, BuildOptions(title=f"demo: {src.name}", force=True))
        if not quiet:
            print(result.summary())
        runs.append(src.name)
    return write_runs_index(out, runs, title="reportgen demo")
