"""make bench's cost of a Python queue discipline (benchmarks/bench/plugin.py, issue 26):
the per-decision pairs are the same runs (so their wall-time difference is the plug-in's
cost), the whole-process run works, and the table says what was measured. Nothing here
is timed against a goal: the numbers are the bench's (docs/performance.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench.config import BenchConfig, load_scenario  # noqa: E402
from bench.plugin import PLUGIN_SCENARIO, plugin_cost, render_plugin  # noqa: E402
from bench.report import render  # noqa: E402

from test_bench import fake_results  # noqa: E402

pytestmark = pytest.mark.usefixtures("core")


def test_the_scenario_is_the_issues_run_with_the_python_red():
    import aqmsim

    path, sc = load_scenario(PLUGIN_SCENARIO)
    resolved = aqmsim.Scenario.from_toml(path).validate()
    link = next(lk for lk in resolved["links"] if (lk["from"], lk["to"]) == ("R1", "R2"))
    assert link["queue"]["kind"] == "python"
    assert link["queue"]["class"] == "aqmsim.plugin.examples.red:Red"
    assert sc["duration"] == "60s" and sc["dumbbell"]["bottleneck"]["rate"] == "10Mb"
    assert sum(g["count"] for g in sc["dumbbell"]["groups"]) == 20


def test_plugin_cost_pairs_are_the_same_runs_and_the_process_runs(tmp_path):
    cfg = BenchConfig(reps=1, duration=3.0)       # 3 rounds at least (reps = max(reps, 3))
    res = plugin_cost(cfg, tmp_path)
    assert "error" not in res, res.get("error")
    assert res["reps"] == 3 and res["duration"] == 3.0
    trivial, red = res["pairs"]
    for r in (trivial, red):
        assert r["same_run"], r["name"]
        assert r["decisions"] == r["arrivals"] > 1000       # enqueue only: no dequeue
        assert r["ns_per_decision"] is not None
        assert len(r["walls"]["plugin"]) == len(r["walls"]["builtin"]) == 3
    ns2, linux = res["cc_pairs"]
    assert (ns2["stack"], linux["stack"]) == ("ns2", "linux")
    for r in (ns2, linux):        # the Python NewReno's run is the built-in NewReno's
        assert r["same_run"], r["name"]
        assert r["decisions"] > 1000 and r["ns_per_decision"] is not None
        assert len(r["walls"]["plugin"]) == len(r["walls"]["builtin"]) == 3
    proc = res["process"]
    assert "error" not in proc, proc.get("error")
    assert len(proc["walls"]["python"]) == 3 and proc["median_s"] > 0
    text = "\n".join(render_plugin(res))
    assert "| Python RED vs built-in RED |" in text and "as a whole process" in text
    assert "| Python NewReno vs built-in NewReno (linux stack) |" in text


def test_the_table_lines():
    pair = {"name": "Python RED vs built-in RED", "plugin_s": 0.17, "builtin_s": 0.04,
            "decisions": 74_000, "ns_per_decision": 1757.0, "dequeue": False}
    res = {"reps": 5, "scenario": PLUGIN_SCENARIO, "duration": 60.0,
           "pairs": [pair, dict(pair, name="slow", ns_per_decision=2500.0),
                     dict(pair, name="other", ns_per_decision=None, dequeue=True)],
           "process": {"command": "aqmsim run x.toml", "median_s": 0.5, "builtin_median_s": 0.4,
                       "max_rss_mib": 26.0}}
    cc = {"name": "Python NewReno vs built-in NewReno (ns2 stack)", "plugin_s": 0.2,
          "builtin_s": 0.1, "decisions": 50_000, "ns_per_decision": 2000.0}
    res["cc_pairs"] = [cc, dict(cc, name="cc other", ns_per_decision=None)]
    text = "\n".join(render_plugin(res))
    assert "| on_ack calls | ns per ACK |" in text
    assert "| Python NewReno vs built-in NewReno (ns2 stack) | 0.200 | 0.100 | 50,000 | **2000** |" in text
    assert "| cc other | 0.200 | 0.100 | 50,000 | not the same run: no figure |" in text
    assert "| Python RED vs built-in RED | 0.170 | 0.040 | 74,000 | **1757** |" in text
    assert "**2500** (goal ≤ 2000)" in text
    assert "| other (enqueue + dequeue) |" in text and "not the same run: no figure" in text
    assert "**0.50 s** (under the 2 s goal; the same run with the built-in RED 0.40 s)" in text
    assert render_plugin(None)[-1] == "(`--no-plugin`.)"
    assert "failed: boom" in "\n".join(render_plugin({"error": "boom"}))
    assert "**Python plug-ins**" in render(fake_results() | {"plugin": res})
    assert "**Python plug-ins**" not in render(fake_results())   # older results: none
