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
from ...report.sweep_figures import spread_ellipse
from .words import DROP_KEYS, PAIR_KEYS, TABLE_KEYS, TCP_APPS, X_KEY, Y_FALLBACK, Y_KEY, metric

__all__ = ["Style", "ScenarioData", "scenario_data", "overview", "per_run", "QUEUE_CDF"]

#: The bottleneck link, and its queueing-delay distribution in a run's ``delay_cdf``.
BOTTLENECK = "R1->R2"
QUEUE_CDF = f"queue {BOTTLENECK}"
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
        names = list(suite.disciplines)
        for frame in (runs, ns3):
            if frame is not None and "aqm" in frame:
                names += [a for a in frame["aqm"].astype(str).unique() if a not in names]
        labels = {n: suite.disciplines[n].label if n in suite.disciplines else n
                  for n in names}
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
    #: Per run: the TCP flows' goodput and the UDP flows' 99th-percentile delay.
    derived: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The bottleneck's queue length over time (scenarios whose ``series`` keep ``queue``):
    #: per (variant, aqm, t) the mean, min and max over the seeds.
    queue: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The delay–goodput graph's y: the TCP flows' goodput, or every flow's when no run
    #: kept its per-flow table.
    y_key: str = Y_KEY
    focus_means: pd.DataFrame = field(default_factory=pd.DataFrame)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    ns3_table: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Series a run should have kept and did not: ``(variant, aqm, seed, series)``.
    missing: List[Tuple[str, str, int, str]] = field(default_factory=list)

    @property
    def multi(self) -> bool:
        return len(self.variants) > 1

    @property
    def pairs(self) -> bool:
        """Some run has two long-lived TCP flows or more (or its flows are unknown): a
        fairness between flows to show."""
        n = self.fairness["long_lived_flows"] if "long_lived_flows" in self.fairness else []
        return len(n) < len(self.ok) or bool((np.asarray(n, float) >= 2).any())


def _variants(scen: Any, runs: pd.DataFrame) -> List[Tuple[str, Any]]:
    out: Dict[str, Any] = {}
    for v in scen.variants:
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


def per_run(flows: pd.DataFrame) -> Dict[str, float]:
    """A run's own quantities from its ``flows`` table: the TCP flows' goodput (the
    engine's ``goodput_bps`` counts UDP too), the largest 99th-percentile delay of its UDP
    flows (NaN without any), its long-lived TCP flows and their goodput ratio (second /
    first; NaN unless there are exactly two) and their mean one-way delays."""
    app = flows["app"].astype(str) if "app" in flows else pd.Series("ftp", flows.index)
    tcp = app.isin(TCP_APPS)
    udp_p99 = flows.loc[~tcp, "delay_p99_s"].astype(float).dropna() \
        if "delay_p99_s" in flows else pd.Series(dtype=float)
    ll = _long_lived(flows)
    g = ll["goodput_bps"].astype(float).to_numpy()
    d = ll["mean_delay_s"].astype(float).to_numpy() if "mean_delay_s" in ll else []
    pair = len(g) == 2 and len(d) == 2
    return {"tcp_goodput_bps": float(flows.loc[tcp, "goodput_bps"].astype(float).sum()),
            "rt_delay_p99_s": float(udp_p99.max()) if len(udp_p99) else math.nan,
            "long_lived_flows": len(g),
            "goodput_ratio": float(g[1] / g[0]) if len(g) == 2 and g[0] > 0 else math.nan,
            "delay_first_s": float(d[0]) if pair else math.nan,
            "delay_second_s": float(d[1]) if pair else math.nan}


def _queue_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The bottleneck's samples of a run's ``queue`` table (an explicit topology: its first
    monitored queue)."""
    if "link" in frame:
        links = frame["link"].astype(str)
        keep = BOTTLENECK if (links == BOTTLENECK).any() else links.iloc[0] if len(links) \
            else BOTTLENECK
        frame = frame[links == keep]
    return frame


def _series(data: ScenarioData, series: SeriesFn) -> pd.DataFrame:
    """CDFs, the per-run quantities, FCTs and (when the scenario keeps it) the queue over
    time from each finished run's kept series; returns the per-run quantities (variant,
    aqm, seed, ...: :func:`per_run`)."""
    cdfs, runs, fcts, queues = [], [], [], []
    keep_queue = "queue" in data.scenario.series
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
        if keep_queue:
            try:
                q = _queue_rows(series(str(r.hash), int(r.seed), "queue"))
            except (KeyError, FileNotFoundError, OSError):
                data.missing.append((*key, "queue"))
            else:
                queues.append(pd.DataFrame({"variant": key[0], "aqm": key[1], "seed": key[2],
                                            "t": q["t"].to_numpy(float),
                                            "len_pkts": q["len_pkts"].to_numpy(float)}))
        try:
            flows = series(str(r.hash), int(r.seed), "flows")
        except (KeyError, FileNotFoundError, OSError):
            data.missing.append((*key, "flows"))
            continue
        runs.append({"variant": key[0], "aqm": key[1], "seed": key[2], **per_run(flows),
                     "jain_fairness": float(getattr(r, "jain_fairness", math.nan))})
        if "size_bytes" in flows and "fct_s" in flows:
            web = flows[flows["size_bytes"].fillna(0) > 0]
            fcts += [(*key, int(f), int(s), float(t)) for f, s, t in
                     zip(web["flow"], web["size_bytes"], web["fct_s"])]
    cols = ["variant", "aqm", "seed"]
    raw = pd.DataFrame(cdfs, columns=cols + ["q", "delay_s"])
    data.cdf = (raw.groupby(["variant", "aqm", "q"], sort=False)["delay_s"]
                .agg(delay_s="mean", seeds="count").reset_index())
    data.fct = pd.DataFrame(fcts, columns=cols + ["flow", "size_bytes", "fct_s"])
    if queues:
        # the samples are taken at the same times in every run (every sample_interval from
        # 0), so a time is matched across seeds by its value, rounded to a microsecond
        q = pd.concat(queues, ignore_index=True)
        q["t"] = q["t"].round(6)
        data.queue = (q.groupby(["variant", "aqm", "t"], sort=False)["len_pkts"]
                      .agg(len_pkts="mean", len_min="min", len_max="max", seeds="count")
                      .reset_index())
    return pd.DataFrame(runs, columns=cols + ["tcp_goodput_bps", "rt_delay_p99_s",
                                              "long_lived_flows", *PAIR_KEYS,
                                              "jain_fairness"])


def _derived(data: ScenarioData, per: pd.DataFrame) -> None:
    """The per-run quantities joined to the finished runs (NaN where a run's flows were not
    kept), and the fairness frame; the goodput ratio only where the scenario asks for it
    (its focus lists ``goodput_ratio``: two flows of different RTTs, not any pair)."""
    ratio = "goodput_ratio" in data.scenario.focus
    keys = ["tcp_goodput_bps", "rt_delay_p99_s"] + [k for k in PAIR_KEYS
                                                    if k in data.scenario.focus]
    idx = ["variant", "aqm", "seed"]
    ok = data.ok.drop(columns=[k for k in keys if k in data.ok])
    got = per.set_index(idx)[keys]
    data.ok = ok.join(got, on=idx) if not got.empty else ok.assign(**{k: math.nan
                                                                      for k in keys})
    data.derived = per[idx + keys[:2]].reset_index(drop=True)
    data.fairness = per[idx + ["jain_fairness", "long_lived_flows"]
                        + (["goodput_ratio"] if ratio else [])].reset_index(drop=True)


def _points(data: ScenarioData, ns3: Optional[pd.DataFrame]) -> None:
    """The delay–goodput graph: every run, and per (variant, discipline) the 1-σ ellipse
    of the bivariate normal fitted to its runs (centre = the mean)."""
    ok, y = data.ok, data.y_key
    data.points = ok[["variant", "aqm", "seed", X_KEY, y]].reset_index(drop=True)
    rows = []
    for (variant, aqm), sub in data.points.groupby(["variant", "aqm"], sort=False):
        fit = spread_ellipse(sub[X_KEY], sub[y])
        n = int(sub[[X_KEY, y]].notna().all(axis=1).sum())
        if fit is None:
            rows.append((variant, aqm, n, float(sub[X_KEY].mean()), float(sub[y].mean()),
                         math.nan, math.nan, math.nan))
            continue
        _, centre, cov = fit
        rows.append((variant, aqm, n, float(centre[0]), float(centre[1]),
                     float(cov[0, 0]), float(cov[0, 1]), float(cov[1, 1])))
    data.ellipses = pd.DataFrame(rows, columns=["variant", "aqm", "runs", "centre_" + X_KEY,
                                                "centre_" + y, "cov_xx", "cov_xy", "cov_yy"])
    if ns3 is not None and not ns3.empty:
        mine = _ns3_y(data, ns3[ns3["scenario"].astype(str) == str(data.scenario.name)])
        if X_KEY in mine and not mine.empty:
            mine = mine.astype({"variant": str, "aqm": str})
            if y in mine:
                data.ns3 = mine[["variant", "aqm", "seed", X_KEY, y]].reset_index(drop=True)
            data.ns3_table = _ns3_table(data, mine)


def _ns3_y(data: ScenarioData, mine: pd.DataFrame) -> pd.DataFrame:
    """ns-3's points with the graph's y: its ``tcp_goodput_bps`` when it has one; else its
    ``goodput_bps`` only where that is the same quantity (every aqmsim run of the scenario
    has only TCP flows); else without it (then ns-3 is left off the graph)."""
    y = data.y_key
    if y in mine or y != "tcp_goodput_bps" or "goodput_bps" not in mine:
        return mine
    same = np.allclose(data.ok["tcp_goodput_bps"], data.ok["goodput_bps"], rtol=1e-9,
                       equal_nan=True)
    return mine.assign(tcp_goodput_bps=mine["goodput_bps"]) if same else mine


def _ns3_table(data: ScenarioData, mine: pd.DataFrame) -> pd.DataFrame:
    y = data.y_key if data.y_key in mine else "goodput_bps"  # (ns-3's, UDP included)
    keys = [k for k in (X_KEY, y, "loss_ratio", "jain_fairness") if k in mine]
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
        table.append(cells)
    data.drops = pd.DataFrame(rows, columns=["variant", "aqm", "runs", *drops,
                                             *[f"{k}_half" for k in drops[:1]]])
    data.focus_means = pd.DataFrame(focus, columns=["variant", "variant_value", "aqm",
                                                    "metric", "runs", "mean", "half"])
    head = ["variant", "aqm", "runs"]
    for k in data.table_keys:
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
    data = ScenarioData(scen, runs, ok, failed, variants, aqms, [], [])
    if ok.empty:
        return data
    _derived(data, _series(data, series))
    ok = data.ok
    have = [k for k in ok.columns if ok[k].notna().any()]
    # no run kept its flows: the TCP flows are unknown, the graph shows every flow's goodput
    data.y_key = Y_KEY if Y_KEY in have else Y_FALLBACK
    data.focus = [k for k in scen.focus if k in have]
    if not data.focus and len(variants) > 1:
        data.focus = [k for k in (X_KEY, data.y_key) if k in have]
    data.table_keys = list(dict.fromkeys([k for k in TABLE_KEYS if k in have] + data.focus))
    _points(data, ns3)
    _summaries(data)
    return data


def _common_variants(data: ScenarioData, key: str) -> List[str]:
    """The variants every discipline of the scenario finished (a run with ``key``)."""
    have = data.ok[data.ok[key].notna()]
    return [v for v, _ in data.variants
            if set(data.aqms) <= set(have.loc[have["variant"] == v, "aqm"])]


def overview(data: ScenarioData, style: Style) -> Dict[str, str]:
    """Which discipline had the lowest queueing delay, the highest goodput of the TCP flows
    and the best Jain's index: per discipline, the mean of its per-variant means over the
    variants that every discipline finished, so that each is judged on the same variants.
    Disciplines whose values print the same tie (``"all equal"`` when every one does).
    ``"note"``: why a column is "—"."""
    out: Dict[str, str] = {}
    if data.ok.empty:
        return out
    for name, key, best in (("delay", X_KEY, min), ("goodput", data.y_key, max),
                            ("fairness", "jain_fairness", max)):
        if key not in data.ok or not data.ok[key].notna().any():
            continue
        common = _common_variants(data, key)
        if not common:
            out["note"] = ("no variant that every discipline finished: the disciplines "
                           "are not compared")
            continue
        sub = data.ok[data.ok["variant"].isin(common)]
        means = sub.groupby(["aqm", "variant"])[key].mean().groupby("aqm").mean()
        means = means[[a for a in data.aqms if a in means.index]].dropna()
        m = metric(key)
        top = means[best(means.index, key=lambda a: means[a])]
        shown = m.text(top)
        tied = [a for a in means.index if m.text(means[a]) == shown]
        who = ("all equal" if len(tied) == len(means) > 1 else
               ", ".join(style.label(a) for a in tied))
        out[name] = f"{who} ({shown} {m.unit})".replace(" )", ")")
    return out
