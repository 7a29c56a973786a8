"""RFC 7928's traffic models through the Python API: web transfers and their completion
times in the flows table and the summary, on/off sources, bursty CBR and a varying link
rate; every new key in the metric registry; named errors; the ns-2 export refuses them."""

from __future__ import annotations

import math

import pytest

from aqmsim import Scenario, ScenarioError, metrics
from aqmsim.ns2.export import Ns2ExportError, build_plan


def web_dumbbell(**web) -> dict:
    return {
        "duration": 20,
        "tcp": {"variant": "newreno", "window": 1000},
        "dumbbell": {
            "bottleneck": {"rate": "10Mb", "delay": "10ms",
                           "queue": {"kind": "red", "limit": 100},
                           "rate_schedule": [["0s", "10Mb"], ["10s", "5Mb"]]},
            "groups": [
                {"name": "bulk", "count": 2, "access": {"rate": "100Mb", "delay": "2ms"}},
                {"name": "web", "count": 2, "app": "web",
                 "access": {"rate": "100Mb", "delay": "5ms"}, "tcp": {"window_init": 10},
                 "web": {"arrival_rate": 4.0,
                         "size": {"pareto": {"mean": 50000, "shape": 1.2}, "max": 2e6},
                         **web}},
                {"name": "video", "app": "onoff", "access": {"rate": "100Mb", "delay": "5ms"},
                 "onoff": {"rate": "500kb", "on": {"exponential": "1s"}, "off": "1s"}},
                {"name": "frames", "app": "cbr", "access": {"rate": "100Mb", "delay": "5ms"},
                 "cbr": {"rate": "200kb", "packet_size": 1000, "burst": 4}},
            ],
        },
        "monitor": {"delays": True},
    }


def test_web_transfers_in_the_flows_table_and_summary(core) -> None:
    r = Scenario.from_dict(web_dumbbell()).run(seed=2)
    f, s = r.flows, r.summary
    assert str(f["size_bytes"].dtype) == "int64" and str(f["fct_s"].dtype) == "float64"
    web = f[f["app"] == "web"]
    other = f[f["app"] != "web"]
    assert set(other["app"]) == {"ftp", "onoff", "cbr"}
    assert (other["size_bytes"] == 0).all() and other["fct_s"].isna().all()
    assert 100 < len(web) < 230  # 2 sources × 4/s × 20 s = 160 expected
    assert (web["size_bytes"] >= 1).all() and (web["label"] == "web").all()
    done = web["fct_s"].dropna()
    assert s["transfers"] == len(web) and s["transfers_done"] == len(done) > 0.8 * len(web)
    # the statistics take every transfer, one not done at the time it ran (a lower bound)
    every = web["fct_s"].fillna(s["duration"] - web["start"])
    assert len(done) < len(web), "some transfers run past the end at this load"
    assert s["fct_mean_s"] == pytest.approx(every.mean())
    assert s["fct_p50_s"] == pytest.approx(every.quantile(0.5))
    assert s["fct_p99_s"] == pytest.approx(every.quantile(0.99))
    # the varying bottleneck: 10 s at 10 Mb/s, 10 s at 5 Mb/s
    assert s["bottleneck_rate_bps"] == pytest.approx(7.5e6)
    assert 0 < s["utilisation"] <= 1
    for k in ("transfers", "transfers_done", "fct_mean_s", "fct_p50_s", "fct_p99_s"):
        assert k in metrics.SUMMARY
    for c in ("size_bytes", "fct_s"):
        assert c in metrics.TABLES["flows"]
    assert "long-lived" in metrics.metric("jain_fairness").definition


def test_same_seed_same_flows(core) -> None:
    a = Scenario.from_dict(web_dumbbell()).run(seed=4).flows
    b = Scenario.from_dict(web_dumbbell()).run(seed=4).flows
    c = Scenario.from_dict(web_dumbbell()).run(seed=5).flows
    cols = ["start", "size_bytes", "fct_s", "sent", "received"]
    assert a[cols].equals(b[cols])
    assert not (len(a) == len(c) and a[cols].equals(c[cols]))


def test_no_transfer_done_gives_lower_bounds(core) -> None:
    d = web_dumbbell(max_transfers=1)
    d["duration"] = 0.05  # shorter than any transfer's round trips
    d["dumbbell"]["bottleneck"].pop("rate_schedule")
    d["dumbbell"]["groups"][1]["start"] = 0.0
    d["dumbbell"]["groups"][1]["web"]["arrival_rate"] = 1000.0
    r = Scenario.from_dict(d).run(seed=1)
    s, web = r.summary, r.flows[r.flows["app"] == "web"]
    assert s["transfers"] == 2 and s["transfers_done"] == 0 and web["fct_s"].isna().all()
    elapsed = 0.05 - web["start"]
    assert s["fct_mean_s"] == pytest.approx(elapsed.mean()) and s["fct_p50_s"] == pytest.approx(elapsed.median())
    assert "lower bound when transfers_done < transfers" in metrics.metric("fct_p99_s").definition


def test_web_sources_without_transfers_run_with_nan_fct(core) -> None:
    d = web_dumbbell(arrival_rate=0.001)
    d["duration"] = 1.0
    d["dumbbell"]["bottleneck"].pop("rate_schedule")
    d["dumbbell"]["groups"] = [d["dumbbell"]["groups"][1]]  # web only
    d["monitor"] = {"delays": True}
    sc = Scenario.from_dict(d)
    sc.validate()
    r = sc.run(seed=1)  # a valid scenario whatever the seed draws
    s = r.summary
    assert len(r.flows) == 0 and s["transfers"] == 0 and s["transfers_done"] == 0
    assert math.isnan(s["fct_p50_s"]) and math.isnan(s["fct_mean_s"])
    assert metrics.metric("fct_p50_s").text(s["fct_p50_s"]) == "—"


def test_the_resolved_web_scenario_reruns_to_the_same_results(core) -> None:
    """`aqmsim validate`'s output (resolved.json) is a scenario with the same results."""
    d = web_dumbbell()
    d["seed"] = 3
    resolved = Scenario.from_dict(d).validate()
    assert all("transfers" not in f for f in resolved["flows"])
    a, b = Scenario.from_dict(d).run(), Scenario.from_dict(resolved).run()
    cols = ["start", "size_bytes", "fct_s", "sent", "received"]
    assert a.flows[cols].equals(b.flows[cols])
    keys = [k for k in a.summary if k != "wall_seconds"]
    assert [a.summary[k] for k in keys] == pytest.approx([b.summary[k] for k in keys], nan_ok=True, rel=0, abs=0)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["dumbbell"]["groups"][1]["web"]["size"]["pareto"].update(shape=0.9),
     "dumbbell.groups[1].web.size.pareto.shape: must be > 1 (a finite mean) and ≤ 100, got 0.9"),
    (lambda d: d["dumbbell"]["groups"][1]["web"].update(arrival_rate=-1),
     "dumbbell.groups[1].web.arrival_rate: must be in (0, 1e6] transfers per second, got -1"),
    (lambda d: d["dumbbell"]["groups"][2]["onoff"].update(off={"gamma": "1s"}),
     "dumbbell.groups[2].onoff.off.gamma: unknown field (expected: exponential, pareto)"),
    (lambda d: d["dumbbell"]["groups"][3]["cbr"].update(burst=0),
     "dumbbell.groups[3].cbr.burst: must be in [1, 1000000] packets, got 0"),
    (lambda d: d["dumbbell"]["bottleneck"]["rate_schedule"].append(["5s", "1Mb"]),
     "dumbbell.bottleneck.rate_schedule[2][0]: times must increase, got 5 s after 10 s"),
])
def test_bad_inputs_name_the_field(core, edit, message: str) -> None:
    d = web_dumbbell()
    edit(d)
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d).run(seed=1)
    assert str(e.value) == message


@pytest.mark.parametrize("group, field", [(1, "app"), (3, "cbr.burst")])
def test_ns2_export_refuses_the_new_traffic(group: int, field: str) -> None:
    d = web_dumbbell()
    d["dumbbell"]["bottleneck"].pop("rate_schedule")
    d["dumbbell"]["groups"] = [d["dumbbell"]["groups"][0], d["dumbbell"]["groups"][group]]
    with pytest.raises(Ns2ExportError, match=rf"^dumbbell\.groups\.1\.{field}: .*cannot be exported to ns-2"):
        build_plan(d, 1)
    with pytest.raises(Ns2ExportError, match=r"^dumbbell\.bottleneck\.rate_schedule: "):
        build_plan(web_dumbbell(), 1)


def onoff_dumbbell(on, off, duration=400.0) -> dict:
    return {
        "duration": duration,
        "dumbbell": {
            "bottleneck": {"rate": "100Mb", "delay": "10ms", "queue": {"kind": "droptail", "limit": 1000}},
            "groups": [{"count": 4, "app": "onoff", "access": {"rate": "100Mb", "delay": "1ms"},
                        "onoff": {"rate": "1Mb", "packet_size": 1000, "on": on, "off": off}}],
        },
    }


def test_ns2_export_writes_onoff_sources() -> None:
    from aqmsim.ns2.export import to_tcl

    tcl = to_tcl(onoff_dumbbell({"pareto": {"mean": "500ms", "shape": 1.5}},
                                {"pareto": {"mean": "1500ms", "shape": 1.5}}), 1, "/tmp/x")
    assert tcl.count("[new Application/Traffic/Pareto]") == 4
    # each on/off source draws from an RNG of its own, made before any node or queue (so
    # that what the script makes later cannot move it), on substream <seed>
    for i in range(4):
        assert f"$app({i}) use-rng $rng({i})" in tcl
        assert tcl.index(f"set rng({i}) [new RNG]") < tcl.index("[$ns node]")
    assert "for {set k 0} {$k < 1} {incr k} { $rng(0) next-substream }" in tcl
    for line in ("$app(0) set burst_time_ 0.5", "$app(0) set idle_time_ 1.5",
                 "$app(0) set shape_ 1.5", "$app(0) set rate_ 1000000"):
        assert line in tcl
    # what ns-2's classes cannot draw is refused, naming the field
    for on, off, field in [("100ms", {"exponential": "1s"}, "on"),
                           ({"exponential": "1s"}, {"pareto": {"mean": "1s", "shape": 2}}, "off")]:
        with pytest.raises(Ns2ExportError, match=rf"^dumbbell\.groups\.0\.onoff\.{field}: ns-2"):
            build_plan(onoff_dumbbell(on, off), 1)


@pytest.mark.ns2
@pytest.mark.parametrize("kind", ["exponential", "pareto"])
def test_onoff_rate_agrees_with_ns2(core, tmp_path, kind: str) -> None:
    """Same semantics, different random streams: the mean rates of four sources over 400 s
    (about 800 on/off cycles each) agree with each other and with rate·on/(on+off)."""
    from aqmsim.ns2.crosscheck import ns_available, run_ns2

    if not ns_available():
        pytest.fail("ns-2 (`ns`) is not installed: run `make ns2`")
    period = (lambda m: {"exponential": m}) if kind == "exponential" else \
        (lambda m: {"pareto": {"mean": m, "shape": 2.5}})
    sc = onoff_dumbbell(period("500ms"), period("1500ms"))
    ours = Scenario.from_dict(sc).run(seed=1).summary["throughput_bps"]
    theirs = run_ns2(sc, 1, tmp_path)["throughput_bps"]
    want = 4 * 1e6 * 0.5 / 2.0  # 1 Mb/s; the count's relative σ is 2-3 %
    assert ours == pytest.approx(want, rel=0.08) and theirs == pytest.approx(want, rel=0.08)
    assert ours == pytest.approx(theirs, rel=0.1)


@pytest.mark.ns2
def test_ns2_onoff_pattern_does_not_depend_on_red_coins(core, tmp_path) -> None:
    """The on/off sources' own RNGs: beside a RED queue drawing its coins in another part of
    the network, they send exactly the packets they send without it (with ns-2's default
    RNG shared, the coins would move their bursts)."""
    from aqmsim.ns2.crosscheck import ns_available, run_ns2

    if not ns_available():
        pytest.fail("ns-2 (`ns`) is not installed: run `make ns2`")
    onoff = {"src": "A", "dst": "B", "app": "onoff", "count": 2,
             "onoff": {"rate": "1Mb", "packet_size": 1000, "on": {"exponential": "200ms"},
                       "off": {"exponential": "300ms"}}}
    alone = {"duration": 30, "nodes": ["A", "B", "C", "D"],
             "links": [{"from": "A", "to": "B", "rate": "100Mb", "delay": "5ms",
                        "queue": {"kind": "droptail", "limit": 1000}},
                       {"from": "C", "to": "D", "rate": "2Mb", "delay": "20ms",
                        "queue": {"kind": "red", "limit": 60}}],
             "flows": [onoff], "monitor": {"queues": ["C->D"]}}
    beside = {**alone, "flows": [onoff, {"src": "C", "dst": "D", "count": 4}]}
    a, b = run_ns2(alone, 2, tmp_path / "a"), run_ns2(beside, 2, tmp_path / "b")
    assert b["bottleneck_drops"] > 20, "RED drew coins and dropped"
    rx = lambda r: [f["received"] for f in r["flows"][:2]]  # noqa: E731
    assert rx(a) == rx(b) and min(rx(a)) > 100
