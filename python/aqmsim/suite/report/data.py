"""What the suite report shows of one scenario, computed from the runs and nothing else:
the delay–goodput points and their ellipses, the mean queueing-delay CDFs, drop and mark
counts, fairness, flow completion times, the table and the overview. Every frame here is
written as a CSV beside the figures (``out/data/``), so a figure can be checked against
the runs it was drawn from.

Values stay in the engine's SI units (seconds, bits per second, ratios); the figures and
tables turn them into display units through the metric registry."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ...papers.base import mean_ci
from ...report.sweep_figures import metric_of, spread_ellipse
from .words import DROP_KEYS, TABLE_KEYS, X_KEY, Y_KEY

__all__ = ["Style", "ScenarioData", "scenario_data", "overview", "QUEUE_CDF"]

#: The bottleneck's queueing-delay distribution in a run's ``delay_cdf`` series.
QUEUE_CDF = "queue R1->R2"
SeriesFn = Callable[[str, int, str], pd.DataFrame]
_MARKERS = ("o", "s", "^", "D", "v", "P", "*", "h", "<", ">")


@dataclass(frozen=True)
class Style:
    """One colour, marker and label per discipline, the same on every figure of the
    report: the suite's order of disciplines, then any other the runs name."""

    order: Tuple[str, ...]
    labels: Dict[str, str]

    @classmethod
    def of(cls, suite: Any, runs: pd.DataFrame, ns3: Optional[pd.DataFrame]) -> "Style":
        names = list(getattr(suite, "disciplines", {}) or {})
        for frame in (runs, ns3):
            if frame is not None and "aqm" in frame:
                names += [a for a in frame["aqm"].astype(str).unique() if a not in names]
        labels = {n: getattr(suite.disciplines.get(n), "label", n) if n in suite.disciplines
                  else n for n in names}
        return cls(tuple(names), labels)

    def colour(self, aqm: str) -> str:
        return f"C{self.order.index(aqm) % 10}"

    def marker(self, aqm: str) -> str:
        return _MARKERS[self.order.index(aqm) % len(_MARKERS)]

    def label(self, aqm: str) -> str:
        return self.labels.get(aqm, aqm)


@dataclass
class ScenarioData:
    scenario: Any
    runs: pd.DataFrame
    ok: pd.DataFrame
    failed: pd.DataFrame
    #: (label, value) of each variant that has runs, in the scenario's order.
    variants: List[Tuple[str, Any]]
    aqms: List[str]
    focus: List[str]
    table_keys: List[str]
    points: pd.DataFrame = field(default_factory=pd.DataFrame)
    ellipses: pd.DataFrame = field(default_factory=pd.DataFrame)
    ns3: pd.DataFrame = field(default_factory=pd.DataFrame)
    cdf: pd.DataFrame = field(default_factory=pd.DataFrame)
    drops: pd.DataFrame = field(default_factory=pd.DataFrame)
    fairness: pd.DataFrame = field(default_factory=pd.DataFrame)
    fct: pd.DataFrame = field(default_factory=pd.DataFrame)
    focus_means: pd.DataFrame = field(default_factory=pd.DataFrame)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    ns3_table: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Series a run should have kept and did not: ``(variant, aqm, seed, series)``.
    missing: List[Tuple[str, str, int, str]] = field(default_factory=list)

    @property
    def multi(self) -> bool:
        return len(self.variants) > 1


def _variants(scen: Any, runs: pd.DataFrame) -> List[Tuple[str, Any]]:
    out: Dict[str, Any] = {}
    for v in getattr(scen, "variants", ()) or ():
        out[str(v.label)] = v.value
    if not runs.empty:
        for label, value in zip(runs["variant"].astype(str), runs.get("variant_value",
                                                                       [None] * len(runs))):
            out.setdefault(label, value)
        present = set(runs["variant"].astype(str))
        out = {k: v for k, v in out.items() if k in present}
    return list(out.items())


def _mean_half(values: Sequence[float]) -> Tuple[float, float, int]:
    x = np.asarray(values, float)
    mean, half = mean_ci(x)
    return mean, half, int((~np.isnan(x)).sum())


def _long_lived(flows: pd.DataFrame) -> pd.DataFrame:
    """The long-lived TCP flows: bulk (``ftp``) flows, not web transfers."""
    keep = flows["app"].astype(str) == "ftp" if "app" in flows else pd.Series(True, flows.index)
    if "size_bytes" in flows:
        keep &= flows["size_bytes"].fillna(0) <= 0
    return flows[keep].sort_values("flow")


def _series(data: ScenarioData, series: SeriesFn) -> None:
    """CDFs, fairness and FCTs from each finished run's kept series."""
    cdfs, fair, fcts = [], [], []
    for r in data.ok.itertuples(index=False):
        key = (str(r.variant), str(r.aqm), int(r.seed))
        try:
            cdf = series(str(r.hash), int(r.seed), "delay_cdf")
        except (KeyError, FileNotFoundError, OSError):
            data.missing.append((*key, "delay_cdf"))
        else:
            what = cdf["what"].astype(str)
            rows = cdf[what == QUEUE_CDF]
            if rows.empty:  # (an explicit topology: its first monitored queue)
                first = [w for w in what.unique() if w.startswith("queue ")][:1]
                rows = cdf[what.isin(first)]
            cdfs += [(*key, float(q), float(d)) for q, d in zip(rows["q"], rows["delay_s"])]
        try:
            flows = series(str(r.hash), int(r.seed), "flows")
        except (KeyError, FileNotFoundError, OSError):
            data.missing.append((*key, "flows"))
            continue
        bulk = _long_lived(flows)
        g = bulk["goodput_bps"].astype(float).to_numpy()
        ratio = float(g[1] / g[0]) if len(g) == 2 and g[0] > 0 else math.nan
        fair.append((*key, float(getattr(r, "jain_fairness", math.nan)), len(g), ratio))
        if "size_bytes" in flows and "fct_s" in flows:
            web = flows[flows["size_bytes"].fillna(0) > 0]
            fcts += [(*key, int(f), int(s), float(t)) for f, s, t in
                     zip(web["flow"], web["size_bytes"], web["fct_s"])]
    cols = ["variant", "aqm", "seed"]
    raw = pd.DataFrame(cdfs, columns=cols + ["q", "delay_s"])
    data.cdf = (raw.groupby(["variant", "aqm", "q"], sort=False)["delay_s"]
                .agg(delay_s="mean", seeds="count").reset_index())
    data.fairness = pd.DataFrame(fair, columns=cols + ["jain_fairness", "long_lived_flows",
                                                       "goodput_ratio"])
    if data.fairness["goodput_ratio"].isna().all():  # not a two-flow scenario
        data.fairness = data.fairness.drop(columns="goodput_ratio")
    data.fct = pd.DataFrame(fcts, columns=cols + ["flow", "size_bytes", "fct_s"])


def _points(data: ScenarioData, ns3: Optional[pd.DataFrame]) -> None:
    """The delay–goodput graph: every run, and per (variant, discipline) the 1-σ ellipse
    of the bivariate normal fitted to its runs (centre = the mean)."""
    ok = data.ok
    data.points = ok[["variant", "aqm", "seed", X_KEY, Y_KEY]].reset_index(drop=True)
    rows = []
    for (variant, aqm), sub in data.points.groupby(["variant", "aqm"], sort=False):
        fit = spread_ellipse(sub[X_KEY], sub[Y_KEY])
        n = int(sub[[X_KEY, Y_KEY]].notna().all(axis=1).sum())
        if fit is None:
            rows.append((variant, aqm, n, float(sub[X_KEY].mean()), float(sub[Y_KEY].mean()),
                         math.nan, math.nan, math.nan))
            continue
        _, centre, cov = fit
        rows.append((variant, aqm, n, float(centre[0]), float(centre[1]),
                     float(cov[0, 0]), float(cov[0, 1]), float(cov[1, 1])))
    data.ellipses = pd.DataFrame(rows, columns=["variant", "aqm", "runs", "centre_" + X_KEY,
                                                "centre_" + Y_KEY, "cov_xx", "cov_xy", "cov_yy"])
    if ns3 is not None and not ns3.empty:
        mine = ns3[ns3["scenario"].astype(str) == str(data.scenario.name)]
        have = [k for k in (X_KEY, Y_KEY) if k in mine]
        if len(have) == 2 and not mine.empty:
            data.ns3 = mine[["variant", "aqm", "seed", X_KEY, Y_KEY]].astype(
                {"variant": str, "aqm": str}).reset_index(drop=True)
            data.ns3_table = _ns3_table(data, mine)


def _ns3_table(data: ScenarioData, mine: pd.DataFrame) -> pd.DataFrame:
    keys = [k for k in (X_KEY, Y_KEY, "loss_ratio", "jain_fairness") if k in mine]
    rows = []
    for (variant, aqm), sub in mine.groupby(["variant", "aqm"], sort=False):
        ours = data.ok[(data.ok["variant"] == variant) & (data.ok["aqm"] == aqm)]
        for k in keys:
            m3, h3, n3 = _mean_half(sub[k])
            mo, ho, no = _mean_half(ours[k]) if k in ours else (math.nan, math.nan, 0)
            rows.append((variant, aqm, k, no, mo, ho, n3, m3, h3))
    return pd.DataFrame(rows, columns=["variant", "aqm", "metric", "aqmsim_runs",
                                       "aqmsim_mean", "aqmsim_half", "ns3_runs", "ns3_mean",
                                       "ns3_half"])


def _summaries(data: ScenarioData) -> None:
    """Drops, the focus metrics per variant and the table: mean ± 95 % t half-width."""
    ok, rows, focus, table = data.ok, [], [], []
    drops = [k for k in ("loss_ratio", *DROP_KEYS) if k in ok]
    ratio = data.fairness.set_index(["variant", "aqm", "seed"])["goodput_ratio"] \
        if "goodput_ratio" in data.fairness else None
    for (variant, aqm), sub in ok.groupby(["variant", "aqm"], sort=False):
        rows.append((variant, aqm, len(sub), *[float(sub[k].mean()) for k in drops],
                     *[_mean_half(sub[k])[1] for k in drops[:1]]))
        value = sub["variant_value"].iloc[0] if "variant_value" in sub else None
        for k in data.focus:
            m, h, n = _mean_half(sub[k])
            focus.append((variant, value, aqm, k, n, m, h))
        cells: List[Any] = [variant, aqm, len(sub)]
        for k in data.table_keys:
            cells += list(_mean_half(sub[k])[:2])
        if ratio is not None:
            vals = [ratio.get((variant, aqm, int(s)), math.nan) for s in sub["seed"]]
            cells += list(_mean_half(vals)[:2])
        table.append(cells)
    data.drops = pd.DataFrame(rows, columns=["variant", "aqm", "runs", *drops,
                                             *[f"{k}_half" for k in drops[:1]]])
    data.focus_means = pd.DataFrame(focus, columns=["variant", "variant_value", "aqm",
                                                    "metric", "runs", "mean", "half"])
    head = ["variant", "aqm", "runs"]
    for k in data.table_keys + (["goodput_ratio"] if ratio is not None else []):
        head += [f"{k}_mean", f"{k}_half"]
    data.table = pd.DataFrame(table, columns=head)


def scenario_data(scen: Any, runs: pd.DataFrame, series: SeriesFn,
                  ns3: Optional[pd.DataFrame], style: Style) -> ScenarioData:
    """Everything the report shows of scenario ``scen`` (``runs``: its rows only)."""
    runs = runs.copy()
    for c in ("variant", "aqm"):
        runs[c] = runs[c].astype(str)
    ok = runs[runs["status"] == "ok"]
    failed = runs[runs["status"] != "ok"]
    variants = _variants(scen, runs)
    order = {v: i for i, (v, _) in enumerate(variants)}
    ok = ok.sort_values(["variant", "aqm", "seed"],
                        key=lambda c: c.map(order) if c.name == "variant" else
                        (c.map({a: i for i, a in enumerate(style.order)})
                         if c.name == "aqm" else c))
    # the figures' disciplines: those with a finished run (the others are in the failed list)
    aqms = [a for a in style.order if a in set((ok if not ok.empty else runs)["aqm"])]
    have = [k for k in ok.columns if ok[k].notna().any()] if not ok.empty else []
    focus = [k for k in getattr(scen, "focus", ()) or () if k in have]
    if not focus and len(variants) > 1:
        focus = [k for k in (X_KEY, Y_KEY) if k in have]
    table_keys = list(dict.fromkeys([k for k in TABLE_KEYS if k in have] + focus))
    data = ScenarioData(scen, runs, ok, failed, variants, aqms, focus, table_keys)
    if ok.empty:
        return data
    _points(data, ns3)
    _series(data, series)
    _summaries(data)
    return data


def overview(data: ScenarioData, style: Style) -> Dict[str, str]:
    """Which discipline had the lowest queueing delay, the highest goodput and the best
    Jain's index: means over every finished run of the scenario (all its variants)."""
    out: Dict[str, str] = {}
    if data.ok.empty:
        return out
    for name, key, best in (("delay", X_KEY, min), ("goodput", Y_KEY, max),
                            ("fairness", "jain_fairness", max)):
        if key not in data.ok or not data.ok[key].notna().any():
            continue
        means = data.ok.groupby("aqm")[key].mean().dropna()
        aqm = best(means.index, key=lambda a: means[a])
        out[name] = f"{style.label(aqm)} ({metric_of(key).text(means[aqm])} " \
                    f"{metric_of(key).unit})".replace(" )", ")")
    return out
