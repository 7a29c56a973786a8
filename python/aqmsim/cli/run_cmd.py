"""``aqmsim run``: one scenario simulated (the engine in a worker thread, a spinner in
this one), its summary as a table, and with ``--out`` its data and figures saved."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import typer

from ..errors import ScenarioError, SimulationError
from .common import _SET, _fail, _load, _request_quick_exit, err, out

if TYPE_CHECKING:
    from rich.table import Table


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


#: the bottleneck's arrivals and marks by ECN codepoint
_ECN_CODEPOINTS = ("arrivals_ect0", "arrivals_ect1", "marks_departed_ect0", "marks_departed_ect1")


def summary_table(summary: Dict[str, Any], title: str = "",
                  labels: Optional[Dict[str, str]] = None) -> "Table":
    """The summary as a rich table: the key metrics first, then anything else, each with
    the registry's label, unit and fixed-point number; ``labels`` replaces the label of
    some keys (the forced drops' rule of the run's discipline)."""
    from rich.table import Table

    from ..metrics import SUMMARY

    table = Table(title=title or None, title_justify="left", show_edge=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("unit")
    context = dict(_ORDER)
    order = [k for k, _ in _ORDER if k in summary] + [k for k in summary if k not in context]
    if all(summary.get(k, 0) == 0 for k in _ECN_CODEPOINTS):
        # no ECN-capable packet reached the bottleneck: four rows of zeros say nothing
        # (summary.json keeps them)
        order = [k for k in order if k not in _ECN_CODEPOINTS]
    for key in order:
        value, m = summary[key], SUMMARY.get(key)
        label = (labels or {}).get(key) or context.get(key) or (m.label if m else key)
        if m is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            table.add_row(label, m.text(value), m.unit)
        else:
            table.add_row(label, str(value), "")
    return table


def groups_table(res: Any) -> Optional["Table"]:
    """The flows by group (the flows table's ``label``) when a run has more than one: flows,
    goodput (sum, and its share of all), mean end-to-end delay and retransmissions, so
    that BBR beside CUBIC or Prague beside CUBIC reads at a glance. None for one group.
    Read from the engine's per-flow lists in plain Python: printing the summary loads
    neither numpy nor pandas (tests/test_startup.py)."""
    import math

    from rich.table import Table

    raw = res._raw.get("flows")
    cols = ("label", "goodput_bps", "mean_delay_s", "retransmitted")
    if not isinstance(raw, dict) or not all(isinstance(raw.get(c), list) for c in cols):
        return None
    # per group: flows, goodput (b/s), delays of the flows that have one, retransmissions
    groups: Dict[str, List[Any]] = {}
    for label, gp, delay, rtx in zip(*(raw[c] for c in cols)):
        g = groups.setdefault(str(label), [0, 0.0, [], 0])
        g[0] += 1
        g[1] += float(gp) if math.isfinite(float(gp)) else 0.0
        if math.isfinite(float(delay)) and float(delay) > 0:
            g[2].append(float(delay))
        g[3] += int(rtx)
    if len(groups) < 2:
        return None
    total = sum(g[1] for g in groups.values())
    table = Table(title="by flow group", title_justify="left", show_edge=False)
    for name, justify in (("group", "left"), ("flows", "right"), ("goodput Mb/s", "right"),
                          ("share", "right"), ("mean delay ms", "right"), ("retransmissions", "right")):
        table.add_column(name, justify=justify)
    for name, (n, gp, delays, rtx) in groups.items():
        table.add_row(name, str(n), f"{gp / 1e6:.2f}", f"{100 * gp / total:.1f} %" if total > 0 else "-",
                      f"{1e3 * sum(delays) / len(delays):.2f}" if delays else "-",
                      f"{rtx:,}".replace(",", " "))
    return table


def run(
    file: Path = typer.Argument(..., help="scenario file (TOML)", show_default=False),
    seed: Optional[int] = typer.Option(
        None, "--seed", "-s", min=0, help="master seed (default: the scenario's seed)"
    ),
    out_dir: Optional[Path] = typer.Option(
        None, "--out", "-o", help="write summary, tables and figures into this directory"
    ),
    fmt: str = typer.Option("csv", "--format", "-f", help="table format: csv or parquet"),
    overrides: Optional[List[str]] = _SET,
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
    t0, started = time.perf_counter(), time.time()
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
    from ..results import drop_reason_labels

    reasons = drop_reason_labels(res.queue_params())  # what each reason is for the discipline
    out.print(summary_table(res.summary, title=title, labels=reasons))
    groups = groups_table(res)
    if groups is not None:
        out.print(groups)
    if "wall_seconds" not in res.summary:
        out.print(f"wall-clock time {wall:.3f} s")
    if out_dir is not None:
        try:
            from ..run_output import save_run

            written = save_run(res, out_dir, fmt=fmt, command=_command_line(),
                               started_at=started)
        except (OSError, ImportError, ValueError) as exc:
            _fail(f"{out_dir}: could not save results: {exc}", code=1)
        out.print(f"wrote {len(written)} files to {out_dir}/: "
                  + ", ".join(_shown_path(p, out_dir) for p in written))
    if res.trace_error:
        err.print(f"[yellow]warning: packet trace incomplete: {res.trace_error}[/yellow]")
    _request_quick_exit()


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
            from ..run_output import preload

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
    from ..provenance import command_line

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
