"""Smoke test of the pktsize paper (De Cnodder et al., RED_1 … RED_5) at tiny scale: every
experiment runs for a few simulated seconds on two seeds, the analysis produces its tables,
figures and claims, and the claims follow the runs they are computed from."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pandas as pd
import pytest

from aqmsim.papers import get
from aqmsim.papers.base import Cell, Experiment, Runs
from aqmsim.papers.runner import run_one, tasks_of

DURATION = 4.0
SEEDS = [1, 2]


def shortened(e: Experiment) -> Experiment:
    groups = e.scenario.to_dict()["dumbbell"]["groups"]
    over = {"duration": DURATION}
    over.update({f"dumbbell.groups.{i}.stop": DURATION for i in range(len(groups))})
    return Experiment(e.key, e.scenario.with_overrides(**over), e.labels, e.keep, e.keep_first)


@pytest.fixture(scope="module")
def paper():
    return get("pktsize")


@pytest.fixture(scope="module")
def runs(core, paper) -> Runs:
    exps = [shortened(e) for e in paper.experiments()]
    assert len(exps) == 10
    records = [run_one(t) for t in tasks_of(exps, SEEDS)]
    return Runs(exps, records)


def claim(report, start: str):
    found = [c for c in report.claims if c.text.startswith(start)]
    assert len(found) == 1, f"no single claim starting with {start!r}"
    return found[0]


def test_scenarios_state_their_choices(paper):
    for e in paper.experiments():
        d = e.scenario.to_dict()
        assert d["tcp"]["variant"] == "sack" and d["tcp"]["tick"] == 0.2
        q = d["dumbbell"]["bottleneck"]["queue"]
        assert q["kind"] == e.labels["variant"] and q["max_pktsize"] == 1500
        mtus = sorted(g["tcp"]["packet_size"] + d["tcp"]["header"] for g in d["dumbbell"]["groups"])
        assert d["tcp"]["header"] == 0  # reading mtu=ns2-1999: the packet is the MTU
        assert mtus == [375, 750, 1500]
        assert all(g["count"] == 20 for g in d["dumbbell"]["groups"])
        assert {"window", "tick", "red_parameters", "mtu", "topology"} <= set(d["notes"])
        e.scenario.validate()
    assert len(paper.published()) == 70


def test_report_tables_figures_claims(paper, runs, tmp_path):
    rep = paper.analyse(runs, tmp_path)
    assert rep.tables and all(t.rows for t in rep.tables)
    t3 = rep.tables[0]
    assert len(t3.rows) == 8
    for row in t3.rows:
        cells = [c for c in row if isinstance(c, Cell)]
        assert len(cells) == 10
        for c in cells:
            assert not math.isnan(c.mean)
        if not str(row[1]).startswith("Sum"):
            assert all(c.published is not None for c in cells)
        else:  # the paper gives the summed goodput, not a summed PLR
            assert all(c.published is not None for c in cells[5:])
    assert rep.published_count()[1] == 70
    assert rep.figures
    for f in rep.figures:
        p = tmp_path / f.path
        assert p.exists(), f.path
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f.caption
    assert len(rep.claims) >= 8
    for c in rep.claims:
        assert isinstance(c.holds, bool)
        assert c.evidence and any(ch.isdigit() for ch in c.evidence)
    assert rep.assumptions and any("window" in a for a in rep.assumptions)


@pytest.fixture
def no_figures(paper, monkeypatch):
    """The claim tests below redo the analysis several times: skip drawing (the claims are
    computed exactly as in the full analysis)."""
    monkeypatch.setattr(paper, "_figures", lambda *a, **k: [])


def _copy_runs(runs: Runs) -> Runs:
    return Runs(list(runs.experiments.values()), [copy.deepcopy(r) for r in runs.records.values()])


def test_summed_goodput_claim_follows_the_summary(paper, runs, tmp_path, no_figures):
    text = "RED_2 gives the lowest summed goodput"
    r = _copy_runs(runs)
    for s in r.seeds("red2-low"):
        r.get("red2-low", s).summary["goodput_bps"] = 0.0
    assert claim(paper.analyse(r, tmp_path / "a"), text).holds is True
    for s in r.seeds("red2-low"):
        r.get("red2-low", s).summary["goodput_bps"] = 1e12
    assert claim(paper.analyse(r, tmp_path / "b"), text).holds is False


def _set_goodput(rec, per_group):
    f = rec.tables["flows"].copy()
    f["goodput_bps"] = f["label"].map(per_group).astype(float)
    rec.tables["flows"] = f


def test_fairness_claim_follows_the_flows(paper, runs, tmp_path, no_figures):
    text = "RED_5 gives the fairest goodput split"
    r = _copy_runs(runs)
    for v in ("red1", "red2", "red3", "red4"):
        for s in r.seeds(f"{v}-high"):
            _set_goodput(r.get(f"{v}-high", s), {"mtu375": 1e5, "mtu750": 2e5, "mtu1500": 4e5})
    for s in r.seeds("red5-high"):
        _set_goodput(r.get("red5-high", s), {"mtu375": 1e5, "mtu750": 1e5, "mtu1500": 1e5})
    assert claim(paper.analyse(r, tmp_path / "a"), text).holds is True
    for s in r.seeds("red5-high"):
        _set_goodput(r.get("red5-high", s), {"mtu375": 1e5, "mtu750": 0.0, "mtu1500": 0.0})
    assert claim(paper.analyse(r, tmp_path / "b"), text).holds is False


def test_loss_ratio_claim_follows_the_drops(paper, runs, tmp_path, no_figures):
    text = "RED_1: the loss ratio is about the same"

    def rig(r: Runs, drops_per_flow) -> None:
        for d in ("low", "high"):
            for s in r.seeds(f"red1-{d}"):
                rec = r.get(f"red1-{d}", s)
                f = rec.tables["flows"].copy()
                f["queue_arrivals"] = 1010
                f["queue_drops"] = [drops_per_flow(label) for label in f["label"]]
                rec.tables["flows"] = f

    r = _copy_runs(runs)
    rig(r, lambda label: 10)  # 10 drops per 1010 arrivals in every group
    c = claim(paper.analyse(r, tmp_path / "a"), text)
    assert c.holds is True and "0.99" in c.evidence
    rig(r, lambda label: 40 if label == "mtu1500" else 10)
    assert claim(paper.analyse(r, tmp_path / "b"), text).holds is False


# --------------------------------------------------------------------------- readings
from aqmsim.papers.readings import apply_variant, check_variant, variants  # noqa: E402

EXPECTED_PRIMARY = {
    "mtu": "ns2-1999", "red_params": "ns2-1999", "queue_units": "packets", "gentle": "off",
    "wait": "fj93", "window": "unlimited", "delack": "off", "tcp_start": "ns2-1999",
    "M": "max-1500", "access": "100M-1ms", "duration": "100s",
}


def _applied(paper, name):
    choices = paper.readings()
    v = next(v for v in variants(choices) if v.name == name)
    return {e.key: e.scenario.to_dict() for e in apply_variant(paper.experiments(), choices, v)}


def test_readings_cover_the_open_choices(paper):
    choices = paper.readings()
    assert {c.name for c in choices} == set(EXPECTED_PRIMARY)
    for c in choices:
        assert len(c.readings) >= 2, c.name
        for r in c.readings:
            assert r.why and r.label
        # no published number determines a parameter of this paper
        assert all(r.source != "derived" and not r.uses and not r.arithmetic
                   for r in c.readings)
    assert {c.name: c.primary.name for c in choices} == EXPECTED_PRIMARY
    # the ns-2 readings the text rules out, and the quotation that does
    by = {c.name: c for c in choices}
    assert "count · p_b" in by["wait"].reading("ns2-wait").excluded
    assert "TCP goodput estimation" in by["window"].reading("ns2-20").excluded
    assert "maximum packet" in by["M"].reading("ns2-mean-500").excluded
    for name in ("mtu", "red_params", "queue_units", "gentle", "delack", "tcp_start"):
        assert by[name].primary.source == "ns2", name


def test_primary_reading_is_the_scenario_files(paper):
    choices = paper.readings()
    exps = paper.experiments()
    prim = apply_variant(exps, choices, variants(choices)[0])
    for a, b in zip(exps, prim):
        assert a.scenario.to_dict() == b.scenario.to_dict(), a.key


def test_every_variant_validates_and_the_budget_holds(paper):
    choices = paper.readings()
    exps = paper.experiments()
    base = {e.key: e.scenario.to_dict() for e in exps}
    runs = len(exps) * paper.default_seeds
    for v in variants(choices)[1:]:
        ex = apply_variant(exps, choices, v)
        check_variant(ex, v)
        changed = [e for e in ex if e.scenario.to_dict() != base[e.key]]
        assert changed, f"{v.name} changes no scenario"
        runs += len(changed) * paper.reading_seeds
    # ~0.2 CPU-s per 100 s run on this machine: ~30 s of the 2-minute budget on 2 cores
    assert runs <= 320, runs


def test_readings_set_the_values_by_hand(paper):
    prim = _applied(paper, "primary")
    d = prim["red3-low"]
    assert d["tcp"]["header"] == 0
    assert sorted(g["tcp"]["packet_size"] for g in d["dumbbell"]["groups"]) == [375, 750, 1500]
    assert (d["tcp"]["window"], d["tcp"]["window_init"], d["tcp"]["syn"]) == (10000, 1, False)
    q = d["dumbbell"]["bottleneck"]["queue"]
    assert (q["min_th"], q["max_th"], q["max_p"], q["w_q"]) == (5, 15, 0.1, 0.002)
    assert (q["gentle"], q["wait"], q["queue_in_bytes"]) == (False, False, False)
    assert q["max_pktsize"] == 1500

    ip = _applied(paper, "mtu=ip-mtu")["red3-low"]
    # payload = MTU - 40: 375 - 40 = 335, 750 - 40 = 710, 1500 - 40 = 1460
    assert ip["tcp"]["header"] == 40 and ip["tcp"]["packet_size"] == 1460
    assert sorted(g["tcp"]["packet_size"] for g in ip["dumbbell"]["groups"]) == [335, 710, 1460]

    qb = _applied(paper, "queue_units=bytes-M")["red3-low"]["dumbbell"]["bottleneck"]["queue"]
    # thresholds and buffer in units of M: 5 x 1500 = 7500, 15 x 1500 = 22500, 50 x 1500 = 75000 B
    assert qb["queue_in_bytes"] is True and qb["mean_pktsize"] == 1500
    assert (qb["min_th"] * qb["mean_pktsize"], qb["max_th"] * qb["mean_pktsize"],
            qb["limit"] * qb["mean_pktsize"]) == (7500, 22500, 75000)

    fj = _applied(paper, "red_params=fj93")["red1-high"]["dumbbell"]["bottleneck"]["queue"]
    assert fj["max_p"] == pytest.approx(1 / 50)

    m500 = _applied(paper, "M=ns2-mean-500")
    assert m500["red1-low"] == prim["red1-low"]  # RED_1 has no M: not re-run
    assert m500["red5-low"]["dumbbell"]["bottleneck"]["queue"]["max_pktsize"] == 500

    short = _applied(paper, "duration=50s")["red2-high"]
    assert short["duration"] == "50s"
    assert all(g["stop"] == "50s" for g in short["dumbbell"]["groups"])

    direct = _applied(paper, "access=direct")["red2-high"]
    assert all(g["access"]["delay"] == "0ms" and g["egress"]["rate"] == "1Gb"
               for g in direct["dumbbell"]["groups"])

    ns2 = _applied(paper, "ns2-as-typed")["red4-low"]
    q = ns2["dumbbell"]["bottleneck"]["queue"]
    assert (ns2["tcp"]["window"], q["wait"], q["max_pktsize"]) == (20, True, 500)


def test_analyse_without_figures(paper, runs, tmp_path):
    with paper.figures_off():
        rep = paper.analyse(runs, tmp_path)
    assert rep.figures == []
    assert not list(tmp_path.glob("*.png"))
    assert rep.published_count()[1] == 70
    assert not any(c.input for c in rep.cells())
    assert len(rep.claims) == 11
