"""Running a suite: every (scenario, variant, discipline, seed) through
:func:`aqmsim.sweep.run_tasks` into a store (resumable: a second call runs only what is
missing; local processes or a Dask cluster), then the report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..errors import ScenarioError

__all__ = ["run_suite", "SuiteOutcome", "SERIES", "DEFAULT_SEEDS", "default_out"]

#: The tables every suite run keeps: per-flow rows (goodput, FCT) and the queueing-delay
#: distribution (the CDFs).
SERIES = ("flows", "delay_cdf")
DEFAULT_SEEDS = 5


def default_out(name: str) -> Path:
    return Path("out") / "suite" / name


@dataclass
class SuiteOutcome:
    """What :func:`run_suite` did: the runs table, counts and where everything went."""

    name: str
    out: Path
    store: Path
    runs: Any                       # pandas DataFrame (aqmsim.suite.results.load)
    counts: Any                     # aqmsim.sweep.Counts
    failures: List[Any]             # aqmsim.sweep.RunOutcome of failed runs
    seconds: float                  # the runs (run_tasks), wall clock
    report_seconds: float = 0.0
    total_seconds: float = 0.0
    index: Optional[Path] = None    # the report's index.html
    ns3: Any = None                 # ns-3's points (DataFrame) with --ns3
    ns3_skipped: Dict[str, str] = field(default_factory=dict)  # why some were not anchored
    pool: str = ""
    suite: Any = None               # the Suite
    tasks: List[Any] = field(default_factory=list)   # its SuiteTasks, in order
    started: float = 0.0            # time.perf_counter() at the start


def _seeds(seeds: Union[int, Sequence[int]]) -> List[int]:
    if isinstance(seeds, bool):
        raise ScenarioError(f"--seeds: expected a number of seeds ≥ 1, got {seeds!r}")
    if isinstance(seeds, int):
        if not 1 <= seeds <= 1000:
            raise ScenarioError(f"--seeds: expected a number of seeds in [1, 1000], got {seeds}")
        return list(range(1, seeds + 1))
    out = [int(s) for s in seeds]
    if not out or len(set(out)) != len(out) or any(s < 0 for s in out):
        raise ScenarioError(f"--seeds: expected distinct seeds ≥ 0, got {seeds!r}")
    return out


def run_suite(name: str = "rfc7928", *, aqms: Optional[Sequence[str]] = None,
              seeds: Union[int, Sequence[int]] = DEFAULT_SEEDS,
              scenarios: Optional[Sequence[str]] = None,
              out: Optional[Union[str, Path]] = None, workers: Optional[int] = None,
              scheduler: Optional[str] = None, client: Any = None, ns3: bool = False,
              fresh: bool = False, report: bool = True,
              progress: Optional[Callable[[Any], None]] = None,
              on_pool: Optional[Callable[[str], None]] = None,
              timeout: Optional[float] = None, suite: Any = None) -> SuiteOutcome:
    """Run suite ``name`` for the disciplines ``aqms`` (default: all the suite names) and
    ``seeds`` (a count: 1..N, or a list) into ``out``/store, then write the report into
    ``out`` (default ``out/suite/<name>``). Runs already in the store are not run again;
    runs made by another build of the engine are (the store is the suite's cache:
    ``counts.stale`` says how many). ``fresh`` runs everything again. ``ns3`` adds ns-3's
    points for the scenarios ns-3 can run (needs libns3-dev: ``make ns3``). ``report=False``
    leaves the report to :func:`write_suite_report`. A name in ``aqms`` with a ``:`` is a
    Python plug-in (``"my_aqm:MyAqm"``, ``"path/file.py:MyAqm"``: :mod:`aqmsim.suite.plugins`).
    ``suite``: the loaded
    :class:`~aqmsim.suite.spec.Suite` named ``name``, when the caller has it already."""
    from ..sweep import DEFAULT_TIMEOUT, run_tasks
    from .results import load
    from .spec import Suite

    t0 = time.perf_counter()
    if suite is None:
        suite = Suite.load(name)
    seed_list = _seeds(seeds)
    names = list(aqms) if aqms else list(suite.disciplines)
    from .plugins import with_plugins  # "module:Class" names: Python plug-ins

    suite = with_plugins(suite, names, scenarios)
    tasks = suite.tasks(names, seed_list, scenarios)
    path = Path(out) if out is not None else default_out(name)
    store = path / "store"
    payload = [(t.key, t.data, t.seed, SERIES + t.series) for t in tasks]
    result = run_tasks(payload, store, workers=workers, scheduler=scheduler, client=client,
                       progress=progress, on_pool=on_pool, sweep_name=f"suite {name}",
                       register={"suite": name, "aqms": names, "seeds": seed_list,
                                 "scenarios": list(scenarios or [])},
                       timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
                       fresh=fresh, stale="rerun")
    runs = load(store, tasks)
    outcome = SuiteOutcome(name=name, out=path, store=store, runs=runs,
                           counts=result.counts, failures=list(result.failures),
                           seconds=result.seconds, pool=result.pool)
    if ns3:
        outcome.ns3, outcome.ns3_skipped = _ns3_points(tasks, path, workers)
    outcome.started = t0
    outcome.suite, outcome.tasks = suite, tasks
    if report:
        write_suite_report(outcome)
    else:
        outcome.total_seconds = time.perf_counter() - t0
        _write_info(outcome)
    return outcome


def write_suite_report(o: SuiteOutcome) -> Path:
    """Write the report of a :func:`run_suite` outcome (``report=False``) into its ``out``:
    index.html, summary.md, the figures and their data, and suite.json. (Figures are drawn
    by forked processes when this process runs no other thread: the command calls this
    after its progress bar is gone.)"""
    from ..store import Store
    from .report import write_report

    t1 = time.perf_counter()
    with Store(o.store, read_only=True) as st:  # one connection for every table it reads
        o.index = write_report(o.suite, o.runs, o.out, series=st.series, ns3=o.ns3,
                               wall_s=o.seconds, counts=o.counts, command=_command())
    o.report_seconds = time.perf_counter() - t1
    o.total_seconds = time.perf_counter() - o.started
    _write_info(o)
    return o.index


def _write_info(o: SuiteOutcome) -> None:
    """``OUT/suite.json``: what ran and how long it took, for scripts (``make bench``)."""
    import json

    from .. import __version__

    c, tasks = o.counts, o.tasks
    info = {"suite": o.name, "aqmsim": __version__,
            "aqms": list(dict.fromkeys(t.aqm for t in tasks)),
            "seeds": sorted({t.seed for t in tasks}),
            "scenarios": len({t.scenario for t in tasks}),
            "variants": len({(t.scenario, t.variant) for t in tasks}),
            "runs": c.total, "ok": c.ok, "failed": c.failed, "already_stored": c.skipped,
            "stale_rerun": c.stale, "runs_s": o.seconds, "report_s": o.report_seconds,
            "total_s": o.total_seconds, "pool": o.pool,
            "index": str(o.index) if o.index else None}
    o.out.mkdir(parents=True, exist_ok=True)
    (o.out / "suite.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def _ns3_points(tasks: Sequence[Any], out: Path, workers: Optional[int]) -> Tuple[Any, Dict[str, str]]:
    """ns-3's runs of every task it can run (cached under ``out``/ns3-cache) as a frame
    with the task's labels; the tasks it cannot run, by key, with the reason."""
    import pandas as pd

    from . import ns3_anchor

    todo: List[Tuple[str, Dict[str, Any]]] = []
    labels: Dict[str, Dict[str, Any]] = {}
    skipped: Dict[str, str] = {}
    seeds: Dict[str, List[int]] = {}
    for t in tasks:  # the seeds of a key share its scenario: one check per key
        if t.key in skipped:
            continue
        if t.key not in labels:
            why = ns3_anchor.reason_not_anchorable(t.data)
            if why:
                skipped[t.key] = why
                continue
            todo.append((t.key, t.data))
            labels[t.key] = {"scenario": t.scenario, "section": t.section,
                             "variant": t.variant, "aqm": t.aqm}
        seeds.setdefault(t.key, []).append(t.seed)
    if not todo:
        return pd.DataFrame(), skipped
    all_seeds = sorted({s for v in seeds.values() for s in v})
    got = ns3_anchor.points(todo, all_seeds, out / "ns3-cache", workers=workers or 2)
    lab = pd.DataFrame([{"key": k, **v} for k, v in labels.items()])
    return got.merge(lab, on="key", how="left"), skipped


def _command() -> str:
    from ..sweep.outcome import command_line

    return command_line()
