"""Start-up stays light: importing aqmsim, its engine and its command line loads none of
the heavy libraries (pandas, numpy, matplotlib, duckdb, dask, pyarrow, scipy, jinja2).
Each is imported by the function that needs it. A fresh interpreter per check, since this
test session has most of them loaded already. (Speed itself is measured by `make bench`,
not here: these are the invariants behind it.)"""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES, ROOT, fresh_python

HEAVY = ("pandas", "numpy", "matplotlib", "duckdb", "dask", "distributed", "pyarrow", "scipy",
         "jinja2", "pydantic")


def _loaded_after(code: str) -> list:
    """The heavy top-level modules in sys.modules after running ``code`` in a new Python."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))")
    proc = fresh_python(["-c", probe], ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_aqmsim_is_light():
    assert _loaded_after("import aqmsim") == []


def test_import_engine_is_light():
    assert _loaded_after("import aqmsim._core") == []


def test_import_cli_is_light():
    assert _loaded_after("import aqmsim.cli") == []


def test_version_is_light(core):
    code = ("import contextlib, io, sys\nfrom aqmsim.cli import app\n"
            "sys.argv = ['aqmsim', '--version']\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n    try:\n        app(prog_name='aqmsim')\n"
            "    except SystemExit as e:\n        assert not e.code, e.code\n"
            "text = buf.getvalue()\n"
            "assert text.startswith('aqmsim ') and '\\nengine ' in text and '\\nPython ' in text, text")
    assert _loaded_after(code) == []


def test_run_summary_is_light(core):
    """`aqmsim run` that only prints the summary builds no table: no pandas."""
    code = ("import sys\nfrom aqmsim.cli import app\n"
            f"sys.argv = ['aqmsim', 'run', {str(EXAMPLES / 'dumbbell-red.toml')!r}, "
            "'--set', 'duration=1', '--set', 'dumbbell.groups.0.stop=1']\n"
            "try:\n    app(prog_name='aqmsim')\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code")
    loaded = _loaded_after(code)
    assert "pydantic" not in loaded, ("typer >= 0.29 checks options through pydantic: "
                                      "install typer < 0.29 as pyproject.toml says (make venv)")
    assert loaded == []


def test_run_summary_of_several_groups_is_light(core):
    """The flows-by-group table `aqmsim run` prints for a run of several groups is read
    from the engine's lists: still no numpy, no pandas."""
    code = ("import contextlib, io, sys\nfrom aqmsim.cli import app\n"
            f"sys.argv = ['aqmsim', 'run', {str(EXAMPLES / 'dumbbell-bbr.toml')!r}, '--set', 'duration=1']\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n    try:\n        app(prog_name='aqmsim')\n"
            "    except SystemExit as e:\n        assert not e.code, e.code\n"
            "assert 'by flow group' in buf.getvalue(), buf.getvalue()")
    assert _loaded_after(code) == []


@pytest.mark.parametrize("attr", ["Scenario", "Results", "ScenarioError", "__version__"])
def test_public_names_resolve(attr):
    import aqmsim

    assert getattr(aqmsim, attr) is not None


def test_lazy_console_is_a_console(capsys):
    """cli.out / cli.err make their rich Console on first use and behave as one, with-blocks
    included (rich's Live and Progress enter the console)."""
    from aqmsim.cli import _LazyConsole

    c = _LazyConsole(soft_wrap=True, highlight=False)
    with c:
        c.print("inside")
    c.print("after")
    assert c.is_terminal in (True, False)
    assert capsys.readouterr().out.split() == ["inside", "after"]
