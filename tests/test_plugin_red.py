"""Proved equal: a RED written in Python against the public plug-in API only
(``aqmsim/plugin/examples/red.py``) gives, packet for packet, the engine's ``kind = "red"``
run: the same drop and mark log (time, flow, reason, action, queue length), the same
per-flow counters and the same queue samples (length, avg, p, thresholds); and the same
lines through ``replay_queue`` on the scripts the ns-3 queue comparisons use.

Covered options: packet mode, wait, gentle, ECN marking at the tail with mark_p, the
idle-time correction of the average (scripts and light loads that empty the queue).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from aqmsim import Scenario, _core
from aqmsim.ns3ref import parse_replay
from aqmsim.plugin import Factory
from aqmsim.plugin.examples.red import Red

from test_ns3_queues import script  # the seeded enqueue/dequeue scripts of the ns-3 replays

ROOT = Path(__file__).resolve().parents[1]
RED_FIELDS = ("min_th", "max_th", "max_p", "w_q", "limit", "gentle", "wait", "ecn", "mark_p", "mean_pktsize")
CLASS = "aqmsim.plugin.examples.red:Red"


def as_python(table: dict) -> dict:
    """The built-in RED table as the same RED in Python."""
    out = {k: v for k, v in table.items() if k in RED_FIELDS}
    return {"kind": "python", "class": CLASS, **out}


def compare_runs(base: Scenario) -> dict:
    """Run ``base`` (kind = "red" at the bottleneck) and its Python twin; assert equal."""
    q = base["dumbbell.bottleneck.queue"]
    assert q["kind"] == "red"
    twin = base.with_overrides(**{"dumbbell.bottleneck.queue": as_python(q)})
    a, b = base.run(), twin.run()
    da, db = a.drops, b.drops
    assert len(da) == len(db)
    for c in ("t", "link", "flow", "reason", "action", "qlen_pkts"):
        assert np.array_equal(da[c].to_numpy(), db[c].to_numpy()), c
    assert a.flows.equals(b.flows)
    qa, qb = a.queue, b.queue
    for c in ("t", "len_pkts", "len_bytes", "avg", "p", "max_p", "min_th", "max_th", "delay", "count"):
        assert np.array_equal(qa[c].to_numpy(), qb[c].to_numpy()), c
    sa = {k: v for k, v in a.summary.items() if k != "wall_seconds"}
    sb = {k: v for k, v in b.summary.items() if k != "wall_seconds"}
    assert sa == sb
    return {"drops": int((da["action"] == "drop").sum()), "marks": int((da["action"] == "mark").sum()),
            "reasons": set(da["reason"])}


@pytest.mark.parametrize("over", [
    {},  # wait = true, gentle = false, as the example file has them
    {"gentle": True, "wait": False},
    {"limit": 20, "max_th": 30, "mean_pktsize": 500},  # overflow drops and forced early drops
], ids=["wait", "gentle", "overflow"])
def test_python_red_equals_red_drop_mode(over):
    sc = Scenario.from_toml(ROOT / "examples" / "dumbbell-red.toml")
    sc = sc.with_overrides(**{f"dumbbell.bottleneck.queue.{k}": v for k, v in over.items()})
    seen = compare_runs(sc)
    assert seen["drops"] > 100 and seen["marks"] == 0
    if "limit" in over:
        assert "overflow" in seen["reasons"], seen


@pytest.mark.parametrize("mark_p", [0.1, 2.0])
def test_python_red_equals_red_ecn(mark_p):
    sc = Scenario.from_toml(ROOT / "examples" / "red-ecn.toml")
    sc = sc.with_overrides(**{"dumbbell.bottleneck.queue.mark_p": mark_p, "dumbbell.bottleneck.queue.gentle": True})
    seen = compare_runs(sc)
    assert seen["marks"] > 40, seen


def test_python_red_equals_red_with_idle_periods():
    """Two window-limited flows on a fast bottleneck: the queue empties again and again,
    so the idle-time decay of the average decides."""
    sc = Scenario.from_toml(ROOT / "examples" / "dumbbell-red.toml").with_overrides(**{
        "dumbbell.groups.0.count": 3, "tcp.window": 12, "dumbbell.bottleneck.rate": "3Mb",
        "dumbbell.bottleneck.queue.min_th": 2, "dumbbell.bottleneck.queue.max_th": 6,
        "dumbbell.bottleneck.queue.w_q": 0.02})
    calls = []

    class Counting(Red):
        def idle(self, now):
            calls.append(now)
            super().idle(now)

    seen = compare_runs(sc)
    # the same run with the idle calls counted: the queue did go idle, often
    twin = sc.with_overrides(**{"dumbbell.bottleneck.queue": {**as_python(sc["dumbbell.bottleneck.queue"]), "class": Counting}})
    twin.run()
    assert len(calls) > 100 and seen["drops"] > 20, (len(calls), seen)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("table", [
    {"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.002, "limit": 40, "wait": True},
    {"min_th": 3, "max_th": 9, "max_p": 0.2, "w_q": 0.01, "limit": 25, "gentle": True, "ecn": True, "mark_p": 2.0},
    {"min_th": 4, "max_th": 12, "max_p": 0.25, "w_q": 0.05, "limit": 30, "ecn": True, "mark_p": 0.1, "mean_pktsize": 1000},
], ids=["wait", "gentle-ecn", "ecn-mark_p"])
def test_python_red_replays_equal_red(table, seed):
    """The ns-3 comparison scripts (standing queues that build and drain, idle spells,
    sizes 40-1500 bytes, half the packets ECN-capable) through replay_queue."""
    ops = script(seed)
    ours = _core.replay_queue(json.dumps({"kind": "red", **table}), ops, seed)
    with Factory() as f:
        theirs = _core.replay_queue(json.dumps({"kind": "python", "class": CLASS, **table}), ops, seed, f)
    assert ours == theirs
    rows = parse_replay(ours)
    early = sum(1 for r in rows if r[0] == "enq" and r[4] in ("d", "m"))
    assert early > 20, early
