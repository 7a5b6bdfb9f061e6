"""The site opens from file:// in Chromium with no console error and no request out."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.site import build

from .conftest import file_url

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("b") / "site"
    build(str(FIXTURES / "observe" / "examples"), out)
    return out


def test_index_and_iteration_pages_open_clean(site, watched):
    root = file_url(site)
    for name in ("index.html", "train_iteration_000001.html", "train_iteration_000002.html"):
        watched.goto(file_url(site / name))
        assert watched.page.title()
    assert watched.console_errors == [] and watched.page_errors == []
    assert watched.external(root) == []
    assert watched.dialogs == []


def test_j_and_k_move_between_pages(site, watched):
    watched.goto(file_url(site / "train_iteration_000001.html"))
    watched.page.keyboard.press("j")
    watched.page.wait_for_url("**/train_iteration_000002.html*")
    watched.page.keyboard.press("k")
    watched.page.wait_for_url("**/train_iteration_000001.html*")
    assert watched.console_errors == []
