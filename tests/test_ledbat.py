"""Issue 24: LEDBAT (RFC 6817) on the linux stack as ns-3.37's TcpLedbat (`variant =
"ledbat"`, tcp/linux/ledbat.rs, docs/tcp/ledbat.md): its fields and errors, ns-3's window
stall and the RFC's cap, and the cwnd series against ns-3.37 itself, value for value."""

from __future__ import annotations

import numpy as np
import pytest

from aqmsim import ScenarioError
from test_stack_linux import one_flow
from conftest import collapse

# ns-3's first data segment leaves after the handshake (with the SYN's options): aqmsim's
# flow starts then, so that whole-millisecond timestamps fall on the same milliseconds.
NS3_FIRST_DATA_S = 0.0421021


def test_resolved_defaults_are_ns3s(core):
    tcp = one_flow(**{"tcp.variant": "ledbat"}).validate()["flows"][0]["tcp"]
    assert tcp["variant"] == "ledbat" and tcp["timestamps"] is True
    got = {k: tcp[k] for k in tcp if k.startswith("ledbat_")}
    assert got == {"ledbat_target": 0.1, "ledbat_gain": 1.0, "ledbat_base_history": 10,
                   "ledbat_noise_filter": 4, "ledbat_slow_start": True, "ledbat_min_cwnd": 2}


BAD = [
    ({"tcp.variant": "ledbat", "tcp.timestamps": False}, "tcp.timestamps", "one-way delay"),
    ({"dumbbell.groups.0.tcp": {"stack": "ns2", "variant": "ledbat"}}, "dumbbell.groups[0].tcp.variant",
     'stack = "linux"'),
    ({"dumbbell.groups.0.tcp": {"stack": "ns2", "ledbat_gain": 0.5}}, "dumbbell.groups[0].tcp.ledbat_gain",
     'stack = "linux"'),
    ({"tcp.ledbat_gain": 0.5}, "tcp.ledbat_gain", 'variant = "ledbat"'),
    ({"tcp.variant": "ledbat", "tcp.ledbat_gain": 0}, "tcp.ledbat_gain", "(0, 1]"),
    ({"tcp.variant": "ledbat", "tcp.ledbat_gain": 1.5}, "tcp.ledbat_gain", "(0, 1]"),
    ({"tcp.variant": "ledbat", "tcp.ledbat_target": 0}, "tcp.ledbat_target", "[1 ms, 10 s]"),
    ({"tcp.variant": "ledbat", "tcp.ledbat_target": "20s"}, "tcp.ledbat_target", "[1 ms, 10 s]"),
    ({"tcp.variant": "ledbat", "tcp.ledbat_noise_filter": 1}, "tcp.ledbat_noise_filter", "[2, 10000]"),
    ({"tcp.variant": "ledbat", "tcp.ledbat_base_history": 0}, "tcp.ledbat_base_history", "[2, 10000]"),
    ({"tcp.variant": "ledbat", "tcp.ledbat_min_cwnd": 0}, "tcp.ledbat_min_cwnd", "[1, 1000000]"),
]


@pytest.mark.parametrize("over,field,needle", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_fields_named(core, over, field, needle):
    with pytest.raises(ScenarioError) as info:
        one_flow(**over).validate()
    msg = str(info.value)
    assert field in msg and needle in msg, msg


def ledbat_run(quirks: bool):
    return one_flow(**{"duration": 10, "dumbbell.groups.0.stop": 10, "tcp.variant": "ledbat",
                       "tcp.ledbat_target": 0.025, "tcp.window": 4000,
                       "dumbbell.bottleneck.queue.limit": 101, "tcp.ns3_quirks": quirks}).run()


def test_rfc_cap_reaches_the_target_where_ns3s_stalls(core):
    """ns-3's cap (the flight, without RFC 6817's ALLOWED_INCREASE of 1 MSS) leaves a window
    equal to the flight unable to grow: after the first recovery cwnd stays at 60 segments
    for good, the queue well below the 25 ms target. With the RFC's cap (ns3_quirks off,
    the default) LEDBAT keeps the queue near its target and its window moves."""
    r = ledbat_run(True)
    late = r.tcp[r.tcp["t"] > 3]["cwnd"]
    assert late.nunique() == 1 and late.iloc[0] == 60
    assert r.summary["mean_queueing_delay_s"] < 0.015
    r = ledbat_run(False)
    late = r.tcp[r.tcp["t"] > 3]["cwnd"]
    assert late.nunique() > 10 and late.min() > 60
    assert 0.02 < r.summary["mean_queueing_delay_s"] < 0.04
    assert r.summary["utilisation"] > 0.95


@pytest.mark.usefixtures("ns3_required")
@pytest.mark.parametrize("target_ms,values", [(25, 457), (100, 351)])
def test_cwnd_equals_ns3_value_for_value(core, target_ms, values):
    """ns-3.37's TcpLedbat (linux_one_flow.cc, Timestamp on, 10 Mb/s 20 ms, 100-packet
    device queue) against aqmsim's LEDBAT with ns3_quirks (its cap, 32-bit PRR), the flow
    started when ns-3's first data segment leaves: every cwnd value equal, in order, at the
    same times within 10 µs — slow start, one recovery, the delay-driven steps (with a
    25 ms target the queue goes past it and the window comes down by fractions of a
    segment), then ns-3's stall (its cap, test_rfc_cap_reaches_the_target_where_ns3s_stalls). ns-3's two assignments of the ACK that ends recovery are
    read as one (conftest.collapse)."""
    from test_stack_linux_ns3 import aqmsim_cwnd, ns3_run

    nt, nw, states = ns3_run("--timestamps=1", "--tcp=ns3::TcpLedbat", "--limit=100",
                             f"--ns3::TcpLedbat::TargetDelay={target_ms}ms")
    assert states.count(3) == 1
    nt, nw = collapse(nt, nw)
    at, aw = collapse(*aqmsim_cwnd(**{
        "tcp.ns3_quirks": True, "tcp.variant": "ledbat", "tcp.ledbat_target": target_ms / 1000,
        "tcp.timestamps": True,  # as ns-3's --timestamps=1 (aqmsim_cwnd's own is off)
        "tcp.syn_rtt": 0.042, "dumbbell.bottleneck.queue.limit": 101,
        "dumbbell.groups.0.start": NS3_FIRST_DATA_S}))
    assert len(nw) == len(aw) == values
    assert (aw == nw).all(), np.flatnonzero(aw != nw)[:5]
    assert np.abs(nt - at).max() < 10e-6
    steps = np.diff(nw)
    if target_ms == 25:
        # LEDBAT's own steps: the queue (current − base delay, whole ms) past the target
        # takes 20-odd bytes off per ACK
        assert ((steps > -100) & (steps < 0)).sum() > 20
    # ns-3's stall: nothing changes after the first second of ten
    assert nt[-1] < 1.1
