"""A tiny HTML builder for trees too deep or too hot for Jinja templates.

Every text and attribute value goes through :func:`markupsafe.escape`; only
output of this module (or of Jinja) is ever marked safe.  Tags and attribute
names are literals chosen by our code, never taken from input.
"""

from __future__ import annotations

from collections.abc import Iterable

from markupsafe import Markup, escape

_VOID = {"br", "hr", "img", "input", "meta", "link"}


def attrs_html(attrs: dict[str, object | None]) -> str:
    """Render attributes; None and False are left out, True is bare."""
    out = []
    for k, v in attrs.items():
        if v is None or v is False:
            continue
        if v is True:
            out.append(f" {k}")
        else:
            out.append(f' {k}="{escape(str(v))}"')
    return "".join(out)


def el(tag: str, attrs: dict[str, object | None] | None = None, *children: object) -> Markup:
    """An element; children are escaped unless they are Markup already."""
    a = attrs_html(attrs) if attrs else ""
    if tag in _VOID:
        return Markup(f"<{tag}{a}>")
    return Markup(f"<{tag}{a}>{join(children)}</{tag}>")


def join(children: Iterable[object]) -> Markup:
    """Concatenate children, escaping plain strings."""
    parts: list[str] = []
    for c in children:
        if c is None:
            continue
        if isinstance(c, (list, tuple)):
            parts.append(join(c))
        else:
            parts.append(escape(c) if not isinstance(c, Markup) else c)
    return Markup("".join(parts))
