"""`aqmsim run --out`: the files it writes (tables, PNG at 150 dpi plus SVG), the same
whether a forked helper draws half the figures or this process draws them all, and the
same again when the helper fails."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from aqmsim import Scenario
from aqmsim import run_output
from aqmsim.results import TABLES, TRACE_TABLES

from conftest import EXAMPLES, fresh_python

SHORT = ["--set", "duration=3", "--set", "dumbbell.groups.0.stop=3"]


def _cli(args, tmp_path: Path, prelude: str = "") -> subprocess.CompletedProcess:
    """The CLI in a fresh, single-threaded interpreter (where the fork is allowed)."""
    code = (f"{prelude}\nimport sys\nfrom aqmsim.cli import app\n"
            f"sys.argv = ['aqmsim', *{list(map(str, args))!r}]\napp(prog_name='aqmsim')")
    return fresh_python(["-c", code], tmp_path)


def _files(d: Path) -> dict:
    # (the summary holds the wall time; the provenance the command and the time)
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())
            if p.name not in ("summary.json", "provenance.json")}


def _png_size(data: bytes) -> tuple:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def short_red():
    sc = Scenario.from_toml(EXAMPLES / "dumbbell-red.toml")
    return sc.with_overrides(**{"duration": 3, "dumbbell.groups.0.stop": 3})


def test_figure_names_follow_the_tables(core, short_red):
    traced = short_red.with_overrides(**{"monitor.tcp_flows": [0], "monitor.delays": True})
    for res, want in ((short_red.run(seed=1), ["queue", "drop_probability", "utilisation"]),
                      (traced.run(seed=1), ["queue", "drop_probability", "utilisation", "tcp",
                                            "delay_cdf"])):
        assert run_output.figure_names(res) == want
        for name in (*TABLES, *TRACE_TABLES):  # has_rows tells without building the table
            assert res.has_rows(name) == (not getattr(res, name).empty), name


def test_forked_and_serial_output_agree(core, short_red, tmp_path, monkeypatch):
    forked = tmp_path / "forked"
    proc = _cli(["run", EXAMPLES / "dumbbell-red.toml", *SHORT, "--seed", "1", "--out", forked],
                tmp_path)
    assert proc.returncode == 0, proc.stderr
    monkeypatch.setattr(run_output, "_can_fork", lambda: False)
    serial = tmp_path / "serial"
    written = run_output.save_run(short_red.run(seed=1), serial)
    assert sorted(p.name for p in written) == sorted(p.name for p in serial.iterdir())
    a, b = _files(forked), _files(serial)
    assert sorted(a) == sorted(b)
    for name in ("queue", "drop_probability", "utilisation"):
        assert f"{name}.png" in a and f"{name}.svg" in a
        assert _png_size(a[f"{name}.png"]) == (1200, 600)  # 8 x 4 in at 150 dpi
        assert a[f"{name}.svg"].lstrip().startswith(b"<?xml")
    for name in a:
        assert a[name] == b[name], f"{name} differs between the forked and the serial run"


def test_a_failing_helper_changes_nothing(core, tmp_path):
    """The helper dies at once: this process draws its figures too."""
    ok, broken = tmp_path / "ok", tmp_path / "broken"
    args = ["run", EXAMPLES / "dumbbell-red.toml", *SHORT, "--seed", "2", "--out"]
    assert _cli([*args, ok], tmp_path).returncode == 0
    prelude = ("import os\nimport aqmsim.run_output as ro\n"
               "def dead(*a):\n    os._exit(3)\nro._helper = dead")
    proc = _cli([*args, broken], tmp_path, prelude)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _files(ok) == _files(broken)


def test_run_out_does_not_import_pandas(core, tmp_path):
    """`aqmsim run FILE --out DIR` (the console entry point, quick exit included) writes
    its tables and figures without pandas: an atexit handler — which the quick exit runs —
    reports the modules loaded by then."""
    out = tmp_path / "out"
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('PANDAS' if 'pandas' in sys.modules else 'NO-PANDAS'))\n"
            "from aqmsim.cli import main\n"
            f"sys.argv = ['aqmsim', 'run', {str(EXAMPLES / 'dumbbell-red.toml')!r}, *{SHORT!r}, "
            f"'--out', {str(out)!r}]\nmain()")
    proc = fresh_python(["-c", code], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "NO-PANDAS"
    for name in ("summary.json", "queue.csv", "flows.csv", "drops.csv", "links.csv",
                 "queue.png", "drop_probability.svg", "utilisation.png"):
        assert (out / name).stat().st_size > 0, name


def test_quick_exit_keeps_output_and_status(core, tmp_path):
    """`python -m aqmsim run` ends without the interpreter's teardown: stdout is still
    flushed in full (through a pipe), the status is 0; a failing run keeps its status 2."""
    out = tmp_path / "out"
    proc = fresh_python(["-m", "aqmsim", "run", EXAMPLES / "dumbbell-red.toml", *SHORT,
                         "--out", out], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("utilisation.png, utilisation.svg"), proc.stdout[-300:]
    bad = fresh_python(["-m", "aqmsim", "run", tmp_path / "nope.toml"], tmp_path)
    assert bad.returncode == 2 and "no such file" in bad.stderr


def test_figures_alike_from_columns_and_from_dataframes(core, short_red, tmp_path):
    """The figures read the tables through numpy columns; a Results whose DataFrames were
    built first (columns then come from them) draws the same SVG, byte for byte."""
    traced = short_red.with_overrides(**{"monitor.tcp_flows": [0], "monitor.delays": True})
    light, framed = traced.run(seed=4), traced.run(seed=4)
    for table in ("queue", "links", "tcp", "delay_cdf"):
        getattr(framed, table)
    names = run_output.figure_names(light)
    assert names == ["queue", "drop_probability", "utilisation", "tcp", "delay_cdf"]
    for name in names:
        a = run_output.save_figure(getattr(light, f"plot_{name}")(), tmp_path / f"l-{name}")
        b = run_output.save_figure(getattr(framed, f"plot_{name}")(), tmp_path / f"f-{name}")
        assert a[1].read_bytes() == b[1].read_bytes(), name
    assert "queue" not in light._frames and "queue" in framed._frames


@pytest.mark.parametrize("names", [
    ["queue", "drop_probability", "utilisation"],
    ["queue", "drop_probability", "utilisation", "delay_cdf"],
    ["queue", "drop_probability", "utilisation", "tcp", "delay_cdf"],
    ["queue"], [],
])
def test_split_shares_the_figures_evenly(names):
    """Each figure drawn once, by one process; no split leaves either with less to do."""
    import itertools

    theirs, ours = run_output._split(names)
    assert sorted(theirs + ours) == sorted(names)

    def busiest(a, b):
        cost = lambda g: sum(run_output._COST.get(n, 1.0) for n in g)  # noqa: E731
        return max(cost(a), cost(b) + run_output._TABLES_COST)

    for k in range(len(names) + 1):
        for other in itertools.combinations(names, k):
            rest = [n for n in names if n not in other]
            assert busiest(theirs, ours) <= busiest(list(other), rest) + 1e-12
