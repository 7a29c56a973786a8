"""Sweeps with a Python queue discipline (issue 26): a sweep over a plug-in's parameter runs
on the local pool and on a Dask cluster, whose workers import the plug-in (a file given
relative to the scenario or sweep file, made absolute for them; a module on their
PYTHONPATH); a point whose plug-in raises is one failed run with the plug-in's one-line
message, every other run kept. Each row equals the same scenario run in this process."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

import aqmsim
from aqmsim import store as store_mod
from aqmsim.plugin.portable import absolute_plugin_paths, absolute_spec
from aqmsim.scenario import dumps_toml
from aqmsim.sweep import Sweep, run_sweep

from conftest import DASK_QUIET, EXAMPLES, local_cluster

pytestmark = [
    pytest.mark.usefixtures("core"),
    *DASK_QUIET,
]

Q = "dumbbell.bottleneck.queue."
METRICS = ["utilisation", "time_avg_queue_pkts", "bottleneck_drops", "goodput_bps"]

#: A small deterministic discipline: drop the arrival once max_th packets wait. With
#: max_th = 13 it raises after 1 s, with 14 it never returns (points that fail).
THRESHOLD = '''
from aqmsim.plugin import ACCEPT, DROP, QueueDiscipline


class Threshold(QueueDiscipline):
    """Drop every arrival while max_th packets or more wait."""

    def __init__(self, max_th=15, limit=50):
        self.max_th = max_th
        self.limit = limit

    def enqueue(self, pkt, q):
        if self.max_th == 13 and q.now > 1.0:
            raise ValueError("max_th 13 is cursed")
        if self.max_th == 14 and q.now > 1.0:
            while True:                  # never returns: the run's plugin_time_limit ends it
                pass
        return DROP if q.len_pkts >= min(self.max_th, self.limit - 1) else ACCEPT
'''


def _base(plugin_class: str) -> dict:
    """The example RED dumbbell, 3 flows, 3 s, with the plug-in at the bottleneck."""
    sc = aqmsim.Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(**{
        "duration": 3, "dumbbell.groups.0.stop": 3, "dumbbell.groups.0.count": 3,
        "dumbbell.bottleneck.queue": {"kind": "python", "class": plugin_class, "max_th": 15,
                                      "limit": 50},
    })
    return sc.to_dict()


def _write(tmp: Path, spec_of_plugin: str, values=(10, 15)) -> Path:
    """``tmp/plug/threshold.py``, ``tmp/scen/base.toml`` naming it as ``spec_of_plugin``
    (relative to scen/), ``tmp/sw/sweep.toml`` with base ../scen/base.toml."""
    (tmp / "plug").mkdir(exist_ok=True)
    (tmp / "plug" / "threshold.py").write_text(THRESHOLD)
    (tmp / "scen").mkdir(exist_ok=True)
    (tmp / "scen" / "base.toml").write_text(dumps_toml(_base(spec_of_plugin)))
    (tmp / "sw").mkdir(exist_ok=True)
    f = tmp / "sw" / "sweep.toml"
    f.write_text(textwrap.dedent(f"""
        name = "plug"
        base = "../scen/base.toml"
        seeds = 2
        metrics = {METRICS!r}

        [[vary]]
        "{Q}max_th" = {list(values)!r}
        """).replace("'", '"'))
    return f


def _rows(store: Path, name: str = "plug") -> pd.DataFrame:
    df = store_mod.open(store, sweep=name)
    cols = [f"{Q}max_th", "seed", "status"] + METRICS
    return df[cols].sort_values([f"{Q}max_th", "seed"]).reset_index(drop=True)


# ------------------------------------------------------------------------ portable paths
def test_relative_plugin_files_become_absolute_and_modules_stay(tmp_path: Path):
    assert absolute_spec("p/x.py:C", tmp_path) == f"{(tmp_path / 'p' / 'x.py').resolve()}:C"
    assert absolute_spec("pkg.mod:C", tmp_path) == "pkg.mod:C"
    assert absolute_spec("/abs/x.py:C", tmp_path) == "/abs/x.py:C"
    data = {"a": {"kind": "python", "class": "x.py:C", "note": "y.py:D"},
            "b": [{"kind": "red", "class": "x.py:C"}],
            "tcp": {"variant": "python", "cc_class": "cc.py:R"}}
    got = absolute_plugin_paths(data, tmp_path)
    assert got["a"]["class"] == f"{tmp_path.resolve()}/x.py:C"
    assert got["a"]["note"] == "y.py:D"             # only *class fields
    assert got["b"][0]["class"] == "x.py:C"         # not a plug-in table
    assert got["tcp"]["cc_class"] == f"{tmp_path.resolve()}/cc.py:R"
    assert data["a"]["class"] == "x.py:C"           # the input is left as it was


def test_sweep_points_name_the_plugin_file_from_the_base_files_folder(tmp_path: Path,
                                                                        monkeypatch):
    f = _write(tmp_path, "../plug/threshold.py:Threshold")
    monkeypatch.chdir(tmp_path / "plug")            # anywhere but the files' folders
    sw = Sweep.from_toml(f)
    want = f"{(tmp_path / 'plug' / 'threshold.py').resolve()}:Threshold"
    for _, data, _, _ in sw.tasks():
        assert data["dumbbell"]["bottleneck"]["queue"]["class"] == want


# ------------------------------------------------------------------------ local pool
def test_local_sweep_over_a_plugin_parameter(tmp_path: Path, monkeypatch):
    f = _write(tmp_path, "../plug/threshold.py:Threshold")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)                     # the workers start here
    res = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=2)
    assert (res.ok, res.failed) == (4, 0), [o.error for o in res.failures]
    rows = _rows(tmp_path / "store")
    assert list(rows[f"{Q}max_th"]) == [10, 10, 15, 15]
    # the parameter reached the plug-in: a higher threshold, a longer queue
    q = rows.groupby(f"{Q}max_th")["time_avg_queue_pkts"].mean()
    assert q[15] > q[10] > 0
    # each row is the run of that scenario here, in this process
    for _, data, seed, _ in Sweep.from_toml(f).tasks():
        mine = aqmsim.Scenario.from_dict(data).run(seed=seed).summary
        row = rows[(rows[f"{Q}max_th"] == data["dumbbell"]["bottleneck"]["queue"]["max_th"])
                   & (rows["seed"] == seed)].iloc[0]
        for m in METRICS:
            assert row[m] == pytest.approx(mine[m], rel=1e-12), m


def test_local_sweep_keeps_every_run_but_those_whose_plugin_raises_or_hangs(tmp_path: Path,
                                                                             monkeypatch):
    f = _write(tmp_path, "../plug/threshold.py:Threshold", values=(10, 13, 14, 15))
    f.write_text(f.read_text() + '\n[set]\nplugin_time_limit = "2s"\n')
    monkeypatch.chdir(tmp_path)
    t0 = time.monotonic()
    res = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=2)
    assert time.monotonic() - t0 < 60          # the hung runs end at their 2 s limit
    assert (res.ok, res.failed) == (4, 4)
    assert {o.key for o in res.failures} == {"max_th=13", "max_th=14"}
    for o in res.failures:
        assert o.error_kind == "simulation"
        assert "\n" not in o.error.strip()
        assert "Threshold" in o.error and "threshold.py" in o.error
        if o.key == "max_th=13":  # the message, and the user's own line: file:line: source
            assert "raised ValueError: max_th 13 is cursed" in o.error
            line = THRESHOLD.splitlines().index('            raise ValueError("max_th 13 is cursed")') + 1
            assert f'threshold.py:{line}: raise ValueError("max_th 13 is cursed")' in o.error
        else:
            assert "plugin_time_limit = 2 s" in o.error
    rows = _rows(tmp_path / "store")
    ok = rows[rows["status"] == "ok"]
    assert sorted(set(ok[f"{Q}max_th"])) == [10, 15] and len(ok) == 4


# ------------------------------------------------------------------------ Dask
@pytest.fixture(scope="module")
def plug_module(tmp_path_factory):
    """A folder with the plug-in as module ``threshold_plugin``, on this process's path
    before the cluster starts (so on its workers' too: what PYTHONPATH does)."""
    d = tmp_path_factory.mktemp("plugmod")
    (d / "threshold_plugin.py").write_text(THRESHOLD)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(d), old]))
    import sys

    sys.path.insert(0, str(d))
    try:
        yield d
    finally:
        sys.path.remove(str(d))
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


@pytest.fixture(scope="module")
def cluster(plug_module):
    with local_cluster() as lc:
        yield lc


@pytest.mark.parametrize("spec", ["../plug/threshold.py:Threshold",
                                  "threshold_plugin:Threshold"])
def test_dask_sweep_over_a_plugin_parameter_gives_the_local_rows(spec, cluster, tmp_path: Path,
                                                                  monkeypatch):
    import distributed

    f = _write(tmp_path, spec)
    monkeypatch.chdir(tmp_path)
    sw = Sweep.from_toml(f)
    on_dask = run_sweep(sw, tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert on_dask.pool.startswith("Dask cluster")
    local = run_sweep(sw, tmp_path / "local", workers=2)
    assert (on_dask.ok, on_dask.failed) == (local.ok, local.failed) == (4, 0), \
        [o.error for o in on_dask.failures]
    pd.testing.assert_frame_equal(_rows(tmp_path / "dask"), _rows(tmp_path / "local"))
    da = store_mod.open(tmp_path / "dask", sweep="plug")
    with distributed.Client(cluster, set_as_default=False) as client:
        pids = {str(p) for p in client.run(os.getpid).values()}
    assert {w.split(":")[1] for w in da["worker"]} <= pids   # the cluster ran them


def test_dask_sweep_keeps_every_run_but_those_whose_plugin_raises_or_hangs(cluster,
                                                                            tmp_path: Path,
                                                                            monkeypatch):
    """On a Dask worker (the run in a worker thread, not a main thread) too: the raising
    point and the never-returning one fail alone, each with its one line."""
    f = _write(tmp_path, "../plug/threshold.py:Threshold", values=(10, 13, 14))
    f.write_text(f.read_text() + '\n[set]\nplugin_time_limit = "2s"\n')
    monkeypatch.chdir(tmp_path)
    res = run_sweep(Sweep.from_toml(f), tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert (res.ok, res.failed) == (2, 4)
    for o in res.failures:
        assert "\n" not in o.error.strip()
        assert ("max_th 13 is cursed" in o.error if o.key == "max_th=13"
                else o.key == "max_th=14" and "plugin_time_limit = 2 s" in o.error), o.error


# ------------------------------------------------------------------------ the store's key
def test_editing_the_plugin_makes_its_runs_new_runs(tmp_path: Path, monkeypatch):
    """A store reuses a run whose key it holds; a plug-in's code is part of the key, so a
    sweep run again after an edit of the plug-in's file runs again (and the new code's
    rows are what the store gives), and without an edit runs nothing."""
    f = _write(tmp_path, "../plug/threshold.py:Threshold")
    monkeypatch.chdir(tmp_path)
    first = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=1)
    again = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=1)
    assert (first.ran, again.ran) == (4, 0)
    plug = tmp_path / "plug" / "threshold.py"
    plug.write_text(THRESHOLD.replace("min(self.max_th, self.limit - 1)", "self.max_th // 2"))
    edited = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=1)
    assert edited.ran == 4 and edited.failed == 0
    rows = _rows(tmp_path / "store")          # the sweep's current points: the new code's
    q = rows.groupby(f"{Q}max_th")["time_avg_queue_pkts"].mean()
    assert q[15] < 8                           # (the old code let ~15 packets wait)


def test_a_scenario_without_plugins_keeps_its_hash():
    import hashlib

    from aqmsim.store import canonical_json, canonical_scenario, scenario_hash

    for name in ("dumbbell-red.toml", "dumbbell-codel.toml"):
        d = aqmsim.Scenario.from_toml(EXAMPLES / name).to_dict()
        plain = hashlib.sha256(canonical_json(canonical_scenario(d)).encode("utf-8")).hexdigest()
        assert scenario_hash(d) == plain
    with_plugin = _base("x.py:Y")
    assert scenario_hash(with_plugin) != hashlib.sha256(
        canonical_json(canonical_scenario(with_plugin)).encode("utf-8")).hexdigest()


def test_a_class_defined_in_main_is_refused_before_any_run(tmp_path: Path):
    """A class given as an object from a script, a notebook cell or a session is recorded
    as "__main__:Class", which no worker process can import: one line naming the field,
    before a worker starts or the store is made (instead of every run failing)."""
    import subprocess
    import sys

    script = textwrap.dedent(f"""
        import aqmsim
        from aqmsim.errors import ScenarioError
        from aqmsim.plugin import ACCEPT, QueueDiscipline
        from aqmsim.sweep import Sweep, run_sweep

        class Acc(QueueDiscipline):
            def __init__(self, limit=50):
                pass

            def enqueue(self, pkt, q):
                return ACCEPT

        base = aqmsim.Scenario.from_toml({str(EXAMPLES / 'dumbbell-red.toml')!r}).with_overrides(
            duration=2, **{{"dumbbell.groups.0.stop": 2,
                            "dumbbell.bottleneck.queue": {{"kind": "python", "class": Acc}}}})
        assert base.run(seed=1).summary["bottleneck_arrivals"] > 0   # in process: fine
        try:
            run_sweep(Sweep.from_dict({{"name": "m", "base": base.to_dict(), "seeds": 2}}),
                      {str(tmp_path / 'store')!r}, workers=1)
        except ScenarioError as exc:
            print("REFUSED", exc)
        """)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert p.returncode == 0, p.stderr[-2000:]
    out = p.stdout.strip()
    assert out.startswith("REFUSED dumbbell.bottleneck.queue.class: '__main__:Acc' is defined "
                          "in __main__"), out
    assert "\n" not in out and '"path/file.py:Acc"' in out
    assert not (tmp_path / "store").exists()


def test_aqmsim_sweep_and_report_on_a_plugin_sweep(tmp_path: Path, monkeypatch):
    """The command line: `aqmsim sweep` runs it, `aqmsim report` finds every run (the
    report keys the runs as the driver did, plug-in code included)."""
    from typer.testing import CliRunner

    from aqmsim.cli import app

    f = _write(tmp_path, "../plug/threshold.py:Threshold")
    monkeypatch.chdir(tmp_path / "plug")
    r = CliRunner().invoke(app, ["sweep", str(f), "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert "4 ok, 0 failed" in " ".join(r.output.split())
    r = CliRunner().invoke(app, ["report", str(f)])
    assert r.exit_code == 0, r.output
    assert "4 of 4 runs of plug in the store" in " ".join(r.output.split())
