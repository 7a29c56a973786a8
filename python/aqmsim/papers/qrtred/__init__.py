"""Paper 001: Jamali, Alipasandi & Alipasandi, *An Improvement over Random Early Detection
Algorithm: A Self-Tuning Approach* (QRTRED), J. Electrical and Computer Engineering
Innovations, 2014.

One dynamic scenario (1 -> 2 -> 3 -> 1 -> 6 -> 20 Reno/FTP flows over 100 s through a RED
bottleneck with a 100-packet buffer) under three disciplines: RED (5, 15), RED (10, 40) and
QRTRED. Table 1 (average utilisation, total drops), Fig. 3 (drops over time), Fig. 4
(utilisation over time) and Fig. 5 (average queue over time) are redrawn from our runs, and
the paper's claims are checked on them.

The paper leaves many choices open (queue units, gentle, w_q, max_p, the unit of QRT, the
TCP window, delayed ACKs, the link rates of its missing Fig. 2, …): :mod:`.readings` lists
them with their candidate readings; the scenario files hold the primary reading of each,
and ``aqmsim reproduce qrtred`` runs every alternative one at a time (``reading_seeds``
seeds each) beside it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..base import Cell, Claim, Experiment, Figure, Paper, Report, Runs, Table, mean_ci, t95
from ..readings import Choice

__all__ = ["QrtredPaper", "PAPER", "DISCIPLINES", "PERIODS", "LIGHT"]

#: experiment key -> (scenario file, label used in tables and legends)
DISCIPLINES: Dict[str, Tuple[str, str]] = {
    "red_5_15": ("red_5_15.toml", "RED (min_th 5, max_th 15)"),
    "red_10_40": ("red_10_40.toml", "RED (min_th 10, max_th 40)"),
    "qrtred": ("qrtred.toml", "QRTRED"),
}
#: Table 1's row names, as the paper writes them
PAPER_ROW = {
    "red_5_15": "RED with default value (5, 15)",
    "red_10_40": "RED with min_th=10, max_th=40",
    "qrtred": "Proposed RED (QRTRED)",
}
COLOURS = {"red_5_15": "tab:red", "red_10_40": "tab:blue", "qrtred": "tab:green"}
#: load periods of the scenario: (start, end, active flows)
PERIODS: List[Tuple[float, float, int]] = [
    (0, 20, 1), (20, 40, 2), (40, 50, 3), (50, 60, 1), (60, 80, 6), (80, 100, 20)]
#: the light-load (one-flow) periods the paper singles out
LIGHT: List[Tuple[float, float]] = [(0, 20), (50, 60)]
EPS = 1e-9


# ------------------------------------------------------------------ per-run measures
def _in_windows(t: np.ndarray, windows: Sequence[Tuple[float, float]]) -> np.ndarray:
    t = np.asarray(t, dtype=float)
    m = np.zeros(len(t), dtype=bool)
    for a, b in windows:
        m |= (t >= a - EPS) & (t < b - EPS)
    return m


class RunSeries:
    """One run's bottleneck utilisation bins and drop times as arrays, read once (the
    per-period numbers ask for many windows of the same run)."""

    def __init__(self, links: pd.DataFrame, drops: pd.DataFrame, link: str = "R1->R2"):
        m = (links["link"] == link).to_numpy()
        self.t = links["t"].to_numpy(dtype=float)[m]
        self.util = links["utilisation"].to_numpy(dtype=float)[m]
        md = ((drops["link"] == link) & (drops["action"] == "drop")).to_numpy()
        self.drop_t = drops["t"].to_numpy(dtype=float)[md]

    def utilisation(self, windows: Sequence[Tuple[float, float]]) -> float:
        """Mean utilisation over the bins that start inside ``windows`` (bins are equal in
        length, so the mean of bins is the utilisation of the union)."""
        m = _in_windows(self.t, windows)
        return float(self.util[m].mean()) if m.any() else float("nan")

    def drops(self, windows: Sequence[Tuple[float, float]]) -> int:
        return int(_in_windows(self.drop_t, windows).sum())


def window_utilisation(links: pd.DataFrame, windows: Sequence[Tuple[float, float]],
                       link: str = "R1->R2") -> float:
    """Mean bottleneck utilisation over the bins that start inside ``windows``."""
    empty = pd.DataFrame({"t": [], "link": [], "action": []})
    return RunSeries(links, empty, link).utilisation(windows)


def window_drops(drops: pd.DataFrame, windows: Sequence[Tuple[float, float]],
                 link: str = "R1->R2") -> int:
    empty = pd.DataFrame({"t": [], "link": [], "utilisation": []})
    return RunSeries(empty, drops, link).drops(windows)


def per_seed(runs: Runs, key: str, fn) -> np.ndarray:
    """``fn(record)`` for every seed of experiment ``key``."""
    return np.array([float(fn(runs.get(key, s))) for s in runs.seeds(key)])


def bottleneck_queue(runs: Runs, key: str) -> Dict[str, object]:
    """The bottleneck queue's table of experiment ``key``'s scenario."""
    return runs.experiments[key].scenario.to_dict()["dumbbell"]["bottleneck"]["queue"]


def queue_unit(runs: Runs, key: str) -> str:
    """The unit RED's average and thresholds are in: packets, or mean_pktsize bytes."""
    q = bottleneck_queue(runs, key)
    if q.get("queue_in_bytes"):
        return f"units of {q.get('mean_pktsize', 500):g} bytes (ns-2 byte mode)"
    return "packets"


# ------------------------------------------------------------------ comparisons
def _fmt_ci(mean: float, half: float, fmt: str = "{:.2f}") -> str:
    if math.isnan(half):
        return fmt.format(mean)
    return (fmt + " ± " + fmt).format(mean, half)


def compare(a: np.ndarray, b: np.ndarray) -> Tuple[float, float]:
    """Difference of means a − b and its 95 % half-width (Welch, conservative df)."""
    a = a[~np.isnan(a)]
    b = b[~np.isnan(b)]
    d = float(a.mean() - b.mean())
    if len(a) < 2 or len(b) < 2:
        return d, float("nan")
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return d, float(t95(min(len(a), len(b))) * se)


def less_claim(text: str, a: np.ndarray, b: np.ndarray, name_a: str, name_b: str,
               what: str, fmt: str = "{:.2f}", higher: bool = False) -> Claim:
    """Claim that the mean of ``a`` is below (``higher``: above) that of ``b``: holds when
    the 95 % interval of the difference a − b lies wholly on that side of zero (with one
    seed, where no interval exists: when the means are in that order)."""
    d, h = compare(a, b)
    ma, ha = mean_ci(a)
    mb, hb = mean_ci(b)
    sign = 1.0 if higher else -1.0  # the side of zero the claim needs
    if math.isnan(h):
        holds = sign * d > 0
        sig = "one seed: no interval, means compared"
    else:
        holds = sign * d - h > 0
        sig = (f"difference {fmt.format(d)} ± {fmt.format(h)}"
               + (" (significant at 95 %)" if abs(d) > h else " (not significant at 95 %)"))
    ev = (f"{what}: {name_a} {_fmt_ci(ma, ha, fmt)} vs {name_b} {_fmt_ci(mb, hb, fmt)} "
          f"over {len(a)} seeds; {sig}.")
    return Claim(text, bool(holds), ev)


# ------------------------------------------------------------------ the paper
class QrtredPaper(Paper):
    name = "qrtred"
    number = "001"
    title = "An Improvement over Random Early Detection Algorithm: A Self-Tuning Approach"
    citation = ("S. Jamali, N. Alipasandi, B. Alipasandi, Journal of Electrical and Computer "
                "Engineering Innovations 2(1), 2014")
    #: one run takes ~0.02-0.06 s; 30 seeds x 3 experiments run in about a second
    default_seeds = 30
    #: seeds of each alternative reading (37 alternative experiments: 370 runs)
    reading_seeds = 10
    #: seeds of the ns-2 column (ns-2 runs the two RED experiments, ~0.3 s a run; it has
    #: no QRTRED)
    ns2_seeds = 10

    def experiments(self) -> List[Experiment]:
        exps: List[Experiment] = []
        for key, (fname, label) in DISCIPLINES.items():
            sc = self.scenario(fname)
            exps.append(Experiment(key, sc, {"discipline": label},
                                   keep=("links", "drops"), keep_first=("queue",)))
        return exps

    def readings(self) -> List[Choice]:
        """The open choices and their readings (:mod:`.readings`)."""
        from .readings import choices

        return choices()

    # -------------------------------------------------------------- analysis
    def analyse(self, runs: Runs, out: Path) -> Report:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        pub = self.published()

        def published(key: str, metric: str) -> Optional[float]:
            r = pub[(pub["experiment"] == key) & (pub["metric"] == metric)]
            return float(r["value"].iloc[0]) if len(r) else None

        keys = list(DISCIPLINES)
        # ---------------- Table 1
        t1_rows = []
        for k in keys:
            t1_rows.append([
                PAPER_ROW[k],
                runs.cell(k, "utilisation", published(k, "avg_utilisation"), scale=100.0),
                runs.cell(k, "bottleneck_drops", published(k, "total_drops")),
                runs.cell(k, "time_avg_queue_pkts"),
            ])
        table1 = Table(
            "Table 1: comparison of the algorithms (bottleneck R1->R2, 0-100 s)",
            ["Algorithm", "Average utilisation (%)", "Total drop (packets)",
             "Time-average queue (packets, not in the paper)"],
            t1_rows,
            note=("Ours: mean ± 95 % interval over seeds. Utilisation = bits sent on R1->R2 / "
                  "(its rate x 100 s); total drop = every packet dropped at the bottleneck "
                  "queue. The RED (10, 40) row is the paper's 'min_th=10, max_th=40' (the "
                  "Fig. 3 discussion once writes (5, 40): reading red2_thresholds=5-40)."),
        )

        # ---------------- per-period table (ours only)
        series: Dict[int, RunSeries] = {}  # by record, for this analysis only

        def of(r) -> RunSeries:
            if id(r) not in series:
                series[id(r)] = RunSeries(r.tables["links"], r.tables["drops"])
            return series[id(r)]

        def util_w(w):
            return lambda r: of(r).utilisation(w)

        def drops_w(w):
            return lambda r: of(r).drops(w)

        per_rows = []
        for (a, b, n) in PERIODS:
            row: List[object] = [f"{a:g}-{b:g} s ({n} flow{'s' if n > 1 else ''})"]
            for k in keys:
                m, h = mean_ci(per_seed(runs, k, util_w([(a, b)])) * 100)
                row.append(Cell(m, h))
            for k in keys:
                m, h = mean_ci(per_seed(runs, k, drops_w([(a, b)])))
                row.append(Cell(m, h))
            per_rows.append(row)
        row = ["light load: 0-20 s and 50-60 s"]
        for k in keys:
            row.append(Cell(*mean_ci(per_seed(runs, k, util_w(LIGHT)) * 100)))
        for k in keys:
            row.append(Cell(*mean_ci(per_seed(runs, k, drops_w(LIGHT)))))
        per_rows.append(row)
        short = {"red_5_15": "RED(5,15)", "red_10_40": "RED(10,40)", "qrtred": "QRTRED"}
        table_periods = Table(
            "Per load period (ours; the paper gives these only as Figs. 3-4)",
            ["Period"] + [f"Utilisation % {short[k]}" for k in keys]
            + [f"Drops {short[k]}" for k in keys],
            per_rows,
            note="Mean ± 95 % interval over seeds; utilisation from 0.1 s bins of R1->R2.",
        )

        tables = [table1, table_periods]
        # ---------------- figures
        tables.append(self._metric_table(runs, keys, published))
        figures: List[Figure] = []
        if self.figures:
            figures = [
                self._fig_drops(runs, out, keys),
                self._fig_util(runs, out, keys),
                self._fig_avgq(runs, out, keys),
                self._fig_thresholds(runs, out),
            ]

        # ---------------- claims
        claims = self._claims(runs, keys, util_w, drops_w)

        assumptions = self.assumptions() + [
            "Metrics: 'average utilisation' = bits sent on the bottleneck R1->R2 over the "
            "whole 100 s / (rate x 100 s); 'total drop' = packets dropped at the bottleneck "
            "queue (no other queue drops); 'average queue size' (Fig. 5) = the discipline's "
            "EWMA avg, sampled every 10 ms, in the unit of the thresholds: packets in packet "
            "mode, mean_pktsize bytes in ns-2's byte mode.",
            "Figures: Figs. 3 and 4 show the mean over all seeds (Fig. 3 cumulative drops "
            "with the range over seeds, and drops per second; Fig. 4 utilisation per 1 s bin); "
            "Fig. 5 and the QRTRED threshold figure show the first seed's run.",
            "Claims: 'A below B' holds when the 95 % interval of the difference of means "
            "(Welch) lies wholly on the claimed side of zero; with one seed the means "
            "are compared.",
            "Randomness: each seed gives every component its own independent random stream; "
            "in this scenario only the RED/QRTRED drop decisions are random (flows start at "
            "the paper's exact times, every host has the same links).",
            "Table 1's row 'RED with min_th=10, max_th=40' is run as (10, 40); the paper's "
            "text once writes (5, 40): the alternative reading red2_thresholds=5-40.",
        ]
        return Report(self, tables, figures, claims, assumptions,
                      seeds=runs.seeds(keys[0]))

    # -------------------------------------------------------------- metric definitions
    @staticmethod
    def _metric_table(runs: Runs, keys, published) -> Table:
        """Table 1's two numbers under the other definitions the paper's words allow, beside
        the published value (shown, not compared: the compared cells are Table 1's)."""
        rows = []
        for k in keys:
            rate = runs.values(k, "bottleneck_rate_bps")
            good = runs.values(k, "goodput_bps") / rate * 100.0
            hard = runs.values(k, "drops_forced") + runs.values(k, "drops_overflow")
            rows.append([
                PAPER_ROW[k],
                published(k, "avg_utilisation"),
                runs.cell(k, "utilisation", scale=100.0),
                Cell(*mean_ci(good)),
                published(k, "total_drops"),
                runs.cell(k, "bottleneck_drops"),
                runs.cell(k, "drops_early"),
                Cell(*mean_ci(hard)),
            ])
        return Table(
            "Metric definitions (not compared): Table 1's numbers under other readings of "
            "its words",
            ["Algorithm", "Published utilisation (%)", "Link utilisation (%) (Table 1)",
             "Goodput / rate (%)", "Published total drop", "All bottleneck drops (Table 1)",
             "Early (random) drops", "Forced + overflow drops"],
            rows,
            note=("'Average Utilization' read as bits sent on R1->R2 (headers and "
                  "retransmissions included) over rate x 100 s, as an ns-2 link or queue "
                  "monitor counts it (Table 1), or as the TCP goodput (new payload bytes "
                  "delivered) over the same; 'Total Drop' as every drop at the bottleneck "
                  "(Table 1: ns-2's trace 'd' events, no other queue drops), or only RED's "
                  "early drops, or only the forced and overflow drops. Mean ± 95 % interval "
                  "over seeds."),
        )

    # -------------------------------------------------------------- claims
    def _claims(self, runs: Runs, keys, util_w, drops_w) -> List[Claim]:
        drops = {k: runs.values(k, "bottleneck_drops") for k in keys}
        util = {k: runs.values(k, "utilisation") * 100 for k in keys}
        avgq = {k: runs.values(k, "time_avg_queue_pkts") for k in keys}
        light_u = {k: per_seed(runs, k, util_w(LIGHT)) * 100 for k in keys}
        light_d = {k: per_seed(runs, k, drops_w(LIGHT)) for k in keys}
        R1, R2, Q = "RED(5,15)", "RED(10,40)", "QRTRED"
        c: List[Claim] = [
            less_claim("QRTRED drops fewer packets than RED with default values (5, 15) "
                       "(Table 1: 1136 vs 1720).",
                       drops["qrtred"], drops["red_5_15"], Q, R1, "total drops", "{:.0f}"),
            less_claim("QRTRED drops fewer packets than RED (10, 40) (Table 1: 1136 vs 1367).",
                       drops["qrtred"], drops["red_10_40"], Q, R2, "total drops", "{:.0f}"),
            less_claim("QRTRED has a higher average utilisation than RED (5, 15) "
                       "(Table 1: 94.51 vs 91.14 %).",
                       util["qrtred"], util["red_5_15"], Q, R1, "average utilisation %",
                       higher=True),
            less_claim("QRTRED has a higher average utilisation than RED (10, 40) "
                       "(Table 1: 94.51 vs 93.36 %).",
                       util["qrtred"], util["red_10_40"], Q, R2, "average utilisation %",
                       higher=True),
            less_claim("RED (10, 40) drops fewer packets than RED (5, 15) "
                       "(Table 1: 1367 vs 1720).",
                       drops["red_10_40"], drops["red_5_15"], R2, R1, "total drops", "{:.0f}"),
            less_claim("In the light-load periods (0-20 s and 50-60 s, one flow) QRTRED's "
                       "utilisation is noticeably higher than RED (5, 15)'s (Fig. 4).",
                       light_u["qrtred"], light_u["red_5_15"], Q, R1,
                       "utilisation % over 0-20 s and 50-60 s", higher=True),
            less_claim("In the light-load periods (0-20 s and 50-60 s, one flow) QRTRED's "
                       "utilisation is noticeably higher than RED (10, 40)'s (Fig. 4).",
                       light_u["qrtred"], light_u["red_10_40"], Q, R2,
                       "utilisation % over 0-20 s and 50-60 s", higher=True),
        ]
        # QRTRED drops none in the light periods
        ld = light_d["qrtred"]
        zero = int((ld == 0).sum())
        c.append(Claim(
            "In the light-load periods (0-20 s and 50-60 s) QRTRED drops no packets.",
            bool(len(ld) > 0 and np.all(ld == 0)),
            f"QRTRED drops in 0-20 s and 50-60 s: mean {ld.mean():.2f}, max {ld.max():.0f} "
            f"per run; zero in {zero} of {len(ld)} seeds (RED(5,15): mean "
            f"{light_d['red_5_15'].mean():.1f}; RED(10,40): mean "
            f"{light_d['red_10_40'].mean():.1f}).",
        ))
        c.append(less_claim(
            "RED (5, 15)'s average queue is below RED (10, 40)'s (Fig. 5).",
            avgq["red_5_15"], avgq["red_10_40"], R1, R2, "time-average queue (packets)"))
        c.append(less_claim(
            "RED (5, 15)'s average queue is the lowest of the three ('slightly lower than the "
            "others', Fig. 5): below QRTRED's.",
            avgq["red_5_15"], avgq["qrtred"], R1, Q, "time-average queue (packets)"))
        return c

    # -------------------------------------------------------------- figures
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
        fig.savefig(out / "fig3_drops.png", dpi=110)
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
        fig.savefig(out / "fig4_utilisation.png", dpi=110)
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
        fig.savefig(out / "fig5_avg_queue.png", dpi=110)
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
        fig.savefig(out / "qrtred_thresholds.png", dpi=110)
        return Figure("qrtred_thresholds.png",
                      "Not in the paper: QRTRED's min_th and max_th as Fig. 1 sets them from QRT "
                      "(first seed), with the queue and its average.")


PAPER = QrtredPaper()
