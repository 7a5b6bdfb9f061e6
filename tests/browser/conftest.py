"""Playwright driving Debian's Chromium (/usr/bin/chromium); never a downloaded browser.

Under CI=true a missing Chromium fails the tests instead of skipping them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("REPORTGEN_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--allow-file-access-from-files",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests need Chromium under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("python playwright is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@dataclass
class Watched:
    """A page with everything that went wrong on it recorded."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def external(self, allowed_root: str) -> list[str]:
        """Requests that left the site folder (or the test server)."""
        return [
            u
            for u in self.requests
            if not u.startswith(allowed_root) and not u.startswith("data:") and not u.startswith("about:")
        ]

    def goto(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_load_state("load")


@pytest.fixture
def watched(browser) -> Iterator[Watched]:
    context = browser.new_context()
    page = context.new_page()
    w = Watched(page)
    page.on("console", lambda m: w.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: w.page_errors.append(str(e)))
    page.on("request", lambda r: w.requests.append(r.url))

    def on_dialog(d: Any) -> None:
        w.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    yield w
    context.close()


def file_url(path: Path) -> str:
    return path.resolve().as_uri()


def seen_text(page: Any, selector: str) -> str:
    """What a reader sees of an element: its innerText once scrolled to. A group off screen is
    not rendered (content-visibility: auto), so its innerText, which follows the rendering,
    holds only part of it until it is scrolled near; its DOM text is all there."""
    loc = page.locator(selector).first
    if loc.is_visible():  # a hidden element's innerText is its DOM text: nothing to scroll to
        loc.scroll_into_view_if_needed()
        # a few frames for it to be rendered (no script: a page may have JavaScript off)
        page.wait_for_timeout(150)
    return str(loc.inner_text())
