"""Issue 24 point 1, pacing on the linux stack (`tcp.pacing`, off by default as in ns-3.37):
ns-3's rule — rate = max(cwnd, bytes in flight) × factor / srtt, factor 2.0 while
cwnd < ssthresh/2 else 1.2, the initial window unpaced, one segment per pacing-timer
interval — on one flow, and against ns-3.37's own paced NewReno (single_flow)."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from aqmsim import ScenarioError
from aqmsim.cli import app

from conftest import collapse, tcp_changes
from test_cli import _one_line_error
from test_stack_linux import ONE_FLOW, one_flow

runner = CliRunner()


def test_pacing_is_off_by_default_and_resolved(core):
    assert one_flow().validate()["flows"][0]["tcp"]["pacing"] is False
    assert one_flow(**{"tcp.pacing": True}).validate()["flows"][0]["tcp"]["pacing"] is True
    short = {"duration": 2, "dumbbell.groups.0.stop": 2}
    a = one_flow(**short).run().summary
    b = one_flow(**short, **{"tcp.pacing": False}).run().summary
    a.pop("wall_seconds"), b.pop("wall_seconds")
    assert a == b


def test_pacing_rate_in_the_tcp_table(core):
    """The TCP table's pacing_rate: 0 for a sender that does not pace; a paced one's rate is
    ns-3's MaxPacingRate (4 Gb/s) until its first RTT sample, then ns-3's rule from the
    window and srtt (factor 2 in slow start: about 2 × 11 000 B × 8 / 45 ms ≈ 3.9 Mb/s)."""
    short = {"duration": 0.3, "dumbbell.groups.0.stop": 0.3}
    plain = one_flow(**short).run().tcp
    assert (plain["pacing_rate"] == 0).all()
    assert (plain["bbr_bw"] == 0).all() and (plain["bbr_min_rtt"] == 0).all()  # no BBR model
    paced = one_flow(**short, **{"tcp.pacing": True}).run().tcp
    rate = paced["pacing_rate"].to_numpy()
    assert rate[0] == 4e9
    first = int(np.flatnonzero(rate < 4e9)[0])
    assert 3.5e6 < rate[first] < 4.5e6, rate[first]
    ss = paced[(paced.index >= first) & (paced["state"] == "slow_start")]
    mss = 1000
    want = ss["cwnd"] * mss * 8 * 2.0 / ss["srtt"]
    assert np.allclose(ss["pacing_rate"], want, rtol=0.02), (ss["pacing_rate"] / want).describe()


def test_pacing_only_on_the_linux_stack(core):
    with pytest.raises(ScenarioError) as info:
        one_flow(**{"dumbbell.groups.0.tcp": {"stack": "ns2", "pacing": True}}).validate()
    assert "dumbbell.groups[0].tcp.pacing" in str(info.value) and 'stack = "linux"' in str(info.value)


def test_cli_one_line_error_for_pacing_type(core, tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(ONE_FLOW.replace('stack = "linux"', 'stack = "linux"\npacing = "yes"'))
    text = _one_line_error(runner.invoke(app, ["validate", str(p)]))
    assert "pacing" in text


def test_paced_second_round_leaves_slower_than_the_bottleneck(core):
    """Unpaced, the second round's ACKs come back at the bottleneck's spacing (1.05 ms for
    1052 bytes at 10 Mb/s: 1000 + 40 + the 12-byte timestamp option, on by default … every
    change one delayed ACK of two segments, 1.683 ms). Paced at 2 × cwnd / srtt ≈ 2 × 11 000 B / 45 ms ≈ 3.9 Mb/s,
    a segment leaves every ≈ 2 ms, so two-segment ACKs come ≈ 4 ms apart."""
    gaps = {}
    for paced in (False, True):
        t, w = tcp_changes(one_flow(**{"duration": 0.2, "dumbbell.groups.0.stop": 0.2,
                                         "tcp.pacing": paced}).run())
        g = np.diff(t[:12]) * 1e3
        gaps[paced] = g[6:11]  # round 2: after the IW's five ACKs and the RTT pause
    assert np.allclose(gaps[False], 2 * 1052 * 8 / 10e6 * 1e3, atol=0.005), gaps[False]
    assert (gaps[True] > 2.9).all() and (gaps[True] < 4.5).all(), gaps[True]


#: single_flow's handshake on its 100 Mb/s access links: the SYN-ACK's RTT, s (ns-3's
#: "Last RTT is 0.044096" when the connection is established)
SINGLE_FLOW_SYN_RTT = 0.044096


def single_flow_paced(paced: bool):
    """aqmsim's paced NewReno on ns-3's single_flow topology as ns3tcp.run(access="100Mbps")
    builds it: the access rate on the egress link too (1 ms each), PPP's 2 bytes, the
    50-packet disc beside a 1-packet device queue and the packet on the wire (DropTail 52),
    the handshake's RTT, no timestamps; `ns3_quirks` as ns-3."""
    return one_flow(**{"duration": 10, "dumbbell.groups.0.stop": 10, "tcp.timestamps": False,
                       "tcp.window": 4000, "dumbbell.bottleneck.queue.limit": 52, "tcp.header": 42,
                       "tcp.ack_size": 42, "dumbbell.groups.0.access.rate": "100Mb",
                       "dumbbell.groups.0.egress": {"rate": "100Mb", "delay": "1ms"},
                       "tcp.syn_rtt": SINGLE_FLOW_SYN_RTT, "tcp.ns3_quirks": True,
                       "tcp.pacing": paced}).run()


@pytest.mark.usefixtures("ns3_required")
def test_paced_newreno_equals_ns3_value_for_value(core):
    """ns-3.37's NewReno with EnablePacing (single_flow, 1000-byte segments, no timestamps,
    100 Mb/s access and egress, 50-packet DropTail) against aqmsim's paced linux stack on
    the same topology: over the whole 10 s, through slow start, both losses' recoveries and
    congestion avoidance, all 5 913 cwnd values equal ns-3's and every pacing rate (ns-3's
    PacingRate trace: 5 915 values, from cwnd and srtt) is within 0.006 % of ns-3's (its
    whole bit/s, and a srtt 0.4 µs apart from the handshake's RTT), each within 20 µs of
    ns-3's time. Unpaced, the cwnd series parts from ns-3's at value 232."""
    from aqmsim import ns3tcp
    ref = ns3tcp.run("newreno", "droptail", segment=1000, timestamps=False, limit=50,
                     access="100Mbps", start=0.0, duration=10, pacing=True)
    nwt, nw = collapse(*ref.series("cwnd"))
    npt, npace = collapse(*ref.series("pacing"))
    r = single_flow_paced(True)
    awt, aw = tcp_changes(r)
    apt, apace = tcp_changes(r, "pacing_rate", 1.0)
    n = len(nw)
    assert n > 5000 and (aw[:n] == nw).all(), np.flatnonzero(aw[:n] != nw)[:3]
    assert np.abs(nwt - SINGLE_FLOW_SYN_RTT - awt[:n]).max() < 20e-6
    # ns-3's first value is its rate at the handshake; aqmsim's 4 Gb/s until its first ACK
    m = len(npace)
    assert m > 5000 and apace[0] == 4e9 and npace[0] == 3_628_447
    assert np.abs(apace[1:m] / npace[1:m] - 1).max() < 6e-5
    assert np.abs(npt[1:m] - SINGLE_FLOW_SYN_RTT - apt[1:m]).max() < 20e-6
    _, uw = tcp_changes(single_flow_paced(False))
    assert np.flatnonzero(uw[:n] != nw)[0] == 232
