"""``aqmsim report SWEEP.toml``: figures of a sweep's store — every metric against every
varied parameter, mean and 95 % interval over seeds — one overview figure per discipline,
and an ``index.html`` that shows them with a table of the points and the failed runs.

In a figure of metric m against parameter p, each line is one combination of the other
varied parameters (at most :data:`MAX_LINES`; beyond that the other parameters are
averaged per seed first, and the line says so). The interval is the Student-t 95 %
interval of the mean over seeds (``aqmsim.papers.base.mean_ci``, as in paper reports).
The discipline is the bottleneck queue's ``kind`` in each run's scenario, whether the sweep
varies it or not.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from .papers.base import mean_ci
from .store import Store, StoreError, get_path
from .sweep import Sweep, _prepare, short_labels

__all__ = ["write_report", "ReportFiles", "DEFAULT_METRICS", "discipline_of"]

#: Metrics drawn when the sweep file names none (those the runs have).
DEFAULT_METRICS = ("time_avg_queue_pkts", "utilisation", "loss_ratio",
                   "mean_queueing_delay_s", "goodput_bps", "jain_fairness")
MAX_LINES = 8


@dataclass
class ReportFiles:
    out_dir: Path
    index: Path
    figures: List[Path] = field(default_factory=list)
    runs_in_store: int = 0
    runs_expected: int = 0


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


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _x_positions(values: Sequence[Any]) -> Tuple[Dict[Any, float], Optional[List[str]]]:
    """x position of each distinct value; tick labels when the axis is categorical."""
    distinct = list(dict.fromkeys(v for v in values if not _missing(v)))
    if distinct and all(_is_number(v) for v in distinct):
        return {v: float(v) for v in distinct}, None
    return {v: float(i) for i, v in enumerate(distinct)}, [str(v) for v in distinct]


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


@dataclass(frozen=True)
class Axis:
    """What a figure's x axis shows: one parameter of a ``cross`` group, or the parameters
    of a ``zip`` group together (they move as one: x is the first, ticks show all)."""

    params: Tuple[str, ...]
    label: str


def sweep_axes(sweep: Sweep) -> List[Axis]:
    labels = short_labels(sweep.params)
    out: List[Axis] = []
    for g in sweep.groups:
        if g.mode == "zip" and len(g.params) > 1:
            keys = tuple(g.params)
            out.append(Axis(keys, " / ".join(labels[k] for k in keys)))
        else:
            out.extend(Axis((k,), labels[k]) for k in g.params)
    return out


def _draw(ax: Any, df: pd.DataFrame, metric: str, axis: Optional[Axis],
          others: Sequence[str], labels: Dict[str, str]) -> None:
    """Metric against one axis, a line per combination of ``others``."""
    if axis is None:
        mean, half = mean_ci(df[metric].astype(float).to_numpy())
        ax.errorbar([0.0], [mean], yerr=[0 if math.isnan(half) else half], fmt="o",
                    capsize=4)
        ax.set_xticks([0.0], ["all runs"])
        ax.set_ylabel(metric)
        return
    param = axis.params[0]
    pos, ticks = _x_positions(list(df[param]))
    if len(axis.params) > 1:  # a zip group: tick labels show every member
        partner = df.drop_duplicates(param).set_index(param)
        ticks = ["/".join(_fmt(v if p == param else partner.at[v, p]) for p in axis.params)
                 for v in pos]
    others = [o for o in others if o not in axis.params and df[o].nunique(dropna=False) > 1]
    grouped = list(df.groupby(others, dropna=False, sort=False)) if others else [((), df)]
    if len(grouped) <= MAX_LINES:
        for combo, sub in grouped:
            combo = combo if isinstance(combo, tuple) else (combo,)
            xs, ms, hs = [], [], []
            for v, x in pos.items():
                vals = sub.loc[_eq(sub[param], v), metric].astype(float).to_numpy()
                if len(vals) == 0:
                    continue
                m, h = mean_ci(vals)
                xs.append(x), ms.append(m), hs.append(0.0 if math.isnan(h) else h)
            label = ", ".join(f"{labels[o]}={_fmt(v)}" for o, v in zip(others, combo)) or None
            order = np.argsort(xs)
            ax.errorbar(np.asarray(xs)[order], np.asarray(ms)[order],
                        yerr=np.asarray(hs)[order], marker="o", capsize=3, label=label)
        if others:
            ax.legend(fontsize="small")
    else:
        per_seed = df.groupby([param, "seed"], dropna=False, sort=False)[metric].mean()
        xs, ms, hs = [], [], []
        for v, x in pos.items():
            try:
                vals = per_seed.xs(v, level=0).to_numpy(dtype=float)
            except KeyError:
                continue
            m, h = mean_ci(vals)
            xs.append(x), ms.append(m), hs.append(0.0 if math.isnan(h) else h)
        order = np.argsort(xs)
        ax.errorbar(np.asarray(xs)[order], np.asarray(ms)[order], yerr=np.asarray(hs)[order],
                    marker="o", capsize=3,
                    label=f"mean over the other parameters ({len(grouped)} combinations)")
        ax.legend(fontsize="small")
    if ticks is not None:
        ax.set_xticks(list(pos.values()), ticks)
    ax.set_xlabel(axis.label)
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)


def _eq(col: pd.Series, v: Any) -> Any:
    if _missing(v):
        return col.isna().to_numpy()
    return (col == v).to_numpy()


def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return str(v)


def _figure(w: float, h: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), layout="constrained")


def write_report(sweep: Sweep, store: Optional[Path] = None,
                 out_dir: Optional[Path] = None) -> ReportFiles:
    """Draw the figures of ``sweep`` from ``store`` (default: the sweep's) into ``out_dir``
    (default: ``STORE/report``); return what was written."""
    store = Path(store) if store is not None else sweep.default_store()
    out = Path(out_dir) if out_dir is not None else store / "report"
    units, order = _prepare(sweep.tasks())
    keys = [(u.hash, u.seed) for u in units]
    with Store(store, read_only=True) as st:
        df = st.runs(keys=keys, with_scenario=True)
    if df.empty:
        raise StoreError(f"{store}: none of the {len(keys)} runs of sweep {sweep.name!r} is in "
                         f"the store: run `aqmsim sweep` first")
    params = [p for p in sweep.params if p in df.columns]
    labels = short_labels(params)
    df["discipline"] = [discipline_of(s) if isinstance(s, dict) else "unknown"
                        for s in df["scenario"]]
    ok = df[df["status"] == "ok"].copy()
    wanted = sweep.metrics or [m for m in DEFAULT_METRICS if m in df.columns]
    metrics = [m for m in wanted if m in ok.columns and ok[m].notna().any()]
    out.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out, out / "index.html", runs_in_store=len(df),
                        runs_expected=len(keys))

    axes = [a for a in sweep_axes(sweep) if all(p in df.columns for p in a.params)]
    figures: List[Tuple[str, Path]] = []
    if not ok.empty and metrics:
        # each metric against each varied parameter: one figure per metric, a panel each
        cols = axes or [None]
        for m in metrics:
            fig = _figure(4.6 * len(cols), 3.6)
            panels = fig.subplots(1, len(cols), squeeze=False)[0]
            for ax, a in zip(panels, cols):
                _draw(ax, ok, m, a, params, labels)
            fig.suptitle(f"{m} (mean, 95 % CI over seeds)")
            path = out / f"{_safe(m)}.png"
            fig.savefig(path, dpi=90)
            figures.append((m, path))
        # one overview per discipline: every metric against every other parameter
        kind = {p for p in params if p.endswith(".kind")}
        cols = [a for a in axes if not kind & set(a.params)] or [None]
        for disc in sorted(ok["discipline"].unique()):
            sub = ok[ok["discipline"] == disc]
            fig = _figure(4.2 * len(cols), 2.8 * len(metrics))
            grid = fig.subplots(len(metrics), len(cols), squeeze=False)
            for i, m in enumerate(metrics):
                for j, a in enumerate(cols):
                    _draw(grid[i][j], sub, m, a, [p for p in params if p not in kind], labels)
            fig.suptitle(f"discipline {disc}: {len(sub)} runs (mean, 95 % CI over seeds)")
            path = out / f"discipline-{_safe(disc)}.png"
            fig.savefig(path, dpi=80)
            figures.append((f"discipline {disc}", path))
    files.figures = [p for _, p in figures]
    files.index.write_text(_html(sweep, store, df, ok, params, labels, metrics, figures,
                                 len(keys)), encoding="utf-8")
    return files


def _points_table(ok: pd.DataFrame, params: List[str], labels: Dict[str, str],
                  metrics: List[str]) -> str:
    if ok.empty:
        return "<p>No finished run.</p>"
    head = "".join(f"<th>{html.escape(labels[p])}</th>" for p in params)
    head += "<th>seeds</th>" + "".join(f"<th>{html.escape(m)}</th>" for m in metrics)
    rows = []
    groups = ok.groupby(params, dropna=False, sort=False) if params else [((), ok)]
    for combo, sub in groups:
        combo = combo if isinstance(combo, tuple) else (combo,)
        cells = "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in combo)
        cells += f"<td>{len(sub)}</td>"
        for m in metrics:
            mean, half = mean_ci(sub[m].astype(float).to_numpy())
            txt = "—" if math.isnan(mean) else (
                f"{mean:.4g}" + ("" if math.isnan(half) else f" ± {half:.2g}"))
            cells += f"<td>{txt}</td>"
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _html(sweep: Sweep, store: Path, df: pd.DataFrame, ok: pd.DataFrame, params: List[str],
          labels: Dict[str, str], metrics: List[str], figures: List[Tuple[str, Path]],
          expected: int) -> str:
    esc = html.escape
    failed = df[df["status"] == "failed"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>sweep {esc(sweep.name)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;white-space:nowrap;"
        "padding:2px 6px;text-align:right}th{background:#eee}img{max-width:100%;"
        "border:1px solid #ddd;margin:4px 0}.err{text-align:left;color:#a00}</style>",
        "</head><body>",
        f"<h1>Sweep {esc(sweep.name)}</h1>",
    ]
    if sweep.description:
        parts.append(f"<p>{esc(sweep.description)}</p>")
    parts.append(
        f"<p>{expected} runs in the sweep ({len(sweep.points())} points × {len(sweep.seeds)} "
        f"seeds); {len(df)} in the store <code>{esc(str(store))}</code>: "
        f"<b>{len(ok)} ok</b>, <b>{len(failed)} failed</b>"
        + (f", {expected - len(df)} not run yet" if expected > len(df) else "") + ".</p>")
    if params:
        parts.append("<p>Varied: " + ", ".join(
            f"<code>{esc(p)}</code>" for p in params) + ".</p>")
    parts.append("<p>Points below: mean ± half-width of the 95 % interval over seeds.</p>")
    parts.append(_points_table(ok, params, labels, metrics))
    if not failed.empty:
        parts.append("<h2>Failed runs</h2><table><tr>"
                     + "".join(f"<th>{esc(labels[p])}</th>" for p in params)
                     + "<th>seed</th><th>attempts</th><th>error</th></tr>")
        for _, r in failed.iterrows():
            parts.append("<tr>" + "".join(f"<td>{esc(_fmt(r[p]))}</td>" for p in params)
                         + f"<td>{r['seed']}</td><td>{r['attempts']}</td>"
                         f"<td class='err'>{esc(str(r['error']))}</td></tr>")
        parts.append("</table>")
    if figures:
        parts.append("<h2>Figures</h2>")
        for title, path in figures:
            parts.append(f"<h3>{esc(title)}</h3><img src='{esc(path.name)}' alt='{esc(title)}'>")
    parts.append("<h2>Sweep file</h2><pre>" + esc(json.dumps(sweep.spec, indent=2, default=str))
                 + "</pre></body></html>")
    return "\n".join(parts)


def cli_report(file: Path, store: Optional[Path], out_dir: Optional[Path], out: Any) -> int:
    """``aqmsim report``: write the report; print where."""
    sweep = Sweep.from_toml(file)
    files = write_report(sweep, store, out_dir)
    out.print(f"{files.runs_in_store} of {files.runs_expected} runs of {sweep.name} in the "
              f"store; wrote {len(files.figures)} figures and {files.index}")
    return 0
