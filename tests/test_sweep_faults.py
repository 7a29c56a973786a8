"""Sweeps never hang (issue 12): a run past its time limit is stopped and recorded as
failed, the sweep going on; a scheduler address that cannot be one, or a "scheduler" that
accepts the connection and never answers, fails at once in one line; a complete sweep
reruns on a store it may not write, and one with runs to do names the directory it
cannot write."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest
from typer.testing import CliRunner

import aqmsim
from aqmsim import store as store_mod
from aqmsim.cli import app
from aqmsim.store import StoreError
from aqmsim.sweep import (DEFAULT_TIMEOUT, DaskPool, LocalPool, SchedulerAddressError, Sweep,
                          check_scheduler_address, run_sweep, run_tasks)
from aqmsim.errors import ScenarioError

from test_sweep_local import Q, RED, write_sweep

runner = CliRunner()


def sleep_on_seed(seed: int, payload: Dict[str, Any]) -> Dict[str, Any]:
    """A worker hook (tests only): the run with ``seed`` never ends (sleeps an hour);
    every other one is an instant success."""
    if payload["seed"] == seed:
        time.sleep(3600)
    return {"status": "ok", "summary": {"utilisation": 0.5}}


# ----------------------------------------------------------------------------- timeouts
def test_local_pool_kills_a_run_past_its_limit_and_goes_on():
    """The pool kills the process of a run past its limit, reports it ("timeout", naming
    the limit), hands back the task queued behind it, and a fresh process takes over."""
    pool = LocalPool(1, run_fn=functools.partial(sleep_on_seed, 7), depth=3)
    try:
        t0 = time.monotonic()
        pool.submit(0, {"seed": 7}, timeout=1.0)
        pool.submit(1, {"seed": 1}, timeout=1.0)
        got: Dict[int, Dict[str, Any]] = {}
        while len(got) < 2 and time.monotonic() - t0 < 30:
            got.update(pool.wait(timeout=0.5))
        assert time.monotonic() - t0 < 15
        assert got[0]["status"] == "failed" and got[0]["error_kind"] == "timeout"
        assert "time limit of 1 s" in got[0]["error"]
        assert got[1] == {"status": "requeue"}
        pool.submit(2, {"seed": 1}, timeout=1.0)
        more: Dict[int, Dict[str, Any]] = {}
        while not more and time.monotonic() - t0 < 30:
            more.update(pool.wait(timeout=0.5))
        assert more == {2: {"status": "ok", "summary": {"utilisation": 0.5}}}
    finally:
        pool.close(kill=True)


def test_run_tasks_timeout_is_a_failed_run_and_the_sweep_goes_on(tmp_path: Path):
    """Through run_tasks: the stalled run is recorded failed with error_kind "timeout"
    (not retried in the same call: a run is deterministic); every other run is ok."""
    base = aqmsim.Scenario.from_toml(RED).to_dict()
    tasks = [("p", base, s) for s in (1, 2, 3, 4)]
    t0 = time.monotonic()
    res = run_tasks(tasks, tmp_path / "st", workers=2, timeout=1.5,
                    run_fn=functools.partial(sleep_on_seed, 3))
    assert time.monotonic() - t0 < 30
    assert res.ok == 3 and res.failed == 1
    (bad,) = res.failures
    assert bad.seed == 3 and bad.error_kind == "timeout" and bad.attempts == 1
    assert "1.5 s" in bad.error
    df = store_mod.open(tmp_path / "st")
    row = df[df["seed"] == 3].iloc[0]
    assert row["status"] == "failed" and row["error_kind"] == "timeout"


def test_sweep_file_and_cli_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``timeout`` in the sweep file (default DEFAULT_TIMEOUT); ``--timeout`` wins over
    it; a bad value is refused before anything runs."""
    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1]\n', seeds=1)
    assert Sweep.from_toml(f).timeout == DEFAULT_TIMEOUT == 600.0
    g = tmp_path / "g.toml"
    g.write_text("timeout = 2.5\n" + f.read_text())
    assert Sweep.from_toml(g).timeout == 2.5
    h = tmp_path / "h.toml"
    h.write_text("timeout = 0\n" + f.read_text())
    with pytest.raises(ScenarioError, match="timeout: expected seconds > 0"):
        Sweep.from_toml(h)
    # the CLI hands --timeout to run_sweep
    seen: Dict[str, Any] = {}
    import aqmsim.sweep.driver as sweep_mod  # (the CLI calls driver.run_sweep)

    real = sweep_mod.run_sweep

    def spy(*a: Any, **kw: Any) -> Any:
        seen["timeout"] = kw.get("timeout")
        return real(*a, **kw)

    monkeypatch.setattr(sweep_mod, "run_sweep", spy)
    res = runner.invoke(app, ["sweep", str(g), "--store", str(tmp_path / "st"),
                              "--timeout", "123", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert seen["timeout"] == 123.0
    res = runner.invoke(app, ["sweep", str(g), "--timeout", "-1"])
    assert res.exit_code == 2 and "--timeout: expected seconds > 0" in res.output


def test_sweep_with_a_stalled_corner_finishes(tmp_path: Path):
    """A whole sweep, one corner of which never ends: the sweep finishes, that corner's
    run failed ("timeout"), the others ok."""
    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1]\n', seeds=2)
    sw = Sweep.from_toml(f)
    sw.timeout = 1.0
    t0 = time.monotonic()
    res = run_sweep(sw, tmp_path / "st", workers=2, run_fn=functools.partial(sleep_on_seed, 2))
    assert time.monotonic() - t0 < 30
    assert res.ok == 2 and res.failed == 2
    assert {o.error_kind for o in res.failures} == {"timeout"}


# ----------------------------------------------------------------------------- scheduler
@pytest.mark.parametrize("addr, msg", [
    ("foo", "no port"),
    ("tcp://nohost:notaport", "port must be a number"),
    ("tcp://:8786", "not a host name"),
    ("http://host:8786", "unknown scheme 'http'"),
    ("tcp://host:70000", "port must be a number"),
    ("", "expected an address"),
])
def test_malformed_scheduler_address_fails_at_once(addr: str, msg: str):
    with pytest.raises(SchedulerAddressError, match=msg):
        check_scheduler_address(addr)
    t0 = time.monotonic()
    with pytest.raises(SchedulerAddressError):
        DaskPool(addr)
    assert time.monotonic() - t0 < 2


def test_good_scheduler_addresses_pass():
    assert check_scheduler_address("tcp://10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    assert check_scheduler_address("sched.example:8786") == "tcp://sched.example:8786"
    assert check_scheduler_address("tls://[::1]:8786") == "tls://[::1]:8786"
    assert check_scheduler_address("inproc://10.0.0.1/123/1") == "inproc://10.0.0.1/123/1"


def test_cli_malformed_scheduler_is_one_line(tmp_path: Path):
    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05]\n', seeds=1)
    t0 = time.monotonic()
    res = runner.invoke(app, ["sweep", str(f), "--store", str(tmp_path / "st"),
                              "--scheduler", "tcp://nohost:notaport"])
    assert time.monotonic() - t0 < 5
    assert res.exit_code == 2  # a usage error (issue 23), not a failed run
    assert "Traceback" not in res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "port must be a number" in lines[0], res.output
    assert not (tmp_path / "st").exists()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A loopback TCP server (127.0.0.1 only) that accepts connections and never replies."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    conns = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                c, _ = srv.accept()
                conns.append(c)
            except OSError:
                continue

    th = threading.Thread(target=accept, daemon=True)
    th.start()
    try:
        yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        stop.set()
        th.join(2)
        for c in conns:
            c.close()
        srv.close()


def test_scheduler_that_never_answers_fails_within_the_connect_timeout(silent_server: str):
    t0 = time.monotonic()
    with pytest.raises(ConnectionError, match="no answer from a Dask scheduler|could not reach"):
        DaskPool(silent_server, connect_timeout=1.0)
    assert time.monotonic() - t0 < 10


def test_cli_silent_scheduler_is_one_line(tmp_path: Path, silent_server: str):
    """The CLI (default connect timeout, 10 s) in a subprocess: one error line, bounded."""
    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05]\n', seeds=1)
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "aqmsim.cli", "sweep", str(f), "--store",
                           str(tmp_path / "st"), "--scheduler", silent_server],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})
    took = time.monotonic() - t0
    assert proc.returncode == 1, proc.stderr
    assert took < 40
    assert "Traceback" not in proc.stderr
    assert "no answer from a Dask scheduler" in proc.stderr + proc.stdout


# ----------------------------------------------------------------------------- stores
def _complete_sweep(tmp_path: Path) -> tuple:
    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1]\n', seeds=2,
                    duration=1, flows=2)
    store = tmp_path / "st"
    first = run_sweep(Sweep.from_toml(f), store, workers=2)
    assert first.ok == 4
    return f, store


def _read_only(monkeypatch: pytest.MonkeyPatch, store: Path) -> None:
    """Emulate a store directory this process may not write. The tests run as root, for
    which chmod changes nothing (os.access says yes), so the store's writability check
    (aqmsim.store.faults._writable) is told "no" for everything under it."""
    real = store_mod.faults._writable
    monkeypatch.setattr(store_mod.faults, "_writable", lambda p: False if Path(p).resolve().is_relative_to(
        store.resolve()) else real(p))


def test_complete_sweep_on_read_only_store_does_nothing(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    f, store = _complete_sweep(tmp_path)
    before = (store / "runs.duckdb").stat().st_mtime_ns
    _read_only(monkeypatch, store)
    with pytest.raises(StoreError):  # the emulation holds: no writer can open it
        store_mod.Store(store)
    res = run_sweep(Sweep.from_toml(f), store, workers=2)
    assert res.ok == 4 and res.counts.skipped == 4 and res.pool == "nothing to run"
    out = runner.invoke(app, ["sweep", str(f), "--store", str(store)])
    assert out.exit_code == 0, out.output
    assert "4 already in the store, 0 run now" in out.output
    assert (store / "runs.duckdb").stat().st_mtime_ns == before


def test_complete_sweep_while_another_process_writes_the_store(tmp_path: Path):
    """A real lock (no emulation): another process holds the store open for writing; a
    complete sweep reruns fine (it only reads), one with runs to do says the store is in
    use."""
    f, store = _complete_sweep(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('held', flush=True); time.sleep(60)", str(store / "runs.duckdb")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        res = run_sweep(Sweep.from_toml(f), store, workers=1)
        assert res.ok == 4 and res.counts.skipped == 4
        g = tmp_path / "g.toml"
        g.write_text(f.read_text().replace("[0.05, 0.1]", "[0.05, 0.1, 0.2]"))
        with pytest.raises(StoreError, match="in use by another process"):
            run_sweep(Sweep.from_toml(g), store, workers=1)
    finally:
        holder.kill()
        holder.wait(10)
        holder.stdout.close()


def test_sweep_with_runs_to_do_on_read_only_store_names_it(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    f, store = _complete_sweep(tmp_path)
    g = tmp_path / "g.toml"
    g.write_text(f.read_text().replace("[0.05, 0.1]", "[0.05, 0.1, 0.2]"))
    _read_only(monkeypatch, store)
    with pytest.raises(StoreError, match="cannot write to this store directory") as exc:
        run_sweep(Sweep.from_toml(g), store, workers=1)
    assert str(store) in str(exc.value)
    out = runner.invoke(app, ["sweep", str(g), "--store", str(store)])
    assert out.exit_code == 1
    assert "Traceback" not in out.output
    assert "cannot write to this store directory" in out.output and str(store) in out.output
    # a new store under a directory it may not write
    _read_only(monkeypatch, tmp_path / "ro")
    (tmp_path / "ro").mkdir()
    with pytest.raises(StoreError, match="cannot write"):
        run_sweep(Sweep.from_toml(f), tmp_path / "ro" / "new", workers=1)


def _chmod_read_only_checks(f: Path, store: Path) -> None:
    """With the store's files and directories made read-only by chmod: the complete sweep
    reruns (reading only), a sweep with runs to do fails in one clear error."""
    modes = {p: p.stat().st_mode for p in [store, *store.rglob("*")]}
    try:
        for p in modes:
            p.chmod(0o555 if p.is_dir() else 0o444)
        res = run_sweep(Sweep.from_toml(f), store, workers=1)
        assert res.counts.skipped == 4
        g = f.parent / "g.toml"
        g.write_text(f.read_text().replace("[0.05, 0.1]", "[0.05, 0.1, 0.2]"))
        with pytest.raises(StoreError, match="cannot write to this store directory"):
            run_sweep(Sweep.from_toml(g), store, workers=1)
    finally:
        for p, m in modes.items():
            p.chmod(m)


def test_chmod_read_only_store(tmp_path: Path):
    """A real read-only store (chmod). Root ignores file modes through its CAP_DAC_OVERRIDE
    capability, so as root the checks run in a child process without it (util-linux's
    setpriv drops it from the capability bounding set)."""
    f, store = _complete_sweep(tmp_path)
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        _chmod_read_only_checks(f, store)
        return
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "import test_sweep_faults as t; "
            "t._chmod_read_only_checks(Path(sys.argv[2]), Path(sys.argv[3])); print('checked')")
    out = subprocess.run(["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
                          sys.executable, "-c", code, str(Path(__file__).parent), str(f),
                          str(store)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "checked" in out.stdout, out.stdout + out.stderr


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::DeprecationWarning",
                            "ignore::UserWarning", "ignore::RuntimeWarning",
                            "ignore::pytest.PytestUnraisableExceptionWarning")
def test_dask_run_past_its_limit_is_cancelled_and_recorded(tmp_path: Path):
    """On a real (loopback) Dask cluster: the stalled run's future is cancelled and the run
    recorded failed ("timeout"); the others finish. (The workers import this module
    first: unpickling the hook in a run's time would count its imports — seconds on a
    loaded machine — against the run's 2 s.)"""
    import importlib

    import distributed
    base = aqmsim.Scenario.from_toml(RED).to_dict()
    tasks = [("p", base, s) for s in (1, 2, 3, 4)]
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as lc:
        with distributed.Client(lc, set_as_default=False) as client:
            client.run(importlib.import_module, __name__)
        t0 = time.monotonic()
        res = run_tasks(tasks, tmp_path / "st", scheduler=lc.scheduler_address, timeout=2.0,
                        run_fn=functools.partial(sleep_on_seed, 2))
        assert time.monotonic() - t0 < 30
    assert res.ok == 3 and res.failed == 1
    (bad,) = res.failures
    assert bad.seed == 2 and bad.error_kind == "timeout" and "2 s" in bad.error
