# ruff: noqa: UP031  (JSON templates read better with %s than with doubled braces)
"""Hostile inputs: observe exports and tinker log_paths whose every field tries to break out.

Each field carries a tag ``FLD[name]`` followed by :data:`ATTACKS`, so a test can
check both that the field reached the site (the tag is in the page text) and that
nothing in it became markup (no injected element, attribute, script or request).
Every active payload does one of: set ``window.__rgpwn``, open a dialog, or ask
for something at ``evil.invalid``; a browser test watches for all three.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

EVIL = "evil.invalid"
MARK = "__rgpwn"

ATTACKS = [
    f"<script>window.{MARK}=1;alert(1)</script>",
    f'<img src=x onerror="window.{MARK}=2;alert(2)">',
    f"<svg onload=window.{MARK}=3><circle r=9 /></svg>",
    f'"><script>window.{MARK}=4</script><x a="',
    f"'><img src=x onerror=window.{MARK}=5>",
    f"' onmouseover='window.{MARK}=6' x='",
    f"</script><script>window.{MARK}=7</script><!--",
    f"<!--<script>window.{MARK}=8</script>-->",
    f"]]><![CDATA[<script>window.{MARK}=9</script>",
    f'<a href="javascript:window.{MARK}=10">link</a>',
    f"[markdown link](javascript:window.{MARK}=11) [data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    f"<javascript:alert(12)> [vb](vbscript:msgbox(1)) [rel](../../../etc/passwd) [far](https://{EVIL}/click)",
    f"![remote image](https://{EVIL}/img.png) ![data image](data:image/svg+xml,<svg onload=alert(13)>)",
    f'<iframe src="https://{EVIL}/frame"></iframe><object data="https://{EVIL}/o"></object><embed src="https://{EVIL}/e">',
    f"<style>body{{background:url(https://{EVIL}/css)}}</style><link rel=stylesheet href=https://{EVIL}/x.css>",
    f'<meta http-equiv="refresh" content="0;url=https://{EVIL}/meta"><base href="https://{EVIL}/">',
    f'<form action="https://{EVIL}/f"><button formaction="javascript:alert(14)">go</button></form>',
    '<math><maction actiontype="statusline" xlink:href="javascript:alert(15)">m</maction></math>',
    f"<details open ontoggle=window.{MARK}=16>t</details><video><source onerror=alert(17)></video>",
    f"$\\href{{javascript:alert(18)}}{{math link}}$ $$\\url{{javascript:alert(19)}}$$ \\(\\htmlId{{x}}{{y}}\\) "
    f"\\boxed{{\\includegraphics{{https://{EVIL}/k.png}}}}",
    "```html\n<script>alert(20)</script>\n```\n```js\n</code></pre><script>alert(21)</script>\n```",
    "{{ 7*7 }} {% raw %}{{ config.items() }}{% endraw %} {{ ''.__class__.__mro__ }} ${7*7} #{7*7} <%= 7*7 %> {#x#}",
    "{{constructor.constructor('alert(22)')()}} {{$on.constructor('alert(23)')()}}",
    "bidi \u202eevil\u202c \u2066isolate\u2069 \u200f rtl mark, zero\u200bwidth, bom \ufeff",
    "line separators \u2028 and \u2029, nul \x00 byte, bell \x07, escape \x1b[31m",
    "entities &lt;script&gt;alert(24)&lt;/script&gt; &amp;lt; &#x3C;img src=x onerror=alert(25)&#x3E; &#0000060;",
    "emoji 💭 🔧 ⚠️ and CJK 中文 and RTL שלום",
]
ATTACK = "\n".join(ATTACKS)


def hostile(field: str) -> str:
    """The hostile text of one field: its tag, then every attack."""
    return f"FLD[{field}] {ATTACK}"


def short(field: str) -> str:
    """A hostile text short enough for names and keys."""
    return f"FLD[{field}]<img src=x onerror=window.{MARK}=99>\"'</script><!--"


def deep(levels: int, leaf: Any) -> Any:
    """A JSON value nested ``levels`` deep, built without recursion."""
    value = leaf
    for i in range(levels):
        value = {f"<k{i}>": value} if i % 2 else [value]
    return value


def deep_json(levels: int, leaf: str) -> str:
    """The same, as JSON text (json.dumps would hit the recursion limit)."""
    leaf_text = json.dumps(leaf)
    opens = []
    closes = []
    for i in range(levels):
        if i % 2:
            opens.append('{"<k%d>":' % i)
            closes.append("}")
        else:
            opens.append("[")
            closes.append("]")
    return "".join(reversed(opens)) + leaf_text + "".join(closes)


BIG_NUMBERS = {"huge": 10**30, "huge_neg": -(10**40), "u64": 2**64 - 1, "tiny": 5e-324, "max": 1.7976931348623157e308}
# written as bare literals (not JSON, but Python's json writes them)
NONFINITE_LITERALS = '"nan": NaN, "inf": Infinity, "ninf": -Infinity, "overflow": 1e400'
# the observe writer writes a non-finite number as null; a bare NaN makes a line serde_json
# refuses, which reader.rs skips (test_observe_reader), and with it the batch
OBSERVE_NONFINITE = '"nan": null, "inf": null, "ninf": null, "overflow": 1e400'

HOSTILE_FIELDS_OBSERVE = [
    "folder",
    "run.algorithm",
    "run.model",
    "run.params.key",
    "run.params.value",
    "prompt.key",
    "prompt.system",
    "prompt.user",
    "prompt.reward_text",
    "prompt.metadata.key",
    "prompt.metadata.value",
    "completion",
    "judge_explanation",
    "skip_reason",
    "rollout.metadata.key",
    "rollout.metadata.value",
    "message.assistant",
    "tool.name",
    "tool.id",
    "tool.arguments.key",
    "tool.arguments.value",
    "tool.result",
    "step_reward.kind",
    "metric.name",
    "update.status",
    "time",
    "ppo.prompt.user",
    "ppo.completion",
    "invalid_utf8",
]


# --------------------------------------------------------------------- observe
def _dump_deep(doc: Any, indent: int | None = None) -> str:
    """json.dumps without the recursion limit (the trees are 1000 deep)."""
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    try:
        return json.dumps(doc, indent=indent)
    finally:
        sys.setrecursionlimit(old)


class _Lines:
    """Writes observe.jsonl lines batch by batch (raw text allowed)."""

    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.batch_id = 0

    def batch(self, segment: int, *bodies: dict[str, Any] | str, time: str = "2026-01-01T00:00:00.000Z") -> None:
        for i, b in enumerate(bodies):
            env = {"v": 1, "segment": segment, "time": time, "batch_id": self.batch_id}
            env.update(batch_index=i, batch_len=len(bodies))
            head = json.dumps(env)[:-1]
            if isinstance(b, str):  # a raw JSON object body, e.g. with duplicate keys or NaN
                body = b.strip()
                assert body.startswith("{") and body.endswith("}")
                line = head + ", " + body[1:] if body != "{}" else head + "}"
            else:
                line = head + ", " + _dump_deep(b)[1:]
            self.out.append(line.encode("utf-8", "surrogatepass"))
        self.batch_id += 1

    def raw(self, line: bytes) -> None:
        self.out.append(line)

    def data(self) -> bytes:
        return b"".join(x + b"\n" for x in self.out)


def _messages_agentic() -> list[dict[str, Any]]:
    h = hostile
    return [
        {"role": "system", "content": h("agent.system")},
        {"role": "user", "content": h("agent.user")},
        {
            "role": "assistant",
            "content": h("message.assistant"),
            "tool_calls": [
                {
                    "id": short("tool.id"),
                    "name": short("tool.name"),
                    "arguments": {short("tool.arguments.key"): h("tool.arguments.value"), "n": 10**30},
                },
                {"id": "call_0", "name": "search", "arguments": h("tool.arguments.string")},
            ],
        },
        {"role": "tool", "tool_call_id": short("tool.id"), "content": h("tool.result"), "is_error": True},
        {"role": "tool", "tool_call_id": "call_0", "content": h("tool.result2")},
        {"role": "tool", "tool_call_id": short("orphan.tool_call_id"), "content": h("tool.orphan_result")},
        {"role": short("message.role"), "content": h("message.odd_role")},
        {"role": "assistant", "content": h("message.final") + "\n$x^2$ and \\boxed{42}"},
    ]


def write_observe(directory: Path, big: int = 10 * 1024 * 1024) -> Path:
    """A hostile observe export (GRPO, agentic and PPO segments) in ``directory``.

    ``big``: the length of the one huge completion (0: none).
    """
    directory.mkdir(parents=True, exist_ok=True)
    h = hostile
    L = _Lines()
    params = {short("run.params.key"): h("run.params.value"), "huge": 10**30, "nested": deep(50, "x")}
    L.batch(
        0,
        {
            "type": "run",
            "algorithm": short("run.algorithm"),
            "model": "/models/" + short("run.model") + ".gguf",
            "resumed_from_update": None,
            "every": 1,
            "params": params,
        },
        time=short("time"),
    )
    meta = {short("prompt.metadata.key"): h("prompt.metadata.value"), "deep": deep(1000, h("deep.leaf"))}
    prompt = {
        "type": "prompt",
        "key": short("prompt.key"),
        "messages": [{"role": "system", "content": h("prompt.system")}, {"role": "user", "content": h("prompt.user")}],
        "reward_text": h("prompt.reward_text"),
        "metadata": meta,
    }
    # duplicate keys, NaN and huge numbers inside a rollout: hand-written JSON
    dup_rollout = (
        '{"type": "rollout", "update": 1, "group": 0, "member": 1, "prompt": %s, "completion": "first",'
        ' "completion": %s, "reward": null, "reward_raw": 1e400, "advantage": null, "tokens": %d,'
        ' "seed": %d, "metadata": {"k": 1, "k": %s, %s}}'
        % (
            json.dumps(short("prompt.key")),
            json.dumps(h("completion.duplicate_key")),
            10**30,
            2**70,
            json.dumps(h("rollout.metadata.dup")),
            OBSERVE_NONFINITE,
        )
    )
    rollouts: list[dict[str, Any] | str] = [
        {
            "type": "rollout",
            "update": 1,
            "group": 0,
            "member": 0,
            "prompt": short("prompt.key"),
            "completion": h("completion") + "\n" + "\n".join(f"line {i}" for i in range(40)),
            "reward": 1.0,
            "reward_raw": 1.0,
            "judge_term": 0.5,
            "judge_explanation": h("judge_explanation"),
            "skip_reason": short("skip_reason"),
            "eligible": False,
            "metadata": {short("rollout.metadata.key"): h("rollout.metadata.value"), "summary": h("metadata.summary")},
            "seed": 2**64 + 5,
        },
        dup_rollout,
        {
            "type": "rollout",
            "update": 1,
            "group": 0,
            "member": 2,
            "prompt": short("prompt.key"),
            "completion": "surrogate \ud800 lone and nul \x00 inside",
            "reward": -1.0,
        },
    ]
    if big:
        rollouts.append(
            {
                "type": "rollout",
                "update": 1,
                "group": 1,
                "member": 0,
                "prompt": short("prompt.key"),
                "completion": "FLD[big] " + ATTACKS[0] + "x" * big,
                "reward": 0.0,
            }
        )
    L.batch(0, prompt, *rollouts)
    # invalid UTF-8 inside a completion: a raw line
    env = {"v": 1, "segment": 0, "time": "2026-01-01T00:00:00.000Z", "batch_id": L.batch_id, "batch_index": 0}
    env["batch_len"] = 1
    head = json.dumps(env)[:-1].encode()
    body = b', "type": "rollout", "update": 1, "group": 2, "member": 0, "prompt": "p:utf8", "completion": "FLD[invalid_utf8] \xff\xfe<script>window.__rgpwn=30</script> \xc3\x28"}'
    L.raw(head + body)
    L.batch_id += 1
    L.batch(0, {"type": "selection", "update": 1, "entries": [{"group": 0, "member": 0, "advantage": 1e308}]})
    L.batch(0, {"type": "outcome", "update": 1, "entries": [{"group": 0, "member": 0, "trained": True}, "junk"]})
    metrics = (
        '{"type": "update", "update": 1, "status": %s, "metrics": {"reward/mean": 0.5, %s: 1.5, %s: -2, %s,'
        ' "huge": %d, "reward/std": "not a number", "policy/kl": null}}'
        % (
            json.dumps(short("update.status")),
            json.dumps(short("metric.name")),
            json.dumps("</script><script>window.__rgpwn=31</script>"),
            OBSERVE_NONFINITE,
            10**30,
        )
    )
    L.batch(0, metrics)
    # a second update, agentic, in a resumed segment of another algorithm
    L.batch(
        1,
        {
            "type": "run",
            "algorithm": "agentic_grpo",
            "model": short("run.model2"),
            "resumed_from_update": 1,
            "every": 1,
            "params": {},
        },
    )
    L.batch(
        1,
        {**prompt, "key": "p:agent"},
        {
            "type": "rollout",
            "update": 2,
            "group": 0,
            "member": 0,
            "prompt": "p:agent",
            "prefix": False,
            "messages": _messages_agentic(),
            "step_rewards": [
                {"step_index": 0, "kind": short("step_reward.kind"), "reward": 0.5, "message_indices": [2, 99, -1]},
                {"step_index": 1, "kind": "final", "reward": "NaN", "message_indices": "bad"},
            ],
            "terminal_reward_raw": 1.0,
            "reward": 0.25,
        },
        {
            "type": "rollout",
            "update": 2,
            "group": 0,
            "member": 1,
            "prompt": "p:agent",
            "messages": [{"role": "assistant", "content": None, "tool_calls": "not a list"}, "junk", 5],
            "reward": None,
        },
    )
    L.batch(1, {"type": "update", "update": 2, "status": "completed", "metrics": {"reward/mean": 0.25}})
    # PPO: group null, each member with its own prompt
    L.batch(
        2, {"type": "run", "algorithm": "ppo", "model": "m", "resumed_from_update": 2, "every": 1, "params": params}
    )
    L.batch(
        2,
        {"type": "prompt", "key": "ppo:0", "messages": [{"role": "user", "content": h("ppo.prompt.user")}]},
        {
            "type": "rollout",
            "update": 3,
            "group": None,
            "member": 0,
            "prompt": "ppo:0",
            "completion": h("ppo.completion"),
        },
        {
            "type": "rollout",
            "update": 3,
            "group": None,
            "member": 1,
            "prompt": short("ppo.missing_prompt"),
            "completion": "x",
        },
    )
    L.batch(2, {"type": "update", "update": 3, "status": "completed", "metrics": {"reward/mean": 1e308}})
    # unknown record type, unknown fields, a broken batch, a stray line, blank and junk lines
    L.batch(2, {"type": short("unknown.type"), "update": 3, short("unknown.field"): h("unknown.value")})
    L.raw(b"\x00\x00\x00 not json at all <script>alert(40)</script>")
    L.raw(b"   ")
    L.raw(b'{"v": 1, "segment": 2, "batch_id": 999, "batch_index": 1, "batch_len": 2, "type": "rollout"}')
    L.raw(b'["an", "array", "line"]')
    data = L.data() + b'{"v": 1, "segment": 2, "batch_id": 1000, "batch_index": 0, "batch_len": 1, "type": "upd'
    (directory / "observe.jsonl").write_bytes(data)
    return directory


# ---------------------------------------------------------------------- tinker
def _esc(text: str) -> str:
    """A logtree string child, as logtree writes it."""
    return html.escape(text, quote=True)


def _node(tag: str, children: list[Any], attrs: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    node = {"tag": tag, "attrs": attrs or {}, "children": children}
    node.update(extra)
    return node


def _section(level: int, title: str, body: list[Any]) -> dict[str, Any]:
    return _node(
        "section",
        [
            _node(f"h{min(level, 6)}", [_esc(title)], {"class": f"lt-h{level}"}),
            _node("div", body, {"class": "lt-section-body"}),
        ],
        {"class": "lt-section"},
    )


def _table(caption: str, rows: dict[str, str]) -> list[dict[str, Any]]:
    body = [_node("tr", [_node("td", [_esc(k)]), _node("td", [_esc(v)])]) for k, v in rows.items()]
    return [
        _node("div", [_esc(caption)], {"class": "lt-table-caption"}),
        _node(
            "table",
            [_node("thead", [_node("tr", [_node("th", ["key"]), _node("th", ["value"])])]), _node("tbody", body)],
            {"class": "lt-table"},
        ),
    ]


def _conversation(label: str) -> dict[str, Any]:
    h = hostile
    return {
        "type": "conversation",
        "messages": [
            {"role": "user", "content": h(f"{label}.user")},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": h(f"{label}.thinking")},
                    {"type": "text", "text": h(f"{label}.text")},
                    {"type": "image", "image": f"javascript:window.{MARK}=50"},
                    {"type": "image", "image": f"https://{EVIL}/part.png"},
                    {"type": short(f"{label}.part_type"), "x": h(f"{label}.part_other")},
                ],
                "tool_calls": [
                    {
                        "type": "function",
                        "id": short(f"{label}.tool_id"),
                        "function": {"name": short(f"{label}.tool_name"), "arguments": h(f"{label}.tool_args")},
                    },
                    {"type": "function", "id": None, "function": {"name": "calc", "arguments": {"obj": h("x")}}},
                    "junk",
                ],
                "unparsed_tool_calls": [
                    {"raw_text": h(f"{label}.unparsed_raw"), "error": h(f"{label}.unparsed_error")}
                ],
            },
            {
                "role": "tool",
                "content": h(f"{label}.tool_result"),
                "tool_call_id": short(f"{label}.tool_call_id"),
                "name": short(f"{label}.tool_msg_name"),
            },
            {"role": short(f"{label}.role"), "content": [h(f"{label}.bare_part"), 5, None]},
        ],
    }


def _logtree(label: str, depth: int = 1000) -> dict[str, Any]:
    h = hostile
    traj = _section(
        4,
        "Trajectory 0 Episode",
        [
            _section(
                5,
                "Episode Details",
                [
                    _section(
                        6,
                        "Turn 1",
                        _table("Step stats", {"ob_len": "10", "ac_len": "5", "step_reward": "NaN"})
                        + [
                            _section(
                                6,
                                "Step Metrics",
                                _table("Metrics emitted by env.step", {short(f"{label}.step_metric"): "1.000"}),
                            ),
                            _section(
                                6,
                                "Diagnostics",
                                [
                                    _node("p", [_esc(short(f"{label}.diag_key") + ": " + h(f"{label}.diag_value"))]),
                                    _node(
                                        "details",
                                        [
                                            _node("summary", [_esc(short(f"{label}.diag_key2"))]),
                                            _node("pre", [_esc(h(f"{label}.diag_long"))]),
                                        ],
                                    ),
                                ],
                            ),
                        ],
                    )
                ]
                + _table(
                    "Episode totals", {"total_return": "1e400", "final_group_reward": "-inf", "final_ob_len": "9" * 400}
                ),
            )
        ],
    )
    group = _section(
        2,
        "Group Rollout",
        [
            _section(3, "Prompt", [_node("div", [], data=_conversation(f"{label}.prompt"))]),
            _section(3, "Policy Response", [_node("div", [], data=_conversation(f"{label}.response"))]),
            _section(
                3, "Reward", _table("Reward components", {short(f"{label}.reward_key"): h(f"{label}.reward_value")})
            ),
            _section(3, "Trajectory Details", [traj]),
        ],
    )
    raw_html = _node("div", [f"FLD[{label}.log_html] " + ATTACK], {"class": "lt-raw"})
    escaped = _node("p", [_esc(h(f"{label}.log_text"))], {"class": "lt-p"})
    double = _node(
        "p", [_esc(_esc(f"FLD[{label}.double_escaped] <script>window.{MARK}=51</script>"))], {"class": "lt-p"}
    )
    hostile_tags = [
        _node("script", [_esc(f"window.{MARK}=52")], {"src": f"https://{EVIL}/s.js"}),
        _node("img", [], {"src": f"https://{EVIL}/i.png", "onerror": f"window.{MARK}=53"}),
        _node(
            "a",
            [_esc(h(f"{label}.link_text"))],
            {"href": f"javascript:window.{MARK}=54", "onclick": f"window.{MARK}=55"},
        ),
        _node("iframe", [_esc("frame")], {"src": f"https://{EVIL}/if", "srcdoc": "<script>alert(56)</script>"}),
        _node("style", [_esc(f"body{{background:url(https://{EVIL}/st)}}")]),
        _node(
            short(f"{label}.tag_name"),
            [_esc(h(f"{label}.odd_tag"))],
            {short("attr"): "x", "style": f"background:url(https://{EVIL}/a)"},
        ),
        _node(
            "p",
            [_esc("attrs")],
            {"class": 'answer " onmouseover=alert(57) x="', "id": "<x>", "onmouseover": "alert(58)"},
        ),
        _node(
            "details",
            [_node("summary", [_esc(h(f"{label}.summary"))]), _node("pre", [_esc(h(f"{label}.details_body"))])],
            {"ontoggle": "alert(59)"},
        ),
        _node(
            "details",
            [_node("summary", [_esc("Exception: X")]), _node("pre", [_esc(h(f"{label}.traceback"))])],
            {"class": "lt-exc", "open": "open"},
        ),
        _node("div", [], data={"type": short(f"{label}.data_type"), "payload": h(f"{label}.data_value")}),
        "not a node but a top-level string " + ATTACKS[0],
        None,
        5,
    ]
    nested: Any = _node("p", [_esc(h(f"{label}.deep_leaf"))])
    for _ in range(depth):
        nested = _node("div", [nested, _esc("x")])
    root = _node(
        "body",
        [
            _node("h1", [_esc(h(f"{label}.title_node"))], {"class": "lt-title"}),
            _node("div", [_esc(h(f"{label}.subtitle"))], {"class": "lt-subtitle"}),
            escaped,
            double,
            raw_html,
            group,
            *hostile_tags,
            nested,
        ],
        {"class": "lt-root"},
    )
    return {
        "title": h(f"{label}.title"),
        "started_at": short(f"{label}.started_at"),
        "path": h(f"{label}.path"),
        "root": root,
    }


def _summary_line(group: int, traj: int, label: str) -> str:
    h = hostile
    rec = {
        "schema_version": 1,
        "split": "train",
        "iteration": 0,
        "group_idx": group,
        "traj_idx": traj,
        "tags": [short(f"{label}.tag"), 5, None],
        "sampling_client_step": 0,
        "total_reward": 1.0,
        "final_reward": 1.0,
        "trajectory_metrics": {
            short(f"{label}.traj_metric"): h(f"{label}.traj_metric_value"),
            "zero_reward_on_limit": 1,
        },
        "steps": [
            {
                "step_idx": 0,
                "ob_len": 3,
                "ac_len": 2,
                "reward": 1.0,
                "episode_done": True,
                "metrics": {short(f"{label}.step_metric_name"): 1.0, "correct": 1.0, "stop/" + short("stop"): 1},
                "logs": {
                    short(f"{label}.log_key"): h(f"{label}.log_value"),
                    "assistant_content": h(f"{label}.assistant_content"),
                    "tool_call_0": short(f"{label}.log_tool_call"),
                    "obj": {"nested": h(f"{label}.log_obj")},
                },
            },
            "junk",
        ],
        "final_ob_len": 4,
    }
    line = json.dumps(rec)
    # non-finite values and huge numbers, as Python's json writes them
    return line[:-1] + ', "nonfinite": {' + NONFINITE_LITERALS + "}}"


HOSTILE_FIELDS_TINKER = [
    "folder",
    "config.model_name",
    "config.loss_fn",
    "config.key",
    "config.value",
    "metric.name",
    "eval.prefix",
    "checkpoint.name",
    "checkpoint.state_path",
    "checkpoint.sampler_path",
    "checkpoint.extra_key",
    "code.diff",
    "log.command",
    "log.warning",
    "log.error",
    "log.traceback",
    "log.info",
    "train.title",
    "train.log_text",
    "train.log_html",
    "train.prompt.user",
    "train.response.text",
    "train.response.thinking",
    "train.response.tool_name",
    "train.response.tool_args",
    "train.response.unparsed_raw",
    "train.response.tool_result",
    "train.reward_value",
    "train.diag_value",
    "train.log_value",
    "train.tag",
    "train.odd_tag",
    "train.link_text",
    "train.traceback",
    "train.data_value",
    "htmlonly.title",
    "htmlonly.user",
    "htmlonly.assistant",
    "htmlonly.thinking",
    "htmlonly.cell",
    "htmlonly.raw_markup",
]


def _html_report() -> str:
    """A tinker 0.1.0 HTML report (no JSON beside it): texts escaped as logtree writes them,
    plus raw markup where an env's log_html() could have put it."""
    h = hostile
    e = html.escape
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>%s</title>'
        f"<style>body{{background:url(https://{EVIL}/css)}}</style><script>window.{MARK}=90</script></head>"
        '<body class="lt-root"><h1 class="lt-title">%s</h1><div class="lt-subtitle">Generated 2026</div>'
        '<section class="lt-section"><h2 class="lt-h2">Group Rollout</h2><div class="lt-section-body">'
        '<div><div class="lt-conversation">'
        '<div class="lt-message lt-message-user"><span class="lt-message-role">user:</span>'
        '<div class="lt-message-content"><span class="lt-text-part">%s</span></div></div>'
        '<div class="lt-message lt-message-assistant"><span class="lt-message-role">assistant:</span>'
        '<div class="lt-message-content"><details class="lt-thinking-part"><summary>Thinking</summary>'
        '<pre>%s</pre></details><span class="lt-text-part">%s</span></div></div></div></div>'
        '<table class="lt-table"><tbody><tr><td>%s</td></tr></tbody></table>'
        "<div>FLD[htmlonly.raw_markup] %s</div>"
        "</div></section></body></html>"
    ) % (
        e(h("htmlonly.head_title")),
        e(h("htmlonly.title")),
        e(h("htmlonly.user")),
        e(h("htmlonly.thinking")),
        e(h("htmlonly.assistant")),
        e(h("htmlonly.cell")),
        ATTACK,
    )


def write_tinker(directory: Path, outside: Path | None = None) -> Path:
    """A hostile tinker log_path in ``directory`` (0.6 layout plus flat files).

    ``outside``: a folder outside the log_path; an iteration there is reached
    through a symbolic link inside it (reading through a link is fine).
    """
    directory.mkdir(parents=True, exist_ok=True)
    h = hostile
    eval_prefix = short("eval.prefix")
    cfg = (
        '{"model_name": %s, "loss_fn": %s, %s: %s, "dataset_builder": {"batch_size": "x", "group_size": 4},'
        ' "learning_rate": 1e400, "lora_rank": %d, "renderer_name": %s, "deep": %s, "dup": 1, "dup": 2,'
        ' "evaluator_builders": [1, 2], "log_path": %s, %s}'
        % (
            json.dumps(short("config.model_name")),
            json.dumps(short("config.loss_fn")),
            json.dumps(short("config.key")),
            json.dumps(h("config.value")),
            10**30,
            json.dumps(short("config.renderer")),
            deep_json(400, h("config.deep")),
            json.dumps(h("config.log_path")),
            NONFINITE_LITERALS,
        )
    )
    (directory / "config.json").write_text(cfg)
    rows = [
        '{"step": 0, "progress/batch": 0, "env/all/reward/total": 1.0, %s: 2.0, %s, "huge": %d, "text": %s}'
        % (json.dumps(short("metric.name")), NONFINITE_LITERALS, 10**30, json.dumps(h("metric.text_value"))),
        '{"step": 0, %s: 0.5, %s: 1.0}'
        % (json.dumps(eval_prefix + "/env/all/reward/total"), json.dumps("evil/env/all/correct")),
        '{"step": 1, "progress/batch": 1, "env/all/reward/total": NaN, "optim/kl_sample_train_v1": Infinity}',
        '{"step": 1, "step": 2, "progress/batch": 2, "env/all/reward/total": -1e308}',
        '{"no_step": true, %s: 3}' % json.dumps(short("metric.unstepped")),
        "[1, 2, 3]",
        "not json <script>alert(70)</script>",
        '{"step": "7", "progress/batch": true}',
    ]
    (directory / "metrics.jsonl").write_text("\n".join(rows) + "\n" + '{"step": 3, "torn')
    (directory / "metrics.jsonl.pre_resume_000001").write_text('{"step": 1, "progress/batch": 1}\n{"step": 2}\n')
    ckpts = [
        {
            "name": short("checkpoint.name"),
            "batch": 0,
            "state_path": "tinker://" + short("checkpoint.state_path"),
            "sampler_path": f"javascript:window.{MARK}=71//" + short("checkpoint.sampler_path"),
            short("checkpoint.extra_key"): h("checkpoint.extra_value"),
        },
        {"name": "final", "batch": 2**70, "state_path": None},
        "junk",
    ]
    (directory / "checkpoints.jsonl").write_text("\n".join(json.dumps(c) for c in ckpts) + "\n")
    diff = ("diff --git a/x b/x\n+++ b/x\n--- a/x\n@@ -1 +1 @@\n+" + h("code.diff") + "\n-removed\n context\n").encode()
    (directory / "code.diff").write_bytes(diff + b"invalid utf-8: \xff\xfe\xc3\x28 end\n")
    (directory / "timing_spans.jsonl").write_text(
        json.dumps({"step": 0, "spans": [{"name": short("timing.span"), "start": 0, "end": 1e400}, "junk"]}) + "\n"
    )
    it0 = directory / "iteration_000000"
    it0.mkdir(exist_ok=True)
    (it0 / "train_logtree.json").write_text(_dump_deep(_logtree("train")))
    (it0 / "train.html").write_text("<script>alert(72)</script>")
    summaries = [_summary_line(0, 0, "train"), _summary_line(0, 1, "train"), "not json", "[]", '{"group_idx": "x"}']
    (it0 / "train_rollout_summaries.jsonl").write_text("\n".join(summaries) + "\n")
    # evaluator labels taken from file names: hostile and colliding names
    for raw_label in (
        f"<img src=x onerror=window.{MARK}=73>",
        "a?b#c d%2e..",
        "..",
        "\u202eevil",
        "x" * 180,
    ):
        (it0 / f"eval_{raw_label}_logtree.json").write_text(_dump_deep(_logtree("eval", depth=3)))
    try:
        bad = os.fsencode(str(it0)) + b"/eval_\xff\xfe_logtree.json"
        with open(bad, "wb") as f:
            f.write(
                json.dumps({"title": "invalid utf-8 name", "root": _node("p", [_esc(h("eval.bytes_name"))])}).encode()
            )
    except OSError:  # a file system that refuses non-UTF-8 names
        pass
    # flat layout too, with a torn summaries file
    flat_eval = directory / f"eval_{eval_prefix[:40]}_iteration_000001_logtree.json"
    flat_eval.write_text(_dump_deep(_logtree("flat_eval", depth=3)))
    (directory / "train_iteration_000001_logtree.json").write_text(_dump_deep(_logtree("flat", depth=3)))
    (directory / "train_iteration_000001_rollout_summaries.jsonl").write_text(_summary_line(0, 0, "flat") + '\n{"gro')
    (directory / ".train_iteration_000002_logtree.json.123.tmp").write_text("<script>alert(74)</script>")
    # logs.log: hostile messages, logger names and levels, a traceback, invalid UTF-8, a bidi override
    (directory / "logs.log").write_bytes(
        (
            f"root:1 [INFO] Command line invocation: {h('log.command')}\n"
            # a logger name holds no blank, colon or bracket (else the line continues the one before)
            f"<img/src=x/onerror=window.{MARK}=98>.FLD.log.logger:2 [WARNING] {h('log.warning')}\n"
            f"mod:3 [ERROR] {h('log.error')}\nTraceback (most recent call last):\n  {h('log.traceback')}\n"
            + "".join(f"mod:{n} [INFO] \u202e{h('log.info')}\n" for n in range(4, 30))
        ).encode()
        + b"mod:31 [INFO] bytes \xff\xfe </pre>\n"
    )
    # a 0.1.0 report: the HTML is the only record of this evaluation
    (directory / "eval_htmlonly_iteration_000001.html").write_text(_html_report(), encoding="utf-8")
    if outside is not None:
        ext = outside / "iteration_000003"
        ext.mkdir(parents=True, exist_ok=True)
        (ext / "train_logtree.json").write_text(_dump_deep(_logtree("linked", depth=3)))
        os.symlink(ext, directory / "iteration_000003")
    return directory


def hash_tree(root: Path) -> dict[str, str]:
    """sha256 of every file below ``root`` (links followed), with mode and mtime."""
    import hashlib

    out: dict[str, str] = {}
    for dirpath, _dirs, files in os.walk(root, followlinks=True):
        for name in files:
            p = os.path.join(dirpath, name)
            st = os.stat(p)
            with open(p, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            out[os.path.relpath(p, root)] = f"{digest} {st.st_mode:o} {st.st_mtime_ns} {st.st_size}"
    return out


# a folder name is a hostile field too (site titles come from it); '/' is the one byte it cannot hold
FOLDER = f"FLD[folder]<img src=x onerror=window.{MARK}=81>\"'&amp;\u202e"

_BUILT: dict[tuple[str, int], Path] = {}


def built_sites(tmp_path_factory: Any, big: int = 10 * 1024 * 1024) -> dict[str, Path]:
    """The hostile inputs and their sites, built once per test session.

    Keys: ``observe``, ``tinker`` and ``sweep`` (the sites: the sweep holds both runs),
    ``observe_input`` and ``tinker_input``.  ``big`` is the length of the huge completion
    (Chromium needs ~15 s to lay out 10 MB).
    """
    if ("observe", big) not in _BUILT:
        from click.testing import CliRunner

        from reportgen.cli import main
        from reportgen.site import BuildOptions, build

        root = tmp_path_factory.mktemp("hostile")
        obs = write_observe(root / f"observe {FOLDER}", big=big)
        tk = write_tinker(root / f"tinker {FOLDER}", outside=root / "outside")
        _BUILT[("observe_input", big)] = obs
        _BUILT[("tinker_input", big)] = tk
        for name, src in (("observe", obs), ("tinker", tk)):
            out = root / f"site-{name}"
            build(str(src), out, BuildOptions(jobs=1))
            _BUILT[(name, big)] = out
        out = root / "site-sweep"
        r = CliRunner().invoke(main, ["build", str(obs), str(tk), "-o", str(out), "--jobs", "1", "-q"])
        assert r.exit_code == 0, r.output
        _BUILT[("sweep", big)] = out
    return {name: path for (name, b), path in _BUILT.items() if b == big}
