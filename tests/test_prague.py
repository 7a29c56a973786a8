"""Issue 25 point 4: TCP Prague on the linux stack (`variant = "prague"`). The golden per-ACK
sequences from the reference's arithmetic are Rust tests (tcp/linux/prague_tests.rs); here:
the dumbbell checks (a step-marking queue at ~1 ms: full link, ~1 ms of queue; RTTs 10 and
40 ms: a rate ratio much closer to 1 than Reno's), the classic-AQM coexistence without a
fallback (v0.7) and with v0.6's detector (`prague_ecn_fallback`), and the field-named
errors. Numbers measured are in docs/tcp/prague.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app
from test_cli import _one_line_error
from test_stack_linux import one_flow

runner = CliRunner()

# 100 Mb/s: 1 ms of queue is 11.9 segments of 1052 bytes on the wire; a step at 12 packets
STEP = {"kind": "ecn_threshold", "threshold": 12, "limit": 1000}


def dumbbell(groups, queue, dur=30, rate="100Mb"):
    """Flows of their own TCP table each; RTT = 2 · (access delay + 1 ms)."""
    return Scenario.from_dict({
        "name": "prague", "duration": dur, "seed": 1,
        "tcp": {"stack": "linux", "ecn": True, "window": 10000},
        "dumbbell": {"bottleneck": {"rate": rate, "delay": "1ms", "queue": queue},
                     "groups": [{"name": f"g{i}", "count": 1, "app": "ftp", "start": 0, "stop": dur,
                                 "access": {"rate": "1Gb", "delay": d},
                                 "tcp": {"stack": "linux", "ecn": True, "window": 10000, **tcp}}
                                for i, (tcp, d) in enumerate(groups)]},
        "monitor": {"queues": ["R1->R2"], "tcp_flows": "all"},
    })


def test_one_flow_fills_the_link_with_about_a_millisecond_of_queue(core):
    s = dumbbell([({"variant": "prague"}, "9ms")], STEP).run().summary
    # measured (RTT 20 ms, 30 s, slow start included): utilisation 0.988, mean queueing
    # delay 0.60 ms, no loss; cwnd 243-254 segments after 5 s (the BDP is 238)
    assert s["utilisation"] > 0.97 and s["bottleneck_drops"] == 0 and s["packets_retransmitted"] == 0
    assert 0.3e-3 < s["mean_queueing_delay_s"] < 1.5e-3
    # every data packet ECT(1), every mark on one, every mark fed back by AccECN
    assert s["arrivals_ect1"] == s["bottleneck_arrivals"] and s["arrivals_ect0"] == 0
    assert s["marks_departed_ect1"] == s["marks_departed"] > 1000
    assert s["marks_departed"] - 50 <= s["accecn_ce_packets"] <= s["marks_departed"]


def _ratio(variant, **tcp):
    r = dumbbell([({"variant": variant, **tcp}, "4ms"), ({"variant": variant, **tcp}, "19ms")], STEP).run()
    thr = r.flows["throughput_bps"]
    return thr[0] / thr[1], r.summary


def test_rtt_independence_brings_the_rate_ratio_toward_one(core):
    """RTTs 10 and 40 ms through one step-marking queue. Measured: Prague 3.26 (76.4 vs 23.5
    Mb/s), the same Prague without its virtual RTT (prague_rtt_target = 0) 8.62, NewReno
    11.8: the 10 ms flow grows as a 25 ms one would (the 40 ms flow, above the target, is
    not scaled, so the ratio stays above 1)."""
    prague, s = _ratio("prague")
    off, _ = _ratio("prague", prague_rtt_target=0)
    reno, _ = _ratio("newreno")
    assert 1 < prague < 4 and s["utilisation"] > 0.97
    assert prague < off / 2 and prague < reno / 3


def test_no_classic_fallback_prague_starves_cubic_on_a_classic_aqm(core):
    """The reference (v0.7) has no classic-ECN fallback (v0.6's detector is
    `prague_ecn_fallback`, off by default as it was there; below): at a classic
    RFC 3168 AQM (CoDel with ECN) Prague's α/2 response to a mark is far gentler than CUBIC's
    β = 0.7, and CUBIC gets almost nothing. Measured: 95.2 vs 4.6 Mb/s (20.8×); two CUBIC
    flows share 53.2 / 46.6."""
    q = {"kind": "codel", "ecn": True}
    r = dumbbell([({"variant": "prague"}, "9ms"), ({"variant": "cubic"}, "9ms")], q).run()
    thr = r.flows["throughput_bps"]
    assert thr[0] > 10 * thr[1]
    assert r.summary["marks_departed_ect1"] > r.summary["marks_departed_ect0"] > 0


def test_classic_ecn_fallback_gives_cubic_a_share_at_a_classic_aqm(core):
    """`prague_ecn_fallback = 1` (v0.6's detector, tcp/linux/prague_classic.rs):
    at CoDel with ECN (the test above) Prague's detector finds a Classic AQM (the RTT's
    deviation and the queue's depth) in nearly every round and floors α at 0.625 on
    entering CWR: CUBIC gets 31.0 Mb/s instead of 4.6 (Prague 68.3). Detection only (2)
    reports the same and changes nothing."""
    q = {"kind": "codel", "ecn": True}
    runs = {fb: dumbbell([({"variant": "prague", "prague_ecn_fallback": fb}, "9ms"), ({"variant": "cubic"}, "9ms")], q).run()
            for fb in (0, 1, 2)}
    thr = {fb: list(r.flows["throughput_bps"]) for fb, r in runs.items()}
    assert thr[1][1] > 5 * thr[0][1] and thr[1][0] < 0.8 * thr[0][0], thr
    assert thr[2] == thr[0]
    for fb in (1, 2):
        s = runs[fb].summary
        assert s["prague_classic_flows"] == 1 and s["prague_classic_share"] > 0.5, s
    assert "prague_classic_flows" not in runs[0].summary


def test_classic_ecn_fallback_leaves_an_l4s_queue_alone(core):
    """At the 1 ms step (an L4S AQM) the detector's score never leaves 0: the run is the
    one without it, value for value."""
    off = dumbbell([({"variant": "prague"}, "9ms")], STEP).run()
    on = dumbbell([({"variant": "prague", "prague_ecn_fallback": 1}, "9ms")], STEP).run()
    assert on.summary["prague_classic_flows"] == 0 and on.summary["prague_classic_share"] == 0
    for k in ("utilisation", "bottleneck_drops", "marks", "mean_queueing_delay_s"):
        assert on.summary[k] == off.summary[k], k
    assert list(on.flows["throughput_bps"]) == list(off.flows["throughput_bps"])


def test_resolved_prague_table(core):
    tcp = dumbbell([({"variant": "prague"}, "9ms")], STEP).validate()["flows"][0]["tcp"]
    assert (tcp["variant"], tcp["ecn"], tcp["ect"], tcp["accecn"], tcp["pacing"]) == ("prague", True, "ect1", True, True)
    assert tcp["prague_rtt_target"] == 0.025
    assert tcp["prague_ecn_fallback"] == 0  # the reference's default: no detection


@pytest.mark.parametrize("over, field, words", [
    ({"tcp.variant": '"prague"', "tcp.ecn": "false"}, "tcp.ecn", "needs ECN"),
    ({"tcp.variant": '"prague"', "tcp.accecn": "false"}, "tcp.accecn", "needs AccECN"),
    ({"tcp.variant": '"prague"', "tcp.sink_accecn": "false"}, "tcp.sink_accecn", "receiver with AccECN"),
    ({"tcp.variant": '"prague"', "tcp.ect": '"ect0"'}, "tcp.ect", "sends ECT(1)"),
    ({"tcp.variant": '"prague"', "tcp.pacing": "false"}, "tcp.pacing", "paces by its own rate"),
    ({"tcp.variant": '"prague"', "tcp.prague_rtt_target": "2"}, "tcp.prague_rtt_target", "must be in [0, 1] s"),
    ({"tcp.prague_rtt_target": "0.01"}, "tcp.prague_rtt_target", 'only used with variant = "prague"'),
    ({"tcp.variant": '"prague"', "tcp.prague_ecn_fallback": "3"}, "tcp.prague_ecn_fallback", "must be 0"),
    ({"tcp.prague_ecn_fallback": "1"}, "tcp.prague_ecn_fallback", 'only used with variant = "prague"'),
    ({"tcp.stack": '"ns2"', "tcp.variant": '"prague"'}, "tcp.variant", 'runs only on stack = "linux"'),
])
def test_bad_prague_input_is_one_line_naming_the_field(core, tmp_path: Path, over, field, words):
    toml = tmp_path / "s.toml"
    toml.write_text(one_flow().to_toml())
    args = ["run", str(toml)]
    for k, v in over.items():
        args += ["--set", f"{k}={v}"]
    text = _one_line_error(runner.invoke(app, args))
    assert field in text and words in text, text


def test_aqmsim_list_names_prague(core):
    res = runner.invoke(app, ["list"])
    assert res.exit_code == 0 and "prague" in res.output and "accecn" in res.output.lower()
