"""The suite report's figures, in RFC 7928's own forms, drawn from a scenario's
:class:`~aqmsim.suite.report.data.ScenarioData` (the frames written to ``out/data``):

- the delay–goodput graph (§2.7), a panel per variant: every run a dot, per discipline
  the 1-σ ellipse of the bivariate normal fitted to its runs, its centre the mean; ns-3's
  runs and mean with their own marker;
- the scenario's focus metrics against the variants' values;
- the bottleneck's queueing-delay CDFs (quantiles averaged over seeds, log delay axis);
- drop and mark rates; fairness; flow completion times.

Each discipline has one colour and one marker on every figure (:class:`Style`); every
label and unit comes from the metric registry (:mod:`aqmsim.suite.report.words`)."""

from __future__ import annotations

import math
from typing import Any, List, Sequence, Tuple

import numpy as np
import pandas as pd

from ...metrics import Metric
from ...metrics import TABLES
from ...report.sweep_figures import SPREAD_ELLIPSE_NAME, ellipse_polygon, fmt_value, new_figure
from .data import ScenarioData, Style
from .words import CDF_FRACTION, DROP_KEYS, GOODPUT_RATIO, QDELAY, X_KEY, flow_metric, metric

__all__ = ["delay_goodput", "focus_lines", "queue_time", "delay_cdfs", "drops", "fairness",
           "fct", "fct_size", "fct_curve", "log_axis", "kinds", "has_fct", "KINDS"]

#: Every figure kind, in the order of a scenario's page.
KINDS = ("delay_goodput", "focus_lines", "queue_time", "delay_cdfs", "drops", "fairness",
         "fct", "fct_size")

_NS3_MARKER = "X"
#: The fewest runs whose spread ellipse is drawn: two runs are a segment, not a spread in
#: two dimensions (their covariance is singular); below this the runs and their mean are
#: drawn and the caption says why there is no ellipse.
SPREAD_MIN_RUNS = 3


def _grid(n: int, w: float, h: float, share: bool = False) -> Tuple[Any, List[Any]]:
    """A figure of ``n`` panels, three a row; ``share``: one x and one y range for all
    (small multiples of the same quantity are compared by eye)."""
    cols = min(3, max(n, 1))
    rows = math.ceil(max(n, 1) / cols)
    fig = new_figure(max(w * cols, 6.4), h * rows + 0.5)
    axes = list(fig.subplots(rows, cols, squeeze=False, sharex=share, sharey=share).ravel())
    for ax in axes[n:]:
        ax.set_visible(False)
    if share:  # a column's last panel shows its ticks, even above an empty slot
        m = max(n, 1)
        for c in range(min(cols, m)):
            axes[c + (m - 1 - c) // cols * cols].xaxis.set_tick_params(labelbottom=True)
    return fig, axes[:max(n, 1)]


def _labels(axes: Sequence[Any], x: str, y: str) -> None:
    """Axis labels of shared panels (:func:`_grid`'s layout): x under each column's last
    panel, y beside each row's first."""
    cols = min(3, len(axes))
    for i, ax in enumerate(axes):
        if i + cols >= len(axes):
            ax.set_xlabel(x)
        if i % cols == 0:
            ax.set_ylabel(y)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def log_axis(ax: Any, axis: str = "x") -> None:
    """A log axis with plain decimal tick labels (0.1, 1, 10 ms), as aqmsim's run figures
    have them (no math text)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    getattr(ax, f"set_{axis}scale")("log")
    a = getattr(ax, f"{axis}axis")
    lo, hi = getattr(ax.dataLim, f"interval{axis}")
    if 0 < lo < hi < lo * 30:  # within about a decade: ticks at 1, 2 and 5 too, else none
        a.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    a.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    a.set_minor_formatter(NullFormatter())


def _legend(fig: Any, axes: Sequence[Any], extra: Sequence[Tuple[Any, str]] = ()) -> None:
    """One legend for the figure (the union of its panels' entries, then ``extra``
    (handle, label) pairs), outside at the bottom."""
    seen: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    for h, lab in extra:
        seen.setdefault(lab, h)
    if seen:
        # about 1.4 inches an entry (more for a long label): a narrow figure's legend
        # takes more rows, not its edges
        each = max(1.4, 0.5 + 0.07 * max(len(lab) for lab in seen))
        cols = max(1, min(len(seen), 7, int(fig.get_figwidth() / each)))
        fig.legend(list(seen.values()), list(seen), loc="outside lower center",
                   ncols=cols, fontsize="small", frameon=False)


def _panels_done(fig: Any, axes: Sequence[Any], data: ScenarioData, x: str, y: str,
                 what: str, extra: Sequence[Tuple[Any, str]] = ()) -> Any:
    """A figure of a panel per variant, finished: each panel titled with its variant, the
    shared axes labelled, one legend, the scenario's title."""
    if data.multi:
        for ax, (variant, _) in zip(axes, data.variants):
            ax.set_title(variant, fontsize="medium")
    _labels(axes, x, y)
    _legend(fig, axes, extra)
    _title(fig, f"{data.scenario.title}: {what}")
    return fig


def _title(fig: Any, text: str) -> None:
    """The figure's title, on two lines when one would run past a narrow figure's edges."""
    import textwrap

    fig.suptitle(textwrap.fill(text, max(40, int(fig.get_figwidth() * 10))))


def delay_goodput(data: ScenarioData, style: Style) -> Any:
    """RFC 7928 §2.7's graph: queueing delay (x) against the TCP flows' goodput (y), a
    panel per variant."""
    y = data.y_key
    mx, my = metric(X_KEY), metric(y)
    fig, axes = _grid(len(data.variants), 4.4, 3.6, share=True)
    xs = np.concatenate([data.points[X_KEY].to_numpy(float),
                         data.ns3[X_KEY].to_numpy(float) if not data.ns3.empty else []])
    xs = xs[~np.isnan(xs)] * mx.scale
    log = bool(len(xs) and xs.min() > 0 and xs.max() / xs.min() > 10)
    floor = xs.min() * 0.5 if log else mx.display_range[0]
    ellipses = 0
    for ax, (variant, _) in zip(axes, data.variants):
        pts = data.points[data.points["variant"] == variant]
        for aqm in data.aqms:
            c, mk, lab = style.colour(aqm), style.marker(aqm), style.label(aqm)
            mine = pts[pts["aqm"] == aqm]
            if mine.empty:
                continue
            ax.scatter(mine[X_KEY] * mx.scale, mine[y] * my.scale, s=14, color=c,
                       marker=mk, alpha=0.45, linewidths=0)
            e = data.ellipses[(data.ellipses["variant"] == variant)
                              & (data.ellipses["aqm"] == aqm)].iloc[0]
            centre = np.array([e["centre_" + X_KEY], e["centre_" + y]])
            if not math.isnan(e["cov_xx"]) and e["runs"] >= SPREAD_MIN_RUNS:
                ellipses += 1
                cov = np.array([[e["cov_xx"], e["cov_xy"]], [e["cov_xy"], e["cov_yy"]]])
                poly = ellipse_polygon(centre, cov, 1.0) * [mx.scale, my.scale]
                poly[:, 0] = np.clip(poly[:, 0], floor, mx.display_range[1])
                poly[:, 1] = np.clip(poly[:, 1], *my.display_range)
                ax.fill(poly[:, 0], poly[:, 1], color=c, alpha=0.12, linewidth=0)
                ax.plot(poly[:, 0], poly[:, 1], color=c, linewidth=1.0)
            ax.scatter([centre[0] * mx.scale], [centre[1] * my.scale], s=60, color=c,
                       marker=mk, edgecolors="black", linewidths=0.7, zorder=3, label=lab)
        if not data.ns3.empty:
            theirs = data.ns3[data.ns3["variant"] == variant]
            for aqm in [a for a in style.order if a in set(theirs["aqm"])]:
                t = theirs[theirs["aqm"] == aqm]
                c = style.colour(aqm)
                ax.scatter(t[X_KEY] * mx.scale, t[y] * my.scale, s=16, color=c,
                           marker=_NS3_MARKER, alpha=0.5, linewidths=0)
                ax.scatter([t[X_KEY].mean() * mx.scale], [t[y].mean() * my.scale], s=90,
                           color=c, marker=_NS3_MARKER, edgecolors="black", linewidths=0.8,
                           zorder=4, label=f"ns-3 {style.label(aqm)}")
        if log:
            log_axis(ax)
        ax.grid(True, alpha=0.3, which="both" if log else "major")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    # what the marks are, named apart from the sweep report's 95 % ellipse of the mean
    extra = [(Line2D([], [], color="grey", marker="o", markersize=3, alpha=0.45,
                     linestyle="none"), "one run"),
             (Line2D([], [], color="grey", marker="o", markersize=7, markeredgecolor="black",
                     linestyle="none"), "mean of the runs")]
    if ellipses:
        extra.append((Patch(facecolor="grey", alpha=0.2, edgecolor="grey"),
                      SPREAD_ELLIPSE_NAME))
    return _panels_done(fig, axes, data, f"{mx.axis_label}{', log scale' if log else ''}",
                        my.axis_label, f"{my.label} against {mx.label}", extra)


def _positions(data: ScenarioData) -> Tuple[List[float], List[str], bool]:
    """x of each variant: its value when every value is a number, else its rank."""
    values = [v for _, v in data.variants]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric:
        return [float(v) for v in values], [fmt_value(v) for v in values], True
    return [float(i) for i in range(len(values))], [lab for lab, _ in data.variants], False


def _lines(ax: Any, data: ScenarioData, frame: pd.DataFrame, m: Metric, style: Style) -> None:
    """``frame`` (variant, aqm, mean, half; stored units) against the variants, a line per
    discipline with its 95 % interval cut to the metric's range."""
    pos, ticks, numeric = _positions(data)
    at = {lab: x for (lab, _), x in zip(data.variants, pos)}
    # values over more than a decade (RTTs 5-560 ms) on a log axis, else their ticks crowd
    log = numeric and min(pos) > 0 and max(pos) / min(pos) > 10
    # the disciplines side by side around each variant, so their intervals do not overlap
    step = 0.012 * ((max(pos) - min(pos)) or 1.0)

    def shifted(x: float, k: int) -> float:
        off = k - (len(data.aqms) - 1) / 2
        return x * (1.0 + 0.02 * off) if log else x + off * step

    for k, aqm in enumerate(data.aqms):
        sub = frame[frame["aqm"] == aqm]
        if sub.empty:
            continue
        x = [shifted(at[v], k) for v in sub["variant"]]
        # (a delay quantile's interval carries the sketch's resolution: Metric.half_width)
        half = np.nan_to_num([m.half_width(a, h) * m.scale
                              for a, h in zip(sub["mean"].astype(float), sub["half"])])
        mean = sub["mean"].to_numpy(float) * m.scale
        lo = [mn - max(a, m.display_range[0]) for mn, a in zip(mean, mean - half)]
        hi = [min(b, m.display_range[1]) - mn for mn, b in zip(mean, mean + half)]
        ax.errorbar(x, mean, yerr=[np.maximum(lo, 0), np.maximum(hi, 0)],
                    color=style.colour(aqm), marker=style.marker(aqm), capsize=3,
                    markersize=5, linewidth=1.0, label=style.label(aqm))
    if log:
        log_axis(ax)
        ax.minorticks_off()
    ax.set_xticks(pos, ticks)
    ax.set_xlabel((data.scenario.variant_axis or "variant")
                  + (", log scale" if log else ""))
    ax.set_ylabel(m.axis_label)
    ax.grid(True, alpha=0.3)


def focus_lines(data: ScenarioData, style: Style) -> Any:
    """Each focus metric (mean and 95 % interval over seeds) against the variants."""
    fig, axes = _grid(len(data.focus), 4.4, 3.4)
    for ax, key in zip(axes, data.focus):
        _lines(ax, data, data.focus_means[data.focus_means["metric"] == key],
               metric(key), style)
        if key == "goodput_ratio":
            ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    _legend(fig, axes)
    _title(fig, f"{data.scenario.title}: against {data.scenario.variant_axis or 'variant'}")
    return fig


def queue_time(data: ScenarioData, style: Style) -> Any:
    """The bottleneck's queue length against time: a row per discipline (seven lines of
    thousands of samples on one panel hide each other), a column per variant; each the
    mean over seeds at each sample, a thin band from the smallest to the largest seed."""
    mt, mq = TABLES["queue"]["t"], TABLES["queue"]["len_pkts"]
    rows, cols = max(len(data.aqms), 1), max(len(data.variants), 1)
    fig = new_figure(max(4.4 * cols, 9.0), 1.25 * rows + 1.0)
    grid = fig.subplots(rows, cols, squeeze=False, sharex="col", sharey=True)
    for j, (variant, _) in enumerate(data.variants):
        for i, aqm in enumerate(data.aqms):
            ax = grid[i][j]
            sub = data.queue[(data.queue["variant"] == variant) & (data.queue["aqm"] == aqm)]
            c = style.colour(aqm)
            if (sub["seeds"] > 1).any():
                ax.fill_between(sub["t"], sub["len_min"], sub["len_max"], color=c, alpha=0.2,
                                linewidth=0)
            ax.plot(sub["t"], sub["len_pkts"], color=c, linewidth=0.6)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            if j == 0:
                ax.set_ylabel(style.label(aqm), rotation=0, ha="right", va="center",
                              fontsize="small")
            if i == 0 and data.multi:
                ax.set_title(variant, fontsize="medium")
            if i == rows - 1:
                ax.set_xlabel(mt.axis_label)
    fig.supylabel(mq.axis_label, fontsize="small")
    _title(fig, f"{data.scenario.title}: bottleneck {mq.label} over time")
    return fig


def delay_cdfs(data: ScenarioData, style: Style) -> Any:
    """The bottleneck's queueing-delay CDF per discipline, a panel per variant."""
    fig, axes = _grid(len(data.variants), 4.4, 3.4, share=True)
    positive = data.cdf["delay_s"][data.cdf["delay_s"] > 0]
    floor = float(positive.min()) / 2 if len(positive) else 1e-6
    for ax, (variant, _) in zip(axes, data.variants):
        for aqm in data.aqms:
            sub = data.cdf[(data.cdf["variant"] == variant) & (data.cdf["aqm"] == aqm)]
            if sub.empty:
                continue
            ax.plot(np.maximum(sub["delay_s"], floor) * QDELAY.scale, sub["q"],
                    drawstyle="steps-post", color=style.colour(aqm), linewidth=1.2,
                    label=style.label(aqm))
        log_axis(ax)
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3, which="both")
    return _panels_done(fig, axes, data, f"{QDELAY.axis_label}, log scale", CDF_FRACTION.label,
                        f"{QDELAY.label} distribution at the bottleneck")


def _bars(ax: Any, data: ScenarioData, key: str, m: Metric, style: Style) -> None:
    """Table column ``key`` (mean ± half) per discipline, a bar per variant."""
    t = data.table
    width = 0.8 / max(len(data.variants), 1)
    for i, (variant, _) in enumerate(data.variants):
        sub = t[t["variant"] == variant].set_index("aqm")
        xs = [j + (i - (len(data.variants) - 1) / 2) * width
              for j, a in enumerate(data.aqms) if a in sub.index]
        here = [a for a in data.aqms if a in sub.index]
        raw = sub.loc[here, f"{key}_mean"].to_numpy(float)
        half = np.nan_to_num([m.half_width(a, h) * m.scale
                              for a, h in zip(raw, sub.loc[here, f"{key}_half"])])
        mean = raw * m.scale
        lo = np.maximum(mean - np.maximum(mean - half, m.display_range[0]), 0)
        hi = np.maximum(np.minimum(mean + half, m.display_range[1]) - mean, 0)
        ax.bar(xs, mean, width * 0.9, yerr=[lo, hi], capsize=2,
               color=[style.colour(a) for a in here], edgecolor="black", linewidth=0.4,
               alpha=1.0 - 0.6 * i / max(len(data.variants), 1),
               label=variant if data.multi else None)
    ax.set_xticks(range(len(data.aqms)), [style.label(a) for a in data.aqms],
                  rotation=30, ha="right")
    ax.set_ylabel(m.axis_label)
    ax.grid(True, axis="y", alpha=0.3)


def drops(data: ScenarioData, style: Style) -> Any:
    """Loss ratio per discipline (and variant); drops by reason and ECN marks per run."""
    keys = [k for k in DROP_KEYS if k in data.drops]
    fig = new_figure(10.0, 3.8)
    a, b = fig.subplots(1, 2)
    _bars(a, data, "loss_ratio", metric("loss_ratio"), style)
    if data.multi:
        a.legend(fontsize="x-small", title=data.scenario.variant_axis or None,
                 title_fontsize="x-small")
    d = data.drops
    width = 0.8 / max(len(keys), 1)
    hatches = ("", "//", "\\\\", "xx")
    for i, k in enumerate(keys):
        per = [float(np.average(d.loc[d["aqm"] == aqm, k], weights=d.loc[d["aqm"] == aqm,
                                                                          "runs"]))
               for aqm in data.aqms]
        xs = [j + (i - (len(keys) - 1) / 2) * width for j in range(len(data.aqms))]
        b.bar(xs, per, width * 0.9, color=[style.colour(q) for q in data.aqms],
              hatch=hatches[i % len(hatches)], edgecolor="black", linewidth=0.4)
    b.set_xticks(range(len(data.aqms)), [style.label(q) for q in data.aqms], rotation=30,
                 ha="right")
    b.set_ylabel(f"per run ({metric(keys[0]).unit})" if keys else "")
    from matplotlib.patches import Patch

    b.legend([Patch(facecolor="white", edgecolor="black", hatch=hatches[i % len(hatches)])
              for i in range(len(keys))], [metric(k).label for k in keys],
             fontsize="x-small")
    b.grid(True, axis="y", alpha=0.3)
    _title(fig, f"{data.scenario.title}: drops and marks at the bottleneck")
    return fig


def fairness(data: ScenarioData, style: Style) -> Any:
    """Jain's index per discipline; with two long-lived flows of different RTTs (the
    scenario's focus lists the goodput ratio) and a single variant, their goodput ratio
    (with several variants the focus figure draws it against them)."""
    ratio = "goodput_ratio_mean" in data.table and not data.multi
    fig = new_figure(10.0 if ratio else 5.6, 3.8)
    axes = fig.subplots(1, 2 if ratio else 1, squeeze=False)[0]
    _bars(axes[0], data, "jain_fairness", metric("jain_fairness"), style)
    if data.multi:
        axes[0].legend(fontsize="x-small")
    if ratio:
        _bars(axes[1], data, "goodput_ratio", GOODPUT_RATIO, style)
        axes[1].axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    _title(fig, f"{data.scenario.title}: fairness between the long-lived TCP flows")
    return fig


def fct_curve(fct: pd.DataFrame) -> Tuple[np.ndarray, np.ndarray]:
    """The CDF of the transfers ``fct`` (one variant and discipline, every seed): the
    finished transfers' completion times, sorted, and the share of the transfers that
    *started* done by each, so the curve ends at finished / started, below 1 when some did
    not finish within the run."""
    t = fct["fct_s"].to_numpy(float)
    done = np.sort(t[np.isfinite(t)])
    return done, np.arange(1, len(done) + 1) / max(len(t), 1)


def fct(data: ScenarioData, style: Style) -> Any:
    """Web transfers' completion-time CDF per discipline, a panel per variant."""
    mf = flow_metric("fct_s")
    fig, axes = _grid(len(data.variants), 4.4, 3.4, share=True)
    for ax, (variant, _) in zip(axes, data.variants):
        for aqm in data.aqms:
            sub = data.fct[(data.fct["variant"] == variant) & (data.fct["aqm"] == aqm)]
            t, y = fct_curve(sub)
            if not len(t):
                continue
            ax.plot(t * mf.scale, y, drawstyle="steps-post", color=style.colour(aqm),
                    linewidth=1.2, label=style.label(aqm))
        log_axis(ax)
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3, which="both")
    return _panels_done(fig, axes, data, f"{mf.axis_label}, log scale",
                        "fraction of transfers started", f"{mf.label}s of the web transfers")


def fct_size(data: ScenarioData, style: Style) -> Any:
    """The median completion time of the finished web transfers against their size
    (eight logarithmic size bins, the same in every panel), a panel per variant."""
    mf, ms = flow_metric("fct_s"), flow_metric("size_bytes")
    done = data.fct[np.isfinite(data.fct["fct_s"].to_numpy(float))]
    sizes = done["size_bytes"].to_numpy(float)
    edges = np.geomspace(max(sizes.min(), 1.0), sizes.max() * 1.0001, 9) if len(sizes) \
        else np.array([1.0, 2.0])
    fig, axes = _grid(len(data.variants), 4.4, 3.4, share=True)
    for ax, (variant, _) in zip(axes, data.variants):
        for aqm in data.aqms:
            sub = done[(done["variant"] == variant) & (done["aqm"] == aqm)]
            if sub.empty:
                continue
            idx = np.digitize(sub["size_bytes"].to_numpy(float), edges[1:-1])
            med = [(math.sqrt(edges[i] * edges[i + 1]) * ms.scale,
                    float(np.median(sub["fct_s"].to_numpy(float)[idx == i])) * mf.scale)
                   for i in range(len(edges) - 1) if (idx == i).any()]
            ax.plot([p[0] for p in med], [p[1] for p in med], color=style.colour(aqm),
                    marker=style.marker(aqm), markersize=4, linewidth=1.0,
                    label=style.label(aqm))
        log_axis(ax)
        log_axis(ax, "y")
        ax.grid(True, alpha=0.3, which="both")
    return _panels_done(fig, axes, data, f"{ms.axis_label}, log scale",
                        f"median {mf.axis_label}, log scale",
                        f"median {mf.label} against transfer size")


def has_fct(data: ScenarioData) -> bool:
    return not data.fct.empty and bool(np.isfinite(data.fct["fct_s"].to_numpy(float)).any())


def kinds(data: ScenarioData) -> List[str]:
    """The figures scenario ``data`` has data for, by name of their drawing function."""
    if data.ok.empty:
        return []
    out = ["delay_goodput"]
    if data.multi and data.focus:
        out.append("focus_lines")
    if not data.queue.empty:
        out.append("queue_time")
    if not data.cdf.empty:
        out.append("delay_cdfs")
    if not data.drops.empty:
        out.append("drops")
    if "jain_fairness_mean" in data.table and data.pairs:  # (one flow: Jain's index is 1)
        out.append("fairness")
    if has_fct(data):
        out.append("fct")
        done = data.fct[np.isfinite(data.fct["fct_s"].to_numpy(float))]
        if done["size_bytes"].nunique() >= 3:  # (transfers of one size: nothing to bin)
            out.append("fct_size")
    return out

