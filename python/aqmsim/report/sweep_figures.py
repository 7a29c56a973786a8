"""The figures of a sweep report: a metric against a varied parameter, and one metric
against another (RFC 7928 §2.7: queueing delay against goodput) with a 95 % confidence
ellipse of the mean over seeds.

Words and units come from the metric registry (:mod:`aqmsim.metrics`): values are drawn
in display units (ms, Mb/s, %), intervals are cut to each metric's range. A parameter
whose values are not all numbers (the discipline) is a categorical axis: points with
error bars side by side, never a line joining categories. Every figure is written as a
160 dpi PNG and an SVG whose text stays text (editable in a paper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..metrics import SUMMARY, Metric
from ..papers.base import mean_ci

__all__ = ["Axis", "metric_of", "param_label", "draw_metric", "draw_pair", "mean_ellipse",
           "ellipse_polygon", "spread_ellipse", "new_figure", "fmt_value", "MAX_LINES",
           "hotelling_radius", "min_runs_mean_ellipse", "MEAN_ELLIPSE_SPREAD",
           "MEAN_ELLIPSE_NAME", "SPREAD_ELLIPSE_NAME"]

#: Series drawn in one panel before the other parameters are averaged per seed instead.
MAX_LINES = 8
#: Words for the parameters sweeps vary most (the last part of the dotted key).
PARAM_WORDS = {"kind": "discipline", "count": "flows", "rate": "bottleneck rate",
               "delay": "delay", "limit": "buffer (packets)", "variant": "TCP variant",
               "duration": "duration (s)"}


@dataclass(frozen=True)
class Axis:
    """What a panel's x axis shows: one parameter of a ``cross`` group, or the parameters
    of a ``zip`` group together (they move as one: x is the first, ticks show all)."""

    params: Tuple[str, ...]
    label: str


def metric_of(key: str) -> Metric:
    """The registry's entry, or a bare one for a key a newer engine added (shown as is)."""
    return SUMMARY.get(key) or Metric(key, key, "", "Not in the metric registry.")


def param_label(key: str, short: str) -> str:
    """``discipline`` for ``dumbbell.bottleneck.queue.kind``; else the short label."""
    return PARAM_WORDS.get(key.rsplit(".", 1)[-1], short)


def fmt_value(v: Any) -> str:
    """A parameter value for a tick, a legend or a table: fixed point, no exponent."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).lower()
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "—"
        return np.format_float_positional(v, trim="-", precision=8)
    return str(v)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_))


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _eq(col: pd.Series, v: Any) -> np.ndarray:
    return col.isna().to_numpy() if _missing(v) else (col == v).to_numpy()


def _interval(m: Metric, values: np.ndarray) -> Tuple[float, float, float]:
    """(mean, lower error, upper error) in display units, the interval cut to m's range."""
    mean, half = mean_ci(values)
    half = m.half_width(mean, half)  # never narrower than the estimator (a sketch) knows
    mean = m.display(mean)
    half = 0.0 if math.isnan(half) else m.display(half)
    lo, hi = m.clip(mean - half, mean + half)
    return mean, max(mean - lo, 0.0), max(hi - mean, 0.0)


def new_figure(w: float, h: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), layout="constrained")


def _series(df: pd.DataFrame, others: Sequence[str]) -> List[Tuple[Tuple[Any, ...], pd.DataFrame]]:
    if not others:
        return [((), df)]
    return [(k if isinstance(k, tuple) else (k,), sub)
            for k, sub in df.groupby(list(others), dropna=False, sort=False)]


def draw_metric(ax: Any, df: pd.DataFrame, key: str, axis: Optional[Axis],
                others: Sequence[str], labels: Dict[str, str]) -> None:
    """Metric ``key`` (mean and 95 % interval over seeds) against ``axis``; one series per
    combination of the ``others`` that vary."""
    m = metric_of(key)
    ax.set_ylabel(m.axis_label)
    ax.grid(True, axis="y", alpha=0.3)
    if axis is None:
        mean, lo, hi = _interval(m, df[key].astype(float).to_numpy())
        ax.errorbar([0.0], [mean], yerr=[[lo], [hi]], fmt="o", capsize=4)
        ax.set_xticks([0.0], ["all runs"])
        return
    param = axis.params[0]
    distinct = list(dict.fromkeys(v for v in df[param] if not _missing(v)))
    categorical = not all(_is_number(v) for v in distinct)
    if categorical:
        pos = {v: float(i) for i, v in enumerate(distinct)}
    else:
        distinct.sort()
        pos = {v: float(v) for v in distinct}
    others = [o for o in others if o not in axis.params and df[o].nunique(dropna=False) > 1]
    groups = _series(df, others)
    averaged = len(groups) > MAX_LINES
    if averaged:  # too many series: average the others per seed first (df kept whole
        # for the tick labels; the axis's zipped parameters move together, so grouping
        # by all of them is grouping by the first)
        n = len(groups)
        data = df.groupby([*axis.params, "seed"], dropna=False, sort=False)[key].mean()
        groups = [(("mean over the other parameters",), data.reset_index())]
        names = [f"mean over {n} combinations of the others"]
        others = []
    else:
        names = [", ".join(f"{labels[o]} = {fmt_value(v)}" for o, v in zip(others, combo))
                 for combo, _ in groups]
    width = 0.6 / max(len(groups), 1)
    for i, ((combo, sub), name) in enumerate(zip(groups, names)):
        xs, ms, los, his = [], [], [], []
        for v, x in pos.items():
            vals = sub.loc[_eq(sub[param], v), key].astype(float).to_numpy()
            if len(vals) == 0:
                continue
            mean, lo, hi = _interval(m, vals)
            # categories: series side by side around the tick, no line between categories
            xs.append(x + (i - (len(groups) - 1) / 2) * width if categorical else x)
            ms.append(mean), los.append(lo), his.append(hi)
        ax.errorbar(xs, ms, yerr=[los, his], marker="o", capsize=3, label=name or None,
                    linestyle="none" if categorical else "-", markersize=5)
    if others or len(names) > 1 or averaged:
        ax.legend(fontsize="small")
    if categorical or len(axis.params) > 1:
        partner = df.drop_duplicates(param).set_index(param) if len(axis.params) > 1 else None
        ticks = ["/".join(fmt_value(v if p == param else partner.at[v, p])
                          for p in axis.params) if partner is not None else fmt_value(v)
                 for v in pos]
        rotate = False
        if categorical and max(len(t) for t in ticks) > 12:
            # named tables (``RED (max_p=0.1)``): the parameters under the discipline,
            # or, where even those lines would run into each other (a tick label's
            # character is about 6.2 pt wide; the plot takes ~3/4 of its panel), the
            # names whole and slanted
            wrapped = [t.replace(" (", "\n(", 1) for t in ticks]
            widest = max(len(line) for t in wrapped for line in t.split("\n"))
            spec = ax.get_subplotspec()
            cols = spec.get_gridspec().ncols if spec is not None else 1
            slot = 0.75 * ax.figure.get_figwidth() * 72 / cols / len(ticks)
            rotate = widest * 6.2 + 6 > slot
            ticks = ticks if rotate else wrapped
        if rotate:
            ax.set_xticks(list(pos.values()), ticks, rotation=25, ha="right",
                          rotation_mode="anchor")
        else:
            ax.set_xticks(list(pos.values()), ticks)
    elif len(distinct) <= 8:
        ax.set_xticks(list(pos.values()), [fmt_value(v) for v in pos])
    if categorical:
        ax.set_xlim(-0.6, len(pos) - 0.4)
    ax.set_xlabel(axis.label)


def mean_ellipse(x: Sequence[float], y: Sequence[float], level: float = 0.95,
                 points: int = 120) -> Optional[np.ndarray]:
    """The ``level`` confidence ellipse of the mean of (x, y) over the samples (seeds): the
    covariance of the mean (sample covariance / n) scaled by Hotelling's T² quantile,
    r² = 2(n − 1)/(n − 2) · F(level; 2, n − 2) (``scipy.stats.f``), as a closed polygon of
    ``points`` rows (x, y). Hotelling's, not the chi-square (2 dof) radius, because the
    covariance is estimated from a handful of seeds: with 5 seeds the chi-square ellipse
    would be half as wide as the true 95 % region. None with fewer than 3 samples."""
    from scipy.stats import f as f_dist

    xy = np.column_stack([np.asarray(x, float), np.asarray(y, float)])
    xy = xy[~np.isnan(xy).any(axis=1)]
    n = len(xy)
    if n < 3:
        return None
    r = math.sqrt(2 * (n - 1) / (n - 2) * f_dist.ppf(level, 2, n - 2))
    return ellipse_polygon(xy.mean(axis=0), np.cov(xy, rowvar=False) / n, r, points)


#: The rule for drawing a 95 % confidence ellipse of the mean: only when its half-axes,
#: Hotelling's r(n)/√n sample standard deviations, are at most this many, i.e. when the
#: region of the mean lies inside the runs' own 2-σ spread ellipse (which holds ~86 % of a
#: normal cloud). With fewer runs the region where the mean may be is wider than the
#: cloud of runs itself (3 runs: 16 standard deviations each way), so it is not drawn: the
#: runs and their mean are, and the caption says why.
MEAN_ELLIPSE_SPREAD = 2.0
#: What each kind of ellipse is, in legends and captions (never one name for both).
MEAN_ELLIPSE_NAME = "95 % confidence ellipse of the mean"
SPREAD_ELLIPSE_NAME = "1-σ ellipse of the runs' spread"


def hotelling_radius(n: int, level: float = 0.95) -> float:
    """Hotelling's T² radius of the ``level`` region of a 2-D mean from ``n`` samples, in
    units of the covariance of the mean: r² = 2(n − 1)/(n − 2) · F(level; 2, n − 2)."""
    from scipy.stats import f as f_dist

    if n < 3:
        return math.inf
    return math.sqrt(2 * (n - 1) / (n - 2) * f_dist.ppf(level, 2, n - 2))


def min_runs_mean_ellipse(level: float = 0.95, spread: float = MEAN_ELLIPSE_SPREAD) -> int:
    """The fewest runs from which the ``level`` ellipse of the mean is drawn: the smallest
    n whose half-axes r(n)/√n (in sample standard deviations) are at most ``spread``
    (:data:`MEAN_ELLIPSE_SPREAD`). 6 for 95 % and 2 σ (r(6)/√6 = 1.70; r(5)/√5 = 2.26)."""
    n = 3
    while hotelling_radius(n, level) / math.sqrt(n) > spread:
        n += 1
    return n


def ellipse_polygon(centre: Sequence[float], cov: np.ndarray, r: float,
                    points: int = 120) -> np.ndarray:
    """The contour {p : (p − centre)ᵀ cov⁻¹ (p − centre) = r²} as a closed polygon of
    ``points`` rows (x, y); a singular ``cov`` (a flat cloud) gives a segment, not NaN."""
    vals, vecs = np.linalg.eigh(np.asarray(cov, float))
    vals = np.clip(vals, 0.0, None)
    t = np.linspace(0.0, 2 * math.pi, points)
    circle = np.column_stack([np.cos(t), np.sin(t)])
    return np.asarray(centre, float) + r * (circle * np.sqrt(vals)) @ vecs.T


def spread_ellipse(x: Sequence[float], y: Sequence[float], nsigma: float = 1.0,
                   points: int = 120) -> Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The ``nsigma`` elliptic contour of the maximum-likelihood bivariate normal fitted to
    the samples (x, y) — their mean and their covariance with divisor n — as the RFC 7928
    §2.7 delay–goodput graph is drawn after Winstein & Balakrishnan's Remy (SIGCOMM 2013)
    and by the ns-3 AQM Evaluation Suite: it shows how the runs spread, not how well their
    mean is known (that is :func:`mean_ellipse`).
    Returns (polygon, centre, covariance); None with fewer than 2 samples."""
    xy = np.column_stack([np.asarray(x, float), np.asarray(y, float)])
    xy = xy[~np.isnan(xy).any(axis=1)]
    if len(xy) < 2:
        return None
    centre, cov = xy.mean(axis=0), np.cov(xy, rowvar=False, bias=True)
    return ellipse_polygon(centre, cov, nsigma, points), centre, cov


def draw_pair(ax: Any, df: pd.DataFrame, kx: str, ky: str, params: Sequence[str],
              labels: Dict[str, str], log_x: Optional[bool] = None) -> str:
    """Metric ``ky`` against metric ``kx``: per sweep point the mean over seeds with its
    95 % confidence ellipse, every run a faint dot; points that differ only in the first
    numeric parameter (the "trace") are joined in its order and labelled with its value, so
    a sweep over load or a setting reads as one curve per discipline. Returns the x scale
    used ("log" or "linear")."""
    mx, my = metric_of(kx), metric_of(ky)
    varied = [p for p in params if df[p].nunique(dropna=False) > 1]
    numeric = [p for p in varied if all(_is_number(v) for v in df[p].dropna())]
    trace = numeric[0] if numeric else None
    series_keys = [p for p in varied if p != trace]
    groups = _series(df, series_keys)
    xs_all = df[kx].astype(float).to_numpy() * mx.scale
    if log_x is None:
        pos = xs_all[xs_all > 0]
        log_x = bool(len(pos) == len(xs_all) and len(pos) and pos.max() / pos.min() > 10)
    colours = [f"C{i % 10}" for i in range(len(groups))]
    least = min_runs_mean_ellipse()
    drawn = 0
    for (combo, sub), c in zip(groups, colours):
        name = ", ".join(f"{labels[p]} = {fmt_value(v)}" for p, v in zip(series_keys, combo))
        pts = sub.groupby([trace], dropna=False, sort=True) if trace else [((None,), sub)]
        means = []
        for tv, run in pts:
            tv = tv[0] if isinstance(tv, tuple) else tv
            x = run[kx].astype(float).to_numpy() * mx.scale
            y = run[ky].astype(float).to_numpy() * my.scale
            ax.scatter(x, y, s=9, color=c, alpha=0.35, linewidths=0)
            n = int((~(np.isnan(x) | np.isnan(y))).sum())
            # below the rule's number of runs the region would be wider than the runs
            poly = mean_ellipse(x, y) if n >= least else None
            if poly is not None:
                drawn += 1
                lo_x, hi_x = mx.display_range
                lo_y, hi_y = my.display_range
                # the ellipse cut to both metrics' ranges (a goodput ≥ 0, a ratio ≤ 100 %);
                # on a log axis, to positive delays
                floor_x = max(lo_x, np.nanmin(x) * 1e-3) if log_x else lo_x
                poly = np.column_stack([np.clip(poly[:, 0], floor_x, hi_x),
                                        np.clip(poly[:, 1], lo_y, hi_y)])
                ax.fill(poly[:, 0], poly[:, 1], color=c, alpha=0.15, linewidth=0)
                ax.plot(poly[:, 0], poly[:, 1], color=c, linewidth=0.8)
            means.append((np.nanmean(x), np.nanmean(y), tv))
        mxs, mys = [p[0] for p in means], [p[1] for p in means]
        ax.plot(mxs, mys, color=c, marker="o", markersize=5,
                linestyle="-" if trace else "none", linewidth=0.9, label=name or None)
        if trace:
            for x, y, tv in means:
                ax.annotate(fmt_value(tv), (x, y), textcoords="offset points", xytext=(4, 4),
                            fontsize=7, color=c)
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(f"{mx.axis_label}, {'log' if log_x else 'linear'} scale")
    ax.set_ylabel(my.axis_label)
    ax.grid(True, alpha=0.3, which="both" if log_x else "major")
    # the marks named for what they are: the mean, a run, and (where drawn) the ellipse
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles, names = ax.get_legend_handles_labels() if any(series_keys) else ([], [])
    handles += [Line2D([], [], color="grey", marker="o", markersize=5, linestyle="none"),
                Line2D([], [], color="grey", marker="o", markersize=3, alpha=0.35,
                       linestyle="none")]
    names += ["mean over seeds", "one run"]
    if drawn:
        handles.append(Patch(facecolor="grey", alpha=0.3, edgecolor="grey"))
        names.append(f"{MEAN_ELLIPSE_NAME} (n ≥ {least} runs)")
    ax.legend(handles, names, fontsize="small", title=None)
    return "log" if log_x else "linear"
