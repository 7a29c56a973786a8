"""Python congestion controls: the base class and how the engine calls it.

A ``tcp`` table with ``variant = "python"`` (either stack) names the class and its
keyword arguments::

    [tcp]
    stack = "linux"
    variant = "python"
    cc_class = "my_cc:MyReno"        # or "path/to/my_cc.py:MyReno"
    cc = { beta = 0.5 }              # MyReno(beta=0.5), one instance per flow

The engine calls the methods at ns-3's ``TcpCongestionOps`` points (see
``docs/plugins/cc.md``) with ``tcp``, one reused view of the flow: on the linux stack
windows, ``mss`` and ``in_flight`` in bytes, ``pacing_rate`` in bit/s; on the ns-2 stack
(inside ns-2's NewReno agent) windows in packets and ``mss`` 1; times in seconds.
"""

from __future__ import annotations

import abc
import copy
import inspect
from typing import Any, Dict, Optional, Tuple

from ..errors import ScenarioError

__all__ = ["CongestionControl", "build", "copy_of", "OPTIONAL"]

#: The methods the engine calls only when the class defines them.
OPTIONAL = ("pkts_acked", "on_ecn", "on_rto", "on_event")


class CongestionControl(abc.ABC):
    """Base class of a Python congestion control (ns-3's ``TcpCongestionOps``).

    Define ``on_ack`` and ``ssthresh``; the others are optional (not called unless defined).
    ``__init__`` takes the scenario's ``cc`` table as keyword arguments.
    """

    @abc.abstractmethod
    def on_ack(self, tcp: Any, acked: int) -> None:
        """New data was ACKed (``acked`` segments) in the Open or Loss state: grow
        ``tcp.cwnd`` (ns-3 ``IncreaseWindow``). Required: a class without its own is
        refused when the scenario is built."""

    @abc.abstractmethod
    def ssthresh(self, tcp: Any) -> float:
        """A loss or an ECN echo: return the new slow-start threshold, bytes (ns-3
        ``GetSsThresh``; ``tcp.in_flight`` is the bytes in flight at the event). Required."""

    # Optional (not called unless a subclass defines them):
    # def pkts_acked(self, tcp, acked): every ACK (ns-3 PktsAcked; 1 for a duplicate ACK)
    # def on_ecn(self, tcp): the sender enters CWR on an ECN echo (after ssthresh)
    # def on_rto(self, tcp): the retransmission timer fired (after ssthresh)
    # def on_event(self, tcp, event): "recovery", "loss" or "complete_cwr"


def _name(table: Dict[str, Any], cls: type) -> str:
    spec = table.get("cc_class")
    return spec if isinstance(spec, str) else f"{cls.__module__}:{cls.__qualname__}"


def _hooks(obj: Any) -> Tuple[Any, ...]:
    get = lambda m: getattr(obj, m, None)  # noqa: E731
    return (get("on_ack"), get("ssthresh")) + tuple(get(m) for m in OPTIONAL)


def _check_class(cls: type, where: str) -> None:
    for m in ("on_ack", "ssthresh"):
        f = getattr(cls, m, None)
        if not callable(f) or f is getattr(CongestionControl, m):
            raise ScenarioError(f"{where}: {cls.__name__} must define {m}() (see docs/plugins/cc.md)")


def _construct(cls: type, params: Dict[str, Any], where: str) -> Any:
    try:
        sig: Optional[inspect.Signature] = inspect.signature(cls)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
        names = [n for n, p in sig.parameters.items()
                 if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]
        if not takes_any:
            for k in params:
                if k not in names:
                    allowed = ", ".join(names) if names else "none"
                    raise ScenarioError(f"{where}.{k}: {cls.__name__} takes no argument {k!r} (its arguments: {allowed})")
        missing = [n for n, p in sig.parameters.items() if p.default is inspect.Parameter.empty
                   and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
                   and n not in params]
        if missing:
            raise ScenarioError(f"{where}: {cls.__name__} needs {', '.join(repr(m) for m in missing)} (give it in the cc table)")
    try:
        return cls(**params)
    except ScenarioError:
        raise
    except Exception as exc:  # the user's constructor refused its arguments
        from .errors import user_frame

        frame = user_frame(exc, cls)
        tail = f" ({frame})" if frame else ""
        raise ScenarioError(f"{where}: {cls.__name__}(**cc) raised {type(exc).__name__}: {exc}{tail}") from None


def build(factory: Any, table: Dict[str, Any], path: str) -> Tuple[Any, str, Tuple[Any, ...]]:
    """One flow's instance: ``(instance, name, (on_ack, ssthresh, pkts_acked, on_ecn,
    on_rto, on_event))``, the optional methods None when the class does not define them."""
    cls = factory.find_class(table.get("cc_class"), f"{path}.cc_class")
    _check_class(cls, f"{path}.cc_class")
    params = table.get("cc") or {}
    if not isinstance(params, dict):
        raise ScenarioError(f"{path}.cc: must be a table of {cls.__name__}'s keyword arguments, got {params!r}")
    obj = _construct(cls, params, f"{path}.cc")
    return obj, _name(table, cls), _hooks(obj)


def copy_of(obj: Any, name: str) -> Tuple[Any, str, Tuple[Any, ...]]:
    """An independent copy of a flow's instance (the engine copies a sender)."""
    new = copy.deepcopy(obj)
    return new, name, _hooks(new)
