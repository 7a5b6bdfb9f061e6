"""An open page of a served live run says that new updates arrived, without a reload."""

from __future__ import annotations

from ..test_live import _split_demo, serving


def test_open_page_shows_new_updates_notice(tmp_path, watched):
    src, rest = _split_demo(tmp_path)
    out = tmp_path / "site"
    with serving(src, out) as base:
        first = sorted(p.name for p in out.glob("train_iteration_*.html"))[0]
        watched.goto(f"{base}/{first}")
        watched.page.wait_for_timeout(500)
        with open(src / "observe.jsonl", "ab") as f:
            f.write(rest)
        watched.page.wait_for_selector(".live-banner", timeout=20000)
        text = watched.page.inner_text(".live-banner")
        assert "new update" in text
        assert watched.console_errors == [] and watched.page_errors == []
        assert watched.external(base) == []
