"""A Python discipline that fails is contained: the run ends with one message naming the
plug-in (and the line of the user's file that failed), `aqmsim run` prints one line and
exits 1 (run time) or 2 (the scenario: bad class, bad parameters), nothing crashes, and the
next run is unaffected.

A local sweep with a failing plug-in point keeps its other runs (the "file.py:Class" form,
local and Dask, is in test_plugin_sweep.py and test_plugin_cc_sweep.py).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from aqmsim.errors import PluginError, SimulationError

from conftest import EXAMPLES

runner = CliRunner()

PLUGINS = '''
import time
from aqmsim.plugin import QueueDiscipline, ACCEPT, DROP, DROP_HEAD, PASS


class Raises(QueueDiscipline):
    def __init__(self, after=30):
        self.n, self.after = 0, after

    def enqueue(self, pkt, q):
        self.n += 1
        if self.n > self.after:
            return self.helper(q)
        return ACCEPT

    def helper(self, q):
        return ACCEPT if q.len_pkts < 0 else 1 / 0  # the failing line


class Returns(QueueDiscipline):
    def __init__(self, value="None", where="enqueue"):
        self.value, self.where = eval(value), where

    def enqueue(self, pkt, q):
        if self.where == "enqueue" and q.now > 0.5:
            return self.value
        return ACCEPT

    def dequeue(self, pkt, q):
        if self.where == "dequeue" and q.now > 0.5:
            return self.value
        return PASS


class Forever(QueueDiscipline):
    def enqueue(self, pkt, q):
        if q.now > 0.5:
            n = 0
            while True:  # never returns
                n += 1
        return ACCEPT


class Slow(QueueDiscipline):
    def enqueue(self, pkt, q):
        time.sleep(0.002)  # returns, but the run is far too slow
        return ACCEPT


class Catches(QueueDiscipline):
    def enqueue(self, pkt, q):
        if q.now > 0.5:
            while True:
                try:
                    time.sleep(0.001)
                except Exception:  # does not swallow the time limit
                    pass
        return ACCEPT


class BadInit(QueueDiscipline):
    def __init__(self, limit=50):
        if limit > 10:
            raise ValueError(f"limit must be at most 10, got {limit}")

    def enqueue(self, pkt, q):
        return ACCEPT


class BadUpdate(QueueDiscipline):
    update_interval = 0.1

    def enqueue(self, pkt, q):
        return ACCEPT

    def update(self, now):
        if now > 1.0:
            raise KeyError("gone")


class BadMonitor(QueueDiscipline):
    monitor = ("level",)

    def __init__(self):
        self.level = "high"

    def enqueue(self, pkt, q):
        return ACCEPT


class NoEnqueue(QueueDiscipline):
    pass


class Fine(QueueDiscipline):
    monitor = ("seen",)

    def __init__(self):
        self.seen = 0

    def enqueue(self, pkt, q):
        self.seen += 1
        return DROP if q.len_pkts >= 40 else ACCEPT
'''


def line_of(needle: str) -> int:
    """The line number of ``needle`` in the plug-in file."""
    return next(i for i, line in enumerate(PLUGINS.splitlines(), 1) if needle in line)


@pytest.fixture()
def plugdir(tmp_path: Path) -> Path:
    (tmp_path / "bad_plugins.py").write_text(PLUGINS, encoding="utf-8")
    return tmp_path


def scenario(plugdir: Path, cls: str, time_limit: str = "60s", **fields) -> Path:
    """The RED example with the bottleneck queue replaced by ``cls``, as a file in plugdir."""
    sc = Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(**{
        "duration": 3, "dumbbell.groups.0.stop": 3, "plugin_time_limit": time_limit,
        "dumbbell.bottleneck.queue": {"kind": "python", "class": f"bad_plugins.py:{cls}", **fields}})
    path = plugdir / f"{cls}.toml"
    path.write_text(sc.to_toml(), encoding="utf-8")
    return path


def run_fails(path: Path, code: int = 1) -> str:
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == code, result.output
    text = result.output.strip()
    assert "Traceback" not in text and "panicked" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:")
    return text


def test_raises_names_the_plugin_and_the_users_line(plugdir):
    msg = run_fails(scenario(plugdir, "Raises"))
    assert "dumbbell.bottleneck.queue: plug-in bad_plugins.py:Raises.enqueue raised ZeroDivisionError: division by zero at t = " in msg
    n = line_of("# the failing line")
    assert f"bad_plugins.py:{n}: return ACCEPT if q.len_pkts < 0 else 1 / 0" in msg, msg
    with pytest.raises(PluginError):  # the Python API: a PluginError (a SimulationError)
        Scenario.from_toml(scenario(plugdir, "Raises")).run()


@pytest.mark.parametrize("value, where, shown", [
    ("None", "enqueue", "None"),
    ("PASS", "enqueue", "PASS"),
    ("True", "enqueue", "True"),
    ("'drop'", "enqueue", "'drop'"),
    ("99", "enqueue", "99"),
    ("DROP_HEAD", "dequeue", "DROP_HEAD"),
    ("ACCEPT", "dequeue", "ACCEPT"),
    ("1.0", "dequeue", "1.0"),
])
def test_nonsense_returns(plugdir, value, where, shown):
    msg = run_fails(scenario(plugdir, "Returns", value=value, where=where))
    expected = "ACCEPT, DROP, MARK or DROP_HEAD" if where == "enqueue" else "PASS, DROP or MARK"
    assert f"plug-in bad_plugins.py:Returns.{where} returned {shown} at t = " in msg, msg
    assert msg.endswith(f"(expected {expected})"), msg


@pytest.mark.parametrize("cls", ["Forever", "Slow", "Catches"])
def test_never_returns_hits_the_time_limit(plugdir, cls):
    t0 = time.monotonic()
    msg = run_fails(scenario(plugdir, cls, time_limit="1s"))
    took = time.monotonic() - t0
    assert f"plug-in bad_plugins.py:{cls}.enqueue was still running when the run reached its time limit" in msg
    assert "plugin_time_limit = 1 s" in msg
    assert took < 20, took
    # the next run is not hit by a late time limit
    res = Scenario.from_toml(scenario(plugdir, "Fine")).run()
    assert res.summary["bottleneck_arrivals"] > 100


def test_raises_in_init_is_a_scenario_error_at_the_field(plugdir):
    msg = run_fails(scenario(plugdir, "BadInit", limit=50), code=2)
    assert "dumbbell.bottleneck.queue.limit: bad_plugins.py:BadInit() refused it: ValueError: limit must be at most 10, got 50" in msg
    assert f"bad_plugins.py:{line_of('raise ValueError')}: raise ValueError(" in msg, msg


def test_unknown_parameter_names_the_field(plugdir):
    msg = run_fails(scenario(plugdir, "Fine", max_p=0.1), code=2)
    assert "dumbbell.bottleneck.queue.max_p: bad_plugins.py:Fine takes no parameter 'max_p'" in msg


@pytest.mark.parametrize("spec, needle", [
    ("no_such_module_xyz:Red", "cannot import 'no_such_module_xyz'"),
    # a module given by name that is a file beside the scenario: the error names the file form
    ("bad_plugins:Fine", 'there is bad_plugins.py beside the scenario: give the file, "bad_plugins.py:Fine"'),
    ("no_colon", "must be \"module:Class\" or \"path/file.py:Class\""),
    ("missing.py:Red", "no file"),
    ("bad_plugins.py:Nope", "has no 'Nope'"),
    ("bad_plugins.py:time", "is not a class"),
    ("aqmsim.plugin.aqm:Link", "has no enqueue"),
    ("bad_plugins.py:NoEnqueue", "has no enqueue(self, pkt, q) method of its own"),
])
def test_bad_class_is_one_line_exit_2(plugdir, spec, needle):
    path = scenario(plugdir, "Fine")
    path.write_text(path.read_text().replace('"bad_plugins.py:Fine"', f'"{spec}"'), encoding="utf-8")
    msg = run_fails(path, code=2)
    assert "dumbbell.bottleneck.queue.class: " in msg and needle in msg, msg


def test_a_module_in_the_working_directory_is_named_with_both_remedies(plugdir, tmp_path_factory, monkeypatch):
    """The aqmsim command does not import from the working directory (python -m does): a
    "module:Class" whose file sits there gets the file form and PYTHONPATH=. as remedies."""
    here = tmp_path_factory.mktemp("cwd")
    (here / "my_aqm.py").write_text(PLUGINS, encoding="utf-8")
    monkeypatch.chdir(here)
    path = scenario(plugdir, "Fine")
    path.write_text(path.read_text().replace('"bad_plugins.py:Fine"', '"my_aqm:Fine"'), encoding="utf-8")
    msg = run_fails(path, code=2)
    assert ('there is my_aqm.py in the working directory: give the file, "my_aqm.py:Fine", '
            "or run with PYTHONPATH=.") in msg, msg


def test_missing_class_field(plugdir):
    path = scenario(plugdir, "Fine")
    path.write_text(path.read_text().replace('class = "bad_plugins.py:Fine"', ""), encoding="utf-8")
    msg = run_fails(path, code=2)
    assert "dumbbell.bottleneck.queue.class: missing" in msg


def test_update_and_monitor_failures_name_the_method(plugdir):
    msg = run_fails(scenario(plugdir, "BadUpdate"))
    assert "plug-in bad_plugins.py:BadUpdate.update raised KeyError: 'gone' at t = 1.1 s" in msg, msg
    msg = run_fails(scenario(plugdir, "BadMonitor"))
    assert "plug-in bad_plugins.py:BadMonitor: monitored attribute 'level' is 'high', not a number" in msg


@pytest.mark.parametrize("value, needle", [("0s", "(0, 86400] s"), ("100000s", "(0, 86400] s"), ("soon", "plugin_time_limit")])
def test_time_limit_field_is_checked(plugdir, value, needle):
    msg = run_fails(scenario(plugdir, "Fine", time_limit=value), code=2)
    assert "plugin_time_limit" in msg and needle in msg, msg


def test_a_good_plugin_after_failures(plugdir):
    """The monitored variable is a queue column; the class object works through the API."""
    res = Scenario.from_toml(scenario(plugdir, "Fine")).run()
    seen = res.queue["seen"].to_numpy()
    assert seen.dtype.kind == "f" and (seen[1:] >= seen[:-1]).all()
    assert 0.9 * res.summary["bottleneck_arrivals"] < seen[-1] <= res.summary["bottleneck_arrivals"]
    assert not issubclass(PluginError, ScenarioError) and issubclass(PluginError, SimulationError)


def test_monitored_variables_figure(plugdir, tmp_path):
    """A plug-in's monitored variables get a figure among the run's figures; the engine's
    own queue columns are told apart from them."""
    from aqmsim.plot_plugin import ENGINE_QUEUE_COLUMNS, extra_queue_columns
    from aqmsim.results import SCHEMAS

    assert set(ENGINE_QUEUE_COLUMNS) == set(SCHEMAS["queue"])
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(scenario(plugdir, "Fine")), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "monitored.png").is_file() and (out / "monitored.svg").is_file()
    res = Scenario.from_toml(scenario(plugdir, "Fine")).run()
    assert extra_queue_columns(res) == ["seen"]
    droptail = Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(duration=2).run()
    assert extra_queue_columns(droptail) == []
    with pytest.raises(ValueError):
        droptail.plot_monitored()


def test_uniform_outside_enqueue(plugdir):
    """uniform() draws from the queue's stream during enqueue and dequeue only (not in
    update); a kept instance cannot reach the stream after its run (even one that failed)."""
    from aqmsim.plugin import QueueDiscipline, ACCEPT, PASS

    kept = []

    class Draws(QueueDiscipline):
        update_interval = 0.1

        def enqueue(self, pkt, q):
            kept.append(self)
            if self.uniform() > 2:
                return None
            return ACCEPT

        def dequeue(self, pkt, q):
            return PASS if self.uniform() < 2 else None

        def update(self, now):
            if now > 0.5:
                self.uniform()

    sc = Scenario.from_toml(scenario(plugdir, "Fine")).with_overrides(
        **{"dumbbell.bottleneck.queue": {"kind": "python", "class": Draws}})
    with pytest.raises(PluginError, match=r"Draws.update raised RuntimeError: uniform\(\) draws from the queue's random stream"):
        sc.run()
    with pytest.raises(RuntimeError, match="only during enqueue"):
        kept[-1].uniform()


def test_validate_resolves_the_constructor_parameters(plugdir):
    """`aqmsim validate` builds the plug-in; the resolved table lists the constructor's
    parameters with their defaults; a class object given through the API is named by its
    module:Qualname and the data stays plain."""
    from aqmsim.plugin.examples.red import Red

    result = runner.invoke(app, ["validate", str(scenario(plugdir, "Raises", after=7)), "--json"])
    assert result.exit_code == 0, result.output
    assert '"after": 7' in result.output and '"plugin_time_limit": 60' in result.output
    sc = Scenario.from_dict({"duration": 1, "dumbbell": {
        "bottleneck": {"rate": "1Mb", "delay": "10ms", "queue": {"kind": "python", "class": Red, "min_th": 3}},
        "groups": [{"count": 1, "access": {"rate": "10Mb", "delay": "1ms"}}]}})
    assert sc["dumbbell.bottleneck.queue.class"] == "aqmsim.plugin.examples.red:Red"
    q = sc.validate()["links"][0]["queue"]
    assert q["class"] == "aqmsim.plugin.examples.red:Red" and q["min_th"] == 3 and q["max_th"] == 15.0
    assert sc.to_json()  # plain data


def test_update_runs_every_interval_in_time_order(plugdir):
    """update(now) at t = k·update_interval, lazily before the next packet event, so
    updates, arrivals and departures come in time order. (idle(now) gives the time the
    link went idle, which the engine may learn later: it is not in this order.)"""
    from aqmsim.plugin import QueueDiscipline, ACCEPT, PASS

    calls = []

    class Timed(QueueDiscipline):
        update_interval = 0.05

        def enqueue(self, pkt, q):
            calls.append(("e", q.now))
            return ACCEPT

        def dequeue(self, pkt, q):
            calls.append(("d", q.now))
            return PASS

        def idle(self, now):
            calls.append(("i", now))

        def update(self, now):
            calls.append(("u", now))

    sc = Scenario.from_toml(scenario(plugdir, "Fine")).with_overrides(
        **{"dumbbell.bottleneck.queue": {"kind": "python", "class": Timed}})
    sc.run()
    times = [t for k, t in calls if k != "i"]
    assert times == sorted(times), calls[:12]
    ups = [t for k, t in calls if k == "u"]
    assert ups == [k * 50_000_000 * 1e-9 for k in range(1, len(ups) + 1)]
    assert ups[-1] > 2.9 and {k for k, _ in calls} == {"e", "d", "i", "u"}


def test_monitored_columns_are_nan_on_other_links(plugdir):
    """Two monitored links, one with the plug-in: its column is NaN on the other's rows."""
    sc = Scenario.from_toml(scenario(plugdir, "Fine")).with_overrides(**{"monitor.queues": ["R1->R2", "R2->R1"]})
    q = sc.run().queue
    mine, other = q[q["link"] == "R1->R2"], q[q["link"] == "R2->R1"]
    assert len(mine) > 100 and len(other) == len(mine)
    assert mine["seen"].notna().all() and other["seen"].isna().all()


def test_local_sweep_keeps_the_other_runs(plugdir, monkeypatch):
    """A local sweep with one failing plug-in point: the other points run and are kept;
    the failure is reported with the plug-in's message."""
    import sys

    monkeypatch.syspath_prepend(str(plugdir))  # "bad_plugins:Raises", imported by the workers
    monkeypatch.setenv("PYTHONPATH", f"{plugdir}:{':'.join(sys.path)}")
    (plugdir / "base.toml").write_text((EXAMPLES / "dumbbell-red.toml").read_text(), encoding="utf-8")
    (plugdir / "sweep.toml").write_text('''
name = "plug"
base = "base.toml"
seeds = 1
metrics = ["goodput_bps"]
[set]
duration = 2
"dumbbell.groups.0.stop" = 2
[[vary]]
"dumbbell.bottleneck.queue" = [
  { kind = "python", class = "aqmsim.plugin.examples.red:Red", min_th = 5, max_th = 15 },
  { kind = "python", class = "bad_plugins:Raises", after = 50 },
  { kind = "red", min_th = 5, max_th = 15 },
]
''', encoding="utf-8")
    result = runner.invoke(app, ["sweep", str(plugdir / "sweep.toml"), "--workers", "2"])
    assert "3 runs: 2 ok, 1 failed" in result.output, result.output
    assert "plug-in bad_plugins:Raises.enqueue raised ZeroDivisionError" in result.output


def test_no_time_limit_outlives_the_engine_call(monkeypatch):
    """The engine arms a run's time limit when it builds a plug-in; every engine call that
    takes a factory (run, validate, replay_queue) stops it again, even when the caller
    never calls ``disarm`` (a forgotten watchdog would interrupt unrelated code later)."""
    import json

    from aqmsim import _core
    from aqmsim.plugin import Factory
    from aqmsim.plugin import watchdog

    made = []
    real_init = watchdog.Watchdog.__init__

    def tracked(self, limit_s):
        real_init(self, limit_s)
        made.append(self)

    monkeypatch.setattr(watchdog.Watchdog, "__init__", tracked)
    table = {"kind": "python", "class": "aqmsim.plugin.examples.red:Red", "min_th": 2, "max_th": 6}
    for call in (lambda f: _core.replay_queue(json.dumps(table), "e 0 0 1000 0\nd 1000\n", 1, plugins=f),
                 lambda f: _core.validate(Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(
                     **{"dumbbell.bottleneck.queue": table}).to_json(), None, f)):
        f = Factory()
        call(f)
        assert f._watchdog is None
    assert len(made) == 2
    assert not any(w.armed or w.timer.is_alive() for w in made)


def test_a_file_class_is_found_beside_the_scenario_else_in_the_working_directory(plugdir, tmp_path, monkeypatch):
    """`--set ...class="my.py:C"` names a file where the user stands, not where the scenario
    file is: beside the scenario first, else the working directory; the error names both."""
    from aqmsim.plugin.factory import find_class

    here = tmp_path / "cwd"
    here.mkdir()
    (here / "only_here.py").write_text("class C:\n    pass\n", encoding="utf-8")
    monkeypatch.chdir(here)
    assert find_class("only_here.py:C", "q.class", base_dir=plugdir).__name__ == "C"
    with pytest.raises(ScenarioError) as info:
        find_class("nowhere.py:C", "q.class", base_dir=plugdir)
    msg = str(info.value)
    assert "(beside the scenario)" in msg and "'nowhere.py' (from the working directory)" in msg, msg
