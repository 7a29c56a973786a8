"""The saved runs ``aqmsim compare`` reads: what each argument names, and each run's
scenario, summary, provenance and tables.

An argument is one of

* an ``aqmsim run --out`` directory (it holds ``summary.json``): one run;
* a sweep store (a directory holding ``runs.duckdb``: ``aqmsim sweep``'s, or a suite's
  ``OUT/store``): its finished runs — the runs of its sweep in the sweep's order when one
  sweep wrote it, else every finished run;
* a sweep file (``.toml`` with ``vary``): the runs of that sweep in its store (the file's
  ``store``, else ``out/sweeps/NAME`` beside it, as ``aqmsim sweep`` writes);
* a directory of ``run --out`` directories (none of the above, but its subdirectories
  are saved runs): each of them, by name.

Anything else is a :class:`CompareInputError`: one line naming the argument and what was
expected.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

__all__ = ["CompareInputError", "SavedRun", "load_runs", "EXPECTED"]

#: What an argument must be, as the error line says it.
EXPECTED = ("expected an `aqmsim run --out` directory (with summary.json), a sweep store "
            "(with runs.duckdb), a sweep file (.toml) or a directory of run directories")

#: The tables a comparison draws from (a run keeps those it recorded).
TABLES = ("queue", "flows", "tcp", "delay_cdf")


class CompareInputError(ValueError):
    """An argument of ``aqmsim compare`` that is not a saved run (one line)."""


@dataclass
class SavedRun:
    """One saved run: where it came from and what it holds."""

    #: The argument it came from, as given (``--label ARG=TEXT`` refers to it).
    arg: str
    #: Where it is: the run directory, or ``STORE#hash[:12]/seed`` for a store's row.
    source: str
    #: Its short name: the directory's name, or ``STORE-NAME seed N`` for a store's row.
    name: str
    #: The scenario as run, with its seed (None: an older run directory without
    #: ``scenario.toml``; then :attr:`resolved` is what tells runs apart).
    scenario: Optional[Dict[str, Any]]
    resolved: Optional[Dict[str, Any]]
    summary: Dict[str, Any]
    #: version, engine_hash, engine, host, command, started_at, finished_at (those known).
    provenance: Dict[str, Any]
    _tables: Callable[[str], Any] = field(repr=False, default=lambda name: None)
    _cache: Dict[str, Any] = field(repr=False, default_factory=dict)

    def table(self, name: str) -> Any:
        """Table ``name`` (queue, flows, tcp, delay_cdf) as a pandas DataFrame, or None
        when the run did not keep it (or kept it empty)."""
        if name not in self._cache:
            df = self._tables(name)
            self._cache[name] = df if df is not None and len(df) else None
        return self._cache[name]


# --------------------------------------------------------------------------- dispatch
def load_runs(args: List[str]) -> List[SavedRun]:
    """The runs every argument names, in the order given (a store's or sweep's rows in
    their order). Raises :class:`CompareInputError` for an argument that is not a saved
    run, or names no finished run."""
    runs: List[SavedRun] = []
    for arg in args:
        runs += _expand(arg)
    return runs


def _expand(arg: str) -> List[SavedRun]:
    p = Path(arg)
    if not p.exists():
        raise CompareInputError(f"{arg}: no such file or directory; {EXPECTED}")
    if p.is_file():
        if p.suffix == ".toml":
            return _sweep_file(arg, p)
        raise CompareInputError(f"{arg}: not a saved run; {EXPECTED}")
    if (p / "summary.json").is_file():
        return [_run_dir(arg, p)]
    if (p / "runs.duckdb").is_file():
        return _store(arg, p, sweep=None)
    subdirs = sorted(d for d in p.iterdir() if d.is_dir() and (d / "summary.json").is_file())
    if subdirs:
        return [_run_dir(arg, d) for d in subdirs]
    raise CompareInputError(f"{arg}: not a saved run; {EXPECTED}")


# --------------------------------------------------------------------------- run --out
def _read_json(path: Path, arg: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CompareInputError(f"{arg}: cannot read {path.name} ({exc}); {EXPECTED}") from None


def _run_dir(arg: str, d: Path) -> SavedRun:
    summary = _read_json(d / "summary.json", arg)
    if not isinstance(summary, dict):
        raise CompareInputError(f"{arg}: {d / 'summary.json'} is not a run's summary "
                                f"(a JSON object); {EXPECTED}")
    resolved = _read_json(d / "resolved.json", arg) if (d / "resolved.json").is_file() else None
    prov = _read_json(d / "provenance.json", arg) if (d / "provenance.json").is_file() else {}
    scenario = None
    if (d / "scenario.toml").is_file():
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib

        try:
            scenario = tomllib.loads((d / "scenario.toml").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise CompareInputError(f"{arg}: cannot read scenario.toml ({exc})") from None

    def tables(name: str) -> Any:
        import pandas as pd

        if (d / f"{name}.csv").is_file():
            return pd.read_csv(d / f"{name}.csv")
        if (d / f"{name}.parquet").is_file():
            return pd.read_parquet(d / f"{name}.parquet")
        return None

    return SavedRun(arg=arg, source=str(d), name=d.name or str(d), scenario=scenario,
                    resolved=resolved if isinstance(resolved, dict) else None,
                    summary=summary, provenance=prov if isinstance(prov, dict) else {},
                    _tables=tables)


# --------------------------------------------------------------------------- stores
def _sweep_file(arg: str, p: Path) -> List[SavedRun]:
    from ..errors import ScenarioError
    from ..sweep import Sweep

    try:
        sweep = Sweep.from_toml(p)
    except (ScenarioError, OSError) as exc:
        raise CompareInputError(f"{arg}: not a sweep file ({exc}); {EXPECTED}") from None
    store = sweep.default_store()
    if not (store / "runs.duckdb").is_file():
        raise CompareInputError(f"{arg}: its store {store} holds no runs yet: run "
                                f"`aqmsim sweep {arg}` first")
    return _store(arg, store, sweep=sweep.name)


def _store(arg: str, root: Path, sweep: Optional[str]) -> List[SavedRun]:
    from ..store import Store, StoreError

    try:
        with Store(root, read_only=True) as st:
            if sweep is None:
                names = [n for (n,) in st.con.execute("SELECT name FROM sweeps").fetchall()]
                sweep = names[0] if len(names) == 1 else None
            df = st.runs(sweep=sweep, with_scenario=True)
            df = df[df["status"] == "ok"]
            rows = [_store_row(arg, root, st, row, sweep) for _, row in df.iterrows()]
    except StoreError as exc:
        raise CompareInputError(f"{arg}: cannot read the sweep store: {exc}") from None
    if not rows:
        raise CompareInputError(f"{arg}: the store {root} holds no finished run"
                                + (f" of sweep {sweep!r}" if sweep else ""))
    return rows


def _store_row(arg: str, root: Path, st: Any, row: Any, sweep: Optional[str]) -> SavedRun:
    import pandas as pd

    h, seed = str(row["hash"]), int(row["seed"])
    scenario = dict(row["scenario"] or {})
    scenario["seed"] = seed
    summary = st.summary(h, seed) or {}
    series = {}
    for name in (row["series"] or {}):
        if name in TABLES:
            series[name] = st.series(h, seed, name)  # (read now: the store is closed after)
    prov: Dict[str, Any] = {}
    for key in ("version", "engine_hash", "engine", "host", "command", "finished_at", "worker"):
        v = row.get(key)
        if v is not None and not (not isinstance(v, (dict, list, str)) and pd.isna(v)):
            prov[key] = v.isoformat(timespec="seconds") + "Z" if hasattr(v, "isoformat") else v
    label = f"{sweep or root.name} {h[:8]} seed {seed}"
    return SavedRun(arg=arg, source=f"{root}#{h[:12]}/{seed}", name=label, scenario=scenario,
                    resolved=None, summary=summary, provenance=prov,
                    _tables=lambda name: series.get(name))
