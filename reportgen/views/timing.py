"""A tinker step's timing (``timing_spans.jsonl``, spec §8) as its page shows it: a table of
the span names, in the order each first started, with their count and seconds, and a lane
per name drawn as inline SVG (no script: the page's CSP allows no inline style, and an SVG
rectangle's position is an attribute, not a style)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from .html import esc_marks

ROWS_SHOWN = 200  # span names listed; a hostile line of a million names is not a page of them
NAME_SHOWN = 200  # characters of a span name shown (the whole name is its cell's title)
BARS_DRAWN = 4000  # spans drawn one by one on a page; past it a lane draws their union
LANE_BARS = 200  # spans of one name drawn one by one; past it, their union
_W = 1000  # the lanes' viewBox width


@dataclass
class _Row:
    name: str
    count: int = 0
    total: float = 0.0
    longest: float = 0.0
    first: float = math.inf
    bars: list[tuple[float, float]] = field(default_factory=list)  # (start, end), seconds


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _union(bars: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(bars):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _short(name: str) -> str:
    return name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN] + "…"


def _unit(wall: float) -> tuple[str, float]:
    return ("ms", 1000.0) if wall < 1 else ("s", 1.0)


def _num(v: float) -> str:
    """Seconds or milliseconds: the decimals a column of them needs to line up by size; past
    a million, three significant digits (a time of 1e308 is not three hundred of them)."""
    a = abs(v)
    if a == 0:
        return "0"
    if not math.isfinite(v):
        return "–"
    if a >= 1e6:
        return f"{v:.3g}"
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}" if a >= 0.01 else f"{v:.2g}"


def timing_view(spans: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The context of a step's timing section, or None when no span has a name."""
    rows: dict[str, _Row] = {}
    end = 0.0
    for sp in spans:
        name = sp.get("name")
        if not isinstance(name, str):
            continue
        row = rows.get(name)
        if row is None:
            row = rows[name] = _Row(name)
        row.count += 1
        start, stop = _number(sp.get("wall_start")), _number(sp.get("wall_end"))
        bar = (start, stop) if start is not None and stop is not None and 0 <= start <= stop else None
        # the duration is perf_counter's, the times the wall clock's: a span without a
        # duration takes its times' difference, one with a duration that is no number none
        seconds = _number(sp.get("duration")) if "duration" in sp else (bar[1] - bar[0] if bar else None)
        if seconds is not None and seconds >= 0:
            row.total += seconds
            row.longest = max(row.longest, seconds)
        if bar is not None:
            row.bars.append(bar)
            row.first = min(row.first, bar[0])
            end = max(end, bar[1])
    if not rows:
        return None
    ordered = sorted(rows.values(), key=lambda r: (r.first, -r.total, r.name))
    # the unit fits the wall time, or the longest span when no span says when it ran
    unit, scale = _unit(end or max(r.longest for r in ordered))
    drawn = 0
    out = []
    for row in ordered[:ROWS_SHOWN]:
        merged = len(row.bars) > LANE_BARS or drawn + len(row.bars) > BARS_DRAWN
        bars = _union(row.bars) if merged else row.bars
        drawn += len(bars)
        out.append(
            {
                "name": _short(row.name),
                "full_name": row.name,
                "count": row.count,
                "total": _num(row.total * scale),
                "mean": _num(row.total / row.count * scale),
                "max": _num(row.longest * scale),
                "first": _num(row.first * scale) if row.bars else "–",
                "lane": _lane(row, bars, end, merged, unit, scale),
            }
        )
    return {
        "rows": out,
        "more": len(ordered) - len(out),
        "spans": sum(r.count for r in rows.values()),
        "wall": _num(end * scale) if end > 0 else None,  # None: no span says when it ran
        "unit": unit,
    }


def _lane(row: _Row, bars: list[tuple[float, float]], end: float, merged: bool, unit: str, scale: float) -> Markup:
    # a native tooltip and a label are no place for a bidi override (it would turn the
    # times after the name around): marked as the site's other summaries are
    name = esc_marks(_short(row.name))
    if not bars or end <= 0:
        return Markup("")
    said = f"{row.count:,} spans, shown as the time covered by any" if merged else f"{row.count:,} span(s)"
    parts = [
        f'<svg class="tlane" viewBox="0 0 {_W} 10" preserveAspectRatio="none" role="img" '
        f'aria-label="{name}: {said}, from {_num(row.first * scale)} {unit}">'
    ]
    k = _W / end
    for a, b in bars:
        x = a * k
        w = max((b - a) * k, 1.0)  # a span of a microsecond still shows
        tip = f"{_num(a * scale)} to {_num(b * scale)} {unit}" + (
            "" if merged else f" ({_num((b - a) * scale)} {unit})"
        )
        parts.append(f'<rect x="{x:.2f}" y="1" width="{w:.2f}" height="8"><title>{name}: {tip}</title></rect>')
    parts.append("</svg>")
    return Markup("".join(parts))
