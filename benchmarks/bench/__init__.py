"""The speed benchmark: aqmsim beside ns-2 (and ns-3) on the same scenarios.

``make bench`` runs ``python -m bench`` with ``benchmarks/`` on ``PYTHONPATH`` (options:
``make bench BENCH_ARGS="--quick"``); ``docs/performance.md`` explains the method and holds
the latest numbers (``--write-docs`` rewrites them). This package is not part of the
installed ``aqmsim``: it is a tool of the repository.

For each scenario file in ``benchmarks/scenarios/`` it runs

* **aqmsim**: the engine on the scenario (a child Python process that loads only the
  compiled extension and calls its ``run``: interpreter start-up is counted, pandas is
  not);
* **ns-2**: ``ns`` on the Tcl script aqmsim writes from the same file
  (:mod:`aqmsim.ns2.export`; a dumbbell is routed by hand, as ns-2's own many-flow
  examples do), with neither a packet trace nor queue samples: only the QueueMonitor
  summary at the end, read back with the cross-check's parser. Each run's set-up and
  simulation are timed apart (:class:`bench.sims.Ns2`);
* **ns-3** (when ``libns3-dev`` is installed): ``benchmarks/ns3/dumbbell.cc``, built once
  by ``benchmarks/ns3/build.sh`` under ``target/``, with the scenario's numbers as
  arguments. ns-3 is slow on the large scenarios, so it gets a time budget per scenario
  (fewer runs; the table says how many) and a time limit per run.

Each run is its own child process: the wall time runs from spawning it to reaping it and
the peak memory is that process's own maximum resident set (reported by GNU time, see
:func:`bench.child.run_child`). Every simulator runs ``--reps`` times per scenario (the
median is reported), the simulators taking turns in an order that reverses each round, so
that drift of the (shared) machine hits all of them. All runs of a scenario use the same
seed: they do the same work, and the bench checks that they report the same packet counts.

"Bottleneck packets" are packets that left the bottleneck queue for the wire (departures);
"packets per wall second" divides them by the median wall time; "speed vs ns-2" is the
ratio of packets per wall second, so a slightly different packet count does not bias it.

Also measured: what a user waits for (:mod:`bench.usercost`: ``import aqmsim``, ``aqmsim
--help``, ``aqmsim run`` of the 100-flow scenario as a whole process with its peak memory,
beside ns-2's whole process, and ``aqmsim run examples/dumbbell-red.toml --out DIR``);
aqmsim's peak memory at the 100-flow scenario's duration and at ten times it (memory should
not grow with simulated time); and, when :mod:`aqmsim.sweep` provides
``bench_throughput``, sweep runs per second for 1, 2 and all CPUs.

``--quick`` (for development) runs 10 simulated seconds instead of 60, three rounds, and
gives ns-3 a small budget.

Modules: :mod:`~bench.config` (settings, paths), :mod:`~bench.machine`,
:mod:`~bench.child` (timed child processes), :mod:`~bench.sims` (aqmsim, ns-2),
:mod:`~bench.ns3`, :mod:`~bench.usercost`, :mod:`~bench.measure` (the rounds),
:mod:`~bench.report` (Markdown), :mod:`~bench.cli`.
"""

from .cli import main
from .config import DEFAULT_SCENARIOS, BenchConfig
from .machine import machine_info
from .measure import run_bench
from .report import render, write_docs

__all__ = ["main", "run_bench", "render", "write_docs", "machine_info", "DEFAULT_SCENARIOS", "BenchConfig"]
