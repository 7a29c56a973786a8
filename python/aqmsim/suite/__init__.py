"""Characterisation suites: every scenario of a guideline, every discipline, the standard
graphs, in one command (``aqmsim suite rfc7928``).

A suite is a set of scenario files shipped in the package (``aqmsim/suite/<name>/``), each
citing the guideline's section it implements (:mod:`aqmsim.suite.spec`), run for each
discipline and seed into a sweep store (:mod:`aqmsim.suite.run`: resumable, local or on a
Dask cluster), and reported as HTML + Markdown with the guideline's own graphs
(:mod:`aqmsim.suite.report`). ``--ns3`` adds ns-3's points where ns-3 can run the same
scenario (:mod:`aqmsim.suite.ns3_anchor`).

Nothing heavy is imported here: the command's help stays fast.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SUITES", "Suite", "run_suite", "SuiteOutcome"]

#: The suites aqmsim ships (their names; aqmsim.suite.spec.SUITES has their titles). Kept
#: here, not imported, so that `aqmsim suite --help` loads nothing.
SUITES = ("rfc7928",)


def __getattr__(name: str) -> Any:  # PEP 562: load on first use
    if name == "Suite":
        from .spec import Suite

        return Suite
    if name in ("run_suite", "SuiteOutcome"):
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module 'aqmsim.suite' has no attribute {name!r}")
