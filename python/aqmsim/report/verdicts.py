"""Whose gap each gap is: a verdict for every compared number of a reproduction, by the
rule :data:`RULE` (written on the index, on each paper's page and in
``docs/reproducing.md``), the verdicts counted per paper, the ns-2 flags of the numbers
that vary over seeds set against what chance alone gives at their test's level, and the
*documented modelling choices* (``modelling.csv`` in a paper's package) shown beside a
number ns-2 and aqmsim disagree on.

The verdicts, tried in this order (the first that applies):

``matched``
    aqmsim's mean is within 10 % of the published number.
``noise``
    not within 10 %, but our 95 % interval reaches the ±10 % band around the published
    number: the seeds cannot tell whether it is within 10 %.
``the simulator's``
    ns-2 and aqmsim differ (:func:`aqmsim.papers.base.ns2_agrees`), so the gap may be
    aqmsim's; a documented modelling choice (if one is written) is shown beside it.
``the reading's``
    another reading of the paper's open choices (``Readings``) brings it within 10 %.
``the paper's``
    under every reading it stays more than 10 % off, and ns-2 agrees with aqmsim: both
    simulators disagree with the paper. A number ns-2 gives no value for (ns-2 cannot
    run the experiment, e.g. the paper's own algorithm, or does not measure the number)
    gets this verdict *without a simulator check*, counted apart.

Published numbers a reproduction used as inputs (``Cell.input``: e.g. RTRED's packet
counts, whose mean over the rows fixed the run length) are judged by the same rule row by
row (:attr:`~aqmsim.papers.base.Cell.row_diff`) and counted apart, never as checks.
"""

from __future__ import annotations

import csv
import fnmatch
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..papers.base import NS2_ALPHA, Cell, Report, _dust
from . import _format as F

__all__ = ["MATCHED", "NOISE", "SIMULATOR", "READING", "PAPER", "ORDER", "RULE", "Verdict",
           "Chance", "judge", "verdicts", "counts", "counts_text", "chance",
           "chance_text", "coverage_text", "modelling_notes", "note_for", "MODELLING_FILE"]

MATCHED, NOISE, SIMULATOR, READING, PAPER = ("matched", "noise", "the simulator's",
                                             "the reading's", "the paper's")
#: The verdicts in the order they are tried.
ORDER = (MATCHED, NOISE, SIMULATOR, READING, PAPER)
#: Where a paper documents its modelling choices (beside its published.csv).
MODELLING_FILE = "modelling.csv"

#: The rule, as written on the pages (plain text; one entry per paragraph).
RULE = [
    "Every number compared with a published one gets one verdict, the first of these that "
    "applies: matched — aqmsim's mean is within 10 % of the published number; noise — it "
    "is not, but aqmsim's 95 % interval reaches the ±10 % band around the published number "
    "(the seeds cannot tell); the simulator's — ns-2 and aqmsim differ (marked ≠), so the "
    "gap may be aqmsim's (a documented modelling choice, where one is written, is shown "
    "beside it); the reading's — another reading of the paper's open choices brings it "
    "within 10 %; the paper's — more than 10 % off under every reading while ns-2 agrees "
    "with aqmsim: both simulators disagree with the paper. Where ns-2 gives no value (it "
    "cannot run the experiment, or does not measure the number) the paper's is counted "
    "apart, “without a simulator check”.",
    "ns-2 ≠ aqmsim: a number that does not vary over seeds in either simulator (± 0, a "
    "deterministic run) must be the same in both; any other is compared by Welch's "
    "two-sided t-test on the two sets of seeds, flagged when p < "
    f"{NS2_ALPHA:g}. So about {100 * NS2_ALPHA:g} % of the numbers that vary over seeds are "
    "flagged by chance alone even when the simulators agree: each paper sets its flags "
    "against that (binomial; its numbers share runs, so this is a rough check).",
    "Published numbers the reproduction used as inputs (to derive a quantity of its "
    "scenarios) are not checks: they are still compared row by row and judged by the same "
    "rule, counted apart.",
]


@dataclass
class Verdict:
    """One compared number and its verdict."""

    table: str
    row: str
    column: str
    cell: Cell
    verdict: str
    #: The numbers that decided it, in a few words.
    why: str
    #: Whether ns-2 gave a number to compare (ns-2 agreed or differed).
    ns2_checked: bool
    #: A published number used as an input (counted apart).
    input: bool = False
    #: The documented modelling choice for this number, if one is written.
    note: str = ""


def _d(c: Cell) -> Optional[float]:
    return c.row_diff if getattr(c, "input", False) else c.diff


def _pct(x: float) -> str:
    return f"{100 * x:+.1f} %".replace("-", "−")


def judge(cell: Cell, others: Optional[Mapping[str, Cell]] = None) -> Tuple[str, str]:
    """(verdict, why) of one number with a published value; ``others`` are the same number
    under the alternative readings ({variant name: cell})."""
    d = _d(cell)
    if d is None:
        raise ValueError("judge: the cell has no published number to compare with")
    if abs(d) <= 0.10:
        return MATCHED, f"{_pct(d)} from the published value"
    pub = abs(float(cell.published))
    half = float(cell.half)
    if math.isfinite(half) and abs(cell.mean - float(cell.published)) - half <= 0.10 * pub:
        return NOISE, (f"{_pct(d)}, but the 95 % interval (± {F.num(half)}) reaches the "
                       "±10 % band")
    agree = cell.ns2_agrees
    if agree is False:
        return SIMULATOR, f"ns-2 {F.ours(cell.ns2)} ≠ aqmsim {F.ours(cell)}"
    near = [v for v, c in (others or {}).items() if _d(c) is not None and abs(_d(c)) <= 0.10]
    if near:
        more = f" and {len(near) - 3} more" if len(near) > 3 else ""
        return READING, f"{_pct(d)}; within 10 % under {', '.join(near[:3])}{more}"
    tail = ("ns-2 agrees" if agree else "no ns-2 value: without a simulator check")
    return PAPER, f"{_pct(d)} under every reading; {tail}"


def _alternatives(report: Report) -> Dict[Tuple[str, str, str], Dict[str, Cell]]:
    sens = getattr(report, "readings", None)
    if sens is None:
        return {}
    return {r.id: {v: c for v, c in r.cells.items() if v != "primary"} for r in sens.rows}


def verdicts(report: Report, notes: Optional[Sequence[Tuple[str, str, str, str]]] = None
             ) -> List[Verdict]:
    """Every number of ``report`` with a published value (checks and inputs), judged;
    ``notes`` default to the paper's :func:`modelling_notes`."""
    if notes is None:
        notes = modelling_notes(getattr(report, "paper", None))
    alts = _alternatives(report)
    out: List[Verdict] = []
    for c in F.cells_of(report, only_published=False):
        cell = c.cell
        if _d(cell) is None:
            continue
        v, why = judge(cell, alts.get((c.table, c.row, c.column)))
        note = note_for(notes, c.table, c.row, c.column) if cell.ns2_agrees is False else ""
        out.append(Verdict(c.table, c.row, c.column, cell, v, why,
                           cell.ns2_agrees is not None, bool(cell.input), note))
    return out


def counts(vs: Sequence[Verdict], inputs: bool = False) -> Dict[str, int]:
    """{verdict: how many} over the checks (``inputs``: over the inputs), every verdict
    present; plus ``unchecked``: the paper's without an ns-2 check."""
    out = {v: 0 for v in ORDER}
    out["unchecked"] = 0
    for x in vs:
        if x.input != inputs:
            continue
        out[x.verdict] += 1
        if x.verdict == PAPER and not x.ns2_checked:
            out["unchecked"] += 1
    return out


def counts_text(vs: Sequence[Verdict], inputs: bool = False) -> str:
    """``8 matched · 0 noise · 0 the simulator's · 0 the reading's · 1 the paper's (1
    without a simulator check)``: the paper's without a number from ns-2 to compare are
    counted apart; "" when there is nothing to judge."""
    n = counts(vs, inputs)
    if not sum(n[v] for v in ORDER):
        return ""
    parts = [f"{n[v]} {v}" for v in ORDER]
    if n["unchecked"]:
        parts[-1] += f" ({n['unchecked']} without a simulator check)"
    return " · ".join(parts)


@dataclass
class Chance:
    """The ns-2 flags of one paper against chance."""

    alpha: float
    #: Numbers with an ns-2 value that vary over seeds (Welch's test), and how many flagged.
    random: int
    flagged: int
    #: Numbers that vary over seeds in neither simulator (must be equal), and how many not.
    deterministic: int
    det_flagged: int

    @property
    def expected(self) -> float:
        """Flags expected by chance among the random numbers: alpha × random."""
        return self.alpha * self.random

    @property
    def p(self) -> float:
        """P(at least ``flagged`` flags) if every flag were chance (binomial, alpha)."""
        if not self.random:
            return float("nan")
        from scipy.stats import binom

        return float(binom.sf(self.flagged - 1, self.random, self.alpha))

    @property
    def p_fewer(self) -> float:
        """P(at most ``flagged`` flags) if every flag were chance (a test too lenient)."""
        if not self.random:
            return float("nan")
        from scipy.stats import binom

        return float(binom.cdf(self.flagged, self.random, self.alpha))


def _deterministic(c: Cell) -> bool:
    return (_dust(float(c.half), float(c.mean))
            and _dust(float(c.ns2.half), float(c.ns2.mean)))


def chance(report: Report, alpha: float = NS2_ALPHA) -> Optional[Chance]:
    """The paper's ns-2 flags split into random and deterministic numbers; None when no
    number has an ns-2 value to compare."""
    cs = [c for c in report.cells() if c.ns2_agrees is not None]
    if not cs:
        return None
    det = [c for c in cs if _deterministic(c)]
    rnd = [c for c in cs if not _deterministic(c)]
    return Chance(alpha, len(rnd), sum(1 for c in rnd if c.ns2_agrees is False),
                  len(det), sum(1 for c in det if c.ns2_agrees is False))


def chance_text(ch: Optional[Chance]) -> str:
    """``ns-2 ≠ aqmsim on 3 of 54 numbers that vary over seeds (2.7 expected by chance at 5
    %, P(≥ 3) = 0.5) and on 1 of 6 deterministic ones (chance: none)``."""
    if ch is None:
        return ""
    bits = []
    if ch.random:
        verdict = ("more than chance gives" if ch.p < 0.05 else
                   "fewer than chance gives" if ch.p_fewer < 0.05 else "as chance gives")
        bits.append(f"ns-2 ≠ aqmsim on {ch.flagged} of {ch.random} numbers that vary over "
                    f"seeds ({ch.expected:.1f} expected by chance at "
                    f"{100 * ch.alpha:g} %, P(≥ {ch.flagged}) = {ch.p:.2g}: {verdict})")
    if ch.deterministic:
        bits.append(f"{'on ' if ch.random else 'ns-2 ≠ aqmsim on '}{ch.det_flagged} of "
                    f"{ch.deterministic} deterministic numbers (± 0 in both; chance gives "
                    "none: each is a real difference)")
    return " and ".join(bits)


def coverage_text(report: Report) -> str:
    """When ns-2 cannot run some experiments: that the simulator check covers only those
    it runs (the baselines), naming the others; "" otherwise."""
    col = getattr(report, "ns2", None)
    if col is None or col.status != "ran" or not col.cannot:
        return ""
    keys = sorted(col.cannot)
    shown = ", ".join(keys[:6]) + (f", … ({len(keys)} in all)" if len(keys) > 6 else "")
    return (f"the simulator check covers the baselines only: ns-2 cannot run {len(keys)} of "
            f"the {len(keys) + len(col.experiments)} experiments ({shown}: the paper's "
            "own algorithm or variants ns-2 lacks), so their numbers have no ns-2 check")


# ------------------------------------------------------------------ modelling choices
def modelling_notes(paper: Any) -> List[Tuple[str, str, str, str]]:
    """The documented modelling choices of ``paper``: rows (table, row, column, note) of
    ``modelling.csv`` in its package (columns ``table,row,column,note``; each of the first
    three a shell-style pattern matched against the number's table title, row label and
    column, ``*`` or empty for any; lines starting with ``#`` are comments). [] when the
    paper has none."""
    try:
        path = Path(paper.directory) / MODELLING_FILE
    except Exception:  # noqa: BLE001 - a paper without a package (tests, notebooks)
        return []
    if not path.is_file():
        return []
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    out = []
    for rec in csv.DictReader(lines):
        note = (rec.get("note") or "").strip()
        if note:
            out.append(tuple((rec.get(k) or "").strip() or "*"
                             for k in ("table", "row", "column")) + (note,))
    return out  # type: ignore[return-value]


def note_for(notes: Sequence[Tuple[str, str, str, str]], table: str, row: str,
             column: str) -> str:
    """The notes whose patterns match the number (joined), or ""."""
    got = [n for t, r, c, n in notes
           if fnmatch.fnmatchcase(table, t) and fnmatch.fnmatchcase(row, r)
           and fnmatch.fnmatchcase(column, c)]
    return " ".join(got)
