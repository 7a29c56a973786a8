"""What ``aqmsim run --out DIR`` writes — the summary, the tables and the figures — and
how it stays quick.

Each figure is written twice: PNG at :data:`FIGURE_DPI` (print resolution) and SVG. Its
constrained layout is solved once, by the PNG, and then kept for the SVG.

Most of the time of a small run's ``--out`` is neither the engine nor the files: it is
importing matplotlib (~0.35 s, numpy included) and drawing (~0.15 s a figure). pandas is
not imported at all: the tables are written from their numpy columns
(:meth:`Results.columns <aqmsim.results.Results.columns>`, :mod:`aqmsim.light_tables`),
and the figures read them the same way. Where a process can be forked cheaply and safely
(Linux, no other thread running) and there is a second core, the figures are shared: once
matplotlib is loaded, a forked copy of this process (:mod:`multiprocessing`, "fork") draws
about half of them (:func:`_split`, by their cost) while this one writes the tables and
draws the rest. It inherits everything loaded, so it costs no second start-up. Should it
fail, this process draws its figures again, and an error then comes with its own message;
the output is the same either way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .results import Results

__all__ = ["FIGURE_DPI", "figure_names", "preload", "save_figure", "save_run", "trace_files"]

#: Resolution of the PNG figures (the SVG beside each one has none to choose).
FIGURE_DPI = 150


#: What drawing the figures imports (~0.35 s; numpy with it). The tables need no pandas:
#: they are written from their numpy columns (:mod:`aqmsim.light_tables`).
_NEEDED = ("matplotlib.figure", "matplotlib.backends.backend_agg", "aqmsim.plot")


def preload() -> None:
    """Import what :func:`save_run` needs. ``aqmsim run --out`` calls it while the engine
    runs (in another thread, without the GIL), so that the imports overlap the run."""
    import importlib

    for module in _NEEDED:
        importlib.import_module(module)
    from .provenance import aqmsim_version, host_info

    # provenance.json's slow facts (~20 ms: importlib.metadata, platform.platform()); cached
    aqmsim_version()
    host_info()


def figure_names(res: "Results") -> List[str]:
    """The figures a run has data for, as the names of Results' plot methods (without
    ``plot_``), decided from the engine's columns (no table built, pandas not loaded)."""
    names: List[str] = []
    if res.has_rows("queue"):
        from .plot import has_drop_probability

        names.append("queue")
        if has_drop_probability(res):  # (DropTail, CoDel, FQ-CoDel: none to draw)
            names.append("drop_probability")
        from .plot_plugin import extra_queue_columns

        if extra_queue_columns(res):  # a plug-in discipline's own variables
            names.append("monitored")
    if res.has_rows("links"):
        names.append("utilisation")
    if res.has_rows("tcp"):
        names.append("tcp")
    if res.has_rows("delay_cdf"):
        names.append("delay_cdf")
    return names


def save_figure(fig: "Figure", stem: Path) -> List[Path]:
    """``stem``.png at :data:`FIGURE_DPI` and ``stem``.svg; returns both paths. The first
    save solves the figure's layout; it is then fixed, so the SVG does not solve it again
    (about a third of the figure's drawing time)."""
    png, svg = stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".svg")
    import matplotlib

    fig.savefig(png, dpi=FIGURE_DPI)
    fig.set_layout_engine("none")  # keeps the positions the constrained layout found
    # text kept as text (smaller, editable, searchable), no date, and element ids from a
    # fixed salt (not a random one): the same run gives the same file
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "aqmsim"}):
        fig.savefig(svg, metadata={"Date": None})
    return [png, svg]


def _draw(res: "Results", names: Sequence[str], out_dir: Path) -> List[Path]:
    """Draw and save the figures ``names`` of ``res`` (each skipped if the data it needs
    turns out to be missing: the plot raises ValueError)."""
    written: List[Path] = []
    for name in names:
        plot: Callable[[], Any] = getattr(res, f"plot_{name}")
        try:
            fig = plot()
        except ValueError:
            continue  # nothing of that kind recorded
        written += save_figure(fig, out_dir / name)
        if "matplotlib.pyplot" in sys.modules:  # a pyplot figure stays open until closed
            import matplotlib.pyplot as plt

            plt.close(fig)
    return written


def _helper(res: "Results", names: Sequence[str], out_dir: Path, conn: Any) -> None:
    """The forked helper: draw ``names``, send back the paths written. Any failure is only
    an exit status (no traceback here: the parent draws these figures again and reports
    what goes wrong then)."""
    try:
        conn.send([str(p) for p in _draw(res, names, out_dir)])
    except BaseException:  # noqa: BLE001 - reported by the parent's own attempt
        sys.exit(1)


#: CPU time of each figure (PNG + SVG) relative to the queue figure's (~0.16 s), and of
#: writing the tables: what :func:`_split` balances. Measured on the examples: the delay
#: CDFs (~0.3 s: the log axis's labels go through mathtext) and the TCP figure (two axes).
_COST = {"delay_cdf": 1.8, "tcp": 1.4}
_TABLES_COST = 0.15


def _split(names: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(the helper's figures, this process's), of the most equal cost (this process also
    writes the tables): every split is tried — a run has at most five figures."""
    import itertools

    def cost(group: Sequence[str]) -> float:
        return sum(_COST.get(n, 1.0) for n in group)

    best: Tuple[List[str], List[str]] = ([], list(names))
    for pick in itertools.product((True, False), repeat=len(names)):
        theirs = [n for n, p in zip(names, pick) if p]
        ours = [n for n, p in zip(names, pick) if not p]
        if max(cost(theirs), cost(ours) + _TABLES_COST) \
                < max(cost(best[0]), cost(best[1]) + _TABLES_COST):
            best = (theirs, ours)
    return best


def _can_fork() -> bool:
    import threading

    return (sys.platform.startswith("linux") and (os.cpu_count() or 1) > 1
            and threading.active_count() == 1)  # forking beside threads risks deadlocks


def _start_helper(res: "Results", names: Sequence[str], out_dir: Path) -> Any:
    """(process, pipe end) of a forked helper drawing ``names``, or None."""
    if not names or not _can_fork():
        return None
    import multiprocessing

    preload()  # what the figures need, loaded before the fork so that the helper inherits it
    try:
        ctx = multiprocessing.get_context("fork")
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_helper, args=(res, names, out_dir, send), daemon=True,
                           name="aqmsim-figures")
        proc.start()
        send.close()
        return proc, receive
    except (OSError, ValueError):  # no process to be had: this one draws them all
        return None


def _join_helper(helper: Any) -> Any:
    """The paths the helper wrote, or None if it failed."""
    proc, receive = helper
    try:
        paths = receive.recv() if receive.poll(None) else None
    except (EOFError, OSError):
        paths = None
    proc.join()
    receive.close()
    return [Path(p) for p in paths] if proc.exitcode == 0 and paths is not None else None


def save_run(res: "Results", out_dir: Path, fmt: str = "csv",
             command: Optional[str] = None) -> List[Path]:
    """Everything ``aqmsim run --out`` writes: :meth:`Results.save` (summary, resolved
    scenario, tables), ``provenance.json`` (:func:`aqmsim.provenance.provenance`; ``command``
    default: this process's) and the figures as PNG + SVG. Returns the paths written, the
    packet trace the run wrote (``[trace]``, ``--trace``) last."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = figure_names(res)
    theirs, ours = _split(names)
    helper = _start_helper(res, theirs, out_dir) if theirs and ours else None
    if helper is None:
        ours = names
    try:
        written = res.save(out_dir, fmt=fmt)
        figures = _draw(res, ours, out_dir)
    except BaseException:
        if helper is not None:  # no helper left writing files after the error is reported
            helper[0].terminate()
            helper[0].join()
        raise
    if helper is not None:
        theirs_written = _join_helper(helper)
        # the helper failed (killed, out of memory, an error): draw its figures here
        figures += theirs_written if theirs_written is not None else _draw(res, theirs, out_dir)
    order = {n: i for i, n in enumerate(names)}
    figures.sort(key=lambda p: (order.get(p.stem, len(order)), p.suffix))
    return written + [_write_provenance(out_dir, command)] + figures + trace_files(res)


def _write_provenance(out_dir: Path, command: Optional[str]) -> Path:
    import json

    from .provenance import provenance

    p = out_dir / "provenance.json"
    p.write_text(json.dumps(provenance(command), indent=2) + "\n")
    return p


def trace_files(res: "Results") -> List[Path]:
    """The packet-trace files the run wrote (its resolved ``[trace]``): the ns2 trace file,
    or the pcap directory's ``<from>-<to>.pcap`` of each traced link (both directions of
    a link share the file of the one named first; an older file there is not listed)."""
    trace = res.resolved.get("trace") or {}
    path = trace.get("path")
    if not path:
        return []
    p = Path(path)
    if trace.get("format") != "pcap":
        return [p] if p.is_file() else []
    files, seen = [], set()
    for name in trace.get("links", []):
        a, _, b = str(name).partition("->")
        if (b, a) not in seen:
            seen.add((a, b))
            files.append(p / f"{a}-{b}.pcap")
    return [f for f in files if f.is_file()]
