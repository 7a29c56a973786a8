"""The characterisation suite's data: a discipline it compares, a scenario (one file) with its
variants, and one run of it. :mod:`aqmsim.suite.reader` builds them from the package's files
and :mod:`aqmsim.suite.spec` (``Suite``) holds them; both import this module, which imports
neither.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

from ..scenario import Scenario

__all__ = ["Discipline", "Variant", "SuiteScenario", "SuiteTask", "QUEUE_PATH", "run_key", "get_in", "set_in"]

#: Where a scenario's bottleneck queue table lies.
QUEUE_PATH = ("dumbbell", "bottleneck", "queue")


@dataclass(frozen=True)
class Discipline:
    """One discipline the suite compares: its queue table without ``limit``."""

    name: str
    label: str
    queue: Dict[str, Any]
    note: str
    #: queue parameters set from the scenario's buffer: {param: fraction of ``limit``}
    #: (RTRED's risk_th, which must lie between max_th and the buffer)
    scale_with_buffer: Dict[str, float] = field(default_factory=dict)
    #: queue parameters that make it mark ECN-capable packets instead of dropping them
    #: (``{ecn = true}``), applied in the scenarios about ECN (RFC 7928 §4.5: a scenario
    #: file's ``ecn = true``); empty: it marks by default, or always (DualPI2)
    marking: Dict[str, Any] = field(default_factory=dict)
    #: a discipline whose buffer is bytes, not packets (CAKE's memlimit): {field: bytes per
    #: packet}; the scenario's buffer of ``limit`` packets becomes field = limit × bytes
    buffer_in_bytes: Dict[str, int] = field(default_factory=dict)

    def queue_for(self, limit: int, ecn: bool = False) -> Dict[str, Any]:
        """The full bottleneck queue table for a buffer of ``limit`` packets; with ``ecn``
        marking ECN-capable packets."""
        table = copy.deepcopy(self.queue)
        if ecn:
            table.update(copy.deepcopy(self.marking))
        table["limit"] = limit
        for param, share in self.scale_with_buffer.items():
            table[param] = max(1, int(round(share * limit)))
        return self.bytes_buffer(table)

    def bytes_buffer(self, table: Dict[str, Any]) -> Dict[str, Any]:
        """``table`` with its packet ``limit`` (if any) turned into :attr:`buffer_in_bytes`."""
        if self.buffer_in_bytes and "limit" in table:
            packets = table.pop("limit")
            for param, per_packet in self.buffer_in_bytes.items():
                table[param] = packets * per_packet
        return table


@dataclass(frozen=True)
class Variant:
    """One variant of a scenario: overrides of its base (dotted keys)."""

    label: str
    value: Any
    overrides: Dict[str, Any]


@dataclass(frozen=True)
class SuiteScenario:
    """One scenario of the suite (one file)."""

    name: str
    section: str
    title: str
    asks: str
    reading: str
    base: Dict[str, Any]
    variants: Tuple[Variant, ...]
    variant_axis: str
    focus: Tuple[str, ...]
    #: only the parameter-sensitivity scenario: {aqm: (queue parameter, its recommended
    #: value in SI units)}, each swept over ``factors`` x the recommended value
    sensitivity: Dict[str, Tuple[str, float]] = field(default_factory=dict)
    factors: Tuple[float, ...] = ()
    #: tables kept beyond aqmsim.suite.run.SERIES (e.g. ("queue",): the queue over time)
    series: Tuple[str, ...] = ()
    #: the scenario is about ECN (RFC 7928 §4.5): every discipline marks ECN-capable
    #: packets (its ``marking`` fields)
    ecn: bool = False

    def variants_for(self, aqm: str) -> Tuple[Variant, ...]:
        """The variants run with discipline ``aqm``: the scenario's own, or, in the
        parameter-sensitivity scenario, one per factor of ``aqm``'s swept parameter
        (``factors`` x its recommended value, on top of the first variant), labelled
        ``"× <factor>"`` alike for every discipline (so they compare variant by variant),
        the factor on the axis."""
        swept = self.sensitivity.get(aqm)
        if not swept:
            return self.variants
        param, recommended = swept
        first = self.variants[0]
        out = []
        for f in self.factors:
            over = dict(first.overrides)
            if param is None:  # a plug-in with no suite_parameter (suite/plugins.py): × 1 only
                if f == 1:
                    out.append(Variant(f"× {_show(f)}", f, over))
                continue
            over[".".join(QUEUE_PATH + (param,))] = _round(recommended * f)
            out.append(Variant(f"× {_show(f)}", f, over))
        return tuple(out)

    def scenario(self, variant: Variant, discipline: Discipline) -> Dict[str, Any]:
        """The full scenario dict of one run: the base with the discipline's queue table
        (the buffer kept from the base), then the variant's overrides."""
        data = copy.deepcopy(self.base)
        queue = get_in(data, QUEUE_PATH)
        set_in(data, QUEUE_PATH, discipline.queue_for(queue["limit"], self.ecn))
        data["name"] = run_key(self.name, variant.label, discipline.name)
        out = Scenario(data).with_overrides(**variant.overrides).to_dict()
        # a variant that changes the buffer changes what scales with it, unless it sets
        # that parameter itself
        limit = get_in(out, QUEUE_PATH).get("limit", queue["limit"])
        for param, share in discipline.scale_with_buffer.items():
            if ".".join(QUEUE_PATH + (param,)) not in variant.overrides:
                get_in(out, QUEUE_PATH)[param] = max(1, int(round(share * limit)))
        discipline.bytes_buffer(get_in(out, QUEUE_PATH))  # a variant's buffer, for CAKE
        return out


@dataclass(frozen=True)
class SuiteTask:
    """One run of the suite: a scenario's variant with one discipline and one seed."""

    scenario: str
    section: str
    variant: str
    aqm: str
    seed: int
    data: Dict[str, Any]
    value: Any = None                  # the variant's value on the report's axis
    series: Tuple[str, ...] = ()       # tables kept beyond aqmsim.suite.run.SERIES

    @property
    def key(self) -> str:
        """Unique per (scenario, variant, aqm): ``"rtt-fairness | RTT 200 ms | codel"``."""
        return run_key(self.scenario, self.variant, self.aqm)


def run_key(scenario: str, variant: str, aqm: str) -> str:
    """``"scenario | variant | aqm"`` without the empty parts."""
    return " | ".join(p for p in (scenario, variant, aqm) if p)


def _show(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def get_in(data: Dict[str, Any], path: Tuple[str, ...]) -> Any:
    """``data[path[0]][path[1]]...``"""
    for p in path:
        data = data[p]
    return data


def set_in(data: Dict[str, Any], path: Tuple[str, ...], value: Any) -> None:
    """``data[path[0]]...[path[-1]] = value``"""
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


def _round(x: float) -> float:
    """A scaled parameter without binary noise (0.1 x 3 = 0.30000000000000004 -> 0.3)."""
    return float(f"{x:.12g}")
