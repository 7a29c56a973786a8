"""Type stubs for the native extension ``aqmsim._core`` (crates/aqmsim-py)."""

from typing import Any, Dict, List, Optional, Union

Scalar = Union[float, int, str]

class ScenarioError(ValueError):
    """The scenario is malformed; the message names the field."""

class SimulationError(RuntimeError):
    """A valid scenario failed while running."""

def run(scenario_json: str, seed: Optional[int]) -> Dict[str, Any]:
    """Run a scenario given as JSON.

    Returns a dict with keys ``summary`` (str -> float|int|str), ``queue``, ``drops``,
    ``flows``, ``links`` (each a dict of equal-length columns, lists or numpy arrays)
    and ``resolved`` (the resolved scenario as a JSON string).
    """

def validate(scenario_json: str) -> str:
    """Check a scenario given as JSON; return the resolved scenario as JSON.

    Raises :class:`ScenarioError` naming the offending field.
    """
