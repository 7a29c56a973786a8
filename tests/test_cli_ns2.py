"""`aqmsim export-ns2` and `aqmsim crosscheck` from the command line."""

from pathlib import Path

from typer.testing import CliRunner

from aqmsim.cli import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_export_ns2_prints_a_tcl_script_with_the_red_parameters():
    r = runner.invoke(app, ["export-ns2", str(ROOT / "examples/dumbbell-red.toml"), "--seed", "3"])
    assert r.exit_code == 0, r.output
    assert "set ns [new Simulator]" in r.output
    assert "Queue/RED" in r.output or "RED" in r.output
    assert "seed 3" in r.output


def test_export_ns2_refuses_what_ns2_does_not_have(tmp_path):
    import aqmsim

    sc = aqmsim.Scenario.from_toml(ROOT / "examples/dumbbell-red.toml").with_overrides(
        **{"dumbbell.bottleneck.queue.kind": "rtred", "dumbbell.bottleneck.queue.risk_th": 40})
    sc.validate()  # a valid aqmsim scenario...
    f = tmp_path / "rtred.toml"
    f.write_text(sc.to_toml())
    r = runner.invoke(app, ["export-ns2", str(f)])
    # ...that stock ns-2 cannot express: one line naming the field, no traceback
    assert r.exit_code == 2, r.output
    assert "kind" in r.output and "Traceback" not in r.output


def test_crosscheck_runs_both_simulators(tmp_path):
    f = tmp_path / "short.toml"
    f.write_text((ROOT / "examples/dumbbell-droptail.toml").read_text())
    import aqmsim

    sc = aqmsim.Scenario.from_toml(f).with_overrides(duration=3)
    d = sc.to_dict()
    for g in d.get("dumbbell", {}).get("groups", []):
        g.pop("stop", None)
    f.write_text(aqmsim.Scenario.from_dict(d).to_toml())
    r = runner.invoke(app, ["crosscheck", str(f), "--seeds", "1"])
    assert r.exit_code == 0, r.output
    assert "throughput_bps" in r.output and "ns-2" in r.output
