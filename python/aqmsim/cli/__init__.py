"""The ``aqmsim`` command line.

    aqmsim run examples/dumbbell-red.toml [--seed N] [--out DIR] [--format csv|parquet]
                                          [--set duration=5 --set dumbbell.bottleneck.queue.max_p=0.05]
    aqmsim validate examples/dumbbell-red.toml [--full | --json]
    aqmsim list [DISCIPLINE]
    aqmsim reproduce PAPER|all [--seeds N] [--out DIR] [--workers N | --scheduler tcp://HOST:PORT]
                               [--store DIR] [--fresh]
    aqmsim sweep SWEEP.toml [--workers N | --scheduler tcp://HOST:PORT] [--store DIR]
    aqmsim report SWEEP.toml [--store DIR] [--out DIR]
    aqmsim compare DIR [DIR ...] [--out DIR] [--label DIR=TEXT ...]
    aqmsim examples DIR [--force]
    aqmsim version | aqmsim --version

A malformed scenario, a missing file or a bad option value prints one red line and exits
with status 2 (aqmsim.cli_errors: the same for typer's own usage errors); a failed simulation
exits with status 1. Never a traceback for either.

The commands live in modules by group (common.py: the app and what the commands share;
run_cmd.py; info_cmds.py: validate, list, examples, version; reproduce_cmd.py;
sweep_cmds.py: sweep, report, suite; compare_cmd.py; ns2_cmds.py: export-ns2, crosscheck) and are
registered on the app here, in the order ``aqmsim --help`` lists them. Each keeps its
heavy imports inside its function, so ``aqmsim --help`` and ``run`` load no more.
"""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

import sys
from typing import NoReturn

from . import common as _common
from .common import _LazyConsole, app, err, out
from .compare_cmd import compare_cmd
from .info_cmds import (
    _options,
    discipline_table,
    examples_cmd,
    list_disciplines,
    validate,
    version,
    version_text,
)
from .ns2_cmds import crosscheck, export_ns2
from .reproduce_cmd import reproduce
from .run_cmd import run, summary_table
from .sweep_cmds import suite_cmd, sweep_cmd, sweep_report_cmd

__all__ = ["app", "main", "summary_table", "discipline_table", "version_text", "out", "err",
           "_LazyConsole"]

app.callback()(_options)
app.command()(run)
app.command()(validate)
app.command("list")(list_disciplines)
app.command()(reproduce)
app.command("sweep")(sweep_cmd)
app.command("report")(sweep_report_cmd)
app.command("suite")(suite_cmd)
app.command("compare")(compare_cmd)
app.command("export-ns2")(export_ns2)
app.command()(crosscheck)
app.command()(version)
app.command("examples")(examples_cmd)


def _quick_exit(code: int) -> NoReturn:
    """End the process now: the atexit handlers run and stdout/stderr are flushed, but the
    interpreter is not torn down (a full garbage collection, then freeing every module),
    which with numpy and matplotlib loaded (`run --out`) takes ~0.1 s of a ~0.8 s command
    for nothing: every file `run` wrote is closed, and the process ends anyway."""
    import atexit
    import os

    atexit._run_exitfuncs()  # what a normal exit runs (multiprocessing's, logging's)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nothing more to say
    os._exit(code)


def main() -> None:
    """The ``aqmsim`` command (the console script and ``python -m aqmsim``)."""
    import threading

    try:
        app(prog_name="aqmsim")
    except SystemExit as exc:
        # no thread left that a normal exit would wait for (an executor's, a sweep's)
        alone = all(t.daemon or t is threading.main_thread() for t in threading.enumerate())
        if _common._QUICK_EXIT and alone and isinstance(exc.code, (int, type(None))):
            _quick_exit(exc.code or 0)
        raise
