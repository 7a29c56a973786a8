"""Paper 002's figures drawn from the runs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from ..base import Figure, Runs, save_png_svg
from .measures import BOTTLENECK, DELAYS, DELAY_TEXT, GROUPS, MTUS, Metrics, VARIANTS, key_of, vname


class FiguresMixin:
    """The figure methods of :class:`~aqmsim.papers.pktsize.PktSize`."""

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
            save_png_svg(fig, out / fname)
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
        save_png_svg(fig, out / "plr_vs_mtu.png")
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
        save_png_svg(fig, out / "queue.png")
        plt.close(fig)
        figs.append(Figure("queue.png", "Bottleneck queue and RED average (RED_1, first seed, "
                           "middle fifth of the run) at low and high delay, thresholds dashed: "
                           "where RED operates decides how much of the dropping is size-"
                           "weighted."))
        return figs
