"""``reportgen demo``: build the bundled example runs as one sweep site."""

from __future__ import annotations

from pathlib import Path

from .resources import demo_dir
from .site import BuildOptions
from .sweep import SweepPlan, build_sweep, unique_names


def build_demo(out: Path, quiet: bool = False, force: bool = False) -> Path:
    """Build every bundled run under ``out/<name>/`` and the index comparing them; returns the index."""
    sources = [str(p) for p in sorted(demo_dir().iterdir()) if p.is_dir() and not p.name.startswith("_")]
    plan = SweepPlan(list(zip(unique_names(sources), sources)), "reportgen demo", "the bundled example runs")

    def on_run(name: str, ok: bool, message: str) -> None:
        if ok and not quiet:
            print(message)

    build_sweep(plan, out, BuildOptions(title="reportgen demo", force=force), on_run=on_run)
    return out / "index.html"
