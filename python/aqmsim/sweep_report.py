"""``aqmsim report SWEEP.toml``: the figures of a sweep's store, as a paper would print
them, and an ``index.html`` with a table of the points and the failed runs.

- every metric against every varied parameter (mean and 95 % interval over seeds, the
  Student-t interval of :func:`aqmsim.papers.base.mean_ci`), a panel per parameter; the
  discipline and any other parameter that is not a number is a categorical axis;
- one metric against another (default: queueing delay against goodput, RFC 7928 §2.7):
  per point the mean with its 95 % confidence ellipse over seeds (only from the number of
  runs where that region is narrower than the runs' spread: ``min_runs_mean_ellipse``),
  the runs overlaid;
- one overview per discipline: every metric against every other parameter.

Labels, units and ranges come from :mod:`aqmsim.metrics`; figures are drawn by
:mod:`aqmsim.report.sweep_figures`, the page by the Jinja2 template
``report/templates/sweep.html.j2``. The sweep file's optional ``[report]`` table::

    [report]
    pairs = [["mean_queueing_delay_s", "goodput_bps"], ["qdelay_p99_s", "goodput_bps"]]
    log_x = "auto"        # the pairs' x axis: true, false or "auto" (log past a decade)

The discipline is the bottleneck queue's ``kind`` in each run's scenario, whether the sweep
varies it or not.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .errors import ScenarioError
from .metrics import SUMMARY
from .store import Store, StoreError, get_path, scenario_hash
from .run_output import save_figure
from .sweep import Sweep, short_labels
from .sweep.labels import discipline_name

__all__ = ["write_report", "ReportFiles", "DEFAULT_METRICS", "DEFAULT_PAIRS", "discipline_of",
           "report_options"]

#: Metrics drawn when the sweep file names none (those the runs have).
DEFAULT_METRICS = ("time_avg_queue_pkts", "utilisation", "loss_ratio",
                   "mean_queueing_delay_s", "goodput_bps", "jain_fairness")
#: Metric pairs (x, y) drawn when ``[report] pairs`` is not set (those the runs have).
DEFAULT_PAIRS = (("mean_queueing_delay_s", "goodput_bps"), ("qdelay_p99_s", "goodput_bps"))
_REPORT_KEYS = ("pairs", "log_x")


@dataclass
class ReportFiles:
    out_dir: Path
    index: Path
    #: The PNG of every figure (each has an SVG beside it).
    figures: List[Path] = field(default_factory=list)
    runs_in_store: int = 0
    runs_expected: int = 0
    #: The points table as CSV (each metric's mean and 95 % half-width, in SI units).
    csv: Optional[Path] = None


@dataclass(frozen=True)
class Options:
    pairs: Optional[Tuple[Tuple[str, str], ...]] = None
    log_x: Optional[bool] = None


def report_options(sweep: Sweep) -> Options:
    """The sweep file's ``[report]`` table, checked: ScenarioError naming the field."""
    where = f"{sweep.path or 'sweep'}: report"
    spec = sweep.spec.get("report", {})
    if not isinstance(spec, dict):
        raise ScenarioError(f"{where}: expected a table ([report]), got {spec!r}")
    unknown = [k for k in spec if k not in _REPORT_KEYS]
    if unknown:
        raise ScenarioError(f"{where}.{unknown[0]}: unknown field, expected one of "
                            + ", ".join(_REPORT_KEYS))
    pairs = spec.get("pairs")
    if pairs is not None:
        ok = isinstance(pairs, list) and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(k, str) for k in p)
            for p in pairs)
        if not ok:
            raise ScenarioError(f"{where}.pairs: expected a list of [x, y] summary keys, "
                                f"e.g. [[\"mean_queueing_delay_s\", \"goodput_bps\"]], "
                                f"got {pairs!r}")
        bad = [k for p in pairs for k in p if k not in SUMMARY]
        if bad:
            raise ScenarioError(f"{where}.pairs: {bad[0]!r} is not a summary key (see "
                                "docs/metrics.md)")
        pairs = tuple((p[0], p[1]) for p in pairs)
    log_x = spec.get("log_x", "auto")
    if log_x not in (True, False, "auto"):
        raise ScenarioError(f"{where}.log_x: expected true, false or \"auto\", got {log_x!r}")
    return Options(pairs, None if log_x == "auto" else bool(log_x))


def discipline_of(scenario: Dict[str, Any]) -> str:
    """The bottleneck's queue kind: ``dumbbell.bottleneck.queue.kind`` (DropTail when
    unset), else the queue of the first monitored link of an explicit topology."""
    if isinstance(scenario.get("dumbbell"), dict):
        return str(get_path(scenario, "dumbbell.bottleneck.queue.kind", "droptail"))
    queues = get_path(scenario, "monitor.queues", []) or []
    if queues and isinstance(queues[0], str) and "->" in queues[0]:
        a, b = queues[0].split("->", 1)
        for link in scenario.get("links", []) or []:
            if link.get("from") == a and link.get("to") == b:
                return str(get_path(link, "queue.kind", "droptail"))
            if link.get("from") == b and link.get("to") == a:
                q = link.get("reverse_queue", link.get("queue", {}))
                return str(get_path(q, "kind", "droptail"))
    return "unknown"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "x"


def sweep_axes(sweep: Sweep, labels: Dict[str, str]) -> List[Any]:
    """The x axes of the sweep's panels: a ``cross`` group's parameters one by one, a
    ``zip`` group's together."""
    from .report.sweep_figures import Axis

    out: List[Any] = []
    for g in sweep.groups:
        if g.mode == "zip" and len(g.params) > 1:
            keys = tuple(g.params)
            out.append(Axis(keys, " / ".join(labels[k] for k in keys)))
        else:
            out.extend(Axis((k,), labels[k]) for k in g.params)
    return out


def _point_hashes(sweep: Sweep) -> List[Tuple[Dict[str, Any], str]]:
    """Every point of the sweep with the hash of its scenario."""
    return [(point, scenario_hash(sweep.scenario(point))) for point in sweep.points()]


def _run_keys(points: List[Tuple[Dict[str, Any], str]],
              seeds: List[int]) -> List[Tuple[str, int]]:
    """(scenario hash, seed) of every run of the sweep: its keys in the store."""
    keys: Dict[Tuple[str, int], None] = {}
    for _, h in points:
        for seed in seeds:
            keys[(h, seed)] = None
    return list(keys)


def _name_table_values(sweep: Sweep, df: Any,
                       points: List[Tuple[Dict[str, Any], str]]) -> None:
    """A varied parameter whose values are tables (a whole queue table) is stored as their
    JSON: replace it in ``df`` by each value's readable name (``RED (max_p=0.1)``,
    ``CoDel``: :meth:`Sweep.value_label`), found through the run's scenario hash, for the
    ticks, legends, tables and CSV."""
    tables = [p for p in sweep.table_value_names() if p in df.columns]
    if not tables:
        return
    names = {h: {p: sweep.value_label(p, point[p]) for p in tables} for point, h in points}
    for p in tables:
        df[p] = [names[h][p] if h in names else v for h, v in zip(df["hash"], df[p])]


@dataclass
class _Figure:
    title: str
    png: Path
    svg: Path
    caption: str


def write_report(sweep: Sweep, store: Optional[Path] = None,
                 out_dir: Optional[Path] = None) -> ReportFiles:
    """Draw the figures of ``sweep`` from ``store`` (default: the sweep's) into ``out_dir``
    (default: ``STORE/report``); return what was written."""
    from .report import sweep_figures as SF

    options = report_options(sweep)
    store = Path(store) if store is not None else sweep.default_store()
    out = Path(out_dir) if out_dir is not None else store / "report"
    points = _point_hashes(sweep)
    keys = _run_keys(points, sweep.seeds)
    with Store(store, read_only=True) as st:
        df = st.runs(keys=keys, with_scenario=True)
    if df.empty:
        raise StoreError(f"{store}: none of the {len(keys)} runs of sweep {sweep.name!r} is in "
                         f"the store: run `aqmsim sweep` first")
    _name_table_values(sweep, df, points)
    params = [p for p in sweep.params if p in df.columns]
    short = short_labels(params)
    labels = {p: SF.param_label(p, short[p]) for p in params}
    if len(set(labels.values())) < len(labels):  # two parameters would read alike
        labels = short
    df["discipline"] = [discipline_of(s) if isinstance(s, dict) else "unknown"
                        for s in df["scenario"]]
    ok = df[df["status"] == "ok"].copy()
    wanted = sweep.metrics or [m for m in DEFAULT_METRICS if m in df.columns]
    metrics = [m for m in wanted if m in ok.columns and ok[m].notna().any()]
    have = set(metrics) | {m for m in SUMMARY if m in ok.columns and ok[m].notna().any()}
    pairs = [p for p in (options.pairs or DEFAULT_PAIRS) if p[0] in have and p[1] in have]
    out.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out, out / "index.html", runs_in_store=len(df), runs_expected=len(keys))
    axes = [a for a in sweep_axes(sweep, labels) if all(p in df.columns for p in a.params)]
    figures: List[_Figure] = []
    seeds_note = (f"mean over {len(sweep.seeds)} seeds with its 95 % interval "
                  "(Student t), cut to the metric's range")

    def add(fig: Any, stem: str, title: str, caption: str) -> None:
        png, svg = save_figure(fig, out / stem)
        figures.append(_Figure(title, png, svg, caption))

    if not ok.empty and metrics:
        cols = axes or [None]
        for m in metrics:
            meta = SF.metric_of(m)
            fig = SF.new_figure(4.6 * len(cols), 3.6)
            panels = fig.subplots(1, len(cols), squeeze=False)[0]
            for ax, a in zip(panels, cols):
                SF.draw_metric(ax, ok, m, a, params, labels)
            fig.suptitle(meta.label[:1].upper() + meta.label[1:])
            add(fig, _safe(m), meta.axis_label,
                f"{meta.axis_label} against each varied parameter: {seeds_note}. "
                f"{meta.definition}")
        ellipses = _ellipse_words(ok, params)
        for kx, ky in pairs:
            mx, my = SF.metric_of(kx), SF.metric_of(ky)
            fig = SF.new_figure(6.4, 4.8)
            ax = fig.subplots()
            scale = SF.draw_pair(ax, ok, kx, ky, params, labels, options.log_x)
            fig.suptitle(f"{my.label[:1].upper() + my.label[1:]} against {mx.label}")
            add(fig, f"pair-{_safe(kx)}-{_safe(ky)}", f"{my.label} against {mx.label}",
                f"{my.axis_label} against {mx.axis_label} ({scale} x axis): per point of "
                f"the sweep the mean over seeds (large dot), every run a faint dot; "
                f"{ellipses} Dots joined by a line differ only in the parameter whose value "
                f"labels them.")
        kind = {p for p in params if p.endswith(".kind")}
        cols = [a for a in axes if not kind & set(a.params)] or [None]
        for disc in sorted(ok["discipline"].unique()):
            sub = ok[ok["discipline"] == disc]
            fig = SF.new_figure(4.2 * len(cols), 2.8 * len(metrics))
            grid = fig.subplots(len(metrics), len(cols), squeeze=False)
            for i, m in enumerate(metrics):
                for j, a in enumerate(cols):
                    SF.draw_metric(grid[i][j], sub, m, a,
                                   [p for p in params if p not in kind], labels)
            name = discipline_name(disc)
            fig.suptitle(f"Discipline {name}: {len(sub)} runs")
            add(fig, f"discipline-{_safe(disc)}", f"discipline {name}",
                f"Every metric of the runs with discipline {name} ({disc}) against the "
                f"other parameters: {seeds_note}.")
    files.figures = [f.png for f in figures]
    files.csv = _write_points_csv(out / "points.csv", ok, params, labels, metrics)
    files.index.write_text(_page(sweep, store, df, ok, params, labels, metrics, figures,
                                 len(keys)), encoding="utf-8")
    return files


def _ellipse_words(ok: Any, params: List[str]) -> str:
    """What the pair figures' ellipses are, and why a point has none: the 95 % region of
    the mean is drawn from :func:`~aqmsim.report.sweep_figures.min_runs_mean_ellipse`
    runs of a point on (the rule: its half-axes at most 2 sample standard deviations)."""
    from .report.sweep_figures import (MEAN_ELLIPSE_NAME, hotelling_radius,
                                       min_runs_mean_ellipse)

    least = min_runs_mean_ellipse()
    sizes = ok.groupby(params, dropna=False, sort=False).size() if params else \
        [len(ok)]
    few = [int(n) for n in sizes if n < least]
    what = (f"the {MEAN_ELLIPSE_NAME} (Hotelling's T²: sample covariance / n, F with 2 and "
            f"n − 2 degrees of freedom) is drawn for points with at least {least} runs: "
            f"with fewer, that region would be wider than the runs' own 2-σ spread "
            f"(half-axes r(n)/√n > 2 sample standard deviations), so it would say less "
            f"than the runs do.")
    if not few:
        return what
    n = min(few)
    why = (f" With {n} run{'s' if n != 1 else ''}"
           + (f" its half-axes would be {hotelling_radius(n) / math.sqrt(n):.1f} standard "
              f"deviations" if n >= 3 else "") + ".")
    if len(few) == len(sizes):
        return f"no point has an ellipse: {what}{why}"
    return f"{what} {len(few)} of {len(sizes)} points have fewer and no ellipse.{why}"


def _point_stats(ok: Any, params: List[str], metrics: List[str]):
    """Per point of the sweep: its parameters (as the figures name them), the number of
    runs, and each metric's (mean, half-width of the 95 % interval) over the seeds."""
    from .papers.base import mean_ci
    from .report.sweep_figures import fmt_value

    groups = ok.groupby(params, dropna=False, sort=False) if params else [((), ok)]
    for combo, sub in groups:
        combo = combo if isinstance(combo, tuple) else (combo,)
        stats = [mean_ci(sub[m].astype(float).to_numpy()) for m in metrics]
        yield [fmt_value(v) for v in combo], len(sub), stats


def _points_rows(ok: Any, params: List[str], metrics: List[str]) -> List[List[str]]:
    """Per point of the sweep: its parameters, the seeds, each metric's mean ± half-width
    in display units (fixed point)."""
    from .report.sweep_figures import metric_of

    return [names + [str(n)] + [metric_of(m).text(mean, None if math.isnan(half) else half)
                                for m, (mean, half) in zip(metrics, stats)]
            for names, n, stats in _point_stats(ok, params, metrics)]


def _write_points_csv(path: Path, ok: Any, params: List[str], labels: Dict[str, str],
                      metrics: List[str]) -> Path:
    """``points.csv``: per point its parameters (as the figures name them), the number of
    runs, and each metric's mean over seeds and the half-width of its 95 % interval, in SI
    units (the summary's: s, b/s, ratios), 6 significant digits."""
    import csv

    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([labels[p] for p in params] + ["runs"]
                   + [c for m in metrics for c in (f"{m}_mean", f"{m}_ci95")])
        if ok.empty:
            return path
        for names, n, stats in _point_stats(ok, params, metrics):
            w.writerow(names + [str(n)] + ["" if math.isnan(x) else f"{x:.6g}"
                                           for pair in stats for x in pair])
    return path


def _page(sweep: Sweep, store: Path, df: Any, ok: Any, params: List[str],
          labels: Dict[str, str], metrics: List[str], figures: List[_Figure],
          expected: int) -> str:
    from .report.sweep_figures import fmt_value, metric_of
    from .report.templating import render

    failed = df[df["status"] == "failed"]
    return render(
        "sweep.html.j2",
        sweep=sweep, store=str(store), expected=expected, runs=len(df), ok=len(ok),
        failed=len(failed), points=len(sweep.points()), seeds=len(sweep.seeds),
        varied=[(labels[p], p) for p in params],
        head=[labels[p] for p in params] + ["seeds"] + [metric_of(m).axis_label
                                                         for m in metrics],
        rows=_points_rows(ok, params, metrics) if not ok.empty else [],
        failed_head=[labels[p] for p in params],
        failed_rows=[([fmt_value(r[p]) for p in params], r["seed"], r["attempts"],
                      str(r["error"])) for _, r in failed.iterrows()],
        metrics=[metric_of(m) for m in metrics],
        figures=[{"title": f.title, "png": f.png.name, "svg": f.svg.name,
                  "caption": f.caption} for f in figures],
        spec=json.dumps(sweep.spec, indent=2, default=str),
    )


def cli_report(file: Path, store: Optional[Path], out_dir: Optional[Path], out: Any) -> int:
    """``aqmsim report``: write the report; print where."""
    sweep = Sweep.from_toml(file)
    files = write_report(sweep, store, out_dir)
    out.print(f"{files.runs_in_store} of {files.runs_expected} runs of {sweep.name} in the "
              f"store; wrote {len(files.figures)} figures (PNG + SVG) and {files.index}")
    return 0
