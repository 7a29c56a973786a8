"""A Python congestion control's optional methods on the ns-2 stack (issue 26, plugfinish
item 4): inside ns-2's NewReno agent, `pkts_acked` runs on every ACK the agent takes (before
`on_ack`), `on_ecn` where an ECN echo makes the agent reduce, `on_event` at fast-recovery
entry ("recovery") and exit ("complete_cwr") and at every timeout ("loss", then `on_rto`);
a class that defines them and writes nothing leaves the run ns-2's NewReno's packet for
packet. The counts are checked against the agent's own counters (fast retransmits,
timeouts, ECN responses)."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from aqmsim import Scenario

from test_plugin_newreno import NS2_BASE, NS2_SCENARIOS

RECORDER = '''
from collections import Counter

from aqmsim.plugin.examples.newreno import NewRenoNs2


class Ns2Recorder(NewRenoNs2):
    """ns-2's NewReno that records every call, per instance and in total."""

    built = 0
    calls = Counter()
    acked_sum = 0
    bad_order = 0
    ece_seen = 0

    def __init__(self):
        Ns2Recorder.built += 1
        self.last = None

    def _count(self, what):
        Ns2Recorder.calls[what] += 1
        self.last = what

    def on_ack(self, tcp, acked):
        if self.last not in ("pkts_acked", "complete_cwr"):
            Ns2Recorder.bad_order += 1
        self._count("on_ack")
        super().on_ack(tcp, acked)

    def ssthresh(self, tcp):
        self._count("ssthresh")
        return super().ssthresh(tcp)

    def pkts_acked(self, tcp, acked):
        Ns2Recorder.acked_sum += acked
        Ns2Recorder.ece_seen += tcp.ece
        assert tcp.delivered == acked and tcp.stack == "ns2"
        self._count("pkts_acked")

    def on_ecn(self, tcp):
        self._count("on_ecn")

    def on_rto(self, tcp):
        self._count("on_rto")

    def on_event(self, tcp, event):
        self._count(event)
'''


@pytest.mark.parametrize("name", ["red-losses-rto", "red-ecn"])
def test_ns2_stack_optional_methods_run_at_the_agents_events(core, tmp_path, name):
    (tmp_path / "ns2_recorder.py").write_text(RECORDER)
    s = Scenario.from_toml_string(NS2_BASE).with_overrides(**{"tcp.variant": "newreno",
                                                              **NS2_SCENARIOS[name]})
    ref = s.run()
    sys.path.insert(0, str(tmp_path))
    try:
        import ns2_recorder

        py = s.with_overrides(**{"tcp.variant": "python",
                                 "tcp.cc_class": "ns2_recorder:Ns2Recorder"}).run()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ns2_recorder", None)
    R = ns2_recorder.Ns2Recorder
    c = R.calls
    # the optional methods write nothing: still ns-2's NewReno, packet for packet
    pd.testing.assert_frame_equal(ref.flows.drop(columns=["variant"]), py.flows.drop(columns=["variant"]))
    pd.testing.assert_frame_equal(ref.drops, py.drops)
    pd.testing.assert_frame_equal(ref.tcp, py.tcp)
    assert R.built == 5 + 1                      # one per flow, one when checked
    timeouts = int(ref.flows["timeouts"].sum())  # the agent's timeouts that cut ssthresh
    assert c["recovery"] > (10 if name == "red-losses-rto" else 0), dict(c)
    # every recovery ends in complete_cwr, unless a timeout or the run's end cuts it
    assert c["recovery"] - c["loss"] - 5 <= c["complete_cwr"] <= c["recovery"], dict(c)
    assert c["on_rto"] == c["loss"] >= timeouts
    assert c["pkts_acked"] > c["on_ack"] > 1000 and R.bad_order == 0
    assert R.acked_sum >= c["pkts_acked"]
    if name == "red-ecn":
        # ns-2's slowdown(CLOSE_SSTHRESH_HALF) runs for a fast retransmit (not the one
        # right after an ECN cut, ns-2's bug_fix_ path), an ECN echo and a timeout
        assert c["on_ecn"] > 20 and R.ece_seen >= c["on_ecn"], dict(c)
        assert c["on_ecn"] + timeouts <= c["ssthresh"] <= c["recovery"] + c["on_ecn"] + timeouts
    else:
        assert c["on_ecn"] == R.ece_seen == 0 and timeouts >= 1, dict(c)
        assert c["ssthresh"] == c["recovery"] + timeouts, dict(c)


CAPPED = '''
from aqmsim.plugin.examples.newreno import NewRenoNs2


class Capped(NewRenoNs2):
    """Caps cwnd at 4 packets in pkts_acked: the write must reach the agent."""

    def pkts_acked(self, tcp, acked):
        tcp.cwnd = min(tcp.cwnd, 4.0)
'''


def test_ns2_stack_what_pkts_acked_writes_reaches_the_agent(core, tmp_path):
    (tmp_path / "capped.py").write_text(CAPPED)
    s = Scenario.from_toml_string(NS2_BASE).with_overrides(**NS2_SCENARIOS["red-losses-rto"])
    ref = s.with_overrides(**{"tcp.variant": "python",
                              "tcp.cc_class": "aqmsim.plugin.examples.newreno:NewRenoNs2"}).run()
    sys.path.insert(0, str(tmp_path))
    try:
        capped = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": "capped:Capped"}).run()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("capped", None)
    assert ref.tcp["cwnd"].max() > 10
    # pkts_acked runs before on_ack on every ACK: cwnd is at most 4 + one on_ack's growth
    assert capped.tcp["cwnd"].max() <= 5.0
