"""Readable names for the values of a varied parameter whose values are tables (a whole
queue table, say): the discipline and the parameters that tell the values apart —
``RED (max_p=0.1)``, ``RED (max_p=0.2)``, ``CoDel``, ``PIE (target=15 ms)`` — instead of
their JSON. Used by the sweep's point names (:meth:`aqmsim.sweep.Sweep.key_of`) and the
sweep report's figures, legends, tables and CSV."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Sequence

__all__ = ["DISCIPLINE_NAMES", "discipline_name", "value_labels", "format_value"]

#: The queue kinds (``aqmsim list``) as papers name them.
DISCIPLINE_NAMES = {
    "droptail": "DropTail", "red": "RED", "gentle": "Gentle RED", "ared": "Adaptive RED",
    "ared_feng": "Adaptive RED (Feng)", "rtred": "RTRED", "qrtred": "QRTRED",
    "ecn_threshold": "ECN threshold", "codel": "CoDel", "pie": "PIE", "fq_codel": "FQ-CoDel",
    "dualpi2": "DualPI2",
    "fq_pie": "FQ-PIE",
    "cobalt": "COBALT", "cake": "CAKE",
    "fq_cobalt": "FQ-COBALT",
}

_QUANTITY = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/%]+)$")


def discipline_name(kind: Any) -> str:
    """``CoDel`` for ``codel``; a kind not listed as it is."""
    return DISCIPLINE_NAMES.get(str(kind), str(kind))


def format_value(v: Any) -> str:
    """A parameter value in a label: ``0.1``, ``true``, ``15 ms`` (for ``"15ms"``)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, str):
        m = _QUANTITY.match(v.strip())
        return f"{m.group(1)} {m.group(2)}" if m else v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}={format_value(x)}" for k, x in v.items()) + "}"
    return str(v)


_ABSENT = object()


def _flat(table: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in table.items():
        if isinstance(v, Mapping) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def value_labels(values: Sequence[Any]) -> List[str]:
    """A distinct readable name for each of ``values`` (the values of one varied
    parameter, in order). Tables are named by their ``kind`` (the discipline, when the
    table is a queue) and, where several values share a kind, the fields in which those
    differ (``field=default`` where one of them leaves the field out). Other values are
    written as they are. Values still alike after that get ``#1``, ``#2``, … in order."""
    flats = [_flat(v) if isinstance(v, Mapping) else None for v in values]
    names: List[str] = []
    for v, f in zip(values, flats):
        if f is None:
            names.append(format_value(v))
            continue
        names.append(discipline_name(f["kind"]) if "kind" in f else "")
    by_kind: Dict[str, List[int]] = {}
    for i, f in enumerate(flats):
        if f is not None:
            by_kind.setdefault(names[i], []).append(i)
    out = list(names)
    for members in by_kind.values():
        if len(members) < 2:
            if not out[members[0]]:  # a table without a kind, alone: its fields
                out[members[0]] = format_value(values[members[0]])
            continue
        keys: List[str] = []
        for i in members:
            keys += [k for k in flats[i] if k not in keys]  # type: ignore[union-attr]
        differ = [k for k in keys if k != "kind" and len(
            {repr(flats[i].get(k, _ABSENT)) for i in members}) > 1]  # type: ignore[union-attr]
        for i in members:
            f = flats[i]
            assert f is not None
            parts = ", ".join(
                f"{k}={format_value(f[k]) if k in f else 'default'}" for k in differ)
            if names[i] and parts:
                out[i] = f"{names[i]} ({parts})"
            else:
                out[i] = names[i] or parts
    seen: Dict[str, List[int]] = {}
    for i, name in enumerate(out):
        seen.setdefault(name, []).append(i)
    for name, idx in seen.items():
        if len(idx) > 1 or not name:
            for n, i in enumerate(idx, 1):
                out[i] = f"{name} #{n}".strip()
    return out
