"""Generate a synthetic export of a given size and shape, in either format.

    python benchmarks/gen.py --mib 190 --out /tmp/big              # observe, GRPO, texts every update
    python benchmarks/gen.py --mib 20 --groups 8 --size 8 --every 2 --out /tmp/small
    python benchmarks/gen.py --algorithm agent --groups 64 --mib 190 --out /tmp/agent   # agentic GRPO
    python benchmarks/gen.py --lines 60 --mib 190 --out /tmp/think  # GRPO, reasoning traces of ~60 lines
    python benchmarks/gen.py --algorithm ppo --mib 190 --out /tmp/ppo   # PPO: 1,024 completions a batch
    python benchmarks/gen.py --groups 32 --size 8 --every 2 --words 80 --metrics 30 \
        --resume-at 0.55 --hold-back 0.05 --mib 190 --out /tmp/resumed   # a resume at 55%
    python benchmarks/gen.py --format tinker --like calc_agent_multiturn --mib 50 --out /tmp/tk
    python benchmarks/gen.py --format tinker --like arith_sync --flat --mib 50 --out /tmp/tkflat

observe: the export is written the way the trainer writes it (scripts/synth.py).
``--hold-back F`` writes the last fraction F of the updates to ``observe.jsonl.tail``
instead, to measure a rebuild after the run appends them.

tinker: a ``log_path`` made by repeating the iterations of one of the real (trimmed)
runs in ``tests/fixtures/tinker`` (``--like``: single-turn ``arith_sync``, agentic
``calc_agent_multiturn``), renumbered, with one metrics line per step, in the
released layout (``iteration_NNNNNN/train_logtree.json``) or the flat one (``--flat``).
``--hold-back F`` writes the last fraction F of the iterations under ``tail/`` instead
(move them into the log_path to measure a rebuild).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from synth import ObserveWriter, agent_update, grpo_update, ppo_update  # noqa: E402


def generate(
    out: Path,
    mib: float,
    groups: int,
    size: int,
    every: int,
    words: int,
    hold_back: float,
    metrics: int,
    algorithm: str = "grpo",
    lines: int = 0,
    resume_at: float = 0.0,
) -> None:
    """Write out/observe.jsonl (and the held-back tail) of about ``mib`` MiB.

    ``algorithm`` "agent" writes agentic GRPO updates (conversations with tool calls, step
    rewards, selection records; ``words`` and ``metrics`` do not apply); "ppo" a flat batch
    of ``groups * size`` completions per update, each with its own prompt. ``resume_at`` F
    starts a resumed segment once a fraction F of the bytes is written: its run record
    resumes from 4 updates back, which it writes again (the earlier ones are superseded).
    """
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    buf = io.StringIO()
    w = ObserveWriter(buf)
    w.run(
        "agent_grpo" if algorithm == "agent" else "grpo",
        "/models/bench.gguf",
        every,
        {"group_size": size, "prompts_per_update": groups},
        None,
    )
    seen: set[str] = set()
    target = int(mib * (1 << 20))
    chunks: list[str] = []
    n = 0
    total = 0
    resumed = False
    while total < target:
        if resume_at and not resumed and total >= target * resume_at and n > 4:
            resumed = True
            n -= 4
            seen = set()  # a resumed segment writes its prompt records again
            w.run(
                "agent_grpo" if algorithm == "agent" else "grpo",
                "/models/bench.gguf",
                every,
                {"group_size": size, "prompts_per_update": groups},
                n,
            )
        n += 1
        if algorithm == "agent":
            agent_update(w, rng, n, groups, size, seen)
        elif algorithm == "ppo":
            ppo_update(w, rng, n, groups * size, seen, words=words)
        else:
            grpo_update(
                w,
                rng,
                n,
                groups,
                size,
                n % every == 0,
                seen,
                words=words,
                n_prompts=groups * 40,
                metrics_extra=metrics,
                lines=lines,
            )
        piece = buf.getvalue()
        buf.seek(0)
        buf.truncate()
        chunks.append(piece)
        total += len(piece.encode("utf-8"))
    keep = len(chunks) - int(len(chunks) * hold_back)
    with open(out / "observe.jsonl", "w", encoding="utf-8") as f:
        f.writelines(chunks[:keep])
    if hold_back:
        with open(out / "observe.jsonl.tail", "w", encoding="utf-8") as f:
            f.writelines(chunks[keep:])
    again = " (4 written again after the resume)" if resumed else ""
    print(
        f"wrote {out}/observe.jsonl: updates 1-{n}{again}, {keep} of {len(chunks)} update batches in the file, "
        f"{total / (1 << 20):.1f} MiB in all"
    )


TINKER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "tinker"
_FLAT = re.compile(r"^(.*)_iteration_(\d{6})(?:_(logtree\.json|rollout_summaries\.jsonl)|\.html)$")
_ITER_FIELD = re.compile(rb'"iteration": ?\d+')


def _template_iterations(src: Path) -> list[dict[str, bytes]]:
    """The files of each iteration of a tinker run, by their name in the released layout."""
    nested = sorted(d for d in src.glob("iteration_*") if d.is_dir())
    if nested:
        return [{f.name: f.read_bytes() for f in sorted(d.iterdir()) if f.is_file()} for d in nested]
    by_number: dict[str, dict[str, bytes]] = {}
    for f in sorted(src.iterdir()):
        m = _FLAT.match(f.name)
        if m:
            name = f"{m.group(1)}_{m.group(3)}" if m.group(3) else f"{m.group(1)}.html"
            by_number.setdefault(m.group(2), {})[name] = f.read_bytes()
    return [by_number[k] for k in sorted(by_number)]


def _flat_name(name: str, n: int) -> str:
    for suffix in ("_logtree.json", "_rollout_summaries.jsonl"):
        if name.endswith(suffix):
            return f"{name[: -len(suffix)]}_iteration_{n:06d}{suffix}"
    return f"{name[: -len('.html')]}_iteration_{n:06d}.html"


def generate_tinker(out: Path, mib: float, like: str, flat: bool, hold_back: float) -> None:
    """Write a tinker log_path of about ``mib`` MiB by repeating the iterations of a real run."""
    src = TINKER / like
    templates = _template_iterations(src)
    if not templates:
        raise SystemExit(f"no iterations in {src}")
    metrics = [json.loads(line) for line in (src / "metrics.jsonl").read_text().splitlines() if line.strip()]
    out.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "code.diff"):
        if (src / name).exists():
            shutil.copyfile(src / name, out / name)
    target = int(mib * (1 << 20))
    iterations: list[dict[str, bytes]] = []
    total = 0
    while total < target:
        n = len(iterations)
        files = {}
        for name, data in templates[n % len(templates)].items():
            if name.endswith("_rollout_summaries.jsonl"):
                data = _ITER_FIELD.sub(b'"iteration": %d' % n, data)
            files[name] = data
            total += len(data)
        iterations.append(files)
    keep = len(iterations) - int(len(iterations) * hold_back)
    with open(out / "metrics.jsonl", "w") as f:
        for n in range(keep):
            row = dict(metrics[n % len(metrics)])
            row["step"] = n
            f.write(json.dumps(row) + "\n")
    for n, files in enumerate(iterations):
        root = out if n < keep else out / "tail"
        for name, data in files.items():
            path = root / _flat_name(name, n) if flat else root / f"iteration_{n:06d}" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if hold_back:
        with open(out / "tail" / "metrics.jsonl", "w") as f:
            for n in range(keep, len(iterations)):
                row = dict(metrics[n % len(metrics)])
                row["step"] = n
                f.write(json.dumps(row) + "\n")
    layout = "flat" if flat else "released"
    print(
        f"wrote {out}: {len(iterations)} iterations ({keep} in the log_path, {layout} layout), {total / (1 << 20):.1f} MiB"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--format", choices=["observe", "tinker"], default="observe")
    p.add_argument("--like", default="arith_sync", help="tinker: the fixture run to repeat")
    p.add_argument("--flat", action="store_true", help="tinker: the documentation page's flat layout")
    p.add_argument("--mib", type=float, default=20)
    p.add_argument("--groups", type=int, default=64)
    p.add_argument("--size", type=int, default=16)
    p.add_argument("--every", type=int, default=1)
    p.add_argument("--words", type=int, default=160)
    p.add_argument("--metrics", type=int, default=40, help="extra metrics per update")
    p.add_argument("--hold-back", type=float, default=0.0)
    p.add_argument(
        "--lines", type=int, default=0, help="observe GRPO: completions as reasoning traces of about N lines"
    )
    p.add_argument(
        "--algorithm", choices=["grpo", "agent", "ppo"], default="grpo", help="observe: the shape of an update"
    )
    p.add_argument(
        "--resume-at",
        type=float,
        default=0.0,
        help="observe: a resume once this fraction of the bytes is written, redoing the last 4 updates",
    )
    a = p.parse_args()
    if a.format == "tinker":
        generate_tinker(a.out, a.mib, a.like, a.flat, a.hold_back)
        return
    generate(
        a.out, a.mib, a.groups, a.size, a.every, a.words, a.hold_back, a.metrics, a.algorithm, a.lines, a.resume_at
    )


if __name__ == "__main__":
    main()
