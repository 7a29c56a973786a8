"""SIGTERM during a sweep: stop as on Ctrl-C instead of dying on the spot.

Python's default for SIGTERM ends the process at once, with no ``finally`` run: a driver
killed so while it writes the store leaves its ``.tmp-`` files (until the next run cleans
them) and its local worker processes waiting on a pipe. While a sweep runs (in the main
thread, when the program has not set a SIGTERM handler of its own), SIGTERM raises
:class:`Terminated` instead — a ``KeyboardInterrupt``, so the driver takes the same way
out as on Ctrl-C: its workers stopped (the local processes terminated, the Dask tasks
cancelled), the store's temporary files removed, every finished run kept.
``aqmsim sweep`` then says so in one line and exits with 143 (128 + SIGTERM)."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator

__all__ = ["Terminated", "sigterm_as_interrupt"]


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while a sweep ran (see :func:`sigterm_as_interrupt`)."""

    #: The exit status of a process ended by SIGTERM, as a shell reports it.
    exit_code = 128 + signal.SIGTERM


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While in the block, SIGTERM raises :class:`Terminated` in the main thread (once: a
    second SIGTERM while the sweep cleans up is ignored, so that the clean-up finishes).
    An error that ends the block after SIGTERM came (a library that caught the signal's
    exception and raised its own) is raised as :class:`Terminated`. Nothing changes outside
    the main thread, or when the program handles SIGTERM itself
    (its handler is kept), or inside a block already doing this."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        old = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    if old is not signal.SIG_DFL:
        yield
        return
    fired = [False]

    def handler(signum: int, frame: Any) -> None:
        if fired[0]:
            return
        fired[0] = True
        raise Terminated("terminated (SIGTERM)")

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    except BaseException as exc:
        if fired[0] and not isinstance(exc, Terminated):
            # the signal reached C code that turned it into its own error (DuckDB: "Query
            # interrupted"): it is still a SIGTERM
            raise Terminated("terminated (SIGTERM)") from exc
        raise
    finally:
        signal.signal(signal.SIGTERM, old)
