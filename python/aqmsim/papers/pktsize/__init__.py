"""Paper 002: S. De Cnodder, O. Elloumi, K. Pauwels, "Effect of different packet sizes on
RED performance" (Alcatel CRC).

Three groups of 20 TCP SACK flows with MTUs 375, 750 and 1500 bytes share a 30 Mb/s
bottleneck whose one-way propagation delay is 15 ms (low) or 80 ms (high); the bottleneck
runs one of five RED variants that weight the drop probability by packet size
(RED_1 … RED_5, aqmsim kinds ``red1`` … ``red5``). Table III gives, per MTU group, the
packet loss ratio (PLR) at the bottleneck and the summed goodput.

How the numbers are measured here
---------------------------------
* **PLR of a group** = packets of the group dropped at the bottleneck queue (``R1->R2``) /
  packets of the group that arrived at that queue: the flows table's per-flow counts at
  the monitored queue (``queue_drops`` / ``queue_arrivals``), summed over the group — the
  paper's "number of dropped packet with a given MTU over the total number of packets
  having that MTU". Retransmissions count as packets; ACKs never reach that queue.
* **Goodput of a group** = Σ over its 20 flows of new in-order payload bits delivered per
  second of the run (``goodput_bps`` of the flows table); the "Sum" row is the summary's
  ``goodput_bps``.
* **Fairness** = Jain's index over the three groups' summed goodputs, per seed.

Where the paper is silent (simulator defaults, queue units, M, MTU semantics, window, …)
the open choices and their candidate readings are in :mod:`.readings`; the scenario files
hold the primary reading of each and ``aqmsim reproduce`` runs every alternative (one seed
each) beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import pandas as pd

from ..base import Experiment, Paper, Report, Runs
from .claims import ClaimsMixin
from .figures import FiguresMixin
from .measures import (BOTTLENECK, CAPACITY_MBPS, DELAY_TEXT, DELAYS, GROUPS, MTUS,  # noqa: F401
                       SUMMARY_NEEDS, VARIANTS, Metrics, from_run, group_metrics, jain, key_of,
                       run_value, summary_metrics, vname)
from .tables import TablesMixin


class PktSize(FiguresMixin, TablesMixin, ClaimsMixin, Paper):
    name = "pktsize"
    number = "002"
    title = "Effect of different packet sizes on RED performance"
    citation = ("S. De Cnodder, O. Elloumi, K. Pauwels, \"Effect of different packet sizes "
                "on RED performance\", Alcatel Corporate Research Center (Table III)")
    default_seeds = 5
    #: Seeds of each alternative reading (the primary runs default_seeds).
    reading_seeds = 2

    def readings(self) -> list:
        """The open choices and their readings (see :mod:`.readings`)."""
        from .readings import choices

        return choices()

    # ------------------------------------------------------------------ experiments
    def experiments(self) -> List[Experiment]:
        out = []
        for delay in DELAYS:
            for v in VARIANTS:
                out.append(Experiment(
                    key=key_of(v, delay),
                    scenario=self.scenario(f"{v}-{delay}.toml"),
                    labels={"variant": v, "delay": delay},
                    keep=("flows",),
                    keep_first=("queue",),
                ))
        return out

    # ------------------------------------------------------------------ measurements
    def metrics(self, runs: Runs) -> pd.DataFrame:
        """One row per (experiment, seed, group) plus one per (experiment, seed) with
        group "all" (summary values)."""
        rows = []
        for delay in DELAYS:
            for v in VARIANTS:
                k = key_of(v, delay)
                for s in runs.seeds(k):
                    rec = runs.get(k, s)
                    gm = group_metrics(rec.tables["flows"])
                    for g, m in gm.items():
                        rows.append({"delay": delay, "variant": v, "seed": s, "group": g, **m})
                    rows.append({
                        "delay": delay, "variant": v, "seed": s, "group": "all",
                        "jain": jain([gm[g]["goodput"] for g, _, _ in GROUPS]),
                        "arrivals": sum(m["arrivals"] for m in gm.values()),
                        **summary_metrics(rec.summary),
                    })
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ analysis
    def analyse(self, runs: Runs, out: Path) -> Report:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        m = Metrics(self.metrics(runs))
        pub = self.published()
        pub_at = {(str(d), str(v), str(u), str(k)): float(x) for d, v, u, k, x in
                  zip(pub["delay"], pub["variant"], pub["mtu"], pub["metric"], pub["value"])}

        def P(delay: str, v: str, mtu: str, metric: str) -> Optional[float]:
            return pub_at.get((delay, v, mtu, metric))

        seeds = sorted({s for k in runs.experiments for s in runs.seeds(k)})
        tables = [self._table3(m, runs, P), self._table_why(m, runs)]
        # Alternative readings are analysed with figures off: their numbers are compared.
        figures = self._figures(runs, m, P, out) if self.figures else []
        claims = self._claims(m)
        assumptions = self.assumptions() + [
            "PLR of a group: its packets dropped at the R1->R2 queue / its packets arriving "
            "there (per-flow counts at the monitored queue, summed over the group; "
            "retransmissions included).",
            "Goodput: new in-order payload delivered per second over the whole run (start-up "
            "included), summed over the 20 flows of a group; the Sum row is the run's total.",
            "Fairness: Jain's index over the three groups' summed goodputs, per seed, then "
            "averaged over seeds.",
            "Claim tolerances (ours, the paper gives none): 'about the same' = max/min ≤ 1.25; "
            "'roughly doubles' = factor per MTU doubling in [1.5, 2.5]; 'grows with the square' "
            "= factor per doubling in [2.83, 5.66] (exponent 1.5–2.5); 'by far the highest' = "
            "at least twice the next group's; 'comparable' = within 25 % of each other. The "
            "factor per doubling is (X_1500 / X_375)^(1/2) on the seed means.",
            "Above max_th (gentle off) every arrival is dropped whatever its size, for all "
            "five variants, as in Floyd & Jacobson and in ns-2 of 1999 (a 'forced' drop); "
            "the size weighting of RED_2 … RED_5 applies to probabilities below 1 only "
            "(crates/aqmsim-core/src/aqm/red.rs, Red::decide). The paper's Tables I-II "
            "define the weighting only between the thresholds; where avg often exceeds "
            "max_th (the 'forced' share and the time above max_th in the table 'Drops by "
            "reason') the variants differ less than their formulas do.",
            "ns-2 of 1999 computes its RTO with tcp.cc's rtt_update()/rtt_timeout() as "
            "aqmsim does (srtt + 4·rttvar in ticks, at least two ticks); the choices the "
            "paper leaves open are listed with their readings on this page.",
        ]
        return Report(self, tables, figures, claims, assumptions, seeds)


PAPER = PktSize()
