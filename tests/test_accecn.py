"""Issue 25 point 2: AccECN feedback (RFC 9768's ACE field) between the linux stack's sink and
sender. The golden per-ACK ACE sequences (delayed ACKs, a wrap of the 3-bit counter, the
safe reading of an ambiguous delta) are Rust tests (tcp/accecn.rs); here: the
negotiation's outcomes, the counters end to end, and classic feedback left unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim.cli import app
from test_cli import _one_line_error
from test_stack_linux import one_flow

runner = CliRunner()

CODEL = {"tcp.ecn": True, "dumbbell.bottleneck.queue": {"kind": "codel", "ecn": True}}
STEP = {"tcp.ecn": True, "dumbbell.bottleneck.queue": {"kind": "ecn_threshold", "threshold": 60, "limit": 200}}
STEP20 = {"tcp.ecn": True, "dumbbell.bottleneck.queue": {"kind": "ecn_threshold", "threshold": 20, "limit": 200}}


def _ignore_wall(s: dict) -> dict:
    return {k: v for k, v in s.items() if k != "wall_seconds"}


def test_classic_feedback_is_the_default_and_unchanged(core):
    """accecn unset and accecn = false run the same; no accecn key appears."""
    a = one_flow(**CODEL).run().summary
    b = one_flow(**CODEL, **{"tcp.accecn": False}).run().summary
    assert _ignore_wall(a) == _ignore_wall(b) and "accecn_ce_packets" not in a


def test_a_receiver_without_accecn_falls_back_to_rfc3168(core):
    """RFC 9768 §3.1: a sender asking for AccECN with an RFC 3168 receiver uses RFC 3168
    feedback, exactly as if it had asked for classic ECN."""
    a = one_flow(**CODEL).run().summary
    b = one_flow(**CODEL, **{"tcp.accecn": True, "tcp.sink_accecn": False}).run().summary
    assert _ignore_wall(a) == _ignore_wall(b)
    tcp = one_flow(**CODEL, **{"tcp.accecn": True, "tcp.sink_accecn": False}).validate()["flows"][0]["tcp"]
    assert tcp["accecn"] is True and tcp["sink_accecn"] is False


@pytest.mark.parametrize("over", [STEP20, STEP], ids=["step20", "step60"])
def test_every_departed_mark_is_counted_by_the_sender(core, over):
    """No loss between the bottleneck and the sink, so every CE-marked segment that left
    the bottleneck reaches the sink; the ACE counter reports each (up to those still in
    flight at the end) and never more: Σ Δ over the ACKs equals the marks within a window."""
    r = one_flow(**over, **{"tcp.accecn": True}).run()
    s = r.summary
    assert s["marks_departed"] > 20 and s["bottleneck_drops"] == 0
    assert s["marks_departed"] - 20 <= s["accecn_ce_packets"] <= s["marks_departed"]
    # measured: 172 of 172 (threshold 20), 150 of 150 (60)


def test_accecn_newreno_reduces_once_per_window_like_classic(core):
    """A classic control with AccECN responds to CE as to an ECE: the same ECN response
    count order, the utilisation of classic ECN, no loss."""
    a = one_flow(**STEP).run()
    b = one_flow(**STEP, **{"tcp.accecn": True}).run()
    sa, sb = a.summary, b.summary
    # measured: utilisation 0.953 both, 150 marks both
    assert sb["bottleneck_drops"] == 0 and sb["utilisation"] > 0.9
    assert abs(sb["utilisation"] - sa["utilisation"]) < 0.02
    assert abs(sb["marks"] - sa["marks"]) <= 0.1 * sa["marks"]


def test_accecn_acks_carry_ae_in_pcap(core, tmp_path: Path):
    """The ACE field's AE bit is the TCP header's AE flag (tshark: tcp.flags.ae)."""
    import shutil
    import subprocess

    tshark = shutil.which("tshark")
    assert tshark
    sc = one_flow(**STEP20, **{"tcp.accecn": True, "duration": 3, "dumbbell.groups.0.stop": 3,
                             "trace": {"links": ["R1->R2"], "format": "pcap", "path": str(tmp_path)}})
    ce = sc.run().summary["accecn_ce_packets"]
    p = subprocess.run([tshark, "-r", str(tmp_path / "R1-R2.pcap"), "-Y", "tcp.len == 0", "-T", "fields",
                        "-e", "tcp.flags.ae", "-e", "tcp.flags.cwr", "-e", "tcp.flags.ece"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    aces = [int(a == "1" or a == "True") * 4 + int(c == "1" or c == "True") * 2 + int(e == "1" or e == "True")
            for a, c, e in (line.split("\t") for line in p.stdout.splitlines())]
    assert aces[0] == 5, "the first ACK carries r.cep = 5 (RFC 9768)"
    # the ACKs leave in order on one path: the increments mod 8 add up to the CE count (no
    # ACK reports more than 2 here: 2 segments per delayed ACK)
    steps = [(b - a) % 8 for a, b in zip(aces, aces[1:])]
    assert max(steps) <= 2 and sum(steps) == ce > 100, (sum(steps), ce)


@pytest.mark.parametrize("over, field, words", [
    ({"tcp.accecn": "true"}, "tcp.accecn", "needs ecn = true"),
    ({"tcp.ecn": "true", "tcp.variant": '"dctcp"', "tcp.accecn": "true"}, "tcp.accecn", "exact CE echo"),
    ({"tcp.stack": '"ns2"', "tcp.accecn": "true"}, "tcp.accecn", 'only used with stack = "linux"'),
])
def test_bad_accecn_is_one_line_naming_the_field(core, tmp_path: Path, over, field, words):
    toml = tmp_path / "s.toml"
    toml.write_text(one_flow().to_toml())
    args = ["run", str(toml)]
    for k, v in over.items():
        args += ["--set", f"{k}={v}"]
    text = _one_line_error(runner.invoke(app, args))
    assert field in text and words in text, text
