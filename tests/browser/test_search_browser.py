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
    # below the sticky bars, which the search in the address made taller
    wait_js(
        watched,
        "document.getElementById('g2-m1').getBoundingClientRect().top >= "
        "document.getElementById('rg-bar').getBoundingClientRect().bottom - 1",
    )
    clean(watched, site)


def test_esc_leaves_the_box_and_keeps_the_search(site, watched):
    """Esc leaves the search box; a search box's own Esc would empty it and its results."""
    watched.goto(file_url(site / "search.html") + "#q=ANSWER%201")
    wait_js(watched, "/2 of 2 searched$/.test(document.getElementById('rs-status').textContent)")
    watched.page.focus("#rs-q")
    watched.page.keyboard.press("Escape")
    assert watched.page.input_value("#rs-q") == "ANSWER 1"
    assert watched.page.evaluate("document.activeElement.id") != "rs-q"
    assert watched.page.evaluate("location.hash") == "#q=ANSWER%201"
    assert len(results(watched)) == 2
    assert watched.console_errors == [] and watched.page_errors == []


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


def test_past_a_thousand_texts_each_update_says_how_many_more(tmp_path, watched):
    """1,200 texts match: the first 1,000 are listed, then the update that holds the rest says
    how many and links its page with the search; rewards read as on the pages; the live
    region speaks the end only."""
    from ..obs import Obs

    o = Obs().run("grpo", group_size=50)
    for n in (1, 2):
        o.batch(o.prompt(f"p:{n}", "q"))
        o.batch(
            *[
                o.rollout(n, g, m, f"answer {n}.{g}.{m}", prompt=f"p:{n}", reward=m / 8)
                for g in range(12)
                for m in range(50)
            ]
        )
        o.batch(o.update(n))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site, BuildOptions(groups_per_page=50))
    watched.goto(file_url(site / "search.html") + "#q=answer")
    wait_js(watched, "/2 of 2 searched/.test(document.getElementById('rs-status').textContent)")
    wait_js(watched, "!/…$/.test(document.getElementById('rs-status').textContent)")
    assert watched.page.inner_text("#rs-status") == (
        "1,200 matches in 1,200 texts, 2 of 2 searched (the first 1,000 listed, then a line per update)"
    )
    assert watched.page.eval_on_selector_all(".rs-item", "e => e.length") == 1000
    rest = watched.page.query_selector(".rs-rest a")
    assert rest.inner_text() == "200 more texts match here: open the update with this search"
    assert rest.get_attribute("href") == "train_iteration_000002.html#q=answer"
    assert watched.page.inner_text("#rs-said") == watched.page.inner_text("#rs-status")
    rewards = watched.page.eval_on_selector_all(".rs-reward", "e => e.slice(0, 3).map(x => x.textContent)")
    assert rewards == [" reward 0", " reward 0.125", " reward 0.250"]
    # "/" goes to the search box
    watched.page.click("h1")
    watched.page.keyboard.press("/")
    assert watched.page.evaluate("document.activeElement.id") == "rs-q"
    # back from a result: the same list, where the reader left it
    watched.page.evaluate("window.scrollTo(0, 3000)")
    watched.page.wait_for_timeout(300)
    y = watched.page.evaluate("window.scrollY")
    link = watched.page.eval_on_selector_all(
        ".rs-item > a", "as => as.find(a => a.getBoundingClientRect().top > 100).getAttribute('href')"
    )
    watched.page.click(f'.rs-item > a[href="{link}"]')
    watched.page.wait_for_url("**/train_iteration_*")
    watched.page.go_back()
    wait_js(watched, "!/…$/.test(document.getElementById('rs-status').textContent)")
    wait_js(watched, f"Math.abs(window.scrollY - {y}) < 5")
    clean(watched, site)


def test_a_tinker_conversation_no_member_said_is_found_on_its_page(watched, tmp_path):
    fixture = Path(__file__).parent.parent / "fixtures" / "tinker" / "arith_sync"
    site = tmp_path / "tk"
    build(str(fixture), site)
    open_page(watched, site, "eval_arith-hard_v2_x_iteration_000000.html")
    watched.page.fill("#f-q", "la réponse")
    wait_js(watched, "location.hash.indexOf('q=') >= 0")
    assert watched.page.is_visible("#g0") and not watched.page.is_visible("#rg-none")
    assert watched.page.inner_text("#g0 .convs mark.hl").lower() == "la réponse"
    clean(watched, site)


def one_update(tmp_path: Path, *completions: str) -> Path:
    """The site of a run of one update whose group of one prompt has these completions."""
    from ..obs import Obs

    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), *[o.rollout(1, 0, m, text) for m, text in enumerate(completions)])
    o.batch(o.update(1))
    site = tmp_path / "site"
    build(str(o.write(tmp_path / "src")), site)
    return site


def test_a_final_sigma_is_found_by_any_sigma(tmp_path, watched):
    """The text "ΟΔΟΣ" lowers to "οδος" (a final sigma): "Σ" and "οδοσ" find it, on search.html and
    with a page's own search."""
    site = one_update(tmp_path, "ΜΙΑ ΟΔΟΣ", "other")
    for q in ("%CE%A3", "%CE%BF%CE%B4%CE%BF%CF%83"):  # Σ, then οδοσ
        watched.goto(file_url(site / "search.html") + "#q=" + q)
        wait_js(watched, "/1 of 1 searched$/.test(document.getElementById('rs-status').textContent)")
        assert results(watched) == ["Update 1: group 0 · #0"], q
    open_page(watched, site, "train_iteration_000001.html", "#q=%CE%BF%CE%B4%CE%BF%CF%83")
    assert watched.page.inner_text("#rg-count").startswith("1 of 2 shown")
    assert watched.page.inner_text("mark.hl") == "ΟΔΟΣ"
    clean(watched, site)


# "é" as one character and as "e" + U+0301: canonically equivalent, so each finds the other
E_ONE, E_TWO = "\u00e9", "e\u0301"


def marks(w, where: str = "") -> list[str]:
    return w.page.eval_on_selector_all(f"{where} mark.hl", "ms => ms.map(m => m.textContent)")


def test_a_composed_query_finds_a_decomposed_text_and_the_reverse(tmp_path, watched):
    """Both searches put the query and the texts in NFC, and mark the text's own characters:
    in member 0 a decomposed "é" before the match moves every later character by one."""
    site = one_update(
        tmp_path,
        f"Caf{E_TWO} au lait, puis caf{E_TWO} noir",
        f"un caf{E_ONE} noir",
        "cafe noir, sans accent",
    )
    for query, case in (("caf%C3%A9%20noir", ""), ("cafe%CC%81%20noir", ""), ("cafe%CC%81%20noir", "&case=1")):
        watched.goto(file_url(site / "search.html") + "#q=" + query + case)
        wait_js(watched, "/1 of 1 searched$/.test(document.getElementById('rs-status').textContent)")
        assert results(watched) == ["Update 1: group 0 · #0", "Update 1: group 0 · #1"], query + case
        assert marks(watched) == [f"caf{E_TWO} noir", f"caf{E_ONE} noir"], query + case
        open_page(watched, site, "train_iteration_000001.html", "#q=" + query + case)
        assert watched.page.inner_text("#rg-count").startswith("2 of 3 shown"), query + case
        assert marks(watched, "pre.text") == [f"caf{E_TWO} noir", f"caf{E_ONE} noir"], query + case
    # without match case, "CAFÉ" finds the decomposed "Cafe\u0301" at the start too
    open_page(watched, site, "train_iteration_000001.html", "#q=CAF%C3%89")
    assert marks(watched, "pre.text") == [f"Caf{E_TWO}", f"caf{E_TWO}", f"caf{E_ONE}"]
    clean(watched, site)


def test_invisible_characters_are_looked_through(tmp_path, watched):
    """A word split by a zero width space, a soft hyphen or a word joiner (a model hiding it
    from a filter) is found by the word, on search.html and by the page's own search, and
    the mark covers the invisible characters too."""
    hidden = "pass\u200bwo\u00adrd"
    site = one_update(tmp_path, f"my {hidden} is secret", "no pass word here", "Pass\u2060Word twice: password")
    watched.goto(file_url(site / "search.html") + "#q=password")
    wait_js(watched, "/1 of 1 searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == ["Update 1: group 0 · #0", "Update 1: group 0 · #2"]
    assert marks(watched) == [hidden, "Pass\u2060Word"]
    open_page(watched, site, "train_iteration_000001.html", "#q=password")
    assert watched.page.inner_text("#rg-count").startswith("2 of 3 shown")
    assert marks(watched, "pre.text") == [hidden, "Pass\u2060Word", "password"]
    clean(watched, site)


def test_match_case_goes_from_search_html_to_the_page(tmp_path, watched):
    """A result of a search that matches case opens the page with its search matching case too:
    the page shows and marks what search.html listed, and says so in its "match case" box."""
    site = one_update(tmp_path, "The Answer", "the answer")
    watched.goto(file_url(site / "search.html") + "#q=Answer&case=1")
    wait_js(watched, "/1 of 1 searched$/.test(document.getElementById('rs-status').textContent)")
    assert results(watched) == ["Update 1: group 0 · #0"]
    assert watched.page.get_attribute(".rs-item > a", "href") == "train_iteration_000001.html#q=Answer&case=1&at=g0-m0"
    watched.page.click(".rs-item > a")
    watched.page.wait_for_url("**/train_iteration_000001.html#q=Answer&case=1&at=g0-m0")
    wait_js(watched, "document.getElementById('rg-bar') && !document.getElementById('rg-bar').hidden")
    box = watched.page.get_by_label("match case")
    assert box.is_checked()
    assert watched.page.inner_text("#rg-count").startswith("1 of 2 shown")
    assert marks(watched, "pre.text") == ["Answer"]
    # the page's link to search.html takes the case back
    assert watched.page.get_attribute("a.to-search", "href") == "search.html#q=Answer&case=1"
    # unticked (by keyboard, as a reader would): case is ignored again, and the address says so
    box.focus()
    watched.page.keyboard.press("Space")
    wait_js(watched, "location.hash.indexOf('case=') < 0")
    assert watched.page.inner_text("#rg-count").startswith("2 of 2 shown")
    assert marks(watched, "pre.text") == ["Answer", "answer"]
    # ticked again, it goes into the address; clearing the search keeps the box as it is
    box.check()
    wait_js(watched, "location.hash.indexOf('case=1') >= 0")
    assert marks(watched, "pre.text") == ["Answer"]
    watched.page.click("#b-clear")
    assert box.is_checked() and watched.page.evaluate("location.hash").find("case") < 0
    # a page opened without the flag ignores case, as before
    open_page(watched, site, "train_iteration_000001.html", "#q=Answer")
    assert not watched.page.is_checked("#f-case")
    assert watched.page.inner_text("#rg-count").startswith("2 of 2 shown")
    clean(watched, site)


def test_match_js_maps_every_match_back_onto_the_text(site, watched):
    """match.js on random texts of marks (in both orders), compositions, sigmas, "İ", Hangul
    jamo and astral characters: a match's span of the text folds to hold the query, spans are
    in order, and every match of the fold is in one; a character and its canonical
    decomposition fold alike, with or without case."""
    watched.goto(file_url(site / "search.html"))
    wait_js(watched, "!!window.RG_MATCH")
    bad = watched.page.evaluate(
        """() => {
      var M = window.RG_MATCH, bad = [];
      var pool = ["a", "e", "E", " ", "\\n", "x", "q", "i", "I", "J", "K", "\\u0301", "\\u0300", "\\u0323",
        "\\u0303", "\\u030c", "\\u0345", "\\u0344", "\\u00e9", "\\u00c9", "\\u0130", "\\u01f0", "\\u03a3", "\\u03c2",
        "\\u03c3", "\\u039f", "\\u00c5", "\\u212b", "\\u2126", "\\u212a", "\\u1100", "\\u1161", "\\u11a8", "\\uac00",
        "\\uac01", "\\u0f71", "\\u0f72", "\\u0f73", "\\u0915", "\\u093c", "\\u0958", "\\u1fb3", "\\ufb01",
        "\\ud83d\\ude00", "\\ud834\\udd57", "\\ud834\\udd65", "\\ud800", "\\u200b", "\\u00ad", "\\u200d",
        "\\ufeff", "\\u2060"];
      var seed = 7;
      function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }
      for (var t = 0; t < 20000 && bad.length < 5; t++) {
        var s = "", n = 1 + rnd(30);
        for (var i = 0; i < n; i++) s += pool[rnd(pool.length)];
        var cs = rnd(2) === 1, a = rnd(s.length), b = a + 1 + rnd(s.length - a);
        var needle = M.fold(s.slice(a, b), cs);
        if (!needle) continue;
        var hay = M.fold(s, cs), count = 0, k = hay.indexOf(needle);
        while (k >= 0) { count++; k = hay.indexOf(needle, k + needle.length); }
        var sp = M.spans(s, needle, cs, 1e9), prev = 0;
        if (sp.length > count || (count > 0) !== (sp.length > 0)) bad.push(["count", s, needle, cs]);
        sp.forEach(function (p) {
          if (!(p[0] >= prev && p[1] > p[0] && p[1] <= s.length)) bad.push(["order", s, needle, cs, p]);
          else if (M.fold(s.slice(p[0], p[1]), cs).indexOf(needle) < 0) bad.push(["span", s, needle, cs, p]);
          prev = p[1];
        });
      }
      for (var cp = 0; cp < 0x110000 && bad.length < 10; cp++) {
        if (cp >= 0xd800 && cp < 0xe000) continue;
        var c = String.fromCodePoint(cp), d = c.normalize("NFD");
        [false, true].forEach(function (cs) {
          if (M.fold("x" + c + "y", cs) !== M.fold("x" + d + "y", cs)) bad.push(["equivalent", cp.toString(16), cs]);
        });
      }
      return bad;
    }"""
    )
    assert bad == []
    clean(watched, site)


# a snippet's text is whole characters: no lone surrogate, no mark first, and (checked in the
# page, where a lone surrogate is still itself) the text it was cut from goes on with a new one
SNIPPETS_WHOLE = """() => [...document.querySelectorAll('.rs-snip')].map(p => {
  const t = p.textContent.replace(/^…/, '').replace(/…$/, '');
  return {t: t, lone: /[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]/.test(t),
    markFirst: /^\\p{M}/u.test(t)};
})"""


def test_a_snippet_is_cut_between_whole_characters(tmp_path, watched):
    """search.html shows 80 units of text on each side of a match: where that fell between "e"
    and its U+0301 the snippet began with the bare accent, and inside an emoji it ended with
    half of it. Each edge now moves, toward the match, to the next cut between clusters."""
    before = "x" * 9 + "e\u0301" * 50 + "y"  # the window's start (80 units before) falls on an accent
    after = " " + "\U0001f44d" * 50  # and its end inside a pair
    site = one_update(
        tmp_path,
        before + "NEEDLE" + after,
        "x" * 10 + "e\u0301" * 50 + "NEEDLE" + " " + "\u00e9" + "\U0001f44d" * 50,
    )
    watched.goto(file_url(site / "search.html") + "#q=needle")
    wait_js(watched, "/1 of 1 searched$/.test(document.getElementById('rs-status').textContent)")
    got = watched.page.evaluate(SNIPPETS_WHOLE)
    assert len(got) == 2
    assert all(not g["lone"] and not g["markFirst"] for g in got), got
    # member 0: the window's start was an accent: the snippet starts at the next "e"; its end
    # was inside the 40th emoji: the snippet ends after the 39th
    assert got[0]["t"] == "e\u0301" * 39 + "yNEEDLE " + "\U0001f44d" * 39
    # member 1: both edges fell between whole characters: as they were
    assert got[1]["t"] == "e\u0301" * 40 + "NEEDLE \u00e9" + "\U0001f44d" * 39
    clean(watched, site)


@pytest.mark.parametrize("segmenter", [True, False])
def test_match_js_excerpts_cut_between_clusters(site, browser, segmenter):
    """RG_MATCH.excerpt on random texts of letters, marks, emoji with skin tones, zero width
    joiner sequences, flags and Hangul jamo: each edge lies between the match and the window's
    own edge, is a grapheme boundary of the whole text (Intl.Segmenter), or without
    Intl.Segmenter (the fallback) at least no cut inside a pair, before a mark or after a
    joiner."""
    context = browser.new_context()
    page = context.new_page()
    if not segmenter:
        page.add_init_script("delete Intl.Segmenter")
    page.goto(file_url(site / "search.html"))
    page.wait_for_load_state("load")
    bad = page.evaluate(
        """() => {
      var M = window.RG_MATCH, bad = [], seg = !!(window.Intl && Intl.Segmenter);
      var G = seg ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
      var pool = ["a", "e", " ", "\\n", "x", "\\u0301", "\\u0323", "\\u0915", "\\u094d", "\\u093f", "\\u00e9",
        "\\ud83d\\udc4d", "\\ud83c\\udffd", "\\u200d", "\\ud83d\\udc69", "\\ud83c\\uddeb", "\\ud83c\\uddf7",
        "\\u1100", "\\u1161", "\\u11a8", "\\ufe0f", "\\ud834\\udd65", "\\u200c", "\\ud800"];
      var seed = 11;
      function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }
      function cuts(s) {
        var b = new Set([0, s.length]);
        for (const g of G.segment(s)) b.add(g.index);
        return b;
      }
      for (var t = 0; t < 4000 && bad.length < 5; t++) {
        var s = "", n = 1 + rnd(120);
        for (var i = 0; i < n; i++) s += pool[rnd(pool.length)];
        var at = rnd(s.length), end = at + rnd(s.length - at + 1), reach = rnd(40);
        var ab = M.excerpt(s, at, end, reach), a = ab[0], b = ab[1];
        if (!(Math.max(0, at - reach) <= a && a <= at && end <= b && b <= Math.min(s.length, end + reach))) {
          bad.push(["range", s, at, end, reach, ab]); continue;
        }
        if (seg) {
          var ok = cuts(s);
          if (!(ok.has(a) || a === at) || !(ok.has(b) || b === end)) bad.push(["cluster", s, at, end, reach, ab]);
          continue;
        }
        [[a, at], [b, end]].forEach(function (e) {
          var i = e[0];
          if (i === e[1] || i === 0 || i === s.length) return;
          var c = s.charCodeAt(i), p = s.charCodeAt(i - 1);
          if ((c >= 0xdc00 && c < 0xe000 && p >= 0xd800 && p < 0xdc00) || p === 0x200d ||
              /^[\\p{M}\\u200d\\u200c]/u.test(s.slice(i))) bad.push(["fallback", s, at, end, reach, ab]);
        });
      }
      return {bad: bad, seg: seg};
    }"""
    )
    assert bad == {"bad": [], "seg": segmenter}
    context.close()


def test_match_js_tables_hold_what_chromium_normalizes(watched, tmp_path):
    """The tables of match.js (which texts may change under NFC, which characters belong with
    the one before) hold every such character of this Chromium's Unicode: else run
    scripts/match_tables.py. None is below U+0300, which the ASCII fast path relies on."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("match_tables", root / "scripts" / "match_tables.py")
    assert spec and spec.loader
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    ours = tables.file_tables((root / "assets" / "match.js").read_text(encoding="utf-8"))
    theirs = tables.browser_tables(watched.page)
    assert not set(theirs["unstable"]) - ours["unstable"], "run scripts/match_tables.py"
    assert not set(theirs["attach"]) - ours["attach"], "run scripts/match_tables.py"
    assert min(ours["unstable"]) >= 0x300
