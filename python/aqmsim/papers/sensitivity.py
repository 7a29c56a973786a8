"""What each open choice does to a paper's numbers and claims.

Given the paper's :class:`~aqmsim.papers.base.Report` under every variant of its readings
(:func:`aqmsim.papers.readings.variants`), this module lines up every compared number
across variants, measures how far each choice moves each number from the primary reading
(the spans of a tornado diagram), counts "N of M within 10 %" per variant, and labels each
claim *robust* (holds under every reading), *fragile* (fails under some: they are named)
or *fails* (under all).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .base import Cell, Report, save_png_svg
from .readings import PRIMARY, Choice, Variant

__all__ = ["Sensitivity", "ClaimLabel", "Row", "Shift", "analyse_readings", "label_claims",
           "cell_rows", "tornado_figure"]

CellId = Tuple[str, str, str]


@dataclass
class Row:
    """One compared number: where it stands and its cell under every variant."""

    table: str
    row: str
    column: str
    published: Optional[float]
    cells: Dict[str, Cell]

    @property
    def id(self) -> CellId:
        return (self.table, self.row, self.column)


@dataclass
class ClaimLabel:
    """A claim's verdict over every reading: ``robust`` | ``fragile`` | ``fails``;
    ``fails_under`` names the variants under which it fails, ``holds`` maps every variant
    to its verdict and ``evidence`` to the numbers behind it."""

    text: str
    label: str
    holds: Dict[str, bool]
    evidence: Dict[str, str]

    @property
    def fails_under(self) -> List[str]:
        return [v for v, h in self.holds.items() if not h]

    @property
    def holds_under(self) -> List[str]:
        return [v for v, h in self.holds.items() if h]


@dataclass
class Shift:
    """How far one choice moves one column's numbers from the primary reading: the
    median relative change over the column's cells, for each alternative reading, and
    the lowest and highest of those (a tornado bar)."""

    choice: str
    column: str
    by_reading: Dict[str, float]

    @property
    def low(self) -> float:
        v = [x for x in self.by_reading.values() if math.isfinite(x)]
        return min([0.0] + v)

    @property
    def high(self) -> float:
        v = [x for x in self.by_reading.values() if math.isfinite(x)]
        return max([0.0] + v)

    @property
    def span(self) -> float:
        return self.high - self.low


@dataclass
class Sensitivity:
    """Everything the report shows about a paper's readings."""

    rule: str
    choices: List[Choice]
    variants: List[Variant]
    reports: Dict[str, Report]
    rows: List[Row]
    counts: Dict[str, Tuple[int, int]]
    claims: List[ClaimLabel]
    shifts: List[Shift]
    seeds: Dict[str, List[int]] = field(default_factory=dict)
    figures: List[Any] = field(default_factory=list)

    @property
    def variant_names(self) -> List[str]:
        return [v.name for v in self.variants if v.name in self.reports]

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants if v.name == name)


def _label_of(row: Sequence[Any], table: Any) -> str:
    from ..report._format import row_label

    return row_label(table, list(row))


def cell_rows(reports: Mapping[str, Report]) -> List[Row]:
    """Every cell with a published value, lined up across the variants' reports by
    (table title, row label, column); in the primary report's order."""
    from ..report._format import cells_of

    order: List[CellId] = []
    by_id: Dict[CellId, Row] = {}
    for vname, rep in reports.items():
        for c in cells_of(rep, only_published=False):
            if c.cell.published is None:
                continue
            cid = (c.table, c.row, c.column)
            if cid not in by_id:
                by_id[cid] = Row(c.table, c.row, c.column, c.cell.published, {})
                order.append(cid)
            by_id[cid].cells[vname] = c.cell
    return [by_id[i] for i in order]


def label_claims(reports: Mapping[str, Report]) -> List[ClaimLabel]:
    """Each claim of the primary report (matched by its text, else by its position)
    labelled robust / fragile / fails over the variants' verdicts."""
    names = list(reports)
    base = reports.get(PRIMARY) or reports[names[0]]
    out: List[ClaimLabel] = []
    for i, cl in enumerate(base.claims):
        holds: Dict[str, bool] = {}
        evidence: Dict[str, str] = {}
        for v in names:
            claims = reports[v].claims
            match = next((c for c in claims if c.text == cl.text), None)
            if match is None and i < len(claims):
                match = claims[i]
            if match is None:
                continue
            holds[v] = bool(match.holds)
            evidence[v] = match.evidence
        n_ok = sum(holds.values())
        label = "robust" if n_ok == len(holds) else ("fails" if n_ok == 0 else "fragile")
        out.append(ClaimLabel(cl.text, label, holds, evidence))
    return out


def _median(xs: Sequence[float]) -> float:
    v = sorted(x for x in xs if math.isfinite(x))
    if not v:
        return float("nan")
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def _rel(a: float, b: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)):
        return float("nan")
    if b == 0:
        return 0.0 if a == 0 else float("nan")
    return (a - b) / abs(b)


def shifts_of(rows: Sequence[Row], choices: Sequence[Choice],
              variants: Sequence[Variant]) -> List[Shift]:
    """For each choice and each column of compared numbers, the median relative change of
    the column's cells under each alternative reading of that choice (one at a time)."""
    columns: List[str] = []
    for r in rows:
        if r.column not in columns:
            columns.append(r.column)
    out: List[Shift] = []
    for c in choices:
        alts = [v for v in variants if v.moved == (c.name,)]
        for col in columns:
            by: Dict[str, float] = {}
            for v in alts:
                rel = [_rel(r.cells[v.name].mean, r.cells[PRIMARY].mean) for r in rows
                       if r.column == col and v.name in r.cells and PRIMARY in r.cells]
                if rel:
                    by[v.picks[c.name]] = _median(rel)
            if by:
                out.append(Shift(c.name, col, by))
    return out


def analyse_readings(choices: Sequence[Choice], variants: Sequence[Variant],
                     reports: Mapping[str, Report], rule: str,
                     seeds: Optional[Mapping[str, List[int]]] = None) -> Sensitivity:
    """Line the variants' reports up: cells, counts, claim labels and shifts."""
    rows = cell_rows(reports)
    counts = {v: rep.published_count() for v, rep in reports.items()}
    return Sensitivity(rule, list(choices), list(variants), dict(reports), rows, counts,
                       label_claims(reports), shifts_of(rows, choices, variants),
                       dict(seeds or {}))


def tornado_figure(sens: Sensitivity, out: Path, name: str = "readings-tornado.png") -> Optional[str]:
    """A tornado diagram per column of compared numbers: for every choice, the range of
    the median relative change its alternative readings cause (bars sorted by length).
    Written to ``out/name``; returns the file name, or None when nothing moves."""
    cols: List[str] = []
    for s in sens.shifts:
        if s.column not in cols:
            cols.append(s.column)
    if not cols:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    n = len(cols)
    ncols = min(n, 2)
    nrows = int(math.ceil(n / ncols))
    height = max(2.2, 0.32 * len(sens.choices) + 1.2)
    fig = MplFigure(figsize=(6.2 * ncols, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, col in enumerate(cols):
        ax = axes[k // ncols][k % ncols]
        ss = sorted((s for s in sens.shifts if s.column == col), key=lambda s: s.span)
        ys = list(range(len(ss)))
        for y, s in zip(ys, ss):
            lo, hi = 100 * s.low, 100 * s.high
            ax.barh(y, hi, left=0, color="tab:red" if hi > 0 else "none", height=0.6)
            ax.barh(y, lo, left=0, color="tab:blue" if lo < 0 else "none", height=0.6)
            for rname, x in s.by_reading.items():
                if math.isfinite(x):
                    ax.annotate(rname, (100 * x, y), xytext=(2 if x >= 0 else -2, 0),
                                textcoords="offset points", va="center", fontsize=6,
                                ha="left" if x >= 0 else "right")
        ax.set_yticks(ys, [s.choice for s in ss], fontsize=8)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("median change from the primary reading (%)", fontsize=8)
        ax.set_title(col, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
        lim = max([abs(100 * s.low) for s in ss] + [abs(100 * s.high) for s in ss] + [1.0])
        ax.set_xlim(-1.35 * lim, 1.35 * lim)
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    out.mkdir(parents=True, exist_ok=True)
    save_png_svg(fig, out / name)
    return name
