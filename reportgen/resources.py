"""Where the templates, assets and demo data live (installed or in a checkout)."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    # an installed wheel carries them inside the package; a checkout keeps them at the top
    for cand in (_PKG / name, _PKG.parent / name):
        if cand.is_dir():
            return cand
    raise FileNotFoundError(f"reportgen is missing its {name}/ folder (broken install?)")


def templates_dir() -> Path:
    """The Jinja templates."""
    return _find("templates")


def assets_dir() -> Path:
    """The CSS, JS and vendored libraries copied into every site."""
    return _find("assets")


def demo_dir() -> Path:
    """The bundled example runs."""
    return _PKG / "demo"
