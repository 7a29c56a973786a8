"""The ``aqmsim`` command line.

    aqmsim run examples/dumbbell-red.toml [--seed N] [--out DIR] [--format csv|parquet]
                                          [--set duration=5 --set dumbbell.bottleneck.queue.max_p=0.05]
    aqmsim validate examples/dumbbell-red.toml [--json]
    aqmsim version

A malformed scenario or a missing file prints one red line and exits with status 2; a
failed simulation exits with status 1. Never a traceback for either.
"""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .errors import ScenarioError, SimulationError

app = typer.Typer(
    name="aqmsim",
    help="Packet-level simulator for active queue management (RED and its variants) under TCP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# soft_wrap: a long message stays one line (no wrapping at the terminal width)
out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    line = " ".join(str(message).split())  # exactly one line
    err.print(Text.assemble(("error: ", "bold red"), (line, "red")))
    raise typer.Exit(code)


def _load(file: Path, overrides: Optional[List[str]] = None) -> Any:
    from .scenario import Scenario

    if not file.exists():
        _fail(f"{file}: no such file")
    if file.is_dir():
        _fail(f"{file}: is a directory, not a scenario file")
    try:
        sc = Scenario.from_toml(file)
        if overrides:
            sc = sc.with_overrides(**_parse_overrides(overrides))
    except ScenarioError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{file}: {exc.strerror or exc}")
    return sc


def _parse_overrides(items: List[str]) -> Dict[str, Any]:
    """``KEY=VALUE`` pairs; VALUE is read as a TOML value (5, 0.1, true, "10Mb",
    [1, 2]) and, failing that, taken as a plain string (10Mb)."""
    import sys as _sys

    if _sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    parsed: Dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScenarioError(f"--set {item!r}: expected KEY=VALUE, e.g. duration=10")
        try:
            parsed[key] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            parsed[key] = value.strip()
    return parsed


# --------------------------------------------------------------------------- summary
_ORDER = [
    ("duration", "simulated time", "s"),
    ("seed", "seed", ""),
    ("events", "events", ""),
    ("bottleneck_arrivals", "bottleneck arrivals", "pkts"),
    ("bottleneck_departures", "bottleneck departures", "pkts"),
    ("bottleneck_drops", "bottleneck drops", "pkts"),
    ("drops_early", "  early (random)", "pkts"),
    ("drops_forced", "  forced (avg > max_th)", "pkts"),
    ("drops_overflow", "  overflow (buffer full)", "pkts"),
    ("marks", "ECN marks", "pkts"),
    ("bottleneck_queued_end", "still queued at the end", "pkts"),
    ("loss_ratio", "loss ratio (drops / arrivals)", "%"),
    ("time_avg_queue_pkts", "time-average queue", "pkts"),
    ("time_avg_queue_bytes", "time-average queue", "bytes"),
    ("max_queue_pkts", "max queue", "pkts"),
    ("mean_queueing_delay_s", "mean queueing delay", "ms"),
    ("bottleneck_rate_bps", "bottleneck rate", "Mb/s"),
    ("utilisation", "bottleneck utilisation", "%"),
    ("throughput_bps", "throughput (all flows)", "Mb/s"),
    ("goodput_bps", "goodput (all flows)", "Mb/s"),
    ("packets_sent", "packets sent (all flows)", "pkts"),
    ("packets_retransmitted", "retransmitted", "pkts"),
    ("timeouts", "retransmission timeouts", ""),
    ("mean_e2e_delay_s", "mean end-to-end delay", "ms"),
    ("jain_fairness", "Jain fairness", ""),
    ("wall_seconds", "wall-clock time (engine)", "s"),
]


def _fmt(value: Any, unit: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value != value:  # NaN
        return "—"
    if unit == "ms":
        return f"{value * 1e3:.2f}"
    if unit == "%":
        return f"{value * 100:.2f}"
    if unit == "bytes":
        return f"{value:,.0f}"
    if unit == "Mb/s":
        return f"{value / 1e6:.4f}"
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15 and unit != "s"):
        return f"{int(value):,}"
    return f"{value:.4g}"


def summary_table(summary: Dict[str, Any], title: str = "") -> Table:
    """The summary as a rich table: the key metrics first, then anything else."""
    table = Table(title=title or None, title_justify="left", show_edge=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("unit")
    seen = set()
    for key, label, unit in _ORDER:
        if key in summary:
            table.add_row(label, _fmt(summary[key], unit), unit)
            seen.add(key)
    for key, value in summary.items():
        if key not in seen:
            unit = "s" if key.endswith("_s") else ("b/s" if key.endswith("_bps") else "")
            table.add_row(key, _fmt(value, unit), unit)
    return table


# --------------------------------------------------------------------------- commands
@app.command()
def run(
    file: Path = typer.Argument(..., help="scenario file (TOML)", show_default=False),
    seed: Optional[int] = typer.Option(
        None, "--seed", "-s", min=0, help="master seed (default: the scenario's seed)"
    ),
    out_dir: Optional[Path] = typer.Option(
        None, "--out", "-o", help="write summary, tables and figures into this directory"
    ),
    fmt: str = typer.Option("csv", "--format", "-f", help="table format: csv or parquet"),
    overrides: Optional[List[str]] = typer.Option(
        None, "--set", help="override a field, KEY=VALUE (dotted path), repeatable"
    ),
) -> None:
    """Run one scenario: print the summary; with --out, save data and figures."""
    if fmt not in ("csv", "parquet"):
        _fail(f"--format: must be csv or parquet, got {fmt!r}")
    if fmt == "parquet":
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            _fail("--format parquet needs the pyarrow package (pip install pyarrow)")
    sc = _load(file, overrides)
    t0 = time.perf_counter()
    try:
        with err.status(f"simulating {sc.name or file} …", spinner="dots"):
            res = sc.run(seed=seed)
    except ScenarioError as exc:
        _fail(str(exc))
    except SimulationError as exc:
        _fail(f"simulation failed: {exc}", code=1)
    except ImportError as exc:
        _fail(str(exc), code=1)
    wall = time.perf_counter() - t0
    title = f"{sc.name or file.stem}" + (f" — {sc.path}" if sc.path else "")
    out.print(summary_table(res.summary, title=title))
    if "wall_seconds" not in res.summary:
        out.print(f"wall-clock time {wall:.3f} s")
    if out_dir is not None:
        try:
            written = res.save(out_dir, fmt=fmt)
            written += _save_figures(res, out_dir)
        except (OSError, ImportError, ValueError) as exc:
            _fail(f"{out_dir}: could not save results: {exc}", code=1)
        out.print(f"wrote {len(written)} files to {out_dir}/: "
                  + ", ".join(p.name for p in written))


def _save_figures(res: Any, out_dir: Path) -> List[Path]:
    written: List[Path] = []
    if res.queue.empty:
        return written
    for name, fn in (("queue.png", res.plot_queue),
                     ("drop_probability.png", res.plot_drop_probability),
                     ("utilisation.png", res.plot_utilisation)):
        try:
            fig = fn()
        except ValueError:
            continue  # nothing of that kind recorded
        path = Path(out_dir) / name
        fig.savefig(path, dpi=120)
        _close(fig)
        written.append(path)
    return written


def _close(fig: Any) -> None:
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close(fig)


@app.command()
def validate(
    file: Path = typer.Argument(..., help="scenario file (TOML)", show_default=False),
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of TOML"),
    overrides: Optional[List[str]] = typer.Option(
        None, "--set", help="override a field, KEY=VALUE (dotted path), repeatable"
    ),
) -> None:
    """Check a scenario; print it resolved (every default and "auto" filled in)."""
    from .scenario import dumps_toml

    sc = _load(file, overrides)
    try:
        resolved = sc.validate()
    except ScenarioError as exc:
        _fail(str(exc))
    except ImportError as exc:
        _fail(str(exc), code=1)
    if as_json:
        typer.echo(json.dumps(resolved, indent=2))
    else:
        typer.echo(f"# {file}: valid; resolved scenario follows")
        typer.echo(dumps_toml(resolved), nl=False)


@app.command()
def version() -> None:
    """Print the aqmsim version."""
    from . import __version__

    typer.echo(f"aqmsim {__version__}")


def main() -> None:  # pragma: no cover - console entry point alternative
    app(prog_name="aqmsim")


if __name__ == "__main__":  # pragma: no cover
    main()
