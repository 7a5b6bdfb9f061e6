"""Benchmark the index page of a long run: 10,000 updates x 200 metrics by default.

    python benchmarks/bench_index.py                      # generate, build, load 5 times in Chromium
    python benchmarks/bench_index.py --updates 2000 --metrics 50 --loads 3 --keep /tmp/bench

It writes a synthetic observe export (GRPO, texts every 100 updates, a resume at
60 %, some skipped and incomplete updates, a few null metrics; every metric a
full-precision float, the worst case for the data file), builds the site, and
opens ``index.html`` from ``file://`` in Debian's Chromium (``/usr/bin/chromium``,
through Playwright).  It prints the build time, the file sizes and, over the loads:

* ``charts start``: the vendored libraries and the data evaluated, the charts section parsed
  (the chart scripts are in the head; the table below is still being parsed);
* ``first screen``: the charts in the first viewport drawn;
* ``all charts``: every fixed chart drawn (``data-rg-charts="drawn"``): the figure to watch;
* ``DOMContentLoaded``: the whole page, its 10,000-row table included, parsed;
* ``table shown``: the table laid out (after the charts, in idle time);
* ``explorer``: a metric kept in a chunk file picked and charted (from the click);
* ``table scroll``: scrolling to the table and laying out what is on screen.

Times are milliseconds from navigation start (``performance.now()`` in the page).
The machine's load average is printed too: other processes inflate every wall-clock
figure.  ``main-thread CPU`` (from /proc, polled every 5 ms, so slightly high) is the CPU
time of the renderer's main thread from navigation to all charts drawn: parsing, scripts,
layout and painting happen there, so it is about what the wall-clock time would be on an
idle machine.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from synth import ObserveWriter  # noqa: E402

from reportgen.site import build  # noqa: E402

CHROMIUM = os.environ.get("REPORTGEN_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--allow-file-access-from-files",
]
BASE = (
    "reward/mean",
    "reward/std",
    "batch/trained_fraction",
    "completions/length_mean",
    "policy/kl",
    "policy/entropy",
    "optimizer/learning_rate",
    "observe/dropped_batches",
)


def generate(out: Path, updates: int, metrics: int, every: int, seed: int = 1) -> None:
    """Write ``out/observe.jsonl``: ``updates`` updates with ``metrics`` metrics each."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    buf = io.StringIO()
    w = ObserveWriter(buf)
    groups = [f"g{g:02d}" for g in range(20)]
    extra = [f"{groups[i % len(groups)]}/metric_{i:03d}" for i in range(max(0, metrics - len(BASE)))]
    walk = {name: rng.random() for name in extra}
    resume = int(updates * 0.6)
    w.run("grpo", "/models/bench.gguf", every, {"group_size": 2, "prompts_per_update": 1}, None)
    n = 0
    while n < updates:
        n += 1
        if n == resume + 1:
            # a resume that redoes nothing: the charts draw a segment change here
            w.run("grpo", "/models/bench.gguf", every, {"group_size": 2, "prompts_per_update": 1}, resume)
        if n % 997 == 0:
            # no update record: an incomplete update (its outcome alone was exported)
            w.batch([{"type": "outcome", "update": n, "entries": []}])
            continue
        if n % every == 0:
            w.batch(
                [{"type": "prompt", "key": f"p:{n}", "messages": [{"role": "user", "content": f"What is {n} * 3?"}]}]
                + [
                    {
                        "type": "rollout", "update": n, "group": 0, "member": m, "prompt": f"p:{n}", "seed": m,
                        "tokens": 12, "truncated": False, "reward": float(m), "reward_raw": float(m),
                        "judge_term": None, "advantage": m - 0.5, "eligible": True, "trained": None,
                        "skip_reason": None, "completion": f"The answer is {3 * n + m}.",
                    }
                    for m in range(2)
                ]
            )  # fmt: skip
        progress = n / updates
        values: dict[str, Any] = {
            "reward/mean": 0.2 + 0.6 * progress + rng.gauss(0, 0.05),
            "reward/std": 0.3 + rng.random() * 0.1,
            "batch/trained_fraction": rng.random(),
            "completions/length_mean": 120 + 40 * math.sin(n / 300) + rng.gauss(0, 5),
            "policy/kl": abs(rng.gauss(0.002 + 0.01 * progress, 0.002)),
            "policy/entropy": 0.6 - 0.3 * progress + rng.random() * 0.01,
            "optimizer/learning_rate": 2e-4,
            "observe/dropped_batches": 0,
        }
        for name in extra:
            walk[name] += rng.gauss(0, 0.01)
            values[name] = walk[name]
        if n % 503 == 0:
            values["policy/kl"] = None  # a gap in a chart
        status = "skipped" if n % 1499 == 0 else "completed"
        w.batch([{"type": "update", "update": n, "status": status, "metrics": values}])
    (out / "observe.jsonl").write_text(buf.getvalue(), encoding="utf-8")


def _renderer_cpu() -> dict[int, float]:
    """CPU seconds used so far by the main thread of each Chromium renderer (Linux /proc)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            if b"--type=renderer" not in (entry / "cmdline").read_bytes():
                continue
            # the main thread's task id is the process id; helper threads run in parallel
            fields = (entry / "task" / entry.name / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
        except (OSError, ValueError, IndexError):
            continue
    return out


def _cpu_since(before: dict[int, float]) -> float:
    after = _renderer_cpu()
    return sum(v - before.get(pid, 0.0) for pid, v in after.items())


def _wait(page: Any, expr: str, timeout: float = 60.0) -> Any:
    # page.wait_for_function evaluates with eval(), which the pages' CSP forbids
    end = time.time() + timeout
    while time.time() < end:
        value = page.evaluate(expr)
        if value:
            return value
        time.sleep(0.005)
    raise TimeoutError(expr)


def without_table(site: Path) -> str:
    """A copy of the index without the iteration table's rows, to tell the table's cost apart."""
    html = (site / "index.html").read_text(encoding="utf-8")
    start = html.index("<tbody>", html.index('id="iterations"')) + len("<tbody>")
    end = html.index("</tbody>", start)
    name = "_bench_no_table.html"
    (site / name).write_text(html[:start] + html[end:], encoding="utf-8")
    return name


def measure(
    site: Path, loads: int, chunked_metric: str | None, page_name: str = "index.html"
) -> dict[str, list[float]]:
    """Open the index ``loads`` times in fresh contexts; returns figures per load."""
    from playwright.sync_api import sync_playwright

    keys = ("start", "first", "drawn", "cpu", "dcl", "shown", "explorer", "table")
    out: dict[str, list[float]] = {k: [] for k in keys}
    problems: list[str] = []
    url = (site / page_name).resolve().as_uri()
    root = site.resolve().as_uri()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for _ in range(loads):
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = ctx.new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("request", lambda r: problems.append("request " + r.url) if not r.url.startswith(root) else None)
            page.goto("about:blank")
            cpu0 = _renderer_cpu()
            page.goto(url, wait_until="commit")
            _wait(page, "document.documentElement.getAttribute('data-rg-charts') === 'drawn'")
            out["cpu"].append(1000 * _cpu_since(cpu0))
            _wait(page, "RG_CHARTS.tableAt > 0 && document.readyState === 'complete'")
            r = page.evaluate(
                "() => ({start: RG_CHARTS.startAt, first: RG_CHARTS.firstAt, drawn: RG_CHARTS.drawnAt,"
                " shown: RG_CHARTS.tableAt,"
                " dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd})"
            )
            for k in ("start", "first", "drawn", "dcl", "shown"):
                out[k].append(r[k])
            if chunked_metric:
                page.evaluate(
                    "name => { window.BENCH_T = performance.now();"
                    " document.querySelector('#rg-metric-list input[value=\"' + CSS.escape(name) + '\"]').click(); }",
                    chunked_metric,
                )
                out["explorer"].append(
                    _wait(
                        page,
                        "() => { const v = RG_CHARTS.explorer; if (!v) return 0;"
                        " const has = v.data('line').some(d => d.s === " + repr(chunked_metric) + ");"
                        " return has ? performance.now() - BENCH_T : 0; }",
                    )
                )
            out["table"].append(
                page.evaluate(
                    "() => { const t0 = performance.now(); const t = document.getElementById('iterations');"
                    " t.scrollIntoView(); t.getBoundingClientRect(); document.body.offsetHeight;"
                    " return performance.now() - t0; }"
                )
            )
            ctx.close()
        browser.close()
    if problems:
        print("PROBLEMS:", *sorted(set(problems))[:10], sep="\n  ")
    return out


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.2f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--updates", type=int, default=10_000)
    ap.add_argument("--metrics", type=int, default=200)
    ap.add_argument("--every", type=int, default=100, help="texts every N updates")
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it (an export there is reused)")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="rg-bench-"))
    try:
        src, site = work / "run", work / "site"
        t0 = time.perf_counter()
        if args.keep and (src / "observe.jsonl").is_file():
            print(f"reusing {src}/observe.jsonl (delete it to generate again)")
        else:
            generate(src, args.updates, args.metrics, args.every)
        print(f"export: {args.updates} updates x {args.metrics} metrics, {_mib((src / 'observe.jsonl').stat().st_size)}"
              f" (ready in {time.perf_counter() - t0:.1f} s)")  # fmt: skip
        t0 = time.perf_counter()
        result = build(str(src), site, None)
        print(f"build: {time.perf_counter() - t0:.2f} s ({result.pages} pages)")

        from reportgen.sources.detect import open_source
        from reportgen.views.charts import chart_files

        run = open_source(str(src)).scan()
        t0 = time.perf_counter()
        files = chart_files(run)
        print(f"chart files alone: {time.perf_counter() - t0:.2f} s")
        sizes = {
            "index.html": (site / "index.html").stat().st_size,
            "metrics_data.js": len(files["metrics_data.js"]),
            "metrics_data/ chunks": sum(len(v) for k, v in files.items() if k.startswith("metrics_data/")),
            "metrics.jsonl": len(files["metrics.jsonl"]),
            "metrics.csv": len(files["metrics.csv"]),
        }
        n_chunks = sum(1 for k in files if k.startswith("metrics_data/"))
        for k, v in sizes.items():
            print(f"  {k:22s} {_mib(v)}" + (f" in {n_chunks} files" if "chunks" in k else ""))
        chunked = next((n for n in run.metrics.names() if n.startswith("g1")), None) if n_chunks else None
        print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
        if not os.path.exists(CHROMIUM):
            print(f"{CHROMIUM} missing: no load measurement")
            return
        figures = measure(site, args.loads, chunked)
        bare = measure(site, args.loads, None, without_table(site))
        labels = {
            "start": "charts start",
            "first": "first screen drawn",
            "drawn": "all charts drawn",
            "cpu": "  main-thread CPU to then",
            "dcl": "DOMContentLoaded",
            "shown": "table shown",
            "explorer": "explorer: chunked metric",
            "table": "table scroll",
        }
        print(f"Chromium, file://, {args.loads} loads: median (min-max) ms; last column: the same index without")
        print("the rows of its iteration table (what the charts cost apart from the 2.8 MB of table HTML)")
        for k, label in labels.items():
            v = [x for x in figures[k] if x is not None]
            b = [x for x in bare[k] if x is not None]
            if v:
                extra = f"{statistics.median(b):9.0f}" if b else ""
                print(f"  {label:28s} {statistics.median(v):7.0f}  ({min(v):.0f}-{max(v):.0f}){extra}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
