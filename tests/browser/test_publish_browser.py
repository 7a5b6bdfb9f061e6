"""Published sites, clicked through in Chromium: served under a sub-path (as on GitHub Pages),
and zipped as a CI artifact then unzipped elsewhere and opened from file://.

Every page reachable by a link is opened; a response of status 400 or more, a request that
fails, a console error or an uncaught exception fails the test.
"""

from __future__ import annotations

import functools
import shutil
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from reportgen.resources import demo_dir
from reportgen.site import BuildOptions, build
from reportgen.sweep import SweepPlan, build_sweep, unique_names

from .conftest import Watched, file_url

FIXTURES = Path(__file__).parent.parent / "fixtures"
ARITH = FIXTURES / "tinker" / "arith_sync"
SWEEP_SOURCES = [str(ARITH), str(FIXTURES / "observe" / "examples"), str(demo_dir() / "agent")]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def _sweep(out: Path) -> None:
    plan = SweepPlan(list(zip(unique_names(SWEEP_SOURCES), SWEEP_SOURCES)), "sweep", "test runs")
    build_sweep(plan, out, BuildOptions(title="a sweep", jobs=1), jobs=1)


@pytest.fixture(scope="module")
def www(tmp_path_factory) -> Path:
    """A folder served as a host's root: a run at /repo/runs/42/, a sweep at /repo/sweep/."""
    root = tmp_path_factory.mktemp("www")
    build(str(ARITH), root / "repo" / "runs" / "42", BuildOptions(title="Arith 42", jobs=1))
    _sweep(root / "repo" / "sweep")
    return root


@pytest.fixture(scope="module")
def server(www) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class Tracker:
    """Responses of status >= 400 and failed requests of a page."""

    def __init__(self, w: Watched) -> None:
        self.bad: list[str] = []
        w.page.on("response", lambda r: self.bad.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        w.page.on("requestfailed", lambda r: self.bad.append(f"failed {r.url}: {r.failure}"))


def _clean(w: Watched, t: Tracker, root: str) -> None:
    assert t.bad == []
    assert w.console_errors == [] and w.page_errors == []
    assert w.external(root) == []
    assert w.dialogs == []


def _wait_charts(w: Watched) -> None:
    """Every chart of a run index or a sweep index is drawn."""
    w.page.wait_for_function(
        "() => { const p = document.querySelectorAll('.rg-chart .rg-plot, .sw-chart .sw-plot');"
        " return [...p].every(e => e.classList.contains('rg-drawn') || e.classList.contains('sw-drawn')); }",
        timeout=15000,
    )


def crawl(w: Watched, start: str, root: str, exists: Any) -> set[str]:
    """Open every page reachable from ``start`` by links; check that every other linked file exists."""
    seen: set[str] = set()
    checked: set[str] = set()
    queue = [start]
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        w.goto(url)
        assert w.page.title().strip(), url
        for href in w.page.eval_on_selector_all(
            "a[href]", "as => as.map(a => new URL(a.getAttribute('href'), document.baseURI).href)"
        ):
            target = href.split("#", 1)[0]
            assert target.startswith(root), f"{url} links out of the site: {href}"
            if target.endswith(".html") or target.endswith("/"):
                if target not in seen:
                    queue.append(target)
            elif target not in checked:
                checked.add(target)
                assert exists(target), f"{url} links to a missing file: {href}"
    return seen


def _click_point(w: Watched, chart: str) -> None:
    """Click the first point drawn in a sweep chart (found through the chart's vega view)."""
    w.page.locator(f"#chart-{chart}").scroll_into_view_if_needed()
    x, y = w.page.evaluate(
        """id => { const v = window.RG_SWEEP_VIEWS[id], d = v.data("pts")[0], o = v.origin();
        const c = v.container().querySelector("canvas").getBoundingClientRect();
        return [c.left + o[0] + v.scale("x")(d.x), c.top + o[1] + v.scale("y")(d.y)]; }""",
        chart,
    )
    w.page.mouse.move(x, y)
    w.page.wait_for_selector(".sw-tip:not([hidden])")
    assert "click opens" in w.page.inner_text(".sw-tip")
    w.page.mouse.click(x, y)


def _runs_drawn(w: Watched, chart: str) -> int:
    return w.page.evaluate(f"() => new Set(window.RG_SWEEP_VIEWS[{chart!r}].data('pts').map(d => d.r)).size")


# ---------------------------------------------------------------- served under a sub-path


def test_run_served_under_a_sub_path(server, watched):
    t = Tracker(watched)
    base = f"{server}/repo/runs/42/"
    watched.goto(base)
    assert watched.page.title() == "Arith 42 · run summary"
    _wait_charts(watched)
    # index -> an iteration page
    watched.page.click("#iterations a[href^='train_iteration_']")
    watched.page.wait_for_url(f"{base}train_iteration_*.html")
    assert watched.page.title().endswith(" · Arith 42")
    # -> back to the index by the site's own link, then an eval page
    watched.page.click("header a.brand")
    watched.page.wait_for_url(f"{base}index.html")
    watched.page.click("section.evals a[href^='eval_']")
    watched.page.wait_for_url(f"{base}eval_*_iteration_*.html")
    assert watched.page.title().startswith("Eval ")
    # -> a chart: a click opens an iteration's texts
    watched.goto(f"{base}index.html")
    _wait_charts(watched)
    watched.page.locator(".rg-chart:not(.rg-eval) .rg-plot").first.click()
    watched.page.wait_for_url(f"{base}train_iteration_*.html")
    # every page and every linked file
    pages = crawl(watched, base, base, lambda u: watched.page.request.get(u).status == 200)
    assert any("eval_test_iteration_" in p for p in pages) and any("code_diff" in p for p in pages)
    _clean(watched, t, server)


def test_sweep_served_under_a_sub_path(server, watched):
    t = Tracker(watched)
    base = f"{server}/repo/sweep/"
    watched.goto(base)
    assert watched.page.title() == "a sweep · sweep of 3 runs"
    rows = watched.page.eval_on_selector_all("#sw-table tbody tr", "rs => rs.map(r => r.dataset.run)")
    assert sorted(rows) == ["agent", "arith_sync", "examples"]
    _wait_charts(watched)
    assert watched.page.locator(".sw-chart").count() >= 4
    # a run's site, and back up to the sweep
    watched.page.click("#sw-table a[href='arith_sync/index.html']")
    watched.page.wait_for_url(f"{base}arith_sync/index.html")
    watched.page.click("header a.brand[href='../index.html']")
    watched.page.wait_for_url(f"{base}index.html")
    # a point of a curve opens that run's iteration
    _wait_charts(watched)
    _click_point(watched, "reward")
    watched.page.wait_for_url(f"{base}*/train_iteration_*.html")
    # the eval curve opens an eval page
    watched.goto(f"{base}index.html")
    _wait_charts(watched)
    _click_point(watched, "eval")
    watched.page.wait_for_url(f"{base}arith_sync/eval_test_iteration_*.html")
    crawl(watched, base, base, lambda u: watched.page.request.get(u).status == 200)
    _clean(watched, t, server)


def test_sweep_legend_and_filter(server, watched):
    watched.goto(f"{server}/repo/sweep/index.html")
    _wait_charts(watched)

    assert _runs_drawn(watched, "reward") == 3
    watched.page.click(".sw-key[data-run='agent']")
    watched.page.wait_for_function("() => new Set(window.RG_SWEEP_VIEWS.reward.data('pts').map(d => d.r)).size == 2")
    assert watched.page.get_attribute(".sw-key[data-run='agent']", "aria-pressed") == "false"
    watched.page.click("#sw-all")
    assert _runs_drawn(watched, "reward") == 3
    watched.page.fill("#sw-filter", "tinker")
    assert watched.page.inner_text("#sw-count") == "1 of 3 runs shown"
    assert _runs_drawn(watched, "reward") == 1
    watched.page.fill("#sw-filter", "no such run anywhere")
    assert watched.page.inner_text("#sw-count").startswith("No run matches the filter (0 of 3 runs shown)")
    watched.page.fill("#sw-filter", "")
    # sorting by a column, both ways
    watched.page.click("#sw-table th:nth-child(1) button")
    first = watched.page.eval_on_selector_all("#sw-table tbody tr", "rs => rs.map(r => r.dataset.run)")
    watched.page.click("#sw-table th:nth-child(1) button")
    again = watched.page.eval_on_selector_all("#sw-table tbody tr", "rs => rs.map(r => r.dataset.run)")
    assert first == sorted(first) and again == first[::-1]
    # the filter and the sort are in the address: Back from a run finds the table as it was
    watched.page.fill("#sw-filter", "a")
    assert watched.page.evaluate("location.hash") == "#q=a&sort=0:descending"
    shown = watched.page.eval_on_selector_all("#sw-table tbody tr:not(.hidden)", "rs => rs.map(r => r.dataset.run)")
    watched.page.click("#sw-table tbody tr:not(.hidden) a >> nth=0")
    watched.page.wait_for_load_state("load")
    watched.page.go_back()
    watched.page.wait_for_load_state("load")
    assert watched.page.input_value("#sw-filter") == "a"
    assert watched.page.get_attribute("#sw-table th:nth-child(1)", "aria-sort") == "descending"
    assert (
        watched.page.eval_on_selector_all("#sw-table tbody tr:not(.hidden)", "rs => rs.map(r => r.dataset.run)")
        == shown
    )
    # a link with a filter greys the legend of the runs it leaves out, from the start
    for first in ("about:blank", None):  # opened afresh, then the same page given a new hash
        if first:
            watched.goto(first)
        watched.goto(f"{server}/repo/sweep/index.html#q=tinker")
        assert watched.page.inner_text("#sw-count") == "1 of 3 runs shown"
        assert watched.page.eval_on_selector_all(".sw-key.filtered", "ks => ks.length") == 2
        watched.goto(f"{server}/repo/sweep/index.html#q=")
    assert watched.console_errors == [] and watched.page_errors == []


def test_sweep_curves_on_a_touch_screen(server, browser):
    """A first tap on a point shows its tip (which says a second tap opens), the page stays;
    a second tap on the same point opens it."""
    ctx = browser.new_context(viewport={"width": 900, "height": 900}, has_touch=True, is_mobile=True)
    try:
        p = ctx.new_page()
        p.goto(f"{server}/repo/sweep/index.html")
        p.wait_for_function(
            "() => [...document.querySelectorAll('.sw-chart .sw-plot')].every(e => e.classList.contains('sw-drawn'))",
            timeout=15000,
        )
        p.locator("#chart-reward").scroll_into_view_if_needed()
        x, y = p.evaluate(
            """() => {
                const v = RG_SWEEP_VIEWS['reward'], d = v.data('pts')[1];
                const c = document.querySelector('#chart-reward canvas').getBoundingClientRect(), o = v.origin();
                return [c.left + o[0] + v.scale('x')(d.x), c.top + o[1] + v.scale('y')(d.y)];
            }"""
        )
        p.touchscreen.tap(x, y)
        p.wait_for_selector(".sw-tip:not([hidden])")
        assert "tap again opens" in p.inner_text(".sw-tip")
        p.wait_for_timeout(300)
        assert p.url.endswith("/repo/sweep/index.html")
        p.touchscreen.tap(x, y)
        p.wait_for_url(lambda u: "/repo/sweep/" in u and not u.endswith("/sweep/index.html"))
    finally:
        ctx.close()


def test_sweep_curves_from_the_keyboard(server, watched):
    """A sweep chart takes the focus: the arrows move along a run's curve and between runs,
    the tip and a live region say where, Enter opens what the tip names."""
    watched.goto(f"{server}/repo/sweep/index.html")
    _wait_charts(watched)
    p = watched.page
    plot = p.locator("#chart-reward .sw-plot")
    assert plot.get_attribute("tabindex") == "0" and plot.get_attribute("role") == "group"
    plot.focus()
    p.keyboard.press("Home")
    p.wait_for_selector(".sw-tip:not([hidden])")
    first = p.inner_text("#sw-said")
    p.keyboard.press("ArrowRight")
    second = p.inner_text("#sw-said")
    assert first != second and first.split(",")[0] == second.split(",")[0]  # the same run, a later step
    p.keyboard.press("ArrowDown")
    third = p.inner_text("#sw-said")
    assert third.split(",")[0] != second.split(",")[0]  # another run's curve
    assert "click opens" in p.inner_text(".sw-tip")
    p.keyboard.press("Enter")
    p.wait_for_url(lambda u: "/repo/sweep/" in u and not u.endswith("/sweep/index.html"))
    assert watched.console_errors == [] and watched.page_errors == []


# ---------------------------------------------------------------- a CI artifact


def _exists_on_disk(url: str) -> bool:
    return Path(unquote(urlparse(url).path)).is_file()


def test_zipped_artifact_opens_from_disk(tmp_path, watched):
    built = tmp_path / "ci" / "site"
    _sweep(built)
    archive = shutil.make_archive(str(tmp_path / "artifact"), "zip", root_dir=built)
    shutil.rmtree(tmp_path / "ci")  # nothing of the build is left where it was made
    dest = tmp_path / "downloads" / "unzipped here"
    with zipfile.ZipFile(archive) as z:
        z.extractall(dest)
    t = Tracker(watched)
    root = file_url(dest) + "/"
    watched.goto(root + "index.html")
    _wait_charts(watched)
    _click_point(watched, "reward")
    watched.page.wait_for_url(root + "*/train_iteration_*.html")
    watched.goto(root + "arith_sync/index.html")
    _wait_charts(watched)
    watched.page.click("section.evals a[href^='eval_']")
    watched.page.wait_for_url(root + "arith_sync/eval_*_iteration_*.html")
    pages = crawl(watched, root + "index.html", root, _exists_on_disk)
    assert len(pages) > 20
    _clean(watched, t, root)


def test_run_folders_named_in_any_script_open_from_disk(tmp_path, watched):
    """Runs named "实验-1" and "Résumé" keep those names as folders; the index's links (in the
    HTML, and the chart points sweep.js links) open them from file://."""
    runs = tmp_path / "runs"
    shutil.copytree(demo_dir() / "agent", runs / "实验-1")
    shutil.copytree(FIXTURES / "observe" / "examples", runs / "Re\u0301sume\u0301")
    sources = sorted(str(p) for p in runs.iterdir())
    site = tmp_path / "site"
    build_sweep(SweepPlan(list(zip(unique_names(sources), sources)), "runs", "runs"), site, BuildOptions(jobs=1))
    t = Tracker(watched)
    root = file_url(site) + "/"
    watched.goto(root + "index.html")
    _wait_charts(watched)
    watched.page.click("#sw-table a >> text=实验-1")
    watched.page.wait_for_url(root + "%E5%AE%9E%E9%AA%8C-1/index.html")
    assert watched.page.title() == "实验-1 · run summary"
    watched.goto(root + "index.html")
    _wait_charts(watched)
    _click_point(watched, "reward")
    watched.page.wait_for_url(root + "*/train_iteration_*.html")
    assert unquote(watched.page.url[len(root) :]).split("/")[0] in ("实验-1", "Résumé")
    pages = crawl(watched, root + "index.html", root, _exists_on_disk)
    assert any("%E5%AE%9E%E9%AA%8C-1/" in p for p in pages) and any("R%C3%A9sum%C3%A9/" in p for p in pages)
    _clean(watched, t, root)
