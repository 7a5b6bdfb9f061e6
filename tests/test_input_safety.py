"""The input is only read: never written, locked, moved or touched, even while it changes.

* Every file of the inputs hashes the same (content, mode, mtime) after a build
  and a check, and an audit hook sees no open for writing, lock, rename,
  removal or chmod under the input.
* A writer appending to observe.jsonl during builds (torn lines, half batches)
  never breaks a build, and no update is shown half-read.
* A file that shrinks or is rewritten between scan and load degrades with a
  warning, never a traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.site import BuildOptions, build
from reportgen.sources.detect import open_source

from .hostile import hash_tree, write_observe, write_tinker
from .obs import Obs, one_conversation

FIXTURES = Path(__file__).parent / "fixtures"

# audit events that change or lock a path (the first argument)
_MUTATING = {
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.utime",
    "os.link",
    "os.symlink",
    "os.mkdir",
    "shutil.rmtree",
    "shutil.move",
    "shutil.copyfile",
    "fcntl.flock",
    "fcntl.lockf",
}
_AUDIT: dict[str, Any] = {"roots": (), "seen": []}


def _hook(event: str, args: tuple[Any, ...]) -> None:
    roots = _AUDIT["roots"]
    if not roots:
        return
    if event in ("fcntl.flock", "fcntl.lockf"):
        _AUDIT["seen"].append((event, args))
        return
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
        )
        if writes and isinstance(path, (str, bytes, os.PathLike)) and _under(path, roots):
            _AUDIT["seen"].append((event, args))
        return
    if event in _MUTATING:
        for a in args[:2]:
            if isinstance(a, (str, bytes, os.PathLike)) and _under(a, roots):
                _AUDIT["seen"].append((event, args))


def _under(path: Any, roots: tuple[str, ...]) -> bool:
    p = os.path.realpath(os.fsdecode(path))
    return any(p == r or p.startswith(r + os.sep) for r in roots)


sys.addaudithook(_hook)


class audited:
    """Records every mutating access to ``roots`` inside the block."""

    def __init__(self, *roots: Path) -> None:
        self.roots = tuple(os.path.realpath(r) for r in roots)

    def __enter__(self) -> list[Any]:
        _AUDIT["seen"] = []
        _AUDIT["roots"] = self.roots
        return _AUDIT["seen"]

    def __exit__(self, *exc: Any) -> None:
        _AUDIT["roots"] = ()


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


@pytest.mark.parametrize(
    "name",
    ["observe/examples", "tinker/arith_sync", "tinker/arith_resumed", "tinker/flat_arith_sync", "hostile"],
)
def test_build_and_check_leave_the_input_untouched(tmp_path, name):
    if name == "hostile":
        inputs = [write_observe(tmp_path / "o", big=4096), write_tinker(tmp_path / "t", outside=tmp_path / "x")]
    else:
        inputs = [_copy(FIXTURES / name, tmp_path / "in")]
    for i, src in enumerate(inputs):
        os.chmod(src, 0o555)  # read-only too (root ignores it: the audit hook does not)
        before = hash_tree(src)
        with audited(src, *([tmp_path / "x"] if name == "hostile" else [])) as seen:
            build(str(src), tmp_path / f"site{i}", BuildOptions(jobs=1))
            r = CliRunner().invoke(main, ["check", str(src), "--json"])
            assert r.exit_code in (0, 1) and r.exception in (None,) or isinstance(r.exception, SystemExit)
        assert seen == []
        assert hash_tree(src) == before
        os.chmod(src, 0o755)


def test_input_folder_may_be_read_only_for_real(tmp_path):
    """Without root, a read-only input is a plain case; with root the audit hook above covers it."""
    src = _copy(FIXTURES / "observe" / "examples", tmp_path / "in")
    for p in [src, *src.rglob("*")]:
        os.chmod(p, 0o555 if p.is_dir() else 0o444)
    try:
        build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    finally:
        for p in [src, *src.rglob("*")]:
            os.chmod(p, 0o755)
    assert (tmp_path / "site" / "index.html").is_file()


# ------------------------------------------------------------------ a live writer
def _appender(path: Path, stop: threading.Event, first_update: int, errors: list[BaseException]) -> None:
    """Appends 60 updates, a few bytes at a time (torn lines, half batches), then stops."""
    o = Obs()
    o.segment = 0
    o.batch_id = 10_000
    u = first_update
    try:
        with open(path, "ab") as f:
            while not stop.is_set() and u < first_update + 60:
                o.lines = []
                o.batch(o.prompt(f"p:{u}"), *(Obs.rollout(u, 0, m, prompt=f"p:{u}") for m in range(4)))
                o.batch(Obs.update(u, reward__mean=0.25))
                data = o.text().encode()
                for i in range(0, len(data), 97):  # torn lines and half batches on disk
                    f.write(data[i : i + 97])
                    f.flush()
                    time.sleep(0.002)
                u += 1
    except BaseException as exc:  # pragma: no cover - surfaced by the test
        errors.append(exc)


def test_builds_while_a_writer_appends(tmp_path):
    o = Obs().run()
    for u in range(1, 4):
        o.batch(o.prompt(f"p:{u}"), *(Obs.rollout(u, 0, m, prompt=f"p:{u}") for m in range(4)))
        o.batch(Obs.update(u, reward__mean=0.5))
    src = o.write(tmp_path / "run")
    stop = threading.Event()
    errors: list[BaseException] = []
    writer = threading.Thread(target=_appender, args=(src / "observe.jsonl", stop, 4, errors), daemon=True)
    writer.start()
    seen_updates = []
    try:
        for k in range(5):
            out = tmp_path / f"site{k}"
            result = build(str(src), out, BuildOptions(jobs=1, incremental=False))
            seen_updates.append(result.updates)
            for page in out.glob("train_iteration_*.html"):
                html = page.read_text("utf-8")
                # every update shown is whole: its four members, never a half batch
                assert len(re.findall(r'<article class="member', html)) == 4, page.name
            time.sleep(0.05)
    finally:
        stop.set()
        writer.join(5)
    assert errors == []
    assert seen_updates[0] >= 3 and seen_updates == sorted(seen_updates)
    assert seen_updates[-1] > seen_updates[0]  # the builds did run while the file grew


def test_incremental_rebuilds_while_a_writer_appends(tmp_path):
    """The same, rebuilding one site again and again (the incremental path of serve)."""
    o = Obs().run()
    o.batch(o.prompt("p:1"), *(Obs.rollout(1, 0, m, prompt="p:1") for m in range(4)))
    o.batch(Obs.update(1, reward__mean=0.5))
    src = o.write(tmp_path / "run")
    stop = threading.Event()
    errors: list[BaseException] = []
    writer = threading.Thread(target=_appender, args=(src / "observe.jsonl", stop, 2, errors), daemon=True)
    writer.start()
    out = tmp_path / "site"
    try:
        for _ in range(5):
            build(str(src), out, BuildOptions(jobs=1))
            for page in out.glob("train_iteration_*.html"):
                assert len(re.findall(r'<article class="member', page.read_text("utf-8"))) == 4, page.name
    finally:
        stop.set()
        writer.join(5)
    assert errors == []


# ------------------------------------------------------------------ a file that shrinks
def _grpo(directory: Path, n: int = 4) -> Path:
    o = Obs().run()
    for u in range(1, n + 1):
        o.batch(o.prompt(f"p:{u}"), *(Obs.rollout(u, 0, m, prompt=f"p:{u}") for m in range(3)))
        o.batch(Obs.update(u, reward__mean=0.5))
    return o.write(directory)


@pytest.mark.parametrize("cut", [0.0, 0.3, 0.6, 0.95])
def test_observe_file_shrinks_between_scan_and_load(tmp_path, cut):
    src = _grpo(tmp_path / "run")
    path = src / "observe.jsonl"
    reader = open_source(str(src))
    run = reader.scan()
    data = path.read_bytes()
    with open(path, "r+b") as f:  # a resume cutting the tail, as the writer does
        f.truncate(int(len(data) * cut))
    warned = 0
    for ref in run.iterations:
        it = reader.load(ref)
        warned += any("changed while it was read" in w for w in it.warnings)
        assert len(it.groups) <= 1
    reader.close()
    assert warned >= 1


def test_observe_file_rewritten_between_scan_and_load(tmp_path):
    src = _grpo(tmp_path / "run")
    path = src / "observe.jsonl"
    reader = open_source(str(src))
    run = reader.scan()
    # another run's content of the same size, shifted: spans now start mid-line
    data = path.read_bytes()
    path.write_bytes(b"x" * 37 + data[: len(data) - 37])
    for ref in run.iterations:
        reader.load(ref)  # never raises
    reader.close()


def test_build_survives_shrinking_during_the_build(tmp_path, monkeypatch):
    import reportgen.sources.observe as obs_mod

    src = _grpo(tmp_path / "run", 6)
    path = src / "observe.jsonl"
    orig = obs_mod.ObserveReader.load
    calls = []

    def load(self, ref):
        calls.append(ref.number)
        if len(calls) == 2:
            with open(path, "r+b") as f:
                f.truncate(path.stat().st_size // 3)
        return orig(self, ref)

    monkeypatch.setattr(obs_mod.ObserveReader, "load", load)
    r = CliRunner().invoke(main, ["build", str(src), "-o", str(tmp_path / "site"), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "changed while it was read" in (tmp_path / "site" / "train_iteration_000006.html").read_text("utf-8")


def test_tinker_files_shrink_or_vanish_between_scan_and_load(tmp_path):
    src = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "run")
    reader = open_source(str(src))
    run = reader.scan()
    summaries = src / "iteration_000000" / "train_rollout_summaries.jsonl"
    data = summaries.read_bytes()
    summaries.write_bytes(data[: len(data) // 2])  # a torn last line
    it = reader.load(run.iterations[0])
    assert it.groups
    (src / "iteration_000001" / "train_logtree.json").write_bytes(b'{"title": "x", "ro')
    r = CliRunner().invoke(main, ["build", str(src), "-o", str(tmp_path / "site")])
    # a torn logtree costs its page the logtree only: said, and the build goes on
    assert r.exit_code == 0 and "Traceback" not in r.output
    assert (
        re.search(r"train_logtree\.json(:\d+:\d+)?: bad logtree JSON", r.output)
        and "rollout summaries only" in r.output
    )
    shutil.rmtree(src / "iteration_000001")
    r = CliRunner().invoke(main, ["build", str(src), "-o", str(tmp_path / "site")])
    assert r.exit_code == 0, r.output


def test_values_nested_as_deep_as_json_allows_are_texts_and_deeper_lines_are_unreadable(tmp_path):
    """A list or object 1,000 levels deep where a text belongs (a message's role, content,
    tool name or call id, a step reward's kind, a summary's tag, a logtree node, a config
    fact, an observe v) gave 'internal error RecursionError' (str() and repr() recurse):
    now its JSON text, or a message naming the line. Deeper than orjson's 1,024 levels, a
    line is unreadable, named by file and line."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))  # to write the test's own JSON
    try:
        _deep_inputs(tmp_path, limit)
    finally:
        sys.setrecursionlimit(limit)


def _deep_inputs(tmp_path: Path, limit: int) -> None:
    import json

    from .hostile import deep, deep_json

    def invoke(*args: str) -> Any:
        sys.setrecursionlimit(limit)  # reportgen runs with Python's own limit
        try:
            return CliRunner().invoke(main, list(args))
        finally:
            sys.setrecursionlimit(5000)

    d = deep(1000, "leaf")
    o = one_conversation(
        [
            {"role": d, "content": d, "tool_calls": [{"id": d, "name": d, "arguments": d}]},
            {"role": "tool", "content": "r", "tool_call_id": d},
        ],
        step_rewards=[{"step_index": 0, "kind": d, "reward": 1.0, "message_indices": [0]}],
    )
    src = o.write(tmp_path / "obs")
    r = invoke("build", str(src), "-o", str(tmp_path / "o1"))
    assert r.exit_code == 0 and "internal error" not in r.output, r.output
    page = (tmp_path / "o1" / "train_iteration_000001.html").read_text()
    assert "leaf" in page
    # an observe line deeper than 1,024 levels: unreadable, named
    lines = (src / "observe.jsonl").read_text().splitlines()
    lines[0] = lines[0].replace('"v":1', '"v":1,"deep":' + deep_json(2000, "x"), 1)
    (src / "observe.jsonl").write_text("\n".join(lines) + "\n")
    r = invoke("build", str(src), "-o", str(tmp_path / "o2"))
    assert "internal error" not in r.output and r.exit_code in (0, 1), r.output
    r = invoke("check", str(src))
    assert "observe.jsonl:1: unreadable line: not JSON (nested deeper than 1,024 levels)" in r.output, r.output
    # tinker: a summary's tag, a logtree node, a config fact
    run = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "tk")
    summaries = run / "iteration_000001" / "train_rollout_summaries.jsonl"
    recs = [json.loads(x) for x in summaries.read_text().splitlines()]
    recs[0]["tags"] = [d]
    summaries.write_text("".join(json.dumps(x) + "\n" for x in recs))
    config = json.loads((run / "config.json").read_text())
    config["max_tokens"] = d
    (run / "config.json").write_text(json.dumps(config))
    tree = json.loads((run / "iteration_000001" / "train_logtree.json").read_text())
    tree["root"]["children"].append(d)
    (run / "iteration_000001" / "train_logtree.json").write_text(json.dumps(tree))
    for cmd in (["build", str(run), "-o", str(tmp_path / "o3")], ["check", str(run)]):
        r = invoke(*cmd)
        assert r.exit_code in (0, 1) and "internal error" not in r.output, r.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_device_in_place_of_a_file_is_refused_at_once(tmp_path):
    """A FIFO named metrics.jsonl (or a summaries file) blocked build and check for ever in
    open(); /dev/zero linked as config.json was read until memory ran out."""
    run = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "fifo")
    (run / "metrics.jsonl").unlink()
    os.mkfifo(run / "metrics.jsonl")
    result: dict[str, Any] = {}

    def go() -> None:
        result["check"] = CliRunner().invoke(main, ["check", str(run)])
        result["build"] = CliRunner().invoke(main, ["build", str(run), "-o", str(tmp_path / "o1")])

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():  # unblock the reader so the test process can end
        fd = os.open(run / "metrics.jsonl", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        raise AssertionError("a FIFO blocked the build")
    assert "metrics.jsonl" in result["check"].output and "not a regular file" in result["check"].output
    assert result["build"].exit_code == 1 and "not a regular file" in result["build"].output
    if os.path.exists("/dev/zero"):
        zero = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "zero")
        (zero / "config.json").unlink()
        (zero / "config.json").symlink_to("/dev/zero")
        r = CliRunner().invoke(main, ["build", str(zero), "-o", str(tmp_path / "o2")])
        # a link out of the source: never opened, the run is read without it
        # (test_links_out_of_the_source_are_not_followed)
        assert r.exit_code == 0 and "config.json: not read, a link that leads out of" in r.output


def test_odd_files_get_a_message_of_their_own(tmp_path, monkeypatch):
    """observe.jsonl that is a folder; a config.json that is a list; a full disk while the
    assets are copied (shutil.copytree's error was 10 KB of tuples)."""
    import shutil as sh

    (tmp_path / "o" / "observe.jsonl").mkdir(parents=True)
    r = CliRunner().invoke(main, ["build", str(tmp_path / "o"), "-o", str(tmp_path / "s1")])
    assert r.exit_code == 1 and "observe.jsonl: not a regular file" in r.output, r.output
    run = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "tk")
    (run / "config.json").write_text("[1, 2]")
    r = CliRunner().invoke(main, ["build", str(run), "-o", str(tmp_path / "s2")])
    assert r.exit_code == 0 and "config.json: a list, not the object tinker writes" in r.output, r.output

    def full(src: Any, dst: Any, **kw: Any) -> None:
        raise sh.Error([(f"{src}/{n}", f"{dst}/{n}", f"[Errno 28] No space left on device: '{n}'") for n in "abc"])

    monkeypatch.setattr("reportgen.site.shutil.copytree", full)
    src = Obs().run()
    src.batch(src.prompt("p:0", "q"), src.rollout(1, 0, 0))
    src.batch(src.update(1))
    r = CliRunner().invoke(main, ["build", str(src.write(tmp_path / "o2")), "-o", str(tmp_path / "s3")])
    assert r.exit_code == 1 and r.output.strip().endswith("No space left on device"), r.output
    assert len(r.output) < 300 and not (tmp_path / "s3").exists()


def test_links_out_of_the_source_are_not_followed(tmp_path):
    """A site is published: a logs.log linked to a file of secrets, a code.diff linked to
    /etc/passwd or an iteration folder linked to another run must not end up in it. Such
    links are not read, and the build says so; a link that stays inside the source is
    followed, and an observe.jsonl named on the command line may be a link to anywhere."""
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET=hunter2\n")
    other = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "other")
    run = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "tk")
    (run / "logs.log").symlink_to(secret)
    (run / "code.diff").unlink()
    (run / "code.diff").symlink_to(secret)
    (run / "iteration_000004").symlink_to(other / "iteration_000000")
    (run / "inside").mkdir()
    (run / "inside" / "checkpoints.jsonl").write_bytes((run / "checkpoints.jsonl").read_bytes())
    (run / "checkpoints.jsonl").unlink()
    (run / "checkpoints.jsonl").symlink_to(Path("inside") / "checkpoints.jsonl")  # stays inside
    before = hash_tree(run)
    r = CliRunner().invoke(main, ["build", str(run), "-o", str(tmp_path / "site")])
    assert r.exit_code == 0, r.output
    site = tmp_path / "site"
    for f in site.rglob("*"):
        if f.is_file():
            assert b"hunter2" not in f.read_bytes(), f
    assert not (site / "train_iteration_000004.html").exists()
    for name in ("logs.log", "code.diff", "iteration_000004"):
        assert f"{name}: not read, a link that leads out of" in r.output, name
    assert "checkpoints.jsonl: not read" not in r.output
    assert "Checkpoints" in (site / "index.html").read_text()  # the link inside was followed
    assert hash_tree(run) == before
    c = CliRunner().invoke(main, ["check", str(run)])
    assert any("logs.log" in line and "not read, a link that leads out of" in line for line in c.output.splitlines())

    # observe: the export linked from inside a folder is refused with a message naming it;
    # named itself, it is read
    real = tmp_path / "data" / "observe.jsonl"
    real.parent.mkdir()
    Obs().run().batch(Obs().prompt(), Obs.rollout(1, 0, 0, "hi")).write(real.parent)
    folder = tmp_path / "obs"
    folder.mkdir()
    (folder / "observe.jsonl").symlink_to(real)
    r = CliRunner().invoke(main, ["build", str(folder), "-o", str(tmp_path / "s2")])
    assert r.exit_code == 1 and "observe.jsonl" in r.output and "leads out of" in r.output, r.output
    r = CliRunner().invoke(main, ["build", str(folder / "observe.jsonl"), "-o", str(tmp_path / "s3")])
    assert r.exit_code == 0, r.output


def test_a_sweep_reads_run_folders_linked_from_elsewhere(tmp_path):
    """In a folder of runs, a run linked from elsewhere is a run of its own (the root of
    its own reads), not a link out of one run's source."""
    elsewhere = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "store" / "arith")
    runs = tmp_path / "runs"
    runs.mkdir()
    _copy(FIXTURES / "tinker" / "arith_sync", runs / "a")
    (runs / "b").symlink_to(elsewhere)
    r = CliRunner().invoke(main, ["build", str(runs), "-o", str(tmp_path / "site")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "site" / "a" / "index.html").is_file()
    assert (tmp_path / "site" / "b" / "index.html").is_file()
    assert "leads out of" not in r.output


def test_tinker_iteration_names_are_ascii_digits_below_2_53(tmp_path):
    """tinker writes iteration_NNNNNN with ASCII digits: a folder of fullwidth or Arabic-Indic
    digits ("iteration_００００００１", which Python's \\d matches) is no iteration, so it
    cannot take a real one's place; a number of 2^53 or more is ignored with a warning, not
    an internal error."""
    run = _copy(FIXTURES / "tinker" / "arith_sync", tmp_path / "tk")
    shutil.copytree(run / "iteration_000000", run / "iteration_\uff10\uff10\uff10\uff10\uff10\uff11")
    shutil.copytree(run / "iteration_000000", run / "iteration_\u0660\u0660\u0660\u0660\u0660\u0662")
    shutil.copytree(run / "iteration_000000", run / f"iteration_{2**64}")
    (run / f"train_iteration_{2**70}.html").write_text("<html></html>")
    r = CliRunner().invoke(main, ["build", str(run), "-o", str(tmp_path / "site")])
    assert r.exit_code == 0, r.output
    assert f"iteration number {2**64} is past 2^53; ignored" in r.output
    assert f"iteration number {2**70} is past 2^53; ignored" in r.output
    assert "holds the same file" not in r.output  # no lookalike replaced iteration 1 or 2
    page = (tmp_path / "site" / "train_iteration_000001.html").read_text()
    original = CliRunner().invoke(main, ["build", str(FIXTURES / "tinker" / "arith_sync"), "-o", str(tmp_path / "o")])
    assert original.exit_code == 0
    assert page.count('class="member"') == (tmp_path / "o" / "train_iteration_000001.html").read_text().count(
        'class="member"'
    )
