"""Tolerant JSON line parsing shared by the readers.

orjson is strict (no NaN, no integers past 64 bits, UTF-8 only), so a line it
rejects is retried with the standard library, after replacing invalid UTF-8.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
import sys
from collections.abc import Callable
from typing import Any

import orjson

from ..storage import shown_text


class LineError(ValueError):
    """A line that is not JSON at all; ``where`` is ``":line:column"`` of the fault, when known
    (a whole document's, such as config.json or a logtree)."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


_DEEP_LIMIT = 20_000


def parse_line(raw: bytes, deep: bool = False, constants: bool = True) -> tuple[Any, bool]:
    """Parse one line; returns (value, utf8_replaced).  Raises LineError.

    A line nested deeper than MAX_NESTING is refused, unless ``deep`` (a whole document whose
    readers walk it without recursion: a tinker logtree, read to 20,000 levels).  Without
    ``constants``, a bare ``NaN``, ``Infinity`` or ``-Infinity`` makes the line unreadable, as
    serde_json has it (an observe line); Python's json writes them (a tinker file)."""
    try:
        return orjson.loads(raw), False
    except orjson.JSONDecodeError as exc:
        if not deep and str(exc).startswith("depth limit exceeded"):
            raise LineError(TOO_DEEP) from exc
    replaced = False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        replaced = True
    # a line orjson refuses for a NaN or invalid UTF-8: the stdlib parser, with room to
    # recurse, then the depth orjson allows (what a strict line may have)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, _DEEP_LIMIT))
        value = json.loads(text) if constants else json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise LineError(exc.msg, f":{exc.lineno}:{exc.colno}") from exc
        raise LineError(str(exc).split(":")[0] if not isinstance(exc, RecursionError) else TOO_DEEP) from exc
    finally:
        sys.setrecursionlimit(limit)
    if not deep and _too_deep(value):
        raise LineError(TOO_DEEP)
    if _SURROGATE_ESCAPE.search(text):
        value, scrubbed = scrub_surrogates(value)
        replaced = replaced or scrubbed
    if _LONG_DIGITS.search(text):
        value = _tame_ints(value)
    return value, replaced


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"a bare {name}, which the trainer's reader refuses")


# orjson's limit: deeper than this, a line is refused as not readable. The trainers' own
# writers stay far below it (Python's json.dump stops near 1,000 levels; serde_json reads
# 128 by default), and every view that walks a value by recursion is safe within it.
MAX_NESTING = 1024
TOO_DEEP = f"nested deeper than {MAX_NESTING:,} levels"


def _too_deep(value: Any) -> bool:
    """Whether a parsed value nests deeper than MAX_NESTING (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        elif not isinstance(v, list):
            continue
        if d > MAX_NESTING:
            return True
        stack.extend((c, d + 1) for c in v if isinstance(c, (dict, list)))
    return False


_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxstring, _BRIEF.maxother, _BRIEF.maxlist, _BRIEF.maxdict = 3, 60, 60, 4, 4


def brief(value: Any) -> str:
    """repr() of a value from the input for a message: short, and never recursing deep (a
    ``v`` or an ``update`` nested 1,000 levels made repr() raise RecursionError)."""
    return _BRIEF.repr(value)


def text_of(value: Any) -> str:
    """A value of the input where a text belongs: a string as it is, None as "", anything
    else as its JSON text (str() of a list nested 1,000 levels raised RecursionError)."""
    if type(value) is str:
        return value
    return "" if value is None else json_text(value)


def json_text(value: Any) -> str:
    """Compact JSON text of a parsed value, at any depth ``parse_line`` reads (orjson writes
    255 levels); non-finite floats as null."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, _DEEP_LIMIT))
        return json.dumps(nan_to_null(value), ensure_ascii=False, separators=(",", ":"))
    finally:
        sys.setrecursionlimit(limit)


_LONG_DIGITS = re.compile(r"\d{19}")  # the shortest integer past orjson's range has 19 digits
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # what orjson reads (and writes) as integers


def _wide(v: int) -> float | None:
    try:
        return float(v)
    except OverflowError:
        return None


def _replace_scalars(value: Any, fix: Callable[[Any], Any]) -> Any:
    """Every scalar of ``value`` (lists and dicts, any depth) passed through ``fix``; in place,
    iteratively (the stdlib parser reads 20,000 levels)."""
    if not isinstance(value, (dict, list)):
        return fix(value)
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        for k, v in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(v, (dict, list)):
                stack.append(v)
            else:
                w = fix(v)
                if w is not v:
                    node[k] = w
    return value


def _tame_int(v: Any) -> Any:
    return _wide(v) if type(v) is int and not _INT_MIN <= v <= _INT_MAX else v


def _tame_ints(value: Any) -> Any:
    """Integers past orjson's range as orjson reads them in a line it accepts: floats (as the
    trainer's serde_json does too), null past a float's range.

    Without this, a line that needs the stdlib parser for one reason (a NaN, invalid UTF-8)
    kept its huge integers exact, which no state file or page data can hold (orjson refuses
    them) and which read differently from the same number in a strict line."""
    return _replace_scalars(value, _tame_int)


def _finite_or_null(v: Any) -> Any:
    return None if type(v) is float and not math.isfinite(v) else v


def nan_to_null(value: Any) -> Any:
    """``value`` with NaN and infinities as null, as the trainer writes them (observe spec §1)
    and as a state file keeps them; in place."""
    return _replace_scalars(value, _finite_or_null)


# a \uD800-\uDFFF escape: json.loads keeps lone ones as surrogates, which no
# UTF-8 encoder (orjson, the page writer) accepts
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def scrub_surrogates(value: Any) -> tuple[Any, bool]:
    """Replace lone surrogates in every string (keys too) by U+FFFD, in place; iterative.

    Returns (value, whether anything was replaced).
    """

    changed = False
    if isinstance(value, str):
        out = shown_text(value)
        return out, out != value
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k in list(node):
                v = node[k]
                if isinstance(v, str):
                    fv = shown_text(v)
                    if fv != v:
                        node[k] = fv
                        changed = True
                elif isinstance(v, (dict, list)):
                    stack.append(v)
                if isinstance(k, str):
                    fk = shown_text(k)
                    if fk != k:
                        node[fk] = node.pop(k)
                        changed = True
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    fv = shown_text(v)
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
