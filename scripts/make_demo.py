"""Write the bundled example runs into reportgen/demo/ (run by hand; output is committed).

* ``grpo/observe.jsonl``: a GRPO run, texts every 2 updates, that crashed
  after update 14 and was resumed from update 12 (segment 1 supersedes
  updates 13-14 of segment 0).
* ``agent/observe.jsonl``: an agentic GRPO run with tool calls, tool errors,
  step rewards, judge explanations and member gaps.

Usage: python scripts/make_demo.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import ObserveWriter, agent_update, grpo_update  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent / "reportgen" / "demo"


def grpo(path: Path) -> None:
    rng = random.Random(42)
    with open(path, "w", encoding="utf-8") as f:
        w = ObserveWriter(f)
        params = {"group_size": 4, "prompts_per_update": 4, "max_new_tokens": 256, "updates": 30, "epochs": 1}
        w.run("grpo", "/models/qwen2.5-1.5b-instruct-q8_0.gguf", 2, params, None)
        seen: set[str] = set()
        for n in range(1, 15):
            grpo_update(w, rng, n, 4, 4, n % 2 == 0, seen, progress=0.2 + n * 0.02)
        # crash, then resume from the checkpoint of update 12
        w.run("grpo", "/models/qwen2.5-1.5b-instruct-q8_0.gguf", 2, params, 12)
        seen = set()  # prompts are written again per segment
        for n in range(13, 31):
            grpo_update(w, rng, n, 4, 4, n % 2 == 0, seen, progress=0.2 + n * 0.02)


def agent(path: Path) -> None:
    rng = random.Random(7)
    with open(path, "w", encoding="utf-8") as f:
        w = ObserveWriter(f)
        params = {"group_size": 4, "scenarios_per_update": 3, "max_new_tokens": 512, "updates": 12, "epochs": 1}
        w.run("agent_grpo", "/models/qwen3-4b-instruct-2507-q4_k_m.gguf", 1, params, None)
        seen: set[str] = set()
        for n in range(1, 13):
            agent_update(w, rng, n, 3, 4, seen)


def main() -> None:
    for name, fn in (("grpo", grpo), ("agent", agent)):
        d = ROOT / name
        d.mkdir(parents=True, exist_ok=True)
        fn(d / "observe.jsonl")
        print(f"wrote {d / 'observe.jsonl'} ({(d / 'observe.jsonl').stat().st_size} bytes)")


if __name__ == "__main__":
    main()
