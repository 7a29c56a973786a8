"""`aqmsim suite`: the runs go to a sweep store (resumable), the runs table comes back from
it, the command line checks its options and says what it did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim.cli import app
from aqmsim.suite.run import run_suite
from aqmsim.suite.spec import Suite

pytestmark = pytest.mark.usefixtures("core")

SCENARIO = "congestion-level"   # 8.2.2-8.2.4: three variants, 60 s each
AQMS = ["red", "codel"]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """One scenario's variants × two disciplines × two seeds, no report."""
    out = tmp_path_factory.mktemp("suite")
    return run_suite("rfc7928", aqms=AQMS, seeds=2, scenarios=[SCENARIO], out=out,
                     workers=2, report=False), out


def test_every_task_is_a_row_of_the_runs_table(small) -> None:
    got, out = small
    suite = Suite.load("rfc7928")
    tasks = suite.tasks(AQMS, [1, 2], [SCENARIO])
    runs = got.runs
    assert len(runs) == len(tasks) == got.counts.total
    assert list(runs["aqm"]) == [t.aqm for t in tasks]
    assert list(runs["variant"]) == [t.variant for t in tasks]
    assert set(runs["status"]) == {"ok"}
    assert (runs["goodput_bps"] > 0).all() and (runs["mean_queueing_delay_s"] >= 0).all()
    # each row's numbers are its own run's: rerun one task in process and compare
    from aqmsim import Scenario

    t = tasks[-1]
    res = Scenario.from_dict(t.data).run(seed=t.seed)
    assert runs.iloc[-1]["goodput_bps"] == pytest.approx(res.summary["goodput_bps"])
    assert runs.iloc[-1]["drops_early"] == res.summary["drops_early"]
    info = json.loads((out / "suite.json").read_text())
    assert info["runs"] == len(tasks) and info["aqms"] == AQMS and info["seeds"] == [1, 2]


def test_the_series_the_report_needs_are_kept(small) -> None:
    from aqmsim.suite.results import series

    got, _ = small
    row = got.runs.iloc[0]
    cdf = series(got.store, row["hash"], int(row["seed"]), "delay_cdf")
    q = cdf[cdf["what"] == "queue R1->R2"]
    assert len(q) >= 101 and q["delay_s"].is_monotonic_increasing and q["q"].iloc[-1] == 1.0
    flows = series(got.store, row["hash"], int(row["seed"]), "flows")
    assert len(flows) >= 1 and "goodput_bps" in flows


def test_a_second_call_runs_nothing_again(small) -> None:
    got, out = small
    again = run_suite("rfc7928", aqms=AQMS, seeds=2, scenarios=[SCENARIO], out=out,
                      workers=1, report=False)
    assert again.counts.skipped == again.counts.total == got.counts.total
    assert again.runs.drop(columns=["error"]).equals(got.runs.drop(columns=["error"]))


@pytest.mark.parametrize("args, says", [
    (["rfc9999"], "unknown suite 'rfc9999'; expected one of: rfc7928"),
    (["rfc7928", "--aqm", "red,nope"], "nope"),
    (["rfc7928", "--scenarios", "nope"], "nope"),
    (["rfc7928", "--seeds", "0"], "--seeds"),
    (["rfc7928", "--aqm", " , "], "--aqm: expected a comma-separated list of names"),
    (["rfc7928", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"],
     "--workers and --scheduler: give one or the other"),
])
def test_bad_options_are_one_line(args, says, tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["suite", *args, "--out", str(tmp_path)])
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert says in text and "Traceback" not in r.output
    assert not (tmp_path / "store").exists()
