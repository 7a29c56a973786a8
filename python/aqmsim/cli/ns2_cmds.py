"""The commands that bring in ns-2: ``export-ns2`` (a scenario as an ns-2 Tcl script) and
``crosscheck`` (aqmsim and ns-2 on the same scenario, side by side)."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

from pathlib import Path
from typing import Optional

import typer

from .common import _fail, _load


def export_ns2(
    file: Path = typer.Argument(..., help="scenario file (TOML)"),
    seed: Optional[int] = typer.Option(
        None, "--seed", min=0,
        help="the seed of `aqmsim run --seed N` (default: the scenario's): the script starts "
             "every flow and sets every access/egress delay as that run does; RED's coin, "
             "TCP's boot_time_ and on/off bursts come from ns-2's own RNG (same distribution, "
             "other numbers)"),
    trace_dir: str = typer.Option(".", "--trace-dir", help="where the script writes its outputs"),
    trace_all: Optional[str] = typer.Option(
        None, "--trace-all", metavar="FILE",
        help="the script writes ns-2's trace-all of every link to FILE (or: ns s.tcl -trace-all FILE)"),
    namtrace_all: Optional[str] = typer.Option(
        None, "--namtrace-all", metavar="FILE",
        help="the script writes a nam trace to FILE (or: ns s.tcl -namtrace-all FILE)"),
) -> None:
    """Print the same scenario as an ns-2 Tcl script (DropTail and the RED family ns-2 has),
    with the start times and delays `aqmsim run --seed N` draws."""
    from ..errors import ScenarioError
    from ..ns2.cli_export import export_script

    sc = _load(file)
    try:
        typer.echo(export_script(sc, seed, trace_dir, trace_all=trace_all, namtrace_all=namtrace_all),
                   nl=False)
    except (ScenarioError, ValueError) as exc:
        _fail(f"{file}: {exc}")


def crosscheck(
    file: Path = typer.Argument(..., help="scenario file (TOML)"),
    seeds: int = typer.Option(5, "--seeds", min=1, help="seeds 1..N, both simulators"),
) -> None:
    """Run aqmsim and ns-2 on the same scenario over several seeds, side by side."""
    from ..errors import ScenarioError
    from ..ns2.crosscheck import compare

    sc = _load(file)
    try:
        df = compare(sc.to_dict(), range(1, seeds + 1))
    except (ScenarioError, ValueError) as exc:
        _fail(f"{file}: {exc}")
    except (RuntimeError, OSError) as exc:
        _fail(str(exc), code=1)
    from rich.console import Console
    from rich.table import Table

    mean = df[df["seed"] == "mean"]
    t = Table(title=f"{file}: mean over {seeds} seeds")
    for col in ("metric", "aqmsim", "ns-2", "difference"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for _, row in mean.iterrows():
        d = row["rel_diff"]
        t.add_row(str(row["metric"]), f"{row['aqmsim']:.6g}", f"{row['ns2']:.6g}",
                  "—" if d != d else f"{100 * d:+.1f} %")
    Console().print(t)
