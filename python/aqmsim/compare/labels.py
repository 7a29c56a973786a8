"""How ``aqmsim compare`` names each run: by how its scenario differs from the others'.

The rule (stated in docs/compare.md):

1. Each run's scenario as run (``scenario.toml`` of a ``run --out`` directory, a store's
   scenario with the row's seed) is flattened to dotted keys (list items by index:
   ``dumbbell.groups.0.count``). A run directory from before ``scenario.toml`` was
   written is read from ``resolved.json`` instead: its duration, seed, and each link's
   ends, rate and queues (not the flows nor the link delays: there they are the seed's
   draws — start times, per-source delays — and would tell every seed apart).
2. Fields that describe or observe a run rather than what it simulates are left out:
   ``name``, ``description``, ``notes``, ``monitor`` and ``trace``.
3. A key whose value is not the same in every run is a difference; a run without the
   key shows ``default``.
4. When a table's ``kind`` differs (one queue is RED, another PIE), only ``kind`` of that
   table is shown: the other fields of two different disciplines do not mean the same.
5. A key is shown by its last two parts (``queue.kind``), more when those are not unique
   among the differences or begin with a list index (``groups.0.count``).
6. A run that differs in more than :data:`MAX_FIELDS` fields (two different scenario
   files, say) is named by its scenario name (else its directory name), followed, in
   brackets, by the differing ``kind`` and ``seed`` fields that every run sets; every differing
   field is still listed in the page's table of runs.
7. Runs whose scenarios do not differ at all: their scenario names if those differ, else
   the directory name (a store's row: ``SWEEP hash seed N``). ``--label ARG=TEXT`` gives
   the runs of ARG the label TEXT (a store's rows: ``TEXT: difference``). Labels still
   equal get `` (name)`` added.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .sources import SavedRun

__all__ = ["run_labels", "differences", "difference_text", "flatten", "IGNORED",
           "MAX_FIELDS"]

#: More differing fields than this: the label is the scenario's name (rule 6).
MAX_FIELDS = 4

#: Top-level fields that do not change what a run simulates.
IGNORED = ("name", "description", "notes", "monitor", "trace")

_ABSENT = object()


def flatten(data: Any, prefix: str = "") -> Dict[str, Any]:
    """Dotted keys to leaf values: tables by key, lists of tables by index; a list of
    plain values (``queues = ["R1->R2"]``) is one value."""
    out: Dict[str, Any] = {}
    if isinstance(data, Mapping):
        for k, v in data.items():
            out.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(data, list) and any(isinstance(x, (Mapping, list)) for x in data):
        for i, v in enumerate(data):
            out.update(flatten(v, f"{prefix}{i}."))
    else:
        out[prefix[:-1]] = data
    return out


def _fields(run: SavedRun) -> Dict[str, Any]:
    if run.scenario is not None:
        data: Mapping[str, Any] = run.scenario
    else:  # rule 1's fallback: what the seed does not draw
        res = run.resolved or {}
        data = {k: res[k] for k in ("duration", "seed") if k in res}
        data["links"] = [{k: v for k, v in link.items() if k != "delay"}
                         for link in res.get("links") or [] if isinstance(link, Mapping)]
    return {k: v for k, v in flatten({k: v for k, v in data.items() if k not in IGNORED}).items()
            if k}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b or (
        isinstance(a, (int, float)) and isinstance(b, (int, float))
        and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def differences(runs: Sequence[SavedRun]) -> List[Dict[str, Any]]:
    """For each run, ``{dotted key: value}`` of the fields that differ among ``runs``
    (rules 1-4), keys in the order they first appear."""
    flat = [_fields(r) for r in runs]
    keys: List[str] = list(dict.fromkeys(k for f in flat for k in f))
    differ = [k for k in keys
              if any(not _same(f.get(k, _ABSENT), flat[0].get(k, _ABSENT)) for f in flat[1:])]
    kinds = {k[: -len("kind")] for k in differ if k == "kind" or k.endswith(".kind")}
    shown = [k for k in differ
             if not any(k.startswith(p) and k != p + "kind" for p in kinds if p)]
    return [{k: f.get(k, _ABSENT) for k in shown} for f in flat]


def _short_keys(keys: Sequence[str]) -> Dict[str, str]:
    """Rule 5: the shortest tail of each key (two parts at least, not starting with an
    index) that no other key shares."""
    parts = {k: k.split(".") for k in keys}
    out: Dict[str, str] = {}
    for k, ps in parts.items():
        n = min(2, len(ps))
        while n < len(ps):
            tail = ps[-n:]
            clash = any(o != k and ".".join(op[-n:]) == ".".join(tail) for o, op in parts.items())
            if not clash and not tail[0].isdigit():
                break
            n += 1
        out[k] = ".".join(ps[-n:])
    return out


def _text(v: Any) -> str:
    if v is _ABSENT:
        return "default"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_text(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}={_text(x)}" for k, x in v.items()) + "}"
    return str(v)


def difference_text(runs: Sequence[SavedRun]) -> List[str]:
    """Every differing field of each run, ``key=value, …`` with the short keys (the
    page's table shows it beside a label shortened by rule 6)."""
    diffs = differences(runs) if len(runs) > 1 else [{} for _ in runs]
    short = _short_keys(list(dict.fromkeys(k for d in diffs for k in d)))
    return [", ".join(f"{short[k]}={_text(v)}" for k, v in d.items()) for d in diffs]


def run_labels(runs: Sequence[SavedRun], given: Optional[Mapping[str, str]] = None) -> List[str]:
    """The label of each run (rules 1-6); ``given`` maps an argument to its ``--label``."""
    given = dict(given or {})
    diffs = differences(runs) if len(runs) > 1 else [{} for _ in runs]
    short = _short_keys(list(dict.fromkeys(k for d in diffs for k in d)))
    names = [str((r.scenario or r.resolved or {}).get("name") or "") for r in runs]
    everywhere = {k for k in short if all(d.get(k, _ABSENT) is not _ABSENT for d in diffs)}
    labels: List[str] = []
    for run, diff, name in zip(runs, diffs, names):
        text = ", ".join(f"{short[k]}={_text(v)}" for k, v in diff.items())
        if len(diff) > MAX_FIELDS:
            key = ", ".join(f"{short[k]}={_text(v)}" for k, v in diff.items()
                            if (k == "seed" or k.endswith("kind")) and k in everywhere)
            text = (name or run.name) + (f" ({key})" if key else "")
        if not text:
            text = name if len(set(names)) > 1 and name else run.name
        if run.arg in given:
            several = sum(r.arg == run.arg for r in runs) > 1
            text = f"{given[run.arg]}: {text}" if several else given[run.arg]
        labels.append(text)
    twice = {t for t in labels if labels.count(t) > 1}  # rule 6: labels still equal
    return [f"{t} ({r.name})" if t in twice else t for t, r in zip(labels, runs)]
