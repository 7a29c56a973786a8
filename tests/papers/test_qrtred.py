"""Smoke test of paper 001 (QRTRED) at tiny scale: 30 s instead of 100 s, two seeds."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from conftest import seed_text  # noqa: E402

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


# --------------------------------------------------------------------------- readings
import math  # noqa: E402

from aqmsim.papers.readings import (PRIMARY, apply_variant,  # noqa: E402
                                    red_queues, variant_named, variants)

OPEN_POINTS = {"pktsize", "queue_units", "gentle", "wait", "w_q", "max_p", "red_default",
               "red2_thresholds", "qrt_unit", "tcp_window", "delayed_ack", "topology"}


def _queue(exps, key):
    [e] = [e for e in exps if e.key == key]
    [(_, q)] = list(red_queues(e.scenario.to_dict()))
    return q


def _resolved_queue(exps, key):
    [e] = [e for e in exps if e.key == key]
    res = e.scenario.validate()
    [lk] = [lk for lk in res["links"] if lk["from"] == "R1" and lk["to"] == "R2"]
    return lk, lk["queue"]


def test_choices_cover_the_open_points(paper):
    choices = paper.readings()
    assert {c.name for c in choices} == OPEN_POINTS
    # (two or more readings each, labelled and argued: tests/test_readings.py)
    # no published number determines a parameter here: nothing derived, nothing an input
    assert not any(r.source == "derived" for c in choices for r in c.readings)


def test_primary_readings_follow_the_rule(paper):
    prim = {c.name: c.primary for c in paper.readings()}
    assert {k: r.name for k, r in prim.items()} == {
        "pktsize": "payload1000", "queue_units": "bytes500", "gentle": "off", "wait": "on",
        "w_q": "auto", "max_p": "0.1", "red_default": "auto", "red2_thresholds": "10-40",
        "qrt_unit": "per-s", "tcp_window": "20", "delayed_ack": "off",
        "topology": "red-suite"}
    # ns-2's gentle_ true is excluded by the paper's own description of RED (section 2)
    [c] = [c for c in paper.readings() if c.name == "gentle"]
    on = c.reading("on")
    assert on.source == "ns2" and "drop probability of packets will be one" in on.excluded
    text = seed_text("001")  # the paper itself, where shared/ is beside the repo
    if text is not None:
        assert "drop probability of packets will be one" in text



def test_the_variants_run(paper):
    choices = paper.readings()
    names = [v.name for v in variants(choices)]
    assert names[0] == PRIMARY and "textbook" in names
    # ns-2 as typed differs from the primary only by gentle: it is the gentle=on variant
    assert "ns2-as-typed" not in names and "gentle=on" in names
    # (every variant validates: tests/test_readings.py)


def test_readings_edit_only_their_experiment(paper):
    choices = paper.readings()
    base = paper.experiments()
    for name, key in (("red2_thresholds=5-40", "red_10_40"), ("red_default=5-15", "red_5_15"),
                      ("qrt_unit=per-10ms", "qrtred")):
        exps = apply_variant(base, choices, variant_named(choices, name))
        for a, b in zip(base, exps):
            same = a.scenario.to_dict() == b.scenario.to_dict()
            assert same == (a.key != key), (name, a.key)
    q = _queue(apply_variant(base, choices, variant_named(choices, "red2_thresholds=5-40")),
               "red_10_40")
    assert (q["min_th"], q["max_th"]) == (5, 40)
    q = _queue(apply_variant(base, choices, variant_named(choices, "qrt_unit=per-100ms")),
               "qrtred")
    assert q["qrt_unit"] == 0.1


def test_hand_arithmetic_of_the_readings(paper):
    """The numbers the notes and readings quote, by hand."""
    choices = paper.readings()
    base = paper.experiments()
    # primary: byte mode, mean_pktsize 500 on a 1.5 Mb/s, 20 ms bottleneck
    lk, q = _resolved_queue(base, "red_5_15")
    assert lk["rate"] == 1.5e6 and q["mean_pktsize"] == 500 and q["queue_in_bytes"]
    ptc = 1.5e6 / (8 * 500)
    assert ptc == 375.0
    # automatic thresholds: max(5, 0.005 * 375 / 2 = 0.94) = 5, max_th 15
    assert (q["min_th"], q["max_th"]) == (5.0, 15.0)
    # automatic w_q: rtt = max(0.1, 3 (0.02 + 1/375) = 0.068) = 0.1; 1 - exp(-1/(10 0.1 375))
    assert q["w_q"] == pytest.approx(1 - math.exp(-1 / 375))
    assert q["w_q"] == pytest.approx(0.0026631, abs=1e-7)
    assert q["gentle"] is False and q["wait"] is True and q["max_p"] == 0.1
    # the 100-"packet" buffer is 100 x 500 = 50 000 bytes: 50 000 / 1040 = 48.1 data packets
    assert q["limit"] * q["mean_pktsize"] // 1040 == 48
    # the matched byte mode follows the packet size on the wire
    exps = apply_variant(base, choices, variant_named(choices, "queue_units=bytes-matched"))
    assert _queue(exps, "qrtred")["mean_pktsize"] == 1040
    exps = apply_variant(base, choices,
                         variant_named(choices, "pktsize=wire1000+queue_units=bytes-matched"))
    assert _queue(exps, "red_5_15")["mean_pktsize"] == 1000
    # the other topology: 1.7 Mb/s -> ptc 425, 0.005 x 425 / 2 = 1.06 < 5: still (5, 15)
    exps = apply_variant(base, choices, variant_named(choices, "topology=ns-by-example"))
    lk, q = _resolved_queue(exps, "red_5_15")
    assert lk["rate"] == 1.7e6 and (q["min_th"], q["max_th"]) == (5.0, 15.0)


def test_analyse_without_figures(paper, runs, tmp_path):
    with paper.figures_off():
        rep = paper.analyse(runs, tmp_path)
    assert rep.figures == [] and not list(Path(tmp_path).glob("*.png"))
    assert rep.tables[0].title.startswith("Table 1") and rep.published_count()[1] == 6
    titles = [t.title for t in rep.tables]
    assert any(t.startswith("Metric definitions") for t in titles)
    assert len(rep.claims) >= 8
