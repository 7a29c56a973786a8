"""Paper 002: S. De Cnodder, O. Elloumi, K. Pauwels, "Effect of different packet sizes on
RED performance" (Alcatel CRC).

Three groups of 20 TCP SACK flows with MTUs 375, 750 and 1500 bytes share a 30 Mb/s
bottleneck whose one-way propagation delay is 15 ms (low) or 80 ms (high); the bottleneck
runs one of five RED variants that weight the drop probability by packet size
(RED_1 … RED_5, aqmsim kinds ``red1`` … ``red5``). Table III gives, per MTU group, the
packet loss ratio (PLR) at the bottleneck and the summed goodput.

How the numbers are measured here
---------------------------------
* **PLR of a group** = packets of the group dropped at the bottleneck queue (``R1->R2``) /
  packets of the group that arrived at that queue: the flows table's per-flow counts at
  the monitored queue (``queue_drops`` / ``queue_arrivals``), summed over the group — the
  paper's "number of dropped packet with a given MTU over the total number of packets
  having that MTU". Retransmissions count as packets; ACKs never reach that queue.
* **Goodput of a group** = Σ over its 20 flows of new in-order payload bits delivered per
  second of the run (``goodput_bps`` of the flows table); the "Sum" row is the summary's
  ``goodput_bps``.
* **Fairness** = Jain's index over the three groups' summed goodputs, per seed.

Where the paper is silent (simulator defaults, queue units, M, MTU semantics, window, …)
the open choices and their candidate readings are in :mod:`.readings`; the scenario files
hold the primary reading of each and ``aqmsim reproduce`` runs every alternative (one seed
each) beside it.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..base import (Cell, Claim, Experiment, Figure, FromRun, Paper, Report, RunRecord, Runs, Table,
                    mean_ci)

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


class PktSize(Paper):
    name = "pktsize"
    number = "002"
    title = "Effect of different packet sizes on RED performance"
    citation = ("S. De Cnodder, O. Elloumi, K. Pauwels, \"Effect of different packet sizes "
                "on RED performance\", Alcatel Corporate Research Center (Table III)")
    default_seeds = 5
    #: Seeds of each alternative reading (the primary runs default_seeds).
    reading_seeds = 2

    def readings(self) -> list:
        """The open choices and their readings (see :mod:`.readings`)."""
        from .readings import choices

        return choices()

    # ------------------------------------------------------------------ experiments
    def experiments(self) -> List[Experiment]:
        out = []
        for delay in DELAYS:
            for v in VARIANTS:
                out.append(Experiment(
                    key=key_of(v, delay),
                    scenario=self.scenario(f"{v}-{delay}.toml"),
                    labels={"variant": v, "delay": delay},
                    keep=("flows",),
                    keep_first=("queue",),
                ))
        return out

    # ------------------------------------------------------------------ measurements
    def metrics(self, runs: Runs) -> pd.DataFrame:
        """One row per (experiment, seed, group) plus one per (experiment, seed) with
        group "all" (summary values)."""
        rows = []
        for delay in DELAYS:
            for v in VARIANTS:
                k = key_of(v, delay)
                for s in runs.seeds(k):
                    rec = runs.get(k, s)
                    gm = group_metrics(rec.tables["flows"])
                    for g, m in gm.items():
                        rows.append({"delay": delay, "variant": v, "seed": s, "group": g, **m})
                    rows.append({
                        "delay": delay, "variant": v, "seed": s, "group": "all",
                        "jain": jain([gm[g]["goodput"] for g, _, _ in GROUPS]),
                        "arrivals": sum(m["arrivals"] for m in gm.values()),
                        **summary_metrics(rec.summary),
                    })
        return pd.DataFrame(rows)

    @staticmethod
    def _ci(m: Metrics, delay: str, v: str, group: str, col: str,
            published: Optional[float] = None) -> Cell:
        mean, half = mean_ci(m.values(delay, v, group, col))
        return Cell(mean, half, published)

    @staticmethod
    def _cell(runs: Runs, delay: str, v: str, group: str, col: str,
              published: Optional[float] = None) -> Cell:
        """A cell of the tables: the same mean ± CI as :meth:`_ci` (the same per-run
        numbers, :func:`run_value`, in the same seed order) computed through
        :meth:`Runs.cell_by`, so the cell remembers how (:func:`from_run`) and the ns-2
        column computes it from ns-2's runs of the experiment the same way."""
        return runs.cell_by(key_of(v, delay), from_run(group, col), published)

    @staticmethod
    def _mean(m: Metrics, delay: str, v: str, group: str, col: str) -> float:
        x = m.values(delay, v, group, col)
        return float(x.mean()) if len(x) else float("nan")

    # ------------------------------------------------------------------ analysis
    def analyse(self, runs: Runs, out: Path) -> Report:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        m = Metrics(self.metrics(runs))
        pub = self.published()
        pub_at = {(str(d), str(v), str(u), str(k)): float(x) for d, v, u, k, x in
                  zip(pub["delay"], pub["variant"], pub["mtu"], pub["metric"], pub["value"])}

        def P(delay: str, v: str, mtu: str, metric: str) -> Optional[float]:
            return pub_at.get((delay, v, mtu, metric))

        seeds = sorted({s for k in runs.experiments for s in runs.seeds(k)})
        tables = [self._table3(m, runs, P), self._table_why(m, runs)]
        # Alternative readings are analysed with figures off: their numbers are compared.
        figures = self._figures(runs, m, P, out) if self.figures else []
        claims = self._claims(m)
        assumptions = self.assumptions() + [
            "PLR of a group: its packets dropped at the R1->R2 queue / its packets arriving "
            "there (per-flow counts at the monitored queue, summed over the group; "
            "retransmissions included).",
            "Goodput: new in-order payload delivered per second over the whole run (start-up "
            "included), summed over the 20 flows of a group; the Sum row is the run's total.",
            "Fairness: Jain's index over the three groups' summed goodputs, per seed, then "
            "averaged over seeds.",
            "Claim tolerances (ours, the paper gives none): 'about the same' = max/min ≤ 1.25; "
            "'roughly doubles' = factor per MTU doubling in [1.5, 2.5]; 'grows with the square' "
            "= factor per doubling in [2.83, 5.66] (exponent 1.5–2.5); 'by far the highest' = "
            "at least twice the next group's; 'comparable' = within 25 % of each other. The "
            "factor per doubling is (X_1500 / X_375)^(1/2) on the seed means.",
            "Above max_th (gentle off) every arrival is dropped whatever its size, for all "
            "five variants, as in Floyd & Jacobson and in ns-2 of 1999 (a 'forced' drop); "
            "the size weighting of RED_2 … RED_5 applies to probabilities below 1 only "
            "(crates/aqmsim-core/src/aqm/red.rs, Red::decide). The paper's Tables I-II "
            "define the weighting only between the thresholds; where avg often exceeds "
            "max_th (the 'forced' share and the time above max_th in the table 'Drops by "
            "reason') the variants differ less than their formulas do.",
            "ns-2 of 1999 computes its RTO with tcp.cc's rtt_update()/rtt_timeout() as "
            "aqmsim does (srtt + 4·rttvar in ticks, at least two ticks); the choices the "
            "paper leaves open are listed with their readings on this page.",
        ]
        return Report(self, tables, figures, claims, assumptions, seeds)

    # ------------------------------------------------------------------ tables
    def _table3(self, m: Metrics, runs: Runs, P) -> Table:
        cols = ["Delay", "MTU"] + [f"PLR % {vname(v)}" for v in VARIANTS] + \
               [f"Goodput Mb/s {vname(v)}" for v in VARIANTS]
        rows: List[list] = []
        for delay in DELAYS:
            for g, mtu, pname in GROUPS:
                row: list = [DELAY_TEXT[delay], f"{pname} ({mtu} B)"]
                row += [self._cell(runs, delay, v, g, "plr", P(delay, v, str(mtu), "plr_percent"))
                        for v in VARIANTS]
                row += [self._cell(runs, delay, v, g, "goodput",
                                   P(delay, v, str(mtu), "goodput_mbps")) for v in VARIANTS]
                rows.append(row)
            row = [DELAY_TEXT[delay], "Sum (PLR: all packets)"]
            row += [self._cell(runs, delay, v, "all", "plr") for v in VARIANTS]
            row += [self._cell(runs, delay, v, "all", "goodput",
                               P(delay, v, "sum", "goodput_mbps")) for v in VARIANTS]
            rows.append(row)
        al = m.df[m.df["group"] == "all"]
        miss = (al["engine_arrivals"] - al["arrivals"]).abs()
        note = ("Table III: PLR (%) = a group's drops at the bottleneck / its arrivals there "
                "(per-flow counts at the R1->R2 queue; the groups' arrivals add up to the "
                f"queue's own count to within {float(miss.max()) if len(miss) else 0:.0f} "
                "packets); goodput = the group's 20 flows summed. Our mean ± 95 % interval "
                "over seeds beside the published value. The Sum row's PLR columns are the "
                "loss ratio over all packets (not in the paper). The ns-2 column (where "
                "shown) computes every number the same way from ns-2's own runs, the "
                "per-flow counts at R1->R2 from a flow monitor there: RED_1 runs as ns-2's "
                "Queue/RED with bytes_ false, which is RED_1 exactly; RED_4 as Queue/RED "
                "with bytes_ true and mean_pktsize_ = M = 1500 bytes, the nearest ns-2 law "
                "to RED_4 (its count is floor(bytes since the last drop, the arriving "
                "packet included, / M) where RED_4's is the sum of L/M over the packets "
                "before it: docs/aqm/red-pktsize.md); ns-2 has no RED_2, RED_3 or RED_5.")
        return Table("Table III: PLR and goodput per MTU group", cols, rows, note)

    @staticmethod
    def _above_max_th(runs: Runs, key: str) -> float:
        """Share (%) of the first seed's queue samples with the RED average ≥ max_th."""
        if key not in runs.experiments or not runs.seeds(key):
            return float("nan")
        q = runs.first(key).tables.get("queue")
        if q is None or not len(q):
            return float("nan")
        q = q[q["link"] == BOTTLENECK]
        return 100.0 * float((q["avg"] >= q["max_th"]).mean()) if len(q) else float("nan")

    def _table_why(self, m: Metrics, runs: Runs) -> Table:
        cols = ["Delay", "Variant", "early drops %", "forced drops %", "overflow drops %",
                "time-avg queue (pkts)", "time avg ≥ max_th % (first seed)", "timeouts small",
                "timeouts medium", "timeouts large", "Jain index (3 groups)"]
        rows: List[list] = []
        for delay in DELAYS:
            for v in VARIANTS:
                row: list = [DELAY_TEXT[delay], vname(v)]
                for r in ("early", "forced", "overflow"):
                    row.append(self._cell(runs, delay, v, "all", r + "_pct"))
                row.append(self._cell(runs, delay, v, "all", "avg_queue"))
                # (read from the first seed's queue samples: skipped, as the figures are,
                # for the alternative readings, whose tables are compared, not shown)
                row.append(Cell(self._above_max_th(runs, key_of(v, delay)) if self.figures
                                else float("nan")))
                for g, _, _ in GROUPS:
                    row.append(self._cell(runs, delay, v, g, "timeouts"))
                row.append(self._cell(runs, delay, v, "all", "jain"))
                rows.append(row)
        note = ("Not in the paper: where the drops come from (early = RED's random drop "
                "with avg between the thresholds; forced = drops while avg ≥ max_th, "
                "certain for every size; overflow = buffer full), the bottleneck's "
                "time-average queue (min_th 5, max_th 15 under the primary reading) and the "
                "share of the first seed's 10 ms samples with avg ≥ max_th, retransmission "
                "timeouts per group and Jain's index over the groups' goodputs.")
        return Table("Drops by reason, queue, timeouts and fairness (ours)", cols, rows, note)

    # ------------------------------------------------------------------ figures
    def _figures(self, runs: Runs, m: Metrics, P, out: Path) -> List[Figure]:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        colours = {"mtu375": "#1f77b4", "mtu750": "#ff7f0e", "mtu1500": "#2ca02c"}
        figs: List[Figure] = []

        def bars(col: str, metric: str, ylabel: str, fname: str, log: bool, title: str) -> None:
            fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
            x = np.arange(len(VARIANTS))
            wd = 0.26
            for ax, delay in zip(axes, DELAYS):
                for i, (g, mtu, pname) in enumerate(GROUPS):
                    cells = [self._ci(m, delay, v, g, col) for v in VARIANTS]
                    means = [c.mean for c in cells]
                    halves = [0.0 if math.isnan(c.half) else c.half for c in cells]
                    pos = x + (i - 1) * wd
                    ax.bar(pos, means, wd, yerr=halves, capsize=3, color=colours[g],
                           alpha=0.85, label=f"ours, {pname} ({mtu} B)")
                    pubv = [P(delay, v, str(mtu), metric) for v in VARIANTS]
                    ax.plot(pos, [np.nan if p is None else p for p in pubv], "k_",
                            markersize=16, markeredgewidth=2.5,
                            label="published" if i == 0 else None)
                ax.set_xticks(x)
                ax.set_xticklabels([vname(v) for v in VARIANTS])
                ax.set_title(f"{DELAY_TEXT[delay]} bottleneck delay")
                ax.set_xlabel("RED variant")
                if log:
                    ax.set_yscale("log")
                ax.grid(axis="y", alpha=0.3, which="both")
            axes[0].set_ylabel(ylabel)
            axes[0].legend(fontsize=8, loc="best")
            fig.suptitle(title)
            fig.tight_layout()
            fig.savefig(out / fname, dpi=110)
            plt.close(fig)

        bars("plr", "plr_percent", "packet loss ratio at the bottleneck (%)", "plr.png", True,
             "Table III, PLR per MTU group: ours (bars, 95 % CI) vs published (black)")
        figs.append(Figure("plr.png", "PLR (%) per MTU group and RED variant, low and high "
                           "bottleneck delay (log scale): our mean with its 95 % interval "
                           "over seeds (bars), the paper's Table III (black dashes)."))
        bars("goodput", "goodput_mbps", "summed goodput of the 20 flows (Mbit/s)",
             "goodput.png", False,
             "Table III, goodput per MTU group: ours (bars, 95 % CI) vs published (black)")
        figs.append(Figure("goodput.png", "Summed goodput (Mbit/s) of each MTU group per RED "
                           "variant: ours (bars, 95 % interval) vs the paper's Table III "
                           "(black dashes)."))

        # PLR against MTU, log-log: the exponent the variants are designed for.
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
        vcol = dict(zip(VARIANTS, ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]))
        for ax, delay in zip(axes, DELAYS):
            for v in VARIANTS:
                ys = [self._mean(m, delay, v, g, "plr") for g, _, _ in GROUPS]
                ps = [P(delay, v, str(mtu), "plr_percent") for _, mtu, _ in GROUPS]
                ax.plot(MTUS, ys, "o-", color=vcol[v], label=f"{vname(v)} ours")
                ax.plot(MTUS, ps, "s--", color=vcol[v], alpha=0.6, label=f"{vname(v)} published")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xticks(MTUS)
            ax.set_xticklabels([str(x) for x in MTUS])
            ax.set_xlabel("MTU (bytes)")
            ax.set_title(f"{DELAY_TEXT[delay]} bottleneck delay")
            ax.grid(alpha=0.3, which="both")
        axes[0].set_ylabel("packet loss ratio (%)")
        axes[1].legend(fontsize=7, ncol=2, loc="lower right")
        fig.suptitle("PLR against MTU (log-log): slope 0 = size-blind, 1 = ∝ MTU, 2 = ∝ MTU²")
        fig.tight_layout()
        fig.savefig(out / "plr_vs_mtu.png", dpi=110)
        plt.close(fig)
        figs.append(Figure("plr_vs_mtu.png", "PLR against MTU on log-log axes for each variant, "
                           "ours (solid) and published (dashed): RED_1 should be flat, RED_3/"
                           "RED_4 of slope 1, RED_5 of slope 2."))

        # Queue of the first seed: where RED operates.
        fig, axes = plt.subplots(2, 1, figsize=(11, 6.5), sharex=True)
        for ax, delay in zip(axes, DELAYS):
            k = key_of("red1", delay)
            if k in runs.experiments and runs.seeds(k):
                rec = runs.first(k)
                q = rec.tables.get("queue")
                if q is not None and len(q):
                    q = q[q["link"] == BOTTLENECK]
                    dur = float(rec.summary.get("duration", q["t"].max()))
                    t0, t1 = 0.4 * dur, 0.6 * dur
                    w = q[(q["t"] >= t0) & (q["t"] <= t1)]
                    ax.plot(w["t"], w["len_pkts"], lw=0.5, color="0.6", label="queue (packets)")
                    ax.plot(w["t"], w["avg"], lw=1.5, color="C3", label="RED average")
                    ax.axhline(5, ls="--", color="k", lw=0.8, label="min_th, max_th")
                    ax.axhline(15, ls="--", color="k", lw=0.8)
                    ax.set_title(f"RED_1, {DELAY_TEXT[delay]} bottleneck delay, seed {rec.seed}")
            ax.set_ylabel("packets")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8, loc="upper right")
        axes[1].set_xlabel("time (s)")
        fig.tight_layout()
        fig.savefig(out / "queue.png", dpi=110)
        plt.close(fig)
        figs.append(Figure("queue.png", "Bottleneck queue and RED average (RED_1, first seed, "
                           "middle fifth of the run) at low and high delay, thresholds dashed: "
                           "where RED operates decides how much of the dropping is size-"
                           "weighted."))
        return figs

    # ------------------------------------------------------------------ claims
    def _claims(self, m: Metrics) -> List[Claim]:
        mean = lambda d, v, g, c: self._mean(m, d, v, g, c)  # noqa: E731
        G = [g for g, _, _ in GROUPS]

        def per_doubling(d: str, v: str, col: str) -> float:
            a, b = mean(d, v, "mtu375", col), mean(d, v, "mtu1500", col)
            return math.sqrt(b / a) if a > 0 and b >= 0 else float("nan")

        def vals(d: str, v: str, col: str) -> List[float]:
            return [mean(d, v, g, col) for g in G]

        def fmt(xs: Sequence[float], unit: str = "") -> str:
            return "/".join(f"{x:.2f}" for x in xs) + unit

        claims: List[Claim] = []

        # 1. RED_1: PLR about the same for all MTUs.
        ok, ev = True, []
        for d in DELAYS:
            p = vals(d, "red1", "plr")
            r = max(p) / min(p) if min(p) > 0 else float("inf")
            ok &= r <= 1.25
            ev.append(f"{d}: PLR 375/750/1500 = {fmt(p, ' %')}, max/min {r:.2f}")
        claims.append(Claim("RED_1: the loss ratio is about the same for all MTUs "
                            "(max/min ≤ 1.25 at both delays)", bool(ok), "; ".join(ev)))

        # 2. RED_1: goodput roughly doubles when the MTU doubles.
        ok, ev = True, []
        for d in DELAYS:
            gp = vals(d, "red1", "goodput")
            r1 = gp[1] / gp[0] if gp[0] > 0 else float("inf")
            r2 = gp[2] / gp[1] if gp[1] > 0 else float("inf")
            ok &= 1.5 <= r1 <= 2.5 and 1.5 <= r2 <= 2.5
            ev.append(f"{d}: goodput {fmt(gp, ' Mb/s')}, ×{r1:.2f} and ×{r2:.2f} per doubling")
        claims.append(Claim("RED_1: goodput roughly doubles when the MTU doubles (each factor "
                            "in [1.5, 2.5] at both delays)", bool(ok), "; ".join(ev)))

        # 3. RED_2: large MTU has by far the highest PLR.
        ok, ev = True, []
        for d in DELAYS:
            p = vals(d, "red2", "plr")
            nxt = max(p[0], p[1])
            r = p[2] / nxt if nxt > 0 else float("inf")
            ok &= r >= 2.0
            ev.append(f"{d}: PLR 375/750/1500 = {fmt(p, ' %')}, large/next {r:.2f}")
        claims.append(Claim("RED_2: the large-MTU group has by far the highest loss ratio "
                            "(≥ 2× the next group at both delays)", bool(ok), "; ".join(ev)))

        # 4. RED_2: collapse of large-MTU goodput at low delay, less at high delay.
        gl, gh = vals("low", "red2", "goodput"), vals("high", "red2", "goodput")
        ok = gl[2] == min(gl) and gl[2] < CAPACITY_MBPS / 3 / 2 and gh[2] > gl[2]
        claims.append(Claim(
            "RED_2: the large-MTU group's goodput collapses at low delay (lowest group, below "
            "half its 10 Mb/s fair share) and the collapse is less at high delay",
            bool(ok), f"low: {fmt(gl, ' Mb/s')}; high: {fmt(gh, ' Mb/s')} (375/750/1500)"))

        # 5. RED_2 gives the lowest summed goodput at low delay (summary goodput_bps).
        sums = {v: mean("low", v, "all", "goodput") for v in VARIANTS}
        lowest = min(sums, key=lambda v: sums[v])
        sh = {v: mean("high", v, "all", "goodput") for v in VARIANTS}
        claims.append(Claim(
            "RED_2 gives the lowest summed goodput at low delay", lowest == "red2",
            "low delay sums: " + ", ".join(f"{vname(v)} {sums[v]:.2f}" for v in VARIANTS)
            + " Mb/s (high delay: " + ", ".join(f"{vname(v)} {sh[v]:.2f}" for v in VARIANTS)
            + ")"))

        # 6. RED_3/RED_4: PLR roughly doubles when the MTU doubles.
        ok, ev = True, []
        for v in ("red3", "red4"):
            for d in DELAYS:
                f = per_doubling(d, v, "plr")
                ok &= 1.5 <= f <= 2.5
                ev.append(f"{vname(v)} {d}: PLR {fmt(vals(d, v, 'plr'), ' %')}, ×{f:.2f}/doubling")
        claims.append(Claim("RED_3 and RED_4: the loss ratio roughly doubles when the MTU "
                            "doubles (factor per doubling in [1.5, 2.5], both delays)",
                            bool(ok), "; ".join(ev)))

        # 7. RED_3 and RED_4 give comparable PLR and goodput.
        worst, where = 0.0, ""
        for d in DELAYS:
            for g in G:
                for c in ("plr", "goodput"):
                    a, b = mean(d, "red3", g, c), mean(d, "red4", g, c)
                    rel = abs(a - b) / ((a + b) / 2) if a + b > 0 else 0.0
                    if rel > worst:
                        worst, where = rel, f"{c} {g} {d}: RED_3 {a:.2f} vs RED_4 {b:.2f}"
        claims.append(Claim("RED_3 and RED_4 give comparable goodput and loss ratios (every "
                            "group within 25 %)", worst <= 0.25,
                            f"largest relative difference {100 * worst:.0f} % ({where})"))

        # 8. RED_3/RED_4: fairness good at small delay, decreasing at large delay.
        ok, ev = True, []
        for v in ("red3", "red4"):
            jl, jh = mean("low", v, "all", "jain"), mean("high", v, "all", "jain")
            ok &= jl > jh
            ev.append(f"{vname(v)} Jain low {jl:.3f}, high {jh:.3f}")
        claims.append(Claim("RED_3 and RED_4: fairness between MTU groups is better at small "
                            "than at large propagation delay", bool(ok), "; ".join(ev)))

        # 9. RED_5: PLR grows with the square of the MTU.
        ok, ev = True, []
        for d in DELAYS:
            f = per_doubling(d, "red5", "plr")
            ok &= 2.83 <= f <= 5.66
            ev.append(f"{d}: PLR {fmt(vals(d, 'red5', 'plr'), ' %')}, ×{f:.2f}/doubling "
                      f"(square: ×4)")
        claims.append(Claim("RED_5: the loss ratio grows with the square of the MTU (factor per "
                            "doubling in [2.83, 5.66], both delays)", bool(ok), "; ".join(ev)))

        # 10. RED_5 gives the fairest goodput split at large delay.
        jh = {v: mean("high", v, "all", "jain") for v in VARIANTS}
        best = max(jh, key=lambda v: jh[v])
        claims.append(Claim(
            "RED_5 gives the fairest goodput split between the MTU groups at large delay "
            "(highest Jain index over the three groups)", best == "red5",
            "Jain at high delay: " + ", ".join(f"{vname(v)} {jh[v]:.3f}" for v in VARIANTS)))

        # 11. RED_4/RED_5 avoid RED_2's large-MTU goodput degradation.
        g2 = mean("low", "red2", "mtu1500", "goodput")
        g4, g5 = mean("low", "red4", "mtu1500", "goodput"), mean("low", "red5", "mtu1500", "goodput")
        claims.append(Claim(
            "RED_4 and RED_5 do not degrade the large-MTU connections as RED_2 does (large-MTU "
            "goodput at low delay ≥ 2× RED_2's)", g4 >= 2 * g2 and g5 >= 2 * g2,
            f"large-MTU goodput at low delay: RED_2 {g2:.2f}, RED_4 {g4:.2f}, RED_5 {g5:.2f} Mb/s"))
        return claims


PAPER = PktSize()
