"""Figures of one run, drawn the way the RED papers draw them.

Every function takes a :class:`~aqmsim.results.Results`, an optional link name
(default: the first monitored link, ``R1->R2`` on a dumbbell) and an optional matplotlib
``Axes`` to draw into, and returns the :class:`~matplotlib.figure.Figure`.

Without an ``ax`` the figure is a stand-alone :class:`~matplotlib.figure.Figure` on the
Agg canvas — no GUI, no global pyplot state, safe on a headless machine and in worker
processes; ``fig.savefig("queue.png")`` writes it, and Jupyter displays it (once) when it
is a cell's value. If the caller has imported ``matplotlib.pyplot`` with a window backend
(an interactive session), the figure is made with pyplot instead, so ``plt.show()`` works.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .results import Results

__all__ = ["plot_queue", "plot_drop_probability", "plot_utilisation", "plot_tcp",
           "plot_delay_cdf", "new_figure"]


def _headless() -> bool:
    if sys.platform.startswith(("win", "darwin")):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def new_figure(figsize: Tuple[float, float] = (8.0, 4.0)) -> Tuple["Figure", "Axes"]:
    """A figure and one axes: pyplot's when pyplot is in use, else a bare Agg figure."""
    import matplotlib

    if "matplotlib.pyplot" in sys.modules and "inline" not in matplotlib.get_backend():
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        return fig, ax
    if _headless() and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    return fig, ax


class _Table:
    """The little of a DataFrame the figures use — ``t["col"]`` (a numpy array),
    ``t[mask]`` (the rows where a boolean array is true), ``.columns``, ``.empty`` — over
    :meth:`Results.columns <aqmsim.results.Results.columns>`, so that drawing a run's
    figures needs no pandas (``aqmsim run --out`` does not import it)."""

    def __init__(self, cols: Dict[str, np.ndarray]) -> None:
        self._cols = cols
        self.columns = list(cols)
        self.empty = not cols or len(next(iter(cols.values()))) == 0

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self._cols[key]
        return _Table({k: v[key] for k, v in self._cols.items()})

    def __len__(self) -> int:
        return 0 if not self._cols else len(next(iter(self._cols.values())))


def _table(res: "Results", name: str) -> _Table:
    """Table ``name`` of ``res`` as a :class:`_Table`."""
    return _Table(res.columns(name))


def _groups(table: _Table, by: str) -> List[Tuple[Any, _Table]]:
    """(value, rows) for each value of column ``by``, in order of first appearance (as
    pandas' ``groupby(by, sort=False)``)."""
    keys = table[by]
    return [(k, table[keys == k]) for k in dict.fromkeys(keys.tolist())]


def _pick_link(table: Any, link: Optional[str], what: str) -> Any:
    if "link" not in table.columns or table.empty:
        raise ValueError(
            f"no {what} recorded: add the link to [monitor] queues (e.g. queues = [\"R1->R2\"])"
        )
    links = list(dict.fromkeys(table["link"].tolist()))
    if link is None:
        link = links[0]
    elif link not in links:
        raise ValueError(f"link {link!r} has no {what}; monitored links: {', '.join(links)}")
    return link, table[table["link"] == link]


def _title(res: "Results", link: str, what: str) -> str:
    name = res.scenario.name if res.scenario is not None else ""
    seed = res.summary.get("seed", res.seed)
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    bits = [b for b in (name, f"{what} at {link}", f"seed {seed}" if seed is not None else "")
            if b]
    return " — ".join(bits)


def _finite(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=float)


def _threshold_line(ax: "Axes", t: np.ndarray, values: np.ndarray, label: str,
                    color: str) -> None:
    ok = np.isfinite(values) & (values > 0)
    if not ok.any():
        return
    if np.nanmax(values[ok]) == np.nanmin(values[ok]):
        ax.axhline(values[ok][0], ls="--", lw=1.0, color=color,
                   label=f"{label} = {values[ok][0]:g}")
    else:  # thresholds that adapt (QRTRED): draw them as they move
        ax.plot(t, np.where(ok, values, np.nan), ls="--", lw=1.0, color=color,
                drawstyle="steps-post", label=label)


def plot_queue(res: "Results", link: Optional[str] = None,
               ax: Optional["Axes"] = None) -> "Figure":
    """Instantaneous queue and the discipline's average queue against time, in one unit
    (packets, or bytes when the discipline counts bytes: RED's queue_in_bytes), with
    min_th, max_th and, under gentle, 2·max_th as dashed lines — the papers'
    queue-dynamics figure. For the adaptive REDs (ared, ared_feng) max_p is drawn on a
    second axis: it shows when the adaptation moves it."""
    link, q = _pick_link(_table(res, "queue"), link, "queue samples")
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    params = res.queue_params(link)
    # The monitor gives RED's average and thresholds in the discipline's unit: packets,
    # or mean_pktsize bytes in byte mode; there the figure draws everything in bytes.
    in_bytes = bool(params.get("queue_in_bytes")) and "len_bytes" in q.columns
    unit = float(params.get("mean_pktsize", 1.0)) if in_bytes else 1.0
    t = _finite(q["t"])
    qlen = _finite(q["len_bytes"] if in_bytes else q["len_pkts"])
    ax.plot(t, qlen, lw=0.8, color="tab:blue", label="queue (instantaneous)",
            drawstyle="steps-post")
    avg = _finite(q["avg"]) if "avg" in q.columns else np.array([])
    has_avg = bool(np.isfinite(avg).any())
    if has_avg and np.nanmax(np.abs(avg)) == 0 and np.nanmax(qlen) > 0:
        has_avg = False  # DropTail keeps no average (all zeros): draw no such line
    if has_avg:
        ax.plot(t, avg * unit, lw=1.6, color="tab:red", label="average queue")
    for col, color in (("min_th", "tab:green"), ("max_th", "tab:purple")):
        if col in q.columns:
            _threshold_line(ax, t, _finite(q[col]) * unit, col, color)
    if "max_th" in q.columns and (params.get("gentle") or params.get("kind") == "gentle"):
        _threshold_line(ax, t, 2 * _finite(q["max_th"]) * unit, "2·max_th (gentle)", "tab:brown")
    ylabel = "queue (bytes)" if in_bytes else "queue (packets)"
    _finish(ax, res, link, "queue", ylabel)
    if in_bytes:
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    if params.get("kind") in ("ared", "ared_feng") and "max_p" in q.columns:
        right = ax.twinx()
        right.plot(t, _finite(q["max_p"]), lw=1.2, ls="-.", color="tab:orange",
                   drawstyle="steps-post", label="max_p (right axis)")
        right.set_ylabel("max_p")
        right.set_ylim(bottom=0)
        # one legend for both axes, on the right one (drawn last, so no line crosses it)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = right.get_legend_handles_labels()
        ax.get_legend().remove()
        right.legend(h1 + h2, l1 + l2, loc="upper right", fontsize="small")
    return fig


def _finish(ax: "Axes", res: "Results", link: str, what: str, ylabel: str) -> None:
    """The axes every time plot shares: labels, limits from 0, title, legend, grid."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.set_title(_title(res, link, what), fontsize="medium")
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, alpha=0.3)


def plot_drop_probability(res: "Results", link: Optional[str] = None,
                          ax: Optional["Axes"] = None) -> "Figure":
    """Current drop probability p and the discipline's max_p against time."""
    link, q = _pick_link(_table(res, "queue"), link, "queue samples")
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    t = _finite(q["t"])
    if "p" in q.columns:
        ax.plot(t, _finite(q["p"]), lw=0.8, color="tab:blue", label="p (drop probability)")
    if "max_p" in q.columns:
        ax.plot(t, _finite(q["max_p"]), lw=1.4, ls="--", color="tab:red", label="max_p",
                drawstyle="steps-post")
    _finish(ax, res, link, "drop probability", "probability")
    return fig


def plot_utilisation(res: "Results", link: Optional[str] = None,
                     ax: Optional["Axes"] = None) -> "Figure":
    """Utilisation of each monitored link per bin (all links unless one is named), with
    the run's mean as a dotted line."""
    table = _table(res, "links")
    if "link" not in table.columns or table.empty:
        raise ValueError("no link utilisation recorded: add links to [monitor] queues")
    links = list(dict.fromkeys(table["link"].tolist())) if link is None else [link]
    if link is not None and link not in set(table["link"]):
        raise ValueError(f"link {link!r} has no utilisation bins")
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    for name in links:
        sel = table[table["link"] == name]
        t = _finite(sel["t"])
        u = _finite(sel["utilisation"])
        if len(t) >= 2:  # let the last bin's step reach the bin's end
            t = np.append(t, t[-1] + np.median(np.diff(t)))
            u = np.append(u, u[-1])
        (line,) = ax.plot(t, u, drawstyle="steps-post", lw=1.0, label=name)
        mean = float(np.nanmean(_finite(sel["utilisation"]))) if len(sel) else float("nan")
        if np.isfinite(mean):
            ax.axhline(mean, ls=":", lw=1.0, color=line.get_color(),
                       label=f"{name} mean {mean:.3f}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("utilisation")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 1.05)
    ax.set_title(_title(res, link or ", ".join(links), "utilisation"), fontsize="medium")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(True, alpha=0.3)
    return fig


#: Most flows :func:`plot_tcp` draws when none are named.
TCP_PLOT_FLOWS = 8


def plot_tcp(res: "Results", flows: Optional[Sequence[int]] = None,
             link: Optional[str] = None) -> "Figure":
    """The classic figure: cwnd of the chosen traced flows (step lines, one colour each,
    fast retransmits and timeouts visible as the drops of the line) above the queue of the
    bottleneck, on one shared time axis."""
    tcp = _table(res, "tcp")
    if tcp.empty:
        raise ValueError(
            "no TCP state recorded: list the flows in [monitor] tcp_flows (e.g. "
            "tcp_flows = [0, 1] or \"all\"), or run with `aqmsim run --tcp all`")
    traced = sorted(int(f) for f in np.unique(tcp["flow"]))
    if flows is None:
        flows = traced[:TCP_PLOT_FLOWS]
    missing = [f for f in flows if f not in traced]
    if missing:
        raise ValueError(f"flows: {missing} not traced; the traced flows are {traced}")
    fig, top = new_figure(figsize=(8.0, 5.5))
    top.remove()
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    end = float(res.summary.get("duration", tcp["t"].max()))
    for f in flows:
        rows = tcp[tcp["flow"] == f]
        t = np.append(rows["t"], end)
        cwnd = np.append(rows["cwnd"], rows["cwnd"][-1:])
        top.plot(t, cwnd, drawstyle="steps-post", lw=0.9, label=f"flow {f}")
    top.set_ylabel("cwnd (packets)")
    top.set_ylim(bottom=0)
    top.grid(True, alpha=0.3)
    top.legend(loc="upper right", fontsize="small", ncol=2)
    top.set_title(f"{res.scenario.name if res.scenario is not None and res.scenario.name else 'run'}"
                  f" — cwnd and queue (seed {res.summary.get('seed', '?')})", fontsize="medium")
    try:
        qlink, q = _pick_link(_table(res, "queue"), link, "queue samples")
    except ValueError:
        bottom.text(0.5, 0.5, "no queue monitored", ha="center", va="center",
                    transform=bottom.transAxes)
    else:
        bottom.plot(_finite(q["t"]), _finite(q["len_pkts"]), drawstyle="steps-post", lw=0.8,
                    color="tab:blue", label=f"queue {qlink}")
        bottom.legend(loc="upper right", fontsize="small")
    bottom.set_ylabel("queue (packets)")
    bottom.set_xlabel("time (s)")
    bottom.set_xlim(left=0, right=end)
    bottom.set_ylim(bottom=0)
    bottom.grid(True, alpha=0.3)
    return fig


def plot_delay_cdf(res: "Results", ax: Optional["Axes"] = None) -> "Figure":
    """The delay distributions of a run with ``monitor.delays``: one CDF per monitored
    queue (queueing delay) and one of the end-to-end delay of every flow's packets, on a
    log time axis (packets that did not wait sit at the left edge)."""
    cdf = _table(res, "delay_cdf")
    if cdf.empty:
        raise ValueError("no delay distributions recorded: set [monitor] delays = true "
                         "(or `aqmsim run --delays`)")
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    positive = cdf["delay_s"][cdf["delay_s"] > 0]
    floor = float(positive.min()) / 2 if len(positive) else 1e-6
    for what, rows in _groups(cdf, "what"):
        d = np.maximum(rows["delay_s"], floor)
        ax.plot(d * 1e3, rows["q"], drawstyle="steps-post", lw=1.2,
                label=("queueing delay, " + str(what)[6:]) if str(what).startswith("queue ")
                else "end-to-end delay, all flows")
    ax.set_xscale("log")
    # plain decimal tick labels (0.1, 1, 10 ms) rather than matplotlib's 10^k math-text:
    # what a reader of a delay axis expects, and ~0.1 s less per figure (no math layout)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("delay (ms, log scale)")
    ax.set_ylabel("fraction of packets ≤ delay")
    ax.set_ylim(0, 1.01)
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(loc="lower right", fontsize="small")
    name = res.scenario.name if res.scenario is not None and res.scenario.name else "run"
    ax.set_title(f"{name} — delay distributions (seed {res.summary.get('seed', '?')}; "
                 "quantiles within 1 %)", fontsize="medium")
    return fig
