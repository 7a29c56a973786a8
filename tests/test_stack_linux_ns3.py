"""Issue 24 point 1: aqmsim's `tcp.stack = "linux"` against ns-3.37 itself, value for value.

One NewReno flow, 10 Mb/s 20 ms DropTail bottleneck (benchmarks/ns3/linux_one_flow.cc):
ns-3's `CongestionWindow` trace and aqmsim's cwnd series (bytes = cwnd × MSS) are the same
sequence of values through slow start, two loss recoveries with PRR and congestion
avoidance. Aligned by what ns-3 has and aqmsim models differently, each documented in
docs/tcp/stack-linux.md: ns-3's device queue holds `limit` packets beside the one on the
wire (aqmsim's DropTail counts it: limit + 1), PPP adds 2 bytes to every packet, ns-3 opens
with a handshake (one RTT, 42 ms, before the first data; its receiver ACKs the first data
segment at once, as aqmsim's linux sink does), and its PRR multiplies in 32 bits
(`ns3_quirks = true`); the handshake also gives ns-3's RTT estimator its first sample
(`syn_rtt` = 42.088 ms here). linux_one_flow.cc turns ns-3's Timestamp off unless given
`--timestamps=1`, so aqmsim's side here says `timestamps = false` too (the linux stack's
default is on, as ns-3's; with them on: test_timestamps.py). CUBIC (`--tcp=ns3::TcpCubic`)
is checked the same way."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import tcp_changes
from test_stack_linux import one_flow

pytestmark = pytest.mark.usefixtures("ns3_required")

ROOT = Path(__file__).resolve().parents[1]
DURATION = 10.0
HANDSHAKE_S = 0.042088  # SYN out and SYN-ACK back: 2 × (1 + 20 ms) + serialisation
# the sender's access link in ns-3: the queue disc Ipv4AddressHelper installs by default
# (FqCoDel, 10 240 packets) over a 100-packet device queue; a burst of a few hundred
# segments at 100 Mb/s passes it whole. aqmsim's default access queue (DropTail 50) would not.
ACCESS_QUEUE = {"kind": "droptail", "limit": 1100}


@pytest.fixture(scope="module")
def ns3_cwnd():
    return ns3_run()


def ns3_run(*args):
    b = subprocess.run(["bash", str(ROOT / "benchmarks/ns3/build.sh"), "linux_one_flow"],
                       capture_output=True, text=True, check=True)
    binary = b.stdout.strip().splitlines()[-1]
    out = subprocess.run([binary, f"--duration={DURATION}", "--limit=50", *args],
                         capture_output=True, text=True, check=True, timeout=600).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith("cwnd ")]
    states = [int(line.split()[2]) for line in out.splitlines() if line.startswith("state ")]
    return np.array([float(r[1]) for r in rows]), np.array([int(r[2]) for r in rows]), states


def aqmsim_cwnd(**over):
    # linux_one_flow.cc's set-up: Timestamp off unless run with --timestamps=1 (then the
    # caller passes tcp.timestamps = True)
    r = one_flow(**{"duration": DURATION, "dumbbell.groups.0.stop": DURATION, "tcp.timestamps": False,
                    "tcp.window": 4000, "dumbbell.bottleneck.queue.limit": 51,
                    "tcp.header": 42, "tcp.ack_size": 42, "tcp.syn_rtt": HANDSHAKE_S,
                    "dumbbell.groups.0.access.queue": ACCESS_QUEUE, **over}).run()
    return tcp_changes(r)


def test_cwnd_equals_ns3_value_for_value(core, ns3_cwnd):
    nt, nw, states = ns3_cwnd
    assert len(nw) > 5000 and states.count(3) == 2, "two recoveries (CA_RECOVERY = 3)"
    at, aw = aqmsim_cwnd(**{"tcp.ns3_quirks": True})
    n = len(nw)
    assert len(aw) >= n
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    # the same values at the same times, but for ns-3's handshake (ACK sizes differ a little:
    # within 20 µs, so the first data segment is ACKed at once in both)
    lag = nt - at[:n]
    assert np.abs(lag - HANDSHAKE_S).max() < 20e-6, np.abs(lag - HANDSHAKE_S).max()


def test_64_bit_prr_departs_where_ns3_wraps(core, ns3_cwnd):
    _, nw, _ = ns3_cwnd
    _, aw = aqmsim_cwnd()
    n = len(nw)
    diff = np.flatnonzero(aw[:n] != nw)
    # identical until prr_delivered × ssthresh reaches 2^32 in the first recovery
    # (58 000 × 75 000 bytes): ns-3's cwnd falls to pipe there, Linux's arithmetic does not
    assert len(diff) > 0 and diff[0] == 200
    assert nw[diff[0]] < aw[diff[0]]


@pytest.fixture(scope="module")
def ns3_cubic():
    return ns3_run("--tcp=ns3::TcpCubic")


def test_cubic_cwnd_equals_ns3_value_for_value(core, ns3_cubic):
    """ns-3.37's TcpCubic (HyStart, fast convergence, β 0.7, C 0.4) against tcp/linux/cubic.rs:
    slow start by bytes, HyStart's exit (ssthresh = cwnd = 125 000 B), three recoveries with
    ssthresh ⌊0.7·cwnd_segments⌋·MSS and PRR, the cubic curve between them: every one of
    ns-3's cwnd values, in order, at the same times (within 30 µs: ACK sizes)."""
    nt, nw, states = ns3_cubic
    assert len(nw) > 300 and states.count(3) == 3, "three recoveries (CA_RECOVERY = 3)"
    # HyStart leaves slow start before any loss: the first recovery starts above 125 000 B
    first_rec = np.searchsorted(nt, 0.32)
    assert 125000 < nw[first_rec] < 130000
    at, aw = aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.variant": "cubic"})
    assert len(aw) == len(nw)
    assert (aw == nw).all(), np.flatnonzero(aw != nw)[:5]
    assert np.abs(nt - at - HANDSHAKE_S).max() < 30e-6


def test_cubic_needs_the_handshake_rtt_sample(core, ns3_cubic):
    """Without `syn_rtt` the minimum RTT CUBIC's curve adds to its clock is 0.87 ms longer
    (the first sample is a data packet's): the same values, but avoidance's steps come an
    ACK early now and then (the field is what makes the times agree)."""
    nt, nw, _ = ns3_cubic
    at, aw = aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.variant": "cubic", "tcp.syn_rtt": 0})
    n = min(len(nw), len(aw))
    lag = nt[:n] - at[:n] - HANDSHAKE_S
    assert np.abs(lag).max() > 1.5e-3


def test_dctcp_cwnd_equals_ns3_value_for_value(core):
    """DCTCP (tcp/linux/dctcp.rs) against ns-3.37's TcpDctcp behind a step marker
    (`--markTh=20`: RED with QW 1, MinTh = MaxTh = 20, not gentle, over a 1-packet device
    queue: an arrival is marked when the queue disc holds ≥ 20, i.e. ≥ 21 wait with the device
    queue's packet: aqmsim's `ecn_threshold` 21 (marks when more than 21 would wait), and the
    disc's 50 + 1 = `limit` 51). Slow start, 31 reductions (CWR) with PRR, 13 losses
    recovered inside CWR, Linux Reno's avoidance between, over 10 s: every one of ns-3's cwnd
    values, in order, at the same times. This needs ns-3's receiver as it is
    (tcp/sink.rs `ns3_echo`): on a CE change it sends the ACK of `m_priorRcvNxt`, a duplicate
    that leaves the held segment unacknowledged, counted by the sender as one segment for α.
    ns-3 runs PRR twice on the ACK that enters CWR (`EnterCwr`, then the CWR branch of
    `ProcessAck`) and traces both values at one instant; aqmsim samples cwnd once per ACK,
    so ns-3's series is taken as the last value at each instant: one value fewer per CWR."""
    nt, nw, states = ns3_run("--tcp=ns3::TcpDctcp", "--markTh=20")
    assert states.count(2) == 31 and 3 not in states, "31 times CWR (2), never loss recovery (3)"
    last = np.r_[nt[1:] != nt[:-1], True]
    nt, nw = nt[last], nw[last]
    keep = np.r_[True, nw[1:] != nw[:-1]]
    nt, nw = nt[keep], nw[keep]
    assert (~last).sum() == 31
    q = {"kind": "ecn_threshold", "threshold": 21, "limit": 51}
    at, aw = aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.variant": "dctcp", "dumbbell.bottleneck.queue": q})
    n = len(nw)
    assert n > 2000 and len(aw) >= n
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    assert np.abs(nt - at[:n] - HANDSHAKE_S).max() < 20e-6
