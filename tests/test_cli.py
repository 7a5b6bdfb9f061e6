"""The command line: exit codes, messages, help examples, the demo."""

from __future__ import annotations

import io
import shutil
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
    # again into the same site: nothing rendered, and the line says so
    r = invoke("build", str(FIXTURES / "observe" / "examples"), "-o", str(tmp_path / "s"))
    last = r.output.strip().splitlines()[-1]
    assert (
        "4 pages (0 iterations rendered, 2 unchanged)" in last
    )  # index, 2 updates, search.html and "written" not in last


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


def test_format_reads_the_nested_layout_and_refuses_the_other_format(tmp_path):
    """--format observe finds observe/observe.jsonl as detection does; a forced format on a
    folder plainly of the other one is an error, not an empty site over the previous one."""
    nested = tmp_path / "run"
    (nested / "observe").mkdir(parents=True)
    shutil.copy(FIXTURES / "observe" / "examples" / "observe.jsonl", nested / "observe" / "observe.jsonl")
    site = tmp_path / "s"
    r = invoke("build", str(nested), "--format", "observe", "-o", str(site))
    assert r.exit_code == 0 and "2 updates, 4 rollouts" in r.output, r.output
    before = (site / "index.html").read_bytes()
    for src, fmt, said in (
        (nested, "tinker", "this is an observe export, not a tinker log_path; drop --format"),
        (FIXTURES / "observe" / "examples", "tinker", "this is an observe export"),
        (FIXTURES / "tinker" / "arith_sync", "observe", "this is a tinker log_path, not an observe export"),
    ):
        r = invoke("build", str(src), "--format", fmt, "-o", str(site))
        assert r.exit_code == 1 and said in r.output and "Traceback" not in r.output, r.output
        assert (site / "index.html").read_bytes() == before  # the previous site is left as it was
        r = invoke("check", str(src), "--format", fmt)
        assert r.exit_code == 1 and said in r.output, r.output
    # a packed export (a CI artifact not unpacked) is no empty export to build over the site
    import gzip

    packed = tmp_path / "packed"
    (packed / "observe").mkdir(parents=True)
    data = (FIXTURES / "observe" / "examples" / "observe.jsonl").read_bytes()
    (packed / "observe" / "observe.jsonl.gz").write_bytes(gzip.compress(data))
    for fmt, said in (("observe", "decompress it first"), ("tinker", "this is an observe export")):
        r = invoke("build", str(packed), "--format", fmt, "-o", str(site))
        assert r.exit_code == 1 and said in r.output, r.output
        assert (site / "index.html").read_bytes() == before


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


class _Tty:
    """A terminal stand-in for stderr: what was written, and isatty() true."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> int:
        self.text += s
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def _gen():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_gen", Path(__file__).parent.parent / "benchmarks" / "gen.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_progress_reports_the_bytes_read_then_the_updates_rendered(tmp_path, monkeypatch):
    """A large export takes seconds to read: the bar shows the reading first (the bytes since
    the last build only, on a rebuild), then the updates rendered."""
    from reportgen.site import BuildOptions, build

    from .test_incremental import small_main_process

    small_main_process(monkeypatch)
    src = tmp_path / "run"
    _gen().generate(src, 6, 8, 8, 1, 60, 0.5, 0)
    export = src / "observe.jsonl"
    seen: list[tuple[int, int, str]] = []
    report = lambda d, t, unit: seen.append((d, t, unit))  # noqa: E731
    r = build(str(src), tmp_path / "site", BuildOptions(jobs=2), progress=report)
    reads = [(d, t) for d, t, unit in seen if unit == "bytes"]
    renders = [(d, t) for d, t, unit in seen if unit == "updates"]
    assert len(reads) >= 2 and {t for _, t in reads} == {export.stat().st_size}
    assert [d for d, _ in reads] == sorted(d for d, _ in reads) and all(0 < d <= t for d, t in reads)
    assert seen.index((*reads[-1], "bytes")) < seen.index((*renders[0], "updates"))
    assert renders[-1] == (r.updates, r.updates)
    # the run appends its last updates: the rebuild reads those bytes only
    tail = (src / "observe.jsonl.tail").read_bytes()
    with open(export, "ab") as f:
        f.write(tail)
    seen.clear()
    build(str(src), tmp_path / "site", BuildOptions(jobs=2), progress=report)
    assert len(tail) > 2 << 20 and {t for d, t, unit in seen if unit == "bytes"} == {len(tail)}


def test_progress_bar_on_a_terminal_only(monkeypatch):
    from reportgen import cli

    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    bar = cli._Progress(True)
    bar(50 << 20, 200 << 20, "bytes")
    assert "reading [#######......................." in tty.text and "50/200 MiB" in tty.text
    bar(3, 1200, "updates")
    assert "rendering [" in tty.text and "3/1,200 updates" in tty.text
    bar.close()
    assert tty.text.endswith("\r")
    assert cli._duration(200) == "3 min 20 s" and cli._duration(0.2) == "1 s"
    piped = io.StringIO()  # isatty() false: nothing at all
    monkeypatch.setattr(sys, "stderr", piped)
    bar = cli._Progress(True)
    bar(1, 2, "updates")
    bar.close()
    assert piped.getvalue() == ""
    quiet = _Tty()
    monkeypatch.setattr(sys, "stderr", quiet)
    bar = cli._Progress(False)
    bar(1, 2, "updates")
    assert quiet.text == ""


def test_summary_counts_a_tinker_runs_iterations(tmp_path):
    r = invoke("build", str(FIXTURES / "tinker" / "arith_sync"), "-o", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]
    assert " iterations, " in last and " updates" not in last


def test_watch_interval_below_a_tenth_of_a_second_is_a_usage_error(tmp_path):
    r = invoke("build", str(FIXTURES / "observe" / "examples"), "-o", str(tmp_path / "s"), "--watch", "--interval", "0")
    assert r.exit_code == 2 and "--interval" in r.output


def test_serve_removes_its_temporary_site_when_it_stops(tmp_path, monkeypatch):
    """Without -o, serve builds into a temporary folder, and removes it on Ctrl-C."""
    from reportgen import live

    made: list[Path] = []

    def fake_serve(source, out, options, **kwargs):
        out.mkdir(parents=True)
        (out / "index.html").write_text("x")
        made.append(out)
        raise KeyboardInterrupt

    monkeypatch.setattr(live, "serve", fake_serve)
    r = invoke("serve", str(FIXTURES / "observe" / "examples"))
    assert r.exit_code == 0 and "stopped" in r.output
    assert made and not made[0].parent.exists()
    # a site asked for with -o stays
    r = invoke("serve", str(FIXTURES / "observe" / "examples"), "-o", str(tmp_path / "kept"))
    assert (tmp_path / "kept" / "index.html").is_file()


def test_messages_write_terminal_controls_as_escapes(tmp_path):
    """Warnings and errors quote file names and input: an escape sequence in a folder's name
    (which could set the terminal's title, move the cursor or hide lines) or a bidi control
    is written as an escape, not sent to the terminal."""
    from reportgen.cli import _terminal_safe

    assert _terminal_safe("a\x1b]0;pwned\x07b\u202ec\x9bd\te\nf") == "a\\x1b]0;pwned\\x07b\\u202ec\\x9bd\te\nf"
    src = tmp_path / "run\x1b[2Jx\u202e"
    src.mkdir()
    lines = (Path(__file__).parent / "fixtures" / "observe" / "examples" / "observe.jsonl").read_bytes()
    (src / "observe.jsonl").write_bytes(b"not json\n" + lines)
    r = CliRunner().invoke(main, ["build", str(src), "-o", str(tmp_path / "site")])
    assert r.exit_code == 0, r.output
    assert "run\\x1b[2Jx\\u202e" in r.output and "\x1b" not in r.output and "\u202e" not in r.output
    r = CliRunner().invoke(main, ["build", str(tmp_path / "missing\x1b[2J"), "-o", str(tmp_path / "s2")])
    assert r.exit_code == 1 and "missing\\x1b[2J" in r.output and "\x1b" not in r.output


def test_one_run_commands_say_a_folder_of_runs_is_a_sweep(tmp_path):
    """check, serve and build --watch take one run: a folder of runs gets a message that
    says so (usage errors exit 2, check's report 1), not 'neither an observe export nor…'."""
    runs = tmp_path / "runs"
    for name in ("a", "b"):
        shutil.copytree(FIXTURES / "observe" / "examples", runs / name)
    r = invoke("check", str(runs))
    assert r.exit_code == 1 and "a folder of 2 runs (a sweep: a, b)" in r.output, r.output
    r = invoke("serve", str(runs), "--port", "0")
    assert r.exit_code == 2 and "folder of runs" in r.output, r.output
    r = invoke("build", str(runs), "-o", str(tmp_path / "s"), "--watch")
    assert r.exit_code == 2 and "--watch follows one run" in r.output, r.output
    r = invoke("build", str(runs / "a"), "-o", str(tmp_path / "s"), "--interval", "5")
    assert r.exit_code == 2 and "--interval" in r.output and not (tmp_path / "s").exists()


def test_an_output_below_a_file_is_said_so(tmp_path):
    (tmp_path / "afile").write_text("hi")
    r = invoke("build", str(FIXTURES / "observe" / "examples"), "-o", str(tmp_path / "afile" / "sub"))
    assert r.exit_code == 1 and "afile is a file, not a folder" in r.output, r.output


@pytest.mark.parametrize("signum, code", [(15, 143), (None, 130)])
def test_an_interrupt_while_a_command_loads_exits_as_an_interrupt(monkeypatch, tmp_path, signum, code):
    """A SIGTERM in a build's first quarter second (its modules loading, before its own
    handling) printed click's "Aborted!" and exited 1, the code of bad input."""
    import click

    from reportgen.cli import Terminated

    source = click.Context.get_parameter_source

    def interrupted(ctx: click.Context, name: str) -> object:
        if name == "interval" and ctx.command.name == "build":
            raise Terminated(signum) if signum else KeyboardInterrupt()
        return source(ctx, name)

    # the first thing the command does after its imports, before any handling of its own
    monkeypatch.setattr(click.Context, "get_parameter_source", interrupted)
    r = invoke("build", str(tmp_path), "-o", str(tmp_path / "site"))
    assert r.exit_code == code
    assert "Aborted" not in r.output and "reportgen: interrupted; the previous site is untouched" in r.output


@pytest.mark.parametrize("command", ["watch", "serve"])
def test_a_watch_or_server_stopped_by_a_signal_exits_as_the_docs_say(monkeypatch, tmp_path, command):
    """README: SIGTERM and SIGHUP stop a build with exit code 143 or 129; a watch and a server
    exited 0 for them, as for Ctrl-C (which stays 0: it is how one stops them). -q keeps
    a watch as quiet as a server: no "watching" and no "stopped" line."""
    import reportgen.live as live
    from reportgen.cli import Terminated

    src = FIXTURES / "observe" / "examples"
    for raised, code in ((Terminated(15), 143), (Terminated(1), 129), (KeyboardInterrupt(), 0)):

        def stop(*_a: object, _e: BaseException = raised, **_k: object) -> None:
            raise _e

        monkeypatch.setattr(live, "watch" if command == "watch" else "serve", stop)
        args = (
            ["build", str(src), "-o", str(tmp_path / "site"), "--watch"] if command == "watch" else ["serve", str(src)]
        )
        r = invoke(*args)
        assert r.exit_code == code, (raised, r.output)
        assert "stopped" in r.output
        quiet = invoke(*args, "-q")
        assert quiet.exit_code == code and quiet.output.strip() == "", quiet.output
