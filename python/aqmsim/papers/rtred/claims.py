"""Paper 000's claims, checked on the runs."""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from ..base import Claim, Runs, mean_ci
from .measures import FEW, LABEL, PAPER_STRATEGIES, SCENARIOS, WARMUP, _fmt, key


class ClaimsMixin:
    """The claim methods of :class:`~aqmsim.papers.rtred.RtredPaper`."""

    def _compare(self, runs: Runs, metric: str, want: str, scale: float = 1.0,
                 unit: str = "") -> Tuple[bool, str]:
        """RTRED against RED and Adaptive in every scenario: ``want`` is "lower" or
        "higher" (RTRED's mean against the other's)."""
        ok = True
        parts = []
        for s in SCENARIOS:
            r = float(np.nanmean(runs.values(key(s, "rtred"), metric) * scale))
            bits = []
            for o in ("red", "ared"):
                v = float(np.nanmean(runs.values(key(s, o), metric) * scale))
                good = r < v if want == "lower" else r > v
                ok = ok and good
                d, h = self._paired(runs, key(s, "rtred"), key(s, o), metric, scale)
                bits.append(f"{LABEL[o]} {_fmt(v, 4)}{unit} (diff {d:+.3g} ± {_fmt(h, 2)}, "
                            f"{'yes' if good else 'NO'})")
            parts.append(f"S{s}: RTRED {_fmt(r, 4)}{unit} vs " + ", ".join(bits))
        return ok, "; ".join(parts)

    def _maxp_levels(self, runs: Runs, s: int, p0: float):
        """RTRED's max_p after the warm-up: (share of time at max_p, max_p/2, max_p/5; share
        at any other value; whether RED's max_p is p0 throughout; share of runs with two or
        more levels), over seeds."""
        levels = {"max_p": p0, "max_p/2": p0 / 2, "max_p/5": p0 / 5}
        frac: Dict[str, List[float]] = {n: [] for n in levels}
        other, multi = [], []
        for seed in runs.seeds(key(s, "rtred")):
            q = self._queue(runs, key(s, "rtred"), seed)
            mp = q[q["t"] >= WARMUP]["max_p"].to_numpy(dtype=float)
            if len(mp) == 0:
                continue
            hit = np.zeros(len(mp), dtype=bool)
            seen = 0
            for n, v in levels.items():
                m = np.isclose(mp, v, rtol=1e-9, atol=1e-12)
                frac[n].append(float(m.mean()))
                seen += int(m.any())
                hit |= m
            other.append(float((~hit).mean()))
            multi.append(1.0 if seen >= 2 else 0.0)
        red_fixed = True
        for seed in runs.seeds(key(s, "red")):
            mp = self._queue(runs, key(s, "red"), seed)["max_p"].to_numpy(dtype=float)
            red_fixed = red_fixed and bool(len(mp)) and bool(np.allclose(mp, p0))
        f = {n: float(np.mean(v)) if v else 0.0 for n, v in frac.items()}
        return (f, float(np.mean(other)) if other else 1.0, red_fixed,
                float(np.mean(multi)) if multi else 0.0)

    def _claims(self, runs: Runs, shares, t1) -> List[Claim]:
        claims: List[Claim] = []

        ok, ev = self._compare(runs, "bottleneck_drops", "lower", unit=" drops")
        claims.append(Claim("RTRED loses fewer packets than RED and Adaptive RED in all three "
                            "scenarios (Table II, 'Loss Rate').", ok, ev))

        ok, ev = self._compare(runs, "time_avg_queue_pkts", "higher", unit=" pkts")
        claims.append(Claim("RTRED keeps a larger average queue than RED and Adaptive RED in "
                            "all three scenarios (Table II, 'Ave Q Size').", ok, ev))

        dmetric, _ = self._delay_source(runs, key(1, "red"))
        dscale = 1000.0 if dmetric == "mean_e2e_delay_s" else self._tx_time(runs, key(1, "red"))
        ok, ev = self._compare(runs, dmetric, "lower", scale=dscale,
                               unit=" ms" if dmetric == "mean_e2e_delay_s" else " (sent x t_tx)")
        claims.append(Claim("RTRED's average delay is lower than RED's and Adaptive RED's in "
                            "all three scenarios (Table II, 'Average Delay Time').", ok, ev))

        ok, ev = self._compare(runs, "packets_sent", "lower", unit=" pkts")
        ok2, ev2 = self._compare(runs, "packets_retransmitted", "lower", unit=" rtx")
        claims.append(Claim("RTRED makes the sources send fewer packets than RED and Adaptive "
                            "RED in all three scenarios, because it causes fewer "
                            "retransmissions (Table II, 'No. of Propagated Packets').",
                            ok and ok2, f"sent: {ev}. retransmitted: {ev2}"))

        # drop areas: normal + timeout hold most drops; few unfair drops (Fig. 4-5)
        ok = True
        few = True
        parts = []
        unfair_parts = []
        for k in PAPER_STRATEGIES:
            nt, nth = mean_ci((self._avg_share(shares, k, "normal")
                               + self._avg_share(shares, k, "timeout")) * 100.0)
            un, unh = mean_ci(self._avg_share(shares, k, "unfair") * 100.0)
            ok = ok and nt > 50.0
            few = few and un <= FEW * 100.0
            per = ", ".join(
                f"S{s} {float(np.nanmean(shares[(s, k)]['share_normal'] + shares[(s, k)]['share_timeout'])) * 100:.0f}%"
                for s in SCENARIOS)
            parts.append(f"{LABEL[k]}: normal+timeout {nt:.1f} ± {_fmt(nth, 2)}% ({per})")
            per_u = ", ".join(f"S{s} {float(np.nanmean(shares[(s, k)]['share_unfair'])) * 100:.1f}%"
                              for s in SCENARIOS)
            unfair_parts.append(f"{LABEL[k]}: unfair {un:.1f} ± {_fmt(unh, 2)}% ({per_u})")
        claims.append(Claim("Most drops fall in the normal and timeout areas (over half of the "
                            "drops, average of the three scenarios, for RED, Adaptive RED and "
                            "RTRED) (Fig. 4-5).", ok, "; ".join(parts)))
        claims.append(Claim(f"Few packets are dropped in the unfair area (at most {FEW:.0%} of "
                            "the drops, average of the three scenarios, for each strategy) "
                            "(Fig. 4-5).", few, "; ".join(unfair_parts)))

        # RTRED reduces unfair and timed-out drops (Sec. IV-A)
        ok = True
        parts = []
        for s in SCENARIOS:
            vals = {}
            for k in PAPER_STRATEGIES:
                df = shares[(s, k)]
                vals[k] = float(np.mean(df["unfair"] + df["timeout"])) if len(df) else np.nan
            good = vals["rtred"] < vals["red"] and vals["rtred"] < vals["ared"]
            ok = ok and good
            parts.append(f"S{s}: RTRED {vals['rtred']:.1f}, RED {vals['red']:.1f}, "
                         f"Adaptive {vals['ared']:.1f} drops in unfair+timeout areas "
                         f"({'yes' if good else 'NO'})")
        claims.append(Claim("RTRED reduces the number of packets dropped unfairly (actual queue "
                            "below min_th) or in the timeout area (at or above risk_th) compared "
                            "with RED and Adaptive RED, in all three scenarios (Sec. IV-A).",
                            ok, "; ".join(parts)))

        # max_p dynamics (Fig. 6 for scenario I; Fig. 8 and 10 for II and III)
        lv = {s: self._maxp_levels(runs, s, t1[s]["max_p"]) for s in SCENARIOS}
        f, oth, red_fixed, _ = lv[1]
        good = f["max_p"] > 0 and f["max_p/5"] > 0 and oth == 0.0 and red_fixed
        claims.append(Claim(
            "In scenario I RTRED's max_p moves between the initial max_p and max_p/5 (through "
            "max_p/2) while RED's max_p stays fixed (Fig. 6).", bool(good),
            f"S1: RTRED share of time at max_p {f['max_p']:.1%}, max_p/2 {f['max_p/2']:.1%}, "
            f"max_p/5 {f['max_p/5']:.1%}, any other value {oth:.1%}; RED's max_p equal to "
            f"{t1[1]['max_p']:g} in every sample of every seed: {red_fixed}"))
        ok = True
        parts = []
        for s in (2, 3):
            f, oth, red_fixed, multi = lv[s]
            good = multi == 1.0 and oth == 0.0 and red_fixed
            ok = ok and good
            parts.append(f"S{s}: RTRED share of time at max_p {f['max_p']:.1%}, max_p/2 "
                         f"{f['max_p/2']:.1%}, max_p/5 {f['max_p/5']:.1%}, other {oth:.1%}; "
                         f"runs whose max_p takes two or more levels {multi:.0%}; RED fixed: "
                         f"{red_fixed}")
        claims.append(Claim(
            "In scenarios II and III RTRED's max_p stays dynamic (it moves between levels in "
            "every run) while RED's is fixed (Fig. 8, 10).", bool(ok), "; ".join(parts)))

        # ARED keeps a high max_p in scenario I (Fig. 6a)
        p0 = t1[1]["max_p"]
        fr, mean_mp = [], []
        for seed in runs.seeds(key(1, "ared")):
            q = self._queue(runs, key(1, "ared"), seed)
            q = q[q["t"] >= WARMUP]
            mp = q["max_p"].to_numpy(dtype=float)
            if len(mp):
                fr.append(float(np.mean(mp >= p0 - 1e-12)))
                mean_mp.append(float(mp.mean()))
        fm, fh = mean_ci(fr)
        mm, mh = mean_ci(mean_mp)
        rt = []
        for sd in runs.seeds(key(1, "rtred")):
            q = self._queue(runs, key(1, "rtred"), sd)
            rt.append(float(q[q["t"] >= WARMUP]["max_p"].mean()))
        rm_, rh = mean_ci(rt)
        good = bool(fm > 0.5 and mm > rm_)
        claims.append(Claim("In scenario I Adaptive RED keeps a high max_p (at or above its "
                            "initial value most of the time, and above RTRED's) (Fig. 6a).",
                            good,
                            f"ARED max_p >= initial {p0:g} for {fm:.1%} ± {fh:.1%} of the "
                            f"time; time-average max_p ARED {mm:.4f} ± {_fmt(mh, 2)}, RTRED "
                            f"{rm_:.4f} ± {_fmt(rh, 2)}"))

        # most stable queue (Fig. 7-11)
        ok = True
        parts = []
        for s in SCENARIOS:
            sd = {k: mean_ci(self._queue_std(runs, key(s, k))) for k in PAPER_STRATEGIES}
            good = sd["rtred"][0] < sd["red"][0] and sd["rtred"][0] < sd["ared"][0]
            ok = ok and good
            parts.append(f"S{s}: std of actual queue RTRED {sd['rtred'][0]:.2f} ± "
                         f"{_fmt(sd['rtred'][1], 2)}, RED {sd['red'][0]:.2f}, Adaptive "
                         f"{sd['ared'][0]:.2f} pkts ({'yes' if good else 'NO'})")
        claims.append(Claim("RTRED gives the most stable queue length (smallest standard "
                            "deviation of the actual queue of RED, Adaptive RED and RTRED) in "
                            "all three scenarios (Fig. 7-11 text).", ok, "; ".join(parts)))
        return claims
