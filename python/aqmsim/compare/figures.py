"""The figures of ``aqmsim compare``, drawn as Flent overlays them: every run in one
figure, one colour a run (matplotlib's default cycle, as :mod:`aqmsim.plot`), labelled by
:func:`aqmsim.compare.labels.run_labels`. Each is saved as PNG + SVG
(:func:`aqmsim.run_output.save_figure`).

A figure needs a series some runs did not keep: those runs are left out of it and
named in its note; a figure no run has data for is not drawn (its note says why).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..plot import new_figure
from ..plot_tcp import pacing_mbps
from ..run_output import save_figure
from .sources import SavedRun

__all__ = ["FigureFile", "draw_all", "FIGURES", "MAX_CWND_PANELS"]

#: Runs drawn in the cwnd figure (one panel each); the others are named in its note.
MAX_CWND_PANELS = 8


@dataclass
class FigureFile:
    """A figure of the comparison: its name, caption and files (none if not drawn)."""

    name: str
    title: str
    caption: str
    png: Optional[Path] = None
    svg: Optional[Path] = None
    #: What was left out, and why (runs without the series, or the whole figure).
    notes: List[str] = field(default_factory=list)


def _colours(n: int) -> List[Any]:
    import matplotlib

    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return [cycle[i % len(cycle)] for i in range(n)]


def _legend_text(label: str) -> str:
    return "\n".join(textwrap.wrap(label, 48)) or label


def _legend_below(fig: Any, ax: Any) -> None:
    """The runs' legend under the axes (labels can be long: never over the data)."""
    handles, texts = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, texts, loc="outside lower center", fontsize="small",
                   ncol=1 if max(len(t) for t in texts) > 40 else 2, frameon=False)


def _missing_note(names: Sequence[str], what: str) -> str:
    return f"Not drawn for {', '.join(names)}: {what}."


# --------------------------------------------------------------------------- delay
def _first_link(df: Any) -> Any:
    if "link" not in df.columns or df.empty:
        return df
    return df[df["link"] == df["link"].iloc[0]]


def queue_delay_cdf(run: SavedRun) -> Optional[Tuple[np.ndarray, np.ndarray, str]]:
    """(delay s, fraction ≤, how) of the run's queueing delay at its first monitored
    queue: the per-packet distribution (``delay_cdf``: quantiles of every packet's
    sojourn) when kept, else the queue samples' backlog over the bottleneck rate
    (``queue``: len_bytes × 8 / rate at each sample instant) — or None."""
    cdf = run.table("delay_cdf")
    if cdf is not None:
        rows = cdf[cdf["what"].astype(str).str.startswith("queue ")]
        if len(rows):
            rows = rows[rows["what"] == rows["what"].iloc[0]]
            return rows["delay_s"].to_numpy(float), rows["q"].to_numpy(float), "per packet"
    q = run.table("queue")
    rate = run.summary.get("bottleneck_rate_bps")
    if q is not None and "len_bytes" in q.columns and isinstance(rate, (int, float)) and rate > 0:
        d = np.sort(_first_link(q)["len_bytes"].to_numpy(float) * 8.0 / float(rate))
        return d, np.arange(1, len(d) + 1) / len(d), "sampled backlog / rate"
    return None


def e2e_delay_cdf(run: SavedRun) -> Optional[Tuple[np.ndarray, np.ndarray, str]]:
    """(delay s, fraction ≤, how) of the one-way end-to-end delay of every flow's
    packets (``delay_cdf``'s ``end-to-end`` rows), or None."""
    cdf = run.table("delay_cdf")
    if cdf is None:
        return None
    rows = cdf[cdf["what"].astype(str) == "end-to-end"]
    if not len(rows):
        return None
    return rows["delay_s"].to_numpy(float), rows["q"].to_numpy(float), "per packet"


def _draw_cdf(runs: Sequence[SavedRun], labels: Sequence[str], pick: Callable[..., Any],
              what: str, fig_file: FigureFile) -> Any:
    got = [(r, lab, c, pick(r)) for r, lab, c in zip(runs, labels, _colours(len(runs)))]
    drawn = [g for g in got if g[3] is not None]
    missing = [lab for _r, lab, _c, d in got if d is None]
    if not drawn:
        fig_file.notes.append(f"No run kept {what}: run with `--delays` (monitor.delays) or "
                              "keep the queue samples (a sweep's series = [\"queue\"]).")
        return None
    if missing:
        fig_file.notes.append(_missing_note(missing, f"no {what} saved"))
    fig, ax = new_figure((8.0, 4.5 + 0.25 * len(drawn)))
    positive = np.concatenate([d[d > 0] for _r, _l, _c, (d, _q, _h) in drawn])
    floor = float(positive.min()) / 2 if len(positive) else 1e-6
    hows = {h for *_x, (_d, _q, h) in drawn}
    for _r, lab, colour, (d, q, how) in drawn:
        text = _legend_text(lab) + (f" ({how})" if len(hows) > 1 else "")
        ax.plot(np.maximum(d, floor) * 1e3, q, drawstyle="steps-post", lw=1.3, color=colour,
                label=text)
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    # ticks at 1, 2, 5 × 10^k: a range under a decade still gets several labelled ticks
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"{what} (ms, log scale)")
    ax.set_ylabel("fraction ≤ delay")
    ax.set_ylim(0, 1.01)
    ax.grid(True, alpha=0.3, which="both")
    _legend_below(fig, ax)
    ax.set_title(fig_file.title, fontsize="medium")
    if hows == {"sampled backlog / rate"}:
        fig_file.caption += " From the queue samples (backlog ÷ bottleneck rate at each sample)."
    elif len(hows) > 1:
        fig_file.caption += (" Runs marked “sampled” had no per-packet distribution: their "
                             "curve is the queue samples' backlog ÷ bottleneck rate.")
    return fig


# --------------------------------------------------------------------------- goodput
#: Markers of the flow groups (the flows table's ``label``) in the goodput figure.
_GROUP_MARKERS = ("o", "^", "s", "v", "D", "P", "X", "*")


def _draw_goodput(runs: Sequence[SavedRun], labels: Sequence[str], fig_file: FigureFile) -> Any:
    data, groups, names, colours, missing = [], [], [], [], []
    for r, lab, c in zip(runs, labels, _colours(len(runs))):
        flows = r.table("flows")
        if flows is None or "goodput_bps" not in flows.columns:
            missing.append(lab)
            continue
        vals = flows["goodput_bps"].to_numpy(float) / 1e6
        ok = np.isfinite(vals)
        data.append(vals[ok])
        group = flows["label"].astype(str).to_numpy() if "label" in flows.columns else np.full(len(vals), "")
        groups.append(group[ok])
        names.append(_legend_text(lab))
        colours.append(c)
    if not data:
        fig_file.notes.append("No run kept its flows table (flows.csv; a sweep's series = "
                              "[\"flows\"]).")
        return None
    if missing:
        fig_file.notes.append(_missing_note(missing, "no flows table saved"))
    fig, ax = new_figure((8.0, 1.0 + 0.55 * len(data) + 2.0))
    pos = np.arange(len(data), 0, -1)
    import matplotlib

    # `orientation` from matplotlib 3.10 on (`vert` is deprecated there), `vert` before
    horizontal = ({"orientation": "horizontal"}
                  if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) >= (3, 10)
                  else {"vert": False})
    box = ax.boxplot(data, positions=pos, widths=0.55, **horizontal, patch_artist=True, showfliers=False, showmeans=True,
                     medianprops={"color": "black"}, meanprops={"marker": "D", "markerfacecolor": "white",
                                                "markeredgecolor": "black", "markersize": 5})
    for patch, c in zip(box["boxes"], colours):
        patch.set_facecolor(c)
        patch.set_alpha(0.45)
    rng = np.random.default_rng(0)  # the points' jitter only: fixed, the same figure each time
    # flows of several groups (BBR beside CUBIC, say): one marker per group, in a legend
    kinds = list(dict.fromkeys(g for gs in groups for g in gs))
    by_group = 1 < len(kinds) <= len(_GROUP_MARKERS)
    for y, vals, gs, c in zip(pos, data, groups, colours):
        jitter = y + rng.uniform(-0.18, 0.18, len(vals))
        if not by_group:
            ax.scatter(vals, jitter, s=10, color=c, zorder=3)
            continue
        for g, m in zip(kinds, _GROUP_MARKERS):
            sel = gs == g
            ax.scatter(vals[sel], jitter[sel], s=16, color=c, marker=m, edgecolors="black",
                       linewidths=0.4, zorder=3)
    if by_group:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], linestyle="", marker=m, markerfacecolor="white", markeredgecolor="black",
                          label=g) for g, m in zip(kinds, _GROUP_MARKERS)]
        ax.legend(handles=handles, title="flow group", fontsize="small", title_fontsize="small",
                  loc="lower right")
    ax.set_yticks(pos, names, fontsize="small")
    ax.set_xlabel("goodput per flow (Mb/s)")
    ax.set_xlim(left=0)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(fig_file.title, fontsize="medium")
    return fig


# --------------------------------------------------------------------------- time series
def _draw_queue(runs: Sequence[SavedRun], labels: Sequence[str], fig_file: FigureFile) -> Any:
    drawn, missing = [], []
    for r, lab, c in zip(runs, labels, _colours(len(runs))):
        q = r.table("queue")
        if q is None or "len_pkts" not in q.columns:
            missing.append(lab)
        else:
            drawn.append((lab, c, _first_link(q)))
    if not drawn:
        fig_file.notes.append("No run kept queue samples ([monitor] queues; a sweep's "
                              "series = [\"queue\"]).")
        return None
    if missing:
        fig_file.notes.append(_missing_note(missing, "no queue samples saved"))
    fig, ax = new_figure((8.0, 4.0 + 0.25 * len(drawn)))
    links = set()
    for lab, colour, q in drawn:
        if "link" in q.columns:
            links.add(str(q["link"].iloc[0]))
        ax.plot(q["t"].to_numpy(float), q["len_pkts"].to_numpy(float), drawstyle="steps-post",
                lw=0.9, color=colour, label=_legend_text(lab))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    _legend_below(fig, ax)
    ax.set_title(fig_file.title + (f" at {', '.join(sorted(links))}" if links else ""),
                 fontsize="medium")
    return fig


def _draw_tcp_panels(runs: Sequence[SavedRun], labels: Sequence[str], fig_file: FigureFile,
                     column: str, ylabel: str, values: Callable[[np.ndarray], np.ndarray],
                     without: str, none_note: Optional[str]) -> Any:
    """One panel a run (each with its own y scale) of a TCP-table column, one line a traced
    flow: ``values`` maps the column to what is drawn (NaN: nothing), ``without`` says why a
    run is left out (no such table, or nothing to draw), ``none_note`` when none is drawn
    (None: then the figure does not apply, and :func:`draw_all` leaves it out)."""
    drawn, missing = [], []
    for r, lab, c in zip(runs, labels, _colours(len(runs))):
        tcp = r.table("tcp")
        if tcp is None or column not in tcp.columns or np.isnan(values(tcp[column].to_numpy(float))).all():
            missing.append(lab)
        else:
            drawn.append((r, lab, c, tcp))
    if not drawn:
        if none_note:
            fig_file.notes.append(none_note)
        return None
    if missing:
        fig_file.notes.append(_missing_note(missing, without))
    if len(drawn) > MAX_CWND_PANELS:
        fig_file.notes.append(_missing_note([lab for _r, lab, _c, _t in drawn[MAX_CWND_PANELS:]],
                                            f"at most {MAX_CWND_PANELS} panels a figure"))
        drawn = drawn[:MAX_CWND_PANELS]
    fig, first = new_figure((8.0, 1.2 + 1.7 * len(drawn)))
    first.remove()
    axes = np.atleast_1d(fig.subplots(len(drawn), 1, sharex=True))  # own y scale each
    for ax, (r, lab, colour, tcp) in zip(axes, drawn):
        end = float(r.summary.get("duration", tcp["t"].max()))
        n = 0
        for _flow, rows in tcp.groupby("flow", sort=True):
            y = values(rows[column].to_numpy(float))
            if np.isnan(y).all():
                continue
            n += 1
            t = np.append(rows["t"].to_numpy(float), end)
            ax.plot(t, np.append(y, y[-1:]), drawstyle="steps-post", lw=0.7, color=colour, alpha=0.75)
        ax.set_title(f"{lab} — {n} flow{'s' if n != 1 else ''}", fontsize="small", loc="left")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(left=0)
    fig.suptitle(fig_file.title, fontsize="medium")
    return fig


def _draw_cwnd(runs: Sequence[SavedRun], labels: Sequence[str], fig_file: FigureFile) -> Any:
    return _draw_tcp_panels(runs, labels, fig_file, "cwnd", "cwnd (pkts)", lambda v: v,
                            "no TCP state saved (`--tcp`)",
                            "No run kept TCP state: run with `--tcp all` (monitor.tcp_flows).")


def _draw_pacing(runs: Sequence[SavedRun], labels: Sequence[str], fig_file: FigureFile) -> Any:
    # no run traced a paced flow (BBR, Prague, tcp.pacing): the figure does not apply (an
    # ns-2 comparison would otherwise always say it is missing)
    return _draw_tcp_panels(runs, labels, fig_file, "pacing_rate", "pacing (Mb/s)", pacing_mbps,
                            "no paced flow traced", None)


# --------------------------------------------------------------------------- scatter
def _draw_scatter(runs: Sequence[SavedRun], labels: Sequence[str], fig_file: FigureFile) -> Any:
    pts, missing = [], []
    for r, lab, c in zip(runs, labels, _colours(len(runs))):
        s = r.summary
        mean, good = s.get("mean_queueing_delay_s"), s.get("goodput_bps")
        if not isinstance(mean, (int, float)) or not isinstance(good, (int, float)):
            missing.append(lab)
            continue
        p99 = s.get("qdelay_p99_s")
        pts.append((lab, c, float(mean), p99 if isinstance(p99, (int, float)) else None,
                    float(good)))
    if not pts:
        fig_file.notes.append("No run's summary has both the mean queueing delay and the goodput.")
        return None
    if missing:
        fig_file.notes.append(_missing_note(missing, "no delay or goodput in its summary"))
    fig, ax = new_figure((8.0, 4.8 + 0.25 * len(pts)))
    any_p99 = False
    for lab, colour, mean, p99, good in pts:
        y = good / 1e6
        ax.plot([mean * 1e3], [y], "o", color=colour, ms=8, label=_legend_text(lab))
        if p99 is not None:
            any_p99 = True
            ax.plot([mean * 1e3, p99 * 1e3], [y, y], "-", color=colour, lw=1, alpha=0.7)
            ax.plot([p99 * 1e3], [y], "o", mfc="white", mec=colour, ms=8)
    ax.set_xlabel("queueing delay (ms): ● mean" + (", ○ 99th percentile" if any_p99 else ""))
    ax.set_ylabel("goodput, all flows (Mb/s)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    _legend_below(fig, ax)
    ax.set_title(fig_file.title, fontsize="medium")
    if not any_p99:
        fig_file.caption += (" No run kept its delay distribution (`--delays`): the mean "
                             "alone is drawn.")
    elif any(p[3] is None for p in pts):
        fig_file.caption += " Runs without `--delays` have no 99th percentile: the mean alone."
    return fig


# --------------------------------------------------------------------------- all
#: (name, title, caption, draw) of every figure, in the page's order.
FIGURES: List[Tuple[str, str, str, Callable[..., Any]]] = [
    ("delay_cdf", "Queueing delay distribution",
     "Queueing delay at each run's first monitored queue: the fraction of packets that "
     "waited at most that long.",
     lambda runs, labels, f: _draw_cdf(runs, labels, queue_delay_cdf, "queueing delay", f)),
    ("e2e_delay_cdf", "End-to-end delay distribution",
     "One-way delay of every flow's packets, sender to receiver.",
     lambda runs, labels, f: _draw_cdf(runs, labels, e2e_delay_cdf, "end-to-end delay", f)),
    ("goodput", "Goodput per flow",
     "Each flow's goodput (in-order payload delivered per second of its life): box = "
     "quartiles, black line the median, whiskers to the last flow within 1.5 × IQR, ◇ "
     "the mean, dots every flow (one marker per flow group when the runs have several, "
     "e.g. BBR beside CUBIC).", _draw_goodput),
    ("queue", "Queue length",
     "The queue of each run's first monitored link, as sampled.", _draw_queue),
    ("cwnd", "Congestion windows",
     "The congestion window of every traced flow, one panel a run (each with its own "
     "y scale).", _draw_cwnd),
    ("pacing_rate", "Pacing rates",
     "The pacing rate of every traced flow that paces (BBR, Prague, `tcp.pacing`), one "
     "panel a run (each with its own y scale); only when a run traced one.", _draw_pacing),
    ("delay_goodput", "Queueing delay against goodput",
     "One point a run: its total goodput against its mean queueing delay (and 99th "
     "percentile, when kept), as RFC 7928 §2.7 pictures the trade-off.", _draw_scatter),
]


def draw_all(runs: Sequence[SavedRun], labels: Sequence[str], out_dir: Path) -> List[FigureFile]:
    """Every figure of :data:`FIGURES` drawn into ``out_dir`` (PNG + SVG), or left out
    with a note; one that does not apply to these runs (drawn nothing and noted nothing:
    the pacing figure when no run traced a paced flow) is left out of the list. Returns
    them, in order."""
    files: List[FigureFile] = []
    for name, title, caption, draw in FIGURES:
        f = FigureFile(name, title, caption)
        fig = draw(runs, labels, f)
        if fig is not None:
            f.png, f.svg = save_figure(fig, out_dir / name)
        elif not f.notes:
            continue
        files.append(f)
    return files
