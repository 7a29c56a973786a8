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
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .engine_messages import _JSON_POSITION, _nonfinite, _plain_words
from .errors import ScenarioError, SimulationError
# MAX_DEPTH, _core, dumps_toml and _set_path are imported from here by other modules
from .field_paths import MAX_DEPTH, _child, _set_path, _short, _walk
from .native import _core
from .plain_data import _plain
from .toml_text import _too_deep_in_toml, dumps_toml

if TYPE_CHECKING:
    from .results import Results

__all__ = ["Scenario", "dumps_toml", "MAX_DEPTH"]


PathLike = Union[str, "Path"]


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
            resolved = core.validate(payload, seed, self._plugins())
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
            raw = core.run(payload, seed, self._plugins())
        except ScenarioError as exc:
            raise self._relabel(exc) from None
        except SimulationError as exc:  # PluginError (a plug-in failed) keeps its class
            raise type(exc)(f"{self.label} (seed {self._seed_text(seed)}): {exc}") from exc
        except (KeyboardInterrupt, SystemExit, MemoryError):
            raise
        except BaseException as exc:  # noqa: BLE001 - includes pyo3's PanicException
            raise SimulationError(
                f"{self.label} (seed {self._seed_text(seed)}): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return Results(raw, scenario=self, seed=seed)

    # ------------------------------------------------------------------ internals
    def _plugins(self) -> Any:
        """The factory of the scenario's Python plug-ins (``aqmsim.plugin``), or None."""
        from .plugin.factory import uses_plugins

        if not uses_plugins(self._data):
            return None
        from .plugin.factory import Factory

        return Factory(base_dir=self._path.parent if self._path is not None else None)

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

