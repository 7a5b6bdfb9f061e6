"""The index page's charts: which metrics are drawn, Vega-Lite specs, data files, downloads.

Pages run under ``script-src 'self'``, so chart data reaches the browser as a
classic script, ``metrics_data.js``, that sets ``window.RG_METRICS``: column-wise
arrays (one per metric, aligned with ``steps``), NaN as null, integers as
integers, floats at full precision because the hover shows exact values;
``assets/charts.js`` downsamples what it draws.  When the metrics that no fixed
chart draws would make that file large, they go to ``metrics_data/NNN.js``
chunks that the explorer loads (with a ``<script>`` tag) on first use, so the
index opens at the same speed with 20 or 2,000 metrics.

Specs are plain Vega-Lite with named data sources only (never ``data.url``,
never CSV): ``charts.js`` fills ``datasets`` and the theme's ``config``; colours
travel in the data (``scale: null``) so one spec serves light and dark.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from typing import Any

import orjson

from ..model import IterationRef, Run
from .text import script_json, script_key

DATA_FILE = "metrics_data.js"
CHUNK_DIR = "metrics_data"
JSONL_FILE = "metrics.jsonl"
CSV_FILE = "metrics.csv"
# Explorer-only columns are inlined in DATA_FILE up to this many bytes, then chunked.
INLINE_BYTES = 1_000_000
CHUNK_BYTES = 1_500_000
CHART_HEIGHT = 150
EXPLORER_HEIGHT = 300

OBSERVE_CHARTS: tuple[tuple[str, ...], ...] = (
    ("batch/trained_fraction",),
    ("completions/length_mean",),
    ("policy/kl",),
    ("agent/turns_per_traj_mean",),
    ("agent/tool_calls_per_traj",),
    ("agent/failed_fraction",),
)
TINKER_REWARD = "env/all/reward/total"
# env/all/* keys that are not per-transition means (counts, per-turn sizes) or have their own chart
_TINKER_NOT_MEANS = re.compile(
    r"^env/all/(reward/total|total_[^/]+|by_group/.*|(ac|ob)_tokens_per_turn|turns_per_episode)$"
)
_TINKER_FIRST = ("env/all/correct", "env/all/format")
TINKER_TOKENS = ("tokens/sampled", "tokens/prefill_cached", "tokens/prefill_uncached", "tokens/trained")
TINKER_BY_GROUP = ("env/all/by_group/frac_mixed", "env/all/by_group/frac_all_good", "env/all/by_group/frac_all_bad")
STATUSES = ("skipped", "incomplete", "crashed")


@dataclass
class Chart:
    """One fixed chart: series drawn over steps, maybe a mean ± std band."""

    id: str
    title: str
    series: list[tuple[str, str]]  # (metric, legend label)
    band: tuple[str, str] | None = None  # (mean metric, std metric)
    kind: str = "train"  # "train": clicks open train pages; "eval": the evaluator's pages
    label: str = ""  # evaluator label
    note: str = ""

    @property
    def metrics(self) -> list[str]:
        """Every column the chart reads."""
        out = [m for m, _ in self.series]
        if self.band:
            out += [m for m in self.band if m not in out]
        return out


@dataclass
class _Plan:
    charts: list[Chart] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)


def _short_labels(names: list[str]) -> list[str]:
    """Legend labels: what follows the names' common ``a/b/`` prefix (the chart title says it)."""
    if len(names) < 2:
        return names
    parts = [n.split("/") for n in names]
    k = 0
    while all(len(p) > k + 1 for p in parts) and len({p[k] for p in parts}) == 1:
        k += 1
    return ["/".join(p[k:]) for p in parts]


def _add(plan: _Plan, run: Run, title: str, metrics: tuple[str, ...] | list[str], **kw: Any) -> None:
    """Add a chart of the metrics that hold a finite value; none: no chart."""
    found = [m for m in metrics if run.metrics.has_finite(m)]
    series = list(zip(found, _short_labels(found)))
    if not series:
        return
    plan.charts.append(Chart(id=f"c{len(plan.charts)}", title=title, series=series, **kw))
    plan.taken.update(m for m, _ in series)


# async mode's aliases of every eval metric (spec §3): "eval/by_step/<k>" is no evaluator of
# its own, where an evaluator named "eval" ("eval/env/all/reward/total") is one
_ASYNC_EVAL_ALIASES = ("eval/by_step/", "eval/by_cost/", "eval/by_time/", "eval/timing/", "eval/snapshot/")


def eval_prefixes(run: Run) -> list[tuple[str, str]]:
    """(label, metric prefix) of every evaluator: those with pages, then those only in the metrics."""
    out = [(label, run.eval_metric_prefix[label]) for label in sorted(run.evals) if label in run.eval_metric_prefix]
    mapped = {p for _, p in out}
    suffix = "/" + TINKER_REWARD
    for name in sorted(run.metrics.columns):
        # async runs repeat every eval metric under eval/by_step/, eval/by_cost/, eval/by_time/
        if name.endswith(suffix) and not name.startswith(_ASYNC_EVAL_ALIASES):
            prefix = name[: -len(suffix)]
            if prefix and prefix not in mapped:
                out.append((prefix, prefix))
                mapped.add(prefix)
    return out


def _eval_charts(plan: _Plan, run: Run) -> None:
    """One curve per evaluator: its reward/total and correct over steps."""
    mt = run.metrics
    for label, prefix in eval_prefixes(run):
        names = [f"{prefix}/env/all/reward/total", f"{prefix}/env/all/correct"]
        series = [(m, m[len(prefix) + len("/env/all/") :]) for m in names if mt.has_finite(m)]
        if series:
            note = f"metrics {prefix}/…" if prefix != label else ""
            plan.charts.append(
                Chart(
                    id=f"c{len(plan.charts)}", title=f"eval {label}", series=series, kind="eval", label=label, note=note
                )
            )


def plan_charts(run: Run) -> list[Chart]:
    """The fixed charts of a run, in page order; a chart with no finite value is left out."""
    plan = _Plan()
    mt = run.metrics
    if run.format == "observe":
        if mt.has_finite("reward/mean"):
            band = ("reward/mean", "reward/std") if mt.has_finite("reward/std") else None
            title = "reward/mean ± std" if band else "reward/mean"
            _add(plan, run, title, ["reward/mean"], band=band)
        for metrics in OBSERVE_CHARTS:
            _add(plan, run, metrics[0], metrics)
        return plan.charts
    _add(plan, run, TINKER_REWARD, [TINKER_REWARD])
    if not mt.has_finite(TINKER_REWARD):
        # recipes/rl_loop.py, the minimal loop: "reward/total", "time/total" and progress only
        _add(plan, run, "reward/total", ["reward/total"])
    _eval_charts(plan, run)
    means = sorted(n for n in mt.columns if n.startswith("env/all/") and not _TINKER_NOT_MEANS.match(n))
    means.sort(key=lambda n: (n not in _TINKER_FIRST, _TINKER_FIRST.index(n) if n in _TINKER_FIRST else 0))
    for name in means:
        if not name.startswith("env/all/stop/"):
            _add(plan, run, name, [name])
    # one-hot stop reasons read 1.0 where emitted: one chart says which and when
    _add(plan, run, "env/all/stop/*", [n for n in means if n.startswith("env/all/stop/")])
    _add(plan, run, "env/all/by_group (fraction of groups)", TINKER_BY_GROUP)
    _add(plan, run, "optim/kl_sample_train", ["optim/kl_sample_train_v1", "optim/kl_sample_train_v2"])
    _add(plan, run, "optim/entropy", ["optim/entropy"])
    _add(plan, run, "optim/lr", ["optim/lr"])
    _add(plan, run, "env/all/ac_tokens_per_turn", ["env/all/ac_tokens_per_turn"])
    col = mt.columns.get("env/all/turns_per_episode")
    if col is not None and any(math.isfinite(v) and v != 1 for v in col):  # multi-turn only
        _add(plan, run, "env/all/turns_per_episode", ["env/all/turns_per_episode"])
    _add(plan, run, "tokens per step", TINKER_TOKENS)
    _add(plan, run, "cost/step_usd", ["cost/step_usd"])
    _add(plan, run, "cost/cumulative_usd", ["cost/cumulative_usd"])
    _add(plan, run, "time/total (seconds)", ["time/total"])
    return plan.charts


# ---------------------------------------------------------------- specs


def _x_enc(domain: list[float], field_name: str = "x") -> dict[str, Any]:
    return {
        "field": field_name,
        "type": "quantitative",
        "scale": {"domain": domain, "nice": False, "zero": False},
        "axis": {"title": None, "tickMinStep": 1, "labelOverlap": True, "format": "~r"},
    }


# the y axis has 52 px for its labels (charts.js, AXIS_Y): "~r" writes every digit, so a
# value under 1e-3 gets an exponent ("4e-5", "8.15e-4") and one of 1e8 or more an SI prefix
# ("1.234G"); ticks are round numbers, so the others fit ("0.00815", "-0.001", "12345678")
_Y_LABELS = (
    "abs(datum.value) >= 1e8 ? format(datum.value, '.4~s')"
    " : abs(datum.value) < 1e-3 && datum.value != 0 ? format(datum.value, '.3~e')"
    " : format(datum.value, '~r')"
)


def _y_enc(field_name: str = "y") -> dict[str, Any]:
    return {
        "field": field_name,
        "type": "quantitative",
        "scale": {"zero": False, "nice": True},
        "axis": {"title": None, "tickCount": 4, "labelOverlap": True, "labelExpr": _Y_LABELS},
    }


def _colour(field_name: str = "c") -> dict[str, Any]:
    # the data carries the theme's colour itself: one spec serves light and dark
    return {"field": field_name, "type": "nominal", "scale": None, "legend": None}


def _pixels(field_name: str) -> dict[str, Any]:
    # a position in pixels, not in data units (scale null)
    return {"field": field_name, "type": "quantitative", "scale": None}


def _points_layer(x: dict[str, Any], y: dict[str, Any]) -> dict[str, Any]:
    # iteration markers (filled: with texts) and values standing alone between gaps
    return {
        "data": {"name": "pts"},
        "mark": {"type": "point", "size": 26, "strokeWidth": 1.2, "opacity": 1},
        "encoding": {"x": x, "y": y, "fill": _colour("f"), "stroke": _colour()},
    }


def _line_layer(name: str, x: dict[str, Any], y: dict[str, Any], **mark: Any) -> dict[str, Any]:
    return {
        "data": {"name": name},
        "mark": {"type": "line", "strokeWidth": 1.6, "strokeJoin": "round", **mark},
        # the data comes in x order: no sort (it would add an interpreted formula per point)
        "encoding": {
            "x": x,
            "y": y,
            "detail": {"field": "s", "type": "nominal"},
            "color": _colour(),
            "order": {"value": None},
        },
    }


def _segs_layer(x: dict[str, Any]) -> dict[str, Any]:
    return {
        "data": {"name": "segs"},
        "mark": {"type": "rule", "strokeDash": [4, 3], "strokeWidth": 1.2},
        "encoding": {"x": x, "color": _colour()},
    }


def _frame(layers: list[dict[str, Any]], height: int) -> dict[str, Any]:
    # The browser sets each view's width from its box (the y axis has a fixed extent, see
    # charts.js): sizing to fit the container ("fit-x") would run every view twice.
    return {
        "width": 300,
        "height": height,
        "autosize": {"type": "pad", "resize": False},
        "padding": {"left": 2, "right": 8, "top": 6, "bottom": 2},
        "layer": layers,
    }


def chart_spec(domain: list[float]) -> dict[str, Any]:
    """The Vega-Lite spec every fixed chart shares (compiled once in the browser).

    Named data sources, filled per chart: ``rects`` (skipped/incomplete/crashed
    iterations over the full height, texts ticks at the bottom), ``band``
    (mean ± std), ``segs`` (dashed rules at segment changes), ``line`` (one path
    per series ``s``) and ``pts`` (iteration markers).  The hover's rule and dots
    are drawn over the canvas in HTML, so hovering never re-runs the view.
    """
    x = _x_enc(domain)
    y = _y_enc()
    layers = [
        {
            "data": {"name": "rects"},
            # a flagged first or last iteration's rect reaches half an iteration past the
            # domain: clipped, or it covered the next chart and widened the page
            "mark": {"type": "rect", "clip": True},
            "encoding": {
                "x": {**x, "field": "x0"},
                "x2": {"field": "x1"},
                "y": _pixels("y0"),
                "y2": _pixels("y1"),
                "color": _colour(),
                "opacity": {"field": "o", "type": "quantitative", "scale": None, "legend": None},
            },
        },
        {
            "data": {"name": "band"},
            "mark": {"type": "area", "opacity": 0.22},
            "encoding": {
                "x": x,
                "y": {**y, "field": "lo"},
                "y2": {"field": "hi"},
                "color": _colour(),
                "order": {"value": None},
            },
        },
        _segs_layer(x),
        _line_layer("line", x, y),
        _points_layer(x, y),
    ]
    return _frame(layers, CHART_HEIGHT)


def explorer_spec(domain: list[float]) -> dict[str, Any]:
    """The explorer's spec: ``raw`` (faint, when smoothing), ``line`` and lone ``pts`` per picked metric.

    The browser switches the x field to wall time (temporal) or elapsed hours
    and the y scale to log; the layers stay the same.
    """
    x = _x_enc(domain)
    y = _y_enc()
    layers = [
        _segs_layer(x),
        _line_layer("raw", x, y, strokeWidth=1, opacity=0.3),
        _line_layer("line", x, y),
        _points_layer(x, y),
    ]
    return _frame(layers, EXPLORER_HEIGHT)


# ---------------------------------------------------------------- data


def _order(run: Run) -> list[int]:
    """Row indices of the metric table sorted by step (tinker rows come in file order)."""
    steps = run.metrics.steps
    return sorted(range(len(steps)), key=steps.__getitem__)


def _json_values(values: list[float], ints: bool) -> list[float] | list[int | None]:
    """Values as the files write them: an all-integer column as ints (NaN as None), else
    floats (orjson writes a NaN as null)."""
    return [int(v) if math.isfinite(v) else None for v in values] if ints else values


def _all_integer(values: Sequence[float]) -> bool:
    # most columns are fractions, and say so in their first values: the whole-column test,
    # three passes of map() at C speed, took 49 ms of a rebuild of 19,370 updates x 72
    # metrics for its one integer column (4 ms with this)
    for v in values[:32]:
        if v - v == 0.0 and not v.is_integer():  # finite (inf - inf is NaN), with a fraction
            return False
    n_int = sum(map(float.is_integer, values))  # NaN and infinities are not
    if n_int == len(values):
        return bool(n_int) and max(map(abs, values)) < 2**53
    n_finite = sum(map(math.isfinite, values))
    return bool(
        n_finite
        and n_int == n_finite
        and max(map(abs, filter(math.isfinite, values))) < 2**53  # a NaN would poison max()
    )


_SIZE_SAMPLE = 512  # values of a column whose JSON tells the length of the whole


class Columns:
    """Every metric in step order, serialised for the data files and the downloads.

    orjson writes non-finite floats as null and other floats in their shortest
    form that reads back exactly, so the hover can show exact values.

    Nothing of the whole table is kept as JSON: a column is written when a file needs it,
    and the downloads write a block of rows at a time. A run of 16,780 updates of 500
    metrics held 160 MB of column texts, and as much again in the explorer's chunk files.
    """

    def __init__(self, run: Run) -> None:
        mt = run.metrics
        order = _order(run)
        self._order = None if order == list(range(len(order))) else order
        self.names = mt.names()
        self.steps = [mt.steps[i] for i in order]
        self.times = [mt.times[i] for i in order]
        self._columns = mt.columns
        # whether a column is written as integers is decided on the whole column, so that
        # every block of the downloads writes its values alike (found when first asked)
        self._ints: dict[str, bool] = {}
        # json() of the first rows of a column as the previous build wrote it (reuse_json)
        self._prev_rows = 0
        self._prev_json: Callable[[str], bytes | None] | None = None
        # where json() of each column went in the data files: name -> (file, offset, length)
        self.placed: dict[str, tuple[str, int, int]] = {}

    def reuse_json(self, rows: int, previous: Callable[[str], bytes | None]) -> None:
        """Take ``previous(name)``, json() of the column's first ``rows`` rows as a previous
        build wrote it (or None), as the start of json(name): only the later rows are written
        again. For a table whose first ``rows`` rows are the previous table, names and
        integer columns included (``table_digests`` equal): 500 columns of 10,347 updates
        written again cost a rebuild 0.2 s."""
        self._prev_rows, self._prev_json = rows, previous

    def ints(self, name: str, values: list[float] | None = None) -> bool:
        """Whether the column is written as integers (``values``: the column's, if at hand)."""
        known = self._ints.get(name)
        if known is None:
            known = self._ints[name] = _all_integer(self._columns[name] if values is None else values)
        return known

    def raw(self, name: str, stop: int, start: int = 0) -> array:
        """The column's values of rows [start, stop) in step order, as floats."""
        col = self._columns[name]
        if self._order is None:
            return col[start:stop]
        return array("d", [col[i] for i in self._order[start:stop]])

    def json(self, name: str) -> bytes:
        """The column as a JSON array."""
        start = self._prev_rows
        if self._prev_json is not None and 0 < start <= len(self.steps):
            head = self._prev_json(name)
            if head is not None and len(head) > 2 and head[:1] == b"[" and head[-1:] == b"]":
                if start == len(self.steps):
                    return head
                rest = orjson.dumps(_json_values(self.raw(name, len(self.steps), start).tolist(), self.ints(name)))
                return head[:-1] + b"," + rest[1:]
        values = self._columns[name].tolist()
        ints = self.ints(name, values)
        if self._order is not None:
            values = [values[i] for i in self._order]
        return orjson.dumps(_json_values(values, ints))

    def size(self, name: str) -> int:
        """About the length of json(name), from values spread over the column: where the
        explorer's chunk files are cut (writing every column once more only to measure it
        cost a rebuild of 19,370 updates of 72 metrics a tenth of a second)."""
        rows = len(self.steps)
        if rows <= 2 * _SIZE_SAMPLE:
            return len(self.json(name))
        col = self._columns[name]
        stride = rows // _SIZE_SAMPLE
        # a row from each of 512 stretches, at a place that moves from one to the next (a
        # fixed stride met a gap every 8th row at each of its rows: 20 KB for 72 KB)
        rows_at = [k * stride + (k * 2654435761) % stride for k in range(_SIZE_SAMPLE)]
        order = self._order
        some = [col[i] for i in rows_at] if order is None else [col[order[i]] for i in rows_at]
        text = orjson.dumps(_json_values(some, self.ints(name)))
        return (len(text) - 2) * rows // len(some) + 2

    def cells(self, name: str, null: bytes = b"null", start: int = 0, stop: int | None = None) -> list[bytes]:
        """The column's values of rows [start, stop) as JSON texts, one per row (``null``, or
        ``null`` given, for no value)."""
        stop = len(self.steps) if stop is None else stop
        if start >= stop:
            return []
        text = orjson.dumps(_json_values(self.raw(name, stop, start).tolist(), self.ints(name)))[1:-1]
        if null != b"null":
            text = text.replace(b"null", null)  # the text holds only numbers, commas and nulls
        return text.split(b",")


def _step_domain(run: Run) -> list[float]:
    xs = list(run.metrics.steps) + [r.number for r in run.iterations]
    for refs in run.evals.values():
        xs += [r.number for r in refs]
    if not xs:
        return [0, 1]
    lo, hi = min(xs), max(xs)
    return [lo - 0.5, hi + 0.5] if lo == hi else [lo, hi]


def _segment_rules(run: Run) -> list[dict[str, Any]]:
    """Where the segment changes between consecutive iterations, with a label for the hover."""
    out = []
    refs = [r for r in run.iterations if r.segment is not None]
    seg_info = {s.get("segment"): s for s in run.segments if isinstance(s, dict)}
    for prev, cur in zip(refs, refs[1:]):
        if cur.segment == prev.segment:
            continue
        if run.format == "observe":
            info = seg_info.get(cur.segment) or {}
            resumed = info.get("resumed_from_update")
            how = f"resumed from update {resumed}" if resumed is not None else "fresh run"
            text = f"segment {cur.segment} ({how})"
        else:
            text = f"resumed at step {cur.number}"
        out.append({"x": (prev.number + cur.number) / 2, "at": cur.number, "label": text})
    return out


def _iterations(refs: list[IterationRef]) -> dict[str, Any]:
    texts = [r for r in refs if r.has_texts]
    status: dict[str, list[int]] = {}
    for r in refs:
        if r.status != "completed":
            status.setdefault(r.status, []).append(r.number)
    segs = [r.segment for r in refs]
    return {
        "n": [r.number for r in refs],
        "seg": segs if any(s is not None for s in segs) else None,
        "texts": [r.number for r in texts],
        "pages": [r.page for r in texts],
        "status": status,
    }


def _times(times: list[float | None]) -> tuple[float | None, list[float | None] | None]:
    known = [t for t in times if t is not None and math.isfinite(t)]
    if not known:
        return None, None
    t0 = min(known)
    rel = [round(t - t0, 3) if t is not None and math.isfinite(t) else None for t in times]
    return t0, rel


def _chunks(names: list[str], sizes: dict[str, int]) -> list[list[str]]:
    out: list[list[str]] = []
    size = CHUNK_BYTES
    for name in names:
        if size + sizes[name] > CHUNK_BYTES and (not out or out[-1]):
            out.append([])
            size = 0
        out[-1].append(name)
        size += sizes[name] + len(name) + 8
    return out


def _object_js(names: list[str], cols: Columns, file: str = "", at: int = 0) -> bytes:
    """The columns as a JS object; each column's place (``file``, from offset ``at``) is
    noted in ``cols.placed``."""
    parts = []
    pos = at + 1
    for n in names:
        key = script_key(n).encode() + b":"
        text = cols.json(n)
        cols.placed[n] = (file, pos + len(key), len(text))
        parts.append(key + text)
        pos += len(key) + len(text) + 1
    return b"{" + b",".join(parts) + b"}"


def _chunk_file(k: int, name: str, names: list[str], cols: Columns) -> Iterator[bytes]:
    # a generator: the file's columns are written when the writer comes to it, one file at a time
    head = b"(window.RG_METRIC_CHUNKS = window.RG_METRIC_CHUNKS || {})[" + str(k).encode() + b"] = "
    yield head
    yield _object_js(names, cols, name, len(head))
    yield b";\n"


def data_files(
    run: Run, charts: list[Chart] | None = None, cols: Columns | None = None
) -> dict[str, bytes | Iterator[bytes]]:
    """``metrics_data.js`` and, for big runs, the explorer's chunk files (as pieces made
    when they are written)."""
    charts = plan_charts(run) if charts is None else charts
    cols = Columns(run) if cols is None else cols
    mt = run.metrics
    names = cols.names
    charted = {m for c in charts for m in c.metrics if m in mt.columns}
    rest = [n for n in names if n not in charted]
    sizes = {n: cols.size(n) for n in rest}
    if sum(sizes.values()) <= INLINE_BYTES:
        inline, chunked = sorted(charted) + rest, []
    else:
        inline, chunked = sorted(charted), _chunks(rest, sizes)
    files: dict[str, bytes | Iterator[bytes]] = {}
    chunk_of: dict[str, int] = {}
    chunk_files = []
    for k, chunk in enumerate(chunked):
        fname = f"{CHUNK_DIR}/{k:03d}.js"
        chunk_files.append(fname)
        for n in chunk:
            chunk_of[n] = k
        files[fname] = _chunk_file(k, fname, chunk, cols)
    domain = _step_domain(run)
    t0, times = _times(cols.times)
    evals = {}
    for label, refs in sorted(run.evals.items()):
        ev = _iterations(refs)
        evals[label] = {"prefix": run.eval_metric_prefix.get(label), "texts": ev["texts"], "pages": ev["pages"]}
    meta = {
        "v": 1,
        "format": run.format,
        "word": "update" if run.format == "observe" else "step",
        "domain": domain,
        "steps": cols.steps,
        "t0": t0,
        "times": times,
        "names": names,
        "empty": [n for n in names if not mt.has_finite(n)],
        # of those, the ones tinker wrote as NaN or Infinity (bare tokens, spec §3): values the
        # run computed, which no chart can draw, not an absence
        "nonfinite": [n for n in names if not mt.has_finite(n) and n in (run.info.get("nonfinite_metrics") or {})],
        "chunk": chunk_of,
        "chunks": chunk_files,
        "iters": _iterations(run.iterations),
        "segs": _segment_rules(run),
        "evals": evals,
        "charts": [
            {
                "id": c.id,
                "title": c.title,
                "kind": c.kind,
                "label": c.label,
                "series": [{"key": m, "label": lab} for m, lab in c.series],
                "band": {"mean": c.band[0], "std": c.band[1]} if c.band else None,
            }
            for c in charts
        ],
        "chart_height": CHART_HEIGHT,
        "spec": chart_spec(domain),
        "explorer": explorer_spec(domain),
    }
    head = (
        b"/* reportgen: the run's metrics for the index charts (generated). */\nwindow.RG_METRICS = "
        + script_json(meta).encode()[:-1]
        + b',"cols":'
    )
    files[DATA_FILE] = head + _object_js(inline, cols, DATA_FILE, len(head)) + b"};\n"
    return files


# ---------------------------------------------------------------- downloads


def _time_cells(cols: Columns, null: bytes, start: int = 0) -> list[bytes] | None:
    """The times of rows from ``start`` as JSON texts (``null`` for none); None if no row has
    one. One orjson call (a NaN or an infinity is null) split at its commas: a call a cell
    took 40 ms of a rebuild of 19,370 updates, which needs only the new rows."""
    if not any(t is not None for t in cols.times):
        return None
    text = orjson.dumps(cols.times[start:])[1:-1]
    if not text:
        return []
    if null != b"null":
        text = text.replace(b"null", null)  # numbers, commas and nulls only
    return text.split(b",")


# cells of the downloads formatted at a time: every cell of the run as a bytes object at
# once took about 200 bytes a value (68 MiB for 6,859 updates of 49 metrics, in the main
# process while the workers render)
_CELLS_AT_ONCE = 1 << 16


def _lines(cols: Columns, template: bytes, null: bytes, times: list[bytes] | None, start: int = 0) -> Iterator[bytes]:
    """``template % row`` of every row from ``start``, about ``_CELLS_AT_ONCE`` cells to a
    piece: a single C call formats the 200 cells of a line. ``times``: the cells of the rows
    from ``start``."""
    n = len(cols.steps)
    step = max(1, _CELLS_AT_ONCE // (len(cols.names) + 2))
    for a in range(start, n, step):
        b = min(n, a + step)
        columns: list[list[bytes]] = [[str(s).encode() for s in cols.steps[a:b]]]
        if times is not None:
            columns.append(times[a - start : b - start])
        columns += [cols.cells(name, null, a, b) for name in cols.names]
        yield b"".join([template % row for row in zip(*columns)])


def export_names(names: list[str]) -> list[str]:
    """The downloads' names of the metrics: a metric called ``step`` or ``time`` (a judge or an
    environment can name its series so, observe-spec §2.6) is written ``step (metric)``, so
    that no line has a key twice and no header a column twice; the others as they are."""
    taken = set(names)
    out = []
    for n in names:
        if n in ("step", "time"):
            new = n + " (metric)"
            while new in taken:
                new += " (metric)"
            taken.add(new)
            n = new
        out.append(n)
    return out


def metrics_jsonl_parts(run: Run, cols: Columns | None = None, start: int = 0) -> Iterator[bytes]:
    """One strict JSON object per step (NaN and infinities as null), sorted by step, in pieces
    of about ``_CELLS_AT_ONCE`` cells; ``start``: from that row on.

    Every line has every metric, in name order, after ``step`` and ``time`` (when known);
    a metric of one of those names is renamed (``export_names``).
    """
    cols = Columns(run) if cols is None else cols
    times = _time_cells(cols, b"null", start)
    # names are escaped by orjson; "%" is doubled for the template
    names = ["step"] + (["time"] if times else []) + export_names(cols.names)
    keys = [orjson.dumps(k).replace(b"%", b"%%") + b":%b" for k in names]
    yield from _lines(cols, b"{" + b",".join(keys) + b"}\n", b"null", times, start)


def metrics_jsonl(run: Run, cols: Columns | None = None) -> bytes:
    """metrics_jsonl_parts() joined."""
    return b"".join(metrics_jsonl_parts(run, cols))


def _csv_cell(name: str) -> str:
    # a header starting like a formula would run in a spreadsheet (CSV injection)
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


def metrics_csv_parts(run: Run, cols: Columns | None = None, start: int = 0) -> Iterator[bytes]:
    """The metrics as CSV: ``step``, ``time`` (when known), one column per metric; empty cell
    for no value. The header, then pieces of about ``_CELLS_AT_ONCE`` cells; ``start``: the
    rows from that one on, without the header."""
    cols = Columns(run) if cols is None else cols
    times = _time_cells(cols, b"", start)
    buf = io.StringIO()
    header = ["step"] + (["time"] if times is not None else []) + [_csv_cell(n) for n in export_names(cols.names)]
    csv.writer(buf, lineterminator="\n").writerow(header)
    template = b",".join([b"%b"] * len(header)) + b"\n"
    if not start:
        yield buf.getvalue().encode("utf-8")
    yield from _lines(cols, template, b"", times, start)


def metrics_csv(run: Run, cols: Columns | None = None) -> bytes:
    """metrics_csv_parts() joined."""
    return b"".join(metrics_csv_parts(run, cols))


# ---------------------------------------------------------------- entry points


def chart_parts(
    run: Run, cols: Columns | None = None, after: Mapping[str, tuple[int, Iterable[Any]]] | None = None
) -> dict[str, bytes | Iterator[Any]]:
    """Every file the index's charts and downloads need, by site-relative name: the data
    files as bytes, the downloads as pieces to write one after the other (never the whole
    text at once: they grow with the number of updates times the number of metrics).

    ``after``: for a download, the number of rows its previous version holds and the pieces
    that give that version (bytes, or what the site's writer copies them from), to which
    only the later rows are added (see ``table_digests``)."""
    if not run.metrics.columns:
        return {}
    cols = Columns(run) if cols is None else cols
    files = data_files(run, cols=cols)
    for name, make in ((JSONL_FILE, metrics_jsonl_parts), (CSV_FILE, metrics_csv_parts)):
        prev = (after or {}).get(name)
        files[name] = make(run, cols) if prev is None else chain(prev[1], make(run, cols, prev[0]))
    return files


DOWNLOADS = (JSONL_FILE, CSV_FILE)


def _raw_bytes(cols: Columns, name: str, start: int, stop: int) -> bytes:
    return cols.raw(name, stop, start).tobytes()


def table_digests(cols: Columns, counts: Iterable[int]) -> dict[int, str]:
    """For each ``n`` of ``counts``, a digest of everything the downloads' first ``n`` lines
    are made of: the names, whether each column is written as integers, whether there are
    times, and the steps, times and values of those rows. Two tables of equal digests give
    the same lines there, so a rebuild whose table only grew at its end (a run that appended
    updates) adds its new lines to the previous files instead of writing every line again (a
    run of 19,370 updates of 72 metrics rewrote 58 MiB of downloads, 0.9 s of its 2.2 s
    rebuild).

    Every count's digest comes from one pass over the table: each part is hashed in slices
    whose bytes join into the whole part's whatever the cuts (a rebuild's old count is a cut
    the previous build did not make), and a count's digest is that of its parts' hashes."""
    stops = sorted({n for n in counts if 0 < n <= len(cols.steps)})
    has_times = any(t is not None for t in cols.times)
    head = hashlib.sha256(orjson.dumps([2, cols.names, [cols.ints(n) for n in cols.names], has_times])).digest()
    parts: list[list[bytes]] = [[head] for _ in stops]

    def hashed(piece: Callable[[int, int], bytes]) -> None:
        h, start = hashlib.sha256(), 0
        for k, stop in enumerate(stops):
            h.update(piece(start, stop))
            parts[k].append(h.copy().digest())
            start = stop

    def listed(values: list[Any]) -> Callable[[int, int], bytes]:
        # a slice's JSON without its brackets, then a comma: slices join into the whole's
        return lambda a, b: orjson.dumps(values[a:b])[1:-1] + b"," if b > a else b""

    hashed(listed(cols.steps))
    hashed(listed(cols.times))
    for name in cols.names:
        hashed(partial(_raw_bytes, cols, name))
    return {stop: hashlib.sha256(b"".join(p)).hexdigest() for stop, p in zip(stops, parts)}


def chart_files(run: Run) -> dict[str, bytes]:
    """chart_parts() with every file's bytes joined."""
    return {k: v if isinstance(v, bytes) else b"".join(v) for k, v in chart_parts(run).items()}


def _len(v: bytes | int) -> int:
    return v if isinstance(v, int) else len(v)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def charts_context(run: Run, files: Mapping[str, bytes | int]) -> dict[str, Any]:
    """What ``_charts.html`` lays out: chart boxes, legend items, downloads (``files``: the chart
    files by name, or their sizes)."""
    charts = plan_charts(run) if files else []
    statuses = {r.status for r in run.iterations}
    texts = [r.has_texts for r in run.iterations]
    legend = []
    if any(texts):
        legend.append(("texts", f"{'update' if run.format == 'observe' else 'step'} with texts (click to open)"))
    if not all(texts):
        legend.append(("notexts", "no texts"))
    legend += [(s, s) for s in STATUSES if s in statuses]
    if _segment_rules(run):
        legend.append(("seg", "segment change" if run.format == "observe" else "resume"))
    return {
        "enabled": bool(files),
        "data_file": DATA_FILE,
        "panels": [
            {"id": c.id, "title": c.title, "kind": c.kind, "label": c.label, "note": c.note, "multi": len(c.series) > 1}
            for c in charts
        ],
        "downloads": [
            {"href": name, "size": _size(_len(files[name]))} for name in (JSONL_FILE, CSV_FILE) if name in files
        ],
        "n_metrics": len(run.metrics.columns),
        "n_rows": len(run.metrics),
        "has_times": any(t is not None for t in run.metrics.times),
        "word": "update" if run.format == "observe" else "step",
        "legend": legend,
    }
