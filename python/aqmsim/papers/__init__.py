"""The papers aqmsim reproduces, by command-line name."""

from __future__ import annotations

import importlib
from typing import Dict, List

from .base import Cell, Claim, Experiment, Figure, Paper, Report, Runs, Table

__all__ = ["PAPERS", "get", "names", "Paper", "Experiment", "Runs", "Report", "Table", "Cell",
           "Figure", "Claim"]

#: command-line name -> module (each module defines ``PAPER``, a Paper instance).
PAPERS: Dict[str, str] = {
    "rtred": "aqmsim.papers.rtred",
    "qrtred": "aqmsim.papers.qrtred",
    "pktsize": "aqmsim.papers.pktsize",
    "gentle": "aqmsim.papers.gentle",
    "markfront": "aqmsim.papers.markfront",
    "l4s": "aqmsim.papers.l4s",
}


def names() -> List[str]:
    return list(PAPERS)


def get(name: str) -> Paper:
    """The paper called ``name`` (ValueError naming the choices otherwise)."""
    if name not in PAPERS:
        raise ValueError(f"unknown paper {name!r} (expected one of: {', '.join(PAPERS)}, all)")
    return importlib.import_module(PAPERS[name]).PAPER
