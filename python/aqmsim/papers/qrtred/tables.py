"""Paper 001's extra table: Table 1's numbers under the other definitions the paper's
words allow."""

from __future__ import annotations

from ..base import Cell, Runs, Table, mean_ci
from .measures import PAPER_ROW


class TablesMixin:
    """The table methods of :class:`~aqmsim.papers.qrtred.QrtredPaper` beside Table 1."""

    @staticmethod
    def _metric_table(runs: Runs, keys, published) -> Table:
        """Table 1's two numbers under the other definitions the paper's words allow, beside
        the published value (shown, not compared: the compared cells are Table 1's)."""
        rows = []
        for k in keys:
            rate = runs.values(k, "bottleneck_rate_bps")
            good = runs.values(k, "goodput_bps") / rate * 100.0
            hard = runs.values(k, "drops_forced") + runs.values(k, "drops_overflow")
            rows.append([
                PAPER_ROW[k],
                published(k, "avg_utilisation"),
                runs.cell(k, "utilisation", scale=100.0),
                Cell(*mean_ci(good)),
                published(k, "total_drops"),
                runs.cell(k, "bottleneck_drops"),
                runs.cell(k, "drops_early"),
                Cell(*mean_ci(hard)),
            ])
        return Table(
            "Metric definitions (not compared): Table 1's numbers under other readings of "
            "its words",
            ["Algorithm", "Published utilisation (%)", "Link utilisation (%) (Table 1)",
             "Goodput / rate (%)", "Published total drop", "All bottleneck drops (Table 1)",
             "Early (random) drops", "Forced + overflow drops"],
            rows,
            note=("'Average Utilization' read as bits sent on R1->R2 (headers and "
                  "retransmissions included) over rate x 100 s, as an ns-2 link or queue "
                  "monitor counts it (Table 1), or as the TCP goodput (new payload bytes "
                  "delivered) over the same; 'Total Drop' as every drop at the bottleneck "
                  "(Table 1: ns-2's trace 'd' events, no other queue drops), or only RED's "
                  "early drops, or only the forced and overflow drops. Mean ± 95 % interval "
                  "over seeds."),
        )
