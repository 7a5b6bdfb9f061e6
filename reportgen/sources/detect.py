"""Recognise the input by its content and open the right reader."""

from __future__ import annotations

import os
import posixpath

from ..errors import InputError
from ..storage import Storage, is_url, shown_text
from .observe import COMPRESSED, ObserveReader, looks_like_observe
from .observe import FILE as OBSERVE_FILE

FORMATS = ("observe", "tinker")
OBSERVE_LOCK = ".observe.lock"


def open_source(source: str, fmt: str | None = None):  # type: ignore[no-untyped-def]
    """A reader for ``source`` (a folder, an observe.jsonl file, or a URL)."""
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    storage = Storage(source)
    if not storage.remote and not os.path.exists(storage.root):
        raise InputError("no such file or folder", source)
    if storage.is_file():
        # a file: an observe export named directly
        if fmt == "tinker":
            raise InputError("a tinker log_path is a folder, not a file", source)
        if storage.remote:
            parent, name = posixpath.split(storage.root)
            parent_storage = Storage(source[: len(source) - len(name)].rstrip("/") or source)
        else:
            parent, name = os.path.split(storage.root)
            parent_storage = Storage(parent)
            parent_storage.display_root = shown_text(os.path.dirname(source) or ".")
            parent_storage.named.add(name)  # named by the user: it may be a link to anywhere
        return ObserveReader(parent_storage, name)
    if not storage.is_dir():
        raise InputError("not a folder or a file that reportgen can read", source)
    # --format picks between two readings of a folder that holds both; it does not read a
    # folder that is plainly the other format (an empty site would replace the previous one)
    if fmt != "tinker" and looks_like_observe(storage):
        return ObserveReader(storage)
    # imported only for tinker: its module and regexes cost an observe build 20 ms (a
    # tenth of a rebuild's fixed costs)
    from .tinker import TinkerReader, looks_like_tinker

    if fmt != "observe" and looks_like_tinker(storage):
        return TinkerReader(storage)
    packed = _packed(storage)
    if fmt == "tinker":
        if looks_like_observe(storage) or _observe_elsewhere(source, storage) is not None or packed:
            raise InputError("--format tinker: this is an observe export, not a tinker log_path; drop --format", source)
        return TinkerReader(storage)  # nothing written yet: an empty run
    observe = _observe_elsewhere(source, storage)
    if observe is not None:
        return observe
    if fmt == "observe":
        if looks_like_tinker(storage):
            raise InputError(
                "--format observe: this is a tinker log_path, not an observe export; drop --format", source
            )
        if packed is None:
            return ObserveReader(storage)  # observe-spec §1.3 rule 9: no observe.jsonl is an empty export
    if not storage.remote:
        for rel in (OBSERVE_FILE, posixpath.join("observe", OBSERVE_FILE)):
            there = storage.local_path(rel)
            if there is not None and os.path.lexists(there):
                # a folder, a FIFO, a device or a broken link named observe.jsonl
                raise InputError("not a regular file that reportgen can read", storage.display(rel))
    hint = f"; {packed} is here: decompress it first" if packed else ""
    raise InputError(
        f"neither an observe export nor a tinker log_path: looked for {OBSERVE_FILE} (or observe/{OBSERVE_FILE}), "
        f"and for tinker's metrics.jsonl, config.json or iteration_NNNNNN/ folders{hint}",
        source,
    )


def _packed(storage: Storage) -> str | None:
    """A compressed export where observe.jsonl would be (a packed CI artifact), if any."""
    return next(
        (
            f"{d}{OBSERVE_FILE}{ext}"
            for d in ("", "observe/")
            for *_, ext in COMPRESSED
            if storage.is_file(d + OBSERVE_FILE + ext)
        ),
        None,
    )


def _observe_elsewhere(source: str, storage: Storage) -> ObserveReader | None:
    """An observe export without observe.jsonl at the top: observe/observe.jsonl, or the
    writer's lock file and no export yet (an empty export, observe-spec §1.3 rule 9)."""
    if storage.is_file(posixpath.join("observe", OBSERVE_FILE)):
        return ObserveReader(Storage(source.rstrip("/") + "/observe"))
    if storage.is_file(OBSERVE_LOCK):
        return ObserveReader(storage)
    if storage.is_file(posixpath.join("observe", OBSERVE_LOCK)):
        return ObserveReader(Storage(source.rstrip("/") + "/observe"))
    return None


__all__ = ["open_source", "FORMATS", "is_url"]
