"""FQ-COBALT in a dumbbell (issue 25, point 5): `aqmsim run` with `kind = "fq_cobalt"`,
`aqmsim list fq_cobalt`, one-line field-named errors. Packet-for-packet agreement with
ns-3.37 is tests/test_ns3_fq_cobalt.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app
from test_cli import _one_line_error
from test_fq_pie import DUMBBELL

runner = CliRunner()


def test_dumbbell_runs_with_fq_cobalt(core, tmp_path: Path):
    path = tmp_path / "fq-cobalt.toml"
    path.write_text(DUMBBELL.format(kind="fq_cobalt"))
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert "BLUE (random, per flow queue" in result.output  # the drop-reason labels
    s = Scenario.from_toml_string(path.read_text()).run().summary
    assert s["bottleneck_arrivals"] == s["bottleneck_departures"] + s["bottleneck_drops"] + s["bottleneck_queued_end"]
    assert s["marks"] > 0, s  # ECN (ns-3's default on): CoDel marks per queue
    # in slow start a flow queue's head waits more than blue_threshold (400 ms) while the
    # round robin serves the others: BLUE rises to 1/256 and drops (ECN-capable or not)
    assert s["drops_forced"] > 0 and s["drops_early"] == 0, s
    late = Scenario.from_toml_string(DUMBBELL.format(kind="fq_cobalt").replace(
        'kind = "fq_cobalt"', 'kind = "fq_cobalt", blue_threshold = "10s"')).run().summary
    assert late["drops_forced"] == 0, late
    # ECN off: the control law drops instead
    off = Scenario.from_toml_string(DUMBBELL.format(kind="fq_cobalt").replace(
        'kind = "fq_cobalt"', 'kind = "fq_cobalt", ecn = false')).run().summary
    assert off["drops_early"] > 0 and off["marks"] == 0, off
    # seeded, deterministic
    again = Scenario.from_toml_string(path.read_text()).run().summary
    assert {k: v for k, v in again.items() if k != "wall_seconds"} == {k: v for k, v in s.items() if k != "wall_seconds"}


def test_list_shows_fq_cobalt(core):
    result = runner.invoke(app, ["list", "fq_cobalt"])
    assert result.exit_code == 0, result.output
    for field in ("limit", "flows", "quantum", "drop_batch", "classify", "perturbation",
                  "set_associative_hash", "target", "interval", "ecn", "ce_threshold", "l4s",
                  "blue_threshold", "increment", "decrement", "p_drop"):
        assert field in result.output, field
    assert "fq_cobalt" in core.disciplines()


BAD = [
    # (field, value, words the one line must hold)
    ("limit", "0", "≥ 1"),
    ("flows", "0", "[1, 65536]"),
    ("flows", "70000", "[1, 65536]"),
    ("quantum", "0", "≥ 1"),
    ("drop_batch", "0", "≥ 1"),
    ("limit", "-3", "integer"),
    ("classify", "'buckets'", "hash, flow"),
    ("target", "'0ms'", "> 0"),
    ("interval", "'5s'", "4.29"),
    ("blue_threshold", "'-1ms'", "[0, 1e6]"),
    ("increment", "1.5", "[0, 1]"),
    ("decrement", "-0.1", "[0, 1]"),
    ("p_drop", "2", "[0, 1]"),
    ("set_associative_hash", "true", "not supported"),
    ("l4s", "true", "ce_threshold"),
]


@pytest.mark.parametrize("field, value, needle", BAD, ids=[f"{f}={v}" for f, v, _ in BAD])
def test_bad_fields_are_named(core, tmp_path: Path, field: str, value: str, needle: str):
    path = tmp_path / "fq-cobalt.toml"
    path.write_text(DUMBBELL.format(kind="fq_cobalt"))
    text = _one_line_error(runner.invoke(
        app, ["validate", str(path), "--set", f"dumbbell.bottleneck.queue.{field}={value}"]))
    want = "ce_threshold" if field == "l4s" else field
    assert f"dumbbell.bottleneck.queue.{want}" in text, text
    assert needle in text, text


def test_fields_it_does_not_take_are_named(core, tmp_path: Path):
    path = tmp_path / "fq-cobalt.toml"
    path.write_text(DUMBBELL.format(kind="fq_cobalt"))
    for field, value in (("limit_bytes", "1000"), ("t_update", "'1ms'"), ("set_ways", "8")):
        text = _one_line_error(runner.invoke(
            app, ["validate", str(path), "--set", f"dumbbell.bottleneck.queue.{field}={value}"]))
        assert field in text, text
    path.write_text(DUMBBELL.format(kind="fq_cobalt").replace('kind = "fq_cobalt"', 'kind = "fq_cobalt", classify = "flow", perturbation = 3'))
    text = _one_line_error(runner.invoke(app, ["validate", str(path)]))
    assert "dumbbell.bottleneck.queue.perturbation" in text, text


def test_defaults_are_ns3s(core):
    q = Scenario.from_toml_string(DUMBBELL.format(kind="fq_cobalt")).validate()["links"][0]["queue"]
    assert q == {"kind": "fq_cobalt", "limit": 10240, "flows": 1024, "quantum": 1500, "drop_batch": 64,
                 "classify": "hash", "perturbation": 0, "target": 0.005, "interval": 0.1, "ecn": True,
                 "l4s": False, "blue_threshold": 0.4,
                 "increment": 1 / 256, "decrement": 1 / 4096, "p_drop": 0.0}


def test_ns2_export_refuses_it_in_one_line():
    from aqmsim.ns2.export import Ns2ExportError
    from aqmsim.ns2.queues import normalize_queue
    with pytest.raises(Ns2ExportError) as info:
        normalize_queue({"kind": "fq_cobalt"}, "dumbbell.bottleneck.queue")
    text = str(info.value)
    assert text.startswith("dumbbell.bottleneck.queue.kind:") and "ns-3.37" in text and "\n" not in text
