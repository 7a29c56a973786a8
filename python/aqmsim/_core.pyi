"""Type stubs for the native extension ``aqmsim._core`` (crates/aqmsim-py)."""

from typing import Any, Dict, List, Optional, Tuple, Union

Scalar = Union[float, int, str]
#: A numeric column: (numpy dtype string, raw little-endian bytes).
Buffer = Tuple[str, bytes]
#: A column of names: ("category", u32 codes as bytes, names).
Category = Tuple[str, bytes, List[str]]

__version__: str
BUILD: Dict[str, str]  # version, source_hash, git_commit, profile (build.rs)

class ScenarioError(ValueError):
    """The scenario is malformed; the message names the field."""

class SimulationError(RuntimeError):
    """A valid scenario failed while running."""

class PluginError(SimulationError):
    """A plug-in (a Python discipline or congestion control) failed during the run."""

def run(scenario_json: str, seed: Optional[int] = None, plugins: Optional[Any] = None) -> Dict[str, Any]:
    """Run a scenario given as JSON.

    Returns a dict with keys ``summary`` (str -> float), ``queue``, ``drops``, ``links``,
    ``tcp``, ``rtt``, ``delay_cdf``, ``phases`` (dicts of equal-length columns, each a :data:`Buffer`
    or a :data:`Category`; a long run's drop, TCP and RTT columns are read-only ``mmap``s
    of the files the engine wrote), ``flows`` (a dict of lists and buffers), ``resolved``
    (the resolved scenario as a JSON string) and ``trace_error`` (why the packet trace
    stopped early, or None). ``plugins`` builds the scenario's Python plug-ins
    (``aqmsim.plugin``); a run with plug-ins holds the GIL.
    """

def validate(scenario_json: str, seed: Optional[int] = None, plugins: Optional[Any] = None) -> str:
    """Check a scenario given as JSON; return the resolved scenario as JSON.

    Raises :class:`ScenarioError` naming the offending field.
    """

def disciplines() -> Dict[str, Dict[str, Any]]:
    """Every queue discipline: ``{name: {"description": str, "params": [(field, default,
    allowed), ...], "note": str or None}}`` (the note: where the defaults come from, how to
    get ns-2's, caveats)."""
