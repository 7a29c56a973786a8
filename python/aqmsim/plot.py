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
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .run_view import RunView

__all__ = ["plot_queue", "plot_drop_probability", "plot_utilisation",
           "plot_delay_cdf", "new_figure", "has_drop_probability"]


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


def _table(res: "RunView", name: str) -> _Table:
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


def _title(res: "RunView", link: str, what: str) -> str:
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


def plot_queue(res: "RunView", link: Optional[str] = None,
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
    if params.get("kind") == "dualpi2":
        has_avg = False  # its avg column is PI2's base probability p', not a queue
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


def _finish(ax: "Axes", res: "RunView", link: str, what: str, ylabel: str) -> None:
    """The axes every time plot shares: labels, limits from 0, title, legend, grid."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.set_title(_title(res, link, what), fontsize="medium")
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, alpha=0.3)


def _nonzero(q: Any, col: str) -> bool:
    """Whether column ``col`` of the samples ``q`` has a value other than 0 (or NaN)."""
    if col not in q.columns:
        return False
    v = _finite(q[col])
    return bool((np.isfinite(v) & (v != 0)).any())


def has_drop_probability(res: "RunView", link: Optional[str] = None) -> bool:
    """Whether the queue samples of ``link`` (default: the first monitored) have a drop
    probability to draw: a ``p`` or a ``max_p`` that is not 0 at every sample. The RED
    family and PIE have one; DropTail, CoDel, FQ-CoDel and the threshold queue keep none
    (their columns are all 0), so no empty figure is drawn for them."""
    try:
        _, q = _pick_link(_table(res, "queue"), link, "queue samples")
    except ValueError:
        return False
    return _nonzero(q, "p") or _nonzero(q, "max_p")


def plot_drop_probability(res: "RunView", link: Optional[str] = None,
                          ax: Optional["Axes"] = None) -> "Figure":
    """Current drop probability p and the discipline's max_p (where it has one) against
    time. ValueError for a discipline without a drop probability
    (:func:`has_drop_probability`): a figure of zeros would show nothing."""
    link, q = _pick_link(_table(res, "queue"), link, "queue samples")
    if not (_nonzero(q, "p") or _nonzero(q, "max_p")):
        kind = res.queue_params(link).get("kind", "this discipline")
        raise ValueError(f"no drop probability at {link}: {kind} keeps none (p and max_p are "
                         "0 at every sample)")
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    t = _finite(q["t"])
    # DualPI2 keeps p = p_C = p'^2 (the Classic queue's drop or mark probability) and
    # max_p = p_CL = min(k p', 1) (the L4S queue's coupled marking probability)
    dualpi2 = res.queue_params(link).get("kind") == "dualpi2"
    p_label, max_label = (("p_C = p'² (Classic drop/mark)", "p_CL = min(k·p', 1) (L4S mark, coupled)")
                          if dualpi2 else ("p (drop probability)", "max_p"))
    if "p" in q.columns:
        ax.plot(t, _finite(q["p"]), lw=0.8, color="tab:blue", label=p_label)
    if _nonzero(q, "max_p"):  # (PIE has no max_p: its column is 0)
        ax.plot(t, _finite(q["max_p"]), lw=1.4, ls="--", color="tab:red", label=max_label,
                drawstyle="steps-post")
    _finish(ax, res, link, "drop probability", "probability")
    return fig


def rate_schedule(res: "RunView", link: str) -> Optional[np.ndarray]:
    """The rate schedule of ``link`` ("A->B", either direction) in the resolved scenario:
    rows (from time s, rate b/s), or None when the link keeps one rate."""
    a, _, b = link.partition("->")
    for lk in res.resolved.get("links", []) or []:
        if {lk.get("from"), lk.get("to")} == {a, b}:
            sched = lk.get("rate_schedule") or []
            return np.asarray(sched, float) if len(sched) > 1 else None
    return None


def bins_mean(res: "RunView", link: str) -> float:
    """The run's utilisation of ``link`` from its ``links`` bins, as the summary defines it
    (bits sent / the bits the link could have sent, ∫ rate dt): the bins' utilisation
    weighted by each bin's capacity, rate × the part of the bin inside the run (the last
    bin may end past the run). Equal to the summary's ``utilisation`` when the rate changes
    only at bin edges; a plain mean of the bins would weigh a bin at 1 Mb/s as much as one
    at 10 Mb/s."""
    table = _table(res, "links")
    sel = table[table["link"] == link]
    t, u = _finite(sel["t"]), _finite(sel["utilisation"])
    if not len(t):
        return float("nan")
    step = float(np.median(np.diff(t))) if len(t) >= 2 else float(
        res.resolved.get("monitor", {}).get("link_interval", 0.0) or 0.0)
    end = float(res.summary.get("duration", t[-1] + step))
    ends = np.minimum(np.append(t[1:], t[-1] + step), end)
    width = np.clip(ends - t, 0.0, None)
    sched = rate_schedule(res, link)
    # the capacity of each bin: ∫ rate dt over it (a rate change inside a bin split)
    cap = width if sched is None else _integral(sched, ends) - _integral(sched, t)
    ok = np.isfinite(u) & (cap > 0)
    return float(np.sum(u[ok] * cap[ok]) / np.sum(cap[ok])) if ok.any() else float("nan")


def _integral(sched: np.ndarray, x: np.ndarray) -> np.ndarray:
    """∫₀ˣ rate dt of a schedule (rows: from time, rate) at each of ``x``."""
    starts, rates = sched[:, 0], sched[:, 1]
    at = np.concatenate([[0.0], np.cumsum(rates[:-1] * np.diff(starts))])
    k = np.clip(np.searchsorted(starts, x, side="right") - 1, 0, None)
    return at[k] + rates[k] * (x - starts[k])


def plot_utilisation(res: "RunView", link: Optional[str] = None,
                     ax: Optional["Axes"] = None) -> "Figure":
    """Utilisation of each monitored link per bin (all links unless one is named), in %,
    with the run's mean as a dotted line: the bins weighted by their capacity
    (:func:`bins_mean`), which is the summary's ``utilisation`` for the bottleneck; where
    the two would print differently (a rate change inside a bin) the legend gives both and
    says why. A link with a ``rate_schedule`` has its rate drawn on the right axis."""
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
    bottleneck = (res.monitored_links or [None])[0]
    summary = res.summary.get("utilisation")
    rates = []
    for name in links:
        sel = table[table["link"] == name]
        t = _finite(sel["t"])
        u = _finite(sel["utilisation"]) * 100.0
        if len(t) >= 2:  # let the last bin's step reach the bin's end
            t = np.append(t, t[-1] + np.median(np.diff(t)))
            u = np.append(u, u[-1])
        (line,) = ax.plot(t, u, drawstyle="steps-post", lw=1.0, label=name)
        mean = bins_mean(res, name)
        if np.isfinite(mean):
            ax.axhline(mean * 100.0, ls=":", lw=1.0, color=line.get_color(),
                       label=_mean_label(name, mean, summary if name == bottleneck else None))
        sched = rate_schedule(res, name)
        if sched is not None:
            rates.append((name, sched, line.get_color()))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("utilisation (%)")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 105)
    ax.set_title(_title(res, link or ", ".join(links), "utilisation"), fontsize="medium")
    handles, labels = ax.get_legend_handles_labels()
    if rates:
        handles, labels = _draw_rates(ax, res, rates, handles, labels)
    ax.legend(handles, labels, loc="lower right", fontsize="small")
    ax.grid(True, alpha=0.3)
    return fig


def _mean_label(name: str, mean: float, summary: Any) -> str:
    """The mean line's label: the whole-run mean, said equal to the summary's, or both
    numbers and why they differ."""
    text = f"{mean:.1%}".replace("%", " %")
    if summary is None or not np.isfinite(float(summary)):
        return f"{name} whole-run mean {text}"
    if f"{mean:.1%}" == f"{float(summary):.1%}":
        return f"{name} whole-run mean {text} (the summary's)"
    other = f"{float(summary):.1%}".replace("%", " %")
    return (f"{name} mean of the bins {text}, summary {other}:\nthe summary counts bits "
            "sent / ∫ rate dt; a rate change\ninside a bin is not seen by the bins")


def _draw_rates(ax: "Axes", res: "RunView", rates: List[Tuple[str, np.ndarray, str]],
                handles: List[Any], labels: List[str]) -> Tuple[List[Any], List[str]]:
    """Each scheduled link's rate (Mb/s) as a step line on a right axis; the legend's
    entries of both axes together."""
    right = ax.twinx()
    end = float(res.summary.get("duration", 0.0)) or None
    top = 0.0
    for name, sched, colour in rates:
        t = sched[:, 0]
        r = sched[:, 1] / 1e6
        if end is not None and end > t[-1]:
            t, r = np.append(t, end), np.append(r, r[-1])
        right.plot(t, r, drawstyle="steps-post", lw=1.2, ls="--",
                   color="0.35" if len(rates) == 1 else colour, alpha=0.8,
                   label=f"{name} rate (right axis)")
        top = max(top, float(r.max()))
    right.set_ylabel("link rate (Mb/s)")
    right.set_ylim(0, top * 1.05 if top > 0 else 1.0)
    h2, l2 = right.get_legend_handles_labels()
    return handles + h2, labels + l2


def plot_delay_cdf(res: "RunView", ax: Optional["Axes"] = None) -> "Figure":
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
