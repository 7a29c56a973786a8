"""The plan of an ns-2 export: the scenario resolved for ns-2, every default applied and
every random value drawn (:func:`aqmsim.ns2.planner.build_plan` makes it,
:func:`aqmsim.ns2.export.render_tcl` writes it as a Tcl script). Data only: every module of
the exporter reads it and it reads none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

__all__ = ["LinkPlan", "FlowPlan", "Plan"]


@dataclass
class LinkPlan:
    """One direction of a link: ``src -> dst`` with its own queue."""

    src: str
    dst: str
    rate: float  # bit/s
    delay: float  # s
    queue: Dict[str, Any]
    where: str  # scenario path of the queue table

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"


@dataclass
class FlowPlan:
    index: int
    src: str
    dst: str
    app: str  # "ftp" | "cbr" | "onoff"
    start: float
    stop: float
    group: str
    tcp: Dict[str, Any] = field(default_factory=dict)
    cbr_rate: float = 0.0
    cbr_size: int = 0
    #: app "onoff": ns-2's class (Exponential | Pareto), burst_time_, idle_time_, shape_
    #: (Pareto); the rate and packet size are cbr_rate and cbr_size.
    onoff: Dict[str, Any] = field(default_factory=dict)
    #: aqmsim's label of the flow (Results.flows ``label``): the group's name (``group<i>``
    #: unnamed), an explicit flow's ``label`` (``flows[<i>]`` without one).
    label: str = ""


@dataclass
class Plan:
    """The scenario resolved for ns-2: every default applied, every random value drawn."""

    name: str
    seed: int
    duration: float
    nodes: List[str]
    links: List[LinkPlan]
    flows: List[FlowPlan]
    monitored: List[str]  # link names "a->b"
    sample_interval: float
    draws: Dict[str, float]  # "access_delay/3" -> 0.0021, "start/0" -> 0.41, ...
    #: metrics asked for by the scenario's ``ns2.measure`` (:data:`NS2_ON_REQUEST`)
    measure: Tuple[str, ...] = ()

    def link(self, name: str) -> LinkPlan:
        for lk in self.links:
            if lk.name == name:
                return lk
        raise KeyError(name)
