"""Every stored run says where it came from (issue 15): aqmsim's version, the engine's
build, the host, the command line, the time; a run another build of the engine stored is
not reused silently (the sweep refuses, naming --fresh, and --fresh runs it again); a store
from before provenance was kept is migrated, its runs counted stale; a sweep started from
a script without a ``__main__`` guard works."""

from __future__ import annotations

import json
import platform
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import store as store_mod
from aqmsim.cli import app
from aqmsim.store import SCHEMA_VERSION, Store
from aqmsim.sweep import StaleRunsError, Sweep, run_sweep
from conftest import aqmsim_argv

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def write_sweep(path: Path, seeds: int = 2) -> Path:
    path.write_text(f'name = "prov"\nbase = "{ROOT / "examples" / "dumbbell-droptail.toml"}"\n'
                    f"seeds = {seeds}\n[set]\nduration = 0.5\n"
                    '[[vary]]\n"dumbbell.bottleneck.queue.limit" = [20, 40]\n',
                    encoding="utf-8")
    return path


def _engine_hashes(store: Path) -> list:
    with Store(store) as st:
        return [h for (h,) in st.con.execute("SELECT engine_hash FROM runs").fetchall()]


def test_every_run_records_its_provenance(core, tmp_path: Path):
    from aqmsim import __version__, _core

    f = write_sweep(tmp_path / "s.toml")
    store = tmp_path / "st"
    res = run_sweep(Sweep.from_toml(f), store, workers=1)  # from Python: this test calls it
    assert res.ok == 4
    df = store_mod.open(store, sweep="prov")
    assert set(df["version"]) == {str(__version__)}
    assert set(df["engine_hash"]) == {_core.BUILD["source_hash"]}
    assert all(e == dict(_core.BUILD) for e in df["engine"])
    assert all(h == {"hostname": socket.gethostname(), "platform": platform.platform(),
                     "python": sys.version.split()[0]} for h in df["host"])
    cmd = set(df["command"])
    assert len(cmd) == 1
    assert cmd.pop().startswith(f"python API: {__file__}:")
    assert df["finished_at"].notna().all()

    # through the CLI: the command line (a fresh run so that every row is rewritten)
    args = ["sweep", str(f), "--store", str(store), "-w", "1", "--fresh"]
    with aqmsim_argv(args) as command:
        got = runner.invoke(app, args)
    assert got.exit_code == 0, got.output
    assert "0 already in the store, 4 run now" in got.output
    df = store_mod.open(store, sweep="prov")
    assert set(df["command"]) == {command}
    assert (df["attempts"] == 2).all()  # run again, not taken from the store


def test_runs_of_another_engine_are_refused_then_rerun_with_fresh(core, tmp_path: Path):
    from aqmsim import _core

    f = write_sweep(tmp_path / "s.toml")
    store = tmp_path / "st"
    assert run_sweep(Sweep.from_toml(f), store, workers=1).ok == 4
    with Store(store) as st:  # as if an older build of the engine had made two of them
        st.con.execute("UPDATE runs SET engine_hash = 'f00d' || substr(engine_hash, 5) "
                       "WHERE seed = 1")
    with pytest.raises(StaleRunsError) as exc:
        run_sweep(Sweep.from_toml(f), store, workers=1)
    msg = str(exc.value)
    assert "2 of the 4 runs" in msg and "--fresh" in msg and "f00d" in msg
    assert str(store) in msg and "\n" not in msg
    # the CLI: one line, exit status 1, nothing run
    got = runner.invoke(app, ["sweep", str(f), "--store", str(store), "-w", "1"])
    assert got.exit_code == 1
    errors = [ln for ln in got.output.splitlines() if "error" in ln.lower()]
    assert len(errors) == 1 and "--fresh" in errors[0], got.output
    assert "Traceback" not in got.output
    # --fresh runs all of them again, with this engine
    got = runner.invoke(app, ["sweep", str(f), "--store", str(store), "-w", "1", "--fresh"])
    assert got.exit_code == 0, got.output
    assert _engine_hashes(store) == [_core.BUILD["source_hash"]] * 4
    again = run_sweep(Sweep.from_toml(f), store, workers=1)
    assert again.counts.skipped == 4 and again.ran == 0


def test_an_old_store_is_migrated_and_its_runs_are_stale(core, tmp_path: Path):
    """A store of schema version 1 (no provenance columns): its runs, of an unknown
    engine, are refused as stale, saying so, and the store is left as it was (the sweep is
    complete there: it is only read); writing to it adds the columns."""
    f = write_sweep(tmp_path / "s.toml")
    store = tmp_path / "st"
    assert run_sweep(Sweep.from_toml(f), store, workers=1).ok == 4
    with Store(store) as st:  # back to version 1, as an older aqmsim wrote it
        for col in ("engine_hash", "engine", "host", "command"):
            st.con.execute(f"ALTER TABLE runs DROP COLUMN {col}")
        st.con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    old = store_mod.open(store, sweep="prov")  # readable as it is
    assert "engine_hash" not in old.columns and len(old) == 4
    with pytest.raises(StaleRunsError, match="4 of the 4 runs.*did not record its engine"):
        run_sweep(Sweep.from_toml(f), store, workers=1)

    def version() -> str:
        with Store(store, read_only=True) as st:
            return st.con.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                                  ).fetchone()[0]

    assert version() == "1"
    # a sweep with more runs opens it for writing: migrated, then refused all the same
    f.write_text(f.read_text().replace("seeds = 2", "seeds = 3"))
    with pytest.raises(StaleRunsError, match="4 of the 6 runs.*did not record its engine"):
        run_sweep(Sweep.from_toml(f), store, workers=1)
    assert version() == SCHEMA_VERSION == "2"
    assert run_sweep(Sweep.from_toml(f), store, workers=1, fresh=True).ran == 6
    assert None not in _engine_hashes(store)


def test_a_newer_store_is_refused(core, tmp_path: Path):
    from aqmsim.store import StoreError

    store = tmp_path / "st"
    with Store(store) as st:
        st.con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99: made by a newer aqmsim"):
        Store(store)


def _run_script(script: Path, text: str) -> subprocess.CompletedProcess:
    """``text`` written to ``script`` and run as a plain Python script in its folder."""
    script.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=script.parent,
                          capture_output=True, text=True, timeout=300)


def test_run_sweep_from_a_script_without_a_main_guard(core, tmp_path: Path):
    """Spawned workers do not run the driver's script again (which started a second
    sweep in each of them: "a sweep worker died while starting" and a DuckDB lock)."""
    got = _run_script(tmp_path / "plain.py",
                      "from aqmsim.sweep import Sweep, run_sweep\n"
                      f"res = run_sweep(Sweep.from_toml({str(write_sweep(tmp_path / 's.toml'))!r}), "
                      "'st', workers=2)\n"
                      "print('RESULT', res.ok, res.failed)\n")
    assert got.returncode == 0, got.stderr
    assert "RESULT 4 0" in got.stdout and got.stdout.count("RESULT") == 1
    df = store_mod.open(tmp_path / "st")
    assert len(df) == 4
    assert all(json.dumps(c).find("plain.py") > 0 for c in df["command"])


def test_a_run_fn_of_the_script_itself_still_works_under_a_guard(core, tmp_path: Path):
    """The workers skip the main script only when they need nothing from it: a run_fn
    defined in the script (here through functools.partial) is found there, as before."""
    got = _run_script(tmp_path / "guarded.py",
                      "import functools\n"
                      "from aqmsim.sweep import Sweep, execute, run_sweep\n"
                      "def mine(tag, payload):\n    return execute(payload)\n"
                      "if __name__ == '__main__':\n"
                      f"    sw = Sweep.from_toml({str(write_sweep(tmp_path / 's.toml', seeds=1))!r})\n"
                      "    res = run_sweep(sw, 'st', workers=1, run_fn=functools.partial(mine, 'x'))\n"
                      "    print('RESULT', res.ok, res.failed)\n")
    assert got.returncode == 0, got.stderr
    assert "RESULT 2 0" in got.stdout
