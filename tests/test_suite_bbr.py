"""BBR as a sender in the RFC 7928 suite (issue 24): a BBR v1 variant of §5.2's aggressive
sender and of §9.1's traffic mix, both on the linux TCP stack; the other variants and
groups are as before."""

from __future__ import annotations

import pytest

from aqmsim import Scenario
from aqmsim.suite.spec import Suite


@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite.load("rfc7928")


def _flows(suite, s, label, aqm="codel"):
    sc = s.scenario(next(v for v in s.variants if v.label == label), suite.disciplines[aqm])
    return Scenario(sc).validate()["flows"]


@pytest.mark.parametrize("name, labels, bulk", [
    ("aggressive-sender", ["CUBIC", "BBR v1"], 1),
    ("traffic-mix", ["bulk NewReno", "bulk BBR v1"], 2),
])
def test_bbr_variant_runs_on_the_linux_stack(suite, name, labels, bulk):
    s = suite.scenario(name)
    assert [v.label for v in s.variants] == labels and s.variant_axis
    base, bbr = _flows(suite, s, labels[0]), _flows(suite, s, labels[1])
    assert len(base) == len(bbr)
    got = [f["tcp"] for f in bbr if (f.get("tcp") or {}).get("variant") == "bbr"]
    assert len(got) == bulk
    for t in got:
        assert t["stack"] == "linux" and t["pacing"] is True
        # what the stacks share is the suite's: IW3, 1000-byte segments, an ACK per packet
        assert (t["window_init"], t["packet_size"], t["delayed_ack"], t["min_rto"]) == (3, 1000, False, 0.2)
    # only the bulk senders change: every other flow is the same in both variants
    def others(flows):
        return [f for f in flows if f["app"] not in ("ftp",)]
    assert others(base) == others(bbr) and len(others(base)) == len(base) - bulk
    assert all((f.get("tcp") or {}).get("stack", "ns2") == "ns2" for f in base)


def test_bbr_aggressive_sender_fills_the_link(suite):
    """A short run: the BBR sender keeps the 10 Mb/s bottleneck busy under CoDel."""
    s = suite.scenario("aggressive-sender")
    sc = s.scenario(s.variants[1], suite.disciplines["codel"])
    sc["duration"] = "10s"
    sc["dumbbell"]["groups"][0].pop("stop", None)
    res = Scenario(sc).run()
    assert res.summary["utilisation"] > 0.85
