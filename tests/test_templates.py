"""The precompiled templates (reportgen/_templates) are current, used, and render what the sources render."""

from __future__ import annotations

import pytest

from reportgen import _templates
from reportgen.resources import demo_dir, templates_dir
from reportgen.site import BuildOptions, build, make_env, template_fingerprint

from .test_incremental import snapshot


def test_precompiled_templates_are_current():
    env = make_env(precompiled=False)
    names = sorted(p.name for p in templates_dir().glob("*.html"))
    assert names and sorted(_templates.FINGERPRINTS) == names, "run scripts/compile_templates.py"
    for name in names:
        source = (templates_dir() / name).read_text(encoding="utf-8")
        assert _templates.FINGERPRINTS[name] == template_fingerprint(env, name, source), (
            f"{name} changed since it was compiled: run scripts/compile_templates.py"
        )


def test_precompiled_templates_are_used_only_when_they_match(monkeypatch):
    page = make_env().get_template("iteration.html")
    assert page.filename is not None and page.filename.endswith(".py")  # the compiled module
    assert make_env(precompiled=False).get_template("iteration.html").filename.endswith("iteration.html")
    # a template edited since it was compiled (another fingerprint) is compiled from its source
    monkeypatch.setitem(_templates.FINGERPRINTS, "iteration.html", "0" * 64)
    assert make_env().get_template("iteration.html").filename.endswith("iteration.html")
    assert make_env().get_template("index.html").filename.endswith(".py")


@pytest.mark.parametrize("demo", ["grpo", "agent"])
def test_precompiled_and_source_templates_write_the_same_site(demo, tmp_path, monkeypatch):
    src = str(demo_dir() / demo)
    build(src, tmp_path / "compiled", BuildOptions(jobs=1))
    monkeypatch.setattr(_templates, "FINGERPRINTS", {})
    build(src, tmp_path / "source", BuildOptions(jobs=1))
    assert snapshot(tmp_path / "compiled") == snapshot(tmp_path / "source")
