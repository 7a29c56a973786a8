"""Run a paper's experiments over seeds on a local process pool and keep what the analysis
needs (summaries for every seed, time series for the first)."""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..scenario import Scenario
from .base import Experiment, Paper, RunRecord, Runs

__all__ = ["run_paper", "run_one"]

Task = Tuple[str, Dict[str, Any], int, Tuple[str, ...]]


def run_one(task: Task) -> RunRecord:
    """Run one (experiment, seed) and keep the named tables (a top-level function, so a
    process pool can call it)."""
    key, data, seed, keep = task
    t0 = time.perf_counter()
    res = Scenario.from_dict(data).run(seed=seed)
    tables = {name: getattr(res, name) for name in keep}
    return RunRecord(key, seed, dict(res.summary), tables, time.perf_counter() - t0)


def tasks_of(experiments: Sequence[Experiment], seeds: Sequence[int]) -> List[Task]:
    out: List[Task] = []
    for e in experiments:
        data = e.scenario.to_dict()
        for i, s in enumerate(seeds):
            keep = tuple(dict.fromkeys(e.keep + (e.keep_first if i == 0 else ())))
            out.append((e.key, data, s, keep))
    return out


def run_paper(paper: Paper, seeds: Sequence[int], workers: Optional[int] = None,
              progress: Optional[Callable[[int, int], None]] = None) -> Runs:
    """Run every experiment of ``paper`` for every seed; ``progress(done, total)`` is
    called as runs finish."""
    exps = paper.experiments()
    tasks = tasks_of(exps, seeds)
    workers = workers or os.cpu_count() or 1
    records: List[RunRecord] = []
    if workers <= 1:
        for i, t in enumerate(tasks):
            records.append(run_one(t))
            if progress:
                progress(i + 1, len(tasks))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futs = [pool.submit(run_one, t) for t in tasks]
            for i, f in enumerate(as_completed(futs)):
                records.append(f.result())
                if progress:
                    progress(i + 1, len(tasks))
    return Runs(exps, records)
