"""Paper 001's figures redrawn from the runs: drops (Fig. 3), utilisation (Fig. 4) and
the average queue (Fig. 5) over time, and QRTRED's thresholds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..base import Figure, Runs, save_png_svg
from .measures import COLOURS, DISCIPLINES, EPS, PERIODS, bottleneck_queue, queue_unit


class FiguresMixin:
    """The figure methods of :class:`~aqmsim.papers.qrtred.QrtredPaper`."""

    @staticmethod
    def _figure(nrows: int = 1, figsize=(9.0, 4.5)):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure as MplFigure

        fig = MplFigure(figsize=figsize, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(nrows, 1, sharex=True, squeeze=False)[:, 0]
        return fig, axes

    @staticmethod
    def _periods(ax, label: bool = True) -> None:
        for i, (a, b, n) in enumerate(PERIODS):
            if n == 1:
                ax.axvspan(a, b, color="0.92", zorder=0)
            ax.axvline(a, color="0.7", lw=0.6, zorder=0)
            if label:
                ax.text((a + b) / 2, 1.0, f"{n} flow{'s' if n > 1 else ''}",
                        transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                        fontsize=8, color="0.3")

    def _fig_drops(self, runs: Runs, out: Path, keys) -> Figure:
        fig, (ax1, ax2) = self._figure(2, (9.0, 6.5))
        grid = np.arange(0, 100.01, 0.1)
        edges = np.arange(0, 101, 1.0)
        for k in keys:
            cums, per_s = [], []
            for s in runs.seeds(k):
                d = runs.get(k, s).tables["drops"]
                d = d[(d["link"] == "R1->R2") & (d["action"] == "drop")]
                t = np.sort(d["t"].to_numpy())
                cums.append(np.searchsorted(t, grid, side="right"))
                per_s.append(np.histogram(t, bins=edges)[0])
            cums = np.array(cums)
            label = DISCIPLINES[k][1]
            ax1.plot(grid, cums.mean(axis=0), color=COLOURS[k], label=label)
            ax1.fill_between(grid, cums.min(axis=0), cums.max(axis=0), color=COLOURS[k],
                             alpha=0.15, lw=0)
            ax2.stairs(np.mean(per_s, axis=0), edges, baseline=None, color=COLOURS[k],
                       label=label)
        self._periods(ax1)
        self._periods(ax2, label=False)
        ax1.set_ylabel("cumulative dropped packets")
        ax2.set_ylabel("dropped packets per second")
        ax2.set_xlabel("time (s)")
        ax1.set_title(f"Fig. 3: dropped packets at the bottleneck (mean of {len(runs.seeds(keys[0]))} "
                      "seeds; band = range)", pad=16)
        ax1.legend(loc="upper left")
        ax2.set_xlim(0, 100)
        save_png_svg(fig, out / "fig3_drops.png")
        return Figure("fig3_drops.png",
                      "Fig. 3 redrawn: drops at R1->R2 over time, cumulative (top; band = range "
                      "over seeds) and per second (bottom), mean over seeds. Grey: one-flow "
                      "periods.")

    def _fig_util(self, runs: Runs, out: Path, keys) -> Figure:
        fig, (ax,) = self._figure(1, (9.0, 4.5))
        for k in keys:
            series = []
            for s in runs.seeds(k):
                lk = runs.get(k, s).tables["links"]
                lk = lk[lk["link"] == "R1->R2"]
                sec = np.floor(lk["t"].to_numpy() + EPS)
                series.append(pd.Series(lk["utilisation"].to_numpy()).groupby(sec).mean())
            m = pd.concat(series, axis=1).mean(axis=1)
            starts = m.index.to_numpy(dtype=float)
            ax.stairs(m.to_numpy() * 100, np.append(starts, starts[-1] + 1.0),
                      baseline=None, color=COLOURS[k], label=DISCIPLINES[k][1])
        self._periods(ax)
        ax.set_xlim(0, 100)
        ax.set_ylim(None, 101)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("bottleneck utilisation (%), 1 s bins")
        ax.set_title(f"Fig. 4: utilisation of R1->R2 (mean of {len(runs.seeds(keys[0]))} seeds)",
                     pad=16)
        ax.legend(loc="lower right")
        save_png_svg(fig, out / "fig4_utilisation.png")
        return Figure("fig4_utilisation.png",
                      "Fig. 4 redrawn: bottleneck utilisation per 1 s, mean over seeds. Grey: "
                      "one-flow periods (0-20 s, 50-60 s).")

    def _fig_avgq(self, runs: Runs, out: Path, keys) -> Figure:
        fig, (ax,) = self._figure(1, (9.0, 4.5))
        seed = None
        for k in keys:
            rec = runs.first(k)
            seed = rec.seed
            q = rec.tables["queue"]
            q = q[q["link"] == "R1->R2"]
            ax.plot(q["t"], q["avg"], color=COLOURS[k], lw=1.0, label=DISCIPLINES[k][1])
        self._periods(ax)
        ax.set_xlim(0, 100)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(f"average queue (EWMA avg, {queue_unit(runs, keys[0])})")
        ax.set_title(f"Fig. 5: average queue size at R1->R2 (seed {seed})", pad=16)
        ax.legend(loc="upper left")
        save_png_svg(fig, out / "fig5_avg_queue.png")
        return Figure("fig5_avg_queue.png",
                      "Fig. 5 redrawn: RED's average queue (EWMA, packets) against time, first "
                      "seed, for the three disciplines.")

    def _fig_thresholds(self, runs: Runs, out: Path) -> Figure:
        fig, (ax,) = self._figure(1, (9.0, 4.5))
        rec = runs.first("qrtred")
        q = rec.tables["queue"]
        q = q[q["link"] == "R1->R2"]
        unit = queue_unit(runs, "qrtred")
        qd = bottleneck_queue(runs, "qrtred")
        length = (q["len_bytes"] / qd["mean_pktsize"] if qd.get("queue_in_bytes")
                  else q["len_pkts"])
        ax.plot(q["t"], length, color="0.6", lw=0.5, label=f"queue ({unit})")
        ax.plot(q["t"], q["avg"], color="tab:green", lw=1.0, label="avg (EWMA)")
        # thresholds flip at every interval of 2 cells: show a 1 s rolling mean as well
        ax.plot(q["t"], q["min_th"], color="tab:orange", lw=0.3, alpha=0.5)
        ax.plot(q["t"], q["min_th"].rolling(100, min_periods=1).mean(), color="tab:orange",
                lw=1.4, label="min_th (thin: sampled; thick: 1 s mean)")
        ax.plot(q["t"], q["max_th"].rolling(100, min_periods=1).mean(), color="tab:purple",
                lw=1.4, label="max_th = 3 min_th (1 s mean)")
        self._periods(ax)
        ax.set_xlim(0, 100)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(unit)
        ax.set_title(f"QRTRED thresholds set from QRT (seed {rec.seed}; not a figure of the paper)",
                     pad=16)
        ax.legend(loc="upper left", fontsize=8)
        save_png_svg(fig, out / "qrtred_thresholds.png")
        return Figure("qrtred_thresholds.png",
                      "Not in the paper: QRTRED's min_th and max_th as Fig. 1 sets them from QRT "
                      "(first seed), with the queue and its average.")
