"""Run a paper's experiments over seeds through the sweep machinery (:func:`aqmsim.sweep.
run_tasks`) and hand the analysis what it keeps: the summary of every run, and the tables
each experiment asks for (``keep`` for every seed, ``keep_first`` for the first).

Every run goes to a store (:mod:`aqmsim.store`: DuckDB rows and Parquet tables) keyed by
(scenario hash, seed), so a paper run again with the same seeds takes its runs from the
store, a reproduction that was killed resumes with the runs it lacks, and the runs go to
the local process pool or to a Dask cluster like those of any sweep. What the analysis
receives is read back from the store, the first time as the next: the same numbers and
the same tables (same columns, dtypes and values) as the run's own
:class:`~aqmsim.results.Results` would give.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import time
import weakref
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from ..scenario import Scenario
from .base import Experiment, Paper, RunRecord, Runs

__all__ = ["run_paper", "run_groups", "run_one", "tasks_of", "StoredTables", "RunFailure", "read_table"]

Task = Tuple[str, Dict[str, Any], int, Tuple[str, ...]]
PathLike = Union[str, Path]


def run_one(task: Task) -> RunRecord:
    """Run one (experiment, seed) in this process and keep the named tables, without a
    store (the paper tests use it to build :class:`Runs` by hand)."""
    key, data, seed, keep = task
    t0 = time.perf_counter()
    res = Scenario.from_dict(data).run(seed=seed)
    tables = {name: getattr(res, name) for name in keep}
    return RunRecord(key, seed, dict(res.summary), tables, time.perf_counter() - t0)


def tasks_of(experiments: Sequence[Experiment], seeds: Sequence[int]) -> List[Task]:
    """``(key, scenario dict, seed, tables kept)`` for every experiment and seed."""
    out: List[Task] = []
    for e in experiments:
        data = e.scenario.to_dict()
        for i, s in enumerate(seeds):
            keep = tuple(dict.fromkeys(e.keep + (e.keep_first if i == 0 else ())))
            out.append((e.key, data, s, keep))
    return out


# --------------------------------------------------------------------------- stored runs
def read_table(name: str, path: PathLike) -> pd.DataFrame:
    """A Results table kept as Parquet, with the columns, dtypes and values
    :class:`~aqmsim.results.Results` gives it (:func:`aqmsim.results.read_parquet`)."""
    from ..results import read_parquet

    return read_parquet(name, path)


class StoredTables(MutableMapping):
    """The tables kept of one run, read from the store's Parquet files when first used
    (markfront keeps a flows table for each of its 5400 runs and reads a tenth of them).
    A table set by hand replaces the stored one. ``hold`` keeps a temporary store alive."""

    def __init__(self, files: Dict[str, Path], hold: Any = None) -> None:
        self._files = dict(files)
        self._frames: Dict[str, pd.DataFrame] = {}
        self._hold = hold

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            if name not in self._files:
                raise KeyError(name)
            self._frames[name] = read_table(name, self._files[name])
        return self._frames[name]

    def __setitem__(self, name: str, value: pd.DataFrame) -> None:
        self._frames[name] = value
        self._files.setdefault(name, Path())

    def __delitem__(self, name: str) -> None:
        del self._files[name]
        self._frames.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __repr__(self) -> str:
        return f"StoredTables({', '.join(self._files)})"

    def __deepcopy__(self, memo: Dict[int, Any]) -> "StoredTables":
        import copy

        new = StoredTables(self._files, self._hold)  # the files are shared, never written
        new._frames = copy.deepcopy(self._frames, memo)
        return new

    def __getstate__(self) -> Dict[str, Any]:  # pickled: with every table, no store
        return {"files": dict(self._files), "frames": {k: self[k] for k in self._files}}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._files, self._frames, self._hold = state["files"], state["frames"], None


@dataclass
class RunFailure:
    """A run of a paper that failed (after its retry): which, and why."""

    key: str
    seed: int
    error: str
    error_kind: str


class _TemporaryStore:
    """A temporary directory removed when nothing refers to it any more (the stored tables
    of the runs read from it hold a reference)."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="aqmsim-paper-"))
        weakref.finalize(self, shutil.rmtree, str(self.path), ignore_errors=True)


def _store_dir(store: Optional[PathLike]) -> Tuple[Path, Any]:
    if store is not None:
        return Path(store), None
    tmp = _TemporaryStore()
    return tmp.path / "store", tmp


def run_paper(paper: Paper, seeds: Sequence[int], workers: Optional[int] = None,
              progress: Optional[Callable[[int, int], None]] = None, *,
              store: Optional[PathLike] = None, scheduler: Optional[str] = None,
              client: Any = None, pool: Any = None, fresh: bool = False,
              retries: int = 1, on_pool: Optional[Callable[[str], None]] = None) -> Runs:
    """Run every experiment of ``paper`` for every seed; return the finished runs.

    Runs go through :func:`aqmsim.sweep.run_tasks` into ``store`` (a directory; default: a
    temporary one, removed once the runs are no longer used): only runs the store lacks
    are simulated, on ``pool`` (an open pool, left open), else a local pool of ``workers``
    processes (default: one per CPU), else the Dask cluster at ``scheduler`` (or
    ``client``). ``fresh`` deletes the store first. A run that fails (after ``retries``)
    is left out of the runs and listed in ``runs.failures``; ``runs.counts`` says how many
    were taken from the store (``skipped``). ``progress(done, total)`` is called as runs
    finish."""
    got = run_groups(paper, {"": (paper.experiments(), list(seeds))}, workers, progress,
                     store=store, scheduler=scheduler, client=client, pool=pool,
                     fresh=fresh, retries=retries, on_pool=on_pool)
    return got[""]


def run_groups(paper: Paper, groups: Mapping[str, Tuple[Sequence[Experiment], Sequence[int]]],
               workers: Optional[int] = None,
               progress: Optional[Callable[[int, int], None]] = None, *,
               store: Optional[PathLike] = None, scheduler: Optional[str] = None,
               client: Any = None, pool: Any = None, fresh: bool = False,
               retries: int = 1, on_pool: Optional[Callable[[str], None]] = None,
               run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None,
               engine: Optional[str] = None) -> Dict[str, Runs]:
    """Run several groups of experiments (a paper under several readings) in one sweep:
    ``groups`` maps a group name to (experiments, seeds); the result maps it to its
    :class:`Runs`, keyed by the experiments' own keys. Runs that two groups share (the
    same scenario and seed) are simulated once. The options are :func:`run_paper`'s;
    every group's Runs carries the counts of the whole sweep. ``engine="ns2"`` runs them
    in ns-2 (:func:`aqmsim.sweep.run_tasks`; give it a store of its own)."""
    from ..store import Store
    from ..sweep import run_tasks

    tasks: List[Task] = []
    owner: List[Tuple[str, str]] = []
    for g, (exps, seeds) in groups.items():
        for t in tasks_of(exps, seeds):
            tasks.append((f"{g}|{t[0]}" if g else t[0],) + tuple(t[1:]))  # type: ignore
            owner.append((g, t[0]))
    path, hold = _store_dir(store)
    if fresh and path.exists():
        shutil.rmtree(path)

    def tick(c: Any) -> None:
        if progress:
            progress(c.done, c.total)

    with Store(path) as st:
        st.clean_temporary()
        result = run_tasks(tasks, st, workers=workers, scheduler=scheduler, client=client,
                           pool=pool, retries=retries, progress=tick, run_fn=run_fn,
                           sweep_name=str(paper.name), on_pool=on_pool, engine=engine,
                           stale="rerun",  # the paper's store is aqmsim's cache: said in
                           # the report ("N of them because another build ... stored them")
                           register={"paper": str(paper.name),
                                     "groups": {g: list(s) for g, (_, s) in groups.items()}})
        stored = _stored_runs(st, {(o.hash, o.seed) for o in result.outcomes
                                   if o.status == "ok"})
    records: Dict[str, List[RunRecord]] = {g: [] for g in groups}
    failures: Dict[str, List[RunFailure]] = {g: [] for g in groups}
    for task, o, (g, key) in zip(tasks, result.outcomes, owner):
        _, _, seed, keep = task
        if o.status != "ok":
            failures[g].append(RunFailure(key, seed, str(o.error or "failed"),
                                          str(o.error_kind or "error")))
            continue
        summary, files, wall = stored[(o.hash, o.seed)]
        tables = StoredTables({name: path / files[name] for name in keep}, hold)
        records[g].append(RunRecord(key, seed, dict(summary), tables, wall))
    out: Dict[str, Runs] = {}
    for g, (exps, _) in groups.items():
        runs = Runs(exps, records[g])
        runs.failures = failures[g]
        runs.counts = result.counts
        runs.store = None if hold is not None else path
        out[g] = runs
    return out


def _stored_runs(st: Any, keys: set) -> Dict[Tuple[str, int], Tuple[Dict[str, Any],
                                                                   Dict[str, str], float]]:
    """``{(hash, seed): (summary, series files, wall s)}`` of the ok runs ``keys``. A summary
    value stored as JSON null that is a number in its metric column (NaN, ±inf: JSON has
    none) gets that number back; any other null becomes NaN."""
    metric_cols = [c for c in st.metric_columns]
    cols = ", ".join(['hash', 'seed', 'summary', 'series', 'wall_s']
                     + ['"' + c.replace('"', '""') + '"' for c in metric_cols])
    out: Dict[Tuple[str, int], Tuple[Dict[str, Any], Dict[str, str], float]] = {}
    for row in st.con.execute(f"SELECT {cols} FROM runs WHERE status = 'ok'").fetchall():
        h, seed = row[0], int(row[1])
        if (h, seed) not in keys:
            continue
        summary = json.loads(row[2]) if row[2] else {}
        if any(v is None for v in summary.values()):
            metric = dict(zip(metric_cols, row[5:]))
            for k, v in summary.items():
                if v is None:
                    m = metric.get(k)
                    summary[k] = float(m) if m is not None else math.nan
        out[(h, seed)] = (summary, json.loads(row[3]) if row[3] else {},
                          float(row[4]) if row[4] is not None else 0.0)
    return out
