"""Paper 005 (l4s): RFC 9332 §2.1's coupling claim reproduced with DualPI2, Reno and DCTCP.
The experiments' shape, the RFC's analytic numbers and the measures against hand-computed
values, then a tiny reproduction (5 s runs, 2 seeds): tables, claims, figure."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from aqmsim.papers import get, names
from aqmsim.papers.base import Cell, Runs
from aqmsim.papers.l4s import measures as M
from aqmsim.papers.readings import apply_variant, variant_named
from aqmsim.papers.runner import run_one, tasks_of

PNG = b"\x89PNG\r\n\x1a\n"
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def paper(core):
    return get("l4s")


def test_registered_and_listed():
    assert "l4s" in names()


def test_experiments_sweep_rtt_and_k(paper):
    exps = {e.key: e for e in paper.experiments()}
    assert sorted(exps) == sorted([f"rtt{r}-k2" for r in (5, 10, 20, 50, 100, 200)]
                                  + ["rtt200-k1", "rtt200-k4"])
    for e in exps.values():
        d = e.scenario.to_dict()
        b = d["dumbbell"]["bottleneck"]
        # base RTT = 2 (d + 1 ms access + 1 ms egress)
        assert b["delay"] == f"{e.labels['rtt_ms'] / 2 - 2:g}ms"
        assert b["rate"] == "40Mb" and b["queue"]["kind"] == "dualpi2"
        assert b["queue"]["coupling"] == e.labels["k"]
        assert b["queue"]["target"] == "15ms" and b["queue"]["step_thresh"] == "1ms"
        g = {x["name"]: x for x in d["dumbbell"]["groups"]}
        assert g["scalable"]["tcp"] == {"variant": "dctcp", "ect": "ect1"}
        assert g["classic"]["tcp"] == {"variant": "newreno"}
        assert d["tcp"]["stack"] == "linux" and d["duration"] in ("600s", 600, 600.0)
        e.scenario.validate()


def test_prague_reading_swaps_the_scalable_sender(paper):
    choices = paper.readings()
    v = variant_named(choices, "scalable=prague")
    for e in apply_variant(paper.experiments(), choices, v):
        g = {x["name"]: x for x in e.scenario.to_dict()["dumbbell"]["groups"]}
        assert g["scalable"]["tcp"]["variant"] == "prague"
        e.scenario.validate()


def test_five_flows_reading_sets_both_classes(paper):
    choices = paper.readings()
    v = variant_named(choices, "flows=5")
    for e in apply_variant(paper.experiments(), choices, v):
        groups = e.scenario.to_dict()["dumbbell"]["groups"]
        assert [g["count"] for g in groups] == [5, 5]
        e.scenario.validate()


def test_a_class_of_several_flows_is_one_mean_flow():
    """Per-flow means of goodput and delay, sums of the queue counters."""
    rec = _Rec([
        {"label": "scalable", "goodput_bps": 10e6, "mean_delay_s": 0.011, "queue_drops": 0,
         "queue_marks": 100, "queue_arrivals": 1000},
        {"label": "scalable", "goodput_bps": 20e6, "mean_delay_s": 0.013, "queue_drops": 0,
         "queue_marks": 300, "queue_arrivals": 3000},
        {"label": "classic", "goodput_bps": 6e6, "mean_delay_s": 0.02, "queue_drops": 3,
         "queue_marks": 0, "queue_arrivals": 2000},
    ])
    assert M.ratio(rec) == pytest.approx(15e6 / 6e6)
    assert M.rtt_of(rec, "scalable", 20) == pytest.approx(0.012 + 0.010)
    assert M.mark_or_drop_p(rec, "scalable") == pytest.approx(400 / 4000)
    assert M.mark_or_drop_p(rec, "classic") == pytest.approx(3 / 2000)


def test_published_is_the_rfcs_arithmetic(paper):
    """2/(1.22 k) by hand: k = 1: 1.6393, k = 2: 0.8197, k = 4: 0.4098."""
    pub = paper.published()
    r = pub[pub["claim"] == "ratio_equal_rtt"].set_index("coupling")["value"]
    assert r.to_dict() == {1: 1.6393, 2: 0.8197, 4: 0.4098}
    for k, v in r.items():
        assert M.analytic_ratio(k) == pytest.approx(v, abs=5e-5)


class _Rec:
    def __init__(self, flows):
        self.tables = {"flows": pd.DataFrame(flows)}
        self.summary = {}


def _golden():
    # DCTCP: 24 Mb/s, one-way 10.8 ms; Reno: 12 Mb/s, one-way 21.3 ms; base RTT 20 ms
    return _Rec([
        {"label": "scalable", "goodput_bps": 24e6, "mean_delay_s": 0.0108, "queue_drops": 0,
         "queue_marks": 500, "queue_arrivals": 10000},
        {"label": "classic", "goodput_bps": 12e6, "mean_delay_s": 0.0213, "queue_drops": 4,
         "queue_marks": 0, "queue_arrivals": 10000},
    ])


def test_measures_against_hand_computed_values():
    rec = _golden()
    assert M.ratio(rec) == pytest.approx(2.0)
    # R = one-way + base/2: 20.8 ms and 31.3 ms
    assert M.rtt_of(rec, "scalable", 20) == pytest.approx(0.0208)
    assert M.rtt_of(rec, "classic", 20) == pytest.approx(0.0313)
    # fixed one-way part: 10 ms + 1500 B x 8 (1/40e6 + 2/1e9) = 10.324 ms
    assert M.queue_delay(rec, "scalable", 20) == pytest.approx(0.0108 - 0.010324)
    assert M.queue_delay(rec, "classic", 20) == pytest.approx(0.0213 - 0.010324)
    # 2/(1.22 x 2) x 31.3/20.8 = 0.819672 x 1.504808 = 1.233449
    assert M.predicted_ratio(rec, 20, 2) == pytest.approx(1.233449, rel=1e-6)
    assert M.mark_or_drop_p(rec, "scalable") == pytest.approx(0.05)
    assert M.mark_or_drop_p(rec, "classic") == pytest.approx(0.0004)
    # W_L = 24e6 x 0.0208 / 11584 = 43.0939 segments; x 0.05 = 2.15470
    assert M.window_times_p(rec, "scalable", 20) == pytest.approx(2.154696, rel=1e-6)
    # W_C = 12e6 x 0.0313 / 11584 = 32.4240; x 0.02 = 0.648481
    assert M.window_times_p(rec, "classic", 20) == pytest.approx(0.648481, rel=1e-6)
    assert M.ratio_over_predicted(rec, 20, 2) == pytest.approx(2.0 / 1.233449, rel=1e-6)
    assert M.bind(M.rtt_of, "classic", 20)(rec) == M.rtt_of(rec, "classic", 20)


@pytest.mark.parametrize("diff,label", [(0.0, "reproduced"), (-0.2, "reproduced"),
                                        (0.21, "partly"), (-0.5, "partly"), (0.51, "not")])
def test_label_rule(diff, label):
    assert M.label(diff) == label


def _short(exp, duration=5.0):
    return replace(exp, scenario=exp.scenario.with_overrides(duration=duration))


@pytest.fixture(scope="module")
def runs(paper):
    exps = [_short(e) for e in paper.experiments()]
    return Runs(exps, [run_one(t) for t in tasks_of(exps, SEEDS)])


def test_tiny_reproduction_report(paper, runs, tmp_path: Path):
    rep = paper.analyse(runs, tmp_path)
    assert [len(t.rows) for t in rep.tables] == [6, 3, 6]
    for t in rep.tables:
        for row in t.rows:
            assert len(row) == len(t.columns), t.title
            # the row's label is its only text: the same rows under every reading
            assert [type(c) for c in row[1:]] == [Cell] * (len(row) - 1), t.title
    # the RFC's equal-RTT number is compared at 200 ms and across k only
    pubs = [c.published for c in rep.cells() if c.published is not None]
    assert sorted(pubs) == sorted([0.8197, 1.6393, 0.8197, 0.4098])
    assert len(rep.claims) == 4
    for c in rep.claims:
        lab = c.evidence.split(":")[0]
        assert lab in ("reproduced", "partly", "not") and c.holds == (lab == "reproduced")
    assert (tmp_path / "l4s_balance.png").read_bytes()[:8] == PNG
    assert any("RFC 9332" in a for a in rep.assumptions)
    # the L flow is in the L queue: only marked, and with sub-ms queueing at 200 ms
    c = rep.tables[2].rows[-1]
    assert isinstance(c[3], Cell) and c[3].mean == 0


def test_coupling_moves_the_balance(paper):
    """More coupling marks the L flow harder (a behaviour check, 20 s at base RTT 50 ms)."""
    def bal(k):
        e = _short(paper._experiment(50, k), 20.0)
        r = e.scenario.run(seed=1)
        return M.ratio(_Rec(r.flows.to_dict("records")))
    assert bal(1) > bal(2) > bal(4)
