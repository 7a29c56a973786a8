"""Manual routes in the exported ns-2 script (aqmsim.ns2.routes).

A forest of duplex links (every dumbbell) is routed by hand, as ns-2's many-flow examples
do, instead of ns-2's all-pairs route computation at start-up; it must not change a single
packet: ns-2's full trace (``$ns trace-all``: every enqueue, dequeue, receive and drop on
every link) is byte for byte the same with either. Any other topology keeps ns-2's own
computation.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest
from aqmsim.ns2.crosscheck import ns_available, ns_binary
from aqmsim.ns2.export import build_plan, to_tcl
from aqmsim.ns2.routes import manual_routes

RED = {"kind": "red", "limit": 30, "min_th": 3, "max_th": 9, "max_p": 0.1, "w_q": 0.01,
       "gentle": False, "wait": True, "ecn": False, "bytes": False, "queue_in_bytes": False,
       "mean_pktsize": 1000}


def dumbbell(n: int = 4, egress: bool = True) -> Dict[str, Any]:
    g: Dict[str, Any] = {"count": n, "access": {"rate": "10Mb", "delay": {"uniform": ["1ms", "5ms"]}},
                         "start": {"uniform": [0.0, 0.5]}}
    if egress:
        g["egress"] = {"rate": "10Mb", "delay": "1ms"}
    return {"name": "routes", "duration": 6, "tcp": {"variant": "reno", "window": 40},
            "dumbbell": {"bottleneck": {"rate": "2Mb", "delay": "10ms", "queue": dict(RED)}, "groups": [g]}}


def tree() -> Dict[str, Any]:
    """Three routers in a row, hosts on each; flows cross one or two routers, both ways."""
    link = {"rate": "5Mb", "delay": "2ms", "queue": {"kind": "droptail", "limit": 20}}
    nodes = ["A", "B", "C", "h0", "h1", "h2", "h3", "h4"]
    links = [dict(link, **{"from": a, "to": b}) for a, b in
             [("A", "B"), ("B", "C"), ("h0", "A"), ("h1", "A"), ("h2", "B"), ("h3", "C"), ("h4", "C")]]
    flows = [{"src": s, "dst": d, "start": t} for s, d, t in
             [("h0", "h3", 0.0), ("h1", "h4", 0.1), ("h4", "h0", 0.2), ("h2", "h1", 0.3), ("h3", "h2", 0.4)]]
    return {"name": "tree", "duration": 5, "tcp": {"variant": "newreno", "window": 30},
            "nodes": nodes, "links": links, "flows": flows, "monitor": {"queues": ["A->B"]}}


def ring() -> Dict[str, Any]:
    sc = tree()
    sc["links"].append(dict(sc["links"][0], **{"from": "C", "to": "A"}))
    return sc


def test_a_dumbbell_is_routed_as_ns2s_many_flow_examples_do():
    plan = build_plan(dumbbell(3), 1)
    idx = {n: i for i, n in enumerate(plan.nodes)}
    r = manual_routes(plan)
    # each router: a default route over the bottleneck, one route per host on its side
    assert r[idx["R1"]] == (idx["R2"], [(idx[f"S{k}"], idx[f"S{k}"]) for k in range(3)])
    assert r[idx["R2"]] == (idx["R1"], [(idx[f"D{k}"], idx[f"D{k}"]) for k in range(3)])
    # each host: its one link, as a default route
    for k in range(3):
        assert r[idx[f"S{k}"]] == (idx["R1"], [])
        assert r[idx[f"D{k}"]] == (idx["R2"], [])
    tcl = to_tcl(dumbbell(3), 1, "/tmp/x")
    assert tcl.index("$ns rtproto Manual") < tcl.index("[$ns node]")  # before the nodes
    assert "$rt add-route-to-adj-node -default $n(1)" in tcl


def test_sinks_on_the_router_and_a_tree_get_routes():
    plan = build_plan(dumbbell(2, egress=False), 1)
    idx = {n: i for i, n in enumerate(plan.nodes)}
    r = manual_routes(plan)
    assert r[idx["R2"]] == (idx["R1"], [])  # every destination is behind R1
    assert r[idx["R1"]][0] in (idx["S0"], idx["S1"], idx["R2"])
    plan = build_plan(tree(), 1)
    idx = {n: i for i, n in enumerate(plan.nodes)}
    r = manual_routes(plan)
    # B: h2 is its own host; A's side has h0, h1; C's side h3, h4 (tie: lowest index, A)
    assert r[idx["B"]] == (idx["A"], sorted([(idx["h2"], idx["h2"]), (idx["h3"], idx["C"]), (idx["h4"], idx["C"])]))


def test_a_cycle_keeps_ns2s_route_computation():
    assert manual_routes(build_plan(ring(), 1)) is None
    tcl = to_tcl(ring(), 1, "/tmp/x")
    assert "rtproto" not in tcl and "get-module Manual" not in tcl
    assert "rtproto" not in to_tcl(dumbbell(2), 1, "/tmp/x", static_routes=True)


def _trace(sc: Dict[str, Any], tmp: Path, static: bool) -> bytes:
    d = tmp / ("static" if static else "manual")
    d.mkdir()
    script = d / "script.tcl"
    script.write_text(to_tcl(sc, 3, str(d), trace_all=True, flow_monitor=True, static_routes=static))
    p = subprocess.run([ns_binary(), str(script)], cwd=d, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return b"".join((d / f).read_bytes() for f in ("trace_all.tr", "summary.txt", "queue_0.txt"))


@pytest.mark.ns2
@pytest.mark.parametrize("make", [dumbbell, lambda: dumbbell(3, egress=False), tree], ids=["dumbbell", "no-egress", "tree"])
def test_manual_routes_change_no_packet(tmp_path, make):
    if not ns_available():
        pytest.fail("ns-2 (`ns`) is not installed: run `make ns2`")
    manual = _trace(make(), tmp_path, static=False)
    assert len(manual) > 10_000  # packets flowed
    assert manual == _trace(make(), tmp_path, static=True)
