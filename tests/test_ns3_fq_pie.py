"""FQ-PIE against ns-3.37's FqPieQueueDisc, packet for packet: the queue-level replay of
tests/test_ns3_queues.py (the same scripts and comparison), each flow queue's PIE drawing
aqmsim's uniforms in aqmsim's order (ns-3's replay gives every child PieQueueDisc the one
scripted stream). docs/aqm/fq-pie.md says what is compared and what is not.
"""

from __future__ import annotations

import random

import pytest
from test_ns3_queues import compare, script

pytestmark = pytest.mark.usefixtures("ns3_required")

# The dequeue period avoids multiples of t_update, as for PIE (ties between an op and an
# update at t_c + k·t_update, k ≥ 1, are ordered differently by the replay; see the docs).
FQ_PIE_CASES = [
    # (name, aqmsim table, ns-3 attributes, ns-3 replay keywords)
    ("defaults", {}, {}, {}),
    ("no-ecn", {"ecn": False}, {"UseEcn": "false"}, {}),
    # ns-3 hashes the 5-tuple (murmur3), aqmsim the flow number: the queues differ, the
    # decisions agree while no two of the 8 flows share a queue (1024 queues)
    ("hash", {"classify": "hash"}, {}, {"hash": True}),
    # both the fat-flow drop and PIE's drops (8 flows sharing 100 packets)
    ("overflow", {"limit": 100, "drop_batch": 4}, {"MaxSize": "100p", "DropBatchSize": 4}, {}),
    ("few-queues", {"flows": 3, "quantum": 300}, {"Flows": 3}, {"quantum": 300}),
    ("derandomized", {"derandomize": True}, {"UseDerandomization": "true"}, {}),
    # the estimator reads a queue's bytes at each update, after fat-flow drops too
    ("estimator", {"dq_rate_estimator": True, "dq_threshold": 4000, "limit": 100, "drop_batch": 4},
     {"UseDequeueRateEstimator": "true", "DequeueThreshold": 4000, "MaxSize": "100p", "DropBatchSize": 4}, {}),
    ("fast", {"target": "5ms", "t_update": "7ms", "max_burst": "30ms", "alpha": 0.25, "beta": 2.5},
     {"QueueDelayReference": "5ms", "Tupdate": "7ms", "MaxBurstAllowance": "30ms", "A": 0.25, "B": 2.5}, {}),
]


@pytest.mark.parametrize("name, table, attrs, kw", FQ_PIE_CASES, ids=[c[0] for c in FQ_PIE_CASES])
def test_fq_pie_decisions_equal_ns3(name, table, attrs, kw):
    t = {"kind": "fq_pie", "classify": "flow", **table}
    kw = {"quantum": 1500, **kw}
    seen = {"drop": 0, "mark": 0, "fat": 0}
    for seed in (7, 8):
        ops = script(seed, seconds=4.0, service_ns=1_200_003)
        c = compare("fq_pie", t, attrs, ops, seed, **kw)
        seen["drop"] += c["enq_drop"]
        seen["mark"] += c["enq_mark"]
        seen["fat"] += c["drop"]
    assert seen["drop"] + seen["mark"] > 20, seen
    if name in ("overflow", "estimator"):
        assert seen["fat"] > 20, seen
    if name in ("defaults", "hash"):
        assert seen["mark"] > 0, seen


def with_ties_at_creation(ops: str) -> str:
    """``ops`` with new flows starting mid-run (flow f becomes f + 8k in the k-th second,
    so queues are created while the others are congested) and, after each flow's first
    arrival, a dequeue and a second arrival of that flow at the same ns: the queue's first
    PIE update, due at its creation time, must run after both (ns-3 schedules it while the
    creating arrival runs; run before them, the burst allowance would end one update later)."""
    out, seen = [], set()
    rng = random.Random(11)
    for line in ops.splitlines():
        f = line.split()
        if f and f[0] == "e":
            f[2] = str(int(f[2]) + 8 * (int(f[1]) // 1_000_000_000))
            line = " ".join(f)
        out.append(line)
        if f and f[0] == "e" and f[2] not in seen:
            seen.add(f[2])
            out.append(f"d {f[1]}")
            out.append(f"e {f[1]} {f[2]} {rng.choice([40, 1500])} {f[4]}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_fq_pie_first_update_after_the_creating_events(seed):
    ops = with_ties_at_creation(script(seed, seconds=4.0, service_ns=1_200_003))
    c = compare("fq_pie", {"kind": "fq_pie", "classify": "flow"}, {}, ops, seed, quantum=1500)
    assert c["enq_drop"] + c["enq_mark"] > 20, c
