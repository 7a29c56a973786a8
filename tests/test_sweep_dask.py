"""Sweeps on a real Dask ``distributed`` cluster that the test starts on loopback: a
scheduler and two single-threaded worker processes (each under a nanny that restarts it).
The same sweep gives the same rows there as on the local pool, and a worker killed
mid-run costs nothing but time."""

from __future__ import annotations

import functools
import io
import os
from pathlib import Path

import distributed
import pandas as pd
import pytest

from rich.console import Console

from aqmsim import store as store_mod
from aqmsim.papers.base import Cell
from aqmsim.report import reproduce_papers
from aqmsim.sweep import Sweep, run_sweep

from conftest import DASK_QUIET, local_cluster
from test_report import FakePaper
from test_sweep_local import Q, crash_once, write_sweep


pytestmark = DASK_QUIET

METRICS = ["utilisation", "time_avg_queue_pkts", "loss_ratio", "bottleneck_drops"]


@pytest.fixture(scope="module")
def cluster():
    with local_cluster() as lc:
        assert lc.scheduler_address.startswith("tcp://127.0.0.1:")
        yield lc


def _rows(store: Path, name: str) -> pd.DataFrame:
    df = store_mod.open(store, sweep=name)
    cols = [c for c in df.columns if c.startswith("dumbbell.")]
    cols += ["hash", "seed", "status", "error", "attempts"] + METRICS
    return df[cols].sort_values(["hash", "seed"]).reset_index(drop=True)


def test_dask_cluster_gives_the_local_rows(core, cluster, tmp_path: Path):
    f = write_sweep(tmp_path / "d.toml",
                    f'[[vary]]\n"{Q}max_p" = [0.05, 0.2]\n'
                    f'[[vary]]\nmode = "zip"\n"{Q}min_th" = [5, 10]\n"{Q}max_th" = [15, 30]\n',
                    name="d", seeds=3, series='["queue"]')
    sw = Sweep.from_toml(f)
    on_dask = run_sweep(sw, tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert on_dask.pool.startswith("Dask cluster tcp://127.0.0.1:")
    local = run_sweep(sw, tmp_path / "local", workers=2)
    # (an invalid point now stops the sweep before it starts, on either: see
    # test_sweep_local.py::test_invalid_corner_stops_before_running)
    assert (on_dask.ok, on_dask.failed) == (local.ok, local.failed) == (12, 0)
    a, b = _rows(tmp_path / "dask", "d"), _rows(tmp_path / "local", "d")
    pd.testing.assert_frame_equal(a, b)
    # the runs really ran on the cluster's workers, and their time series match too
    da = store_mod.open(tmp_path / "dask", sweep="d")
    with distributed.Client(cluster, set_as_default=False) as client:
        cluster_pids = {str(p) for p in client.run(os.getpid).values()}
    assert len(cluster_pids) == 2
    assert {w.split(":")[1] for w in da["worker"]} <= cluster_pids
    ok = da[da["status"] == "ok"]
    for h, seed in zip(ok["hash"], ok["seed"]):
        with store_mod.Store(tmp_path / "dask", read_only=True) as s1, \
                store_mod.Store(tmp_path / "local", read_only=True) as s2:
            pd.testing.assert_frame_equal(s1.series(h, seed, "queue"),
                                          s2.series(h, seed, "queue"))


def test_dask_worker_killed_mid_run(core, cluster, tmp_path: Path):
    """A task kills its Dask worker process (SIGKILL) the first time: the scheduler sees
    the worker die and runs the task on the other worker (the nanny restarts the dead one);
    the sweep finishes with every run ok and equal to an undisturbed run."""
    f = write_sweep(tmp_path / "k.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1, 0.2]\n',
                    name="k", seeds=2)
    sw = Sweep.from_toml(f)
    marker = tmp_path / "crashed"
    res = run_sweep(sw, tmp_path / "dask", scheduler=cluster.scheduler_address,
                    run_fn=functools.partial(crash_once, str(marker)))
    assert marker.exists(), "the hook never fired"
    assert (res.ok, res.failed) == (6, 0)
    ref = run_sweep(sw, tmp_path / "local", workers=1)
    assert ref.failed == 0
    a = _rows(tmp_path / "dask", "k").drop(columns="attempts")
    b = _rows(tmp_path / "local", "k").drop(columns="attempts")
    pd.testing.assert_frame_equal(a, b)
    pid, crashed = marker.read_text().split()
    df = store_mod.open(tmp_path / "dask", sweep="k")
    row = df[(df["hash"] == crashed) & (df["seed"] == 2)]
    assert len(row) == 1 and row["status"].iloc[0] == "ok"
    assert row["worker"].iloc[0].split(":")[1] != pid   # finished by another process


def test_reproduce_on_the_cluster(core, cluster, tmp_path: Path):
    """`aqmsim reproduce --scheduler`: a paper's runs go to the cluster's workers, into the
    paper's store, and give the report the local pool gives; again, nothing runs."""
    console = Console(file=io.StringIO(), width=200)
    on_dask = reproduce_papers([FakePaper()], tmp_path / "dask", seeds=2, console=console,
                               progress_console=console,
                               scheduler=cluster.scheduler_address).outcomes[0]
    local = reproduce_papers([FakePaper()], tmp_path / "local", seeds=2, workers=2,
                             console=console, progress_console=console).outcomes[0]
    assert on_dask.runs == local.runs == {"total": 4, "stored": 0, "ran": 4, "failed": 0}
    assert [[c.mean if isinstance(c, Cell) else c for c in row] for row in on_dask.tables[0].rows] \
        == [[c.mean if isinstance(c, Cell) else c for c in row] for row in local.tables[0].rows]
    assert [(c.text, c.holds, c.evidence) for c in on_dask.claims] == \
        [(c.text, c.holds, c.evidence) for c in local.claims]
    with distributed.Client(cluster, set_as_default=False) as client:
        cluster_pids = {str(p) for p in client.run(os.getpid).values()}
    runs = store_mod.open(tmp_path / "dask" / "fake" / "store", sweep="fake")
    assert len(runs) == 4 and {w.split(":")[1] for w in runs["worker"]} <= cluster_pids
    again = reproduce_papers([FakePaper()], tmp_path / "dask", seeds=2, console=console,
                             progress_console=console,
                             scheduler=cluster.scheduler_address).outcomes[0]
    assert again.runs == {"total": 4, "stored": 4, "ran": 0, "failed": 0}


def test_sigterm_of_a_dask_driver_leaves_no_temporary_file(core, cluster, tmp_path: Path):
    """The driver of a sweep on the cluster gets SIGTERM between renaming a run's first
    Parquet file into the store and its second (as in test_sweep_crash.py): it stops as on
    Ctrl-C — exit 143, one line, its tasks cancelled, no `.tmp-` file — and the same
    command on the cluster then finishes the sweep."""
    import subprocess
    import sys
    import time

    from aqmsim.store import TMP_MARK

    from conftest import ROOT
    from test_sweep_crash import (_TERM_AT_RENAME, _crash_sweep, _env, _one_error_line,
                                  check_store)

    f = _crash_sweep(tmp_path, seeds=2)
    store = tmp_path / "st"
    args = ["sweep", str(f), "--store", str(store), "--scheduler", cluster.scheduler_address]
    done = subprocess.run([sys.executable, "-c", _TERM_AT_RENAME, *args], capture_output=True,
                          text=True, cwd=ROOT, env=_env(), timeout=300)
    text = done.stdout + done.stderr
    assert done.returncode == 143, text
    assert _one_error_line(text).startswith("error: terminated (SIGTERM): finished runs")
    assert not [p for p in store.rglob("*") if TMP_MARK in p.name]
    kept = check_store(store)
    assert len(kept) < 10
    with distributed.Client(cluster, set_as_default=False) as client:
        deadline = time.monotonic() + 30
        while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
            assert time.monotonic() < deadline, "the driver's tasks are still on the cluster"
            time.sleep(0.1)
    again = subprocess.run([sys.executable, "-m", "aqmsim", *args], capture_output=True,
                           text=True, cwd=ROOT, env=_env(), timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{len(kept)} already in the store, {10 - len(kept)} run now" in again.stdout
    check_store(store, 10)
