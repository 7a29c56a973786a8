"""FQ-PIE in a dumbbell (issue 25, point 5): `aqmsim run` with `kind = "fq_pie"`, `aqmsim
list fq_pie`, one-line field-named errors, and the disciplines that now share its code
(FQ-CoDel: the scheduler; PIE: the arithmetic) giving the numbers they gave before.
Packet-for-packet agreement with ns-3.37 is tests/test_ns3_fq_pie.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from test_cli import _one_line_error

runner = CliRunner()

DUMBBELL = """
name = "fq-pie-test"
duration = "10s"

[tcp]
variant = "newreno"
ecn = true
window = 200

[dumbbell.bottleneck]
rate = "10Mb"
delay = "20ms"
queue = {{ kind = "{kind}" }}

[[dumbbell.groups]]
count = 10
start = {{ uniform = [0.0, 1.0] }}
access = {{ rate = "100Mb", delay = {{ uniform = ["1ms", "5ms"] }} }}
"""


def test_dumbbell_runs_with_fq_pie(core, tmp_path: Path):
    path = tmp_path / "fq-pie.toml"
    path.write_text(DUMBBELL.format(kind="fq_pie"))
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert "FQ-PIE" in result.output  # the drop-reason labels name it
    s = Scenario.from_toml_string(path.read_text()).run().summary
    assert s["bottleneck_arrivals"] == s["bottleneck_departures"] + s["bottleneck_drops"] + s["bottleneck_queued_end"]
    assert s["drops_early"] > 0 and s["marks"] > 0, s  # PIE drops and marks per queue
    assert s["drops_forced"] == 0


def test_list_shows_fq_pie(core):
    result = runner.invoke(app, ["list", "fq_pie"])
    assert result.exit_code == 0, result.output
    for field in ("limit", "flows", "quantum", "drop_batch", "classify", "perturbation", "target",
                  "t_update", "alpha", "beta", "max_burst", "dq_threshold", "dq_rate_estimator",
                  "cap_drop_adjustment", "ecn", "mark_ecn_threshold", "derandomize"):
        assert re.search(rf"^\s*{field}\s", result.output, re.M), field
    assert "fq_pie" in core.disciplines()


BAD = [
    # (field, value, words the one line must hold)
    ("limit", "0", "≥ 1"),
    ("flows", "0", "[1, 65536]"),
    ("flows", "70000", "[1, 65536]"),
    ("quantum", "0", "≥ 1"),
    ("drop_batch", "0", "≥ 1"),
    ("limit", "-3", "integer"),
    ("t_update", "'0.1ms'", "1 ms"),
    ("target", "'-1ms'", "[0, 1e6]"),
    ("max_burst", "'-1ms'", "[0, 1e6]"),
    ("mark_ecn_threshold", "1.5", "[0, 1]"),
    ("dq_threshold", "0", "≥ 1"),
    ("classify", "'buckets'", "hash, flow"),
    ("alpha", "nan", "finite"),
]


@pytest.mark.parametrize("field, value, needle", BAD, ids=[f"{f}={v}" for f, v, _ in BAD])
def test_bad_fields_are_named(core, tmp_path: Path, field: str, value: str, needle: str):
    path = tmp_path / "fq-pie.toml"
    path.write_text(DUMBBELL.format(kind="fq_pie"))
    text = _one_line_error(runner.invoke(
        app, ["validate", str(path), "--set", f"dumbbell.bottleneck.queue.{field}={value}"]))
    assert f"dumbbell.bottleneck.queue.{field}" in text, text
    assert needle in text, text


def test_fields_it_does_not_take_are_named(core, tmp_path: Path):
    path = tmp_path / "fq-pie.toml"
    path.write_text(DUMBBELL.format(kind="fq_pie"))
    for field, value in (("s_update", "'1ms'"), ("limit_bytes", "1000"), ("interval", "'100ms'")):
        text = _one_line_error(runner.invoke(
            app, ["validate", str(path), "--set", f"dumbbell.bottleneck.queue.{field}={value}"]))
        assert field in text, text
    path.write_text(DUMBBELL.format(kind="fq_pie").replace('kind = "fq_pie"', 'kind = "fq_pie", classify = "flow", perturbation = 3'))
    text = _one_line_error(runner.invoke(app, ["validate", str(path)]))
    assert "dumbbell.bottleneck.queue.perturbation" in text, text


# The numbers the same runs gave before FQ-CoDel moved onto the shared scheduler and PIE's
# arithmetic into pie_vars.rs (measured on main at b6cf6f2): they must not move.
BEFORE = {
    "fq_codel": {"bottleneck_arrivals": 11637, "bottleneck_departures": 11611, "marks": 357,
                 "bottleneck_drops": 0, "max_queue_pkts": 233, "events": 49477},
    "pie": {"bottleneck_arrivals": 11684, "bottleneck_departures": 11354, "drops_early": 329,
            "timeouts": 17, "max_queue_pkts": 216, "events": 49144},
}


@pytest.mark.parametrize("kind", sorted(BEFORE))
def test_shared_code_leaves_fq_codel_and_pie_unchanged(core, kind: str):
    s = Scenario.from_toml_string(DUMBBELL.format(kind=kind)).run().summary
    assert {k: s[k] for k in BEFORE[kind]} == BEFORE[kind]


def cbr_dumbbell(queue: dict, duration: float, **top) -> dict:
    """One 100 kb/s CBR flow for 0.5 s (no drop, no mark), then an idle bottleneck."""
    return {"duration": duration, **top,
            "dumbbell": {"bottleneck": {"rate": "10Mb", "delay": "10ms", "queue": queue},
                         "groups": [{"count": 1, "app": "cbr", "cbr": {"rate": "100kb", "packet_size": 500},
                                     "access": {"rate": "100Mb", "delay": "1ms"}, "start": 0.0, "stop": 0.5}]}}


def test_each_queues_updates_count_as_events(core) -> None:
    """The one flow queue, created with the first packet (t_c a few ms in), runs an update
    every 1 ms to the end (the monitors bring it up to date): about 2000 events more than
    the same run under FQ-CoDel, whose decisions here are the same (none)."""
    fq_pie = Scenario.from_dict(cbr_dumbbell({"kind": "fq_pie", "t_update": "1ms"}, 2.0)).run(seed=1).summary
    fq_codel = Scenario.from_dict(cbr_dumbbell({"kind": "fq_codel"}, 2.0)).run(seed=1).summary
    assert fq_pie["bottleneck_departures"] == fq_codel["bottleneck_departures"] > 0
    assert 1950 <= fq_pie["events"] - fq_codel["events"] <= 2000, (fq_pie["events"], fq_codel["events"])


def test_a_long_idle_spell_is_bounded_by_max_events(core) -> None:
    """An idle queue's PIE keeps updating (ns-3's timer runs on): one catch-up over 10⁴ s
    would be 10⁷ updates; the run stops at the budget, naming max_events."""
    sc = cbr_dumbbell({"kind": "fq_pie", "t_update": "1ms"}, 1e6, max_events=100_000,
                      monitor={"sample_interval": 1e4, "link_interval": 1e4})
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(sc).run(seed=1)
    msg = str(info.value)
    assert msg.startswith("max_events:") and "probability updates of PIE, FQ-PIE or DualPI2" in msg, msg
    assert "at t = 100.0" in msg, msg  # 10⁵ updates of 1 ms after the queue's creation


def test_dualpi2s_idle_updates_are_bounded_by_max_events_too(core) -> None:
    """DualPI2's PI2 update runs every t_update, idle or not, lazily as PIE's: a catch-up
    past the budget stops the run with the same max_events error (it once ran on silently:
    the engine's end-of-run check did not know DualPI2 had timers)."""
    sc = cbr_dumbbell({"kind": "dualpi2", "t_update": "1ms"}, 1e6, max_events=100_000,
                      monitor={"sample_interval": 1e4, "link_interval": 1e4})
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(sc).run(seed=1)
    msg = str(info.value)
    assert msg.startswith("max_events:") and "probability updates of PIE, FQ-PIE or DualPI2" in msg, msg
