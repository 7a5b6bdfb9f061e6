"""Synthetic observe.jsonl exports, written the way the retrograd trainer writes them.

Used by ``scripts/make_demo.py`` (the bundled example), the benchmarks
(large exports) and tests (tiny ones).  Lines are compact JSON with sorted
keys; batches carry ``segment``, ``batch_id``, ``batch_index``, ``batch_len``
and one ``time``, as in spec section 1.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from typing import IO, Any

WORDS = (
    "the of and to in is that for it as with was on be by this are or from at which an have not but "
    "answer compute value step result because therefore first then sum product equals check total number"
).split()


class ObserveWriter:
    """Appends batches to an observe.jsonl stream, numbering them like the sink."""

    def __init__(self, out: IO[str], start: datetime | None = None) -> None:
        self.out = out
        self.batch_id = 0
        self.segment = -1
        self.clock = start or datetime(2026, 3, 14, 9, 0, tzinfo=timezone.utc)

    def _time(self) -> str:
        self.clock += timedelta(seconds=7, milliseconds=313)
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def batch(self, bodies: Iterable[dict[str, Any]]) -> None:
        """Write one atomic batch."""
        bodies = list(bodies)
        t = self._time()
        for i, body in enumerate(bodies):
            rec = dict(body)
            rec.update(v=1, segment=self.segment, time=t, batch_id=self.batch_id, batch_index=i, batch_len=len(bodies))
            self.out.write(json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.batch_id += 1

    def run(self, algorithm: str, model: str, every: int | None, params: dict[str, int], resumed: int | None) -> None:
        """Start a segment."""
        self.segment += 1
        body: dict[str, Any] = {
            "type": "run",
            "algorithm": algorithm,
            "model": model,
            "resumed_from_update": resumed,
            "params": params,
        }
        if every is not None:
            body["every"] = every
        self.batch([body])


def sentence(rng: random.Random, n: int) -> str:
    """n random words."""
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _reasoning(rng: random.Random, n: int, words: int) -> str:
    """A reasoning trace of ``n`` lines: numbered steps, blank lines, some LaTeX and code."""
    out = ["<think>"]
    for i in range(n):
        r = rng.random()
        if r < 0.1:
            out.append("")
        elif r < 0.2:
            out.append(f"$$\\frac{{{rng.randrange(1, 99)}}}{{{rng.randrange(1, 99)}}} = x_{{{i}}}$$")
        elif r < 0.25:
            out.append(f"    total += {rng.randrange(1, 999)}  # <carry> & check")
        else:
            out.append(f"Step {i + 1}: {sentence(rng, rng.randrange(4, max(5, words // 8)))}.")
    out.append("</think>")
    return "\n".join(out) + "\n\nThe answer is \\boxed{" + str(rng.randrange(100, 9999)) + "}.\n"


def _arith_prompt(rng: random.Random, key: str, written: set[str], bodies: list[dict[str, Any]], system: bool) -> None:
    """Append the prompt record of ``key`` unless it was written already (the sink sends a
    prompt once); ``system`` gives 30% of prompts a system message."""
    if key in written:
        return
    a, b = rng.randrange(10, 99), rng.randrange(10, 99)
    msgs = [{"role": "user", "content": f"What is {a} * {b}? Show your work, then give the answer."}]
    if system and rng.random() < 0.3:
        msgs.insert(0, {"role": "system", "content": "Answer with care.\nEnd with 'Answer: <n>'."})
    bodies.append({"type": "prompt", "key": key, "messages": msgs, "reward_text": msgs[-1]["content"]})
    written.add(key)


def grpo_update(
    w: ObserveWriter,
    rng: random.Random,
    n: int,
    groups: int,
    size: int,
    texts: bool,
    written_prompts: set[str],
    words: int = 40,
    n_prompts: int = 50,
    metrics_extra: int = 0,
    progress: float = 0.5,
    lines: int = 0,
) -> None:
    """One GRPO update: rollout batch (if texts), outcome, update record.

    ``lines`` > 0 makes each completion a reasoning trace of about that many lines (a
    ``<think>`` block of numbered steps, some with LaTeX or code), as a reasoning model writes.
    """
    rewards_all = []
    trained_n = 0
    lengths = []
    if texts:
        bodies: list[dict[str, Any]] = []
        rollouts = []
        for g in range(groups):
            key = f"p:{rng.randrange(n_prompts)}"
            _arith_prompt(rng, key, written_prompts, bodies, system=True)
            rs = []
            for m in range(size):
                good = rng.random() < progress
                r = 1.0 if good else 0.0
                judge = rng.choice([0.0, 0.25]) if rng.random() < 0.3 else 0.0
                trunc = rng.random() < 0.08
                reward = r + judge - (0.5 if trunc else 0.0)
                rs.append((m, reward, r + judge, judge, trunc))
            mean = sum(x[1] for x in rs) / size
            zero = all(x[1] == rs[0][1] for x in rs)
            for m, reward, raw, judge, trunc in rs:
                tokens = 256 if trunc else rng.randrange(8, 200)
                if lines:
                    text = _reasoning(rng, rng.randrange(max(1, lines // 2), lines * 3 // 2 + 1), words)
                else:
                    text = f"Let me think. {sentence(rng, rng.randrange(5, words))}\n\n"
                    text += "$x^2 + y^2$ and \\boxed{" + str(rng.randrange(100, 9999)) + "}\n"
                    text += "```python\nprint(17 * 23)\n```\n" if rng.random() < 0.2 else ""
                text += f"Answer: {rng.randrange(100, 9999)}"
                live = not zero
                rollouts.append(
                    {
                        "type": "rollout",
                        "update": n,
                        "group": g,
                        "member": m,
                        "prompt": key,
                        "seed": rng.randrange(2**32),
                        "tokens": tokens,
                        "truncated": trunc,
                        "reward": reward,
                        "reward_raw": raw,
                        "judge_term": judge,
                        "advantage": 0.0 if not live else reward - mean,
                        "eligible": live,
                        "trained": None if live else False,
                        "skip_reason": None if live else "zero_signal",
                        "completion": text,
                    }
                )
                rewards_all.append(raw)
                lengths.append(tokens)
                trained_n += live
        w.batch(bodies + rollouts)
        w.batch(
            [
                {
                    "type": "outcome",
                    "update": n,
                    "entries": [
                        {"group": r["group"], "member": r["member"], "trained": r["eligible"]} for r in rollouts
                    ],
                }
            ]
        )
    mean = sum(rewards_all) / len(rewards_all) if rewards_all else progress
    std = (sum((r - mean) ** 2 for r in rewards_all) / len(rewards_all)) ** 0.5 if rewards_all else 0.4
    metrics: dict[str, Any] = {
        "reward/mean": round(mean, 6),
        "reward/std": round(std, 6),
        "batch/trained_fraction": round(trained_n / (groups * size), 6) if texts else round(rng.random(), 3),
        "completions/length_mean": round(sum(lengths) / len(lengths), 3) if lengths else rng.randrange(50, 200),
        "policy/kl": round(abs(rng.gauss(0.002 * n, 0.001)), 6),
        "policy/entropy": round(0.6 - 0.001 * n + rng.random() * 0.01, 6),
        "optimizer/learning_rate": 2e-4,
        "observe/dropped_batches": 0.0,
        "timing/generation_seconds": round(rng.uniform(4, 9), 3),
    }
    for i in range(metrics_extra):
        metrics[f"extra/metric_{i:03d}"] = round(rng.random(), 6)
    w.batch([{"type": "update", "update": n, "status": "completed", "metrics": metrics}])


def ppo_update(
    w: ObserveWriter, rng: random.Random, n: int, batch: int, written_prompts: set[str], words: int = 40
) -> None:
    """One PPO update (section 2.4 of the spec): a flat batch of completions (group null), each
    with its own prompt and the critic's advantage range, the outcome, the update record."""
    bodies: list[dict[str, Any]] = []
    rollouts = []
    for m in range(batch):
        key = f"p:{rng.randrange(batch * 40)}"
        _arith_prompt(rng, key, written_prompts, bodies, system=False)
        adv = round(rng.gauss(0, 1), 6)
        rollouts.append(
            {
                "type": "rollout",
                "update": n,
                "group": None,
                "member": m,
                "prompt": key,
                "seed": rng.randrange(2**32),
                "tokens": rng.randrange(8, 256),
                "truncated": rng.random() < 0.05,
                "reward": (r := round(rng.random(), 6)),
                "reward_raw": r,
                "judge_term": None,
                "advantage": adv,
                "advantage_min": round(adv - rng.random(), 6),
                "advantage_max": round(adv + rng.random(), 6),
                "eligible": True,
                "trained": None,
                "skip_reason": None,
                "completion": f"Let me think. {sentence(rng, rng.randrange(5, words))}\nAnswer: {rng.randrange(100, 9999)}",
            }
        )
    w.batch(bodies + rollouts)
    w.batch(
        [
            {
                "type": "outcome",
                "update": n,
                "entries": [{"group": None, "member": r["member"], "trained": True} for r in rollouts],
            }
        ]
    )
    w.batch(
        [
            {
                "type": "update",
                "update": n,
                "status": "completed",
                "metrics": {
                    "reward/mean": round(sum(r["reward"] for r in rollouts) / max(len(rollouts), 1), 6),
                    "policy/surrogate_loss": round(rng.gauss(0, 0.1), 6),
                    "policy/kl": round(abs(rng.gauss(0.001 * n, 0.0005)), 6),
                    "policy/clip_fraction": round(rng.random() * 0.2, 6),
                    "optimizer/learning_rate": 1e-5,
                    "observe/dropped_batches": 0.0,
                },
            }
        ]
    )


def agent_update(w: ObserveWriter, rng: random.Random, n: int, scenarios: int, size: int, written: set[str]) -> None:
    """One agentic GRPO update with tool calls, errors and step rewards."""
    bodies: list[dict[str, Any]] = []
    rollouts = []
    cities = ["Paris", "Lyon", "Oslo", "Lima", "Kyoto", "Accra"]
    for s in range(scenarios):
        city = cities[(n + s) % len(cities)]
        key = f"s:weather-{city.lower()}"
        if key not in written:
            bodies.append(
                {
                    "type": "prompt",
                    "key": key,
                    "messages": [
                        {
                            "role": "system",
                            "content": "You are a helpful assistant with tools.\nget_forecast(city, day)",
                        },
                        {"role": "user", "content": f"What's the weather in {city} tomorrow? One sentence."},
                    ],
                    "metadata": {"rubric": "Must call get_forecast and quote a temperature.", "topic": "weather"},
                }
            )
            written.add(key)
        for m in range(size):
            if rng.random() < 0.1:
                continue  # a crashed trajectory: not recorded (member gap)
            error = rng.random() < 0.3
            msgs: list[dict[str, Any]] = [
                {
                    "role": "assistant",
                    "content": "" if rng.random() < 0.5 else "Let me check the forecast.",
                    "tool_calls": [
                        {"id": "call_0", "name": "get_forecast", "arguments": {"city": city, "day": "tomorrow"}}
                    ],
                }
            ]
            if error:
                msgs.append(
                    {
                        "role": "tool",
                        "content": "error: service unavailable",
                        "tool_call_id": "call_0",
                        "is_error": True,
                    }
                )
                msgs.append(
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {
                                "id": "call_0",
                                "name": "get_forecast",
                                "arguments": {"city": city, "day": "tomorrow", "retry": 1},
                            }
                        ],
                    }
                )
            hi = rng.randrange(5, 30)
            msgs.append(
                {
                    "role": "tool",
                    "content": json.dumps({"high_c": hi, "low_c": hi - 7, "sky": "sunny"}),
                    "tool_call_id": "call_0",
                }
            )
            good = rng.random() < 0.6
            msgs.append(
                {
                    "role": "assistant",
                    "content": f"Tomorrow {city} will be sunny, up to {hi} °C."
                    if good
                    else f"It will be fine in {city}.",
                }
            )
            terminal = 1.0 if good else 0.0
            steps = [
                {"step_index": 1, "kind": "tool_result", "reward": -0.25 if error else 0.25, "message_indices": [1]}
            ]
            if rng.random() < 0.3:
                steps.append({"step_index": 5, "kind": "context", "reward": 0.0, "message_indices": []})
            raw = terminal + sum(x["reward"] for x in steps)
            rollouts.append(
                {
                    "type": "rollout",
                    "update": n,
                    "group": s,
                    "member": m,
                    "prompt": key,
                    "seed": (n << 32) + rng.randrange(2**31) + (1 << 53 if m == 0 else 0),
                    "tokens": rng.randrange(40, 300),
                    "truncated": False,
                    "reward": raw,
                    "reward_raw": raw,
                    "judge_term": None,
                    "advantage": None,
                    "eligible": None,
                    "trained": None,
                    "skip_reason": None,
                    "messages": msgs,
                    "prefix": True,
                    "step_rewards": steps,
                    "terminal_reward_raw": terminal,
                    "judge_explanation": "Quoted a temperature." if good else "No temperature quoted.",
                    "metadata": {"env_state": "tool_error"} if error else {},
                }
            )
    w.batch(bodies + rollouts)
    by_group: dict[int, list[dict[str, Any]]] = {}
    for r in rollouts:
        by_group.setdefault(r["group"], []).append(r)
    entries = []
    for g, rs in by_group.items():
        mean = sum(r["reward"] for r in rs) / len(rs)
        zero = all(r["reward"] == rs[0]["reward"] for r in rs)
        for r in rs:
            entries.append(
                {
                    "group": g,
                    "member": r["member"],
                    "advantage": 0.0 if zero else round(r["reward"] - mean, 6),
                    "eligible": not zero,
                    "skip_reason": "zero_signal" if zero else None,
                }
            )
    w.batch([{"type": "selection", "update": n, "entries": entries}])
    w.batch(
        [
            {
                "type": "outcome",
                "update": n,
                "entries": [{"group": e["group"], "member": e["member"], "trained": e["eligible"]} for e in entries],
            }
        ]
    )
    rewards = [r["reward"] for r in rollouts]
    mean = sum(rewards) / len(rewards) if rewards else 0.0
    calls = [sum(len(m.get("tool_calls", [])) for m in r["messages"]) for r in rollouts]
    w.batch(
        [
            {
                "type": "update",
                "update": n,
                "status": "completed",
                "metrics": {
                    "reward/mean": round(mean, 6),
                    "reward/std": round((sum((x - mean) ** 2 for x in rewards) / max(len(rewards), 1)) ** 0.5, 6),
                    "batch/trained_fraction": round(sum(e["eligible"] for e in entries) / max(len(entries), 1), 6),
                    "completions/length_mean": round(rng.uniform(40, 90), 3),
                    "policy/kl": round(abs(rng.gauss(0.001 * n, 0.0005)), 6),
                    "agent/turns_per_traj_mean": round(
                        sum(sum(1 for m in r["messages"] if m["role"] == "assistant") for r in rollouts)
                        / max(len(rollouts), 1),
                        6,
                    ),
                    "agent/tool_calls_per_traj": round(sum(calls) / max(len(calls), 1), 6),
                    "agent/failed_fraction": round(1 - len(rollouts) / (scenarios * size), 6),
                    "agent/tool_error_fraction": round(rng.random() * 0.3, 6),
                },
            }
        ]
    )
