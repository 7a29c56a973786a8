"""Issue 26 points 2 and 3 (congestion controls): a Python NewReno written against the
public API only (``aqmsim.plugin.examples.newreno``) gives, packet for packet, the built-in
NewReno's run of the linux stack (and ``NewRenoNs2`` ns-2's NewReno on the ns-2 stack) (every flow's counters, the drop log, the TCP cwnd
series, the summary) on two scenarios: five flows through RED with losses and RTOs, and
five ECN flows through CoDel with marks and drops. A Python AIMD with its own fields
differs as it should; a plug-in's pacing rate is the one the flow paces at."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmsim import Scenario

NEWRENO = "aqmsim.plugin.examples.newreno:NewReno"

BASE = """
name = "cc-plugin"
duration = "20s"
seed = 3

[tcp]
stack = "linux"

[dumbbell.bottleneck]
rate = "10Mb"
delay = "20ms"
queue = { kind = "red", limit = 30, min_th = 5, max_th = 15 }

[[dumbbell.groups]]
name = "g"
count = 5
app = "ftp"
start = { uniform = [0.0, 1.0] }
stop = "20s"
access = { rate = "100Mb", delay = "1ms" }

[monitor]
queues = ["R1->R2"]
tcp_flows = "all"
"""

SCENARIOS = {
    "red-losses-rto": {},
    "codel-ecn": {"tcp.ecn": True, "dumbbell.bottleneck.queue": {"kind": "codel", "limit": 100, "ecn": True}},
    "red-paced": {"tcp.pacing": True},
}


def _pair(name: str):
    s = Scenario.from_toml_string(BASE).with_overrides(**SCENARIOS[name])
    py = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": NEWRENO})
    return s.run(), py.run()


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def pair(request, core):
    return request.param, _pair(request.param)


def test_the_scenarios_exercise_losses_timeouts_and_marks(pair):
    name, (ref, _) = pair
    assert ref.summary["bottleneck_drops"] > (0 if name == "codel-ecn" else 20)
    if name == "red-losses-rto":
        assert ref.summary["timeouts"] >= 1, "the RED scenario must have an RTO"
    if name == "codel-ecn":
        assert ref.summary["marks"] > 50


def test_python_newreno_is_the_builtin_packet_for_packet(pair):
    name, (ref, py) = pair
    assert set(ref.flows["variant"]) == {"newreno"} and set(py.flows["variant"]) == {"python"}
    pd.testing.assert_frame_equal(ref.flows.drop(columns=["variant"]), py.flows.drop(columns=["variant"]))
    pd.testing.assert_frame_equal(ref.drops, py.drops)
    pd.testing.assert_frame_equal(ref.tcp, py.tcp)
    pd.testing.assert_frame_equal(ref.queue, py.queue)
    skip = {"wall_seconds"}
    assert {k: v for k, v in ref.summary.items() if k not in skip} == {k: v for k, v in py.summary.items() if k not in skip}
    assert len(ref.tcp) > 1000 and np.isfinite(ref.tcp["cwnd"]).all()


NS2_BASE = BASE.replace('[tcp]\nstack = "linux"\n', "")
NS2_SCENARIOS = {
    "red-losses-rto": {},
    "red-ecn": {"tcp.ecn": True, "dumbbell.bottleneck.queue": {"kind": "red", "limit": 30, "min_th": 5, "max_th": 15,
                                                               "ecn": True}},
    "red-window-200": {"tcp.window": 200},
}


@pytest.mark.parametrize("name", sorted(NS2_SCENARIOS))
def test_ns2_stack_python_newreno_is_ns2s_newreno_packet_for_packet(core, name):
    s = Scenario.from_toml_string(NS2_BASE).with_overrides(**{"tcp.variant": "newreno", **NS2_SCENARIOS[name]})
    ref = s.run()
    py = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": "aqmsim.plugin.examples.newreno:NewRenoNs2"}).run()
    assert ref.resolved["flows"][0]["tcp"].get("stack", "ns2") == "ns2"
    assert ref.summary["bottleneck_drops"] + ref.summary["marks"] > 100
    if name != "red-ecn":
        assert ref.summary["timeouts"] >= 1
    pd.testing.assert_frame_equal(ref.flows.drop(columns=["variant"]), py.flows.drop(columns=["variant"]))
    pd.testing.assert_frame_equal(ref.drops, py.drops)
    pd.testing.assert_frame_equal(ref.tcp, py.tcp)
    pd.testing.assert_frame_equal(ref.queue, py.queue)
    assert len(ref.tcp) > 1000


def test_resolved_table_names_the_class(core):
    r = Scenario.from_toml_string(BASE).with_overrides(**{"tcp.variant": "python", "tcp.cc_class": NEWRENO}).validate()
    tcp = r["flows"][0]["tcp"]
    assert (tcp["variant"], tcp["cc_class"], tcp["cc"]) == ("python", NEWRENO, {})


AIMD = '''
from aqmsim.plugin import CongestionControl


class Aimd(CongestionControl):
    """AIMD(a, b): +a segments per RTT, cwnd x b on a loss."""

    def __init__(self, a=1.0, b=0.5):
        self.a, self.b = a, b

    def on_ack(self, tcp, acked):
        if tcp.cwnd < tcp.ssthresh:
            tcp.cwnd += tcp.mss * acked
        else:
            tcp.cwnd += self.a * tcp.mss * tcp.mss / tcp.cwnd

    def ssthresh(self, tcp):
        return max(2 * tcp.mss, self.b * tcp.in_flight)


class Paced(Aimd):
    def __init__(self, rate):
        super().__init__()
        self.rate = rate

    def on_ack(self, tcp, acked):
        super().on_ack(tcp, acked)
        tcp.pacing_rate = self.rate
'''


@pytest.fixture()
def aimd_file(tmp_path: Path) -> Path:
    f = tmp_path / "aimd.py"
    f.write_text(textwrap.dedent(AIMD))
    return f


def test_an_aggressive_python_aimd_takes_more_than_newreno(core, aimd_file):
    group = {"count": 2, "app": "ftp", "start": 0.0, "stop": "20s", "access": {"rate": "100Mb", "delay": "1ms"}}
    aimd = {"stack": "linux", "variant": "python", "cc_class": f"{aimd_file}:Aimd", "cc": {"a": 4.0, "b": 0.8}}
    two = Scenario.from_toml_string(BASE).with_overrides(**{
        "dumbbell.groups": [dict(group, name="reno"), dict(group, name="aimd", tcp=aimd)],
    })
    r = two.run()
    good = r.flows.groupby("variant")["goodput_bps"].sum()
    assert good["python"] > 1.5 * good["newreno"], good.to_dict()


def test_the_plugins_pacing_rate_is_the_flows(core, aimd_file):
    one = Scenario.from_toml_string(BASE).with_overrides(**{
        "dumbbell.groups[0].count": 1,
        "tcp.pacing": True, "tcp.variant": "python", "tcp.cc_class": f"{aimd_file}:Paced", "tcp.cc": {"rate": 2e6},
    })
    r = one.run()
    got = float(r.flows["throughput_bps"].iloc[0])
    # paced at 2 Mb/s on a 10 Mb/s link: about 2 Mb/s of data (headers included)
    assert 1.7e6 < got < 2.2e6, got
    free = one.with_overrides(**{"tcp.cc_class": f"{aimd_file}:Aimd", "tcp.cc": {}}).run()
    assert float(free.flows["throughput_bps"].iloc[0]) > 5e6


def test_aqmsim_list_says_how_to_plug_in_a_congestion_control(core):
    from typer.testing import CliRunner

    from aqmsim.cli import app

    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert 'tcp.variant = "python", tcp.cc_class = "module:Class"' in text, text[-800:]
    assert "docs/plugins/cc.md" in text


RECORDER = '''
from collections import Counter

from aqmsim.plugin.examples.newreno import NewReno


class Recorder(NewReno):
    """NewReno that counts every call, per instance and in total."""

    built = 0
    calls = Counter()

    def __init__(self):
        Recorder.built += 1
        self.mine = Counter()

    def _count(self, what):
        Recorder.calls[what] += 1
        self.mine[what] += 1

    def on_ack(self, tcp, acked):
        self._count("on_ack")
        super().on_ack(tcp, acked)

    def ssthresh(self, tcp):
        self._count("ssthresh")
        return super().ssthresh(tcp)

    def pkts_acked(self, tcp, acked):
        self._count("pkts_acked")

    def on_ecn(self, tcp):
        self._count("on_ecn")

    def on_rto(self, tcp):
        self._count("on_rto")

    def on_event(self, tcp, event):
        self._count(event)
'''


@pytest.mark.parametrize("name", ["red-losses-rto", "codel-ecn"])
def test_optional_methods_run_at_their_events_one_instance_per_flow(core, tmp_path, name):
    (tmp_path / "recorder.py").write_text(RECORDER)
    sys.path.insert(0, str(tmp_path))
    try:
        import recorder

        s = Scenario.from_toml_string(BASE).with_overrides(**SCENARIOS[name])
        ref = s.run()
        py = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": "recorder:Recorder"}).run()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("recorder", None)
    # the optional methods leave the windows alone: still the built-in run
    pd.testing.assert_frame_equal(ref.tcp, py.tcp)
    c = recorder.Recorder.calls
    # one instance per flow, and one more when the scenario is checked
    assert recorder.Recorder.built == 5 + 1
    timeouts = int(ref.flows["timeouts"].sum())
    assert c["on_rto"] == c["loss"] == timeouts
    assert c["pkts_acked"] > c["on_ack"] > 1000
    assert c["ssthresh"] == c["recovery"] + c["loss"] + c["on_ecn"]
    if name == "codel-ecn":
        assert c["on_ecn"] > 50, dict(c)
    else:
        assert c["on_ecn"] == 0 and timeouts >= 1 and c["recovery"] > 10, dict(c)
        # every recovery ends in complete_cwr, unless a timeout or the run's end (5 flows) cuts it
        assert c["recovery"] - timeouts - 5 <= c["complete_cwr"] <= c["recovery"], dict(c)


CE_COUNTER = '''
from aqmsim.plugin.examples.newreno import NewReno


class CeCount(NewReno):
    ce = 0
    delivered = 0

    def pkts_acked(self, tcp, acked):
        CeCount.ce += tcp.delivered_ce
        CeCount.delivered += tcp.delivered
'''


def test_with_accecn_the_plugin_sees_every_ce_mark(core, tmp_path):
    (tmp_path / "ce_count.py").write_text(CE_COUNTER)
    s = Scenario.from_toml_string(BASE).with_overrides(**{
        "tcp.ecn": True, "tcp.accecn": True,
        "dumbbell.bottleneck.queue": {"kind": "codel", "limit": 100, "ecn": True}})
    ref = s.run()
    sys.path.insert(0, str(tmp_path))
    try:
        import ce_count

        py = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": "ce_count:CeCount"}).run()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ce_count", None)
    pd.testing.assert_frame_equal(ref.tcp, py.tcp)
    marks = ref.summary["marks_departed"]
    assert marks > 50 and ce_count.CeCount.ce == marks
    assert 0.95 * ref.summary["packets_sent"] < ce_count.CeCount.delivered <= ref.summary["packets_sent"]
