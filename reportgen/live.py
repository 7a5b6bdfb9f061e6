"""Following a live run: ``build --watch`` and ``serve``.

The site is rebuilt (incrementally) whenever the source changes.  Pages of a
live site load ``assets/live.js``, which polls ``live.js`` at the site's root
by re-injecting a ``<script>`` tag (no fetch, so it works from ``file://``
too) and tells the reader when new updates arrived.
"""

from __future__ import annotations

import functools
import http.server
import ipaddress
import os
import re
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from .errors import InputError, OutputError
from .site import BuildOptions, BuildResult, build, replace_file
from .sources import Progress
from .storage import SITE_MARKER, Storage

LIVE_FILE = "live.js"
# a warning's kind: its numbers, and the lists of them ("p:42, p:98 …", "4-6, 9"), as one
# mark, so a count that changes or a list that grows from one build to the next is the same
# warning, said once; a file name before a colon stays ("a.jsonl:12:" is not "b.jsonl:3:")
_DIGITS = re.compile(r"\d+")
_NUMBERS = re.compile(r"[^\s,:]*\x00[^\s,]*(?:, [^\s,]*\x00[^\s,]*)*(?: …)?")


def warning_kind(warning: str) -> str:
    """What ``watch`` says once of a build's warning (see _NUMBERS)."""
    return _NUMBERS.sub("#", _DIGITS.sub("\x00", warning)).rstrip(".")


def source_signature(source: str, out: Path | None = None) -> tuple[tuple[str, int, float], ...]:
    """Names, sizes and times of the files a build reads (two levels deep, an ``eval_*``
    folder's as deep as the build reads them), leaving out the
    site ``out`` and hidden folders (a build's staging folder beside it) when they sit in
    the source: each build would change the signature, and start the next."""
    storage = Storage(source)
    if storage.remote:
        found = []
        for name in storage.listdir():
            info = storage.fs.info(storage.root + "/" + name)
            found.append((name, int(info.get("size") or 0), float(info.get("mtime") or 0)))
        return tuple(sorted(found))
    root = Path(storage.root)
    entries: list[tuple[str, int, float]] = []
    skip = os.path.realpath(out) if out is not None else None
    paths = (
        [root]
        if root.is_file()
        else [
            root,
            *[p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and os.path.realpath(p) != skip],
        ]
    )

    def scan(base: Path | str, depth: int) -> None:
        try:
            for entry in os.scandir(base):
                if entry.name.startswith("."):
                    continue
                if entry.is_file():
                    st = entry.stat()
                    entries.append((os.path.relpath(entry.path, root), st.st_size, st.st_mtime))
                elif depth > 1 and entry.is_dir(follow_symlinks=False):
                    if not os.path.isfile(os.path.join(entry.path, SITE_MARKER)):
                        scan(entry.path, depth - 1)
        except OSError:
            return

    for base in paths:
        if base.is_file():
            st = base.stat()
            entries.append((base.name, st.st_size, st.st_mtime))
        elif base == root:
            scan(base, 1)
        else:
            # tinker 0.1.0 wrote an evaluator named "a/b/c" into eval_a/b/, which the build
            # reads 8 folders deep (sources.tinker._nested_files)
            scan(base, 8 if base.name.startswith("eval_") and not base.is_symlink() else 1)
    return tuple(sorted(entries))


def write_live_marker(out: Path, result: BuildResult, generation: int) -> None:
    """``live.js``: what open pages poll to learn that the site changed."""
    data: dict[str, object] = {
        "generation": generation,
        "updates": result.updates,
        "word": result.word,  # "updates" (observe) or "iterations" (tinker): the notice's word
        "time": time.time(),
    }
    if result.latest is not None:
        data["latest"], data["latest_label"] = result.latest
    replace_file(out / LIVE_FILE, b"window.RG_LIVE && window.RG_LIVE(" + orjson.dumps(data) + b");\n")


def require_source(source: str) -> None:
    """Fail at once on a local source that does not exist (a typo), rather than wait for it."""
    storage = Storage(source)
    if not storage.remote and not os.path.exists(storage.root):
        raise InputError("no such file or folder", source)


def watch(
    source: str,
    out: Path,
    options: BuildOptions,
    interval: float = 2.0,
    report: Callable[[str], None] = print,
    stop: threading.Event | None = None,
    on_built: Callable[[], None] | None = None,
    progress: Progress | None = None,
) -> None:
    """Rebuild ``out`` whenever ``source`` changes, until ``stop`` is set (``progress``: as
    ``site.build``'s, for each build)."""
    options.live = True
    stop = stop or threading.Event()
    require_source(source)
    last: tuple[tuple[str, int, float], ...] | None = None
    generation = 0
    told: tuple[object, ...] = ()  # the updates and latest page open pages were last told of
    unreadable = ""  # the last warning about the source: said once, not every interval
    warned: set[str] = set()  # the builds' warnings said so far, their numbers left out
    while not stop.is_set():
        sig: tuple[tuple[str, int, float], ...] | None
        try:
            sig = source_signature(source, out)
            unreadable = ""
        except (OSError, InputError) as exc:
            message = f"reportgen: warning: cannot read the source: {exc} (will retry)"
            if message != unreadable:
                report(message)
                unreadable = message
            sig = last
        pause = interval
        if sig != last:
            last = sig
            try:
                result = build(source, out, options, progress)
            except (InputError, OutputError) as exc:
                if isinstance(exc, OutputError) and not generation:
                    raise  # the folder refused from the start: no change of the source mends it
                report(f"reportgen: error: {exc} (will retry when the source changes)")
            except Exception:
                if stop.is_set():  # stopped meanwhile: serve may have removed its folder
                    return
                raise
            else:
                # a run that appends every second would keep a core busy rebuilding a long
                # site: the pause after a build is at least twice the build
                pause = max(interval, 2 * result.seconds)
                # open pages are told of new updates, a new latest page or pages rendered
                # (an update that grew, completed or got its metrics); not of a build that
                # changed nothing, as after a torn half line, which a live writer leaves at
                # nearly every poll (the index then differs only by its warning about it)
                news = (result.updates, result.latest)
                if not generation or result.rendered or news != told:
                    told = news
                    generation += 1
                # written again whatever the news: a rebuild leaves in the site only the files
                # a build makes, and pages poll this one
                write_live_marker(out, result, generation)
                for w in result.warnings:
                    # said once: a live run's torn tail is warned of by every build, its
                    # byte count changing each time
                    kind = warning_kind(w)
                    if kind not in warned:
                        warned.add(kind)
                        report(f"reportgen: warning: {w}")
                report(result.summary())
                if on_built:
                    on_built()
        stop.wait(pause)


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def allowed_hosts(host: str) -> frozenset[str] | None:
    """The host names ``serve`` answers to: the loopback names, or any (None) when it was
    asked to listen on another address (``--host``). Any port: a tunnel (``ssh -L
    9000:localhost:8000``) brings the reader's browser in on a port of its own."""
    if host not in _LOOPBACK:
        try:
            loopback = ipaddress.ip_address(host).is_loopback  # 127.0.0.2 is this machine too
        except ValueError:
            loopback = False
        if not loopback:
            return None
        return frozenset(("127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host))
    return frozenset(("127.0.0.1", "localhost", "[::1]"))


def _host_name(header: str) -> str:
    """The name of a Host header, without its port: "localhost:8000" -> "localhost"."""
    header = header.strip().lower()
    if header.startswith("["):  # [::1]:8000
        return header[: header.find("]") + 1]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class _ReadOnlyHandler(http.server.SimpleHTTPRequestHandler):
    """GET and HEAD only; no directory listings of anything but the site. On loopback, only
    requests naming a loopback host: a web page that rebinds its own domain name to
    127.0.0.1 (DNS rebinding) must not read the run through the reader's browser."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.send_error(405, "read-only")

    do_PUT = do_DELETE = do_PATCH = do_POST  # noqa: N815

    def send_head(self) -> Any:
        bound = self.server.server_address  # (host, port) for the TCP server serve makes
        allowed = allowed_hosts(str(bound[0]) if isinstance(bound, tuple) else "")
        if allowed is not None and _host_name(self.headers.get("Host") or "") not in allowed:
            self.send_error(403, "this server answers requests for 127.0.0.1 or localhost only")
            return None
        # http.server answers If-Modified-Since from a timestamp in whole seconds: a page
        # rebuilt within the second of its last copy would come back 304 and stay stale
        # (the index after a quick rebuild). Pages are local and cheap: always send them.
        del self.headers["If-Modified-Since"]
        # http.server keeps a request inside the folder by its path's parts, but follows a
        # symbolic link placed in the site (to /etc, to ..): the file it names must be in
        # the site too. A path out of it is answered as missing.
        try:
            real = os.path.realpath(self.translate_path(self.path))
        except ValueError:  # "%00" in the path: a NUL byte no file name holds
            self.send_error(404, "File not found")
            return None
        root = os.path.realpath(self.directory)
        if real != root and not real.startswith(root + os.sep):
            self.send_error(404, "File not found")
            return None
        # the build's own files (state, metric rows, marker) are no part of the site
        if os.path.basename(real).startswith(".reportgen-"):
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404, "no folder listings")
        return None

    def end_headers(self) -> None:
        # every page can change with the next build: asked for again each time (no-cache,
        # which send_head answers in full); not no-store, which keeps a page out of the
        # back/forward cache, so that going back would reload it. The live marker: no-store.
        live = self.path.split("?", 1)[0].endswith("/" + LIVE_FILE)
        self.send_header("Cache-Control", "no-store" if live else "no-cache")
        # no page of another origin may frame the run's pages (a page's meta CSP cannot say
        # frame-ancestors): a framed page answers the comparison's requests (reportgen.js give)
        self.send_header("Content-Security-Policy", "frame-ancestors 'self'")
        self.send_header("X-Frame-Options", "SAMEORIGIN")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _ThreadingHTTPServerV6(http.server.ThreadingHTTPServer):
    """The server on an IPv6 address (``--host ::1``)."""

    address_family = socket.AF_INET6


class PortError(OSError):
    """The address to serve on cannot be bound (a port in use, an address not this machine's);
    ``strerror`` is the whole message."""


def serve(
    source: str,
    out: Path,
    options: BuildOptions,
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = False,
    interval: float = 2.0,
    report: Callable[[str], None] = print,
    stop: threading.Event | None = None,
    ready: Callable[[int], None] | None = None,
    progress: Progress | None = None,
) -> None:
    """Keep ``out`` current and serve it read-only over http.

    The builds run in this thread and the server in another, from the first build on: a
    Ctrl-C reaches the build itself, which stops as ``build`` does (its staging folder
    removed, the previous site untouched), where a build in a thread of its own went on
    writing while the command removed its folder."""
    stop = stop or threading.Event()
    require_source(source)

    # the port is taken before the first build: a port in use fails at once, not after a
    # build of minutes; a browser that connects meanwhile waits in the listen queue
    handler = functools.partial(_ReadOnlyHandler, directory=str(out))
    server_class = _ThreadingHTTPServerV6 if ":" in host else http.server.ThreadingHTTPServer
    try:
        server = server_class((host, port), handler)
    except OSError as exc:  # told apart from a build's own OSError (a full disk), which is not the port's
        raise PortError(exc.errno, f"cannot serve on {host}:{port}: {exc.strerror or exc}") from exc
    bound = server.server_address[1]
    serving: list[threading.Thread] = []

    def first_built() -> None:
        if serving:
            return
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}/index.html"
        report(f"serving {out} at {url} (read-only; Ctrl-C stops)")
        if allowed_hosts(host) is None:
            report(
                f"reportgen: warning: serving on {host}, not on this machine's loopback: anyone who can "
                "reach this address can read the run"
            )
        t = threading.Thread(target=server.serve_forever, daemon=True)
        t.start()
        serving.append(t)
        if ready:
            ready(bound)
        if open_browser:
            import webbrowser

            if not webbrowser.open(url):
                report(f"reportgen: no browser to open here: open {url} yourself")

    try:
        watch(source, out, options, interval, report, stop, first_built, progress)
    finally:
        stop.set()
        if serving:
            server.shutdown()
        server.server_close()
