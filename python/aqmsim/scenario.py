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
import difflib
import json
import math
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .errors import CORE_IMPORT_ERROR, ScenarioError, SimulationError

if TYPE_CHECKING:
    from .results import Results

__all__ = ["Scenario", "dumps_toml", "MAX_DEPTH"]

#: Tables and lists in a scenario nest at most this many levels deep (the deepest real
#: field, ``dumbbell.groups.0.access.delay.uniform.0``, is 7 levels down), and a dotted
#: field path has at most this many parts. Deeper data is refused with a ScenarioError
#: naming where, instead of exhausting Python's (or the engine's) recursion.
MAX_DEPTH = 64

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
        # _plain copies every table and list (so no deepcopy, whose recursion has no
        # bound) and refuses cycles and nesting deeper than MAX_DEPTH
        self._data: Dict[str, Any] = _plain(dict(data), "", 0, {id(data): ""})
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
        except RecursionError:  # tomllib recurses once per nested array / inline table
            raise ScenarioError(f"{where}: {_too_deep_in_toml(text)}") from None
        try:
            return cls(data, path=path)
        except ScenarioError as exc:
            msg = str(exc)
            raise ScenarioError(msg if path is None else f"{where}: {msg}") from None

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
        done: List[str] = []
        for part, _ in _walk(key):
            node = _child(node, part, key, ".".join(done))
            done.append(str(part))
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
            _set_path(data, key, _plain(value, key, len(key.split(".")) if isinstance(key, str) else 0, {}))
        return Scenario(data, path=self._path)

    # ------------------------------------------------------------------ engine calls
    def validate(self, seed: Optional[int] = None) -> Dict[str, Any]:
        """Check the scenario with the engine; return the resolved scenario (every
        default filled in, every "auto" replaced by its value, every random start and
        delay drawn as :meth:`run` with this ``seed`` draws it) as a dict."""
        core = _core()
        payload = self._payload()
        try:
            resolved = core.validate(payload, seed)
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
            found = _nonfinite(self._data, "")
            if found is None:
                raise ScenarioError(f"{self.label}: {exc}") from None
            where, value = found
            raise self._relabel(ScenarioError(
                f"{_short(where)}: expected a finite number, got {value}"
            )) from None

    def _relabel(self, exc: BaseException) -> ScenarioError:
        """The engine's message in plain words, prefixed by the file when there is one."""
        # positions in the JSON text we sent mean nothing to someone who wrote TOML
        msg = _JSON_POSITION.sub("", str(exc))
        msg = _plain_words(msg, self._data)
        if self._path is not None and not msg.startswith(str(self._path)):
            msg = f"{self._path}: {msg}"
        return ScenarioError(msg)

    def _seed_text(self, seed: Optional[int]) -> str:
        if seed is not None:
            return str(seed)
        return f"{self._data.get('seed', 1)} (from scenario)"


_JSON_POSITION = re.compile(r" at line \d+ column \d+$")


# ---------------------------------------------------------------------- the engine's words
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


# ---------------------------------------------------------------------- dotted paths
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
