"""Scenario data copied as plain TOML/JSON data (tables, lists, strings, numbers,
booleans), refusing with a ScenarioError naming where: nesting deeper than MAX_DEPTH,
cycles, keys that are not strings, values of other types."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any, Dict, Optional

from .errors import ScenarioError
from .field_paths import MAX_DEPTH, _short


def _too_deep(where: str) -> ScenarioError:
    return ScenarioError(
        f"{_short(where) or 'scenario'}: nested more than {MAX_DEPTH} levels deep; tables and "
        f"lists in a scenario nest at most {MAX_DEPTH} levels"
    )


def _plain(value: Any, where: str, depth: int = 0, parents: Optional[Dict[int, str]] = None) -> Any:
    """A copy of ``value`` as plain TOML/JSON data: tuples become lists, Paths str.

    Refused, with a ScenarioError naming where: tables and lists nested more than
    MAX_DEPTH levels, a table or list that contains itself (a cycle), keys that are not
    strings, values of other types, and TOML dates and times (they have no meaning in a
    scenario and no JSON form). ``parents`` maps the id of each table and list on the way
    down to its path."""
    if parents is None:
        parents = {}
    if isinstance(value, (dict, list, tuple)):
        if depth > MAX_DEPTH:
            raise _too_deep(where)
        if id(value) in parents:
            raise ScenarioError(
                f"{_short(where)}: contains itself (it is the same object as "
                f"{_short(parents[id(value)] or 'the scenario')}); scenario data must be "
                "tables and lists without cycles"
            )
        parents[id(value)] = where
        try:
            if isinstance(value, dict):
                out = {}
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise ScenarioError(
                            f"{_short(where) or 'scenario'}: keys must be strings, got {k!r}"
                        )
                    out[k] = _plain(v, f"{where}.{k}" if where else k, depth + 1, parents)
                return out
            return [_plain(v, f"{where}.{i}", depth + 1, parents) for i, v in enumerate(value)]
        finally:
            del parents[id(value)]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (_dt.date, _dt.time, _dt.datetime)):
        raise ScenarioError(f"{_short(where)}: dates and times of day are not scenario values, "
                            f"got {value}")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalars
        return _plain(value.item(), where, depth, parents)
    raise ScenarioError(
        f"{_short(where)}: unsupported value of type {type(value).__name__}: {value!r} "
        "(a scenario holds strings, numbers, booleans, lists and tables)"
    )

