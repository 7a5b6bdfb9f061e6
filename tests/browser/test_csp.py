"""The Content-Security-Policy holds in Chromium, from file:// and over http.

* The site's own pages run under it without a single violation: the charts draw
  (Vega through vega-interpreter, no ``unsafe-eval``) and the viewer works.
* It really blocks: a copy of a page with an inline script, an inline handler,
  a ``javascript:`` URL, a style attribute and a remote image gets every one of
  them refused, and ``eval`` throws.
"""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from reportgen.site import CSP, build

from .conftest import file_url

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent.parent / "fixtures"

WATCH = """
window.__rgViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__rgViolations.push(e.violatedDirective + ' ' + e.blockedURI);
}, true);
"""

# injected into a copy of a real page, right after its CSP meta
PROBE_HEAD = '<script>window.__inline = 1;</script><link rel="stylesheet" href="https://example.invalid/x.css">'
PROBE_BODY = (
    '<img id="probe-img" src="x.png" onerror="window.__handler = 1">'
    '<div id="probe-style" style="color: rgb(255, 0, 0)">styled</div>'
    '<a id="probe-js" href="javascript:window.__jsurl = 1">js link</a>'
    '<img src="https://example.invalid/remote.png">'
    '<script src="probe.js"></script>'
)
# same-origin file, allowed by script-src 'self': it tries what the CSP must refuse
PROBE_JS = """
window.__probe = {};
try { eval("window.__eval = 1"); window.__probe.eval = "ran"; } catch (e) { window.__probe.eval = e.name; }
try { new Function("return 1")(); window.__probe.fn = "ran"; } catch (e) { window.__probe.fn = e.name; }
try { setTimeout("window.__timeoutString = 1", 0); } catch (e) { window.__probe.timeout = e.name; }
document.getElementById("probe-js").click();
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("csp")
    out = root / "site"
    build(str(FIXTURES / "tinker" / "arith_sync"), out)
    return out


@pytest.fixture(scope="module")
def observe_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("csp-observe") / "site"
    build(str(FIXTURES / "observe" / "examples"), out)
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    """The site served on 127.0.0.1 from a thread, on a free port."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def page(browser) -> Iterator[Any]:
    context = browser.new_context()
    context.add_init_script(WATCH)
    p = context.new_page()
    p.set_default_timeout(20000)
    p.rg_console = []  # type: ignore[attr-defined]
    p.rg_requests = []  # type: ignore[attr-defined]
    p.on("console", lambda m: p.rg_console.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: p.rg_console.append(f"pageerror {e}"))
    p.on("request", lambda r: p.rg_requests.append(r.url))
    p.rg_failed = {}  # type: ignore[attr-defined]
    p.on("requestfailed", lambda r: p.rg_failed.__setitem__(r.url, r.failure or ""))
    yield p
    context.close()


def _violations(p: Any) -> list[str]:
    return p.evaluate("() => window.__rgViolations")


def _charts_drawn(p: Any) -> int:
    p.wait_for_function(
        "() => document.querySelectorAll('.rg-plot svg, .rg-plot canvas').length > 0"
        " || document.querySelector('.rg-msg:not([hidden])')",
        timeout=20000,
    )
    return p.evaluate("() => document.querySelectorAll('.rg-plot svg, .rg-plot canvas').length")


def _clean_run(p: Any, base: str, names: list[str]) -> None:
    for name in names:
        p.goto(base + name)
        p.wait_for_load_state("load")
        if name == "index.html":
            assert _charts_drawn(p) > 0, "the charts did not draw under the CSP"
        p.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        p.wait_for_timeout(100)
        assert _violations(p) == [], name
    assert p.rg_console == []
    assert [u for u in p.rg_requests if not u.startswith(base) and u != "data:,"] == []


def test_every_page_carries_the_policy(site, observe_site):
    for s in (site, observe_site):
        for page in s.glob("*.html"):
            head = BeautifulSoup(page.read_text("utf-8"), "html.parser").head
            metas = head.find_all("meta", attrs={"http-equiv": "Content-Security-Policy"})
            assert [m["content"] for m in metas] == [CSP], page.name
            # before anything it governs
            assert head.find(["script", "link", "style"]).sourceline > metas[0].sourceline
    assert "'unsafe-eval'" not in CSP and "'unsafe-inline'" not in CSP
    assert "script-src 'self'" in CSP and "default-src 'none'" in CSP


def test_site_runs_clean_under_the_policy_from_file(site, page):
    names = sorted(p.name for p in site.glob("*.html"))
    _clean_run(page, file_url(site) + "/", names)


def test_site_runs_clean_under_the_policy_over_http(site, server, page):
    names = sorted(p.name for p in site.glob("*.html"))
    _clean_run(page, server, names)


def test_observe_site_runs_clean_with_markdown_and_math(observe_site, page):
    base = file_url(observe_site) + "/"
    for p in sorted(observe_site.glob("train_iteration_*.html")):
        page.goto(base + p.name + "#md=1")
        page.wait_for_load_state("load")
        page.wait_for_timeout(200)  # KaTeX loads lazily
        assert _violations(page) == [], p.name
    assert page.rg_console == []


def _probe_copy(site: Path) -> str:
    src = (site / "index.html").read_text("utf-8")
    found = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', src)
    assert found is not None
    meta = found.group(0)
    probe = src.replace(meta, meta + PROBE_HEAD, 1).replace("<body", "<body data-probe", 1)
    probe = probe.replace("</main>", PROBE_BODY + "</main>", 1)
    (site / "csp_probe.html").write_text(probe, "utf-8")
    (site / "probe.js").write_text(PROBE_JS, "utf-8")
    return "csp_probe.html"


def _assert_blocked(p: Any) -> list[str]:
    p.wait_for_function("() => window.__probe !== undefined")
    p.wait_for_timeout(200)
    state = p.evaluate(
        "() => [window.__inline, window.__handler, window.__jsurl, window.__eval, window.__timeoutString,"
        " window.__probe, getComputedStyle(document.getElementById('probe-style')).color]"
    )
    inline, handler, jsurl, evaled, timeout_string, probe, colour = state
    assert inline is None, "an inline script ran"
    assert handler is None, "an inline event handler ran"
    assert jsurl is None, "a javascript: URL ran"
    assert evaled is None and timeout_string is None, "eval ran"
    assert probe["eval"] == "EvalError" and probe["fn"] == "EvalError", probe
    assert colour != "rgb(255, 0, 0)", "an inline style applied"
    directives = {v.split(" ")[0] for v in _violations(p)}
    assert {"script-src-elem", "script-src-attr", "style-src-attr", "img-src", "style-src-elem"} <= directives, (
        directives
    )
    assert any("eval" in v for v in _violations(p))
    # Chromium announces the attempts, then refuses them before any network access
    remote = [u for u in p.rg_requests if "example.invalid" in u]
    assert remote, "the probe's remote resources were not even tried"
    assert all("csp" in p.rg_failed.get(u, "").lower() for u in remote), (remote, p.rg_failed)
    return sorted(directives)


def test_policy_blocks_injected_markup_from_file(site, page):
    name = _probe_copy(site)
    try:
        page.goto(file_url(site / name))
        _assert_blocked(page)
    finally:
        (site / name).unlink()
        (site / "probe.js").unlink()


def test_policy_blocks_injected_markup_over_http(site, server, page):
    name = _probe_copy(site)
    try:
        page.goto(server + name)
        _assert_blocked(page)
    finally:
        (site / name).unlink()
        (site / "probe.js").unlink()
