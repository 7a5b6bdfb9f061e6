"""The least a build can cost per rollout in CPython, against the bare parse.

    python benchmarks/bench_floor.py /tmp/reportgen-bench/observe-190MiB/observe.jsonl

A build must at least, for every rollout line: parse it (``orjson.loads``), escape
its text for HTML, write a card around it, and write a logtree node holding it.
This script does only that, with one f-string of eleven fields for the card (a
real card has badges, a fold test, a cut test, duplicates, data attributes for the
filters) and one small dict per node, on the first rollouts of an export, and
prints each step in microseconds and in units of the bare parse of a line.  It
gives the floor under the 3x goal of issue 6: the scan parses each line once
more, and two cores share the rest.  Run by hand; nothing here is a test.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from markupsafe._speedups import _escape_inner as esc


def _best(fn: Callable[[], Any], rounds: int = 5) -> float:
    # the collector off, as a build nearly has it (site.py raises its thresholds): kept
    # lists of parsed records would otherwise be traversed again and again
    best = float("inf")
    gc.disable()
    try:
        for _ in range(rounds):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
    finally:
        gc.enable()
    return best


def _parse_all(lines: list[bytes]) -> None:
    loads = orjson.loads
    for x in lines:
        loads(x)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("export", type=Path)
    p.add_argument("--rollouts", type=int, default=20000)
    a = p.parse_args()
    lines: list[bytes] = []
    with open(a.export, "rb") as f:
        for line in f:
            if b'"type":"rollout"' in line:
                lines.append(line)
                if len(lines) >= a.rollouts:
                    break
    n = len(lines)
    recs = [orjson.loads(x) for x in lines]
    texts = [r.get("completion") or orjson.dumps(r.get("messages")).decode() for r in recs]
    escaped = [esc(t) for t in texts]

    def cards() -> list[str]:
        return [
            f'<article class="member" id="g{r.get("group")}-m{r.get("member")}" data-reward="{r.get("reward")}" '
            f'data-adv="{r.get("advantage")}" data-trained="{r.get("trained")}">\n<header><a href="#m">'
            f"#{r.get('member')}</a> <span>{r.get('reward')}</span> <span>adv {r.get('advantage')}</span> "
            f"<span>{r.get('tokens')} tok</span> <span>seed {r.get('seed')}</span></header>\n"
            f'<pre class="text">{t}</pre></article>\n'
            for r, t in zip(recs, escaped)
        ]

    def nodes() -> bytes:
        return orjson.dumps(
            [
                {
                    "tag": "div",
                    "attrs": {"class": "lt-conversation"},
                    "children": [],
                    "data": {"type": "conversation", "member": r.get("member"), "reward": r.get("reward"), "text": t},
                }
                for r, t in zip(recs, texts)
            ]
        )

    html = "".join(cards()).encode()
    js = nodes()
    with tempfile.TemporaryDirectory() as d:

        def write() -> None:
            for name, data in (("page.html", html), ("page_logtree.json", js)):
                with open(os.path.join(d, name), "wb") as out:
                    out.write(data)

        steps = {
            "parse (orjson.loads)": _best(lambda: _parse_all(lines)),
            "escape the text": _best(lambda: [esc(t) for t in texts]),
            "card (one f-string)": _best(cards),
            "logtree node (dict + orjson.dumps)": _best(nodes),
            "encode and write both files": _best(lambda: ("".join(cards()).encode(), write())),
        }
    parse = steps["parse (orjson.loads)"]
    print(f"{n} rollouts of {a.export}")
    print(f"{'step':38s} {'us/rollout':>10s} {'x parse':>8s}")
    for k, v in steps.items():
        print(f"{k:38s} {v / n * 1e6:10.2f} {v / parse:8.2f}")
    # "encode and write" renders the cards again: count its own part only
    floor = sum(steps.values()) - steps["card (one f-string)"]
    total = floor
    print(f"{'floor, one core':38s} {total / n * 1e6:10.2f} {total / parse:8.2f}")
    scan = parse  # the scan parses every line once more
    print(f"{'floor with the scan, two cores':38s} {'':10s} {(total + scan) / parse / 2:8.2f}")


if __name__ == "__main__":
    main()
