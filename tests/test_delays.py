"""Issue 13 (part 3): delay distributions (monitor.delays): queueing delay at each
monitored queue and end-to-end delay per flow, quantiles within 1 % of exact values that a
hand computation gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app

from conftest import EXAMPLES

RED = EXAMPLES / "dumbbell-red.toml"
runner = CliRunner()
QUANTILE_KEYS = ("delay_p50_s", "delay_p90_s", "delay_p99_s", "delay_max_s")


def cbr(rate: str, limit: int = 50, duration: float = 10.0) -> Scenario:
    """One 1000-byte CBR flow: 10 Mb/s access (1 ms), 1 Mb/s 10 ms bottleneck, 10 Mb/s
    1 ms egress."""
    return Scenario.from_dict({
        "duration": duration, "monitor": {"delays": True},
        "dumbbell": {
            "bottleneck": {"rate": "1Mb", "delay": "10ms",
                           "queue": {"kind": "droptail", "limit": limit}},
            "groups": [{"count": 1, "app": "cbr", "cbr": {"rate": rate, "packet_size": 1000},
                        "access": {"rate": "10Mb", "delay": "1ms"},
                        "egress": {"rate": "10Mb", "delay": "1ms"}}],
        },
    })


def test_a_flow_that_never_waits_has_one_delay(core):
    # 500 kb/s into 1 Mb/s: every packet finds every link idle. Its delay is three
    # transmissions (0.8 + 8 + 0.8 ms) and three propagation delays (1 + 10 + 1 ms).
    r = cbr("500Kb").run()
    want = 0.0008 + 0.008 + 0.0008 + 0.012
    f = r.flows.iloc[0]
    for k in QUANTILE_KEYS:
        assert f[k] == pytest.approx(want, rel=0.01), k
    assert f["delay_max_s"] == pytest.approx(want, abs=1e-9)        # the maximum is exact
    assert f["jitter_s"] == pytest.approx(0.0, abs=1e-12)
    s = r.summary
    assert s["qdelay_p50_s"] == s["qdelay_max_s"] == 0.0           # nothing ever waited
    assert s["delay_p50_s"] == pytest.approx(want, rel=0.01)


def test_an_overloaded_droptail_queue_delays_by_its_length(core):
    # 2 Mb/s into 1 Mb/s, DropTail limit 20: once full, each departing packet waited for the
    # 19 packets ahead of it, 19 × 8 ms = 152 ms (a limit-L DropTail keeps L − 1 waiting).
    r = cbr("2Mb", limit=20).run()
    s = r.summary
    assert s["qdelay_p90_s"] == pytest.approx(0.152, rel=0.02)
    assert s["qdelay_p99_s"] == pytest.approx(0.152, rel=0.02)
    assert s["qdelay_max_s"] <= 0.152 + 1e-6
    assert s["qdelay_p50_s"] <= s["qdelay_p90_s"] <= s["qdelay_p99_s"] <= s["qdelay_max_s"]
    cdf = r.delay_cdf
    q = cdf[cdf["what"] == "queue R1->R2"]
    assert np.all(np.diff(q["delay_s"].to_numpy()) >= 0)            # a CDF: non-decreasing
    assert q["q"].iloc[-1] == 1.0 and q["delay_s"].iloc[-1] == s["qdelay_max_s"]


def test_many_flows_summary_and_flows_agree(core):
    r = Scenario.from_toml(RED).with_overrides(**{"monitor.delays": True, "duration": 20,
                                                  "dumbbell.groups.0.stop": 20}).run()
    f, s = r.flows, r.summary
    assert (f["delay_p50_s"] <= f["delay_p90_s"]).all() and (f["delay_p99_s"] <= f["delay_max_s"]).all()
    assert f["delay_p50_s"].min() * 0.99 <= s["delay_p50_s"] <= f["delay_p50_s"].max() * 1.01
    assert s["delay_max_s"] == f["delay_max_s"].max()
    # the median is near the mean for these unimodal delays, and above the path's 44 ms
    assert s["delay_p50_s"] == pytest.approx(s["mean_e2e_delay_s"], rel=0.15)
    assert s["delay_p50_s"] > 0.044 and (f["jitter_s"] > 0).all()


def test_off_by_default(core):
    r = Scenario.from_toml(RED).with_overrides(duration=5).run()
    assert r.flows["delay_p50_s"].isna().all() and r.flows["jitter_s"].isna().all()
    assert "qdelay_p50_s" not in r.summary and r.delay_cdf.empty
    with pytest.raises(ValueError, match="delays = true"):
        r.plot_delay_cdf()


def test_cli_delays_writes_table_and_figure(core, tmp_path: Path):
    res = runner.invoke(app, ["run", str(RED), "--set", "duration=5", "--delays",
                              "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    # the registry's words, not the raw key (issue 15: no unlabelled metric)
    assert "99th-percentile queueing delay" in res.output and "qdelay_p99_s" not in res.output
    for f in ("delay_cdf.csv", "delay_cdf.png"):
        assert (tmp_path / f).stat().st_size > 0, f
