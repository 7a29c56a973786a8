"""What the figures read of a run, as protocols: :class:`RunView` (the parts of
:class:`aqmsim.results.Results` that :mod:`aqmsim.plot`, :mod:`aqmsim.plot_tcp` and
:mod:`aqmsim.plot_plugin` use) and :class:`ScenarioView` (the parts of a
:class:`aqmsim.scenario.Scenario` a run keeps). The figure modules and ``Results`` name
these in their annotations instead of each other, so the modules import in one direction:
``scenario`` → ``results`` → the figures → this module."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Protocol

__all__ = ["RunView", "ScenarioView"]


class ScenarioView(Protocol):
    """A scenario as a run remembers it: its name and the file it came from."""

    name: str
    path: Optional[Path]


class RunView(Protocol):
    """One run's results as the figures read them (:class:`aqmsim.results.Results`)."""

    scenario: Optional[ScenarioView]
    seed: Optional[int]
    _raw: Dict[str, Any]

    @property
    def summary(self) -> Mapping[str, Any]: ...

    @property
    def resolved(self) -> Dict[str, Any]: ...

    @property
    def queue(self) -> Any: ...

    @property
    def monitored_links(self) -> List[str]: ...

    def columns(self, name: str) -> Dict[str, Any]: ...

    def queue_params(self, link: Optional[str] = None) -> Dict[str, Any]: ...
