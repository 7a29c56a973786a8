"""The ``aqmsim`` command line.

    aqmsim run examples/dumbbell-red.toml [--seed N] [--out DIR] [--format csv|parquet]
                                          [--set duration=5 --set dumbbell.bottleneck.queue.max_p=0.05]
    aqmsim validate examples/dumbbell-red.toml [--full | --json]
    aqmsim list [DISCIPLINE]
    aqmsim reproduce PAPER|all [--seeds N] [--out DIR] [--workers N | --scheduler tcp://HOST:PORT]
                               [--store DIR] [--fresh]
    aqmsim sweep SWEEP.toml [--workers N | --scheduler tcp://HOST:PORT] [--store DIR]
    aqmsim report SWEEP.toml [--store DIR] [--out DIR]
    aqmsim examples DIR [--force]
    aqmsim version | aqmsim --version

A malformed scenario, a missing file or a bad option value prints one red line and exits
with status 2 (cli_errors.py: the same for typer's own usage errors); a failed simulation
exits with status 1. Never a traceback for either.
"""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, NoReturn, Optional, Sequence

import typer

from .cli_errors import OneLineGroup, check_out_dir, check_scheduler, print_error
from .errors import ScenarioError, SimulationError

if TYPE_CHECKING:
    from rich.table import Table

app = typer.Typer(
    name="aqmsim",
    help="Packet-level simulator for active queue management (RED and its variants) under TCP.",
    no_args_is_help=True,
    cls=OneLineGroup,  # usage errors (a bad option value) as one line, exit 2
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class _LazyConsole:
    """A rich Console made on first use. Importing rich costs ~25 ms: `aqmsim --version`
    and `validate` never pay it, and `run` pays it while the engine runs (_simulate)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)

    # dunder methods bypass __getattr__: rich's Live and Progress use `with console:`
    def __enter__(self) -> Any:
        return self.__getattr__("__enter__")()

    def __exit__(self, *exc: Any) -> Any:
        return self.__getattr__("__exit__")(*exc)


# soft_wrap: a long message stays one line (no wrapping at the terminal width)
out: Any = _LazyConsole(soft_wrap=True, highlight=False)
err: Any = _LazyConsole(stderr=True, soft_wrap=True, highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    print_error(message)  # exactly one line
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
    except RecursionError:  # the scenario bounds nesting; this is only a last resort
        _fail(f"{file}: nested too deep to read (a scenario nests at most 64 levels)")
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
        except RecursionError:
            from .scenario import MAX_DEPTH

            raise ScenarioError(
                f"--set {key}: the value nests arrays or inline tables too deep "
                f"(a scenario nests at most {MAX_DEPTH} levels)"
            ) from None
    return parsed


# --------------------------------------------------------------------------- summary
#: The summary's keys in the order `aqmsim run` prints them (the rest follow); the label,
#: unit and number format of every key come from the metric registry (aqmsim.metrics),
#: here only the context a line needs in this list: a bottleneck count, a sub-count.
_ORDER = [
    ("duration", None), ("seed", None), ("events", None),
    ("bottleneck_arrivals", "bottleneck arrivals"),
    ("bottleneck_departures", "bottleneck departures"),
    ("bottleneck_drops", "bottleneck drops"),
    ("drops_early", "  early (random)"),
    ("drops_forced", "  forced"),  # the discipline's words: the caller's drop_reason_labels
    ("drops_overflow", "  overflow (buffer full)"),
    ("marks", None), ("marks_departed", "  marked packets departed"),
    ("bottleneck_queued_end", None), ("loss_ratio", None), ("time_avg_queue_pkts", None),
    ("time_avg_queue_bytes", None), ("max_queue_pkts", None), ("mean_queueing_delay_s", None),
    ("bottleneck_rate_bps", None), ("utilisation", "bottleneck utilisation"),
    ("throughput_bps", None),
    ("goodput_bps", None), ("packets_sent", None), ("packets_retransmitted", None),
    ("timeouts", None), ("mean_e2e_delay_s", None), ("jain_fairness", None),
    ("wall_seconds", "wall-clock time (engine)"),
]


def summary_table(summary: Dict[str, Any], title: str = "",
                  labels: Optional[Dict[str, str]] = None) -> "Table":
    """The summary as a rich table: the key metrics first, then anything else, each with
    the registry's label, unit and fixed-point number; ``labels`` replaces the label of
    some keys (the forced drops' rule of the run's discipline)."""
    from rich.table import Table

    from .metrics import SUMMARY

    table = Table(title=title or None, title_justify="left", show_edge=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("unit")
    context = dict(_ORDER)
    order = [k for k, _ in _ORDER if k in summary] + [k for k in summary if k not in context]
    for key in order:
        value, m = summary[key], SUMMARY.get(key)
        label = (labels or {}).get(key) or context.get(key) or (m.label if m else key)
        if m is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            table.add_row(label, m.text(value), m.unit)
        else:
            table.add_row(label, str(value), "")
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
    tcp: Optional[str] = typer.Option(
        None, "--tcp", help="record the TCP state of these flows: all, or indexes/labels "
        "separated by commas (monitor.tcp_flows); with --out, tcp.csv, rtt.csv and tcp.png/.svg",
        show_default=False,
    ),
    delays: bool = typer.Option(
        False, "--delays", help="keep the delay distributions (monitor.delays): quantiles "
        "and jitter in the summary and flows table; with --out, delay_cdf.csv, .png and .svg",
    ),
    trace: Optional[List[str]] = typer.Option(
        None, "--trace", help="packet trace of the monitored links (or [trace] links) into "
        "--out: ns2 (trace.tr, ns-2's + - r d lines) or pcap (one <from>-<to>.pcap per link); "
        "one format a run",
        show_default=False,
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
    if tcp is not None:
        sc = _with_tcp_flows(sc, tcp)
    if delays:
        sc = sc.with_overrides(**{"monitor.delays": True})
    if trace:
        sc = _with_trace(sc, trace, out_dir)
    if out_dir is not None:
        _make_out_dir(out_dir)  # before the run: a bad --out costs no simulation
    t0 = time.perf_counter()
    try:
        res = _simulate(sc, seed, f"simulating {sc.name or file} …", out_dir is not None)
    except ScenarioError as exc:
        _fail(str(exc))
    except SimulationError as exc:
        _fail(f"simulation failed: {exc}", code=1)
    except ImportError as exc:
        _fail(str(exc), code=1)
    wall = time.perf_counter() - t0
    title = f"{sc.name or file.stem}" + (f" — {sc.path}" if sc.path else "")
    from .results import drop_reason_labels

    reasons = drop_reason_labels(res.queue_params())  # what each reason is for the discipline
    out.print(summary_table(res.summary, title=title, labels=reasons))
    if "wall_seconds" not in res.summary:
        out.print(f"wall-clock time {wall:.3f} s")
    if out_dir is not None:
        try:
            from .run_output import save_run

            written = save_run(res, out_dir, fmt=fmt, command=_command_line())
        except (OSError, ImportError, ValueError) as exc:
            _fail(f"{out_dir}: could not save results: {exc}", code=1)
        out.print(f"wrote {len(written)} files to {out_dir}/: "
                  + ", ".join(_shown_path(p, out_dir) for p in written))
    if res.trace_error:
        err.print(f"[yellow]warning: packet trace incomplete: {res.trace_error}[/yellow]")
    global _QUICK_EXIT
    _QUICK_EXIT = True


def _simulate(sc: Any, seed: Optional[int], status: str, saving: bool = False) -> Any:
    """``sc.run(seed)`` in a worker thread, a spinner in this one. The engine releases the
    GIL, so importing rich (the spinner, then the summary table) and, when ``saving``,
    pandas and matplotlib overlap the run instead of adding to it; and Ctrl-C stops the
    command at once, not when the engine returns."""
    import threading

    box: Dict[str, Any] = {}

    def work() -> None:
        try:
            box["res"] = sc.run(seed=seed)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            box["exc"] = exc

    worker = threading.Thread(target=work, name="aqmsim-engine", daemon=True)
    worker.start()
    with err.status(status, spinner="dots"):
        import rich.table  # noqa: F401 - for summary_table, while the engine runs

        if saving:
            from .run_output import preload

            try:
                preload()
            except ImportError:
                pass  # saving reports it, with its own message
        while worker.is_alive():
            worker.join(0.5)
    if "exc" in box:
        raise box["exc"]
    return box["res"]


def _command_line() -> str:
    from .provenance import command_line

    return command_line()


def _shown_path(p: Path, out_dir: Path) -> str:
    """A written file as `run --out` lists it: relative to DIR (pcap/R1-R2.pcap), else whole."""
    try:
        return str(p.relative_to(out_dir))
    except ValueError:
        return str(p)


def _make_out_dir(out_dir: Path) -> None:
    """``--out DIR`` made (with its parents) before the run, or one line saying why not."""
    if out_dir.exists() and not out_dir.is_dir():
        _fail(f"--out {out_dir}: exists and is not a directory; give a directory to write into")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(f"--out {out_dir}: cannot create the directory: {exc.strerror or exc}")
    except ValueError as exc:  # a NUL byte in the path
        _fail(f"--out {out_dir!r}: not a usable path: {exc}")


def _with_trace(sc: Any, formats: List[str], out_dir: Optional[Path]) -> Any:
    """``--trace ns2|pcap``: [trace] written into the --out directory (one format a run)."""
    for fmt in formats:
        if fmt not in ("ns2", "pcap"):
            _fail(f"--trace: must be ns2 or pcap, got {fmt!r}")
    if len(set(formats)) > 1:
        _fail("--trace: give one format, ns2 or pcap, not both: the engine writes one trace "
              "a run (run again with the other --trace for the second)")
    fmt = formats[0]
    if out_dir is None:
        _fail("--trace needs --out DIR: the trace is written there")
    _make_out_dir(out_dir)
    path = out_dir / ("trace.tr" if fmt == "ns2" else "pcap")
    try:
        return sc.with_overrides(**{"trace.format": fmt, "trace.path": str(path)})
    except ScenarioError as exc:
        _fail(str(exc))


def _with_tcp_flows(sc: Any, spec: str) -> Any:
    """``--tcp all`` or ``--tcp 0,1,mtu375``: monitor.tcp_flows (indexes or labels)."""
    items = [x.strip() for x in spec.split(",") if x.strip()]
    if not items:
        _fail("--tcp: give all, or flow indexes or labels separated by commas (e.g. 0,1)")
    value: Any = "all" if items == ["all"] else [int(x) if x.isdigit() else x for x in items]
    try:
        return sc.with_overrides(**{"monitor.tcp_flows": value})
    except ScenarioError as exc:
        _fail(str(exc))


@app.command()
def validate(
    file: Path = typer.Argument(..., help="scenario file (TOML)", show_default=False),
    as_json: bool = typer.Option(False, "--json", help="print the whole resolved scenario as JSON"),
    full: bool = typer.Option(False, "--full", help="print the whole resolved scenario (TOML) "
                              "instead of its summary"),
    overrides: Optional[List[str]] = typer.Option(
        None, "--set", help="override a field, KEY=VALUE (dotted path), repeatable"
    ),
) -> None:
    """Check a scenario: list every error (each with its field), or summarise it resolved
    (every default and "auto" filled in; --full or --json: all of it). Exit 0 valid, 2 not."""
    from .scenario import dumps_toml
    from .validate_view import all_errors, summary_text

    sc = _load(file, overrides)
    try:
        errors = all_errors(sc)
        resolved = None if errors else sc.validate()
    except ScenarioError as exc:  # pragma: no cover - all_errors has seen it already
        _fail(str(exc))
    except ImportError as exc:
        _fail(str(exc), code=1)
    if errors:
        for message in errors:
            print_error(message)
        if len(errors) > 1:
            err.print(f"{file}: {len(errors)} errors")
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps(resolved, indent=2))
        return
    if full:
        typer.echo(f"# {file}: valid; resolved scenario follows")
        typer.echo(dumps_toml(resolved), nl=False)
        return
    typer.echo(summary_text(file, resolved))


def _disciplines() -> Dict[str, Any]:
    """The engine's discipline table: {name: {"description", "params"}} (see queue_spec.rs)."""
    from .scenario import _core

    try:
        return dict(_core().disciplines())
    except ImportError as exc:
        _fail(str(exc), code=1)


def discipline_table(name: str, entry: Dict[str, Any]) -> "Table":
    """One discipline's parameters as a rich table: field, default, allowed values."""
    from rich.table import Table
    from rich.text import Text

    # the note: where the defaults come from, how to get ns-2's, and caveats (queue_spec.rs)
    table = Table(title=Text.assemble((name, "bold cyan"), "  ", entry["description"]),
                  title_justify="left", show_edge=False, expand=False,
                  caption=Text(entry["note"]) if entry.get("note") else None,
                  caption_justify="left")
    table.add_column("parameter", style="bold", no_wrap=True)
    table.add_column("default", no_wrap=True)
    table.add_column("allowed values and meaning (ns-2 name)")
    for field, default, allowed in entry["params"]:
        table.add_row(field, default, allowed)
    return table


@app.command("list")
def list_disciplines(
    name: Optional[str] = typer.Argument(
        None, metavar="DISCIPLINE", help="one discipline (default: every one)",
        show_default=False,
    ),
) -> None:
    """List the queue disciplines: description, parameters, defaults, allowed ranges."""
    table = _disciplines()
    if name is not None:
        key = name.strip().lower()
        if key not in table:
            _fail(f"unknown discipline {name!r} (expected one of: {', '.join(table)})")
        table = {key: table[key]}
    for i, (kind, entry) in enumerate(table.items()):
        if i:
            out.print()
        out.print(discipline_table(kind, entry))
    if name is None:
        out.print('\nChoose one with kind = "<name>" in a queue table; '
                  "docs/aqm/README.md indexes the pages that describe them.")


# The options `reproduce` and `sweep` share: where the runs go.
_WORKERS = typer.Option(None, "--workers", "-w", min=1, help="local worker processes (default: one per CPU)")
_SCHEDULER = typer.Option(None, "--scheduler", callback=check_scheduler,
                          help="run on the Dask cluster of this scheduler, tcp://HOST:PORT")


@app.command()
def reproduce(
    paper: str = typer.Argument(
        ..., metavar="PAPER|all", help="a paper (rtred, qrtred, pktsize, gentle, markfront) or all",
        show_default=False,
    ),
    seeds: Optional[int] = typer.Option(
        None, "--seeds", "-n", min=1, help="run seeds 1..N (default: the paper's default_seeds)"
    ),
    out_dir: Path = typer.Option(
        Path("out/reproduce"), "--out", "-o", callback=check_out_dir, help="write the report and figures here"
    ),
    workers: Optional[int] = _WORKERS,
    scheduler: Optional[str] = _SCHEDULER,
    store: Optional[Path] = typer.Option(
        None, "--store", callback=check_out_dir, help="keep each paper's runs in STORE/PAPER (default: OUT/PAPER/store)"
    ),
    fresh: bool = typer.Option(
        False, "--fresh", help="empty the papers' stores first: simulate every run again"
    ),
    readings: str = typer.Option(
        "all", "--readings", "-r",
        help="which readings of the papers' open choices to run: all, primary, or a "
             "comma-separated list of variants (choice=reading, several joined by +, "
             "ns2-as-typed, textbook)",
    ),
    ns2: bool = typer.Option(
        True, "--ns2/--no-ns2",
        help="also run the experiments ns-2 can run in ns-2 (when `ns` is installed): "
             "tables read published | ns-2 | aqmsim",
    ),
) -> None:
    """Reproduce a paper: run it over seeds, compare with its published numbers and
    claims, write an HTML report (index.html) and a Markdown summary (summary.md).

    Where the paper is silent, every candidate reading of each open choice is run
    too (--readings): the report shows how far each choice moves each number and
    labels each claim robust, fragile or fails.

    Every run is kept in the paper's store (as for aqmsim sweep): the same
    command again takes its runs from there instead of simulating them, and
    a reproduction that was interrupted resumes with the runs it lacks.

    Where ns-2 is installed, the primary reading's experiments it can run are run
    in ns-2 too (same seeds, kept in the store's ns2/ directory): each number
    shows the published value, ns-2's and ours (--no-ns2: ours only)."""
    from .papers import get, names
    from .report import Failure, reproduce_papers

    if workers is not None and scheduler is not None:
        _fail("--workers and --scheduler: give one or the other")
    choices = names()
    key = paper.strip().lower()
    if key != "all" and key not in choices:
        _fail(f"unknown paper {paper!r} (expected one of: {', '.join(choices)}, all)")
    selected: List[Any] = []
    for name in choices if key == "all" else [key]:
        try:
            selected.append(get(name))
        except Exception as exc:  # noqa: BLE001 - a broken module is reported, others run
            selected.append(Failure.from_exception(name, "loading", exc))
    wanted = _reading_names(readings, selected)
    try:
        done = reproduce_papers(selected, out_dir, seeds=seeds, workers=workers,
                                console=out, progress_console=err, scheduler=scheduler,
                                store=store, fresh=fresh, readings=wanted, ns2=ns2)
    except OSError as exc:
        _fail(f"{out_dir}: could not write the report: {exc}", code=1)
    except (ConnectionError, ImportError, RuntimeError) as exc:
        _fail(str(exc), code=1)
    except KeyboardInterrupt:
        _fail("interrupted: finished runs are in the papers' stores; the same command "
              "resumes with the rest", code=130)
    if done.exit_code:
        raise typer.Exit(done.exit_code)


def _reading_names(spec: str, papers: Sequence[Any]) -> Any:
    """``--readings`` as a list of variant names (None for all); each must be a reading
    of at least one of ``papers`` (a paper that lacks it runs without it)."""
    from .papers.readings import variant_named

    parts = [x.strip() for x in (spec or "").split(",") if x.strip()]
    if not parts:
        _fail(f"--readings: expected all, primary, or readings separated by commas "
              f"(choice=reading, several joined by +), got {spec!r}")
    if "all" in parts:
        return None
    for name in parts:
        if name == "primary":
            continue
        errors = []
        for p in papers:
            if not hasattr(p, "readings"):
                continue
            try:
                variant_named(list(p.readings()), name)
                break
            except Exception as exc:  # noqa: BLE001 - ReadingError, or readings that cannot load
                errors.append(f"{p.name}: {str(exc).removeprefix('--readings: ')}")
        else:
            _fail("--readings: " + ("; ".join(errors) or f"unknown reading {name!r}"))
    return parts


def _run_into_store(call: Callable[[], int]) -> None:
    """A command that runs tasks into a store (`sweep`, `suite`): its errors as one line
    (2: bad input, 1: store, cluster or system, 130: interrupted, 143: SIGTERM), its
    status as the exit."""
    from .store import StoreError

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


@app.command("sweep")
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
    from .sweep import cli_sweep

    if not file.is_file():
        _fail(f"{file}: no such file")
    _run_into_store(lambda: cli_sweep(file, workers, scheduler, store, retry_failed, out=out,
                                      err=err, timeout=timeout, fresh=fresh))


@app.command("report")
def sweep_report_cmd(
    file: Path = typer.Argument(..., help="sweep file (TOML)", show_default=False),
    store: Optional[Path] = typer.Option(None, "--store", callback=check_out_dir,
                                         help="store directory of the sweep"),
    out_dir: Optional[Path] = typer.Option(
        None, "--out", "-o", callback=check_out_dir, help="output directory (default: STORE/report)"
    ),
) -> None:
    """Draw a sweep's metrics against its parameters (95 % CI over seeds): PNG + index.html."""
    from .store import StoreError
    from .sweep_report import cli_report

    if not file.is_file():
        _fail(f"{file}: no such file")
    try:
        cli_report(file, store, out_dir, out=out)
    except ScenarioError as exc:
        _fail(str(exc))
    except (StoreError, ImportError, OSError) as exc:
        _fail(str(exc), code=1)


@app.command("suite")
def suite_cmd(
    name: str = typer.Argument(..., metavar="SUITE", help="the suite: rfc7928 (RFC 7928's AQM "
                               "characterisation)", show_default=False),
    aqm: Optional[str] = typer.Option(
        None, "--aqm", metavar="A,B,...",
        help="disciplines (default: all of the suite's: red,ared,gentle,rtred,codel,pie,fq_codel)"),
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
    from .suite import SUITES
    from .suite.cli import cli_suite

    if name not in SUITES:
        _fail(f"SUITE: unknown suite {name!r}; expected one of: {', '.join(SUITES)}")
    _run_into_store(lambda: cli_suite(name, aqm, seeds, scenarios, out_dir, workers, scheduler,
                                      ns3, fresh, out=out, err=err))


@app.command("export-ns2")
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
    from .errors import ScenarioError
    from .ns2.cli_export import export_script

    sc = _load(file)
    try:
        typer.echo(export_script(sc, seed, trace_dir, trace_all=trace_all, namtrace_all=namtrace_all),
                   nl=False)
    except (ScenarioError, ValueError) as exc:
        _fail(f"{file}: {exc}")


@app.command()
def crosscheck(
    file: Path = typer.Argument(..., help="scenario file (TOML)"),
    seeds: int = typer.Option(5, "--seeds", min=1, help="seeds 1..N, both simulators"),
) -> None:
    """Run aqmsim and ns-2 on the same scenario over several seeds, side by side."""
    from .errors import ScenarioError
    from .ns2.crosscheck import compare

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


def version_text() -> str:
    """aqmsim's version, the engine's build (aqmsim._core.BUILD) and Python's version."""
    from . import __version__

    lines = [f"aqmsim {__version__}"]
    try:
        from ._core import BUILD
    except ImportError as exc:
        lines.append(f"engine: not built ({exc})")
    else:
        lines.append(f"engine {BUILD.get('version', '?')} (source {BUILD.get('source_hash', '?')}, "
                     f"git {BUILD.get('git_commit', '?')}, {BUILD.get('profile', '?')} build)")
    v = sys.version_info
    lines.append(f"Python {v.major}.{v.minor}.{v.micro} ({sys.implementation.name}, {sys.executable})")
    return "\n".join(lines)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _options(
    show_version: bool = typer.Option(
        False, "--version", "-V", is_eager=True, callback=_print_version,
        help="print the versions of aqmsim, its engine build and Python, and exit",
    ),
) -> None:
    # the command's help is the Typer's (above); this only adds --version
    pass


@app.command()
def version() -> None:
    """Print the versions of aqmsim, its engine build and Python (as --version)."""
    typer.echo(version_text())


@app.command("examples")
def examples_cmd(
    directory: Path = typer.Argument(..., metavar="DIR", help="where to write them (created if "
                                     "needed)", show_default=False),
    force: bool = typer.Option(False, "--force", help="overwrite files of the same names"),
) -> None:
    """Write the example scenarios (and an example sweep) into DIR, to run and edit."""
    from .example_files import write_examples

    try:
        written = write_examples(directory, force=force)
    except (FileExistsError, NotADirectoryError) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{directory}: could not write the examples: {exc.strerror or exc}", code=1)
    out.print(f"wrote {len(written)} files to {directory}/: "
              + ", ".join(str(p.relative_to(directory)) for p in written))
    out.print(f"next: aqmsim run {directory / 'dumbbell-red.toml'}")


#: Set by `run` once it has done its work: :func:`main` then ends the process at once.
_QUICK_EXIT = False


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
        if _QUICK_EXIT and alone and isinstance(exc.code, (int, type(None))):
            _quick_exit(exc.code or 0)
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
