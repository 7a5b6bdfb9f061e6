"""The index charts in Chromium from file://: drawn with their data, hover, click, explorer, themes.

Every test also checks that the page logged no console error, raised nothing, opened no
dialog and requested nothing outside the site folder.  Pages forbid eval (CSP), so waits
poll with page.evaluate instead of page.wait_for_function.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest

from reportgen.site import build
from reportgen.views import charts

from ..obs import Obs
from .conftest import Watched, file_url

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent.parent
DEMO = ROOT / "reportgen" / "demo"
FIXTURES = ROOT / "tests" / "fixtures"


def wait_for(page: Any, expr: str, timeout: float = 30.0) -> Any:
    end = time.time() + timeout
    while True:
        value = page.evaluate(expr)
        if value:
            return value
        if time.time() > end:
            raise AssertionError(f"timed out waiting for {expr}")
        time.sleep(0.02)


def open_index(w: Watched, site: Path, suffix: str = "") -> None:
    w.goto(file_url(site / "index.html") + suffix)
    wait_for(w.page, "document.documentElement.getAttribute('data-rg-charts') === 'drawn'")


def assert_clean(w: Watched, site: Path) -> None:
    assert w.console_errors == [] and w.page_errors == []
    assert w.external(file_url(site)) == []
    assert w.dialogs == []


def point(page: Any, chart: str, step: float) -> tuple[float, float]:
    """Client coordinates of ``step`` on a fixed chart, at mid height."""
    return tuple(
        page.evaluate(
            """([id, step]) => {
                const v = RG_CHARTS.views[id], c = document.querySelector('#chart-' + id + ' canvas');
                const r = c.getBoundingClientRect(), o = v.origin();
                return [r.left + o[0] + v.scale('x')(step), r.top + o[1] + v.height() / 2];
            }""",
            [chart, step],
        )
    )


def synthetic(folder: Path, updates: int, every: int = 2, resume: int | None = None) -> Path:
    """An observe export with a skipped update (7), an incomplete one (6) and a null kl (9)."""
    o = Obs().run(every=every)
    for n in range(1, updates + 1):
        if resume is not None and n == resume + 1:
            o.run(every=every, resumed=resume)
        if n % every == 0:
            o.batch(o.prompt(f"p:{n}"), Obs.rollout(n, 0, 0, prompt=f"p:{n}"), Obs.rollout(n, 0, 1, prompt=f"p:{n}"))
        if n == 6:
            continue  # rollouts but no update record: incomplete
        o.batch(
            Obs.update(
                n,
                status="skipped" if n == 7 else "completed",
                reward__mean=0.1 + n / (updates + 1) + 1e-9 / 3,
                reward__std=0.2,
                policy__kl=None if n == 9 else 0.001 * n,
                batch__trained_fraction=0.5,
            )
        )
    return o.write(folder)


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("charts")
    out: dict[str, Path] = {}
    sources = {
        "grpo": DEMO / "grpo",
        "agent": DEMO / "agent",
        "examples": FIXTURES / "observe" / "examples",
        "arith_sync": FIXTURES / "tinker" / "arith_sync",
        "flat_arith_sync": FIXTURES / "tinker" / "flat_arith_sync",
        "calc_agent_multiturn": FIXTURES / "tinker" / "calc_agent_multiturn",
        "arith_resumed": FIXTURES / "tinker" / "arith_resumed",
        "synthetic": synthetic(base / "synthetic-src", 40, resume=20),
    }
    for name, src in sources.items():
        out[name] = base / name
        build(str(src), out[name])
    # a run whose explorer columns live in chunk files
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(charts, "INLINE_BYTES", 0)
        mp.setattr(charts, "CHUNK_BYTES", 200)
        out["chunked"] = base / "chunked"
        build(str(DEMO / "grpo"), out["chunked"])
    out["long"] = base / "long"
    build(str(synthetic(base / "long-src", 1600, every=100)), out["long"])
    return out


@pytest.mark.parametrize(
    "name",
    [
        "grpo",
        "agent",
        "examples",
        "arith_sync",
        "flat_arith_sync",
        "calc_agent_multiturn",
        "arith_resumed",
        "synthetic",
    ],
)
def test_charts_are_drawn_with_the_runs_data(sites, watched, name):
    site = sites[name]
    open_index(watched, site)
    page = watched.page
    ids = page.evaluate("RG_METRICS.charts.map(c => c.id)")
    assert ids, "every run here has charted metrics"
    assert sorted(page.evaluate("Object.keys(RG_CHARTS.views)")) == sorted(ids)
    assert page.locator("figure.rg-chart").count() == len(ids)
    assert page.evaluate("RG_CHARTS.errors") == []
    # small runs are drawn point for point: the line holds every finite value of every series
    mismatch = page.evaluate(
        """() => RG_METRICS.charts.flatMap(c => c.series.map(s => {
            const col = RG_METRICS.cols[s.key];
            const want = RG_METRICS.steps.map((x, i) => [x, col[i]]).filter(p => p[1] !== null);
            const got = RG_CHARTS.views[c.id].data('line').filter(d => d.s === s.key && d.y !== null)
                .map(d => [d.x, d.y]);
            const lone = RG_CHARTS.views[c.id].data('pts').map(d => [d.x, d.y]);
            return want.every(p => got.some(q => q[0] === p[0] && q[1] === p[1])
                || lone.some(q => q[0] === p[0] && q[1] === p[1])) ? null : c.id + ' ' + s.key;
        })).filter(Boolean)"""
    )
    assert mismatch == []
    assert page.locator(".rg-plot canvas").count() >= len(ids)
    assert_clean(watched, site)


def test_the_index_is_painted_before_its_charts_are_drawn(sites, watched):
    """vega's scripts come after the charts section, not in the head: the header and the chart
    boxes are painted while vega compiles (in the head they held up the first paint until
    after the charts were drawn: 1.16 s against 1.12 s on a run of 6,859 updates)."""
    for name in ("grpo", "long"):
        open_index(watched, sites[name])
        fcp, drawn = watched.page.evaluate(
            "() => [performance.getEntriesByName('first-contentful-paint')[0].startTime, RG_CHARTS.drawnAt]"
        )
        assert fcp < drawn, (name, fcp, drawn)
    assert watched.console_errors == [] and watched.page_errors == []


def test_every_iteration_with_texts_is_linked_from_the_index(sites, watched):
    for name in ("grpo", "arith_sync"):
        watched.requests.clear()
        open_index(watched, sites[name])
        hrefs = set(watched.page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))"))
        pages = watched.page.evaluate(
            "RG_METRICS.iters.pages.concat(...Object.values(RG_METRICS.evals).map(e => e.pages))"
        )
        assert pages and set(pages) <= hrefs
        for p in pages:
            assert (sites[name] / p).is_file()
        assert_clean(watched, sites[name])


def test_clicking_a_point_opens_its_update(sites, watched):
    site = sites["grpo"]
    open_index(watched, site)
    x, y = point(watched.page, "c0", 8)
    watched.page.mouse.move(x, y)
    wait_for(watched.page, "document.querySelector('#chart-c0 .rg-plot').getAttribute('data-hover') === '8'")
    watched.page.mouse.click(x, y)
    watched.page.wait_for_url("**/train_iteration_000008.html")
    assert_clean(watched, site)


def test_a_tap_shows_the_values_and_a_second_tap_opens_the_update(sites, browser):
    """A touch screen has no hover: the first tap on a point shows its tooltip, and the page
    stays; a second tap on the same point opens it."""
    ctx = browser.new_context(viewport={"width": 800, "height": 900}, has_touch=True, is_mobile=True)
    try:
        page = ctx.new_page()
        page.goto(file_url(sites["grpo"] / "index.html"))
        wait_for(page, "document.documentElement.getAttribute('data-rg-charts') === 'drawn'")
        x, y = point(page, "c0", 8)
        page.touchscreen.tap(x, y)
        wait_for(page, "!document.getElementById('rg-tip').hidden")
        tip = page.inner_text("#rg-tip")
        assert tip.startswith("update 8") and "tap again to open" in tip, tip
        page.wait_for_timeout(300)
        assert page.url.endswith("index.html")
        page.touchscreen.tap(x, y)
        page.wait_for_url("**/train_iteration_000008.html")
    finally:
        ctx.close()


def test_the_updates_table_sorts_by_a_column_and_back(sites, watched):
    """A header's first click puts the highest value first, the second the lowest, the third
    the run's order back; empty cells stay last."""
    site = sites["grpo"]
    open_index(watched, site)
    page = watched.page
    wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
    ids = "Array.from(document.querySelectorAll('#iterations tbody tr')).map(r => r.id)"
    run_order = page.evaluate(ids)
    col = page.evaluate(
        "Array.from(document.querySelectorAll('#iterations thead th')).findIndex(th => th.textContent.trim() === 'reward/mean')"
    )
    assert col > 0
    values = (
        f"Array.from(document.querySelectorAll('#iterations tbody tr')).map(r => r.cells[{col}].textContent.trim())"
    )
    button = page.locator("#iterations thead th").nth(col).locator("button.rg-sort")
    button.click()
    shown = [float(v) for v in page.evaluate(values) if v != "–"]
    assert shown == sorted(shown, reverse=True) and len(set(shown)) > 1
    assert page.locator("#iterations thead th").nth(col).get_attribute("aria-sort") == "descending"
    button.click()
    shown = [v for v in page.evaluate(values)]
    nums = [float(v) for v in shown if v != "–"]
    assert nums == sorted(nums) and all(v == "–" for v in shown[len(nums) :])  # empty cells last
    button.click()
    assert page.evaluate(ids) == run_order
    assert page.locator("#iterations thead th").nth(col).get_attribute("aria-sort") == "none"
    # the sort is kept for this tab: Back from an update finds the table as it was left
    button.click()
    sorted_ids = page.evaluate(ids)
    page.reload()  # a page drawn again (not one kept whole by the back-forward cache)
    wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
    assert page.evaluate(ids) == sorted_ids
    page.click("#iterations tbody tr a")
    page.wait_for_url("**/train_iteration_*.html*")
    page.go_back()
    wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
    assert page.evaluate(ids) == sorted_ids
    assert page.locator("#iterations thead th").nth(col).get_attribute("aria-sort") == "descending"
    page.locator("#iterations thead th").nth(col).locator("button.rg-sort").click()
    page.locator("#iterations thead th").nth(col).locator("button.rg-sort").click()
    assert page.evaluate(ids) == run_order
    page.reload()
    wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
    assert page.evaluate(ids) == run_order  # the run's order, kept as such
    assert_clean(watched, site)


def test_the_index_has_a_help_of_its_keys(sites, watched):
    site = sites["grpo"]
    open_index(watched, site)
    page = watched.page
    is_open = "document.getElementById('rg-help').open"
    page.keyboard.press("?")
    wait_for(page, is_open)
    assert "on a chart" in page.inner_text("#rg-help") and "sort the table" in page.inner_text("#rg-help")
    page.keyboard.press("Escape")
    wait_for(page, "!" + is_open)
    page.click("#b-help")
    wait_for(page, is_open)
    page.click("#rg-help .dlg-close")
    wait_for(page, "!" + is_open)
    assert_clean(watched, site)


def test_clicking_an_update_without_texts_offers_the_nearest(sites, watched):
    site = sites["grpo"]
    open_index(watched, site)
    page = watched.page
    x, y = point(page, "c3", 13)
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    msg = page.locator("#rg-msg")
    msg.wait_for(state="visible")
    assert msg.inner_text().startswith("update 13 has no texts; nearest with texts: 12 / 14")
    links = msg.locator("a")
    assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [
        "train_iteration_000012.html",
        "train_iteration_000014.html",
    ]
    assert page.url.endswith("/index.html")
    links.nth(1).click()
    page.wait_for_url("**/train_iteration_000014.html")
    assert_clean(watched, site)


def test_keyboard_moves_between_points_and_opens_one(sites, watched):
    site = sites["grpo"]
    open_index(watched, site)
    page = watched.page
    plot = page.locator("#chart-c0 .rg-plot")
    plot.focus()
    page.keyboard.press("End")
    assert plot.get_attribute("data-hover") == "30"
    page.keyboard.press("ArrowLeft")
    assert plot.get_attribute("data-hover") == "29"
    assert page.locator("#rg-tip").inner_text().startswith("update 29")
    # the tooltip is only drawn: a live region reads the position out to a screen reader
    live = page.locator('[role="status"][aria-live="polite"]')
    assert live.count() == 1 and live.inner_text().startswith("update 29")
    assert live.evaluate("e => e.getBoundingClientRect().width") <= 1  # not seen
    page.keyboard.press("Enter")  # 29 has no texts: the message, with the neighbours
    page.locator("#rg-msg").wait_for(state="visible")
    assert "nearest with texts: 28 / 30" in page.locator("#rg-msg").inner_text()
    plot.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_url("**/train_iteration_000002.html")
    assert_clean(watched, site)


def test_hover_shows_the_exact_value_and_the_step(sites, watched):
    site = sites["synthetic"]
    open_index(watched, site)
    page = watched.page
    exact = page.evaluate("String(RG_METRICS.cols['reward/mean'][RG_METRICS.steps.indexOf(17)])")
    assert len(exact) > 12  # a value with many digits: shown in full, not rounded
    x, y = point(page, "c0", 17)
    page.mouse.move(x, y)
    tip = page.locator("#rg-tip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert text.startswith("update 17") and exact in text and "segment 0" in text
    # and its change from the update before with a value
    d = page.evaluate(
        "(() => { const c = RG_METRICS.cols['reward/mean'], i = RG_METRICS.steps.indexOf(17);"
        " let k = i - 1; while (c[k] === null) k--; return c[i] - c[k]; })()"
    )
    sign = "+" if d > 0 else "−" if d < 0 else "±"
    assert f"Δ {sign}{float(f'{abs(d):.3g}'):g}" in text.replace("\t", " "), text
    assert page.locator("#chart-c0 .rg-hdot").count() == 1
    # a skipped update and the segment change are told on hover too
    x, y = point(page, "c0", 7)
    page.mouse.move(x, y)
    wait_for(page, "document.getElementById('rg-tip').innerText.startsWith('update 7')")
    assert "skipped" in tip.inner_text()
    page.mouse.move(0, 0)
    tip.wait_for(state="hidden")
    assert_clean(watched, site)


def test_skipped_incomplete_gaps_and_segments_are_drawn(sites, watched):
    site = sites["synthetic"]
    open_index(watched, site)
    page = watched.page
    rects = page.evaluate("RG_CHARTS.views.c0.data('rects').filter(d => d.o < 1).map(d => (d.x0 + d.x1) / 2)")
    assert sorted(round(x) for x in rects) == [6, 7]  # incomplete 6, skipped 7
    assert page.evaluate("RG_CHARTS.views.c0.data('segs').map(d => d.x)") == [20.5]
    kl = next(c for c in page.evaluate("RG_METRICS.charts") if c["title"] == "policy/kl")
    line = page.evaluate(f"RG_CHARTS.views.{kl['id']}.data('line').map(d => [d.x, d.y])")
    gaps = [(line[i - 1][0], line[i + 1][0]) for i, (_, yv) in enumerate(line) if yv is None]
    assert gaps == [(5, 7), (8, 10)]  # incomplete update 6 has no metric, update 9 a null kl: the line breaks
    # markers: filled where the update has texts, hollow without
    pts = page.evaluate("RG_CHARTS.views.c0.data('pts').map(d => [d.x, d.f === d.c])")
    assert dict(pts) == {n: n % 2 == 0 for n in range(1, 41) if n != 6}
    assert_clean(watched, site)


def test_a_flagged_last_update_stays_inside_its_chart(sites, watched):
    """examples' last update is skipped: its rect reaches half an update past the x domain,
    and unclipped it covered the next chart and made the page scroll sideways."""
    site = sites["examples"]
    open_index(watched, site)
    page = watched.page
    assert page.evaluate("RG_CHARTS.views.c0.data('rects').some(d => d.x1 > RG_METRICS.domain[1])")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert_clean(watched, site)


def test_eval_curve_click_opens_the_evaluators_page(sites, watched):
    site = sites["arith_sync"]
    open_index(watched, site)
    page = watched.page
    ev = page.evaluate("RG_METRICS.charts.find(c => c.kind === 'eval' && c.label === 'test').id")
    x, y = point(page, ev, 2)
    page.mouse.move(x, y)
    wait_for(page, f"document.querySelector('#chart-{ev} .rg-plot').getAttribute('data-hover') === '2'")
    page.mouse.click(x, y)
    page.wait_for_url("**/eval_test_iteration_000002.html")
    assert_clean(watched, site)


def test_explorer_charts_a_picked_metric_with_smoothing_log_and_time(sites, watched):
    site = sites["grpo"]
    open_index(watched, site)
    page = watched.page
    wait_for(page, "RG_CHARTS.explorer && RG_CHARTS.explorer.data('line').length > 0")
    page.fill("#rg-search", "entropy")
    visible = page.locator("#rg-metric-list label:visible")
    assert visible.count() == 1
    visible.locator("input").check()
    wait_for(page, "RG_CHARTS.explorer.data('line').some(d => d.s === 'policy/entropy')")
    n_raw = page.evaluate("RG_METRICS.cols['policy/entropy'].filter(v => v !== null).length")
    got = page.evaluate("RG_CHARTS.explorer.data('line').filter(d => d.s === 'policy/entropy').length")
    assert got == n_raw
    page.fill("#rg-smooth", "0.9")
    page.dispatch_event("#rg-smooth", "input")
    wait_for(page, "RG_CHARTS.explorer.data('raw').length > 0")
    page.check("#rg-log")
    page.select_option("#rg-xmode", "time")
    wait_for(page, "RG_CHARTS.explorer.data('line').every(d => d.x > 1e12)")  # milliseconds since epoch
    assert (
        page.evaluate("location.hash") == "#explore=reward%2Fmean,policy%2Fentropy&smooth=0.9&log=1&x=time&find=entropy"
    )
    plot = page.locator("#rg-explorer-plot").bounding_box()
    page.mouse.move(plot["x"] + plot["width"] * 0.5, plot["y"] + 100)
    wait_for(page, "!document.getElementById('rg-tip').hidden")
    assert "smoothed" in page.locator("#rg-tip").inner_text()
    page.click("#rg-clear")
    wait_for(page, "RG_CHARTS.explorer === null")
    assert_clean(watched, site)


def test_explorer_state_comes_back_from_the_address(sites, watched):
    site = sites["grpo"]
    open_index(watched, site, "#explore=policy%2Fkl,policy%2Fentropy&log=1")
    page = watched.page
    wait_for(page, "RG_CHARTS.explorer && new Set(RG_CHARTS.explorer.data('line').map(d => d.s)).size === 2")
    assert page.is_checked("#rg-log")
    # the metric search is in the address too, and comes back with it
    page.fill("#rg-search", "policy")
    wait_for(page, "location.hash.indexOf('find=policy') >= 0")
    shown = page.eval_on_selector_all(
        "#rg-metric-list label", "ls => ls.filter(l => !l.hidden && l.offsetParent).length"
    )
    url = page.url
    watched.goto("about:blank")
    watched.goto(url)
    wait_for(page, "RG_CHARTS.explorer !== undefined && RG_CHARTS.explorer !== null")
    assert page.input_value("#rg-search") == "policy"
    again = page.eval_on_selector_all(
        "#rg-metric-list label", "ls => ls.filter(l => !l.hidden && l.offsetParent).length"
    )
    assert again == shown
    assert_clean(watched, site)


def test_explorer_loads_chunked_columns_with_a_script_tag(sites, watched):
    site = sites["chunked"]
    assert (site / "metrics_data").is_dir()
    open_index(watched, site)
    page = watched.page
    name = page.evaluate("Object.keys(RG_METRICS.chunk)[0]")
    assert page.evaluate(f"RG_METRICS.cols[{name!r}] === undefined")
    page.locator(f"#rg-metric-list input[value='{name}']").check()
    wait_for(page, f"RG_CHARTS.explorer && RG_CHARTS.explorer.data('line').some(d => d.s === {name!r})")
    assert any("/metrics_data/" in u for u in watched.requests)
    assert_clean(watched, site)


def test_dark_theme_draws_dark_charts(sites, browser):
    site = sites["grpo"]
    context = browser.new_context(color_scheme="dark")
    w = Watched(context.new_page())
    w.page.on("console", lambda m: w.console_errors.append(m.text) if m.type == "error" else None)
    w.page.on("pageerror", lambda e: w.page_errors.append(str(e)))
    w.page.on("request", lambda r: w.requests.append(r.url))
    try:
        open_index(w, site)
        colour = w.page.evaluate("RG_CHARTS.views.c0.data('line')[0].c")
        assert colour == w.page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--rg-c1').trim()"
        )
        assert colour.lower() == "#7fb0ff"
        filt = "getComputedStyle(document.querySelector('#chart-c0 canvas')).filter"
        assert w.page.evaluate(filt) == "none"
        # on paper the page is light: the charts drawn with the dark palette print inverted
        w.page.emulate_media(media="print")
        assert w.page.evaluate(filt) == "invert(1) hue-rotate(180deg)"
        w.page.emulate_media(media="print", color_scheme="light")
        assert w.page.evaluate(filt) == "none"
        assert_clean(w, site)
    finally:
        context.close()


def test_long_table_without_javascript_is_laid_out_as_grid_rows(sites, browser):
    """Without scripting, the index marks a long table itself: laid out as one table, the
    68,089 rows of a long run took 26 s to load (6 s as grid rows skipped off screen)."""
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto(file_url(sites["long"] / "index.html") + "#u1500")
        assert not page.evaluate("document.documentElement.hasAttribute('data-rg-long')")
        assert page.evaluate("getComputedStyle(document.querySelector('#iterations tbody tr')).display") == "grid"
        assert page.is_visible("#u1500")
        short = ctx.new_page()
        short.goto(file_url(sites["grpo"] / "index.html"))
        assert short.evaluate("getComputedStyle(document.querySelector('#iterations tbody tr')).display") == "table-row"
        # no chart that would say "drawing…" for ever, no explorer whose controls do nothing:
        # the note at the top of the section says where the numbers are
        assert not short.is_visible(".rg-grid") and not short.is_visible("#explorer")
        assert "need JavaScript" in short.inner_text(".rg-charts-head")
    finally:
        ctx.close()


def test_the_long_tables_headings_stay_under_the_site_header_and_a_phone_scrolls_it_in_its_box(sites, browser):
    """A narrow window wraps the site's header: the sticky headings sit under it, not behind.
    On a phone the page never gets wider than the screen: the columns keep room for a
    number and the table scrolls sideways in its box (its headings then scroll away)."""
    ctx = browser.new_context(viewport={"width": 800, "height": 740})
    try:
        page = ctx.new_page()
        page.goto(file_url(sites["long"] / "index.html") + "#u1500")
        wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
        page.evaluate("document.querySelector('header.top').style.paddingBottom = '30px'")  # a wrapped header
        page.evaluate("window.dispatchEvent(new Event('resize'))")
        page.evaluate("window.scrollBy(0, 300)")
        wait_for(
            page,
            "Math.abs(document.querySelector('#iterations > thead').getBoundingClientRect().top - "
            "document.querySelector('header.top').getBoundingClientRect().bottom) < 2",
        )
        page.set_viewport_size({"width": 375, "height": 740})
        wrap = "document.querySelector('section.iterations .table-wrap')"
        wait_for(page, f"{wrap}.scrollWidth > {wrap}.clientWidth")  # room for the numbers
        wait_for(page, "document.documentElement.scrollWidth <= innerWidth")
        cell = "document.querySelector('#u1500 td:nth-child(4)')"
        assert page.evaluate(f"{cell}.scrollWidth <= {cell}.clientWidth")  # a number is not cut
    finally:
        ctx.close()


def test_long_table_is_laid_out_after_the_charts_and_anchors_still_work(sites, watched):
    site = sites["long"]
    open_index(watched, site)
    page = watched.page
    assert page.evaluate("document.documentElement.hasAttribute('data-rg-long')")
    wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
    assert page.locator("#iterations tbody tr").count() == 1599  # update 6: no record, no rollout
    assert page.evaluate("getComputedStyle(document.querySelector('#iterations tbody tr')).display") == "grid"
    # a link into the table (the runs page links #u<step>) opens at that row
    watched.goto(file_url(site / "index.html") + "#u1500")
    wait_for(page, "document.documentElement.hasAttribute('data-rg-table')")
    wait_for(page, "(() => { const r = document.getElementById('u1500').getBoundingClientRect();"
                   " return r.top >= 0 && r.bottom <= innerHeight; })()")  # fmt: skip
    # a thousand-odd updates drawn from a downsampled line, hover still exact
    assert page.evaluate("RG_CHARTS.views.c0.data('line').length") < 1600
    assert_clean(watched, site)


def test_number_formatting_survives_nan_in_the_data(tmp_path, watched):
    o = Obs().run()
    for n in range(1, 6):
        o.batch(Obs.update(n, reward__mean=math.nan if n == 3 else n / 10))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    open_index(watched, site)
    assert watched.page.evaluate("RG_METRICS.cols['reward/mean']") == [0.1, 0.2, None, 0.4, 0.5]
    assert_clean(watched, site)


@pytest.mark.parametrize("name", ["synthetic", "arith_sync", "calc_agent_multiturn"])
def test_the_index_fits_a_phone(sites, browser, name):
    """At 375 px the index scrolls down, not sideways: the chart grid takes one column the
    screen's width and wide tables (segments, updates) scroll inside their box. The
    segments' start times are the reader's local time, the logged UTC one on hover."""
    ctx = browser.new_context(viewport={"width": 375, "height": 800}, timezone_id="America/New_York")
    page = ctx.new_page()
    page.goto(file_url(sites[name] / "index.html"))
    page.wait_for_load_state("load")
    wait_for(page, "window.RG_CHARTS && Object.keys(RG_CHARTS.views).length > 0")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    for t in page.query_selector_all("section.segments time[datetime]"):
        assert t.get_attribute("title") == t.get_attribute("datetime") and t.inner_text() != t.get_attribute("datetime")
    ctx.close()


def test_charts_keep_their_accessible_names(sites, watched):
    """vega names its container "Vega visualization": each chart keeps its own name, which
    says which metric it shows and how to move in it, and so does the explorer's plot."""
    site = sites["grpo"]
    open_index(watched, site)
    page = watched.page
    wait_for(page, "document.querySelectorAll('.rg-chart .rg-plot canvas').length > 0")
    page.wait_for_timeout(300)
    names = page.eval_on_selector_all(
        ".rg-chart .rg-plot", "ps => ps.map(p => [p.getAttribute('role'), p.getAttribute('aria-label')])"
    )
    assert names and all(
        role == "group" and label.startswith("chart of ") and "arrow keys" in label for role, label in names
    )
    page.click("#rg-metric-list label >> nth=0")
    wait_for(page, "document.querySelector('#rg-explorer-plot canvas') !== null")
    page.wait_for_timeout(300)
    assert page.get_attribute("#rg-explorer-plot", "aria-label").startswith("chart of the picked metrics")
    assert page.get_attribute("#rg-explorer-plot", "role") == "group"
    assert_clean(watched, site)


def test_a_metric_tinker_wrote_as_nan_only_says_so(tmp_path, watched):
    """A metric whose every value tinker wrote as NaN or Infinity is listed in the explorer as
    "NaN or ∞ only", not as having no value."""
    import json
    import shutil

    src = tmp_path / "run"
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", src)
    lines = (src / "metrics.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    out = []
    for r in rows:
        text = json.dumps(r)
        out.append(text[:-1] + ', "custom/nan_only": NaN, "custom/inf_only": Infinity}')
    (src / "metrics.jsonl").write_text("\n".join(out) + "\n")
    site = tmp_path / "site"
    build(str(src), site)
    open_index(watched, site)
    wait_for(watched.page, "document.querySelectorAll('#rg-metric-list label').length > 0")
    labels = watched.page.eval_on_selector_all(
        "#rg-metric-list label.rg-nonfinite", "ls => ls.map(l => l.querySelector('input').value)"
    )
    assert {"custom/inf_only", "custom/nan_only"} <= set(labels)
    assert not watched.page.query_selector("#rg-metric-list label.rg-empty input[value='custom/nan_only']")
    after = watched.page.eval_on_selector(
        "#rg-metric-list label.rg-nonfinite", "l => getComputedStyle(l, '::after').content"
    )
    assert "NaN" in after
    assert_clean(watched, site)
