"""A suite's runs as one table: a row per (scenario, variant, discipline, seed) with the
run's summary metrics, read back from the sweep store the runs went to."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Sequence, Tuple

from ..store import scenario_hash

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .spec import SuiteTask

__all__ = ["load", "series", "LABELS"]

#: The columns naming a run, before its metrics.
LABELS = ("scenario", "section", "variant", "variant_value", "aqm", "seed", "hash",
          "status", "error")


def load(store: Path, tasks: Sequence["SuiteTask"]) -> "pd.DataFrame":
    """One row per task, in the tasks' order: :data:`LABELS` then every summary metric the
    store holds (NaN for a run that failed or is missing: its ``status`` says which —
    ``ok``, ``failed`` or ``missing``); ``variant_value`` is the variant's value on the
    report's axis."""
    import pandas as pd

    from ..store import Store

    hashes = {}
    rows: List[Dict[str, Any]] = []
    with Store(store, read_only=True) as st:
        keys = []
        for t in tasks:
            h = hashes.get(id(t.data))
            if h is None:
                h = hashes[id(t.data)] = scenario_hash(t.data)
            keys.append((h, t.seed))
        stored = st.runs(keys=keys) if keys else pd.DataFrame()
        by_key: Dict[Tuple[str, int], Dict[str, Any]] = {}
        if len(stored):
            for rec in stored.to_dict("records"):
                by_key[(rec["hash"], int(rec["seed"]))] = rec
        metrics = list(st.metric_columns)
    for t, (h, seed) in zip(tasks, keys):
        rec = by_key.get((h, seed), {})
        row: Dict[str, Any] = {
            "scenario": t.scenario, "section": t.section, "variant": t.variant,
            "variant_value": t.value, "aqm": t.aqm,
            "seed": seed, "hash": h, "status": rec.get("status", "missing"),
            "error": rec.get("error"),
        }
        for m in metrics:
            v = rec.get(m)
            row[m] = float(v) if v is not None and row["status"] == "ok" else float("nan")
        rows.append(row)
    return pd.DataFrame(rows, columns=list(LABELS) + metrics)


def series(store: Path, hash_: str, seed: int, name: str) -> "pd.DataFrame":
    """A kept table (``flows``, ``delay_cdf``) of one run, as its Results gave it."""
    from ..store import Store

    with Store(store, read_only=True) as st:
        return st.series(hash_, int(seed), name)
