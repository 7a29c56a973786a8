"""Paper 002's set-up (variants, delays, MTU groups) and its per-run measures: each
group's loss ratio and goodput from the flows table, the summary's metrics, and the
cell sources the ns-2 column applies to ns-2's runs."""

from __future__ import annotations

from functools import partial
from typing import Dict, Sequence, Tuple

import numpy as np
import pandas as pd

from ..base import FromRun, RunRecord


VARIANTS: Tuple[str, ...] = ("red1", "red2", "red3", "red4", "red5")


DELAYS: Tuple[str, ...] = ("low", "high")


DELAY_TEXT = {"low": "low (15 ms)", "high": "high (80 ms)"}


#: group label in the scenario files -> (MTU bytes, the paper's name)
GROUPS: Tuple[Tuple[str, int, str], ...] = (
    ("mtu375", 375, "small"),
    ("mtu750", 750, "medium"),
    ("mtu1500", 1500, "large"),
)


MTUS = tuple(m for _, m, _ in GROUPS)


BOTTLENECK = "R1->R2"


CAPACITY_MBPS = 30.0


def vname(v: str) -> str:
    return f"RED_{v[-1]}"


def key_of(variant: str, delay: str) -> str:
    return f"{variant}-{delay}"


def jain(x: Sequence[float]) -> float:
    a = np.asarray(x, dtype=float)
    s2 = float((a ** 2).sum())
    return float(a.sum() ** 2 / (len(a) * s2)) if s2 > 0 else float("nan")


def group_metrics(flows: pd.DataFrame) -> Dict[str, Dict[str, float]]:
    """Per MTU group of one run: arrivals at the bottleneck, drops there, PLR (%), summed
    goodput (Mbit/s), timeouts, packets sent (the flows table's per-flow counts at the
    monitored queue, R1->R2)."""
    labels = flows["label"].to_numpy()
    cols = {c: flows[c].to_numpy(dtype=float) for c in
            ("queue_arrivals", "queue_drops", "goodput_bps", "timeouts", "sent")}
    out: Dict[str, Dict[str, float]] = {}
    for g, _, _ in GROUPS:
        sel = labels == g
        f = {c: float(x[sel].sum()) for c, x in cols.items()}
        dr = f["queue_drops"]
        arr = f["queue_arrivals"]
        out[g] = {
            "arrivals": arr,
            "drops": dr,
            "plr": 100.0 * dr / arr if arr > 0 else float("nan"),
            "goodput": f["goodput_bps"] / 1e6,
            "timeouts": f["timeouts"],
            "sent": f["sent"],
        }
    return out


def summary_metrics(sm: Dict[str, float]) -> Dict[str, float]:
    """The numbers of the "all" row of one run read off its summary: PLR over all packets
    (%), summed goodput (Mbit/s), drops by reason (counts and % of the drops), time-average
    queue, timeouts."""
    drops = float(sm.get("bottleneck_drops", float("nan")))
    share = (lambda n: 100.0 * n / drops if drops > 0 else float("nan"))
    return {
        "plr": 100.0 * float(sm.get("loss_ratio", float("nan"))),
        "goodput": float(sm.get("goodput_bps", float("nan"))) / 1e6,
        "engine_arrivals": float(sm.get("bottleneck_arrivals", float("nan"))),
        "drops": drops,
        "early": float(sm.get("drops_early", float("nan"))),
        "forced": float(sm.get("drops_forced", float("nan"))),
        "overflow": float(sm.get("drops_overflow", float("nan"))),
        "early_pct": share(float(sm.get("drops_early", float("nan")))),
        "forced_pct": share(float(sm.get("drops_forced", float("nan")))),
        "overflow_pct": share(float(sm.get("drops_overflow", float("nan")))),
        "avg_queue": float(sm.get("time_avg_queue_pkts", float("nan"))),
        "timeouts": float(sm.get("timeouts", float("nan"))),
    }


#: Summary metrics each "all"-row number needs (a run without them does not measure it:
#: ns-2's summary has no drop reasons).
SUMMARY_NEEDS: Dict[str, Tuple[str, ...]] = {
    "plr": ("loss_ratio",), "goodput": ("goodput_bps",),
    "engine_arrivals": ("bottleneck_arrivals",), "drops": ("bottleneck_drops",),
    "early": ("drops_early",), "forced": ("drops_forced",), "overflow": ("drops_overflow",),
    "early_pct": ("drops_early", "bottleneck_drops"),
    "forced_pct": ("drops_forced", "bottleneck_drops"),
    "overflow_pct": ("drops_overflow", "bottleneck_drops"),
    "avg_queue": ("time_avg_queue_pkts",), "timeouts": ("timeouts",),
}


def run_value(rec: RunRecord, group: str, col: str) -> float:
    """One number of one run, as :meth:`PktSize.metrics` has it: ``col`` of an MTU group
    (:func:`group_metrics` of the run's flows table) or of ``"all"`` (its summary,
    :func:`summary_metrics`; ``jain`` and ``arrivals`` from the groups). Raises KeyError
    when the run lacks what it needs (a summary metric, a flows column or the table):
    that number is not measured in that run (the ns-2 column says so)."""
    if group != "all":
        return group_metrics(rec.tables["flows"])[group][col]
    if col in SUMMARY_NEEDS:
        for k in SUMMARY_NEEDS[col]:
            if k not in rec.summary:
                raise KeyError(k)
        return summary_metrics(rec.summary)[col]
    gm = group_metrics(rec.tables["flows"])
    if col == "jain":
        return jain([gm[g]["goodput"] for g, _, _ in GROUPS])
    if col == "arrivals":
        return sum(m["arrivals"] for m in gm.values())
    raise KeyError(col)


def from_run(group: str, col: str) -> FromRun:
    """The cell source computing ``col`` of ``group`` from one run (:func:`run_value`; a
    ``partial`` of a module function, so cells stay picklable): the ns-2 column applies
    it to ns-2's runs, whose flows table carries the per-flow bottleneck counts."""
    if group == "all" and col in SUMMARY_NEEDS:
        return FromRun(partial(run_value, group=group, col=col), (), SUMMARY_NEEDS[col][0])
    return FromRun(partial(run_value, group=group, col=col), ("flows",), f"{col} of {group}")


class Metrics:
    """The per-run metrics (:meth:`PktSize.metrics`) with one lookup per (delay, variant,
    group): the analysis asks for a few thousand such columns."""

    def __init__(self, df: pd.DataFrame) -> None:
        self.df = df
        self._by: Dict[Tuple[str, str, str], pd.DataFrame] = {}
        if len(df):
            self._by = {k: g for k, g in df.groupby(["delay", "variant", "group"], sort=False)}

    def values(self, delay: str, v: str, group: str, col: str) -> np.ndarray:
        g = self._by.get((delay, v, group))
        if g is None or col not in g.columns:
            return np.array([], dtype=float)
        return g[col].to_numpy(dtype=float)
