"""An open page of a served live run says that new updates arrived, without a reload."""

from __future__ import annotations

import time

from ..test_live import _split_demo, serving


def _until(page, expr: str, timeout: float = 10.0) -> None:
    """Poll a JS expression (wait_for_function evaluates strings with eval, which the CSP forbids)."""
    end = time.monotonic() + timeout
    while not page.evaluate(expr):
        assert time.monotonic() < end, f"timed out waiting for {expr}"
        page.wait_for_timeout(50)


def test_open_page_shows_new_updates_notice(tmp_path, watched):
    src, rest = _split_demo(tmp_path)
    out = tmp_path / "site"
    with serving(src, out) as base:
        first = sorted(p.name for p in out.glob("train_iteration_*.html"))[0]
        watched.goto(f"{base}/{first}#g0")  # read from an anchor, as a link to a group opens it
        watched.page.wait_for_timeout(500)
        with open(src / "observe.jsonl", "ab") as f:
            f.write(rest)
        watched.page.wait_for_selector(".live-banner", timeout=20000)
        text = watched.page.inner_text(".live-banner")
        assert "new update" in text
        latest = sorted(p.name for p in out.glob("train_iteration_*.html"))[-1]
        link = watched.page.locator(".live-banner a", has_text="Open the latest")
        assert link.get_attribute("href") == latest and f"update {int(latest[16:22])}" in link.inner_text()
        # "reload this page" reloads it, though the address ends in a #fragment
        watched.page.evaluate("window.__before_reload = true")
        with watched.page.expect_event("load", timeout=15000):
            watched.page.click(".live-banner a:text('reload this page')")
        assert watched.page.evaluate("window.__before_reload") is None
        assert watched.console_errors == [] and watched.page_errors == []
        assert watched.external(base) == []


def test_open_index_refreshes_once_the_reader_pauses(tmp_path, watched):
    """The index reloads to show the new updates, but not while the reader types in a field."""
    src, rest = _split_demo(tmp_path)
    out = tmp_path / "site"
    with serving(src, out) as base:
        watched.goto(f"{base}/index.html")
        page = watched.page
        rows_before = page.locator("#iterations tbody tr").count()
        page.evaluate("window.__before_refresh = true")
        page.fill("#rg-search", "reward")  # typing in the explorer's search: the reload waits
        with open(src / "observe.jsonl", "ab") as f:
            f.write(rest)
        page.wait_for_selector(".live-banner", timeout=20000)
        assert "refreshes when you pause" in page.inner_text(".live-banner")
        page.wait_for_timeout(4500)  # past the 3 s of quiet, the field still focused
        assert page.evaluate("window.__before_refresh") is True
        assert page.input_value("#rg-search") == "reward"
        page.evaluate("window.scrollTo(0, 600)")
        with page.expect_event("load", timeout=15000):
            page.evaluate("document.activeElement.blur()")
        assert page.evaluate("window.__before_refresh") is None
        assert page.locator("#iterations tbody tr").count() > rows_before
        # what the address does not keep comes back: the metric search (its list filtered) and the scroll
        _until(page, "document.getElementById('rg-search').value === 'reward'")
        shown = page.eval_on_selector_all(
            "#rg-metric-list label", "ls => ls.filter(l => l.offsetParent !== null).map(l => l.title)"
        )
        assert shown and all("reward" in name for name in shown)
        _until(page, "Math.abs(window.scrollY - 600) < 5")
        assert watched.console_errors == [] and watched.page_errors == []
        assert watched.external(base) == []


def test_a_tinker_pages_notice_counts_iterations(tmp_path, watched):
    """The notice says the run's own word: a tinker run's pages say "2 new iterations", not
    observe's "updates" (live.js carries the word the build counts its pages in)."""
    from reportgen.live import write_live_marker
    from reportgen.site import BuildOptions, build

    from ..test_tinker_reader import FIX

    out = tmp_path / "site"
    result = build(str(FIX / "arith_sync"), out, BuildOptions(jobs=1, live=True))
    write_live_marker(out, result, 1)
    assert '"word":"iterations"' in (out / "live.js").read_text()
    watched.goto((out / "train_iteration_000001.html").as_uri())
    # the page's first poll of live.js (generation 1, at load) is what it counts from; the
    # call below says the same if the poll has not come back yet
    watched.page.wait_for_timeout(1000)
    watched.page.evaluate(f"window.RG_LIVE({{generation: 1, updates: {result.updates}, word: 'iterations'}})")
    watched.page.evaluate(f"window.RG_LIVE({{generation: 2, updates: {result.updates + 2}, word: 'iterations'}})")
    watched.page.wait_for_selector(".live-banner", timeout=5000)
    text = watched.page.inner_text(".live-banner")
    assert text.startswith("2 new iterations since this page was opened"), text
    watched.page.evaluate(f"window.RG_LIVE({{generation: 3, updates: {result.updates + 3}, word: '<b>x</b>'}})")
    assert watched.page.inner_text(".live-banner").startswith("3 new updates"), "a strange word is not shown"
    assert watched.page_errors == []
