"""Sweeps on the local process pool: the CLI, reruns that do only what is missing, an
invalid corner of the grid (stopped before it starts), failed runs, a worker killed mid-run, the driver killed with SIGKILL, the
report. Scenarios are the RED dumbbell cut to a few flows and seconds."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict

import duckdb
import pandas as pd
from typer.testing import CliRunner

import aqmsim
from aqmsim import store as store_mod
from aqmsim.cli import app
from aqmsim.sweep import LocalPool, Sweep, execute, run_sweep

from conftest import EXAMPLES, ROOT

RED = EXAMPLES / "dumbbell-red.toml"
Q = "dumbbell.bottleneck.queue."
runner = CliRunner()

TINY = """
name = "{name}"
base = "{base}"
seeds = {seeds}
metrics = ["utilisation", "time_avg_queue_pkts", "loss_ratio", "bottleneck_drops"]
series = {series}

[set]
duration = {duration}
"dumbbell.groups.0.stop" = {duration}
"dumbbell.groups.0.count" = {flows}
"dumbbell.bottleneck.rate" = "{rate}"
"""


def write_sweep(path: Path, vary: str, name: str = "t", seeds: int = 2, series: str = "[]",
                duration: float = 2, flows: int = 3, rate: str = "1.5Mb") -> Path:
    path.write_text(TINY.format(name=name, base=RED.as_posix(), seeds=seeds, series=series,
                                duration=duration, flows=flows, rate=rate) + vary)
    return path


def crash_once(marker: str, payload: Dict[str, Any]) -> Dict[str, Any]:
    """A worker hook (tests only): the first task with seed 2 to get here kills its own
    process with SIGKILL — exactly once over all workers, thanks to an O_EXCL marker file;
    every other call, and the retry, runs normally."""
    if payload["seed"] == 2:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.write(fd, f"{os.getpid()} {payload['hash']}".encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
    return execute(payload)


def die_on(marker: str, payload: Dict[str, Any]) -> Dict[str, Any]:
    """A worker hook (tests only): no simulation; a task with ``die`` kills its process
    with SIGKILL (once: an O_EXCL marker file)."""
    if payload.get("die"):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            os.kill(os.getpid(), signal.SIGKILL)
    return {"status": "ok", "summary": {"n": payload["n"]}}


def test_local_pool_hands_back_tasks_queued_behind_a_dead_run(tmp_path: Path):
    """A process holds several tasks; it dies running the second: that one is reported
    failed ("worker"), the third — never started — is handed back, and a fresh process
    takes the next task."""
    pool = LocalPool(1, run_fn=functools.partial(die_on, str(tmp_path / "died")), depth=3)
    try:
        for tid, payload in enumerate([{"n": 0}, {"n": 1, "die": True}, {"n": 2}]):
            pool.submit(tid, payload)
        assert pool.free() == 0
        got: Dict[int, Dict[str, Any]] = {}
        deadline = time.monotonic() + 60
        while len(got) < 3 and time.monotonic() < deadline:
            got.update(pool.wait(timeout=1))
        assert got[0] == {"status": "ok", "summary": {"n": 0}}
        assert got[1]["status"] == "failed" and got[1]["error_kind"] == "worker"
        assert "killed by SIGKILL" in got[1]["error"]
        assert got[2] == {"status": "requeue"}
        pool.submit(3, {"n": 3})
        more: Dict[int, Dict[str, Any]] = {}
        while not more and time.monotonic() < deadline:
            more.update(pool.wait(timeout=1))
        assert more == {3: {"status": "ok", "summary": {"n": 3}}}
    finally:
        pool.close()


# ----------------------------------------------------------------------------- CLI
def test_cli_sweep_then_rerun_does_nothing(core, tmp_path: Path):
    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1, 0.2]\n',
                    series='["queue"]')
    st = tmp_path / "store"
    res = runner.invoke(app, ["sweep", str(f), "--store", str(st), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert "6 runs: 6 ok, 0 failed; 0 already in the store, 6 run now" in res.output
    df = store_mod.open(st, sweep="t")
    assert list(df.columns[:4]) == [Q + "max_p", "seed", "status", "error"]
    assert len(df) == 6 and (df["status"] == "ok").all() and (df["attempts"] == 1).all()
    assert sorted(df[Q + "max_p"].unique()) == [0.05, 0.1, 0.2]
    assert {"utilisation", "time_avg_queue_pkts", "loss_ratio"} <= set(df.columns)
    # the same as running the scenario by hand
    row = df.iloc[0]
    sc = aqmsim.Scenario.from_toml(RED).with_overrides(**{
        "duration": 2, "dumbbell.groups.0.stop": 2, "dumbbell.groups.0.count": 3,
        "dumbbell.bottleneck.rate": "1.5Mb", Q + "max_p": float(row[Q + "max_p"])})
    direct = sc.run(seed=int(row["seed"]))
    assert row["utilisation"] == direct.summary["utilisation"]
    with store_mod.Store(st, read_only=True) as s:
        q = s.series(row["hash"], int(row["seed"]), "queue")
    pd.testing.assert_frame_equal(q, direct.queue.reset_index(drop=True), check_dtype=False)
    stamps = dict(zip(zip(df["hash"], df["seed"]), df["finished_at"]))

    res = runner.invoke(app, ["sweep", str(f), "--store", str(st), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert "6 already in the store, 0 run now" in res.output
    again = store_mod.open(st, sweep="t")
    assert dict(zip(zip(again["hash"], again["seed"]), again["finished_at"])) == stamps

    # one more seed and one more max_p: only the new runs are run
    write_sweep(f, f'[[vary]]\n"{Q}max_p" = [0.05, 0.1, 0.2, 0.3]\n', seeds=3,
                series='["queue"]')
    res = runner.invoke(app, ["sweep", str(f), "--store", str(st), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert "12 runs: 12 ok, 0 failed; 6 already in the store, 6 run now" in res.output

    # plain SQL on the DuckDB file, as documented in aqmsim.store
    con = duckdb.connect(str(st / "runs.duckdb"), read_only=True)
    got = con.execute(
        f'SELECT "{Q}max_p" AS max_p, count(*), avg(utilisation) FROM runs '
        "JOIN sweep_runs USING (hash, seed) WHERE sweep = 't' AND status = 'ok' "
        "GROUP BY 1 ORDER BY 1").fetchall()
    con.close()
    assert [(m, n) for m, n, _ in got] == [(0.05, 3), (0.1, 3), (0.2, 3), (0.3, 3)]


def test_invalid_corner_stops_before_running(core, tmp_path: Path):
    """min_th x max_th crossed: only (10, 8) is invalid (max_th must exceed min_th). Every
    point is validated first, so the sweep stops before its first run with one line
    naming the point and the field (issue 23: it used to run and fail 2 of 8 runs), and
    `aqmsim report` says the same."""
    f = write_sweep(tmp_path / "corner.toml",
                    f'[[vary]]\n"{Q}min_th" = [5, 10]\n"{Q}max_th" = [8, 15]\n')
    st = tmp_path / "store"
    line = (f"{f}: 1 of the 4 grid points is invalid, so nothing was run; the first, "
            f"min_th=10 max_th=8: {Q}max_th: must be > min_th (10), got 8")
    for cmd in (["sweep", str(f), "--store", str(st), "--workers", "2"],
                ["report", str(f), "--store", str(st)]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 2, res.output
        assert " ".join(res.output.split()) == "error: " + line, res.output
        assert "Traceback" not in res.output
    assert not st.exists()


def fail_max_p(value: float, payload: Dict[str, Any]) -> Dict[str, Any]:
    """A worker hook (tests only): the runs with max_p = ``value`` fail (a simulation
    error), the others run."""
    if payload["scenario"]["dumbbell"]["bottleneck"]["queue"]["max_p"] == value:
        return {"status": "failed", "error_kind": "simulation",
                "error": f"injected failure at max_p {value} > 0.1"}
    return execute(payload)


def test_failed_runs_are_retried_and_reported(core, tmp_path: Path):
    """Runs that fail at run time (here injected) are retried once, recorded with their
    error, listed by the CLI, and shown in the report's index."""
    f = write_sweep(tmp_path / "f.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.2]\n')
    st = tmp_path / "store"
    res = run_sweep(Sweep.from_toml(f), st, workers=2,
                    run_fn=functools.partial(fail_max_p, 0.2))
    assert (res.ok, res.failed) == (2, 2)
    df = store_mod.open(st, sweep="t")
    bad = df[df["status"] == "failed"]
    assert set(bad[Q + "max_p"]) == {0.2} and (bad["attempts"] == 2).all()
    assert (bad["error"] == "injected failure at max_p 0.2 > 0.1").all()
    assert bad["utilisation"].isna().all()
    out = tmp_path / "report"
    res = runner.invoke(app, ["report", str(f), "--store", str(st), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "4 of 4 runs" in res.output
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["bottleneck_drops.png", "discipline-red.png", "loss_ratio.png",
                    "time_avg_queue_pkts.png", "utilisation.png"]
    index = (out / "index.html").read_text()
    assert "injected failure at max_p 0.2 &gt; 0.1" in index
    assert all(f'src="{p}"' in index for p in pngs)


def test_invalid_scenario_task_is_not_retried_unless_asked(core, tmp_path: Path):
    """Through run_tasks (the reproductions' way in, which hands over scenarios without a
    sweep file): a task whose scenario is invalid fails alone, is not retried by a rerun
    (it would fail again) unless retry_failed."""
    from aqmsim.sweep import run_tasks

    base = Sweep.from_toml(write_sweep(tmp_path / "b.toml", "")).base
    good = aqmsim.Scenario.from_dict(base).to_dict()
    bad = aqmsim.Scenario.from_dict(base).with_overrides(**{Q + "max_th": 2}).to_dict()
    tasks = [("good", good, 1), ("bad", bad, 1)]
    st = tmp_path / "store"
    res = run_tasks(tasks, st, workers=1)
    assert (res.ok, res.failed) == (1, 1)
    [fail] = res.failures
    assert fail.key == "bad" and fail.error_kind == "scenario" and fail.attempts == 2
    assert "max_th: must be > min_th" in fail.error
    again = run_tasks(tasks, st, workers=1)
    assert again.counts.skipped == 2 and again.failures[0].attempts == 2
    forced = run_tasks(tasks, st, workers=1, retry_failed=True)
    assert forced.counts.skipped == 1 and forced.failures[0].attempts == 4


def test_misspelt_key_stops_before_running(core, tmp_path: Path):
    f = write_sweep(tmp_path / "typo.toml", f'[[vary]]\n"{Q}max_pp" = [0.1, 0.2]\n')
    res = runner.invoke(app, ["sweep", str(f), "--store", str(tmp_path / "st")])
    assert res.exit_code == 2
    assert "max_pp: not a parameter of red" in res.output
    assert not (tmp_path / "st").exists()


# ----------------------------------------------------------------------------- faults
def test_worker_killed_mid_run_is_retried(core, tmp_path: Path):
    """A worker process dies (SIGKILL) while running a task: the pool reports exactly that
    task as failed (each worker has its own pipe, so the dead one's task is known), starts
    a new process, and the retry succeeds; the store ends with one ok row for it."""
    f = write_sweep(tmp_path / "w.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1, 0.2]\n')
    sw = Sweep.from_toml(f)
    marker = tmp_path / "crashed"
    result = run_sweep(sw, tmp_path / "st", workers=2,
                       run_fn=functools.partial(crash_once, str(marker)))
    assert marker.exists(), "the hook never fired"
    assert result.failed == 0 and result.ok == 6
    df = store_mod.open(tmp_path / "st", sweep="t")
    assert (df["status"] == "ok").all() and len(df) == 6
    pid, crashed = marker.read_text().split()
    retried = df[df["attempts"] == 2]
    assert len(retried) == 1 and int(retried["seed"].iloc[0]) == 2
    assert retried["hash"].iloc[0] == crashed
    assert (df[df["attempts"] != 2]["attempts"] == 1).all()
    # the dead worker's pid is not the one that finally ran it
    assert retried["worker"].iloc[0].split(":")[1] != pid
    # and the retried run is the same as an undisturbed one
    clean = run_sweep(sw, tmp_path / "clean", workers=1)
    assert clean.failed == 0
    ref = store_mod.open(tmp_path / "clean", sweep="t")
    cols = ["hash", "seed", "status", "utilisation", "time_avg_queue_pkts", "loss_ratio"]
    pd.testing.assert_frame_equal(df[cols], ref[cols])


def _rows(store: Path) -> int:
    try:
        return len(store_mod.open(store))
    except Exception:  # noqa: BLE001 - not created yet
        return 0


def test_driver_killed_then_resumed(core, tmp_path: Path):
    """SIGKILL to the driver part-way; the same command again ends with every run exactly
    once, each row's Parquet file present and readable, no temporary file left, and the
    rows written before the kill untouched."""
    # 100 flows over 15 Mb/s for 20 s: tens of ms per run, so the kill lands mid-sweep
    f = write_sweep(tmp_path / "k.toml",
                    f'[[vary]]\n"{Q}max_p" = [0.02, 0.05, 0.1, 0.15, 0.2, 0.3]\n',
                    name="kill", seeds=6, series='["queue", "flows"]', duration=20,
                    flows=100, rate="15Mb")
    st = tmp_path / "store"
    cmd = [sys.executable, "-m", "aqmsim", "sweep", str(f), "--store", str(st),
           "--workers", "2"]
    log = (tmp_path / "first.log").open("w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        while _rows(st) < 3:
            assert proc.poll() is None, "the sweep ended before it could be killed: " + \
                (tmp_path / "first.log").read_text()
            assert time.monotonic() < deadline, "no rows after 120 s"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
        log.close()
    assert proc.returncode == -signal.SIGKILL
    before = store_mod.open(st)
    assert 3 <= len(before) < 36, "killed too late to test anything"
    stamps = dict(zip(zip(before["hash"], before["seed"]), before["finished_at"]))

    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(before)} already in the store, {36 - len(before)} run now" in done.stdout

    df = store_mod.open(st, sweep="kill")
    assert len(df) == 36 and (df["status"] == "ok").all()
    assert not df.duplicated(["hash", "seed"]).any()
    con = duckdb.connect(str(st / "runs.duckdb"), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT (hash, seed)) FROM runs").fetchone() \
        == (36, 36)
    con.close()
    after = dict(zip(zip(df["hash"], df["seed"]), df["finished_at"]))
    assert all(after[k] == v for k, v in stamps.items())  # finished runs were not redone
    files = set()
    for series in df["series"]:
        assert set(series) == {"queue", "flows"}
        for rel in series.values():
            p = st / rel
            assert p.is_file()
            assert len(pd.read_parquet(p)) > 0
            files.add(p)
    on_disk = {p for p in (st / "series").rglob("*") if p.is_file()}
    assert on_disk == files                      # nothing else: no temp file, no orphan
    assert not [p for p in st.rglob("*") if ".tmp-" in p.name]


def test_unknown_metric_is_reported(core, tmp_path: Path):
    f = write_sweep(tmp_path / "m.toml", f'[[vary]]\n"{Q}max_p" = [0.1]\n', seeds=1)
    f.write_text(f.read_text().replace('"bottleneck_drops"]', '"utilization"]'))
    res = runner.invoke(app, ["sweep", str(f), "--store", str(tmp_path / "st"), "-w", "1"])
    assert res.exit_code == 0, res.output
    assert "warning: not summary keys, so not kept: utilization" in res.output
    assert "utilization" not in store_mod.open(tmp_path / "st").columns
