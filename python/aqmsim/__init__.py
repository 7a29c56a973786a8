"""aqmsim — a packet-level simulator for active queue management under TCP.

A Rust engine (``aqmsim._core``) does the simulation; this package loads scenarios,
turns results into pandas tables, plots them and offers the ``aqmsim`` command line.

>>> import aqmsim
>>> sc = aqmsim.Scenario.from_toml("examples/dumbbell-red.toml")   # doctest: +SKIP
>>> res = sc.run(seed=1)                                            # doctest: +SKIP
>>> res.summary["time_avg_queue_pkts"], res.queue.head()            # doctest: +SKIP
>>> res.plot_queue()                                                # doctest: +SKIP

Importing aqmsim loads neither pandas, numpy, matplotlib, duckdb nor dask: each is
imported by the function that needs it (a results table, a figure, a sweep), so the
command line starts fast (tests/test_startup.py keeps it so).
"""

from typing import Any

from .errors import CORE_IMPORT_ERROR, ScenarioError, SimulationError

if CORE_IMPORT_ERROR is None:
    from ._core import run as run_json
    from ._core import validate as validate_json
else:  # pragma: no cover - a source checkout without `make build`

    def run_json(scenario_json, seed=None):  # type: ignore[no-redef]
        raise ImportError("aqmsim._core is not built: run `make build`") from CORE_IMPORT_ERROR

    def validate_json(scenario_json):  # type: ignore[no-redef]
        raise ImportError("aqmsim._core is not built: run `make build`") from CORE_IMPORT_ERROR


from .results import Results
from .scenario import Scenario


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "0+unknown"
    try:
        return version("aqmsim")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> Any:
    # PEP 562: __version__ on first use, as importlib.metadata alone costs ~15 ms
    if name == "__version__":
        value = _version()
        globals()[name] = value
        return value
    raise AttributeError(f"module 'aqmsim' has no attribute {name!r}")


__all__ = [
    "Scenario",
    "Results",
    "ScenarioError",
    "SimulationError",
    "run_json",
    "validate_json",
    "__version__",
]
