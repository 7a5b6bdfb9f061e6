"""A secret of this user's on this machine, to tell the files a build of reportgen wrote here
from files that only look like them.

A rebuild reuses what the previous build left in OUT (its pages, data files, the index's
rows), trusting the state file that lists them; a killed build's leftovers beside OUT are
finished or restored. A site downloaded from elsewhere, or an input holding folders named
like those leftovers, would otherwise pass its own bytes (a script, a symlink to follow) for
ours. So the state file and a staging folder's journal carry an HMAC under this key, and
what does not verify is never reused, restored or finished: the build starts afresh.

The key is ``$XDG_STATE_HOME/reportgen/key`` (``~/.local/state/reportgen/key``), 32 random
bytes made at first use, readable by its owner only. Where it cannot be made (a read-only
home), nothing verifies: every build is a full one, which is slower, never wrong.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

KEY_BYTES = 32
MAC_HEX = 64  # an HMAC-SHA256 in hex


def key_path() -> Path:
    """Where the key lives (``REPORTGEN_KEY`` names another file, for tests and sandboxes)."""
    named = os.environ.get("REPORTGEN_KEY")
    if named:
        return Path(named)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "reportgen" / "key"


def _read_key(path: Path) -> bytes | None:
    # the user's own, readable by no one else: a key another user could write (a shared
    # HOME=/tmp) would let them sign a state file for this user's builds
    data = read_regular(path, KEY_BYTES, private=True)
    return data if data is not None and len(data) == KEY_BYTES else None


@functools.cache
def local_key() -> bytes | None:
    """This user's key, made at first use; None where it can be neither read nor made."""
    path = key_path()
    key = _read_key(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # never over a key another build made meanwhile
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
        finally:
            os.unlink(tmp)
    except OSError:
        return None
    return _read_key(path)


def key_problem() -> str | None:
    """Why this user has no key, for the build to say; None when there is one."""
    if local_key() is not None:
        return None
    path = key_path()
    if os.path.lexists(path):
        return (
            f"{path} is not a key of yours (32 bytes, mode 0600, owned by you, not a link): every build "
            "is a full one; remove it, and the next build makes a new one"
        )
    return f"{path} cannot be made: every build is a full one (nothing of a previous site is reused)"


def hasher() -> hmac.HMAC | None:
    """An HMAC-SHA256 under this user's key, to feed piece by piece; None without a key."""
    key = local_key()
    return None if key is None else hmac.new(key, digestmod=hashlib.sha256)


def read_regular(path: Path, limit: int, private: bool = False) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO or device) of at most
    ``limit`` bytes; None otherwise. A state file or marker in OUT comes from wherever OUT
    came from: ``/dev/zero`` behind it took all memory, a FIFO hung the build. ``private``:
    also owned by this user, with no access for the group or others (POSIX)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        if private and hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def mac(parts: Iterable[bytes | memoryview]) -> str | None:
    """The HMAC of ``parts`` joined, in hex; None without a key."""
    h = hasher()
    if h is None:
        return None
    for part in parts:
        h.update(part)
    return h.hexdigest()


def verify(parts: Iterable[bytes | memoryview], given: object) -> bool:
    """Whether ``given`` is the HMAC of ``parts`` under this user's key."""
    if not isinstance(given, str) or len(given) != MAC_HEX:
        return False
    want = mac(parts)
    return want is not None and hmac.compare_digest(want, given)
