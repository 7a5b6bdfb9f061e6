"""Read-only access to the input, on local disk or any fsspec URL.

Both readers go through :class:`Storage`, so ``s3://``, ``gs://`` and
``memory://`` sources work the same way as a local folder.  Nothing here ever
opens a file for writing: the input is never modified.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat
from typing import IO, Any

from .errors import InputError

# the file that marks a folder written by reportgen (a site); a reader never reads inside one
SITE_MARKER = ".reportgen-site"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(source: str) -> bool:
    """Whether ``source`` is a URL (other than file://)."""
    return bool(_URL.match(source)) and not source.startswith("file://")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def shown_text(name: str) -> str:
    """A path or name as shown and written out: the bytes of an undecodable file name (lone
    surrogates, by Python's surrogateescape) as U+FFFD, which every encoder accepts."""
    return _LONE_SURROGATE.sub("\ufffd", name)


class Storage:
    """A read-only view of a directory tree (local or remote)."""

    def __init__(self, root: str, storage_options: dict[str, Any] | None = None) -> None:
        """``storage_options`` go to fsspec (e.g. ``{"client_kwargs": {"endpoint_url": ...}}``).

        fsspec also reads ``FSSPEC_<PROTOCOL>_<OPTION>`` environment variables
        (e.g. ``FSSPEC_S3_ENDPOINT_URL``) when it is imported.
        """
        if root.startswith("file://"):
            root = root[len("file://") :]
        self.remote = is_url(root)
        self.fs: Any = None
        if self.remote:
            try:
                import fsspec
            except ImportError as exc:  # pragma: no cover - depends on extras
                raise InputError("reading a URL needs fsspec: pip install 'reportgen[cloud]'", root) from exc
            try:
                self.fs, path = fsspec.core.url_to_fs(root, **(storage_options or {}))
            except (ImportError, ValueError) as exc:
                raise InputError(f"cannot open this URL: {exc}", root) from exc
            self.root = path.rstrip("/")
            self.protocol = root.split("://", 1)[0]
        else:
            self.root = os.path.abspath(root)
            self.protocol = "file"
        self.display_root = shown_text(root)
        # a link below the root that leads out of it is not followed: a site is published,
        # and a logs.log linked to a file of secrets, or an iteration folder linked to another
        # run, would be in it. ``named``: paths the user gave on the command line themselves
        # (an observe.jsonl named directly may be a link to anywhere). ``refused``: the links
        # met, for the warnings (storage.refused_warnings)
        self.named: set[str] = set()
        self.refused: set[str] = set()
        self._real_root: str | None = None

    def _leaves(self, rel: str) -> bool:
        """Whether ``rel`` is (or goes through) a link that leads out of the root."""
        if self.remote or not rel or rel in self.named:
            return False
        if self._real_root is None:
            self._real_root = os.path.realpath(self.root)
        real = os.path.realpath(self._full(rel))
        root = self._real_root
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return False
        self.refused.add(rel)
        return True

    def _inside(self, rel: str) -> None:
        if self._leaves(rel):
            raise InputError(
                "not read: a link that leads out of the source folder (the site would carry the file it points to)",
                self.display(rel),
            )

    # paths are always relative, '/'-separated, below the root
    def _full(self, rel: str) -> str:
        if not rel:
            return self.root
        if self.remote:
            return posixpath.join(self.root, rel)
        return os.path.join(self.root, *rel.split("/"))

    def display(self, rel: str = "") -> str:
        """A path to show the user in messages."""
        if not rel:
            return self.display_root
        return self.display_root.rstrip("/") + "/" + rel

    def is_file(self, rel: str = "") -> bool:
        """Whether ``rel`` is a file."""
        try:
            if self.remote:
                return bool(self.fs.isfile(self._full(rel)))
            return os.path.isfile(self._full(rel)) and not self._leaves(rel)
        except OSError:
            return False

    def is_link(self, rel: str) -> bool:
        """Whether ``rel`` is a symbolic link (never, on a remote store)."""
        if self.remote:
            return False
        return os.path.islink(self._full(rel))

    def is_dir(self, rel: str = "", follow: bool = False) -> bool:
        """Whether ``rel`` is a directory (``follow``: also one linked from out of the root)."""
        try:
            if self.remote:
                return bool(self.fs.isdir(self._full(rel)))
            return os.path.isdir(self._full(rel)) and (follow or not self._leaves(rel))
        except OSError:
            return False

    def listdir(self, rel: str = "", follow: bool = False) -> list[str]:
        """Names in a directory (not paths), sorted; [] if it does not exist. Without
        ``follow``, a link that leads out of the root is left out (and noted in ``refused``);
        a sweep lists its runs with it: a run folder linked from elsewhere is a run of its own,
        read from where it is."""
        try:
            if self.remote:
                entries = self.fs.ls(self._full(rel), detail=False)
                return sorted(posixpath.basename(e.rstrip("/")) for e in entries)
            if follow:
                return sorted(os.listdir(self._full(rel)))
            if self._leaves(rel):
                return []
            # a link that leads out is left out of the listing, so no reader finds it (only
            # links are resolved: a folder of thousands of files costs no realpath each)
            names = []
            with os.scandir(self._full(rel)) as entries:
                for e in entries:
                    if e.is_symlink() and self._leaves(posixpath.join(rel, e.name) if rel else e.name):
                        continue
                    names.append(e.name)
            return sorted(names)
        except (OSError, ValueError):
            return []

    def size(self, rel: str) -> int:
        """Size of a file in bytes."""
        if self.remote:
            return int(self.fs.size(self._full(rel)))
        self._inside(rel)
        return os.path.getsize(self._full(rel))

    def open(self, rel: str) -> IO[bytes]:
        """Open a file for binary reading."""
        try:
            if self.remote:
                return self.fs.open(self._full(rel), "rb")  # type: ignore[no-any-return]
            self._inside(rel)
            return _open_regular(self._full(rel))
        except FileNotFoundError as exc:
            raise InputError("file not found", self.display(rel)) from exc
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", self.display(rel)) from exc

    def read_bytes(self, rel: str) -> bytes:
        """The whole content of a file."""
        with self.open(rel) as f:
            return f.read()

    def read_text(self, rel: str) -> tuple[str, bool]:
        """The file as text; the flag says whether invalid UTF-8 was replaced."""
        raw = self.read_bytes(rel)
        try:
            return raw.decode("utf-8"), False
        except UnicodeDecodeError:
            return raw.decode("utf-8", errors="replace"), True

    def local_path(self, rel: str) -> str | None:
        """The local file system path, or None for a remote source (InputError for a link
        that leads out of the root)."""
        if self.remote:
            return None
        self._inside(rel)
        return self._full(rel)

    def refused_warnings(self) -> list[str]:
        """A warning for each link met that leads out of the root, which was not read."""
        return [
            f"{self.display(rel)}: not read, a link that leads out of {self.display_root} "
            "(a published site would carry the file it points to)"
            for rel in sorted(self.refused)
        ]


def _open_regular(path: str) -> IO[bytes]:
    """open(path, "rb") of a regular file only: a FIFO named like an input file blocked the
    build for ever in open(), and /dev/zero linked in its place was read until memory ran
    out. Opened without blocking, checked, then read as usual."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise OSError(errno.EISDIR, "a folder, not a file")
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, a device or a socket)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
