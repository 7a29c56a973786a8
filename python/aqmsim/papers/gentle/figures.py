"""Paper 003's figures redrawn from the runs (the average queue against its thresholds)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from ..base import Figure, Runs, save_png_svg
from .measures import FIGURES, THRESHOLDS, _key


class FiguresMixin:
    """The figure methods of :class:`~aqmsim.papers.gentle.GentlePaper`."""

    def _figures(self, runs: Runs, out: Path) -> List[Figure]:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure as MplFigure
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        figs: List[Figure] = []
        names = {"ared": "ARED", "droptail": "TD (DropTail)", "gentle": "GRED", "red": "RED"}
        for (n, kind), num in sorted(FIGURES.items(), key=lambda kv: kv[1]):
            key = _key(n, kind)
            rec = runs.first(key)
            q = rec.tables.get("queue")
            fig = MplFigure(figsize=(8, 3.6))
            FigureCanvasAgg(fig)
            ax = fig.add_subplot()
            min_th, max_th = THRESHOLDS[n]
            if q is not None and not q.empty:
                q = q[q["link"] == "n2->n3"]
                ax.plot(q["t"], q["len_pkts"], lw=0.8, color="tab:blue",
                        label="actual queue [packets]")
                if kind != "droptail":
                    ax.plot(q["t"], q["avg"], lw=1.6, color="tab:red",
                            label="average queue (RED's EWMA)")
            if kind != "droptail":
                ax.axhline(min_th, ls="--", lw=0.9, color="grey", label=f"min_th = {min_th:g}")
                ax.axhline(max_th, ls="--", lw=0.9, color="black", label=f"max_th = {max_th:g}")
                if kind == "gentle":
                    ax.axhline(2 * max_th, ls=":", lw=1.2, color="purple",
                               label=f"2·max_th = {2 * max_th:g}")
            limit = runs.experiments[key].scenario.to_dict()["links"][2]["queue"]["limit"]
            ax.set_xlim(0, 10)
            ax.set_ylim(0, max(limit, 2 * max_th) + 2)
            ax.set_xlabel("time [s]")
            ax.set_ylabel("queue length [packets]")
            ax.set_title(f"Fig. {num}: scenario {n}, {names[kind]} queue dynamics at n2→n3 "
                         f"(seed {rec.seed})")
            ax.legend(loc="upper right", fontsize=8, ncol=2)
            ax.grid(alpha=0.3)
            fig.subplots_adjust(left=0.08, right=0.98, top=0.91, bottom=0.14)
            path = f"fig{num:02d}_s{n}_{kind}.png"
            save_png_svg(fig, out / path)
            cap = (f"Fig. {num} redrawn: scenario {n}, {names[kind]} — the bottleneck's actual "
                   f"queue (sampled every 10 ms)")
            if kind != "droptail":
                cap += (" and RED's average queue (in units of mean_pktsize bytes, byte mode), "
                        "with the thresholds")
            else:
                cap += " (DropTail keeps no average: the paper ignores it too)"
            figs.append(Figure(path, cap + f"; first seed ({rec.seed})."))

        # ARED's max_p, both scenarios: the adaptation behind its numbers
        fig = MplFigure(figsize=(8, 3.4))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        for n, color in ((1, "tab:blue"), (2, "tab:orange")):
            rec = runs.first(_key(n, "ared"))
            q = rec.tables.get("queue")
            if q is not None and not q.empty:
                q = q[q["link"] == "n2->n3"]
                ax.step(q["t"], q["max_p"], where="post", color=color, label=f"scenario {n}")
        ax.set_xlim(0, 10)
        ax.set_xlabel("time [s]")
        ax.set_ylabel("max_p")
        ax.set_title("ARED's max_p at the bottleneck (AIMD every 0.5 s toward the 40–60 % band)")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.subplots_adjust(left=0.09, right=0.98, top=0.9, bottom=0.15)
        save_png_svg(fig, out / "ared_max_p.png")
        figs.append(Figure("ared_max_p.png",
                           "Not in the paper: ARED's max_p over time in both scenarios (first "
                           "seed); it falls from 0.1 where the average stays below the target "
                           "band, which lets the queue grow and raises ARED's delay."))
        return figs
