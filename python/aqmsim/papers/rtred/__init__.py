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

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..base import Cell, Claim, Experiment, Figure, Paper, Report, Runs, Table, mean_ci
from . import readings as _readings
from .readings import DELAY_METRIC_KEY, RATE_BPS, RUN_LENGTH_KEY

__all__ = ["RtredPaper", "PAPER", "SCENARIOS", "STRATEGIES", "AREAS", "area_shares",
           "QueueUnit", "queue_unit"]

#: Table I scenarios.
SCENARIOS: Tuple[int, ...] = (1, 2, 3)
#: The paper's three strategies (Table II order), then our extra one.
PAPER_STRATEGIES: Tuple[str, ...] = ("red", "ared", "rtred")
STRATEGIES: Tuple[str, ...] = PAPER_STRATEGIES + ("ared_feng",)
LABEL: Dict[str, str] = {
    "red": "RED",
    "ared": "Adaptive",
    "rtred": "RTRED",
    "ared_feng": "Adaptive (Feng 1999) [extra, not in paper]",
}
SHORT: Dict[str, str] = {"red": "RED", "ared": "ARED (ns-2 adaptive_)", "rtred": "RTRED",
                         "ared_feng": "ARED Feng 1999 (extra)"}
COLOR: Dict[str, str] = {"red": "tab:red", "ared": "tab:blue", "rtred": "tab:green",
                         "ared_feng": "tab:gray"}
#: The four drop areas of the paper (Fig. 2, Fig. 4–5), by the actual queue length.
AREAS: Tuple[str, ...] = ("unfair", "normal", "safe", "timeout")
AREA_TEXT: Dict[str, str] = {
    "unfair": "unfair [0, min_th)", "normal": "normal [min_th, max_th)",
    "safe": "safe [max_th, risk_th)", "timeout": "timeout [risk_th, buffer]",
}
ROMAN = {1: "I", 2: "II", 3: "III"}
#: Figure numbers of the paper: (drop probability, queue) per scenario.
FIGNUM = {1: (6, 7), 2: (8, 9), 3: (10, 11)}
#: Table II columns: (our summary metric, scale, published metric name).
TABLE2 = (
    ("time_avg_queue_pkts", 1.0, "avg_queue_pkts"),
    ("mean_e2e_delay_s", 1000.0, "avg_delay_ms"),
    ("bottleneck_drops", 1.0, "packets_lost"),
    ("packets_sent", 1.0, "packets_sent"),
)
#: Seconds before which the queue statistics of the claims ignore the run (flows start
#: in [0, 7] s).
WARMUP = 7.0
#: "A few packets have been dropped in the unfair area": we read "a few" as at most 10 %.
FEW = 0.10


def key(scenario: int, strategy: str) -> str:
    return f"s{scenario}-{strategy}"


@dataclass(frozen=True)
class QueueUnit:
    """The unit a bottleneck counts its queue, thresholds and buffer in.

    Packet mode: packets (``mean_pktsize`` None, ``per_packet`` 1). Byte mode (ns-2
    ``queue_in_bytes_``): units of ``mean_pktsize`` bytes, the thresholds typed in packets
    times mean_pktsize against the queue in bytes; ``per_packet`` is one data packet (its
    wire size) in those units, the factor that turns a count of waiting data packets into
    the queue's units (only data packets reach the forward bottleneck, apart from each
    connection's one 40-byte SYN at its start)."""

    mean_pktsize: Optional[float]
    wire_bytes: int
    per_packet: float

    @property
    def byte_mode(self) -> bool:
        return self.mean_pktsize is not None

    @property
    def name(self) -> str:
        """Short name for axes and tables: "packets" or "units of 500 B"."""
        return f"units of {self.mean_pktsize:g} B" if self.byte_mode else "packets"

    @property
    def text(self) -> str:
        """What the unit is, for the page."""
        if not self.byte_mode:
            return "packets (packet mode: the queue, its average and the thresholds count packets)"
        return (f"units of mean_pktsize = {self.mean_pktsize:g} bytes (byte mode: the queue "
                f"in bytes / {self.mean_pktsize:g}, as ns-2's RED compares its thresholds and "
                f"buffer typed in packets; a {self.wire_bytes}-byte data packet is "
                f"{self.per_packet:.4g} units)")

    def actual(self, q: pd.DataFrame) -> pd.Series:
        """The sampled actual queue (queue table) in this unit."""
        if self.byte_mode:
            return q["len_bytes"].astype(float) / float(self.mean_pktsize)
        return q["len_pkts"].astype(float)


def queue_unit(scenario: Dict[str, object]) -> QueueUnit:
    """The unit of the bottleneck queue of a scenario dict (``Scenario.to_dict()``)."""
    tcp = scenario.get("tcp") or {}
    wire = int(tcp.get("packet_size", 552)) + int(tcp.get("header", 40))
    q = ((scenario.get("dumbbell") or {}).get("bottleneck") or {}).get("queue") or {}
    if q.get("queue_in_bytes"):
        mps = float(q.get("mean_pktsize", 500))
        return QueueUnit(mps, wire, wire / mps)
    return QueueUnit(None, wire, 1.0)


def area_shares(drops: pd.DataFrame, min_th: float, max_th: float, risk_th: float,
                link: str = "R1->R2", per_packet: float = 1.0) -> Dict[str, float]:
    """Counts of the bottleneck's drops in each drop area (by the actual queue length the
    dropped packet saw, ``qlen_pkts``, times ``per_packet``: the thresholds' units per
    waiting packet, 1 in packet mode, wire size / mean_pktsize in byte mode), plus
    ``total``."""
    d = drops
    if len(d):
        d = d[(d["link"] == link) & (d["action"] == "drop")]
    q = d["qlen_pkts"].to_numpy(dtype=float) * per_packet if len(d) else np.zeros(0)
    out = {
        "unfair": int(np.sum(q < min_th)),
        "normal": int(np.sum((q >= min_th) & (q < max_th))),
        "safe": int(np.sum((q >= max_th) & (q < risk_th))),
        "timeout": int(np.sum(q >= risk_th)),
    }
    out["total"] = int(len(q))
    return out


def _new_fig(w: float, h: float, rows: int = 1, cols: int = 1, **kw):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False, **kw)
    return fig, axes


def _fmt(x: float, nd: int = 3) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "nan"
    if abs(x) >= 10 ** nd:
        return f"{x:.0f}"
    return f"{x:.{nd}g}"


class RtredPaper(Paper):
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
    def _fig_areas(self, shares, out: Path) -> List[Figure]:
        figs: List[Figure] = []
        x = np.arange(len(AREAS))
        width = 0.8 / len(STRATEGIES)
        fig, axes = _new_fig(13.0, 4.0, 1, 3, sharey=True)
        for i, s in enumerate(SCENARIOS):
            ax = axes[0][i]
            for j, k in enumerate(STRATEGIES):
                df = shares[(s, k)]
                ms, hs = zip(*[mean_ci(df[f"share_{a}"] * 100.0) for a in AREAS])
                ax.bar(x + (j - (len(STRATEGIES) - 1) / 2) * width, ms, width,
                       yerr=np.nan_to_num(hs), capsize=2, color=COLOR[k], label=SHORT[k],
                       hatch="//" if k == "ared_feng" else None)
            ax.set_xticks(x, [AREA_TEXT[a].replace(" [", "\n[") for a in AREAS], fontsize=8)
            ax.set_title(f"Scenario {ROMAN[s]}")
            ax.grid(axis="y", alpha=0.3)
        axes[0][0].set_ylabel("share of the bottleneck's drops (%)")
        axes[0][0].legend(fontsize=8)
        fig.suptitle("Fig. 4: percentage of packets dropped in each drop area "
                     "(by the actual queue at the drop; mean and 95 % CI over seeds)")
        p = out / "fig4_drop_areas.png"
        fig.savefig(p, dpi=110)
        figs.append(Figure(p.name, "Fig. 4: share of the bottleneck's drops in each drop area "
                                   "(unfair, normal, safe, timeout) per scenario and strategy."))

        fig, axes = _new_fig(7.5, 4.2)
        ax = axes[0][0]
        for j, k in enumerate(STRATEGIES):
            ms, hs = zip(*[mean_ci(self._avg_share(shares, k, a) * 100.0) for a in AREAS])
            ax.bar(x + (j - (len(STRATEGIES) - 1) / 2) * width, ms, width,
                   yerr=np.nan_to_num(hs), capsize=2, color=COLOR[k], label=SHORT[k],
                   hatch="//" if k == "ared_feng" else None)
        ax.set_xticks(x, [AREA_TEXT[a].replace(" [", "\n[") for a in AREAS], fontsize=8)
        ax.set_ylabel("share of the bottleneck's drops (%)")
        ax.set_title("Fig. 5: drop areas, average of the three scenarios")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        p = out / "fig5_drop_areas_average.png"
        fig.savefig(p, dpi=110)
        figs.append(Figure(p.name, "Fig. 5: share of drops per drop area, averaged over the "
                                   "three scenarios (mean and 95 % CI over seeds)."))
        return figs

    def _fig_series(self, runs: Runs, out: Path) -> List[Figure]:
        figs: List[Figure] = []
        t1 = self.table1()
        order = ("ared", "rtred", "red", "ared_feng")  # the paper's (a), (b), (c); (d) extra
        units = {k: self.unit(runs, k) for k in runs.experiments}
        for s in SCENARIOS:
            fp, fq = FIGNUM[s]
            th = t1[s]
            seed = runs.seeds(key(s, "red"))[0]
            # drop probability and max_p
            fig, axes = _new_fig(12.0, 6.5, 2, 2, sharex=True)
            for i, k in enumerate(order):
                ax = axes[i // 2][i % 2]
                q = self._queue(runs, key(s, k))
                ax.plot(q["t"], q["p"], lw=0.6, color="tab:orange", label="drop probability p")
                ax.plot(q["t"], q["max_p"], lw=1.4, color="black", label="max_p")
                ax.axhline(th["max_p"], ls=":", color="gray", lw=0.8)
                ax.set_title(f"({'abcd'[i]}) {SHORT[k]}")
                ax.set_ylabel("probability")
                ax.grid(alpha=0.3)
                if i >= 2:
                    ax.set_xlabel("time (s)")
                if i == 0:
                    ax.legend(fontsize=8, loc="upper right")
            fig.suptitle(f"Fig. {fp}: drop probability and max_p, scenario {ROMAN[s]} "
                         f"(initial max_p {th['max_p']:g}, dotted; seed {seed})")
            p = out / f"fig{fp}_p_maxp_s{s}.png"
            fig.savefig(p, dpi=100)
            figs.append(Figure(p.name, f"Fig. {fp}: drop probability p (RED's p_a at the last "
                                       f"decision) and max_p over time, scenario {ROMAN[s]}."))
            # queue
            fig, axes = _new_fig(12.0, 6.5, 2, 2, sharex=True, sharey=True)
            for i, k in enumerate(order):
                ax = axes[i // 2][i % 2]
                q = self._queue(runs, key(s, k))
                u = units[key(s, k)]
                # the actual queue in the unit of the thresholds (avg already is)
                ax.plot(q["t"], u.actual(q), lw=0.5, color="tab:blue", label="actual queue")
                ax.plot(q["t"], q["avg"], lw=1.4, color="tab:red", label="average queue")
                for name, style in (("min_th", "--"), ("max_th", "--"), ("risk_th", ":"),
                                    ("buffer", "-")):
                    ax.axhline(th[name], ls=style, color="gray", lw=0.8)
                    if i % 2 == 1:
                        ax.annotate(name, (1.0, th[name]), xycoords=("axes fraction", "data"),
                                    fontsize=7, color="gray", va="center",
                                    xytext=(2, 0), textcoords="offset points")
                ax.set_title(f"({'abcd'[i]}) {SHORT[k]}")
                ax.set_ylabel(f"queue ({u.name})")
                ax.grid(alpha=0.3)
                if i >= 2:
                    ax.set_xlabel("time (s)")
                if i == 0:
                    ax.legend(fontsize=8, loc="lower right")
            names = sorted({units[key(s, k)].name for k in order})
            fig.suptitle(f"Fig. {fq}: average and actual queue sizes, scenario {ROMAN[s]} "
                         f"(min_th {th['min_th']:g}, max_th {th['max_th']:g}, risk_th "
                         f"{th['risk_th']:g}, buffer {th['buffer']:g}, in "
                         f"{' / '.join(names)}; seed {seed})")
            p = out / f"fig{fq}_queue_s{s}.png"
            fig.savefig(p, dpi=100)
            figs.append(Figure(p.name, f"Fig. {fq}: actual and average queue over time, "
                                       f"scenario {ROMAN[s]}, with Table I's thresholds, "
                                       f"queue and thresholds in {' / '.join(names)}."))
        return figs

    # ------------------------------------------------------------------ claims
    def _compare(self, runs: Runs, metric: str, want: str, scale: float = 1.0,
                 unit: str = "") -> Tuple[bool, str]:
        """RTRED against RED and Adaptive in every scenario: ``want`` is "lower" or
        "higher" (RTRED's mean against the other's)."""
        ok = True
        parts = []
        for s in SCENARIOS:
            r = float(np.nanmean(runs.values(key(s, "rtred"), metric) * scale))
            bits = []
            for o in ("red", "ared"):
                v = float(np.nanmean(runs.values(key(s, o), metric) * scale))
                good = r < v if want == "lower" else r > v
                ok = ok and good
                d, h = self._paired(runs, key(s, "rtred"), key(s, o), metric, scale)
                bits.append(f"{LABEL[o]} {_fmt(v, 4)}{unit} (diff {d:+.3g} ± {_fmt(h, 2)}, "
                            f"{'yes' if good else 'NO'})")
            parts.append(f"S{s}: RTRED {_fmt(r, 4)}{unit} vs " + ", ".join(bits))
        return ok, "; ".join(parts)

    def _maxp_levels(self, runs: Runs, s: int, p0: float):
        """RTRED's max_p after the warm-up: (share of time at max_p, max_p/2, max_p/5; share
        at any other value; whether RED's max_p is p0 throughout; share of runs with two or
        more levels), over seeds."""
        levels = {"max_p": p0, "max_p/2": p0 / 2, "max_p/5": p0 / 5}
        frac: Dict[str, List[float]] = {n: [] for n in levels}
        other, multi = [], []
        for seed in runs.seeds(key(s, "rtred")):
            q = self._queue(runs, key(s, "rtred"), seed)
            mp = q[q["t"] >= WARMUP]["max_p"].to_numpy(dtype=float)
            if len(mp) == 0:
                continue
            hit = np.zeros(len(mp), dtype=bool)
            seen = 0
            for n, v in levels.items():
                m = np.isclose(mp, v, rtol=1e-9, atol=1e-12)
                frac[n].append(float(m.mean()))
                seen += int(m.any())
                hit |= m
            other.append(float((~hit).mean()))
            multi.append(1.0 if seen >= 2 else 0.0)
        red_fixed = True
        for seed in runs.seeds(key(s, "red")):
            mp = self._queue(runs, key(s, "red"), seed)["max_p"].to_numpy(dtype=float)
            red_fixed = red_fixed and bool(len(mp)) and bool(np.allclose(mp, p0))
        f = {n: float(np.mean(v)) if v else 0.0 for n, v in frac.items()}
        return (f, float(np.mean(other)) if other else 1.0, red_fixed,
                float(np.mean(multi)) if multi else 0.0)

    def _claims(self, runs: Runs, shares, t1) -> List[Claim]:
        claims: List[Claim] = []

        ok, ev = self._compare(runs, "bottleneck_drops", "lower", unit=" drops")
        claims.append(Claim("RTRED loses fewer packets than RED and Adaptive RED in all three "
                            "scenarios (Table II, 'Loss Rate').", ok, ev))

        ok, ev = self._compare(runs, "time_avg_queue_pkts", "higher", unit=" pkts")
        claims.append(Claim("RTRED keeps a larger average queue than RED and Adaptive RED in "
                            "all three scenarios (Table II, 'Ave Q Size').", ok, ev))

        dmetric, _ = self._delay_source(runs, key(1, "red"))
        dscale = 1000.0 if dmetric == "mean_e2e_delay_s" else self._tx_time(runs, key(1, "red"))
        ok, ev = self._compare(runs, dmetric, "lower", scale=dscale,
                               unit=" ms" if dmetric == "mean_e2e_delay_s" else " (sent x t_tx)")
        claims.append(Claim("RTRED's average delay is lower than RED's and Adaptive RED's in "
                            "all three scenarios (Table II, 'Average Delay Time').", ok, ev))

        ok, ev = self._compare(runs, "packets_sent", "lower", unit=" pkts")
        ok2, ev2 = self._compare(runs, "packets_retransmitted", "lower", unit=" rtx")
        claims.append(Claim("RTRED makes the sources send fewer packets than RED and Adaptive "
                            "RED in all three scenarios, because it causes fewer "
                            "retransmissions (Table II, 'No. of Propagated Packets').",
                            ok and ok2, f"sent: {ev}. retransmitted: {ev2}"))

        # drop areas: normal + timeout hold most drops; few unfair drops (Fig. 4-5)
        ok = True
        few = True
        parts = []
        unfair_parts = []
        for k in PAPER_STRATEGIES:
            nt, nth = mean_ci((self._avg_share(shares, k, "normal")
                               + self._avg_share(shares, k, "timeout")) * 100.0)
            un, unh = mean_ci(self._avg_share(shares, k, "unfair") * 100.0)
            ok = ok and nt > 50.0
            few = few and un <= FEW * 100.0
            per = ", ".join(
                f"S{s} {float(np.nanmean(shares[(s, k)]['share_normal'] + shares[(s, k)]['share_timeout'])) * 100:.0f}%"
                for s in SCENARIOS)
            parts.append(f"{LABEL[k]}: normal+timeout {nt:.1f} ± {_fmt(nth, 2)}% ({per})")
            per_u = ", ".join(f"S{s} {float(np.nanmean(shares[(s, k)]['share_unfair'])) * 100:.1f}%"
                              for s in SCENARIOS)
            unfair_parts.append(f"{LABEL[k]}: unfair {un:.1f} ± {_fmt(unh, 2)}% ({per_u})")
        claims.append(Claim("Most drops fall in the normal and timeout areas (over half of the "
                            "drops, average of the three scenarios, for RED, Adaptive RED and "
                            "RTRED) (Fig. 4-5).", ok, "; ".join(parts)))
        claims.append(Claim(f"Few packets are dropped in the unfair area (at most {FEW:.0%} of "
                            "the drops, average of the three scenarios, for each strategy) "
                            "(Fig. 4-5).", few, "; ".join(unfair_parts)))

        # RTRED reduces unfair and timed-out drops (Sec. IV-A)
        ok = True
        parts = []
        for s in SCENARIOS:
            vals = {}
            for k in PAPER_STRATEGIES:
                df = shares[(s, k)]
                vals[k] = float(np.mean(df["unfair"] + df["timeout"])) if len(df) else np.nan
            good = vals["rtred"] < vals["red"] and vals["rtred"] < vals["ared"]
            ok = ok and good
            parts.append(f"S{s}: RTRED {vals['rtred']:.1f}, RED {vals['red']:.1f}, "
                         f"Adaptive {vals['ared']:.1f} drops in unfair+timeout areas "
                         f"({'yes' if good else 'NO'})")
        claims.append(Claim("RTRED reduces the number of packets dropped unfairly (actual queue "
                            "below min_th) or in the timeout area (at or above risk_th) compared "
                            "with RED and Adaptive RED, in all three scenarios (Sec. IV-A).",
                            ok, "; ".join(parts)))

        # max_p dynamics (Fig. 6 for scenario I; Fig. 8 and 10 for II and III)
        lv = {s: self._maxp_levels(runs, s, t1[s]["max_p"]) for s in SCENARIOS}
        f, oth, red_fixed, _ = lv[1]
        good = f["max_p"] > 0 and f["max_p/5"] > 0 and oth == 0.0 and red_fixed
        claims.append(Claim(
            "In scenario I RTRED's max_p moves between the initial max_p and max_p/5 (through "
            "max_p/2) while RED's max_p stays fixed (Fig. 6).", bool(good),
            f"S1: RTRED share of time at max_p {f['max_p']:.1%}, max_p/2 {f['max_p/2']:.1%}, "
            f"max_p/5 {f['max_p/5']:.1%}, any other value {oth:.1%}; RED's max_p equal to "
            f"{t1[1]['max_p']:g} in every sample of every seed: {red_fixed}"))
        ok = True
        parts = []
        for s in (2, 3):
            f, oth, red_fixed, multi = lv[s]
            good = multi == 1.0 and oth == 0.0 and red_fixed
            ok = ok and good
            parts.append(f"S{s}: RTRED share of time at max_p {f['max_p']:.1%}, max_p/2 "
                         f"{f['max_p/2']:.1%}, max_p/5 {f['max_p/5']:.1%}, other {oth:.1%}; "
                         f"runs whose max_p takes two or more levels {multi:.0%}; RED fixed: "
                         f"{red_fixed}")
        claims.append(Claim(
            "In scenarios II and III RTRED's max_p stays dynamic (it moves between levels in "
            "every run) while RED's is fixed (Fig. 8, 10).", bool(ok), "; ".join(parts)))

        # ARED keeps a high max_p in scenario I (Fig. 6a)
        p0 = t1[1]["max_p"]
        fr, mean_mp = [], []
        for seed in runs.seeds(key(1, "ared")):
            q = self._queue(runs, key(1, "ared"), seed)
            q = q[q["t"] >= WARMUP]
            mp = q["max_p"].to_numpy(dtype=float)
            if len(mp):
                fr.append(float(np.mean(mp >= p0 - 1e-12)))
                mean_mp.append(float(mp.mean()))
        fm, fh = mean_ci(fr)
        mm, mh = mean_ci(mean_mp)
        rt = []
        for sd in runs.seeds(key(1, "rtred")):
            q = self._queue(runs, key(1, "rtred"), sd)
            rt.append(float(q[q["t"] >= WARMUP]["max_p"].mean()))
        rm_, rh = mean_ci(rt)
        good = bool(fm > 0.5 and mm > rm_)
        claims.append(Claim("In scenario I Adaptive RED keeps a high max_p (at or above its "
                            "initial value most of the time, and above RTRED's) (Fig. 6a).",
                            good,
                            f"ARED max_p >= initial {p0:g} for {fm:.1%} ± {fh:.1%} of the "
                            f"time; time-average max_p ARED {mm:.4f} ± {_fmt(mh, 2)}, RTRED "
                            f"{rm_:.4f} ± {_fmt(rh, 2)}"))

        # most stable queue (Fig. 7-11)
        ok = True
        parts = []
        for s in SCENARIOS:
            sd = {k: mean_ci(self._queue_std(runs, key(s, k))) for k in PAPER_STRATEGIES}
            good = sd["rtred"][0] < sd["red"][0] and sd["rtred"][0] < sd["ared"][0]
            ok = ok and good
            parts.append(f"S{s}: std of actual queue RTRED {sd['rtred'][0]:.2f} ± "
                         f"{_fmt(sd['rtred'][1], 2)}, RED {sd['red'][0]:.2f}, Adaptive "
                         f"{sd['ared'][0]:.2f} pkts ({'yes' if good else 'NO'})")
        claims.append(Claim("RTRED gives the most stable queue length (smallest standard "
                            "deviation of the actual queue of RED, Adaptive RED and RTRED) in "
                            "all three scenarios (Fig. 7-11 text).", ok, "; ".join(parts)))
        return claims


PAPER = RtredPaper()
