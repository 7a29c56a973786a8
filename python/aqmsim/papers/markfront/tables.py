"""Paper 004's tables: Fig. 3's buffer requirement beside the published lines, Fig. 4-5's
metrics per threshold, and the losses."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from ..base import Runs, Table
from .readings import LIMITED_BUFFER
from .measures import (FIG3, MODES, SCENARIOS, T_TABLE, bound, cell, diff_cell, drops, key,
                       maxq, rd_of)


class TablesMixin:
    """The table methods of :class:`~aqmsim.papers.markfront.MarkFrontPaper`."""

    def _published_lines(self) -> Dict[Tuple[str, str, int], float]:
        """(scenario, strategy, T) -> the published value (read once)."""
        cached = self.__dict__.get("_pub")
        if cached is None:
            pub = self.published()
            cached = {(str(r.scenario), str(r.strategy), int(r.T)): float(r.value)
                      for r in pub.itertuples()}
            self.__dict__["_pub"] = cached
        return cached

    def _table_fig3(self, runs: Runs, ts: Sequence[int]) -> Table:
        pub = self._published_lines()
        rows: List[List] = []
        for scn in FIG3 + ("1r99",):
            rd = rd_of(min(SCENARIOS[scn][2]))
            for t in ts:
                row: List = [f"{scn}: {SCENARIOS[scn][1]}", t]
                for mode in MODES:
                    pv = pub.get((scn, mode, int(t)), bound(mode, t, rd))
                    row.append(cell(runs, key(scn, mode, t), maxq, pv))
                row.append(diff_cell(runs, key(scn, "mark_tail", t), key(scn, "mark_front", t),
                                     maxq))
                rows.append(row)
        return Table(
            "Fig. 3 — buffer requirement (largest queue, packets) against T",
            ["scenario", "T", "mark-tail (published: 2T+rd−1)", "mark-front (published: T+rd)",
             "tail − front"],
            rows,
            note=("Published values are the paper's analytical lines (Theorems 2 and 3) with "
                  f"rd = {rd_of(59):.2f} packets (r = 59 ms, the smallest RTT of scenarios 4 "
                  f"and 7); scenario 1r99 (r = 99 ms, rd = {rd_of(99):.2f}) is the paper's "
                  "99 ms configuration, for which it shows no figure."),
        )

    def _table_metric(self, runs: Runs, ts: Sequence[int], scns: Sequence[str], fn,
                      title: str) -> Table:
        rows: List[List] = []
        for scn in scns:
            for t in [t for t in T_TABLE if t in ts] or list(ts):
                tail = cell(runs, key(scn, "mark_tail", t), fn)
                front = cell(runs, key(scn, "mark_front", t), fn)
                rows.append([f"{scn}: {SCENARIOS[scn][1]}", t, tail, front,
                             diff_cell(runs, key(scn, "mark_front", t), key(scn, "mark_tail", t),
                                       fn)])
        return Table(title, ["scenario", "T", "mark-tail", "mark-front", "front − tail"], rows,
                     note="No published numbers: the paper shows these only as curves.")

    def _table_losses(self, runs: Runs, ts: Sequence[int]) -> Table:
        rows: List[List] = []
        for scn in LIMITED_BUFFER:
            for t in [t for t in T_TABLE if t in ts] or list(ts):
                rows.append([f"{scn}: {SCENARIOS[scn][1]}", t,
                             cell(runs, key(scn, "mark_tail", t), drops),
                             cell(runs, key(scn, "mark_front", t), drops)])
        return Table("Packets lost at r1 with the 25-packet buffer (explains Fig. 4 (c), (f))",
                     ["scenario", "T", "mark-tail drops", "mark-front drops"], rows)
