"""Smoke test of paper 004 (mark-front): a tiny version of the whole reproduction (two
thresholds, 3-second runs, two seeds) through the runner and the analysis."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

from aqmsim.papers import get
from aqmsim.papers.base import Cell, Runs
from aqmsim.papers.markfront import PAPER, MarkFrontPaper, key
from aqmsim.papers.runner import run_paper

PNG = b"\x89PNG\r\n\x1a\n"


class SmallMarkFront(MarkFrontPaper):
    """Two thresholds and 3-second runs."""

    t_grid = (5, 40)

    @property
    def directory(self) -> Path:
        return PAPER.directory

    def experiments(self):
        return [dataclasses.replace(e, scenario=e.scenario.with_overrides(duration=3))
                for e in super().experiments()]


@pytest.fixture(scope="module")
def small(core):
    paper = SmallMarkFront()
    runs = run_paper(paper, [1, 2], workers=1)
    return paper, runs


@pytest.fixture(scope="module")
def report(small, tmp_path_factory):
    paper, runs = small
    out = tmp_path_factory.mktemp("markfront")
    return paper.analyse(runs, out), out


def claim(claims, start: str):
    """The one claim whose text starts with ``start`` (from a Report or a list of claims)."""
    claims = getattr(claims, "claims", claims)
    found = [c for c in claims if c.text.startswith(start)]
    assert len(found) == 1, [c.text for c in claims]
    return found[0]


def test_registered_and_scenarios_valid(core):
    assert get("markfront") is PAPER
    exps = PAPER.experiments()
    assert len(exps) == 9 * 2 * len(PAPER.t_grid)
    for e in exps[:: 2 * len(PAPER.t_grid)]:
        resolved = e.scenario.validate()
        q = [ln for ln in resolved["links"] if ln["from"] == "R1" and ln["to"] == "R2"][0]["queue"]
        assert q["kind"] == "ecn_threshold"
        assert e.scenario.to_dict()["notes"], e.key
    pub = PAPER.published()
    assert {"figure", "scenario", "strategy", "T", "value"} <= set(pub.columns)
    assert len(pub) > 0


def test_report(report):
    report, out = report
    assert report.tables
    for t in report.tables:
        assert t.rows, t.title
        assert all(len(r) == len(t.columns) for r in t.rows), t.title
    fig3 = report.tables[0]
    assert fig3.title.startswith("Fig. 3")
    # the measured columns carry the published line beside them; the last is tail − front
    cells = [c for r in fig3.rows for c in r[2:4]]
    assert cells and all(isinstance(c, Cell) and c.published is not None for c in cells)
    assert all(isinstance(r[4], Cell) and r[4].published is None for r in fig3.rows)
    # the published lines: 2T + rd - 1 and T + rd with rd = 0.059 * 1.5e6 / 8320
    rd = 0.059 * 1.5e6 / 8320
    row = next(r for r in fig3.rows if r[0].startswith("1:") and r[1] == 40)
    assert row[2].published == pytest.approx(80 + rd - 1, abs=1e-3)
    assert row[3].published == pytest.approx(40 + rd, abs=1e-3)
    assert report.figures
    for f in report.figures:
        p = out / f.path
        assert p.exists(), f.path
        assert p.read_bytes()[:8] == PNG, f.path
    assert len(report.claims) >= 10
    for c in report.claims:
        assert isinstance(c.holds, bool), c.text
        assert c.evidence.strip(), c.text
    assert report.assumptions


def test_claims_are_computed_from_runs(small, report):
    paper, runs = small
    report, _ = report
    text = "Mark-front needs a smaller buffer"
    front_keys = [k for k in runs.experiments if "-mark_front-" in k]

    def with_front_maxq(value):
        records = [copy.deepcopy(r) for r in runs.records.values()]
        for r in records:
            if r.key in front_keys:
                r.summary["max_queue_pkts"] = value
        return Runs(list(runs.experiments.values()), records)

    # claims() is what analyse() reports, without drawing the figures
    assert [(c.text, c.holds, c.evidence) for c in paper.claims(runs)] == \
        [(c.text, c.holds, c.evidence) for c in report.claims]
    huge = paper.claims(with_front_maxq(10**6))
    zero = paper.claims(with_front_maxq(0))
    assert claim(huge, text).holds is False
    assert claim(zero, text).holds is True
    assert claim(huge, text).evidence != claim(zero, text).evidence

    # the limited-buffer efficiency claim follows the summaries' goodput
    eff = "With a limited buffer (25 packets, scenarios 5 and 8) mark-front has higher link"
    records = [copy.deepcopy(r) for r in runs.records.values()]
    for r in records:
        if r.key.startswith(("s5-mark_tail", "s8-mark_tail")):
            r.summary["bottleneck_drops"] = 5
            r.summary["goodput_bps"] = 0.0
    low_tail = paper.claims(Runs(list(runs.experiments.values()), records))
    assert claim(low_tail, eff).holds is True
    records = [copy.deepcopy(r) for r in runs.records.values()]
    for r in records:
        if r.key.startswith(("s5-mark_front", "s8-mark_front")):
            r.summary["goodput_bps"] = 0.0
        if r.key.startswith(("s5-mark_tail", "s8-mark_tail")):
            r.summary["bottleneck_drops"] = 5
    low_front = paper.claims(Runs(list(runs.experiments.values()), records))
    assert claim(low_front, eff).holds is False
    assert key("5", "mark_tail", 40) in runs.experiments
