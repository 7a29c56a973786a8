"""Parameter sweeps: a grid of scenarios × seeds, run on a local process pool or on a Dask
distributed cluster, every finished run written at once to a store (:mod:`aqmsim.store`).

A sweep file (TOML)::

    name = "red-max-p"                  # default: the file's stem
    base = "dumbbell-red.toml"          # scenario file, relative to this file (or a [base] table)
    seeds = 5                           # seeds 1..5, or a list: [1, 7, 9]
    metrics = ["utilisation", "time_avg_queue_pkts"]   # summary keys kept (default: all)
    series = ["queue"]                  # Results tables kept per run, as Parquet (default: none)
    # store = "out/sweeps/red"          # store directory, relative to this file
    # timeout = 600                     # a run's wall-clock limit, s (default 600): past
    #                                   # it the run is stopped and recorded failed

    [set]                               # fixed overrides for every run (dotted keys)
    duration = 10
    "dumbbell.groups.0.stop" = 10

    [[vary]]                            # a group of parameters; groups are crossed
    mode = "cross"                      # cartesian product of the group's lists (default)
    "dumbbell.bottleneck.queue.max_p" = [0.02, 0.05, 0.1]
    "dumbbell.bottleneck.queue.w_q" = { start = 0.001, stop = 0.004, step = 0.001 }

    [[vary]]
    mode = "zip"                        # element-wise: equal lengths, taken together
    "dumbbell.bottleneck.queue.min_th" = [5, 10]
    "dumbbell.bottleneck.queue.max_th" = [15, 30]

Values: a list, a range ``{ start, stop, step }`` (stop included when it falls on the
grid, computed in decimal so 0.1 steps give 0.3, not 0.30000000000000004) or a linspace
``{ start, stop, num }`` (``log = true`` for a geometric one).

Each run is ``(scenario, seed)``; its key in the store is ``(scenario hash, seed)``
(:func:`aqmsim.store.scenario_hash`), so running a sweep again runs only what is missing,
and two sweeps that share runs share them. Each simulation is single-threaded and
deterministic: a run gives the same result on any worker.

From Python::

    from aqmsim.sweep import Sweep, run_sweep
    result = run_sweep(Sweep.from_toml("examples/sweeps/red.toml"), workers=2)
    df = aqmsim.store.open(result.store, sweep=result.name)

Other runners (the paper reproductions) can hand over their own tasks — tuples
``(key, scenario dict, seed[, series names])`` — to :func:`run_tasks`, which runs what the
store lacks and retries each failure once.
"""

from __future__ import annotations

import copy
import io
import itertools
import math
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import signal
import socket
import sys
import tempfile
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from pathlib import Path
from typing import (Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence,
                    Tuple, Union)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .errors import ScenarioError

__all__ = [
    "Sweep", "Group", "Task", "RunOutcome", "SweepResult", "Counts", "LocalPool", "DaskPool",
    "SharedPool", "SchedulerAddressError", "check_scheduler_address", "DEFAULT_TIMEOUT",
    "CONNECT_TIMEOUT",
    "run_sweep", "run_tasks", "execute", "expand_values", "bench_throughput", "SERIES",
]

PathLike = Union[str, Path]

#: Results tables a run can keep as time series.
SERIES = ("queue", "drops", "flows", "links")

#: ``(key, scenario dict, seed)`` or ``(key, scenario dict, seed, series names)``.
Task = Tuple[Any, ...]

_SWEEP_KEYS = ("name", "description", "notes", "base", "set", "vary", "seeds", "metrics",
               "series", "store", "timeout", "report")

#: Wall-clock seconds one run may take before its worker is stopped and the run recorded
#: as failed (``error_kind = "timeout"``): a sweep file's ``timeout``, ``run_tasks(...,
#: timeout=)``, ``aqmsim sweep --timeout``. Generous: a run of a real sweep takes seconds.
DEFAULT_TIMEOUT = 600.0

#: Seconds to wait for a Dask scheduler to answer (``aqmsim sweep --scheduler``).
CONNECT_TIMEOUT = 10.0
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
        """A sweep from the structure a sweep file holds. A ``base`` path is relative to
        ``base_dir``, else to the sweep file's folder, else to the working directory."""
        from .scenario import Scenario

        p = Path(path) if path is not None else None
        where = str(p) if p is not None else "sweep"
        folder = Path(base_dir) if base_dir is not None else (p.parent if p else Path("."))

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
                    spec=copy.deepcopy(dict(data)))
        sweep._check_keys(sc, err)
        return sweep

    def _check_keys(self, base: Any, err: Callable[[str, str], ScenarioError]) -> None:
        """A misspelt field (varied or in [set]) stops the sweep before it starts, as every
        run would fail alike; an invalid value in one corner of the grid does not. A field
        that only some points accept (``risk_th`` where ``kind`` is also varied) is fine."""
        from .scenario import Scenario

        def structural(msg: str, key: str) -> bool:
            return (msg.startswith(key + ":") or f": {key}:" in msg) and any(
                w in msg for w in ("unknown field", "not a parameter", "no such field",
                                   "out of range"))

        def error_of(sc: Any) -> str:
            try:
                sc.validate()
            except ScenarioError as exc:
                return str(exc)
            return ""

        try:
            base_error = error_of(base)
        except ImportError:  # no engine: nothing to check against
            return
        suspects: Dict[str, str] = {}
        for g in self.groups:
            for key, values in g.params.items():
                try:
                    msg = error_of(base.with_overrides(**{key: values[0]}))
                except ScenarioError as exc:
                    msg = str(exc)
                if structural(msg, key):
                    suspects[key] = msg
        for key in self.spec.get("set", {}) or {}:
            if structural(base_error, key):
                suspects[key] = base_error
        if not suspects:
            return
        # a suspect is refused only if no point of the grid accepts it
        for point in self.points():
            try:
                msg = error_of(Scenario.from_dict(self.scenario(point)))
            except ScenarioError as exc:
                msg = str(exc)
            for key in [k for k in suspects if not structural(msg, k)]:
                del suspects[key]
            if not suspects:
                return
        key, msg = next(iter(suspects.items()))
        raise err(("set " if key in (self.spec.get("set") or {}) else "vary ") + key, msg)

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
        from .scenario import Scenario

        try:
            return Scenario.from_dict(self.base).with_overrides(**dict(point)).to_dict()
        except ScenarioError as exc:
            raise ScenarioError(f"{self.path or 'sweep'}: vary: {exc}") from None

    def labels(self) -> Dict[str, str]:
        """Short names of the varied parameters (the last part of the key when unique)."""
        return short_labels(self.params)

    def key_of(self, point: Mapping[str, Any]) -> str:
        short = self.labels()
        return " ".join(f"{short[k]}={_fmt_value(v)}" for k, v in point.items()) or self.name

    def tasks(self) -> List[Task]:
        """``(key, scenario dict, seed, series)`` for every point and seed."""
        out: List[Task] = []
        for point in self.points():
            data = self.scenario(point)
            key = self.key_of(point)
            for s in self.seeds:
                out.append((key, data, s, self.series))
        return out

    def default_store(self) -> Path:
        """The ``store`` of the file, else ``out/sweeps/<name>`` in the working directory."""
        if self.store is not None:
            return self.store
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name)
        return Path("out") / "sweeps" / safe

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
        from .store import canonical_json

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


# =========================================================================== one run
def _version() -> str:
    try:
        from . import __version__

        return str(__version__)
    except Exception:  # pragma: no cover
        return "unknown"


def _failure(kind: str, message: str, **extra: Any) -> Dict[str, Any]:
    return {"status": "failed", "error_kind": kind, "error": message, **extra}


def execute(payload: Mapping[str, Any]) -> Dict[str, Any]:
    """Run one task in a worker: ``{"scenario", "seed", "series"}`` → a plain dict
    (``status`` ok|failed, ``summary``, ``series`` as Parquet bytes, ``error``,
    ``error_kind``, ``wall``, ``worker``, ``version``). It never raises for a failed run:
    exceptions of the native module do not travel between processes. A payload with
    ``"engine": "ns2"`` runs the scenario in ns-2 instead
    (:func:`aqmsim.ns2.column.execute_ns2`: a summary under aqmsim's names, no series)."""
    if payload.get("engine") == "ns2":
        from .ns2.column import execute_ns2

        return execute_ns2(payload)
    t0 = time.perf_counter()
    ident = {"worker": f"{socket.gethostname()}:{os.getpid()}", "version": _version()}
    try:
        from .errors import ScenarioError as _SE
        from .errors import SimulationError as _SimE
        from .scenario import Scenario

        try:
            res = Scenario.from_dict(payload["scenario"]).run(seed=int(payload["seed"]))
            series: Dict[str, bytes] = {}
            if payload.get("series"):
                import pyarrow.parquet as pq

                for name in payload["series"]:
                    # straight from the engine's columns, no DataFrame (typed as Results
                    # types it; aqmsim.results.read_parquet reads it back as that DataFrame)
                    buf = io.BytesIO()
                    pq.write_table(res.arrow(name), buf)
                    series[name] = buf.getvalue()
            return {"status": "ok", "summary": dict(res.summary), "series": series,
                    "wall": time.perf_counter() - t0, **ident}
        except _SE as exc:
            return _failure("scenario", str(exc), wall=time.perf_counter() - t0, **ident)
        except _SimE as exc:
            return _failure("simulation", str(exc), wall=time.perf_counter() - t0, **ident)
    except Exception as exc:  # noqa: BLE001 - reported, the sweep goes on
        return _failure("error", f"{type(exc).__name__}: {exc}",
                        wall=time.perf_counter() - t0, **ident)


# =========================================================================== pools
def _exit_text(code: Optional[int]) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _worker_main(conn: Any, run_fn: Callable[[Any], Dict[str, Any]]) -> None:
    """A local worker: import the engine, say ready, then run tasks until told to stop or
    the driver goes away (EOF on the pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    try:
        import aqmsim  # noqa: F401 - load the engine once, before the first task

        conn.send(("ready", os.getpid()))
    except BaseException as exc:  # noqa: BLE001
        try:
            conn.send(("broken", f"{type(exc).__name__}: {exc}"))
        finally:
            return
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        tid, payload = msg
        try:
            res = run_fn(payload)
        except BaseException as exc:  # noqa: BLE001
            res = _failure("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send((tid, res))
        except (OSError, ValueError):
            return
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
            try:
                conn.send((tid, _failure("error", f"result not transferable: {exc}")))
            except Exception:  # noqa: BLE001
                return


#: ``status`` of a task a local worker was handed but never started (it died running the
#: one before): the driver gives it to a worker again, without counting an attempt.
_REQUEUE = "requeue"


def _timeout_failure(limit: float) -> Dict[str, Any]:
    return _failure("timeout", f"no result within the time limit of {limit:g} s per run "
                    "(stopped; raise it with timeout = S in the sweep file or --timeout S)")


class _Slot:
    __slots__ = ("proc", "conn", "tids", "limits", "started")

    def __init__(self, proc: Any, conn: Any) -> None:
        self.proc, self.conn = proc, conn
        self.tids: Deque[int] = deque()   # handed over, in order; the first one is running
        self.limits: Deque[Optional[float]] = deque()  # each task's time limit, s
        self.started = 0.0                # when the first of tids started (about)

    def overdue(self, now: float) -> bool:
        limit = self.limits[0] if self.limits else None
        return bool(self.tids) and limit is not None and now - self.started > limit

    def deadline(self) -> Optional[float]:
        limit = self.limits[0] if self.limits else None
        return None if not self.tids or limit is None else self.started + limit


class LocalPool:
    """``workers`` processes (spawned, so no state is inherited), each with its own pipe.
    Each holds up to ``depth`` tasks — the one it runs and the next ones, so that it never
    waits for the driver between two short runs. Tasks run in the order handed over: when
    a process dies, the first task it had not answered is the one it was running (reported
    failed), the others never started (handed back, see ``_REQUEUE``), and a new process
    takes its place. A task still running past its time limit (``submit(..., timeout=)``)
    has its process killed: it is reported failed (``error_kind = "timeout"``), and the
    process replaced like a dead one."""

    kind = "local"

    def __init__(self, workers: int, run_fn: Callable[[Any], Dict[str, Any]] = execute,
                 start_timeout: float = 120.0, depth: int = 2) -> None:
        self._ctx = mp.get_context("spawn")
        self._run_fn = run_fn
        self._timeout = start_timeout
        self.workers = max(1, int(workers))
        self.depth = max(1, int(depth))
        self._slots: List[_Slot] = []
        try:
            for _ in range(self.workers):
                self._slots.append(self._spawn())
            for s in self._slots:
                self._await_ready(s)
        except BaseException:
            self.close(kill=True)
            raise

    def describe(self) -> str:
        return f"local pool, {self.workers} worker process{'es' if self.workers > 1 else ''}"

    def _spawn(self) -> _Slot:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_worker_main, args=(child, self._run_fn),
                                 name="aqmsim-sweep-worker", daemon=True)
        proc.start()
        child.close()
        return _Slot(proc, parent)

    def _await_ready(self, s: _Slot) -> None:
        if not s.conn.poll(self._timeout):
            raise RuntimeError(f"a sweep worker did not start within {self._timeout:g} s")
        try:
            msg = s.conn.recv()
        except (EOFError, OSError):
            s.proc.join(5)
            raise RuntimeError("a sweep worker died while starting "
                               f"({_exit_text(s.proc.exitcode)})") from None
        if msg[0] != "ready":
            raise RuntimeError(f"a sweep worker could not start: {msg[1]}")

    def _replace(self, s: _Slot) -> None:
        try:
            s.conn.close()
        except OSError:
            pass
        if s.proc.is_alive():
            s.proc.kill()
        s.proc.join(5)
        fresh = self._spawn()
        self._await_ready(fresh)
        s.proc, s.conn = fresh.proc, fresh.conn

    #: Work each process is given ahead, in seconds of its runs (see :meth:`queue_for`).
    AHEAD_S = 0.05
    MAX_DEPTH = 16

    def queue_for(self, run_s: float) -> None:
        """Runs of ``run_s`` seconds: hold ~``AHEAD_S`` of them per process (2 to
        ``MAX_DEPTH``), so that short runs do not wait while the driver writes, and long
        ones are not queued behind each other when another process is free."""
        self.depth = max(2, min(self.MAX_DEPTH, math.ceil(self.AHEAD_S / max(run_s, 1e-6))))

    def free(self) -> int:
        return sum(max(0, self.depth - len(s.tids)) for s in self._slots)

    def submit(self, tid: int, payload: Any, timeout: Optional[float] = None) -> None:
        """Hand a task to the least loaded process; ``timeout``: its wall-clock limit in
        seconds from when it starts (None: none)."""
        # the least loaded worker (an idle one first)
        s = min((s for s in self._slots if len(s.tids) < self.depth), key=lambda s: len(s.tids))
        if not s.tids and not s.proc.is_alive():
            self._replace(s)
        try:
            s.conn.send((tid, payload))
        except (OSError, EOFError):
            if not s.tids:
                self._replace(s)
                s.conn.send((tid, payload))
            # else it died with tasks in hand: wait() reports them, this one with them
            # (handed back: it never started)
        if not s.tids:
            s.started = time.monotonic()
        s.tids.append(tid)
        s.limits.append(timeout if timeout is not None and timeout > 0 else None)

    def _pop(self, s: _Slot) -> int:
        s.limits.popleft()
        # the next task starts as this one ends (as the driver sees it: a limit counted
        # from here is, if anything, longer than the run had)
        s.started = time.monotonic()
        return s.tids.popleft()

    def wait(self, timeout: Optional[float]) -> List[Tuple[int, Dict[str, Any]]]:
        """Every result ready now (after waiting up to ``timeout`` for the first)."""
        busy = [s for s in self._slots if s.tids]
        if not busy:
            return []
        deadlines = [d for d in (s.deadline() for s in busy) if d is not None]
        if deadlines:
            until = max(0.0, min(deadlines) - time.monotonic())
            timeout = until if timeout is None else min(timeout, until)
        objs: List[Any] = [s.conn for s in busy] + [s.proc.sentinel for s in busy]
        ready = mpc.wait(objs, timeout)
        out: List[Tuple[int, Dict[str, Any]]] = []
        now = time.monotonic()
        for s in busy:
            late = s.overdue(now)
            if s.conn not in ready and s.proc.sentinel not in ready and not late:
                continue
            dead = False
            try:
                while s.tids and s.conn.poll():
                    got_tid, res = s.conn.recv()
                    tid = self._pop(s)
                    if got_tid != tid:  # pragma: no cover - protocol guard
                        res = _failure("error", "worker answered for another task")
                    out.append((tid, res))
            except (EOFError, OSError):
                dead = True
            if late and s.overdue(now) and not dead and s.proc.is_alive():
                # still running past its limit (its answer, had it come, was read above)
                limit = s.limits[0]
                s.proc.kill()
                s.proc.join(5)
                out.append((self._pop(s), _timeout_failure(limit)))
                while s.tids:
                    out.append((self._pop(s), {"status": _REQUEUE}))
                self._replace(s)
            elif s.tids and (dead or not s.proc.is_alive()):
                s.proc.join(5)
                out.append((self._pop(s), _failure(
                    "worker", f"the worker process running it died ({_exit_text(s.proc.exitcode)})")))
                while s.tids:
                    out.append((self._pop(s), {"status": _REQUEUE}))
                self._replace(s)
        return out

    def close(self, kill: bool = False) -> None:
        for s in self._slots:
            if not kill:
                try:
                    s.conn.send(None)
                except (OSError, ValueError):
                    pass
        for s in self._slots:
            if kill and s.proc.is_alive():
                s.proc.terminate()
            s.proc.join(0.5 if kill else 5)
            if s.proc.is_alive():
                s.proc.kill()
                s.proc.join(5)
            try:
                s.conn.close()
            except OSError:
                pass
        self._slots = []


class DaskPool:
    """Tasks on a Dask ``distributed`` cluster. A worker that dies is the scheduler's to
    handle first (it reruns the task elsewhere, up to ``distributed.scheduler.allowed-
    failures`` times); a task that still fails comes back as a failure like any other.

    A task past its time limit (``submit(..., timeout=)``, counted from when a worker
    first shows it executing; one never seen executing gets twice that from its
    submission) is cancelled and
    reported failed (``error_kind = "timeout"``). Dask cannot stop the Python thread
    running it: a worker keeps that thread busy until the run ends (or the worker is
    restarted)."""

    kind = "dask"

    def __init__(self, scheduler: Optional[str] = None, client: Any = None,
                 run_fn: Callable[[Any], Dict[str, Any]] = execute,
                 connect_timeout: float = CONNECT_TIMEOUT) -> None:
        if client is None:
            scheduler = check_scheduler_address(scheduler)
        try:
            import distributed
        except ImportError as exc:
            raise ImportError("--scheduler needs the dask distributed package "
                              "(pip install distributed)") from exc
        self._dd = distributed
        self._own = client is None
        if client is None:
            client = _connect(distributed, scheduler, connect_timeout)
        self.client = client
        self._run_fn = run_fn
        self._futures: Dict[str, Tuple[int, Any]] = {}
        self._limits: Dict[str, Tuple[float, float]] = {}  # key -> (limit, start)
        self._seen_running: set = set()
        self._checked_at = 0.0
        self._threads = 0
        self._threads_at = 0.0
        self._done = distributed.as_completed(loop=client.loop)

    def describe(self) -> str:
        info = self.client.scheduler_info()
        workers = info.get("workers", {})
        threads = sum(w.get("nthreads", 1) for w in workers.values())
        return (f"Dask cluster {info.get('address', '?')}, {len(workers)} worker"
                f"{'s' if len(workers) != 1 else ''}, {threads} thread"
                f"{'s' if threads != 1 else ''}")

    def _total_threads(self) -> int:
        now = time.monotonic()
        if now - self._threads_at > 2.0:
            try:
                self._threads = sum(self.client.nthreads().values())
            except Exception:  # noqa: BLE001
                pass
            self._threads_at = now
        return self._threads

    def free(self) -> int:
        window = max(2 * self._total_threads(), 4)
        return max(0, window - len(self._futures))

    def submit(self, tid: int, payload: Any, timeout: Optional[float] = None) -> None:
        fut = self.client.submit(self._run_fn, payload, pure=False,
                                 key=f"aqmsim-run-{tid}-{uuid.uuid4().hex[:12]}")
        self._futures[fut.key] = (tid, fut)
        if timeout is not None and timeout > 0:
            self._limits[fut.key] = (float(timeout), time.monotonic())
        self._done.add(fut)

    #: Seconds between two looks at what the workers are running (for time limits).
    CHECK_EVERY = 1.0

    def _overdue(self) -> List[Tuple[int, Dict[str, Any]]]:
        """Cancel the tasks past their time limit; their failures."""
        now = time.monotonic()
        if not self._limits or now - self._checked_at < self.CHECK_EVERY:
            return []
        self._checked_at = now
        try:  # a task's limit runs from when a worker shows it executing
            # (bounded: a worker slow to answer must not stall the driver)
            got = self.client.sync(self.client._run, _executing, on_error="ignore",
                                   callback_timeout=5.0)
            running = {k for keys in got.values() for k in keys}
        except Exception:  # noqa: BLE001 - else from when the scheduler assigns it
            try:
                running = {k for keys in self.client.processing().values() for k in keys}
            except Exception:  # noqa: BLE001 - else from its submission
                running = set(self._limits)
        for key in running:
            if key in self._limits and key not in self._seen_running:
                self._seen_running.add(key)
                limit, _ = self._limits[key]
                self._limits[key] = (limit, now)
        late = [k for k, (limit, t0) in self._limits.items()
                if k in self._seen_running and now - t0 > limit
                or k not in self._seen_running and now - t0 > 2 * limit]
        out: List[Tuple[int, Dict[str, Any]]] = []
        for key in late:
            if self._futures[key][1].status != "pending":
                continue  # it ended meanwhile: wait() reports it
            tid, fut = self._futures.pop(key)
            limit, _ = self._limits.pop(key)
            self._seen_running.discard(key)
            try:
                self.client.cancel([fut])
            except Exception:  # noqa: BLE001
                pass
            out.append((tid, _timeout_failure(limit)))
        return out

    def wait(self, timeout: Optional[float]) -> List[Tuple[int, Dict[str, Any]]]:
        if not self._futures:
            return []
        # (distributed.wait needs a default client; as_completed follows our own)
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._done.has_ready():
            late = self._overdue()
            if late:
                return late
            if deadline is not None and time.monotonic() >= deadline:
                return []
            time.sleep(0.005)
        done = self._done.next_batch(block=False)
        out: List[Tuple[int, Dict[str, Any]]] = self._overdue()
        for fut in done:
            if fut.key not in self._futures:
                continue  # cancelled past its time limit, reported then
            self._limits.pop(fut.key, None)
            self._seen_running.discard(fut.key)
            tid, _ = self._futures.pop(fut.key)
            if fut.status == "finished":
                try:
                    res = fut.result()
                except Exception as exc:  # noqa: BLE001
                    res = _failure("error", f"{type(exc).__name__}: {exc}")
            elif fut.status == "cancelled":
                res = _failure("worker", "the task was cancelled on the cluster")
            else:
                exc = fut.exception()
                kind = "worker" if type(exc).__name__ == "KilledWorker" else "error"
                res = _failure(kind, f"{type(exc).__name__}: {exc}")
            fut.release()
            out.append((tid, res))
        return out

    def close(self, kill: bool = False) -> None:
        futs = [f for _, f in self._futures.values()]
        if futs:
            try:
                self.client.cancel(futs)
            except Exception:  # noqa: BLE001
                pass
        self._futures.clear()
        self._limits.clear()
        self._seen_running.clear()
        self._done.clear()
        if self._own:
            self.client.close()


def _executing(dask_worker: Any) -> List[str]:
    """(Run on each Dask worker.) The keys of the tasks it is executing now."""
    return [str(ts.key) for ts in getattr(dask_worker.state, "executing", ())]


_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


class SchedulerAddressError(ConnectionError, ValueError):
    """A ``--scheduler`` address that cannot be one, or a scheduler that does not answer."""


def check_scheduler_address(address: Any) -> str:
    """``address`` if it can be a Dask scheduler's (``tcp://HOST:PORT``; also ``tls://``,
    ``ws://``, ``wss://``, ``ucx://``, ``inproc://…``, or ``HOST:PORT`` for tcp), else a
    :class:`SchedulerAddressError` saying what is wrong — before any connection is tried
    (a malformed one otherwise fails only after a minute, with a traceback)."""
    if not isinstance(address, str) or not address.strip():
        raise SchedulerAddressError(f"--scheduler: expected an address such as "
                                    f"tcp://HOST:8786, got {address!r}")
    addr = address.strip()
    scheme, sep, rest = addr.partition("://")
    if not sep:
        scheme, rest = "tcp", addr
    scheme = scheme.lower()
    bad = f"--scheduler {addr!r}: "
    if scheme not in _SCHEMES:
        raise SchedulerAddressError(bad + f"unknown scheme {scheme!r}, expected one of "
                                    + ", ".join(s + "://" for s in _SCHEMES))
    if scheme == "inproc":
        if not rest:
            raise SchedulerAddressError(bad + "inproc:// needs an address")
        return addr
    rest = rest.rstrip("/")
    if rest.startswith("["):  # [IPv6]:PORT
        host, close, tail = rest[1:].partition("]")
        if not close or not tail.startswith(":"):
            raise SchedulerAddressError(bad + "expected [IPV6]:PORT after the scheme")
        port = tail[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon:
            raise SchedulerAddressError(bad + "no port: expected " + scheme
                                        + "://HOST:PORT (the scheduler's default is 8786)")
    if not host or any(c in host for c in "/ ?#@"):
        raise SchedulerAddressError(bad + f"not a host name: {host!r}")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise SchedulerAddressError(bad + f"the port must be a number in 1-65535, got {port!r}")
    return addr if sep else f"tcp://{addr}"


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    """A client of the scheduler at ``address``, or a :class:`ConnectionError` within about
    ``timeout`` seconds (also when something accepts the connection but never answers)."""
    import threading

    box: Dict[str, Any] = {}

    def connect() -> None:
        try:
            box["client"] = distributed.Client(address, timeout=timeout,
                                               set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    th = threading.Thread(target=connect, name="aqmsim-dask-connect", daemon=True)
    th.start()
    th.join(timeout + min(5.0, timeout))
    if th.is_alive():  # left behind: a daemon thread, closed with the process
        raise SchedulerAddressError(f"no answer from a Dask scheduler at {address} within "
                                    f"{timeout:g} s (is it a Dask scheduler?)")
    exc = box.get("error")
    if exc is not None:
        if isinstance(exc, (OSError, TimeoutError, asyncio_timeout_error())):
            raise SchedulerAddressError(f"could not reach the Dask scheduler at {address} "
                                        f"within {timeout:g} s: {exc or type(exc).__name__}") from None
        if isinstance(exc, (ValueError, TypeError)):
            raise SchedulerAddressError(f"--scheduler {address!r}: {exc}") from None
        raise exc
    return box["client"]


def asyncio_timeout_error() -> type:
    import asyncio

    return asyncio.TimeoutError


class SharedPool:
    """A pool started when first used and shared by several :func:`run_tasks` calls (pass
    it as ``pool``): ``aqmsim reproduce all`` starts its workers once for every paper, and
    not at all when every run is already in the stores. ``workers`` local processes
    (default: one per CPU), or the Dask cluster at ``scheduler``. After an error in the
    middle of a run it is closed, and starts afresh if used again. Use it as a context
    manager, or call :meth:`close`."""

    def __init__(self, workers: Optional[int] = None, scheduler: Optional[str] = None,
                 client: Any = None,
                 run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None) -> None:
        self._workers, self._scheduler, self._client = workers, scheduler, client
        self._run_fn = run_fn or execute
        self._pool: Any = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def _get(self) -> Any:
        if self._pool is None:
            if self._scheduler is not None or self._client is not None:
                self._pool = DaskPool(self._scheduler, client=self._client, run_fn=self._run_fn)
            else:
                self._pool = LocalPool(self._workers or os.cpu_count() or 1, run_fn=self._run_fn)
        return self._pool

    def describe(self) -> str:
        return self._get().describe()

    def free(self) -> int:
        return self._get().free()

    def submit(self, tid: int, payload: Any, timeout: Optional[float] = None) -> None:
        self._get().submit(tid, payload, timeout=timeout)

    def wait(self, timeout: Optional[float]) -> List[Tuple[int, Dict[str, Any]]]:
        return self._get().wait(timeout)

    def queue_for(self, run_s: float) -> None:
        if hasattr(self._pool, "queue_for"):
            self._pool.queue_for(run_s)

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.close(kill=kill)

    def __enter__(self) -> "SharedPool":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self.close(kill=exc_type is not None)


# =========================================================================== running
@dataclass
class Counts:
    """Progress of a sweep: every run is ok, failed (for good) or left."""

    total: int
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    retrying: int = 0

    @property
    def done(self) -> int:
        return self.ok + self.failed

    @property
    def left(self) -> int:
        return self.total - self.ok - self.failed


@dataclass
class RunOutcome:
    key: Any
    hash: str
    seed: int
    status: str            # ok | failed
    error: Optional[str]
    error_kind: Optional[str]
    attempts: int
    skipped: bool           # already in the store before this invocation


@dataclass
class SweepResult:
    name: Optional[str]
    store: Path
    counts: Counts
    outcomes: List[RunOutcome]
    seconds: float          # from start to end
    run_seconds: float      # with the workers up (excludes their start and stop)
    pool: str
    unknown_metrics: List[str] = field(default_factory=list)

    @property
    def ok(self) -> int:
        return self.counts.ok

    @property
    def failed(self) -> int:
        return self.counts.failed

    @property
    def ran(self) -> int:
        return self.counts.total - self.counts.skipped

    @property
    def failures(self) -> List[RunOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]


class _Unit:
    __slots__ = ("hash", "seed", "scenario", "series", "keys", "attempts", "tries",
                 "state", "old_series", "was_ok", "stored", "error", "error_kind",
                 "skipped")

    def __init__(self, h: str, seed: int, scenario: Dict[str, Any]) -> None:
        self.hash, self.seed, self.scenario = h, seed, scenario
        self.series: Dict[str, None] = {}
        self.keys: List[Any] = []
        self.attempts = 0       # recorded in the store, over every invocation
        self.tries = 0          # in this invocation
        self.state = "todo"
        self.old_series: Dict[str, str] = {}
        self.was_ok = False
        self.stored = False     # the store has a row for it
        self.error: Optional[str] = None
        self.error_kind: Optional[str] = None
        self.skipped = False


def _prepare(tasks: Iterable[Task]) -> Tuple[List[_Unit], List[Tuple[str, int]]]:
    """Group tasks by (hash, seed); the units in first-seen order and each task's key."""
    from .store import canonical_scenario, canonical_json
    import hashlib

    units: Dict[Tuple[str, int], _Unit] = {}
    order: List[Tuple[str, int]] = []
    cache: Dict[int, Tuple[str, Dict[str, Any]]] = {}
    for t in tasks:
        if len(t) not in (3, 4):
            raise ValueError(f"a task is (key, scenario, seed[, series]), got {len(t)} items")
        key, data, seed = t[0], t[1], t[2]
        series = tuple(t[3]) if len(t) == 4 and t[3] else ()
        bad = [s for s in series if s not in SERIES]
        if bad:
            raise ValueError(f"series {bad[0]!r}: expected one of {', '.join(SERIES)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ScenarioError(f"seed: must be an integer in [0, 2^64), got {seed!r}")
        if hasattr(data, "to_dict") and not isinstance(data, dict):
            data = data.to_dict()
        got = cache.get(id(data))
        if got is None:
            canon = canonical_scenario(data)
            h = hashlib.sha256(canonical_json(canon).encode("utf-8")).hexdigest()
            got = cache[id(data)] = (h, canon)
        h, canon = got
        u = units.get((h, seed))
        if u is None:
            u = units[(h, seed)] = _Unit(h, seed, canon)
        u.keys.append(key)
        for s in series:
            u.series[s] = None
        order.append((h, seed))
    return list(units.values()), order


def run_tasks(tasks: Iterable[Task], store: Any, *, workers: Optional[int] = None,
              scheduler: Optional[str] = None, client: Any = None, pool: Any = None,
              retries: int = 1, retry_failed: bool = False,
              metrics: Optional[Sequence[str]] = None,
              progress: Optional[Callable[[Counts], None]] = None,
              run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None,
              sweep_name: Optional[str] = None,
              on_pool: Optional[Callable[[str], None]] = None,
              register: Optional[Mapping[str, Any]] = None,
              engine: Optional[str] = None,
              timeout: Optional[float] = DEFAULT_TIMEOUT) -> SweepResult:
    """Run every task the store lacks; write each finished run at once.

    ``tasks``: ``(key, scenario dict, seed[, series names])``; tasks with the same
    scenario and seed are one run. ``store``: a :class:`aqmsim.store.Store` or a
    directory. A run is missing when the store has no row for it, when its row failed
    (except a ``scenario`` error — invalid parameters fail again — unless
    ``retry_failed``), or when its row lacks a series asked for. Runs go to ``pool`` (an
    open :class:`LocalPool` or :class:`DaskPool`, left open: several calls can share
    one), else to a local pool of ``workers`` processes (default: one per CPU), or to the
    Dask cluster at ``scheduler`` (or an existing ``client``). A failed attempt is written
    with its error and tried again up to ``retries`` times; the rest goes on. ``run_fn``
    replaces :func:`execute` in the workers (an importable function: tests use it to
    inject faults). ``progress(counts)`` is called as runs finish. ``register`` (a spec,
    with ``sweep_name``) records the tasks in the store as that sweep (its ``sweeps`` and
    ``sweep_runs`` rows), so ``aqmsim.store.open(store, sweep=sweep_name)`` lists them.
    ``engine`` is set as ``"engine"`` in every task handed to the workers: ``"ns2"`` has
    :func:`execute` run them in ns-2 (keep those runs in a store of their own: a run is
    keyed by scenario and seed, not by engine). ``timeout``: the wall-clock seconds a run
    may take (default :data:`DEFAULT_TIMEOUT`, None: no limit); a run past it is stopped
    (its local worker process killed and replaced; on Dask its task cancelled) and
    recorded failed with ``error_kind = "timeout"`` — not retried in this call (a run is
    deterministic), but run again by the next call, as other failures are."""
    units, order = _prepare(tasks)
    return _run_units(units, order, store, workers=workers, scheduler=scheduler,
                      client=client, pool=pool, retries=retries, retry_failed=retry_failed,
                      metrics=metrics, progress=progress, run_fn=run_fn,
                      sweep_name=sweep_name, on_pool=on_pool, register=register,
                      engine=engine, timeout=timeout)


def _run_units(units: List[_Unit], order: List[Tuple[str, int]], store: Any, *,
               workers: Optional[int], scheduler: Optional[str], client: Any, retries: int,
               retry_failed: bool, metrics: Optional[Sequence[str]],
               progress: Optional[Callable[[Counts], None]],
               run_fn: Optional[Callable[[Any], Dict[str, Any]]],
               sweep_name: Optional[str],
               on_pool: Optional[Callable[[str], None]], pool: Any = None,
               register: Optional[Mapping[str, Any]] = None,
               engine: Optional[str] = None,
               timeout: Optional[float] = DEFAULT_TIMEOUT) -> SweepResult:
    from .store import Store

    t_start = time.perf_counter()
    own_store = not isinstance(store, Store)
    st: Store = Store(store) if own_store else store
    try:
        if own_store:
            st.clean_temporary()
        if register is not None and sweep_name:
            st.register_sweep(sweep_name, dict(register), [], None,
                              sorted({s for u in units for s in u.series}),
                              [(u.hash, u.seed, u.scenario) for u in units])
        counts = Counts(total=len(units))
        states = st.states()
        todo: Deque[_Unit] = deque()
        for u in units:
            row = states.get((u.hash, u.seed))
            if row is not None:
                u.stored = True
                u.attempts = int(row["attempts"] or 0)
                if row["status"] == "ok":
                    u.old_series, u.was_ok = dict(row["series"]), True
                    if all(s in u.old_series for s in u.series):
                        u.state, u.skipped = "ok", True
                        counts.ok += 1
                        counts.skipped += 1
                        continue
                elif row["error_kind"] == "scenario" and not retry_failed:
                    u.state, u.skipped = "failed", True
                    u.error_kind = "scenario"
                    counts.failed += 1
                    counts.skipped += 1
                    continue
            todo.append(u)
        if progress:
            progress(counts)
        pool_desc = "nothing to run"
        t_ready = time.perf_counter()
        t_done: Optional[float] = None
        if todo:
            fn = run_fn or execute
            own_pool = pool is None
            if not own_pool:
                pass  # the caller's, left open
            elif scheduler is not None or client is not None:
                pool = DaskPool(scheduler, client=client, run_fn=fn)
            else:
                n = workers or os.cpu_count() or 1
                pool = LocalPool(min(n, len(todo)), run_fn=fn)
            pool_desc = pool.describe()
            if on_pool:
                on_pool(pool_desc)
            t_ready = time.perf_counter()
            try:
                _drive(pool, todo, st, counts, retries, metrics, progress, sweep_name,
                       engine, timeout)
            except BaseException:
                # (a pool of the caller too: tasks of this call are still in its hands)
                pool.close(kill=True)
                raise
            t_done = time.perf_counter()
            if own_pool:
                pool.close()
        t_end = time.perf_counter()
        if t_done is None:
            t_done = t_end
        _attach_errors(st, units)
    finally:
        if own_store:
            st.close()
    by_key = {(u.hash, u.seed): u for u in units}
    outcomes = []
    keys_left = {id(u): list(u.keys) for u in units}
    for h, seed in order:
        u = by_key[(h, seed)]
        key = keys_left[id(u)].pop(0)
        outcomes.append(RunOutcome(key, h, seed, u.state, u.error, u.error_kind,
                                   u.attempts, u.skipped))
    return SweepResult(sweep_name, st.root, counts, outcomes, t_end - t_start,
                       t_done - t_ready, pool_desc)


def _attach_errors(st: Any, units: List[_Unit]) -> None:
    """Errors of failed runs skipped this time (recorded by an earlier invocation)."""
    skipped = [u for u in units if u.skipped and u.state == "failed"]
    if not skipped:
        return
    rows = dict(((h, int(s)), e) for h, s, e in st.con.execute(
        "SELECT hash, seed, error FROM runs WHERE status = 'failed'").fetchall())
    for u in skipped:
        u.error = rows.get((u.hash, u.seed))


def _drive(pool: Any, todo: Deque[_Unit], st: Any, counts: Counts, retries: int,
           metrics: Optional[Sequence[str]], progress: Optional[Callable[[Counts], None]],
           sweep_name: Optional[str], engine: Optional[str] = None,
           timeout: Optional[float] = None) -> None:
    """Keep the pool busy and write every result the pool hands back before asking for
    more: the results of one ``wait`` — everything that finished since the last one — go
    to the store together (:meth:`aqmsim.store.Store.record_many`: their files, then their
    rows in one transaction), so the driver's cost per run shrinks when runs are short,
    and a result the driver has received is in the store before it takes the next."""
    from .store import Entry

    inflight: Dict[int, _Unit] = {}
    next_tid = 0
    run_s = 0.0  # moving average of a run's wall-clock time in its worker

    def refill() -> None:
        nonlocal next_tid
        while todo and pool.free() > 0:
            u = todo.popleft()
            want = list(dict.fromkeys(list(u.series) + list(u.old_series)))
            payload = {"scenario": u.scenario, "seed": u.seed, "series": want, "hash": u.hash}
            if engine is not None:
                payload["engine"] = engine
            if timeout is not None:
                pool.submit(next_tid, payload, timeout=timeout)
            else:  # (a caller's pool may not know time limits)
                pool.submit(next_tid, payload)
            inflight[next_tid] = u
            next_tid += 1

    while todo or inflight:
        refill()
        finished = pool.wait(timeout=0.5)
        refill()  # workers get their next task before the driver writes
        batch: List[Any] = []
        done: List[Tuple[_Unit, Dict[str, Any]]] = []
        for tid, res in finished:
            wall = res.get("wall")
            if isinstance(wall, float) and wall >= 0:
                run_s = wall if run_s == 0.0 else 0.9 * run_s + 0.1 * wall
            u = inflight.pop(tid)
            if res.get("status") == _REQUEUE:
                todo.appendleft(u)  # handed to a worker that died before starting it
                continue
            u.tries += 1
            u.attempts += 1
            if res.get("status") == "ok" or not u.was_ok:
                # (a run stored ok, rerun only for a missing series, keeps its ok row)
                batch.append(Entry(u.hash, u.seed, u.scenario, res, u.attempts,
                                   replace=u.stored))
                u.stored = True
            done.append((u, res))
        st.record_many(batch, sweep=sweep_name, metrics=metrics)
        if run_s > 0 and hasattr(pool, "queue_for"):
            pool.queue_for(run_s)
        for u, res in done:
            if res.get("status") == "ok":
                u.state, u.error, u.error_kind = "ok", None, None
                counts.ok += 1
                if u.tries > 1:
                    counts.retrying -= 1
            else:
                u.error, u.error_kind = res.get("error"), res.get("error_kind")
                if u.tries <= retries and u.error_kind != "timeout":
                    if u.tries == 1:
                        counts.retrying += 1
                    todo.append(u)       # at the back: likely on another worker
                else:
                    u.state = "failed"
                    counts.failed += 1
                    if u.tries > 1:
                        counts.retrying -= 1
            if progress:
                progress(counts)


def run_sweep(sweep: Sweep, store: Optional[PathLike] = None, *,
              workers: Optional[int] = None, scheduler: Optional[str] = None,
              client: Any = None, retries: int = 1, retry_failed: bool = False,
              progress: Optional[Callable[[Counts], None]] = None,
              run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None,
              on_pool: Optional[Callable[[str], None]] = None,
              timeout: Optional[float] = None) -> SweepResult:
    """Run a sweep into its store (``store``, else :meth:`Sweep.default_store`): record the
    sweep and its runs, add its parameter columns, run what is missing. ``timeout``: a
    run's wall-clock limit in seconds (default: the sweep's, :data:`DEFAULT_TIMEOUT`
    unless its file says; ``math.inf``: none). When the store already holds the whole
    sweep, it is only read (a read-only store, or one another process is writing, is
    fine); when there is something to write and the store cannot be written, a
    :class:`aqmsim.store.StoreError` names its directory."""
    from .store import Store

    units, order = _prepare(sweep.tasks())
    path = Path(store) if store is not None else sweep.default_store()
    limit = sweep.timeout if timeout is None else timeout
    if limit is not None and math.isinf(limit):
        limit = None
    done = _already_complete(sweep, units, order, path, retry_failed, progress)
    if done is not None:
        return done
    with Store(path) as st:
        st.clean_temporary()
        st.register_sweep(sweep.name, sweep.spec, sweep.params, sweep.metrics, sweep.series,
                          [(u.hash, u.seed, u.scenario) for u in units])
        values: Dict[str, List[Any]] = {k: [] for k in sweep.params}
        for g in sweep.groups:
            for k, v in g.params.items():
                values[k] = list(v)
        st.ensure_params(values)
        known = st.summary_keys()
        if sweep.metrics is not None and known is not None:
            st.ensure_metrics([m for m in sweep.metrics if m in known])
        result = _run_units(units, order, st, workers=workers, scheduler=scheduler,
                            client=client, retries=retries, retry_failed=retry_failed,
                            metrics=sweep.metrics, progress=progress, run_fn=run_fn,
                            sweep_name=sweep.name, on_pool=on_pool, timeout=limit)
        result.name = sweep.name
        known = st.summary_keys()
        if sweep.metrics is not None and known is not None:
            result.unknown_metrics = [m for m in sweep.metrics if m not in known]
    return result


def _needs_run(u: _Unit, row: Optional[Mapping[str, Any]], retry_failed: bool) -> bool:
    """Whether :func:`_run_units` would run ``u`` given its stored ``row`` (kept in step
    with the choice made there)."""
    if row is None:
        return True
    if row["status"] == "ok":
        return not all(s in dict(row["series"]) for s in u.series)
    return not (row["error_kind"] == "scenario" and not retry_failed)


def _already_complete(sweep: Sweep, units: List[_Unit], order: List[Tuple[str, int]],
                      path: Path, retry_failed: bool,
                      progress: Optional[Callable[[Counts], None]] = None
                      ) -> Optional[SweepResult]:
    """The result of a sweep the store at ``path`` already holds entirely — registered as
    it is now, its columns there, no run to do — read without opening the store for
    writing; else None (the store is then opened for writing)."""
    import json

    from .store import DB_NAME, Store, StoreError, _sql_type, _widen

    if not (path / DB_NAME).is_file():
        return None
    try:
        st = Store(path, read_only=True)
    except StoreError:
        return None
    try:
        row = st.con.execute("SELECT spec, params, metrics, series FROM sweeps "
                             "WHERE name = ?", [sweep.name]).fetchone()
        if row is None:
            return None
        want = (json.loads(json.dumps(sweep.spec, default=str)), list(sweep.params),
                list(sweep.metrics) if sweep.metrics is not None else None,
                list(sweep.series))
        if tuple(json.loads(x) if x is not None else None for x in row) != want:
            return None
        members = [(h, int(s)) for h, s in st.con.execute(
            "SELECT hash, seed FROM sweep_runs WHERE sweep = ? ORDER BY position",
            [sweep.name]).fetchall()]
        if members != [(u.hash, u.seed) for u in units]:
            return None
        for g in sweep.groups:
            for k, v in g.params.items():
                have = st._columns.get(k)
                if have is None or _widen(have, _sql_type(v)) != have:
                    return None
        known = st.summary_keys()
        if sweep.metrics is not None and known is not None and any(
                m in known and m not in st._columns for m in sweep.metrics):
            return None
        states = st.states()
        if any(_needs_run(u, states.get((u.hash, u.seed)), retry_failed) for u in units):
            return None
        result = _run_units(units, order, st, workers=None, scheduler=None, client=None,
                            retries=0, retry_failed=retry_failed, metrics=sweep.metrics,
                            progress=progress, run_fn=None, sweep_name=sweep.name,
                            on_pool=None)
        result.name = sweep.name
        if sweep.metrics is not None and known is not None:
            result.unknown_metrics = [m for m in sweep.metrics if m not in known]
        return result
    finally:
        st.close()


# =========================================================================== CLI
def cli_sweep(file: Path, workers: Optional[int], scheduler: Optional[str],
              store: Optional[Path], retry_failed: bool, out: Any, err: Any,
              timeout: Optional[float] = None) -> int:
    """``aqmsim sweep``: the sweep with a rich progress bar; returns the exit status
    (0 every run ok, 1 some failed). Errors in the sweep file raise ScenarioError; a
    malformed ``scheduler`` address a :class:`SchedulerAddressError` (a ConnectionError).
    ``timeout``: a run's limit in seconds (default: the sweep file's ``timeout``)."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                               TextColumn, TimeElapsedColumn, TimeRemainingColumn)
    from rich.markup import escape as _escape

    if workers is not None and scheduler is not None:
        raise ScenarioError("--workers and --scheduler: give one or the other")
    if scheduler is not None:
        scheduler = check_scheduler_address(scheduler)
    if timeout is not None and not (timeout > 0):
        raise ScenarioError(f"--timeout: expected seconds > 0, got {timeout:g}")
    sweep = Sweep.from_toml(file)
    path = Path(store) if store is not None else sweep.default_store()
    n_points = len(sweep.points())
    total = n_points * len(sweep.seeds)
    out.print(f"[bold]{sweep.name}[/]: {n_points} point{'s' if n_points != 1 else ''} × "
              f"{len(sweep.seeds)} seed{'s' if len(sweep.seeds) != 1 else ''} = {total} runs "
              f"→ store {path}")
    bar = Progress(
        SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[green]{task.fields[ok]} ok[/] · [red]{task.fields[failed]} failed[/] · "
                   "{task.fields[left]} left{task.fields[retry]}"),
        TextColumn("· ETA"), TimeRemainingColumn(), TextColumn("·"), TimeElapsedColumn(),
        console=err, transient=False, refresh_per_second=4,
    )
    state: Dict[str, Any] = {"task": None}

    def progress(c: Counts) -> None:
        retry = f" · {c.retrying} retrying" if c.retrying else ""
        if state["task"] is None:
            state["task"] = bar.add_task("runs", total=c.total, completed=c.done, ok=c.ok,
                                         failed=c.failed, left=c.left, retry=retry)
        else:
            bar.update(state["task"], completed=c.done, ok=c.ok, failed=c.failed,
                       left=c.left, retry=retry)

    def on_pool(desc: str) -> None:
        bar.console.print(f"running on: {desc}")

    with bar:
        result = run_sweep(sweep, path, workers=workers, scheduler=scheduler,
                           retry_failed=retry_failed, progress=progress, on_pool=on_pool,
                           timeout=timeout)
    c = result.counts
    ran = c.total - c.skipped
    line = (f"{c.total} runs: [green]{c.ok} ok[/], "
            + (f"[red]{c.failed} failed[/]" if c.failed else "0 failed")
            + f"; {c.skipped} already in the store, {ran} run now in {result.seconds:.1f} s")
    if ran and result.run_seconds > 0:
        line += f" ({ran / result.run_seconds:.1f} runs/s)"
    out.print(line)
    if result.unknown_metrics:
        out.print("[yellow]warning:[/] not summary keys, so not kept: "
                  + ", ".join(result.unknown_metrics))
    if c.failed:
        # grouped by message: one invalid corner of a grid fails once per seed alike
        by_error: Dict[str, List[RunOutcome]] = {}
        for o in result.failures:
            by_error.setdefault(str(o.error or o.error_kind or "?"), []).append(o)
        out.print("[bold red]failed runs[/], by error:")
        for msg, runs in list(by_error.items())[:20]:
            first = runs[0]
            out.print(f"  {len(runs)} run{'s' if len(runs) > 1 else ''} (first: {first.key}, "
                      f"seed {first.seed}): [red]{_escape(msg)}[/]")
        if len(by_error) > 20:
            out.print(f"… and {len(by_error) - 20} more errors: "
                      f"aqmsim.store.open({str(path)!r}) lists every run")
    out.print(f"results: {path / 'runs.duckdb'} (aqmsim.store.open({str(path)!r}, "
              f"sweep={sweep.name!r}); report: aqmsim report {file}"
              + (f" --store {path}" if store is not None else ""))
    return 1 if c.failed else 0


# =========================================================================== benchmark
#: The benchmark's base scenario: 100 Reno flows over a 100 Mb/s RED bottleneck for 20
#: simulated seconds (~200 000 packets at the bottleneck, ~0.1-0.2 s of simulation): runs
#: of the size a real sweep has, so that the measurement is one of parallel simulation,
#: not of the driver's per-run costs.
BENCH_BASE: Dict[str, Any] = {
    "name": "bench-sweep",
    "duration": 20.0,
    "dumbbell": {
        "bottleneck": {
            "rate": "100Mb", "delay": "20ms",
            "queue": {"kind": "red", "limit": 400, "min_th": 50, "max_th": 150,
                      "max_p": 0.1, "w_q": 0.002, "defaults": "ns2"},
        },
        "groups": [{
            "name": "reno", "count": 100, "app": "ftp", "start": {"uniform": [0.0, 2.0]},
            "access": {"rate": "1Gb", "delay": {"uniform": ["1ms", "20ms"]}},
            "egress": {"rate": "1Gb", "delay": "1ms"},
        }],
    },
    "monitor": {"queues": ["R1->R2"]},
}


def bench_throughput(workers_list: Sequence[Optional[int]] = (1, 2, None),
                     runs: int = 96) -> List[Dict[str, Any]]:
    """Sweep throughput on the local pool: a fixed sweep (:data:`BENCH_BASE`: 100 Reno flows
    over a 100 Mb/s RED bottleneck, 20 simulated seconds; max_p × seeds, summaries only)
    into a fresh temporary store for each worker count (None: one per CPU). Returns one
    dict per count: ``workers``, ``runs``, ``seconds`` (with the workers up), ``startup_s``
    (spawning and stopping them), ``runs_per_s``, ``run_s`` (mean simulation time of a run, in its
    worker), ``speedup`` (runs/s over those of the first count, scaled to one worker when
    the first is not 1) and ``efficiency`` (speedup / workers: 1.0 is linear scaling)."""
    from .store import Store

    max_ps = [0.02, 0.05, 0.1, 0.2]
    seeds = max(1, math.ceil(runs / len(max_ps)))
    sweep = Sweep.from_dict({
        "name": "bench", "base": BENCH_BASE, "seeds": seeds,
        "vary": {"dumbbell.bottleneck.queue.max_p": max_ps},
    })
    out: List[Dict[str, Any]] = []
    for w in workers_list:
        n = w or os.cpu_count() or 1
        with tempfile.TemporaryDirectory(prefix="aqmsim-bench-") as tmp:
            res = run_sweep(sweep, Path(tmp) / "store", workers=n)
            with Store(Path(tmp) / "store", read_only=True) as st:
                walls = [w_ for (w_,) in st.con.execute(
                    "SELECT wall_s FROM runs WHERE wall_s IS NOT NULL").fetchall()]
        if res.failed:
            raise RuntimeError(f"bench sweep: {res.failed} runs failed: "
                               f"{res.failures[0].error}")
        rate = res.ran / res.run_seconds if res.run_seconds else math.nan
        out.append({"workers": n, "runs": res.ran, "seconds": res.run_seconds,
                    "startup_s": res.seconds - res.run_seconds, "runs_per_s": rate,
                    "run_s": sum(walls) / len(walls) if walls else math.nan})
    if out:
        base = out[0]["runs_per_s"] / out[0]["workers"]  # per worker, at the first count
        for row in out:
            row["speedup"] = row["runs_per_s"] / base if base else math.nan
            row["efficiency"] = row["speedup"] / row["workers"]
    return out


if __name__ == "__main__":  # pragma: no cover - python -m aqmsim.sweep: the benchmark
    for row in bench_throughput([1, 2, None]):
        print(f"{row['workers']:>3} workers: {row['runs']} runs in {row['seconds']:.2f} s "
              f"-> {row['runs_per_s']:.2f} runs/s, speedup {row['speedup']:.2f}, "
              f"efficiency {row['efficiency']:.0%} (a run: {row['run_s'] * 1e3:.0f} ms; "
              f"worker start {row['startup_s']:.2f} s)")
