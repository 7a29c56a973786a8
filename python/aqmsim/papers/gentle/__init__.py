"""Paper 003: Hamadneh, Al-Kasassbeh, Obiedat & BaniKhalaf, *Revisiting the Gentle Parameter
of the Random Early Detection (RED) for TCP Congestion Control*, J. Communications 14(3), 2019.

Two scenarios (Tables II-III) on the topology of Fig. 2 -- sources n0, n1, router n2, the
bottleneck n2 -> n3, sinks n4, n5 -- each run with four bottleneck disciplines: DropTail (the
paper's TD), RED with gentle off, Gentle RED and Adaptive RED. Tables IV-V are redrawn with our
mean and 95 % interval beside the published numbers, Figs. 5-12 (actual and average queue) are
redrawn from the first seed, and the paper's claims are checked on every seed.

What the published columns count is not stated beyond "the link utilization here is
estimated by the total number of enqueued packets". We read them as an ns-2 trace-file
analysis of the bottleneck would give them (see ``METRICS``) and say in the report why the
published packet counts cannot be per-packet counts of the stated topology.

Where the paper is silent the scenario files hold the primary reading of each open choice;
``readings.py`` lists every choice with its candidate readings (``aqmsim reproduce`` runs
them all and reports how far each moves each number and claim).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

from ..base import Cell, Experiment, Paper, Report, Runs, Table
from . import readings as _readings
from .claims import ClaimsMixin
from .figures import FiguresMixin
from .measures import (FIGURES, METRICS, NEAR, SETTLE_FROM, STRATEGIES, SUMMARY_KEY,  # noqa: F401
                       THRESHOLDS, _key, run_value, stat, values)
from .tables import TablesMixin

__all__ = ["GentlePaper", "PAPER", "METRICS", "STRATEGIES"]


#: The summary key of an ns-2 run (aqmsim.ns2.crosscheck) holding the same quantity as
#: each Table IV-V column (throughput: Σ of the flows' received packets).
NS2_KEY = dict(SUMMARY_KEY, throughput="packets_received")


class GentlePaper(FiguresMixin, TablesMixin, ClaimsMixin, Paper):
    name = "gentle"
    number = "003"
    title = ("Revisiting the Gentle Parameter of the Random Early Detection (RED) for TCP "
             "Congestion Control")
    citation = ("N. Hamadneh, M. Al-Kasassbeh, I. Obiedat, M. BaniKhalaf, Journal of "
                "Communications 14(3):229-235, 2019, doi:10.12720/jcm.14.3.229-235")
    # a run takes ~10-20 ms: 30 seeds x 8 experiments run in a few seconds on 2 cores
    default_seeds = 30
    #: seeds of each alternative reading (a sensitivity run, not the headline numbers)
    reading_seeds = 5

    def readings(self):
        return _readings.choices()

    # ------------------------------------------------------------------ experiments
    def experiments(self) -> List[Experiment]:
        out = []
        for n in (1, 2):
            for kind, label in STRATEGIES:
                out.append(Experiment(
                    key=_key(n, kind),
                    scenario=self.scenario(f"s{n}-{kind}.toml"),
                    labels={"scenario": n, "strategy": label, "kind": kind},
                    # flows for the sink packet count, queue for the average-queue claims:
                    # both small, kept for every seed; the drop log for the first only
                    keep=("flows", "queue"),
                    keep_first=("drops",),
                ))
        return out

    # ------------------------------------------------------------------ analysis
    def analyse(self, runs: Runs, out: Path) -> Report:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        pub = self.published()
        seeds = sorted({s for (_, s) in runs.records})

        def published(n: int, label: str, metric: str) -> Optional[float]:
            r = pub[(pub.scenario == n) & (pub.strategy == label) & (pub.metric == metric)]
            return float(r.value.iloc[0]) if len(r) else None

        tables: List[Table] = []
        for n, roman in ((1, "IV"), (2, "V")):
            rows = []
            for kind, label in STRATEGIES:
                row: List[object] = [label]
                for metric, _, _ in METRICS:
                    k = _key(n, kind)
                    m, h = stat(runs, k, metric)
                    # where ns-2 measures the same quantity (the ns-2 column reads it there)
                    src = NS2_KEY.get(metric)
                    row.append(Cell(m, h, published(n, label, metric),
                                    source=(k, src, 1.0) if src else None))
                rows.append(row)
            tables.append(Table(
                title=f"Table {roman}: network performance for scenario {n}",
                columns=["Strategy"] + [c for _, c, _ in METRICS],
                rows=rows,
                note=self._table_note(n),
            ))
        tables.append(self._gap_table(runs, pub))
        tables.append(self._extra_table(runs))

        figures = self._figures(runs, out) if self.figures else []
        claims = self._claims(runs)
        assumptions = self.assumptions() + self._metric_assumptions(len(seeds))
        return Report(self, tables, figures, claims, assumptions, seeds)


PAPER = GentlePaper()
