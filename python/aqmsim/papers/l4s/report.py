"""The L4S reproduction's tables, claims and figure, computed from the runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..base import Cell, Claim, Figure, Runs, Table, mean_ci, paper_figure
from . import measures as M

__all__ = ["tables", "claims", "figures"]


def _published(pub: pd.DataFrame, claim: str, k: int) -> Optional[float]:
    r = pub[(pub["claim"] == claim) & (pub["coupling"] == k)]
    return float(r["value"].iloc[0]) if len(r) else None


def _cell(runs: Runs, key: str, fn: Any, *args: Any, published: Optional[float] = None,
          scale: float = 1.0, name: str = "") -> Cell:
    return runs.cell_by(key, M.bind(fn, *args), published, scale, tables=("flows",),
                        name=name or fn.__name__)


def _present(runs: Runs, key: str) -> bool:
    return bool(runs.seeds(key))


def _diff(runs: Runs, key: str, rtt: int, k: int) -> Tuple[float, float]:
    """(ours / RFC − 1) per seed's mean, for the RFC at each flow's own RTT and at equal RTT."""
    ours = float(np.nanmean(runs.values_by(key, M.ratio)))
    own = float(np.nanmean(runs.values_by(key, M.bind(M.predicted_ratio, rtt, k))))
    return ours / own - 1.0, ours / M.analytic_ratio(k) - 1.0


def tables(runs: Runs, pub: pd.DataFrame) -> List[Table]:
    rtt_rows: List[List[Any]] = []
    for rtt in M.RTTS_MS:
        key = M.key_rtt(rtt)
        if not _present(runs, key):
            continue
        # the RFC's equal-RTT number is compared only where the queues add least to the RTTs
        published = _published(pub, "ratio_equal_rtt", 2) if rtt == M.K_RTT_MS else None
        rtt_rows.append([
            f"{rtt} ms",
            _cell(runs, key, M.rtt_of, "scalable", rtt, scale=1e3, name="R_L"),
            _cell(runs, key, M.rtt_of, "classic", rtt, scale=1e3, name="R_C"),
            _cell(runs, key, M.ratio, published=published),
            _cell(runs, key, M.predicted_ratio, rtt, 2, name="2/(1.22k) R_C/R_L"),
            _cell(runs, key, M.ratio_over_predicted, rtt, 2, name="ours / RFC(R)"),
        ])
    k_rows: List[List[Any]] = []
    for k in M.K_SWEEP:
        key = M.key_k(k)
        if not _present(runs, key):
            continue
        k_rows.append([str(k), _cell(runs, key, M.ratio,
                                     published=_published(pub, "ratio_equal_rtt", k))])
    q_rows: List[List[Any]] = []
    for rtt in M.RTTS_MS:
        key = M.key_rtt(rtt)
        if not _present(runs, key):
            continue
        q_rows.append([
            f"{rtt} ms",
            _cell(runs, key, M.queue_delay, "scalable", rtt, scale=1e3, name="L queue delay"),
            _cell(runs, key, M.queue_delay, "classic", rtt, scale=1e3, name="C queue delay"),
            _cell(runs, key, M.drops, "scalable"),
            _cell(runs, key, M.drops, "classic"),
            _cell(runs, key, M.mark_or_drop_p, "scalable", name="p_L"),
            _cell(runs, key, M.mark_or_drop_p, "classic", name="p_C"),
            _cell(runs, key, M.window_times_p, "scalable", rtt, name="W p"),
            _cell(runs, key, M.window_times_p, "classic", rtt, name="W sqrt(p)"),
        ])
    return [
        Table("Rate balance across base RTTs (k = 2): Scalable / Classic goodput",
              ["base RTT", "R_L (ms)", "R_C (ms)", "r_L / r_C ours (RFC at equal RTT)",
               "RFC at the flows' RTTs", "ours / RFC at the flows' RTTs"], rtt_rows,
              note="RFC 9332 §2.1's equal-RTT value 2/(1.22·2) = 0.82 is compared at the "
                   "200 ms base RTT only, where the two queues add least to the RTTs; every "
                   "row is compared with the RFC's response functions at each flow's own "
                   "mean RTT (R = mean one-way data delay + base RTT / 2). The claims label it: "
                   f"|ours/RFC − 1| ≤ {M.REPRODUCED:.0%} reproduced, ≤ {M.PARTLY:.0%} partly, "
                   "else not."),
        Table(f"Coupling factor sweep (base RTT {M.K_RTT_MS} ms): r_L / r_C against 2/(1.22 k)",
              ["k", "r_L / r_C ours (RFC 2/(1.22 k))"], k_rows,
              note="The claims below label each k by the fixed rule."),
        Table("Queues, signals and response constants per base RTT (k = 2)",
              ["base RTT", "L queue delay (ms)", "C queue delay (ms)", "L drops", "C drops",
               "p_L (marks+drops)", "p_C (drops)", "W_L·p_L (RFC 2)", "W_C·√p_C (RFC 1.22)"],
              q_rows,
              note="Queue delay: the flow's mean one-way delay less half the base RTT and "
                   "the serialisation of a 1500-byte packet at 1 Gb/s, 40 Mb/s and 1 Gb/s. W = "
                   "goodput × R / MSS. Rates and delays are per-flow means of a class, drops and p its sums."),
    ]


def _worst(labels: List[str]) -> str:
    for lab in ("not", "partly", "reproduced"):
        if lab in labels:
            return lab
    return "not"


def _claim(text: str, lab: str, evidence: str) -> Claim:
    return Claim(text, lab == "reproduced", f"{lab}: {evidence}")


def claims(runs: Runs) -> List[Claim]:
    out: List[Claim] = []
    key = M.key_rtt(M.K_RTT_MS)
    if _present(runs, key):
        _, d = _diff(runs, key, M.K_RTT_MS, 2)
        m, h = mean_ci(runs.values_by(key, M.ratio))
        out.append(_claim(
            "RFC 9332 §2.1: with k = 2 a DCTCP and a Reno flow of equal RTT run at "
            "r_L/r_C = 2/(1.22 k) = 0.82 (analytic claim)", M.label(d),
            f"{m:.3f} ± {h:.3f} at base RTT {M.K_RTT_MS} ms ({d:+.1%})"))
    ks = [(k, _diff(runs, M.key_k(k), M.K_RTT_MS, k)[1]) for k in M.K_SWEEP
          if _present(runs, M.key_k(k))]
    if ks:
        out.append(_claim(
            "RFC 9332 §2.1: the balance scales as 1/k (p_C = (p_CL/k)²)",
            _worst([M.label(d) for _, d in ks]),
            "; ".join(f"k = {k}: {d:+.1%}" for k, d in ks)))
    rs = [(r, _diff(runs, M.key_rtt(r), r, 2)[0]) for r in M.RTTS_MS
          if _present(runs, M.key_rtt(r))]
    if rs:
        out.append(_claim(
            "RFC 9332 §2.1's response functions, at each flow's own RTT, give the balance "
            "at every base RTT", _worst([M.label(d) for _, d in rs]),
            "; ".join(f"{r} ms: {d:+.1%}" for r, d in rs)))
    qs = [(r, float(np.nanmean(runs.values_by(M.key_rtt(r), M.bind(M.queue_delay, "scalable", r)))),
           float(np.nansum(runs.values_by(M.key_rtt(r), M.bind(M.drops, "scalable")))))
          for r in M.RTTS_MS if _present(runs, M.key_rtt(r))]
    if qs:
        sub_ms = all(q < 1e-3 for _, q, _ in qs)
        no_loss = all(n == 0 for _, _, n in qs)
        lab = "reproduced" if sub_ms and no_loss else "partly" if sub_ms or no_loss else "not"
        out.append(_claim(
            "draft-ietf-tsvwg-aqm-dualq-coupled-10: DCTCP gets sub-millisecond average "
            "queuing delay and zero congestion loss", lab,
            "; ".join(f"{r} ms: {q * 1e3:.2f} ms, {n:.0f} drops" for r, q, n in qs)))
    return out


def figures(runs: Runs, out: Path) -> List[Figure]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b, c) = plt.subplots(1, 3, figsize=(13, 3.8))
    rtts = [r for r in M.RTTS_MS if _present(runs, M.key_rtt(r))]
    if rtts:
        ours = [mean_ci(runs.values_by(M.key_rtt(r), M.ratio)) for r in rtts]
        own = [np.nanmean(runs.values_by(M.key_rtt(r), M.bind(M.predicted_ratio, r, 2)))
               for r in rtts]
        a.errorbar(rtts, [m for m, _ in ours], yerr=[np.nan_to_num(h) for _, h in ours],
                   marker="o", capsize=3, label="aqmsim (mean ± 95 % CI)")
        a.plot(rtts, own, "s--", color="tab:orange", label="RFC at the flows' RTTs")
        a.axhline(M.analytic_ratio(2), color="grey", ls=":", label="RFC, equal RTT: 0.82")
        a.set_xscale("log")
        a.set_xlabel("base RTT (ms)")
        a.set_ylabel("r_L / r_C (DCTCP / Reno goodput)")
        a.set_title("k = 2, 40 Mb/s")
        a.legend(fontsize=8)
        for ax, group, name in ((c, "scalable", "L (DCTCP)"), (c, "classic", "C (Reno)")):
            q = [np.nanmean(runs.values_by(M.key_rtt(r), M.bind(M.queue_delay, group, r))) * 1e3
                 for r in rtts]
            ax.plot(rtts, q, "o-", label=name)
        c.axhline(1.0, color="grey", ls=":", label="1 ms")
        c.axhline(15.0, color="grey", ls="--", label="target 15 ms")
        c.set_xscale("log")
        c.set_yscale("log")
        c.set_xlabel("base RTT (ms)")
        c.set_ylabel("mean queueing delay (ms)")
        c.legend(fontsize=8)
    ks = [k for k in M.K_SWEEP if _present(runs, M.key_k(k))]
    if ks:
        ours = [mean_ci(runs.values_by(M.key_k(k), M.ratio)) for k in ks]
        b.errorbar(ks, [m for m, _ in ours], yerr=[np.nan_to_num(h) for _, h in ours],
                   marker="o", capsize=3, label="aqmsim")
        kk = np.linspace(min(ks), max(ks), 50)
        b.plot(kk, [M.analytic_ratio(x) for x in kk], ":", color="grey", label="RFC 2/(1.22 k)")
        b.set_xscale("log", base=2)
        b.set_yscale("log")
        b.set_xlabel("coupling k")
        b.set_ylabel("r_L / r_C")
        b.set_title(f"base RTT {M.K_RTT_MS} ms")
        b.legend(fontsize=8)
    return [paper_figure(fig, out / "l4s_balance.png",
                         "Rate balance of one DCTCP (ECT(1)) and one Reno flow through DualPI2: "
                         "across base RTTs (left), across k (middle), and each flow's mean "
                         "queueing delay (right), beside RFC 9332 §2.1's analytic values")]
