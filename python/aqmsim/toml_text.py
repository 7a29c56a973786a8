"""TOML text: writing plain data as TOML (:func:`dumps_toml`, used for ``to_toml`` and
``aqmsim validate --full``), and finding where text that tomllib could not read nests
too deep (:func:`_too_deep_in_toml`)."""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Mapping

from .errors import ScenarioError
from .field_paths import MAX_DEPTH


def _too_deep_in_toml(text: str) -> str:
    """Where TOML text first nests arrays / inline tables more than MAX_DEPTH deep.

    Only called once tomllib has given up (RecursionError), so a rough scan is enough:
    brackets and braces count outside strings and comments."""
    depth, line, col, i, n = 0, 1, 0, 0, len(text)
    while i < n:
        ch = text[i]
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif ch in "\"'":
            triple = text.startswith(ch * 3, i)
            end = ch * 3 if triple else ch
            j = i + len(end)
            while j < n and not text.startswith(end, j):
                if text[j] == "\\" and ch == '"':
                    j += 1
                elif text[j] == "\n" and not triple:
                    break
                j += 1
            skipped = text[i:j + len(end)]
            line += skipped.count("\n")
            col = len(skipped) - skipped.rfind("\n") - 1 if "\n" in skipped else col + len(skipped) - 1
            i = j + len(end)
            continue
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return (f"line {line}, column {col}: arrays and inline tables nested more than "
                        f"{MAX_DEPTH} levels deep; a scenario nests at most {MAX_DEPTH} levels")
        elif ch in "]}":
            depth -= 1
        i += 1
    return (f"arrays and inline tables nested too deep to read; a scenario nests at most "
            f"{MAX_DEPTH} levels")



# ---------------------------------------------------------------------- TOML writer
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _toml_str(k)


def _toml_str(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = repr(v)
        return r if any(c in r for c in ".eE") else r + ".0"
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if v is None:
        raise ScenarioError("TOML has no null value: remove the field instead of setting None")
    raise ScenarioError(f"cannot write {type(v).__name__} {v!r} as TOML")


def _is_array_of_tables(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def _inline_ok(v: Dict[str, Any]) -> bool:
    """Small leaf tables such as ``{ uniform = [0, 1] }`` read best inline."""
    return len(v) == 1 and not any(
        isinstance(x, dict) or _is_array_of_tables(x) for x in v.values()
    )


def _dump_table(d: Dict[str, Any], prefix: str, out: List[str]) -> None:
    tables, arrays = [], []
    for k, v in d.items():
        if v is None:
            continue  # TOML has no null: an unset optional value is absent
        if isinstance(v, dict) and not _inline_ok(v):
            tables.append((k, v))
        elif _is_array_of_tables(v):
            arrays.append((k, v))
        else:
            out.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in tables:
        path = f"{prefix}.{_toml_key(k)}" if prefix else _toml_key(k)
        out.append("")
        out.append(f"[{path}]")
        _dump_table(v, path, out)
    for k, items in arrays:
        path = f"{prefix}.{_toml_key(k)}" if prefix else _toml_key(k)
        for item in items:
            out.append("")
            out.append(f"[[{path}]]")
            _dump_table(item, path, out)


def dumps_toml(data: Mapping[str, Any]) -> str:
    """Write a dict of plain data (str, int, float, bool, lists, dicts) as TOML."""
    out: List[str] = []
    _dump_table(dict(data), "", out)
    text = "\n".join(out).lstrip("\n")
    return text + "\n"
