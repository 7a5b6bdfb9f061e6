"""The top-level page of a folder holding several run sites."""

from __future__ import annotations

from pathlib import Path

import orjson

from . import __version__
from .site import MARKER, make_env


def write_runs_index(out: Path, names: list[str], title: str) -> Path:
    """Write ``out/index.html`` listing the run sites found under ``out``."""
    runs = []
    for name in names:
        meta = {}
        marker = out / name / MARKER
        if marker.is_file():
            try:
                meta = orjson.loads(marker.read_bytes())
            except orjson.JSONDecodeError:
                meta = {}
        runs.append({"name": name, "href": f"{name}/index.html", "meta": meta})
    env = make_env()
    html = env.get_template("runs_index.html").render(
        {"runs": runs, "site_title": title, "root": "", "source": str(out), "up": None, "up_label": None}
    )
    path = out / "index.html"
    path.write_text(html, encoding="utf-8")
    (out / MARKER).write_bytes(orjson.dumps({"generator": "reportgen", "version": __version__, "format": "runs"}))
    return path
