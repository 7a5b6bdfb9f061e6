"""Hostile text in every field of both formats becomes text on the page, never markup.

The sites are built from :mod:`tests.hostile`; every page is parsed and every
element and attribute checked against what our templates, views and markdown
renderer can emit.  A payload that became an element or an attribute, a script
that is not ours, an inline handler, a ``javascript:``/``data:`` link or a
reference to another host fails the test; so does a hostile field that did not
reach the site at all (it would prove nothing).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from reportgen.site import CSP, MARKER

from .hostile import (
    ATTACKS,
    EVIL,
    HOSTILE_FIELDS_OBSERVE,
    HOSTILE_FIELDS_TINKER,
    built_sites,
)

# every element our templates, views/html.py, logtree_html.py and markdown.py emit
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "link", "body", "script", "noscript", "header", "nav", "main", "footer",
    "section", "article", "aside", "div", "span", "p", "a", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code",
    "ul", "ol", "li", "dl", "dt", "dd", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
    "details", "summary", "figure", "figcaption", "b", "strong", "i", "em", "u", "s", "del", "small", "sub",
    "sup", "blockquote", "br", "hr", "mark", "kbd", "samp", "var", "q", "cite", "abbr", "time", "svg", "rect",
    "line", "g", "form", "input", "button", "label", "fieldset", "legend", "select", "option", "output", "dialog", "template",
}  # fmt: skip
ALLOWED_ATTRS = {
    "class", "id", "href", "src", "rel", "title", "lang", "charset", "name", "content", "http-equiv", "open",
    "role", "type", "for", "value", "min", "max", "step", "placeholder", "autocomplete", "spellcheck",
    "inputmode", "disabled", "hidden", "download", "target", "colspan", "rowspan", "start", "datetime",
    "tabindex", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "viewbox", "preserveaspectratio",
    "checked", "selected", "multiple", "size", "accesskey", "scope", "reversed", "aria-hidden",
}  # fmt: skip
# attributes whose value is a URL
URL_ATTRS = {"href", "src", "action", "formaction", "data", "poster", "background", "xlink:href", "cite"}
SITE_SCRIPTS = re.compile(r"^(assets/[A-Za-z0-9_./-]+\.js|[A-Za-z0-9_.-]+\.js)$")
# raw sequences of the attacks that must never reach an HTML file unescaped
RAW_NEEDLES = [
    "<script>window",
    "<img src=x",
    "<svg onload",
    "<iframe",
    "<object",
    "<embed",
    "<style>",
    "<base ",
    '<meta http-equiv="refresh',
    "<math>",
    "<maction",
    "<video",
    "<details open ontoggle",
    '<a href="javascript',
    "<![CDATA[",
    "<!--<script",
]


def _site_files(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*") if p.is_file() and "assets" not in p.relative_to(site).parts)


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.relative_to(site).parts)


def _url_ok(value: str, site: Path, page: Path) -> str | None:
    """None if ``value`` is a URL the site may hold, else the reason."""
    v = value.strip()
    if not v or v.startswith("#") or v.startswith("?"):
        return None
    parts = urlsplit(v)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https", "mailto"):
        return None  # a link the reader may click (markdown); never loaded by the page
    if scheme or v.startswith("//") or "\\" in v:
        return f"scheme or host in {v!r}"
    target = (page.parent / unquote(parts.path)).resolve()
    if site.resolve() not in target.parents and target != site.resolve():
        return f"outside the site: {v!r}"
    return None


_SOUPS: dict[Path, tuple[str, BeautifulSoup]] = {}


def _soup(page: Path) -> tuple[str, BeautifulSoup]:
    """The page's text and its parse (parsed once per session: the pages are large)."""
    if page not in _SOUPS:
        raw = page.read_bytes().decode("utf-8", "replace")
        _SOUPS[page] = (raw, BeautifulSoup(raw, "html.parser"))
    return _SOUPS[page]


def _attr(el: Any, name: str) -> str:
    """An attribute as one string ('' when absent; class-like lists joined)."""
    value = el.get(name)
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def check_page(site: Path, page: Path) -> list[str]:
    """Every problem of one page, as text."""
    raw, soup = _soup(page)
    problems = []
    for needle in RAW_NEEDLES:
        if needle in raw:
            problems.append(f"raw {needle!r} in the HTML")
    metas = soup.find_all("meta", attrs={"http-equiv": True})
    csp = [m for m in metas if _attr(m, "http-equiv").lower() == "content-security-policy"]
    if len(csp) != 1 or _attr(csp[0], "content") != CSP:
        problems.append(f"CSP meta missing or changed: {[_attr(m, 'content') for m in csp]}")
    if len(metas) != len(csp):
        problems.append("another http-equiv meta")
    head_first = soup.head.find(True) if soup.head else None
    if head_first is None or head_first.name != "meta":
        problems.append("the head does not start with meta")
    for el in soup.find_all(True):
        name = el.name.lower()
        if name not in ALLOWED_TAGS:
            problems.append(f"element <{name}> {str(el)[:120]!r}")
        for attr, value in el.attrs.items():
            a = attr.lower()
            text = " ".join(value) if isinstance(value, list) else str(value)
            if a.startswith("on"):
                problems.append(f"handler {a}= on <{name}>")
            elif a == "style":
                problems.append(f"style attribute on <{name}>: {text[:80]!r}")
            elif not (a in ALLOWED_ATTRS or a.startswith("data-") or a.startswith("aria-")):
                problems.append(f"attribute {a}= on <{name}>")
            if a in URL_ATTRS and not (name == "link" and _attr(el, "rel") == "icon" and text == "data:,"):
                # data:, as the icon keeps Chromium from asking for /favicon.ico
                why = _url_ok(text, site, page)
                if why:
                    problems.append(f"<{name} {a}>: {why}")
                if a == "src" and urlsplit(text.strip()).scheme:
                    problems.append(f"<{name} src> loads {text!r}")
        if name == "script":
            src = _attr(el, "src") if el.has_attr("src") else None
            if src is None:
                if _attr(el, "type").lower() not in ("application/json",):
                    problems.append(f"inline script {el.string[:80] if el.string else ''!r}")
                elif "<" in (el.string or ""):
                    problems.append("'<' inside a JSON script block")
            elif not SITE_SCRIPTS.match(src) or not (page.parent / src).is_file():
                problems.append(f"script src {src!r}")
            elif el.string and el.string.strip():
                problems.append("script with a src and a body")
        if name == "link" and _attr(el, "rel") != "icon":
            if urlsplit(_attr(el, "href")).scheme:
                problems.append(f"link to {_attr(el, 'href')!r}")
        if name == "a" and urlsplit(_attr(el, "href")).scheme in ("http", "https"):
            rel = _attr(el, "rel").split()
            if "noopener" not in rel or "noreferrer" not in rel:
                problems.append(f"external link without rel=noopener noreferrer: {_attr(el, 'href')!r}")
    return problems


def _texts(site: Path) -> str:
    """Everything a reader of the site can see or download, decoded."""
    out = []
    for p in _site_files(site):
        if p.suffix == ".html":
            out.append(_soup(p)[1].get_text())
            continue
        data = p.read_bytes().decode("utf-8", "replace")
        if p.suffix in (".json", ".js", ".jsonl", ".csv"):
            out.append(data)
            # JSON escapes ("\u003c", "\"") hide the tags: decode string literals too
            out.append(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), data).replace('\\"', '"'))
    return "\n".join(out)


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    built = built_sites(tmp_path_factory)
    return {"observe": built["observe"], "tinker": built["tinker"], "sweep": built["sweep"]}


@pytest.mark.parametrize("fmt", ["observe", "tinker", "sweep"])
def test_no_page_holds_injected_markup(sites, fmt):
    site = sites[fmt]
    pages = _pages(site)
    assert len(pages) >= 3
    problems = {p.relative_to(site).as_posix(): check_page(site, p) for p in pages}
    assert {k: v[:10] for k, v in problems.items() if v} == {}


@pytest.mark.parametrize("fmt", ["observe", "tinker"])
def test_every_hostile_field_reaches_the_site_as_text(sites, fmt):
    text = _texts(sites[fmt])
    fields = HOSTILE_FIELDS_OBSERVE if fmt == "observe" else HOSTILE_FIELDS_TINKER
    missing = [f for f in fields if f"FLD[{f}]" not in text]
    assert missing == []
    # the attacks are shown as the text they are
    page_text = "\n".join(_soup(p)[1].get_text() for p in _pages(sites[fmt]))
    for attack in (ATTACKS[0], ATTACKS[1], ATTACKS[6], "{{ 7*7 }}", "\u202eevil\u202c"):
        assert attack in page_text, attack


def test_site_files_are_named_by_us(sites):
    for site in sites.values():
        for p in site.rglob("*"):
            rel = p.relative_to(site).as_posix()
            assert re.fullmatch(r"[A-Za-z0-9_.\-/]+", rel), rel
            assert not p.is_symlink(), rel
            assert len(p.name) < 200, rel
        assert (site / MARKER).is_file()


def test_data_files_are_inert(sites):
    """The JS data files only assign JSON; JSON files parse (NaN aside) and hold no live markup."""
    for site in sites.values():
        for js in (p for p in _site_files(site) if p.suffix == ".js"):
            body = js.read_text("utf-8")
            assert "</" not in body and "<!--" not in body, js.name
            # one assignment of JSON, or several, each on a line of its own
            m = re.fullmatch(r"(?:/\*[^*]*\*/\s*)?((?:window\.[A-Za-z_]+\s*=\s*.*?;?\s*)+)", body, re.S)
            assert m, js.name
            statements = [m.group(1)] if body.count("\nwindow.") == 0 else m.group(1).strip().split("\n")
            for statement in statements:
                value = re.fullmatch(r"window\.[A-Za-z_]+\s*=\s*(.*?);?\s*", statement, re.S)
                assert value, js.name
                json.loads(value.group(1))
        for data in (p for p in _site_files(site) if p.suffix == ".json"):
            text = data.read_bytes()
            assert text.lstrip()[:1] in (b"{", b"["), data.name


def test_logtree_and_file_names_from_hostile_labels(sites, tmp_path_factory):
    names = sorted(p.name for p in sites["tinker"].glob("eval_*.html"))
    assert names, "the hostile evaluator files gave no page"
    assert all(re.fullmatch(r"eval_[A-Za-z0-9_.-]+_iteration_\d{6}(_p\d+)?\.html", n) for n in names), names
    # ".." and an undecodable name both sanitise to "unnamed": neither overwrites the other
    assert "eval_unnamed_iteration_000000.html" in names
    undecodable = [
        n for n in os.listdir(built_sites(tmp_path_factory)["tinker_input"] / "iteration_000000") if "\udcff" in n
    ]
    if undecodable:
        assert "eval_unnamed_2_iteration_000000.html" in names


def test_bad_bytes_are_replaced_and_said(sites):
    for fmt in ("observe", "tinker"):
        index = _soup(sites[fmt] / "index.html")[1].get_text()
        assert "invalid UTF-8" in index, fmt
    assert "\ufffd" in _soup(sites["observe"] / "train_iteration_000001.html")[1].get_text()
    # NUL (a parse error in HTML) is written as U+FFFD, what a browser shows for it
    for page in _pages(sites["observe"]) + _pages(sites["tinker"]):
        assert b"\x00" not in page.read_bytes(), page.name


def test_attack_markers_are_not_live_in_raw_bytes(sites):
    """No byte sequence of the attacks survives unescaped in any HTML file (html.parser aside)."""
    for site in sites.values():
        for page in _pages(site):
            raw = page.read_bytes()
            for needle in (b"<script>window.", b"<img src=x", b"<svg onload", f'src="https://{EVIL}'.encode()):
                assert needle not in raw, (page.name, needle)


def test_undecodable_file_names_and_title_bytes(tmp_path):
    """A run folder whose name is not UTF-8, and a --title of such bytes (Python hands both over
    as lone surrogates): a single run, a sweep holding it and `reportgen index` all build, and
    every page and JSON file shows the bytes as U+FFFD. Before, orjson refused the title."""
    import shutil

    from click.testing import CliRunner

    from reportgen.cli import main
    from reportgen.resources import demo_dir

    runs = tmp_path / "runs"
    bad = runs / os.fsdecode(b"run\xff")
    shutil.copytree(demo_dir() / "grpo", bad)
    shutil.copytree(demo_dir() / "agent", runs / "ok")
    title = os.fsdecode(b"lr \xfe sweep")
    for args in (
        ["build", str(bad), "-o", str(tmp_path / "one")],
        ["build", str(bad), "-o", str(tmp_path / "titled"), "--title", title],
        ["build", str(runs), "-o", str(tmp_path / "sweep"), "--title", title],
        ["index", str(tmp_path / "sweep")],
    ):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0, (args, r.output)
        assert "internal error" not in r.output
    assert "<title>run\ufffd · run summary" in (tmp_path / "one" / "index.html").read_text("utf-8")
    assert "<title>lr \ufffd sweep · run summary" in (tmp_path / "titled" / "index.html").read_text("utf-8")
    assert json.loads((tmp_path / "sweep" / MARKER).read_bytes())["title"] == "lr \ufffd sweep"
    assert "lr \ufffd sweep" in (tmp_path / "sweep" / "index.html").read_text("utf-8")
    for site in ("one", "titled", "sweep"):
        for p in (tmp_path / site).rglob("*"):
            if p.is_file() and p.suffix in (".html", ".json", ".js", ".jsonl") or p.name == MARKER:
                p.read_bytes().decode("utf-8")  # strict: no surrogate written out
