"""Measure a build against the bare parse, its peak memory, a rebuild after an append
and the browser load time of the largest page.

    python benchmarks/bench_build.py --mib 190            # generates /tmp/reportgen-bench/<size>
    python benchmarks/bench_build.py --source runs/42     # an existing export
    python benchmarks/bench_build.py --source /tmp/tk     # a tinker log_path from gen.py --format tinker

Figures are printed as a Markdown table (quoted in the README and docs/performance.md).  Run by hand:
the numbers depend on the machine and nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent


def bare_parse(path: Path) -> tuple[float, int]:
    """Seconds to orjson.loads every line, and the line count."""
    t = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
            n += 1
    return time.perf_counter() - t, n


def bare_parse_files(files: list[Path]) -> tuple[float, int]:
    """Seconds to orjson.loads every JSON file and every line of every JSONL file (a tinker log_path)."""
    t = time.perf_counter()
    n = 0
    for p in files:
        with open(p, "rb") as f:
            if p.suffix == ".jsonl":
                for line in f:
                    if line.strip():
                        orjson.loads(line)
                        n += 1
            else:
                orjson.loads(f.read())
                n += 1
    return time.perf_counter() - t, n


def merge_tail(tail: Path, log_path: Path) -> None:
    """Move the held-back iterations of a tinker log_path in, and append their metrics lines."""
    for p in sorted(tail.iterdir()):
        if p.name == "metrics.jsonl":
            with open(log_path / "metrics.jsonl", "ab") as f:
                f.write(p.read_bytes())
        elif p.is_dir():
            shutil.copytree(p, log_path / p.name)
        else:
            shutil.copyfile(p, log_path / p.name)


def text_bytes(path: Path) -> int:
    """UTF-8 bytes of the texts the pages show: completions, messages, tool arguments, and each
    group's prompt once per update (an approximation: it ignores visibility rules)."""
    prompts: dict[str, int] = {}
    shown: set[tuple[int, int, str]] = set()
    total = 0

    def msgs(value: object) -> int:
        n = 0
        for m in value if isinstance(value, list) else []:
            if isinstance(m, dict):
                c = m.get("content")
                n += len(c.encode()) if isinstance(c, str) else 0
                for call in m.get("tool_calls") or []:
                    if isinstance(call, dict):
                        n += len(orjson.dumps(call.get("arguments")))
        return n

    with open(path, "rb") as f:
        for line in f:
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            kind = rec.get("type")
            if kind == "prompt":
                prompts[rec.get("key")] = msgs(rec.get("messages"))
            elif kind == "rollout":
                c = rec.get("completion")
                total += len(c.encode()) if isinstance(c, str) else msgs(rec.get("messages"))
                key = (rec.get("segment"), rec.get("update"), str(rec.get("group")))
                if key not in shown:
                    shown.add(key)
                    total += prompts.get(rec.get("prompt"), 0)
    return total


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (Linux: /proc/PID/task/TID/children), not ``pid`` itself."""
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(c) for c in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0  # gone between the listing and the read


def timed_build(source: Path, out: Path, *extra: str) -> tuple[float, float, float | None, str]:
    """(seconds, peak RSS MiB of one process, peak RSS MiB summed over the build's processes,
    last line) of ``reportgen build`` in a child process.

    The sum is sampled every 20 ms from /proc (None where /proc has no ``children`` files):
    the strict reading of the 400 MiB goal, which counts a forked worker's pages shared with
    the main process twice. Sampling costs about 0.1 ms a round."""
    cmd = [sys.executable, "-m", "reportgen", "build", str(source), "-o", str(out), *extra]
    # /usr/bin/time-free peak RSS: run through a tiny wrapper that reports its own child's maxrss
    # it times the command itself: its own start (a Python, 0.1-0.16 s here) would weigh on
    # a short rebuild as a user's `reportgen build` never does
    wrapper = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True); t = time.perf_counter() - t; "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(t); print(r.stdout.strip().splitlines()[-1] "
        "if r.stdout.strip() else r.stderr.strip()); sys.exit(r.returncode)"
    )
    # as an installed package runs: its bytecode cached (PYTHONDONTWRITEBYTECODE would make every
    # build compile reportgen's modules and the precompiled templates again, about 0.1 s)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.Popen(
        [sys.executable, "-c", wrapper, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    sampled = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    peak_sum = 0
    while sampled and proc.poll() is None:
        # the wrapper itself (a small Python) is left out: only reportgen's processes count
        peak_sum = max(peak_sum, sum(_rss_bytes(p) for p in _descendants(proc.pid)))
        time.sleep(0.02)
    stdout, stderr = proc.communicate()
    lines = stdout.strip().splitlines()
    if proc.returncode != 0 or len(lines) < 3:
        raise SystemExit(f"build failed: {stdout}\n{stderr}")
    return float(lines[1]), int(lines[0]) / 1024, peak_sum / (1 << 20) if sampled else None, lines[2]


def browser_load(page: Path) -> tuple[float, float] | None:
    """Seconds from navigation to the load event of a page, in Debian's Chromium, and to the
    first frame drawn after it (what a reader waits for: groups off screen are laid out
    only when scrolled near, content-visibility: auto)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not os.path.exists("/usr/bin/chromium"):
        return None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_page(viewport={"width": 1200, "height": 900})
        t = time.perf_counter()
        pg.goto(page.resolve().as_uri(), wait_until="load")
        loaded = time.perf_counter() - t
        pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        drawn = time.perf_counter() - t
        b.close()
    return loaded, drawn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mib", type=float, default=50)
    ap.add_argument("--source", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=Path("/tmp/reportgen-bench"))
    ap.add_argument("--jobs", default="0")
    ap.add_argument("--hold-back", type=float, default=0.05)
    a = ap.parse_args()
    if a.source is None:
        src = a.work / f"observe-{a.mib:g}MiB"
        if not (src / "observe.jsonl").exists():
            subprocess.run(
                [
                    sys.executable,
                    str(HERE / "gen.py"),
                    "--mib",
                    str(a.mib),
                    "--out",
                    str(src),
                    "--hold-back",
                    str(a.hold_back),
                ],
                check=True,
            )
    else:
        src = a.source
    tinker = not (src / "observe.jsonl").exists()
    work_src = a.work / "src"
    full_src = a.work / "src-full"
    for d in (work_src, full_src):
        shutil.rmtree(d, ignore_errors=True)
    if tinker:
        # a log_path from `gen.py --format tinker`: the held-back iterations wait in tail/
        shutil.copytree(src, work_src, ignore=shutil.ignore_patterns("tail"))
        shutil.copytree(src, full_src, ignore=shutil.ignore_patterns("tail"))
        if (src / "tail").is_dir():
            merge_tail(src / "tail", full_src)
        files = [p for p in full_src.rglob("*") if p.suffix in (".json", ".jsonl")]
        size = sum(p.stat().st_size for p in full_src.rglob("*") if p.is_file()) / (1 << 20)
        parse_s, lines = bare_parse_files(files)
    else:
        export = src / "observe.jsonl"
        tail = src / "observe.jsonl.tail"
        work_src.mkdir(parents=True)
        shutil.copyfile(export, work_src / "observe.jsonl")
        full_src.mkdir(parents=True)
        with open(full_src / "observe.jsonl", "wb") as f:
            f.write(export.read_bytes())
            if tail.exists():
                f.write(tail.read_bytes())
        parse_s, lines = bare_parse(full_src / "observe.jsonl")
        size = (full_src / "observe.jsonl").stat().st_size / (1 << 20)
    out = a.work / "site"
    # the sites of a previous run are set aside, and deleted once everything is measured:
    # on this machine's disk (ext4, discard) creating files costs ten times as much for a
    # while after thousands were deleted, which slowed a build of 6,859 updates by a third
    aside = a.work / f"old-{os.getpid()}"
    for old in (out, a.work / "site-full"):
        if old.exists():
            aside.mkdir(exist_ok=True)
            old.rename(aside / old.name)
    full_s, rss, rss_sum, summary = timed_build(full_src, a.work / "site-full", "-j", a.jobs, "--force")
    # this machine's speed drifts within a minute: parse again after the build, and divide
    # by the mean of the two parses that frame it
    after_s = bare_parse_files(files)[0] if tinker else bare_parse(full_src / "observe.jsonl")[0]
    mean_s = (parse_s + after_s) / 2
    rows = [
        ("export", f"{size:.1f} MiB, {lines} lines"),
        ("bare orjson.loads of every line (before, after the build)", f"{parse_s:.2f} s, {after_s:.2f} s"),
        ("full build", f"{full_s:.2f} s ({summary})"),
        ("build / bare parse (their mean)", f"{full_s / mean_s:.1f}x"),
        ("peak RSS of the build's largest process", f"{rss:.0f} MiB"),
    ]
    if rss_sum is not None:
        rows.append(("peak RSS summed over the build's processes (sampled every 20 ms)", f"{rss_sum:.0f} MiB"))
    has_tail = (src / "tail").is_dir() if tinker else (src / "observe.jsonl.tail").exists()
    if has_tail:
        first_s, _, _, _ = timed_build(work_src, out, "-j", a.jobs)
        if tinker:
            merge_tail(src / "tail", work_src)
        else:
            with open(work_src / "observe.jsonl", "ab") as f:
                f.write((src / "observe.jsonl.tail").read_bytes())
        re_s, _, _, re_summary = timed_build(work_src, out, "-j", a.jobs)
        rows.append(("build of the first part", f"{first_s:.2f} s"))
        rows.append((f"rebuild after the last {a.hold_back:.0%} arrived", f"{re_s:.2f} s ({re_summary})"))
        rows.append(("rebuild / full build", f"{re_s / full_s:.2f}"))
    site = a.work / "site-full"
    html = [p for p in site.glob("*.html")]
    site_bytes = sum(p.stat().st_size for p in site.glob("*.html")) + sum(p.stat().st_size for p in site.glob("*.json"))
    pages = sum(p.stat().st_size for p in html)
    if tinker:
        rows.append(("HTML pages", f"{pages / (1 << 20):.1f} MiB"))
        rows.append(("site size (pages + logtree JSON)", f"{site_bytes / (1 << 20):.1f} MiB"))
    else:
        texts = text_bytes(full_src / "observe.jsonl")
        rows.append(("texts shown (completions, messages, prompts once per group)", f"{texts / (1 << 20):.1f} MiB"))
        rows.append(("HTML pages", f"{pages / (1 << 20):.1f} MiB ({pages / texts:.1f}x the texts)"))
        rows.append(
            (
                "site size (pages + logtree JSON)",
                f"{site_bytes / (1 << 20):.1f} MiB ({site_bytes / texts:.1f}x the texts)",
            )
        )
    if html:
        largest = max(html, key=lambda p: p.stat().st_size)
        load = browser_load(largest)
        if load is not None:
            rows.append(
                (
                    f"load of the largest page ({largest.stat().st_size >> 20} MiB): load event, first frame after it",
                    f"{load[0]:.2f} s, {load[1]:.2f} s",
                )
            )
    print("| measure | value |\n|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")
    shutil.rmtree(aside, ignore_errors=True)


if __name__ == "__main__":
    main()
