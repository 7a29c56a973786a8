"""The ns-2 column of ``aqmsim reproduce``: the primary reading's experiments run in ns-2
too, beside ours, so that a table reads *published | ns-2 | aqmsim*.

* :func:`exportable` splits experiments into those the exporter can write as an ns-2
  script and those it refuses (:class:`~aqmsim.ns2.export.Ns2ExportError`: RTRED, QRTRED,
  the RED variants ns-2 lacks, mark-front ECN…), with the exporter's reason.
* :func:`execute_ns2` is one ns-2 run in a sweep worker (:func:`aqmsim.sweep.execute`
  hands it tasks whose payload has ``"engine": "ns2"``): the scenario exported, run by
  ``ns`` in a temporary directory (removed after parsing), its results as a summary under
  aqmsim's metric names (:func:`~aqmsim.ns2.crosscheck.ns2_summary`) and, when the task
  asks for the series ``flows`` (:data:`NS2_TABLES`), a flows table as Parquet
  (:func:`~aqmsim.ns2.crosscheck.ns2_flows_arrow`: Results.flows' columns and dtypes
  where ns-2 measures them, the per-flow bottleneck counts from a flow monitor added to
  the script for it).
* :func:`run_column` runs them through the same machinery as our runs
  (:func:`aqmsim.papers.runner.run_groups`: same pool, same seeds, a store of their own —
  ``<paper store>/ns2`` — so they are taken from there next time, and a failed ns-2 run
  is listed, never fatal), keeping the tables the cells' sources read.
* :func:`fill` gives every :class:`~aqmsim.papers.base.Cell` that remembers its source
  (experiment key, metric, scale) the same number over ns-2's runs (``cell.ns2``: mean ±
  95 % half-width): the metric is a summary metric's name (:meth:`Runs.cell
  <aqmsim.papers.base.Runs.cell>`) or a :class:`~aqmsim.papers.base.FromRun`, a function
  of one run's record (summary and tables, :meth:`Runs.cell_by
  <aqmsim.papers.base.Runs.cell_by>`), applied to each ns-2 run as to ours. A cell of an
  experiment ns-2 cannot run gets ``cell.ns2_note = "ns-2 cannot run this"``; one whose
  number ns-2's runs lack (a summary metric or a flows column ns-2 has no counter for, a
  table it does not give) "ns-2 does not measure <what>".
* :func:`agreement_text` is the one-line summary on the console, the page and the index.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

__all__ = ["Ns2Column", "exportable", "execute_ns2", "run_column", "fill", "ns2_store",
           "agreement_text", "tables_wanted", "measures_wanted", "CANNOT", "MISSING_LINE",
           "NS2_TABLES"]

from .worker import NS2_TABLES, execute_ns2  # noqa: E402 - one ns-2 run: its own module

#: The note of a cell whose experiment the exporter refuses.
CANNOT = "ns-2 cannot run this"

#: What ``aqmsim reproduce`` prints (once) when ``ns`` is not there.
MISSING_LINE = ("ns-2 (`ns`) was not found on PATH (nor AQMSIM_NS): the reports have no "
                "ns-2 column; install ns-2.35 (`make ns2`) or pass --no-ns2")


@dataclass
class Ns2Column:
    """What was done for the ns-2 column of one paper."""

    #: ``ran`` (the column is there), ``missing`` (no ``ns``), ``error`` (the ns-2 stage
    #: failed as a whole: ``note`` says why; the paper is reported without the column).
    status: str
    seeds: List[int] = field(default_factory=list)
    #: Keys of the experiments run in ns-2.
    experiments: List[str] = field(default_factory=list)
    #: Keys of the experiments ns-2 cannot run, with the exporter's reason.
    cannot: Dict[str, str] = field(default_factory=dict)
    #: ns-2 runs that failed (:class:`aqmsim.papers.runner.RunFailure`), left out.
    failed: List[Any] = field(default_factory=list)
    #: ``total``, ``stored``, ``ran``, ``failed`` ns-2 runs (as ``Report.runs``).
    runs: Dict[str, int] = field(default_factory=dict)
    store: str = ""
    note: str = ""
    wall_seconds: float = 0.0

    def cannot_groups(self) -> List[Tuple[str, List[str]]]:
        """(reason, experiment keys) for the experiments ns-2 cannot run, one per reason."""
        by: Dict[str, List[str]] = {}
        for k, why in self.cannot.items():
            by.setdefault(why, []).append(k)
        return list(by.items())


def ns2_store(paper_store: Path) -> Path:
    """Where the ns-2 runs of a paper are kept: ``<paper store>/ns2`` (a store of its own:
    a run is keyed by scenario and seed, which ns-2's run shares with ours)."""
    return Path(paper_store) / "ns2"


def exportable(experiments: Sequence[Any]) -> Tuple[List[Any], Dict[str, str]]:
    """(the experiments ns-2 can run, {key: why not} for the others)."""
    from .export import Ns2ExportError, build_plan

    ok: List[Any] = []
    cannot: Dict[str, str] = {}
    for e in experiments:
        try:
            build_plan(e.scenario.to_dict(), 1)
        except Ns2ExportError as exc:
            cannot[e.key] = str(exc)
            continue
        ok.append(e)
    return ok, cannot


def tables_wanted(cells: Sequence[Any]) -> Dict[str, Tuple[str, ...]]:
    """{experiment key: the tables ns-2's runs of it must keep} for the cells' sources:
    the :data:`NS2_TABLES` their :class:`~aqmsim.papers.base.FromRun` metrics read (a
    summary metric needs none)."""
    out: Dict[str, Dict[str, None]] = {}
    for c in cells:
        src = getattr(c, "source", None)
        if not src:
            continue
        got = out.setdefault(src[0], {})
        for t in getattr(src[1], "tables", ()) or ():
            if t in NS2_TABLES:
                got[t] = None
    return {k: tuple(v) for k, v in out.items()}


def measures_wanted(cells: Sequence[Any]) -> Dict[str, Tuple[str, ...]]:
    """{experiment key: the summary metrics ns-2 gives only on request
    (:data:`aqmsim.ns2.export.NS2_ON_REQUEST`: ``max_queue_pkts``) that the cells'
    sources name}; experiments without such a cell are left out."""
    from .export import NS2_ON_REQUEST

    out: Dict[str, Dict[str, None]] = {}
    for c in cells:
        src = getattr(c, "source", None)
        if src and isinstance(src[1], str) and src[1] in NS2_ON_REQUEST:
            out.setdefault(src[0], {})[src[1]] = None
    return {k: tuple(v) for k, v in out.items()}


def _asking(scenario: Any, measure: Sequence[str]) -> Any:
    """``scenario`` with ``ns2.measure`` set to ``measure`` (for the ns-2 run only: the
    exporter's request table, :data:`aqmsim.ns2.export.NS2_ON_REQUEST`)."""
    if not measure:
        return scenario
    from ..scenario import Scenario

    data = scenario.to_dict()
    data["ns2"] = {"measure": list(measure)}
    return Scenario.from_dict(data)


def run_column(paper: Any, experiments: Sequence[Any], seeds: Sequence[int],
               paper_store: Path, workers: Optional[int] = None,
               progress: Optional[Callable[[int, int], None]] = None, *,
               scheduler: Optional[str] = None, pool: Any = None,
               tables: Optional[Mapping[str, Sequence[str]]] = None,
               measure: Optional[Mapping[str, Sequence[str]]] = None
               ) -> Tuple[Ns2Column, Any]:
    """Run the ``experiments`` ns-2 can run over ``seeds`` in ns-2 (on ``pool``, into
    :func:`ns2_store` ``(paper_store)``), each run keeping the tables ``tables[key]``
    names among :data:`NS2_TABLES` (:func:`tables_wanted`; a stored run without them is
    run again) and measuring the on-request metrics ``measure[key]``
    (:func:`measures_wanted`: ``max_queue_pkts``, from a queue trace; the request is part
    of the scenario handed to ns-2, ``ns2.measure``, so such runs are stored apart);
    return the column's facts and the ns-2 :class:`~aqmsim.papers.base.Runs` (None when
    nothing could run)."""
    from ..papers.base import Experiment
    from ..papers.runner import run_groups

    t0 = time.perf_counter()
    ok, cannot = exportable(experiments)
    col = Ns2Column("ran", seeds=list(seeds), experiments=[e.key for e in ok], cannot=cannot)
    if not ok:
        col.wall_seconds = time.perf_counter() - t0
        return col, None
    where = ns2_store(paper_store)
    tables = tables or {}
    measure = measure or {}
    bare = [Experiment(e.key, _asking(e.scenario, measure.get(e.key, ())), e.labels,
                       tuple(t for t in tables.get(e.key, ()) if t in NS2_TABLES), ())
            for e in ok]
    got = run_groups(paper, {"": (bare, list(seeds))}, workers, progress, store=where,
                     scheduler=scheduler, pool=pool, engine="ns2")
    runs = got[""]
    c = runs.counts
    col.runs = {"total": c.total, "stored": c.skipped, "ran": c.total - c.skipped,
                "failed": c.failed}
    col.failed = list(runs.failures)
    col.store = str(where)
    col.wall_seconds = time.perf_counter() - t0
    return col, runs


def _values(runs: Any, key: str, metric: Any) -> List[float]:
    """The metric over ns-2's runs of ``key``: a summary metric's name, a
    :class:`~aqmsim.papers.base.FromRun` (a function of the run's record) or a function
    of the summary; a run that lacks it (a missing key, column or table) gives none."""
    from ..papers.base import FromRun

    out: List[float] = []
    for s in runs.seeds(key):
        rec = runs.get(key, s)
        try:
            if isinstance(metric, FromRun):
                v = metric(rec)
            else:
                v = metric(rec.summary) if callable(metric) else rec.summary.get(metric)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError,
                ZeroDivisionError):
            v = None
        if v is None or isinstance(v, bool) or not isinstance(v, (int, float, np.number)):
            continue
        out.append(float(v))
    return out


def fill(report: Any, col: Ns2Column, runs: Any) -> int:
    """Give every cell of ``report`` with a ``source`` its ns-2 value (or the reason it
    has none); the number of cells given a value. ``source`` is (experiment key, metric,
    scale): the metric a summary metric's name, a :class:`~aqmsim.papers.base.FromRun`
    (computed from each ns-2 run's record as from ours) or a function of a run's
    summary."""
    from ..papers.base import Cell, FromRun, mean_ci

    n = 0
    for cell in report.cells():
        src = getattr(cell, "source", None)
        if not src:
            continue
        key, metric = src[0], src[1]
        scale = float(src[2]) if len(src) > 2 and src[2] is not None else 1.0
        if key in col.cannot:
            cell.ns2, cell.ns2_note = None, CANNOT
            continue
        if runs is None or key not in runs.experiments:
            continue
        if not runs.seeds(key):
            cell.ns2, cell.ns2_note = None, "every ns-2 run of this experiment failed"
            continue
        vals = _values(runs, key, metric)
        if not vals:
            name = (metric.describe() if isinstance(metric, FromRun)
                    else getattr(metric, "__name__", str(metric)))
            cell.ns2, cell.ns2_note = None, f"ns-2 does not measure {name}"
            continue
        mean, half = mean_ci(np.asarray(vals) * scale)
        cell.ns2, cell.ns2_note = Cell(mean, half, n=len(vals)), ""
        n += 1
    return n


def _keys_text(keys: Sequence[str], limit: int = 6) -> str:
    keys = list(keys)
    more = f", … ({len(keys)} in all)" if len(keys) > limit else ""
    return ", ".join(keys[:limit]) + more


def agreement_text(report: Any) -> str:
    """``ns-2 column: K of L numbers agree with aqmsim (…) · ns-2 seeds 1–10
    (10 seeds) · ns-2 cannot run 3 of 12 experiments (…)`` — or why there is no column;
    "" when ns-2 was not asked for."""
    from ..report import _format as F

    col = getattr(report, "ns2", None)
    if col is None:
        return ""
    if col.status == "missing":
        return "no ns-2 column: ns-2 (`ns`) was not found"
    if col.status == "error":
        return f"no ns-2 column: the ns-2 runs failed ({col.note})"
    k, n = report.ns2_count()
    with_value = sum(1 for c in report.cells() if getattr(c, "ns2", None) is not None)
    seeds = f"ns-2 seeds {F.seeds_text(col.seeds)}"
    if n:
        bits = [f"ns-2 column: {k} of {n} numbers agree with aqmsim (exactly where they do "
                "not vary over seeds, else Welch's t-test at 5 %)", seeds]
    elif with_value:
        bits = [f"ns-2 column: {with_value} numbers from ns-2, none comparable within CIs",
                seeds]
    elif col.cannot and not col.experiments:
        bits = ["no ns-2 column: ns-2 cannot run any experiment behind the tables' numbers"]
    elif col.experiments:
        bits = ["no ns-2 column: no number of the tables is one ns-2 measures"]
    else:
        bits = ["no ns-2 column: no number of the tables is computed from each run "
                "(Cell.source), which is what ns-2 can give"]
    if col.cannot and col.experiments:
        bits.append(f"ns-2 cannot run {len(col.cannot)} of the "
                    f"{len(col.cannot) + len(col.experiments)} experiments behind them "
                    f"({_keys_text(list(col.cannot))})")
    if col.failed:
        bits.append(f"{len(col.failed)} ns-2 run{'s' if len(col.failed) != 1 else ''} failed")
    return " · ".join(bits)
