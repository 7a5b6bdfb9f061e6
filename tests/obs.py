"""Build small observe.jsonl files inline, batch by batch, for the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reportgen.sources.jsonl import nan_to_null


class Obs:
    """Accumulates lines the way the trainer's sink writes them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.batch_id = 0
        self.segment = -1

    def batch(self, *bodies: dict[str, Any], segment: int | None = None) -> Obs:
        seg = self.segment if segment is None else segment
        for i, b in enumerate(bodies):
            rec = {"v": 1, "segment": seg, "time": "2026-01-01T00:00:00.000Z", "batch_id": self.batch_id}
            rec.update(batch_index=i, batch_len=len(bodies))
            rec.update(b)
            # a non-finite number as null, as the trainer writes it (serde_json::to_value)
            self.lines.append(json.dumps(nan_to_null(rec), sort_keys=True, separators=(",", ":")))
        self.batch_id += 1
        return self

    def run(self, algorithm: str = "grpo", resumed: int | None = None, every: int | None = 1, **params: int) -> Obs:
        self.segment += 1
        body: dict[str, Any] = {
            "type": "run",
            "algorithm": algorithm,
            "model": "/m/model.gguf",
            "resumed_from_update": resumed,
            "params": params,
        }
        if every is not None:
            body["every"] = every
        return self.batch(body)

    def prompt(self, key: str = "p:0", content: str = "q", **extra: Any) -> dict[str, Any]:
        return {"type": "prompt", "key": key, "messages": [{"role": "user", "content": content}], **extra}

    @staticmethod
    def rollout(
        update: int, group: int | None, member: int, completion: str = "answer", **extra: Any
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": "rollout",
            "update": update,
            "group": group,
            "member": member,
            "prompt": extra.pop("prompt", "p:0"),
            "seed": 7,
            "tokens": 12,
            "truncated": False,
            "reward": 1.0,
            "reward_raw": 1.0,
            "judge_term": None,
            "advantage": None,
            "eligible": None,
            "trained": None,
            "skip_reason": None,
        }
        if completion is not None:
            body["completion"] = completion
        body.update(extra)
        return body

    @staticmethod
    def update(n: int, status: str = "completed", **metrics: Any) -> dict[str, Any]:
        return {
            "type": "update",
            "update": n,
            "status": status,
            "metrics": {k.replace("__", "/"): v for k, v in metrics.items()},
        }

    @staticmethod
    def outcome(n: int, *entries: tuple[int | None, int, bool]) -> dict[str, Any]:
        return {
            "type": "outcome",
            "update": n,
            "entries": [{"group": g, "member": m, "trained": t} for g, m, t in entries],
        }

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def write(self, directory: Path, tail: str = "") -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "observe.jsonl"
        path.write_text(self.text() + tail, encoding="utf-8")
        return directory


def one_conversation(messages: list[dict[str, Any]], **extra: Any) -> Obs:
    """An agentic export of one update holding one trajectory (group 0, member 0) of these
    messages, after the prefix of scenario ``s:t``; ``extra``: more rollout fields."""
    o = Obs().run("agent_grpo")
    o.batch(o.prompt("s:t", "q"), o.rollout(1, 0, 0, None, prompt="s:t", messages=messages, prefix=True, **extra))
    return o.batch(o.update(1))
