"""How the memory a build keeps between iterations grows with the number of updates.

A build holds the scan's index of the whole run (spans, metrics, prompt keys) while it renders
one iteration at a time, so that index is the part of the peak that grows with the run.
This scans the first half of an observe export and the whole of it, serially under
tracemalloc, and prints what each scan retains and the growth per update:

    python benchmarks/bench_scan_memory.py /tmp/reportgen-bench/observe-190MiB

Run by hand; the figures are quoted in docs/performance.md.  tracemalloc counts Python allocations
only (not the interpreter's own 10 MiB or so), which is the part that grows.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from reportgen.sources.detect import open_source  # noqa: E402


def retained(source: Path) -> tuple[int, int, int, int]:
    """(bytes retained after a serial scan, updates, rollouts, distinct prompt keys)."""
    gc.collect()
    tracemalloc.start()
    reader = open_source(str(source), "observe")
    run = reader.scan(jobs=1)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0]  # the reader too: a build keeps its index
    keys = len(reader._key_names)
    del reader
    tracemalloc.stop()
    return kept, len(run.iterations), sum(r.rollouts for r in run.iterations), keys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path, help="a folder holding observe.jsonl")
    args = ap.parse_args()
    whole = args.source / "observe.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        head, half = Path(tmp) / "head", Path(tmp) / "half"
        size = whole.stat().st_size
        for part, cut in ((head, 4 << 20), (half, size // 2)):
            part.mkdir()
            with open(whole, "rb") as f, open(part / "observe.jsonl", "wb") as out:
                shutil.copyfileobj(f, out)
                out.truncate(min(cut, size))  # the scan leaves the torn last batch unread
        retained(head)  # first: the lazy imports and caches of a first scan are not growth
        rows = [("first half", *retained(half)), ("whole", *retained(args.source))]
    print("| scan of | retained | updates | rollouts | distinct prompt keys |")
    print("|---|---|---|---|---|")
    for name, kept, updates, rollouts, keys in rows:
        print(f"| {name} | {kept / 2**20:.1f} MiB | {updates} | {rollouts} | {keys} |")
    (_, k1, u1, r1, _), (_, k2, u2, r2, _) = rows
    if u2 > u1:
        per_update = (k2 - k1) / (u2 - u1)
        per_rollout = (k2 - k1) / max(1, r2 - r1)
        print(f"\ngrowth: {per_update / 1024:.1f} KiB per update, {per_rollout:.1f} bytes per rollout")


if __name__ == "__main__":
    main()
