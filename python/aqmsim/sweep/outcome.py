"""What a worker answers for one run, as plain dicts (they cross process boundaries): a
failure, a time-out, a task handed back, and what identifies the process that ran it
(aqmsim's version, the engine's build, the host — the run's provenance, kept in the
store). Kept apart from the pools and the worker function so that other engines' worker
functions (:func:`aqmsim.ns2.worker.execute_ns2`) answer alike without importing them."""

from __future__ import annotations

import os
import signal
import socket
from typing import Any, Dict, Optional

# the provenance helpers live in aqmsim.provenance (shared with `aqmsim run --out`)
from ..provenance import aqmsim_version, command_line, engine_build, engine_hash, host_info

__all__ = ["engine_build", "engine_hash", "host_info", "identity", "command_line"]

#: ``status`` of a task a local worker was handed but never started (it died running the
#: one before): the driver gives it to a worker again, without counting an attempt.
_REQUEUE = "requeue"


def _version() -> str:
    return aqmsim_version()


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
