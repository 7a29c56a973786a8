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
from typing import Dict, List, Optional

from ..base import Experiment, Paper, Report, Runs
from . import readings as _readings

__all__ = ["RtredPaper", "PAPER", "SCENARIOS", "STRATEGIES", "AREAS", "area_shares",
           "QueueUnit", "queue_unit"]
from .analysis import AnalysisMixin
from .claims import ClaimsMixin
from .figures import FiguresMixin
from .measures import (AREA_TEXT, AREAS, FEW, LABEL, PAPER_STRATEGIES, SCENARIOS,  # noqa: F401
                       STRATEGIES, TABLE2, WARMUP, QueueUnit, area_shares, key, queue_unit)
from .tables import TablesMixin


class RtredPaper(FiguresMixin, ClaimsMixin, TablesMixin, AnalysisMixin, Paper):
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


PAPER = RtredPaper()
