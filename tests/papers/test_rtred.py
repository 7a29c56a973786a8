"""Smoke test of the RTRED paper (seed 000) at tiny scale: short runs, two seeds."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pytest

from aqmsim.papers import Cell, get
from aqmsim.papers.rtred import PAPER, PAPER_STRATEGIES, SCENARIOS, STRATEGIES, RtredPaper, key
from aqmsim.papers.runner import run_paper

DURATION = 8.0
SEEDS = [1, 2]


class TinyRtred(RtredPaper):
    """The paper with every run shortened to a few simulated seconds."""

    @property
    def directory(self) -> Path:
        return PAPER.directory

    def experiments(self):
        return [replace(e, scenario=e.scenario.with_overrides(
            duration=DURATION, **{"dumbbell.groups.0.stop": DURATION}))
            for e in super().experiments()]


@pytest.fixture(scope="module")
def tiny(core):
    paper = TinyRtred()
    runs = run_paper(paper, SEEDS, workers=1)
    return paper, runs


def test_registered():
    assert get("rtred") is PAPER
    assert PAPER.default_seeds >= 2
    keys = [e.key for e in PAPER.experiments()]
    assert keys == [key(s, k) for s in SCENARIOS for k in STRATEGIES]


def test_scenarios_follow_table_1(core):
    t1 = PAPER.table1()
    for e in PAPER.experiments():
        s, k = e.labels["scenario"], e.labels["strategy"]
        q = e.scenario["dumbbell.bottleneck.queue"]
        assert q["kind"] == k
        assert (q["min_th"], q["max_th"], q["max_p"], q["limit"]) == (
            t1[s]["min_th"], t1[s]["max_th"], t1[s]["max_p"], t1[s]["buffer"])
        if k == "rtred":
            assert q["risk_th"] == t1[s]["risk_th"]
        assert e.scenario["tcp.packet_size"] == 552
        assert e.scenario["dumbbell.groups.0.count"] == 6
        assert e.scenario.to_dict()["notes"], "every choice is explained in [notes]"
        e.scenario.validate()


def test_report(tiny, tmp_path):
    paper, runs = tiny
    rep = paper.analyse(runs, tmp_path)
    assert rep.seeds == SEEDS

    # tables: rows, and published values beside ours where the paper gave one
    assert rep.tables
    for t in rep.tables:
        assert t.rows, t.title
        for row in t.rows:
            assert len(row) == len(t.columns), t.title
    t2 = rep.tables[0]
    assert t2.title.startswith("Table II")
    assert len(t2.rows) == len(SCENARIOS) * len(STRATEGIES)
    pub = paper.published()
    for row in t2.rows:
        cells = [c for c in row if isinstance(c, Cell)]
        assert len(cells) == 4
        if "extra" in row[1]:
            assert all(c.published is None for c in cells)
        else:
            assert all(c.published is not None for c in cells)
    first = t2.rows[0][2]
    assert first.published == float(pub[(pub["table"] == "II") & (pub["scenario"] == 1)
                                         & (pub["strategy"] == "red")
                                         & (pub["metric"] == "avg_queue_pkts")]["value"].iloc[0])
    assert sum(1 for c in rep.cells() if c.published is not None) == 36

    # figures: every file exists and is a PNG
    assert len(rep.figures) == 2 + 6
    for f in rep.figures:
        p = tmp_path / f.path
        assert p.exists(), f.path
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f.path
        assert f.caption

    # claims: a verdict and evidence each
    assert len(rep.claims) >= 8
    for c in rep.claims:
        assert isinstance(c.holds, bool), c.text
        assert c.evidence and any(ch.isdigit() for ch in c.evidence), c.text

    assert rep.assumptions and any("duration" in a for a in rep.assumptions)


def _verdicts(paper, runs, out, prefixes):
    rep = paper.analyse(runs, out)
    out = []
    for prefix in prefixes:
        (claim,) = [c for c in rep.claims if c.text.startswith(prefix)]
        out.append(claim.holds)
    return out


def test_claims_are_computed_from_runs(tiny, tmp_path):
    """Editing summaries in the Runs object flips the verdicts of the claims that use them."""
    paper, runs = tiny
    runs = copy.deepcopy(runs)
    prefixes = ("RTRED loses fewer packets", "RTRED keeps a larger average queue")
    for s in SCENARIOS:
        for k in PAPER_STRATEGIES:
            for seed in SEEDS:
                summ = runs.get(key(s, k), seed).summary
                summ["bottleneck_drops"] = 0 if k == "rtred" else 100
                summ["time_avg_queue_pkts"] = 50.0 if k == "rtred" else 1.0
    assert _verdicts(paper, runs, tmp_path / "a", prefixes) == [True, True]
    for seed in SEEDS:
        runs.get(key(2, "rtred"), seed).summary["bottleneck_drops"] = 10**9
    runs.get(key(1, "rtred"), SEEDS[0]).summary["time_avg_queue_pkts"] = -1000.0
    assert _verdicts(paper, runs, tmp_path / "b", prefixes) == [False, False]
