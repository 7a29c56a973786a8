"""What the L4S reproduction measures in one run, and the RFC's analytic numbers.

Every function of a run reads its ``flows`` table (one row per flow: the Scalable flow is
labelled ``scalable``, the Classic one ``classic``) and the experiment's labels (base RTT,
coupling k, bottleneck rate), so the same number comes out of any run of the experiment.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Tuple

__all__ = ["RTTS_MS", "K_SWEEP", "K_RTT_MS", "RATE_BPS", "WIRE_BYTES", "RENO_C", "DCTCP_C",
           "analytic_ratio", "key_rtt", "key_k", "ratio", "predicted_ratio", "rtt_of",
           "ratio_over_predicted", "queue_delay", "drops", "mark_or_drop_p", "window_times_p", "label"]

#: Base RTTs of the sweep (ms): the range the PI2 paper (CoNEXT 2016) sweeps.
RTTS_MS: Tuple[int, ...] = (5, 10, 20, 50, 100, 200)
#: Couplings of the k sweep, at base RTT :data:`K_RTT_MS`.
K_SWEEP: Tuple[int, ...] = (1, 2, 4)
K_RTT_MS = 200
RATE_BPS = 40e6
#: A data packet on the wire: 1448-byte MSS + 52 bytes of IP/TCP header with timestamps.
WIRE_BYTES = 1500
ACCESS_BPS = 1e9
#: RFC 9332 §2.1's response functions: r_C = RENO_C / (R sqrt(p_C)), r_L = DCTCP_C / (R p_L).
RENO_C = 1.22
DCTCP_C = 2.0
#: The labelling rule of a claim: |ours / RFC − 1| within REPRODUCED → reproduced, within
#: PARTLY → partly, else not. Fixed before any run; never moved to fit a number.
REPRODUCED = 0.20
PARTLY = 0.50


def analytic_ratio(k: float) -> float:
    """RFC 9332 §2.1 at equal RTTs: r_L / r_C = DCTCP_C / (RENO_C k) (0.82 at k = 2)."""
    return DCTCP_C / (RENO_C * k)


def key_rtt(rtt_ms: int) -> str:
    return f"rtt{rtt_ms}-k2"


def key_k(k: int) -> str:
    return f"rtt{K_RTT_MS}-k{k}"


def label(diff: float) -> str:
    """reproduced / partly / not, by the fixed rule on |ours / RFC − 1|."""
    d = abs(diff)
    return "reproduced" if d <= REPRODUCED else "partly" if d <= PARTLY else "not"


def _row(record: Any, group: str) -> Dict[str, Any]:
    """The class's flows as one mean flow: per-flow means of goodput and delay, sums of the
    queue counters (one flow per class in the primary reading: that flow's row)."""
    f = record.tables["flows"]
    g = f[f["label"] == group]
    return {"goodput_bps": float(g["goodput_bps"].mean()),
            "mean_delay_s": float(g["mean_delay_s"].mean()),
            **{c: float(g[c].sum()) for c in ("queue_drops", "queue_marks", "queue_arrivals")}}


def ratio(record: Any) -> float:
    """Scalable over Classic per-flow goodput (the RFC's r_L / r_C)."""
    return float(_row(record, "scalable")["goodput_bps"] / _row(record, "classic")["goodput_bps"])


def _fixed_one_way(rtt_ms: float) -> float:
    """A data packet's one-way delay without queueing: half the base RTT plus its
    serialisation at the access, bottleneck and egress links."""
    return rtt_ms / 2000.0 + WIRE_BYTES * 8 * (1 / RATE_BPS + 2 / ACCESS_BPS)


def rtt_of(record: Any, group: str, rtt_ms: float) -> float:
    """The flow's mean RTT: its mean one-way data delay plus the ACK path's (half the base
    RTT: the ACK queues stay empty)."""
    return float(_row(record, group)["mean_delay_s"]) + rtt_ms / 2000.0


def queue_delay(record: Any, group: str, rtt_ms: float) -> float:
    """The flow's mean queueing delay (s): its mean one-way delay less the fixed part."""
    return float(_row(record, group)["mean_delay_s"]) - _fixed_one_way(rtt_ms)


def drops(record: Any, group: str) -> float:
    return float(_row(record, group)["queue_drops"])


def mark_or_drop_p(record: Any, group: str) -> float:
    """The congestion signal the flow saw at the bottleneck: (drops + marks) / arrivals."""
    r = _row(record, group)
    return float((r["queue_drops"] + r["queue_marks"]) / r["queue_arrivals"])


def window_times_p(record: Any, group: str, rtt_ms: float) -> float:
    """The flow's response constant as the RFC writes it: W p for the Scalable flow (RFC:
    2), W sqrt(p) for the Classic flow (RFC: 1.22), W = goodput x RTT / MSS in segments."""
    r = _row(record, group)
    w = float(r["goodput_bps"]) * rtt_of(record, group, rtt_ms) / (1448 * 8)
    p = mark_or_drop_p(record, group)
    return w * (p if group == "scalable" else p ** 0.5)


def predicted_ratio(record: Any, rtt_ms: float, k: float) -> float:
    """RFC 9332 §2.1's response functions at each flow's own RTT:
    r_L / r_C = 2/(1.22 k) x R_C / R_L."""
    return analytic_ratio(k) * rtt_of(record, "classic", rtt_ms) / rtt_of(record, "scalable", rtt_ms)


def ratio_over_predicted(record: Any, rtt_ms: float, k: float) -> float:
    """Ours over the RFC at the flows' own RTTs (1: the RFC's response functions hold)."""
    return ratio(record) / predicted_ratio(record, rtt_ms, k)


def bind(fn: Any, *args: Any) -> Any:
    """``fn`` with its trailing arguments fixed (a picklable partial of a module function)."""
    return functools.partial(_apply, fn, args)


def _apply(fn: Any, args: Tuple[Any, ...], record: Any) -> float:
    return fn(record, *args)
