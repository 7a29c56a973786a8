"""Smoke test of paper 001 (QRTRED) at tiny scale: 30 s instead of 100 s, two seeds."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from aqmsim.papers import Cell, Experiment, Runs, get
from aqmsim.papers.runner import run_one, tasks_of

DURATION = 30.0  # covers the first light-load period (0-20 s) and the two-flow period
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def paper():
    return get("qrtred")


@pytest.fixture(scope="module")
def runs(paper) -> Runs:
    exps = [Experiment(e.key, e.scenario.with_overrides(duration=DURATION), e.labels,
                       e.keep, e.keep_first) for e in paper.experiments()]
    records = [run_one(t) for t in tasks_of(exps, SEEDS)]
    return Runs(exps, records)


@pytest.fixture(scope="module")
def report(paper, runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("qrtred")
    return paper.analyse(runs, out), out


def test_experiments_and_scenarios(paper):
    keys = [e.key for e in paper.experiments()]
    assert {"red_5_15", "red_10_40", "qrtred"} <= set(keys)
    for e in paper.experiments():
        e.scenario.validate()  # every scenario is accepted by the engine
        assert e.scenario.to_dict()["notes"], e.key
    q = paper.scenario("qrtred.toml").to_dict()["dumbbell"]["bottleneck"]["queue"]
    assert q["kind"] == "qrtred" and q["limit"] == 100
    pub = paper.published()
    assert len(pub) == 6 and set(pub["metric"]) == {"avg_utilisation", "total_drops"}


def test_tables_have_rows_and_published_values(report):
    rep, _ = report
    assert rep.tables
    for t in rep.tables:
        assert t.rows, t.title
        for row in t.rows:
            assert len(row) == len(t.columns), t.title
    table1 = rep.tables[0]
    assert table1.title.startswith("Table 1")
    assert len(table1.rows) == 3
    published = {(91.14, 1720), (93.36, 1367), (94.51, 1136)}
    got = set()
    for row in table1.rows:
        util, drops = row[1], row[2]
        assert isinstance(util, Cell) and isinstance(drops, Cell)
        assert util.published is not None and drops.published is not None
        assert 0 < util.mean <= 100 and drops.mean >= 0
        got.add((util.published, drops.published))
    assert got == published
    assert rep.published_count()[1] == 6


def test_figures_are_pngs(report):
    rep, out = report
    assert len(rep.figures) >= 3
    for f in rep.figures:
        p = Path(out) / f.path
        assert p.exists(), f.path
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f.path
        assert f.caption


def test_claims_have_verdicts_and_evidence(report):
    rep, _ = report
    assert len(rep.claims) >= 8
    for c in rep.claims:
        assert isinstance(c.holds, bool)
        assert c.text and c.evidence
    assert rep.assumptions and any("mean_pktsize" in a for a in rep.assumptions)


def _claim(rep, start: str):
    [c] = [c for c in rep.claims if c.text.startswith(start)]
    return c


def test_claims_are_computed_from_the_runs(paper, runs, tmp_path):
    text = "QRTRED drops fewer packets than RED with default values"
    verdicts = []
    for drops in (0, 10**6):
        r = copy.deepcopy(runs)
        for s in r.seeds("qrtred"):
            r.get("qrtred", s).summary["bottleneck_drops"] = drops
        c = _claim(paper.analyse(r, tmp_path / f"d{drops}"), text)
        verdicts.append(c.holds)
        assert f"{drops:.0f}" in c.evidence
    assert verdicts == [True, False]

    # the light-load claim is computed from the kept utilisation series
    text = "In the light-load periods (0-20 s and 50-60 s, one flow) QRTRED's utilisation " \
           "is noticeably higher than RED (5, 15)'s"
    verdicts = []
    for u in (1.0, 0.0):
        r = copy.deepcopy(runs)
        for s in r.seeds("qrtred"):
            r.get("qrtred", s).tables["links"]["utilisation"] = u
        verdicts.append(_claim(paper.analyse(r, tmp_path / f"u{u}"), text).holds)
    assert verdicts == [True, False]
