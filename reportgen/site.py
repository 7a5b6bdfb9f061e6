"""Writing the site folder: the last stage of the pipeline.

The site is built in a temporary folder beside OUT and swapped in only when
complete, so a failed or interrupted build leaves the previous site intact.
Every file name written is made by our code (page names from numbers,
labels sanitised), never taken raw from input.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from . import __version__
from .errors import InputError, OutputError
from .model import IterationRef, Run, page_name
from .resources import assets_dir, templates_dir
from .sources import Reader
from .sources.detect import open_source
from .views.index import index_context
from .views.iteration import iteration_context
from .views.logtree_export import logtree_bytes
from .views.text import fmt, line_count, pretty_json, safe_name

MARKER = ".reportgen-site"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


@dataclass
class BuildOptions:
    """What the user asked for."""

    fmt: str | None = None  # force "observe" or "tinker"
    title: str | None = None
    force: bool = False
    groups_per_page: int = 50


@dataclass
class BuildResult:
    """What the build did, for the summary line."""

    out: Path
    updates: int = 0
    rollouts: int = 0
    pages: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """The CLI's last line."""
        return (
            f"built {self.out}: {self.updates} updates, {self.rollouts} rollouts, "
            f"{self.pages} pages written in {self.seconds:.2f} s"
        )


def _rolecls(role: str) -> str:
    r = "".join(ch for ch in role.lower() if ch.isalnum() or ch == "-")
    return r or "other"


def make_env() -> Environment:
    """The Jinja environment: autoescape everywhere, strict undefined."""
    env = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["rolecls"] = _rolecls
    env.filters["linecount"] = lambda t: line_count(str(t))
    env.filters["tojson_text"] = lambda v: orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode()
    env.globals["fmt"] = fmt
    env.globals["version"] = __version__
    env.globals["csp"] = CSP
    env.globals["pretty_json"] = pretty_json
    return env


def _diff_lines(text: str) -> Iterator[tuple[str, str]]:
    for line in text.split("\n"):
        if line.startswith("+++") or line.startswith("---"):
            cls = "file"
        elif line.startswith("+"):
            cls = "add"
        elif line.startswith("-"):
            cls = "del"
        elif line.startswith("@@"):
            cls = "hunk"
        elif line.startswith("###") or line.startswith("diff "):
            cls = "file"
        else:
            cls = "ctx"
        yield cls, line


def is_site(path: Path) -> bool:
    """Whether a folder was written by reportgen."""
    return (path / MARKER).is_file()


def _prepare_staging(out: Path, force: bool) -> Path:
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a folder")
    if out.is_symlink():
        raise OutputError(f"{out} is a symbolic link; refusing to replace it")
    if out.is_dir() and any(out.iterdir()) and not is_site(out) and not force:
        raise OutputError(f"{out} is not empty and is not a reportgen site; choose another folder or pass --force")
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = parent / f".{out.name}.reportgen-tmp-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    return staging


def _swap(staging: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.reportgen-old-{os.getpid()}"
        if old.exists():
            shutil.rmtree(old)
        os.replace(out, old)
    os.replace(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


class SiteWriter:
    """Writes files below one folder, never outside it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.count = 0

    def write(self, name: str, data: bytes | str) -> None:
        """Write one file; ``name`` is relative and made by our code."""
        path = (self.root / name).resolve()
        if self.root not in path.parents:
            raise OutputError(f"refusing to write outside the site: {name!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        with open(path, "wb") as f:
            f.write(data)
        if name.endswith(".html"):
            self.count += 1


def copy_assets(dest: Path) -> None:
    """Copy our CSS/JS and the vendored libraries into the site."""
    shutil.copytree(assets_dir(), dest / "assets", dirs_exist_ok=True)


def _nav_label(ref: IterationRef, fmt_name: str) -> str:
    word = "update" if fmt_name == "observe" else "step"
    return f"{word} {ref.number}"


def _page_title(run: Run, ref: IterationRef) -> str:
    if ref.kind == "eval":
        return f"Eval {ref.label}, step {ref.number}"
    return f"Update {ref.number}" if run.format == "observe" else f"Iteration {ref.number}"


def render_run(
    reader: Reader,
    run: Run,
    writer: SiteWriter,
    env: Environment,
    site_title: str,
    progress: Callable[[int, int], None] | None = None,
    up: tuple[str, str] | None = None,
    groups_per_page: int = 50,
) -> int:
    """Render every page of one run into ``writer``; returns rollouts seen."""
    common: dict[str, Any] = {
        "site_title": site_title,
        "root": "",
        "source": run.source,
        "up": up[0] if up else None,
        "up_label": up[1] if up else None,
    }
    page_tpl = env.get_template("iteration.html" if run.format == "observe" else "tinker_iteration.html")
    rollouts = 0
    sequences: list[list[IterationRef]] = [[r for r in run.iterations if r.has_texts]]
    for label in sorted(run.evals):
        sequences.append([r for r in run.evals[label] if r.has_texts])
    total = sum(len(s) for s in sequences)
    done = 0
    for seq in sequences:
        for i, ref in enumerate(seq):
            it = reader.load(ref)
            rollouts += ref.rollouts
            first = ref.page
            logtree_name = first[: -len(".html")] + "_logtree.json"
            prev_ref = seq[i - 1] if i > 0 else None
            next_ref = seq[i + 1] if i + 1 < len(seq) else None
            raw = reader.logtree_bytes(ref)
            writer.write(logtree_name, raw if raw is not None else logtree_bytes(run, it, first))
            all_groups = it.groups
            n_pages = max(1, -(-len(all_groups) // groups_per_page))
            for p in range(1, n_pages + 1):
                it.groups = all_groups[(p - 1) * groups_per_page : p * groups_per_page]
                ctx = iteration_context(run, it, prev_ref, next_ref)
                ctx.update(common)
                ctx["page_title"] = _page_title(run, ref) + (f" (page {p} of {n_pages})" if n_pages > 1 else "")
                ctx["prev_label"] = _nav_label(prev_ref, run.format) if prev_ref else ""
                ctx["next_label"] = _nav_label(next_ref, run.format) if next_ref else ""
                ctx["logtree_name"] = logtree_name
                ctx["pages"] = [(q, page_name(ref.kind, ref.label, ref.number, q)) for q in range(1, n_pages + 1)]
                ctx["page_no"] = p
                ctx["group_offset"] = (p - 1) * groups_per_page
                ctx["n_groups_total"] = len(all_groups)
                writer.write(page_name(ref.kind, ref.label, ref.number, p), page_tpl.render(ctx))
            it.groups = all_groups
            done += 1
            if progress:
                progress(done, total)
            del it, ctx, all_groups
    ctx = index_context(run, site_title)
    ctx.update(common)
    writer.write("index.html", env.get_template("index.html").render(ctx))
    if run.code_diff is not None:
        writer.write(
            "code_diff.html",
            env.get_template("code_diff.html").render({**common, "lines": list(_diff_lines(run.code_diff))}),
        )
    return rollouts


def build(
    source: str,
    out: Path,
    options: BuildOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BuildResult:
    """Build the site of one run from ``source`` into ``out``."""
    options = options or BuildOptions()
    t0 = time.perf_counter()
    reader = open_source(source, options.fmt)
    run = reader.scan()
    out = Path(out)
    staging = _prepare_staging(out, options.force)
    try:
        writer = SiteWriter(staging)
        env = make_env()
        title = options.title or run.title or "run"
        rollouts = render_run(reader, run, writer, env, title, progress, groups_per_page=options.groups_per_page)
        copy_assets(staging)
        writer.write(".nojekyll", b"")
        writer.write(
            MARKER,
            orjson.dumps({"generator": "reportgen", "version": __version__, "format": run.format, "title": title}),
        )
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        close = getattr(reader, "close", None)
        if close:
            close()
    return BuildResult(
        out=out,
        updates=len(run.iterations),
        rollouts=rollouts,
        pages=writer.count,
        seconds=time.perf_counter() - t0,
        warnings=list(run.warnings),
    )


__all__ = ["BuildOptions", "BuildResult", "build", "InputError", "OutputError", "safe_name"]
