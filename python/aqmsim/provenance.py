"""Where a result came from — aqmsim's version, the engine's build, the host, the command
line, the time — for every place that keeps results: the store's rows (:mod:`aqmsim.store`,
filled by the sweep workers, :mod:`aqmsim.sweep.outcome`) and ``aqmsim run --out``'s
``provenance.json`` (:func:`provenance`). Light: the standard library only, so that
``aqmsim run`` pays nothing for it (tests/test_startup.py)."""

from __future__ import annotations

import platform
import shlex
import socket
import sys
from functools import lru_cache
from typing import Any, Dict, Optional

__all__ = ["engine_build", "engine_hash", "host_info", "command_line", "provenance",
           "aqmsim_version", "utc_text"]


def aqmsim_version() -> str:
    """aqmsim's version (``aqmsim.__version__``), "unknown" if it cannot be read."""
    try:
        from . import __version__

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
        from . import _core

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


def command_line() -> str:
    """The command that made the result: the process's command line when the ``aqmsim``
    CLI runs it; else ``python API: FILE:LINE in FUNCTION (argv: ...)`` of the first caller
    outside aqmsim (a script, a notebook cell)."""
    frame = sys._getframe(1)
    caller = None
    while frame is not None:
        mod = str(frame.f_globals.get("__name__", ""))
        if mod == "aqmsim.cli" or mod.startswith("aqmsim.cli."):  # the package of its commands
            return shlex.join(["aqmsim", *sys.argv[1:]])
        if caller is None and mod != "aqmsim" and not mod.startswith("aqmsim."):
            caller = frame
        frame = frame.f_back
    where = "?"
    if caller is not None:
        where = f"{caller.f_code.co_filename}:{caller.f_lineno} in {caller.f_code.co_name}"
    return f"python API: {where} (argv: {shlex.join(sys.argv)})"


def utc_text(when: Optional[float] = None) -> str:
    """``when`` (seconds since the epoch, default now) as UTC ISO 8601 to the second,
    ``2026-11-28T09:50:03Z``: the times of ``provenance.json``."""
    import datetime

    t = datetime.datetime.now(datetime.timezone.utc) if when is None \
        else datetime.datetime.fromtimestamp(when, datetime.timezone.utc)
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


def provenance(command: Optional[str] = None, finished_at: Optional[str] = None,
               started_at: Optional[str] = None) -> Dict[str, Any]:
    """The record ``aqmsim run --out`` writes as ``provenance.json``, with the fields and
    meanings of the store's provenance columns (:data:`aqmsim.store.schema.PROVENANCE_COLUMNS`):
    ``version`` (aqmsim's), ``engine_hash`` (the engine's source hash), ``engine`` (its whole
    build record), ``host`` (host name, platform, Python), ``command`` and ``finished_at``
    (UTC, ISO 8601, default now); ``started_at`` (when the run began, same form) when
    given — the store has no such column."""
    if finished_at is None:
        finished_at = utc_text()
    record = {"version": aqmsim_version(), "engine_hash": engine_hash(),
              "engine": engine_build(), "host": host_info(),
              "command": command if command is not None else command_line()}
    if started_at is not None:
        record["started_at"] = started_at
    record["finished_at"] = finished_at
    return record
