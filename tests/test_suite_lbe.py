"""RFC 7928 §5.4 in the suite (`less-than-best-effort`): a LEDBAT flow beside a NewReno
flow, both on the linux stack, run by `aqmsim suite` (docs/suite-rfc7928.md)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from aqmsim.cli import app
from aqmsim.suite.results import series
from aqmsim.suite.spec import Suite

pytestmark = pytest.mark.usefixtures("core")

NAME = "less-than-best-effort"


def test_scenario_is_ledbat_beside_newreno_on_the_linux_stack():
    s = Suite.load("rfc7928").scenario(NAME)
    assert s.section == "5.4" and [v.value for v in s.variants] == [0.1, 0.01]
    groups = s.base["dumbbell"]["groups"]
    assert [(g["tcp"]["stack"], g["tcp"]["variant"]) for g in groups] == [("linux", "newreno"),
                                                                          ("linux", "ledbat")]
    d = Suite.load("rfc7928").disciplines["codel"]
    from aqmsim import Scenario

    flows = Scenario(s.scenario(s.variants[1], d)).validate()["flows"]
    assert flows[1]["tcp"]["ledbat_target"] == 0.01 and flows[1]["tcp"]["timestamps"] is True
    assert flows[0]["tcp"]["timestamps"] is True and "ledbat_target" not in flows[0]["tcp"]


def test_aqmsim_suite_runs_it(tmp_path):
    """`aqmsim suite rfc7928 --scenarios less-than-best-effort`: under CoDel (5 ms) LEDBAT
    never sees its target and takes about half the link at either target (the RFC's
    concern); under PIE (about 15 ms of queue) with a 10 ms target it yields."""
    r = CliRunner().invoke(app, ["suite", "rfc7928", "--scenarios", NAME, "--aqm", "codel,pie",
                                 "--seeds", "1", "--out", str(tmp_path), "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert NAME in (tmp_path / "index.html").read_text(encoding="utf-8")
    from aqmsim.suite.run import run_suite

    got = run_suite("rfc7928", aqms=["codel", "pie"], seeds=1, scenarios=[NAME], out=tmp_path,
                    workers=1, report=False)
    assert got.counts.skipped == got.counts.total == 4
    runs = got.runs.set_index(["aqm", "variant"])
    assert set(runs["status"]) == {"ok"}
    share = {}
    for (aqm, variant), row in runs.iterrows():
        flows = series(got.store, row["hash"], int(row["seed"]), "flows")
        g = flows["goodput_bps"].to_numpy()
        share[aqm, variant] = g[1] / g.sum()
    assert all(0.4 < share["codel", v] < 0.6 for v in runs.loc["codel"].index), share
    assert 0.4 < share["pie", "target 100 ms"] < 0.6 and share["pie", "target 10 ms"] < 0.3, share
