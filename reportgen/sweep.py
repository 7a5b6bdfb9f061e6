"""Sweeps: one site for several runs, and each run's ``run.json``.

Every run site carries ``run.json``, a small summary of itself (see
:func:`run_summary`), so that the top-level page of a sweep can be made again
from the run sites alone, without their sources: ``reportgen index SITE``
reads ``SITE/*/run.json``.  Run sites can therefore be built separately (on
several CI machines) and assembled later.

A sweep site::

    site/
      index.html          the runs compared: a sortable, filterable table and overlaid curves
      sweep_data.js       the curves and page lists for assets/sweep.js
      assets/             the same assets as a run site
      <run>/              one complete run site per run (its own assets/, run.json)

Nothing written depends on the time of the build or on the order in which
runs finish, so ``--jobs N`` writes the same bytes as a serial build.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from . import __version__, trust
from .errors import InputError, OutputError
from .memory import ignore_interrupts
from .model import Run, page_name
from .site import (
    MARKER,
    BuildOptions,
    _prepare_staging,
    _swap,
    build,
    make_env,
    replace_assets,
    replace_file,
)
from .sources import Progress
from .storage import Storage, is_url, shown_text
from .views.charts import eval_prefixes
from .views.index import model_file_name
from .views.text import FOLDER_NAME_BYTES, counted, cut_utf8, folder_name, script_json

SUMMARY_FILE = "run.json"
SCHEMA = "reportgen-run/1"
SUMMARY_LIMIT = 256 << 20  # a run.json read by `reportgen index` (68,089 updates wrote 0.3 MiB)
DATA_FILE = "sweep_data.js"
MAX_POINTS = 2000  # per series in run.json
SWEEP_POINTS = 400  # at most, per series drawn on the sweep page
CHART_POINTS = 6_000  # at most, per chart of the sweep page (fewer points per series when many runs)
RESERVED = {"assets", "index.html", DATA_FILE}
# config keys that name the run rather than set it up: never a "difference" of a sweep
IDENTITY_KEYS = {"log_path", "wandb_name", "wandb_project", "session_name", "base_url", "run_name", "name"}
# shown in their own columns already
SHOWN_KEYS = {"model_name", "loss_fn", "algorithm", "model"}
MAX_CONFIG_COLUMNS = 16
MAX_CONFIG_TEXT = 200


@dataclass(frozen=True)
class KeyMetric:
    """A curve the sweep page overlays: which metric plays the role in each format."""

    key: str
    title: str
    observe: tuple[str, ...]
    tinker: tuple[str, ...]


KEY_METRICS = (
    KeyMetric("reward", "reward", ("reward/mean",), ("env/all/reward/total", "reward/total")),  # rl_loop.py: the latter
    KeyMetric("correct", "correct", (), ("env/all/correct",)),
    KeyMetric("kl", "KL", ("policy/kl",), ("optim/kl_sample_train_v1", "optim/kl_sample_train_v2")),
    KeyMetric("entropy", "entropy", ("policy/entropy",), ("optim/entropy",)),
    KeyMetric("length", "completion length (tokens)", ("completions/length_mean",), ("env/all/ac_tokens_per_turn",)),
)
EVAL_KEY = "eval"


# ---------------------------------------------------------------- run.json


def _finite(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _num(v: float) -> float | int:
    """An integral float as an int (shorter JSON, same value)."""
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def metric_series(run: Run, name: str) -> tuple[list[int], list[float]]:
    """(steps, values) of a metric, sorted by step, finite values only."""
    mt = run.metrics
    col = mt.columns.get(name)
    if col is None:
        return [], []
    # in C where it can: a pair a value and a sort were 30 ms of every rebuild of 19,370 updates
    finite = list(map(math.isfinite, col))
    xs, ys = list(compress(mt.steps, finite)), list(compress(col, finite))
    if xs != sorted(xs):  # steps arrive in order but for a resume's redone updates
        pairs = sorted(zip(xs, ys))
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    return xs, ys


def downsample(xs: list[int], ys: list[float], limit: int) -> tuple[list[int], list[float]]:
    """At most ``limit`` points: per bucket its lowest and highest point, in order; first and last kept."""
    n = len(xs)
    if n <= limit:
        return list(xs), list(ys)
    buckets = max(1, (limit - 2) // 2)
    keep = {0, n - 1}
    for b in range(buckets):
        lo = 1 + (n - 2) * b // buckets
        hi = 1 + (n - 2) * (b + 1) // buckets
        if lo >= hi:
            continue
        part = ys[lo:hi]  # min() and index() of a slice: in C (a key function was 16 ms a rebuild)
        keep.add(lo + part.index(min(part)))  # the first lowest, as min() by key gives it
        keep.add(lo + part.index(max(part)))
    order = sorted(keep)
    return [xs[i] for i in order], [ys[i] for i in order]


def _series_json(xs: list[int], ys: list[float], limit: int = MAX_POINTS) -> dict[str, Any]:
    xs, ys = downsample(xs, ys, limit)
    return {"x": xs, "y": [_num(y) for y in ys], "n": len(xs)}


def _pick_metric(run: Run, names: Iterable[str]) -> str | None:
    for name in names:
        if run.metrics.has_finite(name):
            return name
    return None


def _eval_choice(run: Run) -> list[dict[str, Any]]:
    """Per evaluator: the metric scoring it and its last finite value."""
    out = []
    for label, prefix in sorted(eval_prefixes(run)):  # with pages or only in the metrics
        metric = _pick_metric(run, (f"{prefix}/env/all/reward/total", f"{prefix}/env/all/correct"))
        if metric is None:
            continue
        xs, ys = metric_series(run, metric)
        out.append({"label": label, "metric": metric, "step": xs[-1], "value": _num(ys[-1])})
    return out


def run_status(run: Run) -> tuple[str, str]:
    """``finished``, ``crashed`` or ``live``, with the reason (see docs/publishing.md)."""
    if run.format == "tinker":
        final = [c for c in run.checkpoints if c.final]
        if final:
            return "finished", f"final checkpoint {final[-1].name!r} saved"
        # an evaluator that raised stops the run as a train iteration does (evaluations run
        # at the start of a step, before its metrics are logged)
        crashed = sorted(
            (r for refs in (run.iterations, *run.evals.values()) for r in refs if r.status == "crashed"),
            key=lambda r: (r.number, r.kind == "train"),
        )
        last_metrics = max(run.metrics.steps, default=-1)
        if crashed and crashed[-1].number >= last_metrics:
            last = crashed[-1]
            what = (
                f"iteration {last.number}"
                if last.kind == "train"
                else f"evaluator {last.label!r} at step {last.number}"
            )
            return "crashed", f"{what} did not finish, and nothing was logged after it"
        if crashed or run.info.get("crashed"):
            return "live", "an iteration crashed, but the run went on (resumed); no final checkpoint yet"
        return "live", "no final checkpoint: the run is still going, or was stopped"
    if not run.iterations:
        return "live", "no update yet"
    last = run.iterations[-1]
    total = run.params.get("updates")
    if last.status == "incomplete":
        return "crashed", f"update {last.number} has no update record: the run stopped in the middle of it"
    if isinstance(total, int) and not isinstance(total, bool) and last.number >= total:
        return "finished", f"update {last.number} of {total} done"
    of = f" of {total}" if isinstance(total, int) and not isinstance(total, bool) else ""
    return "live", f"update {last.number}{of} done: the run is still going, or was stopped"


def _flat_value(v: Any) -> Any:
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        return v if len(v) <= MAX_CONFIG_TEXT else v[:MAX_CONFIG_TEXT] + "…"
    return v


def flatten_config(value: Any, prefix: str = "", out: dict[str, Any] | None = None, depth: int = 0) -> dict[str, Any]:
    """Scalar values of a nested config, keys joined with ``.``; short lists of scalars as JSON text."""
    out = {} if out is None else out
    if not isinstance(value, dict) or depth > 8:
        return out
    for k, v in value.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            flatten_config(v, key + ".", out, depth + 1)
        elif v is None or isinstance(v, str | int | float | bool):
            out[key] = _flat_value(v)
        elif isinstance(v, list) and len(v) <= 8 and all(x is None or isinstance(x, str | int | float) for x in v):
            try:
                text = orjson.dumps([_flat_value(x) for x in v]).decode()
            except TypeError:  # an integer past 64 bits
                text = json.dumps([_flat_value(x) for x in v])
            out[key] = _flat_value(text)
    return out


def run_summary(run: Run, title: str) -> dict[str, Any]:
    """The content of ``run.json`` (documented in docs/publishing.md)."""
    series: dict[str, Any] = {}
    reward: dict[str, Any] | None = None
    for km in KEY_METRICS:
        metric = _pick_metric(run, km.observe if run.format == "observe" else km.tinker)
        if metric is None:
            continue
        xs, ys = metric_series(run, metric)
        series[km.key] = {"metric": metric, **_series_json(xs, ys)}
        if km.key == "reward":
            best = ys.index(max(ys))  # the first best
            reward = {
                "metric": metric,
                "final": _num(ys[-1]),
                "final_step": xs[-1],
                "best": _num(ys[best]),
                "best_step": xs[best],
            }
    evals = _eval_choice(run)
    chosen = next((e for e in evals if e["label"] == "test"), evals[0] if evals else None)
    if chosen is not None:
        xs, ys = metric_series(run, chosen["metric"])
        series[EVAL_KEY] = {"metric": chosen["metric"], "label": chosen["label"], **_series_json(xs, ys)}
    status, reason = run_status(run)
    config_src = run.config if run.format == "tinker" else run.params
    steps = [r.number for r in run.iterations]
    return {
        "schema": SCHEMA,
        "generator": "reportgen",
        "version": __version__,
        "title": title,
        "format": run.format,
        "source": run.source,
        "algorithm": run.algorithm,
        "model": run.model,
        # as the index counts them: tinker's final step (evaluation, totals) is no iteration
        "iterations": run.trained_count(),
        "first_step": steps[0] if steps else None,
        "last_step": steps[-1] if steps else None,
        "status": status,
        "status_reason": reason,
        "reward": reward,
        "eval": chosen,
        "evals": evals,
        "warnings": len(run.warnings),
        "config": flatten_config(config_src),
        "series": series,
        "pages": {
            "train": [r.number for r in run.iterations if r.has_texts],
            "eval": {label: [r.number for r in refs if r.has_texts] for label, refs in sorted(run.evals.items())},
        },
    }


def summary_bytes(run: Run, title: str) -> bytes:
    """``run.json`` as written into a run site (strict JSON, indented, keys in a fixed order)."""
    summary = run_summary(run, title)
    try:
        return orjson.dumps(summary, option=orjson.OPT_INDENT_2) + b"\n"
    except (TypeError, orjson.JSONEncodeError):  # integers past 64 bits or deep values from a config
        from .views.text import pretty_json

        return pretty_json(summary).encode("utf-8", "replace") + b"\n"


# ---------------------------------------------------------------- finding the runs of a sweep


@dataclass
class SweepPlan:
    """The runs of a sweep: (name in the site, source), and what was passed over."""

    runs: list[tuple[str, str]]
    title: str
    source: str
    skipped: list[str] = field(default_factory=list)


def _is_run(source: str) -> bool:
    from .sources.detect import open_source

    try:
        reader = open_source(source)
    except InputError:
        return False
    close = getattr(reader, "close", None)
    if close:
        close()
    return True


def _join(parent: str, name: str) -> str:
    if is_url(parent):
        return parent.rstrip("/") + "/" + name
    return os.path.join(parent, name)


def _base_name(source: str) -> str:
    """The folder name naming a run: ``runs/42``, ``runs/42/observe`` and ``runs/42/observe/observe.jsonl`` give 42."""
    if is_url(source):
        parts = [p for p in source.split("://", 1)[1].split("/") if p]
    else:
        parts = [p for p in Path(os.path.abspath(source.removeprefix("file://"))).parts if p not in ("/", "\\")]
    if parts and parts[-1].endswith(".jsonl") and len(parts) > 1:
        parts.pop()
    if parts and parts[-1] == "observe" and len(parts) > 1:
        parts.pop()
    return shown_text(parts[-1]) if parts else "run"


def unique_names(sources: list[str]) -> list[str]:
    """A safe, distinct folder name per source (``views.text.folder_name``: letters and digits
    of any script kept; distinct case-insensitively, by ``str.casefold``; never ``assets``;
    at most ``FOLDER_NAME_BYTES`` bytes of UTF-8 with the ``-2`` that tells two apart).

    A run whose own name is already a safe folder name keeps it whatever runs join the
    sweep: ``run_1`` stays ``run_1`` when a ``run 1`` is added beside it (which takes
    ``run_1-2``), so the links shared to it go on opening it."""
    raws = [_base_name(src) for src in sources]
    bases = []
    for raw in raws:
        base = folder_name(raw)
        bases.append(base + "_run" if base.casefold() in RESERVED else base)
    taken: set[str] = set()
    names: list[str | None] = [None] * len(sources)
    # first the names that are their run's own, then the others
    order = sorted(range(len(sources)), key=lambda i: bases[i] != raws[i])
    for i in order:
        base = bases[i]
        name, k = base, 2
        while name.casefold() in taken:
            suffix = f"-{k}"
            name, k = cut_utf8(base, FOLDER_NAME_BYTES - len(suffix)).rstrip("._") + suffix, k + 1
        taken.add(name.casefold())
        names[i] = name
    return [n for n in names if n is not None]


def plan_sweep(sources: list[str], out: Path | None = None) -> SweepPlan | None:
    """The sweep that ``build`` should make of ``sources``, or None for a single run.

    One source that is a run is a single run.  One source that is not a run but
    holds runs one level down is a sweep of them.  Several sources are a sweep
    of those sources, which must each be a run.
    """
    if len(sources) == 1:
        src = sources[0]
        if _is_run(src):
            return None
        storage = Storage(src)
        if storage.remote:
            if not storage.is_dir():
                return None
        elif not os.path.isdir(src):
            return None
        out_real = os.path.realpath(out) if out is not None else None
        found: list[str] = []
        skipped: list[str] = []
        for name in storage.listdir(follow=True):
            if name.startswith(".") or name.startswith("_") or not storage.is_dir(name, follow=True):
                continue
            sub = _join(src, name)
            if out_real is not None and not is_url(sub) and os.path.realpath(sub) == out_real:
                continue
            if not is_url(sub) and (Path(sub) / MARKER).is_file():
                skipped.append(f"{name} (a reportgen site)")
            elif _is_run(sub):
                found.append(sub)
            else:
                skipped.append(name)
        if not found:
            return None
        found.sort(key=lambda s: natural_key(_base_name(s)))
        return SweepPlan(list(zip(unique_names(found), found)), _base_name(src), src, skipped)
    for src in sources:
        if not _is_run(src):
            from .sources.detect import open_source

            open_source(src)  # raises the reader's own message
    parents = {
        os.path.dirname(os.path.abspath(s)) if not is_url(s) else s.rstrip("/").rsplit("/", 1)[0] for s in sources
    }
    title = _base_name(parents.pop()) if len(parents) == 1 else "sweep"
    return SweepPlan(list(zip(unique_names(sources), sources)), title, " ".join(sources))


# a number in a run's name: decimal digits of any script (\d: "٣" is 3; "²" is no decimal
# digit and stays a letter), a decimal part, an exponent, so that a sweep of lr_0.0005 ...
# lr_0.003 or lr_3e-5, lr_1e-4 sorts by value
_NUMBER = re.compile(r"(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")


def _number(token: str) -> float | int:
    return int(token) if token.isdigit() else float(token)


def natural_key(name: str) -> list[Any]:
    """Sort key putting run2 before run10, and lr_0.0005 before lr_0.001 (sweep.js's
    ``naturalCompare`` orders the table's names alike)."""
    return [(0, _number(t), "") if _NUMBER.fullmatch(t) else (1, 0, t.lower()) for t in _NUMBER.split(name) if t]


# ---------------------------------------------------------------- building a sweep


@dataclass
class SweepResult:
    """What a sweep build did, for the CLI."""

    out: Path
    runs: int = 0
    updates: int = 0
    rollouts: int = 0
    pages: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """The CLI's last line."""
        return (
            f"built {self.out}: a sweep of {counted(self.runs, 'run')}, {counted(self.updates, 'update')}, "
            f"{counted(self.rollouts, 'rollout')}, {counted(self.pages, 'page')} written in {self.seconds:.2f} s"
        )


def _build_one(
    source: str, out: str, options: BuildOptions, shown: str
) -> tuple[bool, str, list[str], tuple[int, int, int]]:
    """Build one run of a sweep (in a worker process or not); never raises for bad input.

    ``shown`` is the run's folder as the user will see it (``out`` is in the staging folder).
    """
    try:
        res = build(source, Path(out), options)
        res.out = Path(shown)
    except (InputError, OutputError) as exc:
        return False, str(exc), [], (0, 0, 0)
    except OSError as exc:
        return False, f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "), [], (0, 0, 0)
    except Exception as exc:  # a bug of ours: reported as the run's failure, the other runs still build
        if os.environ.get("REPORTGEN_DEBUG"):
            raise
        return False, f"internal error {type(exc).__name__}: {exc}", [], (0, 0, 0)
    return True, res.summary(), list(res.warnings), (res.updates, res.rollouts, res.pages)


# runs built at once, whatever the number of cores: each build holds its run's whole index
# (36-141 MiB for the 190 MiB benchmarks, a few MiB for the runs of a typical sweep), and
# each would start render workers of its own; 4 was the default before --jobs went up to 8
SWEEP_JOBS = 4


def build_sweep(
    plan: SweepPlan,
    out: Path,
    options: BuildOptions | None = None,
    jobs: int = 1,
    on_run: Callable[[str, bool, str], None] | None = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Build every run of ``plan`` under ``out/<name>/`` and the sweep's index; atomic like ``build``.

    ``progress(done, total, "runs")`` is called as the runs are built (after ``on_run``).

    ``options.title`` is the sweep's title; each run is titled by its name. A run
    that fails is left out with a warning; if every run fails, the build fails.
    """
    options = options or BuildOptions()
    t0 = time.perf_counter()
    out = Path(out)
    title = options.title or plan.title
    staging = _prepare_staging(out, options.force, [src for _name, src in plan.runs])
    result = SweepResult(out=out)
    try:
        # a run's pages are titled by its folder's own name when no other run has it (the
        # site's folder name is that name made safe for file names), else by the site's folder name
        bases = [_base_name(src) for _name, src in plan.runs]
        title_of = {
            name: base if bases.count(base) == 1 and base.strip() else name
            for (name, _src), base in zip(plan.runs, bases)
        }
        run_opts = [
            BuildOptions(
                fmt=options.fmt,
                title=title_of[name],
                force=True,
                groups_per_page=options.groups_per_page,
                jobs=1 if jobs > 1 and len(plan.runs) > 1 else options.jobs,  # parallel runs, or parallel pages
                up=("../index.html", title),
                incremental=options.incremental,
                markdown=options.markdown,
                search=options.search,
                # the run's folder in the sweep already there (if it is a site): its unchanged pages are reused
                previous=out / name,
            )
            for name, _src in plan.runs
        ]
        outs = [str(staging / name) for name, _src in plan.runs]
        outcomes: list[tuple[bool, str, list[str], tuple[int, int, int]]] = []

        def done(name: str) -> None:
            if on_run:
                on_run(name, outcomes[-1][0], outcomes[-1][1])
            if progress:
                progress(len(outcomes), len(plan.runs), "runs")

        if progress:
            progress(0, len(plan.runs), "runs")
        if jobs > 1 and len(plan.runs) > 1:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
            with ProcessPoolExecutor(
                max_workers=min(jobs, len(plan.runs), SWEEP_JOBS), mp_context=ctx, initializer=ignore_interrupts
            ) as pool:
                futures: list[Future[Any]] = [
                    pool.submit(_build_one, src, o, opt, str(out / n))
                    for (n, src), o, opt in zip(plan.runs, outs, run_opts)
                ]
                try:
                    for (name, _src), fut in zip(plan.runs, futures):
                        outcomes.append(fut.result())
                        done(name)
                except BaseException:  # Ctrl-C: the runs not begun are not built
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
        else:
            for (name, src), o, opt in zip(plan.runs, outs, run_opts):
                outcomes.append(_build_one(src, o, opt, str(out / name)))
                done(name)
        failed = []
        for (name, _src), (ok, message, warnings, counts) in zip(plan.runs, outcomes):
            if not ok:
                failed.append(f"{name}: {message}")
                result.warnings.append(f"run {name} left out of the sweep: {message}")
                continue
            result.runs += 1
            result.updates += counts[0]
            result.rollouts += counts[1]
            result.pages += counts[2]
            result.warnings.extend(f"{name}: {w}" for w in warnings)
        if not result.runs:
            raise InputError("no run of the sweep could be built: " + "; ".join(failed))
        if plan.skipped:
            result.warnings.append(f"not runs, left out: {', '.join(plan.skipped)}")
        left_out = failed + [f"{name}: not a run" for name in plan.skipped]
        _write_marker(staging, title, plan.source, left_out)
        result.pages += write_sweep_index(staging).pages
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result.seconds = time.perf_counter() - t0
    return result


def _write_marker(site: Path, title: str, source: str, left_out: list[str] | None = None) -> None:
    (site / MARKER).write_bytes(_marker_bytes(title, source, left_out))


def _marker_bytes(title: str, source: str, left_out: list[str] | None = None) -> bytes:
    marker: dict[str, Any] = {
        "generator": "reportgen",
        "version": __version__,
        "format": "sweep",
        "title": shown_text(title),
        "source": shown_text(source),
    }
    if left_out:  # runs the build could not read: the index says so, and `reportgen index` again
        marker["left_out"] = [shown_text(x) for x in left_out]
    return orjson.dumps(marker)


# ---------------------------------------------------------------- the sweep's index page


@dataclass
class IndexResult:
    """What ``write_sweep_index`` wrote."""

    path: Path
    runs: int
    pages: int = 1
    warnings: list[str] = field(default_factory=list)


def _ours(page: Path) -> bool:
    """Whether a page says reportgen wrote it (its generator meta tag, in its head): a site
    downloaded from a CI artifact has lost its hidden marker file, not its pages."""
    if page.is_symlink():
        return False
    try:
        with open(page, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return b'<meta name="generator" content="reportgen ' in head


def _read_marker(site: Path) -> dict[str, Any]:
    raw = trust.read_regular(site / MARKER, 1 << 20)  # not /dev/zero behind a link, nor a FIFO
    try:
        meta = orjson.loads(raw) if raw is not None else None
    except orjson.JSONDecodeError:
        return {}
    return meta if isinstance(meta, dict) else {}


def load_summaries(site: Path) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """(folder name, run.json) of every run site below ``site``, in natural name order; warnings."""
    found: list[tuple[str, dict[str, Any]]] = []
    warnings: list[str] = []
    entries = sorted((p for p in site.iterdir() if p.is_dir()), key=lambda p: natural_key(p.name))
    for d in entries:
        if d.name.startswith(".") or d.name in RESERVED:
            continue
        f = d / SUMMARY_FILE
        if not f.is_file():
            if _read_marker(d).get("format") == "sweep":
                warnings.append(f"{d.name}: a sweep site, not a run site; left out")
            elif (d / MARKER).is_file():
                warnings.append(f"{d.name}: a run site without {SUMMARY_FILE} (built by an older reportgen?); left out")
            continue
        raw = trust.read_regular(f, SUMMARY_LIMIT)  # a sparse file of gigabytes took all memory
        if raw is None:
            warnings.append(f"{f}: not a regular file of at most {SUMMARY_LIMIT >> 20} MiB; left out")
            continue
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            warnings.append(f"{f}: not valid JSON ({exc}); left out")
            continue
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            warnings.append(f"{f}: not a {SCHEMA} summary; left out")
            continue
        problem = _summary_problem(data)
        if problem is not None:
            warnings.append(f"{f}: its {problem!r} field is not what reportgen writes there; left out")
            continue
        found.append((d.name, data))
    return found, warnings


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_num(v: Any) -> bool:
    return v is None or (isinstance(v, int | float) and not isinstance(v, bool))


def _is_text(v: Any) -> bool:
    return v is None or isinstance(v, str)


# the fields of run.json the index reads, with what run_summary writes in them: a summary
# edited by hand (or by someone else) with another shape is left out with its field named,
# where it raised AttributeError or a template's UndefinedError
_SUMMARY_FIELDS: dict[str, Callable[[Any], bool]] = {
    "title": _is_text,
    "format": _is_text,
    "algorithm": _is_text,
    "model": _is_text,
    "status": _is_text,
    "status_reason": _is_text,
    "iterations": _is_int,
    "last_step": lambda v: v is None or _is_int(v),
    "config": lambda v: isinstance(v, dict),
    "pages": lambda v: isinstance(v, dict),
    "series": lambda v: isinstance(v, dict) and all(isinstance(x, dict) for x in v.values()),
    "reward": lambda v: (
        v is None
        or (
            isinstance(v, dict)
            and isinstance(v.get("metric"), str)
            and _is_num(v.get("final"))
            and _is_num(v.get("best"))
            and _is_int(v.get("final_step"))
            and _is_int(v.get("best_step"))
        )
    ),
    "eval": lambda v: (
        v is None
        or (
            isinstance(v, dict)
            and isinstance(v.get("label"), str)
            and isinstance(v.get("metric"), str)
            and _is_int(v.get("step"))
            and _is_num(v.get("value"))
        )
    ),
}


def _summary_problem(data: dict[str, Any]) -> str | None:
    """The first field of a run.json that the index could not read; None if none."""
    for name, ok in _SUMMARY_FIELDS.items():
        if name in data and not ok(data[name]):
            return name
    return None


def _fmt_cell(v: Any) -> str:
    """A config value as set: exact (1.1e-05 and 1e-05 must not both read 0.0000)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def _sort_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int | float):
        return repr(v)
    return str(v)


def varying_keys(summaries: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    """(format, config key) that differ between runs of the same format, in first-seen order."""
    by_format: dict[str, list[dict[str, Any]]] = {}
    for _name, s in summaries:
        cfg = s.get("config")
        by_format.setdefault(str(s.get("format")), []).append(cfg if isinstance(cfg, dict) else {})
    out: list[tuple[str, str]] = []
    missing = object()
    for fmt_name in sorted(by_format):
        configs = by_format[fmt_name]
        if len(configs) < 2:
            continue
        keys: dict[str, None] = {}
        for cfg in configs:
            keys.update(dict.fromkeys(cfg))
        for key in keys:
            last = key.rsplit(".", 1)[-1]
            if key in SHOWN_KEYS or last in IDENTITY_KEYS:
                continue
            values = {orjson.dumps(cfg[key]) if key in cfg else id(missing) for cfg in configs}
            if len(values) > 1:
                out.append((fmt_name, key))
    # the columns are few (MAX_CONFIG_COLUMNS): what a sweep varies on purpose first, a
    # hyperparameter's name with short values (a learning rate first seen after sixteen
    # paths and timestamps was listed under the table only), then the rest as first seen
    rank = {k: i for i, k in enumerate(out)}

    def scalar(fmt_name: str, key: str) -> bool:
        return all(_short_value(cfg.get(key)) for cfg in by_format[fmt_name] if isinstance(cfg, dict) and key in cfg)

    return sorted(
        out,
        key=lambda fk: (
            _HYPERPARAMETER.search(fk[1].rsplit(".", 1)[-1]) is None,
            not scalar(*fk),
            rank[fk],
        ),
    )


# config key names a sweep varies on purpose (learning_rate, lr, lora_rank, group_size,
# kl_penalty_coef, temperature, seed, ...): their columns come first
_HYPERPARAMETER = re.compile(
    r"(^|_)(lr|learning_rate|rank|size|seed|temperature|temp|kl|beta|coef|epochs?|batch|tokens|clip|eps|"
    r"warmup|decay|dropout|steps|lambda|gamma|alpha|top_p|top_k|every|updates)(_|$)",
    re.I,
)


def _short_value(v: Any) -> bool:
    """A number, a boolean or a short string: a value a column shows whole."""
    return v is None or isinstance(v, bool | int | float) or (isinstance(v, str) and len(v) <= 40)


def _page_list(numbers: Any) -> list[int]:
    return [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)] if isinstance(numbers, list) else []


def _chart_series(s: dict[str, Any], key: str) -> dict[str, Any] | None:
    ser = (s.get("series") or {}).get(key)
    if not isinstance(ser, dict):
        return None
    xs, ys = ser.get("x"), ser.get("y")
    if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != len(ys):
        return None
    pairs = [(x, y) for x, y in zip(xs, ys) if _finite(x) is not None and _finite(y) is not None]
    if not pairs:
        return None
    xs2 = [p[0] for p in pairs]
    ys2 = [float(p[1]) for p in pairs]
    return {"metric": str(ser.get("metric", "")), "label": ser.get("label"), "x": xs2, "y": ys2}


def sweep_context(summaries: list[tuple[str, dict[str, Any]]], title: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(template context, the data ``sweep_data.js`` carries)."""
    keys = varying_keys(summaries)
    shown_keys, hidden_keys = keys[:MAX_CONFIG_COLUMNS], keys[MAX_CONFIG_COLUMNS:]
    formats = sorted({str(s.get("format")) for _n, s in summaries})
    rows = []
    data_runs = []
    statuses: dict[str, int] = {}
    for i, (name, s) in enumerate(summaries):
        reward = s.get("reward") if isinstance(s.get("reward"), dict) else None
        ev = s.get("eval") if isinstance(s.get("eval"), dict) else None
        cfg: dict[str, Any] = s["config"] if isinstance(s.get("config"), dict) else {}
        status = str(s.get("status") or "live")
        statuses[status] = statuses.get(status, 0) + 1
        model = s.get("model") if isinstance(s.get("model"), str) else None
        fmt_name = str(s.get("format"))
        config_cells = []
        for kf, key in shown_keys:
            if kf == fmt_name and key in cfg:
                v = cfg[key]
                num = isinstance(v, int | float) and not isinstance(v, bool)
                config_cells.append({"text": _fmt_cell(v), "v": _sort_value(v), "na": False, "num": num})
            else:
                config_cells.append({"text": "–", "v": "", "na": True, "num": False})
        pages: dict[str, Any] = s["pages"] if isinstance(s.get("pages"), dict) else {}
        evals: dict[str, Any] = pages["eval"] if isinstance(pages.get("eval"), dict) else {}
        eval_href = None
        if ev is not None and ev.get("step") in _page_list(evals.get(ev.get("label"))):
            # one file name of the run's folder, whatever a hand-edited run.json's label holds
            eval_href = f"{quote(name)}/{quote(page_name('eval', str(ev['label']), int(ev['step'])), safe='')}"
        rows.append(
            {
                "name": name,
                "colour": i % 20,
                "href": f"{quote(name)}/index.html",
                "title": str(s.get("title") or name),
                "status": status,
                "status_reason": str(s.get("status_reason") or ""),
                "format": fmt_name,
                "algorithm": s.get("algorithm") or "–",
                "model": (model_file_name(model) if fmt_name == "observe" else model) or "–",
                "model_full": model or "",
                "iterations": s.get("iterations") if isinstance(s.get("iterations"), int) else 0,
                "last_step": s.get("last_step"),
                "reward": reward,
                "eval": ev,
                "eval_href": eval_href,
                "config": config_cells,
                "warnings": s.get("warnings") or 0,
            }
        )
        data_runs.append(
            {
                "name": name,
                "format": fmt_name,
                "train": _page_list(pages.get("train")),
                "eval": {str(k): _page_list(v) for k, v in sorted(evals.items())},
            }
        )
    charts = []
    for km in (*KEY_METRICS, KeyMetric(EVAL_KEY, "last evaluation score", (), ())):
        series = []
        metrics: dict[str, set[str]] = {}
        for i, (_name, s) in enumerate(summaries):
            ser = _chart_series(s, km.key)
            if ser is None:
                continue
            series.append({"run": i, **ser})
            metrics.setdefault(ser["metric"], set()).add(str(s.get("format")))
        if not series:
            continue
        limit = max(100, min(SWEEP_POINTS, CHART_POINTS // len(series)))
        for ser in series:
            dx, dy = downsample(ser["x"], ser["y"], limit)
            ser["x"], ser["y"] = dx, [_num(y) for y in dy]
        if km.key == EVAL_KEY:
            note = "each run's evaluator (\u201ctest\u201d when it has one): " + ", ".join(sorted(metrics))
            if len(metrics) > 4:
                note = "each run's evaluator (\u201ctest\u201d when it has one), reward/total or correct"
        else:
            note = ", ".join(
                f"{m} ({'/'.join(sorted(f))})" if len(formats) > 1 else m for m, f in sorted(metrics.items())
            )
        charts.append(
            {
                "id": km.key,
                "title": km.title,
                "note": note,
                "kind": "eval" if km.key == EVAL_KEY else "train",
                "series": series,
            }
        )
    word = "update" if formats == ["observe"] else ("step" if formats == ["tinker"] else "step / update")
    data = {
        "v": 1,
        "word": word,
        "runs": data_runs,
        "charts": [{k: v for k, v in c.items() if k != "note"} for c in charts],
    }
    ctx = {
        "site_title": title,
        "root": "",
        "up": None,
        "up_label": None,
        "runs": rows,
        "formats": formats,
        "statuses": sorted(
            statuses.items(),
            key=lambda kv: (
                ("finished", "live", "crashed").index(kv[0]) if kv[0] in ("finished", "live", "crashed") else 9
            ),
        ),
        "config_columns": [{"key": k, "format": f} for f, k in shown_keys],
        "hidden_config": [f"{k} ({f})" if len(formats) > 1 else k for f, k in hidden_keys],
        "mixed": len(formats) > 1,
        "charts": [{"id": c["id"], "title": c["title"], "note": c["note"]} for c in charts],
        "word": word,
        "data_file": DATA_FILE,
    }
    return ctx, data


def write_sweep_index(site: Path, title: str | None = None, force: bool = False) -> IndexResult:
    """Write ``site/index.html`` (and its data, assets) from ``site/*/run.json``; no source needed.

    The title is ``title``, else the one the site's marker records, else the folder's name.
    An ``index.html`` that reportgen did not write is replaced only with ``force``.
    """
    site = Path(site)
    if not site.is_dir():
        raise InputError("no such folder", str(site))
    page = site / "index.html"  # a folder of that name is a run site: refused below
    if not force and (page.is_symlink() or page.is_file()) and not _ours(page):
        raise OutputError(f"{site / 'index.html'} was not written by reportgen; move it, or pass --force to replace it")
    meta = _read_marker(site)
    if meta.get("format") in ("observe", "tinker"):
        raise InputError(
            "this is the site of a single run; reportgen index works on a folder holding run sites", str(site)
        )
    for own in sorted(RESERVED):
        path = site / own
        if own == "assets":  # our assets folder is rewritten; a run site there is not ours
            taken = path.is_symlink() or (path.is_dir() and _read_marker(path).get("format") in ("observe", "tinker"))
        else:
            taken = path.is_symlink() or (path.exists() and not path.is_file())
        if taken:  # checked before anything is written: the sweep's own files go there
            raise InputError(
                f"{own} here is a run site or a folder, where the sweep's index writes its own {own}: "
                f"rename it (reportgen build names such a run {own}_run)",
                str(site),
            )
    summaries, warnings = load_summaries(site)
    # what the sweep's build could not read ("name: why"), but for a run built into the
    # sweep since (`reportgen build RUN -o SITE/name`): its run.json is in the table now
    left = meta.get("left_out")
    listed = [x for x in left if isinstance(x, str)] if isinstance(left, list) else []
    built = {n for n, _ in summaries}
    still_out = [x for x in listed if not any(x.startswith(f"{n}: ") for n in built)]
    warnings = [f"run {x}; left out" for x in still_out] + warnings
    if not summaries:
        raise InputError(f"no run site with a {SUMMARY_FILE} in its sub-folders", str(site))
    name = title or (meta.get("title") if isinstance(meta.get("title"), str) else None) or site.resolve().name
    source = str(meta["source"]) if isinstance(meta.get("source"), str) else f"the run sites in {site.resolve().name}/"
    ctx, data = sweep_context(summaries, name)
    ctx["source"] = source
    ctx["warnings"] = warnings
    html = make_env().get_template("runs_index.html").render(ctx)
    js = (
        b"/* reportgen: the runs of this sweep, for assets/sweep.js (generated). */\nwindow.RG_SWEEP = "
        + script_json(data).encode()
        + b";\n"
    )
    # a site that already exists (downloaded, maybe): no write follows a link it holds
    replace_assets(site)
    replace_file(site / ".nojekyll", b"")
    replace_file(site / DATA_FILE, js)
    replace_file(site / "index.html", html.encode("utf-8"))
    if title is not None or meta.get("format") != "sweep" or still_out != listed:
        # the runs still left out go on with the marker: the next `reportgen index` names them too
        replace_file(site / MARKER, _marker_bytes(name, source, still_out))
    return IndexResult(path=site / "index.html", runs=len(summaries), warnings=warnings)


__all__ = [
    "SUMMARY_FILE",
    "SweepPlan",
    "SweepResult",
    "build_sweep",
    "load_summaries",
    "plan_sweep",
    "run_summary",
    "run_status",
    "summary_bytes",
    "write_sweep_index",
]
