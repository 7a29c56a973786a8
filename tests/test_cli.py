"""The command line: `aqmsim run / validate / version`, through typer's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim.cli import app

from conftest import EXAMPLES, ROOT

runner = CliRunner()
RED = EXAMPLES / "dumbbell-red.toml"


def _one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:")
    return text


def test_run_with_out(core, tmp_path: Path):
    out = tmp_path / "demo"
    result = runner.invoke(app, ["run", str(RED), "--seed", "3", "--out", str(out),
                                 "--set", "duration=3", "--set", "dumbbell.groups.0.stop=3"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "bottleneck utilisation" in text
    assert "time-average queue" in text
    assert "dumbbell-red" in text
    for name in ("summary.json", "resolved.json", "queue.csv", "flows.csv", "drops.csv",
                 "links.csv", "queue.png"):
        assert (out / name).exists(), name
    assert str(out) in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3
    assert summary["duration"] == pytest.approx(3.0)


def test_run_without_out_writes_nothing(core, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(RED), "--set", "duration=1",
                                 "--set", "dumbbell.groups.0.stop=1"])
    assert result.exit_code == 0, result.output
    assert list(tmp_path.iterdir()) == []


def test_run_missing_file():
    msg = _one_line_error(runner.invoke(app, ["run", "no/such/file.toml"]))
    assert "no/such/file.toml" in msg


def test_run_toml_syntax_error(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text("duration = \n")
    msg = _one_line_error(runner.invoke(app, ["run", str(bad)]))
    assert "line 1" in msg and str(bad) in msg


def test_run_invalid_scenario(core, tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(RED.read_text().replace("max_p = 0.1", "max_p = 1.5"))
    msg = _one_line_error(runner.invoke(app, ["run", str(bad)]))
    assert "dumbbell.bottleneck.queue.max_p" in msg


def test_run_bad_override(core):
    msg = _one_line_error(runner.invoke(app, ["run", str(RED), "--set", "nonsense"]))
    assert "KEY=VALUE" in msg


def test_run_bad_format():
    msg = _one_line_error(runner.invoke(app, ["run", str(RED), "--format", "xlsx"]))
    assert "csv or parquet" in msg


def test_validate_prints_resolved(core):
    result = runner.invoke(app, ["validate", str(RED)])
    assert result.exit_code == 0, result.output
    assert "valid" in result.output
    result = runner.invoke(app, ["validate", "--json", str(RED)])
    assert result.exit_code == 0, result.output
    resolved = json.loads(result.output)
    assert isinstance(resolved, dict)


def test_validate_error(core, tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(RED.read_text().replace("min_th = 5", "min_th = 25"))
    msg = _one_line_error(runner.invoke(app, ["validate", str(bad)]))
    assert "dumbbell.bottleneck.queue" in msg


def test_validate_missing_file():
    _one_line_error(runner.invoke(app, ["validate", "missing.toml"]))


def test_version():
    result = runner.invoke(app, ["version"])
    assert result.exit_code == 0
    assert result.output.startswith("aqmsim ")


def test_python_dash_m(core):
    proc = subprocess.run([sys.executable, "-m", "aqmsim", "version"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("aqmsim ")
    proc = subprocess.run([sys.executable, "-m", "aqmsim", "run", "missing.toml"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_run_parquet_without_pyarrow(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyarrow" else real(name, *a))
    msg = _one_line_error(runner.invoke(app, ["run", str(RED), "--format", "parquet"]))
    assert "pyarrow" in msg


def test_a_set_that_changes_nothing_is_warned_about(core):
    """`--set tcp.variant=bbr3` on the BBR example changes no flow (each group names its own
    variant) and `--set seed=1` is the value already there: each gets a warning line naming
    it, and the run goes on; a --set that does change the run gets none."""
    result = runner.invoke(app, ["run", str(EXAMPLES / "dumbbell-bbr.toml"), "--set", "duration=1",
                                 "--set", "tcp.variant=bbr3", "--set", "seed=1"])
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.output.splitlines() if ln.startswith("warning: --set")]
    assert [w.split(":")[1].strip() for w in warnings] == ["--set tcp.variant=bbr3", "--set seed=1"]
    assert "a group's own tcp table wins over [tcp]" in warnings[0]
    # validate too; a --set that changes the run is silent
    result = runner.invoke(app, ["validate", str(EXAMPLES / "dumbbell-bbr.toml"),
                                 "--set", "dumbbell.groups.0.tcp.variant=bbr3"])
    assert result.exit_code == 0 and "warning" not in result.output, result.output


def test_run_prints_the_flows_by_group_when_there_are_several(core):
    """`aqmsim run` of the L4S example (a Prague and a CUBIC group) ends with the groups'
    goodput, share, mean delay and retransmissions, so the two senders compare at a glance;
    a run of one group has no such table."""
    result = runner.invoke(app, ["run", str(EXAMPLES / "dumbbell-l4s.toml"), "--set", "duration=3"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "by flow group" in text
    rows = [ln.split("│") for ln in text.splitlines() if ln.strip().startswith(("prague", "cubic"))]
    assert [r[0].strip() for r in rows] == ["prague", "cubic"]
    shares = [float(r[3].strip().rstrip(" %")) for r in rows]
    assert abs(sum(shares) - 100.0) < 0.2
    one = runner.invoke(app, ["run", str(EXAMPLES / "dumbbell-red.toml"), "--set", "duration=1"])
    assert one.exit_code == 0 and "by flow group" not in one.output
