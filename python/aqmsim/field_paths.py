"""Dotted field paths into a scenario's data: ``"dumbbell.groups.0.count"`` (or the
engine's spelling, ``"dumbbell.groups[0].count"``) split, read and set, each mistake a
ScenarioError naming the path and what it allows; and the nesting limit, MAX_DEPTH."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any, Dict, Iterator, List, Tuple, Union

from .errors import ScenarioError

#: Tables and lists in a scenario nest at most this many levels deep (the deepest real
#: field, ``dumbbell.groups.0.access.delay.uniform.0``, is 7 levels down), and a dotted
#: field path has at most this many parts. Deeper data is refused with a ScenarioError
#: naming where, instead of exhausting Python's (or the engine's) recursion.
MAX_DEPTH = 64


def _short(path: str, limit: int = 80) -> str:
    """A path as messages show it: a very long one (thousands of parts) cut in the middle."""
    if len(path) <= limit:
        return path
    return f"{path[:limit - 25]}…{path[-20:]}"


_INDEX = re.compile(r"\[(\d+)\](?=\.|\[|$)")


def _walk(key: str) -> Iterator[Tuple[Union[str, int], bool]]:
    """Split ``"a.b.0.c"`` into parts (ints for list indexes), flagging the last. The
    engine's spelling of an index, ``"a.b[0].c"`` (as error messages print paths), is the
    same path."""
    if isinstance(key, str):
        key = _INDEX.sub(r".\1", key)
    if not isinstance(key, str) or not key or any(p == "" for p in key.split(".")):
        raise ScenarioError(
            f"{_short(repr(key))}: not a dotted field path like 'dumbbell.bottleneck.rate' "
            "(names joined by single dots, list items by their index)"
        )
    parts = key.split(".")
    if len(parts) > MAX_DEPTH:
        raise ScenarioError(
            f"{_short(key)}: a field path has at most {MAX_DEPTH} parts, this one has {len(parts)}"
        )
    for i, p in enumerate(parts):
        yield (int(p) if p.isdigit() else p), i == len(parts) - 1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _indexes(where: str, items: List[Any]) -> str:
    """``"dumbbell.groups has 1 item: index 0"`` — which indexes a list allows."""
    n = len(items)
    if n == 0:
        return f"{where} is an empty list: it has no index to address (set the whole list instead)"
    allowed = "index 0" if n == 1 else f"indexes 0 to {n - 1}"
    return f"{where} has {_plural(n, 'item')}: {allowed}"


_KINDS = {str: "a string", bool: "a boolean", int: "a number", float: "a number"}


def _not_a_table(key: str, where: str, node: Any) -> ScenarioError:
    kind = _KINDS.get(type(node), f"a {type(node).__name__}")
    shown = json.dumps(node)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return ScenarioError(
        f"{_short(key)}: {where} is {kind} ({shown}), a single value that takes no sub-keys; "
        f"set {where} itself instead"
    )


def _did_you_mean(name: str, choices: Any) -> str:
    """``"; did you mean 'rate'?"`` when ``name`` is close to one of ``choices``, else ""."""
    close = difflib.get_close_matches(name, [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _child(node: Any, part: Union[str, int], key: str, done: str = "") -> Any:
    where = done or "the scenario"
    if isinstance(node, list):
        if not isinstance(part, int):
            raise ScenarioError(f"{_short(key)}: {where} is a list; {_indexes(where, node)}")
        if part >= len(node):
            raise ScenarioError(
                f"{_short(key)}: index {part} is out of range; {_indexes(where, node)}"
            )
        return node[part]
    if isinstance(node, dict):
        if str(part) in node:
            return node[str(part)]
        keys = ", ".join(node) if node else "none"
        raise ScenarioError(
            f"{_short(key)}: {where} has no field {str(part)!r} (its fields: {keys})"
            + _did_you_mean(str(part), node)
        )
    raise _not_a_table(key, where, node)


def _set_path(data: Dict[str, Any], key: str, value: Any) -> None:
    node: Any = data
    parts = list(_walk(key))
    for i, (part, last) in enumerate(parts):
        done = ".".join(str(p) for p, _ in parts[:i])
        if isinstance(node, list):
            if not isinstance(part, int):
                raise ScenarioError(
                    f"{_short(key)}: {done} is a list, so '{part}' must be an index; "
                    f"{_indexes(done, node)}"
                )
            if part >= len(node):
                raise ScenarioError(
                    f"{_short(key)}: index {part} is out of range; {_indexes(done, node)}"
                )
            if last:
                node[part] = value
                return
            node = node[part]
            continue
        if not isinstance(node, dict):
            raise _not_a_table(key, done, node)
        k = str(part)
        if last:
            if value is None:
                node.pop(k, None)
            else:
                node[k] = value
            return
        if k not in node:
            node[k] = {}
        node = node[k]

