"""COBALT (`kind = "cobalt"`) in scenarios: ns-3.37's defaults resolved, every field ranged
with a one-line error naming it (exit 2 from the CLI), `aqmsim list` shows it, and a
dumbbell through it runs deterministically with COBALT's drops and marks logged. Agreement
with ns-3 packet for packet: tests/test_ns3_cobalt.py; the arithmetic: cobalt_tests.rs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from test_cli import _one_line_error

runner = CliRunner()

BASE = """
name = "cobalt"
duration = "8s"
seed = 3
[tcp]
variant = "newreno"
ecn = {ecn}
window = 200
[dumbbell.bottleneck]
rate = "5Mb"
delay = "20ms"
[dumbbell.bottleneck.queue]
kind = "cobalt"
{fields}
[[dumbbell.groups]]
count = 6
start = {{ uniform = [0.0, 0.5] }}
access = {{ rate = "100Mb", delay = "2ms" }}
"""


def scenario(fields: str = "", ecn: bool = False) -> Scenario:
    return Scenario.from_toml_string(BASE.format(fields=fields, ecn=str(ecn).lower()), path="c.toml")


def test_defaults_are_ns3s():
    q = scenario().validate()["links"][0]["queue"]  # the bottleneck (ce_threshold: none)
    assert q == {"kind": "cobalt", "limit_bytes": 1_500_000, "target": 0.005, "interval": 0.1,
                 "ecn": False, "l4s": False, "blue_threshold": 0.4,
                 "increment": 1 / 256, "decrement": 1 / 4096, "p_drop": 0.0}


BAD = [
    ('target = "0ms"', "queue.target: must be > 0 s"),
    ('interval = "5s"', "queue.interval: must be in (0, 4.294967295] s"),
    ('interval = "-1ms"', "queue.interval"),
    ('blue_threshold = "-1ms"', "queue.blue_threshold: must be a time in [0, 1e6] s"),
    ("increment = 1.5", "queue.increment: must be in [0, 1], got 1.5"),
    ("decrement = -0.1", "queue.decrement: must be in [0, 1]"),
    ("p_drop = 2", "queue.p_drop: must be in [0, 1], got 2"),
    ('ce_threshold = "1ms"', "queue.ce_threshold: marks ECN-capable packets: it needs ecn = true or l4s = true"),
    ("limit = 0", "queue.limit: must be ≥ 1 packet, got 0"),
    ("limit_bytes = 0", "queue.limit_bytes: must be ≥ 1 byte"),
    ("limit = 10\nlimit_bytes = 10000", "queue.limit_bytes: give either limit or limit_bytes, not both"),
    ("flows = 4", "queue.flows: not a parameter of cobalt"),
]


@pytest.mark.parametrize("fields, needle", BAD, ids=[b[0].split()[0] for b in BAD])
def test_bad_fields_are_named(fields, needle):
    with pytest.raises(ScenarioError) as info:
        scenario(fields).validate()
    assert needle in str(info.value), str(info.value)


def test_cli_refuses_in_one_line(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(BASE.format(fields="increment = 7", ecn="false"))
    text = _one_line_error(runner.invoke(app, ["run", str(p)]))
    assert "increment" in text and "[0, 1]" in text


def test_list_shows_cobalt():
    out = runner.invoke(app, ["list", "cobalt"])
    assert out.exit_code == 0, out.output
    for field in ("blue_threshold", "increment", "decrement", "p_drop", "l4s", "limit_bytes"):
        assert field in out.output


def test_dumbbell_runs_deterministically_and_cobalt_acts():
    a = scenario('limit = 60').run()
    b = scenario('limit = 60').run()
    s = {k: v for k, v in a.summary.items() if k != "wall_seconds"}
    assert s == {k: v for k, v in b.summary.items() if k != "wall_seconds"}
    assert s["bottleneck_drops"] > 10 and s["utilisation"] > 0.9, s
    assert s["drops_early"] > 0, s  # CoDel's control-law drops
    e = scenario("ecn = true", ecn=True).run().summary
    assert e["marks"] > 10 and e["bottleneck_drops"] < s["bottleneck_drops"], e
