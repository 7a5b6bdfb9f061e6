"""A tiny HTML builder for trees too deep or too hot for Jinja templates.

Every text and attribute value gets markupsafe's entities (:func:`markupsafe.escape`,
or for a long text sparse in special characters the same entities by ``str.replace``:
``_escape_long``); only output of this module (or of Jinja) is ever marked safe.  Tags and attribute
names are literals chosen by our code, never taken from input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from markupsafe import Markup, escape

_VOID = {"br", "hr", "img", "input", "meta", "link"}


esc_str: Callable[[str], str]
try:  # markupsafe's C escaper, returning str: the Markup wrapper of escape() is the slow part here
    from markupsafe._speedups import _escape_inner as esc_str
except ImportError:  # pragma: no cover - pure-Python markupsafe

    def esc_str(s: str) -> str:
        return str(escape(s))


# a long ASCII text with few special characters is escaped by str.replace, a pass over the
# text per character escaped (see _replaced); below this size markupsafe's one call is as quick
_REPLACE_MIN = 1024
# "few": at most this many "<" and '"' in its first 256 characters (a sample: counting them
# all would cost a pass over the text); HTML, XML and JSON, dense in them, stay with markupsafe
_REPLACE_PROBE = 256
_REPLACE_DENSE = 8


def _replaced(s: str) -> str:
    """markupsafe's entities by str.replace, "&" first (the others add no special character).

    markupsafe walks a text a character at a time (about 4.3 ns a character on the
    benchmark machine, whatever it holds); a replace is a count and a copy (about 1 ns a
    character) plus some 15 ns per character replaced. On a reasoning trace of 3.3 KiB
    holding 13 of them: 8.2 µs against 14.0; on HTML, a special every 3 characters:
    30.8 against 16.5, and on pretty-printed JSON (a quote every 8) 17.1 against 13.5,
    which the sample in _escape_long keeps away from here.
    """
    if "&" in s:
        s = s.replace("&", "&amp;")
    if "<" in s:
        s = s.replace("<", "&lt;")
    if ">" in s:
        s = s.replace(">", "&gt;")
    if '"' in s:
        s = s.replace('"', "&#34;")
    if "'" in s:
        s = s.replace("'", "&#39;")
    return s


def _escape_long(s: str) -> str:
    """esc_str of a text that holds a character to escape: by _replaced when it is long and
    sparse in "<" and '"', else by markupsafe. Either gives the same entities.

    Wide texts too: reasoning traces of 3.2 KiB with a word in fifty not ASCII (math
    signs, CJK, emoji; most of them UCS-4) took 15.1 µs by markupsafe and 9.8 by replace."""
    if len(s) >= _REPLACE_MIN and s.count("<", 0, _REPLACE_PROBE) + s.count('"', 0, _REPLACE_PROBE) <= _REPLACE_DENSE:
        return _replaced(s)
    return esc_str(s)


def esc_text(s: str) -> str:
    """esc_str for long texts (completions, messages, tool arguments): the same entities.

    markupsafe's escaper walks a text a character at a time (about 3 ns a character
    on the benchmark machine); five ``in`` tests are memchr scans, ten times faster,
    and most texts hold none of the five characters, so they come back as they are.
    """
    if "&" in s or "<" in s or ">" in s or '"' in s or "'" in s:
        return _escape_long(s)
    return s


def esc_content(s: str) -> str:
    """esc_text for element content only (never an attribute value): quotes mean nothing
    there, so a text whose only special characters are quotes (an apostrophe in prose, the
    quotes of JSON tool arguments and results) comes back as it is; the others get
    markupsafe's entities, quotes included.
    """
    if "&" in s or "<" in s or ">" in s:
        return _escape_long(s)
    return s


def esc_pre(s: str) -> str:
    """esc_content for the text of a ``<pre>``: HTML drops one line break right after the
    ``<pre>`` start tag (a CR too: CR LF and a lone CR are read as LF), so a text that starts
    with one gets another, and shows as it was written."""
    out = esc_content(s)
    return "\n" + out if out.startswith(("\n", "\r")) else out


def esc(value: object) -> str:
    """HTML-escape any value's text as a plain str (the entities of markupsafe.escape)."""
    return esc_str(value if type(value) is str else str(value))


# the non-ASCII marks our own summaries add (text.fold_summary, previews, compact lines)
_MARKS = (("\u23ce", "&#9166;"), ("\u2026", "&#8230;"), ("\u2192", "&#8594;"))


def esc_marks(s: str) -> str:
    """esc() of a summary we made, its marks (⏎ … →) as character references, without
    the bidi embedding, override and isolate controls a text may hold.

    A page's groups markup then stays ASCII when the texts are: Python widens a whole
    joined string for one wide character, and encodes a wide megabyte a character at a
    time where an ASCII one is a copy (4% of a GRPO build went there). A summary (a fold's
    first line, a preview, a compact line) is ours, followed by our own words ("(26
    lines)") in the same line: a right-to-left override in it would turn them around. The
    text itself, below it, keeps every character."""
    out = esc_str(s)
    if not out.isascii():
        for ch, ref in _MARKS:
            if ch in out:
                out = out.replace(ch, ref)
        # searched before removed: str.translate looks each character of a wide text up
        # in a dict (12.1 µs for a summary of 182 characters; the search 1.2)
        if not out.isascii() and _BIDI_CONTROLS.search(out):
            out = _BIDI_CONTROLS.sub("", out)
    return out


# LRE RLE PDF LRO RLO, LRI RLI FSI PDI
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _text(c: object) -> str:
    """What escape(c) gives, as a plain str: Markup (anything with __html__) as is, the rest escaped."""
    if type(c) is str:
        return esc_str(c)
    html = getattr(c, "__html__", None)
    if html is not None:
        return str(html())
    return esc_str(str(c))


def attrs_html(attrs: dict[str, object | None]) -> str:
    """Render attributes; None and False are left out, True is bare."""
    out = []
    for k, v in attrs.items():
        if v is None or v is False:
            continue
        if v is True:
            out.append(f" {k}")
        else:
            out.append(f' {k}="{_text(v if type(v) is str else str(v))}"')
    return "".join(out)


def el(tag: str, attrs: dict[str, object | None] | None = None, *children: object) -> Markup:
    """An element; children are escaped unless they are Markup already."""
    a = attrs_html(attrs) if attrs else ""
    if tag in _VOID:
        return Markup(f"<{tag}{a}>")
    return Markup(f"<{tag}{a}>{_join(children)}</{tag}>")


def _join(children: Iterable[object]) -> str:
    parts: list[str] = []
    for c in children:
        if c is None:
            continue
        if isinstance(c, (list, tuple)):
            parts.append(_join(c))
        else:
            parts.append(_text(c))
    return "".join(parts)


def join(children: Iterable[object]) -> Markup:
    """Concatenate children, escaping plain strings."""
    return Markup(_join(children))
