"""Reproducing a paper: its experiments over seeds, its tables beside the published numbers,
its figures redrawn from our runs, and its claims checked on our data.

A paper module subclasses :class:`Paper`: ``experiments()`` lists the runs (each a
:class:`Experiment`: a scenario plus labels), ``analyse(runs, out)`` turns the finished runs
into a :class:`Report` (tables of :class:`Cell`, figures written under ``out``, claims
computed from the runs). The runner (:mod:`aqmsim.papers.runner`) does the running; the
report writer (:mod:`aqmsim.report`) does the HTML and Markdown.
"""

from __future__ import annotations

import contextlib
import functools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, MutableMapping, Optional, Sequence,
                    Tuple, Union)

import numpy as np
import pandas as pd

from ..scenario import Scenario

__all__ = [
    "Experiment", "RunRecord", "Runs", "FromRun", "Cell", "Table", "Figure", "Claim", "Report",
    "Paper", "t95", "mean_ci", "ns2_agrees", "welch_p", "NS2_ALPHA", "save_png_svg",
    "paper_figure",
]

#: Series a run can keep beyond its summary (names of Results tables).
SERIES = ("queue", "drops", "flows", "links")


@dataclass(frozen=True)
class Experiment:
    """One configuration of a paper, run once per seed."""

    key: str
    scenario: Scenario
    labels: Mapping[str, Any] = field(default_factory=dict)
    #: Results tables kept for every seed (the summary is always kept).
    keep: Tuple[str, ...] = ("flows",)
    #: Results tables kept for the first seed only (for time-series figures).
    keep_first: Tuple[str, ...] = ("queue", "drops", "links")


@dataclass
class RunRecord:
    """What is kept of one run."""

    key: str
    seed: int
    summary: Dict[str, Any]
    tables: MutableMapping[str, pd.DataFrame] = field(default_factory=dict)
    wall: float = 0.0


@dataclass(frozen=True)
class FromRun:
    """How a cell's number is computed from ONE run's record: ``fn(record) -> float`` reads
    ``record.summary`` and ``record.tables`` (the Results tables named in ``tables``).

    A cell built by :meth:`Runs.cell_by` keeps it as its ``source`` metric, so the same
    number can be computed from other runs of the experiment: ``aqmsim reproduce`` asks
    ns-2's runs for the ``tables`` it can give (:data:`aqmsim.ns2.column.NS2_TABLES`: a
    ``flows`` table with Results.flows' columns where ns-2 measures them) and applies
    ``fn`` to each. ``fn`` raising ``KeyError`` (a column or table the run lacks) means
    "not measured there". ``name`` says what the number is, in notes ("ns-2 does not
    measure <name>"). Make ``fn`` a module-level function or a ``functools.partial`` of
    one to keep cells picklable (they are not pickled today: cells stay in the driver)."""

    fn: Callable[[RunRecord], Any]
    tables: Tuple[str, ...] = ()
    name: str = ""

    def __call__(self, record: RunRecord) -> float:
        return float(self.fn(record))

    def describe(self) -> str:
        """What the number is (``name``, else the function's name)."""
        return self.name or getattr(self.fn, "__name__", "") or "the cell's number"


@functools.lru_cache(maxsize=None)  # asked the same few n thousands of times by a report
def t95(n: int) -> float:
    """Two-sided 95 % Student-t quantile for n samples (n − 1 degrees of freedom), NaN
    below two samples. scipy's exact quantile: a table read at its next row up (df 21 at
    df 25's 2.060 instead of 2.080) gave intervals too narrow between its rows."""
    if n < 2:
        return float("nan")
    from scipy.stats import t  # (lazily: scipy is slow to import)

    return float(t.ppf(0.975, n - 1))


def mean_ci(values: Sequence[float]) -> Tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (t distribution); NaN
    values are left out, the half-width is NaN with fewer than two values."""
    x = np.asarray(list(values), dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return float("nan"), float("nan")
    if len(x) == 1:
        return float(x[0]), float("nan")
    return float(x.mean()), float(t95(len(x)) * x.std(ddof=1) / math.sqrt(len(x)))


class Runs:
    """The finished runs of a paper, by (experiment key, seed).

    The runner (:func:`aqmsim.papers.runner.run_paper`) also sets ``failures`` (the runs
    that failed, left out of ``records``: :class:`~aqmsim.papers.runner.RunFailure`),
    ``counts`` (:class:`aqmsim.sweep.Counts`: ``skipped`` runs came from the store) and
    ``store`` (the store's directory, None for a temporary one)."""

    def __init__(self, experiments: Sequence[Experiment], records: Iterable[RunRecord]):
        self.experiments: Dict[str, Experiment] = {e.key: e for e in experiments}
        self.records: Dict[Tuple[str, int], RunRecord] = {(r.key, r.seed): r for r in records}
        self.failures: List[Any] = []
        self.counts: Any = None
        self.store: Optional[Path] = None
        #: Options of the analysis set by the readings the runs were made under
        #: (:attr:`aqmsim.papers.readings.Reading.analysis`); empty: the paper's defaults,
        #: which are its primary readings'.
        self.options: Dict[str, Any] = {}

    def seeds(self, key: str) -> List[int]:
        return sorted(s for (k, s) in self.records if k == key)

    def get(self, key: str, seed: int) -> RunRecord:
        return self.records[(key, seed)]

    def first(self, key: str) -> RunRecord:
        """The run of the lowest seed (the one whose time series are kept)."""
        return self.records[(key, self.seeds(key)[0])]

    def values(self, key: str, metric: str) -> np.ndarray:
        """A summary metric over the seeds of an experiment."""
        return np.array([float(self.records[(key, s)].summary.get(metric, float("nan")))
                         for s in self.seeds(key)])

    def cell(self, key: str, metric: str, published: Optional[float] = None,
             scale: float = 1.0) -> "Cell":
        """Mean ± 95 % CI of a summary metric over the seeds, beside ``published``; the cell
        remembers where it came from (``source``), so the same number can be read off other
        runs of the same experiment (ns-2's, for the ns-2 column)."""
        vals = self.values(key, metric) * scale
        mean, half = mean_ci(vals)
        return Cell(mean, half, published, source=(key, metric, scale), n=_count(vals))

    def values_by(self, key: str, fn: Callable[[RunRecord], Any]) -> np.ndarray:
        """``fn(record)`` for every seed of an experiment (seed order)."""
        return np.array([float(fn(self.records[(key, s)])) for s in self.seeds(key)],
                        dtype=float)

    def cell_by(self, key: str, fn: Union["FromRun", Callable[[RunRecord], Any]],
                published: Optional[float] = None, scale: float = 1.0, *,
                tables: Optional[Sequence[str]] = None, name: str = "") -> "Cell":
        """Mean ± 95 % CI over the seeds of ``fn(record)`` — a number computed from one
        run's summary and tables (e.g. a group's loss ratio from the flows table) — times
        ``scale``, beside ``published``. The cell remembers ``(key, FromRun, scale)`` as its
        ``source``, so the ns-2 column computes the same number from ns-2's runs. ``fn``
        may be a :class:`FromRun`; otherwise one is made of it with ``tables`` (default:
        the tables the experiment keeps for every seed) and ``name``."""
        if not isinstance(fn, FromRun):
            keep = self.experiments[key].keep if key in self.experiments else ()
            fn = FromRun(fn, tuple(tables) if tables is not None else tuple(keep),
                         name or getattr(fn, "__name__", ""))
        vals = self.values_by(key, fn) * scale
        mean, half = mean_ci(vals)
        return Cell(mean, half, published, source=(key, fn, scale), n=_count(vals))


@dataclass
class Cell:
    """Our mean ± 95 % interval over seeds, beside the published value."""

    mean: float
    half: float = float("nan")
    published: Optional[float] = None
    #: (experiment key, metric, scale) when the cell is the mean over seeds of a number of
    #: each run: the metric is a summary metric's name (:meth:`Runs.cell`) or a
    #: :class:`FromRun` computing it from the run's record (:meth:`Runs.cell_by`); None
    #: when the analysis computed it otherwise (no ns-2 value then).
    source: Optional[Tuple[str, Any, float]] = None
    #: A published number used as an input (to derive a quantity of the scenario, e.g. a
    #: run length from the packets sent): shown, but not counted as a check.
    input: bool = False
    #: The same number from ns-2's runs of the same experiment (mean ± 95 % half-width over
    #: its seeds; ``aqmsim reproduce`` fills it in for cells with a ``source``), or None.
    ns2: Optional["Cell"] = None
    #: Why there is no ns-2 value ("ns-2 cannot run this", …); "" when there is one.
    ns2_note: str = ""
    #: How many seeds the mean is over (the values that were numbers); None when not known
    #: (a cell built by hand). The ns-2 agreement test needs it on both sides.
    n: Optional[int] = None

    @property
    def row_diff(self) -> Optional[float]:
        """(ours − published) / |published| even for a published number that was an
        input (:attr:`input`): an input whose rows were only used through their mean is
        still compared row by row (reported apart, never counted as a check)."""
        if self.published is None or self.published == 0 or math.isnan(self.mean):
            return None
        return (self.mean - self.published) / abs(self.published)

    @property
    def ns2_agrees(self) -> Optional[bool]:
        """Whether ns-2's mean and ours agree (:func:`ns2_agrees`: exactly for numbers that
        do not vary over seeds, else Welch's t-test at :data:`NS2_ALPHA`). None without an
        ns-2 value or when a mean or half-width is not a number."""
        return ns2_agrees(self, self.ns2)

    @property
    def diff(self) -> Optional[float]:
        """Relative difference (ours − published) / |published|, or None (also for a
        published number that was an input of the reproduction)."""
        if (self.published is None or self.published == 0 or math.isnan(self.mean)
                or self.input):
            return None
        return (self.mean - self.published) / abs(self.published)

    @property
    def within10(self) -> Optional[bool]:
        d = self.diff
        return None if d is None else abs(d) <= 0.10


#: The level of the ns-2 ≠ aqmsim test: a number that varies over seeds is flagged when
#: Welch's two-sided t-test rejects "same mean" at this level, so that about this share
#: of such numbers is flagged by chance alone even when the two simulators agree.
NS2_ALPHA = 0.05


def _count(values: Any) -> int:
    x = np.asarray(values, dtype=float)
    return int(np.count_nonzero(~np.isnan(x)))


def _dust(half: float, mean: float) -> bool:
    """A half-width of zero, or floating-point dust of identical values (as shown: "± 0")."""
    return half == 0 or abs(half) <= 1e-9 * abs(mean)


def welch_p(a: "Cell", b: "Cell") -> float:
    """The two-sided p-value of Welch's t-test of "same mean" between two cells, from their
    means, 95 % half-widths and seed counts (the standard deviation back from the half-width:
    s = h·√n / t95(n)). NaN when a count is unknown or below two."""
    na, nb = getattr(a, "n", None), getattr(b, "n", None)
    if not na or not nb or na < 2 or nb < 2:
        return float("nan")
    from scipy.stats import ttest_ind_from_stats  # (lazily: scipy is slow to import)

    sa = float(a.half) * math.sqrt(na) / t95(na)
    sb = float(b.half) * math.sqrt(nb) / t95(nb)
    if sa == 0 and sb == 0:
        return 1.0 if float(a.mean) == float(b.mean) else 0.0
    return float(ttest_ind_from_stats(float(a.mean), sa, na, float(b.mean), sb, nb,
                                      equal_var=False).pvalue)


def _as_ns2_prints(ours: float, ns2: float) -> bool:
    """Whether a fraction of ours is ns-2's number as ns-2 gives some of its numbers: to 6
    significant digits (``Samples``' ``mean``, the QueueMonitor's delay samples behind the
    mean waiting time, is ``resultf("%g")``: tools/integrator.cc), up to the dust of a mean
    over seeds. Never for a whole number (ns-2 gives counts in full)."""
    if ours == round(ours):
        return False
    shown = float(f"{ours:.6g}")
    return abs(shown - ns2) <= 1e-9 * max(abs(shown), abs(ns2))


def ns2_agrees(ours: Optional["Cell"], ns2: Optional["Cell"]) -> Optional[bool]:
    """Whether ns-2's number and ours agree, or None when it cannot be told (a cell
    missing, a mean or half-width NaN: e.g. one seed).

    * A number that does not vary over seeds on either side (half-width 0, "± 0": a
      deterministic run) must be the same: |ns2 − ours| ≤ 10⁻⁹·|ours| (floating-point
      dust), or ours to the 6 significant digits ns-2 prints some numbers with (its
      ``Samples`` mean is ``%g``), else it is flagged — chance cannot explain it.
    * Otherwise, with both seed counts known (:attr:`Cell.n`), Welch's two-sided t-test at
      :data:`NS2_ALPHA`: flagged when p < 0.05, so about 5 % of the numbers of agreeing
      simulators are flagged by chance (its false-flag rate is known; the report compares
      the flags with it).
    * Cells without seed counts (built by hand): |ns2 − ours| ≤ √(h_ns2² + h_ours²)."""
    if ours is None or ns2 is None:
        return None
    vals = (ours.mean, ours.half, ns2.mean, ns2.half)
    if any(not isinstance(v, (int, float)) or math.isnan(float(v)) for v in vals):
        return None
    d = abs(float(ns2.mean) - float(ours.mean))
    if _dust(float(ours.half), float(ours.mean)) and _dust(float(ns2.half), float(ns2.mean)):
        return (d <= 1e-9 * max(abs(float(ours.mean)), abs(float(ns2.mean)))
                or _as_ns2_prints(float(ours.mean), float(ns2.mean)))
    p = welch_p(ours, ns2)
    if not math.isnan(p):
        return p >= NS2_ALPHA
    return d <= math.hypot(float(ns2.half), float(ours.half))


@dataclass
class Table:
    title: str
    columns: List[str]
    rows: List[List[Any]]  # str, numbers or Cell
    note: str = ""


def save_png_svg(fig: Any, png: Path) -> None:
    """A paper figure as ``png`` (150 dpi) and the same name with ``.svg``: the same files
    ``aqmsim run --out`` writes (:func:`aqmsim.run_output.save_figure`)."""
    from ..run_output import save_figure

    save_figure(fig, Path(png).with_suffix(""))


def paper_figure(fig: Any, png: Path, caption: str) -> "Figure":
    """A finished pyplot figure of a paper: laid out, saved (:func:`save_png_svg`), closed,
    and listed for the report under ``caption``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    save_png_svg(fig, png)
    plt.close(fig)
    return Figure(Path(png).name, caption)


@dataclass
class Figure:
    path: str  # relative to the paper's output directory
    caption: str


@dataclass
class Claim:
    text: str
    holds: bool
    evidence: str


@dataclass
class Report:
    paper: "Paper"
    tables: List[Table]
    figures: List[Figure]
    claims: List[Claim]
    assumptions: List[str]
    seeds: List[int]
    wall_seconds: float = 0.0
    #: How the runs were obtained (``aqmsim reproduce`` fills it in): ``total`` runs,
    #: ``stored`` taken from the store, ``ran`` simulated now, ``failed``.
    runs: Dict[str, int] = field(default_factory=dict)
    #: The runs that failed and were left out of the analysis
    #: (:class:`aqmsim.papers.runner.RunFailure`: key, seed, error, error_kind).
    failed_runs: List[Any] = field(default_factory=list)
    #: The store the runs are kept in ("" when none).
    store: str = ""
    #: The paper's readings, their sensitivity and the claims' labels
    #: (:class:`aqmsim.papers.sensitivity.Sensitivity`; None when it has no open choices).
    readings: Any = None
    #: The ns-2 column (:class:`aqmsim.ns2.column.Ns2Column`: which experiments ran in
    #: ns-2, over which seeds, which it cannot run; None when ns-2 was not asked for).
    ns2: Any = None

    def cells(self) -> List[Cell]:
        return [c for t in self.tables for row in t.rows for c in row if isinstance(c, Cell)]

    def published_count(self) -> Tuple[int, int]:
        """(numbers within 10 % of the published value, published numbers compared)."""
        cs = [c for c in self.cells() if c.within10 is not None]
        return sum(1 for c in cs if c.within10), len(cs)

    def claims_count(self) -> Tuple[int, int]:
        return sum(1 for c in self.claims if c.holds), len(self.claims)

    def ns2_count(self) -> Tuple[int, int]:
        """(numbers whose ns-2 value agrees with ours within the CIs, numbers with an ns-2
        value to compare)."""
        cs = [c for c in self.cells() if c.ns2_agrees is not None]
        return sum(1 for c in cs if c.ns2_agrees), len(cs)


class Paper(ABC):
    """A paper to reproduce. Subclasses set the class attributes and implement
    :meth:`experiments` and :meth:`analyse`."""

    #: Short name used on the command line (``aqmsim reproduce <name>``).
    name: str = ""
    #: Seed file number in shared/seeds (``000`` … ``004``).
    number: str = ""
    title: str = ""
    citation: str = ""
    #: Default number of seeds.
    default_seeds: int = 5
    #: Seeds of each alternative reading (``aqmsim reproduce`` runs the primary reading
    #: with ``default_seeds`` and every alternative with this many; None: the same).
    reading_seeds: Optional[int] = None
    #: Seeds of the ns-2 column (``aqmsim reproduce`` runs the primary reading's
    #: experiments in ns-2 too, over seeds 1..min(this, the primary's); None: the same).
    ns2_seeds: Optional[int] = None
    #: Whether :meth:`analyse` draws its figures (off while alternative readings are
    #: analysed: their numbers are compared, their figures not drawn).
    figures: bool = True

    @property
    def directory(self) -> Path:
        """The paper module's directory (scenario files, published numbers)."""
        import importlib

        return Path(importlib.import_module(type(self).__module__).__file__).parent

    def scenario(self, filename: str) -> Scenario:
        return Scenario.from_toml(self.directory / "scenarios" / filename)

    def published(self) -> pd.DataFrame:
        """The paper's published numbers (``published.csv`` beside the module)."""
        return pd.read_csv(self.directory / "published.csv")

    def assumptions(self) -> List[str]:
        """Every choice made where the paper is silent: the notes of its scenario files."""
        seen: List[str] = []
        for e in self.experiments():
            for k, v in (e.scenario.to_dict().get("notes") or {}).items():
                line = f"{k}: {v}"
                if line not in seen:
                    seen.append(line)
        return seen

    @contextlib.contextmanager
    def figures_off(self) -> Iterator["Paper"]:
        """``with paper.figures_off(): paper.analyse(...)``: the analysis without its
        figures (as the alternative readings are analysed), restored afterwards."""
        was = self.figures
        self.figures = False
        try:
            yield self
        finally:
            self.figures = was

    def readings(self) -> List[Any]:
        """The choices the paper leaves open, each with its candidate readings
        (:class:`aqmsim.papers.readings.Choice`); the experiments carry the primary ones.
        Default: none."""
        return []

    @abstractmethod
    def experiments(self) -> List[Experiment]:
        """The runs of the paper (each run once per seed)."""

    @abstractmethod
    def analyse(self, runs: Runs, out: Path) -> Report:
        """Tables, figures (written under ``out``) and claims from the finished runs."""
