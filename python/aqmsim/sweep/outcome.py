"""What a worker answers for one run, as plain dicts (they cross process boundaries): a
failure, a time-out, a task handed back, and what identifies the process that ran it
(aqmsim's version, the engine's build, the host — the run's provenance, kept in the
store). Kept apart from the pools and the worker function so that other engines' worker
functions (:func:`aqmsim.ns2.worker.execute_ns2`) answer alike without importing them."""

from __future__ import annotations

import os
import platform
import shlex
import signal
import socket
import sys
from functools import lru_cache
from typing import Any, Dict, Optional

__all__ = ["engine_build", "engine_hash", "host_info", "identity", "command_line"]

#: ``status`` of a task a local worker was handed but never started (it died running the
#: one before): the driver gives it to a worker again, without counting an attempt.
_REQUEUE = "requeue"


def _version() -> str:
    try:
        from .. import __version__

        return str(__version__)
    except Exception:  # pragma: no cover
        return "unknown"


def engine_build() -> Dict[str, Any]:
    """``aqmsim._core.BUILD`` (version, source_hash, git_commit, profile) of the engine this
    process loads; ``{}`` when it cannot be loaded (no run can be made then)."""
    return dict(_build())


@lru_cache(maxsize=1)
def _build() -> Dict[str, Any]:
    try:
        from .. import _core

        return dict(getattr(_core, "BUILD", {}) or {})
    except Exception:  # noqa: BLE001 - no engine: nothing identifies it
        return {}


def engine_hash() -> Optional[str]:
    """The source hash of this process's engine: the key a stored run must match to be
    reused (a run made by another build of the engine is stale)."""
    return engine_build().get("source_hash") or None


def host_info() -> Dict[str, str]:
    """Where a run ran: host name, platform, Python version."""
    return dict(_host())


@lru_cache(maxsize=1)  # (platform.platform() reads files: once per process)
def _host() -> Dict[str, str]:
    return {"hostname": socket.gethostname(), "platform": platform.platform(),
            "python": sys.version.split()[0]}


def identity(build: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The fields every answer carries: ``worker`` (host:pid), ``version`` (aqmsim's),
    ``build`` (the engine's, default this process's) and ``host``."""
    return {"worker": f"{socket.gethostname()}:{os.getpid()}", "version": _version(),
            "build": engine_build() if build is None else build, "host": host_info()}


def _failure(kind: str, message: str, **extra: Any) -> Dict[str, Any]:
    return {"status": "failed", "error_kind": kind, "error": message, **extra}


def _exit_text(code: Optional[int]) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _timeout_failure(limit: float) -> Dict[str, Any]:
    return _failure("timeout", f"no result within the time limit of {limit:g} s per run "
                    "(stopped; raise it with timeout = S in the sweep file or --timeout S)")


def command_line() -> str:
    """The command that started this sweep, for the store: the process's command line when
    the ``aqmsim`` CLI runs it; else ``python API: FILE:LINE in FUNCTION (argv: ...)`` of
    the first caller outside aqmsim (a script, a notebook cell)."""
    frame = sys._getframe(1)
    caller = None
    while frame is not None:
        mod = str(frame.f_globals.get("__name__", ""))
        if mod == "aqmsim.cli":
            return shlex.join(["aqmsim", *sys.argv[1:]])
        if caller is None and mod != "aqmsim" and not mod.startswith("aqmsim."):
            caller = frame
        frame = frame.f_back
    where = "?"
    if caller is not None:
        where = f"{caller.f_code.co_filename}:{caller.f_lineno} in {caller.f_code.co_name}"
    return f"python API: {where} (argv: {shlex.join(sys.argv)})"
