"""Paper 000's figures redrawn from the runs: drops per area (Fig. 4-5) and, per scenario,
the drop probability and max_p (Fig. 6/8/10) and the queue (Fig. 7/9/11)."""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np

from ..base import Figure, Runs, mean_ci, save_png_svg
from .measures import (AREA_TEXT, AREAS, COLOR, FIGNUM, ROMAN, SCENARIOS, SHORT, STRATEGIES,
                       _new_fig, key)


class FiguresMixin:
    """The figure methods of :class:`~aqmsim.papers.rtred.RtredPaper`."""

    def _fig_areas(self, shares, out: Path) -> List[Figure]:
        figs: List[Figure] = []
        x = np.arange(len(AREAS))
        width = 0.8 / len(STRATEGIES)
        fig, axes = _new_fig(13.0, 4.0, 1, 3, sharey=True)
        for i, s in enumerate(SCENARIOS):
            ax = axes[0][i]
            for j, k in enumerate(STRATEGIES):
                df = shares[(s, k)]
                ms, hs = zip(*[mean_ci(df[f"share_{a}"] * 100.0) for a in AREAS])
                ax.bar(x + (j - (len(STRATEGIES) - 1) / 2) * width, ms, width,
                       yerr=np.nan_to_num(hs), capsize=2, color=COLOR[k], label=SHORT[k],
                       hatch="//" if k == "ared_feng" else None)
            ax.set_xticks(x, [AREA_TEXT[a].replace(" [", "\n[") for a in AREAS], fontsize=8)
            ax.set_title(f"Scenario {ROMAN[s]}")
            ax.grid(axis="y", alpha=0.3)
        axes[0][0].set_ylabel("share of the bottleneck's drops (%)")
        axes[0][0].legend(fontsize=8)
        fig.suptitle("Fig. 4: percentage of packets dropped in each drop area "
                     "(by the actual queue at the drop; mean and 95 % CI over seeds)")
        p = out / "fig4_drop_areas.png"
        save_png_svg(fig, p)
        figs.append(Figure(p.name, "Fig. 4: share of the bottleneck's drops in each drop area "
                                   "(unfair, normal, safe, timeout) per scenario and strategy."))

        fig, axes = _new_fig(7.5, 4.2)
        ax = axes[0][0]
        for j, k in enumerate(STRATEGIES):
            ms, hs = zip(*[mean_ci(self._avg_share(shares, k, a) * 100.0) for a in AREAS])
            ax.bar(x + (j - (len(STRATEGIES) - 1) / 2) * width, ms, width,
                   yerr=np.nan_to_num(hs), capsize=2, color=COLOR[k], label=SHORT[k],
                   hatch="//" if k == "ared_feng" else None)
        ax.set_xticks(x, [AREA_TEXT[a].replace(" [", "\n[") for a in AREAS], fontsize=8)
        ax.set_ylabel("share of the bottleneck's drops (%)")
        ax.set_title("Fig. 5: drop areas, average of the three scenarios")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        p = out / "fig5_drop_areas_average.png"
        save_png_svg(fig, p)
        figs.append(Figure(p.name, "Fig. 5: share of drops per drop area, averaged over the "
                                   "three scenarios (mean and 95 % CI over seeds)."))
        return figs

    def _fig_series(self, runs: Runs, out: Path) -> List[Figure]:
        figs: List[Figure] = []
        t1 = self.table1()
        order = ("ared", "rtred", "red", "ared_feng")  # the paper's (a), (b), (c); (d) extra
        units = {k: self.unit(runs, k) for k in runs.experiments}
        for s in SCENARIOS:
            fp, fq = FIGNUM[s]
            th = t1[s]
            seed = runs.seeds(key(s, "red"))[0]
            # drop probability and max_p
            fig, axes = _new_fig(12.0, 6.5, 2, 2, sharex=True)
            for i, k in enumerate(order):
                ax = axes[i // 2][i % 2]
                q = self._queue(runs, key(s, k))
                ax.plot(q["t"], q["p"], lw=0.6, color="tab:orange", label="drop probability p")
                ax.plot(q["t"], q["max_p"], lw=1.4, color="black", label="max_p")
                ax.axhline(th["max_p"], ls=":", color="gray", lw=0.8)
                ax.set_title(f"({'abcd'[i]}) {SHORT[k]}")
                ax.set_ylabel("probability")
                ax.grid(alpha=0.3)
                if i >= 2:
                    ax.set_xlabel("time (s)")
                if i == 0:
                    ax.legend(fontsize=8, loc="upper right")
            fig.suptitle(f"Fig. {fp}: drop probability and max_p, scenario {ROMAN[s]} "
                         f"(initial max_p {th['max_p']:g}, dotted; seed {seed})")
            p = out / f"fig{fp}_p_maxp_s{s}.png"
            save_png_svg(fig, p)
            figs.append(Figure(p.name, f"Fig. {fp}: drop probability p (RED's p_a at the last "
                                       f"decision) and max_p over time, scenario {ROMAN[s]}."))
            # queue
            fig, axes = _new_fig(12.0, 6.5, 2, 2, sharex=True, sharey=True)
            for i, k in enumerate(order):
                ax = axes[i // 2][i % 2]
                q = self._queue(runs, key(s, k))
                u = units[key(s, k)]
                # the actual queue in the unit of the thresholds (avg already is)
                ax.plot(q["t"], u.actual(q), lw=0.5, color="tab:blue", label="actual queue")
                ax.plot(q["t"], q["avg"], lw=1.4, color="tab:red", label="average queue")
                for name, style in (("min_th", "--"), ("max_th", "--"), ("risk_th", ":"),
                                    ("buffer", "-")):
                    ax.axhline(th[name], ls=style, color="gray", lw=0.8)
                    if i % 2 == 1:
                        ax.annotate(name, (1.0, th[name]), xycoords=("axes fraction", "data"),
                                    fontsize=7, color="gray", va="center",
                                    xytext=(2, 0), textcoords="offset points")
                ax.set_title(f"({'abcd'[i]}) {SHORT[k]}")
                ax.set_ylabel(f"queue ({u.name})")
                ax.grid(alpha=0.3)
                if i >= 2:
                    ax.set_xlabel("time (s)")
                if i == 0:
                    ax.legend(fontsize=8, loc="lower right")
            names = sorted({units[key(s, k)].name for k in order})
            fig.suptitle(f"Fig. {fq}: average and actual queue sizes, scenario {ROMAN[s]} "
                         f"(min_th {th['min_th']:g}, max_th {th['max_th']:g}, risk_th "
                         f"{th['risk_th']:g}, buffer {th['buffer']:g}, in "
                         f"{' / '.join(names)}; seed {seed})")
            p = out / f"fig{fq}_queue_s{s}.png"
            save_png_svg(fig, p)
            figs.append(Figure(p.name, f"Fig. {fq}: actual and average queue over time, "
                                       f"scenario {ROMAN[s]}, with Table I's thresholds, "
                                       f"queue and thresholds in {' / '.join(names)}."))
        return figs

    # ------------------------------------------------------------------ claims
