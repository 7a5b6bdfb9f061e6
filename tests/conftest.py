"""Fixtures of every test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fresh_command_memory(monkeypatch):
    """The build's process as small as a fresh command's (60 MiB) when it sizes its pools.

    pytest's process grows with the suite; past the memory goal a build forks no worker, so
    a test of the parallel scan or of parallel rendering would compare a serial build with
    itself. A test of those decisions sets its own figure."""
    import reportgen.site as site_mod
    import reportgen.sources.observe as observe_mod

    monkeypatch.setattr(site_mod, "_rss", lambda: 60 << 20)
    monkeypatch.setattr(observe_mod, "rss", lambda: 60 << 20)
