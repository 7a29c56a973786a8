"""The characterisation suite's scenarios and disciplines, read from the package's files.

``Suite.load("rfc7928")`` reads ``aqmsim/suite/rfc7928/``: one TOML file per scenario of
RFC 7928 (name = file stem) and ``disciplines.toml`` (the queue table of each discipline
the suite compares). Every file is checked field by field (an unknown or missing field is
a :class:`ScenarioError` naming the file and the field), and, unless ``validate=False``,
every run's scenario (scenario x variant x discipline) is checked by the engine, so a bad
value fails when the suite is loaded, not half-way through a run of it.

A scenario file holds what the RFC asks (``section``, ``title``, ``asks``), how we read
what it leaves open (``reading``), the metrics it is about (``focus``), its variants
(``variant_axis``, ``[[variants]]`` with ``label``, ``value`` and ``set``: dotted-key
overrides, as :meth:`aqmsim.Scenario.with_overrides`), the parameter-sensitivity table
(``[sensitivity]``: only that scenario), ``ecn = true`` (a scenario about ECN: each
discipline's ``marking`` fields turn its marking on) and the aqmsim scenario itself
(``[base]``, or ``base = "file.toml"`` beside it). The base's bottleneck queue table gives the buffer
(``limit``); each discipline's table replaces the rest of it. docs/suite-rfc7928.md
describes every scenario.

No pandas here: the CLI lists and checks the suite without importing it.
"""

from __future__ import annotations

import copy
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import ScenarioError
from ..scenario import Scenario
from .sections import RFC7928_SECTIONS

__all__ = ["Discipline", "Variant", "SuiteScenario", "SuiteTask", "Suite", "SUITES",
           "RFC7928_SECTIONS"]

#: The suites shipped in the package: name -> title.
SUITES: Dict[str, str] = {
    "rfc7928": "RFC 7928: characterisation guidelines for active queue management",
}

_DISCIPLINES_FILE = "disciplines.toml"
_QUEUE_PATH = ("dumbbell", "bottleneck", "queue")
_SCENARIO_KEYS = {  # field -> required
    "section": True, "title": True, "asks": True, "reading": True, "base": True,
    "focus": False, "variant_axis": False, "variants": False, "sensitivity": False,
    "series": False, "ecn": False,
}
#: Tables every suite run keeps (aqmsim.suite.run.SERIES); a scenario may ask for more.
_EXTRA_SERIES = ("queue", "drops", "links")
_VARIANT_KEYS = {"label": True, "value": False, "set": False}
_DISCIPLINE_KEYS = {"label": True, "note": True, "queue": True, "scale_with_buffer": False,
                    "marking": False, "buffer_in_bytes": False}


# =========================================================================== the classes
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
            over[".".join(_QUEUE_PATH + (param,))] = _round(recommended * f)
            out.append(Variant(f"× {_show(f)}", f, over))
        return tuple(out)

    def scenario(self, variant: Variant, discipline: Discipline) -> Dict[str, Any]:
        """The full scenario dict of one run: the base with the discipline's queue table
        (the buffer kept from the base), then the variant's overrides."""
        data = copy.deepcopy(self.base)
        queue = _get(data, _QUEUE_PATH)
        _set(data, _QUEUE_PATH, discipline.queue_for(queue["limit"], self.ecn))
        data["name"] = _key(self.name, variant.label, discipline.name)
        out = Scenario(data).with_overrides(**variant.overrides).to_dict()
        # a variant that changes the buffer changes what scales with it, unless it sets
        # that parameter itself
        limit = _get(out, _QUEUE_PATH).get("limit", queue["limit"])
        for param, share in discipline.scale_with_buffer.items():
            if ".".join(_QUEUE_PATH + (param,)) not in variant.overrides:
                _get(out, _QUEUE_PATH)[param] = max(1, int(round(share * limit)))
        discipline.bytes_buffer(_get(out, _QUEUE_PATH))  # a variant's buffer, for CAKE
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
        return _key(self.scenario, self.variant, self.aqm)


class Suite:
    """A characterisation suite: its scenarios and the disciplines it compares."""

    def __init__(self, name: str, title: str, scenarios: List[SuiteScenario],
                 disciplines: Dict[str, Discipline], rule: str = "") -> None:
        self.name = name
        self.title = title
        self.scenarios = scenarios
        self.disciplines = disciplines
        #: how every discipline's parameters were chosen (disciplines.toml's ``rule``)
        self.rule = rule

    def __repr__(self) -> str:
        return (f"Suite({self.name!r}: {len(self.scenarios)} scenarios, "
                f"{len(self.disciplines)} disciplines)")

    @classmethod
    def load(cls, name: str = "rfc7928", validate: bool = True) -> "Suite":
        """Read and check the suite ``name`` shipped in the package. With ``validate``
        every run's scenario is also checked by the engine (a few hundred ms)."""
        if name not in SUITES:
            raise ScenarioError(f"suite: unknown suite {name!r} (allowed: {', '.join(SUITES)})")
        from importlib.resources import files

        root = files("aqmsim.suite") / name
        texts = {p.name: p.read_text(encoding="utf-8") for p in root.iterdir()
                 if p.name.endswith(".toml")}
        suite = cls.from_texts(name, texts)
        if validate:
            suite.validate()
        return suite

    @classmethod
    def from_texts(cls, name: str, texts: Mapping[str, str]) -> "Suite":
        """The suite from its files' texts (file name -> TOML text): what :meth:`load`
        reads, without the engine's check."""
        where = f"{name}/{_DISCIPLINES_FILE}"
        if _DISCIPLINES_FILE not in texts:
            raise ScenarioError(f"{where}: missing (every suite lists its disciplines)")
        rule, disciplines = _read_disciplines(where, _parse(where, texts[_DISCIPLINES_FILE]))
        scenarios = []
        for fname in sorted(texts):
            if fname == _DISCIPLINES_FILE or fname.startswith("_"):
                continue  # "_*.toml": base files that scenario files name
            scenarios.append(_read_scenario(name, fname, texts, disciplines))
        scenarios.sort(key=lambda s: (_section_key(s.section), s.name))
        return cls(name, SUITES.get(name, name), scenarios, disciplines, rule)

    # ------------------------------------------------------------------ lookups
    def scenario(self, name: str) -> SuiteScenario:
        for s in self.scenarios:
            if s.name == name:
                return s
        raise ScenarioError(f"scenarios: unknown scenario {name!r} (allowed: "
                            f"{', '.join(s.name for s in self.scenarios)})")

    def validate(self) -> None:
        """Check every run's scenario with the engine; the first bad one raises a
        ScenarioError naming the scenario, variant and discipline."""
        for s in self.scenarios:
            for d in self.disciplines.values():
                for v in s.variants_for(d.name):
                    try:
                        Scenario(s.scenario(v, d)).validate()
                    except ScenarioError as exc:
                        raise ScenarioError(
                            f"{self.name}/{s.name}.toml ({_key(s.name, v.label, d.name)}): {exc}"
                        ) from None

    def tasks(self, aqms: Sequence[str], seeds: Sequence[int],
              scenarios: Optional[Sequence[str]] = None) -> List[SuiteTask]:
        """Every run: scenario -> variant -> discipline -> seed, in the suite's order."""
        aqms = list(aqms)
        for a in aqms:
            if a not in self.disciplines:
                raise ScenarioError(f"aqm: unknown discipline {a!r} (allowed: "
                                    f"{', '.join(self.disciplines)})")
        if not aqms:
            raise ScenarioError(f"aqm: no discipline given (allowed: {', '.join(self.disciplines)})")
        seeds = list(seeds)
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**64:
                raise ScenarioError(f"seeds: each seed must be an integer in [0, 2^64), got {s!r}")
        if not seeds:
            raise ScenarioError("seeds: no seed given (at least one)")
        chosen = self.scenarios if scenarios is None else [self.scenario(n) for n in scenarios]
        out = []
        for s in chosen:
            for a in aqms:
                d = self.disciplines[a]
                for v in s.variants_for(a):
                    data = s.scenario(v, d)
                    out.extend(SuiteTask(s.name, s.section, v.label, a, seed, data,
                                         v.value, s.series) for seed in seeds)
        # scenario -> variant -> aqm: the order a reader expects; stable within
        order = {s.name: i for i, s in enumerate(chosen)}
        vorder: Dict[Tuple[str, str], int] = {}
        for t in out:
            vorder.setdefault((t.scenario, t.variant), len(vorder))
        aorder = {a: i for i, a in enumerate(aqms)}
        out.sort(key=lambda t: (order[t.scenario], vorder[(t.scenario, t.variant)],
                                aorder[t.aqm], seeds.index(t.seed)))
        return out


# =========================================================================== reading files
def _key(scenario: str, variant: str, aqm: str) -> str:
    return " | ".join(p for p in (scenario, variant, aqm) if p)


def _show(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _section_key(section: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in section.split("."))


def _get(data: Dict[str, Any], path: Tuple[str, ...]) -> Any:
    for p in path:
        data = data[p]
    return data


def _set(data: Dict[str, Any], path: Tuple[str, ...], value: Any) -> None:
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


def _parse(where: str, text: str) -> Dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{where}: TOML syntax error: {exc}") from None


def _fields(where: str, table: Any, allowed: Mapping[str, bool]) -> None:
    """Unknown and missing fields of ``table``, named with the allowed ones."""
    if not isinstance(table, dict):
        raise ScenarioError(f"{where}: expected a table, got {type(table).__name__}")
    for k in table:
        if k not in allowed:
            raise ScenarioError(f"{where}: unknown field {k!r} (allowed: {', '.join(allowed)})")
    for k, required in allowed.items():
        if required and k not in table:
            raise ScenarioError(f"{where}.{k}: missing: a required field")


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(f"{where}: expected a non-empty string, got {value!r}")
    return value.strip()


def _read_disciplines(where: str, raw: Dict[str, Any]) -> Tuple[str, Dict[str, Discipline]]:
    _fields(where, raw, {"rule": True, "disciplines": True})
    rule = _text(f"{where}: rule", raw["rule"])
    table = raw["disciplines"]
    if not isinstance(table, dict) or not table:
        raise ScenarioError(f"{where}: disciplines: expected a table of disciplines")
    out = {}
    for name, d in table.items():
        at = f"{where}: disciplines.{name}"
        _fields(at, d, _DISCIPLINE_KEYS)
        queue = d["queue"]
        if not isinstance(queue, dict) or not isinstance(queue.get("kind"), str):
            raise ScenarioError(f"{at}.queue: expected a queue table with a 'kind'")
        if "limit" in queue or "limit_bytes" in queue:
            raise ScenarioError(f"{at}.queue: no 'limit' here: the buffer is the scenario's")
        scale = d.get("scale_with_buffer", {})
        if not isinstance(scale, dict) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 1
                for v in scale.values()):
            raise ScenarioError(f"{at}.scale_with_buffer: expected {{param = fraction in (0, 1]}}")
        marking = d.get("marking", {})
        if not isinstance(marking, dict) or "kind" in marking or "limit" in marking:
            raise ScenarioError(f"{at}.marking: expected a table of the queue fields that turn "
                                f"ECN marking on (e.g. {{ecn = true}}), got {marking!r}")
        in_bytes = d.get("buffer_in_bytes", {})
        if not isinstance(in_bytes, dict) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in in_bytes.values()):
            raise ScenarioError(f"{at}.buffer_in_bytes: expected {{param = bytes per packet ≥ 1}}")
        out[name] = Discipline(name, _text(f"{at}.label", d["label"]), queue,
                               _text(f"{at}.note", d["note"]), dict(scale), dict(marking),
                               dict(in_bytes))
    return rule, out


def _read_scenario(suite: str, fname: str, texts: Mapping[str, str],
                   disciplines: Mapping[str, Discipline]) -> SuiteScenario:
    where = f"{suite}/{fname}"
    raw = _parse(where, texts[fname])
    _fields(where, raw, _SCENARIO_KEYS)
    section = _text(f"{where}: section", raw["section"])
    if section not in RFC7928_SECTIONS:
        raise ScenarioError(f"{where}: section: {section!r} is not a section of RFC 7928 "
                            f"(allowed: {', '.join(RFC7928_SECTIONS)})")
    base = raw["base"]
    if isinstance(base, str):  # a base file beside it
        if base not in texts:
            raise ScenarioError(f"{where}: base: no file {base!r} in {suite}/")
        base = _parse(f"{suite}/{base}", texts[base])
    base = _check_base(where, base)
    variants = _read_variants(where, raw.get("variants"))
    axis = raw.get("variant_axis", "")
    if len(variants) > 1:
        axis = _text(f"{where}: variant_axis (needed with several variants)", axis)
    elif not isinstance(axis, str):
        raise ScenarioError(f"{where}: variant_axis: expected a string, got {axis!r}")
    focus = raw.get("focus", [])
    if not isinstance(focus, list) or not all(isinstance(f, str) and f for f in focus):
        raise ScenarioError(f"{where}: focus: expected a list of summary keys (strings)")
    sens, factors = _read_sensitivity(where, raw.get("sensitivity"), base, disciplines)
    series = raw.get("series", [])
    if not isinstance(series, list) or any(x not in _EXTRA_SERIES for x in series):
        raise ScenarioError(f"{where}: series: expected a list of tables among "
                            f"{', '.join(_EXTRA_SERIES)}, got {series!r}")
    ecn = raw.get("ecn", False)
    if not isinstance(ecn, bool):
        raise ScenarioError(f"{where}: ecn: expected true or false (true: every discipline "
                            f"marks ECN-capable packets), got {ecn!r}")
    return SuiteScenario(
        name=fname[:-len(".toml")], section=section, title=_text(f"{where}: title", raw["title"]),
        asks=_text(f"{where}: asks", raw["asks"]), reading=_text(f"{where}: reading", raw["reading"]),
        base=base, variants=variants, variant_axis=axis.strip(), focus=tuple(focus),
        sensitivity=sens, factors=factors, series=tuple(dict.fromkeys(series)), ecn=ecn)


def _check_base(where: str, base: Any) -> Dict[str, Any]:
    """The suite's common ground: a dumbbell whose bottleneck queue gives the buffer,
    with the bottleneck's queue and delays monitored."""
    if not isinstance(base, dict):
        raise ScenarioError(f"{where}: base: expected a scenario table or a file name")
    try:
        queue = _get(base, _QUEUE_PATH)
    except (KeyError, TypeError):
        raise ScenarioError(f"{where}: base.dumbbell.bottleneck.queue: missing (the buffer "
                            "is its 'limit')") from None
    limit = queue.get("limit") if isinstance(queue, dict) else None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ScenarioError(f"{where}: base.dumbbell.bottleneck.queue.limit: expected the "
                            f"buffer in packets (an integer >= 1), got {limit!r}")
    mon = base.get("monitor", {})
    if not isinstance(mon, dict) or mon.get("delays") is not True:
        raise ScenarioError(f"{where}: base.monitor.delays: must be true (the report draws "
                            "delay CDFs)")
    if mon.get("queues") != ["R1->R2"]:
        raise ScenarioError(f"{where}: base.monitor.queues: must be [\"R1->R2\"]")
    return base


def _read_variants(where: str, raw: Any) -> Tuple[Variant, ...]:
    if raw is None:
        return (Variant("", None, {}),)
    if not isinstance(raw, list) or not raw:
        raise ScenarioError(f"{where}: variants: expected a non-empty list of [[variants]]")
    out, seen = [], set()
    for i, v in enumerate(raw):
        at = f"{where}: variants[{i}]"
        _fields(at, v, _VARIANT_KEYS)
        label = v["label"]
        if not isinstance(label, str) or (not label.strip() and len(raw) > 1):
            raise ScenarioError(f"{at}.label: expected a non-empty string, got {label!r}")
        if label in seen:
            raise ScenarioError(f"{at}.label: {label!r} twice (labels must be unique)")
        seen.add(label)
        value = v.get("value")
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, str))
                                  or (isinstance(value, float) and not math.isfinite(value))):
            raise ScenarioError(f"{at}.value: expected a number or a string, got {value!r}")
        over = v.get("set", {})
        if not isinstance(over, dict):
            raise ScenarioError(f"{at}.set: expected a table of dotted keys")
        out.append(Variant(label, value, dict(over)))
    return tuple(out)


def _read_sensitivity(where: str, raw: Any, base: Dict[str, Any],
                      disciplines: Mapping[str, Discipline]
                      ) -> Tuple[Dict[str, Tuple[str, float]], Tuple[float, ...]]:
    """``[sensitivity]``: ``factors = [...]`` and ``<aqm> = "<queue parameter>"`` for every
    discipline; the recommended value of each is the discipline's own, resolved by the
    engine on the base (so "5ms" and automatic values become numbers)."""
    if raw is None:
        return {}, ()
    at = f"{where}: sensitivity"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{at}: expected {{factors = [...], <aqm> = \"<parameter>\"}}")
    factors = raw.get("factors")
    if (not isinstance(factors, list) or not factors or len(set(factors)) < len(factors)
            or not all(isinstance(f, (int, float)) and not isinstance(f, bool)
                       and math.isfinite(f) and f > 0 for f in factors)):
        raise ScenarioError(f"{at}.factors: expected a list of distinct numbers > 0 (times "
                            f"the recommended value), got {factors!r}")
    out: Dict[str, Tuple[str, float]] = {}
    for aqm, param in raw.items():
        if aqm == "factors":
            continue
        if aqm not in disciplines:
            raise ScenarioError(f"{at}.{aqm}: unknown discipline (allowed: "
                                f"{', '.join(disciplines)})")
        if not isinstance(param, str) or not param or param == "limit":
            raise ScenarioError(f"{at}.{aqm}: expected the name of one of its queue "
                                f"parameters (not limit), got {param!r}")
        d = disciplines[aqm]
        data = copy.deepcopy(base)
        _set(data, _QUEUE_PATH, d.queue_for(_get(base, _QUEUE_PATH)["limit"]))
        try:
            resolved = Scenario(data).validate()
        except ScenarioError as exc:
            raise ScenarioError(f"{at}.{aqm}: the base with {aqm}: {exc}") from None
        queue = next(lk["queue"] for lk in resolved["links"]
                     if (lk["from"], lk["to"]) == ("R1", "R2"))
        value = queue.get(param)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ScenarioError(f"{at}.{aqm}: {param!r} is not a positive number of {aqm}'s "
                                f"queue (resolved: {value!r}), so it cannot be scaled")
        out[aqm] = (param, float(value))
    missing = [a for a in disciplines if a not in out]
    if missing:
        raise ScenarioError(f"{at}: every discipline needs its parameter (so the variants "
                            f"compare alike); missing: {', '.join(missing)}")
    return out, tuple(float(f) for f in factors)


def _round(x: float) -> float:
    """A scaled parameter without binary noise (0.1 x 3 = 0.30000000000000004 -> 0.3)."""
    return float(f"{x:.12g}")
