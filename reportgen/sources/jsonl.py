"""Tolerant JSON line parsing shared by the readers.

orjson is strict (no NaN, no integers past 64 bits, UTF-8 only), so a line it
rejects is retried with the standard library, after replacing invalid UTF-8.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson


class LineError(ValueError):
    """A line that is not JSON at all."""


def parse_line(raw: bytes) -> tuple[Any, bool]:
    """Parse one line; returns (value, utf8_replaced).  Raises LineError."""
    try:
        return orjson.loads(raw), False
    except orjson.JSONDecodeError:
        pass
    replaced = False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        replaced = True
    try:
        return json.loads(text), replaced
    except (ValueError, RecursionError) as exc:
        raise LineError(str(exc).split(":")[0] if not isinstance(exc, RecursionError) else "nested too deep") from exc


def finite_or_none(value: Any) -> float | None:
    """A finite float from a JSON number, else None (bools are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        f = float(value)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def int_or_none(value: Any) -> int | None:
    """An int from a JSON integer (not bool, not float), else None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def str_or_none(value: Any) -> str | None:
    """A string, or None for anything else."""
    return value if isinstance(value, str) else None
