"""``write_report``: the RFC 7928 suite's report from its runs.

Layout of ``out``::

    index.html          the suite, the command, wall time, provenance, per scenario which
                        discipline had the lowest delay / highest goodput / best fairness
    <scenario>.html     one page per scenario (10 scenarios × 7 disciplines would make one
                        page of ~60 figures): what the RFC asks, our reading, the table,
                        the figures, ns-3 beside aqmsim, the failed runs
    summary.md          the overview and every table in Markdown
    figures/*.png|svg   <scenario>-<figure>: PNG at 150 dpi and SVG (text kept as text)
    data/*.csv          <scenario>-<frame>: the numbers behind every figure and table

The pages use the reproduction report's layout, style sheet and Jinja2 environment
(templates ``suite_index.html.j2`` and ``suite_scenario.html.j2`` beside theirs in
``aqmsim/report/templates``): one look, one loader, no second copy of the CSS.

Figures are drawn by forked copies of this process when there is a second core (as
``aqmsim run --out`` draws its own: :func:`aqmsim.run_output._can_fork`), each taking the
next figure of a shared list; anything failing there is drawn again here.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pandas as pd

from ...run_output import save_figure
from . import figures as F
from .data import ScenarioData, Style, overview, scenario_data
from ...report.sweep_figures import SPREAD_ELLIPSE_NAME
from .figures import SPREAD_MIN_RUNS
from .words import X_KEY, flow_metric, metric

__all__ = ["write_report", "page_name"]

SeriesFn = Callable[[str, int, str], pd.DataFrame]


def page_name(name: str) -> str:
    """The file (and figure/data prefix) of scenario ``name``: URL-safe."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._") or "scenario"


# --------------------------------------------------------------------------- captions
def _caption(kind: str, d: ScenarioData) -> Tuple[str, str]:
    """(title, caption) of figure ``kind`` of scenario ``d``."""
    panels = "a panel per variant; " if d.multi else ""
    if kind == "delay_goodput":
        ns3 = (" ns-3's runs of the same scenario are ✕ marks in the discipline's colour, "
               "their mean a large ✕ (legend “ns-3 <discipline>”)." if not d.ns3.empty else "")
        y = metric(d.y_key)
        tcp = (" The goodput is that of the TCP flows only (long-lived and web transfers): "
               "a UDP sender's bits would lift every discipline alike." if d.y_key ==
               "tcp_goodput_bps" else " The goodput is every flow's, UDP included: no run "
               "kept its per-flow table, so the TCP flows' share is not known.")
        if d.ns3.empty and not d.ns3_table.empty:
            tcp += (" ns-3's runs are not drawn: its goodput counts the UDP flows too (they "
                    "are compared in the table below).")
        return ("Delay–goodput graph (RFC 7928 §2.7)",
                f"{y.axis_label} against {metric(X_KEY).axis_label}, "
                f"{panels}every run a small mark.{tcp} Each discipline's ellipse (legend: "
                f"“{SPREAD_ELLIPSE_NAME}”) is the 1-σ "
                "contour of the maximum-likelihood bivariate normal fitted to its runs (mean "
                "and covariance with divisor n), as RFC 7928 §2.7's graph is drawn after "
                "Winstein & Balakrishnan's Remy (SIGCOMM 2013) and by the ns-3 AQM Evaluation "
                "Suite: it shows how the runs spread, it is not a confidence region (unlike "
                "a sweep report's 95 % ellipse of the mean); its centre, "
                "the large mark, is their mean. How well that mean is known is in the "
                f"table (95 % t intervals). It is drawn from {SPREAD_MIN_RUNS} runs on (two "
                f"runs are a segment, not a spread in two dimensions){_few_runs(d)}.{ns3} "
                "The x axis turns logarithmic when the delays span more than a decade.")
    if kind == "focus_lines":
        return ("Against the variants",
                f"{', '.join(metric(k).label for k in d.focus)} against "
                f"{d.scenario.variant_axis or 'the variant'}: per discipline the mean over "
                "seeds with its 95 % interval (Student t), cut to the metric's range; a delay "
                "percentile's interval adds the DDSketch's resolution (α/(1 − α) × the mean, "
                "α = 1 %), so it is never narrower than the sketch can tell.")
    if kind == "queue_time":
        step = d.queue.groupby(["variant", "aqm"])["t"].diff().median()
        every = f" (every {step * 1e3:g} ms)" if step == step else ""
        return ("Queue over time",
                f"The bottleneck's queue length in packets at each sample{every}, a row per "
                "discipline"
                f"{', a column per variant' if d.multi else ''} (one y scale for all): the "
                "mean over the seeds at each sample time, the shaded band from the smallest "
                "to the largest seed.")
    if kind == "delay_cdfs":
        return ("Queueing-delay CDFs",
                f"The bottleneck's queueing-delay distribution per discipline, {panels}"
                "each curve the run's quantiles (every percent, within 1 %: DDSketch) "
                "averaged over the seeds at each quantile level. Log delay axis; packets "
                "that did not wait sit at the left edge.")
    if kind == "drops":
        return ("Drops and marks",
                f"Left: {metric('loss_ratio').label} per discipline"
                f"{' and variant' if d.multi else ''}, mean over seeds with its 95 % "
                "interval. Right: drops by reason and ECN marks per run, mean over every "
                f"run of the scenario{' (all variants)' if d.multi else ''}.")
    if kind == "fairness":
        two = "goodput_ratio_mean" in d.table
        return ("Fairness",
                f"{'Left: ' if two and not d.multi else ''}"
                f"{metric('jain_fairness').label} of the long-lived TCP flows' "
                "throughputs per discipline, mean over seeds with its 95 % interval"
                + ("; right: the second long-lived flow's goodput over the first's (dashed: "
                   "equal shares)." if two and not d.multi else
                   ". The second flow's goodput over the first's is drawn against the "
                   "variants above." if two else "."))
    if kind == "fct":
        return ("Flow completion times",
                f"The CDF of the web transfers' {flow_metric('fct_s').label} per "
                f"discipline, {panels}every transfer of every seed. The fraction is of the "
                "transfers that started, so a curve ends at the share that finished within "
                "the run: below 1 when some did not (they are in the CSV, without a "
                "completion time).")
    return ("Completion time against size",
            f"The median {flow_metric('fct_s').label} of the finished web transfers against "
            f"their size per discipline, {panels}in eight logarithmic size bins (the same "
            "in every panel), every seed pooled.")


def _few_runs(d: ScenarioData) -> str:
    """Which (variant, discipline) of the graph have too few runs for an ellipse."""
    e = d.ellipses
    few = e[e["runs"] < F.SPREAD_MIN_RUNS] if "runs" in e else e.iloc[:0]
    if few.empty:
        return ""
    n = int(few["runs"].min())
    return (f"; {len(few)} of {len(e)} discipline{'s' if len(e) != 1 else ''}"
            f"{' and variants' if d.multi else ''} have fewer (as few as {n}) and show only "
            "their runs and mean")


# --------------------------------------------------------------------------- drawing
_JOBS: List[Tuple[ScenarioData, Style, str, Path]] = []


def _draw_one(i: int) -> Tuple[int, List[str]]:
    data, style, kind, stem = _JOBS[i]
    fig = getattr(F, kind)(data, style)
    return i, [str(p) for p in save_figure(fig, stem)]


def _draw_all(jobs: List[Tuple[ScenarioData, Style, str, Path]],
              workers: int) -> Dict[int, List[str]]:
    """Draw every job; in ``workers`` forked processes when that is possible and safe.
    A figure that failed there (or was lost with a killed process) is drawn again here,
    where its error is raised; the others are kept."""
    from ...run_output import _can_fork, preload

    global _JOBS
    _JOBS = jobs
    drawn: Dict[int, List[str]] = {}
    try:
        if workers > 1 and len(jobs) > 1 and _can_fork():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            preload()  # matplotlib loaded once, before the fork: the children inherit it
            try:  # (an executor, not a Pool: a killed child raises here instead of hanging)
                with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(
                        "fork")) as pool:
                    futures = [pool.submit(_draw_one, i) for i in range(len(jobs))]
                    for f in futures:
                        try:
                            i, paths = f.result()
                        except Exception:  # noqa: BLE001 - drawn again below
                            continue
                        drawn[i] = paths
            except Exception:  # noqa: BLE001 - the pool itself: the rest drawn below
                pass
        for i in range(len(jobs)):
            if i not in drawn:
                drawn[i] = _draw_one(i)[1]
        return drawn
    finally:
        _JOBS = []


# --------------------------------------------------------------------------- tables
def _cell(m: Any, mean: float, half: float) -> str:
    return m.text(mean, None if pd.isna(half) else half)


def table_view(d: ScenarioData, style: Style) -> Dict[str, Any]:
    """The scenario's table as text: head and rows (variant, discipline, runs, metrics)."""
    keys = list(d.table_keys)
    metrics = [metric(k) for k in keys]
    head = (["variant"] if d.multi else []) + ["discipline", "runs"] + \
        [m.axis_label for m in metrics]
    rows = []
    for r in d.table.to_dict("records"):
        rows.append(([r["variant"]] if d.multi else []) + [style.label(r["aqm"]),
                                                           str(r["runs"])]
                    + [_cell(m, r[f"{k}_mean"], r[f"{k}_half"]) for k, m in zip(keys, metrics)])
    return {"head": head, "rows": rows, "metrics": metrics, "text_cols": 2 if d.multi else 1}


def ns3_view(d: ScenarioData, style: Style) -> Optional[Dict[str, Any]]:
    if d.ns3_table.empty:
        return None
    rows = []
    for r in d.ns3_table.to_dict("records"):
        m = metric(r["metric"])
        rows.append(([r["variant"]] if d.multi else []) + [
            style.label(r["aqm"]), m.axis_label, f"{_cell(m, r['aqmsim_mean'], r['aqmsim_half'])}"
            f" ({r['aqmsim_runs']})", f"{_cell(m, r['ns3_mean'], r['ns3_half'])} "
            f"({r['ns3_runs']})"])
    head = (["variant"] if d.multi else []) + ["discipline", "metric", "aqmsim (runs)",
                                               "ns-3 (runs)"]
    return {"head": head, "rows": rows}


def _failed(d: ScenarioData, style: Style) -> List[Tuple[str, str, int, str]]:
    return [(str(r["variant"]), style.label(str(r["aqm"])), int(r["seed"]),
             str(r.get("error", "") or r.get("status", ""))) for r in
            d.failed.to_dict("records")]


def _csvs(d: ScenarioData, data_dir: Path) -> List[Path]:
    """Every frame behind the scenario's figures and tables, as CSV (SI units)."""
    stem = page_name(d.scenario.name)
    written = []
    for name in ("points", "ellipses", "ns3", "cdf", "queue", "drops", "derived",
                 "fairness", "fct", "focus_means", "table", "ns3_table"):
        frame = getattr(d, name)
        if frame is None or frame.empty:
            continue
        path = data_dir / f"{stem}-{name.replace('_', '-')}.csv"
        frame.to_csv(path, index=False)
        written.append(path)
    return written


# --------------------------------------------------------------------------- report
def _runs_fact(counts: Any, wall_s: Optional[float]) -> Tuple[str, str]:
    """What this call did: ``wall_s`` is its own time, not that of runs an earlier call
    stored; with the sweep's ``counts`` (total, skipped = already stored, stale = stored
    by another engine and run again) the line says how many runs each."""
    from ...report._format import duration

    if counts is None:
        return ("wall time", duration(wall_s))
    total, stored = int(counts.total), int(counts.skipped)
    stale = int(getattr(counts, "stale", 0) or 0)
    ran = total - stored
    again = f"; {stale} of the {ran} were stored by another engine build" if stale else ""
    return ("runs", f"{total} ({ran} run by this call in {duration(wall_s)}, {stored} already "
                    f"in the store{again})")


def _provenance(wall_s: Optional[float], command: str,
                counts: Any = None) -> List[Tuple[str, str]]:
    from ...sweep.outcome import _version, engine_build

    b = engine_build()
    engine = (f"{b.get('version', '?')} (source {str(b.get('source_hash', '?'))[:12]}, git "
              f"{str(b.get('git_commit', '?'))[:12]}, {b.get('profile', '?')} build)"
              if b else "not loaded")
    return [("command", command or "—"), _runs_fact(counts, wall_s),
            ("aqmsim", _version()), ("engine", engine),
            ("generated", datetime.now().strftime("%Y-%m-%d %H:%M"))]


def write_report(suite: Any, runs: pd.DataFrame, out: Path, *, series: SeriesFn,
                 ns3: Optional[pd.DataFrame] = None, wall_s: Optional[float] = None,
                 command: str = "", workers: Optional[int] = None,
                 counts: Any = None) -> Path:
    """Write the suite's report into ``out`` (see the module's docstring); return
    ``out/index.html``. ``series(hash, seed, name)`` gives a run's kept series
    (``delay_cdf``, ``flows``); ``ns3`` holds ns-3's runs (scenario, variant, aqm, seed and
    summary keys); ``workers``: processes drawing figures (default: the cores, up to 4);
    ``counts``: the sweep's counts (:class:`aqmsim.sweep.Counts`), so the index says how
    many runs this call ran (in ``wall_s``) and how many were already stored."""
    from ...report.templating import render
    from .summary import summary_markdown

    out = Path(out)
    fig_dir, data_dir = out / "figures", out / "data"
    for d in (out, fig_dir, data_dir):
        d.mkdir(parents=True, exist_ok=True)
    runs = runs if runs is not None else pd.DataFrame()
    if runs.empty:
        runs = pd.DataFrame(columns=["scenario", "variant", "variant_value", "aqm", "seed",
                                     "hash", "status", "error"])
    style = Style.of(suite, runs, ns3)
    datas = [scenario_data(s, runs[runs["scenario"].astype(str) == s.name], series, ns3,
                           style) for s in suite.scenarios]
    jobs = [(d, style, kind, fig_dir / f"{page_name(d.scenario.name)}-{kind.replace('_', '-')}")
            for d in datas for kind in F.kinds(d)]
    # the costliest first (a panel per variant), so that the processes finish together
    jobs.sort(key=lambda j: -len(j[0].variants) * (2 if j[2] == "delay_goodput" else 1))
    drawn = _draw_all(jobs, workers or min(os.cpu_count() or 1, 4))
    figs: Dict[str, List[Dict[str, str]]] = {}
    for i, (d, _, kind, stem) in enumerate(jobs):
        title, caption = _caption(kind, d)
        caption = caption[:1].upper() + caption[1:]
        figs.setdefault(d.scenario.name, []).append(
            {"kind": kind, "title": title, "caption": caption,
             "png": f"figures/{stem.name}.png", "svg": f"figures/{stem.name}.svg",
             "alt": f"{title} of {d.scenario.title}: {caption}"})
        assert len(drawn[i]) == 2
    order = {k: i for i, k in enumerate(F.KINDS)}
    cards = []
    for d in datas:
        name = d.scenario.name
        csvs = [f"data/{p.name}" for p in _csvs(d, data_dir)]
        view = {"name": name, "href": f"{page_name(name)}.html", "section": d.scenario.section,
                "title": d.scenario.title, "asks": d.scenario.asks,
                "reading": d.scenario.reading, "variants": [v for v, _ in d.variants],
                "variant_axis": d.scenario.variant_axis,
                "aqms": [style.label(a) for a in style.order if a in set(d.runs["aqm"])],
                "runs": len(d.runs),
                "ok": len(d.ok), "failed": _failed(d, style),
                "seeds": sorted({int(s) for s in d.runs["seed"]}) if len(d.runs) else [],
                "overview": overview(d, style), "table": table_view(d, style),
                "ns3": ns3_view(d, style), "csvs": csvs,
                "missing": d.missing[:20], "missing_count": len(d.missing),
                "figures": sorted(figs.get(name, []), key=lambda f: order[f["kind"]])}
        cards.append(view)
        (out / view["href"]).write_text(render("suite_scenario.html.j2", s=view,
                                               title=f"RFC 7928 §{view['section']} "
                                                     f"{view['title']}"), encoding="utf-8")
    facts = _provenance(wall_s, command, counts)
    total = {"runs": len(runs), "ok": int((runs["status"] == "ok").sum()),
             "failed": int((runs["status"] != "ok").sum()),
             "scenarios": len(datas), "disciplines": [style.label(a) for a in style.order
                                                      if a in set(runs["aqm"].astype(str))]}
    index = out / "index.html"
    index.write_text(render("suite_index.html.j2", suite_title=suite.title,
                            suite_name=suite.name, facts=facts, total=total,
                            cards=cards, title=f"aqmsim suite {suite.name}"),
                     encoding="utf-8")
    (out / "summary.md").write_text(summary_markdown(suite, cards, facts, total),
                                    encoding="utf-8")
    return index
