"""FQ-COBALT against ns-3.37's ``FqCobaltQueueDisc``, packet for packet: the queue-level
replay of tests/test_ns3_queues.py (the same scripts and comparison), every flow queue's
BLUE drawing aqmsim's uniforms in aqmsim's order (ns-3's replay gives every child
CobaltQueueDisc the one scripted stream). Cases: ECN on (ns-3's default) and off, ns-3's
5-tuple hash, a small limit (fat-flow drops), one queue (its COBALT refuses arrivals at the
limit, so BLUE rises on overflow), a low blue_threshold (BLUE acts on delay), p_drop > 0
with ECN (packets marked by CoDel then dropped by BLUE), the CE threshold, and a run past
2^32 ns (ns-3's 32-bit BLUE clock). docs/aqm/fq-cobalt.md says what is compared.
"""

from __future__ import annotations

import pytest
from test_ns3_queues import compare, script

pytestmark = pytest.mark.usefixtures("ns3_required")

FQ_COBALT_CASES = [
    # (name, aqmsim table, ns-3 attributes, ns-3 replay keywords, script seconds)
    ("defaults", {}, {}, {}, 3.0),
    ("no-ecn", {"ecn": False}, {"UseEcn": "false"}, {}, 3.0),
    # ns-3 hashes the 5-tuple (murmur3), aqmsim the flow number: the queues differ, the
    # decisions agree while no two of the 8 flows share a queue (1024 queues)
    ("hash", {"classify": "hash"}, {}, {"hash": True}, 3.0),
    # the fat-flow drop (8 flows sharing 100 packets)
    ("overflow", {"limit": 100, "drop_batch": 4, "ecn": False}, {"MaxSize": "100p", "DropBatchSize": 4, "UseEcn": "false"}, {}, 3.0),
    # one queue: its COBALT refuses arrivals at the limit (BLUE's increment on overflow)
    ("one-queue", {"flows": 1, "limit": 40}, {"Flows": 1, "MaxSize": "40p"}, {}, 3.0),
    ("few-queues", {"flows": 3, "quantum": 300, "ecn": False}, {"Flows": 3, "UseEcn": "false"}, {"quantum": 300}, 3.0),
    ("blue-threshold", {"blue_threshold": "30ms", "increment": 0.015625, "decrement": 0.001, "ecn": False},
     {"BlueThreshold": "30ms", "Increment": 0.015625, "Decrement": 0.001, "UseEcn": "false"}, {}, 3.0),
    ("p_drop+ecn", {"p_drop": 0.05}, {"Pdrop": 0.05}, {}, 3.0),
    ("ce", {"ce_threshold": "3ms", "target": "2ms", "interval": "30ms"},
     {"CeThreshold": "3ms", "Target": "2ms", "Interval": "30ms"}, {}, 3.0),
    # past 2^32 ns ≈ 4.29 s: BLUE's once-per-target limit stops holding in ns-3
    ("long-one-queue", {"flows": 1, "limit": 40, "ecn": False}, {"Flows": 1, "MaxSize": "40p", "UseEcn": "false"}, {}, 6.0),
]


def with_l4s(ops: str) -> str:
    """``ops`` with the ECN-capable packets of odd flows sent as ECT(1) (ect 2)."""
    out = []
    for line in ops.splitlines():
        f = line.split()
        if f and f[0] == "e" and f[4] == "1" and int(f[2]) % 2 == 1:
            f[4] = "2"
            line = " ".join(f)
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("ecn", [True, False])
def test_fq_cobalt_l4s_equal_ns3(ecn):
    """UseL4s with a 2 ms CE threshold: ECT(1) packets (odd flows) skip CoDel and BLUE and
    are marked above the threshold; the others get COBALT (with or without ECN)."""
    t = {"kind": "fq_cobalt", "classify": "flow", "l4s": True, "ce_threshold": "2ms", "ecn": ecn}
    attrs = {"UseL4s": "true", "CeThreshold": "2ms", "UseEcn": str(ecn).lower()}
    seen = {"drop": 0, "mark": 0}
    for seed in (7, 8, 9):
        ops = with_l4s(script(seed))
        assert " 2\n" in ops
        c = compare("fq_cobalt", t, attrs, ops, seed, quantum=1500)
        for k in seen:
            seen[k] += c[k]
    assert seen["mark"] > 20 and seen["drop"] > 20, seen


@pytest.mark.parametrize("name, table, attrs, kw, seconds", FQ_COBALT_CASES, ids=[c[0] for c in FQ_COBALT_CASES])
def test_fq_cobalt_decisions_equal_ns3(name, table, attrs, kw, seconds):
    t = {"kind": "fq_cobalt", "classify": "flow", **table}
    kw = {"quantum": 1500, **kw}
    seen = {"drop": 0, "mark": 0, "enq_drop": 0}
    for seed in (7, 8, 9):
        c = compare("fq_cobalt", t, attrs, script(seed, seconds=seconds), seed, **kw)
        for k in seen:
            seen[k] += c[k]
    # the scripts must exercise what is compared
    if t.get("ecn", True):
        assert seen["mark"] > 20, seen
    assert seen["drop"] > 20, seen
    if name.endswith("one-queue"):
        assert seen["enq_drop"] > 20, seen
