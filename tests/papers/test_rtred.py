"""Smoke test of the RTRED paper (seed 000) at tiny scale: short runs, two seeds."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import seed_text  # noqa: E402

from aqmsim.papers import Cell, get
from aqmsim.papers.rtred import PAPER, PAPER_STRATEGIES, SCENARIOS, STRATEGIES, RtredPaper, key
from aqmsim.papers.runner import run_paper
from aqmsim.report import _format as F

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


# --------------------------------------------------------------------------- readings
from aqmsim.papers.readings import (PRIMARY, analysis_options, apply_variant,  # noqa: E402
                                    red_queues, variant_named, variants)
from aqmsim.papers.rtred import readings as R  # noqa: E402

OPEN_POINTS = {"units", "gentle", "w_q", "packet_size", "tcp", "window", "delayed_ack",
               "between", "delay_metric", "run_length"}


def _exp(exps, k):
    [e] = [e for e in exps if e.key == k]
    return e.scenario.to_dict()


def test_choices_cover_the_open_points():
    choices = PAPER.readings()
    assert {c.name for c in choices} == OPEN_POINTS
    # (two or more readings each, labelled and argued: tests/test_readings.py)
    for r in (r for c in choices for r in c.readings if r.source == "derived"):
        assert r.arithmetic and r.uses, r.name
    # the time the bottleneck ran is applied after the packet size it depends on
    names = [c.name for c in choices]
    assert names.index("run_length") > names.index("packet_size")


def test_primary_readings_follow_the_rule():
    prim = {c.name: c.primary for c in PAPER.readings()}
    assert {k: r.name for k, r in prim.items()} == {
        "units": "ns2-bytes", "gentle": "on", "w_q": "auto", "packet_size": "derived-592",
        "tcp": "tahoe", "window": "20", "delayed_ack": "off", "between": "keep",
        "delay_metric": "tx-time", "run_length": "delivered"}
    # ns-2's byte mode is not excluded: with risk_th counted like the other thresholds (in
    # units of mean_pktsize bytes) the time-out area [risk_th, buffer] exists
    [c] = [c for c in PAPER.readings() if c.name == "units"]
    ns2 = c.reading("ns2-bytes")
    assert ns2.source == "ns2" and not ns2.excluded
    assert not any(r.excluded for r in c.readings)
    text = seed_text("000")  # the paper itself, where shared/ is beside the repo
    if text is not None:
        assert "The area between the $risk_th$ and the buffer limit is the time out area" in text
        assert "such as Reno" in text



def test_the_variants_run():
    choices = PAPER.readings()
    names = [v.name for v in variants(choices)]
    assert names[0] == PRIMARY and "textbook" in names
    # ns-2 as typed is the primary variant; packet mode is the units alternative
    assert "ns2-as-typed" not in names and "units=packets" in names
    # (every variant validates: tests/test_readings.py)


def test_derived_arithmetic_by_hand():
    # the delay column is packets sent x the 592-byte transmission time at 0.7 Mb/s
    for (s, k), (sent, lost) in R.TABLE2_SENT_LOST.items():
        pub = PAPER.published_value(s, k, "avg_delay_ms")
        assert sent * 592 * 8 / 700_000 == pytest.approx(pub, rel=1e-7)
        assert sent * 552 * 8 / 700_000 != pytest.approx(pub, rel=1e-3)
        assert (sent, lost) == (PAPER.published_value(s, k, "packets_sent"),
                                PAPER.published_value(s, k, "packets_lost"))
    # run length: sent - lost summed over the nine rows = 157 195, / 9 = 17 466.1 packets
    delivered = sum(s - l for s, l in R.TABLE2_SENT_LOST.values())
    assert delivered == 157195
    assert 157195 / 9 * 592 * 8 / 700_000 == pytest.approx(118.17, abs=0.005)
    assert R.run_length(592) == 118.2 and R.run_length(552) == 110.2
    assert sum(s for s, _ in R.TABLE2_SENT_LOST.values()) == 161759
    assert R.run_length(592, "sent") == 121.6
    # the files carry it; the wire-552 reading shortens the run with the packet
    base = PAPER.experiments()
    d = _exp(base, "s2-rtred")
    assert d["duration"] == "118.2s" and d["dumbbell"]["groups"][0]["stop"] == "118.2s"
    choices = PAPER.readings()
    d = _exp(apply_variant(base, choices, variant_named(choices, "packet_size=wire-552")),
             "s2-rtred")
    assert d["tcp"]["packet_size"] + d["tcp"]["header"] == 552
    assert d["duration"] == "110.2s" and d["dumbbell"]["groups"][0]["stop"] == "110.2s"


def test_readings_edit_what_they_say():
    choices = PAPER.readings()
    base = PAPER.experiments()
    # the delay metric is an analysis option: it changes no scenario (no run is redone)
    v = variant_named(choices, "delay_metric=e2e")
    exps = apply_variant(base, choices, v)
    for a, b in zip(base, exps):
        assert a.scenario.to_dict() == b.scenario.to_dict()
    assert analysis_options(choices, v)["delay_metric"] == "e2e"
    prim = variant_named(choices, "primary")
    assert analysis_options(choices, prim)["delay_metric"] == "tx-time"
    # between moves RTRED only
    exps = apply_variant(base, choices, variant_named(choices, "between=half"))
    for a, b in zip(base, exps):
        assert (a.scenario.to_dict() == b.scenario.to_dict()) == (not a.key.endswith("-rtred"))
    # byte mode (the files): mean_pktsize 500 on every RED-family queue; packet mode off
    for e in base:
        for _, q in red_queues(e.scenario.to_dict()):
            assert q["bytes"] and q["queue_in_bytes"] and q["mean_pktsize"] == 500
    exps = apply_variant(base, choices, variant_named(choices, "units=packets"))
    for e in exps:
        for _, q in red_queues(e.scenario.to_dict()):
            assert not q["bytes"] and not q["queue_in_bytes"] and q["mean_pktsize"] == 500
    # textbook gentle: off, but ns-2's Adaptive RED keeps it
    exps = apply_variant(base, choices, variant_named(choices, "gentle=off"))
    for e in exps:
        for _, q in red_queues(e.scenario.to_dict()):
            assert q["gentle"] is (q["kind"] == "ared")


def test_analysis_without_figures_and_inputs(tiny, tmp_path):
    paper, runs = tiny
    with paper.figures_off():
        rep = paper.analyse(runs, tmp_path)
    assert rep.figures == [] and not list(tmp_path.glob("*.png"))
    t2 = rep.tables[0]
    cols = t2.columns
    for row in t2.rows:
        cells = dict(zip(cols, row))
        if "extra" in row[1]:
            continue
        assert not cells["Ave Q Size (packets)"].input
        for col in ("Average Delay Time (ms)", "Loss Rate (packets lost)",
                    "No. of Propagated Packets (sent)"):
            assert cells[col].input, (row[:2], col)
            assert cells[col].within10 is None
        # the delay under the derived metric is packets sent x one 592-byte packet's time
        d, sent = cells["Average Delay Time (ms)"], cells["No. of Propagated Packets (sent)"]
        assert d.mean == pytest.approx(sent.mean * 592 * 8 / 700_000)
        # only the mean of their rows was used: each input is still compared row by row
        assert sent.row_diff is not None and F.diff(sent).startswith("input, ")
    assert rep.published_count()[1] == 9
    # issue 23: where "N of 9" is shown it says that 27 published cells became inputs
    text = F.published_text(rep)
    assert text.startswith(f"{rep.published_count()[0]} of 9 published numbers within 10 % "
                           "(27 more published numbers were inputs of derived readings, "
                           "not counted; row by row ")


def test_analysis_follows_the_delay_and_run_length_readings(tiny, tmp_path):
    paper, runs = tiny
    from aqmsim.papers.base import Runs as _Runs
    choices = paper.readings()
    for name, inputs in (("delay_metric=e2e", {"Loss Rate (packets lost)",
                                                "No. of Propagated Packets (sent)"}),
                         ("run_length=sent", {"No. of Propagated Packets (sent)",
                                              "Average Delay Time (ms)"})):
        v = variant_named(choices, name)
        exps = apply_variant(paper.experiments(), choices, v)
        alt = _Runs(exps, list(runs.records.values()))
        alt.options = analysis_options(choices, v)
        rep = paper.analyse(alt, tmp_path / name)
        t2 = rep.tables[0]
        for row in t2.rows:
            if "extra" in row[1]:
                continue
            got = {c for c, v in zip(t2.columns, row) if getattr(v, "input", False)}
            assert got == inputs, (name, row[:2])
        if name == "delay_metric=e2e":
            d = dict(zip(t2.columns, t2.rows[0]))["Average Delay Time (ms)"]
            assert d.mean == pytest.approx(
                1000 * np.mean(alt.values(key(1, "red"), "mean_e2e_delay_s")))


# --------------------------------------------------------------------------- queue units
def test_area_shares_in_the_queue_units():
    """In byte mode the drop areas count the queue in units of mean_pktsize bytes: a
    592-byte packet is 1.184 units of 500 bytes (Table I scenario 1: 12, 25, 28)."""
    from aqmsim.papers.rtred import area_shares, queue_unit
    drops = pd.DataFrame({"link": ["R1->R2"] * 6, "action": ["drop"] * 6,
                          "qlen_pkts": [10, 11, 21, 22, 23, 24]})
    # packets: 10, 11 unfair; 21, 22, 23, 24 normal
    assert area_shares(drops, 12, 25, 28) == {"unfair": 2, "normal": 4, "safe": 0,
                                               "timeout": 0, "total": 6}
    # bytes / 500: 11.84, 13.02, 24.86, 26.05, 27.23, 28.42
    u = queue_unit(_exp(PAPER.experiments(), "s1-red"))
    assert u.byte_mode and u.mean_pktsize == 500 and u.per_packet == pytest.approx(592 / 500)
    assert area_shares(drops, 12, 25, 28, per_packet=u.per_packet) == {
        "unfair": 1, "normal": 2, "safe": 2, "timeout": 1, "total": 6}
    choices = PAPER.readings()
    pk = apply_variant(PAPER.experiments(), choices, variant_named(choices, "units=packets"))
    u = queue_unit(_exp(pk, "s1-red"))
    assert not u.byte_mode and u.per_packet == 1.0 and u.name == "packets"


@pytest.fixture(scope="module")
def short_rtred_s1(core):
    """Scenario 1's RTRED under the primary (byte-mode) reading, 30 s, one seed."""
    [e] = [e for e in PAPER.experiments() if e.key == "s1-rtred"]
    sc = e.scenario.with_overrides(duration=30.0, **{"dumbbell.groups.0.stop": 30.0})
    return sc, sc.run(seed=1)


def test_byte_mode_risk_rule_fires(short_rtred_s1):
    """Under ns-2's byte mode the actual queue does exceed risk_th (28 x 500 bytes) and
    RTRED then sets the initial max_p; max_p takes the paper's levels only."""
    sc, res = short_rtred_s1
    q = sc["dumbbell.bottleneck.queue"]
    assert q["queue_in_bytes"] and q["risk_th"] == 28 and q["max_p"] == 0.05
    qs = res.queue[res.queue["link"] == "R1->R2"]
    units = qs["len_bytes"] / 500.0
    assert (units > 28).any(), "the queue reaches the time-out area"
    mp = qs["max_p"].to_numpy()
    assert np.isclose(mp, 0.05).any() and np.isclose(mp, 0.01).any()
    assert np.all(np.isclose(mp, 0.05) | np.isclose(mp, 0.025) | np.isclose(mp, 0.01))
    # every drop classified in bytes / 500; some fall in the time-out area [28, 30]
    from aqmsim.papers.rtred import area_shares
    c = area_shares(res.drops, 12, 25, 28, per_packet=592 / 500)
    assert c["total"] > 0 and c["timeout"] > 0


def test_run_length_inputs_are_the_published_table():
    """The run length is derived from Table II's packets sent and lost: the numbers the
    derivation uses are the ones in published.csv (and those cells are inputs, not checks)."""
    from aqmsim.papers.rtred import PAPER
    from aqmsim.papers.rtred.readings import TABLE2_SENT_LOST, run_length

    pub = PAPER.published()
    t2 = pub[pub["table"] == "II"]
    for (s, k), (sent, lost) in TABLE2_SENT_LOST.items():
        row = t2[(t2["scenario"] == s) & (t2["strategy"] == k)].set_index("metric")["value"]
        assert (float(row["packets_sent"]), float(row["packets_lost"])) == (sent, lost)
    # 157 195 packets crossed the bottleneck in the nine rows: 17 466.1 on average,
    # x 592 bytes x 8 / 700 000 b/s = 118.17 s
    assert run_length(592) == 118.2
    assert run_length(552) == 110.2
