"""Read ns-2 packet traces (``$ns trace-queue`` / ``trace-all``) into pandas.

One line per event::

    ev time from to type size flags fid src dst seq uid
    +  0.1  0    1  tcp  40   ------- 7  0.0 1.0 0   0

``ev`` is ``+`` (arrival at the link's queue, written before the drop decision), ``-``
(dequeue = start of transmission), ``d`` (drop) or ``r`` (arrival at the far node, after
transmission and propagation). Times are rounded to 1 µs by ns-2. ``src``/``dst`` are
``node.port``. ``flags`` is 7 characters: [0] C = ECN-echo, [3] A = CWR, [4] E = CE,
[6] N = ECT. See ``docs/ns2-semantics.md`` §12.

The queue length in packets after each event of one link is the running count
``#+ − #- − #d``: the packet being transmitted is not in it, as in aqmsim.

>>> tr = read_trace("out/trace_0.tr")                  # doctest: +SKIP
>>> queue_stats(tr, duration=30.0)["time_avg_queue_pkts"]  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Union

import numpy as np
import pandas as pd

__all__ = ["COLUMNS", "read_trace", "queue_series", "queue_stats", "flow_stats", "drops", "max_queue"]

COLUMNS = ["event", "t", "from_node", "to_node", "type", "size", "flags", "fid", "src", "dst", "seq", "uid"]
_DTYPES = {
    "event": "object", "t": "float64", "from_node": "int64", "to_node": "int64", "type": "object",
    "size": "int64", "flags": "object", "fid": "int64", "src": "object", "dst": "object",
    "seq": "int64", "uid": "int64",
}


def read_trace(path: Union[str, Path]) -> pd.DataFrame:
    """A trace file as a DataFrame with :data:`COLUMNS`, in file (= event) order.

    Adds boolean columns ``ce`` (CE mark), ``ect`` and ``cwr`` decoded from ``flags``.
    Lines of other kinds (e.g. RED variable traces) are skipped.
    """
    rows = []
    with open(path, "r", encoding="ascii", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 12 or parts[0] not in ("+", "-", "d", "r"):
                continue
            rows.append(parts[:12])
    df = pd.DataFrame(rows, columns=COLUMNS)
    df = df.astype(_DTYPES) if len(df) else pd.DataFrame({c: pd.Series([], dtype=d) for c, d in _DTYPES.items()})
    flags = df["flags"].astype(str)
    df["ce"] = flags.str[4] == "E"
    df["ect"] = flags.str[6] == "N"
    df["cwr"] = flags.str[3] == "A"
    return df


def _one_link(tr: pd.DataFrame, link: Optional[tuple]) -> pd.DataFrame:
    if link is not None:
        a, b = link
        tr = tr[(tr["from_node"] == a) & (tr["to_node"] == b)]
    elif len(tr) and tr[["from_node", "to_node"]].drop_duplicates().shape[0] > 1:
        raise ValueError("the trace holds several links: pass link=(from_id, to_id)")
    return tr


def queue_series(tr: pd.DataFrame, link: Optional[tuple] = None) -> pd.DataFrame:
    """Packets waiting (``pkts``) and bytes waiting (``bytes``) after every +/-/d event.

    The queue is piecewise constant: ``pkts`` holds from ``t`` to the next row's ``t``.
    """
    tr = _one_link(tr, link)
    q = tr[tr["event"].isin(["+", "-", "d"])]
    step = np.where(q["event"] == "+", 1, -1)
    out = pd.DataFrame({
        "t": q["t"].to_numpy(),
        "event": q["event"].to_numpy(),
        "pkts": np.cumsum(step),
        "bytes": np.cumsum(step * q["size"].to_numpy()),
    })
    return out


def queue_stats(tr: pd.DataFrame, duration: float, link: Optional[tuple] = None) -> Dict[str, Any]:
    """Arrivals, departures, drops, marks and the time-average queue over [0, duration].

    Agrees with the QueueMonitor (same definition); times in the trace are rounded to 1 µs,
    so the time average differs from the monitor's by up to about 1e-6 relative.
    """
    tr = _one_link(tr, link)
    qs = queue_series(tr)
    t = np.append(qs["t"].to_numpy(), duration)
    dt = np.diff(t)
    pk = qs["pkts"].to_numpy()
    by = qs["bytes"].to_numpy()
    ev = tr["event"]
    deq = tr[ev == "-"]
    return {
        "arrivals": int((ev == "+").sum()),
        "departures": int((ev == "-").sum()),
        "drops": int((ev == "d").sum()),
        "marks_departed": int((deq["ce"] & deq["ect"]).sum()),
        "departure_bytes": int(deq["size"].sum()),
        "queued_end": int(pk[-1]) if len(pk) else 0,
        "max_queue_pkts": _max_queue(tr, qs),
        "time_avg_queue_pkts": float((pk * dt).sum() / duration) if len(pk) else 0.0,
        "time_avg_queue_bytes": float((by * dt).sum() / duration) if len(pk) else 0.0,
    }


def _max_queue(tr: pd.DataFrame, qs: pd.DataFrame) -> int:
    """Largest number of packets waiting, ignoring the instant between the '+' and the
    'd' of an arrival that is dropped at once."""
    if not len(qs):
        return 0
    q = tr[tr["event"].isin(["+", "-", "d"])]
    dropped = set(q.loc[q["event"] == "d", "uid"])
    keep = ~((q["event"] == "+") & q["uid"].isin(dropped)).to_numpy()
    return int(qs["pkts"].to_numpy()[keep].max()) if keep.any() else 0


def flow_stats(tr: pd.DataFrame, link: Optional[tuple] = None) -> pd.DataFrame:
    """Per flow id: packets arrived, departed, dropped at the queue and received downstream."""
    tr = _one_link(tr, link)
    g = tr.groupby(["fid", "event"]).size().unstack(fill_value=0)
    for ev in ("+", "-", "d", "r"):
        if ev not in g.columns:
            g[ev] = 0
    out = g.rename(columns={"+": "arrivals", "-": "departures", "d": "drops", "r": "received"})
    return out[["arrivals", "departures", "drops", "received"]].reset_index()


def drops(tr: pd.DataFrame, link: Optional[tuple] = None) -> pd.DataFrame:
    """One row per drop: time, flow, seq, size, type and the queue length (packets
    waiting) just before the drop."""
    tr = _one_link(tr, link)
    qs = queue_series(tr)
    # queue length before each event = after the previous one
    before = np.concatenate([[0], qs["pkts"].to_numpy()[:-1]])
    q = tr[tr["event"].isin(["+", "-", "d"])].reset_index(drop=True)
    mask = (q["event"] == "d").to_numpy()
    # a dropped arrival shows '+' then 'd': the queue it met is the length before its '+'
    d = q[mask].copy()
    d["qlen_pkts"] = before[mask] - 1
    return d[["t", "fid", "seq", "size", "type", "qlen_pkts"]].reset_index(drop=True)


def max_queue(path: Union[str, Path]) -> int:
    """The largest number of packets waiting in the queue of a one-link trace file
    (``$ns trace-queue``), as aqmsim's ``max_queue_pkts`` counts it: the queue right after
    each arrival has been dealt with. It is read straight off the file (no DataFrame).

    ns-2 writes, within one arrival, its ``+``, then the ``d`` of any packet the queue drops
    at once (the arrival itself, or another one), then — when the link was idle — the
    ``-`` of the packet sent. The queue after the arrival is the running count ``#+ − #- −
    #d`` after its ``+`` and those ``d`` lines: an arrival dropped at once does not count,
    and one sent at once from an idle link counts 1 (aqmsim: ``max_queue_pkts`` is at least
    1 once a packet passed). 0 for a trace without arrivals.
    """
    n = 0
    best = 0
    pending: Optional[int] = None  # the queue after the current arrival, until it is done
    with open(path, "rb") as f:
        for line in f:
            ev = line[:1]
            if ev == b"d":
                n -= 1
                if pending is not None:
                    pending = n
                continue
            if pending is not None and pending > best:
                best = pending
            pending = None
            if ev == b"+":
                n += 1
                pending = n
            elif ev == b"-":
                n -= 1
    if pending is not None and pending > best:
        best = pending
    return best
