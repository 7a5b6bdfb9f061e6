"""search.html in Chromium from file://: every update searched, results link to their members."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.site import BuildOptions, build

from ..test_search import HOSTILE, grpo_run
from .conftest import file_url
from .test_viewer import clean, open_page, wait_js


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("search")
    out = root / "site"
    build(str(grpo_run(root / "src")), out, BuildOptions(groups_per_page=2))
    return out


def results(w) -> list[str]:
    return w.page.eval_on_selector_all(
        ".rs-item > a", "as => as.map(a => a.closest('.rs-it').querySelector('h2').textContent + ': ' + a.textContent)"
    )


def status(w) -> str:
    return w.page.inner_text("#rs-status")


def test_search_reads_every_update_and_opens_the_member(site, watched):
    watched.goto(file_url(site / "search.html") + "#q=ANSWER%201")
    wait_js(watched, "/2 of 2 searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == ["Update 1: group 1 · #0", "Update 1: group 1 · #1"]
    assert status(watched) == "2 matches in 2 texts, 2 of 2 searched"
    assert watched.page.eval_on_selector_all("mark.hl", "ms => ms.map(m => m.textContent)") == ["answer 1", "answer 1"]
    # a search across pages and updates: update 1's group 2 is on its second page
    watched.page.fill("#rs-q", "img src")
    watched.page.keyboard.press("Enter")
    wait_js(watched, "/2 of 2 searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == ["Update 1: group 2 · #1"]
    # the hostile text is text: shown whole, nothing injected ran
    assert HOSTILE.replace("\u2028", " ")[:20] in watched.page.inner_text(".rs-snip")
    assert watched.page.query_selector(".rs-snip img") is None
    assert watched.page.evaluate("typeof window.__rgpwn") == "undefined"
    assert watched.page.evaluate("location.hash") == "#q=img%20src"
    watched.page.click(".rs-item > a")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html#q=img%20src&at=g2-m1")
    wait_js(watched, "document.getElementById('rg-bar') && !document.getElementById('rg-bar').hidden")
    watched.page.wait_for_selector("#g2-m1.target-hl")
    assert watched.page.input_value("#f-q") == "img src"
    clean(watched, site)


def test_case_the_empty_result_and_the_link_from_a_page(site, watched):
    watched.goto(file_url(site / "search.html") + "#q=Third")
    wait_js(watched, "/searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == ["Update 3: group 0 · #0"]
    watched.page.check("#rs-case")
    wait_js(watched, "/^0 matches.*searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == [] and watched.page.evaluate("location.hash") == "#q=Third&case=1"
    # another search's address on this page (a link, the back button): that search
    watched.page.evaluate("location.hash = '#q=answer%202.0'")
    wait_js(watched, "/^1 match in 1 text, 2 of 2 searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == ["Update 1: group 2 · #0"] and not watched.page.is_checked("#rs-case")
    # a page's search goes along to the search of every text
    open_page(watched, site, "train_iteration_000003.html", "#q=third")
    assert watched.page.get_attribute("a.to-search", "href") == "search.html#q=third"
    watched.page.click("a.to-search")
    wait_js(watched, "/2 of 2 searched$/.test((document.getElementById('rs-status') || {}).textContent || '')")
    assert results(watched) == ["Update 3: group 0 · #0"]
    clean(watched, site)
