"""Scenarios: load from TOML or a dict, check, override, run.

A scenario is plain data — the structure documented in ``docs/scenario-reference.md`` —
held as a dict. The native engine does all checking and resolving (``validate``), so
the Python and TOML front ends share one schema and one set of error messages.

>>> sc = Scenario.from_toml("examples/dumbbell-red.toml")            # doctest: +SKIP
>>> sc = sc.with_overrides(**{"dumbbell.bottleneck.queue.max_p": 0.05, "duration": 10})
>>> res = sc.run(seed=3)                                              # doctest: +SKIP
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import math
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .errors import CORE_IMPORT_ERROR, ScenarioError, SimulationError

if TYPE_CHECKING:
    from .results import Results

__all__ = ["Scenario", "dumps_toml"]

PathLike = Union[str, "Path"]


def _core():
    """The native module, or a clear ImportError when it has not been built."""
    if CORE_IMPORT_ERROR is not None:
        raise ImportError(
            "aqmsim's native extension (aqmsim._core) is not built; run `make build` "
            f"(maturin develop) first ({CORE_IMPORT_ERROR})"
        ) from CORE_IMPORT_ERROR
    from . import _core as core

    return core


class Scenario:
    """One simulation scenario (see ``docs/scenario-reference.md``).

    Build one with :meth:`from_toml` or :meth:`from_dict`; derive variants with
    :meth:`with_overrides`; check it with :meth:`validate`; run it with :meth:`run`.
    A Scenario never changes after construction: every method that alters it returns a
    new one.
    """

    __slots__ = ("_data", "_path")

    def __init__(self, data: Mapping[str, Any], path: Optional[PathLike] = None) -> None:
        if not isinstance(data, Mapping):
            raise ScenarioError(f"scenario: expected a table (dict), got {type(data).__name__}")
        self._data: Dict[str, Any] = _plain(copy.deepcopy(dict(data)), "")
        self._path: Optional[Path] = Path(path) if path is not None else None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_toml(cls, path: PathLike) -> "Scenario":
        """Load a scenario file. TOML syntax errors raise :class:`ScenarioError`
        naming the file, line and column; a missing file raises FileNotFoundError."""
        p = Path(path)
        raw = p.read_bytes()  # FileNotFoundError / IsADirectoryError propagate
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"{p}: not valid UTF-8 text ({exc})") from None
        return cls.from_toml_string(text, path=p)

    @classmethod
    def from_toml_string(cls, text: str, path: Optional[PathLike] = None) -> "Scenario":
        """Parse a scenario from TOML text (``path`` only labels messages)."""
        where = str(path) if path is not None else "<string>"
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError(f"{where}: TOML syntax error: {exc}") from None
        return cls(data, path=path)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Scenario":
        """A scenario from the same structure a TOML file holds (copied)."""
        return cls(d)

    # ------------------------------------------------------------------ accessors
    @property
    def path(self) -> Optional[Path]:
        """The file it was loaded from, or None."""
        return self._path

    @property
    def name(self) -> str:
        """The scenario's ``name`` field, else the file's stem, else ""."""
        n = self._data.get("name")
        if isinstance(n, str) and n:
            return n
        return self._path.stem if self._path is not None else ""

    @property
    def label(self) -> str:
        """How messages refer to this scenario: its file, else its name."""
        if self._path is not None:
            return str(self._path)
        return f"scenario {self.name!r}" if self.name else "scenario"

    def to_dict(self) -> Dict[str, Any]:
        """A deep copy of the scenario's data."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        return json.dumps(self._data, allow_nan=False)

    def to_toml(self) -> str:
        """The scenario as TOML text; ``from_toml_string(sc.to_toml())`` gives it back."""
        return dumps_toml(self._data)

    def __getitem__(self, key: str) -> Any:
        """``sc["dumbbell.bottleneck.rate"]``: read a field by dotted path (a copy)."""
        node: Any = self._data
        for part, _ in _walk(key):
            node = _child(node, part, key)
        return copy.deepcopy(node)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        where = f", path={str(self._path)!r}" if self._path is not None else ""
        return f"Scenario(name={self.name!r}{where})"

    # ------------------------------------------------------------------ derivation
    def with_overrides(self, **dotted: Any) -> "Scenario":
        """A new scenario with fields replaced, addressed by dotted path.

        ``sc.with_overrides(**{"dumbbell.bottleneck.queue.max_p": 0.05, "duration": 5})``.
        A numeric part indexes a list (``"dumbbell.groups.0.count"``); missing tables
        are created; the value ``None`` removes the field (so its default applies).
        """
        data = copy.deepcopy(self._data)
        for key, value in dotted.items():
            _set_path(data, key, _plain(copy.deepcopy(value), key))
        return Scenario(data, path=self._path)

    # ------------------------------------------------------------------ engine calls
    def validate(self) -> Dict[str, Any]:
        """Check the scenario with the engine; return the resolved scenario (every
        default filled in, every "auto" replaced by its value) as a dict."""
        core = _core()
        payload = self._payload()
        try:
            resolved = core.validate(payload)
        except ScenarioError as exc:
            raise self._relabel(exc) from None
        return json.loads(resolved)

    def run(self, seed: Optional[int] = None) -> "Results":
        """Simulate; ``seed`` (int >= 0) overrides the scenario's own ``seed``."""
        from .results import Results

        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or seed >= 2**64
        ):
            raise ScenarioError(f"seed: must be an integer in [0, 2^64), got {seed!r}")
        core = _core()
        payload = self._payload()
        try:
            raw = core.run(payload, seed)
        except ScenarioError as exc:
            raise self._relabel(exc) from None
        except SimulationError as exc:
            raise SimulationError(f"{self.label} (seed {self._seed_text(seed)}): {exc}") from exc
        except (KeyboardInterrupt, SystemExit, MemoryError):
            raise
        except BaseException as exc:  # noqa: BLE001 - includes pyo3's PanicException
            raise SimulationError(
                f"{self.label} (seed {self._seed_text(seed)}): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return Results(raw, scenario=self, seed=seed)

    # ------------------------------------------------------------------ internals
    def _payload(self) -> str:
        try:
            return json.dumps(self._data, allow_nan=False)
        except ValueError as exc:  # NaN / inf have no JSON form
            raise ScenarioError(f"{self.label}: {exc}") from None

    def _relabel(self, exc: BaseException) -> ScenarioError:
        """The engine's message, prefixed by the file when there is one."""
        # positions in the JSON text we sent mean nothing to someone who wrote TOML
        msg = _JSON_POSITION.sub("", str(exc))
        if self._path is not None and not msg.startswith(str(self._path)):
            msg = f"{self._path}: {msg}"
        return ScenarioError(msg)

    def _seed_text(self, seed: Optional[int]) -> str:
        if seed is not None:
            return str(seed)
        return f"{self._data.get('seed', 1)} (from scenario)"


_JSON_POSITION = re.compile(r" at line \d+ column \d+$")


# ---------------------------------------------------------------------- dotted paths
def _walk(key: str) -> Iterator[Tuple[Union[str, int], bool]]:
    """Split ``"a.b.0.c"`` into parts (ints for list indexes), flagging the last."""
    if not isinstance(key, str) or not key or any(p == "" for p in key.split(".")):
        raise ScenarioError(f"{key!r}: not a dotted field path like 'dumbbell.bottleneck.rate'")
    parts = key.split(".")
    for i, p in enumerate(parts):
        yield (int(p) if p.isdigit() else p), i == len(parts) - 1


def _child(node: Any, part: Union[str, int], key: str) -> Any:
    if isinstance(part, int) and isinstance(node, list):
        if part >= len(node):
            raise ScenarioError(f"{key}: index {part} out of range (list has {len(node)} items)")
        return node[part]
    if isinstance(node, dict) and str(part) in node:
        return node[str(part)]
    raise ScenarioError(f"{key}: no such field in this scenario")


def _set_path(data: Dict[str, Any], key: str, value: Any) -> None:
    node: Any = data
    parts = list(_walk(key))
    for i, (part, last) in enumerate(parts):
        if isinstance(node, list):
            if not isinstance(part, int):
                raise ScenarioError(f"{key}: '{part}' indexes a list; use a number")
            if part >= len(node):
                raise ScenarioError(
                    f"{key}: index {part} out of range (list has {len(node)} items)"
                )
            if last:
                node[part] = value
                return
            node = node[part]
            continue
        if not isinstance(node, dict):
            done = ".".join(str(p) for p, _ in parts[:i])
            raise ScenarioError(f"{key}: {done} is a {type(node).__name__}, not a table")
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


def _plain(value: Any, where: str) -> Any:
    """Check that a value is plain TOML/JSON data; turn tuples into lists, Paths into str.

    TOML dates and times have no meaning in a scenario and no JSON form: refused."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError(f"{where or 'scenario'}: keys must be strings, got {k!r}")
            out[k] = _plain(v, f"{where}.{k}" if where else k)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}.{i}") for i, v in enumerate(value)]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (_dt.date, _dt.time, _dt.datetime)):
        raise ScenarioError(f"{where}: dates and times of day are not scenario values, got {value}")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalars
        return _plain(value.item(), where)
    raise ScenarioError(f"{where}: unsupported value of type {type(value).__name__}: {value!r}")


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
