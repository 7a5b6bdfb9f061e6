"""Index charts: which charts, their specs, the data file, the downloads (views/charts.py)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from reportgen.model import IterationRef, Run
from reportgen.site import build
from reportgen.sources.detect import open_source
from reportgen.views import charts
from reportgen.views.charts import (
    CSV_FILE,
    DATA_FILE,
    JSONL_FILE,
    chart_files,
    charts_context,
    eval_prefixes,
    metrics_csv,
    metrics_jsonl,
    plan_charts,
)

from .obs import Obs

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "reportgen" / "demo"
TINKER = Path(__file__).parent / "fixtures" / "tinker"


def strict(text: str | bytes) -> Any:
    """json.loads that refuses NaN and Infinity, as a strict JSON reader does."""

    def bad(token: str) -> None:
        raise ValueError(f"non-strict JSON token {token}")

    return json.loads(text, parse_constant=bad)


def data_of(files: dict[str, bytes]) -> dict[str, Any]:
    """The object metrics_data.js assigns to window.RG_METRICS."""
    text = files[DATA_FILE].decode()
    head = "window.RG_METRICS = "
    body = text[text.index(head) + len(head) :].rstrip()
    assert body.endswith(";")
    return strict(body[:-1])


def chunk_of(blob: bytes) -> tuple[int, dict[str, Any]]:
    text = blob.decode()
    prefix = "(window.RG_METRIC_CHUNKS = window.RG_METRIC_CHUNKS || {})["
    assert text.startswith(prefix)
    k, rest = text[len(prefix) :].split("] = ", 1)
    return int(k), strict(rest.rstrip().rstrip(";"))


def walk(value: Any) -> Any:
    """Every (key, value) pair of a nested JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def make_run(fmt: str = "observe", rows: dict[int, dict[str, float | None]] | None = None, **kw: Any) -> Run:
    """A run with the given metric rows (step -> {name: value}) and one iteration per step."""
    run = Run(format=fmt, source="mem", title="t", **kw)
    for step, values in (rows or {}).items():
        i = run.metrics.row_for(step, 1_700_000_000.0 + step)
        for name, v in values.items():
            run.metrics.set(i, name, v)
        if fmt == "observe" or not run.iterations or run.iterations[-1].number != step:
            run.iterations.append(IterationRef(kind="train", number=step, has_texts=step % 2 == 0, segment=0))
    return run


# ---------------------------------------------------------------- which charts


def test_observe_charts_of_the_demo_runs():
    grpo = plan_charts(open_source(str(DEMO / "grpo")).scan())
    assert [c.title for c in grpo] == [
        "reward/mean ± std",
        "batch/trained_fraction",
        "completions/length_mean",
        "policy/kl",
    ]
    assert grpo[0].band == ("reward/mean", "reward/std")
    agent = [c.title for c in plan_charts(open_source(str(DEMO / "agent")).scan())]
    assert agent[-3:] == ["agent/turns_per_traj_mean", "agent/tool_calls_per_traj", "agent/failed_fraction"]


def test_a_metric_without_a_finite_value_gets_no_chart():
    nan = math.nan
    run = make_run(rows={1: {"reward/mean": 0.5, "reward/std": nan, "policy/kl": None}, 2: {"policy/kl": nan}})
    titles = [c.title for c in plan_charts(run)]
    assert titles == ["reward/mean"]  # no band without a finite std, no policy/kl chart
    assert plan_charts(make_run()) == []


def tinker_run() -> Run:
    nan = math.nan
    rows: dict[int, dict[str, float | None]] = {}
    for s in range(6):
        rows[s] = {
            "env/all/reward/total": 0.1 * s,
            "env/all/correct": 0.5,
            "env/all/format": 1.0,
            "env/all/stop/completed": 1.0,
            "env/all/total_episodes": 8.0,
            "env/all/by_group/frac_mixed": 0.5,
            "optim/kl_sample_train_v1": 0.001,
            "optim/kl_sample_train_v2": nan,
            "optim/lr": 4e-5,
            "time/total": 1.5,
            "test/env/all/reward/total": 0.3 if s % 2 == 0 else nan,
            "test/env/all/correct": 0.4 if s % 2 == 0 else nan,
            "heldout set/env/all/reward/total": 0.2 if s == 5 else nan,
            "eval/by_step/test/env/all/reward/total": 0.3,
        }
    run = make_run("tinker", rows)
    run.evals = {"test": [IterationRef(kind="eval", label="test", number=0, has_texts=True)]}
    run.eval_metric_prefix = {"test": "test"}
    return run


def test_tinker_charts_and_one_eval_curve_per_evaluator():
    cs = plan_charts(tinker_run())
    titles = [c.title for c in cs]
    assert titles[0] == "env/all/reward/total"
    # evaluators come right after the reward: with pages (label), then metrics only (prefix)
    assert titles[1:3] == ["eval test", "eval heldout set"]
    assert titles.index("env/all/correct") < titles.index("env/all/format")
    assert "env/all/stop/*" in titles and "env/all/total_episodes" not in titles
    kl = next(c for c in cs if c.title == "optim/kl_sample_train")
    assert [m for m, _ in kl.series] == ["optim/kl_sample_train_v1"]  # v2 has no finite value
    ev = cs[1]
    assert ev.kind == "eval" and ev.label == "test"
    assert ev.series == [("test/env/all/reward/total", "reward/total"), ("test/env/all/correct", "correct")]
    assert not any("eval/by_step" in m for c in cs for m in c.metrics)


def test_eval_prefixes_map_labels_and_find_metric_only_evaluators():
    run = tinker_run()
    assert eval_prefixes(run) == [("test", "test"), ("heldout set", "heldout set")]
    # async mode's aliases are no evaluators; an evaluator named "eval" is one
    for alias in ("by_cost", "by_time"):
        run.metrics.set(0, f"eval/{alias}/test/env/all/reward/total", 0.3)
    run.metrics.set(0, "eval/env/all/reward/total", 0.7)
    assert eval_prefixes(run) == [("test", "test"), ("eval", "eval"), ("heldout set", "heldout set")]


def test_tinker_fixture_eval_label_differs_from_prefix():
    run = open_source(str(TINKER / "arith_sync")).scan()
    evs = [c for c in plan_charts(run) if c.kind == "eval"]
    assert [(c.label, c.note) for c in evs] == [("arith-hard_v2_x", "metrics arith-hard v2/x/…"), ("test", "")]
    data = data_of(chart_files(run))
    assert data["evals"]["arith-hard_v2_x"]["pages"] == ["eval_arith-hard_v2_x_iteration_000000.html"]
    assert data["evals"]["test"]["texts"] == [0, 2, 5]


# ---------------------------------------------------------------- specs


def test_specs_use_named_inline_data_only():
    run = open_source(str(DEMO / "grpo")).scan()
    data = data_of(chart_files(run))
    for spec in (data["spec"], data["explorer"]):
        pairs = list(walk(spec))
        assert not any(k == "url" for k, _ in pairs)
        assert not any(k == "format" and isinstance(v, dict) for k, v in pairs)  # no csv/tsv parsing
        names = {v["name"] for k, v in pairs if k == "data"}
        assert names <= {"rects", "band", "segs", "line", "pts", "raw"}
        assert spec["autosize"]["type"] == "pad"  # the browser sets the width from the chart's box
    xs = [v for k, v in walk(data["spec"]) if k == "x" and isinstance(v, dict) and "scale" in v and v["scale"]]
    assert all(x["scale"]["domain"] == data["domain"] == [1, 30] for x in xs)


def test_spec_colours_come_from_the_data():
    spec = charts.chart_spec([0, 10])
    for layer in spec["layer"]:
        enc = layer["encoding"]
        for channel in ("color", "fill", "stroke"):
            if channel in enc:
                assert enc[channel]["scale"] is None  # the theme's colour travels in the data


# ---------------------------------------------------------------- data file


def test_data_file_is_strict_json_with_nulls_ints_and_exact_floats():
    third = 1 / 3
    run = make_run(
        rows={
            2: {"a/float": third, "a/int": 3.0, "a/nan": math.nan, "a/inf": math.inf},
            1: {"a/float": 0.1, "a/int": 2.0},
            3: {"a/int": 10.0**15},
        }
    )
    data = data_of(chart_files(run))
    assert data["steps"] == [1, 2, 3]  # sorted, whatever the input order
    cols = data["cols"]
    assert cols["a/float"] == [0.1, third, None]
    assert [type(v) for v in cols["a/int"]] == [int, int, int]
    assert cols["a/nan"] == [None, None, None] and cols["a/inf"] == [None, None, None]
    assert data["empty"] == ["a/inf", "a/nan"]
    assert data["nonfinite"] == []  # nothing says they were NaN (a reader's "nonfinite_metrics")
    assert data["names"] == ["a/float", "a/inf", "a/int", "a/nan"]
    assert data["t0"] == 1_700_000_001.0 and data["times"] == [0, 1, 2]
    run.info["nonfinite_metrics"] = {"a/nan": [3], "a/float": [4]}
    assert data_of(chart_files(run))["nonfinite"] == ["a/nan"]  # of the empty ones only


def test_data_file_iterations_pages_statuses_and_segments():
    run = open_source(str(DEMO / "grpo")).scan()
    run.iterations[2].status = "skipped"
    run.iterations[4].status = "incomplete"
    data = data_of(chart_files(run))
    it = data["iters"]
    assert it["n"] == list(range(1, 31))
    assert it["texts"] == list(range(2, 31, 2))
    assert it["pages"][0] == "train_iteration_000002.html"
    assert it["status"] == {"skipped": [3], "incomplete": [5]}
    assert data["segs"] == [{"x": 12.5, "at": 13, "label": "segment 1 (resumed from update 12)"}]
    assert [c["id"] for c in data["charts"]] == ["c0", "c1", "c2", "c3"]
    assert data["charts"][0]["band"] == {"mean": "reward/mean", "std": "reward/std"}


def test_big_runs_keep_explorer_columns_in_chunks(monkeypatch):
    monkeypatch.setattr(charts, "INLINE_BYTES", 100)
    monkeypatch.setattr(charts, "CHUNK_BYTES", 300)
    rows = {
        s: {f"g{k}/m{j}": s * 0.123 + j for k in range(3) for j in range(4)} | {"reward/mean": 0.5} for s in range(20)
    }
    files = chart_files(make_run(rows=rows))
    data = data_of(files)
    assert list(data["cols"]) == ["reward/mean"]  # the charted column stays inline
    assert len(data["chunks"]) > 1 and all(name.startswith("metrics_data/") for name in data["chunks"])
    seen: dict[str, Any] = {}
    for k, name in enumerate(data["chunks"]):
        idx, obj = chunk_of(files[name])
        assert idx == k
        assert all(data["chunk"][n] == k for n in obj)
        seen.update(obj)
    assert sorted(seen) == sorted(n for n in data["names"] if n != "reward/mean")
    assert seen["g1/m2"][3] == 3 * 0.123 + 2


def test_hostile_metric_names_cannot_close_a_script():
    name = '</script><script>alert(1)</script>"\u2028'
    files = chart_files(make_run(rows={1: {name: 1.5}}))
    assert b"</script" not in files[DATA_FILE] and b"<" not in files[DATA_FILE]
    assert data_of(files)["cols"][name] == [1.5]
    assert strict(files[JSONL_FILE].splitlines()[0])[name] == 1.5


# ---------------------------------------------------------------- downloads


def test_jsonl_is_strict_one_object_per_step_with_every_metric():
    run = make_run(
        rows={3: {"b": math.nan, "a": 1.0, "n": 7.0}, 1: {"a": 0.25, "b": -math.inf}, 2: {"a": 2.5, "n": 2.0}}
    )
    lines = metrics_jsonl(run).decode().splitlines()
    rows = [strict(line) for line in lines]
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert rows[0] == {"step": 1, "time": 1_700_000_001.0, "a": 0.25, "b": None, "n": None}
    assert rows[2]["a"] == 1.0 and rows[2]["n"] == 7 and isinstance(rows[2]["n"], int)  # integer column: ints
    assert all(list(r) == ["step", "time", "a", "b", "n"] for r in rows)


def test_jsonl_without_times_has_no_time_key():
    run = Run(format="tinker", source="m", title="t")
    run.metrics.set(run.metrics.row_for(0), "x/y", 0.5)
    assert strict(metrics_jsonl(run)) == {"step": 0, "x/y": 0.5}


def test_csv_has_empty_cells_for_no_value_and_guards_formulas():
    run = make_run(rows={1: {"a": 0.5, "=cmd|'/c calc'!A1": 2.0}, 2: {"a": math.nan}})
    rows = list(csv.reader(io.StringIO(metrics_csv(run).decode())))
    assert rows[0] == ["step", "time", "'=cmd|'/c calc'!A1", "a"]
    assert rows[1] == ["1", "1700000001.0", "2", "0.5"]
    assert rows[2] == ["2", "1700000002.0", "", ""]


def test_metrics_named_step_or_time_do_not_shadow_ours():
    """Judge and environment series have free names (observe-spec §2.6): a metric "step" or
    "time" would give a JSON line the key twice (the parser keeps the last: update 1 read as
    step 99) and the CSV two columns of one name."""
    run = make_run(rows={1: {"step": 99.0, "time": 12.5, "step (metric)": 3.0}, 2: {"a": 1.0}})
    rows = [strict(line) for line in metrics_jsonl(run).decode().splitlines()]
    assert [r["step"] for r in rows] == [1, 2] and rows[0]["time"] == 1_700_000_001.0
    assert rows[0]["step (metric) (metric)"] == 99.0 and rows[0]["time (metric)"] == 12.5
    assert rows[0]["step (metric)"] == 3.0 and rows[1]["time"] == 1_700_000_002.0
    for line in metrics_jsonl(run).decode().splitlines():
        keys = [k for k, _ in json.loads(line, object_pairs_hook=lambda pairs: pairs)]
        assert len(keys) == len(set(keys))
    header = next(csv.reader(io.StringIO(metrics_csv(run).decode())))
    assert len(header) == len(set(header)) and header[:2] == ["step", "time"]


def test_downloads_come_a_block_of_rows_at_a_time(monkeypatch):
    """The downloads are written in pieces of a few rows (their whole text at once took 200
    bytes a value); joined, every line holds its row's values, in step order, and each
    piece's cells are the column's cells in metrics_data.js."""
    import random

    from reportgen.views import charts

    rnd = random.Random(3)
    steps = rnd.sample(range(100), 40)  # rows arrive out of step order
    rows: dict[int, dict[str, float | None]] = {}
    for st in steps:
        rows[st] = {"f": rnd.choice([0.1, -2.5e-7, 1e300, math.nan, None]), "i": float(rnd.randint(-5, 5))}
        if rnd.random() < 0.7:
            rows[st]["s"] = rnd.random()
    run = make_run(rows=rows)
    monkeypatch.setattr(charts, "_CELLS_AT_ONCE", 12)  # 12 // (3 metrics + step + time) = 2 rows a piece
    parts = list(charts.metrics_jsonl_parts(run))
    assert len(parts) == 20 and all(p.count(b"\n") == 2 for p in parts)
    lines = [strict(line) for line in b"".join(parts).splitlines()]
    assert [r["step"] for r in lines] == sorted(steps)
    for r in lines:
        want = rows[r["step"]]
        assert r["i"] == int(want["i"]) and type(r["i"]) is int  # type: ignore[arg-type]
        f = want["f"]
        assert r["f"] == (None if f is None or f != f else f)
        assert r.get("s") == want.get("s")
    csv_parts = list(charts.metrics_csv_parts(run))
    assert len(csv_parts) == 21 and b"".join(csv_parts) == metrics_csv(run)
    assert list(csv.reader(io.StringIO(b"".join(csv_parts).decode())))[1][0] == str(min(steps))
    cols = charts.Columns(run)
    for name in cols.names:
        whole = cols.json(name)[1:-1].split(b",")
        for _ in range(30):
            a = rnd.randrange(0, 41)
            b = rnd.randrange(a, 41)
            assert cols.cells(name, b"null", a, b) == whole[a:b], (name, a, b)
            assert cols.cells(name, b"", a, b) == [c.replace(b"null", b"") for c in whole[a:b]]
        assert cols.cells(name) == whole


def test_downloads_from_a_row_are_the_whole_downloads_lines_from_that_row():
    """A rebuild writes the downloads' rows from the first new one (``start``): those pieces
    are the whole files' lines from that row, times included, whatever a time is (a number,
    none, NaN, an infinity, a time with a fraction), and none of a whole pass's per-cell work
    is done for the old rows."""
    import random

    rnd = random.Random(5)
    run = make_run(rows={st: {"a": rnd.choice([0.5, 2.0, math.nan]), "n": float(st)} for st in range(1, 31)})
    times = run.metrics.times
    for i in range(len(times)):
        times[i] = rnd.choice([None, math.nan, math.inf, 1_700_000_000.25 + i, 1.5e-9, float(i)])
    jsonl = metrics_jsonl(run).splitlines(keepends=True)
    csv_lines = metrics_csv(run).splitlines(keepends=True)
    assert b'"time":null' in b"".join(jsonl) and b'.25,"a"' in b"".join(jsonl)
    for start in range(0, 31):
        assert b"".join(charts.metrics_jsonl_parts(run, start=start)) == b"".join(jsonl[start:]), start
        want = csv_lines if start == 0 else csv_lines[1 + start :]
        assert b"".join(charts.metrics_csv_parts(run, start=start)) == b"".join(want), start
    for i in range(len(times)):
        times[i] = None  # no time at all: no time column, from any row
    assert b'"time"' not in metrics_jsonl(run)
    whole = metrics_jsonl(run).splitlines(keepends=True)
    assert b"".join(charts.metrics_jsonl_parts(run, start=7)) == b"".join(whole[7:])


def test_no_metric_no_files_and_no_charts():
    run = make_run()
    assert chart_files(run) == {}
    ctx = charts_context(run, {})
    assert ctx["enabled"] is False and ctx["panels"] == []


def test_context_lists_downloads_and_legend():
    run = open_source(str(DEMO / "grpo")).scan()
    run.iterations[3].status = "skipped"
    files = chart_files(run)
    ctx = charts_context(run, files)
    assert [d["href"] for d in ctx["downloads"]] == [JSONL_FILE, CSV_FILE]
    assert all(d["size"].endswith(("B", "KB", "MB")) for d in ctx["downloads"])
    assert [k for k, _ in ctx["legend"]] == ["texts", "notexts", "skipped", "seg"]
    assert [p["id"] for p in ctx["panels"]] == ["c0", "c1", "c2", "c3"]


# ---------------------------------------------------------------- the built index


@pytest.fixture(scope="module")
def grpo_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("charts") / "site"
    build(str(DEMO / "grpo"), out)
    return out


def test_index_loads_vendored_libraries_then_data_then_charts(grpo_site):
    soup = BeautifulSoup((grpo_site / "index.html").read_text(encoding="utf-8"), "html.parser")
    srcs = [s.get("src") for s in soup.find_all("script")]
    assert all(src for src in srcs), "no inline script"
    # right after the charts section, in dependency order: the header and the chart boxes are
    # painted first, the charts drawn before the table is parsed; none in the head, which
    # would hold up the first paint; vega-embed, for the explorer drawn after the charts, at
    # the end of the page
    assert soup.head.find_all("script") == []
    after_charts = soup.select_one("section#charts").find_all_next("script")
    assert [s.get("src") for s in after_charts[:5]] == [
        "assets/vendor/vega.min.js",
        "assets/vendor/vega-lite.min.js",
        "assets/vendor/vega-interpreter.min.js",
        "metrics_data.js",
        "assets/charts.js",
    ]
    assert soup.select_one("section.iterations").find_previous("script").get("src") == "assets/charts.js"
    assert srcs[-2:] == ["assets/reportgen.js", "assets/vendor/vega-embed.min.js"]
    assert all(srcs.count(src) == 1 for src in srcs)
    assert "assets/charts.css" in [link.get("href") for link in soup.find_all("link")]
    for src in srcs:
        assert (grpo_site / src).is_file()
    assert len(soup.select("figure.rg-chart")) == 4
    assert soup.select_one("#charts a[href='metrics.jsonl']") and soup.select_one("#charts a[href='metrics.csv']")
    assert not soup.find_all(style=True)


def test_site_downloads_match_the_metrics(grpo_site):
    run = open_source(str(DEMO / "grpo")).scan()
    lines = (grpo_site / JSONL_FILE).read_text().splitlines()
    assert len(lines) == len(run.metrics) == 30
    first = strict(lines[0])
    assert first["reward/mean"] == run.metrics.get(1, "reward/mean")
    with open(grpo_site / CSV_FILE, newline="") as f:
        assert len(list(csv.reader(f))) == 31


def test_run_without_metrics_has_no_chart_scripts(tmp_path):
    src = Obs().run().batch(Obs.rollout(1, 0, 0)).batch({"type": "update", "update": 1, "status": "completed"})
    out = tmp_path / "site"
    build(str(src.write(tmp_path / "src")), out)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "vega" not in html and not (out / DATA_FILE).exists()
    assert "No metric was logged" in html


def test_the_index_gives_the_sizes_of_the_downloads_it_wrote(tmp_path):
    """The downloads are written in pieces and counted as they are: the index states each
    file's size as written, and the files hold the whole table."""
    site = tmp_path / "site"
    build(str(DEMO / "grpo"), site)
    text = BeautifulSoup((site / "index.html").read_text(), "html.parser").select_one(".rg-downloads").get_text()
    run = open_source(str(DEMO / "grpo")).scan()
    for name in (JSONL_FILE, CSV_FILE):
        data = (site / name).read_bytes()
        assert f"{name} ({charts._size(len(data))})" in " ".join(text.split())
        assert data == chart_files(run)[name]


def test_a_table_keeps_the_first_names_and_counts_the_others(monkeypatch):
    """tinker's rows go through MetricTable.set: past MAX_METRIC_NAMES a name is counted, not kept."""
    import reportgen.model as model_mod
    from reportgen.model import MetricTable

    monkeypatch.setattr(model_mod, "MAX_METRIC_NAMES", 2)
    t = MetricTable()
    for step in range(3):
        r = t.row_for(step)
        for k in range(step + 2):
            t.set(r, f"m{k}", float(k))
    assert list(t.columns) == ["m0", "m1"] and t.left_out == 1 + 2
    assert t.left_out_names == ["m2", "m3"]
    assert t.left_out_warning() == (
        "more than 2 distinct metric names: 3 values of the later names are left out of the charts and "
        "downloads (the first: m2, m3)"
    )


def test_a_tinker_run_keeps_its_reward_past_the_bound(tmp_path, monkeypatch):
    """A tinker run with a series per task logged before "env/all/reward/total" keeps its
    reward, an evaluator's ("test/env/all/reward/total") and the tokens: the reward chart and
    the evaluator's curve are drawn, the per-task names are left out; and a table lets at most
    MAX_PRIORITY_NAMES such names past the bound."""
    import reportgen.model as model_mod
    from reportgen.model import MetricTable
    from reportgen.sources.tinker import TinkerReader
    from reportgen.storage import Storage

    monkeypatch.setattr(model_mod, "MAX_METRIC_NAMES", 3)
    src = tmp_path / "run"
    src.mkdir()
    rows = []
    for step in range(3):
        row: dict = {"step": step}
        row.update({f"env/task_{k}/reward": 0.5 for k in range(5)})
        row.update({"env/all/reward/total": step / 4, "test/env/all/reward/total": 0.9, "tokens/sampled": 10.0})
        rows.append(json.dumps(row))
    (src / "metrics.jsonl").write_text("\n".join(rows) + "\n")
    run = TinkerReader(Storage(str(src))).scan()
    assert {"env/all/reward/total", "test/env/all/reward/total", "tokens/sampled"} <= set(run.metrics.columns)
    assert "env/task_4/reward" not in run.metrics.columns
    assert [r.reward_mean for r in run.iterations] == [0.0, 0.25, 0.5]
    drawn = {m for c in charts.plan_charts(run) for m, _ in c.series}
    assert {"env/all/reward/total", "test/env/all/reward/total"} <= drawn

    monkeypatch.setattr(model_mod, "MAX_PRIORITY_NAMES", 2)
    t = MetricTable()
    r = t.row_for(0)
    for name in ["a", "b", "c", "x/env/all/reward/total", "y/env/all/reward/total", "z/env/all/reward/total"]:
        t.set(r, name, 1.0)
    assert list(t.columns) == ["a", "b", "c", "x/env/all/reward/total", "y/env/all/reward/total"]
    assert t.left_out_names == ["z/env/all/reward/total"]


def test_the_size_of_a_column_is_estimated_from_values_spread_over_it():
    """The explorer's chunk files are cut by an estimate of each column's JSON from 512 of
    its values: values at a fixed stride met a gap every 8th row at every sample (20 KB
    estimated for 72 KB); the estimate follows the column whatever its pattern."""
    from reportgen.model import MetricTable

    run = Run(format="observe", source="x", title="x")
    t = run.metrics = MetricTable()
    for step in range(4096):
        r = t.row_for(step)
        t.set(r, "gaps", None if step % 8 == 0 else 0.123456789 + step)
        t.set(r, "tail", 1.0 if step < 3000 else 12345.678901234)
        t.set(r, "ints", float(step % 3))
    cols = charts.Columns(run)
    for name in cols.names:
        real = len(cols.json(name))
        assert 0.8 * real <= cols.size(name) <= 1.25 * real, (name, cols.size(name), real)


def test_a_column_is_integer_as_the_whole_column_test_says():
    """The quick rejection of a fraction among the first values gives what the test of the
    whole column gives: NaN and infinities are no values, and a column of integers past
    2^53 (which JSON readers round) is not an integer column."""
    import random
    from array import array

    def whole(values: list[float]) -> bool:
        finite = [v for v in values if math.isfinite(v)]
        return bool(finite) and all(v.is_integer() for v in finite) and max(map(abs, finite)) < 2**53

    pool = [1.0, 2.0, -3.0, 0.5, math.nan, math.inf, -math.inf, 2.0**53, -(2.0**53), 2.0**60, 1e-300, -0.0, 0.0, 7.0]
    rnd = random.Random(7)
    for _ in range(3000):
        values = [rnd.choice(pool) for _ in range(rnd.randint(0, 80))]
        assert charts._all_integer(values) == whole(values), values
        assert charts._all_integer(array("d", values)) == whole(values), values
