"""Reading a store: its runs as a DataFrame, a run's summary, scenario and series."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .schema import StoreError, _q

__all__: List[str] = []


class _Reading:
    """The queries of :class:`~aqmsim.store.Store` (which holds ``con``, ``root`` and the
    column lists)."""

    con: Any
    root: Any
    _columns: Dict[str, str]
    param_columns: List[str]
    metric_columns: List[str]

    def runs(self, sweep: Optional[str] = None, keys: Optional[Sequence[Tuple[str, int]]] = None,
             with_scenario: bool = False) -> "Any":
        """The runs as a pandas DataFrame: parameter columns, seed, status, error, metric
        columns, then hash, attempts, error_kind, wall_s, worker, version, finished_at,
        written_by, series, and the provenance: engine_hash, engine, host, command. ``sweep`` (a name) keeps that sweep's runs in its order and only its
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
                "finished_at", "written_by", "series", "engine_hash", "engine", "host",
                "command"]
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
        for col in ("engine", "host"):  # (JSON text: dicts, as the scenario)
            if col in df:
                df[col] = [json.loads(s) if isinstance(s, str) else None for s in df[col]]
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
        from ..results import SCHEMAS, read_parquet

        if name in SCHEMAS:  # columns and dtypes as Results has them
            return read_parquet(name, self.root / files[name])
        return pd.read_parquet(self.root / files[name])
