"""The site folder: atomic swaps, refusals, interrupted builds, links never followed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.errors import OutputError
from reportgen.site import MARKER, BuildOptions, SiteWriter, build, recover_stale

from .hostile import hash_tree
from .obs import Obs

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = FIXTURES / "observe" / "examples"
ROOT = Path(__file__).parent.parent


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.reportgen-"))


def many_updates(directory: Path, n: int = 40) -> Path:
    o = Obs().run()
    for u in range(1, n + 1):
        o.batch(o.prompt(f"p:{u}"), *(Obs.rollout(u, 0, m, prompt=f"p:{u}") for m in range(4)))
        o.batch(Obs.update(u, reward__mean=0.5))
    return o.write(directory)


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.fixture
def site(tmp_path) -> Path:
    out = tmp_path / "site"
    build(str(EXAMPLES), out, BuildOptions(jobs=1))
    return out


def test_refuses_a_foreign_folder_unless_forced(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    r = invoke("build", str(EXAMPLES), "-o", str(out))
    assert r.exit_code == 1 and "not a reportgen site" in r.output and "--force" in r.output
    assert (out / "thesis.tex").read_text() == "years of work"
    # a marker that is a link does not make a site
    (out / MARKER).symlink_to(tmp_path / "elsewhere")
    assert invoke("build", str(EXAMPLES), "-o", str(out)).exit_code == 1
    assert invoke("build", str(EXAMPLES), "-o", str(out), "--force").exit_code == 0
    assert (out / "index.html").is_file() and not (out / "thesis.tex").exists()
    assert leftovers(out) == []


def test_refuses_links_files_and_the_input_itself(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    r = invoke("build", str(EXAMPLES), "-o", str(link))
    assert r.exit_code == 1 and "symbolic link" in r.output
    (tmp_path / "file").write_text("x")
    assert invoke("build", str(EXAMPLES), "-o", str(tmp_path / "file")).exit_code == 2  # click: not a folder
    with pytest.raises(OutputError):
        build(str(EXAMPLES), tmp_path / "file")
    assert (tmp_path / "file").read_text() == "x"
    run = many_updates(tmp_path / "run", 2)
    before = hash_tree(tmp_path / "run")
    for out in (run, tmp_path):  # the input folder, or a folder holding it
        r = invoke("build", str(run), "-o", str(out), "--force")
        assert r.exit_code == 1 and "holds the input" in r.output, r.output
    r = invoke("build", str(run / "observe.jsonl"), "-o", str(run), "--force")
    assert r.exit_code == 1
    assert hash_tree(tmp_path / "run") == before


def test_failed_build_leaves_the_previous_site(site, tmp_path):
    before = hash_tree(site)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "observe.jsonl").write_text('{"v":2,"type":"run","segment":0,"batch_id":0,"batch_index":0,"batch_len":1}\n')
    r = invoke("build", str(bad), "-o", str(site))
    assert r.exit_code == 1 and "observe.jsonl:1" in r.output
    assert hash_tree(site) == before
    assert leftovers(site) == []


def test_error_while_rendering_leaves_the_previous_site(site, monkeypatch):
    import reportgen.site as site_mod

    before = hash_tree(site)
    calls = []

    def boom(self, name, data):
        calls.append(name)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", name)
        return orig(self, name, data)

    orig = site_mod.SiteWriter.write
    monkeypatch.setattr(site_mod.SiteWriter, "write", boom)
    r = invoke("build", str(EXAMPLES), "-o", str(site))
    assert r.exit_code == 1 and "No space left" in r.output
    assert hash_tree(site) == before and leftovers(site) == []


def test_an_error_of_the_main_process_stops_the_workers_rendering(tmp_path, monkeypatch):
    """While the workers render, the main process writes the chart files: if that fails, the
    build stops without waiting for the pages not yet begun, and the previous site stays."""
    import reportgen.site as site_mod

    from .test_incremental import small_main_process

    pools = small_main_process(monkeypatch)
    src = many_updates(tmp_path / "src", 40)
    out = tmp_path / "site"
    build(str(src), out, BuildOptions(jobs=1))
    before = hash_tree(out)
    log = tmp_path / "rendered"
    orig = site_mod._render_iteration

    def slow(*a, **k):  # inherited by the forked workers
        with open(log, "a") as f:
            f.write("x")
        time.sleep(0.05)
        return orig(*a, **k)

    def boom(*a):
        raise OSError(28, "No space left on device", "metrics.csv")

    monkeypatch.setattr(site_mod, "_render_iteration", slow)
    monkeypatch.setattr(site_mod, "chart_parts", boom)
    with pytest.raises(OSError, match="No space left"):
        build(str(src), out, BuildOptions(jobs=2, incremental=False))
    assert pools == [2]
    assert len(log.read_text()) < 20  # of 40: the pages not begun were dropped
    assert hash_tree(out) == before and leftovers(out) == []


SLOW_BUILD = """
import signal, sys, time
# a shell that starts the suite in the background makes its children ignore SIGINT
signal.signal(signal.SIGINT, signal.default_int_handler)
import reportgen.site as s
orig = s.SiteWriter.write
def slow(self, name, data):
    written = orig(self, name, data)
    if name.endswith(".html"):
        print("wrote", name, flush=True)
        time.sleep(0.3)
    return written
s.SiteWriter.write = slow
s.build(sys.argv[1], s.Path(sys.argv[2]), s.BuildOptions(jobs=1))
"""


def _start_slow_build(
    src: Path, out: Path, jobs: int = 1, first: str = "wrote", script: str | None = None
) -> subprocess.Popen:
    """A build slowed down page by page, in a process group of its own (a terminal's job),
    returned once it printed a line starting with ``first`` (a page is in the staging folder).
    ``script``: another one than SLOW_BUILD, given SRC and OUT."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if script is None:
        script = SLOW_BUILD.replace("BuildOptions(jobs=1)", f"BuildOptions(jobs={jobs})")
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), str(src), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    while not (line := proc.stdout.readline()).startswith(first):
        assert line and proc.poll() is None, proc.stderr.read() if proc.stderr else line
    return proc


def test_sigkill_mid_build_keeps_the_old_site_and_the_next_build_cleans_up(site, tmp_path):
    before = hash_tree(site)
    src = many_updates(tmp_path / "run", 30)
    proc = _start_slow_build(src, site)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert hash_tree(site) == before
    assert leftovers(site) == [f".site.reportgen-tmp-{proc.pid}"]
    # the next build removes the stale staging folder of the dead build
    build(str(src), site, BuildOptions(jobs=1))
    assert leftovers(site) == []
    assert (site / "train_iteration_000030.html").is_file()


def test_sigint_mid_build_cleans_up_and_keeps_the_old_site(site, tmp_path):
    before = hash_tree(site)
    src = many_updates(tmp_path / "run", 30)
    proc = _start_slow_build(src, site)
    proc.send_signal(signal.SIGINT)
    proc.wait(10)
    assert proc.returncode != 0
    assert hash_tree(site) == before
    assert leftovers(site) == []


def test_ctrl_c_to_the_process_group_mid_parallel_build_ends_cleanly(site, tmp_path):
    """A terminal's Ctrl-C reaches the workers too: they used to die with tracebacks of their
    own and now and then leave the pool's queues locked, so that the build hung. Workers
    ignore it; the main process cancels what is not begun and says it once."""
    before = hash_tree(site)
    src = many_updates(tmp_path / "run", 40)
    for _ in range(3):
        proc = _start_slow_build(src, site, jobs=2, first="wrote train_")  # workers are rendering
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError("the build hung after Ctrl-C") from None
        assert proc.returncode != 0
        # no worker's own traceback (a worker that took the signal mid-page sent it back)
        assert "ForkProcess" not in err and "_RemoteTraceback" not in err, err
        assert hash_tree(site) == before
        assert leftovers(site) == []


def _killed_between_the_renames(site: Path, monkeypatch, make: Any) -> None:
    """Run ``make`` (a build of ``site``) as a process that dies between _swap's two renames:
    the previous site is left aside as .site.reportgen-old-PID, PID no longer running."""
    pid = dead_pid()
    real = os.replace

    def killed(a: Any, b: Any) -> None:
        if Path(b) == site and ".reportgen-tmp-" in str(a):
            raise KeyboardInterrupt  # killed here: the new site never moved in
        real(a, b)

    monkeypatch.setattr(os, "getpid", lambda: pid)
    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        make()
    monkeypatch.undo()
    assert not site.exists() and (site.parent / f".site.reportgen-old-{pid}").is_dir()


@pytest.mark.parametrize("kind", ["run", "sweep"])
def test_a_site_set_aside_by_a_build_killed_between_the_renames_comes_back(tmp_path, monkeypatch, kind):
    """_swap marks the previous site as ours before it moves aside (a sweep has no state file
    to tell it by): the next build puts it back, even one that fails."""
    from reportgen.sweep import build_sweep, plan_sweep

    src = many_updates(tmp_path / "runs" / "a", 2)
    many_updates(tmp_path / "runs" / "b", 2)
    site = tmp_path / "site"

    def make() -> None:
        if kind == "run":
            build(str(src), site, BuildOptions(jobs=1, incremental=False))  # a swap, not a move in place
        else:
            build_sweep(plan_sweep([str(tmp_path / "runs")], site), site, BuildOptions(jobs=1))

    make()
    before = hash_tree(site)
    _killed_between_the_renames(site, monkeypatch, make)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "observe.jsonl").write_text('{"v":2,"type":"run","segment":0,"batch_id":0,"batch_index":0,"batch_len":1}\n')
    assert invoke("build", str(bad), "-o", str(site)).exit_code == 1
    assert hash_tree(site) == before and leftovers(site) == []


def test_killed_between_the_two_renames(site, tmp_path):
    """The previous site sat aside as .site.reportgen-old-PID when the build died: it comes back."""
    from reportgen import site as site_mod

    before = hash_tree(site)
    aside = site.parent / f".site.reportgen-old-{dead_pid()}"
    (site / site_mod.OWNER).write_text(site_mod._owner_mac(aside) or "", "ascii")  # as _swap marks it
    os.replace(site, aside)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "observe.jsonl").write_text('{"v":2,"type":"run","segment":0,"batch_id":0,"batch_index":0,"batch_len":1}\n')
    assert invoke("build", str(bad), "-o", str(site)).exit_code == 1
    assert hash_tree(site) == before  # restored even though this build failed
    assert leftovers(site) == []
    (site / site_mod.OWNER).write_text(site_mod._owner_mac(aside) or "", "ascii")
    os.replace(site, aside)
    build(str(many_updates(tmp_path / "run", 2)), site, BuildOptions(jobs=1))
    assert leftovers(site) == [] and (site / "train_iteration_000002.html").is_file()


def test_live_builds_and_foreign_names_are_left_alone(site, tmp_path):
    mine = site.parent / f".site.reportgen-tmp-{os.getppid()}"  # a live process: maybe a concurrent build
    mine.mkdir()
    other = site.parent / ".siteX.reportgen-tmp-1"
    other.mkdir()
    stale = site.parent / f".site.reportgen-tmp-{dead_pid()}"
    stale.symlink_to(tmp_path / "not-followed")
    (tmp_path / "not-followed").mkdir()
    (tmp_path / "not-followed" / "keep").write_text("x")
    removed = recover_stale(site)
    assert removed == [stale]
    assert mine.is_dir() and other.is_dir() and (tmp_path / "not-followed" / "keep").is_file()


def test_links_in_the_old_site_are_never_followed(site, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (outside / "reportgen.js").write_text("// not ours")
    before_outside = hash_tree(outside)
    # the previous site's assets folder and a page replaced by links out of the site
    import shutil

    shutil.rmtree(site / "assets")
    (site / "assets").symlink_to(outside)
    page = site / "train_iteration_000001.html"
    page.unlink()
    page.symlink_to(outside / "secret.txt")
    # a tampered state file naming paths out of the site for reuse
    state = site / ".reportgen-state"
    if state.is_file():
        text = state.read_text()
        text = text.replace("train_iteration_000002.html", "../outside/secret.txt")
        state.write_text(text)
    build(str(EXAMPLES), site, BuildOptions(jobs=1))
    assert hash_tree(outside) == before_outside
    assert not (site / "assets").is_symlink() and (site / "assets" / "reportgen.js").read_text() != "// not ours"
    assert not page.is_symlink() and "secret" not in page.read_text()
    for p in site.rglob("*"):
        assert not p.is_symlink(), p
    assert sorted(tmp_path.iterdir()) == sorted([outside, site])


def test_site_writer_refuses_paths_out_of_the_site(tmp_path):
    w = SiteWriter(tmp_path / "s")
    (tmp_path / "s").mkdir()
    for bad in ("../x.html", "/etc/passwd", "a/../../x", "assets/../../y"):
        with pytest.raises(OutputError):
            w.write(bad, "x")
    (tmp_path / "s" / "link").symlink_to(tmp_path)
    with pytest.raises(OutputError):
        w.write("link/evil.html", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]


def test_site_writer_refuses_a_symlink_in_a_files_place(tmp_path):
    (tmp_path / "s" / "sub").mkdir(parents=True)
    w = SiteWriter(tmp_path / "s")
    for name in ("page.html", "sub/page.json"):
        (tmp_path / "s" / name).symlink_to(tmp_path / "target")
        with pytest.raises(OutputError):
            w.write(name, "x")
    assert not (tmp_path / "target").exists()
    w.write("sub/ok.html", "<p>")  # a folder is checked once, then written to
    w.write("sub/ok2.json", b"{}")
    assert (tmp_path / "s" / "sub" / "ok.html").read_text() == "<p>" and w.files == ["sub/ok.html", "sub/ok2.json"]


def test_concurrent_build_of_the_same_site_never_mixes(tmp_path):
    out = tmp_path / "site"
    a = many_updates(tmp_path / "a", 3)
    b = many_updates(tmp_path / "b", 5)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "reportgen", "build", str(src), "-o", str(out), "-q", "--jobs", "1"],
            env=env,
            stderr=subprocess.PIPE,
        )
        for src in (a, b, a)
    ]
    deadline = time.time() + 60
    codes = [p.wait(max(1, deadline - time.time())) for p in procs]
    assert 0 in codes
    assert all(c in (0, 1) for c in codes)
    pages = sorted(p.name for p in out.glob("train_iteration_*.html"))
    assert pages in (
        [f"train_iteration_{i:06d}.html" for i in range(1, 4)],
        [f"train_iteration_{i:06d}.html" for i in range(1, 6)],
    )
    assert leftovers(out) == []


KILLED_IN_COMMIT = """
import os, sys
import reportgen.site as s
real_replace, real_unlink = os.replace, os.unlink
moves = []
def replace(a, b):
    if ".reportgen-tmp-" in str(a):  # a staged entry moving into the site
        moves.append(a)
        if sys.argv[3] == "move" and len(moves) == 4:
            os._exit(9)
    real_replace(a, b)
def unlink(p, *args, **kw):
    if sys.argv[3] == "unlink" and str(p).endswith(s.STATE):
        os._exit(9)
    real_unlink(p, *args, **kw)
os.replace, os.unlink = replace, unlink
s.build(sys.argv[1], s.Path(sys.argv[2]), s.BuildOptions(jobs=1))
"""


def contents(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


# the same slow pages, built by the command line (its signal handlers) with two workers
SLOW_CLI_BUILD = SLOW_BUILD.replace(
    "s.build(sys.argv[1], s.Path(sys.argv[2]), s.BuildOptions(jobs=1))",
    'from reportgen.cli import main\nmain(["build", sys.argv[1], "-o", sys.argv[2], "--jobs", "2", "-q"])',
)
assert SLOW_CLI_BUILD != SLOW_BUILD


def _children(pid: int) -> list[int]:
    kids = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids += [int(k) for k in f.read().split()]
    return kids


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has exited
    except OSError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers die with their parent on Linux")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_a_build_killed_alone_leaves_no_worker_behind(site, tmp_path, sig):
    """``kill PID`` of the main process while its render pool works: the workers went on
    waiting for ever, holding its stdout and stderr (a caller reading them hung). They die
    with it now; SIGTERM and SIGHUP stop the build as Ctrl-C does (staging removed, exit
    128 + the signal), and SIGKILL leaves the old site, as before."""
    before = hash_tree(site)
    src = many_updates(tmp_path / "run", 30)
    proc = _start_slow_build(src, site, script=SLOW_CLI_BUILD)
    workers = _children(proc.pid)
    assert len(workers) == 2
    proc.send_signal(sig)  # the main process only, as `kill PID` does
    try:
        proc.communicate(timeout=30)  # returns once nothing holds its pipes any more
    finally:
        for w in workers:
            if not _gone(w):
                os.kill(w, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while not all(map(_gone, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(map(_gone, workers))
    assert hash_tree(site) == before
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        assert leftovers(site) == [f".site.reportgen-tmp-{proc.pid}"]
    else:
        assert proc.returncode == 128 + sig
        assert leftovers(site) == []


@pytest.mark.parametrize("when", ["unlink", "move"])
def test_killed_while_moving_files_into_the_site(tmp_path, when):
    """A rebuild killed while it moves its new files into the site: before the first move the
    previous site stays; after it, the next build finishes the move (the journal in the
    staging folder names the new site's files), and the result is the new site."""
    from reportgen.site import STATE

    src = many_updates(tmp_path / "run", 12)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    before = hash_tree(site)
    (site / "stray.html").write_text("gone after the move")
    # the run goes on: 16 updates where there were 12
    (src / "observe.jsonl").write_bytes((many_updates(tmp_path / "run2", 16) / "observe.jsonl").read_bytes())
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(KILLED_IN_COMMIT), str(src), str(site), when], env=env
    )
    proc.wait(60)
    assert proc.returncode == 9
    assert leftovers(site) == [f".site.reportgen-tmp-{proc.pid}"]
    assert (site / STATE).exists() == (when == "unlink")
    recovered = recover_stale(site)
    assert len(recovered) == 1 and leftovers(site) == []
    if when == "unlink":  # nothing moved yet: the previous site
        (site / "stray.html").unlink()
        assert hash_tree(site) == before
    else:  # the move finished: the new site, as a full build makes it
        full = tmp_path / "full"
        build(str(src), full, BuildOptions(jobs=1, incremental=False))
        assert contents(site) == contents(full)
    assert build(str(src), site, BuildOptions(jobs=1)).reused > 0


def test_a_file_system_without_locks_still_builds(tmp_path, monkeypatch):
    """Some cluster file systems refuse flock (Lustre mounted noflock, NFS): the build puts
    its site in place without the lock instead of failing."""
    import errno
    import fcntl

    def refuse(fd, op):
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(fcntl, "flock", refuse)
    src = many_updates(tmp_path / "run", 3)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))  # a new site: nothing to lock
    (src / "observe.jsonl").write_bytes((many_updates(tmp_path / "run2", 5) / "observe.jsonl").read_bytes())
    again = build(str(src), site, BuildOptions(jobs=1))  # the move into the site
    assert again.reused > 0 and (site / "train_iteration_000005.html").is_file()
    build(str(src), site, BuildOptions(jobs=1, incremental=False))  # the swap of an existing site
    assert (site / "train_iteration_000005.html").is_file() and leftovers(site) == []


def test_interrupted_while_moving_files_in_the_build_finishes_the_move(tmp_path, monkeypatch):
    """Ctrl-C (or an error) in the middle of a rebuild's move into the site: the build finishes
    the move before it stops, so the site is the new one, whole, and nothing is left beside it."""
    from reportgen.site import STATE

    src = many_updates(tmp_path / "run", 6)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    (src / "observe.jsonl").write_bytes((many_updates(tmp_path / "run2", 9) / "observe.jsonl").read_bytes())
    real = os.replace
    moves: list[str] = []

    def interrupted(a, b):
        if ".reportgen-tmp-" in str(a) and ".reportgen-trash" not in str(b):
            moves.append(str(b))
            if len(moves) == 3:
                raise KeyboardInterrupt
        real(a, b)

    monkeypatch.setattr(os, "replace", interrupted)
    r = invoke("build", str(src), "-o", str(site), "-q", "--jobs", "1")
    monkeypatch.setattr(os, "replace", real)
    assert r.exit_code == 130 and "the new site was already being put in place and is complete" in r.output
    assert len(moves) > 3 and leftovers(site) == [] and (site / STATE).is_file()
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert contents(site) == contents(full)


def test_page_writers_share_the_builds_checks_of_their_root_only(tmp_path):
    """A page's writer takes the build writer's resolved root and checked folders (a writer
    per page resolving them again cost 0.1 ms a page); a writer of another root checks anew."""
    (tmp_path / "s").mkdir()
    (tmp_path / "t").mkdir()
    w = SiteWriter(tmp_path / "s")
    w.write("sub/a.html", "<p>")
    page = SiteWriter(w.root, w)
    assert page._dirs is w._dirs and page.root == w.root and page.files == [] and page.count == 0
    page.write("sub/b.html", "<p>")
    assert page.files == ["sub/b.html"] and w.files == ["sub/a.html"]
    other = SiteWriter(tmp_path / "t", w)
    assert other._dirs is not w._dirs and other.root == (tmp_path / "t").resolve()
    (tmp_path / "t" / "sub").symlink_to(tmp_path / "s" / "sub")
    with pytest.raises(OutputError):
        other.write("sub/evil.html", "x")


def test_script_literals_keep_a_proto_key_as_a_property():
    """Data files are scripts: in an object literal a "__proto__" key would set the prototype.
    It is written as a computed key; the same text inside strings is left alone."""
    from reportgen.views.text import script_json, script_key

    text = script_json({"__proto__": [1], "a": {"__proto__": None}, "s": ',"__proto__":1', "t": '{"__proto__" : 2}'})
    assert text == '{["__proto__"]:[1],"a":{["__proto__"]:null},"s":",\\"__proto__\\":1","t":"{\\"__proto__\\" : 2}"}'
    deep: object = 1
    for _ in range(300):  # past orjson's depth: the indented fallback, keys after blank space
        deep = {"__proto__": deep}
    assert '"__proto__"' not in script_json(deep).replace('["__proto__"]', "")
    assert script_key("__proto__") == '["__proto__"]' and script_key("x</") == '"x\\u003c/"'


def test_script_escaping_by_replace_is_translates():
    """script_escaped (a test and a replace per character present) gives what translate by
    the table gives, on random texts dense in the five characters, in ASCII and wide texts."""
    import random

    from reportgen.views.text import _SCRIPT_ESCAPES, script_escaped, script_json

    rnd = random.Random(11)
    pool = ["<", ">", "&", "\u2028", "\u2029", "a", "\\", "u", "0", "é", "\U0001f600", "</script>", "<!--", '"']
    for _ in range(2000):
        text = "".join(rnd.choice(pool) for _ in range(rnd.randrange(0, 40)))
        assert script_escaped(text) == text.translate(_SCRIPT_ESCAPES), repr(text)
    out = script_json({"k</script><!--": "\u2028&\u2029>"})
    assert "<" not in out and ">" not in out and "&" not in out and "\u2028" not in out and "\u2029" not in out


def test_a_sweep_never_writes_over_or_around_its_runs(tmp_path):
    """A sweep whose OUT is, or holds, one of its runs swapped OUT away with the runs in it
    (exit 0, every export gone): refused before anything is removed, as for one run."""
    runs = tmp_path / "runs"
    for name in ("a", "b"):
        many_updates(runs / name, 2)
    before = hash_tree(runs)
    for args in (
        (str(runs), "-o", str(runs), "--force"),
        (str(runs), "-o", str(tmp_path), "--force"),
        (str(runs / "a"), str(runs / "b"), "-o", str(runs)),
    ):
        r = invoke("build", *args)
        assert r.exit_code == 1 and "holds the input" in r.output, (args, r.output)
        assert hash_tree(runs) == before
    # a site that is already a sweep's: no --force needed, and still refused
    site = tmp_path / "site"
    assert invoke("build", str(runs), "-o", str(site)).exit_code == 0
    for name in ("r1", "r2"):
        many_updates(site / name, 2)
    inside = hash_tree(site / "r1")
    r = invoke("build", str(site / "r1"), str(site / "r2"), "-o", str(site))
    assert r.exit_code == 1 and "holds the input" in r.output
    assert hash_tree(site / "r1") == inside


def test_an_input_named_like_a_staging_folder_is_never_cleared(tmp_path):
    """recover_stale removes .OUT.reportgen-tmp-PID folders of dead builds; an input of that
    name (a copy, an unpacked artifact) was removed before the build read it."""
    src = many_updates(tmp_path / f".site.reportgen-tmp-{dead_pid()}", 2)
    before = hash_tree(src)
    r = invoke("build", str(src), "-o", str(tmp_path / "site"))
    assert r.exit_code == 0, r.output
    assert hash_tree(src) == before
    assert recover_stale(tmp_path / "site", [str(src / "observe.jsonl")]) == []
    assert hash_tree(src) == before


@pytest.fixture
def other_user(tmp_path, monkeypatch):
    """Builds as another user of reportgen would make them: another key (``trust``)."""
    from reportgen import trust

    def switch(name: str) -> None:
        monkeypatch.setenv("REPORTGEN_KEY", str(tmp_path / "keys" / name))
        trust.local_key.cache_clear()

    yield switch
    monkeypatch.delenv("REPORTGEN_KEY", raising=False)
    trust.local_key.cache_clear()


def test_leftovers_planted_beside_an_out_inside_the_input_are_not_ours(tmp_path):
    """OUT inside a hostile input: folders named like a killed build's leftovers were taken
    for ours. An "old" site was installed as the site, and a "tmp" one with a journal was
    finished through its trash folder, a link out of everything: files landed anywhere."""
    src = many_updates(tmp_path / "run", 2)
    victim = tmp_path / "victim"
    victim.mkdir()
    old = src / f".site.reportgen-old-{dead_pid()}"
    (old / "payload").mkdir(parents=True)
    (old / "payload" / "evil.txt").write_text("evil")
    (old / MARKER).write_text("{}")
    (old / ".reportgen-state").write_text('{"format":3}')
    tmp = src / f".site.reportgen-tmp-{dead_pid()}"
    tmp.mkdir()
    (tmp / ".reportgen-commit").write_text("[]")
    (tmp / ".reportgen-trash").symlink_to(victim)
    before = hash_tree(src)
    out = src / "site"
    r = invoke("build", str(src), "-o", str(out))
    assert r.exit_code == 0, r.output
    assert list(victim.iterdir()) == []
    assert not (out / "payload").exists() and (out / "train_iteration_000002.html").is_file()
    # the input is as it was: the planted folders are left where they are, untouched
    assert {k: v for k, v in hash_tree(src).items() if not k.startswith("site")} == before


def test_a_state_file_made_elsewhere_is_not_trusted(tmp_path, other_user):
    """A site from elsewhere (downloaded, restored from a cache) rebuilt into: its state file
    made the rebuild keep its data files and pages as they were, a script in one included.
    Only a state this user's builds signed is read; any other means a full build."""
    src = many_updates(tmp_path / "run", 3)
    out = tmp_path / "site"
    other_user("theirs")
    build(str(src), out, BuildOptions(jobs=1))
    data = next(out.glob("metrics_data*"))
    target = next(data.glob("*.js")) if data.is_dir() else data
    target.write_bytes(target.read_bytes().replace(b"[", b"[(window.__rgpwn=1,0.5),", 1))
    page = out / "train_iteration_000001.html"
    page.write_bytes(page.read_bytes().replace(b"</main>", b"<p>planted</p></main>", 1))
    other_user("mine")
    r = build(str(src), out, BuildOptions(jobs=1))
    assert r.reused == 0
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert contents(out) == contents(full)
    # the same user's state is read: the next rebuild reuses every page
    assert build(str(src), out, BuildOptions(jobs=1)).reused > 0


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_a_state_file_that_is_no_regular_file_is_not_read(tmp_path, kind):
    """A state file behind a link to /dev/zero took all memory; a FIFO hung the build."""
    src = many_updates(tmp_path / "run", 2)
    out = tmp_path / "site"
    build(str(src), out, BuildOptions(jobs=1))
    state = out / ".reportgen-state"
    state.unlink()
    if kind == "fifo":
        os.mkfifo(state)
    else:
        state.symlink_to("/dev/zero")
    r = build(str(src), out, BuildOptions(jobs=1))
    assert r.reused == 0 and (out / "train_iteration_000002.html").is_file()
    sweep = tmp_path / "sweep"
    build(str(src), sweep / "a", BuildOptions(jobs=1))
    (sweep / MARKER).symlink_to("/dev/zero")
    assert invoke("index", str(sweep)).exit_code == 0


def test_reportgen_index_writes_through_no_link_in_the_site(tmp_path):
    """``reportgen index`` on a sweep folder from elsewhere: its links (.nojekyll, a file or a
    folder of assets) were written through, to files outside the site."""
    src = many_updates(tmp_path / "run", 2)
    sweep = tmp_path / "sweep"
    build(str(src), sweep / "a", BuildOptions(jobs=1))
    victim = tmp_path / "victim"
    (victim / "dir").mkdir(parents=True)
    (victim / "bashrc").write_text("mine")
    (victim / "notes.txt").write_text("notes")
    (sweep / ".nojekyll").symlink_to(victim / "bashrc")
    (sweep / "assets").mkdir()
    (sweep / "assets" / "reportgen.js").symlink_to(victim / "notes.txt")
    (sweep / "assets" / "vendor").symlink_to(victim / "dir")
    before = hash_tree(victim)
    r = invoke("index", str(sweep))
    assert r.exit_code == 0, r.output
    assert hash_tree(victim) == before
    assert (sweep / "assets" / "reportgen.js").is_file() and not (sweep / "assets" / "reportgen.js").is_symlink()
    assert (sweep / "assets" / "vendor" / "vega.min.js").is_file() and not (sweep / ".nojekyll").is_symlink()
    assert [p.name for p in sweep.iterdir() if p.name.startswith(".assets.")] == []


def test_a_key_another_user_could_write_is_no_key(tmp_path, other_user):
    """A key readable or writable by others (a shared HOME=/tmp) would let them sign a state
    for this user: it is not used, and builds are full ones."""
    from reportgen import trust

    other_user("shared")
    key = trust.key_path()
    assert trust.local_key() is not None and key.stat().st_mode & 0o777 == 0o600
    src = many_updates(tmp_path / "run", 2)
    out = tmp_path / "site"
    build(str(src), out, BuildOptions(jobs=1))
    assert build(str(src), out, BuildOptions(jobs=1)).reused > 0
    key.chmod(0o644)
    trust.local_key.cache_clear()
    assert trust.local_key() is None
    r = build(str(src), out, BuildOptions(jobs=1))
    assert r.reused == 0 and any("is not a key of yours" in w for w in r.warnings)
    # said to the one who builds, not on the site
    assert "not a key of yours" not in (out / "index.html").read_text("utf-8")


def test_without_a_key_killed_builds_are_still_cleared(tmp_path, monkeypatch):
    """No key can be made (a read-only home): nothing verifies, so every build is a full one;
    a killed build's staging folder is still removed (never a move finished through it)."""
    from reportgen import trust

    monkeypatch.setenv("REPORTGEN_KEY", str(tmp_path / "not-a-folder" / "key"))
    (tmp_path / "not-a-folder").write_text("a file where the key's folder would be")
    trust.local_key.cache_clear()
    try:
        assert trust.local_key() is None
        src = many_updates(tmp_path / "run", 2)
        out = tmp_path / "site"
        build(str(src), out, BuildOptions(jobs=1))
        stale = out.parent / f".site.reportgen-tmp-{dead_pid()}"
        stale.mkdir()
        (stale / "page.html").write_text("x")
        r = build(str(src), out, BuildOptions(jobs=1))
        assert r.reused == 0 and leftovers(out) == []
        assert any("cannot be made: every build is a full one" in w for w in r.warnings)
    finally:
        trust.local_key.cache_clear()


def test_reportgen_index_reads_no_run_summary_past_its_bound(tmp_path):
    """A run.json of gigabytes (sparse: a few bytes on disk) took all memory."""
    src = many_updates(tmp_path / "run", 2)
    sweep = tmp_path / "sweep"
    build(str(src), sweep / "a", BuildOptions(jobs=1))
    build(str(src), sweep / "b", BuildOptions(jobs=1))
    with open(sweep / "b" / "run.json", "r+b") as f:
        f.truncate(1 << 34)  # 16 GiB, sparse
    r = invoke("index", str(sweep))
    assert r.exit_code == 0, r.output
    assert "b/run.json: not a regular file of at most 256 MiB; left out" in r.output.replace(str(sweep) + "/", "")
