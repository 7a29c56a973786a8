"""Paper 001's claims, checked on the runs: comparisons of means over seeds with Welch
intervals (the part of :class:`~aqmsim.papers.qrtred.QrtredPaper` that judges)."""

from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np

from ..base import Claim, Runs, mean_ci, t95
from .measures import LIGHT, per_seed


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


class ClaimsMixin:
    """The claim methods of :class:`~aqmsim.papers.qrtred.QrtredPaper`."""

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
