"""Sweeps keep their promises under faults (issue 12): the driver (`aqmsim sweep`) killed
with SIGKILL at many random moments and at each step of writing the store, two sweeps
writing one store at once, a store whose disk fills up (or turns read-only), a Dask run
that kills every worker it lands on. After each fault the store opens, every run
recorded is there exactly once with its files readable — or the sweep stops with one
clear error line — and the same command again finishes the rest.

The long variant of the kill test: ``AQMSIM_FAULT_KILLS=200 pytest
tests/test_sweep_crash.py -k random_moments`` (about 4 s a kill on 2 cores, with
the checks and a finishing run every third kill).
"""

from __future__ import annotations

import errno
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import duckdb
import pandas as pd
import pytest

from aqmsim import store as store_mod
from aqmsim.store import TMP_MARK

from conftest import ROOT
from test_sweep_local import Q, write_sweep

#: kills in `make test`; AQMSIM_FAULT_KILLS=N for a long run
KILLS = int(os.environ.get("AQMSIM_FAULT_KILLS", "8"))
MAX_P = "[0.02, 0.05, 0.1, 0.15, 0.2]"


def _crash_sweep(tmp_path: Path, name: str = "crash", values: str = MAX_P,
                 seeds: int = 8) -> Path:
    """40 runs of tens of ms each (100 flows, 15 Mb/s, 20 s) keeping two series: the
    driver spends its time in every stage (start, store, workers, writing)."""
    return write_sweep(tmp_path / f"{name}.toml", f'[[vary]]\n"{Q}max_p" = {values}\n',
                       name=name, seeds=seeds, series='["queue", "flows"]', duration=20,
                       flows=100, rate="15Mb")


def _cmd(f: Path, store: Path, workers: int = 2) -> List[str]:
    return [sys.executable, "-m", "aqmsim", "sweep", str(f), "--store", str(store),
            "--workers", str(workers)]


def _env() -> Dict[str, str]:
    return {**os.environ, "COLUMNS": "250", "PYTHONUNBUFFERED": "1"}


def check_store(store: Path, total: Optional[int] = None,
                series: Tuple[str, ...] = ("queue", "flows")) -> Dict[Tuple[str, int], object]:
    """The invariants a store keeps whatever happened to its writer: it opens (for reading
    and for writing), each (hash, seed) once, every ok row has its Parquet files and they
    read; ``total``: the sweep is complete (that many rows, all ok, no file but theirs).
    Returns ``{(hash, seed): finished_at}``."""
    if not (store / store_mod.DB_NAME).exists():
        assert total is None
        return {}
    df = store_mod.open(store)
    with store_mod.Store(store) as st:       # a writer opens it too (replays its log)
        n, distinct = st.con.execute(
            "SELECT count(*), count(DISTINCT (hash, seed)) FROM runs").fetchone()
        assert n == distinct == len(df)
        for (table,) in st.con.execute("SELECT table_name FROM information_schema.tables "
                                       "WHERE table_schema = 'main'").fetchall():
            st.con.execute(f'SELECT count(*) FROM "{table}"').fetchone()
    assert (df["status"] == "ok").all(), df[df["status"] != "ok"][["error"]].to_string()
    files = set()
    for h, seed, files_of in zip(df["hash"], df["seed"], df["series"]):
        assert set(files_of) == set(series), (h, seed, files_of)
        for rel in files_of.values():
            p = store / rel
            assert p.is_file(), p
            assert len(pd.read_parquet(p)) > 0
            files.add(p)
    if total is not None:
        assert len(df) == total
        on_disk = {p for p in (store / "series").rglob("*") if p.is_file()}
        assert on_disk == files              # no orphan, no temporary file
        assert not [p for p in store.rglob("*") if TMP_MARK in p.name]
    return dict(zip(zip(df["hash"], df["seed"].astype(int)), df["finished_at"]))


def _state(pid: int) -> Tuple[int, str, str]:
    """(parent pid, state letter, start time) of a process, else (0, "gone", "")."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0, "gone", ""
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[1]), fields[0], fields[19]


def _children(pid: int) -> List[Tuple[int, str]]:
    """(pid, start time) of the children of ``pid``."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            ppid, _, start = _state(int(d.name))
            if ppid == pid:
                out.append((int(d.name), start))
    return out


def _running(proc: Tuple[int, str]) -> bool:
    _, state, start = _state(proc[0])
    return start == proc[1] and state not in ("Z", "X")


def _start_and_kill(cmd: List[str], log: Path, rng: random.Random) -> Tuple[str, int]:
    """Run ``cmd``, SIGKILL it at a random moment; how it ended — "early" (killed before
    its workers were up), "running" (killed with its workers up), or "finished" (it ended
    first) — and how many child processes it had then (which must all end). Half the
    kills wait for this driver's first run to be written (a new Parquet file), so
    that the moments while runs finish and are written get their share whatever the
    machine's speed or load (workers importing pandas and pyarrow take from 0.4 s to
    seconds on a busy machine)."""
    after_start = rng.random() < 0.5
    delay = rng.uniform(0.0, 0.6 if after_start else 1.3)  # the writing lasts ~1-2 s
    series = Path(cmd[cmd.index("--store") + 1]) / store_mod.SERIES_DIR

    def written() -> int:  # Parquet files in the store (a run's are renamed in when kept)
        return sum(1 for _ in series.rglob("*.parquet")) if series.is_dir() else 0

    before = written()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=fh, cwd=ROOT, env=_env())
    try:
        t0 = time.monotonic()
        up = None
        writing = None
        while proc.poll() is None and time.monotonic() - t0 < 120:
            if up is None and "running on:" in log.read_text():
                up = time.monotonic()
            if after_start:
                if writing is None and up is not None and written() > before:
                    writing = time.monotonic()  # this driver's first run is being kept
                if writing is not None and time.monotonic() - writing >= delay:
                    break
            elif time.monotonic() - t0 >= delay:
                break
            time.sleep(0.002)
        if proc.poll() is None:
            up = up or ("running on:" in log.read_text() and time.monotonic())
            workers = _children(proc.pid)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(30)
            if proc.returncode == 0:  # it finished between the poll and the signal
                assert "runs:" in log.read_text(), log.read_text()
                return "finished", 0
            assert proc.returncode == -signal.SIGKILL
            # its worker processes see their pipe close and end (none left running)
            deadline = time.monotonic() + 20
            while any(_running(w) for w in workers):
                assert time.monotonic() < deadline, [(w, _state(w[0])) for w in workers]
                time.sleep(0.02)
            return ("running" if up else "early"), len(workers)
        proc.wait(30)
        assert proc.returncode == 0, log.read_text()
        return "finished", 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


def _finish(f: Path, store: Path, total: int, before: Dict) -> None:
    done = subprocess.run(_cmd(f, store), capture_output=True, text=True, cwd=ROOT,
                          env=_env(), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (f"{len(before)} already in the store, {total - len(before)} run now"
            in done.stdout), done.stdout
    after = check_store(store, total)
    assert all(after[k] == v for k, v in before.items())   # kept runs were not redone


def test_driver_killed_at_random_moments(core, tmp_path: Path):
    """SIGKILL of `aqmsim sweep` at KILLS seeded random moments (three kills per store,
    then the same command finishes it, and a new store): after every kill the store
    opens, each run it holds is there once with readable files, and the runs held
    before the kill are untouched; the finishing run adds exactly the missing ones."""
    f = _crash_sweep(tmp_path)
    total = 40
    rng = random.Random(12)
    stages: Dict[str, int] = {"early": 0, "running": 0, "finished": 0}
    progress: List[int] = []
    kills = 0
    cycle = 0
    orphans = 0
    t0 = time.monotonic()
    while kills < KILLS:
        store = tmp_path / f"store{cycle}"
        before: Dict = {}
        for _ in range(3):
            if kills >= KILLS:
                break
            how, children = _start_and_kill(_cmd(f, store), tmp_path / "driver.log", rng)
            stages[how] += 1
            orphans += children
            now = check_store(store, total if how == "finished" else None)
            assert all(now.get(k) == v for k, v in before.items()), "a kept run changed"
            before = now
            if how == "finished":
                break
            kills += 1
            progress.append(len(now))
        _finish(f, store, total, before)
        cycle += 1
        if KILLS > 30 and cycle % 10 == 0:  # the long variant: keep the disk small
            for old in tmp_path.glob("store*"):
                if old != store:
                    shutil.rmtree(old)
    took = time.monotonic() - t0
    print(f"\n{kills} kills ({stages}), {cycle} stores, rows at each kill: {progress}, "
          f"{orphans} worker processes orphaned (all ended), {took:.1f} s")
    assert stages["running"] >= 1 and stages["early"] >= 1, stages
    assert orphans > 0  # (the check that they end is not vacuous)
    # some kill landed while runs were being written (neither none nor all of them kept)
    assert any(0 < n < total for n in progress), progress


# ----------------------------------------------------------------------------- named points
_KILL_AT = """
import os, signal, sys
from pathlib import Path
from aqmsim import store as S
from aqmsim.sweep import Sweep, run_sweep

target, when, nth = sys.argv[3], sys.argv[4], int(sys.argv[5])
owner = S.Store if hasattr(S.Store, target) else S.faults  # (the store writes through it)
real = getattr(owner, target)
calls = [0]

def hook(*a, **k):
    calls[0] += 1
    if when == "before" and calls[0] == nth:
        os.kill(os.getpid(), signal.SIGKILL)
    out = real(*a, **k)
    if when == "after" and calls[0] == nth:
        os.kill(os.getpid(), signal.SIGKILL)
    return out

setattr(owner, target, hook)
run_sweep(Sweep.from_toml(sys.argv[1]), Path(sys.argv[2]), workers=1)
print("not killed")
"""

#: (store function, before or after it, on its n-th call): each a moment where the driver
#: is between two writes of the store
POINTS = [
    ("_backfill_param", "before", 1),  # B's parameter column added, not yet filled
    ("_add_column", "after", 2),       # B's extra metric column: filled for A's rows?
    ("_write_all_atomic", "after", 1),  # a batch's files in place, its rows not yet
    ("record_many", "after", 1),
]


@pytest.fixture(scope="module")
def store_a(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Path, Path]:
    """Sweep A's complete store (4 runs, max_p varied, without the metric
    bottleneck_drops), and sweep B's file (min_th varied, with bottleneck_drops)."""
    from aqmsim.sweep import Sweep, run_sweep

    d = tmp_path_factory.mktemp("a")
    a = write_sweep(d / "a.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1]\n', name="a",
                    series='["queue", "flows"]', duration=1, flows=2)
    a.write_text(a.read_text().replace(', "bottleneck_drops"]', "]"))
    b = write_sweep(d / "b.toml", f'[[vary]]\n"{Q}min_th" = [3, 4]\n', name="b",
                    series='["queue", "flows"]', duration=1, flows=2)
    assert run_sweep(Sweep.from_toml(a), d / "st", workers=1).ok == 4
    return d / "st", b


@pytest.mark.parametrize("target, when, nth", POINTS, ids=[f"{t}-{w}-{n}" for t, w, n in POINTS])
def test_driver_killed_at_each_store_step(core, store_a: Tuple[Path, Path], tmp_path: Path,
                                          target: str, when: str, nth: int):
    """Sweep A fills a store; sweep B (a new parameter column, one more metric) is killed
    at one named step of writing it. The store stays consistent, and B run again ends
    with every run once and the columns it added filled for A's rows too — a column
    added but never filled (the driver killed between the two) would leave them NULL."""
    from aqmsim.sweep import Sweep, run_sweep

    store, b = tmp_path / "st", store_a[1]
    shutil.copytree(store_a[0], store)
    killed = subprocess.run([sys.executable, "-c", _KILL_AT, str(b), str(store), target,
                             when, str(nth)], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    check_store(store)
    res = run_sweep(Sweep.from_toml(b), store, workers=1)
    assert (res.ok, res.failed) == (4, 0)
    check_store(store, 8)
    df = store_mod.open(store)
    assert not df[f"{Q}min_th"].isna().any(), df[[f"{Q}max_p", f"{Q}min_th"]]
    assert sorted(df[f"{Q}min_th"]) == [3, 3, 4, 4, 5, 5, 5, 5]
    assert not df["bottleneck_drops"].isna().any(), df[["hash", "bottleneck_drops"]]


# ----------------------------------------------------------------------------- full disk
def _limit_file_size(limit: int):
    """A ``preexec_fn``: files this process writes may not grow past ``limit`` bytes, and a
    write past it fails with EFBIG ("File too large") instead of killing it (SIGXFSZ
    ignored) — a disk that fills up, without root or a small file system."""
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def _one_error_line(text: str) -> str:
    assert "Traceback" not in text, text
    errors = [ln for ln in text.splitlines() if "error" in ln.lower()]
    assert len(errors) == 1, text
    return errors[0]


@pytest.mark.parametrize("limit", [5_000, 60_000])
def test_store_disk_full_cli(core, tmp_path: Path, limit: int):
    """`aqmsim sweep` whose files may not grow past ``limit`` bytes: 5 kB, the new store's
    database (800 kB) cannot be made; 60 kB, in a store made before, its write-ahead log
    fills up part-way. One error line
    names the store and says there is no space (exit 1, no traceback); the runs recorded
    before are kept and read; with room again the same command runs the rest, each run
    once (a half-made database file would stop every later run)."""
    f = _crash_sweep(tmp_path)
    store = tmp_path / "st"
    if limit > 10_000:
        store_mod.Store(store).close()
    full = subprocess.run(_cmd(f, store), capture_output=True, text=True, cwd=ROOT,
                          env=_env(), timeout=300, preexec_fn=_limit_file_size(limit))
    assert full.returncode == 1, full.stdout + full.stderr
    line = _one_error_line(full.stdout + full.stderr)
    assert line.startswith("error: ") and str(store) in line and "no space" in line, line
    kept = check_store(store)
    assert (0 < len(kept) < 40) if limit > 10_000 else not kept, len(kept)
    assert not [p for p in store.rglob("*") if TMP_MARK in p.name]
    _finish(f, store, 40, kept)


@pytest.mark.parametrize("code, fail_at, says", [
    (errno.ENOSPC, 7, "no space left"),
    (errno.EROFS, 1, "cannot write to this store directory"),
])
def test_store_write_fails_writing_series(core, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, code: int,
                                          fail_at: int, says: str):
    """The disk fills (ENOSPC), or the file system turns read-only (EROFS), while the
    driver writes a run's Parquet files (from the fail_at-th write on): a StoreError
    naming the store and saying which; no temporary file left behind; every run recorded
    before kept; the CLI says it in one line; the sweep then finishes."""
    from aqmsim.cli import app
    from aqmsim.store import StoreError
    from aqmsim.sweep import Sweep, run_sweep
    from typer.testing import CliRunner

    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1, 0.2]\n',
                    name="s", seeds=3, series='["queue", "flows"]', duration=1, flows=2)
    store = tmp_path / "st"
    real = store_mod.faults._os_write
    writes = [0]

    def full_disk(fd: int, data: bytes) -> int:
        writes[0] += 1
        if writes[0] >= fail_at:
            real(fd, bytes(data[:100]))  # a part, then no more room
            raise OSError(code, os.strerror(code))
        return real(fd, data)

    monkeypatch.setattr(store_mod.faults, "_os_write", full_disk)
    with pytest.raises(StoreError, match=says) as exc:
        run_sweep(Sweep.from_toml(f), store, workers=2)
    assert str(store) in str(exc.value)
    assert not [p for p in store.rglob("*") if TMP_MARK in p.name]
    kept = check_store(store)
    assert len(kept) == (0 if fail_at == 1 else len(kept)) and len(kept) < 9
    writes[0] = 0
    res = CliRunner().invoke(app, ["sweep", str(f), "--store", str(store), "-w", "1"])
    assert res.exit_code == 1, res.output
    line = _one_error_line(res.output)
    assert says in line and str(store) in line
    more = check_store(store)
    assert all(more[k] == v for k, v in kept.items()) and len(more) < 9
    kept = more
    monkeypatch.setattr(store_mod.faults, "_os_write", real)
    res = run_sweep(Sweep.from_toml(f), store, workers=2)
    assert res.ok == 9 and res.counts.skipped == len(kept)
    after = check_store(store, 9)
    assert all(after[k] == v for k, v in kept.items())


# ----------------------------------------------------------------------------- two writers
def run_when_released(release: str, payload: Dict) -> Dict:
    """A worker hook (tests only): each run waits for the file ``release`` to exist."""
    from aqmsim.sweep import execute

    while not os.path.exists(release):
        time.sleep(0.02)
    return execute(payload)


_HOLDER = """
import functools, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import test_sweep_crash as t
from aqmsim.sweep import Sweep, run_sweep
res = run_sweep(Sweep.from_toml(sys.argv[2]), Path(sys.argv[3]), workers=1,
                run_fn=functools.partial(t.run_when_released, sys.argv[4]),
                on_pool=lambda desc: print("running", flush=True))
print("done", res.ok, flush=True)
"""


def test_second_sweep_on_a_store_in_use_is_one_error(core, tmp_path: Path):
    """A sweep is writing a store (its runs held until the test releases them); two more
    `aqmsim sweep` on that store — the same grid, and an overlapping one — each fail at
    once with one line naming the store and the process that holds it (DuckDB lets one
    process write a database: a second writer cannot share it), and write nothing. When
    the first is done, both run again: the shared runs are not run twice."""
    f = _crash_sweep(tmp_path, "crash", "[0.05, 0.1]", seeds=2)
    g = _crash_sweep(tmp_path, "other", "[0.1, 0.2]", seeds=2)
    store, release = tmp_path / "st", tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(Path(__file__).parent),
                               str(f), str(store), str(release)], stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    try:
        assert holder.stdout.readline().strip() == "running"
        others = [subprocess.Popen(_cmd(x, store), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=_env())
                  for x in (f, g)]
        for p in others:
            out = p.communicate(timeout=120)[0]
            assert p.returncode == 1, out
            line = _one_error_line(out)
            assert line.startswith(f"error: {store}: in use by another process "
                                   f"(pid {holder.pid}: "), line
            assert "one process write a store at a time" in line
        assert len(store_mod.open(store)) == 0    # (read: the holder has the lock)
        release.touch()
        assert holder.stdout.readline().split() == ["done", "4"]
    finally:
        release.touch()
        holder.wait(60)
        holder.stdout.close()
    first = check_store(store, 4)
    other = subprocess.run(_cmd(g, store), capture_output=True, text=True, cwd=ROOT,
                           env=_env(), timeout=300)
    assert other.returncode == 0 and "2 already in the store, 2 run now" in other.stdout
    after = check_store(store, 6)
    assert all(after[k] == v for k, v in first.items())


def test_two_sweeps_started_together(core, tmp_path: Path):
    """Two `aqmsim sweep` started at the same moment on one new store, with overlapping
    grids: each either succeeds or fails with the one "in use" line (the other held the
    store past the wait); at least one succeeds, and once both have run, every run of
    either grid is there exactly once."""
    f = _crash_sweep(tmp_path, "crash", "[0.05, 0.1, 0.15]", seeds=4)
    g = _crash_sweep(tmp_path, "other", "[0.1, 0.15, 0.2]", seeds=4)
    store = tmp_path / "st"
    procs = [subprocess.Popen(_cmd(x, store), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=_env())
             for x in (f, g)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    codes = [p.returncode for p in procs]
    assert 0 in codes, outs
    for p, x, out in zip(procs, (f, g), outs):
        if p.returncode:
            assert p.returncode == 1, out
            line = _one_error_line(out)
            assert f"{store}: in use by another process (pid " in line, line
            again = subprocess.run(_cmd(x, store), capture_output=True, text=True,
                                   cwd=ROOT, env=_env(), timeout=300)
            assert again.returncode == 0, again.stdout + again.stderr
    check_store(store, 16)
    for x in (f, g):
        df = store_mod.open(store, sweep=x.stem)
        assert len(df) == 12 and (df["status"] == "ok").all()


def test_sweep_waits_for_a_reader_of_its_store(core, tmp_path: Path):
    """A reader (another process with the store open read-only for a moment: a report, a
    notebook's store.open) holds DuckDB's lock too; a sweep starting then waits for it
    (up to LOCK_WAIT) instead of failing "in use"."""
    from aqmsim.sweep import Sweep, run_sweep

    f = write_sweep(tmp_path / "s.toml", f'[[vary]]\n"{Q}max_p" = [0.05]\n', seeds=1,
                    duration=1, flows=2)
    store = tmp_path / "st"
    assert run_sweep(Sweep.from_toml(f), store, workers=1).ok == 1
    g = write_sweep(tmp_path / "g.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1]\n', seeds=1,
                    duration=1, flows=2)
    reader = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], "
         "read_only=True); print('reading', flush=True); time.sleep(1.0); c.close()",
         str(store / store_mod.DB_NAME)], stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "reading"
        res = run_sweep(Sweep.from_toml(g), store, workers=1)
        assert (res.ok, res.counts.skipped) == (2, 1)
    finally:
        reader.wait(30)
        reader.stdout.close()
    check_store(store, 2, series=())


# ----------------------------------------------------------------------------- Dask
def kill_on(max_p: float, seed: int, payload: Dict) -> Dict:
    """A worker hook (tests only): the run of (max_p, seed) kills its worker process, every
    time; the others run normally."""
    from aqmsim.sweep import execute

    q = payload["scenario"]["dumbbell"]["bottleneck"]["queue"]
    if payload["seed"] == seed and q["max_p"] == max_p:
        os.kill(os.getpid(), signal.SIGKILL)
    return execute(payload)


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::DeprecationWarning",
                            "ignore::UserWarning", "ignore::RuntimeWarning",
                            "ignore::pytest.PytestUnraisableExceptionWarning")
def test_dask_run_that_kills_every_worker(core, tmp_path: Path):
    """On a Dask cluster that gives up on a task after the first worker it kills
    (allowed-failures 0): the run that kills its worker every time comes back as
    KilledWorker, is retried once (another worker killed), and is recorded failed
    ("worker") once. A run queued on a worker that died with it may fail alike (the
    scheduler blames every task it had handed that worker); every other run is ok, once,
    with its files. The same sweep again, without the fault, runs just the failed ones:
    then every run is there once, ok."""
    import functools

    import dask
    import distributed

    from aqmsim.sweep import Sweep, run_sweep

    f = write_sweep(tmp_path / "d.toml", f'[[vary]]\n"{Q}max_p" = [0.05, 0.1, 0.2]\n',
                    name="d", seeds=2, series='["queue", "flows"]', duration=1, flows=2)
    store = tmp_path / "st"
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                     host="127.0.0.1", dashboard_address=None) as lc:
        res = run_sweep(Sweep.from_toml(f), store, scheduler=lc.scheduler_address,
                        run_fn=functools.partial(kill_on, 0.1, 2))
        poison = [o for o in res.outcomes if o.seed == 2 and "max_p=0.1" in str(o.key)]
        assert len(poison) == 1 and poison[0].status == "failed", res.outcomes
        assert poison[0].error_kind == "worker" and poison[0].attempts == 2
        assert "KilledWorker" in poison[0].error
        for o in res.failures:                # collateral: KilledWorker twice
            assert o.error_kind == "worker" and o.attempts == 2, o
        df = store_mod.open(store, sweep="d")
        assert len(df) == 6 and not df.duplicated(["hash", "seed"]).any()
        assert (df["status"] == "ok").sum() == res.ok >= 1
        for series in df.loc[df["status"] == "ok", "series"]:
            assert set(series) == {"queue", "flows"}
            for rel in series.values():
                assert len(pd.read_parquet(store / rel)) > 0
        again = run_sweep(Sweep.from_toml(f), store, scheduler=lc.scheduler_address)
    assert (again.ok, again.failed, again.counts.skipped) == (6, 0, res.ok)
    after = check_store(store, 6)
    assert len(after) == 6
    con = duckdb.connect(str(store / store_mod.DB_NAME), read_only=True)
    try:
        assert con.execute("SELECT count(*), count(DISTINCT (hash, seed)) FROM runs"
                           ).fetchone() == (6, 6)
        assert con.execute("SELECT attempts FROM runs WHERE hash = ? AND seed = 2",
                           [poison[0].hash]).fetchone() == (3,)
    finally:
        con.close()


# ----------------------------------------------------------------------------- SIGTERM
_TERM_AT_RENAME = """
import os, signal, sys
from aqmsim.store import TMP_MARK

real = os.replace

def replace(src, dst, *a, **k):
    # the first series file of a batch renamed into place, the others still temporary:
    # SIGTERM to this process, handled (or not) as the call returns
    out = real(src, dst, *a, **k)
    if TMP_MARK in str(src) and str(src).endswith(TMP_MARK + str(os.getpid())) \\
            and "series" in str(src) and not os.environ.get("TERMED"):
        os.environ["TERMED"] = "1"
        os.kill(os.getpid(), signal.SIGTERM)
    return out

os.replace = replace
from aqmsim.cli import app
sys.argv = ["aqmsim", *sys.argv[1:]]
app()
"""


def test_sigterm_while_writing_leaves_no_temporary_file(core, tmp_path: Path):
    """SIGTERM reaches `aqmsim sweep` between renaming a run's first Parquet file into the
    store and its second (the first batch of runs: several files still `.tmp-`). Before,
    the default action ended the process there, the temporary files left until the next
    run; now it stops as on Ctrl-C: exit 143, one line saying so, its worker processes
    ended, no temporary file, the store consistent; the same command finishes it."""
    f = _crash_sweep(tmp_path, seeds=2)
    store = tmp_path / "st"
    cmd = [sys.executable, "-c", _TERM_AT_RENAME] + _cmd(f, store, workers=1)[3:]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=_env(),
                          timeout=300)
    text = done.stdout + done.stderr
    assert done.returncode == 143, text
    line = _one_error_line(text)
    assert line == ("error: terminated (SIGTERM): finished runs are in the store; the same "
                    "command finishes the rest"), line
    assert not [p for p in store.rglob("*") if TMP_MARK in p.name]
    kept = check_store(store)
    _finish(f, store, 10, kept)


def test_sigterm_from_outside_stops_the_sweep_cleanly(core, tmp_path: Path):
    """`kill -TERM` of the driver while its runs are being written: it ends within
    seconds with status 143, its worker processes end, no temporary file is left, and the
    runs it kept are there for the next command."""
    f = _crash_sweep(tmp_path)
    store = tmp_path / "st"
    log = tmp_path / "driver.log"
    series = store / store_mod.SERIES_DIR
    with log.open("w") as fh:
        proc = subprocess.Popen(_cmd(f, store), stdout=fh, stderr=fh, cwd=ROOT, env=_env())
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and not (series.is_dir() and any(series.rglob("*.parquet"))):
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.005)
        assert proc.poll() is None, "the sweep (40 runs) finished before its first run was written"
        workers = _children(proc.pid)
        assert workers
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    text = log.read_text()
    assert proc.returncode == 143, text  # 0 would mean all 40 runs ended in the signal's few ms
    assert "terminated (SIGTERM)" in _one_error_line(text)
    deadline = time.monotonic() + 20
    while any(_running(w) for w in workers):
        assert time.monotonic() < deadline, [(w, _state(w[0])) for w in workers]
        time.sleep(0.02)
    assert not [p for p in store.rglob("*") if TMP_MARK in p.name]
    kept = check_store(store)
    assert len(kept) < 40  # (none, when the signal came before the first batch's rows)
    _finish(f, store, 40, kept)
