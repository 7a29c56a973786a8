"""Number formatting and table helpers shared by the HTML page, the Markdown summary and
the terminal tables, so that the three show the same digits."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional

from ..papers.base import Cell, Report, Table

__all__ = ["num", "ours", "published", "diff", "status", "text", "row_label", "Compared",
           "cells_of", "compared", "duration", "seeds_text", "runs_text", "has_ns2", "ns2",
           "ns2_status", "NS2_MARK", "published_text", "inputs_text"]

DASH = "—"
#: After an ns-2 value that differs from ours (:func:`aqmsim.papers.base.ns2_agrees`).
NS2_MARK = "≠"


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def num(x: Any) -> str:
    """A number with four significant digits (no exponent for ordinary magnitudes);
    NaN and None as a dash; anything else as text."""
    if x is None:
        return DASH
    if isinstance(x, bool):
        return "yes" if x else "no"
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):  # numpy scalar
        try:
            x = x.item()
        except (TypeError, ValueError):
            pass
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10000 else str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return DASH
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x == 0:
            return "0"
        a = abs(x)
        if a >= 1e4 and a < 1e15:
            return f"{x:,.0f}"
        if a >= 1e-3:
            digits = max(0, 3 - int(math.floor(math.log10(a))))
            text = f"{x:.{digits}f}"
            if "." in text:
                text = text.rstrip("0").rstrip(".")
            return text
        return f"{x:.3g}"
    return str(x)


def _ci(half: float, mean: float) -> str:
    """The CI half-width with as many decimals as the mean shows (at least two significant
    digits of the half-width itself)."""
    if not _finite(half):
        return ""
    if half == 0 or (_finite(mean) and abs(half) <= 1e-9 * abs(mean)):
        return "0"  # (floating-point dust of identical values)
    a = abs(half)
    if a >= 1e4:
        return f"{half:,.0f}"
    digits = max(0, 1 - int(math.floor(math.log10(a))))
    return f"{half:.{digits}f}"


def ours(c: Cell) -> str:
    """``mean ± half`` (the half-width of the 95 % interval), or just the mean."""
    m = num(c.mean)
    h = _ci(c.half, c.mean)
    return f"{m} ± {h}" if h and m != DASH else m


def published(c: Cell) -> str:
    return DASH if c.published is None else num(c.published)


def diff(c: Cell) -> str:
    """``+4.2 %``, or a dash when there is nothing to compare."""
    d = c.diff
    if d is None:
        if getattr(c, "input", False) and c.published is not None:
            # a published number the reproduction used, not a check: still compared
            r = c.row_diff
            return "input" if r is None else f"input, {r * 100:+.1f} %".replace("-", "−")
        if c.published is not None and c.published == 0 and _finite(c.mean):
            return "n/a (published 0)"
        return DASH
    return f"{d * 100:+.1f} %".replace("-", "−")


def inputs_text(report: Report) -> str:
    """What the published count leaves out: ``27 published numbers were inputs of derived
    readings, not counted; row by row 20 of 27 within 10 %``; "" when none were."""
    cs = [c for c in report.cells() if getattr(c, "input", False) and c.row_diff is not None]
    if not cs:
        return ""
    k = sum(1 for c in cs if abs(c.row_diff) <= 0.10)
    were = "s were inputs" if len(cs) != 1 else " was an input"
    return (f"{len(cs)} more published number{were} of derived readings, not counted; "
            f"row by row {k} of {len(cs)} within 10 %")


def published_text(report: Report) -> str:
    """``8 of 9 published numbers within 10 %``, and when published numbers were inputs of
    derived readings, how many and how they compare row by row (they are not counted);
    "no published numbers to compare" when none were compared."""
    k, n = report.published_count()
    head = f"{k} of {n} published numbers within 10 %" if n else "no published numbers to compare"
    extra = inputs_text(report)
    return f"{head} ({extra})" if extra else head


def has_ns2(report: Report) -> bool:
    """Whether some cell of the report has an ns-2 value (then its tables show the ns-2
    column)."""
    return any(getattr(c, "ns2", None) is not None for c in report.cells())


def ns2(c: Cell) -> str:
    """ns-2's ``mean ± half`` of the cell, with :data:`NS2_MARK` when it differs from ours
    (:func:`aqmsim.papers.base.ns2_agrees`); a dash when there is none."""
    v = getattr(c, "ns2", None)
    if v is None:
        return DASH
    return ours(v) + (f" {NS2_MARK}" if c.ns2_agrees is False else "")


def ns2_status(c: Cell) -> str:
    """``agree``, ``differs`` (:func:`aqmsim.papers.base.ns2_agrees`) or ``none`` (no ns-2 value, or
    one that cannot be compared)."""
    a = c.ns2_agrees
    return "none" if a is None else ("agree" if a else "differs")


def status(c: Cell) -> str:
    """``ok`` (within 10 %), ``off`` (more than 10 % off) or ``none`` (nothing to compare)."""
    w = c.within10
    return "none" if w is None else ("ok" if w else "off")


def text(x: Any) -> str:
    """A non-Cell table entry as text."""
    if isinstance(x, Cell):
        return ours(x)
    return num(x) if not isinstance(x, str) else x


def row_label(table: Table, row: List[Any]) -> str:
    """What a row is about: its non-Cell entries joined (or its number)."""
    parts = [text(x) for x in row if not isinstance(x, Cell) and x is not None and text(x)]
    return " / ".join(parts)


@dataclass
class Compared:
    table: str
    row: str
    column: str
    cell: Cell


def cells_of(report: Report, only_published: bool = True) -> Iterator[Compared]:
    """Every Cell of the report with where it stands (table, row label, column)."""
    for t in report.tables:
        for i, row in enumerate(t.rows):
            label = row_label(t, row) or f"row {i + 1}"
            for j, x in enumerate(row):
                if not isinstance(x, Cell):
                    continue
                if only_published and x.within10 is None:
                    continue
                col = t.columns[j] if j < len(t.columns) else f"column {j + 1}"
                yield Compared(t.title, label, str(col), x)


def compared(report: Report) -> List[Compared]:
    """The Cells that have a published value to compare with."""
    return list(cells_of(report, only_published=True))


def duration(seconds: Optional[float]) -> str:
    if not _finite(seconds) or seconds <= 0:
        return DASH
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def seeds_text(seeds: List[int]) -> str:
    """``1–10 (10 seeds)`` for a contiguous range, else the list."""
    s = sorted(int(x) for x in seeds)
    if not s:
        return DASH
    if len(s) == 1:
        return f"{s[0]} (1 seed)"
    if s == list(range(s[0], s[-1] + 1)):
        return f"{s[0]}–{s[-1]} ({len(s)} seeds)"
    return ", ".join(map(str, s)) + f" ({len(s)} seeds)"


def runs_text(runs: Dict[str, int]) -> str:
    """``240 runs (200 from the store, 40 run now, 1 failed)``."""
    total = int(runs.get("total", 0))
    bits = [f"{int(runs.get('stored', 0))} from the store", f"{int(runs.get('ran', 0))} run now"]
    if runs.get("stale"):
        bits.append(f"{int(runs['stale'])} of them because another build of the engine had "
                    "stored them")
    if runs.get("failed"):
        bits.append(f"{int(runs['failed'])} failed")
    return f"{total} run{'s' if total != 1 else ''} ({', '.join(bits)})"
