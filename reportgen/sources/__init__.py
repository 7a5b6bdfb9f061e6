"""Readers: one per input format, each turning its files into the model.

A reader never renders.  Every reader offers:

* ``scan(jobs=1) -> Run``: one pass over the input that builds the small run
  object (header, iteration list, metrics, warnings); no texts are kept.
  ``jobs`` lets a reader parse in worker processes (observe does, for large
  files); the result is the same.
* ``load(ref) -> Iteration``: the texts of one iteration, read again from the
  input, so memory is bounded by the largest iteration.
* ``logtree_bytes(ref) -> bytes | None``: an existing logtree JSON to copy
  beside the page as is (tinker), or None when the views must export one.

Optional: ``page_key(ref)`` (a hash of what the page is made of, for incremental
builds), ``input_bytes(ref)`` (the bytes load(ref) reads, which bounds the number of
render workers, see ``site.workers_for_memory``), and, for iterations too large to hold
whole, ``outline(ref) -> Outline | None`` (a first pass that keeps every group's figures
and where each member is; None: ``load`` it) with ``load_members(outline, picks)`` (the
members of a few groups, read back: ``site._render_outline`` asks for a page at a time),
and ``log_records() -> Iterator[LogRecord] | None`` (the run's own log, tinker's
``logs.log``, a record at a time; ``views.runlog`` makes its bounded page).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..model import Iteration, IterationRef, Run
from ..storage import Storage

# progress(done, total, unit): "bytes" read by a scan, then "updates" or "iterations" done
Progress = Callable[[int, int, str], None]


class Reader(Protocol):
    """What the site builder needs from a reader."""

    storage: Storage

    def scan(self, jobs: int = 1, progress: Progress | None = None) -> Run: ...

    def load(self, ref: IterationRef) -> Iteration: ...

    def logtree_bytes(self, ref: IterationRef) -> bytes | None: ...
