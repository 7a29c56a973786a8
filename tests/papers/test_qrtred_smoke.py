"""Smoke test of paper 001 (qrtred) at tiny scale: the report's shape, published values
beside our cells, PNG figures, and claims computed from the runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from aqmsim.papers import get
from aqmsim.papers.base import Cell, Runs
from aqmsim.papers.runner import run_one, tasks_of

PNG = b"\x89PNG\r\n\x1a\n"
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def paper(core):
    return get("qrtred")


@pytest.fixture(scope="module")
def runs(paper):
    # The paper's schedule needs the whole 100 s (flows join at 20, 40, 60, 80 s), but the
    # scenario is small (a 1-flow to 20-flow dumbbell): the main experiments only, 2 seeds.
    exps = [e for e in paper.experiments() if e.key in ("red_5_15", "red_10_40", "qrtred")]
    exps_all = paper.experiments()
    recs = [run_one(t) for t in tasks_of(exps, SEEDS)]
    # the sensitivity experiments run on one seed
    others = [e for e in exps_all if e not in exps]
    recs += [run_one(t) for t in tasks_of(others, SEEDS)]
    return Runs(exps_all, recs)


@pytest.fixture(scope="module")
def report(paper, runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("qrtred")
    return paper.analyse(runs, out), out


def test_every_scenario_validates(paper):
    for e in paper.experiments():
        e.scenario.validate()


def test_table1_carries_the_published_numbers(report):
    rep, _ = report
    assert rep.tables and rep.tables[0].rows
    cells = [c for row in rep.tables[0].rows for c in row if isinstance(c, Cell)]
    published = sorted(c.published for c in cells if c.published is not None)
    assert published == sorted([91.14, 1720, 93.36, 1367, 94.51, 1136])
    assert all(c.mean == c.mean for c in cells)


def test_figures_are_pngs(report):
    rep, out = report
    assert rep.figures
    for f in rep.figures:
        assert (out / f.path).read_bytes()[:8] == PNG, f.path


def test_claims_follow_the_runs(paper, runs, tmp_path):
    rep = paper.analyse(runs, tmp_path / "a")
    assert rep.claims and all(isinstance(c.holds, bool) and c.evidence for c in rep.claims)
    first = rep.claims[0]  # QRTRED drops fewer packets than RED (5, 15)
    assert "QRTRED drops fewer" in first.text
    # make QRTRED drop far more than anyone: the claim must fail; far less: it must hold
    for factor, expect in ((1000.0, False), (0.0, True)):
        recs = []
        for (k, s), r in runs.records.items():
            if k == "qrtred":
                r = replace(r, summary={**r.summary, "bottleneck_drops": r.summary["bottleneck_drops"] * factor})
            recs.append(r)
        rep2 = paper.analyse(Runs(list(runs.experiments.values()), recs), tmp_path / f"b{factor}")
        assert rep2.claims[0].holds is expect
