"""Issue 24 point 2 (BBR v1 as ns-3.37's TcpBbr, `variant = "bbr"` on `stack = "linux"`):
its fields' errors, its state machine on one flow, and the phase sequence and times
against ns-3.37's own BBR (ns3tcp.run("bbr")). Departures: docs/tcp/bbr.md."""

from __future__ import annotations

import numpy as np
import pytest

from aqmsim import ScenarioError

from test_stack_linux import one_flow

MODES = ("STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT")
DURATION = 12.0
HANDSHAKE_S = 0.0441  # ns-3's flow starts after its handshake; aqmsim's at once


def modes(summary):
    n = int(summary.get("bbr_mode_changes", 0))
    return [(summary[f"bbr_mode_{k}_t"], MODES[int(summary[f"bbr_mode_{k}"])]) for k in range(n)]


def bbr_run(**over):
    # aligned as test_stack_linux_ns3 (ns-3's 4 MiB buffers, 1-packet device queue beside
    # the 100-packet disc, PPP's 2 bytes) on single_flow's 1 Gb/s access; the ns-3 runs
    # below turn Timestamp off (ns3tcp.run(timestamps=False)), so does aqmsim here
    return one_flow(**{"tcp.variant": "bbr", "duration": DURATION, "dumbbell.groups.0.stop": DURATION,
                       "tcp.timestamps": False,
                       "tcp.window": 4000, "dumbbell.bottleneck.queue.limit": 101, "tcp.header": 42,
                       "tcp.ack_size": 42, "dumbbell.groups.0.access.rate": "1Gb",
                       "tcp.ns3_quirks": True, **over}).run()


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
    m = modes(run.summary)
    assert [x[1] for x in m] == ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT", "PROBE_BW"], m
    # PROBE_RTT: cwnd at most 4 segments for 200 ms and a round
    t_rtt, t_back = m[3][0], m[4][0]
    assert 0.2 < t_back - t_rtt < 0.35
    tcp = run.tcp
    inside = tcp[(tcp["t"] > t_rtt) & (tcp["t"] < t_back)]
    assert len(inside) > 0 and inside["cwnd"].max() <= 4.0


@pytest.mark.usefixtures("ns3_required")
def test_one_flow_utilisation_within_issue_bound_of_ns3(run):
    """Issue 24's network-level bound: within ±10 % of ns-3.37. Measured 0.84 against
    ns-3's 0.93 (−9 %): BBR's first loss episode differs from ns-3's (more losses and one
    timeout in aqmsim; docs/tcp/bbr.md), which is why it is not closer."""
    from aqmsim import ns3tcp

    ref = ns3tcp.run("bbr", "droptail", segment=1000, timestamps=False, limit=100,
                     access="1Gbps", start=0.0, duration=DURATION)
    theirs = ref.summary["rx_bytes"] * 8 / (10e6 * DURATION)
    assert abs(run.summary["utilisation"] - theirs) <= 0.10 * theirs, (run.summary["utilisation"], theirs)


def test_other_seeds_change_only_the_start_phase(core):
    a = modes(bbr_run(seed=1, duration=2, **{"dumbbell.groups.0.stop": 2}).summary)
    b = modes(bbr_run(seed=2, duration=2, **{"dumbbell.groups.0.stop": 2}).summary)
    assert [x[1] for x in a] == [x[1] for x in b] == ["STARTUP", "DRAIN", "PROBE_BW"]


@pytest.mark.usefixtures("ns3_required")
def test_phases_and_times_follow_ns3(run):
    """ns-3.37's TcpBbr on single_flow (10 Mb/s 20 ms, 100-packet DropTail, 1000-byte
    segments, no timestamps): STARTUP 0.0441 s → DRAIN 0.628 → PROBE_BW 0.752 → PROBE_RTT
    10.044 → PROBE_BW 10.326. aqmsim, its clock shifted by ns-3's handshake: the same
    sequence, DRAIN and PROBE_BW within 10 ms; PROBE_RTT within 5 ms and its end within
    30 ms, both counted from the first RTT sample (measured: 4 ms, −5 ms, 0.7 ms, 19 ms)."""
    from aqmsim import ns3tcp

    ref = ns3tcp.run("bbr", "droptail", segment=1000, timestamps=False, limit=100,
                     access="1Gbps", start=0.0, duration=DURATION)
    theirs = [(t - HANDSHAKE_S, m) for t, m in ref.bbr_modes()]
    ours = modes(run.summary)
    assert [m for _, m in ours] == [m for _, m in theirs], (ours, theirs)
    dt = np.array([a[0] - b[0] for a, b in zip(ours, theirs)])
    assert abs(dt[1]) < 0.01 and abs(dt[2]) < 0.01, dt
    # the 10 s min-RTT window runs from each one's first RTT sample, its STARTUP entry
    # (ns-3: the handshake's, at 0.0441 s; aqmsim: the first data ACK's, 0.0437 s)
    since = np.array([a[0] - ours[0][0] - (b[0] - theirs[0][0]) for a, b in zip(ours, theirs)])
    assert abs(since[3]) < 0.005 and abs(since[4]) < 0.03, since
