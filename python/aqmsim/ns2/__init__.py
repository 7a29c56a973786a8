"""ns-2 side of aqmsim: export a scenario as an ns-2.35 Tcl script, run it, compare.

* :func:`to_tcl` (``export``): scenario dict -> Tcl script for ``ns``.
* :func:`run_ns2` (``crosscheck``): write, run and parse; a dict with the same keys as
  aqmsim's summary where they mean the same thing.
* :func:`compare` (``crosscheck``): aqmsim and ns-2 over several seeds, one row per seed
  and metric, plus the mean over seeds.
* :mod:`aqmsim.ns2.trace`: read ns-2 packet traces (``$ns trace-queue``) into pandas.

This subpackage needs no compiled code: export and ns-2 runs work without the engine;
only :func:`compare` runs aqmsim itself.
"""

from .crosscheck import Ns2Error, Ns2NotFoundError, compare, ns_available, run_ns2
from .export import (
    Ns2ExportError,
    build_plan,
    parse_rate,
    parse_time,
    pin_draws,
    to_tcl,
)

__all__ = [
    "to_tcl",
    "build_plan",
    "pin_draws",
    "parse_rate",
    "parse_time",
    "run_ns2",
    "compare",
    "ns_available",
    "Ns2Error",
    "Ns2NotFoundError",
    "Ns2ExportError",
]
