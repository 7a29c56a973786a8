"""The metric registry (aqmsim.metrics): every number a run reports has a label, a unit and
a definition; docs/metrics.md is generated from it; display values are fixed-point and
intervals stay inside each metric's range."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from aqmsim import Scenario, metrics
from aqmsim.results import SCHEMAS

from conftest import EXAMPLES, ROOT, shortened


@pytest.mark.parametrize("example", ["dumbbell-red.toml", "dumbbell-codel.toml",
                                     "explicit-topology.toml"])
def test_every_summary_key_of_a_run_is_in_the_registry(core, example: str) -> None:
    d = shortened(Scenario.from_toml(EXAMPLES / example).to_dict(), 1.0)
    d.setdefault("monitor", {})["delays"] = True  # the delay quantiles appear only then
    summary = Scenario.from_dict(d).run(seed=1).summary
    assert "qdelay_p99_s" in summary and "jitter_s" in summary
    missing = sorted(set(summary) - set(metrics.SUMMARY))
    assert not missing, f"summary keys without a registry entry: {missing}"


def test_ns2_summary_keys_are_in_the_registry() -> None:
    """ns-2 runs kept in a store add their own keys (aqmsim.ns2.crosscheck's table)."""
    from aqmsim.ns2 import crosscheck

    table = crosscheck.__doc__.split("====\n", 2)[2]
    keys = set(re.findall(r"^([a-z][a-z0-9_]+)\s{2,}", table, re.M))
    assert {"packets_received", "mean_max_p", "utilisation"} <= keys
    assert not sorted(keys - set(metrics.SUMMARY))


@pytest.mark.parametrize("table", sorted(metrics.TABLES))
def test_every_numeric_column_kept_by_a_sweep_is_in_the_registry(table: str) -> None:
    numeric = {c for c, t in SCHEMAS[table].items() if t != "object" and c != "flow"}
    assert not sorted(numeric - set(metrics.TABLES[table]))


def test_docs_page_is_the_generated_one() -> None:
    page = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert page == metrics.markdown(), (
        "docs/metrics.md differs from the registry: run "
        "`python -m aqmsim.metrics > docs/metrics.md`")
    for key in metrics.SUMMARY:
        assert f"| `{key}` |" in page and f"**`{key}`** — " in page


def test_every_entry_is_complete() -> None:
    for reg in (metrics.SUMMARY, *metrics.TABLES.values()):
        for m in reg.values():
            # a label is words, not a key with its unit glued on (RED's parameter names
            # max_p, min_th, max_th are words of their own)
            assert m.label and not re.search(r"_(s|bps|pkts|bytes|ratio|fairness)\b", m.label)
            assert m.definition.endswith((".", ")")), m.key
            assert m.lo < m.hi and m.scale > 0 and m.decimals >= 0


def test_units_scale_and_fixed_point_text() -> None:
    d = metrics.metric("mean_queueing_delay_s")
    assert (d.unit, d.axis_label, d.higher_is_better) == ("ms", "mean queueing delay (ms)", False)
    assert d.text(0.0194470, 0.0012) == "19.45 ± 1.20"
    g = metrics.metric("goodput_bps")
    assert g.axis_label == "goodput (Mb/s)" and g.text(18952800.0) == "18.95"
    arrivals = metrics.metric("bottleneck_arrivals").text(71179123.0)
    assert "e" not in arrivals and arrivals == "71\u2009179\u2009123"
    assert metrics.metric("loss_ratio").text(1.4e-05) == "0.001"  # %, never 1.4e-05
    assert metrics.metric("utilisation").text(float("nan")) == "—"


def test_intervals_are_clipped_to_the_range() -> None:
    jain = metrics.metric("jain_fairness")
    assert jain.clip(0.97, 1.04) == (0.97, 1.0)
    util = metrics.metric("utilisation")
    assert util.clip(98.0, 101.5) == (98.0, 100.0)
    assert metrics.metric("loss_ratio").clip(-0.2, 0.3) == (0.0, 0.3)
    assert metrics.metric("goodput_bps").clip(5.0, 1e9) == (5.0, 1e9)


def test_unknown_keys() -> None:
    assert metrics.label("brand_new_metric") == "brand_new_metric"
    assert metrics.axis_label("goodput_bps", "flows") == "goodput (Mb/s)"
    with pytest.raises(KeyError, match="not a summary metric"):
        metrics.metric("goodput")
    with pytest.raises(KeyError, match="table 'tcp'"):
        metrics.metric("cwnd", "tcp")


def test_delay_quantile_interval_carries_the_sketch_resolution() -> None:
    """Issue 23: five seeds in one DDSketch bucket printed `37.25 ± 0.00`. A quantile's
    half-width adds α/(1 − α) × the mean (α = 1 %); exact values (the maximum, a mean
    delay) are printed as before, and a missing half-width stays missing."""
    m = metrics.metric("qdelay_p99_s")
    assert metrics.SKETCH_ALPHA == 0.01 and m.rel_error == metrics.SKETCH_ALPHA
    assert m.text(0.03725, 0.0) == "37.25 ± 0.38"
    assert m.text(0.03725, 0.001) == "37.25 ± 1.38"
    assert m.text(0.03725) == "37.25"
    for key in ("qdelay_p50_s", "qdelay_p90_s", "delay_p50_s", "delay_p99_s"):
        assert metrics.metric(key).rel_error == 0.01, key
    assert metrics.TABLES["flows"]["delay_p99_s"].rel_error == 0.01
    for key in ("qdelay_max_s", "mean_queueing_delay_s", "goodput_bps"):
        assert metrics.metric(key).text(0.03725, 0.0).endswith("± 0.00"), key
    assert math.isnan(m.half_width(0.03725, math.nan))
    assert "never narrower than the estimator's own resolution" in metrics.markdown()
