"""The store opened for writing or reading (:class:`Store`): its columns, the sweeps it
holds, and the runs written in batches (:meth:`Store.record_many`)."""

from __future__ import annotations

import contextlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import faults
from .connect import _connect_read, _connect_write, _create_db
from .queries import _Reading
from .schema import (_MISSING, _create_tables, DB_NAME, FIXED_COLUMNS, NOT_METRICS, SERIES_DIR, TMP_MARK,
                     PathLike, StoreError, _cell, _db_path, _duckdb, _float_or_none,
                     _json_summary, _now, _q, _sql_type, _widen, canonical_json, get_path,
                     migrate)

__all__ = ["Store", "Entry"]

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
class Store(_Reading):
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
            faults.check_writable(self.root)
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise (faults._write_error(self.root, exc)
                       or faults._not_writable(self.root, exc)) from None
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
                    raise (faults._write_error(self.root, exc) or exc) from None
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
            err = faults._write_error(self.root, exc)
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
        if version:
            try:
                with self._transaction() as tx:
                    migrate(tx, str(version[0]))
            except StoreError as exc:
                raise StoreError(f"{self.db_path}: {exc}") from None

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
        """``{(hash, seed): {status, error_kind, attempts, series, engine_hash}}`` of every
        stored run (``engine_hash`` None in a store from before provenance was kept)."""
        engine = "engine_hash" if "engine_hash" in self._columns else "NULL"
        out = {}
        for h, seed, status, kind, attempts, series, eng in self.con.execute(
                "SELECT hash, seed, status, error_kind, attempts, series, "
                f"{engine} FROM runs").fetchall():
            out[(h, int(seed))] = {"status": status, "error_kind": kind,
                                   "attempts": attempts,
                                   "series": json.loads(series) if series else {},
                                   "engine_hash": eng}
        return out

    def record(self, hash_: str, seed: int, scenario: Mapping[str, Any],
               result: Mapping[str, Any], attempts: int, sweep: Optional[str] = None,
               metrics: Optional[Sequence[str]] = None,
               series_files: Optional[Mapping[str, str]] = None,
               replace: bool = True, command: Optional[str] = None) -> None:
        """Write one finished attempt: its Parquet files first, then its row.

        ``result`` is what :func:`aqmsim.sweep.execute` returned. ``metrics`` limits the
        metric columns filled (None: every summary key); the summary JSON keeps them all.
        ``series_files`` are files of an earlier attempt still valid for this row.
        ``replace=False`` promises that the store has no row for this run yet (a plain
        INSERT is cheaper than DuckDB's upsert)."""
        self.record_many([Entry(hash_, int(seed), scenario, result, int(attempts),
                                dict(series_files or {}), replace)],
                         sweep=sweep, metrics=metrics, command=command)

    def record_many(self, entries: Sequence["Entry"], sweep: Optional[str] = None,
                    metrics: Optional[Sequence[str]] = None,
                    command: Optional[str] = None) -> None:
        """Write finished attempts together (the sweep driver: every result it has just
        received): the Parquet files of all of them (written under temporary names, synced,
        then renamed into place), then all their rows in one transaction. A row is never
        there without its files; a driver killed half-way leaves at most files without a
        row, which the rerun of that run replaces. One transaction per batch, not per run:
        DuckDB spends ~2 ms on each, whatever its size. Each row keeps its provenance: the
        worker's ``build`` (engine) and ``host`` from its result, ``command`` (the driver's
        command line)."""
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
                "engine_hash": (e.result.get("build") or {}).get("source_hash"),
                "engine": _json_or_none(e.result.get("build")),
                "host": _json_or_none(e.result.get("host")),
                "command": command,
                "_summary": summary, "_scenario": e.scenario,
            })
        with self._writing():  # (through the module: tests replace it to fail or kill)
            faults._write_all_atomic(files, self._dirs)
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



def _json_or_none(v: Any) -> Optional[str]:
    return json.dumps(v, sort_keys=True, default=str) if v else None
