"""Sweep files: parsing (:class:`Sweep`), the values of a varied parameter
(:func:`expand_values`), seeds, the grid of points and their labels. The format is
described in :mod:`aqmsim.sweep`."""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
import sys
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import ScenarioError
from ..plugin.portable import absolute_plugin_paths
from ..scenario import Scenario
from ..store import canonical_json
from .labels import value_labels

__all__ = ["Sweep", "Group", "Task", "SERIES", "DEFAULT_TIMEOUT", "expand_values",
           "short_labels"]
PathLike = Union[str, Path]

#: Results tables a run can keep as time series.
SERIES = ("queue", "drops", "flows", "links", "delay_cdf", "phases")

#: ``(key, scenario dict, seed)`` or ``(key, scenario dict, seed, series names)``.
Task = Tuple[Any, ...]

_SWEEP_KEYS = ("name", "description", "notes", "base", "set", "vary", "seeds", "metrics",
               "series", "store", "timeout", "report")

#: Wall-clock seconds one run may take before its worker is stopped and the run recorded
#: as failed (``error_kind = "timeout"``): a sweep file's ``timeout``, ``run_tasks(...,
#: timeout=)``, ``aqmsim sweep --timeout``. Generous: a run of a real sweep takes seconds.
DEFAULT_TIMEOUT = 600.0

_RANGE_KEYS = frozenset({"start", "stop", "step", "num", "log"})
_MAX_VALUES = 1_000_000


# =========================================================================== sweep files
@dataclass(frozen=True)
class Group:
    """Parameters varied together: ``cross`` (cartesian product) or ``zip``."""

    mode: str
    params: Dict[str, List[Any]]

    def points(self) -> List[Dict[str, Any]]:
        keys = list(self.params)
        if self.mode == "zip":
            rows = zip(*(self.params[k] for k in keys))
        else:
            rows = itertools.product(*(self.params[k] for k in keys))
        return [dict(zip(keys, row)) for row in rows]


@dataclass
class Sweep:
    """A parsed sweep file: a base scenario, the parameter groups, seeds, what to keep."""

    name: str
    base: Dict[str, Any]
    groups: List[Group] = field(default_factory=list)
    seeds: List[int] = field(default_factory=lambda: [1])
    metrics: Optional[List[str]] = None
    series: Tuple[str, ...] = ()
    store: Optional[Path] = None
    path: Optional[Path] = None
    description: str = ""
    timeout: Optional[float] = DEFAULT_TIMEOUT
    spec: Dict[str, Any] = field(default_factory=dict)
    #: The folder relative paths of the file are resolved against (the sweep file's);
    #: None: the working directory.
    folder: Optional[Path] = None
    _names: Optional[Dict[str, Dict[str, str]]] = field(default=None, repr=False,
                                                         compare=False)
    #: Names of the points that resolve alike, grouped (found by :meth:`check_points`).
    _alike: List[List[str]] = field(default_factory=list, repr=False, compare=False)

    # ---------------------------------------------------------------- loading
    @classmethod
    def from_toml(cls, path: PathLike) -> "Sweep":
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file")
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError(f"{p}: TOML syntax error: {exc}") from None
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"{p}: not valid UTF-8 text ({exc})") from None
        return cls.from_dict(data, path=p)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: Optional[PathLike] = None,
                  base_dir: Optional[PathLike] = None) -> "Sweep":
        """A sweep from the structure a sweep file holds. Its relative paths — ``base``,
        ``store`` and the default store ``out/sweeps/NAME`` — are relative to ``base_dir``,
        else to the sweep file's folder, else to the working directory. Every point of the
        grid is validated (:meth:`check_points`)."""
        p = Path(path) if path is not None else None
        where = str(p) if p is not None else "sweep"
        anchor = Path(base_dir) if base_dir is not None else (p.parent if p else None)
        folder = anchor if anchor is not None else Path(".")

        def err(field_: str, msg: str) -> ScenarioError:
            return ScenarioError(f"{where}: {field_}: {msg}")

        if not isinstance(data, Mapping):
            raise ScenarioError(f"{where}: expected a table")
        unknown = [k for k in data if k not in _SWEEP_KEYS]
        if unknown:
            raise err(unknown[0], "unknown field, expected one of " + ", ".join(_SWEEP_KEYS))

        # base scenario
        base_spec = data.get("base")
        if base_spec is None:
            raise err("base", "missing: a scenario file (relative to the sweep file) or a "
                      "[base] table")
        if isinstance(base_spec, str):
            base_path = folder / base_spec
            if not base_path.exists():
                raise err("base", f"{base_path}: no such file")
            sc = Scenario.from_toml(base_path)
            # its plug-ins' files are relative to it: absolute, for every worker
            sc = Scenario(absolute_plugin_paths(sc.to_dict(), base_path.resolve().parent),
                          path=base_path)
        elif isinstance(base_spec, Mapping):
            sc = Scenario.from_dict(base_spec)
        else:
            raise err("base", f"expected a file name or a table, got {base_spec!r}")
        fixed = data.get("set", {})
        if not isinstance(fixed, Mapping):
            raise err("set", "expected a table of dotted keys and values")
        if fixed:
            try:
                sc = sc.with_overrides(**dict(fixed))
            except ScenarioError as exc:
                raise err("set", str(exc)) from None
        base = sc.to_dict()

        name = data.get("name", p.stem if p is not None else "sweep")
        if not isinstance(name, str) or not name.strip():
            raise err("name", f"expected a non-empty string, got {name!r}")

        groups = _parse_groups(data.get("vary", []), err)
        seeds = _parse_seeds(data.get("seeds", 1), err)

        metrics = data.get("metrics")
        if metrics is not None:
            if (not isinstance(metrics, list) or not metrics
                    or not all(isinstance(m, str) and m for m in metrics)):
                raise err("metrics", "expected a non-empty list of summary keys")
            metrics = list(dict.fromkeys(metrics))
        series = data.get("series", [])
        if isinstance(series, str):
            series = [series]
        if not isinstance(series, list) or any(s not in SERIES for s in series):
            raise err("series", f"expected a list of table names among {', '.join(SERIES)}, "
                      f"got {series!r}")
        store = data.get("store")
        if store is not None and not isinstance(store, str):
            raise err("store", f"expected a directory name, got {store!r}")
        desc = data.get("description", "")
        timeout = data.get("timeout", DEFAULT_TIMEOUT)
        if not _number(timeout) or timeout <= 0:
            raise err("timeout", f"expected seconds > 0 (a run's wall-clock limit), got "
                      f"{timeout!r}")

        sweep = cls(name=name.strip(), base=base, groups=groups, seeds=seeds,
                    metrics=metrics, series=tuple(dict.fromkeys(series)),
                    store=(folder / store) if store else None, path=p,
                    description=desc if isinstance(desc, str) else "",
                    timeout=float(timeout),
                    spec=copy.deepcopy(dict(data)), folder=anchor)
        sweep.check_points()
        return sweep

    def check_points(self) -> None:
        """Build and validate every point of the grid with the engine (the scenario parsed
        and resolved, nothing simulated: ~0.3 ms a point), so that a grid one of whose
        points cannot run stops before any run starts: a :class:`ScenarioError` of one
        line naming the first bad point by its parameter values, and the field's error.
        Nothing is checked when the engine cannot be loaded."""
        where = str(self.path) if self.path is not None else "sweep"
        points = self.points()
        bad: List[Tuple[Dict[str, Any], str]] = []
        alike: Dict[str, List[str]] = {}
        for point in points:
            try:
                resolved = Scenario(self._point_data(point)).validate()
            except ScenarioError as exc:
                bad.append((point, str(exc)))
                continue
            except ImportError:  # no engine: nothing to check against
                return
            digest = hashlib.sha256(canonical_json(resolved).encode()).hexdigest()
            alike.setdefault(digest, []).append(self.key_of(point))
        if not bad:
            self._alike = [names for names in alike.values() if len(names) > 1]
            return
        point, msg = bad[0]
        if not self.params:
            raise ScenarioError(f"{where}: base and set: {msg}")
        n = len(points)
        which = (f"every one of the {n} grid points is invalid" if len(bad) == n else
                 f"{len(bad)} of the {n} grid points {'is' if len(bad) == 1 else 'are'} "
                 "invalid")
        raise ScenarioError(f"{where}: {which}, so nothing was run; the first, "
                            f"{self.key_of(point)}: {msg}")

    # ---------------------------------------------------------------- the grid
    @property
    def params(self) -> List[str]:
        """The varied parameters (dotted keys), in file order."""
        return [k for g in self.groups for k in g.params]

    def points(self) -> List[Dict[str, Any]]:
        """Every combination of the varied parameters (groups crossed, in file order)."""
        out: List[Dict[str, Any]] = [{}]
        for g in self.groups:
            out = [{**a, **b} for a in out for b in g.points()]
        return out

    def scenario(self, point: Mapping[str, Any]) -> Dict[str, Any]:
        """The full scenario dict of one point."""
        try:
            return self._point_data(point)
        except ScenarioError as exc:
            raise ScenarioError(f"{self.path or 'sweep'}: vary: {exc}") from None

    def _point_data(self, point: Mapping[str, Any]) -> Dict[str, Any]:
        """The base with the point's values; a plug-in's relative ``file.py:Class`` made
        absolute from the sweep file's folder (workers start elsewhere)."""
        data = Scenario.from_dict(self.base).with_overrides(**dict(point)).to_dict()
        folder = self.folder.resolve() if self.folder is not None else None
        return absolute_plugin_paths(data, folder)

    def labels(self) -> Dict[str, str]:
        """Short names of the varied parameters (the last part of the key when unique)."""
        return short_labels(self.params)

    def key_of(self, point: Mapping[str, Any]) -> str:
        """The point's name: ``max_p=0.1 queue=CoDel`` (a table value by its readable name,
        :meth:`value_label`)."""
        short = self.labels()
        return " ".join(f"{short[k]}={self.value_label(k, v)}"
                        for k, v in point.items()) or self.name

    def value_label(self, param: str, value: Any) -> str:
        """How ``value`` of the varied ``param`` is named in point names, figures and
        tables: a table (a whole queue table) by its discipline and the fields that tell
        it apart from the other values (:func:`aqmsim.sweep.labels.value_labels`), any
        other value as it is written (0.1, true, 15ms)."""
        names = self.table_value_names().get(param)
        if names is not None:
            got = names.get(canonical_json(value))
            if got is not None:
                return got
        return _fmt_value(value)

    def name_values(self, df: Any) -> Any:
        """``df`` (``aqmsim.store.open(store, sweep=name)``) with each table-valued
        parameter's JSON replaced by the value's name (``RED (max_p=0.1)``, ``CoDel``),
        in place; returned for chaining."""
        for param, names in self.table_value_names().items():
            if param in df.columns:
                df[param] = df[param].map(lambda v, n=names: n.get(v, v))
        return df

    def table_value_names(self) -> Dict[str, Dict[str, str]]:
        """``{param: {canonical JSON of a value: its name}}`` for the varied parameters
        some of whose values are tables or lists (computed once)."""
        if self._names is not None:
            return self._names
        out: Dict[str, Dict[str, str]] = {}
        for g in self.groups:
            for k, values in g.params.items():
                if any(isinstance(v, (dict, list)) for v in values):
                    out[k] = {canonical_json(v): name
                              for v, name in zip(values, value_labels(values))}
        self._names = out
        return out

    def tasks(self) -> List[Task]:
        """``(key, scenario dict, seed, series)`` for every point and seed."""
        out: List[Task] = []
        for point in self.points():
            data = self.scenario(point)
            key = self.key_of(point)
            for s in self.seeds:
                out.append((key, data, s, self.series))
        return out

    def alike_points(self) -> List[List[str]]:
        """Names of the points whose scenarios resolve alike, grouped: a varied field that
        no flow or link takes (``tcp.variant`` under groups that name their own) gives
        runs that differ in nothing. Found when the grid is checked (:meth:`check_points`)."""
        return [list(names) for names in self._alike]

    def default_store(self) -> Path:
        """The ``store`` of the file, else ``out/sweeps/<name>`` beside the sweep file (in
        the working directory for a sweep without a file), so that ``aqmsim sweep`` and
        ``aqmsim report`` find the same store from any directory."""
        if self.store is not None:
            return self.store
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name)
        return (self.folder or Path(".")) / "out" / "sweeps" / safe

    def __len__(self) -> int:
        return len(self.points()) * len(self.seeds)


def short_labels(keys: Sequence[str]) -> Dict[str, str]:
    """``{"dumbbell.bottleneck.queue.max_p": "max_p", ...}``; longer tails where two keys
    end alike."""
    out: Dict[str, str] = {}
    for k in keys:
        parts = k.split(".")
        n = 1
        while n < len(parts):
            tail = ".".join(parts[-n:])
            if sum(1 for o in keys if o == tail or o.endswith("." + tail)) == 1:
                break
            n += 1
        out[k] = ".".join(parts[-n:])
    return out


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (dict, list)):
        return canonical_json(v)
    return str(v)


def _parse_groups(spec: Any, err: Callable[[str, str], ScenarioError]) -> List[Group]:
    if isinstance(spec, Mapping):
        spec = [spec]
    if not isinstance(spec, list):
        raise err("vary", "expected a table or an array of tables ([[vary]])")
    groups: List[Group] = []
    seen: Dict[str, int] = {}
    for i, g in enumerate(spec):
        where = f"vary.{i}" if len(spec) > 1 else "vary"
        if not isinstance(g, Mapping):
            raise err(where, f"expected a table, got {g!r}")
        mode = g.get("mode", "cross")
        if mode not in ("cross", "zip"):
            raise err(f"{where}.mode", f"must be \"cross\" or \"zip\", got {mode!r}")
        params: Dict[str, List[Any]] = {}
        for key, values in g.items():
            if key == "mode":
                continue
            if key in seen:
                raise err(f"{where}.{key}", f"already varied in vary.{seen[key]}")
            seen[key] = i
            params[key] = expand_values(values, f"{where}.{key}", err)
        if not params:
            raise err(where, "no parameters: add \"dotted.key\" = [values]")
        if mode == "zip":
            lengths = {k: len(v) for k, v in params.items()}
            if len(set(lengths.values())) > 1:
                raise err(where, f"mode = \"zip\" needs lists of equal length, got {lengths}")
        groups.append(Group(mode, params))
    return groups


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _dec(v: Union[int, float]) -> Decimal:
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


def expand_values(spec: Any, where: str = "value",
                  err: Optional[Callable[[str, str], ScenarioError]] = None) -> List[Any]:
    """The values of one varied parameter: a list as is; ``{start, stop, step}`` (stop
    included when on the grid, exact decimal steps); ``{start, stop, num[, log]}``."""
    if err is None:
        def err(f: str, m: str) -> ScenarioError:
            return ScenarioError(f"{f}: {m}")

    if isinstance(spec, list):
        if not spec:
            raise err(where, "an empty list of values")
        return list(spec)
    if not (isinstance(spec, Mapping) and set(spec) <= _RANGE_KEYS
            and "start" in spec and "stop" in spec):
        raise err(where, "expected a list of values, a range { start, stop, step } or a "
                  f"linspace {{ start, stop, num }}, got {spec!r}")
    start, stop = spec["start"], spec["stop"]
    if not (_number(start) and _number(stop)):
        raise err(where, f"start and stop must be numbers, got {start!r} and {stop!r}")
    if ("step" in spec) == ("num" in spec):
        raise err(where, "give exactly one of step (a range) or num (a linspace)")
    if "step" in spec:
        step = spec["step"]
        if not _number(step) or step == 0:
            raise err(where, f"step must be a non-zero number, got {step!r}")
        if spec.get("log"):
            raise err(where, "log = true goes with num, not step")
        try:
            d0, d1, ds = _dec(start), _dec(stop), _dec(step)
            count = ((d1 - d0) / ds).to_integral_value(rounding=ROUND_FLOOR)
        except InvalidOperation:  # pragma: no cover
            raise err(where, "not a usable range") from None
        if count < 0:
            raise err(where, f"step {step} never goes from {start} to {stop}")
        if count >= _MAX_VALUES:
            raise err(where, f"{count + 1} values is too many (at most {_MAX_VALUES})")
        ints = all(isinstance(x, int) for x in (start, step))
        vals = [d0 + i * ds for i in range(int(count) + 1)]
        return [int(v) if ints else float(v) for v in vals]
    num = spec["num"]
    if isinstance(num, bool) or not isinstance(num, int) or num < 1 or num > _MAX_VALUES:
        raise err(where, f"num must be an integer in [1, {_MAX_VALUES}], got {num!r}")
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise err(where, f"log must be true or false, got {log!r}")
    if log and (start <= 0 or stop <= 0):
        raise err(where, "log = true needs start and stop > 0")
    out: List[Any] = []
    for i in range(num):
        f = i / (num - 1) if num > 1 else 0.0
        if log:
            x = math.exp(math.log(start) + f * (math.log(stop) - math.log(start)))
        else:
            x = start + f * (stop - start)
        if i == num - 1 and num > 1:
            x = stop
        out.append(float(f"{x:.12g}"))
    if not log and isinstance(start, int) and isinstance(stop, int) and all(
            v.is_integer() for v in out):
        out = [int(v) for v in out]
    return out


def _parse_seeds(spec: Any, err: Callable[[str, str], ScenarioError]) -> List[int]:
    if isinstance(spec, bool):
        raise err("seeds", f"expected a count or a list of seeds, got {spec!r}")
    if isinstance(spec, int):
        if spec < 1:
            raise err("seeds", f"a count must be >= 1, got {spec}")
        return list(range(1, spec + 1))
    if isinstance(spec, list) and spec and all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**64 for s in spec):
        if len(set(spec)) != len(spec):
            raise err("seeds", "a seed appears twice")
        return list(spec)
    raise err("seeds", f"expected a count (seeds 1..N) or a list of integers >= 0, got {spec!r}")

