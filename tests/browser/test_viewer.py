"""The rollout viewer in Chromium from file://: keys, filters, sort, compare, markdown, URL state, pager."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from reportgen.site import BuildOptions, build

from ..test_iteration_view import build_synthetic, recurring_run, resumed_recurring_run
from .conftest import file_url, seen_text

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent.parent / "fixtures"
DEMO = Path(__file__).parent.parent.parent / "reportgen" / "demo"


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("viewer")
    out = {"syn": build_synthetic(root / "syn")}
    out["recurring"] = root / "recurring"
    build(str(recurring_run(root / "recurring-src", 24)), out["recurring"])
    out["resumed"] = root / "resumed"
    build(str(resumed_recurring_run(root / "resumed-src")), out["resumed"])
    for name, src in (("ex", FIXTURES / "observe" / "examples"), ("agent", DEMO / "agent"), ("grpo", DEMO / "grpo")):
        out[name] = root / name
        build(str(src), out[name])
    for run in ("arith_sync", "calc_agent_multiturn", "flat_arith_sync"):
        build(str(FIXTURES / "tinker" / run), root / run)
        out[run] = root / run
    return out


def wait_js(w, expr: str, timeout: float = 10.0, navigating: bool = False) -> None:
    """Poll a JS expression (wait_for_function compiles strings with eval, which the pages' CSP
    forbids); ``navigating``: the page may be between pages meanwhile (tried again then)."""
    from playwright.sync_api import Error

    end = time.monotonic() + timeout
    while True:
        try:
            if w.page.evaluate(expr):
                return
        except Error:
            if not navigating:
                raise
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {expr}")
        w.page.wait_for_timeout(30)


def open_page(w, site: Path, name: str, hash_: str = "") -> None:
    w.goto(file_url(site / name) + hash_)
    wait_js(w, "document.getElementById('rg-bar') && !document.getElementById('rg-bar').hidden")


def shown(w, sel: str = ".member") -> list[str]:
    return w.page.eval_on_selector_all(sel, "els => els.filter(e => e.offsetParent !== null).map(e => e.id)")


def count_text(w) -> str:
    return w.page.inner_text("#rg-count")


def hash_of(w) -> str:
    return w.page.evaluate("location.hash")


def clean(w, site: Path) -> None:
    assert w.console_errors == [] and w.page_errors == []
    assert w.external(file_url(site)) == []


# ------------------------------------------------------------------ every page opens clean
def test_every_page_opens_without_error(sites, watched):
    root = Path(os.path.commonpath([str(p) for p in sites.values()]))
    for site in sites.values():
        for page in sorted(site.glob("*.html")):
            watched.goto(file_url(page))
            if "iteration" in page.name:
                wait_js(watched, "!document.getElementById('rg-bar') || !document.getElementById('rg-bar').hidden")
                if watched.page.query_selector("#f-md"):
                    watched.page.keyboard.press("m")  # markdown and KaTeX too
                    if watched.page.query_selector(".md .math"):
                        watched.page.wait_for_selector(".md .katex")
                    watched.page.keyboard.press("m")
    clean(watched, root)
    assert watched.dialogs == []


# ------------------------------------------------------------------ keys
def test_j_k_and_arrows_move_between_iterations(sites, watched):
    """j/k move at once; an arrow scrolls, and moves on only when pressed again at the end
    (↓) or the top (↑) of the page, never while held down to scroll."""
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    p = watched.page
    p.keyboard.press("j")
    p.wait_for_url("**/train_iteration_000004.html*")
    p.set_viewport_size({"width": 900, "height": 300})  # a page longer than the window
    assert p.evaluate("document.documentElement.scrollHeight > innerHeight + 200")
    p.keyboard.press("ArrowDown")
    wait_js(watched, "window.scrollY > 0")
    assert p.url.split("#")[0].endswith("train_iteration_000004.html")
    # at the end (groups laid out as they come near grow the page: scroll until it stays)
    wait_js(
        watched,
        "(scrollTo(0, document.documentElement.scrollHeight), "
        "innerHeight + scrollY >= document.documentElement.scrollHeight - 2)",
    )
    p.dispatch_event("body", "keydown", {"key": "ArrowDown", "repeat": True})  # the key held down
    p.wait_for_timeout(200)
    assert p.url.split("#")[0].endswith("train_iteration_000004.html")
    p.keyboard.press("ArrowDown")  # a new press at the end
    p.wait_for_url("**/train_iteration_000006.html*")
    p.keyboard.press("k")
    p.wait_for_url("**/train_iteration_000004.html*")
    p.keyboard.press("ArrowUp")  # at the top already
    p.wait_for_url("**/train_iteration_000002.html*")
    p.set_viewport_size({"width": 1280, "height": 900})
    clean(watched, site)


def test_keys_ignored_while_typing(sites, watched):
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    watched.page.keyboard.press("/")
    assert watched.page.evaluate("document.activeElement.id") == "f-q"
    watched.page.keyboard.type("jkmnp?c")
    watched.page.wait_for_timeout(250)
    assert watched.page.url.endswith("train_iteration_000002.html" + hash_of(watched))
    assert "md-on" not in watched.page.get_attribute("body", "class")
    assert not watched.page.is_visible("#rg-help")
    watched.page.keyboard.press("Escape")
    assert watched.page.evaluate("document.activeElement.id") != "f-q"
    clean(watched, site)


def test_single_key_shortcuts_can_be_turned_off_and_stay_off(sites, watched):
    """WCAG 2.1.4: the help dialog's switch turns every single-key shortcut off (the arrows
    then scroll), on this page and on the next one, and back on; Esc still closes."""
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    p = watched.page
    p.click("#b-help")
    wait_js(watched, "document.getElementById('rg-help').open")
    assert p.is_checked("#f-keys")
    p.uncheck("#f-keys")
    p.keyboard.press("Escape")
    wait_js(watched, "!document.getElementById('rg-help').open")
    for key in ("j", "ArrowDown", "n", "c", "m", "?"):
        p.keyboard.press(key)
    p.wait_for_timeout(250)
    assert p.url.split("#")[0].endswith("train_iteration_000002.html")
    assert not p.evaluate("document.getElementById('rg-help').open")
    # off in every page of the browser: another iteration's keys too
    open_page(watched, site, "train_iteration_000004.html")
    p.keyboard.press("k")
    p.wait_for_timeout(250)
    assert p.url.split("#")[0].endswith("train_iteration_000004.html")
    p.click("#b-help")
    wait_js(watched, "document.getElementById('rg-help').open")
    assert not p.is_checked("#f-keys")
    p.check("#f-keys")
    p.keyboard.press("Escape")
    wait_js(watched, "!document.getElementById('rg-help').open")
    p.keyboard.press("j")
    p.wait_for_url("**/train_iteration_000006.html*")
    clean(watched, site)


def test_a_control_tabbed_to_is_not_left_under_the_sticky_bars(sites, watched):
    """Going back through the page with Shift+Tab, the browser scrolls a control into view
    only as far as the viewport's edge, under the sticky header and filter bar: the focused
    element's scroll-margin keeps it below them (28 of 119 stops were covered before)."""
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    p = watched.page
    p.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    covered, stops = [], 0
    for _ in range(100):
        p.keyboard.press("Shift+Tab")
        where = p.evaluate(
            """() => { const e = document.activeElement; if (!e || e === document.body) return null;
            const bar = document.getElementById('rg-bar'), top = document.querySelector('header.top');
            if (bar.contains(e) || top.contains(e)) return 'bars';
            const line = Math.max(bar.getBoundingClientRect().bottom, top.getBoundingClientRect().bottom);
            return e.getBoundingClientRect().bottom <= line + 1 ? (e.id || e.className || e.tagName) : 'ok'; }"""
        )
        if where is not None:
            stops += 1
            if where not in ("ok", "bars"):
                covered.append(where)
    assert stops > 50 and len(covered) <= 5, covered


def test_j_from_a_sub_page_goes_to_the_next_iteration(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001_p2.html")
    watched.page.keyboard.press("j")
    watched.page.wait_for_url("**/train_iteration_000002.html*")
    watched.page.keyboard.press("k")
    watched.page.wait_for_url("**/train_iteration_000001.html*")
    clean(watched, site)


def test_n_p_move_between_groups(sites, watched):
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    watched.page.keyboard.press("n")
    assert hash_of(watched) == "#g0"
    watched.page.keyboard.press("n")
    assert hash_of(watched) == "#g1"
    top = watched.page.eval_on_selector("#g1", "e => e.getBoundingClientRect().top")
    assert 0 <= top < 300  # below the sticky bars, at the top of the view
    assert watched.page.evaluate("document.activeElement.closest('section.group').id") == "g1"
    watched.page.keyboard.press("p")
    assert hash_of(watched) == "#g0"
    clean(watched, site)


def test_n_past_the_last_group_goes_to_the_next_page_of_the_update(sites, watched):
    """An update of three pages (7 groups, 3 a page): n past page 1's last group opens
    page 2 with the filters, p before page 2's first group goes back to page 1, and the
    last page's last group says it is the update's last."""
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html", "#trained=1")
    for g in ("g0", "g2"):  # group 1 trained nothing: filtered out
        watched.page.keyboard.press("n")
        assert hash_of(watched) == f"#trained=1&at={g}"
    watched.page.keyboard.press("n")
    # page 2 opens at its first group the filters leave, marked, not at its top
    watched.page.wait_for_url("**/train_iteration_000001_p2.html#*")
    wait_js(watched, "location.hash === '#trained=1&at=g3'")
    wait_js(watched, "document.getElementById('g3').classList.contains('target-hl')")
    wait_js(watched, "document.getElementById('rg-bar') && !document.getElementById('rg-bar').hidden")
    watched.page.keyboard.press("p")
    # back at page 1's last group the filters leave (g2: group 1 trained nothing), not its top
    watched.page.wait_for_url("**/train_iteration_000001.html#*")
    wait_js(watched, "location.hash === '#trained=1&at=g2'")
    top = watched.page.evaluate("document.getElementById('g2').getBoundingClientRect().top")
    margin = watched.page.evaluate("parseFloat(getComputedStyle(document.getElementById('g2')).scrollMarginTop)")
    assert abs(top - margin) <= 3 or watched.page.evaluate(
        "window.scrollY + innerHeight >= document.documentElement.scrollHeight - 2"
    )  # at the top, or as near as the page's end lets it
    open_page(watched, site, "train_iteration_000001_p3.html")
    watched.page.keyboard.press("n")
    watched.page.keyboard.press("n")
    wait_js(watched, "document.getElementById('rg-toast').textContent.length > 0")
    assert watched.page.inner_text("#rg-toast") == "last group of this iteration"
    # the toast is drawn, and read out by a live region that was in the page from the start
    wait_js(watched, "document.getElementById('rg-said').textContent === 'last group of this iteration'")
    assert watched.page.get_attribute("#rg-toast", "aria-hidden") == "true"
    # no group of page 1 matches ("echo" is group 4's word, on page 2): n goes on to page 2
    open_page(watched, site, "train_iteration_000001.html", "#q=echo")
    watched.page.keyboard.press("n")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html#*")
    wait_js(watched, "location.hash === '#q=echo&at=g4'")
    # past the last match, n passes the pages without one, comes back to where the reader
    # was and says there is none
    with watched.page.expect_navigation():
        watched.page.keyboard.press("n")
    said = "document.getElementById('rg-toast').textContent"
    wait_js(watched, f"location.pathname.endsWith('_p2.html') && {said}.length > 0", navigating=True)
    assert watched.page.inner_text("#rg-toast") == "no later group of this iteration matches the filters"
    wait_js(watched, "location.hash === '#q=echo&at=g4'")  # the search kept, "none=" dropped
    # p before the first match does the same the other way
    with watched.page.expect_navigation():
        watched.page.keyboard.press("p")
    wait_js(watched, f"location.pathname.endsWith('_p2.html') && {said}.indexOf('earlier') >= 0", navigating=True)
    assert watched.page.url.split("#")[0].endswith("train_iteration_000001_p2.html")
    open_page(watched, site, "train_iteration_000001_p3.html", "#q=echo")  # the last page: said
    watched.page.keyboard.press("n")
    wait_js(watched, "document.getElementById('rg-toast').textContent.length > 0")
    assert watched.page.inner_text("#rg-toast") == "no group of this page matches the filters"
    clean(watched, site)


def test_help_overlay(sites, watched):
    site = sites["agent"]
    open_page(watched, site, "train_iteration_000003.html")
    watched.page.keyboard.press("?")
    assert watched.page.is_visible("#rg-help")
    assert "next / previous group" in watched.page.inner_text("#rg-help")
    watched.page.keyboard.press("j")  # keys do nothing behind a dialog
    assert "000003" in watched.page.url
    watched.page.keyboard.press("Escape")
    assert not watched.page.is_visible("#rg-help")
    watched.page.click("#b-help")
    assert watched.page.is_visible("#rg-help")
    watched.page.click("#rg-help .dlg-close")
    assert not watched.page.is_visible("#rg-help")
    clean(watched, site)


# ------------------------------------------------------------------ filters
def test_search_filters_highlights_and_counts(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    # update 1 has 3 pages: the counts and the empty result say they are of this page
    assert count_text(watched) == "12 of 12 shown on this page"
    watched.page.fill("#f-q", "CHARLIE 1")
    wait_js(watched, "location.hash.indexOf('q=') >= 0")
    assert shown(watched) == ["g2-m1"]
    assert shown(watched, "section.group") == ["g2"]
    assert seen_text(watched.page, "#g2 mark.hl").lower() == "charlie 1"
    assert "1 of 12 shown" in count_text(watched)
    assert seen_text(watched.page, "#g2 .shown-count") == "· 1 shown"
    assert hash_of(watched) == "#q=CHARLIE%201"
    # the prompt text matches too: the whole group shows
    watched.page.fill("#f-q", "question 2:")
    wait_js(watched, "location.hash.indexOf('question') >= 0")
    assert shown(watched) == ["g2-m0", "g2-m1", "g2-m3", "g2-m2"]
    watched.page.fill("#f-q", "nothing matches this")
    watched.page.wait_for_selector("#rg-none", state="visible")
    assert watched.page.inner_text("#rg-none").startswith("No member of this page matches the filters")
    watched.page.click("#b-clear2")
    assert count_text(watched) == "12 of 12 shown on this page" and hash_of(watched) == ""
    assert watched.page.query_selector("mark.hl") is None
    clean(watched, site)


def test_esc_leaves_the_search_box_and_keeps_the_search(sites, watched):
    """The help's "Esc: leave the search box": the search, its count and its address stay
    (a search box's own Esc would empty it), and j then carries it to the next update."""
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    watched.page.keyboard.press("/")
    watched.page.keyboard.type("CHARLIE 1")
    wait_js(watched, "location.hash.indexOf('q=') >= 0")
    watched.page.keyboard.press("Escape")
    assert watched.page.input_value("#f-q") == "CHARLIE 1"
    assert watched.page.evaluate("document.activeElement.id") != "f-q"
    assert hash_of(watched) == "#q=CHARLIE%201" and shown(watched) == ["g2-m1"]
    watched.page.keyboard.press("j")
    watched.page.wait_for_url("**/train_iteration_000002.html#q=CHARLIE%201")
    clean(watched, site)


def test_reward_bounds_exclude_null_rewards(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    assert "g2-m2" in shown(watched)
    watched.page.fill("#f-rmin", "-100")
    wait_js(watched, "location.hash.indexOf('rmin=-100') >= 0")
    assert "g2-m2" not in shown(watched) and len(shown(watched)) == 11
    watched.page.fill("#f-rmin", "0.5")
    watched.page.fill("#f-rmax", "0.9")
    wait_js(watched, "location.hash.indexOf('rmax=0.9') >= 0")
    assert shown(watched) == ["g0-m1", "g2-m1"]
    clean(watched, site)


def test_skip_trained_flag_dup_filters(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    watched.page.select_option("#f-skip", "zero_signal")
    assert sorted(shown(watched)) == ["g1-m0", "g1-m1", "g1-m2", "g1-m3"]
    assert "skip=zero_signal" in hash_of(watched)
    watched.page.select_option("#f-skip", "")
    watched.page.check("#f-flag")
    assert sorted(shown(watched)) == ["g1-m0", "g1-m1", "g1-m2", "g1-m3", "g2-m3"]
    watched.page.uncheck("#f-flag")
    watched.page.check("#f-dup")
    assert sorted(shown(watched)) == ["g1-m0", "g1-m1"]
    watched.page.uncheck("#f-dup")
    # equal rewards: the groups with no learning signal (g1, also said zero_signal by the trainer)
    flat = watched.page.eval_on_selector_all(
        "section.group",
        "gs => gs.filter(g => g.dataset.spread !== '' && Number(g.dataset.spread) === 0).map(g => g.id)",
    )
    assert flat == ["g1"]
    watched.page.check("#f-flat")
    assert sorted(shown(watched)) == ["g1-m0", "g1-m1", "g1-m2", "g1-m3"]
    assert "flat=1" in hash_of(watched)
    watched.page.uncheck("#f-flat")
    watched.page.check("#f-trained")
    ids = shown(watched)
    assert len(ids) == 7 and not [i for i in ids if i.startswith("g1-")] and "g2-m3" not in ids
    assert "trained=1" in hash_of(watched)
    watched.page.select_option("#f-badge", "truncated")
    assert shown(watched) == [] and watched.page.is_visible("#rg-none")
    assert watched.page.inner_text("#b-clear") == "clear (2)"
    clean(watched, site)


def test_tool_and_tool_error_filters(sites, watched):
    site = sites["agent"]
    pages = sorted(p.name for p in site.glob("train_iteration_*.html"))
    found = False
    for name in pages:
        open_page(watched, site, name)
        errors = watched.page.eval_on_selector_all(
            ".member[data-toolerrors]:not([data-toolerrors='0'])", "e => e.map(x => x.id)"
        )
        if not errors:
            continue
        found = True
        watched.page.check("#f-errors")
        assert sorted(shown(watched)) == sorted(errors)
        assert "errors=1" in hash_of(watched)
        watched.page.uncheck("#f-errors")
        tool = watched.page.eval_on_selector("#f-tool option:nth-child(2)", "o => o.value")
        with_tool = watched.page.eval_on_selector_all(
            ".member", "(els, t) => els.filter(e => e.dataset.tools.split('\\n').includes(t)).map(e => e.id)", tool
        )
        watched.page.select_option("#f-tool", tool)
        assert sorted(shown(watched)) == sorted(with_tool)
        break
    assert found
    clean(watched, site)


def test_tool_and_badge_names_with_spaces_or_bars_filter(tmp_path, watched):
    """Tool names and skip reasons come from the logs: a tool "get weather" and a skip reason
    "a|b" filter their members (data-tools was split on spaces, data-badges on "|")."""
    from ..obs import Obs

    def member(m: int, tool: str, **extra):
        call = {"id": "c", "name": tool, "arguments": {}}
        return a.rollout(
            1,
            0,
            m,
            None,
            prompt="s:t",
            messages=[{"role": "assistant", "content": "", "tool_calls": [call]}],
            prefix=True,
            **extra,
        )

    a = Obs().run("agent_grpo")
    a.batch(
        a.prompt("s:t", "q"),
        member(0, "get weather"),
        member(1, "get weather", skip_reason="a|b"),
        member(2, "weather"),
        member(3, "get", skip_reason="a"),
    )
    a.batch(a.update(1))
    site = tmp_path / "site"
    build(str(a.write(tmp_path / "src")), site)
    open_page(watched, site, "train_iteration_000001.html")
    page = watched.page
    for tool, want in (("get weather", ["g0-m0", "g0-m1"]), ("weather", ["g0-m2"]), ("get", ["g0-m3"])):
        page.select_option("#f-tool", tool)
        assert sorted(shown(watched)) == want, tool
    page.select_option("#f-tool", "")
    badges = page.eval_on_selector_all("#f-badge option", "os => os.map(o => o.value)")
    bar = next(b for b in badges if "a|b" in b)
    page.select_option("#f-badge", bar)
    assert shown(watched) == ["g0-m1"]
    clean(watched, site)


def test_a_right_to_left_override_in_a_text_cannot_turn_our_words_around(tmp_path, watched):
    """U+202E in a tool name or a text's first line: the name's element is isolated, and a
    fold's summary (ours: preview, then "(N lines)") drops the bidi controls, while the text
    itself keeps every character."""
    from ..obs import one_conversation

    rlo = "evil \u202eRTL"
    body = rlo + "\n" + "\n".join(f"line {i}" for i in range(30))
    a = one_conversation(
        [{"role": "assistant", "content": body, "tool_calls": [{"id": "c", "name": rlo, "arguments": {}}]}]
    )
    site = tmp_path / "site"
    build(str(a.write(tmp_path / "src")), site)
    open_page(watched, site, "train_iteration_000001.html")
    page = watched.page
    name = page.locator("#g0-m0 .callname").first
    assert name.text_content() == rlo
    assert name.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
    summary = page.locator("#g0-m0 details.fold summary").first.text_content()
    assert summary.startswith("evil RTL") and "\u202e" not in summary and summary.endswith("lines)")
    assert page.locator("#g0-m0 details.fold pre.text").first.text_content() == body
    clean(watched, site)


def test_the_index_link_comes_back_to_the_updates_row(sites, watched):
    """ "all updates" (observe; "all iterations" for tinker) opens the index at this update's
    row of its table, not at the top of a long run's index."""
    site = sites["recurring"]
    page_name = sorted(site.glob("train_iteration_*.html"))[-1].name
    number = int(page_name.split("_")[-1].split(".")[0])
    open_page(watched, site, page_name)
    link = watched.page.locator("nav.pager a", has_text="all updates")
    assert link.get_attribute("href") == f"index.html#u{number}"
    link.click()
    watched.page.wait_for_load_state("load")
    in_view = (
        "(() => { const r = document.getElementById('u" + str(number) + "'); if (!r) return false;"
        " const b = r.getBoundingClientRect(); return b.top >= 0 && b.bottom <= window.innerHeight; })()"
    )
    wait_js(watched, in_view)
    assert watched.page.evaluate("window.scrollY") > 0
    open_page(watched, sites["arith_sync"], "train_iteration_000001.html")
    assert watched.page.locator("nav.pager a", has_text="all iterations").get_attribute("href") == "index.html#u1"
    assert not watched.page_errors and not watched.console_errors


def test_a_link_to_a_group_lands_on_it_when_the_groups_above_are_taller_than_guessed(tmp_path, watched):
    """Groups off screen are laid out only near the viewport (content-visibility), at a guessed
    height: after the first scroll to #gN the groups above it render taller, and the target
    slid off screen (4 of 99 links in an audit). The page scrolls again until it stays put."""
    from ..obs import Obs

    long = " ".join(f"word{i}" for i in range(900))  # wraps to many lines: taller than guessed
    o = Obs().run()
    o.batch(
        *[o.prompt(f"p:{g}", f"question {g}") for g in range(12)],
        *[o.rollout(1, g, m, f"{long} {g}-{m}", prompt=f"p:{g}") for g in range(12) for m in range(4)],
    )
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    for target in ("g9", "g11", "g6-m3"):
        watched.goto(file_url(site / "train_iteration_000001.html") + "#" + target)
        wait_js(watched, "document.getElementById('rg-bar') && !document.getElementById('rg-bar').hidden")
        watched.page.wait_for_timeout(1500)
        top = watched.page.evaluate(f"document.getElementById('{target}').getBoundingClientRect().top")
        margin = watched.page.evaluate(
            f"parseFloat(getComputedStyle(document.getElementById('{target}')).scrollMarginTop) || 0"
        )
        assert abs(top - margin) <= 3, (target, top, margin)
    assert not watched.page_errors and not watched.console_errors


def test_filters_kept_across_iterations_and_in_links(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    watched.page.check("#f-trained")
    watched.page.fill("#f-q", "answer")
    wait_js(watched, "location.hash.indexOf('q=answer') >= 0")
    assert watched.page.get_attribute("#nav-next", "href") == "train_iteration_000002.html#q=answer&trained=1"
    assert watched.page.get_attribute(".subpages a", "href") == "train_iteration_000001_p2.html#q=answer&trained=1"
    assert (
        watched.page.get_attribute("#g0 .others a", "href")
        == "train_iteration_000002.html#prompt=p%3A0&q=answer&trained=1"
    )
    watched.page.evaluate("document.activeElement.blur()")
    watched.page.keyboard.press("j")
    watched.page.wait_for_url("**/train_iteration_000002.html#q=answer&trained=1")
    wait_js(watched, "document.getElementById('f-q').value === 'answer'")
    assert watched.page.is_checked("#f-trained")
    clean(watched, site)


def test_url_state_reopens_the_same_view(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html", "#q=answer&rmin=0.5&sort=mean&compact=1")
    assert watched.page.input_value("#f-q") == "answer"
    assert watched.page.input_value("#f-rmin") == "0.5"
    assert watched.page.input_value("#f-sort") == "mean"
    assert watched.page.is_checked("#f-compact")
    assert "compact-on" in watched.page.get_attribute("body", "class")
    assert not watched.page.is_visible("#g0-m1 .member-body") and watched.page.is_visible("#g0-m1 p.compact")
    assert seen_text(watched.page, "#g0-m1 p.compact") == "Answer alpha 1: the result is 1."
    assert all(
        float(r) >= 0.5
        for r in watched.page.eval_on_selector_all(
            ".member", "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.reward)"
        )
    )
    clean(watched, site)


def test_compact_lines_and_summaries_cut_between_whole_characters(tmp_path, watched):
    """A compact line (reportgen.js: a text's first line and its last, 80 characters each, or
    160 for a line alone; 60 and 100 for a trace's thought and answer) and a fold's summary
    (text.fold_summary, 160) keep a letter with its accents and an emoji with its skin tone."""
    from ..obs import Obs

    # each first line has a cluster at 79-80 (the compact line's cut) and at 159-160 (the summary's)
    decomposed = "x" * 79 + "e\u0301" + "x" * 78 + "e\u0301" + "tc" + "\nmore" * 30
    emoji = "y" * 79 + "\U0001f44d\U0001f3fd" + "y" * 78 + "\U0001f44d\U0001f3fd" + "z" + "\nmore" * 30
    trace = "<think>\n" + "t" * 59 + "a\u0308\u0301b\n" + "step\n" * 30 + "</think>\n" + "w" * 99 + "o\u0302k"
    alone = "v" * 159 + "e\u0301" + "tc"  # one line: cut at 160
    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), *[o.rollout(1, 0, i, t) for i, t in enumerate([decomposed, emoji, trace, alone])])
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    open_page(watched, site, "train_iteration_000001.html", "#compact=1")
    lines = [seen_text(watched.page, f"#g0-m{i} p.compact") for i in range(4)]
    assert lines[0] == "x" * 79 + "\u2026 \u22ef more"  # first line and last
    assert lines[1] == "y" * 79 + "\u2026 \u22ef more"
    assert lines[2] == "<think> " + "t" * 59 + " \u2026 </think> " + "w" * 99 + "\u2026"
    assert lines[3] == "v" * 159 + "\u2026"
    summaries = [seen_text(watched.page, f"#g0-m{i} details.fold summary") for i in range(3)]
    assert summaries[0].startswith("x" * 79 + "e\u0301" + "x" * 78 + "\u2026 (")
    assert summaries[1].startswith("y" * 79 + "\U0001f44d\U0001f3fd" + "y" * 78 + "\u2026 (")
    assert summaries[2].startswith(lines[2] + " (")  # a trace's compact line is its summary's
    assert not watched.page_errors and not watched.console_errors


def test_compact_line_of_a_reasoning_trace_is_its_first_thought_and_answer(tmp_path, watched):
    """Compact mode writes a completion's first line; for a reasoning trace, whose first line
    is <think>, its first thought and the answer after </think>, as the fold's summary."""
    from ..obs import Obs

    steps = "\n".join(f"Step {i}: <carry> & check" for i in range(30))
    o = Obs().run()
    o.batch(
        o.prompt("p:0", "q"),
        o.rollout(1, 0, 0, f"\n<think>\n\n{steps}\n</think>\n\nThe answer is <b>42</b>.\n"),
        o.rollout(1, 0, 1, "<think>\nstill thinking\n"),
        o.rollout(1, 0, 2, "  first line\nsecond"),
    )
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    open_page(watched, site, "train_iteration_000001.html", "#compact=1")
    assert (
        seen_text(watched.page, "#g0-m0 p.compact")
        == "<think> Step 0: <carry> & check \u2026 </think> The answer is <b>42</b>."
    )
    assert seen_text(watched.page, "#g0-m1 p.compact") == "<think> \u22ef still thinking"
    assert seen_text(watched.page, "#g0-m2 p.compact") == "first line \u22ef second"
    summary = seen_text(watched.page, "#g0-m0 details.fold summary")
    assert summary.startswith(seen_text(watched.page, "#g0-m0 p.compact") + " (")
    assert not watched.page_errors and not watched.console_errors


def test_texts_that_start_with_a_line_break_keep_it(tmp_path, watched):
    """HTML drops one line break right after <pre>: a completion, message, tool argument or
    judge explanation that starts with one must still start with it in the DOM Chromium builds
    (completions that open with a newline are common)."""
    from ..obs import Obs, one_conversation

    texts = ["\nA", "\n\nB", "\r\nC", "\n", "\rD"]
    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), *[o.rollout(1, 0, m, t) for m, t in enumerate(texts)])
    o.batch(o.update(1))
    a = one_conversation(
        [
            {"role": "assistant", "content": "\nM", "tool_calls": [{"id": "c", "name": "f", "arguments": "\nARG"}]},
            {"role": "tool", "content": "\nRESULT", "tool_call_id": "c", "name": "f"},
            {"role": "assistant", "content": "\n\nFINAL"},
        ],
        step_rewards=[],
        terminal_reward_raw=1.0,
        judge_explanation="\nJUDGE",
        metadata=None,
    )

    def dom(page_sel: str) -> list[str]:
        return watched.page.eval_on_selector_all(page_sel, "els => els.map(e => e.textContent)")

    site = tmp_path / "grpo"
    build(str(o.write(tmp_path / "src")), site)
    open_page(watched, site, "train_iteration_000001.html")
    want = [t.replace("\r\n", "\n").replace("\r", "\n") for t in texts]
    assert [dom(f"#g0-m{m} .member-body pre.text")[0] for m in range(len(texts))] == want
    site = tmp_path / "agent"
    build(str(a.write(tmp_path / "asrc")), site)
    open_page(watched, site, "train_iteration_000001.html")
    got = dom("#g0-m0 .member-body pre")
    for t in ("\nM", "\nARG", "\nRESULT", "\n\nFINAL", "\nJUDGE"):
        assert t in got, (t, got)
    assert not watched.page_errors and not watched.console_errors


# ------------------------------------------------------------------ sort and collapse
def test_sort_groups(sites, watched):
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    order = lambda: watched.page.eval_on_selector_all("section.group", "e => e.map(x => x.dataset.group)")  # noqa: E731
    values = lambda k: watched.page.eval_on_selector_all(  # noqa: E731
        "section.group", "(e, k) => e.map(x => parseFloat(x.dataset[k]))", k
    )
    original = order()
    watched.page.select_option("#f-sort", "mean")
    means = values("mean")
    assert means == sorted(means, reverse=True) and "sort=mean" in hash_of(watched)
    watched.page.select_option("#f-sort", "spread")
    spreads = values("spread")
    assert spreads == sorted(spreads, reverse=True)
    watched.page.select_option("#f-sort", "id")
    assert order() == original and hash_of(watched) == ""
    clean(watched, site)


def test_expand_and_collapse_all(sites, watched):
    site = sites["grpo"]
    open_page(watched, site, "train_iteration_000002.html")
    watched.page.click("#b-collapse")
    assert not watched.page.is_visible("#g0 .group-body") and watched.page.is_visible("#g0 .group-head")
    assert watched.page.get_attribute("#g0 .tog", "aria-expanded") == "false"
    watched.page.click("#g1 .tog")
    assert watched.page.is_visible("#g1 .group-body")
    watched.page.click("#b-expand")
    assert watched.page.is_visible("#g0 .group-body")
    # a link to a member of a collapsed group opens it
    watched.page.click("#b-collapse")
    watched.goto(file_url(site / "train_iteration_000002.html") + "#g2-m1")
    watched.page.wait_for_selector("#g2-m1", state="visible")
    clean(watched, site)


# ------------------------------------------------------------------ compare
def test_compare_on_one_page_with_word_diff(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    watched.page.check("#g0-m2 .pick input")
    watched.page.check("#g0-m3 .pick input")
    assert watched.page.get_attribute("#g0-m2 .pick input", "aria-label") == "compare group 0, member 2"
    assert watched.page.is_visible("#rg-tray")
    watched.page.keyboard.press("c")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    body = watched.page.inner_text("#rg-cmp-body")
    assert "update 1 · group 0 · #2" in body and "update 1 · group 0 · #3" in body
    assert "Completions side by side" in body
    dels = watched.page.eval_on_selector_all("#rg-cmp-body del", "e => e.map(x => x.textContent.trim())")
    ins = watched.page.eval_on_selector_all("#rg-cmp-body ins", "e => e.map(x => x.textContent.trim())")
    assert dels == ["2", "2"] and ins == ["3", "3"]
    assert hash_of(watched) == "#compare=1:0:2,1:0:3"
    watched.page.keyboard.press("Escape")
    # the dialog's close event, which clears the address, is a task of its own: wait for it
    wait_js(watched, "location.hash === ''")
    assert not watched.page.is_visible("#rg-compare")
    clean(watched, site)


def test_stored_picks_are_taken_as_a_frame_answer_is(sites, watched):
    """Every file:// page of the browser shares the storage the picks are kept in: a pick
    written by another page (a javascript: link, a link out of its folder, fields of other
    types) is cleaned as cleanPick cleans a frame's answer before the tray shows it."""
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    folder = file_url(site) + "/"
    bad = [
        {"cid": "1:0:2", "dir": folder, "href": "javascript:alert(1)", "group": {"x": 1}, "member": "2",
         "stats": [1, "ok"], "badges": "trained", "turns": [{"i": "0"}], "reward": "1"},
        {"cid": "1:0:3", "dir": folder, "href": "file:///etc/passwd", "member": "3"},
        {"cid": "<img>", "dir": folder, "href": folder + "train_iteration_000001.html#g0-m1"},
    ]  # fmt: skip
    watched.page.evaluate("p => localStorage.setItem('reportgen.compare.v1', JSON.stringify(p))", bad)
    watched.page.reload()
    wait_js(watched, "document.getElementById('rg-tray') && !document.getElementById('rg-tray').hidden")
    hrefs = watched.page.eval_on_selector_all("#rg-tray a[href]", "e => e.map(a => a.href)")
    assert hrefs == [folder + "train_iteration_000001.html"] * 2, hrefs  # the cid's page, in its folder
    assert watched.page.inner_text("#b-compare") == "compare (2/2)"  # the bad cid is dropped
    watched.page.evaluate("localStorage.removeItem('reportgen.compare.v1')")
    assert not watched.dialogs and not watched.page_errors


def test_compare_across_iterations_and_turn_table(sites, watched):
    site = sites["agent"]
    open_page(watched, site, "train_iteration_000003.html")
    watched.page.check("#g0-m1 .pick input")
    watched.page.keyboard.press("j")
    watched.page.wait_for_url("**/train_iteration_000004.html*")
    watched.page.wait_for_selector("#rg-tray .tray-pick")
    watched.page.check("#g0-m2 .pick input")
    watched.page.click(".tray-go")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    text = watched.page.inner_text("#rg-cmp-body")
    assert "update 3 · group 0 · #1" in text and "update 4 · group 0 · #2" in text
    assert "Final answers, word diff" in text and "Turn by turn" in text
    assert watched.page.eval_on_selector_all("table.turns tbody tr", "e => e.length") >= 2
    assert watched.page.query_selector("#rg-cmp-body ins") is not None
    assert hash_of(watched) == "#compare=3:0:1,4:0:2"
    # the shared link reopens the comparison (both members were picked in this browser)
    watched.page.keyboard.press("Escape")
    watched.goto(file_url(site / "train_iteration_000004.html") + "#compare=3:0:1,4:0:2")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    clean(watched, site)


def test_compare_link_from_another_browser_loads_the_missing_member(sites, watched):
    """A shared #compare= link naming a member of another page that this browser never
    picked: that page is read in a hidden frame and the member comes back by postMessage
    (file:// pages share no storage); a member on another sub-page of its iteration is found
    through the table of all groups."""
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000002.html", "#compare=1:0:0,2:0:0")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    wait_js(watched, "document.querySelector('#rg-cmp-body del') !== null", timeout=20)
    body = watched.page.inner_text("#rg-cmp-body")
    assert "not loaded" not in body and "loading" not in body
    assert "update 1 · group 0 · #0" in body and "update 2 · group 0 · #0" in body
    # its link leads to the member on its page, in this folder
    href = watched.page.get_attribute("#rg-cmp-body .cmp-side:first-child h3 a", "href")
    assert href == file_url(site / "train_iteration_000001.html") + "#g0-m0"
    assert watched.page.query_selector("iframe") is None  # the frame is gone once it answered
    # group 6 of update 1 is on its third page
    open_page(watched, site, "train_iteration_000002.html", "#compare=1:6:1,2:0:0")
    wait_js(watched, "document.querySelector('#rg-cmp-body del, #rg-cmp-body ins') !== null", timeout=20)
    assert "update 1 · group 6 · #1" in watched.page.inner_text("#rg-cmp-body")
    # a query in the address (which may hold a "/") does not move the pages' folder
    open_page(watched, site, "train_iteration_000002.html", "?v=1/2#compare=1:0:0,2:0:0")
    wait_js(watched, "document.querySelector('#rg-cmp-body del') !== null", timeout=20)
    assert "update 1 · group 0 · #0" in watched.page.inner_text("#rg-cmp-body")
    # a member no page has: said, with the link to open its page
    open_page(watched, site, "train_iteration_000002.html", "#compare=1:9:0,2:0:0")
    wait_js(watched, "document.getElementById('rg-cmp-body').textContent.indexOf('not loaded') >= 0", timeout=20)
    watched.page.click("#rg-cmp-body .missing a")
    watched.page.wait_for_url("**/train_iteration_000001.html#compare=1:9:0,2:0:0")
    # a member of this page's own update, which has no other page, is not looked for again
    open_page(watched, site, "train_iteration_000002.html", "#compare=2:0:9,2:0:0")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    assert "not loaded" in watched.page.inner_text("#rg-cmp-body")
    assert watched.page.query_selector("iframe") is None
    clean(watched, site)


def test_summary_diff_when_both_have_one(tmp_path, watched):
    from ..obs import Obs

    o = Obs().run("agent_grpo")
    o.batch(
        o.prompt("s:t", "q"),
        *[
            o.rollout(
                1,
                0,
                m,
                None,
                prompt="s:t",
                messages=[{"role": "assistant", "content": f"final {m}"}],
                prefix=True,
                step_rewards=[],
                terminal_reward_raw=1.0,
                judge_explanation=None,
                metadata={"summary": f"the agent said {m}"},
            )
            for m in range(2)
        ],
    )
    o.batch(o.update(1))
    out = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), out)
    open_page(watched, out, "train_iteration_000001.html")
    watched.page.check("#g0-m0 .pick input")
    watched.page.check("#g0-m1 .pick input")
    watched.page.keyboard.press("c")
    text = watched.page.inner_text("#rg-cmp-body")
    assert "metadata.summary, word diff" in text
    clean(watched, out)


# ------------------------------------------------------------------ markdown and math
def test_markdown_math_and_code(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    assert watched.page.is_visible("#g0-m0 pre.text") and not watched.page.is_visible("#g0-m0 .md")
    watched.page.keyboard.press("m")
    watched.page.wait_for_selector("#g0-m0 .md .katex")
    assert not watched.page.is_visible("#g0-m0 pre.text") and watched.page.is_visible("#g0-m0 .md")
    assert watched.page.eval_on_selector_all("#g0-m0 .md .katex", "e => e.length") == 2
    assert watched.page.query_selector("#g0-m0 .md .katex .boxed, #g0-m0 .md .katex .fbox") is not None
    assert seen_text(watched.page, "#g0-m0 .md .hl-k, #g0-m0 .md .hl-c") != ""
    assert seen_text(watched.page, "#g0-m0 .md strong") == "bold"
    assert watched.page.query_selector("#g0-m0 .md img") is None
    assert watched.page.eval_on_selector_all("a[href^='javascript']", "e => e.length") == 0
    assert "md=1" in hash_of(watched)
    # remembered: a page opened later comes up in markdown
    watched.goto(file_url(site / "train_iteration_000002.html"))
    wait_js(watched, "document.body.classList.contains('md-on')")
    assert watched.page.is_checked("#f-md")
    watched.page.click("#f-md")
    assert "md-on" not in watched.page.get_attribute("body", "class")
    clean(watched, site)


def test_search_marks_a_match_across_markdown_and_highlighted_code(sites, watched):
    """In the markdown view a match may span several text nodes (emphasis, the highlighter's
    spans): each node gets its part of the mark, and together they read as the match."""
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html", "#md=1")
    wait_js(watched, "document.body.classList.contains('md-on')")
    watched.page.fill("#f-q", "print('hi')  # c")
    wait_js(watched, "location.hash.indexOf('q=') >= 0")
    assert shown(watched) == ["g0-m0"]
    in_code = watched.page.eval_on_selector_all("#g0-m0 .md pre mark.hl", "ms => ms.map(m => m.textContent)")
    assert len(in_code) > 1 and "".join(in_code) == "print('hi')  # c"
    # and the exact copy, one text node, one mark
    assert watched.page.eval_on_selector_all("#g0-m0 pre.text mark.hl", "ms => ms.map(m => m.textContent)") == [
        "print('hi')  # c"
    ]
    watched.page.fill("#f-q", "bold and")
    wait_js(watched, "location.hash.indexOf('bold') >= 0")
    # the exact text has "**bold** and": no match there; the markdown's strong and its text do
    assert shown(watched) == []
    watched.page.fill("#f-q", "")
    wait_js(watched, "location.hash.indexOf('q=') < 0")
    assert watched.page.query_selector("mark.hl") is None
    assert seen_text(watched.page, "#g0-m0 .md strong") == "bold"
    clean(watched, site)


# ------------------------------------------------------------------ anchors, prompt links, pager
def test_anchor_and_copy_link(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html", "#g2-m1")
    top = watched.page.eval_on_selector("#g2-m1", "e => e.getBoundingClientRect().top")
    assert 0 <= top < 400
    watched.page.fill("#f-q", "answer")
    wait_js(watched, "location.hash.indexOf('q=answer') >= 0")
    watched.page.click("#g0-m1 .copylink")
    assert hash_of(watched) == "#q=answer&at=g0-m1"
    # the toast says so once the clipboard answers (a promise): wait for it, then read it once
    wait_js(watched, "document.getElementById('rg-toast').textContent.length > 0")
    toast = watched.page.inner_text("#rg-toast")
    assert "link copied" in toast or "copy this link" in toast
    # a fresh load of the copied address (the same address again would only be a fragment
    # navigation, which neither reloads nor scrolls): the filter comes back, the member in view
    watched.goto("about:blank")
    watched.goto(file_url(site / "train_iteration_000001.html") + "#q=answer&at=g0-m1")
    wait_js(watched, "document.getElementById('f-q').value === 'answer'")
    wait_js(watched, "(t => t >= 0 && t < 400)(document.getElementById('g0-m1').getBoundingClientRect().top)")
    # a linked member stays visible even when the filters would hide it
    watched.goto(file_url(site / "train_iteration_000001.html") + "#q=zzz&at=g0-m1")
    watched.page.wait_for_selector("#g0-m1", state="visible")
    clean(watched, site)


def test_mini_bars_lead_to_their_member(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000002.html")
    bars = watched.page.eval_on_selector_all("#g1 svg.minibars g.bar", "e => e.map(x => x.dataset.target)")
    assert len(bars) == 4 and all(b.startswith("g1-m") for b in bars)
    watched.page.click(f"#g1 svg.minibars g.bar[data-target='{bars[-1]}'] rect.hit")
    assert hash_of(watched) == "#" + bars[-1]
    assert watched.page.get_attribute(f"#{bars[-1]}", "class").endswith("target-hl")
    clean(watched, site)


def test_bars_are_drawn_from_the_numbers(sites, watched):
    """The mini-bars and advantage bars are drawn by reportgen.js; the HTML carries the numbers."""
    site = sites["grpo"]
    page = "train_iteration_000002.html"  # the demo logs texts every second update
    html = (site / page).read_text()
    assert "svg" not in html.split('<section class="groups"', 1)[1]  # the page itself has only the numbers
    open_page(watched, site, page)
    got = watched.page.evaluate(
        """() => [...document.querySelectorAll('section.group')].map(g => ({
          bars: g.querySelectorAll('svg.minibars g.bar').length,
          rewards: g.querySelectorAll('article.member[data-reward]:not([data-reward=""])').length,
          label: (g.querySelector('svg.minibars') || {getAttribute: () => ''}).getAttribute('aria-label'),
          shown: [...g.querySelectorAll('.member-head .reward')].map(r => r.textContent).join(', '),
          advbars: g.querySelectorAll('svg.advbar').length,
          advs: [...g.querySelectorAll('article.member[data-adv]')].filter(m => parseFloat(m.dataset.adv) !== 0).length,
          widths: [...g.querySelectorAll('svg.advbar rect.pos, svg.advbar rect.neg')].map(r => parseFloat(r.getAttribute('width')))
        }))"""
    )
    assert got and all(g["bars"] == g["rewards"] > 0 for g in got)
    assert all(g["label"] == "rewards of the members: " + g["shown"] for g in got)
    with_adv = [g for g in got if g["advs"]]
    assert with_adv and all(g["advbars"] >= g["advs"] for g in with_adv)
    assert all(max(g["widths"]) == 50 for g in with_adv)  # scaled to the group's largest advantage
    clean(watched, site)


def test_prompt_hash_highlights_the_group(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    watched.page.click("#g0 .others a")
    watched.page.wait_for_url("**/train_iteration_000002.html#prompt=p%3A0")
    watched.page.wait_for_selector("#g0.target-hl")
    assert watched.page.get_attribute("#g0", "data-prompt") == "p:0"
    clean(watched, site)


def test_pager_and_seeking_a_group_on_another_sub_page(sites, watched):
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001.html")
    assert shown(watched, "section.group") == ["g0", "g1", "g2"]
    watched.page.click(".subpages a >> text=page 2")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html*")
    assert shown(watched, "section.group") == ["g3", "g4", "g5"]
    # a link to group 6 (page 3) or to prompt p:4 (page 2) opened on page 1 finds its page
    watched.goto(file_url(site / "train_iteration_000001.html") + "#g6-m0")
    watched.page.wait_for_url("**/train_iteration_000001_p3.html#g6-m0")
    watched.page.wait_for_selector("#g6-m0")
    # the member opened says whose it is, its group's header being far above it
    wait_js(
        watched, "getComputedStyle(document.getElementById('g6-m0'), '::before').content === '\"group 6, member 0\"'"
    )
    watched.goto(file_url(site / "train_iteration_000001.html") + "#prompt=p%3A4")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html#prompt=p*4")
    watched.page.wait_for_selector("#g4.target-hl")
    # a group that no page has: said on the page it was asked of, not after a walk to the last
    watched.goto(file_url(site / "train_iteration_000001_p2.html") + "#g9")
    wait_js(watched, "document.getElementById('rg-toast').textContent.length > 0")
    assert watched.page.inner_text("#rg-toast") == "g9 is not on any page of this iteration"
    assert watched.page.url.endswith("train_iteration_000001_p2.html#g9")
    # a member its group lacks: said on the group's page, not after a walk to the last page
    watched.goto(file_url(site / "train_iteration_000001.html") + "#g4-m99")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html#g4-m99")
    wait_js(watched, "document.getElementById('rg-toast').textContent.length > 0")
    assert watched.page.inner_text("#rg-toast") == "g4-m99 is not in g4"
    watched.page.wait_for_timeout(300)
    assert watched.page.url.endswith("train_iteration_000001_p2.html#g4-m99")
    clean(watched, site)


def test_the_table_of_all_groups_follows_the_sort_and_its_links_keep_it(sites, watched):
    """Sorting by mean reward on page 2 orders page 2's cards and the table of all 7 groups;
    a row's link opens the group on its own page with the sort kept."""
    site = sites["syn"]
    open_page(watched, site, "train_iteration_000001_p2.html")
    here = watched.page.eval_on_selector_all("#all-groups tr.here a", "as => as.map(a => a.textContent)")
    assert here == ["group 3", "group 4", "group 5"]
    watched.page.select_option("#f-sort", "mean")
    rows = watched.page.eval_on_selector_all("#all-groups tbody tr a", "as => as.map(a => a.textContent)")
    # group 1 (mean 1), group 2 (0.5), then the others at 0.375 in group order
    assert rows == ["group 1", "group 2", "group 0", "group 3", "group 4", "group 5", "group 6"]
    watched.page.click("#all-groups > summary")
    watched.page.click("#all-groups tbody a >> text=group 2")
    watched.page.wait_for_url("**/train_iteration_000001.html#at=g2&sort=mean")
    watched.page.wait_for_selector("#g2.target-hl")
    assert shown(watched, "section.group") == ["g1", "g2", "g0"]
    watched.page.select_option("#f-sort", "id")
    rows = watched.page.eval_on_selector_all("#all-groups tbody tr a", "as => as.map(a => a.textContent)")
    assert rows == [f"group {g}" for g in range(7)]
    # "the table of all groups" (from the other pages of a huge update) opens it
    watched.goto(file_url(site / "train_iteration_000001_p3.html") + "#all-groups")
    watched.page.wait_for_selector("#all-groups[open]")
    clean(watched, site)


def test_the_link_to_the_table_on_the_first_page_keeps_the_sort(tmp_path, watched, monkeypatch):
    """Past OVERVIEW_EVERYWHERE groups only the first page has the table; the other pages'
    link to it takes the sort along, and the table opens, its rows in that order, and stays
    open when the reader comes back to the page."""
    import reportgen.site as site_mod

    monkeypatch.setattr(site_mod, "OVERVIEW_EVERYWHERE", 5)
    site = build_synthetic(tmp_path)
    open_page(watched, site, "train_iteration_000001_p2.html", "#sort=mean")
    assert watched.page.get_attribute("a.to-overview", "href") == "train_iteration_000001.html#at=all-groups&sort=mean"
    watched.page.click("a.to-overview")
    watched.page.wait_for_url("**/train_iteration_000001.html#at=all-groups&sort=mean")
    watched.page.wait_for_selector("#all-groups[open]")
    rows = watched.page.eval_on_selector_all("#all-groups tbody tr a", "as => as.map(a => a.textContent)")
    assert rows[:2] == ["group 1", "group 2"]
    watched.page.click("#all-groups tbody a >> text=group 6")
    watched.page.wait_for_url("**/train_iteration_000001_p3.html*")
    watched.page.go_back()
    watched.page.wait_for_url("**/train_iteration_000001.html*")
    watched.page.wait_for_selector("#all-groups[open]")
    clean(watched, site)


def test_a_ppo_batch_larger_than_a_page_is_paged_and_links_find_its_members(tmp_path, watched, monkeypatch):
    """A flat PPO batch of more than ROLLOUTS_PER_PAGE rollouts gets several pages, by reward;
    the pager moves between them and a link to a member on the last one, opened on the first,
    finds it."""
    import reportgen.views.iteration as iteration_view

    from ..obs import Obs

    monkeypatch.setattr(iteration_view, "ROLLOUTS_PER_PAGE", 4)
    o = Obs().run("ppo")
    o.batch(
        *[o.prompt(f"p:{m}", f"question {m}") for m in range(10)],
        *[o.rollout(1, None, m, f"answer {m}", prompt=f"p:{m}", reward=m / 10) for m in range(10)],
    )
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    open_page(watched, site, "train_iteration_000001.html")
    assert shown(watched) == ["g-0-m9", "g-0-m8", "g-0-m7", "g-0-m6"]
    assert "rollouts 1–4 of 10 (by reward)" in watched.page.inner_text("nav.subpages")
    watched.page.click(".subpages a >> text=page 2")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html*")
    assert shown(watched) == ["g-0-m5", "g-0-m4", "g-0-m3", "g-0-m2"]
    watched.goto(file_url(site / "train_iteration_000001.html") + "#g-0-m0")
    watched.page.wait_for_url("**/train_iteration_000001_p3.html#g-0-m0")
    watched.page.wait_for_selector("#g-0-m0.target-hl")
    # a PPO member has no group: the tray names the update and the member, no "group -"
    watched.page.check("#g-0-m0 .pick input")
    watched.page.check("#g-0-m1 .pick input")
    tray = watched.page.inner_text("#rg-tray")
    assert "update 1 · #0" in tray and "update 1 · #1" in tray and "group" not in tray, tray
    watched.page.evaluate("localStorage.removeItem('reportgen.compare.v1')")
    clean(watched, site)


def test_printing_a_tinker_page_unfolds_its_timing_and_logtree(sites, watched):
    """The timing table and the raw logtree start folded on screen; on paper they print whole."""
    site = sites["arith_sync"]
    open_page(watched, site, "train_iteration_000000.html")
    p = watched.page
    folded = "Array.from(document.querySelectorAll('section.timing details, section.logtree details')).map(d => d.open)"
    before = p.evaluate(folded)
    assert before and not any(before)  # both sections there, folded
    p.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert all(p.evaluate(folded))
    p.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert not any(p.evaluate(folded))
    clean(watched, site)


def test_printing_shows_every_text_in_full(tmp_path, browser):
    """On paper, texts over 20 lines print whole (not their one-line fold summaries), and so
    do groups collapsed on screen and members the screen has not laid out yet, with
    JavaScript on or off."""
    from ..obs import Obs

    o = Obs().run("grpo", group_size=2)
    o.batch(
        *[o.prompt(f"p:{g}", f"question {g}") for g in range(6)],
        *[
            o.rollout(
                1, g, m, "\n".join(f"line {i} of g{g}m{m}" for i in range(40)) + f"\nEND g{g}m{m}", prompt=f"p:{g}"
            )
            for g in range(6)
            for m in range(2)
        ],
    )
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    for js in (True, False):
        ctx = browser.new_context(java_script_enabled=js, viewport={"width": 1000, "height": 500})
        page = ctx.new_page()
        page.goto(file_url(site / "train_iteration_000001.html"))
        assert page.evaluate("document.querySelectorAll('details.fold').length") == 12
        if js:  # the first group collapsed on screen
            page.click("#g0 .tog")
            assert page.evaluate("document.getElementById('g0').classList.contains('collapsed')")
        page.emulate_media(media="print")
        if js:
            page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        text = page.evaluate("document.body.innerText")
        assert all(f"END g{g}m{m}" in text for g in range(6) for m in range(2)), js
        if js:
            page.evaluate("window.dispatchEvent(new Event('afterprint'))")
            assert page.evaluate("document.querySelectorAll('details.fold[open]').length") == 0
        ctx.close()


def test_readable_without_javascript(sites, browser):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(file_url(sites["syn"] / "train_iteration_000001.html"))
    assert not page.is_visible("#rg-bar")
    assert page.is_visible("#g0-m0 pre.text") and not page.is_visible("#g0-m0 .md")
    assert "Answer bravo 2" in seen_text(page, "#g1") or "same answer" in seen_text(page, "#g1")
    ctx.close()


def test_groups_off_screen_wait_to_be_rendered_yet_find_links_and_print_reach_them(tmp_path, watched):
    """Groups carry content-visibility: auto (a long page's first frame comes sooner): one far
    below is not rendered on opening, yet find in page reaches its text, a link to one of its
    members shows that member, and a printout holds every group."""
    from ..obs import Obs

    o = Obs().run()
    o.batch(
        *[o.prompt(f"p:{g}", f"question {g}") for g in range(12)],
        *[
            o.rollout(1, g, m, f"group {g} member {m}\n" + "line\n" * 30, prompt=f"p:{g}")
            for g in range(12)
            for m in range(4)
        ],
    )
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    page = watched.page
    open_page(watched, site, "train_iteration_000001.html")
    assert page.evaluate("() => getComputedStyle(document.getElementById('g11')).contentVisibility") == "auto"
    # far below the viewport: laid out as a placeholder, its members not drawn
    assert "member 3" not in page.evaluate("() => document.getElementById('g11').innerText")
    assert "group 11 member 3" in page.text_content("#g11-m3")  # the text is in the page all the same
    assert page.evaluate("() => window.find('group 11 member 3')")
    # find selects the text inside the member; where it lands on screen is not asserted: the
    # groups it scrolls past are drawn meanwhile and move it (790 px in a 720 px view once)
    assert page.evaluate("() => document.getElementById('g11-m3').contains(window.getSelection().anchorNode)")
    assert "group 11 member 3" in seen_text(page, "#g11-m3")
    open_page(watched, site, "train_iteration_000001.html", "#g10-m2")
    page.wait_for_function("() => document.getElementById('g10-m2').classList.contains('target-hl')")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    box = page.evaluate(
        "() => { const r = document.getElementById('g10-m2').getBoundingClientRect(); return [r.top, r.height]; }"
    )
    assert 0 <= box[0] < page.viewport_size["height"] and box[1] > 0
    assert "group 10 member 2" in page.evaluate("() => document.getElementById('g10-m2').innerText")
    pdf = page.pdf()
    # every group printed: a page of 12 groups of 4 folded members fills several sheets
    assert pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages") >= 6
    clean(watched, site)


def test_dark_theme_contrast(sites, browser):
    # the main text keeps a WCAG AA contrast in both themes
    for scheme in ("light", "dark"):
        ctx = browser.new_context(color_scheme=scheme)
        page = ctx.new_page()
        page.goto(file_url(sites["agent"] / "train_iteration_000003.html"))
        ratio = page.evaluate(
            """() => {
              const lum = c => { const v = c.match(/\\d+/g).slice(0, 3).map(x => x / 255)
                .map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));
                return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
              const worst = [];
              for (const sel of ['.msg pre.text', '.member-head .tok', '.group-head .stat', '.chip.good', '.chip.bad']) {
                const e = document.querySelector(sel); if (!e) continue;
                let b = e, bg = 'rgba(0, 0, 0, 0)';
                while (b && (bg = getComputedStyle(b).backgroundColor) === 'rgba(0, 0, 0, 0)') b = b.parentElement;
                if (!b) bg = getComputedStyle(document.documentElement).backgroundColor;
                const a = lum(getComputedStyle(e).color), c = lum(bg);
                worst.push((Math.max(a, c) + 0.05) / (Math.min(a, c) + 0.05));
              }
              return Math.min(...worst);
            }"""
        )
        assert ratio >= 4.5, (scheme, ratio)
        ctx.close()


def test_tinker_page_filters_and_compare(tmp_path, watched):
    out = tmp_path / "tinker"
    build(str(FIXTURES / "tinker" / "calc_agent_multiturn"), out)
    open_page(watched, out, "train_iteration_000000.html")
    total = len(shown(watched))
    correct = watched.page.eval_on_selector_all(
        ".member", "els => els.filter(e => e.dataset.badges.split('\\n').includes('correct')).map(e => e.id)"
    )
    assert 0 < len(correct) < total
    watched.page.select_option("#f-badge", "correct")
    assert sorted(shown(watched)) == sorted(correct)
    assert "badge=correct" in hash_of(watched)
    watched.page.select_option("#f-badge", "")
    watched.page.fill("#f-rmin", "1")
    wait_js(watched, "location.hash.indexOf('rmin=1') >= 0")
    assert all(
        float(r) >= 1
        for r in watched.page.eval_on_selector_all(
            ".member", "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.reward)"
        )
    )
    first, second = shown(watched)[:2] if len(shown(watched)) > 1 else (correct[0], correct[-1])
    watched.page.fill("#f-rmin", "")
    watched.page.check(f"#{first} .pick input")
    watched.page.check(f"#{second} .pick input")
    watched.page.keyboard.press("c")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    assert "Turn by turn" in watched.page.inner_text("#rg-cmp-body")
    watched.page.keyboard.press("Escape")
    watched.page.keyboard.press("j")
    clean(watched, out)


def test_same_prompt_links_filled_in_from_prompts_js(sites, watched):
    """The HTML links the 10 nearest earlier updates and counts the others; the script adds
    the 10 nearest later ones, and an "all N" button lists every update, each link
    carrying the filters."""
    site = sites["recurring"]  # p:0 in every one of updates 1..24
    page = watched.page

    def links() -> list[str]:
        return page.evaluate("[...document.querySelectorAll('#g0 p.others a.xlink')].map(a => a.textContent)")

    open_page(watched, site, "train_iteration_000012.html")
    wait_js(watched, "document.querySelectorAll('#g0 p.others a.xlink').length === 20")
    assert links() == [str(k) for k in range(2, 12)] + [str(k) for k in range(13, 23)]
    assert page.text_content("#g0 .ocut") == "1 earlier, "
    assert seen_text(page, "#g0 .oall") == "all 23"
    page.fill("#f-q", "answer")
    wait_js(watched, "location.hash.indexOf('q=answer') >= 0")
    page.click("#g0 .oall")
    wait_js(watched, "!document.querySelector('#g0 .oall')")
    assert links() == [str(k) for k in range(1, 25) if k != 12]
    assert seen_text(page, "#g0 p.others") == "same prompt in updates: " + ", ".join(
        str(k) for k in range(1, 25) if k != 12
    )
    assert page.get_attribute("#g0 .others a", "href") == "train_iteration_000001.html#prompt=p%3A0&q=answer"
    clean(watched, site)
    # few enough to list: no button, nothing counted
    open_page(watched, site, "train_iteration_000003.html")
    wait_js(watched, "document.querySelectorAll('#g0 p.others a.xlink').length === 12")
    assert links() == ["1", "2"] + [str(k) for k in range(4, 14)]
    assert page.query_selector("#g0 .ocut") is None
    assert seen_text(page, "#g0 .oall") == "all 23"  # 11 later ones: the farthest wait for the button
    clean(watched, site)
    open_page(watched, site, "train_iteration_000020.html")
    wait_js(watched, "document.querySelectorAll('#g0 p.others a.xlink').length === 14")
    assert links() == [str(k) for k in range(10, 20)] + ["21", "22", "23", "24"]
    clean(watched, site)
    # after a resume that wrote p:0 again (another question), a page links its own
    # segment's updates only: 14 is segment 0's last, 15..24 the resumed segment's
    resumed = sites["resumed"]
    watched.requests.clear()
    open_page(watched, resumed, "train_iteration_000012.html")
    wait_js(watched, "document.querySelectorAll('#g0 p.others a.xlink').length === 12")
    assert links() == [str(k) for k in range(2, 12)] + ["13", "14"]
    assert seen_text(watched.page, "#g0 .oall") == "all 13"
    clean(watched, resumed)
    open_page(watched, resumed, "train_iteration_000017.html")
    wait_js(watched, "document.querySelectorAll('#g0 p.others a.xlink').length === 9")
    assert links() == ["15", "16"] + [str(k) for k in range(18, 25)]
    assert page.query_selector("#g0 .oall") is None
    clean(watched, resumed)
    # a prompt sampled in a few updates: every link at load, no button
    syn = sites["syn"]
    watched.requests.clear()  # the recurring site's requests were checked above
    open_page(watched, syn, "train_iteration_000001.html")
    wait_js(watched, "document.querySelectorAll('#g0 p.others a.xlink').length === 2")
    assert links() == ["2", "3"] and page.query_selector(".oall") is None
    clean(watched, syn)


def test_links_to_negative_ids_land_on_their_cards(tmp_path, watched):
    """Ids the writer made negative (group -1, member -3) and a batch without a group on the
    same page: a hash names them with ``n`` for the minus sign, and the script takes each as
    an anchor (here, from the other page of the update, with filters) and as a member of a
    comparison."""
    from ..test_observe_site import negative_ids_run

    site = tmp_path / "site"
    build(str(negative_ids_run(tmp_path / "src")), site, BuildOptions(groups_per_page=2))
    open_page(watched, site, "train_iteration_000001.html", "#gn1-mn3")
    watched.page.wait_for_selector("#gn1-mn3.target-hl")
    # from the other page: the table of all groups sends the anchor to the group's page
    for anchor in ("gn1-mn3", "gn1", "g-1-mn2"):
        watched.goto(file_url(site / "train_iteration_000001_p2.html") + "#" + anchor)
        watched.page.wait_for_url(f"**/train_iteration_000001.html#{anchor}")
        watched.page.wait_for_selector(f"#{anchor}.target-hl")
    watched.goto("about:blank")  # a new document: a hash changed in place does not seek other pages
    watched.goto(file_url(site / "train_iteration_000001.html") + "#g0-mn1")
    watched.page.wait_for_url("**/train_iteration_000001_p2.html#g0-mn1")
    watched.page.wait_for_selector("#g0-mn1.target-hl")
    # with filters, the anchor travels as at=
    open_page(watched, site, "train_iteration_000001.html", "#q=neg&at=gn1-mn3")
    watched.page.wait_for_selector("#gn1-mn3.target-hl")
    assert shown(watched) == ["gn1-mn3"]
    # a click on a member's reward bar names it in the address
    open_page(watched, site, "train_iteration_000001.html")
    watched.page.click("#gn1 svg.minibars g.bar[data-target='gn1-mn3']")
    wait_js(watched, "location.hash === '#gn1-mn3'")
    # a comparison of member -3 of group -1 and member -2 of no group
    open_page(watched, site, "train_iteration_000001.html", "#compare=1:-1:-3,1:-:-2")
    watched.page.wait_for_selector("#rg-compare", state="visible")
    body = watched.page.inner_text("#rg-cmp-body")
    assert "not loaded" not in body
    assert "group -1 · #-3" in body and "#-2" in body
    clean(watched, site)
