"""Python queue disciplines: the base class, the verdicts, and how the engine builds and
calls them (reference: ``docs/plugins/aqm.md``).

A discipline decides on a FIFO the engine keeps (as RED or CoDel do): ``enqueue(pkt, q)``
at each arrival returns a verdict, the optional ``dequeue(pkt, q)`` at each departure a
front action. The engine calls the bound methods of one instance per queue, with one
packet view and one queue view it refills before each call.
"""

from __future__ import annotations

import abc
import inspect
import json
import os
from typing import Any, Dict, Optional, Tuple

from ..errors import ScenarioError

__all__ = [
    "QueueDiscipline", "Link",
    "ACCEPT", "PASS", "DROP", "MARK", "DROP_HEAD",
    "DROP_FORCED", "DROP_OVERFLOW", "MARK_FORCED", "MARK_OVERFLOW",
    "DROP_HEAD_FORCED", "DROP_HEAD_OVERFLOW",
    "NOT_ECT", "ECT1", "ECT0", "CE",
]

# Verdicts: the action in bits 2-3, the reason the drop log shows in bits 0-1
# (0 early, 1 forced, 2 overflow). Plain ints: the engine checks them exactly.
ACCEPT = 1          #: enqueue: queue the arrival
PASS = 2            #: dequeue: let the head packet leave
DROP = 4            #: drop the arrival (enqueue) or the head packet (dequeue); reason "early"
DROP_FORCED = 5     #: as DROP, logged with reason "forced"
DROP_OVERFLOW = 6   #: as DROP, logged with reason "overflow"
MARK = 8            #: set CE and queue (enqueue) or send (dequeue); reason "early"
MARK_FORCED = 9
MARK_OVERFLOW = 10
DROP_HEAD = 12      #: enqueue: queue the arrival, drop the head packet instead
DROP_HEAD_FORCED = 13
DROP_HEAD_OVERFLOW = 14

# pkt.ect: the IP ECN field (RFC 3168)
NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3

_NAMES = {v: k for k, v in list(globals().items())
          if k.isupper() and isinstance(v, int) and k.startswith(("ACCEPT", "PASS", "DROP", "MARK"))}
_ENQUEUE_OK = "ACCEPT, DROP, MARK or DROP_HEAD"
_DEQUEUE_OK = "PASS, DROP or MARK"
#: queue-sample columns a monitored attribute may not take (the engine's own)
_RESERVED = ("t", "link", "len_pkts", "len_bytes")


class Link:
    """What :meth:`QueueDiscipline.setup` is told about the queue's link."""

    __slots__ = ("rate_bps", "delay_s")

    def __init__(self, rate_bps: float, delay_s: float) -> None:
        self.rate_bps = rate_bps  #: the link's rate, bit/s
        self.delay_s = delay_s    #: its propagation delay, s

    def __repr__(self) -> str:
        return f"Link(rate_bps={self.rate_bps!r}, delay_s={self.delay_s!r})"


class QueueDiscipline(abc.ABC):
    """Base class of a Python queue discipline (see ``docs/plugins/aqm.md``).

    Subclass it, give ``__init__`` keyword parameters (the queue table's other fields)
    and write :meth:`enqueue`; the other methods are optional.
    """

    #: attributes sampled into ``Results.queue`` every ``monitor.sample_interval``: avg,
    #: p, max_p, min_th, max_th, delay and count fill those columns; any other name is an
    #: extra column (NaN on links without it).
    monitor: Tuple[str, ...] = ()
    #: seconds between calls of :meth:`update` (None: never).
    update_interval: Optional[float] = None

    def setup(self, link: Link) -> None:
        """Called once after ``__init__`` with the link (``link.rate_bps``, ``link.delay_s``)."""

    @abc.abstractmethod
    def enqueue(self, pkt: Any, q: Any) -> int:
        """A packet arrives: return ACCEPT, DROP, MARK or DROP_HEAD (or a _FORCED /
        _OVERFLOW variant). ``q`` is the queue without the arrival. Every discipline
        defines it: a class without its own is refused when the scenario is built."""

    def dequeue(self, pkt: Any, q: Any) -> int:
        """The head packet is about to leave: return PASS, DROP (the next one is offered)
        or MARK. ``q`` is the queue without it."""
        return PASS

    def idle(self, now: float) -> None:
        """The link wanted a packet and found the queue empty, at ``now`` (s)."""

    def update(self, now: float) -> None:
        """Every ``update_interval`` s of simulated time, lazily before the next packet
        event (several in a row after a quiet spell), in time order."""

    def uniform(self) -> float:
        """A uniform draw in [0, 1) from the queue's own seeded stream (during enqueue and
        dequeue)."""
        raise RuntimeError("uniform() is available once the engine has built the discipline, "
                           "during enqueue() and dequeue()")


class Built:
    """What :func:`build` hands the engine."""

    __slots__ = ("obj", "name", "resolved", "has_dequeue", "has_idle", "has_update",
                 "interval", "monitor")

    def __init__(self, **kw: Any) -> None:
        for k, v in kw.items():
            setattr(self, k, v)


def _overrides(cls: type, name: str) -> bool:
    """Does ``cls`` define method ``name`` other than :class:`QueueDiscipline`'s no-op?"""
    f = getattr(cls, name, None)
    return callable(f) and f is not getattr(QueueDiscipline, name, None)


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v, allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


def class_name(cls: type) -> str:
    """``module:Qualname``, how a scenario names a class object."""
    return f"{cls.__module__}:{cls.__qualname__}"


def build(factory: Any, table: Dict[str, Any], path: str, rate_bps: float, delay_s: float) -> Built:
    """Make the discipline ``table`` names (``class`` and its keyword parameters)."""
    spec = table.get("class")
    if spec is None:
        raise ScenarioError(f"{path}.class: missing: a kind = \"python\" queue names its class, "
                            f"\"module:Class\" or \"path/file.py:Class\"")
    cls = factory.find(spec, f"{path}.class")
    if not _overrides(cls, "enqueue"):
        raise ScenarioError(f"{path}.class: {spec!r} has no enqueue(self, pkt, q) method of its own "
                            f"(a subclass of aqmsim.plugin.QueueDiscipline that decides each arrival: "
                            f"docs/plugins/aqm.md)")
    kwargs = {k: v for k, v in table.items() if k not in ("kind", "class")}
    params = _check_params(cls, kwargs, path, spec)
    name = spec if isinstance(spec, str) else class_name(cls)
    obj = _construct(cls, kwargs, path, name)
    where = f"{path}.class"
    monitor = getattr(obj, "monitor", ())
    if isinstance(monitor, str) or not isinstance(monitor, (tuple, list)) or not all(isinstance(m, str) and m.isidentifier() for m in monitor):
        raise ScenarioError(f"{where}: {name}.monitor must be a tuple of attribute names, got {monitor!r}")
    bad = [m for m in monitor if m in _RESERVED]
    if bad or len(set(monitor)) != len(monitor):
        raise ScenarioError(f"{where}: {name}.monitor names {bad[0] if bad else 'a column twice'!r}; "
                            f"names must be distinct and not {', '.join(_RESERVED)}")
    interval = getattr(obj, "update_interval", None)
    if interval is not None:
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not (1e-6 <= interval <= 1e6):
            raise ScenarioError(f"{where}: {name}.update_interval must be None or seconds in [1e-6, 1e6], got {interval!r}")
    has_update = interval is not None and _overrides(cls, "update")
    setup = getattr(obj, "setup", None)
    if callable(setup):
        try:
            setup(Link(rate_bps, delay_s))
        except Exception as exc:
            raise ScenarioError(f"{where}: {name}.setup raised {type(exc).__name__}: {exc} ({where_in_user_code(exc)})") from None
    resolved = {"kind": "python", "class": name}
    resolved.update({k: v for k, v in params.items() if _jsonable(v)})
    return Built(obj=obj, name=name, resolved=json.dumps(resolved, allow_nan=False),
                 has_dequeue=_overrides(cls, "dequeue"), has_idle=_overrides(cls, "idle"),
                 has_update=has_update, interval=float(interval or 0.0), monitor=list(monitor))


def _check_params(cls: type, kwargs: Dict[str, Any], path: str, spec: Any) -> Dict[str, Any]:
    """The constructor's parameters with the table's values (defaults filled in); a field
    it does not take is an error naming the field."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return dict(kwargs)
    ps = sig.parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in ps.values())
    named = [n for n, p in ps.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for k in kwargs:
        if k not in named and not takes_any:
            allowed = ", ".join(named) or "none"
            raise ScenarioError(f"{path}.{k}: {spec if isinstance(spec, str) else class_name(cls)} takes no parameter {k!r} "
                                f"(its parameters: {allowed}; and kind, class)")
    missing = [n for n in named if n not in kwargs and ps[n].default is inspect.Parameter.empty]
    if missing:
        raise ScenarioError(f"{path}.{missing[0]}: missing: {cls.__qualname__}() needs it (no default)")
    out = {n: ps[n].default for n in named if ps[n].default is not inspect.Parameter.empty}
    out.update(kwargs)
    return out


def _construct(cls: type, kwargs: Dict[str, Any], path: str, name: str) -> Any:
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        text = str(exc)
        hits = [k for k in kwargs if k in text]
        field = f"{path}.{hits[0]}" if len(hits) == 1 else f"{path}.class"
        raise ScenarioError(f"{field}: {name}() refused it: {type(exc).__name__}: {text} ({where_in_user_code(exc)})") from None
    except Exception as exc:
        raise ScenarioError(f"{path}.class: {name}() raised {type(exc).__name__}: {exc} ({where_in_user_code(exc)})") from None


# ---------------------------------------------------------------- messages (cold path)
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def where_in_user_code(exc: BaseException, tb: Any = None) -> str:
    """``file:line: source`` of the innermost traceback frame outside aqmsim (the user's)."""
    import linecache

    tb = tb if tb is not None else exc.__traceback__
    best = None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PKG_DIR + os.sep) or "/plugin/examples/" in fn:
            best = tb
        tb = tb.tb_next
    if best is None:
        return "no traceback line in the plug-in's own code"
    fn, line = best.tb_frame.f_code.co_filename, best.tb_lineno
    src = linecache.getline(fn, line).strip()
    return f"{fn}:{line}: {src}" if src else f"{fn}:{line}"


def _t(now: float) -> str:
    s = f"{now:.9f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


def _returned(path: str, name: str, what: str, now: float, value: Any) -> str:
    ok = _ENQUEUE_OK if what == "enqueue" else _DEQUEUE_OK
    shown = _NAMES[value] if type(value) is int and value in _NAMES else repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"{path}: plug-in {name}.{what} returned {shown} at t = {_t(now)} s (expected {ok})"


def _raised(path: str, name: str, what: str, now: float, exc: BaseException, limit: float,
            tb: Any = None) -> str:
    from .watchdog import PluginTimeLimit

    if isinstance(exc, PluginTimeLimit):
        return _over_time(path, name, what, now, limit) + f" ({where_in_user_code(exc, tb)})"
    text = str(exc)
    if len(text) > 200:
        text = text[:197] + "..."
    return (f"{path}: plug-in {name}.{what} raised {type(exc).__name__}: {text} at t = {_t(now)} s "
            f"({where_in_user_code(exc, tb)})")


def _over_time(path: str, name: str, what: str, now: float, limit: float) -> str:
    return (f"{path}: plug-in {name}.{what} was still running when the run reached its time limit "
            f"(plugin_time_limit = {limit:g} s of wall-clock time) at t = {_t(now)} s")


def _not_a_number(path: str, name: str, attr: str, value: Any) -> str:
    return f"{path}: plug-in {name}: monitored attribute {attr!r} is {value!r}, not a number"

