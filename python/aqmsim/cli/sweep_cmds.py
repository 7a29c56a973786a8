"""The commands that run tasks into a store and report on it: ``sweep`` (a parameter
grid x seeds), ``report`` (a sweep's figures) and ``suite`` (a guideline's scenarios x
disciplines x seeds)."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

from pathlib import Path
from typing import Callable, Optional

import typer

from ..cli_errors import check_out_dir
from ..errors import ScenarioError
from .common import _SCHEDULER, _WORKERS, _fail, err, out


def _run_into_store(call: Callable[[], int]) -> None:
    """A command that runs tasks into a store (`sweep`, `suite`): its errors as one line
    (2: bad input, 1: store, cluster or system, 130: interrupted, 143: SIGTERM), its
    status as the exit."""
    from ..store import StoreError

    try:
        code = call()
    except ScenarioError as exc:
        _fail(str(exc))
    except (StoreError, ConnectionError, ImportError, OSError, RuntimeError) as exc:
        _fail(str(exc), code=1)
    except KeyboardInterrupt as exc:  # (SIGTERM too: aqmsim.sweep.terminate)
        code = getattr(exc, "exit_code", 130)
        _fail(("terminated (SIGTERM)" if code != 130 else "interrupted")
              + ": finished runs are in the store; the same command finishes the rest",
              code=code)
    if code:
        raise typer.Exit(code)


def sweep_cmd(
    file: Path = typer.Argument(..., help="sweep file (TOML)", show_default=False),
    workers: Optional[int] = _WORKERS,
    scheduler: Optional[str] = _SCHEDULER,
    store: Optional[Path] = typer.Option(
        None, "--store", callback=check_out_dir,
        help="store directory (default: the file's `store`, else out/sweeps/NAME beside the sweep file)",
    ),
    retry_failed: bool = typer.Option(
        False, "--retry-failed", help="also rerun runs that failed with invalid parameters"
    ),
    timeout: Optional[float] = typer.Option(
        None, "--timeout", metavar="S",
        help="stop a run after S seconds, recorded as failed (default: the file's `timeout`, else 600)",
    ),
    fresh: bool = typer.Option(
        False, "--fresh",
        help="run every run again, ignoring the store's (needed when runs were stored by "
             "another build of the engine)",
    ),
) -> None:
    """Run a parameter sweep (grid x seeds) into a store; a rerun does only what is missing."""
    from ..sweep import cli_sweep

    if not file.is_file():
        _fail(f"{file}: no such file")
    _run_into_store(lambda: cli_sweep(file, workers, scheduler, store, retry_failed, out=out,
                                      err=err, timeout=timeout, fresh=fresh))


def sweep_report_cmd(
    file: Path = typer.Argument(..., help="sweep file (TOML)", show_default=False),
    store: Optional[Path] = typer.Option(None, "--store", callback=check_out_dir,
                                         help="store directory of the sweep"),
    out_dir: Optional[Path] = typer.Option(
        None, "--out", "-o", callback=check_out_dir, help="output directory (default: STORE/report)"
    ),
) -> None:
    """Draw a sweep's metrics against its parameters (95 % CI over seeds): PNG + index.html."""
    from ..store import StoreError
    from ..sweep_report import cli_report

    if not file.is_file():
        _fail(f"{file}: no such file")
    try:
        cli_report(file, store, out_dir, out=out)
    except ScenarioError as exc:
        _fail(str(exc))
    except (StoreError, ImportError, OSError) as exc:
        _fail(str(exc), code=1)


def suite_cmd(
    name: str = typer.Argument(..., metavar="SUITE", help="the suite: rfc7928 (RFC 7928's AQM "
                               "characterisation)", show_default=False),
    aqm: Optional[str] = typer.Option(
        None, "--aqm", metavar="A,B,...",
        help="disciplines (default: all of the suite's: red,ared,gentle,rtred,codel,pie,fq_codel,"
             "fq_pie,dualpi2,cobalt,fq_cobalt,cake); a Python plug-in as module:Class or "
             "path/file.py:Class"),
    seeds: int = typer.Option(5, "--seeds", "-s", help="seeds per run (1..N)"),
    scenarios: Optional[str] = typer.Option(
        None, "--scenarios", metavar="A,B,...", help="only these scenarios (file names)"),
    out_dir: Optional[Path] = typer.Option(
        None, "--out", "-o", callback=check_out_dir, help="output directory (default: out/suite/SUITE); the runs go "
        "to OUT/store, the report to OUT/index.html"),
    workers: Optional[int] = _WORKERS,
    scheduler: Optional[str] = _SCHEDULER,
    ns3: bool = typer.Option(False, "--ns3", help="add ns-3's points where ns-3 runs the "
                             "same scenario and discipline (needs `make ns3`)"),
    fresh: bool = typer.Option(False, "--fresh", help="run every run again"),
) -> None:
    """Characterise the disciplines by a guideline's scenarios (RFC 7928): every scenario x
    discipline x seed into a store (a rerun does only what is missing), then the report."""
    from ..suite import SUITES
    from ..suite.cli import cli_suite

    if name not in SUITES:
        _fail(f"SUITE: unknown suite {name!r}; expected one of: {', '.join(SUITES)}")
    _run_into_store(lambda: cli_suite(name, aqm, seeds, scenarios, out_dir, workers, scheduler,
                                      ns3, fresh, out=out, err=err))
