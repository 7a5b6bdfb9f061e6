"""Writing the site folder: the last stage of the pipeline.

The site is built in a temporary folder beside OUT and swapped in only when
complete, so a failed or interrupted build leaves the previous site intact.
Every file name written is made by our code (page names from numbers,
labels sanitised), never taken raw from input.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import multiprocessing
import os
import re
import secrets
import shutil
import stat
import sys
import time
import uuid
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from pathlib import Path
from typing import IO, Any

import jinja2
import orjson
from jinja2 import Environment, FileSystemLoader, ModuleLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from . import __version__, trust
from .errors import InputError, OutputError
from .memory import MEMORY_BUDGET, ignore_interrupts, release_memory
from .memory import rss as _rss
from .model import UNNAMED, Group, GroupOutline, Iteration, IterationRef, Member, Outline, Run, page_name
from .resources import assets_dir, templates_dir
from .sources import Progress, Reader
from .sources.detect import open_source
from .sources.jsonl import key_bytes
from .storage import SITE_MARKER, is_url, shown_text
from .views.cards import overview_rows
from .views.charts import CHUNK_DIR, DATA_FILE, DOWNLOADS, Columns, chart_parts, charts_context, table_digests
from .views.index import index_context, iteration_rows_parts, row_keys
from .views.iteration import (
    OVERVIEW_EVERYWHERE,
    DuplicateTexts,
    Figures,
    PageEntry,
    PagePart,
    groups_overview,
    iteration_context,
    outline_page_groups,
    page_groups,
    page_picks,
    paginate,
    ranked,
    same_step,
    whole_figures,
)
from .views.logtree_export import LOGTREE_END, group_parts, logtree_head, logtree_parts, outline_group_parts
from .views.runlog import LOG_PAGE, LOG_SHARD, LogSummary, log_parts, summary_text
from .views.search import INDEX_FILE, ShardParts, ShardRefused, shard_bytes, shard_items, shard_name
from .views.search import index_bytes as search_index_bytes
from .views.text import compact_json, counted, file_lines, fmt, pretty_json, safe_name, script_json, visible

MARKER = SITE_MARKER
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; frame-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


@dataclass
class BuildOptions:
    """What the user asked for."""

    fmt: str | None = None  # force "observe" or "tinker"
    title: str | None = None
    force: bool = False
    groups_per_page: int = 50
    jobs: int = 1
    incremental: bool = True  # reuse unchanged pages of the site already in OUT
    live: bool = False  # pages poll live.js (build --watch, serve)
    markdown: str = "auto"  # on | off | auto (on unless the export is over MARKDOWN_AUTO_LIMIT)
    search: str = "auto"  # on | off | auto: the run-wide search (on unless the export is over SEARCH_AUTO_LIMIT)
    up: tuple[str, str] | None = None  # (href, label) of a link above the site: a sweep's index
    previous: Path | None = None  # the site to reuse pages from, when not OUT itself (a sweep's run)


@dataclass
class BuildResult:
    """What the build did, for the summary line."""

    out: Path
    updates: int = 0
    rollouts: int = 0  # train rollouts, as the index counts them
    eval_rollouts: int = 0
    pages: int = 0
    reused: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    rendered: int = 0  # iterations whose pages this build rendered (the others were reused)
    latest: tuple[str, str] | None = None  # (page, "update 30"): the newest train page, for live.js
    word: str = "updates"  # what ``updates`` counts: "iterations" for a tinker run

    def summary(self) -> str:
        """The CLI's last line."""
        n = counted
        if self.reused:
            pages = f"{n(self.pages, 'page')} ({n(self.rendered, 'iteration')} rendered, {self.reused:,} unchanged)"
        else:
            pages = f"{n(self.pages, 'page')} written"
        what = n(self.updates, self.word[:-1]) if self.word.endswith("s") else f"{self.updates:,} {self.word}"
        shown = n(self.rollouts, "rollout")
        if self.eval_rollouts:
            shown += f" (and {self.eval_rollouts:,} in evaluations)"
        return f"built {self.out}: {what}, {shown}, {pages} in {self.seconds:.2f} s"


def template_fingerprint(env: Environment, name: str, source: str) -> str:
    """What a compiled template depends on: its source, the Jinja version and the settings
    that change the generated code (delimiters, whitespace handling, autoescape)."""
    autoescape = env.autoescape(name) if callable(env.autoescape) else env.autoescape
    settings = (
        jinja2.__version__,
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.optimized,
        env.is_async,
        env.finalize is None,
        sorted(env.extensions),
        env.policies.get("compiler.ascii_str"),
        bool(autoescape),
    )
    return hashlib.sha256(repr((settings, source)).encode()).hexdigest()


class _TemplateLoader(FileSystemLoader):
    """The templates of ``templates/``, taken precompiled from ``reportgen/_templates``
    (written by ``scripts/compile_templates.py``) when they were compiled from the same source
    with the same Jinja and settings; compiling them costs every build about 0.1 s (a fifth
    of a rebuild after an append). Any other template is compiled from its source."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._compiled: ModuleLoader | None = None

    def load(self, environment: Environment, name: str, globals: Any = None) -> Any:
        from . import _templates

        source = self.get_source(environment, name)[0]
        if _templates.FINGERPRINTS.get(name) == template_fingerprint(environment, name, source):
            if self._compiled is None:
                self._compiled = ModuleLoader(str(Path(_templates.__file__).parent))
            return self._compiled.load(environment, name, globals)
        return super().load(environment, name, globals)


def make_env(precompiled: bool = True) -> Environment:
    """The Jinja environment: autoescape everywhere, strict undefined (``precompiled=False``:
    every template compiled from its source)."""
    path = str(templates_dir())
    env = Environment(
        loader=_TemplateLoader(path) if precompiled else FileSystemLoader(path),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["linecount"] = lambda t: file_lines(str(t))
    env.filters["visible"] = visible
    env.filters["thousands"] = lambda n: f"{n:,}" if isinstance(n, int) else n  # 65,536, as the pager writes it
    env.filters["tojson_text"] = compact_json
    # a config value as the trainer wrote it: a string as is, anything else as JSON (true, 1e-6,
    # [1, 2]), not Python's repr (True, 1e-06)
    env.filters["value_text"] = lambda v: v if isinstance(v, str) else compact_json(v)
    env.globals["fmt"] = fmt
    env.globals["version"] = __version__
    env.globals["unnamed"] = UNNAMED
    env.globals["csp"] = CSP
    env.globals["pretty_json"] = pretty_json
    return env


_HUNK_RE = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _diff_lines(text: str) -> Iterator[tuple[str, str]]:
    """(class, line) of each line of a diff: inside a hunk (as many lines as its ``@@``
    header counts) a line is added, deleted or context by its first character, whatever
    follows ("--x" is a deleted "-x"); outside, ``diff``, ``---``, ``+++``, ``###`` and
    ``--`` headers are headers, any other line plain. A diff written with CRLF line ends
    (a Windows checkout, or a file with CRLF lines) reads as one with LF: the HTML parser
    would turn each kept CR into one more line break; a CR inside a line is shown as ␍."""
    old = new = 0  # lines of the open hunk still to come, on each side
    lines = text.split("\n")
    if lines and lines[-1] in ("", "\r"):
        lines.pop()  # the newline that ends the file starts no line
    for line in lines:
        if line.endswith("\r"):
            line = line[:-1]
        if "\r" in line:
            line = line.replace("\r", "\u240d")
        if old > 0 or new > 0:
            c = line[:1]
            if c == "+":
                new -= 1
                yield "add", line
                continue
            if c == "-":
                old -= 1
                yield "del", line
                continue
            if c == " " or line == "":
                old, new = old - 1, new - 1
                yield "ctx", line
                continue
            if c == "\\":  # "\ No newline at end of file"
                yield "ctx", line
                continue
            old = new = 0  # a hunk shorter than its header said: read on as headers
        m = _HUNK_RE.match(line)
        if m:
            old = int(m.group(1)) if m.group(1) is not None else 1
            new = int(m.group(2)) if m.group(2) is not None else 1
            yield "hunk", line
        elif line.startswith(("+++", "---", "diff ", "###", "-- ")):
            yield "file", line
        else:
            yield "ctx", line


# markdown-it-py costs several times the rest of a page: past this size "auto" leaves it off
MARKDOWN_AUTO_LIMIT = 64 << 20
# the run-wide search's data files repeat every text of the run (docs/performance.md)
SEARCH_AUTO_LIMIT = 64 << 20
STATE = ".reportgen-state"
STATE_LIMIT = 1 << 30  # a state file past this is not read (95% of 68,089 updates: 8.8 MiB)
# the state's companion: the reader's metric rows as binary (observe), bound to the state by
# its size and CRC-32, which the state names (a check of integrity: who can change the site's
# files can change its pages as well; SHA-256 cost a rebuild of 19,370 updates 14 ms)
ROWS = ".reportgen-rows"
STATE_FORMAT = 3  # 2: prompt keys stored once, updates list their ids; 3: metric rows in ROWS


def code_fingerprint() -> str:
    """A hash of everything that shapes the output: version, code, templates, assets."""
    import reportgen

    h = hashlib.sha256(__version__.encode())
    pkg = Path(reportgen.__file__).resolve().parent
    roots = [pkg, templates_dir(), assets_dir()]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".jsonl"):
                h.update(str(path.relative_to(root)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()


def _load_state(out: Path) -> tuple[dict[str, Any], bytes] | None:
    """A site's state file, parsed, and the SHA-256 of its bytes as read; None if it is
    missing or not ours. The companion ``ROWS`` file named by the state is in its ``rows``
    key, as bytes (or the state is None if that file is not the one named)."""
    raw = trust.read_regular(out / STATE, STATE_LIMIT)
    if raw is None or not _verified(raw):
        return None  # not a state this user's builds wrote: the site is built afresh
    try:
        state = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    digest = hashlib.sha256(raw).digest()
    del raw
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        return None
    named = state.get("rows")
    if named is not None:
        rows = _read_rows(out, named)
        if rows is None:
            return None
        state["rows"] = rows
    return state, digest


_MAC_HEAD = b',"mac":"'
_MAC_TAIL = len(_MAC_HEAD) + trust.MAC_HEX + 2  # ,"mac":"<hex>"}


def _signed(parts: Iterable[bytes]) -> Iterator[bytes]:
    """A JSON object's bytes with its HMAC (``trust``) as its last key, ``mac``, over the
    object as it was; the object as it was when there is no key."""
    h = trust.hasher()
    prev = b""
    for part in parts:
        if h is not None:
            h.update(part)
        if prev:
            yield prev
        prev = part
    if h is None or not prev.endswith(b"}"):
        yield prev
    else:
        yield prev[:-1] + _MAC_HEAD + h.hexdigest().encode() + b'"}'


def _verified(raw: bytes) -> bool:
    """Whether ``raw`` ends with the HMAC ``_signed`` gave the object before it."""
    tail = raw[-_MAC_TAIL:]
    if len(raw) <= _MAC_TAIL or not tail.startswith(_MAC_HEAD) or not tail.endswith(b'"}'):
        return False
    return trust.verify((memoryview(raw)[:-_MAC_TAIL], b"}"), tail[len(_MAC_HEAD) : -2].decode("ascii", "replace"))


def _read_rows(out: Path, named: Any) -> bytes | None:
    """The ROWS file if it is a regular file of the size and CRC-32 the state names."""
    if not isinstance(named, dict) or type(named.get("bytes")) is not int or type(named.get("crc32")) is not int:
        return None
    f = _open_sized(out / ROWS, named["bytes"])
    if f is None:
        return None
    with f:
        try:
            data = f.read(named["bytes"] + 1)
        except OSError:
            return None
    ok = len(data) == named["bytes"] and zlib.crc32(data) == named["crc32"]
    return data if ok else None


def _checked(parts: Iterable[bytes], crc: list[int]) -> Iterator[bytes]:
    """``parts``, their CRC-32 into ``crc[0]`` as they pass."""
    for part in parts:
        crc[0] = zlib.crc32(part, crc[0])
        yield part


def state_parts(head: dict[str, Any], reader: dict[str, Any] | None, pages: dict[str, Any]) -> Iterator[bytes]:
    """The state file, ``head``'s keys then ``reader`` and ``pages``, in pieces: a value of
    ``reader`` that is an iterator is written as a list a few hundred items at a time (when
    the observe scan's updates held their metric rows, whole, they and their JSON text
    added 170 MiB to a build of 16,780 updates of 500 metrics; the rows are in ROWS now)."""
    yield orjson.dumps(head)[:-1] + b',"reader":'
    if reader is None:
        yield b"null"
    else:
        lazy = {k: v for k, v in reader.items() if isinstance(v, Iterator)}
        plain = orjson.dumps({k: v for k, v in reader.items() if k not in lazy})
        yield plain[:-1]
        sep = b"," if len(plain) > 2 else b""
        for key, items in lazy.items():
            yield sep + orjson.dumps(key) + b":["
            sep = b","
            first = True
            while batch := list(islice(items, 256)):
                yield (b"" if first else b",") + b",".join(map(orjson.dumps, batch))
                first = False
            yield b"]"
        yield b"}"
    yield b',"pages":' + orjson.dumps(pages) + b"}"


def is_site(path: Path) -> bool:
    """Whether a folder was written by reportgen (its marker is a file of ours, not a link)."""
    marker = path / MARKER
    return marker.is_file() and not marker.is_symlink()


_TMP_RE = re.compile(r"\.reportgen-(tmp|old)-(\d+)$")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # ours: left by an earlier build of this process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: someone else's live process
        return True
    return True


def recover_stale(out: Path, keep: Iterable[str] = ()) -> list[Path]:
    """Clear what killed builds left beside ``out``; returns the paths removed or restored.

    ``.OUT.reportgen-tmp-PID`` (an unfinished site) is removed once PID is gone; if it holds
    a journal (killed while moving its files into OUT, see ``_commit_in_place``) the move is
    finished first.
    ``.OUT.reportgen-old-PID`` is the previous site moved aside just before the
    swap: if OUT is missing (killed between the two renames) it is put back,
    otherwise removed.  Links are unlinked, never followed. Nothing that is, or holds, one
    of the ``keep`` paths (the build's input) is touched, whatever its name, nor a folder
    that no build of this user's made (``trust``: the owner file a staging folder gets, and
    a previous site before ``_swap`` sets it aside): with OUT inside a hostile input, such
    folders were installed as the site or finished through a link of theirs.
    """
    parent = out.parent
    kept = [Path(k).resolve() for k in keep if k and not is_url(k)]
    prefix = f".{out.name}.reportgen-"
    done: list[Path] = []
    try:
        names = sorted(os.listdir(parent)) if parent.is_dir() else []
    except OSError:
        return done
    for name in names:
        if not name.startswith(prefix):
            continue
        m = _TMP_RE.search(name)
        if m is None or name != f".{out.name}.reportgen-{m.group(1)}-{m.group(2)}" or _pid_alive(int(m.group(2))):
            continue
        path = parent / name
        if any(k == path.resolve() or path.resolve() in k.parents for k in kept):
            continue  # the input itself, named like a staging folder: never ours to remove
        try:
            if path.is_symlink() or not path.is_dir():
                path.unlink()
            elif m.group(1) == "old":
                # a site _swap set aside (its owner file verifies), or not ours to touch: one
                # planted beside OUT would have been installed as the site. Without a key
                # nothing verifies: a site is put back as before, never a move finished
                if not (_made_here(path) or (trust.local_key() is None and is_site(path))):
                    continue
                if not out.exists() and not out.is_symlink():
                    os.replace(path, out)
                    with suppress(OSError):
                        os.unlink(out / OWNER)
                else:
                    shutil.rmtree(path)
            else:
                if not _made_here(path) and trust.local_key() is not None:
                    continue  # a folder named like ours, made by no build of this user's
                journal = _read_journal(path)  # None unless it verifies: then only removed
                if journal is not None:
                    with _commit_lock(out):
                        # killed while moving its files into OUT: finished, unless another
                        # build has put a site in place since (a state file is back)
                        if is_site(out) and not out.is_symlink() and not os.path.lexists(out / STATE):
                            _roll_forward(path, out, journal)
                shutil.rmtree(path)
            done.append(path)
        except OSError:
            continue  # not ours to fight over: the build goes on without it
    return done


def _refuse_input_overlap(out: Path, input_root: str | None) -> None:
    """OUT must not be the input folder nor hold it: the swap would delete the run."""
    if input_root is None:
        return
    o = out.resolve()
    src = Path(input_root).resolve()
    if o == src or o in src.parents:
        raise OutputError(f"{out} holds the input {input_root}; write the site to another folder")


def _prepare_staging(out: Path, force: bool, inputs: Iterable[str] = ()) -> Path:
    inputs = list(inputs)
    for src in inputs:  # before anything is removed: OUT must not be, nor hold, an input
        if not is_url(src):
            _refuse_input_overlap(out, src)
    recover_stale(out, inputs)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a folder")
    if out.is_symlink():
        raise OutputError(f"{out} is a symbolic link; refusing to replace it")
    if out.is_dir() and any(out.iterdir()) and not is_site(out) and not force:
        raise OutputError(f"{out} is not empty and is not a reportgen site; choose another folder or pass --force")
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file where a folder of OUT's path must be
        blocker = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), parent)
        raise OutputError(f"{blocker} is a file, not a folder: it cannot hold {out}") from None
    staging = parent / f".{out.name}.reportgen-tmp-{os.getpid()}"
    if staging.is_symlink():
        staging.unlink()
    elif staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    proof = _owner_mac(staging)
    if proof is not None:
        (staging / OWNER).write_text(proof, "ascii")
    return staging


def _owner_parts(folder: Path) -> tuple[bytes, bytes]:
    """What a folder's owner file signs: its name (a proof for one folder is no other's)."""
    return b"staging\0", os.fsencode(folder.name)


def _owner_mac(folder: Path) -> str | None:
    return trust.mac(_owner_parts(folder))


def _made_here(folder: Path) -> bool:
    """Whether a build of this user's made ``folder`` (its owner file verifies)."""
    raw = trust.read_regular(folder / OWNER, 256)
    return raw is not None and trust.verify(_owner_parts(folder), raw.decode("ascii", "replace"))


@contextmanager
def _commit_lock(out: Path) -> Iterator[None]:
    """Hold an exclusive lock on the folder OUT (if it is one) while a build puts its site in
    place, so that two builds of one site never interleave their moves. A build that waited
    checks afterwards that OUT's state is still the one it read (``_commit_in_place``)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, each rename stays atomic on its own
        yield
        return
    try:
        fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW)
    except OSError:  # no folder yet (or a link, refused later): nothing to share
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            # no locks on this file system (Lustre mounted noflock: ENOSYS; NFS on a read-only
            # descriptor: EBADF; ENOLCK): the build goes on unlocked, as on Windows
            pass
        yield
    finally:
        os.close(fd)  # releases the lock


# files a host reads that a user adds to a published site (GitHub Pages' custom domain, a
# crawler's rules, Netlify's headers and redirects): a rebuild keeps them, at the top, as
# regular files, and writes none of these names itself
PUBLISH_KEEP = ("CNAME", "robots.txt", "_headers", "_redirects")


def _kept_by_user(out: Path) -> list[str]:
    return [n for n in PUBLISH_KEEP if n in _regular_files(out)]


def _swap(staging: Path, out: Path) -> None:
    """Put a complete new site in OUT's place: two renames of whole folders (the files of
    ``PUBLISH_KEEP`` that OUT holds are carried over)."""
    old = None
    with _commit_lock(out):
        for name in _kept_by_user(out) if out.is_dir() else ():
            if not os.path.lexists(staging / name):
                shutil.copy2(out / name, staging / name, follow_symlinks=False)
        if out.exists():
            old = out.parent / f".{out.name}.reportgen-old-{os.getpid()}"
            if old.is_symlink() or old.is_file():
                old.unlink()
            elif old.exists():
                shutil.rmtree(old)
            proof = _owner_mac(old)
            if proof is not None:
                # the previous site, named as it will be aside, says it is ours: a build killed
                # between the two renames is put back by the next one (recover_stale)
                with suppress(OSError):
                    replace_file(out / OWNER, proof.encode("ascii"))
            os.replace(out, old)
        os.replace(staging, out)
        with suppress(OSError):
            os.unlink(out / OWNER)  # the site is no staging folder any more
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


JOURNAL = ".reportgen-commit"  # in a staging folder: its files are being moved into OUT
OWNER = ".reportgen-owner"  # in a staging or set-aside folder: the HMAC (trust) that a build of this user's made it
_OWN_JOURNALS: dict[str, set[str]] = {}  # this process's journals, by staging folder
_TRASH = ".reportgen-trash"  # in a staging folder: what the move replaced, deleted with it


class SiteChanged(Exception):
    """Another build changed OUT since this one read its state: build again."""


def _regular_files(folder: Path) -> set[str]:
    """The names of the regular files (not links, not folders) directly in ``folder``."""
    try:
        with os.scandir(folder) as entries:
            return {e.name for e in entries if e.is_file(follow_symlinks=False)}
    except OSError:
        return set()


def _commit_in_place(staging: Path, out: Path, state: bytes, reused: Iterable[str]) -> None:
    """Move what this build wrote into OUT, whose other files it reuses as they are.

    An incremental build into its own folder stages only its new and changed files (linking
    thousands of unchanged ones into a new folder and deleting the old one cost a rebuild of
    a 6,859-update run 0.9 s of its 3.3). The move is journaled: the journal in the staging
    folder names every top-level entry of the new site, OUT's state file is removed first and
    put back last, so a build killed during the move is finished by the next one
    (``recover_stale``), and a site without a state file is never reused from.
    ``state``: the SHA-256 of OUT's state file as this build read it; if another build
    changed it since, nothing is moved and ``SiteChanged`` is raised.
    """
    keep = set(os.listdir(staging)) | set(reused) | set(_kept_by_user(out))
    with _commit_lock(out):
        try:
            now = _file_digest(out / STATE) if stat.S_ISREG(os.lstat(out / STATE).st_mode) else None
        except OSError:
            now = None
        if now != state:
            raise SiteChanged(f"{out} was changed by another build")
        _OWN_JOURNALS[str(staging)] = keep
        journal = orjson.dumps({"staging": os.fsdecode(staging.name), "keep": sorted(keep)})
        (staging / JOURNAL).write_bytes(b"".join(_signed([journal])))
        os.unlink(out / STATE)
        _roll_forward(staging, out, keep)
    shutil.rmtree(staging, ignore_errors=True)


def _file_digest(path: Path) -> bytes:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.digest()


_BIG_FILE = 4 << 20


def _big_file(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size >= _BIG_FILE


def _read_journal(staging: Path) -> set[str] | None:
    """The names a journaled staging folder keeps in OUT: this process's own, or a journal
    whose HMAC verifies and that names this folder; None otherwise."""
    own = _OWN_JOURNALS.get(str(staging))
    if own is not None:
        return own
    raw = trust.read_regular(staging / JOURNAL, STATE_LIMIT)
    if raw is None or not _verified(raw):
        return None
    try:
        journal = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    keep = journal.get("keep") if isinstance(journal, dict) else None
    if journal.get("staging") != os.fsdecode(staging.name) or not isinstance(keep, list):
        return None
    return {k for k in keep if isinstance(k, str)}


def _roll_forward(staging: Path, out: Path, keep: set[str]) -> None:
    """Move a journaled staging folder's entries into OUT (the state file last) and set aside
    OUT's entries the new site does not have (not in ``keep``, the journal's); safe to run
    again after an interruption."""
    trash = staging / _TRASH
    if not os.path.lexists(trash):
        trash.mkdir()
    elif trash.is_symlink() or not trash.is_dir():
        raise OutputError(f"{trash} is not a folder of ours")  # what OUT replaced would go through it

    def aside(path: str) -> None:
        os.replace(path, trash / uuid.uuid4().hex)

    def move_in(name: str) -> None:
        src, dst = os.path.join(staging, name), os.path.join(out, name)
        if not name.endswith(".html") and _big_file(src) and os.path.isfile(dst) and not os.path.islink(dst):
            # a big download or data file is set aside before its new one moves in: renamed over
            # it, ext4 writes the new file's dirty pages back first (auto_da_alloc), 110 ms for
            # 150 MiB and seconds behind a build's own writeback; a page keeps its one atomic step
            aside(dst)
        try:
            os.replace(src, dst)  # a file over a file: one atomic step
        except OSError:
            if not os.path.lexists(dst):
                raise
            aside(dst)  # a folder (assets), or a file where a folder was: replaced in two steps
            os.replace(src, dst)

    # the index last: it never links a new page that is not in place yet
    for name in sorted(os.listdir(staging), key=lambda n: (n == "index.html", n)):
        if name not in (JOURNAL, _TRASH, STATE, OWNER):
            move_in(name)
    with os.scandir(out) as entries:
        gone = [e.path for e in entries if e.name not in keep]
    for path in gone:  # pages of a cut tail, stray files: moved, never followed
        try:
            aside(path)
        except OSError:  # busy (an NFS ".nfs..." file still open): left, as rmtree would
            pass
    if os.path.lexists(staging / STATE):
        move_in(STATE)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # not on Windows


class FileCopy:
    """A piece of a file to write that is another file's bytes, from its current position to
    its end (a download's previous rows): the writer has the kernel copy them, which cost 13
    ms for 46 MiB where reading and writing them here cost 90-160 ms."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f = f

    def copy_to(self, dest: IO[bytes]) -> int:
        """Append the bytes to ``dest`` (flushed first) and close the source; returns their count."""
        dest.flush()
        n = 0
        with self.f as src:
            copy = getattr(os, "copy_file_range", None)
            if copy is not None:
                try:
                    while k := copy(src.fileno(), dest.fileno(), 1 << 30):
                        n += k
                except OSError:  # not between these file systems, or not on this kernel
                    pass
            # what the kernel did not copy, from where it stopped (both files' positions moved)
            while block := src.read(1 << 20):
                n += dest.write(block)
        return n


class SiteWriter:
    """Writes files below one folder, never outside it."""

    def __init__(self, root: Path, like: SiteWriter | None = None) -> None:
        # ``like``: a writer of the same root in this build, whose resolved root and checked
        # folders this one shares (a writer per page resolved the root and made its folder
        # again: about 0.1 ms, a twentieth of the page of a small update)
        self.root: Path
        self._dirs: set[str]  # folders (and the root, "") already made and checked
        if like is not None and like.root == root:
            self.root, self._dirs = like.root, like._dirs
        else:
            self.root, self._dirs = root.resolve(), set()
        self.count = 0
        self.files: list[str] = []

    def _path(self, name: str) -> str:
        # checked by its parts, and each folder once: resolving every path cost a stat per
        # component per file, a millisecond a page on a run of thousands of small pages
        parts = name.split("/")
        if not name or name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts):
            raise OutputError(f"refusing to write outside the site: {name!r}")
        folder = "/".join(parts[:-1])
        if folder not in self._dirs:
            d = self.root / folder
            d.mkdir(parents=True, exist_ok=True)
            if d.resolve() != self.root.joinpath(*parts[:-1]):  # a symlinked folder
                raise OutputError(f"refusing to write outside the site: {name!r}")
            self._dirs.add(folder)
        return os.path.join(self.root, name)

    def write(self, name: str, data: bytes | str | Iterable[bytes | FileCopy]) -> int:
        """Write one file (a text, bytes, or parts: bytes or another file's, which may come from
        a generator); ``name`` is relative and made by our code. Returns the bytes written."""
        if isinstance(data, str):
            data = page_bytes(data)
        size = 0
        with open(self._fd(name, os.O_WRONLY), "wb") as f:
            if isinstance(data, bytes):
                size = f.write(data)
            else:
                for part in data:  # parts, written without joining megabytes first
                    size += part.copy_to(f) if isinstance(part, FileCopy) else f.write(part)
        self.wrote(name)
        return size

    def open(self, name: str) -> IO[bytes]:
        """A file to write (and read back) with the checks of ``write``, for a caller that writes
        it while it writes others (an update read in two passes: its logtree JSON and search
        file a page at a time); ``wrote(name)`` lists it among the files written."""
        return open(self._fd(name, os.O_RDWR), "w+b")

    def _fd(self, name: str, mode: int) -> int:
        path = self._path(name)
        try:  # O_NOFOLLOW: a symlink in the file's place is refused, not followed
            return os.open(path, mode | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o666)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise OutputError(f"refusing to write outside the site: {name!r}") from None
            raise

    def wrote(self, name: str) -> None:
        """List a file written through ``open`` (``write`` does it itself)."""
        self.files.append(name)
        if name.endswith(".html"):
            self.count += 1


def replace_file(path: Path, data: bytes) -> None:
    """Write ``path`` anew in one step, in a site that already exists (``reportgen index``,
    ``live.js``): a new file of a name no one can guess, renamed over the old name. Writing
    to the name, or to a known temporary one, followed a link a downloaded site held there."""
    tmp = path.with_name(f".{path.name}.reportgen-new-{secrets.token_hex(8)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)  # the umask applies
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def replace_assets(site: Path) -> None:
    """``copy_assets`` into a site that already exists: a new folder, put in place of the old
    one, which is then removed (copying over it followed the links it held)."""
    tag = secrets.token_hex(8)
    new, old, current = site / f".assets.reportgen-new-{tag}", site / f".assets.reportgen-old-{tag}", site / "assets"
    new.mkdir()
    try:
        copy_assets(new)
        if current.is_symlink() or current.is_file():
            current.unlink()
        elif current.exists():
            os.replace(current, old)
        os.replace(new / "assets", current)
    finally:
        shutil.rmtree(new, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)  # rmtree unlinks links, never follows them


def copy_assets(dest: Path) -> None:
    """Copy our CSS/JS and the vendored libraries into the site."""
    try:
        shutil.copytree(assets_dir(), dest / "assets", dirs_exist_ok=True)
    except shutil.Error as exc:
        # copytree gathers every file's error in one list (a full disk: one per asset, 10 KB
        # of text): the first one says it
        errors = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
        if errors and isinstance(errors[0], tuple) and len(errors[0]) == 3:
            why = str(errors[0][2])
            m = re.match(r"\[Errno \d+\] ([^:]+)", why)
            raise OSError(f"cannot copy the assets into {dest}: {m.group(1) if m else why}") from None
        raise OSError(f"cannot copy the assets into {dest}") from None


def _file_sizes(root: Path) -> dict[str, int] | None:
    """Size of every file below ``root`` by its relative path; None if any entry is a link or
    not a plain file or folder, or ``root`` cannot be read."""
    sizes: dict[str, int] = {}
    try:
        for folder, dirs, files in os.walk(root):
            rel = os.path.relpath(folder, root)
            for name in dirs + files:
                st = os.lstat(os.path.join(folder, name))
                if stat.S_ISDIR(st.st_mode):  # walked in turn (a link to a folder is not one)
                    continue
                if not stat.S_ISREG(st.st_mode):
                    return None
                sizes[os.path.normpath(os.path.join(rel, name))] = st.st_size
    except OSError:
        return None
    return sizes


def assets_in_place(out: Path) -> bool:
    """Whether OUT's ``assets/`` holds our assets: the same files, of the same sizes.

    Called only when OUT's state carries this build's fingerprint, which hashes the
    assets, so its files were written by this very version; the listing catches a file
    deleted or replaced since. A rebuild then keeps the folder instead of copying it
    again and swapping it in (16 ms, and a moment when a page being loaded by ``serve``
    found no stylesheet)."""
    ours = _file_sizes(assets_dir())
    return ours is not None and _file_sizes(out / "assets") == ours


def _nav_label(ref: IterationRef, fmt_name: str) -> str:
    word = "update" if fmt_name == "observe" else "step"
    return f"{word} {ref.number}"


def _page_title(run: Run, ref: IterationRef) -> str:
    if ref.kind == "eval":
        return f"Eval {ref.label or UNNAMED}, step {ref.number}"
    return f"Update {ref.number}" if run.format == "observe" else f"Iteration {ref.number}"


@dataclass
class _Job:
    """Everything a worker needs to render one iteration's pages."""

    reader: Any
    run: Run
    root: Path
    common: dict[str, Any]
    groups_per_page: int
    old_root: Path | None = None  # the previous site, whose unchanged pages are reused
    markdown: bool = True
    search: bool = False  # write each iteration's search data file (views/search.py)
    # set when old_root is OUT itself: its regular files, which stay in place if reused
    in_place: set[str] | None = None
    by_update: dict[int, list[str]] | None = None  # see _prompts_by_update
    earlier: dict[int, str] | None = None  # see _earlier_prompts
    key_common: str | None = None  # see _content_key
    writer: SiteWriter | None = None  # the build's writer of root: page writers share its checks
    # _sequences(run), made once: a worker made it again for every task, 0.2 ms for a run of
    # 6,859 updates, quadratic in the run's length (1.3 CPU-seconds of its full build)
    sequences: list[list[IterationRef]] = field(default_factory=list)


# where the groups go in a rendered page: unguessable, so no text of the input can hold it
_GROUPS_MARK = Markup(f"<!--rg-groups-{uuid.uuid4().hex}-->")


def page_bytes(text: str) -> bytes:
    """A page's text as written: NUL (a parse error in HTML) as the U+FFFD a browser shows, a lone
    surrogate (from an undecodable file name) as "?"."""
    data = text.encode("utf-8", "replace")
    # NUL is the only character whose UTF-8 holds a zero byte: a memchr on the bytes, not a
    # scan of a wide string
    if b"\x00" in data:
        data = data.replace(b"\x00", "\ufffd".encode())
    return data


# a page is written in parts of about this many bytes
_WRITE_PART = 1 << 20


def _page_parts(head: str, chunks: list[str] | Iterator[str], tail: str) -> Iterator[bytes]:
    """A page's bytes in parts of about _WRITE_PART, each chunk's text dropped once encoded.

    The groups are most of the page: encoded a group at a time, they are never joined into
    one text, nor widened to the chrome's characters or to one group's emoji. Their bytes
    are joined into parts, not written a chunk at a time (a write per group of 16 KiB cost
    the kernel about 0.9 ms more per MiB) nor joined whole (a PPO page of 65,536 rollouts
    held its text, its bytes and their join at once: 300 MiB more RSS)."""
    part = [page_bytes(head)]
    size = len(part[0])
    held = chunks if isinstance(chunks, list) else None
    for i, text in enumerate(chunks):
        if held is not None:
            held[i] = ""
        if len(text) > 4 * _WRITE_PART:
            # a huge text (one escaped completion of 40 MiB of "<" is 160 MiB): encoded a
            # slice at a time, so its bytes are never all there beside it
            if part:
                yield b"".join(part)
                part, size = [], 0
            for j in range(0, len(text), _WRITE_PART):
                yield page_bytes(text[j : j + _WRITE_PART])
            del text
            continue
        data = page_bytes(text)
        part.append(data)
        size += len(data)
        if size >= _WRITE_PART:
            yield part[0] if len(part) == 1 else b"".join(part)
            part, size = [], 0
    part.append(page_bytes(tail))
    yield b"".join(part)


def _pages_caption(entries: list[PageEntry], first: int, total: int) -> str:
    """What a page of a paginated iteration holds: its groups, or a part of one large group."""
    if len(entries) == 1:
        g, a, b = entries[0]
        n = g.size
        if b - a < n:
            what = "rollouts" if g.id is None else f"group {g.id}, members"
            return f"{what} {a + 1:,}–{b:,} of {n:,} (by reward)"
    return f"groups {first + 1}–{first + len(entries)} of {total}"


_JOB: _Job | None = None  # set in the parent before forking, inherited by workers
# (rollouts, groups, trained, reward_mean, html pages, files written, page key, the load's
# warnings: a reused page has none to say again)
# (..., the iteration's status and notes after its load, which may change them: a tinker
# logtree ending with an exception; None: as the scan said)
_Result = tuple[int, int, int, float | None, int, int, list[str], str | None, list[str], str | None, list[str]]


def _render_iteration(
    job: _Job, env: Environment, ref: IterationRef, prev_ref: IterationRef | None, next_ref: IterationRef | None
) -> _Result:
    """Load and render one iteration; returns (rollouts, groups, trained, reward_mean, pages)."""
    writer = SiteWriter(job.root, job.writer)
    key = _page_key(job, ref, prev_ref, next_ref)  # (render_run linked the unchanged pages)
    outline_of = getattr(job.reader, "outline", None)
    outline = outline_of(ref) if outline_of is not None else None
    if outline is not None:
        warnings = _render_outline(job, env, writer, outline, prev_ref, next_ref)
    else:
        warnings = _render_loaded(job, env, writer, ref, prev_ref, next_ref)
    return (
        ref.rollouts,
        ref.groups,
        ref.trained,
        ref.reward_mean,
        ref.unknown,
        writer.count,
        writer.files,
        key,
        warnings,
        ref.status,
        list(ref.notes),
    )


class _Pages:
    """Writes the pages of one iteration (``paginate``'s plan), each once its groups are in
    ``it.groups``: what the pages share (titles, links, the table of all groups) made once."""

    def __init__(
        self,
        job: _Job,
        env: Environment,
        writer: SiteWriter,
        it: Iteration,
        plan: list[list[PageEntry]],
        n_groups: int,
        prev_ref: IterationRef | None,
        next_ref: IterationRef | None,
    ) -> None:
        run = job.run
        ref = it.ref
        self.job, self.writer, self.it, self.prev_ref, self.next_ref = job, writer, it, prev_ref, next_ref
        self.tpl = env.get_template("iteration.html" if run.format == "observe" else "tinker_iteration.html")
        self.logtree_name = ref.page[: -len(".html")] + "_logtree.json"
        self.n_pages = len(plan)
        self.n_groups = n_groups
        self.hrefs = [page_name(ref.kind, ref.label, ref.number, q) for q in range(1, self.n_pages + 1)]
        # the table of all groups, for a reader who sorts or looks for a group across the pages
        self.overview = groups_overview(plan, run.format == "observe") if self.n_pages > 1 and n_groups > 1 else []
        self.overview_html: Markup | None = None
        self.first_group = 0  # the index of the first group a page starts

    def write(self, p: int, entries: list[PageEntry], parts: dict[int, PagePart]) -> None:
        """Write page ``p`` (from 1) of ``entries``, whose groups are ``it.groups``."""
        job, run, it, ref, overview = self.job, self.job.run, self.it, self.it.ref, self.overview
        n_pages = self.n_pages
        ctx = iteration_context(run, it, self.prev_ref, self.next_ref, markdown=job.markdown, chunked=True, parts=parts)
        ctx.update(job.common)
        ctx["page_title"] = _page_title(run, ref) + (f" (page {p} of {n_pages})" if n_pages > 1 else "")
        ctx["prev_label"] = _nav_label(self.prev_ref, run.format) if self.prev_ref else ""
        ctx["next_label"] = _nav_label(self.next_ref, run.format) if self.next_ref else ""
        ctx["logtree_name"] = self.logtree_name
        ctx["pages"] = list(enumerate(self.hrefs, 1))
        ctx["page_no"] = p
        shown = p == 1 or len(overview) <= OVERVIEW_EVERYWHERE
        if overview and shown and self.overview_html is None:
            self.overview_html = overview_rows(overview, self.hrefs, run.format == "observe")
        ctx["overview_html"] = self.overview_html if shown else None
        ctx["overview_count"] = len(overview)
        ctx["overview_page"] = self.hrefs[0] if overview and not shown else ""
        ctx["pages_caption"] = _pages_caption(entries, self.first_group, self.n_groups)
        self.first_group += sum(1 for g, _a, b in entries if b == g.size)
        chunks = ctx["groups_chunks"]
        ctx["groups_html"] = _GROUPS_MARK
        head, tail = self.tpl.render(ctx).split(_GROUPS_MARK)
        self.writer.write(self.hrefs[p - 1], _page_parts(head, chunks, tail))


def _render_loaded(
    job: _Job,
    env: Environment,
    writer: SiteWriter,
    ref: IterationRef,
    prev_ref: IterationRef | None,
    next_ref: IterationRef | None,
) -> list[str]:
    """Render an iteration loaded whole (``reader.load``); returns the load's warnings."""
    run = job.run
    it = job.reader.load(ref)
    first = ref.page
    raw = job.reader.logtree_bytes(ref)
    all_groups = it.groups
    plan = paginate(all_groups, job.groups_per_page)
    pages = _Pages(job, env, writer, it, plan, len(all_groups), prev_ref, next_ref)
    writer.write(pages.logtree_name, raw if raw is not None else logtree_parts(run, it, first))
    found: list[list[Any]] = []  # the search data of every page
    large: dict[int, tuple[list[Member], set[int], Figures]] = {}
    for p, entries in enumerate(plan, 1):
        it.groups, parts = page_groups(entries, large)
        if job.search:
            found.extend(shard_items(it.groups, p - 1))
        pages.write(p, entries, parts)
    if found:
        writer.write(shard_name(first), shard_bytes(first, _page_title(run, ref), pages.hrefs, found))
    return it.warnings


def _render_outline(
    job: _Job,
    env: Environment,
    writer: SiteWriter,
    outline: Outline,
    prev_ref: IterationRef | None,
    next_ref: IterationRef | None,
) -> list[str]:
    """Render an iteration read in two passes (``reader.outline``, a huge update): a page's
    members at a time, loaded by ``reader.load_members``, rendered and dropped; the logtree
    JSON and the search file are written as the pages go. The same files as ``_render_loaded``
    makes of ``reader.load``, byte for byte. Returns the iteration's warnings."""
    run = job.run
    reader = job.reader
    ref = outline.ref
    first = ref.page
    it = Iteration(ref=ref, groups=[], warnings=outline.warnings)
    plan = paginate(outline.groups, job.groups_per_page)
    pages = _Pages(job, env, writer, it, plan, len(outline.groups), prev_ref, next_ref)
    shard = _ShardFile(writer, shard_name(first), ShardParts(first, _page_title(run, ref), pages.hrefs))
    # a group of more members than a page shows: its members by reward and its duplicates
    large: dict[int, tuple[array, set[int], Figures]] = {}
    with writer.open(pages.logtree_name) as logtree, ExitStack() as stack:
        stack.callback(shard.close, False)  # on an error: closed, not listed
        writer.wrote(pages.logtree_name)
        logtree.write(logtree_head(run, it, first))
        for p, entries in enumerate(plan, 1):
            for g, a, b in entries:
                if (a > 0 or b < g.size) and id(g) not in large:
                    assert isinstance(g, GroupOutline)
                    # its logtree section, a slice of members at a time, and its duplicates
                    found = DuplicateTexts() if g.id is not None else None

                    def load(positions: array, g: GroupOutline = g, found: DuplicateTexts | None = found) -> Group:
                        group = reader.load_members(outline, [(g, positions)])[0]
                        if found is not None:
                            found.add(group.members)
                        return group

                    logtree.write(b",")
                    for part in outline_group_parts(g, load):
                        logtree.write(part)
                    large[id(g)] = (ranked(g), found.members() if found is not None else set(), whole_figures(g))
            loaded = reader.load_members(outline, page_picks(entries, large))
            for (g, a, b), group in zip(entries, loaded):
                if a == 0 and b == g.size:
                    logtree.write(b",")
                    for part in group_parts(group):
                        logtree.write(part)
            it.groups, parts = outline_page_groups(entries, loaded, large)
            if job.search:
                shard.add(shard_items(it.groups, p - 1))
            pages.write(p, entries, parts)
            del loaded, parts
            it.groups = []
        logtree.write(LOGTREE_END)
        shard.close()
    return it.warnings


class _ShardFile:
    """An iteration's search data file written a page at a time (``views.search.ShardParts``),
    opened at the first page that has items: none, and there is no file, as when
    ``_render_loaded`` finds no item. Listed among the files written once complete (last, as
    ``_render_loaded`` writes it)."""

    def __init__(self, writer: SiteWriter, name: str, parts: ShardParts) -> None:
        self.writer, self.name, self.parts = writer, name, parts
        self.f: IO[bytes] | None = None
        self.head = b""

    def add(self, items: list[list[Any]]) -> None:
        if not items:
            return
        parts = self.parts
        if self.f is None:
            self.f = self.writer.open(self.name)
            try:
                self.head = parts.head()
            except ShardRefused:
                parts.plain = True
                self.head = parts.head()
            self.f.write(self.head)
        try:
            data = parts.items(items)
        except ShardRefused:
            # orjson refused an item: the whole file is the fallback encoder's, the items
            # written so far read back (a lone surrogate in a text; rare, and only then held)
            f = self.f
            f.flush()
            f.seek(0)
            earlier = parts.written_items(f.read(), self.head) if parts.started else []
            f.seek(0)
            f.truncate()
            parts.plain = True
            self.head = parts.head()
            f.write(self.head)
            if earlier:
                f.write(parts.items(earlier))
            del earlier
            data = parts.items(items)
        self.f.write(data)

    def close(self, complete: bool = True) -> None:
        """Finish the file (``complete=False``: the build failed, close it only)."""
        if self.f is not None:
            if complete:
                self.f.write(ShardParts.END)
                self.writer.wrote(self.name)
            self.f.close()
            self.f = None


def _prompts_by_update(job: _Job) -> dict[int, list[str]]:
    """The prompt keys each update sampled (the inverse of ``run.prompt_index``), built once per job."""
    if job.by_update is None:
        by: dict[int, list[str]] = {}
        for k, numbers in job.run.prompt_index.items():
            for n in numbers:
                by.setdefault(n, []).append(k)
        job.by_update = by
    return job.by_update


def _earlier_prompts(job: _Job) -> dict[int, str]:
    """For each update that sampled prompts: a digest of the prompts of every update before it.

    What a page links ("same prompt in updates") is the earlier updates that sampled its own
    prompts, so this digest, with the page's own prompts in the reader's key, covers it. It
    is coarser (a change to any earlier update's prompts changes it) and cheap: one pass
    over the index, where a list per prompt per page cost 0.5 s or more for 200 PPO pages
    (a prompt per rollout).
    """
    if job.earlier is None:
        by = _prompts_by_update(job)
        h = hashlib.sha256()
        out: dict[int, str] = {}
        for n in sorted(by):
            out[n] = h.hexdigest()
            h.update(key_bytes([n, sorted(by[n])]))
        job.earlier = out
    return job.earlier


def _link_unchanged(job: _Job, key: str, old: dict[str, Any]) -> _Result | None:
    """Reuse an unchanged page's files from the previous site (linked, or left in place when it
    is OUT itself); None if it must be rendered."""
    assert job.old_root is not None
    if not _reuse(job.old_root, job.root, old.get("files", []), job.in_place):
        return None
    return _old_result(old, key)


def _old_result(old: dict[str, Any], key: str) -> _Result:
    """A page taken from the previous site: the statistics its state record kept."""
    stats = old["stats"]
    rollouts, groups, trained, reward_mean = stats[:4]
    status, notes = (stats[4], list(stats[5])) if len(stats) >= 6 else (None, [])
    unknown = stats[6] if len(stats) >= 7 else 0
    files = list(old["files"])
    pages = sum(1 for f in files if f.endswith(".html"))
    return rollouts, groups, trained, reward_mean, unknown, pages, files, key, [], status, notes


def _add_next(job: _Job, nav: Any, key: str, old: dict[str, Any], next_ref: IterationRef) -> _Result | None:
    """The previous last page of a growing run: its HTML files from the previous site with
    the "next" links the page template writes (macros of ``_next.html``), its other files
    linked. None (render it) when a file is missing or not the page our template wrote."""
    assert job.old_root is not None
    files = old.get("files", [])
    if not _flat_names(files):
        return None
    old_nav = str(nav.next_in_nav(None, "")).encode()
    new_nav = str(nav.next_in_nav(next_ref, _nav_label(next_ref, job.run.format))).encode()
    head_end = b"\n</head>"  # the head block ends with the next link (iteration.html)
    new_head_end = str(nav.next_in_head(next_ref)).encode() + head_end
    patched: dict[str, bytes] = {}
    for f in files:
        if not f.endswith(".html"):
            continue
        path = os.path.join(job.old_root, f)
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return None
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        # both markers are our own markup: a text of the input reaches a page escaped
        if data.count(old_nav) != 1 or data.count(head_end) != 1:
            return None
        patched[f] = data.replace(head_end, new_head_end, 1).replace(old_nav, new_nav, 1)
    rest = [f for f in files if f not in patched]
    if rest and not _reuse(job.old_root, job.root, rest, job.in_place):
        return None
    writer = SiteWriter(job.root, job.writer)
    for f, data in patched.items():
        writer.write(f, data)
    return _old_result(old, key)


def _page_key(job: _Job, ref: IterationRef, prev_ref: IterationRef | None, next_ref: IterationRef | None) -> str | None:
    """Everything a page is made of: if it is unchanged, the old page is reused."""
    keys = _page_keys(job, ref, prev_ref, next_ref)
    return None if keys is None else keys[0]


def _page_keys(
    job: _Job, ref: IterationRef, prev_ref: IterationRef | None, next_ref: IterationRef | None
) -> tuple[str, str] | None:
    """(the page's key, the key of everything but its "next" link), or None if unknown.

    The second lets the previous last page of a growing run get its new "next" link
    without being rendered again (see _add_next)."""
    content = _content_key(job, ref, prev_ref)
    if content is None:
        return None
    nxt = next_ref.page if next_ref else ""
    return hashlib.sha256(f"{content}\0{nxt}".encode()).hexdigest(), content


def _content_key(job: _Job, ref: IterationRef, prev_ref: IterationRef | None) -> str | None:
    base = getattr(job.reader, "page_key", None)
    if base is None:
        base = _files_key(job.reader)
        if base is None:
            return None
    # a page links the earlier updates that sampled its prompts (later ones: prompts.js)
    earlier = _earlier_prompts(job).get(ref.number, "") if job.run.prompt_index else ""
    if earlier:  # and only those of its segment
        earlier += f":{job.run.segment_range(ref.number)[0]}"
    if job.key_common is None:  # the same for every page of the build
        job.key_common = repr(
            (job.groups_per_page, job.markdown, job.search, sorted((k, str(v)) for k, v in job.common.items()))
        )
    parts = (
        base(ref),
        same_step(job.run, ref),  # tinker: the other pages of its step, which it links
        ref.segment,  # a tinker resume numbers the attempts: every page says its segment
        ref.status,
        ref.time,
        sorted(ref.headline.items()),
        ref.notes,
        prev_ref.page if prev_ref else None,
        earlier,
        job.key_common,
    )
    # orjson's bytes, not repr's: a key per page of the run on every rebuild (_page_keys took
    # 24-31 µs a page with repr, 20-22 µs now: 0.14-0.15 s of a rebuild of 6,859 updates)
    return hashlib.sha256(key_bytes(parts)).hexdigest()


_FLAT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def _flat_names(files: Any) -> bool:
    """Names from the state file: flat names of ours only, never a path out of either folder."""
    return (
        bool(files) and isinstance(files, list) and all(isinstance(f, str) and _FLAT_NAME.fullmatch(f) for f in files)
    )


def _files_key(reader: Any) -> Callable[[IterationRef], str] | None:
    """For readers whose locators name files (tinker): a key from their names and sizes."""
    storage = getattr(reader, "storage", None)
    if storage is None or storage.remote:
        return None

    def key(ref: IterationRef) -> str:
        loc = ref.locator if isinstance(ref.locator, dict) else {}
        parts: list[tuple[str, Any, int]] = []
        for k, rel in sorted((k, v) for k, v in loc.items() if isinstance(v, str)):
            if k.startswith("@"):  # a fact, not a file (tinker.TIMING_AT): taken as it is
                parts.append((k, rel, 0))
                continue
            try:
                st = os.stat(storage.local_path(rel))
                parts.append((rel, st.st_size, st.st_mtime_ns))
            except (OSError, TypeError, InputError):  # (a link made to lead out since the scan)
                parts.append((rel, -1, -1))
        return hashlib.sha256(repr((ref.kind, ref.label, ref.number, parts)).encode()).hexdigest()

    return key


def _reuse(old_root: Path, new_root: Path, files: list[str], in_place: set[str] | None = None) -> bool:
    """Hard-link (or copy) a page's files from the previous site; with ``in_place`` (the
    previous site is OUT itself, and these are its regular files), check they are there."""
    if not _flat_names(files):
        return False
    if in_place is not None:
        return all(f in in_place for f in files)
    # plain strings and one lstat a file (a regular file, not a symlink): a run of thousands
    # of small pages links tens of thousands of files on every rebuild
    old, new = str(old_root), str(new_root)
    srcs = [os.path.join(old, f) for f in files]
    try:
        if not all(stat.S_ISREG(os.lstat(p).st_mode) for p in srcs):
            return False
    except OSError:
        return False
    for f, src in zip(files, srcs):
        dst = os.path.join(new, f)
        try:
            os.link(src, dst, follow_symlinks=False)
        except OSError:
            shutil.copyfile(src, dst, follow_symlinks=False)
    return True


def _forget_job() -> None:
    """The pool is gone: drop what its workers inherited."""
    global _JOB, _WORKER_ENV
    _JOB = None
    _WORKER_ENV = None


def _worker_task(task: tuple[int, int]) -> tuple[int, int, _Result]:
    assert _JOB is not None
    global _WORKER_ENV
    if _WORKER_ENV is None:
        _WORKER_ENV = make_env()
    seq_i, i = task
    seq = _JOB.sequences[seq_i]
    prev_ref = seq[i - 1] if i > 0 else None
    next_ref = seq[i + 1] if i + 1 < len(seq) else None
    return seq_i, i, _render_iteration(_JOB, _WORKER_ENV, seq[i], prev_ref, next_ref)


_WORKER_ENV: Environment | None = None


def _latest_page(run: Run) -> tuple[str, str] | None:
    """The newest train iteration with a page, and its label ("update 30")."""
    for ref in reversed(run.iterations):
        if ref.has_texts and ref.kind == "train":
            return ref.page, _nav_label(ref, run.format)
    return None


def _sequences(run: Run) -> list[list[IterationRef]]:
    """Pages in navigation order: train, then each evaluator."""
    seqs: list[list[IterationRef]] = [[r for r in run.iterations if r.has_texts]]
    for label in sorted(run.evals):
        seqs.append([r for r in run.evals[label] if r.has_texts])
    return seqs


MAX_JOBS = 8  # default_jobs' ceiling; workers_for_memory may start fewer
# the RSS of one render worker: every page of the main process at the fork (the
# run's index: shared, but counted again in the worker's RSS), its own 10 MiB, and 5
# bytes for every byte of input its largest iteration reads; never below 40 MiB.
# Measured with 8 workers on six shapes of 190 MiB exports (docs/architecture.md, "Memory").
_WORKER_BASE = 40 << 20
_WORKER_OWN = 10 << 20
_WORKER_PER_INPUT_BYTE = 5
# what the main process grows by while the workers render: the chart files, written a
# block of rows at a time and a column at a time, measured at 11 MiB for 12,757 x 200 and
# 16,780 x 500 updates x metrics (1.5-4.8 bytes a value); 13-41 bytes a value when the
# columns were kept as JSON, 200 when the downloads were built whole
_CHART_BASE = 16 << 20
_CHART_BYTES_PER_VALUE = 4


# the least input two updates read for a rebuild to render them in two workers, not in turn
_POOL_MIN_BYTES = 2 << 20
# a task's round trip through the process pool costs about 0.3 ms of CPU, most of it in
# this process (6,859 trivial tasks: 2.1 CPU-seconds one at a time, 0.3 in chunks of 8);
# small updates go in chunks, at least this many chunks a worker, so that the last chunks
# still spread over the workers
_CHUNKS_PER_WORKER = 64
_MAX_CHUNK = 16


def tasks_per_chunk(tasks: int, workers: int) -> int:
    """How many iterations a worker takes at a time: 1 for a run of a few hundred updates,
    up to 16 for thousands."""
    return max(1, min(_MAX_CHUNK, tasks // (max(1, workers) * _CHUNKS_PER_WORKER)))


def workers_for_memory(reader: Any, refs: list[IterationRef], jobs: int, main_growth: int = 0) -> int:
    """At most ``jobs`` workers, and no more than fit MEMORY_BUDGET with this process,
    RSS summed over the processes (``main_growth``: what this process will add while
    they run). With 8 asked for: 7 workers on a 190 MiB GRPO export, 4 on one of 6,859
    small updates (a main process of 67 MiB that grows by 16 MiB of charts; 3 when the
    charts took 54 MiB), 2 on one of a few huge updates (16,384 rollouts each).

    0 when not even one fits: the pages are then rendered in this process, which holds
    an iteration without a forked copy of its own pages beside it (a main process of 330
    MiB, the index of 16,780 updates of 500 metrics, made a worker of 321 MiB)."""
    size = getattr(reader, "input_bytes", None)
    if size is None or not refs or jobs <= 1:
        return jobs
    largest = max(size(r) for r in refs)
    main = _rss()
    per_worker = max(_WORKER_BASE, main + _WORKER_OWN + _WORKER_PER_INPUT_BYTE * largest)
    return max(0, min(jobs, (MEMORY_BUDGET - main - main_growth) // per_worker))


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity mask, bounded by a cgroup v2 CPU quota
    (a container's ``--cpus``), which os.cpu_count() ignores."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            n = min(n, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, n)


def default_jobs() -> int:
    """Worker processes used when the user does not say: one per usable core, at most MAX_JOBS.

    Render workers are bounded by memory besides (``workers_for_memory``). On the 190 MiB
    GRPO benchmark the build's processes peak at 97 MiB of RSS summed with 2 workers, 157
    MiB with 4, and 288 MiB (167 MiB PSS) with ``--jobs 8``, which starts 7."""
    return min(MAX_JOBS, usable_cpus())


# pages allocate millions of short-lived containers, and a scan parses a dict for every line
# and keeps a tuple of it: at the default thresholds the collector ran every 700
# allocations, a full collection every few thousand pages cost more than the rendering,
# and collections took 8-12% of a scan's CPU
FEW_COLLECTIONS = (200_000, 50, 100)


def _old_rows(cols: Columns, old: dict[str, Any] | None) -> int | None:
    """The row count the previous site's downloads hold, if it may be a start of this table."""
    rows = old.get("rows") if isinstance(old, dict) else None
    return rows if type(rows) is int and 0 < rows <= len(cols.steps) else None


def _previous_downloads(
    old_root: Path | None, old: dict[str, Any] | None, digests: dict[int, str]
) -> dict[str, tuple[int, list[FileCopy]]] | None:
    """The previous site's downloads, to add the new rows to: each file's row count and the
    file to copy, when the old table is the start of the new one (``digests``, from
    ``charts.table_digests``) and the files are the ones its state describes; None to write
    them whole."""
    if old_root is None or not isinstance(old, dict):
        return None
    rows, sizes = old.get("rows"), old.get("sizes")
    if (
        type(rows) is not int
        or not isinstance(sizes, dict)
        or rows not in digests
        or old.get("digest") != digests[rows]
    ):
        return None  # (a state without a digest, or of rows this table has not, is no start of it)
    files: list[IO[bytes]] = []
    for name in DOWNLOADS:
        f = _open_sized(old_root / name, sizes.get(name))
        if f is None:
            for g in files:
                g.close()
            return None
        files.append(f)
    return {name: (rows, [FileCopy(f)]) for name, f in zip(DOWNLOADS, files)}


def _previous_columns(old_root: Path | None, old: dict[str, Any] | None) -> Callable[[str], bytes | None] | None:
    """json() of each column's rows as the previous site's data files hold them (its state
    says where, and how long each file is), for ``Columns.reuse_json``; None if it says
    nothing of them. A file that is not the size the state names gives nothing."""
    placed = old.get("columns") if isinstance(old, dict) else None
    if old_root is None or not isinstance(placed, dict):
        return None
    sizes, at = placed.get("sizes"), placed.get("at")
    if not isinstance(sizes, dict) or not isinstance(at, dict):
        return None
    opened: dict[str, IO[bytes] | None] = {}

    def previous(name: str) -> bytes | None:
        where = at.get(name)
        if not isinstance(where, list) or len(where) != 3:
            return None
        file, offset, length = where
        if not isinstance(file, str) or type(offset) is not int or type(length) is not int or offset < 0 or length < 0:
            return None
        if file not in opened:
            # a name of ours (data file or chunk), never a path out of the site
            ok = file == DATA_FILE or re.fullmatch(re.escape(CHUNK_DIR) + r"/\d{3}\.js", file) is not None
            opened[file] = _open_sized(old_root / file, sizes.get(file)) if ok else None
        f = opened[file]
        if f is None:
            return None
        try:
            f.seek(offset)
            data = f.read(length)
        except OSError:
            return None
        return data if len(data) == length else None

    return previous


def _previous_rows(
    old_root: Path | None, old: Any, keys: list[list[Any]], columns: list[str], fmt: str
) -> tuple[str, list[int], int] | None:
    """The previous index's rows text, where each row ends, and how many of its first rows
    are this build's (their ``row_keys`` equal, the same metric columns and format), for
    ``iteration_rows_parts``; None if none is, or the index is not the one the state says."""
    if old_root is None or not isinstance(old, dict) or old.get("columns") != columns or old.get("format") != fmt:
        return None
    old_keys, ends, size, tail = old.get("keys"), old.get("ends"), old.get("size"), old.get("tail")
    if not isinstance(old_keys, list) or not isinstance(ends, list) or len(ends) != len(old_keys):
        return None
    if type(tail) is not int or not ends or not all(type(e) is int for e in ends):
        return None
    k = 0
    for a, b in zip(old_keys, keys):
        if a != b:
            break
        k += 1
    if not k:
        return None
    f = _open_sized(old_root / "index.html", size)
    if f is None:
        return None
    with f:
        try:
            data = f.read()
        except OSError:
            return None
    # the rows are what lies between the page's head and tail: their text is ends[-1] long
    if not 0 <= tail <= len(data):
        return None
    try:
        text = data[: len(data) - tail].decode("utf-8")
    except UnicodeDecodeError:
        return None
    rows_at = len(text) - ends[-1]
    rows = text[rows_at:] if rows_at >= 0 else ""
    # the rows taken are whole rows: a start tag first, an end tag where the k-th one ends
    if not rows.startswith("<tr") or not 0 < ends[k - 1] <= len(rows) or rows[: ends[k - 1]][-6:] != "</tr>\n":
        return None
    return rows, ends, k


def _open_sized(path: Path, size: Any) -> IO[bytes] | None:
    """``path`` opened if it is a regular file of ``size`` bytes: a link is not followed,
    and a FIFO in its place does not block the build (O_NONBLOCK), as storage's reads."""
    if type(size) is not int:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size != size:
        os.close(fd)  # before open(): a folder's fd is refused by it (IsADirectoryError)
        return None
    return open(fd, "rb")  # closed when dropped, even if never read


@contextmanager
def few_collections() -> Iterator[None]:
    """Run the block (and the processes it forks) with the collector's FEW_COLLECTIONS thresholds."""
    thresholds = gc.get_threshold()
    gc.set_threshold(*FEW_COLLECTIONS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def render_run(
    reader: Reader,
    run: Run,
    writer: SiteWriter,
    env: Environment,
    site_title: str,
    progress: Progress | None = None,
    up: tuple[str, str] | None = None,
    groups_per_page: int = 50,
    jobs: int = 1,
    old_root: Path | None = None,
    old_pages: dict[str, Any] | None = None,
    new_pages: dict[str, Any] | None = None,
    live: bool = False,
    markdown: bool = True,
    in_place: bool = False,
    search: bool = False,
    old_downloads: dict[str, Any] | None = None,
    new_downloads: dict[str, Any] | None = None,
) -> None:
    """Render every page of one run into ``writer`` (each iteration's counts land on its ref).

    ``old_downloads``: what the state file of ``old_root`` says of its metric downloads;
    ``new_downloads``: filled with what the new state file is to say of them.

    With ``jobs > 1`` iterations are rendered by forked worker processes; the
    output is byte for byte the same as a serial build. With ``in_place``
    (``old_root`` is the folder the site will be moved into), the unchanged
    pages are left where they are instead of linked into ``writer``'s folder.
    """
    common: dict[str, Any] = {
        "site_title": site_title,
        "root": "",
        "source": run.source,
        "up": up[0] if up else None,
        "up_label": up[1] if up else None,
        "live": live,
        "search": search,
    }
    sequences = _sequences(run)
    tasks = [(si, i) for si, seq in enumerate(sequences) for i in range(len(seq))]
    total = len(tasks)
    unit = run.iterations_word
    job = _Job(reader, run, writer.root, common, groups_per_page, old_root, markdown, search)
    job.writer = writer
    job.sequences = sequences
    if in_place and old_root is not None and old_pages:
        job.in_place = _regular_files(old_root)
    done = 0
    log_summary: LogSummary | None = None
    log_written = False  # the run's log page (written once, while workers render if there are)

    def record(si: int, i: int, res: _Result) -> None:
        ref = sequences[si][i]
        ref.rollouts, ref.groups, ref.trained, ref.reward_mean, ref.unknown, pages, files, key, said, status, notes = (
            res
        )
        if status is not None:
            ref.status, ref.notes = status, notes
        run.page_warnings.extend(said)
        both = keys.get((si, i))
        if new_pages is not None and key is not None and both is not None:
            nxt = neighbours(si, i)[1]
            new_pages[ref.page] = {
                "key": key,
                "stats": [ref.rollouts, ref.groups, ref.trained, ref.reward_mean, ref.status, ref.notes, ref.unknown],
                "files": files,
                "content": both[1],  # everything but the "next" link (see _add_next)
                "next": nxt.page if nxt else None,
            }
        writer.count += pages

    results: dict[tuple[int, int], _Result] = {}

    def arrived(si: int, i: int, res: _Result) -> None:
        nonlocal done
        results[(si, i)] = res
        done += 1
        if progress:
            progress(done, total, unit)

    def neighbours(si: int, i: int) -> tuple[IterationRef | None, IterationRef | None]:
        seq = sequences[si]
        return (seq[i - 1] if i > 0 else None), (seq[i + 1] if i + 1 < len(seq) else None)

    with few_collections(), ExitStack() as stack:
        keys: dict[tuple[int, int], tuple[str, str] | None] = {}
        want_keys = new_pages is not None or bool(old_root is not None and old_pages)
        rebuild = old_root is not None and bool(old_pages)
        # the pages rendered whatever their keys: every page of a first build, the new pages of
        # a rebuild; the workers start on them while this process computes every page's key
        certain = [(si, i) for si, i in tasks if not old_pages or sequences[si][i].page not in old_pages]
        size = getattr(reader, "input_bytes", None)

        def worth_a_pool(todo: list[tuple[int, int]]) -> bool:
            # a pool costs its forks and a round trip, about 30 ms: worth it for two updates
            # when they are large, as the few new updates of a rebuild of long texts are
            two_large = (
                len(todo) == 2 and size is not None and sum(size(sequences[si][i]) for si, i in todo) >= _POOL_MIN_BYTES
            )
            return jobs > 1 and (len(todo) >= 3 or two_large) and "fork" in multiprocessing.get_all_start_methods()

        def start_pool(todo: list[tuple[int, int]], sized_by: list[tuple[int, int]]) -> tuple[Any, int]:
            """The pool and its number of workers; (None, 0) when no worker fits the memory goal."""
            global _JOB, _WORKER_ENV
            release_memory()  # what the scan freed would count again in every worker
            workers = workers_for_memory(
                reader,
                [sequences[si][i] for si, i in sized_by],
                min(jobs, len(todo)),
                _CHART_BASE + _CHART_BYTES_PER_VALUE * len(run.metrics) * len(run.metrics.columns),
            )
            if workers < 1:
                return None, 0
            close = getattr(reader, "close", None)
            if close:
                close()  # each worker opens its own handle
            # compiled once here and inherited through fork: compiling costs each worker 0.2 s
            env.get_template("iteration.html" if run.format == "observe" else "tinker_iteration.html")
            if want_keys and tasks:  # fills the job's caches of keys, which the workers inherit
                _page_keys(job, sequences[tasks[0][0]][tasks[0][1]], *neighbours(*tasks[0]))
            _WORKER_ENV = env
            _JOB = job
            stack.callback(_forget_job)
            ctx_mp = multiprocessing.get_context("fork")
            pool = stack.enter_context(
                ProcessPoolExecutor(max_workers=workers, mp_context=ctx_mp, initializer=ignore_interrupts)
            )
            # on an error here (a chart file that cannot be written, Ctrl-C) the pages not yet
            # begun are dropped: leaving the pool waits for the ones it has begun only
            stack.callback(pool.shutdown, wait=True, cancel_futures=True)
            return pool, workers

        pool: Any = None
        workers = 1
        rendered = []
        refused = False  # no worker fits the memory goal: every page is rendered here
        # early only when the new pages alone give every worker one: a rebuild of one or two
        # new pages decides once it knows which old pages changed
        if worth_a_pool(certain) and (not rebuild or len(certain) >= jobs):
            # sized by every page: an old page whose key changed goes to the same workers
            pool, workers = start_pool(certain, tasks)
            refused = pool is None
            if pool is not None:
                rendered.append(pool.map(_worker_task, certain, chunksize=tasks_per_chunk(len(certain), workers)))
        if want_keys:
            keys = {(si, i): _page_keys(job, sequences[si][i], *neighbours(si, i)) for si, i in tasks}
        pending = tasks
        unchanged: list[tuple[int, int, str, dict[str, Any]]] = []
        extended: list[tuple[int, int, str, dict[str, Any], IterationRef]] = []
        if old_root is not None and old_pages:
            # only the pages whose key changed go to the workers; the others are linked from
            # the previous site while the workers render, and the previous last page, whose
            # only change is its new "next" link, gets that link in its old HTML
            pending = []
            for si, i in tasks:
                ref = sequences[si][i]
                both = keys[(si, i)]
                old = old_pages.get(ref.page)
                if both is not None and old is not None:
                    if old.get("key") == both[0]:
                        unchanged.append((si, i, both[0], old))
                        continue
                    nxt = neighbours(si, i)[1]
                    if nxt is not None and old.get("next") is None and old.get("content") == both[1]:
                        extended.append((si, i, both[0], old, nxt))
                        continue
                pending.append((si, i))

        def from_previous_site() -> list[tuple[int, int]]:
            gone = []  # pages whose old files are missing (or unlike ours): rendered after all
            for si, i, key, old in unchanged:
                res = _link_unchanged(job, key, old)
                if res is None:
                    gone.append((si, i))
                else:
                    arrived(si, i, res)
            nav = env.get_template("_next.html").module if extended else None
            for si, i, key, old, nxt in extended:
                res = _add_next(job, nav, key, old, nxt)
                if res is None:
                    gone.append((si, i))
                else:
                    arrived(si, i, res)
            return gone

        table_grew = False  # the index's rows may be the previous ones (set by run_files)

        def run_files() -> dict[str, int]:
            nonlocal table_grew
            # what follows from the scan alone, not from the pages: written while the workers render
            if run.prompt_index:
                ordered = {k: run.prompt_index[k] for k in sorted(run.prompt_index)}
                # with the first update of each segment: the script links inside a page's own
                writer.write(
                    "prompts.js",
                    "window.RG_PROMPTS = "
                    + script_json(ordered)
                    + ";\nwindow.RG_SEGMENT_STARTS = "
                    + script_json(run.segment_starts)
                    + ";\n",
                )
            cols = Columns(run) if run.metrics.columns else None
            after = digests = None
            if cols is not None:
                rows, old_rows = len(cols.steps), _old_rows(cols, old_downloads)
                # the old table's digest and the new one's in one pass over the table
                digests = table_digests(cols, [rows] if old_rows is None else [old_rows, rows])
                after = _previous_downloads(old_root, old_downloads, digests)
                if after is not None and old_rows is not None:
                    previous = _previous_columns(old_root, old_downloads)
                    if previous is not None:
                        cols.reuse_json(old_rows, previous)
            # the downloads come in pieces of about 65,000 cells: their sizes are counted as written
            sizes = {name: writer.write(name, data) for name, data in chart_parts(run, cols, after).items()}
            table_grew = after is not None
            if cols is not None and digests is not None and new_downloads is not None:
                new_downloads.update(
                    rows=rows,
                    digest=digests[rows],
                    sizes={n: sizes[n] for n in DOWNLOADS},
                    # where each column's JSON went, for the next rebuild to start from
                    columns={
                        "sizes": {f: sizes[f] for f in sorted({p[0] for p in cols.placed.values()})},
                        "at": cols.placed,
                    },
                )
            return sizes

        if pool is None and not refused and worth_a_pool(pending):
            pool, workers = start_pool(pending, pending)
            if pool is not None:
                rendered.append(pool.map(_worker_task, pending, chunksize=tasks_per_chunk(len(pending), workers)))
        elif pool is not None:
            started = set(certain)
            later = [t for t in pending if t not in started]  # old pages whose key changed
            if later:
                rendered.append(pool.map(_worker_task, later, chunksize=tasks_per_chunk(len(later), workers)))
        # a reader whose load may change an iteration's status (tinker: a logtree that ends with
        # an exception) has the charts written once every page is in, as a serial build does
        late = getattr(reader, "status_from_load", False)
        chart_out: dict[str, int] | None
        if pool is not None:
            gone = from_previous_site()
            chart_out = None if late else run_files()
            # the run's log while the workers render (2.0 s for 89 MiB of log, in this process)
            log_summary = _write_run_log(reader, run, writer, env, common, search)
            log_written = True
            for part in rendered:
                for si, i, res in part:
                    arrived(si, i, res)
            pool.shutdown()  # its workers gone before this process renders what it must
        else:
            gone = from_previous_site()
            for si, i in pending:
                arrived(si, i, _render_iteration(job, env, sequences[si][i], *neighbours(si, i)))
            # the pages' freed memory, kept for the next page (tune_malloc), is not needed now:
            # 260 -> 152 MiB after the 14 pages of an export of 68,089 updates
            release_memory()
            chart_out = None if late else run_files()
        for si, i in gone:
            arrived(si, i, _render_iteration(job, env, sequences[si][i], *neighbours(si, i)))
        for si, i in tasks:  # in page order, whoever rendered them: the state file is the same
            record(si, i, results[(si, i)])
        if late and "crashed" in run.info:
            # a crash only load() found (an exception past the logtree tail the scan reads):
            # the index's status says it too
            run.info["crashed"] = run.info["crashed"] or any(r.status == "crashed" for seq in sequences for r in seq)
        if chart_out is None:
            chart_out = run_files()
    if not log_written:
        log_summary = _write_run_log(reader, run, writer, env, common, search)
    ctx = index_context(run, site_title, rows=False)
    ctx.update(common)
    ctx["is_index"] = True
    ctx["trace"] = _write_trace(reader, run, writer)
    ctx["run_log"] = (
        None
        if log_summary is None
        else {
            "href": LOG_PAGE,
            "counts": summary_text(log_summary),
            "first_error": log_summary.first.get("error"),  # the log's first error: always shown
            "error_text": log_summary.first_error,
        }
    )
    ctx["charts"] = charts_context(run, chart_out)
    # the table's rows written as they are made, about 1,000 at a time: the index of 68,089
    # updates was a text of 17 MB, held as the rows, the page and its bytes at once
    ctx["rows_html"] = _GROUPS_MARK
    head, tail = env.get_template("index.html").render(ctx).split(_GROUPS_MARK)
    row_ids = row_keys(run)
    columns = list(ctx["columns"])
    old_index = old_downloads.get("index") if isinstance(old_downloads, dict) else None
    reuse = _previous_rows(old_root, old_index, row_ids, columns, run.format) if table_grew else None
    ends: list[int] = []
    size = writer.write("index.html", _page_parts(head, iteration_rows_parts(run, ctx["columns"], ends, reuse), tail))
    if new_downloads is not None:
        new_downloads["index"] = {
            "size": size,
            "tail": len(page_bytes(tail)),
            "ends": ends,
            "keys": row_ids,
            "columns": columns,
            "format": run.format,  # an observe row has a segment cell, a tinker row none
        }
    if search:
        # the iterations with texts, in page order, rendered now or kept from the last build
        shards = []
        for si, i in tasks:
            ref = sequences[si][i]
            name = shard_name(ref.page)
            if name in results[(si, i)][6]:
                shards.append((name, _page_title(run, ref), ref.page))
        n_iterations = len(shards)
        if log_summary is not None:  # the records logs.html shows, searched last
            shards.append((LOG_SHARD, "logs.log", LOG_PAGE))
        writer.write(INDEX_FILE, search_index_bytes(shards))
        word = "update" if run.format == "observe" else "iteration"
        writer.write(
            # without the header's link to itself
            "search.html",
            env.get_template("search.html").render(
                {**common, "search": False, "shards": n_iterations, "word": word, "with_log": log_summary is not None}
            ),
        )
    if run.code_diff is not None:
        writer.write(
            "code_diff.html",
            env.get_template("code_diff.html").render({**common, "lines": list(_diff_lines(run.code_diff))}),
        )


TRACE_EXPORT = "trace_events.json"


def _write_trace(reader: Reader, run: Run, writer: SiteWriter) -> dict[str, int | str] | None:
    """A tinker run's trace events (``trace_events.jsonl``) as one Chrome trace file,
    ``{"traceEvents": [...]}``, which Perfetto and chrome://tracing open as they are (the
    lines are not: tinker's own tool converts them); streamed, an event at a time."""
    records = getattr(reader, "trace_records", None)
    events = records(run.warnings) if records is not None else None
    if events is None:
        return None
    try:  # the file opened and its first event read before anything is written
        first = next(events, None)
    except InputError as exc:  # it names the file
        run.warnings.append(f"{exc}; the site has no trace file")
        return None
    if first is not None:
        events = chain([first], events)
    count = 0

    def parts() -> Iterator[bytes]:
        nonlocal count
        yield b'{"traceEvents": [\n'
        for rec in events:
            try:
                data = orjson.dumps(rec)
            except (TypeError, orjson.JSONEncodeError):  # a key that is no string, a number too deep
                continue
            yield (b",\n" if count else b"") + data
            count += 1
        yield b"\n]}\n"

    size = writer.write(TRACE_EXPORT, parts())
    return {"href": TRACE_EXPORT, "events": count, "size": size}


def _write_run_log(
    reader: Reader, run: Run, writer: SiteWriter, env: Environment, common: dict[str, Any], search: bool = False
) -> LogSummary | None:
    """The page of the run's own log (tinker's logs.log), if the reader has one, and with
    ``search`` the search data file of the records it shows; a log that cannot be read is
    said, and the site is built without its page."""
    log = getattr(reader, "log_records", None)
    records = log() if log is not None else None
    if records is None:
        return None
    name = reader.storage.display(getattr(reader, "log_file", "logs.log"))
    items: list[list[Any]] | None = [] if search else None
    try:
        summary, parts = log_parts(records, items)
    except InputError as exc:  # it names the file
        run.warnings.append(f"{exc}; the site has no page of it")
        return None
    except OSError as exc:
        run.warnings.append(f"{name}: cannot read: {exc.strerror or exc}; the site has no page of it")
        return None
    if summary.replaced_line is not None:
        run.warnings.append(f"{name}:{summary.replaced_line}: invalid UTF-8 replaced by U+FFFD")
    head, tail = (
        env.get_template("logs.html")
        .render({**common, "log": summary, "records_html": _GROUPS_MARK})
        .split(_GROUPS_MARK)
    )
    writer.write(LOG_PAGE, _page_parts(head, parts, tail))
    if items is not None:
        writer.write(LOG_SHARD, shard_bytes(LOG_PAGE, "logs.log", [LOG_PAGE], items))
    return summary


_MALLOC_TUNED = False


def tune_malloc() -> None:
    """Keep freed memory in the process instead of returning it to the kernel (glibc only).

    A build allocates and frees megabyte-sized strings for every page; by default
    glibc hands each back to the kernel and faults fresh pages in for the next
    one.  Measured on the 190 MiB benchmark with two workers: system time 4.5 s
    -> 1.6 s, the build 14.8 s -> 12.8 s; peak RSS unchanged (62 MiB).
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED or not sys.platform.startswith("linux"):
        return
    _MALLOC_TUNED = True
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt): nothing to tune
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    mallopt(m_trim_threshold, 256 << 20)
    mallopt(m_top_pad, 64 << 20)
    mallopt(m_mmap_threshold, 32 << 20)  # glibc's largest allowed value on 64-bit


def build(
    source: str,
    out: Path,
    options: BuildOptions | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Build the site of one run from ``source`` into ``out``."""
    options = options or BuildOptions()
    for _attempt in range(2):
        try:
            return _build(source, Path(out), options, progress)
        except SiteChanged:
            continue  # another build put its site in place meanwhile: start from that one
    # builds keep racing for this folder: a full build, which replaces the folder whole
    return _build(source, Path(out), replace(options, incremental=False), progress)


def _build(
    source: str,
    out: Path,
    options: BuildOptions,
    progress: Progress | None,
) -> BuildResult:
    t0 = time.perf_counter()
    tune_malloc()
    out = Path(out)
    recover_stale(out, [source])  # first: a site a killed build left aside comes back even if this build fails
    reader = open_source(source, options.fmt)
    storage = getattr(reader, "storage", None)
    if storage is not None and not storage.remote:
        _refuse_input_overlap(out, storage.root)
    fingerprint = hashlib.sha256(
        repr(
            (
                code_fingerprint(),
                options.fmt,
                options.title,
                options.groups_per_page,
                options.up,
                options.live,
                options.markdown,
                options.search,
                os.path.abspath(source) if "://" not in source else source,
            )
        ).encode()
    ).hexdigest()
    old_site = options.previous if options.previous is not None else out
    loaded = _load_state(old_site) if options.incremental and is_site(old_site) else None
    old, old_digest = loaded if loaded is not None else (None, b"")
    if old is not None and old.get("fingerprint") != fingerprint:
        old = None  # a new version, template or option: everything is built again
    restore = getattr(reader, "restore", None)
    with few_collections():
        if (
            old is not None
            and restore is not None
            and old.get("reader") is not None
            and not restore(old["reader"], old.get("rows") or b"")
        ):
            # shrunk or rewritten: the old pages' keys name byte offsets, which may now hold
            # other bytes of the same length (a letter changed): nothing is reused
            old = None
        if old is not None:
            old.pop("reader", None)  # taken up
            old.pop("rows", None)  # as large as the metric table
        run = reader.scan(jobs=options.jobs, progress=progress)
        run.warnings.extend(reader.storage.refused_warnings())
        # the index and the reader's spans live for the whole build: kept from the collector
        # before its usual thresholds come back (the full collection they started then, of
        # a restored state's objects, took 11 ms of a rebuild of 19,370 updates)
        gc.freeze()
    # reusing OUT's own pages: only the new and changed files are written, then moved in
    in_place = old is not None and options.previous is None
    if options.markdown == "auto":
        use_markdown = int(run.info.get("bytes_read") or 0) <= MARKDOWN_AUTO_LIMIT
        if not use_markdown:
            run.warnings.append(
                "the export is large: pages show the exact texts only (--markdown on adds the markdown view)"
            )
    else:
        use_markdown = options.markdown == "on"
    if options.search == "auto":
        use_search = int(run.info.get("bytes_read") or 0) <= SEARCH_AUTO_LIMIT
        if not use_search:
            run.warnings.append(
                "the export is large: the site has no search of every text (--search on adds it; "
                "each page's own search and browser find work)"
            )
    else:
        use_search = options.search == "on"
    gc.freeze()  # and what the options added
    staging = _prepare_staging(out, options.force, [source])
    try:
        writer = SiteWriter(staging)
        env = make_env()
        title = shown_text(options.title or run.title or "run")  # --title from argv: any bytes
        new_pages: dict[str, Any] = {}
        new_downloads: dict[str, Any] = {}
        render_run(
            reader,
            run,
            writer,
            env,
            title,
            progress,
            up=options.up,
            groups_per_page=options.groups_per_page,
            jobs=options.jobs,
            old_root=old_site if old is not None else None,
            old_pages=old.get("pages") if old is not None else None,
            new_pages=new_pages,
            live=options.live,
            markdown=use_markdown,
            in_place=in_place,
            search=use_search,
            old_downloads=old.get("downloads") if old is not None else None,
            new_downloads=new_downloads,
        )
        from .sweep import SUMMARY_FILE, summary_bytes

        writer.write(SUMMARY_FILE, summary_bytes(run, title))  # what `reportgen index` reads
        old_pages = old.get("pages", {}) if old is not None else {}
        reused = sum(1 for page, v in new_pages.items() if old_pages.get(page, {}).get("key") == v["key"])
        get_state = getattr(reader, "state", None)
        head = {"format": STATE_FORMAT, "version": __version__, "fingerprint": fingerprint, "downloads": new_downloads}
        get_rows = getattr(reader, "metric_rows", None)
        if get_rows is not None:  # before the state, which names it
            crc = [0]
            size = writer.write(ROWS, _checked(get_rows(), crc))
            head["rows"] = {"bytes": size, "crc32": crc[0]}
        writer.write(STATE, _signed(state_parts(head, get_state() if get_state is not None else None, new_pages)))
        keep_assets = in_place and assets_in_place(out)
        if not keep_assets:
            copy_assets(staging)
        writer.write(".nojekyll", b"")
        writer.write(
            MARKER,
            orjson.dumps({"generator": "reportgen", "version": __version__, "format": run.format, "title": title}),
        )
        if in_place:
            reused_files = [f for page in new_pages.values() for f in page["files"]]
            if keep_assets:
                reused_files.append("assets")
            _commit_in_place(staging, out, old_digest, reused_files)
        else:
            _swap(staging, out)
    except BaseException as exc:
        journaled = (staging / JOURNAL).is_file()
        began = journaled and not os.path.lexists(out / STATE)  # the move removes it first
        if journaled:
            # interrupted while moving its files into OUT: finish the move rather than leave
            # OUT half old, half new (recover_stale discards a move that had not begun)
            recover_stale(out, [source])
        if (staging / JOURNAL).is_file():
            raise  # the move failed again: left, journaled, to the next build
        if began:
            exc.reportgen_site_replaced = True  # type: ignore[attr-defined]  # for the CLI's message
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        close = getattr(reader, "close", None)
        if close:
            close()
    return BuildResult(
        out=out,
        updates=len(run.iterations),
        rollouts=sum(r.rollouts for r in run.iterations),
        eval_rollouts=sum(r.rollouts for refs in run.evals.values() for r in refs),
        pages=writer.count,
        reused=reused,
        rendered=len(new_pages) - reused,
        latest=_latest_page(run),
        word=run.iterations_word,
        seconds=time.perf_counter() - t0,
        # said to the one who builds, not on the site: its readers need not know this home
        warnings=run.warnings
        + run.page_warnings
        + ([said] if options.incremental and (said := trust.key_problem()) else []),
    )


__all__ = ["BuildOptions", "BuildResult", "build", "InputError", "OutputError", "safe_name"]
