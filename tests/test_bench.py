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
