"""The context of the run's index page."""

from __future__ import annotations

from typing import Any

from ..model import Run
from .text import pretty_json

OBSERVE_COLUMNS = ("reward/mean", "reward/std", "batch/trained_fraction", "policy/kl")
TINKER_COLUMNS = (
    "env/all/reward/total",
    "env/all/correct",
    "env/all/format",
    "optim/kl_sample_train_v1",
    "optim/entropy",
    "env/all/ac_tokens_per_turn",
    "time/total",
)


def model_file_name(model: str | None) -> str | None:
    """The file name of a model path (the retrograd viewer shows only that)."""
    if not model:
        return model
    return model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or model


def index_context(run: Run, title: str) -> dict[str, Any]:
    """What the index page shows."""
    wanted: tuple[str, ...] = OBSERVE_COLUMNS if run.format == "observe" else TINKER_COLUMNS
    columns = tuple(c for c in wanted if run.metrics.has_finite(c)) or wanted[:1]
    rows = []
    for ref in run.iterations:
        rows.append(
            {
                "ref": ref,
                "values": [run.metrics.get(ref.number, c) for c in columns],
            }
        )
    texts = sum(1 for r in run.iterations if r.has_texts)
    rollouts = sum(r.rollouts for r in run.iterations)
    evals = []
    for label, refs in sorted(run.evals.items()):
        prefix = run.eval_metric_prefix.get(label)
        cols = []
        if prefix is not None:
            names = [f"{prefix}/env/all/reward/total", f"{prefix}/env/all/correct", f"{prefix}/env/all/format"]
            cols = [c for c in names if run.metrics.has_finite(c)]
        evals.append(
            {
                "label": label,
                "prefix": prefix,
                "refs": refs,
                "columns": cols,
                "rows": [(r, [run.metrics.get(r.number, c) for c in cols]) for r in refs],
            }
        )
    header: dict[str, Any] = {}
    if run.format == "tinker":
        info = run.info
        for key, label in (
            ("learning_rate", "learning rate"),
            ("lora_rank", "LoRA rank"),
            ("renderer_name", "renderer"),
            ("mode", "mode"),
            ("groups_per_batch", "groups per batch"),
            ("group_size", "group size"),
            ("max_tokens", "max tokens"),
            ("num_groups_to_log", "groups logged"),
        ):
            if info.get(key) is not None:
                header[label] = info[key]
        header["evaluators"] = ", ".join(sorted(run.evals)) or "none"
        state = []
        if info.get("resumed"):
            state.append("resumed at step " + ", ".join(str(x) for x in info.get("resumed_at", [])))
        if info.get("crashed"):
            state.append("crashed")
        if info.get("completed"):
            state.append("finished (final checkpoint)")
        header["status"] = "; ".join(state) or "running or stopped"
    return {
        "header": header,
        "run": run,
        "title": title,
        "model_name": model_file_name(run.model),
        "columns": columns,
        "rows": rows,
        "n_texts": texts,
        "n_rollouts": rollouts,
        "evals": evals,
        "config_json": pretty_json(run.config) if run.config is not None else None,
        "visible_segments": [s for s in run.segments if s.get("visible")],
    }
