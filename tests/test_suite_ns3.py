"""The RFC 7928 suite's ns-3 anchor (aqmsim.suite.ns3_anchor, issue 16 point 5).

The agreement test runs RFC 7928 §8.2's medium congestion (our reading, as the suite's
scenario file has it) in aqmsim (5 seeds) and in ns-3.37's dumbbell (3 seeds) with each
discipline, and asks the mean queueing delay and the goodput to agree within the
tolerances argued in docs/ns3-reference.md ("The RFC 7928 suite's anchor"). The other tests
check the translation and the cache without ns-3.
"""

from __future__ import annotations

import copy
import statistics
from typing import Any, Dict

import pytest
from aqmsim import Scenario, ns3ref
from aqmsim.suite import ns3_anchor

AQMSIM_SEEDS = (1, 2, 3, 4, 5)
NS3_SEEDS = (1, 2, 3)
DISCIPLINES = ("codel", "pie", "fq_codel", "red")
# One packet's transmission at the bottleneck (1040 bytes at 10 Mb/s): ns-3's disc hands
# each packet to the device's one-packet queue one transmission before it is sent, so its
# disciplines see delays (CoDel, PIE) and queues (RED) that much shorter than aqmsim's.
ONE_TX_S = 1040 * 8 / 10e6


def medium_congestion(kind: str) -> Dict[str, Any]:
    """RFC 7928 §8.2 medium congestion as the suite runs it (its `congestion-level` file,
    variant "medium"): 8 bulk flows, 10 Mb/s 25 ms bottleneck, 100 Mb/s 1 ms access and
    egress (base RTT 54 ms), a 45-packet buffer, 60 s, the discipline as the suite sets it."""
    from aqmsim.suite.spec import Suite

    suite = Suite.load("rfc7928", validate=False)
    sc = suite.scenario("congestion-level")
    (medium,) = [v for v in sc.variants_for(kind) if v.label == "medium"]
    return sc.scenario(medium, suite.disciplines[kind])


# ---------------------------------------------------------------------- translation (no ns-3)
def _with(data: Dict[str, Any], path: str, value: Any) -> Dict[str, Any]:
    return Scenario.from_dict(data).with_overrides(**{path: value}).to_dict()


@pytest.mark.parametrize("kind", DISCIPLINES + ("gentle",))
def test_medium_congestion_is_anchorable(kind):
    assert ns3_anchor.reason_not_anchorable(medium_congestion(kind)) is None


@pytest.mark.parametrize("path, value, words", [
    ("dumbbell.bottleneck.queue.kind", "ared", "'ared'"),
    ("dumbbell.bottleneck.queue.kind", "rtred", "'rtred'"),
    ("tcp.variant", "reno", "'reno'"),
    ("tcp.variant", "cubic", "Reno-friendly"),
    ("tcp.delayed_ack", True, "tcp.delayed_ack"),
    ("dumbbell.bottleneck.queue.bytes", True, "byte mode"),
    ("dumbbell.groups.0.app", "web", "web transfers"),
    ("dumbbell.groups.0.app", "onoff", "on/off"),
    ("dumbbell.bottleneck.rate_schedule", [["0s", "10Mb"]], "rate_schedule"),
])
def test_what_cannot_be_anchored_says_why(path, value, words):
    d = medium_congestion("red")
    if path.endswith("kind") and value != "red":
        d["dumbbell"]["bottleneck"]["queue"].pop("mean_pktsize")
    d = copy.deepcopy(d)
    node = d
    parts = path.split(".")
    for p in parts[:-1]:
        node = node[int(p)] if p.isdigit() else node[p]
    node[parts[-1]] = value
    reason = ns3_anchor.reason_not_anchorable(d)
    assert reason and words in reason and "\n" not in reason


def test_mixed_sack_and_newreno_is_refused():
    d = medium_congestion("codel")
    d["dumbbell"]["groups"].append({**d["dumbbell"]["groups"][0], "count": 1, "tcp": {"variant": "newreno"}})
    assert "SACK" in ns3_anchor.reason_not_anchorable(d)


def test_plan_carries_aqmsim_draws_and_groups():
    """Per-flow starts are aqmsim's draws for the seed; an RTT-fairness group keeps its own
    access delay, a CBR group becomes a cbr line with its wire size and rate, a cubic group
    with tcp_friendliness off its congestion control and initial window; RED gets the
    resolved automatic thresholds and the limit less the device's packet."""
    d = medium_congestion("red")
    d["dumbbell"]["groups"].append({"count": 1, "start": 0.5, "app": "cbr",
                                    "cbr": {"rate": "2Mb", "packet_size": 500},
                                    "access": {"rate": "100Mb", "delay": "1ms"},
                                    "egress": {"rate": "100Mb", "delay": "1ms"}})
    d["dumbbell"]["groups"].append({"count": 1, "start": 2.0, "stop": 30.0,
                                    "access": {"rate": "100Mb", "delay": "74ms"},
                                    "egress": {"rate": "100Mb", "delay": "1ms"},
                                    "tcp": {"variant": "cubic", "tcp_friendliness": False,
                                            "window_init": 10}})
    opts, lines, kinds = ns3_anchor._plan(d, 3)
    resolved = Scenario.from_dict({**d, "seed": 3}).validate()
    starts = [float(line.split()[1]) for line in lines]
    assert starts == [f["start"] for f in resolved["flows"]]
    assert kinds == ["tcp"] * 8 + ["cbr", "tcp"]
    assert lines[8].split()[0] == "cbr" and lines[8].split()[5:] == ["2000000.0", "500"]
    assert lines[9].split()[1:] == ["2.0", "30.0", "0.074", "0.001", "cubic", "10"]
    assert lines[0].split()[5:] == ["newreno", "3"]  # the suite's IW3
    q = resolved["links"][0]["queue"]
    assert (opts["minTh"], opts["maxTh"], opts["qw"], opts["limit"]) == (q["min_th"], q["max_th"], q["w_q"], 44)
    assert opts["bottleneck"] == "10000000bps" and opts["bottleneckDelay"] == "0.025s"
    assert opts["ns3::TcpSocketBase::Sack"] is True


def test_points_are_cached_by_what_ns3_runs(tmp_path, monkeypatch):
    """A second call with the same scenarios runs nothing; another seed runs again."""
    calls = []

    def fake_raw(opts, lines):
        calls.append(opts["seed"])
        n = len(lines)
        return {"flows": [1e6] * n, "bottleneck_arrivals": 100, "bottleneck_drops": 2,
                "utilisation": 0.9, "txdelay_mean_s": 0.01, "txdelay_p99_s": 0.02}

    monkeypatch.setattr(ns3_anchor, "_raw", fake_raw)
    monkeypatch.setattr(ns3_anchor, "_ns3_version", lambda: "test")
    monkeypatch.setattr(ns3ref, "build", lambda program="dumbbell": None)
    sc = [("medium | codel", medium_congestion("codel")), ("web", _with(medium_congestion("codel"), "dumbbell.groups.0.app", "web"))]
    first = ns3_anchor.points(sc, [1, 2], tmp_path, workers=2)
    assert sorted(calls) == [1, 2]
    assert list(first["key"]) == ["medium | codel"] * 2  # the web scenario is left out
    assert first["loss_ratio"].tolist() == [0.02, 0.02] and first["goodput_bps"].tolist() == [8e6, 8e6]
    assert first["tcp_goodput_bps"].tolist() == [8e6, 8e6]  # every flow of it is TCP
    again = ns3_anchor.points(sc, [1, 2, 3], tmp_path)
    assert sorted(calls) == [1, 2, 3]
    assert again.iloc[:2].equals(first)


def test_missing_ns3_names_make_ns3(monkeypatch, tmp_path):
    monkeypatch.setattr(ns3ref, "available", lambda: False)
    monkeypatch.setattr(ns3_anchor, "_version", {})
    with pytest.raises(ns3ref.Ns3NotFoundError, match="make ns3"):
        ns3_anchor.points([("m", medium_congestion("codel"))], [1], tmp_path)
    with pytest.raises(ns3ref.Ns3NotFoundError, match="make ns3"):
        ns3_anchor.run_point(medium_congestion("codel"), 1)


# ---------------------------------------------------------------------- agreement (ns-3)
@pytest.fixture(scope="module")
def ns3_points():
    """ns-3's points for every discipline, computed once (no cache between test runs)."""
    from aqmsim import ns3ref as _ref

    if not _ref.available():
        return None
    return ns3_anchor.points([(k, medium_congestion(k)) for k in DISCIPLINES], NS3_SEEDS,
                             cache_dir=None, workers=2)


@pytest.mark.usefixtures("ns3_required")
@pytest.mark.parametrize("kind", DISCIPLINES)
def test_medium_congestion_agrees_with_ns3(kind, ns3_points):
    ours = [Scenario.from_dict(medium_congestion(kind)).run(seed=s).summary for s in AQMSIM_SEEDS]
    theirs = ns3_points[ns3_points["key"] == kind]
    assert list(theirs["seed"]) == list(NS3_SEEDS)
    delay_a = statistics.fmean(r["mean_queueing_delay_s"] for r in ours)
    delay_b = float(theirs["mean_queueing_delay_s"].mean())
    good_a = statistics.fmean(r["goodput_bps"] for r in ours)
    good_b = float(theirs["goodput_bps"].mean())
    problems = []
    # docs/ns3-reference.md: one transmission time (the device's packet) + 15 % (the TCP
    # models' drop rates and four standard errors of the difference of the means)
    if abs(delay_a - delay_b) > ONE_TX_S + 0.15 * delay_b:
        problems.append(f"mean queueing delay: aqmsim {delay_a * 1e3:.2f} ms vs ns-3 {delay_b * 1e3:.2f} ms")
    if abs(good_a - good_b) > 0.02 * good_b:
        problems.append(f"goodput: aqmsim {good_a / 1e6:.3f} vs ns-3 {good_b / 1e6:.3f} Mb/s")
    assert not problems, f"{kind}: " + "; ".join(problems)
