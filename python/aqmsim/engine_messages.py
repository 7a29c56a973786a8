"""The engine's error messages in plain words.

The engine (serde, reading the scenario's JSON) names Rust types: "invalid type: string
\"x\", expected f64", "data did not match any variant of untagged enum Quantity". These
helpers rewrite such a message into what the field allows, with the value it got, a
did-you-mean for an unknown name and, when a queue table holds another discipline's
fields, the ``--set`` that switches the discipline cleanly (:func:`_plain_words`); and
find the first NaN or infinity, which has no JSON form (:func:`_nonfinite`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, List, Optional, Tuple

from .errors import ScenarioError
from .field_paths import _did_you_mean
from .native import _core
from .toml_text import _toml_value

_JSON_POSITION = re.compile(r" at line \d+ column \d+$")

_UNTAGGED = re.compile(r"data did not match any variant of untagged enum (\w+)")
_SERDE_TYPE = re.compile(r"invalid (?:type|value): (.+?), expected (.+)$")
# serde reads a struct from a list of its fields in order: a list where a table belongs
_SERDE_SEQ = re.compile(r"invalid length \d+, expected (?:struct \w+|a tuple|an array)[^,]*$")
_UNKNOWN = re.compile(r"unknown (field|variant) `([^`]*)`, expected (.+)$")
_NOT_A_PARAM = re.compile(r"(?:^|\.)([^.]+): not a parameter of (\w+)")
_TIME_FIELDS = ("delay", "duration", "start", "stop", "tick", "rto", "interval", "target",
                "unit")


def _example_for(path: str) -> str:
    last = re.split(r"[.\[\]]+", path.strip("]"))[-1] if path else ""
    if "rate" in last:
        return '"10Mb"'
    if any(w in last for w in _TIME_FIELDS):
        return '"20ms"'
    return '"10Mb" or "20ms"'


def _serde_expected(what: str) -> str:
    what = what.strip()
    if re.fullmatch(r"u(8|16|32|64|size)", what):
        return "a whole number ≥ 0"
    if re.fullmatch(r"i(8|16|32|64|size)", what):
        return "a whole number"
    if re.fullmatch(r"f(32|64)", what):
        return "a number"
    if what in ("a sequence", "a tuple") or what.startswith("an array"):
        return "a list"
    if what == "a map" or what.startswith("struct ") or what.startswith("a table"):
        return "a table"
    return what


def _serde_got(what: str) -> str:
    m = re.fullmatch(r"(?:integer|floating point|boolean) `(.*)`", what)
    if m:
        return m.group(1)
    m = re.fullmatch(r"string (.*)", what)
    if m:
        return m.group(1)
    return {"sequence": "a list", "map": "a table", "unit value": "nothing"}.get(what, what)


def _nonfinite(node: Any, where: str) -> Optional[Tuple[str, float]]:
    """The path (as the engine prints paths: ``a.b[0]``, a key that is not a plain name
    quoted: ``a[""]``) and value of the first NaN or infinity in ``node``, or None."""
    if isinstance(node, float) and not math.isfinite(node):
        return (where or "scenario"), node
    if isinstance(node, dict):
        items = [(f"{where}.{k}" if where else str(k)) if re.fullmatch(r"[A-Za-z0-9_-]+", str(k))
                 else f"{where}[{json.dumps(str(k))}]" for k in node]
        children: Iterable[Tuple[str, Any]] = zip(items, node.values())
    elif isinstance(node, list):
        children = ((f"{where}[{i}]", v) for i, v in enumerate(node))
    else:
        return None
    for path, v in children:
        found = _nonfinite(v, path)
        if found is not None:
            return found
    return None


def _value_at(data: Any, path: str) -> Any:
    """The value at an engine path like ``dumbbell.groups[0].access.delay`` (KeyError if none)."""
    node = data
    for part in re.findall(r"[^.\[\]]+", path):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _shown(data: Any, path: str) -> str:
    try:
        v = _value_at(data, path)
    except (KeyError, IndexError, ValueError, TypeError):
        return ""
    text = json.dumps(v) if not isinstance(v, str) else repr(v).replace("'", '"')
    return f", got {text if len(text) <= 60 else text[:57] + '...'}"


def _plain_words(msg: str, data: Any) -> str:
    """Translate the engine's serde messages (type names, "untagged enum") into what the
    field allows, and suggest the closest name for an unknown one."""
    path, sep, rest = msg.partition(": ")
    if not sep:
        path, rest = "", msg
    m = _UNTAGGED.search(rest)
    if m:
        enum = m.group(1)
        if enum == "Quantity":
            allowed = f"expected a number or a string with a unit, e.g. {_example_for(path)}"
        elif enum == "Dist":
            allowed = ('expected a time (a number of seconds or a string with a unit, e.g. '
                       '"2ms") or a range { uniform = ["1ms", "5ms"] }')
        elif enum == "AutoNum":
            allowed = 'expected a number or "auto"'
        else:
            allowed = "expected a value of another form (see docs/scenario-reference.md)"
        rest = rest[:m.start()] + allowed + _shown(data, path) + rest[m.end():]
    m = _SERDE_TYPE.search(rest)
    if m:
        rest = (rest[:m.start()] + f"expected {_serde_expected(m.group(2))}, "
                f"got {_serde_got(m.group(1))}")
    m = _SERDE_SEQ.search(rest)
    if m:
        expected = "a table" if "struct" in m.group(0) else "a list of another length"
        rest = rest[:m.start()] + f"expected {expected}" + (_shown(data, path) or ", got a list")
    m = _UNKNOWN.search(rest)
    if m:
        names = re.findall(r"`([^`]*)`", m.group(3))
        rest = (rest[:m.start()] + f"unknown {m.group(1)} {m.group(2)!r} (expected one of: "
                f"{', '.join(names)})" + _did_you_mean(m.group(2), names))
    m = _NOT_A_PARAM.search(msg)
    switch = _switch_hint(path, m.group(1), m.group(2), data) if m else ""
    if switch:
        rest = rest.split("; did you mean")[0] + switch
    elif m and "did you mean" not in rest:
        params = _discipline_params(m.group(2))
        if params:
            rest += f"; {m.group(2)} takes: {', '.join(params)}" + _did_you_mean(m.group(1), params)
    return f"{path}: {rest}" if path else rest


def _switch_hint(path: str, field: str, kind: str, data: Any) -> str:
    """When a queue table names another discipline's field (``kind`` switched with
    ``--set ...queue.kind=codel`` on a RED table): the fields ``kind`` does not take, and
    the ``--set`` that switches cleanly — the whole table replaced, keeping the fields both
    share (``limit``). "" when ``field`` is no discipline's (a typo: did-you-mean does)."""
    try:
        table = _core().disciplines()
        others = {p[0] for name, entry in table.items() if name != kind for p in entry["params"]}
        where = path.rsplit(".", 1)[0] if path.endswith(f".{field}") else ""
        queue = _value_at(data, where) if where else None
    except Exception:  # noqa: BLE001 - only an extra hint
        return ""
    if field not in others or not isinstance(queue, dict):
        return ""
    takes = set(_discipline_params(kind))
    foreign = sorted(k for k in queue if k not in takes)
    kept = {"kind": kind, **{k: v for k, v in queue.items() if k in takes and k != "kind"}}
    try:
        inline = _toml_value(kept)
    except ScenarioError:
        return ""
    dotted = re.sub(r"\[(\d+)\]", r".\1", where)
    return (f"; the table keeps fields {kind} does not take ({', '.join(foreign)}): to switch "
            f"the discipline, replace the whole table, e.g. --set '{dotted}={inline}' (in the "
            f"file: only kind and {kind}'s fields under the table; `aqmsim list {kind}` lists them)")


def _discipline_params(kind: str) -> List[str]:
    try:
        table = _core().disciplines()
        return ["kind"] + [p[0] for p in table[kind]["params"]]
    except Exception:  # noqa: BLE001 - only an extra hint
        return []

