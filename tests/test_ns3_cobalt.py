"""COBALT against ns-3.37's ``CobaltQueueDisc``, packet for packet: the queue-level replay
of tests/test_ns3_queues.py (the same scripts and comparison), with BLUE's uniforms drawn
by aqmsim and handed to ns-3's disc in draw order (``--uniforms``), so the comparison is
exact, not in distribution. Cases cover ECN on/off, the CE threshold, overload (overflow
and a low blue_threshold, so BLUE acts), a byte limit, a start with p_drop > 0 (marked then
dropped packets) and a run past 2^32 ns, where ns-3's 32-bit BLUE clock matters."""

from __future__ import annotations

import pytest
from test_ns3_queues import compare, script

pytestmark = pytest.mark.usefixtures("ns3_required")

COBALT_CASES = [
    # (name, aqmsim table, ns-3 attributes, script seconds)
    ("defaults", {}, {}, 3.0),
    ("ecn", {"ecn": True}, {"UseEcn": "true"}, 3.0),
    ("ecn+ce", {"ecn": True, "ce_threshold": "3ms"}, {"UseEcn": "true", "CeThreshold": "3ms"}, 3.0),
    ("short", {"target": "2ms", "interval": "30ms"}, {"Target": "2ms", "Interval": "30ms"}, 3.0),
    ("overflow", {"limit": 40}, {"MaxSize": "40p"}, 3.0),
    ("overflow+ecn", {"limit": 40, "ecn": True}, {"MaxSize": "40p", "UseEcn": "true"}, 3.0),
    ("blue-threshold", {"blue_threshold": "30ms", "increment": 0.015625, "decrement": 0.001},
     {"BlueThreshold": "30ms", "Increment": 0.015625, "Decrement": 0.001}, 3.0),
    ("bytes", {"limit_bytes": 30000, "ecn": True}, {"MaxSize": "30000B", "UseEcn": "true"}, 3.0),
    ("p_drop+ecn", {"p_drop": 0.05, "ecn": True}, {"Pdrop": 0.05, "UseEcn": "true"}, 3.0),
    # past 2^32 ns ≈ 4.29 s: BLUE's once-per-target limit stops holding in ns-3
    ("long-overflow", {"limit": 40}, {"MaxSize": "40p"}, 6.0),
]


@pytest.mark.parametrize("name, table, attrs, seconds", COBALT_CASES, ids=[c[0] for c in COBALT_CASES])
def test_cobalt_decisions_equal_ns3(name, table, attrs, seconds):
    seen = {"drop": 0, "mark": 0, "enq_drop": 0}
    for seed in (7, 8, 9):
        c = compare("cobalt", {"kind": "cobalt", **table}, attrs, script(seed, seconds=seconds), seed)
        for k in seen:
            seen[k] += c[k]
    # the scripts must exercise what is compared
    if table.get("ecn"):
        assert seen["mark"] > 20, seen
    else:
        assert seen["drop"] > 20, seen
    if "limit" in table or "limit_bytes" in table:
        assert seen["enq_drop"] > 20, seen
