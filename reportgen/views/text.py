"""Text helpers shared by the views: cuts, folding, numbers, JSON for pages."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

import orjson
from markupsafe import Markup

CUT_RE = re.compile(r"…\[\+(\d+) chars\]$")
CUT_TAILS = (" chars]", " chars]\n")  # how a cut text ends ($ also matches before a final newline)
FOLD_LINES = 20
# a text of fewer lines folds too past this many characters: a degenerate generation (one
# word repeated to the token limit), a blob of JSON or base64 on one line, drawn whole, made
# a page tens of thousands of pixels tall; a long answer in a few paragraphs stays open
FOLD_CHARS = 8000


def cut_chars(text: str | None) -> int | None:
    """Characters removed by the exporter's cut (``…[+N chars]``), or None."""
    # the marker ends the text ($ also matches before a final newline): test the end before
    # running the regex, which would scan the whole text (several calls per rollout)
    if not text or not text.endswith(CUT_TAILS):
        return None
    m = CUT_RE.search(text)
    return int(m.group(1)) if m else None


def any_cut(value: Any, depth: int = 0) -> bool:
    """Whether any string inside a JSON value carries a cut marker."""
    if depth > 200 or not value:  # nothing empty holds a string
        return False
    if depth == 0 and (type(value) is dict or type(value) is list):
        # one C pass rejects the common case: no string can end with the marker when the
        # serialized value holds no " chars]" (tool arguments and metadata, several per rollout)
        try:
            if b" chars]" not in orjson.dumps(value):
                return False
        except (TypeError, orjson.JSONEncodeError):  # integers past 64 bits, depth past 255: walk it
            pass
    if isinstance(value, str):
        return cut_chars(value) is not None
    if isinstance(value, dict):
        return any(any_cut(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(any_cut(v, depth + 1) for v in value)
    return False


def line_count(text: str) -> int:
    """Number of lines of a text."""
    return text.count("\n") + 1 if text else 0


def file_lines(text: str) -> int:
    """Number of lines of a file's text, as ``wc -l`` and an editor count them: the newline
    that ends the last line starts no line of its own."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


_PREFIX = 2000  # characters counted before a long text is searched for its newlines instead


def fold_count(text: str, lines: int = FOLD_LINES) -> int:
    """``line_count(text)`` when it is over ``lines`` or the text is over FOLD_CHARS
    characters (the text folds), else 0.

    A folded text's summary gives its line count, so a text that folds is counted once,
    here, and not again for the test and for the summary (a reasoning trace of 4 KiB was
    counted three times: writing it took 27.5 µs, now 20.5). str.count walks every
    character (about 0.75 ns each on the benchmark machine) where find() is a memchr scan
    but costs a call per newline: a long text whose first 2,000 characters hold too few
    newlines (long lines, one line of JSON) is searched for the missing ones, so a long
    text that does not fold is not walked to its end (one past FOLD_CHARS folds whatever
    its lines: it is counted).
    """
    if not text:
        return 0
    if len(text) <= _PREFIX:
        c = text.count("\n")
        return c + 1 if c >= lines else 0
    if len(text) > FOLD_CHARS:
        return text.count("\n") + 1
    c = text.count("\n", 0, _PREFIX)
    if c < lines:
        i = _PREFIX - 1
        find = text.find
        for _ in range(lines - c):
            i = find("\n", i + 1)
            if i < 0:
                return 0
    return c + text.count("\n", _PREFIX) + 1


def _first_lines(text: str, k: int, start: int = 0, end: int = -1) -> list[str]:
    """The first ``k`` lines of ``text[start:end]`` that are not blank, stripped, among its
    first 1,024 characters (a summary never copies a long text whole)."""
    seg = text[start : min(len(text) if end < 0 else end, start + 1024)]
    out: list[str] = []
    while len(out) < k:
        seg = seg.lstrip()  # blank lines too
        if not seg:
            break
        nl = seg.find("\n")
        if nl < 0:
            out.append(seg.rstrip())
            break
        out.append(seg[:nl].rstrip())
        seg = seg[nl + 1 :]
    return out


# a character that belongs with the one before it: a combining mark (an accent, a vowel sign,
# a variation selector), a zero width joiner, an emoji's skin tone (reportgen.js's CLINGS)
_CLINGS = re.compile("[\u200d\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


def _clings(s: str, i: int) -> bool:
    """Whether s[i] goes with s[i - 1] (no cut between them)."""
    c = s[i]
    return unicodedata.category(c)[0] == "M" or _CLINGS.match(c) is not None or s[i - 1] == "\u200d"


def cut_clusters(s: str, n: int) -> str:
    """``s[:n]``, moved back to keep a letter with its marks and an emoji sequence whole (a
    summary "café" cut after its "e" showed "cafe"); reportgen.js's ``clip`` cuts alike."""
    if len(s) <= n:
        return s
    k = n
    while k > 0 and _clings(s, k):
        k -= 1
    return s[: k or n]  # a text of marks only: cut where asked


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else cut_clusters(s, n) + "…"


def fold_summary(text: str, lines: int = 0) -> str:
    """Summary of a folded text: its first two lines that are not blank, and its size
    (``lines``: its line_count, when the caller has it).

    A reasoning model's completion opens with ``<think>`` and gives its answer after
    ``</think>``: its summary is its first thought and that answer, so a page of folded
    traces can be read without opening them (its first line alone was ``<think>`` for all).
    """
    n = lines or line_count(text)
    # folded for its length alone (FOLD_CHARS), a text of a few lines says its size too
    size = f"{n} line{'' if n == 1 else 's'}"
    if n <= FOLD_LINES and len(text) > FOLD_CHARS:
        size += f", {len(text):,} characters"
    if text[:64].lstrip().startswith("<think>"):
        end = text.rfind("</think>")  # near the end: a reverse search is short
        if end >= 0:
            answer = _first_lines(text, 1, end + 8)
            if answer:
                # the first thought ends at the first </think> (a forward search for it would
                # walk the whole trace): a line holding one is cut there
                thought = _first_lines(text, 1, text.index("<think>") + 7, end)
                first = cut_clusters(thought[0].split("</think>", 1)[0].rstrip(), 60) if thought else ""
                return f"<think> {first + ' ' if first else ''}… </think> {_clip(answer[0], 100)} ({size})"
    return f"{_clip(' ⏎ '.join(_first_lines(text, 2)), 160)} ({size})"


def fmt(value: float | int | None, digits: int = 3) -> str:
    """A metric for display: 3 decimals, integers as they are, null as a dash."""
    # a hot path (several calls per rollout): the common types are tested by identity first
    t = type(value)
    if t is float:
        v: float = value  # type: ignore[assignment]
        if digits == 3:
            # rewards and advantages repeat: a dict lookup beats formatting (looked up before
            # the NaN and infinity tests: the cache holds finite numbers only)
            cached = _FMT3.get(v)
            if cached is not None:
                return cached
        if v != v or v == _INF or v == -_INF:
            return "–"
        if v.is_integer() and -1e15 < v < 1e15:
            out = str(int(v))
        else:
            a = v if v > 0 else -v
            if digits != 3:
                if a < 10 ** (-digits) or a >= 1e9:
                    return f"{v:.{digits}g}"
                return f"{v:.{digits}f}"
            # three decimals keep one significant digit under 0.01 (a KL of -0.00147 read
            # -0.001, beside -0.00092 at three digits): three significant digits there
            out = f"{v:.3g}" if a < 0.01 or a >= 1e9 else f"{v:.3f}"
        if digits == 3:
            if len(_FMT3) > 100_000:
                _FMT3.clear()
            _FMT3[v] = out
        return out
    if value is None:
        return "–"
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(int(value))
    return fmt(float(value), digits)


_INF = math.inf
_FMT3: dict[float, str] = {}  # -0.0 and 0.0 share a key, and both show as "0"


def counted(count: int, word: str) -> str:
    """``count`` and ``word``, plural but for one: "1 run", "2,048 rollouts"."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def num_text(value: float | int) -> str:
    """``str(value)`` (a float's shortest repr), cached for floats: the repr search costs about
    1 µs and a page's rewards and advantages repeat."""
    if type(value) is not float or value == 0.0:  # 0.0 and -0.0 would share a key
        return str(value)
    out = _REPR.get(value)
    if out is None:
        if len(_REPR) > 100_000:
            _REPR.clear()
        out = _REPR[value] = str(value)
    return out


_REPR: dict[float, str] = {}


def kept(data: bytes) -> bytes:
    """A copy of orjson's bytes the size of its text, for bytes that stay alive (caches, tables):
    orjson.dumps keeps at least a 4 KiB buffer behind every result (orjson 3.13), so 6,859
    small values kept as they come cost 27 MiB of resident memory."""
    return memoryview(data).tobytes()


def pretty_json(value: Any) -> str:
    """Indented JSON of any value, never failing (big ints, NaN, any depth); compact when the
    indentation would make it more than 4 times as long (a deep value: it grows with the
    square of the depth, 700 MB of site from 10 MiB of metadata 250 levels deep)."""
    try:
        out = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return _json_iter(value)
    if len(out) > 65536:
        compact = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        if len(out) > 4 * len(compact):
            return compact.decode()
    return out.decode()


def log_text(value: Any) -> str:
    """A logged value as text: a string as it is, a number as Python prints it (tinker's
    ``str()``), anything else (a dict, a list, true, null) as its compact JSON, never as a
    Python repr."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return compact_json(value)


def compact_json(value: Any) -> str:
    """orjson's compact JSON of any value, never failing (integers past 64 bits, depth past 255)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        import json

        try:
            return json.dumps(strict_json_value(value), ensure_ascii=False, separators=(",", ":"), default=str)
        except (ValueError, RecursionError):
            return _json_iter(value)


def _json_scalar(v: Any) -> str:
    import json

    if isinstance(v, float) and not math.isfinite(v):
        return "null"
    if v is None or isinstance(v, (str, bool, int, float)):
        return json.dumps(v, ensure_ascii=False)
    return json.dumps(str(v), ensure_ascii=False)


_MAX_INDENT = 32  # deeper levels are not indented further: the text stays linear in the depth


def _json_iter(value: Any) -> str:
    """Indented JSON written without recursion (orjson stops at 255 levels, json and repr at ~1000)."""
    out: list[str] = []
    # (literal text, None, 0) or (None, value, level)
    stack: list[tuple[str | None, Any, int]] = [(None, value, 0)]
    while stack:
        lit, v, level = stack.pop()
        if lit is not None:
            out.append(lit)
            continue
        if isinstance(v, (dict, list, tuple)) and v:
            pad = "\n" + "  " * min(level + 1, _MAX_INDENT)
            items = v.items() if isinstance(v, dict) else enumerate(v)
            todo: list[tuple[str | None, Any, int]] = [("{" if isinstance(v, dict) else "[", None, 0)]
            for i, (k, x) in enumerate(items):
                key = _json_scalar(str(k)) + ": " if isinstance(v, dict) else ""
                todo.append(("," * (i > 0) + pad + key, None, 0))
                todo.append((None, x, level + 1))
            todo.append(("\n" + "  " * min(level, _MAX_INDENT) + ("}" if isinstance(v, dict) else "]"), None, 0))
            stack.extend(reversed(todo))
        elif isinstance(v, dict):
            out.append("{}")
        elif isinstance(v, (list, tuple)):
            out.append("[]")
        else:
            out.append(_json_scalar(v))
    return "".join(out)


_SCRIPT_ESCAPE_PAIRS = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)
_SCRIPT_ESCAPES = str.maketrans(dict(_SCRIPT_ESCAPE_PAIRS))


# in a JavaScript object literal, a "__proto__" key sets the object's prototype instead of
# adding a property (JSON.parse does not do that, but our data files are scripts); outside a
# string a key follows "{" or "," (and blank space, in _json_iter's indented text), and no
# string of JSON text holds an unescaped quote, so this matches keys only
_PROTO_KEY = re.compile(r'([{,]\s*)"__proto__"(\s*):')


def script_json(value: Any) -> str:
    """JSON safe to put inside a <script> element (no </script>, no <!--), as a JavaScript
    literal: a "__proto__" key becomes the computed key ["__proto__"], a property like any other."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):  # integers past 64 bits, values nested past 255
        import json

        try:
            text = json.dumps(strict_json_value(value), ensure_ascii=False, separators=(",", ":"), default=str)
        except (ValueError, RecursionError):
            text = _json_iter(value)
    if '"__proto__"' in text:
        text = _PROTO_KEY.sub(r'\1["__proto__"]\2:', text)
    return script_escaped(text)


def script_escaped(text: str) -> str:
    """``text.translate(_SCRIPT_ESCAPES)``, by a memchr-fast test and a replace for each
    character present: translate looks every character up in a dict (40 ms for the 1.4 MB
    of a long run's metrics_data.js, which has none of them)."""
    for ch, esc in _SCRIPT_ESCAPE_PAIRS[:3]:
        if ch in text:
            text = text.replace(ch, esc)
    if not text.isascii():
        for ch, esc in _SCRIPT_ESCAPE_PAIRS[3:]:
            if ch in text:
                text = text.replace(ch, esc)
    return text


def script_key(name: str) -> str:
    """An object literal's key for ``name`` (see script_json)."""
    return '["__proto__"]' if name == "__proto__" else script_json(name)


def strict_json_value(value: Any) -> Any:
    """Replace non-finite floats by None, recursively (for strict JSON out)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strict_json_value(v) for v in value]
    return value


_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(text: str) -> str:
    """A file-name component made from input (tinker's own sanitising rule)."""
    return _SAFE_NAME.sub("_", text).strip("._") or "unnamed"


# what reportgen.js's INVISIBLE wraps in a labelled span: characters that draw nothing or
# reorder what follows. Where no span can go (an <option>, the <title>) they are named instead
_INVISIBLE = re.compile(
    "[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)


def visible(text: Any) -> Any:
    """``text`` with each invisible or reordering character named, ``⟨U+202E⟩``: for the text
    of an ``<option>`` or the ``<title>``, which hold no markup (so the page's script cannot
    mark them), where a right-to-left override would turn a tool's name around and a zero
    width space make two names look the same. Escaped text (Markup) stays Markup: the names
    hold no character HTML gives a meaning."""
    s = str(text)
    if s.isascii() and s.isprintable():
        return text
    out = _INVISIBLE.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", s)
    if out == s:
        return text
    return Markup(out) if isinstance(text, Markup) else out


# a sweep's run folders (folder_name): at most this many bytes of UTF-8, a suffix included
FOLDER_NAME_BYTES = 100
# Default_Ignorable_Code_Point (Unicode 15) that are not Cf (every Cf is dropped anyway):
# invisible letters (Hangul fillers) and marks (variation selectors, the grapheme joiner)
_IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0000-\U000e0fff]")
# names Windows gives to devices, whatever follows a dot (CON.txt is CON)
_DEVICES = frozenset(
    ["con", "prn", "aux", "nul", *(f"{d}{i}" for d in ("com", "lpt") for i in "0123456789\xb9\xb2\xb3")]
)


def folder_name(text: str, limit: int = FOLDER_NAME_BYTES) -> str:
    """A folder name made from a run's name, readable in any script (a sweep's run folders).

    Letters and digits of every script are kept (``str.isalnum``, in NFC), with the
    combining marks that follow them (Devanagari's vowel signs, Hebrew points) and ``_ . -``;
    format characters (bidi controls, zero-width joiners) and other default-ignorable ones are
    dropped; anything else (spaces, ``/ \\ : * ? " < > |``, controls, symbols, emoji) becomes
    one ``_`` a run. No leading or trailing ``.`` or ``_``, no ``..``, no Windows device name
    (``con`` becomes ``con_run``), at most ``limit`` bytes of UTF-8, cut before a letter
    rather than between it and its marks; "unnamed" when nothing is left. Not
    ``safe_name``, which is tinker's rule for its own files and must stay it."""
    out: list[str] = []
    kept = False  # the last character written is a letter, a digit or a mark after one
    for ch in _IGNORABLE.sub("", unicodedata.normalize("NFC", text)):
        if ch.isalnum():
            out.append(ch)
            kept = True
            continue
        cat = unicodedata.category(ch)
        if cat == "Cf":
            continue
        if cat[0] == "M" and kept:
            out.append(ch)
        elif ch in "_.-":
            out.append(ch)
            kept = False
        elif not out or out[-1] != "_":
            out.append("_")
            kept = False
        else:
            kept = False
    # NFC again: a format character dropped between a letter and its mark leaves them side by side
    name = re.sub(r"\.{2,}", ".", unicodedata.normalize("NFC", "".join(out))).strip("._")
    if name.split(".", 1)[0].casefold() in _DEVICES:
        stem, dot, rest = name.partition(".")
        name = f"{stem}_run{dot}{rest}"
    return cut_utf8(name, limit).strip("._") or "unnamed"


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8, at a character's boundary and never
    between a character and the combining marks that follow it."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    head = data[:limit].decode("utf-8", "ignore")  # a character cut in two is left out
    n = len(head)
    while n and unicodedata.category(text[n])[0] == "M":
        n -= 1  # the mark's base goes too (and its other marks)
    return text[:n]
