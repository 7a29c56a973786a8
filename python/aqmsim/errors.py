"""The two exceptions aqmsim raises.

They are the very classes the native extension (``aqmsim._core``) raises, so
``except aqmsim.ScenarioError`` catches errors from the Rust side and from the
Python side alike:

* :class:`ScenarioError` (a :class:`ValueError`): the scenario is malformed — unknown
  field, wrong type, value out of range, TOML syntax error. The message starts with the
  path of the offending field, e.g. ``dumbbell.bottleneck.queue.max_p: must be in
  (0, 1], got 1.5``.
* :class:`SimulationError` (a :class:`RuntimeError`): a valid scenario failed while
  running (an internal error in the engine).

Only when the extension cannot be imported (a source checkout without ``make build``)
are local stand-ins defined, so that the pure-Python parts stay importable.
"""

from __future__ import annotations

__all__ = ["ScenarioError", "SimulationError", "PluginError", "CORE_IMPORT_ERROR"]

CORE_IMPORT_ERROR: "ImportError | None" = None

try:
    from ._core import PluginError, ScenarioError, SimulationError
except ImportError as _exc:  # pragma: no cover - only without the compiled extension
    CORE_IMPORT_ERROR = _exc

    class ScenarioError(ValueError):  # type: ignore[no-redef]
        """The scenario is malformed (stand-in: the native extension is not built)."""

    class SimulationError(RuntimeError):  # type: ignore[no-redef]
        """A simulation failed (stand-in: the native extension is not built)."""

    class PluginError(SimulationError):  # type: ignore[no-redef]
        """A plug-in failed (stand-in: the native extension is not built)."""
