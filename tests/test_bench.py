"""The speed benchmark's own pieces (benchmarks/bench/, not installed with aqmsim): the
ns-2 set-up stamp, ns-3's arguments, the table. The benchmark itself is `make bench`;
nothing here is timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench.cli import main  # noqa: E402
from bench.config import load_scenario, set_duration  # noqa: E402
from bench.ns3 import ns3_arguments  # noqa: E402
from bench.report import render  # noqa: E402
from bench.sims import STAMP, Unsupported, stamp_of, stamped  # noqa: E402

from aqmsim.ns2.crosscheck import ns_available, ns_binary  # noqa: E402
from aqmsim.ns2.export import to_tcl  # noqa: E402


def small() -> dict:
    sc = set_duration(load_scenario("red-100M-n10")[1], 2.0)
    sc["dumbbell"]["groups"][0]["count"] = 3
    return sc


def test_the_stamp_is_one_event_before_ns_run():
    tcl = to_tcl(small(), 1, "/tmp/x", samples=False)
    out = stamped(tcl)
    added = [ln for ln in out.splitlines() if ln not in tcl.splitlines()]
    assert added == [f'$ns at 0 {{puts stderr "{STAMP} [clock microseconds]"}}']
    assert out.index(added[0]) < out.index("\n$ns run\n")
    assert stamp_of(f"noise\n{STAMP} 1795513151562238\n") == pytest.approx(1795513151.562238)
    assert stamp_of("no stamp") is None
    with pytest.raises(ValueError, match=r"\$ns run"):
        stamped("set ns [new Simulator]\n")


@pytest.mark.ns2
def test_the_stamp_changes_no_packet(tmp_path):
    if not ns_available():
        pytest.fail("ns-2 (`ns`) is not installed: run `make ns2`")
    got = []
    for name, edit in (("plain", lambda t: t), ("stamped", stamped)):
        d = tmp_path / name
        d.mkdir()
        (d / "s.tcl").write_text(edit(to_tcl(small(), 1, str(d), samples=False, trace_all=True)))
        p = subprocess.run([ns_binary(), "s.tcl"], cwd=d, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        got.append(((d / "trace_all.tr").read_bytes(), (d / "summary.txt").read_bytes(), stamp_of(p.stderr)))
    assert got[0][0] == got[1][0] and len(got[0][0]) > 10_000 and got[0][1] == got[1][1]
    assert got[0][2] is None and got[1][2] is not None


def test_ns3_arguments_of_the_benchmark_scenarios():
    args = ns3_arguments(load_scenario("red-100M-n100")[1], 1)
    assert "--flows=100" in args and "--minTh=30.0" in args and "--tcp=newreno" in args
    assert "--queue=codel" in ns3_arguments(load_scenario("codel-100M-n100")[1], 1)
    sc = small()
    sc["dumbbell"]["groups"].append(dict(sc["dumbbell"]["groups"][0]))
    with pytest.raises(Unsupported, match="one dumbbell group"):
        ns3_arguments(sc, 1)


def fake_results() -> dict:
    def run(wall, pkts, inner, rss):
        return {"wall": wall, "max_rss_mib": rss, "packets": pkts, "arrivals": pkts, "drops": 10,
                "utilisation": 0.97, "events": None, "inner": inner, "extra": {}, "error": None,
                "timed_out": False}
    sims = {
        "aqmsim": {"note": "", "runs": [run(0.5, 1000, {"engine": 0.4}, 12.0)], "median_wall_s": 0.5,
                   "median_inner_s": {"engine": 0.4}, "pkts_per_s": 2000.0, "consistent": True},
        "ns-2": {"note": "", "runs": [run(4.0, 1000, {"setup": 1.0, "run": 3.0}, 30.0)], "median_wall_s": 4.0,
                 "median_inner_s": {"setup": 1.0, "run": 3.0}, "pkts_per_s": 250.0, "consistent": True},
    }
    rows = [{"command": c, "argv": [], "runs": 3, "walls": [w, w, w], "median_wall_s": w, "max_rss_mib": 50.0,
             "error": None} for c, w in (("import aqmsim", 0.1), ("aqmsim --help", 0.2),
                                         ("aqmsim run red-100M-n100", 0.8))]
    return {"started": "2026-11-24T10:00:00+00:00", "elapsed_s": 60.0,
            "config": {"reps": 3, "duration": 10.0, "seed": 1, "quick": True, "argv": ["--quick"]},
            "machine": {"cpu": "test"},
            "scenarios": [{"name": "red-100M-n100", "path": "x", "description": "", "duration": 10.0,
                           "flows": 100, "bottleneck": "100 Mb/s", "sims": sims}],
            "memory": None, "sweep": {"skipped": "no"},
            "user": {"reps": 3, "cli": "aqmsim", "scenario": "red-100M-n100", "duration": 10.0, "rows": rows,
                     "ns2": {"median_wall_s": 4.0, "max_rss_mib": 30.0, "median_setup_s": 1.0, "runs": 3}}}


def test_the_table_shows_set_up_and_simulation_and_what_a_user_waits_for(tmp_path, capsys):
    text = render(fake_results())
    assert "`make bench BENCH_ARGS='--quick'`" in text
    assert "| 0.10 + 0.40 |" in text  # aqmsim: the rest of the process + the engine
    assert "| 1.00 + 3.00 |" in text  # ns-2: set-up + simulation
    assert "| 8.00× |" in text  # packets per wall second over ns-2's
    assert "| `aqmsim run red-100M-n100` | 3 | 0.800 (0.800–0.800) | 50.0 |" in text
    assert "**5.0× faster** than ns-2" in text and "(1.00 s of it set-up)" in text
    # --from-json renders a saved run without running anything
    (tmp_path / "r.json").write_text(json.dumps(fake_results()))
    assert main(["--from-json", str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr().out.strip() == text.strip()


def test_write_docs_replaces_only_the_numbers(tmp_path):
    from bench.config import DOC_BEGIN, DOC_END
    from bench.report import write_docs

    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nmethod\n\n<!-- bench:begin (an older wording) -->\nold\n"
                   f"{DOC_END}\n\nafter\n")
    write_docs("new numbers\n", doc)
    assert doc.read_text() == f"# Performance\n\nmethod\n\n{DOC_BEGIN}\nnew numbers\n{DOC_END}\n\nafter\n"


def test_the_suite_line_says_runs_minutes_and_shares():
    from bench.suite import render_suite

    s = {"command": "aqmsim suite rfc7928 --seeds 5", "seeds": 5, "cpus": 2, "wall_s": 312.0,
         "max_rss_mib": 210.0, "runs": 700, "ok": 700, "failed": 0, "scenarios": 10,
         "variants": 20, "aqms": ["red", "codel"], "runs_s": 290.0, "report_s": 18.0}
    text = "\n".join(render_suite(s))
    assert "700 runs (2 disciplines × 10 scenarios (20 variants) × 5 seeds; 0 failed)" in text
    assert "**5.2 min** on 2 CPUs: the runs 290 s, the report 18 s" in text
    assert render_suite(None)[-1] == "(`--no-suite`.)"
    assert "failed: boom" in "\n".join(render_suite({**s, "error": "boom"}))
    assert "The RFC 7928 suite" in render(fake_results() | {"suite": s})


def test_ns3_runs_the_linux_stack_with_its_own_defaults_and_bbr():
    """A linux-stack group gets ns-3's TCP (PRR, the scenario's IW, delayed ACKs as set,
    ns-3's 1 ms clock, no capped initial ssthresh); BBR is TcpBbr. The ns2 stack's
    arguments do not change."""
    args = ns3_arguments(load_scenario("bbr-linux-100M-n100")[1], 1)
    assert "--tcp=bbr" in args and "--recovery=prr" in args and "--ns3::TcpSocket::InitialCwnd=10" in args and "--ns3Defaults=1" in args
    assert "--ns3::TcpSocket::DelAckCount=1" in args  # the scenario ACKs every packet
    assert "--ns3::TcpSocketBase::MinRto=0.2s" in args and "--queue=codel" in args
    assert "--ns3::TcpSocketBase::ClockGranularity=1ms" in args
    assert "--ns3::TcpSocket::InitialSlowStartThreshold=4294967295" in args
    cubic = ns3_arguments(load_scenario("cubic-linux-100M-n100")[1], 1)
    assert "--tcp=cubic" in cubic and "--recovery=prr" in cubic
    # a linux table that leaves the stack's defaults gets ns-3's: delayed ACKs of 2, 1 s
    # minimum RTO, IW10, a 128 KiB receive buffer, timestamps on (the linux stack's default)
    sc = small()
    sc["tcp"] = {"stack": "linux", "variant": "newreno"}
    plain = ns3_arguments(sc, 1)
    for a in ("--ns3::TcpSocket::DelAckCount=2", "--ns3::TcpSocketBase::MinRto=1.0s", "--ns3::TcpSocket::InitialCwnd=10",
              "--ns3::TcpSocket::RcvBufSize=131072", "--ns3::TcpSocket::DelAckTimeout=0.2s",
              "--ns3::TcpSocketBase::Timestamp=true"):
        assert a in plain, a
    assert "--ns3::TcpSocketBase::Timestamp=true" in args  # the bench's BBR scenario leaves it on
    sc["tcp"]["timestamps"] = False
    assert "--ns3::TcpSocketBase::Timestamp=false" in ns3_arguments(sc, 1)
    sc["tcp"].pop("timestamps")
    sc["tcp"]["rto_init"] = 3.0
    with pytest.raises(Unsupported, match="initial RTO"):
        ns3_arguments(sc, 1)
    # the ns2 stack is as before: classic recovery, no ns-3 attributes
    ns2 = ns3_arguments(load_scenario("newreno-ns2-100M-n100")[1], 1)
    assert not any(a.startswith(("--recovery", "--ns3::", "--initCwnd")) for a in ns2)


def test_ns2_refuses_the_linux_stack(tmp_path):
    from bench.sims import Ns2

    with pytest.raises(Unsupported, match=r'only its own TCP \(tcp.stack = "ns2"\)'):
        Ns2().prepare(load_scenario("newreno-linux-100M-n100")[1], 1, tmp_path)


def test_the_linux_pairs_are_the_same_dumbbell():
    """Each linux-stack scenario of a pair differs from its ns2 partner only in its TCP table
    (and names); everything the stacks share in TCP is equal; every scenario loads."""
    from bench.config import DEFAULT_SCENARIOS, STACK_PAIRS

    from aqmsim.scenario import Scenario

    for lin, ns2 in STACK_PAIRS:
        assert lin in DEFAULT_SCENARIOS and ns2 in DEFAULT_SCENARIOS
        a, b = load_scenario(lin)[1], load_scenario(ns2)[1]
        assert a["tcp"]["stack"] == "linux" and b["tcp"].get("stack", "ns2") == "ns2"
        # the linux stack's NewReno recovers with SACK: its partner is the ns2 stack's sack
        assert a["tcp"]["variant"] == {"sack": "newreno"}.get(b["tcp"]["variant"], b["tcp"]["variant"])
        for k in ("packet_size", "header", "window", "min_rto", "ack_size", "delayed_ack", "ecn"):
            assert a["tcp"][k] == b["tcp"][k], k
        strip = lambda sc: {k: v for k, v in sc.items() if k not in ("tcp", "name", "description", "notes")}
        ga, gb = (sc["dumbbell"]["groups"][0] for sc in (a, b))
        assert {**ga, "name": ""} == {**gb, "name": ""}
        assert strip(a) | {"dumbbell": None} == strip(b) | {"dumbbell": None}
        assert a["dumbbell"]["bottleneck"] == b["dumbbell"]["bottleneck"]
    for name in DEFAULT_SCENARIOS:
        Scenario(set_duration(load_scenario(name)[1], 1.0)).validate()


def test_the_table_gives_the_linux_stacks_cost_and_its_speed_over_ns3():
    res = fake_results()
    ns2_sims = res["scenarios"][0]["sims"]
    lin = json.loads(json.dumps(ns2_sims))
    a = lin["aqmsim"]
    a["runs"][0].update(wall=0.6, packets=1100, inner={"engine": 0.55})
    a.update(median_wall_s=0.6, median_inner_s={"engine": 0.55}, pkts_per_s=1100 / 0.6)
    del lin["ns-2"]
    a["runs"].append(dict(a["runs"][0], inner={"engine": 0.44}))  # a faster run: the median stays 0.55
    lin["ns-3"] = {"note": "", "runs": [dict(a["runs"][0], wall=22.0, inner={})], "median_wall_s": 22.0,
                   "median_inner_s": {}, "pkts_per_s": 50.0, "consistent": True}
    res["scenarios"] = [dict(res["scenarios"][0], name="newreno-ns2-100M-n100"),
                        dict(res["scenarios"][0], name="newreno-linux-100M-n100", sims=lin)]
    text = render(res)
    # cost per packet: (0.6 / 1100) / (0.5 / 1000) whole process, (0.55 / 1100) / (0.4 / 1000) engine,
    # (0.44 / 1100) / (0.4 / 1000) the fastest runs
    assert ("| newreno-linux-100M-n100 | newreno-ns2-100M-n100 | 0.600 / 0.500 | 0.550 / 0.400 "
            "| 1,100 / 1,000 | 500,000 / 400,000 | **1.09×** | 1.25× | 1.00× |") in text
    assert "newreno-linux-100M-n100 37×" in text  # (1100 / 0.6) / 50
    assert "rounds paired" not in text  # one ns-3 round: no spread to give
    assert "The linux TCP stack" not in render(fake_results())
    # three rounds of each, paired in the order they ran: (1100 / 0.5) / (1100 / 22) = 44,
    # (1100 / 0.55) / (1100 / 27.5) = 50, (1100 / 0.6) / (1100 / 24) = 40
    b = lin["ns-3"]
    a["runs"] = [dict(a["runs"][0], wall=w) for w in (0.5, 0.55, 0.6)]
    b["runs"] = [dict(b["runs"][0], wall=w, packets=1100) for w in (22.0, 27.5, 24.0)]
    assert "(rounds paired: 40–50×, 3 pairs)" in render(res)


@pytest.mark.usefixtures("ns3_required")
def test_the_ns3_program_runs_the_linux_scenarios_with_tcp_bbr(tmp_path):
    """benchmarks/ns3/dumbbell.cc takes --tcp=bbr and the linux stack's attributes: a small
    BBR dumbbell (3 flows, 2 s) runs to the end and fills most of the link."""
    from bench.ns3 import Ns3

    ns3 = Ns3()
    ok, why = ns3.available()
    assert ok, why
    sc = set_duration(load_scenario("bbr-linux-100M-n100")[1], 2.0)
    sc["dumbbell"]["groups"][0]["count"] = 3
    o = ns3.prepare(sc, 1, tmp_path)(120.0)
    assert o.error is None, o.error
    assert o.packets > 10_000 and o.utilisation > 0.5


def test_ns3_runs_the_l4s_dumbbell_as_its_nearest_equivalent(tmp_path):
    """The DualPI2 dumbbell (issue 25): ns-3 gets DCTCP with ECT(1) for the Prague flows and
    CUBIC without ECN for the CUBIC flows, aqmsim's own start times in a flow file, and
    FQ-PIE in L4S mode with CeThreshold = step_thresh and MaxSize = limit; the other
    scenarios' arguments do not change."""
    from aqmsim.scenario import Scenario
    from bench.config import DEFAULT_SCENARIOS
    from bench.ns3_l4s import is_l4s, ns3_l4s_plan

    assert "l4s-dualpi2-100M-n100" in DEFAULT_SCENARIOS
    sc = load_scenario("l4s-dualpi2-100M-n100")[1]
    q = sc["dumbbell"]["bottleneck"]["queue"]
    assert q["kind"] == "dualpi2" and [g["count"] for g in sc["dumbbell"]["groups"]] == [50, 50]
    assert [g["tcp"]["variant"] for g in sc["dumbbell"]["groups"]] == ["prague", "cubic"]
    args, lines = ns3_l4s_plan(sc, 1)
    for a in ("--queue=fq_pie", "--limit=10000", "--ns3::FqPieQueueDisc::UseL4s=true",
              "--ns3::FqPieQueueDisc::CeThreshold=0.001s", "--ns3::TcpDctcp::UseEct0=false",
              "--ns3::TcpSocketBase::UseEcn=Off", "--tcp=dctcp", "--ns3Defaults=1", "--recovery=prr",
              "--ns3::TcpSocket::DelAckCount=1", "--ns3::TcpSocketBase::MinRto=0.2s", "--duration=60.0"):
        assert a in args, a
    assert not any("EnablePacing" in a for a in args)  # ns-3 paces every socket or none: none
    assert [ln.split()[5] for ln in lines] == ["dctcp"] * 50 + ["cubic"] * 50 and "--flows=100" in args
    starts = [f["start"] for f in Scenario.from_dict(dict(sc, seed=1)).validate()["flows"]]
    assert [float(ln.split()[1]) for ln in lines] == starts  # aqmsim's own draws
    assert all(ln.split()[2:5] == ["60.0", "0.001", "0.001"] for ln in lines)
    assert not is_l4s(load_scenario("cubic-linux-100M-n100")[1])
    # the table says what ns-3 ran instead
    from bench.ns3 import EQUIVALENT_L4S

    res = fake_results()
    res["scenarios"][0]["sims"]["ns-2"]["runs"][0]["extra"] = {"equivalent": EQUIVALENT_L4S}
    assert f"- red-100M-n100, ns-2: ran {EQUIVALENT_L4S}." in render(res)
    assert "nearest equivalent" not in render(fake_results())
    # what the equivalent cannot run is refused with the reason
    bad = json.loads(json.dumps(sc))
    bad["dumbbell"]["groups"][1]["tcp"]["ecn"] = True
    with pytest.raises(Unsupported, match="CUBIC without ECN"):
        ns3_l4s_plan(bad, 1)
    bad = json.loads(json.dumps(sc))
    bad["dumbbell"]["groups"][1]["tcp"]["window"] = 50
    with pytest.raises(Unsupported, match="share"):
        ns3_l4s_plan(bad, 1)
    bad = json.loads(json.dumps(sc))
    del bad["dumbbell"]["bottleneck"]["queue"]["step_thresh"]
    bad["dumbbell"]["bottleneck"]["queue"]["step_thresh_pkts"] = 12
    with pytest.raises(Unsupported, match="step_thresh"):
        ns3_l4s_plan(bad, 1)


def tiny_l4s() -> dict:
    sc = set_duration(load_scenario("l4s-dualpi2-100M-n100")[1], 2.0)
    for g in sc["dumbbell"]["groups"]:
        g["count"] = 3
    return sc


def test_aqmsim_runs_the_l4s_row_at_a_tiny_size(tmp_path):
    """The bench's aqmsim runner on the L4S dumbbell (3 + 3 flows, 2 s): Prague's packets
    are ECT(1) and marked, the link fills."""
    from bench.sims import Aqmsim

    o = Aqmsim().prepare(tiny_l4s(), 1, tmp_path)(120.0)
    assert o.error is None, o.error
    assert o.packets > 15_000 and o.utilisation > 0.75 and o.events > o.packets


@pytest.mark.usefixtures("ns3_required")
def test_the_ns3_program_runs_the_l4s_equivalent(tmp_path):
    """dumbbell.cc runs the plan (3 DCTCP-ECT(1) + 3 CUBIC flows, 2 s): every mark is FQ-PIE's
    L4S CE-threshold mark (only ECT(1) packets get those: DCTCP sends ECT(1)), and the link
    fills as aqmsim's does (0.85 in both: the flows start within the first second)."""
    from bench.ns3 import Ns3

    ns3 = Ns3()
    ok, why = ns3.available()
    assert ok, why
    run = ns3.prepare(tiny_l4s(), 1, tmp_path)
    assert any(a.startswith("--flowFile=") for a in run.args) and (tmp_path / "flows.txt").is_file()
    p = subprocess.run([ns3._binary, *run.args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    kv = dict(ln.split(" ", 1) for ln in p.stdout.splitlines() if not ln.startswith("flow "))
    assert int(kv["bottleneck_departures"]) > 15_000 and float(kv["utilisation"]) > 0.75
    marks = {k: int(v) for k, v in kv.items() if k.startswith("marks.")}
    assert marks == {"marks.(Marked_by_child_queue_disc)_CE_threshold_exceeded_mark": int(kv["bottleneck_marks"])}
    assert int(kv["bottleneck_marks"]) > 100
