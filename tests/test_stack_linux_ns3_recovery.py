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
