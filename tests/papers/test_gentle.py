"""Smoke test of paper 003 (gentle): its experiments at tiny scale, the report's shape, and
claims that follow the runs."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import seed_text  # noqa: E402

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


# --------------------------------------------------------------------------- readings
from aqmsim.papers.gentle import readings as G  # noqa: E402
from aqmsim.papers.readings import (PRIMARY, apply_variant,  # noqa: E402
                                    red_queues, variant_named, variants)

OPEN_POINTS = {"units", "packet_size", "ared_gentle", "max_p", "tcp", "window",
               "delayed_ack", "sink_links"}


def _data(exps, key):
    [e] = [e for e in exps if e.key == key]
    return e.scenario.to_dict()


def test_choices_cover_the_open_points(paper):
    choices = paper.readings()
    assert {c.name for c in choices} == OPEN_POINTS
    # (two or more readings each, labelled and argued: tests/test_readings.py)
    # nothing here is determined by the published numbers: no derived reading, no input
    assert not any(r.source == "derived" for c in choices for r in c.readings)


def test_primary_readings_follow_the_rule(paper):
    prim = {c.name: c.primary.name for c in paper.readings()}
    assert prim == {"units": "ns2-bytes", "packet_size": "tcp-and-red", "ared_gentle": "off",
                    "max_p": "0.1", "tcp": "tahoe", "window": "20", "delayed_ack": "off",
                    "sink_links": "feeding"}
    [c] = [c for c in paper.readings() if c.name == "ared_gentle"]
    assert c.reading("on").source == "ns2"
    assert "dropping every arriving packet with probability one" in c.reading("on").excluded
    text = seed_text("003")  # the paper itself, where shared/ is beside the repo
    if text is not None:
        assert "reacted same as RED by dropping every arriving packet with probability one" \
            in text



def test_the_variants_run(paper):
    choices = paper.readings()
    names = [v.name for v in variants(choices)]
    assert names[0] == PRIMARY and "textbook" in names
    # ns-2 as typed differs from the primary only in ARED's gentle: ared_gentle=on
    assert "ns2-as-typed" not in names and "ared_gentle=on" in names
    # (every variant validates: tests/test_readings.py)


def test_readings_edit_what_they_say(paper):
    choices = paper.readings()
    base = paper.experiments()
    # packet size: Table II's per scenario, or ns-2's defaults where a reading leaves it
    for name, (t1, r1, t2, r2) in (("packet_size=tcp-and-red", (500, 500, 1500, 1500)),
                                   ("packet_size=tcp-only", (500, 500, 1500, 500)),
                                   ("packet_size=red-only", (1000, 500, 1000, 1500))):
        exps = apply_variant(base, choices, variant_named(choices, name))
        for n, (t, r) in ((1, (t1, r1)), (2, (t2, r2))):
            d = _data(exps, f"s{n}-red")
            assert d["tcp"]["packet_size"] == t, name
            [(_, q)] = list(red_queues(d))
            assert q["mean_pktsize"] == r, name
    # ARED's gentle and the max_p of RED/GRED touch only those queues
    exps = apply_variant(base, choices, variant_named(choices, "ared_gentle=on"))
    for a, b in zip(base, exps):
        assert (a.scenario.to_dict() == b.scenario.to_dict()) == (not a.key.endswith("-ared"))
    exps = apply_variant(base, choices, variant_named(choices, "max_p=0.02"))
    for e in exps:
        for _, q in red_queues(e.scenario.to_dict()):
            assert q["max_p"] == (0.1 if q["kind"] == "ared" else 0.02)
    # DropTail never gets RED's units
    exps = apply_variant(base, choices, variant_named(choices, "units=packets"))
    for a, b in zip(base, exps):
        if a.key.endswith("-droptail"):
            assert a.scenario.to_dict() == b.scenario.to_dict()
    # NSG2's default sink links: 100 Mb/s, 10 ms, DropTail 50
    exps = apply_variant(base, choices, variant_named(choices, "sink_links=nsg2"))
    d = _data(exps, "s1-red")
    for lk in d["links"][3:]:
        assert (lk["rate"], lk["delay"], lk["queue"]["limit"]) == ("100Mb", "10ms", 50)
    assert d["links"][2]["rate"] == "2Mb"


def test_published_counts_are_not_per_packet_counts():
    """The arithmetic the readings' docstring quotes."""
    assert 12367 * 540 * 8 / 9.98 / 1e6 == pytest.approx(5.35, abs=0.01)
    assert 12367 * 500 * 8 / 9.98 / 1e6 == pytest.approx(4.96, abs=0.01)
    assert 9173 * 1540 * 8 / 9.0 / 1e6 == pytest.approx(12.56, abs=0.01)
    assert G.PACKET_SIZE_BY_SCENARIO == {1: 500, 2: 1500}


def test_analysis_without_figures(paper, runs, tmp_path):
    with paper.figures_off():
        rep = paper.analyse(runs, tmp_path)
    assert rep.figures == [] and not list(tmp_path.glob("*.png"))
    assert rep.tables and rep.claims
    assert not any(c.input for c in rep.cells())
