"""Paper 000: Hamadneh, Dixon, Cole & Murray, "A Third Drop Level for TCP-RED Congestion
Control Strategy" (RTRED).

Six TCP sources (Tahoe under the primary reading) share a 0.7 Mb/s, 20 ms bottleneck whose
gateway runs RED, Adaptive RED or RTRED with the three parameter sets of Table I. We redraw
Table II (time-average queue, the "delay" column, packets lost at the bottleneck, packets
sent by the sources), Fig. 4–5
(share of drops per drop area, classified by the actual queue length at the drop), Fig. 6/8/10
(drop probability p and max_p over time) and Fig. 7/9/11 (average and actual queue over time),
and check the paper's claims on our runs.

Queue lengths are set against Table I's thresholds in the unit the queue compares them in
(:func:`queue_unit`): packets in packet mode; in ns-2's byte mode (the primary reading of
``units``) units of mean_pktsize = 500 bytes, the queue in bytes / 500, as red.cc compares
the thresholds and the buffer typed in packets and RTRED its risk threshold.

Where the paper is silent the scenario files hold the primary reading of each open choice;
``readings.py`` lists every choice with its candidate readings (``aqmsim reproduce`` runs
them all and reports how far each moves each number and claim).

"Adaptive" in Table II is ns-2's Adaptive RED (``adaptive_ 1``, Floyd et al. 2001, aqmsim kind
``ared``); the Adaptive RED that the paper's prose describes (Feng et al. 1999, kind
``ared_feng``) is run as an extra row, marked as such. The scenario files' ``[notes]`` give
every choice and its reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..base import Cell, Experiment, Paper, Report, Runs, Table, mean_ci
from . import readings as _readings
from .readings import DELAY_METRIC_KEY, RATE_BPS, RUN_LENGTH_KEY

__all__ = ["RtredPaper", "PAPER", "SCENARIOS", "STRATEGIES", "AREAS", "area_shares",
           "QueueUnit", "queue_unit"]
from .claims import ClaimsMixin
from .figures import FiguresMixin
from .measures import (AREA_TEXT, AREAS, FEW, LABEL, PAPER_STRATEGIES, SCENARIOS,  # noqa: F401
                       STRATEGIES, TABLE2, WARMUP, QueueUnit, area_shares, key, queue_unit)


class RtredPaper(FiguresMixin, ClaimsMixin, Paper):
    name = "rtred"
    number = "000"
    title = "A Third Drop Level For TCP-RED Congestion Control Strategy (RTRED)"
    citation = ("N. Hamadneh, M. Dixon, P. Cole, D. Murray, \"A Third Drop Level For TCP-RED "
                "Congestion Control Strategy\", World Academy of Science, Engineering and "
                "Technology, 2011.")
    default_seeds = 20
    #: seeds of each alternative reading (a sensitivity run, not the headline numbers)
    reading_seeds = 3

    def readings(self):
        return _readings.choices()

    # ------------------------------------------------------------------ inputs
    def table1(self) -> Dict[int, Dict[str, float]]:
        """Table I: scenario -> {min_th, max_th, max_p, risk_th, buffer}."""
        pub = self.published()
        t = pub[pub["table"] == "I"]
        out: Dict[int, Dict[str, float]] = {}
        for _, r in t.iterrows():
            out.setdefault(int(r["scenario"]), {})[str(r["metric"])] = float(r["value"])
        return out

    def published_value(self, scenario: int, strategy: str, metric: str) -> Optional[float]:
        if getattr(self, "_table2_pub", None) is None:
            pub = self.published()
            t = pub[pub["table"] == "II"]
            self._table2_pub = {(int(r["scenario"]), str(r["strategy"]), str(r["metric"])):
                                float(r["value"]) for _, r in t.iterrows()}
        return self._table2_pub.get((scenario, strategy, metric))

    def experiments(self) -> List[Experiment]:
        exps = []
        for s in SCENARIOS:
            for k in STRATEGIES:
                exps.append(Experiment(
                    key=key(s, k),
                    scenario=self.scenario(f"s{s}_{k}.toml"),
                    labels={"scenario": s, "strategy": k, "label": LABEL[k]},
                    # drop areas and queue statistics are averaged over every seed
                    keep=("flows", "drops", "queue"),
                    keep_first=(),
                ))
        return exps

    # ------------------------------------------------------------------ per-run measures
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

    # ------------------------------------------------------------------ analysis
    def analyse(self, runs: Runs, out: Path) -> Report:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        t1 = self.table1()
        seeds = sorted({s for (_, s) in runs.records})
        shares = {(s, k): self._shares(runs, s, k) for s in SCENARIOS for k in STRATEGIES}

        tables = [self._table2(runs), self._table_areas(shares, self._unit_text(runs)),
                  self._table_extra(runs)]
        figures = (self._fig_areas(shares, out) + self._fig_series(runs, out)
                   if self.figures else [])
        claims = self._claims(runs, shares, t1)

        extra = [
            "Table II 'Ave Q Size (Packet)' = time-average of the actual bottleneck queue in "
            "packets (integral of q over the run / run length); 'Average Delay Time (ms)' = "
            + self._delay_text(runs) + "; 'Loss Rate (Packet)' = packets "
            "dropped at the bottleneck queue; 'No. of Propagated Packets' = packets sent by "
            "the six TCP sources, retransmissions included (and each connection's one "
            "40-byte SYN, ns-2 syn_ true).",
            "Published numbers used as inputs (shown, not counted as checks): "
            + self._inputs_text(runs) + ".",
            "Drop areas (Fig. 4-5): every bottleneck drop is classified by the actual queue "
            "length it saw as unfair [0, min_th), normal [min_th, max_th), safe [max_th, "
            "risk_th) or timeout [risk_th, buffer], with Table I's thresholds of its scenario "
            "for all strategies, in the unit the queue compares its thresholds in: "
            + self._unit_text(runs) + ". In byte mode the drop log's count of waiting "
            "packets (qlen_pkts) is multiplied by the data packet's wire size / mean_pktsize "
            "(only data packets reach the forward bottleneck, apart from each connection's "
            "one SYN). Shares are per run, then averaged over seeds; Fig. 5 averages the "
            "three scenarios' shares.",
            f"Each strategy and scenario is run for {len(seeds)} seeds; a seed fixes the "
            "flows' start times and access delays, the same for every strategy, so "
            "strategy differences in the claims are paired by seed. Cells show our mean and "
            "the 95 % interval over seeds; the paper reports one ns-2 run.",
            "Claims compare our means over seeds (a claim 'holds' when every comparison it "
            "makes goes the paper's way); the evidence gives the paired differences with "
            "95 % intervals so that a difference within noise can be seen as such.",
            f"Queue statistics in the claims (standard deviation of the actual queue, max_p "
            f"levels) ignore the first {WARMUP:g} s, while the flows are starting.",
            f"'A few packets dropped in the unfair area' is read as at most {FEW:.0%} of the "
            "drops.",
            "Time-series figures (Fig. 6-11) show the first seed's run; Fig. 6a/c and 7a/c are "
            "ARED and RED as in the paper, panel (d) is the extra Feng ARED. Fig. 7, 9 and 11 "
            "draw the actual and average queue in the unit of the thresholds they are drawn "
            "against (" + self._unit_text(runs) + "); Table II's 'Ave Q Size' and the "
            "queue's standard deviation in the claims count packets.",
        ]
        return Report(
            paper=self, tables=tables, figures=figures, claims=claims,
            assumptions=self.assumptions() + extra, seeds=seeds,
        )

    # ------------------------------------------------------------------ tables
    # ------------------------------------------------------------------ readings in force
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

    def _table2(self, runs: Runs) -> Table:
        rows = []
        inputs = self.input_metrics(runs)
        for s in SCENARIOS:
            for k in STRATEGIES:
                row: List[object] = [str(s), LABEL[k]]
                for metric, scale, pub_metric in TABLE2:
                    pub = self.published_value(s, k, pub_metric) if k in PAPER_STRATEGIES else None
                    if pub_metric == "avg_delay_ms":
                        metric, scale = self._delay_source(runs, key(s, k))
                    c = runs.cell(key(s, k), metric, pub, scale=scale)
                    c.input = pub is not None and pub_metric in inputs
                    row.append(c)
                rows.append(row)
        return Table(
            title="Table II: network performance for the three scenarios",
            columns=["Scenario", "Strategy", "Ave Q Size (packets)", "Average Delay Time (ms)",
                     "Loss Rate (packets lost)", "No. of Propagated Packets (sent)"],
            rows=rows,
            note=("Ours: mean and 95 % interval over seeds; published: the paper's single "
                  "ns-2 run of unstated length (ours derived from its counts: see the "
                  "readings). 'Adaptive' is ns-2's Adaptive RED (adaptive_ 1, Floyd 2001); "
                  "the Feng 1999 row is an extra, not in the paper. The published 'Average "
                  "Delay Time' is, in every row, packets sent x 592 x 8 / 700 000 (seconds, "
                  "labelled ms): not a per-packet delay (a 55-62 packet queue alone is "
                  "370-420 ms at 6.77 ms per 592-byte packet, yet it is 119-124 in every "
                  "scenario). Our column follows the delay_metric reading in force: "
                  + self._delay_text(runs) + ". Inputs (not counted): "
                  + self._inputs_text(runs) + "."),
        )

    def _table_areas(self, shares: Dict[Tuple[int, str], pd.DataFrame],
                     unit_text: str = "packets") -> Table:
        rows = []
        for s in SCENARIOS:
            for k in STRATEGIES:
                df = shares[(s, k)]
                row: List[object] = [str(s), LABEL[k]]
                for a in AREAS:
                    m, h = mean_ci(df[f"share_{a}"] * 100.0)
                    row.append(Cell(m, h))
                m, h = mean_ci(df["total"])
                row.append(Cell(m, h))
                rows.append(row)
        for k in STRATEGIES:
            row = ["average of 1-3", LABEL[k]]
            for a in AREAS:
                m, h = mean_ci(self._avg_share(shares, k, a) * 100.0)
                row.append(Cell(m, h))
            row.append("")
            rows.append(row)
        return Table(
            title="Fig. 4-5 as numbers: share of the bottleneck's drops per drop area (%)",
            columns=["Scenario", "Strategy"] + [AREA_TEXT[a] for a in AREAS] + ["drops"],
            rows=rows,
            note=("Classified by the actual queue length each dropped packet saw, with Table "
                  "I's min_th, max_th, risk_th and buffer of the scenario, the queue and the "
                  "thresholds both in " + unit_text + ". The paper gives these only as bar "
                  "charts (no numbers to compare)."),
        )

    @staticmethod
    def _avg_share(shares: Dict[Tuple[int, str], pd.DataFrame], k: str, a: str) -> np.ndarray:
        """Per seed, the mean over the three scenarios of the area's share."""
        frames = [shares[(s, k)].set_index("seed")[f"share_{a}"] for s in SCENARIOS]
        return pd.concat(frames, axis=1).mean(axis=1, skipna=True).to_numpy()

    def _table_extra(self, runs: Runs) -> Table:
        cols = (("mean_e2e_delay_s", 1000.0), ("mean_queueing_delay_s", 1000.0),
                ("packets_retransmitted", 1.0),
                ("timeouts", 1.0), ("drops_early", 1.0),
                ("drops_forced", 1.0), ("drops_overflow", 1.0), ("utilisation", 100.0),
                ("goodput_bps", 1e-3))
        rows = []
        for s in SCENARIOS:
            for k in STRATEGIES:
                rows.append([str(s), LABEL[k]] + [runs.cell(key(s, k), m, None, scale=sc)
                                                  for m, sc in cols])
        return Table(
            title="Beside Table II (not in the paper): why the counts differ",
            columns=["Scenario", "Strategy", "end-to-end delay (ms)", "queueing delay (ms)",
                     "retransmitted",
                     "timeouts", "early drops",
                     "forced drops", "overflow drops", "bottleneck utilisation (%)",
                     "goodput (kb/s)"],
            rows=rows,
            note=("Sums over the six flows; end-to-end delay = mean delay of the data "
                  "packets received by the sinks, source to sink; queueing delay = mean time "
                  "from enqueue to the "
                  "start of transmission at the bottleneck; drops by reason at the bottleneck "
                  "queue."),
        )

    # ------------------------------------------------------------------ figures


PAPER = RtredPaper()
