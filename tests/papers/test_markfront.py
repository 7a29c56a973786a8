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
    # the published lines: 2T + rd - 1 and T + rd with the paper's r = 59 ms and d = 1.5 Mb/s
    # in 1000-byte packets: rd = 0.059 * 1.5e6 / 8000 = 11.0625
    rd = 0.059 * 1.5e6 / 8000
    assert rd == pytest.approx(11.0625)
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


# ------------------------------------------------------------------------------- readings
from aqmsim.papers.markfront import readings as R  # noqa: E402
from aqmsim.papers.readings import (PRIMARY, apply_variant, check_variant,  # noqa: E402
                                    variant_named, variants)


def _by_key(exps):
    return {e.key: e for e in exps}


def test_choices_cover_the_open_points():
    choices = PAPER.readings()
    names = [c.name for c in choices]
    assert names == ["window", "opening", "recovery", "packet", "delays", "start", "buffer",
                     "limit25"]
    # (a question and two or more readings each, labelled and argued: tests/test_readings.py)
    prim = {c.name: (c.primary.name, c.primary.source) for c in choices}
    # the rule: derived > ns2 > textbook > text, skipping readings the text excludes
    assert prim == {
        "window": ("large", "text"),          # ns-2's window_ 20 is excluded by assumption 1
        "opening": ("nosyn-iw1", "ns2"),
        "recovery": ("ns2-2.1b6", "ns2"),
        "packet": ("wire1000", "ns2"),
        "delays": ("r59", "derived"),
        "start": ("exact", "ns2"),
        "buffer": ("large", "text"),          # ns-2's limit_ 50 is excluded by §6.1
        "limit25": ("droptail24", "ns2"),
    }
    excluded = {(c.name, r.name) for c in choices for r in c.readings if r.excluded}
    assert excluded == {("window", "ns2-20"), ("opening", "syn-iw2"), ("buffer", "ns2-50")}
    # the derived reading shows its arithmetic and names the published numbers it uses
    d = R.DELAYS.reading("r59")
    assert "2.947333" in d.arithmetic and "11.06" in d.arithmetic and d.uses


def test_primary_variant_is_the_scenario_files():
    choices = PAPER.readings()
    exps = PAPER.experiments()
    prim = variants(choices)[0]
    assert prim.name == PRIMARY
    out = apply_variant(exps, choices, prim)
    for e, p in zip(exps, out):
        assert p.key == e.key
        assert p.scenario.to_dict() == e.scenario.to_dict(), e.key


def test_every_variant_validates_and_changes_what_it_should(core):
    choices = PAPER.readings()
    exps = PAPER.experiments()
    base = _by_key(exps)
    names = [v.name for v in variants(choices)]
    assert names[0] == PRIMARY and "ns2-as-typed" in names and "textbook" in names
    for v in variants(choices):
        out = apply_variant(exps, choices, v)
        check_variant(out, v)
    # buffer and limit25 touch only their own scenarios
    for name, scns in (("buffer=ns2-50", R.LARGE_BUFFER), ("limit25=wait25", R.LIMITED_BUFFER)):
        out = apply_variant(exps, choices, variant_named(choices, name))
        changed = {e.labels["scenario"] for e in out
                   if e.scenario.to_dict() != base[e.key].scenario.to_dict()}
        assert changed == set(scns), name
    # ns2-as-typed: window 20, the 49-packet buffer, whole-millisecond delays
    out = _by_key(apply_variant(exps, choices, variant_named(choices, "ns2-as-typed")))
    d = out[key("7", "mark_tail", 20)].scenario.to_dict()
    assert d["tcp"]["window"] == 20
    assert d["dumbbell"]["bottleneck"]["queue"]["limit"] == 49
    assert [g["access"]["delay"] for g in d["dumbbell"]["groups"]] == \
        ["3ms", "7ms", "42ms", "52ms", "102ms"]
    assert out[key("5", "mark_tail", 20)].scenario.to_dict()[
        "dumbbell"]["bottleneck"]["queue"]["limit"] == 24


def test_derived_delays_and_rd_by_hand():
    exps = _by_key(PAPER.experiments())
    s1 = exps[key("1", "mark_tail", 20)].scenario.to_dict()
    # serialisation: data 2*8000/10e6 + 8000/1.5e6 = 6.9333 ms, ACK 2*320/10e6 + 320/1.5e6
    # = 0.27733 ms; (59 - 40 - 7.2107) / 4 = 2.947333 ms
    ser = 2 * 8000 / 10e6 + 8000 / 1.5e6 + 2 * 320 / 10e6 + 320 / 1.5e6
    assert ser == pytest.approx(7.210667e-3, abs=1e-9)
    assert R.derived_access_delay(s1) == pytest.approx((0.059 - 0.040 - ser) / 4)
    assert R.derived_access_delay(s1) == pytest.approx(2.947333e-3, abs=1e-9)
    assert s1["dumbbell"]["groups"][0]["access"]["delay"] == "2.947333ms"
    assert R.base_rtt(s1) == pytest.approx(0.059, abs=1e-8)
    assert R.wire_bytes(s1) == 1000 and R.bottleneck_pps(s1) == pytest.approx(187.5)
    from aqmsim.papers.markfront import scenario_rd
    assert scenario_rd(s1)[0] == pytest.approx(0.059 * 187.5, abs=1e-5)  # 11.0625
    # the stated RTTs of scenarios 7 and 4 and the 99 ms variant
    s7 = exps[key("7", "mark_tail", 20)].scenario.to_dict()
    rtts = [R.base_rtt(s7, i) * 1e3 for i in range(5)]
    assert rtts == pytest.approx([59, 67, 137, 157, 257], abs=1e-5)
    s4 = exps[key("4", "mark_tail", 20)].scenario.to_dict()
    assert [R.base_rtt(s4, i) * 1e3 for i in range(2)] == pytest.approx([59, 157], abs=1e-5)
    s99 = exps[key("1r99", "mark_tail", 20)].scenario.to_dict()
    assert R.base_rtt(s99) * 1e3 == pytest.approx(99, abs=1e-5)
    # with 1040-byte packets the derived delay is 2.878 ms (7.488 ms of serialisation)
    choices = PAPER.readings()
    out = _by_key(apply_variant([exps[key("1", "mark_tail", 20)]], choices,
                                variant_named(choices, "packet=payload1000")))
    d = out[key("1", "mark_tail", 20)].scenario.to_dict()
    assert R.wire_bytes(d) == 1040
    assert R.seconds(d["dumbbell"]["groups"][0]["access"]["delay"]) == \
        pytest.approx((0.059 - 0.040 - 7.488e-3) / 4, abs=2e-9)
    assert R.base_rtt(d) == pytest.approx(0.059, abs=1e-8)
    # whole milliseconds: r = 52 ms + 7.2107 ms
    out = _by_key(apply_variant([exps[key("1", "mark_tail", 20)]], choices,
                                variant_named(choices, "delays=int3ms")))
    d = out[key("1", "mark_tail", 20)].scenario.to_dict()
    assert R.base_rtt(d) == pytest.approx(0.052 + ser, abs=1e-9)
    # the jitter reading: one bottleneck packet time, 8000 / 1.5e6 = 5.333333 ms
    out = _by_key(apply_variant([exps[key("3", "mark_tail", 20)]], choices,
                                variant_named(choices, "start=jitter")))
    g = out[key("3", "mark_tail", 20)].scenario.to_dict()["dumbbell"]["groups"]
    assert g[0]["start"] == {"uniform": ["0ms", "5.333333ms"]}
    assert g[1]["start"] == {"uniform": ["1000ms", "1005.333333ms"]}


def test_published_lines_use_the_papers_rd():
    pub = PAPER.published()
    rd = {59: 0.059 * 187.5, 99: 0.099 * 187.5}  # 11.0625, 18.5625
    for r in pub.itertuples():
        want = (2 * r.T + rd[int(r.rtt_ms)] - 1) if r.strategy == "mark_tail" else \
            (r.T + rd[int(r.rtt_ms)])
        assert r.value == pytest.approx(want, abs=1e-4)
        assert r.rd_pkts == pytest.approx(rd[int(r.rtt_ms)], abs=1e-4)


def test_primary_readings_do_not_depend_on_published_numbers(monkeypatch):
    before = variants(PAPER.readings())[0].picks
    pub = PAPER.published()
    pub["value"] = pub["value"] * 1.5 + 7
    monkeypatch.setattr(type(PAPER), "published", lambda self: pub)
    assert variants(PAPER.readings())[0].picks == before


def test_analyse_without_figures(small, tmp_path):
    paper, runs = small
    with paper.figures_off():
        rep = paper.analyse(runs, tmp_path)
    assert rep.figures == []
    assert not list(tmp_path.glob("*.png"))
    assert rep.tables and len(rep.claims) >= 10
    # claim texts carry no number that depends on the reading (rd is in the evidence)
    c = claim(rep, "Mark-front reduces the buffer requirement by about rd")
    assert "rd = 11.06" in c.evidence
