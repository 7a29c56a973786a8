"""Issue 23: PIE's ``t_update`` has a range (≥ 1 ms, Linux's finest: one jiffy at HZ = 1000),
refused with one line naming the field; and the engine counts PIE's updates (run lazily,
one per ``t_update``) as events against ``max_events``, so that no configuration spins
uncounted (``t_update = 1e-9`` used to run 10⁹ uncounted updates per simulated second)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from test_cli import _one_line_error

runner = CliRunner()


def idle_dumbbell(queue: dict, duration: float = 2.0, **top) -> dict:
    """One flow that never starts (start = duration): only timers run, PIE's among them."""
    return {"duration": duration, **top,
            "dumbbell": {"bottleneck": {"rate": "10Mb", "delay": "10ms", "queue": queue},
                         "groups": [{"count": 1, "access": {"rate": "100Mb", "delay": "1ms"},
                                     "start": duration}]}}


@pytest.mark.parametrize("value", [1e-9, "1ns", "999us", 0])
def test_t_update_below_1ms_is_refused_naming_the_field(core, value) -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(idle_dumbbell({"kind": "pie", "t_update": value})).run(seed=1)
    msg = str(info.value)
    assert "dumbbell.bottleneck.queue.t_update" in msg and "[1 ms, 1e6 s]" in msg, msg


def test_t_update_of_1ms_runs(core) -> None:
    s = Scenario.from_dict(idle_dumbbell({"kind": "pie", "t_update": "1ms"})).run(seed=1).summary
    assert s["duration"] == 2.0


def test_cli_refuses_it_in_one_line(core, tmp_path: Path) -> None:
    bad = tmp_path / "pie.toml"
    bad.write_text('duration = "1s"\n[dumbbell.bottleneck]\nrate = "10Mb"\ndelay = "10ms"\n'
                   'queue = { kind = "pie", t_update = 1e-9 }\n'
                   '[[dumbbell.groups]]\naccess = { rate = "100Mb", delay = "1ms" }\n')
    msg = _one_line_error(runner.invoke(app, ["run", str(bad)]))
    assert "t_update" in msg and "1 ms" in msg


def test_aqmsim_list_states_the_range(core) -> None:
    res = runner.invoke(app, ["list", "pie"], env={"COLUMNS": "250"})
    assert res.exit_code == 0
    line = next(ln for ln in res.output.splitlines() if ln.strip().startswith("t_update"))
    assert "[1 ms, 1e6 s]" in line and "jiffy" in line, line


def test_updates_count_as_events(core) -> None:
    """Samples every 10 ms bring PIE up to date: the last at 1.99 s has run the updates at
    0, 1 ms, …, 1.990 s: 1991 of them, each one event more than the same run with DropTail."""
    pie = Scenario.from_dict(idle_dumbbell({"kind": "pie", "t_update": "1ms"})).run(seed=1).summary
    tail = Scenario.from_dict(idle_dumbbell({"kind": "droptail"})).run(seed=1).summary
    assert pie["events"] - tail["events"] == 1991


def test_updates_alone_reach_max_events(core) -> None:
    """220 scheduler events but 1991 updates: max_events = 1000 stops the run, at the
    update past the budget (the 1001st, due at t = 1 s), saying PIE's updates count."""
    sc = idle_dumbbell({"kind": "pie", "t_update": "1ms"}, max_events=1000)
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(sc).run(seed=1)
    msg = str(info.value)
    assert msg.startswith("max_events:") and "probability updates of PIE, FQ-PIE or DualPI2" in msg, msg
    t = float(msg.split(" at t = ")[1].split(" s")[0])
    assert t == 1.0, msg


def test_a_long_idle_spell_is_bounded_by_max_events(core) -> None:
    """One catch-up over 10⁴ s of idle queue would be 10⁷ updates: it stops at the budget."""
    sc = idle_dumbbell({"kind": "pie", "t_update": "1ms"}, duration=1e6, max_events=100_000,
                       monitor={"sample_interval": 1e4, "link_interval": 1e4})
    with pytest.raises(ScenarioError, match=r"max_events = 100000 at t = 100 s of duration 1000000 s"):
        Scenario.from_dict(sc).run(seed=1)
