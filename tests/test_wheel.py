"""The built wheel carries templates, assets and the demo, and works outside the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_installs_and_runs_outside_checkout(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    wheel = next(dist.glob("reportgen-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "reportgen/templates/iteration.html" in names
    assert "reportgen/_templates/__init__.py" in names
    assert "reportgen/assets/reportgen.js" in names
    assert "reportgen/assets/vendor/vega.min.js" in names
    assert "reportgen/demo/grpo/observe.jsonl" in names
    venv = tmp_path / "venv"
    # reuse the installed dependencies; the wheel itself goes into the fresh venv
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def installed(code: str) -> str:
        """What the installed package prints, run outside the checkout."""
        return subprocess.run(
            [str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=True
        ).stdout.strip()

    where = installed("import reportgen, sys; print(reportgen.__file__)")
    assert str(venv) in where, where
    # the installed package serves its precompiled templates (their fingerprints hold there too)
    compiled = installed(
        "from reportgen.site import make_env; print(make_env().get_template('iteration.html').filename)"
    )
    assert str(venv) in compiled and "/_templates/" in compiled, compiled
    out = tmp_path / "demo-site"
    r = subprocess.run(
        [str(venv / "bin" / "reportgen"), "demo", "-o", str(out)], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert r.returncode == 0, r.stderr
    assert (out / "grpo" / "index.html").is_file()
    assert (out / "agent" / "assets" / "vendor" / "vega-lite.min.js").is_file()
