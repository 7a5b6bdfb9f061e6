"""Tolerant JSON line parsing shared by the readers.

orjson is strict (no NaN, no integers past 64 bits, UTF-8 only), so a line it
rejects is retried with the standard library, after replacing invalid UTF-8.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import orjson


class LineError(ValueError):
    """A line that is not JSON at all."""


_DEEP_LIMIT = 20_000


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
    # orjson stops at 1,024 levels; logtrees and metadata can nest deeper: the stdlib
    # parser, with room to recurse, reads what the trainer wrote
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, _DEEP_LIMIT))
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise LineError(str(exc).split(":")[0] if not isinstance(exc, RecursionError) else "nested too deep") from exc
    finally:
        sys.setrecursionlimit(limit)
    if _SURROGATE_ESCAPE.search(text):
        value, scrubbed = scrub_surrogates(value)
        replaced = replaced or scrubbed
    return value, replaced


# a \uD800-\uDFFF escape: json.loads keeps lone ones as surrogates, which no
# UTF-8 encoder (orjson, the page writer) accepts
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(value: Any) -> tuple[Any, bool]:
    """Replace lone surrogates in every string (keys too) by U+FFFD, in place; iterative.

    Returns (value, whether anything was replaced).
    """

    def fix(s: str) -> str:
        return _LONE_SURROGATE.sub("\ufffd", s)

    changed = False
    if isinstance(value, str):
        out = fix(value)
        return out, out != value
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k in list(node):
                v = node[k]
                if isinstance(v, str):
                    fv = fix(v)
                    if fv != v:
                        node[k] = fv
                        changed = True
                elif isinstance(v, (dict, list)):
                    stack.append(v)
                if isinstance(k, str):
                    fk = fix(k)
                    if fk != k:
                        node[fk] = node.pop(k)
                        changed = True
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    fv = fix(v)
                    if fv != v:
                        node[i] = fv
                        changed = True
                elif isinstance(v, (dict, list)):
                    stack.append(v)
    return value, changed


def finite_or_none(value: Any) -> float | None:
    """A finite float from a JSON number, else None (bools are not numbers)."""
    t = type(value)
    if t is float:  # the common case first: several calls per rollout
        return value if value - value == 0.0 else None  # inf - inf and nan - nan are nan
    if t is not int:
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
    try:
        f = float(value)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def int_or_none(value: Any) -> int | None:
    """An int from a JSON integer (not bool, not float), else None."""
    if type(value) is int:
        return value  # type: ignore[no-any-return]
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def str_or_none(value: Any) -> str | None:
    """A string, or None for anything else."""
    return value if isinstance(value, str) else None


def key_bytes(value: Any) -> bytes:
    """Bytes that identify a value made of lists, tuples, strings and numbers, for hashing into
    a page key: orjson's (a PPO page key holds a prompt per rollout; repr took 1.6 ms a page),
    repr's for what orjson refuses (keys of other types, integers past 64 bits)."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return repr(value).encode()
