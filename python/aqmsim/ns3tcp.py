"""ns-3.37's TCP on one deterministic flow (issue 24): the reference aqmsim's Linux/ns-3 like
sender is checked against.

:func:`run` builds ``benchmarks/ns3/single_flow.cc`` (by :func:`aqmsim.ns3ref.build`, which
rebuilds only when the source changed), runs it with the given settings and returns a
:class:`SingleFlow`: every traced change of ns-3's sender (``CongestionWindow``,
``SlowStartThreshold``, ``CongState``, ``RTT``, ``BytesInFlight``, ``PacingRate``, TcpBbr's
mode) and of the bottleneck disc (packets queued, drops, marks) as numpy arrays. Outputs are
cached under ``target/ns3-bench/single_flow-cache/`` by the hash of the program's source,
the ns-3 version and the arguments, so a test that runs the same scenario twice pays once.

A comparison test reads::

    ref = ns3tcp.run("newreno", "droptail", bottleneck="10Mbps", bottleneck_delay="20ms",
                     segment=1448, duration=10)
    t, cwnd = ref.series("cwnd")          # seconds, bytes: each value ns-3 took, in order
    ours = ...                            # aqmsim's cwnd changes of the same flow, in bytes
    assert ns3tcp.first_difference(cwnd, ours) is None

What ns-3 does by default is written down in docs/ns3-tcp-reference.md. Only the standard
library is imported at module level; numpy is imported when a run is parsed.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from aqmsim import ns3ref

__all__ = ["run", "parse", "SingleFlow", "first_difference", "TCPS", "QUEUES", "CONG_STATES",
           "OPTIONS"]

PROGRAM = "single_flow"
SOURCE = ns3ref.REPO / "benchmarks" / "ns3" / f"{PROGRAM}.cc"
TCPS = ("newreno", "cubic", "dctcp", "bbr", "ledbat")
QUEUES = ("droptail", "codel", "red")
# TcpSocketState::TcpCongState_t, in order.
CONG_STATES = ("open", "disorder", "cwr", "recovery", "loss")
# Friendly keyword -> the ns-3 attribute it sets (None: ns-3's default, see the docs page).
OPTIONS = {
    "segment": "ns3::TcpSocket::SegmentSize",
    "initial_cwnd": "ns3::TcpSocket::InitialCwnd",
    "initial_ssthresh": "ns3::TcpSocket::InitialSlowStartThreshold",
    "del_ack_count": "ns3::TcpSocket::DelAckCount",
    "del_ack_timeout": "ns3::TcpSocket::DelAckTimeout",
    "snd_buf": "ns3::TcpSocket::SndBufSize",
    "rcv_buf": "ns3::TcpSocket::RcvBufSize",
    "sack": "ns3::TcpSocketBase::Sack",
    "timestamps": "ns3::TcpSocketBase::Timestamp",
    "window_scaling": "ns3::TcpSocketBase::WindowScaling",
    "limited_transmit": "ns3::TcpSocketBase::LimitedTransmit",
    "retx_threshold": "ns3::TcpSocketBase::ReTxThreshold",
    "min_rto": "ns3::TcpSocketBase::MinRto",
    "clock_granularity": "ns3::TcpSocketBase::ClockGranularity",
    "recovery": "ns3::TcpL4Protocol::RecoveryType",
    "pacing": "ns3::TcpSocketState::EnablePacing",
    "pacing_ss_ratio": "ns3::TcpSocketState::PacingSsRatio",
    "pacing_ca_ratio": "ns3::TcpSocketState::PacingCaRatio",
    "paced_initial": "ns3::TcpSocketState::PaceInitialWindow",
    "max_pacing_rate": "ns3::TcpSocketState::MaxPacingRate",
}
RECOVERY = {"prr": "ns3::TcpPrrRecovery", "classic": "ns3::TcpClassicRecovery"}
# Lines with one value after the time; the others carry old and new.
_ONE = {"rtt", "rto", "drop", "mark"}
_KINDS = {"cwnd", "cwnd_infl", "ssthresh", "state", "ecn", "inflight", "pacing", "qlen"} | _ONE
_CACHE_VERSION = "1"


class SingleFlow:
    """One run's traces. ``events[kind]`` is a dict of numpy arrays: ``line`` (the output
    line number: it orders events of different kinds at the same instant), ``t`` (ns, int64)
    and ``old``/``new`` (or ``value`` for rtt, rto, drop, mark); ``bbr`` is a list of
    ``(t_ns, old_mode, new_mode)``; ``summary`` the closing ``key value`` lines."""

    def __init__(self, events: Dict[str, Dict[str, Any]], bbr: List[Tuple[int, str, str]],
                 summary: Dict[str, Any], args: Sequence[str] = ()):
        self.events = events
        self.bbr = bbr
        self.summary = summary
        self.args = list(args)

    def series(self, kind: str) -> Tuple[Any, Any]:
        """``(t in seconds, value)`` of ``kind``'s changes: the new value for the traced
        values, the sample for rtt/rto, the packet size for drop/mark."""
        import numpy as np

        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {sorted(_KINDS)}, not {kind!r}")
        ev = self.events.get(kind)
        if ev is None:
            return np.zeros(0), np.zeros(0, dtype=np.int64)
        return ev["t"] / 1e9, ev["value" if kind in _ONE else "new"]

    def at(self, kind: str, times: Any) -> Any:
        """The value ``kind`` held at each of ``times`` (s): the last change at or before
        it (0 before the first), for sampling ns-3's series on aqmsim's clock."""
        import numpy as np

        t, v = self.series(kind)
        idx = np.searchsorted(t, np.asarray(times, dtype=float), side="right") - 1
        return np.where(idx >= 0, v[np.maximum(idx, 0)], 0)

    def before(self, kind: str, line: int) -> int:
        """The value ``kind`` held just before output line ``line`` (0 if never set)."""
        ev = self.events.get(kind)
        if ev is None:
            return 0
        import numpy as np

        i = int(np.searchsorted(ev["line"], line)) - 1
        return int(ev["value" if kind in _ONE else "new"][i]) if i >= 0 else 0

    def states(self) -> List[Tuple[float, str]]:
        """``(t s, state name)`` for each CongState change (names of :data:`CONG_STATES`)."""
        t, v = self.series("state")
        return [(float(a), CONG_STATES[int(b)]) for a, b in zip(t, v)]

    def bbr_modes(self) -> List[Tuple[float, str]]:
        """TcpBbr's mode changes, ``(t s, "STARTUP" | "DRAIN" | "PROBE_BW" | "PROBE_RTT")``,
        the first entry being STARTUP (SetBbrState calls that keep the mode are left out)."""
        out: List[Tuple[float, str]] = []
        for t, _old, new in self.bbr:
            if not out or out[-1][1] != new:
                out.append((t / 1e9, new))
        return out


def parse(text: str, args: Sequence[str] = ()) -> SingleFlow:
    """single_flow's output (see the header of benchmarks/ns3/single_flow.cc)."""
    import numpy as np

    rows: Dict[str, List[List[int]]] = {}
    bbr: List[Tuple[int, str, str]] = []
    summary: Dict[str, Any] = {}
    for n, line in enumerate(text.splitlines()):
        f = line.split()
        if not f:
            continue
        kind = f[0]
        if kind in _KINDS:
            rows.setdefault(kind, []).append([n] + [int(x) for x in f[1:]])
        elif kind == "bbr" and len(f) == 4:
            bbr.append((int(f[1]), f[2], f[3]))
        elif len(f) == 2:
            summary[kind] = ns3ref._num(f[1])
        else:
            raise ns3ref.Ns3Error(f"unexpected single_flow line: {line!r}")
    events: Dict[str, Dict[str, Any]] = {}
    for kind, r in rows.items():
        a = np.array(r, dtype=np.int64)
        if kind in _ONE:
            events[kind] = {"line": a[:, 0], "t": a[:, 1], "value": a[:, 2]}
        else:
            events[kind] = {"line": a[:, 0], "t": a[:, 1], "old": a[:, 2], "new": a[:, 3]}
    return SingleFlow(events, bbr, summary, args)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def arguments(tcp: str = "newreno", queue: str = "droptail", *, bottleneck: str = "10Mbps",
              bottleneck_delay: str = "20ms", access: str = "1Gbps", access_delay: str = "1ms",
              limit: int = 100, ecn: bool = False, ce_threshold: str = "1ms", mark_th: float = 20,
              start: float = 0.1, duration: float = 10.0, seed: int = 1,
              attrs: Optional[Mapping[str, Any]] = None, **options: Any) -> List[str]:
    """The command line (without the binary) for these settings; ``options`` are the keys
    of :data:`OPTIONS` (``recovery`` takes "prr" or "classic"), ``attrs`` any further
    ``{"ns3::Type::Attribute": value}``."""
    if tcp not in TCPS:
        raise ValueError(f"tcp must be one of {', '.join(TCPS)}, not {tcp!r}")
    if queue not in QUEUES:
        raise ValueError(f"queue must be one of {', '.join(QUEUES)}, not {queue!r}")
    args = [f"--tcp={tcp}", f"--queue={queue}", f"--bottleneck={bottleneck}",
            f"--bottleneckDelay={bottleneck_delay}", f"--access={access}",
            f"--accessDelay={access_delay}", f"--limit={int(limit)}", f"--ecn={_value(bool(ecn))}",
            f"--ceThreshold={ce_threshold}", f"--markTh={mark_th}", f"--start={start}",
            f"--duration={duration}", f"--seed={int(seed)}"]
    for key, v in options.items():
        if key not in OPTIONS:
            raise ValueError(f"unknown option {key!r}; expected one of {', '.join(OPTIONS)}")
        if v is None:
            continue
        if key == "recovery":
            if v not in RECOVERY:
                raise ValueError(f"recovery must be one of {', '.join(RECOVERY)}, not {v!r}")
            v = RECOVERY[v]
        args.append(f"--{OPTIONS[key]}={_value(v)}")
    for name, v in (attrs or {}).items():
        if not name.startswith("ns3::"):
            raise ValueError(f"attrs keys are full ns-3 attribute names (ns3::Type::Name), not {name!r}")
        args.append(f"--{name}={_value(v)}")
    return args


def _cache_path(binary: Path, args: Sequence[str]) -> Path:
    h = hashlib.sha256()
    h.update(_CACHE_VERSION.encode())
    h.update(SOURCE.read_bytes())
    h.update(binary.name.encode())  # carries the ns-3 version
    h.update("\0".join(args).encode())
    return binary.parent / f"{PROGRAM}-cache" / f"{h.hexdigest()[:24]}.txt.gz"


def run(tcp: str = "newreno", queue: str = "droptail", *, cache: bool = True,
        timeout: float = 120.0, **settings: Any) -> SingleFlow:
    """Run single_flow with :func:`arguments` ``(tcp, queue, **settings)`` and parse it.
    The output is cached (``cache=False`` runs anyway and does not store)."""
    args = arguments(tcp, queue, **settings)
    binary = ns3ref.build(PROGRAM)
    path = _cache_path(binary, args)
    if cache and path.exists():
        return parse(gzip.decompress(path.read_bytes()).decode(), args)
    try:
        text = ns3ref._run([str(binary), *args], timeout)
    except subprocess.TimeoutExpired as e:
        raise ns3ref.Ns3Error(f"{PROGRAM} did not finish in {timeout} s: {' '.join(args)}") from e
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}-{id(text)}")
        tmp.write_bytes(gzip.compress(text.encode(), compresslevel=3))
        tmp.replace(path)
    return parse(text, args)


def first_difference(a: Sequence[Any], b: Sequence[Any], tolerance: float = 0) -> Optional[int]:
    """The first index where the two value series differ by more than ``tolerance``
    (or where the shorter one ends), None when they agree over their whole length."""
    n = min(len(a), len(b))
    for i in range(n):
        if abs(a[i] - b[i]) > tolerance:
            return i
    return None if len(a) == len(b) else n
