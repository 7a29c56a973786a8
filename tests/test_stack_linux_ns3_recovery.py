"""Issue 24: the linux stack against ns-3.37 one flow at a time, where the network table
(docs/ns3-network-linux.md) missed: deep buffers, a burst leaving recovery, and CUBIC after
a timeout. Same harness as tests/test_stack_linux_ns3.py (benchmarks/ns3/linux_one_flow.cc)."""

from __future__ import annotations

import numpy as np
import pytest

from test_stack_linux_ns3 import ACCESS_QUEUE, HANDSHAKE_S, aqmsim_cwnd, ns3_run

pytestmark = pytest.mark.usefixtures("ns3_required")


def collapse(t, w):
    """The last value at each instant (ns-3 traces two changes within one ACK, aqmsim one)."""
    last = np.r_[t[1:] != t[:-1], True]
    return t[last], w[last]


@pytest.fixture(scope="module")
def newreno_200():
    return ns3_run("--limit=200")


def test_newreno_limit_200_equals_ns3_value_for_value(core, newreno_200):
    """With a 200-packet bottleneck one recovery repairs slow start's overshoot; on leaving
    it cwnd jumps to ssthresh (187 500 B) and the sender sends ~60 segments back to back at
    100 Mb/s. ns-3's access link holds them (its default queue disc over a 100-packet
    device queue); a 50-packet access queue dropped 10 of them, and aqmsim then entered a
    second recovery at 1.126 s that ns-3 never enters. With ns-3's access buffer every one
    of ns-3's values agrees, in order and in time."""
    nt, nw, states = newreno_200
    assert states.count(3) == 1, "one recovery (CA_RECOVERY = 3)"
    nt, nw = collapse(nt, nw)
    at, aw = collapse(*aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.timestamps": False,
                                      "dumbbell.bottleneck.queue.limit": 201}))
    assert len(aw) >= len(nw) > 5000
    n = len(nw)
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    assert np.abs(nt - at[:n] - HANDSHAKE_S).max() < 30e-6


def test_newreno_limit_200_with_a_50_packet_access_queue_departs(core, newreno_200):
    """The departure the table's note recorded: the burst out of recovery overflows a
    50-packet access queue and aqmsim starts a second recovery (value 591, 1.126 s)."""
    nt, nw, _ = newreno_200
    _, nw = collapse(nt, nw)
    q = dict(ACCESS_QUEUE, limit=50)
    _, aw = collapse(*aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.timestamps": False,
                                     "dumbbell.bottleneck.queue.limit": 201,
                                     "dumbbell.groups.0.access.queue": q}))
    n = min(len(nw), len(aw))
    diff = np.flatnonzero(aw[:n] != nw[:n])
    assert diff[0] == 591 and aw[591] < nw[591] - 10_000


def compare(ns3, **over):
    """ns-3's cwnd values and aqmsim's (ns3_quirks on, timestamps off), one per instant."""
    nt, nw = collapse(ns3[0], ns3[1])
    at, aw = collapse(*aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.timestamps": False, **over}))
    return nt, nw, at, aw


DROPPED = range(64, 136)  # slow start's fourth round, every segment of it


@pytest.fixture(scope="module")
def cubic_72_lost():
    return ns3_run("--tcp=ns3::TcpCubic", "--limit=100", "--drop=" + ",".join(map(str, DROPPED)))


def test_cubic_72_segments_lost_equals_ns3_value_for_value(core, cubic_72_lost):
    """A whole round of slow start lost (`--drop`, aqmsim's `drop_seqs`): one recovery of
    72 retransmissions. ns-3.37's PRR adds prr_delivered − prr_out + MSS in 32-bit unsigned
    arithmetic and stores an int, so each ACK of a retransmission that arrives while
    prr_out leads gives sndcnt 0 (cwnd = pipe): cwnd alternates 3000/4000 B through the
    recovery. `ns3_quirks` now follows that wrap; every ns-3 value agrees, in time."""
    _, _, states = cubic_72_lost
    assert states.count(3) == 1 and 4 not in states
    nt, nw, at, aw = compare(cubic_72_lost, **{"tcp.variant": "cubic",
                                               "dumbbell.bottleneck.queue.limit": 101,
                                               "dumbbell.bottleneck.drop_seqs": list(DROPPED)})
    assert len(aw) >= len(nw) > 150
    n = len(nw)
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    assert np.abs(nt - at[:n] - HANDSHAKE_S).max() < 100e-6  # ACK sizes: ~8 µs a second
    # the recovery's slow climb: ns-3's cwnd falls back to pipe (3000) on alternate ACKs
    rec = nw[(nt > 0.52) & (nt < 0.58)]
    assert set(rec[:8]) == {3000, 4000}


def test_cubic_72_segments_lost_with_linux_prr_arithmetic_departs(core, cubic_72_lost):
    """Without `ns3_quirks` PRR's bound is signed (Linux): the recovery climbs by one MSS
    per ACK from the first retransmission acknowledged that finds prr_out ahead (value 37)."""
    nt, nw = collapse(cubic_72_lost[0], cubic_72_lost[1])
    _, aw = collapse(*aqmsim_cwnd(**{"tcp.timestamps": False, "tcp.variant": "cubic",
                                     "dumbbell.bottleneck.queue.limit": 101,
                                     "dumbbell.bottleneck.drop_seqs": list(DROPPED)}))
    n = min(len(nw), len(aw))
    diff = np.flatnonzero(aw[:n] != nw[:n])
    assert diff[0] == 37 and (nw[37], aw[37]) == (3000, 5000)


def test_cubic_through_a_timeout_equals_ns3_value_for_value(core):
    """A 1-packet bottleneck buffer (ns-3 `--limit=1`, aqmsim 2: the packet on the wire):
    slow start's overshoot loses retransmissions too and the flow times out (CA_LOSS) at
    1.17 s, then recovers four more times. CUBIC's reset in the loss state, slow start
    from 1 MSS by bytes and the recoveries after it: every ns-3 value, in order, in time."""
    nt, nw, states = ns3_run("--tcp=ns3::TcpCubic", "--limit=1")
    assert states.count(4) == 1 and states.count(3) >= 5, states
    nt, nw, at, aw = compare((nt, nw), **{"tcp.variant": "cubic",
                                          "dumbbell.bottleneck.queue.limit": 2})
    assert len(aw) >= len(nw) > 30
    n = len(nw)
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    # the lag grows ~11 µs a second: with every packet queued at a 1-packet buffer the
    # ACKs' few bytes of size difference add up (ns-3's, 2 bytes PPP, aqmsim's 42 B)
    assert np.abs(nt - at[:n] - HANDSHAKE_S).max() < 150e-6
    rto = np.flatnonzero(nw == 1000)
    assert len(rto) and 1.1 < nt[rto[0]] - HANDSHAKE_S < 1.2


def test_cubic_slow_start_after_a_timeout_equals_ns3_value_for_value(core):
    """A 10 ms path and every segment sent from 64 to 137 lost: nothing comes back, and the
    flow times out with cwnd 65 segments (ssthresh 45 000 B). Slow start then runs from
    1 MSS through HyStart's 16-segment floor up to ssthresh with HyStart watching (reset in
    the loss state, as ns-3's `CongestionStateSet(CA_LOSS)`; neither side detects an exit),
    and the recovery after it: every ns-3 value, in order, in time."""
    handshake = 2 * (0.001 + 0.010) + 0.000088
    nt, nw, states = ns3_run("--tcp=ns3::TcpCubic", "--limit=100", "--delay=10ms",
                             "--drop=" + ",".join(map(str, range(64, 138))))
    assert states[:3] == [4, 0, 1] and states.count(4) == 1
    nt, nw = collapse(nt, nw)
    at, aw = collapse(*aqmsim_cwnd(**{
        "tcp.ns3_quirks": True, "tcp.timestamps": False, "tcp.variant": "cubic",
        "tcp.syn_rtt": handshake, "dumbbell.bottleneck.delay": "10ms",
        "dumbbell.bottleneck.queue.limit": 101,
        "dumbbell.bottleneck.drop_seqs": list(range(64, 138))}))
    assert len(aw) >= len(nw) > 100
    n = len(nw)
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    assert np.abs(nt - at[:n] - handshake).max() < 100e-6
    # the timeout's slow start passes 16 segments below ssthresh (HyStart's range)
    i = np.flatnonzero(nw == 1000)[0]
    j = i + np.flatnonzero(np.diff(nw[i:]) < 0)[0]
    assert nw[i:j + 1].max() >= 45_000 and (nw[i:j + 1] == 16_000).any()
