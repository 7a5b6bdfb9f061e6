"""The build's memory goal, shared by the pools that fork workers (the observe scan's and
the site builder's render pool): RSS summed over the build's processes, which counts the
pages a forked worker shares with the main process twice (the strict reading of issue 6)."""

from __future__ import annotations

import os
import signal
import sys

# issue 6: 400 MiB for a 200 MiB export, for all the build's processes
MEMORY_BUDGET = 400 << 20


def rss() -> int:
    """This process's resident set size in bytes (64 MiB, what a build's main process holds
    on the benchmarks, where /proc cannot say)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return 64 << 20


def ignore_interrupts() -> None:
    """Initializer of every worker pool: Ctrl-C is the main process's to handle, and a
    worker does not outlive it.

    A terminal sends SIGINT to the whole process group. A worker that took it died with a
    traceback of its own mid-task, and now and then left the pool's queues locked: the
    build hung instead of ending. The main process cancels the tasks not begun and waits
    for the ones running (a page, a range of the export, a run of a sweep).

    A main process killed alone (``kill PID``, SIGKILL, a closed terminal's SIGHUP) left its
    workers waiting on the pool's queue for ever, holding the build's stdout and stderr, so
    a caller reading them to their end hung too: on Linux a worker now dies with its
    parent (``PR_SET_PDEATHSIG``), and goes at once if the parent is gone already. SIGTERM
    and SIGHUP are the default ones again: the main process's handlers (``cli``) raise an
    exception to clean up, which a worker has no use for."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
    _die_with_parent()


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    import multiprocessing

    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)  # the parent died before prctl: nobody waits for this worker


def release_memory() -> None:
    """Hand the heap's free memory back to the kernel (glibc's malloc_trim; elsewhere nothing).

    The build keeps freed memory for reuse (``site.tune_malloc``), which is right while
    pages are being made, but a worker forked from this process counts every resident
    page of it again in the summed RSS of the goal: trimmed before the render pool forks,
    a build of 16,780 updates of 500 metrics went from 336 to 272 MiB in its main process
    (3.5 ms)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except Exception:  # noqa: BLE001 - not glibc (musl has no malloc_trim): nothing to give back
        pass
