"""Markdown rendering of model texts, safe for a page that must stay offline.

markdown-it-py with raw HTML off; links only to http, https and mailto;
images never loaded (shown as their alt text and URL); fenced code
highlighted here by a small tokenizer; math spans (``$..$``, ``$$..$$``,
``\\(..\\)``, ``\\[..\\]`` and a bare ``\\boxed{..}``) kept as
``<span class="math">TeX</span>`` for KaTeX in the browser.  Math is found
by an inline rule, so ``$`` inside code is never taken for math and markdown
never mangles the TeX (``_`` or ``\\\\`` inside a formula).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markupsafe import Markup, escape

MAX_MARKDOWN_CHARS = 200_000  # longer texts are shown exactly only (render time)

_SAFE_LINK = re.compile(r"^\s*(https?:|mailto:)", re.IGNORECASE)


def _validate_link(url: str) -> bool:
    # everything else (javascript:, data:, vbscript:, file:, relative paths) stays literal text
    return bool(_SAFE_LINK.match(url))


# ------------------------------------------------------------------ math
def _find_closing(src: str, start: int, end: int, marker: str) -> int:
    """Index of ``marker`` at or after ``start`` that is not backslash-escaped, or -1."""
    i = start
    while True:
        j = src.find(marker, i, end)
        if j < 0:
            return -1
        k, slashes = j - 1, 0
        while k >= start and src[k] == "\\":
            slashes += 1
            k -= 1
        if slashes % 2 == 0:
            return j
        i = j + 1


def _balanced(src: str, open_at: int, end: int) -> int:
    """Index just after the brace closing the one at ``open_at``, or -1."""
    depth = 0
    i = open_at
    while i < end:
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _math_rule(state: StateInline, silent: bool) -> bool:
    src, pos, end = state.src, state.pos, state.posMax
    ch = src[pos]
    tex: str | None = None
    display = False
    after = -1
    if ch == "$":
        if src.startswith("$$", pos):
            close = _find_closing(src, pos + 2, end, "$$")
            if close > pos + 2:
                tex, display, after = src[pos + 2 : close], True, close + 2
        elif pos + 1 < end and not src[pos + 1].isspace():
            # pandoc's rule on the very next dollar: no space inside, no digit right after
            # ("costs $5 and $10" stays text)
            close = _find_closing(src, pos + 1, end, "$")
            if close > pos + 1 and not src[close - 1].isspace() and not (close + 1 < end and src[close + 1].isdigit()):
                tex, after = src[pos + 1 : close], close + 1
    elif ch == "\\" and pos + 1 < end:
        nxt = src[pos + 1]
        if nxt in "([":
            marker = "\\)" if nxt == "(" else "\\]"
            close = src.find(marker, pos + 2, end)
            if close > pos + 2:
                tex, display, after = src[pos + 2 : close], nxt == "[", close + 2
        elif src.startswith("\\boxed{", pos):
            close = _balanced(src, pos + 6, end)
            if close > 0:
                tex, after = src[pos:close], close
    if tex is None or not tex.strip():
        return False
    if not silent:
        token = state.push("math", "", 0)
        token.content = tex
        token.meta = {"display": display}
    state.pos = after
    return True


def _render_math(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    tok = tokens[idx]
    cls = "math display" if tok.meta.get("display") else "math"
    return f'<span class="{cls}">{escape(tok.content)}</span>'


# ------------------------------------------------------------------ links and images
def _render_image(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    tok = tokens[idx]
    alt = self.renderInlineAsText(tok.children or [], options, env)
    src = tok.attrGet("src") or ""
    # never an <img>: the page must make no request; the URL stays readable
    return f'<span class="md-img">[image: {escape(alt)}] <code>{escape(src)}</code></span>'


def _render_link_open(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    tokens[idx].attrSet("target", "_blank")
    return str(self.renderToken(tokens, idx, options, env))


def _render_cell_open(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    # the CSP forbids style attributes: table alignment becomes a class (md-left, md-center, md-right)
    tok = tokens[idx]
    style = tok.attrGet("style") or ""
    if style:
        tok.attrs.pop("style", None)
        align = style.rpartition(":")[2].strip()
        if align in ("left", "center", "right"):
            tok.attrJoin("class", f"md-{align}")
    return str(self.renderToken(tokens, idx, options, env))


# a model's "# Tools" is no heading of the page: its page has h1, its groups h2 and its
# members' parts h3, so a text's headings start at h4 (h5 and h6 for deeper ones)
_HEADING_SHIFT = 3


def _render_heading(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    tok = tokens[idx]
    level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
    tok.tag = f"h{min(6, level + _HEADING_SHIFT)}"
    return str(self.renderToken(tokens, idx, options, env))


# ------------------------------------------------------------------ code highlighting
_PY_KW = (
    "False None True and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield match case self"
)
_JS_KW = (
    "break case catch class const continue debugger default delete do else export extends false finally for "
    "function if import in instanceof let new null of return super switch this throw true try typeof undefined "
    "var void while with yield async await interface type enum implements"
)
_SH_KW = "if then else elif fi for while do done case esac function in return export local echo cd set unset"
_C_KW = (
    "auto break case char const continue default do double else enum extern float for goto if int long "
    "return short signed sizeof static struct switch typedef union unsigned void volatile while bool true false "
    "fn let mut pub use impl match mod struct trait where self Self null nullptr class public private new"
)

_NUM = r"(?P<num>\b(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b)"


def _lang_re(comment: str, strings: str, keywords: str, extra: str = "") -> re.Pattern[str]:
    kw = r"(?P<kw>\b(?:" + "|".join(re.escape(k) for k in keywords.split()) + r")\b)"
    parts = [f"(?P<com>{comment})", f"(?P<str>{strings})"]
    if extra:
        parts.append(extra)
    parts += [kw, _NUM]
    return re.compile("|".join(parts), re.MULTILINE)


_DQ = r'"(?:[^"\\\n]|\\.)*"'
_SQ = r"'(?:[^'\\\n]|\\.)*'"
_LANGS: dict[str, re.Pattern[str]] = {
    "python": _lang_re(
        r"#[^\n]*",
        r'[rbuf]{0,2}(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|' + _DQ + "|" + _SQ + ")",
        _PY_KW,
        r"(?P<fn>(?<=def )\w+|@[\w.]+)",
    ),
    "js": _lang_re(
        r"//[^\n]*|/\*[\s\S]*?\*/", _DQ + "|" + _SQ + r"|`(?:[^`\\]|\\.)*`", _JS_KW, r"(?P<fn>(?<=function )\w+)"
    ),
    "json": re.compile(
        r"(?P<key>" + _DQ + r")(?=\s*:)|(?P<str>" + _DQ + r")|(?P<kw>\b(?:true|false|null)\b)|"
        r"(?P<num>-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)"
    ),
    "bash": _lang_re(r"(?<![\w$])#[^\n]*", _DQ + "|" + _SQ, _SH_KW, r"(?P<var>\$\{?[\w@#?*!-]+\}?)"),
    "c": _lang_re(r"//[^\n]*|/\*[\s\S]*?\*/", _DQ + "|" + r"'(?:[^'\\\n]|\\.){1,2}'", _C_KW),
}
_ALIASES = {
    "py": "python", "python3": "python", "py3": "python", "ipython": "python",
    "javascript": "js", "ts": "js", "typescript": "js", "jsx": "js", "tsx": "js", "node": "js",
    "sh": "bash", "shell": "bash", "zsh": "bash", "console": "bash", "shell-session": "bash",
    "jsonl": "json", "json5": "json",
    "cpp": "c", "c++": "c", "h": "c", "hpp": "c", "rust": "c", "rs": "c", "go": "c", "java": "c", "cs": "c",
}  # fmt: skip
_CLASSES = {"com": "hl-c", "str": "hl-s", "kw": "hl-k", "num": "hl-n", "fn": "hl-f", "key": "hl-p", "var": "hl-v"}


def highlight_code(code: str, lang: str) -> str:
    """Escaped HTML of ``code`` with token spans for the few languages we know."""
    name = lang.strip().lower()
    name = _ALIASES.get(name, name)
    pattern = _LANGS.get(name)
    if pattern is None:
        return str(escape(code))
    out: list[str] = []
    last = 0
    for m in pattern.finditer(code):
        kind = m.lastgroup
        if kind is None or m.start() == m.end():
            continue
        out.append(str(escape(code[last : m.start()])))
        out.append(f'<span class="{_CLASSES[kind]}">{escape(m.group())}</span>')
        last = m.end()
    out.append(str(escape(code[last:])))
    return "".join(out)


def _highlight(code: str, lang: str, attrs: str) -> str:
    label = re.sub(r"[^A-Za-z0-9_+#.-]", "", lang)[:20]
    body = highlight_code(code, lang) if len(code) < 100_000 else str(escape(code))
    data = f' data-lang="{escape(label)}"' if label else ""
    cls = f' class="language-{escape(label)}"' if label else ""
    return f'<pre class="hl"{data}><code{cls}>{body}</code></pre>\n'


def _make() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": _highlight})
    md.enable(["table", "strikethrough"])
    md.validateLink = _validate_link  # type: ignore[method-assign]
    md.inline.ruler.before("escape", "math", _math_rule)
    md.add_render_rule("math", _render_math)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("th_open", _render_cell_open)
    md.add_render_rule("td_open", _render_cell_open)
    md.add_render_rule("heading_open", _render_heading)
    md.add_render_rule("heading_close", _render_heading)
    return md


_MD = _make()


@lru_cache(maxsize=4096)
def render_markdown(text: str) -> Markup | None:
    """The text as safe HTML, or None when it is too long to render here."""
    if len(text) > MAX_MARKDOWN_CHARS:
        return None
    return Markup(_MD.render(text))
