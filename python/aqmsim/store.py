"""The results store of sweeps: one DuckDB database (a row per run) beside Parquet files
(the time series a sweep keeps).

A store is a directory::

    STORE/runs.duckdb                                   the database (tables below)
    STORE/series/<h[:2]>/<hash>-<seed>-<name>.parquet   one file per kept Results table

A run is identified by ``(hash, seed)``: ``hash`` is :func:`scenario_hash` of the fully
specified scenario dict (the base with every override applied, top-level ``seed``
removed, because the run's seed replaces it), so the same scenario run with the same seed
is the same run whichever sweep, machine or worker asks for it.

Tables (query them with plain SQL: ``duckdb STORE/runs.duckdb``)
================================================================

``runs`` — one row per (hash, seed), primary key ``(hash, seed)``:

=============  ==========  ===============================================================
column         type        meaning
=============  ==========  ===============================================================
hash           VARCHAR     sha256 (hex) of the canonical JSON of the scenario
seed           UBIGINT     master seed of the run
status         VARCHAR     ``ok`` or ``failed``
error          VARCHAR     the error of the last failed attempt (NULL when ok)
error_kind     VARCHAR     ``scenario`` (invalid parameters), ``simulation`` (the engine
                           failed), ``worker`` (the process running it died) or ``error``
attempts       INTEGER     attempts so far (a failed-then-OK retry gives one ok row, 2)
written_by     VARCHAR     name of the sweep that wrote the row last
summary        JSON        every summary metric of the run (NULL when failed)
series         JSON        ``{table name: path relative to the store}`` of its Parquet files
wall_s         DOUBLE      wall-clock seconds of the attempt, in the worker
worker         VARCHAR     ``host:pid`` of the process that ran it
version        VARCHAR     aqmsim version of that process
finished_at    TIMESTAMP   when the driver wrote the row (UTC)
<param>        any         one column per varied parameter, named by its dotted key (for
                           example ``"dumbbell.bottleneck.queue.max_p"``): the value in
                           this run's scenario; BIGINT, DOUBLE, BOOLEAN or VARCHAR (tables
                           and lists as JSON text)
<metric>       DOUBLE      one column per kept summary metric (``utilisation``,
                           ``time_avg_queue_pkts``, …; not ``seed`` nor ``duration``, which
                           are inputs)
=============  ==========  ===============================================================

``scenarios`` (hash PRIMARY KEY, scenario JSON) — the canonical scenario of every hash.
``sweeps`` (name PRIMARY KEY, spec JSON, params JSON, metrics JSON, series JSON,
updated_at TIMESTAMP) — each sweep that used the store, as last run.
``sweep_runs`` (sweep, hash, seed, position; PRIMARY KEY (sweep, hash, seed)) — which runs
make up each sweep, in the sweep's order.

>>> SELECT "dumbbell.bottleneck.queue.max_p" AS max_p, avg(utilisation), count(*)
... FROM runs JOIN sweep_runs USING (hash, seed)
... WHERE sweep = 'red-max-p' AND status = 'ok' GROUP BY 1 ORDER BY 1;

Writing is the sweep driver's job alone (workers return their results to it). Each result
it receives is written before it asks the workers for more; the results received together
(every run that finished since the last write) are written together
(:meth:`Store.record_many`): their Parquet files each to a temporary name, synced, renamed
into place, and only then their rows inserted, in one transaction — so a store never
holds a row without its files, a half-written row, or a temporary file counted as a
result, whenever the driver is killed. (One transaction per batch rather than per run:
DuckDB spends ~2 ms on each, which runs of a few milliseconds would feel.)

A new store's database is made under a temporary name and linked into place, and a
column a sweep adds is filled in the transaction that adds it, so a kill never leaves a
database file no run can open, nor a column that stays empty for older rows.

DuckDB lets one process hold a database for writing; :func:`open` called while a sweep is
writing reads a snapshot (a copy of the database file and its write-ahead log). A second
writer waits :data:`LOCK_WAIT` seconds (a reader holds the lock for a moment), then fails
with a :class:`StoreError` naming the store and the process holding it: two sweeps do
not write one store at once. A write that fails — a full disk, a file size limit, a
read-only file system — raises a :class:`StoreError` naming the store ("no space left"
for the first two); the runs written before stay, and the same sweep run again does the
rest.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import math
import os
import shutil
import tempfile
import time
from builtins import open as builtins_open
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = [
    "open", "Store", "StoreError", "scenario_hash", "canonical_scenario", "canonical_json",
    "get_path", "FIXED_COLUMNS", "DB_NAME", "Entry", "check_writable",
]

PathLike = Union[str, Path]

DB_NAME = "runs.duckdb"
SERIES_DIR = "series"
SCHEMA_VERSION = "1"
TMP_MARK = ".tmp-"

#: Columns every ``runs`` table has, in order, with their SQL types.
FIXED_COLUMNS: Dict[str, str] = {
    "hash": "VARCHAR NOT NULL",
    "seed": "UBIGINT NOT NULL",
    "status": "VARCHAR NOT NULL",
    "error": "VARCHAR",
    "error_kind": "VARCHAR",
    "attempts": "INTEGER NOT NULL",
    "written_by": "VARCHAR",
    "summary": "JSON",
    "series": "JSON",
    "wall_s": "DOUBLE",
    "worker": "VARCHAR",
    "version": "VARCHAR",
    "finished_at": "TIMESTAMP",
}

#: Summary keys that are inputs of the run, not measurements: no metric column.
NOT_METRICS = frozenset({"seed", "duration"})

_MISSING = object()


class StoreError(RuntimeError):
    """The store cannot be opened or written (locked by another process, not a store…)."""


# --------------------------------------------------------------------------- hashing
def canonical_scenario(data: Mapping[str, Any]) -> Dict[str, Any]:
    """The scenario dict a run is keyed by: plain data (as :class:`~aqmsim.Scenario`
    normalises it) without the top-level ``seed``, which the run's seed replaces."""
    from .scenario import Scenario

    d = Scenario.from_dict(data).to_dict()
    d.pop("seed", None)
    return d


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept, no NaN: the same text for the same data."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def scenario_hash(data: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of :func:`canonical_scenario` ``(data)``."""
    return hashlib.sha256(canonical_json(canonical_scenario(data)).encode("utf-8")).hexdigest()


def get_path(data: Any, key: str, default: Any = None) -> Any:
    """The value at dotted path ``key`` (numeric parts index lists), else ``default``."""
    node = data
    for part in key.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return default
    return node


# --------------------------------------------------------------------------- helpers
def _q(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _sql_type(values: Iterable[Any]) -> str:
    vals = [v for v in values if v is not None]
    if vals and all(isinstance(v, bool) for v in vals):
        return "BOOLEAN"
    if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return "BIGINT"
    if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return "DOUBLE"
    return "VARCHAR"


def _widen(old: str, new: str) -> str:
    if old == new:
        return old
    if {old, new} <= {"BIGINT", "DOUBLE"}:
        return "DOUBLE"
    return "VARCHAR"


def _cell(value: Any, sql_type: str) -> Any:
    """A Python value as the column of ``sql_type`` stores it."""
    if value is None or value is _MISSING:
        return None
    if sql_type == "VARCHAR":
        return value if isinstance(value, str) else canonical_json(value)
    if sql_type == "BOOLEAN":
        return bool(value) if isinstance(value, bool) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if sql_type == "BIGINT":
        return int(value) if float(value).is_integer() else None
    return float(value)


def _json_summary(summary: Mapping[str, Any]) -> str:
    """Summary as JSON; non-finite floats become null (JSON has no NaN)."""
    clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
             for k, v in summary.items()}
    return json.dumps(clean, sort_keys=True, default=_json_default)


def _json_default(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    return str(v)


def _float_or_none(v: Any) -> Optional[float]:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    return None


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)


def _duckdb():
    try:
        import duckdb
    except ImportError as exc:  # pragma: no cover - a dependency of sweeps
        raise ImportError("the sweep store needs duckdb (pip install duckdb)") from exc
    return duckdb


def _db_path(path: PathLike) -> Path:
    p = Path(path)
    if p.suffix == ".duckdb" or p.name == DB_NAME:
        return p
    return p / DB_NAME


#: ``os.write`` as the store's file writes call it (tests replace it to fill the disk).
_os_write = os.write


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, synced."""
    _write_all_atomic([(path, data)])


def _write_all_atomic(files: Sequence[Tuple[Path, bytes]], made: Optional[set] = None) -> None:
    """:func:`_write_atomic` for several files at once: all written, then all synced (the
    first fsync commits the file system's journal for the others too), then all renamed.
    ``made``: directories known to exist (updated)."""
    pending: List[Tuple[int, Path, Path]] = []
    ok = False
    try:
        for path, data in files:
            if made is None or path.parent not in made:
                path.parent.mkdir(parents=True, exist_ok=True)
                if made is not None:
                    made.add(path.parent)
            tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            pending.append((fd, tmp, path))
            view = memoryview(data)
            while view:
                n = _os_write(fd, view)
                view = view[n:]
        for fd, _, _ in pending:
            os.fsync(fd)
        ok = True
    finally:
        for fd, tmp, _ in pending:
            os.close(fd)
            if not ok:  # (a full disk: give the space back at once)
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    for _, tmp, path in pending:
        os.replace(tmp, path)


#: pyarrow types of the SQL column types of ``runs`` (JSON travels as text).
_ARROW_TYPES = {"VARCHAR": "string", "JSON": "string", "UBIGINT": "uint64",
                "INTEGER": "int32", "BIGINT": "int64", "DOUBLE": "float64",
                "BOOLEAN": "bool_", "TIMESTAMP": "timestamp"}


def _arrow_rows(rows: Sequence[Mapping[str, Any]], names: Sequence[str],
                sql_types: Mapping[str, str]) -> Any:
    """The rows as a pyarrow Table typed like the ``runs`` columns: DuckDB inserts it in
    one statement (faster than one parameterised INSERT per row)."""
    import pyarrow as pa

    arrays = []
    for n in names:
        kind = _ARROW_TYPES.get(sql_types.get(n, "VARCHAR").split("(")[0], "string")
        typ = pa.timestamp("us") if kind == "timestamp" else getattr(pa, kind)()
        vals = [r[n] for r in rows]
        if kind == "string":
            vals = [v if v is None or isinstance(v, str) else str(v) for v in vals]
        arrays.append(pa.array(vals, type=typ))
    return pa.Table.from_arrays(arrays, names=list(names))


@dataclass
class Entry:
    """One finished attempt for :meth:`Store.record_many`: ``result`` is what
    :func:`aqmsim.sweep.execute` returned; ``series_files`` are files of an earlier attempt
    still valid for this row; ``replace=False`` promises that the store has no row for the
    run yet."""

    hash: str
    seed: int
    scenario: Mapping[str, Any]
    result: Mapping[str, Any]
    attempts: int
    series_files: Dict[str, str] = field(default_factory=dict)
    replace: bool = True


# --------------------------------------------------------------------------- the store
class Store:
    """A store directory opened for writing (the sweep driver) or reading.

    ``Store(path)`` creates the directory and the database if needed. Use it as a context
    manager, or call :meth:`close`.
    """

    def __init__(self, path: PathLike, read_only: bool = False) -> None:
        _duckdb()  # (an ImportError saying what to install, before anything)
        db = _db_path(path)
        self.db_path = db
        self.root = db.parent
        self.series_root = self.root / SERIES_DIR
        self.read_only = read_only
        self._snapshot: Optional[str] = None
        self._failed = False  # a write failed: closing may fail too, and says nothing
        if read_only:
            if not db.exists():
                raise StoreError(f"{self.root}: no sweep store here (no {DB_NAME})")
            self.con, self._snapshot = _connect_read(db)
        else:
            check_writable(self.root)
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise (_write_error(self.root, exc) or _not_writable(self.root, exc)) from None
            _create_db(db, self.root)
            self.con = _connect_write(db, self.root)
            try:
                with self._writing():
                    self._create()
            except BaseException:
                self.close()
                raise
        self._columns: Dict[str, str] = {}
        self._scenario_hashes: Optional[set] = None
        self._dirs: set = set()  # series directories made
        self._load_columns()

    # ------------------------------------------------------------ life cycle
    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        con = getattr(self, "con", None)
        if con is not None:
            try:
                con.close()  # (its checkpoint failing loses nothing: the log stays)
            except _duckdb().Error as exc:
                if not (self._failed or self.read_only):
                    raise (_write_error(self.root, exc) or exc) from None
            finally:
                self.con = None
        if self._snapshot:
            shutil.rmtree(self._snapshot, ignore_errors=True)
            self._snapshot = None

    @contextlib.contextmanager
    def _writing(self) -> Any:
        """Writes to the store: a failed one (a full disk, a file size limit, a read-only
        file system, an I/O error) raises a :class:`StoreError` naming the store."""
        try:
            yield
        except StoreError:
            self._failed = True
            raise
        except (OSError, _duckdb().Error) as exc:
            err = _write_error(self.root, exc)
            if err is None:
                raise
            self._failed = True
            raise err from exc

    @contextlib.contextmanager
    def _transaction(self) -> Any:
        """One transaction: committed at the end, rolled back on any exception (a COMMIT
        that failed has ended it already: the original error is the one raised)."""
        c = self.con
        c.execute("BEGIN")
        try:
            yield c
            c.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(_duckdb().Error):
                c.execute("ROLLBACK")
            raise

    def _create(self) -> None:
        c = self.con
        _create_tables(c)
        version = c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if version and version[0] != SCHEMA_VERSION:
            raise StoreError(f"{self.db_path}: store schema version {version[0]}, this "
                             f"aqmsim writes version {SCHEMA_VERSION}")

    def _load_columns(self) -> None:
        rows = self.con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'runs' ORDER BY ordinal_position").fetchall()
        self._columns = {name: dtype for name, dtype in rows}
        meta = self.con.execute("SELECT key, value FROM meta WHERE key LIKE 'col:%'").fetchall()
        self._roles = {k[4:]: v for k, v in meta}  # column -> 'param' | 'metric'

    # ------------------------------------------------------------ columns
    @property
    def param_columns(self) -> List[str]:
        return [c for c in self._columns if self._roles.get(c) == "param"]

    @property
    def metric_columns(self) -> List[str]:
        return [c for c in self._columns if self._roles.get(c) == "metric"]

    def ensure_params(self, values: Mapping[str, Sequence[Any]]) -> None:
        """Make one column per parameter (dotted key), typed for ``values``; fill it for
        every row from that row's scenario."""
        for key, vals in values.items():
            if key in FIXED_COLUMNS:
                raise StoreError(f"{key}: a parameter may not be named like the store's "
                                 f"column {key!r}")
            if self._roles.get(key) == "metric":
                raise StoreError(f"{key}: already a metric column of this store")
            want = _sql_type(vals)
            have = self._columns.get(key)
            if have is None:
                self._add_column(key, want, "param")
            elif _widen(have, want) != have:
                new = _widen(have, want)
                try:
                    with self._writing(), self._transaction() as c:
                        c.execute(f"ALTER TABLE runs ALTER {_q(key)} TYPE {new}")
                        self._backfill_param(key, new)
                finally:
                    self._load_columns()

    def _add_column(self, name: str, sql_type: str, role: str) -> None:
        """Add a column and fill it for the rows there, in one transaction: a driver
        killed in between leaves no column (made again next time), never an unfilled one."""
        try:
            with self._writing(), self._transaction() as c:
                c.execute(f"ALTER TABLE runs ADD COLUMN {_q(name)} {sql_type}")
                c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [f"col:{name}", role])
                if role == "param":
                    self._backfill_param(name, sql_type)
                elif role == "metric":
                    c.execute(f"UPDATE runs SET {_q(name)} = TRY_CAST(json_extract(summary, ?) "
                              "AS DOUBLE) WHERE summary IS NOT NULL",
                              ["$." + json.dumps(name)])
        finally:
            self._load_columns()

    def _backfill_param(self, key: str, sql_type: str) -> None:
        """Set column ``key`` of every row from its scenario (inside the caller's
        transaction)."""
        rows = self.con.execute(
            "SELECT r.hash, s.scenario FROM runs r JOIN scenarios s USING (hash) "
            "GROUP BY r.hash, s.scenario").fetchall()
        if not rows:
            return
        updates = [(_cell(get_path(json.loads(sc), key, _MISSING), sql_type), h)
                   for h, sc in rows]
        self.con.executemany(f"UPDATE runs SET {_q(key)} = ? WHERE hash = ?", updates)

    def ensure_metrics(self, names: Iterable[str]) -> None:
        """Make a DOUBLE column per metric, filled for existing rows from their summary."""
        for name in names:
            if name in NOT_METRICS or name in self._columns:
                continue
            self._add_column(name, "DOUBLE", "metric")

    # ------------------------------------------------------------ sweeps
    def register_sweep(self, name: str, spec: Mapping[str, Any], params: Sequence[str],
                       metrics: Optional[Sequence[str]], series: Sequence[str],
                       runs: Sequence[Tuple[str, int, Mapping[str, Any]]]) -> None:
        """Record a sweep, its runs ``(hash, seed, canonical scenario)`` in order, and the
        scenarios; replaces what an earlier sweep of the same name recorded."""
        import pandas as pd

        seen: Dict[Tuple[str, int], int] = {}
        scen: Dict[str, str] = {}
        for h, seed, data in runs:
            seen.setdefault((h, int(seed)), len(seen))
            if h not in scen:
                scen[h] = canonical_json(data)
        members = pd.DataFrame({
            "sweep": [name] * len(seen),
            "hash": [h for h, _ in seen],
            "seed": pd.array([s for _, s in seen], dtype="uint64"),
            "position": pd.array(list(seen.values()), dtype="int32"),
        })
        scenarios = pd.DataFrame({"hash": list(scen), "scenario": list(scen.values())})
        c = self.con
        try:
            c.register("_aqm_members", members)
            c.register("_aqm_scenarios", scenarios)
            with self._writing(), self._transaction():
                c.execute("INSERT OR IGNORE INTO scenarios "
                          "SELECT hash, scenario FROM _aqm_scenarios")
                self._scenario_hashes = None
                c.execute("DELETE FROM sweep_runs WHERE sweep = ?", [name])
                c.execute("INSERT INTO sweep_runs "
                          "SELECT sweep, hash, seed, position FROM _aqm_members")
                c.execute("INSERT OR REPLACE INTO sweeps VALUES (?, ?, ?, ?, ?, ?)",
                          [name, json.dumps(spec, default=str), json.dumps(list(params)),
                           json.dumps(list(metrics) if metrics is not None else None),
                           json.dumps(list(series)), _now()])
        finally:
            c.unregister("_aqm_members")
            c.unregister("_aqm_scenarios")

    # ------------------------------------------------------------ runs
    def states(self) -> Dict[Tuple[str, int], Dict[str, Any]]:
        """``{(hash, seed): {status, error_kind, attempts, series}}`` of every stored run."""
        out = {}
        for h, seed, status, kind, attempts, series in self.con.execute(
                "SELECT hash, seed, status, error_kind, attempts, series FROM runs").fetchall():
            out[(h, int(seed))] = {"status": status, "error_kind": kind,
                                   "attempts": attempts,
                                   "series": json.loads(series) if series else {}}
        return out

    def record(self, hash_: str, seed: int, scenario: Mapping[str, Any],
               result: Mapping[str, Any], attempts: int, sweep: Optional[str] = None,
               metrics: Optional[Sequence[str]] = None,
               series_files: Optional[Mapping[str, str]] = None,
               replace: bool = True) -> None:
        """Write one finished attempt: its Parquet files first, then its row.

        ``result`` is what :func:`aqmsim.sweep.execute` returned. ``metrics`` limits the
        metric columns filled (None: every summary key); the summary JSON keeps them all.
        ``series_files`` are files of an earlier attempt still valid for this row.
        ``replace=False`` promises that the store has no row for this run yet (a plain
        INSERT is cheaper than DuckDB's upsert)."""
        self.record_many([Entry(hash_, int(seed), scenario, result, int(attempts),
                                dict(series_files or {}), replace)],
                         sweep=sweep, metrics=metrics)

    def record_many(self, entries: Sequence["Entry"], sweep: Optional[str] = None,
                    metrics: Optional[Sequence[str]] = None) -> None:
        """Write finished attempts together (the sweep driver: every result it has just
        received): the Parquet files of all of them (written under temporary names, synced,
        then renamed into place), then all their rows in one transaction. A row is never
        there without its files; a driver killed half-way leaves at most files without a
        row, which the rerun of that run replaces. One transaction per batch, not per run:
        DuckDB spends ~2 ms on each, whatever its size."""
        if not entries:
            return
        files: List[Tuple[Path, bytes]] = []
        rows: List[Dict[str, Any]] = []
        wanted: Dict[str, None] = {}
        for e in entries:
            ok = e.result.get("status") == "ok"
            series: Dict[str, str] = dict(e.series_files or {})
            if ok:
                for name, data in (e.result.get("series") or {}).items():
                    rel = f"{SERIES_DIR}/{e.hash[:2]}/{e.hash}-{e.seed}-{name}.parquet"
                    files.append((self.root / rel, data))
                    series[name] = rel
            summary = dict(e.result.get("summary") or {}) if ok else {}
            for k in summary:
                if k not in NOT_METRICS and (metrics is None or k in metrics):
                    wanted[k] = None
            rows.append({
                "hash": e.hash, "seed": int(e.seed), "status": "ok" if ok else "failed",
                "error": None if ok else str(e.result.get("error") or "failed"),
                "error_kind": None if ok else (e.result.get("error_kind") or "error"),
                "attempts": int(e.attempts), "written_by": sweep,
                "summary": _json_summary(summary) if ok else None,
                "series": json.dumps(series, sort_keys=True) if ok and series else None,
                "wall_s": _float_or_none(e.result.get("wall")),
                "worker": e.result.get("worker"), "version": e.result.get("version"),
                "finished_at": _now(),
                "_summary": summary, "_scenario": e.scenario,
            })
        with self._writing():
            _write_all_atomic(files, self._dirs)
        self.ensure_metrics(list(wanted))
        metric_cols = self.metric_columns
        param_cols = self.param_columns
        for row in rows:
            summary, scenario = row.pop("_summary"), row.pop("_scenario")
            ok = row["status"] == "ok"
            for col in metric_cols:
                row[col] = _float_or_none(summary.get(col)) if ok else None
            for col in param_cols:
                row[col] = _cell(get_path(scenario, col, _MISSING), self._columns[col])
        names = list(rows[0])
        verb = "INSERT OR REPLACE" if any(e.replace for e in entries) else "INSERT"
        cols = ", ".join(_q(n) for n in names)
        # one row: a parameterised INSERT (~2 ms with the commit); more: one INSERT of an
        # Arrow table (~2.7 ms, and ~0.01 ms per row more, where parameters cost ~1.2 ms)
        _aqm_batch = _arrow_rows(rows, names, self._columns) if len(rows) > 1 else None
        known = self._known_scenarios()
        new_scen: Dict[str, str] = {}
        for e in entries:
            if e.hash not in known and e.hash not in new_scen:
                new_scen[e.hash] = canonical_json(e.scenario)
        with self._writing(), self._transaction() as c:
            if new_scen:
                c.executemany("INSERT OR IGNORE INTO scenarios VALUES (?, ?)",
                              [[h, sc] for h, sc in new_scen.items()])
            if _aqm_batch is None:
                c.execute(f"{verb} INTO runs ({cols}) VALUES ({', '.join('?' for _ in names)})",
                          [rows[0][n] for n in names])
            else:  # (DuckDB finds the local variable _aqm_batch by its name)
                c.execute(f"{verb} INTO runs ({cols}) SELECT {cols} FROM _aqm_batch")
        known.update(new_scen)

    def _known_scenarios(self) -> set:
        if self._scenario_hashes is None:
            self._scenario_hashes = {h for (h,) in
                                     self.con.execute("SELECT hash FROM scenarios").fetchall()}
        return self._scenario_hashes

    def clean_temporary(self) -> int:
        """Remove temporary files a killed driver left under ``series/``; their count."""
        n = 0
        if self.series_root.is_dir():
            for p in self.series_root.rglob(f"*{TMP_MARK}*"):
                try:
                    p.unlink()
                    n += 1
                except OSError:
                    pass
        return n

    # ------------------------------------------------------------ reading
    def runs(self, sweep: Optional[str] = None, keys: Optional[Sequence[Tuple[str, int]]] = None,
             with_scenario: bool = False) -> "Any":
        """The runs as a pandas DataFrame: parameter columns, seed, status, error, metric
        columns, then hash, attempts, error_kind, wall_s, worker, version, finished_at,
        written_by, series. ``sweep`` (a name) keeps that sweep's runs in its order and only its
        parameters; ``keys`` keeps those (hash, seed) in that order."""
        import pandas as pd

        params = self.param_columns
        metrics = self.metric_columns
        if sweep is not None:
            got = self.con.execute("SELECT params, metrics FROM sweeps WHERE name = ?",
                                   [sweep]).fetchone()
            if got is None:
                raise StoreError(f"{self.root}: no sweep named {sweep!r} in this store")
            params = [p for p in json.loads(got[0]) if p in self._columns]
            wanted = json.loads(got[1]) if got[1] else None
            if wanted:
                metrics = [m for m in wanted if m in self._columns] or metrics
        first = params + ["seed", "status", "error"] + metrics
        rest = ["hash", "attempts", "error_kind", "wall_s", "worker", "version",
                "finished_at", "written_by", "series"]
        cols = ", ".join(f"r.{_q(c)}" for c in first + rest if c in self._columns)
        if with_scenario:
            cols += ", s.scenario"
        sql = f"SELECT {cols} FROM runs r"
        if with_scenario:
            sql += " LEFT JOIN scenarios s USING (hash)"
        args: List[Any] = []
        if sweep is not None:
            sql += (" JOIN sweep_runs m ON m.hash = r.hash AND m.seed = r.seed "
                    "WHERE m.sweep = ? ORDER BY m.position")
            args.append(sweep)
        else:
            sql += " ORDER BY r.hash, r.seed"
        df = self.con.execute(sql, args).df()
        if keys is not None:
            order = {(h, int(s)): i for i, (h, s) in enumerate(keys)}
            pos = [order.get((h, int(s))) for h, s in zip(df["hash"], df["seed"])]
            df = df.assign(_pos=pos).dropna(subset=["_pos"]).sort_values("_pos")
            df = df.drop(columns="_pos").reset_index(drop=True)
        if with_scenario:
            df["scenario"] = [json.loads(s) if isinstance(s, str) else None
                              for s in df["scenario"]]
        df["series"] = [json.loads(s) if isinstance(s, str) else {} for s in df["series"]]
        return pd.DataFrame(df)

    def summary_keys(self) -> Optional[List[str]]:
        """The summary keys of a stored ok run (all runs have the same), None if none."""
        got = self.con.execute(
            "SELECT summary FROM runs WHERE status = 'ok' AND summary IS NOT NULL LIMIT 1"
        ).fetchone()
        return list(json.loads(got[0])) if got else None

    def summary(self, hash_: str, seed: int) -> Optional[Dict[str, Any]]:
        """The full summary dict of an ok run, else None."""
        got = self.con.execute("SELECT summary FROM runs WHERE hash = ? AND seed = ?",
                               [hash_, int(seed)]).fetchone()
        return json.loads(got[0]) if got and got[0] else None

    def scenario(self, hash_: str) -> Optional[Dict[str, Any]]:
        """The canonical scenario dict of ``hash_`` (run it with ``Scenario.from_dict``)."""
        got = self.con.execute("SELECT scenario FROM scenarios WHERE hash = ?",
                               [hash_]).fetchone()
        return json.loads(got[0]) if got else None

    def series(self, hash_: str, seed: int, name: str) -> "Any":
        """One kept Results table (``queue``, ``drops``, ``flows``, ``links``) of a run: the
        DataFrame the run's :class:`~aqmsim.results.Results` gave (same dtypes)."""
        import pandas as pd

        got = self.con.execute("SELECT series FROM runs WHERE hash = ? AND seed = ?",
                               [hash_, int(seed)]).fetchone()
        files = json.loads(got[0]) if got and got[0] else {}
        if name not in files:
            raise KeyError(f"run {hash_[:12]}… seed {seed}: no {name!r} series stored "
                           f"(kept: {', '.join(files) or 'none'})")
        from .results import SCHEMAS, read_parquet

        if name in SCHEMAS:  # columns and dtypes as Results has them
            return read_parquet(name, self.root / files[name])
        return pd.read_parquet(self.root / files[name])


def _writable(path: Path) -> bool:
    """Whether this process may write in the existing directory or file ``path`` (always
    true for root, whatever the mode bits: a read-only file system still fails later)."""
    return os.access(path, os.W_OK | (os.X_OK if path.is_dir() else 0))


def _not_writable(root: Path, why: Any = None) -> StoreError:
    return StoreError(f"{root}: cannot write to this store directory (read-only, or no "
                      "permission): a sweep with runs to do needs to write its results there; "
                      "give another with --store" + (f" ({why})" if why else ""))


#: errno values of a write that found no room: a full disk, a file size limit
#: (RLIMIT_FSIZE), a quota
_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
_SPACE_WORDS = ("no space left", "file too large", "disk quota exceeded")
_NO_WRITE_WORDS = _SPACE_WORDS + ("permission denied", "read-only file system")


def _no_space(root: Path, detail: str) -> StoreError:
    return StoreError(f"{root}: no space left to write this store ({detail}); every run "
                      "recorded before is kept: free some space (or give another --store) "
                      "and run the same command again to finish the rest")


def _write_error(root: Path, exc: BaseException) -> Optional[StoreError]:
    """The :class:`StoreError` of a write to the store at ``root`` that failed with
    ``exc``, or None when ``exc`` is not a failed write (a bug: raised as it is)."""
    text = " ".join(str(exc).split())
    low = text.lower()
    if isinstance(exc, OSError):
        detail = exc.strerror or text
        if exc.filename:
            detail += f": {exc.filename}"
        if exc.errno in _SPACE_ERRNOS:
            return _no_space(root, detail)
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return _not_writable(root, detail)
        return StoreError(f"{root}: cannot write this store: {detail}")
    duckdb = _duckdb()
    if not isinstance(exc, duckdb.Error):
        return None
    if any(w in low for w in _SPACE_WORDS):
        return _no_space(root, text)
    if any(w in low for w in _NO_WRITE_WORDS):
        return _not_writable(root, text)
    if (isinstance(exc, (duckdb.IOException, duckdb.FatalException))
            or any(w in low for w in ("could not write", "failed to commit", "invalidated"))):
        return StoreError(f"{root}: cannot write this store: {text}")
    return None


#: Seconds a writer waits for a store another process holds (a reader holds it for a
#: moment; another sweep for as long as it runs: then the error says which process).
LOCK_WAIT = 3.0


def _holder(message: str) -> str:
    """``pid N: its command line`` of the process DuckDB names as holding a lock."""
    import re

    m = re.search(r"\(PID (\d+)\)", message)
    if not m:
        return "another process"
    pid = m.group(1)
    try:
        with builtins_open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = " ".join(fh.read().decode("utf-8", "replace").replace("\0", " ").split())
    except OSError:
        cmd = ""
    if len(cmd) > 120:
        cmd = cmd[:117] + "..."
    return f"another process (pid {pid}{': ' + cmd if cmd else ''})"


def _create_tables(c: Any) -> None:
    """The store's tables (those missing), in the database of connection ``c``."""
    cols = ", ".join(f"{_q(k)} {t}" for k, t in FIXED_COLUMNS.items())
    c.execute("CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    c.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
    c.execute("CREATE TABLE IF NOT EXISTS scenarios (hash VARCHAR PRIMARY KEY, "
              "scenario JSON NOT NULL)")
    c.execute(f"CREATE TABLE IF NOT EXISTS runs ({cols}, PRIMARY KEY (hash, seed))")
    c.execute("CREATE TABLE IF NOT EXISTS sweeps (name VARCHAR PRIMARY KEY, spec JSON, "
              "params JSON, metrics JSON, series JSON, updated_at TIMESTAMP)")
    c.execute("CREATE TABLE IF NOT EXISTS sweep_runs (sweep VARCHAR NOT NULL, "
              "hash VARCHAR NOT NULL, seed UBIGINT NOT NULL, position INTEGER, "
              "PRIMARY KEY (sweep, hash, seed))")


def _create_db(db: Path, root: Path) -> None:
    """Make a new store database under a temporary name, then link it into place: a store
    never has a half-made database file (a disk that fills, or a kill, while DuckDB writes
    its first blocks would leave one that no later run could open). When another process
    made it meanwhile, theirs is the store. An empty file (an older aqmsim's failed start)
    is made again."""
    duckdb = _duckdb()
    for stale in root.glob(f"{db.name}{TMP_MARK}*"):  # left by killed processes
        pid = stale.name[len(db.name + TMP_MARK):].split(".")[0]
        if not pid.isdigit() or int(pid) == os.getpid() or not _alive(int(pid)):
            with contextlib.suppress(OSError):
                stale.unlink()
    with contextlib.suppress(OSError):
        if db.stat().st_size == 0 and not db.with_name(db.name + ".wal").exists():
            db.unlink()
    if db.exists():
        return
    tmp = db.with_name(f"{db.name}{TMP_MARK}{os.getpid()}")
    try:
        con = duckdb.connect(str(tmp))
        try:
            _create_tables(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, db)  # (never over a database another process has just made)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not db.exists():
                os.replace(tmp, db)
    except (OSError, duckdb.Error) as exc:
        err = _write_error(root, exc)
        if err is None:
            raise
        raise err from None
    finally:
        for f in (tmp, tmp.with_name(tmp.name + ".wal")):
            with contextlib.suppress(OSError):
                f.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _connect_write(db: Path, root: Path) -> Any:
    """A connection to ``db`` for writing; a :class:`StoreError` naming the store when
    another process holds it past :data:`LOCK_WAIT`, or it cannot be written."""
    duckdb = _duckdb()
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            return duckdb.connect(str(db))
        except duckdb.IOException as exc:
            msg = " ".join(str(exc).split())
            if "lock" in msg.lower():
                if time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                raise StoreError(
                    f"{root}: in use by {_holder(msg)}: DuckDB lets one process write a "
                    "store at a time (another sweep writing to it, or an open connection); "
                    "run this sweep when it has finished, or give another --store") from None
            if any(w in msg.lower() for w in _NO_WRITE_WORDS):
                raise _write_error(root, exc) from None  # (no space, no permission)
            raise StoreError(f"{db}: {msg}") from None
        except duckdb.Error as exc:
            if any(w in str(exc).lower() for w in _NO_WRITE_WORDS):
                raise _write_error(root, exc) from None
            raise StoreError(f"{db}: not a usable DuckDB database: {exc}") from None


def check_writable(path: PathLike) -> None:
    """A :class:`StoreError` naming the store directory ``path`` (or its ``runs.duckdb``)
    when this process may not write the store there: the directory (or, when it does not
    exist yet, its nearest existing parent), the database and its write-ahead log."""
    db = _db_path(path)
    root = db.parent
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise StoreError(f"{probe}: not a directory, so no store can be made at {root}")
    targets = [probe] + [f for f in (db, db.with_name(db.name + ".wal")) if f.exists()]
    for t in targets:
        if not _writable(t):
            raise _not_writable(root, f"{t} is not writable")


def _connect_read(db: Path):
    """A read-only connection, or one to a snapshot copy when a writer holds the lock."""
    duckdb = _duckdb()
    try:
        return duckdb.connect(str(db), read_only=True), None
    except duckdb.ConnectionException:
        pass  # this very process holds it open for writing
    except duckdb.IOException as exc:
        if "lock" not in str(exc).lower():
            raise StoreError(f"{db}: {exc}") from None
    last: Optional[BaseException] = None
    for attempt in range(8):
        tmp = tempfile.mkdtemp(prefix="aqmsim-store-")
        try:
            copy = Path(tmp) / db.name
            shutil.copyfile(db, copy)
            wal = db.with_name(db.name + ".wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
            con = duckdb.connect(str(copy), read_only=True)
            con.execute("SELECT count(*) FROM runs").fetchone()
            return con, tmp
        except (duckdb.Error, OSError) as exc:  # caught mid-checkpoint: try again
            last = exc
            shutil.rmtree(tmp, ignore_errors=True)
            time.sleep(0.1 * (attempt + 1))
    raise StoreError(f"{db}: locked by a writer and no consistent snapshot could be read "
                     f"({last})")


def open(path: PathLike, sweep: Optional[Any] = None, with_scenario: bool = False) -> "Any":  # noqa: A001
    """The runs of a store as a pandas DataFrame.

    ``path`` is the store directory (or its ``runs.duckdb``). ``sweep`` — a sweep name, a
    :class:`aqmsim.sweep.Sweep` or a sweep file — keeps that sweep's runs, in its order,
    with its parameters as columns; without it every run of the store comes back.
    Columns: the varied parameters (dotted keys), ``seed``, ``status`` (ok|failed),
    ``error``, the metrics, then ``hash``, ``attempts``, ``error_kind``, ``wall_s``,
    ``worker``, ``version``, ``finished_at``, ``written_by`` and ``series`` (dict of files);
    ``with_scenario=True`` adds the scenario dict of each run. Works while a sweep is
    writing to the store (it then reads a snapshot)."""
    name: Optional[str] = None
    if sweep is not None:
        if isinstance(sweep, str) and not sweep.endswith(".toml"):
            name = sweep
        else:
            from .sweep import Sweep

            sw = sweep if isinstance(sweep, Sweep) else Sweep.from_toml(sweep)
            name = sw.name
    with Store(path, read_only=True) as st:
        return st.runs(sweep=name, with_scenario=with_scenario)
