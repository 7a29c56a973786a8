"""The ns-3 reference harness (aqmsim.ns3ref, benchmarks/ns3/queue_replay.cc and dumbbell.cc)
checked against expectations computed here by hand or from ns-3.37's fixed-point rules.

ns-3 (Debian's libns3-dev 3.37, ``make ns3``) is skipped only on a developer's machine
without it; under CI (``CI=true``) a missing ns-3 fails. Each program is built once by
benchmarks/ns3/build.sh (about 5-60 s, cached under target/ns3-bench/).
"""

from __future__ import annotations

import math

import pytest
from aqmsim import ns3ref

NS = 1_000_000  # ns per ms


pytestmark = pytest.mark.usefixtures("ns3_required")


def ops(lines):
    return "".join(line + "\n" for line in lines)


# ------------------------------------------------------------------ CoDel
# ns-3.37's CoDel clock and control law (codel-queue-disc.cc, from Linux's codel.h):
# time in 1024-ns units, 1/sqrt(count) in Q16 refined by one Newton step per count.
def codel_time(t_ns):
    return (t_ns >> 10) & 0xFFFFFFFF


def newton_step(rec, count):
    invsqrt = (rec << 16) & 0xFFFFFFFF
    invsqrt2 = (invsqrt * invsqrt) >> 32
    val = ((3 << 32) - count * invsqrt2) & 0xFFFFFFFFFFFFFFFF
    val >>= 2
    val = ((val * invsqrt) & 0xFFFFFFFFFFFFFFFF) >> (32 - 2 + 1)
    return (val >> 16) & 0xFFFF


def control_law(t, interval, rec):
    return (t + ((interval * ((rec << 16) & 0xFFFFFFFF)) >> 32)) & 0xFFFFFFFF


def test_codel_drops_follow_the_control_law():
    """Arrivals every 0.5 ms, a dequeue every 1 ms: the sojourn grows past 5 ms and stays
    above. The first drop comes at the first dequeue whose CoDel time is after the time the
    sojourn first reached target plus one interval (OkToDrop); then count = 1, and each
    next drop at the first dequeue at or after drop_next, drop_next += interval/sqrt(count)
    (ControlLaw from the previous drop_next, count incremented before the drop)."""
    arrivals = [f"e {k * NS // 2} 0 1000 0" for k in range(2400)]
    deqs = [f"d {k * NS}" for k in range(1, 1001)]
    script = sorted(arrivals + deqs, key=lambda s: int(s.split()[1]))  # stable: e before d
    out = ns3ref.replay("codel", ops(script), {"Target": "5ms", "Interval": "100ms",
                                                "MaxSize": "10000p"}, sojourn=True)
    target_c, interval_c = codel_time(5 * NS), codel_time(100 * NS)
    deq = [r for r in out if r[0] == "deq"]
    enq_t = {r[2]: r[1] for r in out if r[0] == "enq"}
    # timestamps are the enqueue op's time: the sojourn is exactly dequeue - enqueue time
    assert all(r[5] == r[1] - enq_t[r[2]] for r in deq)
    drops = [r[1] for r in out if r[0] == "drop"]
    assert len(drops) >= 6
    # Expected drop times from the rules above, over the dequeue times.
    above = next(r[1] for r in deq if codel_time(r[5]) >= target_c)
    first_above = codel_time(above) + interval_c
    expect, count, rec, drop_next = [], 0, 0xFFFF, None
    for t in range(1, 1001):
        now = codel_time(t * NS)
        if drop_next is None:
            if now > first_above:
                expect.append(t * NS)
                count, rec = 1, 0xFFFF
                drop_next = control_law(now, interval_c, rec)
        elif now >= drop_next:
            count += 1
            rec = newton_step(rec, count)
            expect.append(t * NS)
            drop_next = control_law(drop_next, interval_c, rec)
    assert drops == expect
    # The gaps are interval x 1/sqrt(count) as ns-3 (and Linux) approximate it: one Newton
    # step per count from the previous value, so count 2 gives 0.5, not RFC 8289's 0.707
    # (0.5625, 0.488, 0.442, ... then within 1.5 % of 1/sqrt(count) from count 6 on).
    gaps = [b - a for a, b in zip(expect, expect[1:])]
    rec = [0xFFFF]
    for c in range(2, len(gaps) + 1):
        rec.append(newton_step(rec[-1], c))
    assert rec[1] == 0x8000 + 1 and rec[2] == 0x9000
    for n, g in enumerate(gaps, start=1):
        assert abs(g - 100 * NS * rec[n - 1] / 65536) <= 1.1 * NS  # dequeues are 1 ms apart
        if n >= 6:
            assert abs(rec[n - 1] / 65536 * math.sqrt(n) - 1) < 0.015
    assert above == 9 * NS and drops[0] == 110 * NS  # sojourn 5.0 ms at 9 ms; 107421 > 106445
    # every packet is accounted for: enqueued = dequeued + dropped + still queued
    assert len(deq) + len(drops) <= 2400


def test_empty_dequeue_and_ecn_marking():
    out = ns3ref.replay("codel", ops(["d 5", "e 10 3 1500 1", "d 20", "d 30"]))
    assert out == [("deq", 5, None, None, None), ("enq", 10, 0, 3, "q"), ("deq", 20, 0, 3, 0),
                   ("deq", 30, None, None, None)]
    # With UseEcn an ECT packet is marked where a drop would be: same schedule, CE set.
    script = [f"e {k * NS // 2} 0 1000 1" for k in range(400)]
    script = sorted(script + [f"d {k * NS}" for k in range(1, 151)], key=lambda s: int(s.split()[1]))
    out = ns3ref.replay("codel", ops(script), {"UseEcn": True, "MaxSize": "10000p"}, reasons=True)
    marks = [r for r in out if r[0] == "mark"]
    assert not [r for r in out if r[0] == "drop"]
    assert marks[0][1] == 110 * NS and marks[0][4] == "Target exceeded mark"
    ce = {r[2] for r in out if r[0] == "deq" and r[4] == 1}
    assert ce == {r[2] for r in marks}


# ------------------------------------------------------------------ FQ-CoDel
def test_fq_codel_drr_order_by_quantum():
    """Quantum 1500: flow 0 sends 1500-byte packets, flow 1 500-byte ones, all queued at
    t = 0. DRR with new/old lists (RFC 8290 4.2): flow 0 sends one packet per round, flow 1
    three, until flow 0 runs out (flow 0 is served first: it arrived first)."""
    script = ["e 0 0 1500 0"] * 4 + ["e 0 1 500 0"] * 12 + [f"d {NS + k}" for k in range(18)]
    expect = ([0, 1, 1, 1] * 4) + [None, None]
    for hash_ in (False, True):  # flows 0 and 1 also fall in distinct queues when hashed
        out = ns3ref.replay("fq_codel", ops(script), quantum=1500, hash=hash_)
        assert [r[3] for r in out if r[0] == "deq"] == expect


def test_fq_codel_overflow_drops_from_the_fattest_queue():
    """MaxSize 10 packets: the 11th arrival is queued, then FqCoDelDrop drops from the
    fattest queue (flow 0, 8 x 1500 B) until half its bytes (6000 B) are gone: 4 packets."""
    script = ["e 0 0 1500 0"] * 8 + ["e 0 1 1500 0"] * 3 + ["d 1000"]
    out = ns3ref.replay("fq_codel", ops(script), {"MaxSize": "10p"}, reasons=True)
    assert out[10] == ("enq", 0, 10, 1, "q")
    assert out[11:15] == [("drop", 0, i, 0, "Overlimit drop") for i in range(4)]
    assert out[15] == ("deq", 1000, 4, 0, 0)


def test_fq_codel_flow_number_maps_modulo_flows():
    """With the flow-number filter, flow f goes to queue f % Flows: flows 0 and 4 share a
    queue when Flows = 4, so their packets leave in FIFO order between them."""
    script = ["e 0 0 1000 0", "e 0 4 1000 0", "e 0 1 1000 0", "e 0 0 1000 0"] + [f"d {k + 1}" for k in range(4)]
    out = ns3ref.replay("fq_codel", ops(script), {"Flows": 4}, quantum=3000)
    assert [r[2] for r in out if r[0] == "deq"] == [0, 1, 3, 2]


# ------------------------------------------------------------------ PIE
def test_pie_updates_every_tupdate_and_first_probability():
    """Sojourn held at exactly 30 ms (enqueue at k ms, dequeue at k + 30 ms). PIE updates
    at 0, 15, 30, ... ms; the 150 ms burst allowance (set at the first enqueue) keeps p at 0
    through the update at 150 ms; at 165 ms p = alpha (30 - 15) ms / 2048 (p < 1e-6 scale)."""
    script = [f"e {k * NS} 0 1000 0" for k in range(1, 200)] + [f"d {(k + 30) * NS}" for k in range(1, 200)]
    script = sorted(script, key=lambda s: int(s.split()[1]))
    out = ns3ref.replay("pie", ops(script), {"MaxSize": "1000p"}, uniforms=[0.5] * 1000,
                        print_uniforms=True)
    prob = [r for r in out if r[0] == "prob"]
    assert [r[1] for r in prob] == [k * 15 * NS for k in range(len(prob))]
    assert prob[-1][1] == 225 * NS  # nothing runs after the last op (229 ms)
    assert all(r[2] == 0.0 for r in prob if r[1] <= 150 * NS)
    p165 = next(r for r in prob if r[1] == 165 * NS)
    assert p165[2] == 0.125 * (0.030 - 0.015) / 2048 and p165[3] == 30 * NS
    assert not [r for r in out if r[0] == "enq" and r[4] == "d"]
    assert {r[2] for r in out if r[0] == "rand"} == {0.5}


# ------------------------------------------------------------------ dumbbell
def test_dumbbell_codel_cubic_is_sane():
    r = ns3ref.dumbbell(flows=10, duration=20, warmup=5, queue="codel", tcp="cubic", seed=1)
    assert r["queue"] == "codel" and r["tcp"] == "cubic" and len(r["flows"]) == 10
    assert 0.95 < r["utilisation"] <= 1.0
    assert 0.002 < r["qdelay_mean_s"] < 0.010 and r["qdelay_mean_s"] <= r["qdelay_p99_s"] < 0.05
    assert r["bottleneck_drops"] > 0 and r["bottleneck_marks"] == 0
    assert r["bottleneck_drops"] == sum(v for k, v in r.items() if k.startswith("drops."))
    assert all(g > 1e6 for g in r["flows"])
    assert sum(r["flows"]) == pytest.approx(r["goodput_bps"], rel=1e-9)
    assert 0.9e8 < r["goodput_bps"] < 1e8


# ------------------------------------------------------------------ RED
def test_red_marks_ect_and_drops_the_rest():
    """RED with UseEcn: an early decision marks an ECT arrival and drops a not-ECT one
    (RedQueueDisc::DoEnqueue); the uniforms are the disc's own stream (run 1)."""
    script = [f"e {k * 100_000} {k % 3} 1000 {k % 2}" for k in range(200)]
    script += [f"d {20 * NS + k * 100_000}" for k in range(100)]
    out = ns3ref.replay("red", ops(script), {"UseEcn": True, "MinTh": 5, "MaxTh": 15, "QW": 0.02,
                                             "MaxSize": "100p"}, reasons=True)
    ect = {r[2]: r[2] % 2 for r in out if r[0] == "enq"}
    early = [r for r in out if r[0] == "enq" and r[4] in ("m", "d") and r[5].startswith("Unforced")]
    assert {ect[r[2]] for r in early if r[4] == "m"} == {1}
    assert {ect[r[2]] for r in early if r[4] == "d"} == {0}
    assert len(early) >= 5
    again = ns3ref.replay("red", ops(script), {"UseEcn": True, "MinTh": 5, "MaxTh": 15, "QW": 0.02,
                                               "MaxSize": "100p"}, reasons=True)
    assert again == out  # same run number, same draws
