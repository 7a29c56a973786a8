"""One message shape for a plug-in that fails (AQM and congestion control alike).

``<path>: plug-in <name>.<method> <what> at t = <now> s (<detail>)``, e.g.::

    flows[0].tcp: plug-in my_cc:MyReno.on_ack raised ZeroDivisionError: division by zero
    at t = 1.234000 s (my_cc.py:12: tcp.cwnd += tcp.mss / 0)

The source line is the innermost frame of the traceback in the plug-in's own file (the
file that defines its class), else the innermost frame outside ``aqmsim``.
"""

from __future__ import annotations

import inspect
import linecache
import os
import traceback
from typing import Any, Optional

__all__ = ["message", "over_time", "raised", "user_frame"]

_AQMSIM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def message(path: str, name: str, method: str, what: str, now: float, detail: str = "") -> str:
    """The one-line failure message (``detail`` goes in parentheses when given)."""
    tail = f" ({detail})" if detail else ""
    return f"{path}: plug-in {name}.{method} {what} at t = {now:.6f} s{tail}"


def _class_file(cls: Any) -> Optional[str]:
    try:
        f = inspect.getsourcefile(cls) if cls is not None else None
    except (TypeError, OSError):
        f = None
    return os.path.abspath(f) if f else None


def user_frame(exc: BaseException, cls: Any = None) -> Optional[str]:
    """``file.py:line: source`` of the innermost frame in ``cls``'s file (else the innermost
    frame outside aqmsim), or None when the traceback has no such frame."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = _class_file(cls)
    pick = None
    if own is not None:
        mine = [f for f in frames if os.path.abspath(f.filename) == own]
        pick = mine[-1] if mine else None
    if pick is None:
        outside = [f for f in frames if not os.path.abspath(f.filename).startswith(_AQMSIM_DIR + os.sep)]
        pick = outside[-1] if outside else (frames[-1] if frames else None)
    if pick is None:
        return None
    src = (pick.line or linecache.getline(pick.filename, pick.lineno or 0)).strip()
    where = f"{os.path.basename(pick.filename)}:{pick.lineno}"
    return f"{where}: {src}" if src else where


def over_time(path: str, name: str, method: str, now: float, limit: float, detail: str = "") -> str:
    """The message for a plug-in method still running when the run reached its time limit."""
    what = f"was still running when the run reached its time limit (plugin_time_limit = {limit:g} s of wall-clock time)"
    return message(path, name, method, what, now, detail)


def raised(path: str, name: str, method: str, now: float, exc: BaseException, cls: Any = None,
           limit: float = 0.0) -> str:
    """The message for a plug-in method that raised ``exc`` (the watchdog's
    ``PluginTimeLimit`` is the time limit, with the line it interrupted)."""
    from .watchdog import PluginTimeLimit

    if isinstance(exc, PluginTimeLimit):
        return over_time(path, name, method, now, limit, user_frame(exc, cls) or "")
    text = str(exc)
    what = f"raised {type(exc).__name__}" + (f": {text}" if text else "")
    return message(path, name, method, what, now, user_frame(exc, cls) or "")
