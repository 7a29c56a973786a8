"""Issue 13 (part 2): packet traces in ns-2's format. On the deterministic DropTail
scenarios that run packet for packet as in ns-2, aqmsim's trace of every link equals ns-2's
own `trace-all` output for the exported script, byte for byte: the same events in the same
order, at the same printed times (a traced run keeps ns-2's floating-point clock beside its
own), with the same nodes, packet types, sizes, flags, flow ids, addresses, sequence
numbers and uids."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aqmsim import Scenario, ScenarioError
from aqmsim.ns2.crosscheck import run_ns2
from test_ns2_exact import scenario as exact_scenario

needs_ns = pytest.mark.usefixtures("ns2_binary")  # fails, never skips, without ns-2


@needs_ns
@pytest.mark.parametrize("variant,n", [("reno", 1), ("reno", 2), ("tahoe", 4), ("sack", 8)])
def test_trace_equals_ns2_trace_all(core, tmp_path: Path, variant: str, n: int):
    d = exact_scenario(variant, n)
    d["duration"] = 10
    ns2 = run_ns2(d, 1, tmp_path, samples=False, trace_all=True)
    theirs = (Path(ns2["dir"]) / "trace_all.tr").read_text().splitlines()
    mine = copy.deepcopy(d)
    mine["trace"] = {"links": "all", "format": "ns2", "path": str(tmp_path / "ours.tr")}
    Scenario.from_dict(mine).run(seed=1)
    ours = (tmp_path / "ours.tr").read_text().splitlines()
    assert len(ours) == len(theirs) > 20_000
    bad = [i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b]
    assert not bad, f"line {bad[0] + 1}: ns-2 {theirs[bad[0]]!r}, aqmsim {ours[bad[0]]!r}"


def test_trace_of_the_monitored_link_by_default(core, tmp_path: Path):
    d = exact_scenario("reno", 2)
    d["duration"] = 3
    d["trace"] = {"path": str(tmp_path / "t.tr")}
    r = Scenario.from_dict(d).run(seed=1)
    lines = (tmp_path / "t.tr").read_text().splitlines()
    assert {tuple(l.split()[2:4]) for l in lines} == {("0", "1")}     # R1 -> R2 only
    kinds = {l[0] for l in lines}
    assert kinds == {"+", "-", "r", "d"}
    assert sum(l[0] == "d" for l in lines) == r.summary["bottleneck_drops"]
    assert sum(l[0] == "+" for l in lines) == r.summary["bottleneck_arrivals"]
    assert r.resolved["trace"] == {"links": ["R1->R2"], "format": "ns2", "path": str(tmp_path / "t.tr")}


@pytest.mark.parametrize("trace,field,words", [
    ({"links": ["R9->R1"], "path": "x.tr"}, "trace.links[0]", "no link"),
    ({"links": "some", "path": "x.tr"}, "trace.links", 'expected "all" or a list'),
    ({"format": "json", "path": "x.tr"}, "trace.format", "expected one of: ns2, pcap"),
    ({"links": "all"}, "trace.path", "required"),
    ({"links": [], "path": "x.tr"}, "trace.links", "no link to trace"),
])
def test_bad_trace_names_the_field(core, trace, field, words):
    d = exact_scenario("reno", 1)
    d["trace"] = trace
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(d).validate()
    assert str(info.value).startswith(field) and words in str(info.value), str(info.value)


def test_unwritable_trace_path_is_refused_before_running(core, tmp_path: Path):
    d = exact_scenario("reno", 1)
    d["trace"] = {"path": str(tmp_path / "no" / "such" / "dir" / "t.tr")}
    with pytest.raises(ScenarioError, match=r"^trace\.path: cannot write .*t\.tr"):
        Scenario.from_dict(d).run()


CHILD = r"""
import json, resource, signal, sys, warnings
import aqmsim
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))   # the "disk" fills at 200 kB
d = json.loads(sys.argv[1])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = aqmsim.Scenario.from_dict(d).run(seed=1)
print(json.dumps({"error": r.trace_error, "warned": [str(x.message) for x in w],
                  "arrivals": r.summary["bottleneck_arrivals"], "flows": len(r.flows)}))
"""


def test_a_trace_that_fills_the_disk_stops_cleanly_and_the_results_are_kept(core, tmp_path: Path):
    d = exact_scenario("reno", 2)
    d["duration"] = 10
    full = copy.deepcopy(d)
    full["trace"] = {"links": "all", "path": str(tmp_path / "t.tr")}
    p = subprocess.run([sys.executable, "-c", CHILD, json.dumps(full)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["error"] and "the trace stopped at t = " in out["error"], out
    assert any("packet trace incomplete" in w for w in out["warned"])
    assert out["arrivals"] == Scenario.from_dict(d).run(seed=1).summary["bottleneck_arrivals"]
    assert os.path.getsize(tmp_path / "t.tr") <= 200_000
