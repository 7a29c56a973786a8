"""The RFC 7928 suite with a Python queue discipline (issue 26): ``--aqm module:Class`` or
``path/file.py:Class`` beside built-in names. The suite gives a plug-in the scenario's
buffer as ``limit`` (and ``ecn = true`` in the ECN scenarios); a plug-in that cannot take
them, or cannot be built, is one line before any run. The worker processes import the
plug-in (a relative file made absolute), and its rows are its own runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import aqmsim
from aqmsim.cli import app
from aqmsim.errors import ScenarioError
from aqmsim.suite.plugins import with_plugins
from aqmsim.suite.run import run_suite
from aqmsim.suite.spec import Suite

pytestmark = pytest.mark.usefixtures("core")

SCENARIO = "tcp-friendly-same-iw"   # one variant, 60 s at 10 Mb/s

#: Drop-tail written in Python (ns-2's rule: the arrival is dropped when limit - 1 packets
#: wait), so its runs can be checked against the built-in droptail with the same limit.
PYTAIL = '''
from aqmsim.plugin import ACCEPT, DROP, QueueDiscipline


class PyTail(QueueDiscipline):
    """Drop-tail, in Python.

    The second paragraph is not part of the note."""

    def __init__(self, limit=50):
        self.limit = limit

    def enqueue(self, pkt, q):
        return DROP if q.len_pkts + 1 >= self.limit else ACCEPT
'''

#: Takes ecn and has a suite_parameter (swept in §8.3).
THRESH = '''
from aqmsim.plugin import ACCEPT, DROP, MARK, QueueDiscipline


class Thresh(QueueDiscipline):
    label = "Threshold marker"
    suite_parameter = "max_th"

    def __init__(self, max_th=15, limit=50, ecn=False):
        self.max_th, self.limit, self.ecn = max_th, limit, ecn

    def enqueue(self, pkt, q):
        if q.len_pkts >= self.max_th:
            return MARK if (self.ecn and pkt.ecn) else DROP
        return ACCEPT


class NoLimit(QueueDiscipline):
    def __init__(self, max_th=15):
        self.max_th = max_th

    def enqueue(self, pkt, q):
        return ACCEPT


class Raises(QueueDiscipline):
    def __init__(self, limit=50):
        raise ValueError("no buffer for me")

    def enqueue(self, pkt, q):
        return ACCEPT
'''


@pytest.fixture(scope="module")
def plugdir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("plugins")
    (d / "pytail.py").write_text(PYTAIL)
    (d / "thresh.py").write_text(THRESH)
    return d


@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite.load("rfc7928")


# ------------------------------------------------------------------------ the tables
def test_a_plugin_gets_limit_and_in_the_ecn_scenarios_ecn(suite, plugdir: Path):
    name = f"{plugdir}/thresh.py:Thresh"
    s = with_plugins(suite, ["red", name], ["ecn-capable", "congestion-level"])
    d = s.disciplines[name]
    assert d.label == "Threshold marker" and "Python plug-in" in d.note
    tasks = s.tasks([name], [1], ["ecn-capable", "congestion-level"])
    for t in tasks:
        q = t.data["dumbbell"]["bottleneck"]["queue"]
        base = suite.scenario(t.scenario).base["dumbbell"]["bottleneck"]["queue"]["limit"]
        assert q["kind"] == "python" and q["class"] == f"{plugdir.resolve()}/thresh.py:Thresh"
        assert q["limit"] == base
        assert q.get("ecn") is (True if t.scenario == "ecn-capable" else None)


def test_sensitivity_sweeps_a_plugins_suite_parameter_else_runs_x1_only(suite, plugdir: Path):
    a, b = f"{plugdir}/thresh.py:Thresh", f"{plugdir}/pytail.py:PyTail"
    s = with_plugins(suite, [a, b], ["parameter-sensitivity"])
    ta = s.tasks([a], [1], ["parameter-sensitivity"])
    assert [t.variant for t in ta] == ["× 0.25", "× 0.5", "× 1", "× 2", "× 4"]
    assert [t.data["dumbbell"]["bottleneck"]["queue"]["max_th"] for t in ta] == \
        [3.75, 7.5, 15.0, 30.0, 60.0]
    tb = s.tasks([b], [1], ["parameter-sensitivity"])
    assert [t.variant for t in tb] == ["× 1"]
    # the built-in disciplines' variants are unchanged
    assert [t.variant for t in s.tasks(["red"], [1], ["parameter-sensitivity"])] == \
        [t.variant for t in suite.tasks(["red"], [1], ["parameter-sensitivity"])]


@pytest.mark.parametrize("cls, scenarios, says", [
    ("thresh.py:NoLimit", SCENARIO, "NoLimit.__init__ takes no keyword 'limit'"),
    ("pytail.py:PyTail", "ecn-capable", "PyTail.__init__ takes no keyword 'ecn'"),
    ("thresh.py:Raises", SCENARIO, "no buffer for me"),
    ("thresh.py:Nope", SCENARIO, "has no 'Nope'"),
    ("missing.py:X", SCENARIO, "no file"),
])
def test_a_plugin_the_suite_cannot_use_is_one_line_before_any_run(cls, scenarios, says,
                                                                   plugdir: Path,
                                                                   tmp_path: Path, monkeypatch):
    monkeypatch.chdir(plugdir)                       # relative to the working directory
    r = CliRunner().invoke(app, ["suite", "rfc7928", "--aqm", f"red,{cls}", "--seeds", "1",
                                 "--scenarios", scenarios, "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert says in text and "--aqm" in text and "Traceback" not in r.output, r.output
    assert not (tmp_path / "o" / "store").exists()


# ------------------------------------------------------------------------ running it
@pytest.fixture(scope="module")
def ran(plugdir: Path, tmp_path_factory):
    """The suite on one scenario: CoDel and the Python drop-tail (a relative file, from
    another working directory than the workers'), one seed, with the report."""
    out = tmp_path_factory.mktemp("suite")
    cwd = os.getcwd()
    os.chdir(plugdir)
    try:
        got = run_suite("rfc7928", aqms=["codel", "pytail.py:PyTail"], seeds=1,
                        scenarios=[SCENARIO], out=out, workers=2)
    finally:
        os.chdir(cwd)
    return got, out


def test_the_plugin_runs_in_the_suite_beside_a_builtin(ran, plugdir: Path):
    got, out = ran
    runs = got.runs
    assert list(runs["aqm"]) == ["codel", "pytail.py:PyTail"]
    assert set(runs["status"]) == {"ok"}, list(runs["error"])
    # the worker ran PyTail with the scenario's buffer: the built-in droptail with the
    # same limit gives the same run
    t = got.tasks[1]
    q = t.data["dumbbell"]["bottleneck"]["queue"]
    assert q["class"] == f"{plugdir.resolve()}/pytail.py:PyTail"
    tail = dict(t.data)
    tail["dumbbell"] = json.loads(json.dumps(t.data["dumbbell"]))
    tail["dumbbell"]["bottleneck"]["queue"] = {"kind": "droptail", "limit": q["limit"]}
    ref = aqmsim.Scenario.from_dict(tail).run(seed=t.seed).summary
    row = runs.iloc[1]
    assert row["bottleneck_drops"] == ref["bottleneck_drops"] > 0
    assert row["goodput_bps"] == pytest.approx(ref["goodput_bps"], rel=1e-12)
    info = json.loads((out / "suite.json").read_text())
    assert info["aqms"] == ["codel", "pytail.py:PyTail"] and info["failed"] == 0


def test_the_report_labels_the_plugin_by_its_class(ran):
    got, out = ran
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "PyTail" in page and "CoDel" in page
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "PyTail" in summary


def test_the_command_runs_a_plugin_module_on_the_path(plugdir: Path, tmp_path: Path,
                                                       monkeypatch):
    monkeypatch.syspath_prepend(str(plugdir))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(plugdir), os.environ.get("PYTHONPATH", "")]))
    r = CliRunner().invoke(app, ["suite", "rfc7928", "--aqm", "pytail:PyTail", "--seeds", "1",
                                 "--scenarios", SCENARIO, "--workers", "1",
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "1 ok" in " ".join(r.output.split())
    assert (tmp_path / "o" / "index.html").is_file()

