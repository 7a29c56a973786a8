"""Paper 000's per-run measures (drop areas per seed, the queue and its unit, paired
differences) and the readings the analysis is under (the delay metric, the run length,
which published numbers are inputs)."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import numpy as np
import pandas as pd

from ..base import Runs, mean_ci
from .readings import DELAY_METRIC_KEY, RATE_BPS, RUN_LENGTH_KEY
from .measures import AREAS, WARMUP, QueueUnit, area_shares, key, queue_unit  # noqa: F401


class AnalysisMixin:
    """The per-run measures of :class:`~aqmsim.papers.rtred.RtredPaper` and the readings in force."""

    def _shares(self, runs: Runs, s: int, k: str) -> pd.DataFrame:
        """One row per seed: drop counts and shares (0..1) per area."""
        t1 = self.table1()[s]
        unit = self.unit(runs, key(s, k))
        rows = []
        for seed in runs.seeds(key(s, k)):
            rec = runs.get(key(s, k), seed)
            c = area_shares(rec.tables.get("drops", pd.DataFrame(
                columns=["link", "action", "qlen_pkts"])), t1["min_th"], t1["max_th"],
                t1["risk_th"], per_packet=unit.per_packet)
            row = {"seed": seed, "total": c["total"]}
            for a in AREAS:
                row[a] = c[a]
                row[f"share_{a}"] = c[a] / c["total"] if c["total"] else np.nan
            rows.append(row)
        return pd.DataFrame(rows)

    @staticmethod
    def unit(runs: Runs, k: str) -> QueueUnit:
        """The unit experiment ``k``'s bottleneck counts its queue and thresholds in, under
        the reading the runs were made with."""
        return queue_unit(runs.experiments[k].scenario.to_dict())

    def _unit_text(self, runs: Runs) -> str:
        """The queue unit(s) of the runs, for the page."""
        texts = sorted({self.unit(runs, e).text for e in runs.experiments})
        return "; ".join(texts)

    @staticmethod
    def _queue(runs: Runs, k: str, seed: Optional[int] = None) -> pd.DataFrame:
        rec = runs.first(k) if seed is None else runs.get(k, seed)
        q = rec.tables.get("queue")
        if q is None or q.empty:
            return pd.DataFrame(columns=["t", "link", "len_pkts", "len_bytes", "avg", "p",
                                         "max_p"])
        return q[q["link"] == "R1->R2"]

    def _queue_std(self, runs: Runs, k: str) -> np.ndarray:
        out = []
        for seed in runs.seeds(k):
            q = self._queue(runs, k, seed)
            q = q[q["t"] >= WARMUP]
            out.append(float(q["len_pkts"].std()) if len(q) > 1 else np.nan)
        return np.array(out)

    @staticmethod
    def _paired(runs: Runs, a: str, b: str, metric: str, scale: float = 1.0) -> Tuple[float, float]:
        """Mean and 95 % half-width of (a − b) over the seeds both have (same seed = same
        start times and access delays)."""
        seeds = sorted(set(runs.seeds(a)) & set(runs.seeds(b)))
        d = [(float(runs.get(a, s).summary.get(metric, np.nan))
              - float(runs.get(b, s).summary.get(metric, np.nan))) * scale for s in seeds]
        return mean_ci(d)

    @staticmethod
    def _notes(runs: Runs, k: str) -> Dict[str, object]:
        e = runs.experiments.get(k)
        return dict((e.scenario.to_dict().get("notes") or {})) if e is not None else {}

    @staticmethod
    def delay_metric(runs: Runs) -> str:
        """The delay_metric reading the runs are analysed under (an analysis option of the
        reading: no run changes): "tx-time" (the primary) or "e2e"."""
        return str(getattr(runs, "options", {}).get(DELAY_METRIC_KEY, "tx-time"))

    def run_length_mode(self, runs: Runs) -> str:
        """The run_length reading: "delivered" (sent and lost are inputs), "sent" (sent
        is), or "" (a length not derived from Table II)."""
        return str(self._notes(runs, key(1, "red")).get(RUN_LENGTH_KEY, ""))

    def input_metrics(self, runs: Runs) -> Tuple[str, ...]:
        """Table II's published metrics that are inputs of the runs, not checks."""
        mode = self.run_length_mode(runs)
        out: Tuple[str, ...] = {"delivered": ("packets_sent", "packets_lost"),
                                "sent": ("packets_sent",)}.get(mode, ())
        if "packets_sent" in out and self.delay_metric(runs) == "tx-time":
            out += ("avg_delay_ms",)
        return out

    @staticmethod
    def _tx_time(runs: Runs, k: str) -> float:
        """Seconds one data packet takes on the 0.7 Mb/s bottleneck."""
        tcp = runs.experiments[k].scenario.to_dict().get("tcp") or {}
        return (int(tcp.get("packet_size", 552)) + int(tcp.get("header", 40))) * 8.0 / RATE_BPS

    def _delay_source(self, runs: Runs, k: str) -> Tuple[str, float]:
        """(summary metric, scale) giving Table II's delay under the reading in force."""
        if self.delay_metric(runs) == "tx-time":
            return "packets_sent", self._tx_time(runs, k)
        return "mean_e2e_delay_s", 1000.0

    def _delay_text(self, runs: Runs) -> str:
        if self.delay_metric(runs) == "tx-time":
            return ("packets sent x the transmission time of one data packet at 0.7 Mb/s, in "
                    "seconds (the paper's own arithmetic: its nine published delays are "
                    "exactly packets sent x 592 x 8 / 700 000)")
        return ("mean end-to-end delay of the data packets received by the sinks (source "
                "hands the packet to the network -> arrival at the sink), in ms")

    def _inputs_text(self, runs: Runs) -> str:
        names = {"packets_sent": "No. of Propagated Packets",
                 "packets_lost": "Loss Rate (Packet)",
                 "avg_delay_ms": "Average Delay Time (packets sent in other units)"}
        got = self.input_metrics(runs)
        if not got:
            return "none"
        dur = runs.experiments[key(1, "red")].scenario.to_dict()["duration"]
        counts = " and ".join(names[m] for m in got if m != "avg_delay_ms")
        return (", ".join(names[m] for m in got)
                + f" (the run length, {dur}, is derived from {counts}: see the readings)")
