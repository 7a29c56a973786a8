"""Paper 004's quantities: its scenarios and threshold grid, Theorems 2-3's bounds, and
what is measured of each run (largest queue, link efficiency, unfairness, drops), as the
analysis (:mod:`aqmsim.papers.markfront`) and its claims (:mod:`.claims`) use them."""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..base import Cell, FromRun, Runs, mean_ci
from .readings import base_rtt, bottleneck_pps


#: scenario number -> (file, short title as in the paper's figure captions, RTTs in ms)
SCENARIOS: Dict[str, Tuple[str, str, Tuple[float, ...]]] = {
    "1": ("s1_single.toml", "One single connection", (59.0,)),
    "2": ("s2_two_same.toml", "Two same connections", (59.0, 59.0)),
    "3": ("s3_two_overlap.toml", "Two overlapping connections", (59.0, 59.0)),
    "4": ("s4_two_rtt.toml", "Two connections with different RTTs", (59.0, 157.0)),
    "5": ("s5_two_limited.toml", "Two same connections, limited buffer", (59.0, 59.0)),
    "6": ("s6_five_same.toml", "Five connections with same RTT", (59.0,) * 5),
    "7": ("s7_five_rtt.toml", "Five connections with different RTTs",
          (59.0, 67.0, 137.0, 157.0, 257.0)),
    "8": ("s8_five_limited.toml", "Five same connections, limited buffer", (59.0,) * 5),
    "1r99": ("s1_single_rtt99.toml", "One single connection, RTT 99 ms (extra)", (99.0,)),
}
#: the thresholds swept (packets)
T_GRID: Tuple[int, ...] = (2, 4, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80)
#: the thresholds shown in the efficiency and unfairness tables (figures use T_GRID)
T_TABLE: Tuple[int, ...] = (2, 6, 10, 20, 40, 80)
MODES: Tuple[str, ...] = ("mark_tail", "mark_front")
MODE_LABEL = {"mark_tail": "mark-tail", "mark_front": "mark-front"}
#: scenarios of each figure, in the paper's panel order
FIG3 = ("1", "4", "7")
FIG4 = ("1", "3", "5", "6", "7", "8")
FIG5 = ("2", "3", "4", "6", "8", "7", "5")  # paper panels (a)-(f), then scenario 5 (extra)
#: the time-series figure: scenario 1 at this T, both strategies (first seed)
TS_SCENARIO, TS_T = "1", 20

RATE_BPS = 1.5e6
#: The paper's own rd, the one its analytical lines (the published numbers) are drawn with:
#: r = 59 ms (§6.1) and d in 1000-byte packets ("the data packet size is 1000 bytes"):
#: d = 1.5e6 / 8000 = 187.5 packets/s, rd = 11.06 packets. The rd our runs obey comes from
#: each variant's scenario (:func:`scenario_rd`).
PAPER_PACKET_BYTES = 1000
D_PKTS = RATE_BPS / (PAPER_PACKET_BYTES * 8)  # d, packets/s


def key(scn: str, mode: str, t: int) -> str:
    return f"s{scn}-{mode}-T{t}"


def rd_of(rtt_ms: float) -> float:
    """The paper's rd in packets for an RTT in ms: r·d with d = 1.5 Mb/s in 1000-byte packets
    (the published lines)."""
    return rtt_ms / 1000.0 * D_PKTS


def scenario_rd(data: Dict) -> Tuple[float, float]:
    """(rd of the smallest RTT, rd of the largest) of a scenario dict: r its fixed RTT
    (propagation + serialisation of a data packet and its ACK on each hop) and d the
    bottleneck rate in its data packets per second."""
    d = bottleneck_pps(data)
    rtts = [base_rtt(data, i) for i in range(len(data["dumbbell"]["groups"]))]
    return min(rtts) * d, max(rtts) * d


def bound_tail(t: float, rd: float) -> float:
    """Theorem 2: the largest queue with mark-tail, 2T + rd − 1."""
    return 2 * t + rd - 1


def bound_front(t: float, rd: float) -> float:
    """Theorem 3: the largest queue with mark-front, T + rd."""
    return t + rd


def int_bound_tail(t: float, rd: float) -> float:
    """Theorem 2 with whole packets: ⌈rd⌉ packets in the pipe when the marked packet arrives,
    ⌊rd⌋ when the last packet of the grown window arrives (the engine's test,
    crates/aqmsim-core/tests/it/markfront.rs)."""
    return 2 * t + 2 * math.ceil(rd) - math.floor(rd) - 1


def int_bound_front(t: float, rd: float) -> float:
    return t + math.ceil(rd)


def bound(mode: str, t: float, rd: float) -> float:
    return bound_tail(t, rd) if mode == "mark_tail" else bound_front(t, rd)


def int_bound(mode: str, t: float, rd: float) -> float:
    return int_bound_tail(t, rd) if mode == "mark_tail" else int_bound_front(t, rd)


# ------------------------------------------------------------------ per-run metrics
def efficiency(summary: Dict, payload: int = 1000, wire: int = 1000) -> float:
    """Link efficiency: packets acknowledged (new data delivered in order to the sinks, in
    packets of ``payload`` bytes) over the packets of ``wire`` bytes the bottleneck could have
    carried in the run (rate·duration / wire)."""
    delivered = summary["goodput_bps"] * summary["duration"] / (8 * payload)
    capacity = summary["bottleneck_rate_bps"] * summary["duration"] / (8 * wire)
    return delivered / capacity


def unfairness(summary: Dict) -> float:
    """1 − Jain's index of the per-flow throughputs of the run."""
    return 1.0 - summary["jain_fairness"]


def maxq(summary: Dict) -> float:
    return float(summary["max_queue_pkts"])


def _seeds(runs: Runs, k: str) -> List[int]:
    """``runs.seeds(k)`` from an index built once per Runs (Runs.seeds scans every record)."""
    idx = runs.__dict__.get("_mf_seeds")
    if idx is None or idx[0] != len(runs.records):
        by: Dict[str, List[int]] = {}
        for (kk, sd) in runs.records:
            by.setdefault(kk, []).append(sd)
        idx = (len(runs.records), {kk: sorted(v) for kk, v in by.items()})
        runs.__dict__["_mf_seeds"] = idx
    return list(idx[1].get(k, []))


def values(runs: Runs, k: str, fn: Callable[[Dict], float]) -> np.ndarray:
    """``fn(summary)`` over the seeds of experiment ``k`` (empty if it did not run)."""
    if k not in runs.experiments:
        return np.array([])
    return np.array([float(fn(runs.get(k, s).summary)) for s in _seeds(runs, k)])


def _of_summary(fn: Callable[[Dict], float], record) -> float:
    """``fn`` of a run's summary (a cell's number computed from one run's record)."""
    return fn(record.summary)


def drops(summary: Dict) -> float:
    """Packets lost at r1."""
    return summary["bottleneck_drops"]




def cell(runs: Runs, k: str, fn: Callable[[Dict], float], published: Optional[float] = None,
         scale: float = 1.0, name: str = "") -> Cell:
    """Mean ± 95 % CI over the seeds of ``fn(summary)``; the cell remembers its source
    (:meth:`Runs.cell`'s summary metric for :func:`maxq` and :func:`drops`, else a
    :class:`~aqmsim.papers.base.FromRun` of ``fn`` on the run's summary), so the ns-2
    column computes the same number from ns-2's runs."""
    m, h = mean_ci(values(runs, k, fn) * scale)
    # per-run numbers that are summary metrics as they stand: the source names the metric
    metric: Any = {maxq: "max_queue_pkts", drops: "bottleneck_drops"}.get(fn)
    if metric is None:
        metric = FromRun(functools.partial(_of_summary, fn), (),
                         name or getattr(fn, "__name__", "") or "the number")
    return Cell(m, h, published, source=(k, metric, scale))


def diff_cell(runs: Runs, k1: str, k2: str, fn: Callable[[Dict], float]) -> Cell:
    """Mean ± 95 % interval over seeds of fn(run of k1) − fn(run of k2), seed by seed."""
    seeds = [s for s in _seeds(runs, k1) if s in set(_seeds(runs, k2))] if k1 in runs.experiments \
        and k2 in runs.experiments else []
    d = [float(fn(runs.get(k1, s).summary)) - float(fn(runs.get(k2, s).summary)) for s in seeds]
    m, h = mean_ci(d)
    return Cell(m, h)


def mean_of(runs: Runs, k: str, fn: Callable[[Dict], float]) -> float:
    v = values(runs, k, fn)
    return float(np.nanmean(v)) if len(v) else float("nan")


def curve(runs: Runs, scn: str, mode: str, fn, ts: Sequence[int] = T_GRID):
    """(T, mean, half) over the sweep, for the T values that ran."""
    out = []
    for t in ts:
        k = key(scn, mode, t)
        if k in runs.experiments and _seeds(runs, k):
            m, h = mean_ci(values(runs, k, fn))
            out.append((t, m, h))
    return out


def late_syn_dropped(rec) -> bool:
    """Scenario 3: did the late connection (flow 1) lose a packet at r1? With a large buffer
    the only drops are congestion signals that fell on a non-ECT packet: its first packet (a
    SYN, or with ``syn = false`` its first data packet)."""
    if rec.summary.get("bottleneck_drops", 1) == 0:
        return False
    d = rec.tables.get("drops")
    if d is None or not len(d):
        return False
    return bool(((d["action"] == "drop") & (d["flow"] == 1)).any())


def only_first_packet_drops(rec) -> bool:
    """Every drop at r1 in this run hit a connection's first packet (not ECN-capable) or its
    retransmissions, each costing a retransmission timeout: every flow that lost packets at
    r1 retransmitted only after timeouts and lost at most one more packet than it had
    timeouts (the last RTO may still be pending when the run ends). With a large buffer
    nothing else can be dropped: only a non-ECT packet turns a congestion signal into a
    drop."""
    if rec.summary.get("bottleneck_drops", 1) == 0:
        return True
    f = rec.tables.get("flows")
    if f is None:
        return False
    for row in f[f["queue_drops"] > 0].itertuples():
        if not (int(row.timeouts) + 1 >= int(row.queue_drops)
                and int(row.retransmitted) <= int(row.timeouts)):
            return False
    return True


def s3_clean(runs: Runs, mode: str, ts: Sequence[int]) -> Dict[int, Optional[float]]:
    """Scenario 3's mean unfairness per T over the runs whose late first packet was not dropped
    (None where every run lost it)."""
    out: Dict[int, Optional[float]] = {}
    for t in ts:
        k = key("3", mode, t)
        if k not in runs.experiments:
            continue
        v = [unfairness(runs.get(k, s).summary) for s in _seeds(runs, k)
             if not late_syn_dropped(runs.get(k, s))]
        out[t] = float(np.mean(v)) if v else None
    return out


def _fmt(x: float, nd: int = 3) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"
