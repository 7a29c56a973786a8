"""Paper 003's set-up (strategies, thresholds, the metrics and how each is read) and its
per-run values: each metric of one run, over seeds, and as text."""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from ..base import Runs, mean_ci


#: (experiment suffix / scenario file stem, the paper's name), in the paper's table order.
STRATEGIES: Tuple[Tuple[str, str], ...] = (
    ("ared", "ARED"), ("droptail", "DT"), ("red", "RED"), ("gentle", "GRED"),
)


#: Thresholds of Table II, per scenario: (min_th, max_th).
THRESHOLDS = {1: (5.0, 15.0), 2: (3.0, 6.0)}


#: The paper's figure number for each (scenario, strategy) (Figs. 5-8: ARED, TD, GRED, RED).
FIGURES = {(1, "ared"): 5, (1, "droptail"): 6, (1, "gentle"): 7, (1, "red"): 8,
           (2, "ared"): 9, (2, "droptail"): 10, (2, "gentle"): 11, (2, "red"): 12}


#: The four columns of Tables IV-V: (published metric name, column title, our reading).
METRICS: Tuple[Tuple[str, str, str], ...] = (
    ("throughput", "Throughput [packets]",
     "data packets received by the three TCP sinks in the run (ns-2 'r' events at n4 and n5, "
     "retransmissions and duplicates included): the sum of the flows' `received`"),
    ("utilization", "Utilization [packets]",
     "packets enqueued at the bottleneck n2 -> n3 (ns-2 '+' events on the link, which the "
     "trace writes before the queue decides to drop; the three 40-byte SYNs included): "
     "summary `bottleneck_arrivals`"),
    ("e2e_delay", "Average End 2 End Delay [s]",
     "mean delay of the data packets received by the sinks, from the source handing them to "
     "the network to their arrival (summary `mean_e2e_delay_s`)"),
    ("processing_time", "Average processing time [s]",
     "mean queueing delay at the bottleneck, enqueue to start of transmission, over the "
     "packets it sent (summary `mean_queueing_delay_s`)"),
)


SUMMARY_KEY = {"utilization": "bottleneck_arrivals", "e2e_delay": "mean_e2e_delay_s",
               "processing_time": "mean_queueing_delay_s"}


#: Second half of the run, over which "where the average queue stabilises" is measured.
SETTLE_FROM = 5.0


#: "Near max_th": the settled average within this fraction of max_th.
NEAR = 0.20


def _key(n: int, kind: str) -> str:
    return f"s{n}-{kind}"


def run_value(runs: Runs, key: str, seed: int, metric: str) -> float:
    """One of our Table IV-V numbers (or a queue statistic) for one run."""
    rec = runs.get(key, seed)
    if metric == "throughput":
        flows = rec.tables.get("flows")
        if flows is None or "received" not in flows.columns:
            return float("nan")
        return float(flows["received"].sum())
    if metric in SUMMARY_KEY:
        return float(rec.summary.get(SUMMARY_KEY[metric], float("nan")))
    if metric in ("avg_settled", "avg_max", "maxp_end"):
        q = rec.tables.get("queue")
        if q is None or q.empty:
            return float("nan")
        q = q[q["link"] == "n2->n3"] if "link" in q.columns else q
        if metric == "avg_settled":
            return float(q.loc[q["t"] >= SETTLE_FROM, "avg"].mean())
        if metric == "avg_max":
            return float(q["avg"].max())
        return float(q["max_p"].iloc[-1])
    return float(rec.summary.get(metric, float("nan")))


def values(runs: Runs, key: str, metric: str) -> np.ndarray:
    return np.array([run_value(runs, key, s, metric) for s in runs.seeds(key)], dtype=float)


def stat(runs: Runs, key: str, metric: str) -> Tuple[float, float]:
    """Mean over seeds and its 95 % half-width (exactly 0 when every seed agrees, as
    DropTail's deterministic runs do, instead of floating-point dust)."""
    x = values(runs, key, metric)
    m, h = mean_ci(x)
    finite = x[~np.isnan(x)]
    if len(finite) > 1 and np.all(finite == finite[0]):
        h = 0.0
    return m, h


def _fmt(x: float, metric: str) -> str:
    if metric in ("e2e_delay", "processing_time"):
        return f"{x * 1e3:.2f} ms"
    if metric in ("throughput", "utilization"):
        return f"{x:.0f}"
    return f"{x:.3g}"


def _pm(runs: Runs, key: str, metric: str) -> str:
    m, h = stat(runs, key, metric)
    if math.isnan(h) or h == 0:
        return _fmt(m, metric)
    return f"{_fmt(m, metric)} ± {_fmt(h, metric)}"
