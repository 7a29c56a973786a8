"""The readings section of a paper page: the rule, every open choice with its candidate
readings, "N of M within 10 %" under each variant, how far each choice moves each column
of compared numbers (table and tornado figure), and every compared number under every
variant. Also the claim labels (robust / fragile / fails) and the index card's line.

The markup is in ``templates/_readings.html.j2``; this module turns a paper's
:class:`~aqmsim.papers.sensitivity` results into what the template shows."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from . import _format as F

__all__ = ["readings_view", "index_view", "label_counts", "LABEL_TEXT"]

LABEL_TEXT = {
    "robust": "holds under every reading",
    "fragile": "holds under some readings only",
    "fails": "fails under every reading",
}


def label_counts(sens: Any) -> Dict[str, int]:
    out = {"robust": 0, "fragile": 0, "fails": 0}
    for c in sens.claims:
        out[c.label] = out.get(c.label, 0) + 1
    return out


def index_view(sens: Any) -> Optional[Dict[str, Any]]:
    """The index card's facts: N of M under each variant, and the claims' labels."""
    if sens is None:
        return None
    counts = [(v, *sens.counts.get(v, (0, 0))) for v in sens.variant_names]
    return {"counts": counts, "labels": label_counts(sens)}


def _pct(x: float) -> str:
    if x is None or not math.isfinite(x):
        return F.DASH
    return f"{100 * x:+.1f} %".replace("-", "−")


def readings_view(o: Any, figure_src: Any = None) -> Optional[Dict[str, Any]]:
    """What the readings section shows (None when the paper has no open choices)."""
    sens = getattr(o, "readings", None)
    if sens is None:
        return None
    variants = []
    for v in sens.variant_names:
        c, m = sens.reports[v].claims_count()
        k, n = sens.counts.get(v, (0, 0))
        variants.append({"name": v, "description": sens.variant(v).description,
                         "seeds": len(sens.seeds.get(v, [])), "k": k, "n": n, "c": c, "m": m})
    cols: List[str] = []
    for s in sens.shifts:
        if s.column not in cols:
            cols.append(s.column)
    by = {(s.choice, s.column): s for s in sens.shifts}
    shift_rows = []
    if sens.shifts:
        for ch in sens.choices:
            cells = []
            for col in cols:
                s = by.get((ch.name, col))
                cells.append(None if s is None else {
                    "text": "; ".join(f"{r} {_pct(x)}" for r, x in s.by_reading.items()),
                    "big": max(abs(s.low), abs(s.high)) >= 0.10})
            shift_rows.append((ch.name, cells))
    figures = []
    for name in sens.figures:
        src = figure_src(name) if figure_src else name
        if src:
            figures.append(src)
    numbers = [{"table": r.table, "row": r.row, "column": r.column,
                "published": F.num(r.published),
                "cells": [None if (c := r.cells.get(v)) is None else
                          {"status": F.status(c), "diff": F.diff(c), "mean": F.num(c.mean)}
                          for v in sens.variant_names]}
               for r in sens.rows]
    return {"rule": sens.rule, "choices": sens.choices, "variants": variants,
            "shift_cols": cols if sens.shifts else [], "shift_rows": shift_rows,
            "figures": figures, "variant_names": sens.variant_names, "numbers": numbers}
