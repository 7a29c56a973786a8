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
                f["received"] = 1000
                rec.tables["flows"] = f
                rows = []
                for flow, label in zip(f["flow"], f["label"]):
                    rows += [{"t": 1.0, "link": "R1->R2", "flow": int(flow), "reason": "early",
                              "action": "drop", "qlen_pkts": 10}] * drops_per_flow(label)
                rec.tables["drops"] = pd.DataFrame(rows)

    r = _copy_runs(runs)
    rig(r, lambda label: 10)  # 10 drops per 1010 arrivals in every group
    c = claim(paper.analyse(r, tmp_path / "a"), text)
    assert c.holds is True and "0.99" in c.evidence
    rig(r, lambda label: 40 if label == "mtu1500" else 10)
    assert claim(paper.analyse(r, tmp_path / "b"), text).holds is False
