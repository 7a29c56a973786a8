"""Reading the characterisation suite's files (:mod:`aqmsim.suite.spec` describes them): every
file checked field by field, an unknown or missing field a :class:`ScenarioError` naming the
file and the field.
"""

from __future__ import annotations

import copy
import math
import sys
from typing import Any, Dict, Mapping, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import ScenarioError
from ..scenario import Scenario
from .model import QUEUE_PATH, Discipline, SuiteScenario, Variant, get_in, set_in
from .sections import RFC7928_SECTIONS

__all__ = ["DISCIPLINES_FILE", "parse", "read_disciplines", "read_scenario", "section_key"]

DISCIPLINES_FILE = "disciplines.toml"
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


def section_key(section: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in section.split("."))


def parse(where: str, text: str) -> Dict[str, Any]:
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


def read_disciplines(where: str, raw: Dict[str, Any]) -> Tuple[str, Dict[str, Discipline]]:
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


def read_scenario(suite: str, fname: str, texts: Mapping[str, str],
                   disciplines: Mapping[str, Discipline]) -> SuiteScenario:
    where = f"{suite}/{fname}"
    raw = parse(where, texts[fname])
    _fields(where, raw, _SCENARIO_KEYS)
    section = _text(f"{where}: section", raw["section"])
    if section not in RFC7928_SECTIONS:
        raise ScenarioError(f"{where}: section: {section!r} is not a section of RFC 7928 "
                            f"(allowed: {', '.join(RFC7928_SECTIONS)})")
    base = raw["base"]
    if isinstance(base, str):  # a base file beside it
        if base not in texts:
            raise ScenarioError(f"{where}: base: no file {base!r} in {suite}/")
        base = parse(f"{suite}/{base}", texts[base])
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
        queue = get_in(base, QUEUE_PATH)
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
        set_in(data, QUEUE_PATH, d.queue_for(get_in(base, QUEUE_PATH)["limit"]))
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
