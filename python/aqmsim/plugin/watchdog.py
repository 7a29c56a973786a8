"""The per-run wall-clock limit of plug-ins (``plugin_time_limit``) for code that never
returns: a timer thread raises :class:`PluginTimeLimit` in the thread running the
simulation (``PyThreadState_SetAsyncExc``), which interrupts a pure-Python loop in a
plug-in at its next bytecode. The engine also checks the limit after every callback.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Optional


class PluginTimeLimit(BaseException):
    """Raised inside a plug-in when its run reached ``plugin_time_limit`` (a BaseException,
    so that ``except Exception`` in the plug-in does not swallow it)."""


def _set_async(tid: int, exc: Optional[type]) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), ctypes.py_object(exc) if exc else None)


class Watchdog:
    """Raise :class:`PluginTimeLimit` in the calling thread after ``limit_s`` seconds,
    unless :meth:`stop` came first."""

    def __init__(self, limit_s: float) -> None:
        self.tid = threading.get_ident()
        self.lock = threading.Lock()
        self.armed = True
        self.fired = False
        self.timer = threading.Timer(limit_s, self._fire)
        self.timer.daemon = True
        self.timer.start()

    def _fire(self) -> None:
        with self.lock:
            if self.armed:
                self.fired = True
                _set_async(self.tid, PluginTimeLimit)

    def stop(self) -> None:
        """Disarm; a PluginTimeLimit set but not yet raised is withdrawn."""
        with self.lock:
            self.armed = False
            self.timer.cancel()
            if self.fired:
                _set_async(self.tid, None)
        if threading.current_thread() is not self.timer:
            self.timer.join(1.0)  # gone before the caller forks (run --out's figures)
