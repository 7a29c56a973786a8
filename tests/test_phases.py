"""BBR's phases are a table, not summary keys: every BBR v1 and v3 flow's phase changes in
``Results.phases`` (and ``phases.csv``), the summary keeping only their counts. Before, the
first flow's sequence was spread over ``bbr_mode_{k}``/``bbr3_state_{k}`` summary keys: a
BBR v3 run printed ~150 rows of state numbers in ``aqmsim run``'s summary per 30 s, and a
sweep stored one column per change."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app

runner = CliRunner()

TOML = """
name = "bbr-phases"
duration = "{duration}s"
seed = 1
[tcp]
stack = "linux"
[dumbbell.bottleneck]
rate = "20Mb"
delay = "10ms"
queue = {{ kind = "fq_codel" }}
[[dumbbell.groups]]
name = "v1"
count = 2
tcp = {{ variant = "bbr" }}
access = {{ rate = "1Gb", delay = "1ms" }}
[[dumbbell.groups]]
name = "v3"
count = 2
start = 1.0
tcp = {{ variant = "bbr3" }}
access = {{ rate = "1Gb", delay = "5ms" }}
[[dumbbell.groups]]
name = "cubic"
tcp = {{ variant = "cubic" }}
access = {{ rate = "1Gb", delay = "1ms" }}
"""


def scenario(duration: float = 12.0) -> Scenario:
    return Scenario.from_toml_string(TOML.format(duration=duration))


@pytest.fixture(scope="module")
def res(core):
    return scenario().run()


def test_every_bbr_flow_has_its_phases_in_time_order(res):
    p = res.phases
    assert list(p.columns) == ["t", "flow", "cc", "phase"]
    assert p["t"].is_monotonic_increasing
    assert sorted(set(p["flow"])) == [0, 1, 2, 3], "the CUBIC flow has no phases"
    assert set(p[p["flow"] < 2]["cc"]) == {"bbr"} and set(p[p["flow"] >= 2]["cc"]) == {"bbr3"}
    for f in range(4):
        rows = p[p["flow"] == f]
        # STARTUP from the first ACK with an RTT sample (ns-3's BBR is initialised then):
        # one round trip (22 ms for v1, 30 ms for v3, plus transmission) after the start
        start, rtt = (0.0, 0.022) if f < 2 else (1.0, 0.030)
        assert start + rtt < rows["t"].iloc[0] < start + rtt + 0.005
        assert list(rows["phase"])[:2] == ["STARTUP", "DRAIN"]
    v3 = set(p[p["cc"] == "bbr3"]["phase"])
    assert {"PROBE_BW_DOWN", "PROBE_BW_CRUISE"} <= v3 and "PROBE_BW" not in v3
    # BBR v1 probes the RTT once its 10 s min-RTT window expires, then goes back
    for f in (0, 1):
        assert list(p[p["flow"] == f]["phase"]) == ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT", "PROBE_BW"]


def test_the_summary_keeps_only_the_counts(res):
    s, p = res.summary, res.phases
    assert s["bbr_mode_changes"] == (p["cc"] == "bbr").sum()
    assert s["bbr3_state_changes"] == (p["cc"] == "bbr3").sum()
    assert not [k for k in s if k.startswith(("bbr_mode_", "bbr3_state_"))
                and k not in ("bbr_mode_changes", "bbr3_state_changes")]


def test_a_run_without_bbr_has_an_empty_table_and_no_counts(core):
    r = scenario(3.0).with_overrides(**{"dumbbell.groups.0.tcp.variant": "cubic",
                                        "dumbbell.groups.1.tcp.variant": "cubic"}).run()
    assert r.phases.empty and list(r.phases.columns) == ["t", "flow", "cc", "phase"]
    assert "bbr_mode_changes" not in r.summary and "bbr3_state_changes" not in r.summary
    assert not r.has_rows("phases")


def test_cli_prints_counts_and_writes_phases_csv(core, tmp_path: Path):
    sc = tmp_path / "bbr.toml"
    sc.write_text(TOML.format(duration=12.0))
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(sc), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "BBR v1 mode changes" in result.output and "BBR v3 state changes" in result.output
    assert "bbr3_state_" not in result.output and "bbr_mode_" not in result.output
    with (out / "phases.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert (rows[0]["flow"], rows[0]["cc"], rows[0]["phase"]) == ("0", "bbr", "STARTUP")
    assert {r["cc"] for r in rows} == {"bbr", "bbr3"}
