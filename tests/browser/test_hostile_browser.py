"""Every page of the hostile sites, opened in Chromium, runs none of the injected scripts.

Each page is opened from file:// with markdown mode on, then every ``details`` is
opened, markdown is toggled with its key, two members are picked and compared.
The attacks of :mod:`tests.hostile` either set ``window.__rgpwn``, open a dialog or
ask for something on another host; none of that may happen, and the
Content-Security-Policy must not have had to block anything either (a blocked
attempt means markup got through our escaping).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..hostile import MARK, built_sites
from .conftest import file_url

pytestmark = pytest.mark.browser

# runs before any script of the page: records CSP violations (the CSP does not
# stop an init script, and a page cannot remove this listener)
WATCH = """
window.__rgViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  var t = e.target && e.target.className;
  window.__rgViolations.push([e.violatedDirective, e.blockedURI, typeof t === 'string' ? t : '', e.sample || '']);
}, true);
"""

OPEN_ALL = """
() => {
  let n = 0;
  document.querySelectorAll('details').forEach(d => { if (!d.open) { d.open = true; n++; } });
  document.querySelectorAll('.collapsed').forEach(g => g.classList.remove('collapsed'));
  return n;
}
"""


@dataclass
class Session:
    """One browser context with everything that happened in it."""

    page: Any
    root: str
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    popups: list[str] = field(default_factory=list)
    done: dict[str, int] = field(default_factory=lambda: {"markdown": 0, "compare": 0, "details": 0, "chart": 0})

    def outside(self) -> list[str]:
        return [
            u for u in self.requests if not (u.startswith(self.root) or u.startswith("data:") or u == "about:blank")
        ]

    def injected(self) -> Any:
        return self.page.evaluate(f"() => [window.{MARK}, window.__rgViolations]")


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    # a 256 KB string instead of 10 MB: Chromium on a CI core needs ~15 s to lay out the latter
    built = built_sites(tmp_path_factory, big=256 * 1024)
    return {"observe": built["observe"], "tinker": built["tinker"], "sweep": built["sweep"]}


@pytest.fixture
def session(browser) -> Iterator[Session]:
    context = browser.new_context()
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(30000)
    s = Session(page, "")
    context.on("request", lambda r: s.requests.append(r.url))
    context.on("page", lambda p: s.popups.append(p.url) if p is not page else None)
    page.on("pageerror", lambda e: s.errors.append(str(e)))

    def on_dialog(d: Any) -> None:
        s.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    yield s
    context.close()


def _exercise(s: Session, url: str) -> list[str]:
    """Open one page in every mode; returns what went wrong on it."""
    page = s.page
    page.goto(url + "#md=1")
    page.wait_for_load_state("load")
    s.done["details"] += page.evaluate(OPEN_ALL)
    # markdown toggled by its key (off, then on again), as a reader would
    if page.query_selector("#f-md"):
        page.keyboard.press("m")
        page.keyboard.press("m")
        assert page.evaluate("() => document.body.classList.contains('md-on')")
        s.done["markdown"] += 1
    # compare: pick the first two members and press c
    picks = page.query_selector_all("label.pick input[type=checkbox]")
    if len(picks) >= 2:
        picks[0].check()
        picks[1].check()
        page.keyboard.press("c")
        page.wait_for_selector("#rg-compare[open]", timeout=5000)
        page.evaluate(OPEN_ALL)
        page.keyboard.press("Escape")
        s.done["compare"] += 1
    # hover a chart: vega tooltips draw hostile metric names
    plot = page.query_selector(".rg-plot svg, .rg-plot canvas")
    if plot:
        plot.hover()
        s.done["chart"] += 1
    page.wait_for_timeout(150)  # handlers of the opened details and the lazy KaTeX load
    pwned, violations = s.injected()
    out = []
    if pwned is not None:
        out.append(f"injected script ran: window.{MARK} = {pwned!r}")
    blocked = [v for v in violations if not _katex_error_colour(v)]
    if blocked:
        out.append(f"the CSP had to block: {blocked[:5]}")
    return out


def _katex_error_colour(v: list[str]) -> bool:
    """KaTeX colours a formula it cannot parse with a style attribute, which the CSP drops.

    Harmless (the TeX stays as red-less text) and made by KaTeX, not by the input.
    """
    return v[0] == "style-src-attr" and "katex-error" in v[2].split()


@pytest.mark.parametrize("fmt", ["observe", "tinker", "sweep"])
def test_no_injected_script_runs_on_any_page(sites, session, fmt):
    site = sites[fmt]
    session.root = file_url(site)
    if fmt == "sweep":  # the sweep's index and each run's index (their other pages are tested above)
        pages = sorted(site.rglob("index.html"))
    else:
        pages = sorted(site.glob("*.html"))
    assert len(pages) >= 3
    problems = {}
    for p in pages:
        found = _exercise(session, file_url(p))
        if found:
            problems[p.name] = found
    assert problems == {}
    assert session.dialogs == []
    assert session.popups == []
    assert session.outside() == []
    assert session.errors == []
    # the pages were really exercised: markdown, a comparison, folded details, a chart
    if fmt != "sweep":
        assert all(n > 0 for n in session.done.values()), session.done


def _prototype_named_runs(root: Path) -> Path:
    """Two runs whose metric names, prompt keys, tool names and folder names are the names of
    JavaScript's Object.prototype: "__proto__", "constructor", "toString", ..."""
    import re
    import shutil

    from reportgen.resources import demo_dir

    names = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]
    runs = root / "runs"
    grpo = (demo_dir() / "grpo" / "observe.jsonl").read_text("utf-8")
    for k, n in zip(sorted(set(re.findall(r'"(p:\d+)"', grpo))), names):
        grpo = grpo.replace(f'"{k}"', f'"{n}"')
    grpo = grpo.replace('"metrics":{', '"metrics":{"__proto__":1.5,"constructor":2,"__proto__/x":3,"toString/y":4,')
    (runs / "constructor").mkdir(parents=True)
    (runs / "constructor" / "observe.jsonl").write_text(grpo, "utf-8")
    shutil.copytree(demo_dir() / "agent", runs / "hasOwnProperty")
    agent = runs / "hasOwnProperty" / "observe.jsonl"
    agent.write_text(agent.read_text("utf-8").replace('"name":"get_forecast"', '"name":"constructor"'), "utf-8")
    return runs


def test_names_of_object_prototype_are_names_like_any_other(tmp_path, watched):
    """A metric, prompt key, tool or run called "__proto__" or "constructor": in a script's
    object literal "__proto__" set the prototype (its column was lost) and lookups found
    Object's own members; the explorer failed ("groups[g].push is not a function")."""
    from reportgen.sweep import build_sweep, plan_sweep

    runs = _prototype_named_runs(tmp_path)
    plan = plan_sweep([str(runs)], tmp_path / "site")
    assert plan is not None
    build_sweep(plan, tmp_path / "site")
    site = tmp_path / "site"
    watched.goto(file_url(site / "constructor" / "index.html") + "#explore=__proto__,constructor,__proto__%2Fx")
    page = watched.page
    for _ in range(100):
        if page.evaluate("document.querySelectorAll('#rg-metric-list label').length") > 0:
            break
        page.wait_for_timeout(50)
    labels = page.eval_on_selector_all("#rg-metric-list label", "ls => ls.map(l => l.title)")
    assert {"__proto__", "constructor", "__proto__/x", "toString/y"} <= set(labels)
    assert page.evaluate(
        "(() => { const c = window.RG_METRICS.cols; return Object.prototype.hasOwnProperty.call(c, '__proto__')"
        " && Array.isArray(c['__proto__']) && c['__proto__'].length === window.RG_METRICS.steps.length; })()"
    )
    legend = page.inner_text("#rg-explorer-legend")
    assert all(n in legend for n in ("__proto__", "constructor", "__proto__/x"))
    # the prompt index: "__proto__" is a key of its own, "constructor" finds its updates only
    first = sorted((site / "constructor").glob("train_iteration_*.html"))[0]
    watched.goto(file_url(first))
    assert page.evaluate(
        "Object.prototype.hasOwnProperty.call(window.RG_PROMPTS, '__proto__') && Array.isArray(window.RG_PROMPTS['__proto__'])"
    )
    # a tool called "constructor" filters like any other
    agent_page = sorted((site / "hasOwnProperty").glob("train_iteration_*.html"))[0]
    watched.goto(file_url(agent_page))
    page.select_option("#f-tool", "constructor")
    assert page.evaluate("document.querySelectorAll('.member:not([hidden])').length") > 0
    # the sweep: a run called "constructor" shows in the charts until its legend key is pressed
    watched.goto(file_url(site / "index.html"))
    drawn = (
        "(() => { const vs = window.RG_SWEEP_VIEWS || {}; const runs = new Set();"
        " Object.keys(vs).forEach(k => vs[k].data('pts').forEach(d => runs.add(d.r))); return Array.from(runs); })()"
    )
    for _ in range(100):
        if "constructor" in page.evaluate(drawn):
            break
        page.wait_for_timeout(50)
    assert "constructor" in page.evaluate(drawn)
    key = page.locator(".sw-key[data-run='constructor']").first
    assert key.get_attribute("aria-pressed") == "true"
    key.click()
    assert key.get_attribute("aria-pressed") == "false"
    page.wait_for_timeout(200)
    assert "constructor" not in page.evaluate(drawn)
    assert watched.console_errors == [] and watched.page_errors == []
