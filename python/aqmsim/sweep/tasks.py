"""What a sweep's driver works on: tasks grouped into runs (:class:`_Unit`, one per
scenario hash and seed), the progress counts and the outcome handed back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..errors import ScenarioError
from ..plugin.portable import check_shippable
from ..store import canonical_scenario
from ..store.schema import hash_of
from .spec import SERIES, Task

__all__ = ["Counts", "RunOutcome", "SweepResult"]


@dataclass
class Counts:
    """Progress of a sweep: every run is ok, failed (for good) or left."""

    total: int
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    retrying: int = 0
    stale: int = 0  # stored runs of another engine, run again (``stale="rerun"``)

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
            check_shippable(data)  # a plug-in class in __main__: one line, before any run
            canon = canonical_scenario(data)
            h = hash_of(canon, data)  # (a plug-in's code is part of the key)
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

