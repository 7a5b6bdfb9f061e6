"""The command line: exit codes, messages, help examples, the demo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_build_ok_prints_summary(tmp_path):
    r = invoke("build", str(FIXTURES / "observe" / "examples"), "-o", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]
    assert "2 updates" in last and "4 rollouts" in last and "pages written" in last and " s" in last


def test_build_file_source(tmp_path):
    r = invoke("build", str(FIXTURES / "observe" / "examples" / "observe.jsonl"), "-o", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    assert (tmp_path / "s" / "train_iteration_000001.html").is_file()


def test_bad_version_exit_1_names_file_and_line(tmp_path):
    src = tmp_path / "run"
    src.mkdir()
    (src / "observe.jsonl").write_text('{"v":3,"type":"run","segment":0,"batch_id":0,"batch_index":0,"batch_len":1}\n')
    r = invoke("build", str(src), "-o", str(tmp_path / "s"))
    assert r.exit_code == 1
    assert "observe.jsonl:1:" in r.output
    assert "Traceback" not in r.output


def test_neither_format_exit_1(tmp_path):
    (tmp_path / "empty").mkdir()
    r = invoke("build", str(tmp_path / "empty"), "-o", str(tmp_path / "s"))
    assert r.exit_code == 1
    assert "looked for observe.jsonl" in r.output


def test_missing_source_exit_1(tmp_path):
    r = invoke("build", str(tmp_path / "nope"), "-o", str(tmp_path / "s"))
    assert r.exit_code == 1 and "no such file" in r.output


def test_usage_exit_2():
    assert invoke("build").exit_code == 2
    assert invoke("build", "x", "--format", "csv", "-o", "y").exit_code == 2


@pytest.mark.parametrize("cmd", [[], ["build"], ["demo"]])
def test_help_has_example(cmd):
    r = invoke(*cmd, "--help")
    assert r.exit_code == 0 and "Example:" in r.output and "reportgen " in r.output


def test_demo_builds_both_runs(tmp_path):
    r = invoke("demo", "-o", str(tmp_path / "d"))
    assert r.exit_code == 0, r.output
    assert "open file://" in r.output
    assert (tmp_path / "d" / "index.html").is_file()
    grpo = tmp_path / "d" / "grpo"
    agent = tmp_path / "d" / "agent"
    assert (grpo / "train_iteration_000014.html").is_file()
    assert "segment 1" in (grpo / "train_iteration_000014.html").read_text()
    assert "get_forecast" in (agent / "train_iteration_000001.html").read_text()


def test_python_dash_m(tmp_path):
    r = subprocess.run([sys.executable, "-m", "reportgen", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "build" in r.stdout
