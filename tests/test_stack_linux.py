"""Issue 24 point 1 (first increment): `tcp.stack = "linux"`, the Linux/ns-3.37 sender
(bytes windows, RFC 3465 ABC, RFC 6675 SACK recovery, PRR, ns-3's RTO) on one flow
through a DropTail bottleneck; its fields' errors; the ns-2 stack untouched."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app

from conftest import EXAMPLES
from test_cli import _one_line_error

runner = CliRunner()
RED = EXAMPLES / "dumbbell-red.toml"
MSS = 1000

ONE_FLOW = """
name = "linux-one-flow"
duration = "10s"
seed = 1

[tcp]
stack = "linux"

[dumbbell.bottleneck]
rate = "10Mb"
delay = "20ms"
queue = { kind = "droptail", limit = 50 }

[[dumbbell.groups]]
name = "linux"
count = 1
app = "ftp"
start = 0.0
stop = "10s"
access = { rate = "100Mb", delay = "1ms" }

[monitor]
queues = ["R1->R2"]
tcp_flows = "all"
"""


def one_flow(**over) -> Scenario:
    return Scenario.from_toml_string(ONE_FLOW).with_overrides(**over)


@pytest.fixture(scope="module")
def run(core):
    return one_flow().run()


def test_resolved_fields_are_ns3_defaults(core):
    tcp = one_flow().validate()["flows"][0]["tcp"]
    assert tcp["stack"] == "linux" and tcp["variant"] == "newreno"
    assert (tcp["window_init"], tcp["packet_size"], tcp["sack"]) == (10, 1000, True)
    assert (tcp["delayed_ack"], tcp["delack_count"], tcp["delack_interval"]) == (True, 2, 0.2)
    assert (tcp["min_rto"], tcp["rto_init"], tcp["ns3_quirks"]) == (1.0, 1.0, False)
    assert tcp["window"] == pytest.approx(131.072)  # ns-3's RcvBufSize 131072 B
    assert "tick" not in tcp and "syn" not in tcp


def test_slow_start_grows_one_segment_per_ack(run):
    tcp = run.tcp
    assert tcp["cwnd"].iloc[0] == 10 and tcp["state"].iloc[0] == "slow_start"
    ss = tcp[tcp["t"] < tcp.loc[tcp["state"] != "slow_start", "t"].iloc[0]]
    steps = np.diff(np.round(ss["cwnd"].to_numpy() * MSS))
    # delayed ACKs acknowledge two segments; ABC with L = 1 SMSS adds one MSS per ACK
    assert len(steps) > 50 and (steps == MSS).all()


def test_loss_ssthresh_from_flight_and_prr_reduction(run):
    tcp = run.tcp.reset_index(drop=True)
    fr = tcp.index[tcp["state"] == "fast_recovery"]
    first = fr[0]
    before = tcp.loc[first - 1, "cwnd"]
    ss = tcp.loc[first, "ssthresh"]
    # ns-3's GetSsThresh: half the bytes in flight (SACKed and lost excluded), below cwnd/2
    assert 2 <= ss < before / 2
    # PRR: the window comes down by at most about one segment per ACK, not at once
    episode = tcp.loc[first:]
    episode = episode[: (episode["state"] != "fast_recovery").to_numpy().argmax()]
    drops = -np.diff(episode["cwnd"].to_numpy())
    assert len(episode) > 20 and drops.max() <= 1.6
    assert episode["cwnd"].iloc[0] > ss + 20
    # leaving recovery: cwnd = ssthresh, then one avoidance step
    after = tcp.loc[episode.index[-1] + 1]
    assert after["state"] == "congestion_avoidance" and abs(after["cwnd"] - ss) < 1.1


def test_congestion_avoidance_adds_mss_squared_over_cwnd(run):
    tcp = run.tcp
    w = np.round(tcp["cwnd"].to_numpy() * MSS).astype(np.int64)
    ca = (tcp["state"].to_numpy() == "congestion_avoidance")
    both = ca[1:] & ca[:-1] & (w[1:] != w[:-1])
    expect = np.maximum(1, (MSS * MSS) // w[:-1])
    assert both.sum() > 1000
    assert (np.diff(w)[both] == expect[both]).all()


def test_single_flow_fills_the_link_without_timeouts(run):
    s = run.summary
    assert s["timeouts"] == 0 and s["utilisation"] > 0.97
    assert 0 < s["packets_retransmitted"] == s["bottleneck_drops"]


def test_ns2_stack_is_the_default_and_unchanged(core):
    base = Scenario.from_toml(RED).with_overrides(**{"duration": 3, "dumbbell.groups.0.stop": 3})
    explicit = base.with_overrides(**{"tcp.stack": "ns2"})
    a, b = base.run().summary, explicit.run().summary
    a.pop("wall_seconds"), b.pop("wall_seconds")
    assert a == b
    # the resolved ns-2 table is as before (no linux fields)
    assert {"stack", "sack", "delack_count"}.isdisjoint(base.validate()["flows"][0]["tcp"])


def test_ecn_marks_reduce_through_prr_without_loss(core):
    r = one_flow(**{"tcp.ecn": True, "dumbbell.bottleneck.queue": {"kind": "codel", "ecn": True}}).run()
    s = r.summary
    assert s["marks"] >= 3 and s["bottleneck_drops"] == 0 and s["packets_retransmitted"] == 0
    tcp = r.tcp.reset_index(drop=True)
    starts = tcp.index[(tcp["state"] == "fast_recovery") & (tcp["state"].shift() != "fast_recovery")]
    assert len(starts) >= 3
    for i in starts:
        before, ss = tcp.loc[i - 1, "cwnd"], tcp.loc[i, "ssthresh"]
        # ssthresh from the bytes in flight (about half); then PRR over the round
        assert ss <= before / 2 + 1
        ep = tcp.loc[i:]
        ep = ep[: (ep["state"] != "fast_recovery").to_numpy().argmax()]
        assert len(ep) > 5 and (-np.diff(ep["cwnd"].to_numpy())).max() <= 1.6
        after = tcp.loc[ep.index[-1] + 1]
        assert after["state"] == "congestion_avoidance" and abs(after["cwnd"] - ss) < 1.1


BAD = [
    ({"tcp.stack": "bsd"}, "tcp.stack", "ns2, linux"),
    ({"tcp.delack_count": 3}, "tcp.delack_count", "1 or 2"),
    ({"tcp.variant": "reno"}, "tcp.variant", "newreno\", \"cubic\", \"dctcp\", \"bbr"),
    ({"tcp.variant": "dctcp", "tcp.ecn": False}, "tcp.ecn", "DCTCP needs ECN"),
    ({"tcp.tick": 0.01}, "tcp.tick", 'stack = "ns2"'),
    ({"tcp.syn": True}, "tcp.syn", 'stack = "ns2"'),
    ({"tcp.sack": False}, "tcp.sack", "SACK"),
    ({"tcp.min_rto": 0}, "tcp.min_rto", "> 0"),
    ({"tcp.syn_rtt": -1}, "tcp.syn_rtt", "[0, 1e6]"),
    ({"tcp.syn_rtt": 61}, "tcp.syn_rtt", "[0, 60]"),
    ({"tcp.variant": "cubic", "tcp.tcp_friendliness": True}, "tcp.tcp_friendliness", "no TCP-friendly region"),
    ({"dumbbell.groups.0.tcp": {"stack": "ns2", "syn_rtt": 0.04}}, "dumbbell.groups[0].tcp.syn_rtt", 'stack = "linux"'),
    ({"dumbbell.groups.0.tcp": {"stack": "ns2", "sack": True}}, "dumbbell.groups[0].tcp.sack", 'stack = "linux"'),
    ({"dumbbell.groups.0.tcp": {"stack": "ns2", "ns3_quirks": True}}, "dumbbell.groups[0].tcp.ns3_quirks", 'stack = "linux"'),
    ({"dumbbell.groups.0.app": "web",
      "dumbbell.groups.0.web": {"arrival_rate": 1, "size": 10000, "max_transfers": 2}}, "tcp.stack", "ftp"),
    # a misspelt name in the top-level [tcp] is refused even where every group sets its own
    # (it was ignored: the groups' values won before it was read)
    ({"tcp.variant": "bbr2", "dumbbell.groups.0.tcp": {"variant": "cubic"}}, "tcp.variant", 'unknown TCP variant "bbr2"'),
    ({"tcp.stack": "ns3", "dumbbell.groups.0.tcp": {"stack": "linux"}}, "tcp.stack", 'unknown TCP stack "ns3"'),
    ({"tcp.ect": "ect2", "dumbbell.groups.0.tcp": {"ect": "ect0", "ecn": True}}, "tcp.ect", "unknown ECN codepoint"),
    ({"tcp.loss_detection": "rack-tlp", "dumbbell.groups.0.tcp": {"loss_detection": "rack"}},
     "tcp.loss_detection", "unknown loss detection"),
]


@pytest.mark.parametrize("over,field,needle", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_fields_named(core, over, field, needle):
    with pytest.raises(ScenarioError) as info:
        one_flow(**over).validate()
    msg = str(info.value)
    assert field in msg and needle in msg, msg


def test_cli_one_line_error(core, tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(ONE_FLOW.replace('stack = "linux"', 'stack = "linux"\ndelack_count = 0'))
    text = _one_line_error(runner.invoke(app, ["validate", str(p)]))
    assert "tcp.delack_count" in text and "1 or 2" in text


def test_list_names_the_stacks_and_the_default(core):
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert 'tcp.stack = "ns2" (the default everywhere' in text and '"linux"' in text
    assert "newreno, cubic, dctcp" in text


def test_list_of_a_tcp_name_says_what_it_is(core):
    """`aqmsim list bbr` or `aqmsim list tcp` (a new user's guess) answers with the TCP
    senders, the variant's page first, instead of "unknown discipline"."""
    result = runner.invoke(app, ["list", "bbr"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert text.startswith('bbr is a TCP congestion control (tcp.variant = "bbr"), not a queue '
                           "discipline: docs/tcp/bbr.md")
    assert 'tcp.stack = "ns2" (the default everywhere' in text
    result = runner.invoke(app, ["list", "tcp"])
    assert result.exit_code == 0 and "TCP is chosen per TCP table ([tcp]" in result.output
    # and how to compare with ns-3 (docs/tcp/index.md)
    assert "tcp.ns3_quirks = true" in " ".join(result.output.split())
    result = runner.invoke(app, ["list", "nope"])
    assert result.exit_code == 2 and "or tcp for the TCP senders" in result.output


def test_cubic_runs_on_the_linux_stack(core):
    """variant = "cubic" is accepted with stack = "linux" (ns-3.37's TcpCubic, tcp/linux/cubic.rs)."""
    sc = one_flow(**{"tcp.variant": "cubic", "duration": 3.0, "dumbbell.groups.0.stop": 3.0})
    assert sc.validate()["flows"][0]["tcp"]["variant"] == "cubic"
    tcp = sc.run().tcp.reset_index(drop=True)
    # slow start counts bytes (2 segments per delayed ACK), then HyStart leaves it before a loss
    ss = tcp[tcp["state"] == "slow_start"]["cwnd"].to_numpy()
    assert (np.diff(ss)[1:] == 2).all()
    first = tcp.index[tcp["state"] == "fast_recovery"][0]
    # ssthresh = ⌊0.7 · cwnd in segments⌋ (CUBIC's β), not half the flight
    assert tcp.loc[first, "ssthresh"] == int(0.7 * int(tcp.loc[first - 1, "cwnd"]))


def test_dctcp_runs_on_the_linux_stack(core):
    """variant = "dctcp" with stack = "linux" (tcp/linux/dctcp.rs): ECN on, α and windows in
    bytes with no packet rounding, reductions through CWR and PRR, no loss behind a marker."""
    q = {"kind": "ecn_threshold", "threshold": 20, "limit": 100}
    sc = one_flow(**{"tcp.variant": "dctcp", "dumbbell.bottleneck.queue": q})
    tcp = sc.validate()["flows"][0]["tcp"]
    assert (tcp["variant"], tcp["ecn"], tcp["dctcp_g"], tcp["dctcp_alpha_init"]) == ("dctcp", True, 0.0625, 1.0)
    r = sc.run()
    s = r.summary
    assert s["marks"] > 100 and s["bottleneck_drops"] == 0 and s["utilisation"] > 0.95
    cwnd = np.round(r.tcp["cwnd"].to_numpy() * MSS)
    assert (cwnd % MSS != 0).any(), "windows in bytes, not whole segments"


def test_switching_an_examples_tcp_table_to_linux_says_how(core):
    """`--set tcp.stack=linux` on an ns-2 example keeps its ns-2-only fields: the one-line
    error names them all and gives a `--set` that works (the test runs it)."""
    bad = runner.invoke(app, ["validate", str(RED), "--set", "tcp.stack=linux"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    lines = bad.output.strip().splitlines()
    assert sum("ns-2-only fields" in x for x in lines) == 1, "said once for the table"
    text = lines[0]
    assert "tick" in text and "limited_transmit" in text and "replace the whole table" in text
    fix = text.split("--set '", 1)[1].split("'", 1)[0]
    good = runner.invoke(app, ["validate", str(RED), "--set", fix, "--json"])
    assert good.exit_code == 0, good.output
