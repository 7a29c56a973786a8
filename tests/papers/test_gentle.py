"""Smoke test of paper 003 (gentle): its experiments at tiny scale, the report's shape, and
claims that follow the runs."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pytest

from aqmsim.papers import get
from aqmsim.papers.base import Cell, Runs
from aqmsim.papers.runner import run_one, tasks_of

PNG = b"\x89PNG\r\n\x1a\n"
DURATION = 3.0
SEEDS = [1, 2]


def _short(exp, duration=DURATION):
    d = exp.scenario.to_dict()
    d["duration"] = duration
    for f in d["flows"]:
        f["stop"] = duration
    sc = exp.scenario.with_overrides(duration=duration, flows=d["flows"])
    return replace(exp, scenario=sc)


@pytest.fixture(scope="module")
def paper(core):
    return get("gentle")


@pytest.fixture(scope="module")
def runs(paper):
    exps = [_short(e) for e in paper.experiments()]
    return Runs(exps, [run_one(t) for t in tasks_of(exps, SEEDS)])


@pytest.fixture(scope="module")
def report(paper, runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("gentle")
    return paper.analyse(runs, out), out


def test_experiments_cover_both_scenarios_and_four_disciplines(paper):
    exps = paper.experiments()
    assert len(exps) == 8
    kinds = {(e.labels["scenario"], e.labels["kind"]) for e in exps}
    assert kinds == {(n, k) for n in (1, 2) for k in ("droptail", "red", "gentle", "ared")}
    for e in exps:
        q = e.scenario.to_dict()["links"][2]["queue"]
        assert q["kind"] == e.labels["kind"]
        if q["kind"] == "red":
            assert q["gentle"] is False
        e.scenario.validate()


def test_published_numbers(paper):
    pub = paper.published()
    assert len(pub) == 32
    assert set(pub.strategy) == {"ARED", "DT", "RED", "GRED"}
    assert float(pub[(pub.scenario == 1) & (pub.strategy == "ARED")
                     & (pub.metric == "throughput")].value.iloc[0]) == 12367


def test_tables_have_rows_and_published_values(report):
    rep, _ = report
    assert len(rep.tables) >= 2
    for t in rep.tables:
        assert t.rows, t.title
        for row in t.rows:
            assert len(row) == len(t.columns), t.title
    for t in rep.tables[:2]:  # Tables IV and V: every cell carries the paper's number
        for row in t.rows:
            cells = [c for c in row if isinstance(c, Cell)]
            assert len(cells) == 4
            assert all(c.published is not None for c in cells)
            assert all(c.mean == c.mean for c in cells)  # not NaN


def test_figures_are_pngs(report):
    rep, out = report
    assert len(rep.figures) >= 8
    for f in rep.figures:
        p = Path(out) / f.path
        assert p.exists(), f.path
        assert p.read_bytes()[:8] == PNG, f.path
        assert f.caption


def test_claims_have_verdicts_and_evidence(report):
    rep, _ = report
    assert len(rep.claims) >= 6
    for c in rep.claims:
        assert isinstance(c.holds, bool)
        assert isinstance(c.evidence, str) and c.evidence
    assert rep.assumptions


def _with_summary(runs: Runs, key: str, metric: str, value: float) -> Runs:
    new = Runs(list(runs.experiments.values()), [])
    new.records = {k: copy.deepcopy(r) for k, r in runs.records.items()}
    for (k, _), rec in new.records.items():
        if k == key:
            rec.summary[metric] = value
    return new


def _claim(claims, start: str):
    if hasattr(claims, "claims"):
        claims = claims.claims
    (c,) = [c for c in claims if c.text.startswith(start)]
    return c


def test_claims_follow_the_runs(paper, runs, report):
    rep, _ = report
    # the claims analyse() reports are the ones _claims() computes from the runs ...
    assert [(c.text, c.holds) for c in paper._claims(runs)] == \
        [(c.text, c.holds) for c in rep.claims]
    # ... and they move when a run's summary does
    text = "Scenario 2: DropTail has the largest queueing"
    slow = paper._claims(_with_summary(runs, "s2-droptail", "mean_queueing_delay_s", 1.0))
    fast = paper._claims(_with_summary(runs, "s2-droptail", "mean_queueing_delay_s", 0.0))
    assert _claim(slow, text).holds is True
    assert _claim(fast, text).holds is False
    assert "1000.00 ms" in _claim(slow, text).evidence

    text = "Scenario 2: Gentle RED's average queue never reaches"
    forced = paper._claims(_with_summary(runs, "s2-gentle", "drops_forced", 5))
    assert _claim(forced, text).holds is False
    assert "forced drops (avg above 2·max_th at an arrival): 10" in _claim(forced, text).evidence

    text = "Scenario 1: ARED has the highest throughput"
    low = paper._claims(_with_summary(runs, "s1-ared", "bottleneck_arrivals", 0))
    assert _claim(low, text).holds is False
