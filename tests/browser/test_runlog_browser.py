"""The page of a tinker run's logs.log in Chromium from file://: the level filter (CSS
only: it works with JavaScript off), folded records, links to lines, printing."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.site import build

from .conftest import file_url
from .test_viewer import wait_js

FIX = Path(__file__).parent.parent / "fixtures" / "tinker"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("log") / "site"
    build(str(FIX / "arith_resumed"), out)
    return out


def _shown(page, selector: str) -> int:
    return int(page.locator(selector).evaluate_all("els => els.filter(e => e.getClientRects().length > 0).length"))


@pytest.mark.parametrize("scripts", [True, False])
def test_the_level_filter_hides_and_shows_records(site, browser, scripts):
    context = browser.new_context(java_script_enabled=scripts)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(file_url(site / "logs.html"))
        assert _shown(page, ".lrec.lv-info") == 46 and _shown(page, ".lrec.lv-warning") == 2
        page.uncheck("#lvf-info")
        assert _shown(page, ".lrec.lv-info") == 0 and _shown(page, ".lrec.lv-warning") == 2
        page.uncheck("#lvf-warning")
        assert _shown(page, ".lrec") == 0
        page.check("#lvf-info")
        assert _shown(page, ".lrec.lv-info") == 46 and _shown(page, ".lrec.lv-warning") == 0
        assert errors == []
    finally:
        context.close()


def test_a_line_link_opens_its_record_and_the_index_links_the_page(site, watched):
    page = watched.page
    watched.goto(file_url(site / "index.html"))
    page.click("a[href='logs.html']")
    page.wait_for_url("**/logs.html")
    page.click("text=first warning")
    assert page.evaluate("location.hash") == "#L5"
    assert page.locator("#L5").is_visible()
    folded = page.locator("#L7 > details")
    assert folded.evaluate("d => d.open") is False
    assert not page.locator("#L7 pre").is_visible()
    folded.locator("summary").click()
    assert page.locator("#L7 pre").is_visible()
    assert "Trajectory Group" in page.locator("#L7 pre").inner_text()
    assert watched.console_errors == [] and watched.page_errors == []
    assert watched.external(file_url(site)) == []


def test_printing_prints_every_folded_record(site, watched):
    page = watched.page
    watched.goto(file_url(site / "logs.html"))
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    closed = page.locator(".lrec > details:not([open])").count()
    assert closed == 0
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.locator(".lrec > details:not([open])").count() > 0


def test_printing_without_javascript_prints_folded_records(site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(file_url(site / "logs.html"))
        assert not page.locator("#L7 pre").is_visible()
        page.emulate_media(media="print")
        assert page.locator("#L7 pre").is_visible()
    finally:
        context.close()


def test_a_linked_folded_record_opens_clear_of_the_header(site, watched):
    """A link to a folded record (a trajectory dump, a traceback) opens it, on load and on a
    change of address, and a linked record is below the sticky header, not under it."""
    page = watched.page
    watched.goto(file_url(site / "logs.html") + "#L7")
    assert page.locator("#L7 > details").evaluate("d => d.open") is True
    header_bottom = page.evaluate("document.querySelector('header.top').getBoundingClientRect().bottom")
    assert page.locator("#L7").evaluate("e => e.getBoundingClientRect().top") >= header_bottom - 1
    page.evaluate("location.hash = '#L82'")
    wait_js(watched, "document.querySelector('#L82 > details').open === true")
    page.click("text=first warning")
    top = page.locator("#L5").evaluate("e => e.getBoundingClientRect().top")
    assert header_bottom - 1 <= top < 200
    assert watched.console_errors == [] and watched.page_errors == []


def test_the_page_fits_a_phone(site, browser):
    context = browser.new_context(viewport={"width": 375, "height": 700})
    page = context.new_page()
    try:
        page.goto(file_url(site / "logs.html"))
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    finally:
        context.close()


def test_a_malformed_address_breaks_nothing(site, watched):
    watched.goto(file_url(site / "logs.html") + "#%E0%A4%A")
    watched.page.evaluate("location.hash = '#L7'")
    wait_js(watched, "document.querySelector('#L7 > details').open === true")
    assert watched.page_errors == []


def test_search_html_finds_log_records_and_opens_them(site, watched):
    """search.html reads the records logs.html shows after the iterations; a match opens
    logs.html at its record, a folded one opened, below the header."""
    page = watched.page
    watched.goto(file_url(site / "search.html") + "#q=model%20pricing")
    wait_js(watched, "/ searched$/.test(document.getElementById('rs-status').textContent)")
    found = page.eval_on_selector_all(
        ".rs-item > a", "as => as.map(a => a.closest('.rs-it').querySelector('h2').textContent + ': ' + a.textContent)"
    )
    assert found == [
        "logs.log: line 5 WARNING tinker_cookbook.utils.cost_estimation:190",
        "logs.log: line 698 WARNING tinker_cookbook.utils.cost_estimation:190",
    ]
    page.click(".rs-item > a >> nth=1")
    page.wait_for_url("**/logs.html#q=model%20pricing&at=L698")
    wait_js(watched, "document.getElementById('L698').getBoundingClientRect().top > 0")
    top = page.locator("#L698").evaluate("e => e.getBoundingClientRect().top")
    header_bottom = page.evaluate("document.querySelector('header.top').getBoundingClientRect().bottom")
    assert header_bottom - 1 <= top < 200
    # a folded record (a trajectory dump) found by its text opens
    watched.goto(file_url(site / "search.html") + "#q=End%20Trajectory%20Group")
    wait_js(watched, "/ searched$/.test(document.getElementById('rs-status').textContent)")
    page.click(".rs-it:last-child .rs-item > a >> nth=0")
    page.wait_for_url("**/logs.html#*")
    wait_js(watched, "document.querySelector('.lrec > details[open]') !== null")
    assert watched.console_errors == [] and watched.page_errors == []
