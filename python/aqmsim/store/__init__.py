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
engine_hash    VARCHAR     the engine's source hash (``aqmsim._core.BUILD["source_hash"]``)
                           in the process that ran it (``ns-2`` for ns-2 runs); NULL in
                           rows of a store from before provenance was kept
engine         JSON        that engine's whole build: version, source_hash, git_commit,
                           profile
host           JSON        where it ran: hostname, platform, python (version)
command        VARCHAR     the driver's command line (``aqmsim sweep …``), or
                           ``python API: FILE:LINE in FUNCTION (argv: …)``
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

Provenance: a run is reused only when its ``engine_hash`` is the running engine's; a run
stored by another build (or with none recorded) is stale, and a sweep that would reuse it
stops before running anything, saying how many and naming ``--fresh`` (``run_sweep(...,
fresh=True)``), which runs the sweep's runs again. A store of schema version 1 (before
provenance) gains the columns, in one transaction, the first time a sweep writes to it.

The package: :mod:`~aqmsim.store.schema` (tables, the run key, cells, migration),
:mod:`~aqmsim.store.database` (:class:`Store`, writing), :mod:`~aqmsim.store.queries`
(reading), :mod:`~aqmsim.store.faults` (failed writes, atomic files) and
:mod:`~aqmsim.store.connect` (the database file, its lock, snapshots).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

from .connect import LOCK_WAIT
from .database import Entry, Store
from .faults import check_writable
from .schema import (DB_NAME, FIXED_COLUMNS, PROVENANCE_COLUMNS, SCHEMA_VERSION, SERIES_DIR,
                     TMP_MARK, PathLike, StoreError, canonical_json,
                     canonical_scenario, get_path, scenario_hash)

__all__ = [
    "open", "Store", "StoreError", "scenario_hash", "canonical_scenario", "canonical_json",
    "get_path", "FIXED_COLUMNS", "PROVENANCE_COLUMNS", "DB_NAME", "Entry", "check_writable",
    "LOCK_WAIT", "SCHEMA_VERSION", "SERIES_DIR", "TMP_MARK",
]


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
        elif hasattr(sweep, "name") and not isinstance(sweep, Path):  # a Sweep
            name = str(sweep.name)
        else:
            name = _sweep_name(Path(sweep))
    with Store(path, read_only=True) as st:
        return st.runs(sweep=name, with_scenario=with_scenario)


def _sweep_name(path: Path) -> str:
    """The name of the sweep in file ``path``, as :class:`aqmsim.sweep.Sweep` reads it (its
    ``name``, else the file's stem) — read here, without importing the sweep package,
    which imports the store (no import circle)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    name = tomllib.loads(path.read_text(encoding="utf-8")).get("name", path.stem)
    return name.strip() if isinstance(name, str) else path.stem
