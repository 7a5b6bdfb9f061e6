"""Generate a synthetic observe export of a given size and shape.

    python benchmarks/gen.py --mib 190 --out /tmp/big              # GRPO, texts every update
    python benchmarks/gen.py --mib 20 --groups 8 --size 8 --every 2 --out /tmp/small

The export is written the way the trainer writes it (scripts/synth.py).
``--hold-back F`` writes the last fraction F of the updates to ``observe.jsonl.tail``
instead, to measure a rebuild after the run appends them.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from synth import ObserveWriter, grpo_update  # noqa: E402


def generate(
    out: Path, mib: float, groups: int, size: int, every: int, words: int, hold_back: float, metrics: int
) -> None:
    """Write out/observe.jsonl (and the held-back tail) of about ``mib`` MiB."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    buf = io.StringIO()
    w = ObserveWriter(buf)
    w.run("grpo", "/models/bench.gguf", every, {"group_size": size, "prompts_per_update": groups}, None)
    seen: set[str] = set()
    target = int(mib * (1 << 20))
    chunks: list[str] = []
    n = 0
    total = 0
    while total < target:
        n += 1
        grpo_update(
            w, rng, n, groups, size, n % every == 0, seen, words=words, n_prompts=groups * 40, metrics_extra=metrics
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
    print(f"wrote {out}/observe.jsonl: {n} updates ({keep} in the file), {total / (1 << 20):.1f} MiB in all")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--mib", type=float, default=20)
    p.add_argument("--groups", type=int, default=64)
    p.add_argument("--size", type=int, default=16)
    p.add_argument("--every", type=int, default=1)
    p.add_argument("--words", type=int, default=160)
    p.add_argument("--metrics", type=int, default=40, help="extra metrics per update")
    p.add_argument("--hold-back", type=float, default=0.0)
    a = p.parse_args()
    generate(a.out, a.mib, a.groups, a.size, a.every, a.words, a.hold_back, a.metrics)


if __name__ == "__main__":
    main()
