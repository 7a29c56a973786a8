"""The store's schema: its tables and columns, the key of a run (the canonical scenario
and its hash), how values become cells, and the migration of older stores."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Union

__all__ = ["StoreError", "canonical_scenario", "canonical_json", "scenario_hash", "hash_of", "get_path",
           "FIXED_COLUMNS", "PROVENANCE_COLUMNS", "DB_NAME", "SCHEMA_VERSION"]

PathLike = Union[str, Path]

DB_NAME = "runs.duckdb"
SERIES_DIR = "series"
#: Version 2 added the provenance columns (engine_hash, engine, host, command); a store of
#: version 1 is migrated when first opened for writing (:func:`migrate`).
SCHEMA_VERSION = "2"
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
    # provenance (schema version 2): what made the run, besides ``version`` and ``worker``
    "engine_hash": "VARCHAR",
    "engine": "JSON",
    "host": "JSON",
    "command": "VARCHAR",
}

#: The provenance columns: a run whose ``engine_hash`` is not the running engine's
#: ``aqmsim._core.BUILD["source_hash"]`` is stale (not reused without ``--fresh``).
PROVENANCE_COLUMNS = ("version", "engine_hash", "engine", "host", "command", "worker",
                      "finished_at")

#: Summary keys that are inputs of the run, not measurements: no metric column.
NOT_METRICS = frozenset({"seed", "duration"})

_MISSING = object()


class StoreError(RuntimeError):
    """The store cannot be opened or written (locked by another process, not a store…)."""


# --------------------------------------------------------------------------- hashing
def canonical_scenario(data: Mapping[str, Any]) -> Dict[str, Any]:
    """The scenario dict a run is keyed by: plain data (as :class:`~aqmsim.Scenario`
    normalises it) without the top-level ``seed``, which the run's seed replaces."""
    from ..scenario import Scenario

    d = Scenario.from_dict(data).to_dict()
    d.pop("seed", None)
    return d


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept, no NaN: the same text for the same data."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def scenario_hash(data: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of :func:`canonical_scenario` ``(data)``; for a
    scenario with Python plug-ins, of that and their code (:func:`hash_of`)."""
    return hash_of(canonical_scenario(data), data)


def hash_of(canon: Mapping[str, Any], data: Any) -> str:
    """The key hash of a run of ``data`` whose canonical scenario is ``canon``: sha256 of
    the canonical JSON, with the digest of the plug-ins' source files appended when it
    names any (``aqmsim.plugin.portable.plugin_code_digest``: editing a plug-in makes new
    runs; a scenario without one hashes as it always did)."""
    text = canonical_json(canon)
    if "python" in text:  # cheap test first: no plug-in, no walk
        from ..plugin.portable import plugin_code_digest

        digest = plugin_code_digest(data)
        if digest:
            text += "\nplugin-code:" + digest
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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



def migrate(c: Any, version: str) -> None:
    """Bring the ``runs`` table of a store of schema ``version`` up to
    :data:`SCHEMA_VERSION` (the columns it lacks, NULL in its rows: their engine is unknown,
    so they count as stale). The caller runs it in one transaction (``Store._create``), so
    that a kill leaves the old schema or the new one, never half of it. A newer store than
    this aqmsim knows is refused (before anything is changed)."""
    if version == SCHEMA_VERSION:
        return
    if not version.isdigit() or int(version) > int(SCHEMA_VERSION):
        raise StoreError(f"store schema version {version}: made by a newer aqmsim (this one "
                         f"writes version {SCHEMA_VERSION})")
    have = {name for (name,) in c.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'runs'"
    ).fetchall()}
    for name, sql_type in FIXED_COLUMNS.items():
        if name not in have:
            c.execute(f"ALTER TABLE runs ADD COLUMN {_q(name)} {sql_type}")
    c.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [SCHEMA_VERSION])
