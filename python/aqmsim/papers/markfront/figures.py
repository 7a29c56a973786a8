"""Paper 004's figures redrawn from the runs: buffer requirement (Fig. 3), link efficiency
(Fig. 4) and unfairness (Fig. 5) against the threshold, and one run's queue."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..base import Figure, Runs, paper_figure, save_png_svg
from .measures import (FIG3, FIG4, FIG5, MODE_LABEL, MODES, SCENARIOS, TS_SCENARIO, TS_T,
                       _seeds, bound_front, bound_tail, curve, key, maxq, rd_of, s3_clean,
                       unfairness)


class FiguresMixin:
    """The figure methods of :class:`~aqmsim.papers.markfront.MarkFrontPaper`."""

    def _fig3(self, runs: Runs, ts: Sequence[int], out: Path) -> Figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        scns = FIG3 + ("1r99",)
        fig, axes = plt.subplots(1, len(scns), figsize=(4.2 * len(scns), 4.0), squeeze=False)
        tt = np.array(ts, dtype=float)
        for ax, scn in zip(axes[0], scns):
            rtts = SCENARIOS[scn][2]
            rd = rd_of(min(rtts))
            for mode, mk, col in (("mark_tail", "x", "tab:red"), ("mark_front", "o", "tab:blue")):
                c = curve(runs, scn, mode, maxq, ts)
                if c:
                    x, m, h = (np.array(v, dtype=float) for v in zip(*c))
                    ax.errorbar(x, m, yerr=np.nan_to_num(h), fmt=mk, color=col, ms=6,
                                mfc="none" if mk == "o" else None, capsize=2,
                                label=f"{MODE_LABEL[mode]} (measured)")
            ax.plot(tt, bound_tail(tt, rd), "--", color="tab:red", lw=1,
                    label=f"2T+rd−1 (rd={rd:.1f})")
            ax.plot(tt, bound_front(tt, rd), "-", color="tab:blue", lw=1,
                    label=f"T+rd (rd={rd:.1f})")
            if len(set(rtts)) > 1:
                rdl = rd_of(max(rtts))
                ax.plot(tt, bound_tail(tt, rdl), "--", color="grey", lw=0.8,
                        label=f"2T+rd−1, largest RTT (rd={rdl:.1f})")
                ax.plot(tt, bound_front(tt, rdl), "-", color="grey", lw=0.8,
                        label="T+rd, largest RTT")
            ax.set_title(f"({'abcd'[scns.index(scn)]}) {SCENARIOS[scn][1]}", fontsize=9)
            ax.set_xlabel("threshold T (packets)")
            ax.set_ylabel("buffer requirement = max queue (packets)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle("Fig. 3 — buffer size requirement, mark-tail vs mark-front "
                     f"(mean ± 95 % CI over {len(_seeds(runs, key('1', 'mark_tail', ts[0])))} seeds)")
        return paper_figure(
            fig, out / "fig3_buffer_requirement.png",
            "Fig. 3: largest queue at r1 against T for scenarios 1, 4 and 7 "
            "(and the 99 ms variant of scenario 1), with Theorem 2's 2T+rd−1 "
            "(dashed) and Theorem 3's T+rd (solid), rd from the smallest RTT; grey: "
            "the same lines from the largest RTT.")

    def _fig_metric(self, runs: Runs, ts: Sequence[int], scns: Sequence[str], fn, ylabel: str,
                    fname: str, suptitle: str, out: Path, ncol: int = 3) -> Path:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        nrow = int(math.ceil(len(scns) / ncol))
        fig, axes = plt.subplots(nrow, ncol, figsize=(4.3 * ncol, 3.4 * nrow), squeeze=False)
        for i, scn in enumerate(scns):
            ax = axes[i // ncol][i % ncol]
            for mode, ls, col in (("mark_tail", "--", "tab:red"), ("mark_front", "-", "tab:blue")):
                c = curve(runs, scn, mode, fn, ts)
                if not c:
                    continue
                x, m, h = (np.array(v, dtype=float) for v in zip(*c))
                ax.plot(x, m, ls, color=col, marker=".", label=MODE_LABEL[mode])
                h = np.nan_to_num(h)
                ax.fill_between(x, m - h, m + h, color=col, alpha=0.15)
                if scn == "3" and "unfair" in fname:
                    cl = [(t, v) for t, v in s3_clean(runs, mode, ts).items() if v is not None]
                    if cl:
                        ax.plot(*zip(*cl), ":", color=col, marker="x", ms=4,
                                label=f"{MODE_LABEL[mode]}, runs whose first packet survived")
            extra = " (extra)" if scn == "5" and "unfair" in fname else ""
            ax.set_title(f"({'abcdefgh'[i]}) S{scn}: {SCENARIOS[scn][1]}{extra}", fontsize=9)
            ax.set_xlabel("threshold T (packets)")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
            if scn == "3" and "unfair" in fname:
                ax.legend(fontsize=6.5, loc="upper left")
            else:
                ax.legend(fontsize=8)
        for j in range(len(scns), nrow * ncol):
            axes[j // ncol][j % ncol].axis("off")
        fig.suptitle(suptitle)
        fig.tight_layout()
        path = out / fname
        save_png_svg(fig, path)
        plt.close(fig)
        return path

    def _fig4(self, runs: Runs, ts: Sequence[int], out: Path) -> Figure:
        p = self._fig_metric(runs, ts, FIG4, self.eff, "link efficiency",
                             "fig4_link_efficiency.png",
                             "Fig. 4 — link efficiency (mean, 95 % CI band); mark-front solid, "
                             "mark-tail dashed", out)
        return Figure(p.name, "Fig. 4: link efficiency (acknowledged packets / packets the "
                      "bottleneck could carry in 10 s) against T; panels (c) and (f) have a "
                      "25-packet buffer.")

    def _fig5(self, runs: Runs, ts: Sequence[int], out: Path) -> Figure:
        p = self._fig_metric(runs, ts, FIG5, unfairness, "unfairness = 1 − Jain's index",
                             "fig5_unfairness.png",
                             "Fig. 5 — unfairness (mean, 95 % CI band); mark-front solid, "
                             "mark-tail dashed", out, ncol=4)
        return Figure(p.name, "Fig. 5: unfairness against T, panels (a)–(f) as in the paper "
                      "(scenarios 2, 3, 4, 6, 8, 7) and (g) scenario 5 (extra).")

    def _fig_queue(self, runs: Runs, out: Path) -> Optional[Figure]:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        series = {}
        for mode in MODES:
            k = key(TS_SCENARIO, mode, TS_T)
            if k in runs.experiments and _seeds(runs, k):
                q = runs.first(k).tables.get("queue")
                if q is not None and len(q):
                    series[mode] = q[q["link"] == "R1->R2"]
        if not series:
            return None
        rd = rd_of(59)
        fig, ax = plt.subplots(figsize=(8, 3.6))
        for mode, col in (("mark_tail", "tab:red"), ("mark_front", "tab:blue")):
            if mode in series:
                q = series[mode]
                ax.plot(q["t"], q["len_pkts"], color=col, lw=1, label=MODE_LABEL[mode])
        ax.axhline(TS_T, color="k", lw=0.8, ls=":", label=f"T = {TS_T}")
        ax.axhline(bound_tail(TS_T, rd), color="tab:red", lw=0.8, ls="--", label="2T+rd−1")
        ax.axhline(bound_front(TS_T, rd), color="tab:blue", lw=0.8, ls="-", label="T+rd")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue at r1 (packets, 10 ms samples)")
        ax.set_title(f"Scenario 1, T = {TS_T}: queue of one ECN Reno connection (first seed)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
        return paper_figure(
            fig, out / "queue_s1_T20.png",
            "Queue at r1 over time, scenario 1 with T = 20, mark-tail vs "
            "mark-front: the slow-start peak is the buffer requirement (sampled every "
            "10 ms, so the plotted peak can be below max_queue_pkts).")
