"""Issue 24 point 2 (BBR v1 as ns-3.37's TcpBbr, `variant = "bbr"` on `stack = "linux"`):
its fields' errors, its state machine on one flow, and the phase sequence and times
against ns-3.37's own BBR (ns3tcp.run("bbr")). Departures: docs/tcp/bbr.md."""

from __future__ import annotations

import numpy as np
import pytest

from aqmsim import ScenarioError

from conftest import collapse, tcp_changes
from test_stack_linux import one_flow

MODES = ("STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT")
DURATION = 12.0
HANDSHAKE_S = 0.0440816  # ns-3's flow starts after its handshake (its first RTT sample)


def modes(res, flow=0):
    """Flow ``flow``'s BBR mode changes, (t s, mode), from the run's phases table."""
    p = res.phases
    p = p[p["flow"] == flow]
    assert set(p["cc"]) <= {"bbr"} and set(p["phase"]) <= set(MODES)
    return list(zip(p["t"].tolist(), p["phase"].tolist()))


def bbr_run(**over):
    # single_flow's topology (S -1 Gb/s 1 ms- R1 -10 Mb/s 20 ms- R2 -1 Gb/s 1 ms- D), aligned as
    # test_stack_linux_ns3: ns-3's 4 MiB buffers, PPP's 2 bytes, its 100-packet disc beside a
    # 1-packet device queue and the packet on the wire (DropTail 102), its handshake's RTT;
    # the ns-3 runs below turn Timestamp off (ns3tcp.run(timestamps=False)), so does aqmsim here
    return one_flow(**{"tcp.variant": "bbr", "duration": DURATION, "dumbbell.groups.0.stop": DURATION,
                       "tcp.timestamps": False,
                       "tcp.window": 4000, "dumbbell.bottleneck.queue.limit": 102, "tcp.header": 42,
                       "tcp.ack_size": 42, "dumbbell.groups.0.access.rate": "1Gb",
                       "dumbbell.groups.0.egress": {"rate": "1Gb", "delay": "1ms"},
                       "tcp.syn_rtt": HANDSHAKE_S, "tcp.ns3_quirks": True, **over}).run()


@pytest.fixture(scope="module")
def run(core):
    return bbr_run()


def test_bbr_resolves_on_linux_with_pacing(core):
    tcp = one_flow(**{"tcp.variant": "bbr"}).validate()["flows"][0]["tcp"]
    assert tcp["variant"] == "bbr" and tcp["pacing"] is True


BAD = [
    ({"tcp.stack": "ns2", "tcp.variant": "bbr"}, "tcp.variant", 'stack = "linux"'),
    ({"tcp.variant": "bbr", "tcp.pacing": False}, "tcp.pacing", "unset or true"),
]


@pytest.mark.parametrize("over,field,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_bbr_fields_named(core, over, field, needle):
    with pytest.raises(ScenarioError) as info:
        one_flow(**over).validate()
    msg = str(info.value)
    assert field in msg and needle in msg, msg


def test_state_machine_on_one_flow(run):
    m = modes(run)
    assert [x[1] for x in m] == ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT", "PROBE_BW"], m
    # PROBE_RTT: cwnd at most 4 segments for 200 ms and a round
    t_rtt, t_back = m[3][0], m[4][0]
    assert 0.2 < t_back - t_rtt < 0.35
    tcp = run.tcp
    inside = tcp[(tcp["t"] > t_rtt) & (tcp["t"] < t_back)]
    assert len(inside) > 0 and inside["cwnd"].max() <= 4.0


@pytest.fixture(scope="module")
def ns3_bbr():
    from aqmsim import ns3tcp

    return ns3tcp.run("bbr", "droptail", segment=1000, timestamps=False, limit=100,
                      access="1Gbps", start=0.0, duration=DURATION)


@pytest.mark.usefixtures("ns3_required")
def test_one_flow_goodput_equals_ns3(run, ns3_bbr):
    """Goodput within 0.5 % of ns-3.37's over the time each one sends (ns-3's 12 s less its
    handshake): 9.306 Mb/s against 9.307 (it was 0.84 of the link against 0.93 while the
    topology lacked single_flow's egress link and the first round, loss recovery and the
    pacing of retransmissions differed; docs/tcp/bbr.md). 13 drops, as ns-3's (14 before
    recovery's packet conservation read ns-3's in-flight count), and no timeout."""
    theirs = ns3_bbr.summary["rx_bytes"] * 8 / (DURATION - HANDSHAKE_S)
    ours = run.summary["goodput_bps"]
    assert abs(ours - theirs) <= 0.005 * theirs, (ours, theirs)
    assert run.summary["timeouts"] == 0 and run.summary["bottleneck_drops"] == 13


#: aqmsim's seed whose first draw of PROBE_BW's random start phase gives ns-3's (its run 1
#: enters PROBE_BW at the probing phase, gain 1.25; aqmsim's seed 1 at a cruising one):
#: the two simulators' generators differ, so for most seeds the phase does.
SEED_AS_NS3 = 7


@pytest.fixture(scope="module")
def ns3_cwnd(ns3_bbr):
    """ns-3's cwnd values: its last value at each instant (ns-3 traces every change within
    an ACK, e.g. 159 000, 157 000, 159 000 on entering recovery; aqmsim the value each ACK
    leaves), each change once."""
    return collapse(*ns3_bbr.series("cwnd"))


@pytest.mark.usefixtures("ns3_required")
def test_cwnd_equals_ns3_value_for_value(core, ns3_cwnd):
    """With the seed that draws ns-3's PROBE_BW start phase: 224 cwnd values equal, and in
    time (within 50 µs), from the handshake through STARTUP, the first loss recovery, DRAIN,
    PROBE_BW's gain cycle, PROBE_RTT and back, to 10.376 s. This needs ns-3's start as it is
    (docs/tcp/bbr.md): BBR initialised when the handshake completes (`syn_rtt`), the nominal
    rate from the RTT in whole milliseconds, the initial window unpaced and its rate samples
    app-limited (BulkSend's first 512-byte write), the first real sample replacing the
    nominal rate in the filter (it is the filter's zero value), `SkbDelivered`'s ACK phase
    measured from the previous sample's prior time; in recovery `CongControl` reads ns-3's
    stale `m_bytesInFlight` (the value before the segment `ProcessAck` just retransmitted:
    without it the series parted at value 77); and `UpdateAckAggregation`'s epoch length in
    whole seconds (a `uint32_t`: without it the series parted at value 88, the first
    recovery's cap, 163 469 bytes against ns-3's 163 847). At value 225 the phase drawn again
    when PROBE_RTT ends differs: ns-3 probes (gain 1.25), whose target window is 2 MSS
    larger."""
    nt, nw = ns3_cwnd
    at, aw = tcp_changes(bbr_run(seed=SEED_AS_NS3))
    n = min(len(nw), len(aw))
    diff = np.flatnonzero(aw[:n] != nw[:n])
    assert diff[0] == 225 and nw[225] - aw[225] == 2000, (diff[:3], nw[225], aw[225])
    assert 10.37 < at[225] < 10.38
    assert np.abs(nt[:225] - HANDSHAKE_S - at[:225]).max() < 50e-6


@pytest.mark.usefixtures("ns3_required")
def test_pacing_rate_equals_ns3(core, ns3_bbr):
    """The TCP table's pacing_rate against ns-3's PacingRate trace, with the seed that draws
    ns-3's PROBE_BW phase: the 112 values to 10.37 s (STARTUP's nominal rate, its bandwidth
    samples, DRAIN, PROBE_BW's eight-phase cycle, PROBE_RTT), in order, each within 37 µs;
    from 0.3 s on within 1 bit/s (ns-3 keeps rates as whole bit/s, DataRate); before, within
    0.05 %: STARTUP's ACKs reach ns-3's sender 25.6 µs later than aqmsim's, so its first
    delivery-rate samples are measured over intervals that much longer. The 25.6 µs are
    ns-3's handshake: its last packet, a 42-byte pure ACK, reaches the 10 Mb/s bottleneck
    just before the initial window's first segment, which waits the rest of its 33.6 µs
    (ns-3's own bottleneck trace shows it entering first); aqmsim models the handshake by
    its RTT (syn_rtt), not by that packet. Then the phase drawn when PROBE_RTT ends
    differs, as for cwnd."""
    at, ap = tcp_changes(bbr_run(seed=SEED_AS_NS3), "pacing_rate", 1.0)
    nt, npace = collapse(*ns3_bbr.series("pacing"))
    k = int(np.searchsorted(at, 10.37))
    assert k == 112 and len(npace) > k
    assert ap[0] == npace[0] == 5_254_543  # 2.89 × 10 segments × 8 / 44 ms (whole ms)
    assert np.abs(at[:k] - (nt[:k] - HANDSHAKE_S)).max() < 40e-6
    assert np.abs(ap[:k] / npace[:k] - 1).max() < 5e-4
    late = at[:k] > 0.3
    assert late.sum() > 80 and np.abs(ap[:k] - npace[:k])[late].max() <= 1


def test_tcp_table_has_bbrs_model(core):
    """The TCP table's bbr_bw and bbr_min_rtt are the model the pacing rate is made of:
    pacing_rate = gain × bbr_bw (to ns-3's whole bit/s) with PROBE_BW's gains 1.25, 0.75
    and 1, DRAIN's 1/2.89 and STARTUP's 2.89 (where STARTUP's rate may only rise, it can
    stay above, from the handshake's nominal rate); RTprop starts at the handshake's RTT
    and is never below the smaller of it and the smallest RTT sample."""
    r = bbr_run(seed=SEED_AS_NS3)
    t, ph = r.tcp, r.phases
    at = np.searchsorted(ph["t"].to_numpy(), t["t"].to_numpy(), side="right") - 1
    mode = np.array(ph["phase"].tolist())[np.maximum(at, 0)]
    bw, rate = t["bbr_bw"].to_numpy(), t["pacing_rate"].to_numpy()
    assert (bw > 0).all()

    def gains(m):
        k = mode == m
        return np.round(rate[k] / bw[k], 3), np.abs(rate[k] - np.floor(rate[k] / bw[k] * 1e3 + 0.5) / 1e3 * bw[k])

    g, _ = gains("PROBE_BW")
    assert set(np.unique(g)) == {0.75, 1.0, 1.25} and (g == 1.0).mean() > 0.6
    for m in ("PROBE_BW", "PROBE_RTT"):
        g, err = gains(m)
        assert (err <= 1 + 1e-9 * rate[mode == m]).all(), m
    assert set(gains("DRAIN")[0]) == {round(1 / 2.89, 3)}
    g, _ = gains("STARTUP")
    assert (g == 2.89).mean() > 0.95 and (g >= 2.89).all()
    min_rtt = t["bbr_min_rtt"].to_numpy()
    assert min_rtt[0] == pytest.approx(HANDSHAKE_S)
    assert (min_rtt >= min(HANDSHAKE_S, r.rtt["rtt"].min()) - 1e-9).all() and (min_rtt < 0.06).all()


def test_cwnd_parts_from_ns3_only_at_the_random_phase(run, ns3_cwnd):
    """At seed 1 aqmsim enters PROBE_BW at another phase than ns-3's: the series are equal
    for 107 values, 20 ms into PROBE_BW, where aqmsim's cwnd stops at its cruising target
    (115 545 bytes) and ns-3's climbs on to its probing one, 2 MSS higher (117 545)."""
    nt, nw = ns3_cwnd
    at, aw = tcp_changes(run)
    n = min(len(nw), len(aw))
    diff = np.flatnonzero(aw[:n] != nw[:n])
    assert diff[0] == 107 and aw[107] == 115_545 and nw[107:110].max() == 117_545, diff[:3]
    assert np.abs(nt[:107] - HANDSHAKE_S - at[:107]).max() < 50e-6


def test_other_seeds_change_only_the_start_phase(core):
    a = modes(bbr_run(seed=1, duration=2, **{"dumbbell.groups.0.stop": 2}))
    b = modes(bbr_run(seed=2, duration=2, **{"dumbbell.groups.0.stop": 2}))
    assert [x[1] for x in a] == [x[1] for x in b] == ["STARTUP", "DRAIN", "PROBE_BW"]


@pytest.mark.usefixtures("ns3_required")
def test_phases_and_times_follow_ns3(run, ns3_bbr):
    """ns-3.37's TcpBbr on single_flow (10 Mb/s 20 ms, 100-packet disc, 1000-byte segments,
    no timestamps): STARTUP at the handshake's end (0.0441 s) → DRAIN 0.628 → PROBE_BW 0.751
    → PROBE_RTT 10.044 → PROBE_BW 10.326. aqmsim, its clock shifted by ns-3's handshake:
    the same sequence, every change within 1 ms (measured: 0, 0.03, 0.04, 0.03, 0.86 ms;
    PROBE_BW's 0.04 was 0.87 before recovery read ns-3's in-flight count)."""
    theirs = [(t - HANDSHAKE_S, m) for t, m in ns3_bbr.bbr_modes()]
    ours = modes(run)
    assert [m for _, m in ours] == [m for _, m in theirs], (ours, theirs)
    dt = np.array([a[0] - b[0] for a, b in zip(ours, theirs)])
    assert np.abs(dt).max() < 0.001, dt
