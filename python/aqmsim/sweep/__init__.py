"""Parameter sweeps: a grid of scenarios × seeds, run on a local process pool or on a Dask
distributed cluster, every finished run written at once to a store (:mod:`aqmsim.store`).

A sweep file (TOML)::

    name = "red-max-p"                  # default: the file's stem
    base = "dumbbell-red.toml"          # scenario file, relative to this file (or a [base] table)
    seeds = 5                           # seeds 1..5, or a list: [1, 7, 9]
    metrics = ["utilisation", "time_avg_queue_pkts"]   # summary keys kept (default: all)
    series = ["queue"]                  # Results tables kept per run, as Parquet (default: none)
    # store = "out/sweeps/red"          # store directory, relative to this file
    # timeout = 600                     # a run's wall-clock limit, s (default 600): past
    #                                   # it the run is stopped and recorded failed

    [set]                               # fixed overrides for every run (dotted keys)
    duration = 10
    "dumbbell.groups.0.stop" = 10

    [[vary]]                            # a group of parameters; groups are crossed
    mode = "cross"                      # cartesian product of the group's lists (default)
    "dumbbell.bottleneck.queue.max_p" = [0.02, 0.05, 0.1]
    "dumbbell.bottleneck.queue.w_q" = { start = 0.001, stop = 0.004, step = 0.001 }

    [[vary]]
    mode = "zip"                        # element-wise: equal lengths, taken together
    "dumbbell.bottleneck.queue.min_th" = [5, 10]
    "dumbbell.bottleneck.queue.max_th" = [15, 30]

Values: a list, a range ``{ start, stop, step }`` (stop included when it falls on the
grid, computed in decimal so 0.1 steps give 0.3, not 0.30000000000000004) or a linspace
``{ start, stop, num }`` (``log = true`` for a geometric one).

Each run is ``(scenario, seed)``; its key in the store is ``(scenario hash, seed)``
(:func:`aqmsim.store.scenario_hash`), so running a sweep again runs only what is missing,
and two sweeps that share runs share them. Each simulation is single-threaded and
deterministic: a run gives the same result on any worker.

From Python::

    from aqmsim.sweep import Sweep, run_sweep
    result = run_sweep(Sweep.from_toml("examples/sweeps/red.toml"), workers=2)
    df = aqmsim.store.open(result.store, sweep=result.name)

Other runners (the paper reproductions) can hand over their own tasks — tuples
``(key, scenario dict, seed[, series names])`` — to :func:`run_tasks`, which runs what the
store lacks and retries each failure once.

Every run's row records where it came from (aqmsim's version, the engine's build, the host,
the command line); a run stored by another build of the engine is not reused: the sweep
refuses, naming ``--fresh`` (``fresh=True``), which runs everything again.

The package: :mod:`~aqmsim.sweep.spec` (sweep files, values, seeds, labels),
:mod:`~aqmsim.sweep.worker` (one run, :func:`execute`) and
:mod:`~aqmsim.sweep.outcome` (what a worker answers), the pools
(:mod:`~aqmsim.sweep.local`: :class:`LocalPool`, and why it is not a standard executor;
:mod:`~aqmsim.sweep.cluster`: :class:`DaskPool`, :class:`SharedPool`), the driver
(:mod:`~aqmsim.sweep.tasks`, :mod:`~aqmsim.sweep.driver`: :func:`run_tasks`,
:func:`run_sweep`), :mod:`~aqmsim.sweep.cli` (``aqmsim sweep``) and
:mod:`~aqmsim.sweep.throughput` (the benchmark), :mod:`~aqmsim.sweep.labels` (names of
table values), :mod:`~aqmsim.sweep.terminate` (SIGTERM as an interruption).
"""

from .cli import cli_sweep
from .cluster import (CONNECT_TIMEOUT, DaskPool, SchedulerAddressError, SharedPool,
                      check_scheduler_address)
from .driver import StaleRunsError, run_sweep, run_tasks
from .local import LocalPool
from .spec import DEFAULT_TIMEOUT, SERIES, Group, Sweep, Task, expand_values, short_labels
from .tasks import Counts, RunOutcome, SweepResult
from .terminate import Terminated
from .throughput import BENCH_BASE, bench_throughput
from .worker import execute

__all__ = [
    "Sweep", "Group", "Task", "RunOutcome", "SweepResult", "Counts", "LocalPool", "DaskPool",
    "SharedPool", "SchedulerAddressError", "check_scheduler_address", "DEFAULT_TIMEOUT",
    "CONNECT_TIMEOUT", "StaleRunsError", "cli_sweep", "short_labels", "BENCH_BASE",
    "run_sweep", "run_tasks", "execute", "expand_values", "bench_throughput", "SERIES",
    "Terminated",
]
