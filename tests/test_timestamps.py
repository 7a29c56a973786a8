"""Issue 24: RFC 7323 timestamps on the linux stack (`tcp.timestamps`, ns-3.37's
`TcpSocketBase::Timestamp`): the 12-byte option on every segment, RTT samples from the
echoed TSval in whole milliseconds, ns-3's echo rule at the receiver (docs/tcp/stack-linux.md,
"Timestamps"). On by default, as ns-3.37's `Timestamp` and Linux's `tcp_timestamps`. Checked against ns-3.37 with its default, Timestamp on
(benchmarks/ns3/linux_one_flow.cc `--timestamps=1`), value for value."""

from __future__ import annotations

import numpy as np
import pytest

from aqmsim import ScenarioError
from conftest import collapse
from test_stack_linux import one_flow


def test_default_on_and_resolved(core):
    """ns-3.37's TcpSocketBase::Timestamp defaults to true (and Linux's tcp_timestamps to 1):
    so does the linux stack's `timestamps`; `false` turns it off."""
    tcp = one_flow().validate()["flows"][0]["tcp"]
    assert tcp["timestamps"] is True
    tcp = one_flow(**{"tcp.timestamps": False}).validate()["flows"][0]["tcp"]
    assert tcp["timestamps"] is False
    # a flow group's own table inherits it too
    sc = one_flow(**{"dumbbell.groups.0.tcp": {"variant": "cubic"}})
    assert sc.validate()["flows"][0]["tcp"]["timestamps"] is True


def test_default_run_carries_the_option(core):
    """The default run sends 1000 + 40 + 12-byte segments: the same run as `timestamps = true`,
    not as `false`."""
    short = {"duration": 1, "dumbbell.groups.0.stop": 1}
    d = one_flow(**short).run().summary
    on = one_flow(**short, **{"tcp.timestamps": True}).run().summary
    off = one_flow(**short, **{"tcp.timestamps": False}).run().summary
    assert d["packets_sent"] == on["packets_sent"] != off["packets_sent"]
    assert d["mean_queueing_delay_s"] == on["mean_queueing_delay_s"]


def test_timestamps_change_the_run(core):
    """Bigger segments (1000 + 40 + 12 bytes: fewer sent in 2 s) and RTT samples in whole
    ms (another srtt). The sizes and samples themselves: the Rust unit tests
    tcp::linux::tests::timestamp_rtt_samples_in_whole_milliseconds and
    tcp::sink::tests::timestamp_echo_follows_ns3."""
    r0 = one_flow(**{"duration": 2, "dumbbell.groups.0.stop": 2, "tcp.timestamps": False}).run()
    r1 = one_flow(**{"duration": 2, "dumbbell.groups.0.stop": 2, "tcp.timestamps": True}).run()
    s0, s1 = r0.summary, r1.summary
    assert s1["packets_sent"] < s0["packets_sent"]
    rtt0, rtt1 = r0.tcp["srtt"].to_numpy(), r1.tcp["srtt"].to_numpy()
    assert not np.array_equal(rtt0, rtt1)


def test_list_says_timestamps_are_on_by_default(core):
    from typer.testing import CliRunner

    from aqmsim.cli import app

    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "tcp.timestamps = true (the default, as ns-3.37's Timestamp and Linux)" in text


BAD = [
    ({"dumbbell.groups.0.tcp": {"stack": "ns2", "timestamps": True}}, "dumbbell.groups[0].tcp.timestamps",
     'stack = "linux"'),
    ({"tcp.timestamps": "yes"}, "timestamps", ""),
]


@pytest.mark.parametrize("over,field,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_fields_named(core, over, field, needle):
    with pytest.raises(ScenarioError) as info:
        one_flow(**over).validate()
    msg = str(info.value)
    assert field in msg and needle in msg, msg


@pytest.mark.usefixtures("ns3_required")
def test_cwnd_equals_ns3_with_timestamps(core):
    """ns-3.37 NewReno with Timestamp on (its default) against aqmsim's `timestamps = true`,
    aligned as test_stack_linux_ns3 (PPP's 2 bytes, the device queue, 32-bit PRR; the
    handshake's RTT sample is whole milliseconds with timestamps: 42 ms). Every one of
    ns-3's cwnd values (5 804, two recoveries) equals aqmsim's, in order, once ns-3's
    two assignments of one ACK are taken as one, at the same times (the handshake's 42.1 ms
    apart, within 20 µs). This run has a segment lost inside a recovery whose partial ACK
    comes before any SACK above it: ns-3's DoRetransmit then sends new data (NextSeg's rule
    2), not the head, and so does aqmsim. Timestamps change the run: with them off, the
    values part from the first loss on."""
    from test_stack_linux_ns3 import HANDSHAKE_S, aqmsim_cwnd, ns3_run

    nt, nw, states = ns3_run("--timestamps=1")
    assert states.count(3) == 2
    nt, nw = collapse(nt, nw)
    at, aw = collapse(*aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.timestamps": True, "tcp.syn_rtt": 0.042}))
    n = len(nw)
    assert n > 5000 and len(aw) >= n
    assert (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:5]
    lag = nt - at[:n]
    # the handshake is 42.1 ms plus the SYN's options' few µs
    assert abs(lag[0] - HANDSHAKE_S) < 20e-6, lag[0]
    assert np.abs(lag - lag[0]).max() < 20e-6, np.abs(lag - lag[0]).max()
    _, off = collapse(*aqmsim_cwnd(**{"tcp.ns3_quirks": True, "tcp.timestamps": False}))
    assert (off[:n] != nw).sum() > 1000


@pytest.mark.usefixtures("ns3_required")
def test_cubic_cwnd_equals_ns3_with_timestamps(core):
    """ns-3.37's TcpCubic with Timestamp on (`linux_one_flow.cc --timestamps=1
    --tcp=ns3::TcpCubic`) against aqmsim's CUBIC with the stack's default timestamps: every
    one of ns-3's 331 cwnd values (three recoveries) equals aqmsim's, in order and in time
    (within 40 µs), once aqmsim's flow starts when ns-3's handshake ends (42.088 ms), so that
    the two clocks, and with them the option's millisecond clock, are the same. Started at 0
    (the alignment of test_cwnd_equals_ns3_with_timestamps, times compared less the
    handshake) the values are still equal, but ns-3's clock counts whole milliseconds from
    88 µs earlier in the data's life: its first RTT sample is 43 ms where aqmsim's is 42,
    CUBIC's minimum delay (its smallest smoothed RTT) 42.125 ms against 42.000, and its cubic
    clock runs 125 µs ahead, so at 2 of its avoidance steps the target reaches the next
    segment an ACK earlier (4 values one delayed ACK, 1.67 ms, apart)."""
    from test_stack_linux_ns3 import DURATION, HANDSHAKE_S, aqmsim_cwnd, ns3_run

    nt, nw, states = ns3_run("--timestamps=1", "--tcp=ns3::TcpCubic")
    assert states.count(3) == 3
    nt, nw = collapse(nt, nw)
    for start in (HANDSHAKE_S, 0.0):
        at, aw = collapse(*aqmsim_cwnd(**{
            "tcp.ns3_quirks": True, "tcp.variant": "cubic", "tcp.timestamps": True, "tcp.syn_rtt": 0.042,
            "dumbbell.groups.0.start": start, "duration": DURATION + start,
            "dumbbell.groups.0.stop": DURATION + start}))
        assert len(nw) == len(aw) > 300
        assert (aw == nw).all(), np.flatnonzero(aw != nw)[:5]
        lag = np.abs(nt - at - (HANDSHAKE_S - start))
        late = np.flatnonzero(lag > 40e-6)
        if start:
            assert len(late) == 0, (late, lag[late])
        else:
            assert list(late) == [204, 205, 310, 311] and (np.abs(lag[late] - 1.67e-3) < 0.05e-3).all(), late