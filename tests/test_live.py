"""Live runs: serve keeps the site current; open pages hear about new updates."""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from reportgen.live import serve
from reportgen.resources import demo_dir
from reportgen.site import BuildOptions

DEMO = demo_dir() / "grpo" / "observe.jsonl"


def _split_demo(tmp_path: Path) -> tuple[Path, bytes]:
    lines = DEMO.read_bytes().splitlines(keepends=True)
    cut = len(lines) // 2
    # cut after a complete batch: a line whose batch_index + 1 == batch_len
    while not re.search(rb'"batch_index":(\d+),"batch_len":(\d+)', lines[cut - 1]) or (
        lambda m: int(m.group(1)) + 1 != int(m.group(2))
    )(re.search(rb'"batch_index":(\d+),"batch_len":(\d+)', lines[cut - 1])):
        cut += 1
    src = tmp_path / "run"
    src.mkdir()
    (src / "observe.jsonl").write_bytes(b"".join(lines[:cut]))
    return src, b"".join(lines[cut:])


@contextlib.contextmanager
def serving(src: Path, out: Path) -> Iterator[str]:
    """Serve ``src`` live into ``out`` on a free loopback port; yields the base URL."""
    stop = threading.Event()
    port: list[int] = []
    t = threading.Thread(
        target=serve,
        kwargs=dict(
            source=str(src),
            out=out,
            options=BuildOptions(jobs=1),
            port=0,
            interval=0.2,
            report=lambda s: None,
            stop=stop,
            ready=port.append,
        ),
        daemon=True,
    )
    t.start()
    try:
        assert _wait(lambda: bool(port))
        yield f"http://127.0.0.1:{port[0]}"
    finally:
        stop.set()
        t.join(10)


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""


def _wait(cond, timeout: float = 30.0) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


def test_serve_follows_a_growing_run(tmp_path):
    src, rest = _split_demo(tmp_path)
    out = tmp_path / "site"
    with serving(src, out) as base:
        status, body = _get(base + "/index.html")
        assert status == 200 and b"assets/live.js" in body
        status, live1 = _get(base + "/live.js")
        assert status == 200 and b'"generation":1' in live1
        newest = max(p.name for p in out.glob("train_iteration_*.html"))
        assert f'"latest":"{newest}","latest_label":"update {int(newest[16:22])}"'.encode() in live1
        req = urllib.request.Request(base + "/index.html", data=b"x", method="POST")
        try:
            urllib.request.urlopen(req, timeout=5)
            raise AssertionError("POST must be refused")
        except urllib.error.HTTPError as e:
            assert e.code == 405
        pages_before = {p.name for p in out.glob("train_iteration_*.html")}
        with open(src / "observe.jsonl", "ab") as f:
            f.write(rest)
        assert _wait(lambda: b'"generation":2' in _get(base + "/live.js")[1])
        pages_after = {p.name for p in out.glob("train_iteration_*.html")}
        assert pages_before < pages_after
        assert "train_iteration_000030.html" in pages_after


def test_serve_fails_at_once_on_a_missing_source_or_a_busy_port(tmp_path):
    """A typo or a port in use is said before any build, not after minutes of one."""
    import socket

    import pytest

    from reportgen.errors import InputError

    with pytest.raises(InputError, match="no such file or folder"):
        serve(str(tmp_path / "nope"), tmp_path / "site", BuildOptions(jobs=1), port=0, report=lambda s: None)
    src, _rest = _split_demo(tmp_path)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        with pytest.raises(OSError):
            serve(str(src), tmp_path / "site", BuildOptions(jobs=1), port=busy.getsockname()[1], report=lambda s: None)
    finally:
        busy.close()
    assert not (tmp_path / "site").exists()  # nothing was built


def test_watch_says_once_that_the_source_went_away(tmp_path):
    import shutil

    from reportgen.live import watch

    src, _rest = _split_demo(tmp_path)
    said: list[str] = []
    stop = threading.Event()
    built = threading.Event()
    units: list[str] = []
    t = threading.Thread(
        target=watch,
        args=(str(src), tmp_path / "site", BuildOptions(jobs=1)),
        kwargs=dict(
            interval=0.05,
            report=said.append,
            stop=stop,
            on_built=built.set,
            progress=lambda d, n, unit: units.append(unit),
        ),
        daemon=True,
    )
    t.start()
    try:
        assert built.wait(30)
        assert "updates" in units  # each build's progress reaches the caller
        shutil.rmtree(src)
        assert _wait(lambda: any("cannot read the source" in s for s in said), 10)
        time.sleep(0.5)  # ten more checks of the source
    finally:
        stop.set()
        t.join(10)
    assert sum("cannot read the source" in s for s in said) == 1


def test_watch_says_each_kind_of_warning_once(tmp_path):
    """A live run's torn tail is warned of by every build (its byte count changing): once is enough."""
    from reportgen.live import watch

    src, rest = _split_demo(tmp_path)
    export = src / "observe.jsonl"
    with open(export, "ab") as f:
        f.write(rest[:40])  # a torn line
    said: list[str] = []
    stop = threading.Event()
    builds = threading.Semaphore(0)
    t = threading.Thread(
        target=watch,
        args=(str(src), tmp_path / "site", BuildOptions(jobs=1)),
        kwargs=dict(interval=0.05, report=said.append, stop=stop, on_built=builds.release),
        daemon=True,
    )
    t.start()
    try:
        assert builds.acquire(timeout=30)
        with open(export, "ab") as f:
            f.write(rest[40:50])  # the torn line grows, still torn
        assert builds.acquire(timeout=30)
    finally:
        stop.set()
        t.join(10)
    torn = [s for s in said if "the last line is incomplete" in s]
    assert len(torn) == 1 and torn[0].startswith("reportgen: warning: ") and "(40 bytes)" in torn[0]
    assert sum(s.startswith("built ") for s in said) == 2


def test_watch_pauses_twice_as_long_as_a_long_build(tmp_path, monkeypatch):
    """A run appending every second must not keep a core busy: after a build of 3 s the
    next check of the source comes 6 s later (the interval otherwise)."""
    from reportgen import live
    from reportgen.site import BuildResult

    src, _rest = _split_demo(tmp_path)
    monkeypatch.setattr(live, "build", lambda *a, **k: BuildResult(out=tmp_path / "site", seconds=3.0))
    monkeypatch.setattr(live, "write_live_marker", lambda *a: None)
    waits: list[float] = []

    class Stop(threading.Event):
        def wait(self, timeout=None):
            waits.append(timeout)
            if len(waits) == 2:
                self.set()
            return self.is_set()

    live.watch(str(src), tmp_path / "site", BuildOptions(jobs=1), interval=0.5, report=lambda s: None, stop=Stop())
    assert waits == [6.0, 0.5]  # after the build; then the source had not changed


def test_watch_ends_quietly_when_a_build_fails_after_stop(tmp_path, monkeypatch):
    """serve removes its temporary folder when stopped; a build still running then fails, and
    the watch ends without a traceback. A failure while running is not hidden."""
    import pytest

    from reportgen import live

    src, _rest = _split_demo(tmp_path)
    stop = threading.Event()

    def failing(*a, **k):
        raise FileNotFoundError("gone")

    monkeypatch.setattr(live, "build", lambda *a, **k: (stop.set(), failing())[1])
    live.watch(str(src), tmp_path / "site", BuildOptions(jobs=1), report=lambda s: None, stop=stop)
    monkeypatch.setattr(live, "build", failing)
    with pytest.raises(FileNotFoundError):
        live.watch(str(src), tmp_path / "site", BuildOptions(jobs=1), report=lambda s: None, stop=threading.Event())


def test_serve_never_answers_a_rebuilt_page_from_a_stale_timestamp(tmp_path):
    """A page rewritten within the same second as its last copy must not come back 304."""
    src, _ = _split_demo(tmp_path)
    out = tmp_path / "site"
    with serving(src, out) as base:
        with urllib.request.urlopen(base + "/index.html", timeout=5) as r:
            stamp = r.headers["Last-Modified"]
            assert r.headers["Cache-Control"] == "no-cache"  # asked again each time
            # no page of another origin may frame the run's pages (they answer comparisons)
            assert r.headers["Content-Security-Policy"] == "frame-ancestors 'self'"
            assert r.headers["X-Frame-Options"] == "SAMEORIGIN"
        index = out / "index.html"
        st = index.stat()
        index.write_bytes(b"<!doctype html><p>rebuilt")
        os.utime(index, ns=(st.st_atime_ns, st.st_mtime_ns))  # the same second, as a quick rebuild
        req = urllib.request.Request(base + "/index.html", headers={"If-Modified-Since": stamp})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert r.status == 200 and r.read() == b"<!doctype html><p>rebuilt"


def test_serve_answers_loopback_host_names_only(tmp_path):
    """DNS rebinding: a web page whose domain now points at 127.0.0.1 asks for the site with
    its own Host header, and must be refused; a browser on 127.0.0.1 or localhost is served,
    on any port (an ssh tunnel)."""
    from reportgen.live import allowed_hosts

    src, _ = _split_demo(tmp_path)
    with serving(src, tmp_path / "site") as base:
        port = base.rsplit(":", 1)[1]
        for host, status in [
            (f"127.0.0.1:{port}", 200),
            (f"localhost:{port}", 200),
            (f"LOCALHOST:{port}", 200),
            (f"evil.example:{port}", 403),
            ("evil.example", 403),
            (f"localhost:{int(port) + 1000}", 200),  # an ssh tunnel from another local port
            ("[::1]:9000", 200),
            (f"evil.example:{port}", 403),
            ("localhost.evil.example", 403),
            ("127.0.0.1.nip.io:8000", 403),
        ]:
            req = urllib.request.Request(base + "/index.html", headers={"Host": host})
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    got = r.status
            except urllib.error.HTTPError as e:
                got = e.code
            assert got == status, host
    assert allowed_hosts("0.0.0.0") is None  # --host: the user asked for other machines
    # another loopback address is still this machine: a rebinding page is refused there too
    lo2 = allowed_hosts("127.0.0.2")
    assert lo2 is not None and "127.0.0.2" in lo2 and "evil.example" not in lo2
    assert allowed_hosts("::1") is not None and allowed_hosts("192.168.1.5") is None


def test_serve_takes_the_build_options_and_quiet(tmp_path):
    """`serve` builds with the page options of `build` (--groups-per-page, --jobs, --markdown)
    and, with -q, prints where to look and nothing else."""
    import signal
    import subprocess
    import sys

    src, _ = _split_demo(tmp_path)
    out = tmp_path / "site"
    p = subprocess.Popen(
        [sys.executable, "-m", "reportgen", "serve", str(src), "-o", str(out), "--port", "0"]
        + ["-q", "-j", "1", "--markdown", "off", "--groups-per-page", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait(lambda: (out / "index.html").is_file() and (out / "live.js").is_file())
        time.sleep(0.3)
    finally:
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=20)
    assert stdout.startswith("serving ") and stdout.count("\n") == 1, stdout
    assert "pages" not in stdout and "stopped" not in stdout
    assert sorted(out.glob("train_iteration_*_p2.html"))  # two groups a page: second pages
    page = (sorted(out.glob("train_iteration_*.html"))[0]).read_text("utf-8")
    assert 'class="md"' not in page  # markdown off


def test_watch_and_serve_end_when_the_output_folder_is_refused(tmp_path):
    """A folder that is not a site (and no --force) cannot be mended by the run growing: the
    watch and serve end with the error at once. They waited for a change of the source."""
    import pytest

    from reportgen.errors import OutputError
    from reportgen.live import watch

    src, _ = _split_demo(tmp_path)
    taken = tmp_path / "notes"
    taken.mkdir()
    (taken / "keep.txt").write_text("mine")
    for follow in (watch, serve):
        stop = threading.Event()
        timer = threading.Timer(10, stop.set)  # the previous code waited: give up, and fail, after 10 s
        timer.start()
        try:
            with pytest.raises(OutputError, match="not a reportgen site"):
                kwargs = {"port": 0} if follow is serve else {}
                follow(str(src), taken, BuildOptions(jobs=1), interval=0.1, report=lambda s: None, stop=stop, **kwargs)
        finally:
            timer.cancel()
    assert [p.name for p in taken.iterdir()] == ["keep.txt"]


def test_live_commands_say_a_failure_once_and_name_the_port_only_when_it_is_the_port(tmp_path, monkeypatch):
    """A busy port is said as such; a build's own OSError (a full disk) under watch or serve is
    said as build says it: not as the port's, and never as a traceback."""
    import socket

    from click.testing import CliRunner

    import reportgen.live as live
    from reportgen.cli import main

    src, _rest = _split_demo(tmp_path)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        r = CliRunner().invoke(main, ["serve", str(src), "-o", str(tmp_path / "s1"), "--port", str(port), "-q"])
    finally:
        busy.close()
    assert r.exit_code == 1 and f"reportgen: error: cannot serve on 127.0.0.1:{port}: " in r.output, r.output

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(live, "build", full_disk)
    for args in (["build", str(src), "-o", str(tmp_path / "s2"), "--watch"], ["serve", str(src), "--port", "0"]):
        r = CliRunner().invoke(main, [*args, "-q"])
        assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (args, r.output, r.exception)
        assert "reportgen: error: No space left on device" in r.output and "cannot serve" not in r.output, r.output


def test_serve_keeps_to_the_site_and_lists_no_folder(tmp_path):
    """http.server checks a path's parts but follows a link placed in the site: a link to a
    file or a folder outside it is answered as missing; no folder is listed."""
    src, _ = _split_demo(tmp_path)
    out = tmp_path / "site"
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the web")
    with serving(src, out) as base:
        (out / "evil.txt").symlink_to(secret)
        (out / "etc").symlink_to(tmp_path)
        (out / "assets" / "up").symlink_to("..")
        for path in ("/evil.txt", "/etc/secret.txt", "/etc/", "/assets/up/../secret.txt", "/assets/"):
            status, body = _get(base + path)
            assert status == 404 and b"not for the web" not in body, path
        assert _get(base + "/assets/reportgen.css")[0] == 200
        assert _get(base + "/")[0] == 200  # the folder's index.html, not a listing
        # a NUL byte in the path (realpath raised ValueError: a traceback, no answer), and
        # the build's own files, which are no part of the site
        for path in ("/index.html%00.js", "/.reportgen-state", "/.reportgen-rows", "/.reportgen-site"):
            assert _get(base + path)[0] == 404, path


def test_a_build_that_changes_nothing_tells_open_pages_nothing(tmp_path):
    """A live writer leaves a torn half line at nearly every poll: the rebuild it starts
    renders nothing, and live.js keeps its generation (no "the run changed" notice, no
    reload of the index); the line's completion is news again."""
    src, rest = _split_demo(tmp_path)
    out = tmp_path / "site"
    first_batch = rest[: rest.index(b"\n") + 1]
    with serving(src, out) as base:
        assert _wait(lambda: b'"generation":1' in _get(base + "/live.js")[1])
        state = out / ".reportgen-state"
        stamp = state.stat().st_mtime_ns
        with open(src / "observe.jsonl", "ab") as f:
            f.write(first_batch[:20])
        assert _wait(lambda: state.stat().st_mtime_ns != stamp)  # rebuilt
        time.sleep(0.6)
        assert b'"generation":1' in _get(base + "/live.js")[1]
        with open(src / "observe.jsonl", "ab") as f:
            f.write(rest[20:])
        assert _wait(lambda: b'"generation":2' in _get(base + "/live.js")[1])


def test_a_site_inside_its_source_does_not_start_builds_by_itself(tmp_path):
    """-o SRC/site: each build changed the source's signature (its own files), so watch and
    serve rebuilt every interval with nothing new."""
    from reportgen.live import source_signature

    src, _ = _split_demo(tmp_path)
    out = src / "site"
    before = source_signature(str(src), out)
    with serving(src, out) as base:
        assert _wait(lambda: b'"generation":1' in _get(base + "/live.js")[1])
        assert source_signature(str(src), out) == before
        stamp = (out / ".reportgen-state").stat().st_mtime_ns
        time.sleep(1.0)  # five intervals
        assert (out / ".reportgen-state").stat().st_mtime_ns == stamp


def test_the_signature_sees_what_the_build_reads_of_nested_evaluator_folders(tmp_path):
    """tinker 0.1.0 wrote an evaluator named "a/b/c" into eval_a/b/: a new report three
    folders down is read by the build, so watch must see it; a site's files are not."""
    from reportgen.live import source_signature

    src = tmp_path / "run"
    (src / "eval_a" / "b").mkdir(parents=True)
    (src / "metrics.jsonl").write_text('{"step": 0}\n')
    (src / "eval_a" / "b" / "c_iteration_000000.html").write_text("<html></html>")
    before = source_signature(str(src))
    assert ("eval_a/b/c_iteration_000000.html", 13) in [(n, s) for n, s, _t in before]
    (src / "eval_a" / "b" / "c_iteration_000001.html").write_text("<html></html>")
    assert source_signature(str(src)) != before
    # a site written under such a folder is not read by the build: its files change nothing
    site = src / "eval_a" / "site"
    site.mkdir()
    (site / ".reportgen-site").write_text("{}")
    now = source_signature(str(src))
    (site / "index.html").write_text("x")
    assert source_signature(str(src)) == now


def test_a_warnings_kind_leaves_its_numbers_and_lists_out():
    """A warning whose list grows from one build to the next ("prompt record not received for
    p:42, p:98" then "for p:40") is one kind, said once; the file a warning names stays."""
    from reportgen.live import warning_kind

    assert warning_kind("prompt record not received for p:42, p:98.") == warning_kind(
        "prompt record not received for p:40."
    )
    assert warning_kind("3 update number(s) are missing from the list: 4-6, 9 ….") == warning_kind(
        "1 update number(s) are missing from the list: 4."
    )
    assert warning_kind("a.jsonl:12: the last line is incomplete (4 bytes)") != warning_kind(
        "b.jsonl:12: the last line is incomplete (4 bytes)"
    )
    assert warning_kind("NaN in None") == "NaN in None"
