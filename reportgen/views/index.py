"""The context of the run's index page."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from markupsafe import Markup

from ..model import DUE_NOTE, NO_TRAINING_NOTE, UNNAMED, Run
from .charts import eval_prefixes
from .html import esc
from .text import fmt, pretty_json

# rows from which the table is laid out as grid rows, each skipped while off screen (charts.js
# decides the same from the rows it finds, for pages that script; the CSS of a page that does
# not script reads the section's "long" class)
LONG_TABLE = 1500

# the last only where the run logs it (agentic GRPO): which updates' tools failed most
OBSERVE_COLUMNS = ("reward/mean", "reward/std", "batch/trained_fraction", "policy/kl", "agent/tool_error_fraction")
TINKER_COLUMNS = (
    "env/all/reward/total",
    "reward/total",  # recipes/rl_loop.py, the minimal loop, logs only this reward
    "env/all/correct",
    "env/all/format",
    "optim/kl_sample_train_v1",
    "optim/entropy",
    "env/all/ac_tokens_per_turn",
    "time/total",
)


# what an iteration without all its records is: observe, an update whose record did not come
# (the run is in it, or stopped there, or the batch was dropped); tinker, files being written
INCOMPLETE_OBSERVE = "incomplete update, or incomplete export"
INCOMPLETE_TINKER = "incomplete: being written, or the run stopped there"


def model_file_name(model: str | None) -> str | None:
    """The file name of a model path (the retrograd viewer shows only that)."""
    if not model:
        return model
    return model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or model


def index_context(run: Run, title: str, rows: bool = True) -> dict[str, Any]:
    """What the index page shows (``rows``: with the table's rows as ``rows_html``; without,
    the writer adds ``iteration_rows_parts()`` in their place)."""
    wanted: tuple[str, ...] = OBSERVE_COLUMNS if run.format == "observe" else TINKER_COLUMNS
    columns = tuple(c for c in wanted if run.metrics.has_finite(c)) or wanted[:1]
    texts = sum(1 for r in run.iterations if r.has_texts)
    rollouts = sum(r.rollouts for r in run.iterations)
    evals: list[dict[str, Any]] = []
    # every evaluator, with pages or only in the metrics (its results are merged into the
    # training rows at eval steps, and the final evaluation has a row of its own): a step is
    # a row when it has a page or one of the evaluator's values
    prefixes = dict(eval_prefixes(run))
    for label in sorted(set(run.evals) | set(prefixes)):
        refs = run.evals.get(label, [])
        prefix = run.eval_metric_prefix.get(label, prefixes.get(label))
        cols = []
        if prefix is not None:
            names = [f"{prefix}/env/all/reward/total", f"{prefix}/env/all/correct", f"{prefix}/env/all/format"]
            cols = [c for c in names if run.metrics.has_finite(c)]
        pages = {r.number: r.page for r in refs if r.has_texts}
        steps = {r.number for r in refs}
        for c in cols:
            col = run.metrics.columns[c]
            steps.update(step for step, v in zip(run.metrics.steps, col) if math.isfinite(v))
        evals.append(
            {
                "label": label,
                # an id holds no blank (a metric-only evaluator is named by its raw prefix)
                "anchor": "_".join(label.split()) or "_",
                "prefix": prefix,
                "refs": refs,
                "columns": cols,
                "rows": [(n, pages.get(n), [run.metrics.get(n, c) for c in cols]) for n in sorted(steps)],
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
        header["evaluators"] = ", ".join(str(e["label"]) or UNNAMED for e in evals) or "none"
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
        # an observe model is a GGUF path, whose file name is the model (as the retrograd
        # viewer shows it); a tinker model name ("Qwen/Qwen3-8B") is shown whole
        "model_name": model_file_name(run.model) if run.format == "observe" else run.model,
        "columns": columns,
        "rows_html": iteration_rows(run, columns) if rows else None,
        "long_table": len(run.iterations) > LONG_TABLE,
        "n_texts": texts,
        "n_iterations": run.trained_count(),
        "n_rollouts": rollouts,
        "evals": evals,
        "config_json": config_text(run.config) if run.config is not None else None,
        "visible_segments": [s for s in run.segments if s.get("visible")],
        "unstepped": run.info.get("unstepped_metrics") or [],
    }


_DUE = DUE_NOTE.partition("{")[0]


def config_text(config: Any) -> str:
    """The run's config as the index shows it: indented JSON with numbers as the file wrote
    them (tinker's ``json.dumps``: ``4e-05``, where orjson writes ``0.00004``; ``NaN``,
    ``Infinity``, not null); compact when indenting a deep value would make it more than 4
    times as long, and pretty_json's when the standard library cannot write it."""
    try:
        out = json.dumps(config, indent=2, ensure_ascii=False, allow_nan=True)
        out.encode("utf-8")  # a lone surrogate ("\ud800" in the file): UnicodeEncodeError
        if len(out) > 65536:
            compact = json.dumps(config, ensure_ascii=False, allow_nan=True, separators=(",", ":"))
            if len(out) > 4 * len(compact):
                return compact
        return out
    except (TypeError, ValueError, RecursionError):
        return pretty_json(config)


def iteration_rows(run: Run, columns: tuple[str, ...]) -> Markup:
    """The rows of the index's table of updates (or steps), one per iteration."""
    return Markup("".join(iteration_rows_parts(run, columns)))


def row_keys(run: Run) -> list[list[Any]]:
    """What each row of the index's table shows besides its metric cells: two rows of equal
    keys, over metric tables of which the older is the start of the newer (``charts.
    table_digests``), are the same text. ``has_row``: whether the step has a metric row."""
    row_of = run.metrics.row_of
    keys = []
    prev = None
    for i, r in enumerate(run.iterations):
        texts = bool(r.has_texts)
        due = r.notes[-1] if not texts and r.notes and r.notes[-1].startswith(_DUE) else None
        keys.append(
            [
                r.number,
                r.segment,
                r.status,
                texts,
                r.page if texts else None,
                r.rollouts if texts else None,
                due,
                bool(i and r.segment != prev),
                row_of(r.number) is not None,
                NO_TRAINING_NOTE in r.notes,
            ]
        )
        prev = r.segment
    return keys


def iteration_rows_parts(
    run: Run,
    columns: tuple[str, ...],
    ends: list[int] | None = None,
    reuse: tuple[str, list[int], int] | None = None,
) -> Iterator[str]:
    """iteration_rows() in pieces of about 1,000 rows, made as they are asked for.

    Built here rather than by a loop of the template, which took 0.32 s (47 µs a row) of
    every build and every rebuild of a run of 6,859 updates; this takes 0.11 s.

    ``ends``: filled with the character offset where each row ends. ``reuse``: the previous
    build's rows text, its ``ends``, and how many of its first rows are this build's (their
    ``row_keys`` equal, the metric table only grew): those are its text, not made again
    (0.1 s of a rebuild of 19,370 updates).
    """
    observe = run.format == "observe"
    row_of = run.metrics.row_of
    # fmt() writes a NaN or an infinity as a dash, as it does no value, and only digits,
    # signs, "." and "e" otherwise: a cell needs no escaping (68,089 rows of 4 cells spent a
    # third of the table's time in MetricTable.get and esc)
    cols = [run.metrics.columns.get(c) for c in columns]
    dash = f'<td class="num">{fmt(None)}</td>'
    out: list[str] = []
    w = out.append
    first = 0
    pos = 0
    if reuse is not None and reuse[2] > 0:
        old_text, old_ends, first = reuse
        pos = old_ends[first - 1]
        if ends is not None:
            ends.extend(old_ends[:first])
        yield old_text[:pos]
    # pieces of about 1,000 rows: 68,089 rows made 700,000 strings (66 MiB)
    iterations = run.iterations
    prev_segment = iterations[first - 1].segment if first else None
    for i in range(first, len(iterations)):
        r = iterations[i]
        if len(out) >= 10_000:
            yield "".join(out)
            out.clear()
        start = len(out)
        cls = f"status-{esc(r.status)}"
        if not r.has_texts:
            cls += " textless"
        if i and r.segment != prev_segment:
            cls += " seg-change"
        prev_segment = r.segment
        n = esc(r.number)
        page = esc(r.page)
        w(f'<tr class="{cls}" id="u{n}">\n<td>')
        w(f'<a href="{page}">{n}</a>' if r.has_texts else n)
        w("</td>")
        if observe:
            w(f"<td>{esc(r.segment)}</td>")
        if r.status == "incomplete":
            status = INCOMPLETE_OBSERVE if observe else INCOMPLETE_TINKER
        elif NO_TRAINING_NOTE in r.notes:
            status = '<span title="no training row at this step">final evaluation or totals</span>'
        else:
            status = esc(r.status)
        w(f"<td>{status}</td>")
        ri = row_of(r.number)
        for col in cols:
            w(dash if col is None or ri is None else f'<td class="num">{fmt(col[ri])}</td>')
        if r.has_texts:
            k = r.rollouts
            word = "text" if k == 1 else "texts"
            w(f'<td><a href="{page}">{f"{k:,}" if type(k) is int and k else esc(k or "")} {word}</a></td>\n</tr>\n')
        elif r.notes and r.notes[-1].startswith(_DUE):
            # due for texts, none arrived: said where the texts would be
            w(f'<td><span class="due" title="{esc(r.notes[-1])}">no texts: dropped</span></td>\n</tr>\n')
        else:
            w('<td><span class="subtle">no texts</span></td>\n</tr>\n')
        if ends is not None:
            pos += sum(map(len, out[start:]))
            ends.append(pos)
    if not run.iterations:
        none = "No update in this export." if run.format == "observe" else "No iteration in this log_path yet."
        w(f'<tr><td colspan="{len(columns) + 4}">{none}</td></tr>\n')
    yield "".join(out)
