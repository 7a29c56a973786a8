"""Paper 004's claims, checked on the runs (the part of :class:`~aqmsim.papers.markfront.
MarkFrontPaper` that states and tests them)."""

from __future__ import annotations

from typing import List, Sequence

import numpy as np

from ..base import Claim, Runs
from .measures import (MODE_LABEL, MODES, SCENARIOS, T_TABLE, _seeds, bound, bound_tail,
                       int_bound, key, late_syn_dropped, maxq, mean_of,
                       only_first_packet_drops, s3_clean, unfairness, values)
from .readings import LARGE_BUFFER, LIMITED_BUFFER


class ClaimsMixin:
    """``_claims`` and its scenario-3 diagnosis; mixed into the paper class, whose
    ``rd``, ``eff`` and ``_eff_fn`` it uses."""

    def _claims(self, runs: Runs, ts: Sequence[int]) -> List[Claim]:
        claims: List[Claim] = []
        have = lambda scn, t: all(key(scn, m, t) in runs.experiments and _seeds(runs, key(scn, m, t))
                                  for m in MODES)
        ts = [t for t in ts if have("1", t)]
        rd59 = self.rd("1")  # rd of the basic configuration under this reading

        def mq(scn, mode, t):
            return mean_of(runs, key(scn, mode, t), maxq)

        # 1. mark-front needs less buffer than mark-tail
        worse, n, parts = [], 0, []
        for scn in ("1", "2", "3", "4", "6", "7"):
            for t in ts:
                if t < 5 or not have(scn, t):
                    continue
                n += 1
                if not mq(scn, "mark_front", t) < mq(scn, "mark_tail", t):
                    worse.append(f"S{scn} T={t}")
            t_hi = max(ts)
            parts.append(f"S{scn} T={t_hi}: {mq(scn, 'mark_tail', t_hi):.1f} vs "
                         f"{mq(scn, 'mark_front', t_hi):.1f}")
        claims.append(Claim(
            "Mark-front needs a smaller buffer than mark-tail (Theorems 2–3, Fig. 3)",
            n > 0 and not worse,
            f"mean largest queue, mark-front < mark-tail in {n - len(worse)}/{n} "
            f"(scenario, T ≥ 5) pairs of the large-buffer scenarios"
            + (f"; not in {', '.join(worse)}" if worse else "") + ". Tail vs front at the "
            "largest T: " + "; ".join(parts) + "."))

        # 2. ... by about rd
        red = [(t, mq("1", "mark_tail", t) - mq("1", "mark_front", t)) for t in ts if t >= rd59]
        ok = bool(red) and all(abs(r - rd59) <= max(2.0, 0.2 * rd59) for _, r in red)
        claims.append(Claim(
            "Mark-front reduces the buffer requirement by about rd (section 4's conclusion), "
            "checked on scenario 1 for T ≥ rd",
            ok,
            f"rd = {rd59:.2f} packets; reduction (tail − front) in scenario 1: "
            + ", ".join(f"T={t}: {r:.1f}" for t, r in red)
            + f". The theorems' own bounds differ by (2T+rd−1) − (T+rd) = T − 1, not rd; the "
            "measured reduction follows T − 1, so it equals rd only near T ≈ rd + 1."))

        # 3. bounds hold (single connection, integer form) and are tight for T >= rd
        viol, loose, excess = [], [], []
        for scn in ("1", "1r99"):
            rd = self.rd(scn)
            for t in ts:
                if not have(scn, t):
                    continue
                for mode in MODES:
                    v = values(runs, key(scn, mode, t), maxq)
                    if np.nanmax(v) > int_bound(mode, t, rd):
                        viol.append(f"S{scn} {MODE_LABEL[mode]} T={t}: {np.nanmax(v):.0f} > "
                                    f"{int_bound(mode, t, rd):.0f}")
                    excess.append(float(np.nanmax(v)) - bound(mode, t, rd))
                    if t >= rd and np.nanmean(v) < bound(mode, t, rd) - 1.5:
                        loose.append(f"S{scn} {MODE_LABEL[mode]} T={t}: {np.nanmean(v):.1f} vs "
                                     f"{bound(mode, t, rd):.1f}")
        small = [(t, mq("1", "mark_tail", t), bound_tail(t, rd59)) for t in ts if t < rd59 / 2]
        claims.append(Claim(
            "For one connection the bounds 2T+rd−1 (mark-tail) and T+rd (mark-front) hold, and "
            "are tight when T ≥ rd (Fig. 3 (a))",
            bool(excess) and not viol and not loose,
            (f"no run above the whole-packet form of the bounds" if not viol else
             "above the bound: " + "; ".join(viol[:6]))
            + f"; largest excess over the real-valued lines (this reading's rd) "
            f"{max(excess):.2f} packets (rounding rd to whole packets)"
            + ("; tight (within 1.5) at every T ≥ rd, r = 59 and 99 ms" if not loose else
               "; not tight: " + "; ".join(loose[:6]))
            + ". Small T (an upper bound only): "
            + ", ".join(f"T={t}: {m:.1f} ≤ {b:.1f}" for t, m, b in small) + "."))

        # 3b. several connections with equal RTTs
        viol, near, n = [], [], 0
        for scn in ("2", "6"):
            for t in ts:
                if not have(scn, t):
                    continue
                for mode in MODES:
                    v = values(runs, key(scn, mode, t), maxq)
                    n += 1
                    if np.nanmax(v) > int_bound(mode, t, rd59):
                        viol.append(f"S{scn} {MODE_LABEL[mode]} T={t}: {np.nanmax(v):.0f} > "
                                    f"{int_bound(mode, t, rd59):.0f}")
                    if t >= rd59:
                        near.append(float(np.nanmean(v)) - bound(mode, t, rd59))
        claims.append(Claim(
            "For several connections with equal RTTs (scenarios 2 and 6) the estimates "
            "2T+rd−1 and T+rd are still accurate upper bounds (section 6.3)",
            n > 0 and not viol,
            (f"no run above the whole-packet bounds in {n} (scenario, strategy, T) cases"
             if not viol else "above the bound: " + "; ".join(viol[:6]))
            + (f"; for T ≥ rd the mean largest queue is {np.min(near):+.1f} to "
               f"{np.max(near):+.1f} packets from the lines" if near else "") + "."))

        # 4. different RTTs: largest-RTT estimate is an upper bound; smallest-RTT closer
        over, d_small, d_large = [], [], []
        for scn in ("4", "7"):
            rtts = SCENARIOS[scn][2]
            rs, rl = self.rd(scn), self.rd(scn, largest=True)
            for t in ts:
                if not have(scn, t):
                    continue
                for mode in MODES:
                    v = values(runs, key(scn, mode, t), maxq)
                    if np.nanmax(v) > int_bound(mode, t, rl):
                        over.append(f"S{scn} {MODE_LABEL[mode]} T={t}")
                    d_small.append(abs(np.nanmean(v) - bound(mode, t, rs)))
                    d_large.append(abs(np.nanmean(v) - bound(mode, t, rl)))
        ms_, ml_ = (float(np.mean(d_small)), float(np.mean(d_large))) if d_small else (np.nan, np.nan)
        claims.append(Claim(
            "With different RTTs (scenarios 4, 7) the estimate from the largest RTT is an upper "
            "bound and the estimate from the smallest RTT is the closer approximation",
            bool(d_small) and not over and ms_ < ml_,
            ("no run above the largest-RTT bounds" if not over else
             "above the largest-RTT bound: " + ", ".join(over))
            + f"; mean |measured − line| = {ms_:.1f} packets for the smallest-RTT lines vs "
            f"{ml_:.1f} for the largest-RTT lines."))

        # 5. limited buffer: mark-front has higher link efficiency
        ev, good = [], True
        n_lossy = 0
        for scn in LIMITED_BUFFER:
            lossy = [t for t in ts if have(scn, t)
                     and mean_of(runs, key(scn, "mark_tail", t), lambda s: s["bottleneck_drops"]) > 0]
            n_lossy += len(lossy)
            if not lossy:
                continue
            diffs = [mean_of(runs, key(scn, "mark_front", t), self.eff)
                     - mean_of(runs, key(scn, "mark_tail", t), self.eff) for t in lossy]
            good &= float(np.mean(diffs)) > 0
            ev.append(f"S{scn}: at the {len(lossy)} T values where mark-tail loses packets "
                      f"(T ≥ {min(lossy)}), mean efficiency front − tail = "
                      f"{np.mean(diffs):+.3f} (front higher at {sum(d > 0 for d in diffs)}/"
                      f"{len(diffs)}; " + ", ".join(f"T={t}: {d:+.3f}" for t, d in
                                                     zip(lossy, diffs) if t in T_TABLE) + ")")
        ev.append("for T ≥ 25 (the buffer) the threshold is never exceeded, so no packet is "
                  "marked and the comparison is drop-tail (mark-tail) vs drop-front "
                  "(mark-front's overflow rule)")
        claims.append(Claim(
            "With a limited buffer (25 packets, scenarios 5 and 8) mark-front has higher link "
            "efficiency than mark-tail (Fig. 4 (c), (f))",
            n_lossy > 0 and good, "; ".join(ev) or "mark-tail lost no packets at any T"))

        # 6. ample buffers: comparable efficiency; small T: mark-front slightly lower
        big = ("1", "3", "6", "7")
        lo = [t for t in ts if t < rd59]
        hi = [t for t in ts if t >= 2 * rd59]
        dlo = {scn: [mean_of(runs, key(scn, "mark_front", t), self.eff)
                     - mean_of(runs, key(scn, "mark_tail", t), self.eff) for t in lo if have(scn, t)]
               for scn in big}
        dhi_at = [(mean_of(runs, key(scn, "mark_front", t), self.eff)
                   - mean_of(runs, key(scn, "mark_tail", t), self.eff), scn, t)
                  for scn in big for t in hi if have(scn, t)]
        dhi = [d for d, _, _ in dhi_at]
        worst = max(dhi_at, key=lambda x: abs(x[0])) if dhi_at else None
        all_lo = [d for v in dlo.values() for d in v]
        m_lo = float(np.mean(all_lo)) if all_lo else float("nan")
        claims.append(Claim(
            "With ample buffers and small T mark-front has slightly lower link efficiency than "
            "mark-tail (Fig. 4 (a), (b), (d), (e))",
            bool(all_lo) and -0.05 <= m_lo < 0,
            f"mean efficiency front − tail over T < rd ({lo}): {m_lo:+.4f}; per scenario "
            + ", ".join(f"S{s}: {np.mean(v):+.4f}" for s, v in dlo.items() if v)
            + f"; front lower in {sum(d < 0 for d in all_lo)}/{len(all_lo)} (scenario, T) pairs."))
        claims.append(Claim(
            "With ample buffers mark-front and mark-tail have comparable link efficiency "
            "(|difference| ≤ 0.01) once T is not small",
            bool(dhi) and max(abs(d) for d in dhi) <= 0.01,
            f"T ≥ 2rd ({hi}) in scenarios {', '.join(big)}: largest |front − tail| = "
            + (f"{max(abs(d) for d in dhi):.4f} (S{worst[1]}, T={worst[2]}: front − tail "
               f"{worst[0]:+.4f}), mean {np.mean(dhi):+.4f}" if dhi else "n/a")
            + "; pairs beyond 0.01: "
            + (", ".join(f"S{sc} T={t} ({d:+.4f}; mark-tail retransmitted "
                         f"{mean_of(runs, key(sc, 'mark_tail', t), lambda x: x['packets_retransmitted']):.1f}"
                         f" packets with {mean_of(runs, key(sc, 'mark_tail', t), lambda x: x['bottleneck_drops']):.1f}"
                         " drops at r1)" for d, sc, t in dhi_at if abs(d) > 0.01) or "none")
            + ". Causes: in scenario 3 the late connection's first (non-ECT) packet dropped by "
            "the ECN rule "
            "(a drop at r1); elsewhere retransmissions without drops are spurious timeouts, "
            "the RTO falling behind a queue that grows to 2T+rd−1 packets (0.9 s at T=80) "
            "within a slow-start round."))

        # 7. fairness: overlapping flows and different RTTs, increasingly so as T grows
        for scn, what in (("3", "overlapping connections (lock-out of the new connection)"),
                          ("4", "two connections with different RTTs"),
                          ("7", "five connections with different RTTs")):
            tt = [t for t in ts if have(scn, t)]
            if not tt:
                continue
            ut = np.array([mean_of(runs, key(scn, "mark_tail", t), unfairness) for t in tt])
            uf = np.array([mean_of(runs, key(scn, "mark_front", t), unfairness) for t in tt])
            gap = ut - uf
            half = len(tt) // 2
            g_lo, g_hi = float(np.mean(gap[:max(half, 1)])), float(np.mean(gap[half:]))
            fairer = float(np.mean(gap)) > 0
            growing = g_hi > g_lo
            ev = (f"mean unfairness over T: mark-tail {np.mean(ut):.3f}, mark-front "
                  f"{np.mean(uf):.3f}; front lower at {int(np.sum(gap > 0))}/{len(tt)} T; gap "
                  f"(tail − front) {g_lo:+.3f} for T ≤ {tt[max(half, 1) - 1]} vs {g_hi:+.3f} "
                  f"for T ≥ {tt[half]}; per T: "
                  + ", ".join(f"T={t}: {a:.3f}/{b:.3f}" for t, a, b in zip(tt, ut, uf)
                              if t in T_TABLE) + " (tail/front)")
            if scn == "3":
                ev += "; " + self._s3_diagnosis(runs, tt)
            claims.append(Claim(
                f"Mark-front is fairer than mark-tail for {what} (scenario {scn}), increasingly "
                "so as T grows (Fig. 5)", fairer and growing, ev + "."))

        # 7b. scenario 3 without the first-packet artefact
        ct = {m: s3_clean(runs, m, ts) for m in MODES}
        both = [t for t in ts if ct["mark_tail"].get(t) is not None
                and ct["mark_front"].get(t) is not None]
        if both:
            gt = np.array([ct["mark_tail"][t] - ct["mark_front"][t] for t in both])
            hl = len(both) // 2
            glo, ghi = float(np.mean(gt[:max(hl, 1)])), float(np.mean(gt[hl:]))
            claims.append(Claim(
                "Lock-out by ECN marks alone: in the scenario 3 runs in which the late "
                "connection's first packet was not dropped, mark-front is fairer than mark-tail, "
                "increasingly so as T grows",
                float(np.mean(gt)) > 0 and ghi > glo,
                f"T values where both strategies have such runs: {both}; mean unfairness "
                "tail/front: " + ", ".join(f"T={t}: {ct['mark_tail'][t]:.3f}/"
                                           f"{ct['mark_front'][t]:.3f}" for t in both)
                + f"; gap {glo:+.3f} (lower half of T) vs {ghi:+.3f} (upper half). Mark-tail "
                "has no such run at T = " + ", ".join(
                    str(t) for t in ts if ct["mark_tail"].get(t) is None) + "."))

        # 7c. limited buffer (Fig. 5 (e), scenario 8)
        tt = [t for t in ts if have("8", t)]
        if tt:
            ut = np.array([mean_of(runs, key("8", "mark_tail", t), unfairness) for t in tt])
            uf = np.array([mean_of(runs, key("8", "mark_front", t), unfairness) for t in tt])
            claims.append(Claim(
                "With a limited buffer (five connections, 25 packets; Fig. 5 (e)) mark-front "
                "is fairer than mark-tail",
                float(np.mean(uf)) < float(np.mean(ut)),
                f"mean unfairness over T: mark-tail {np.mean(ut):.4f}, mark-front "
                f"{np.mean(uf):.4f}; front lower at {int(np.sum(uf < ut))}/{len(tt)} T; per T: "
                + ", ".join(f"T={t}: {a:.3f}/{b:.3f}" for t, a, b in zip(tt, ut, uf)
                            if t in T_TABLE) + " (tail/front). For T ≥ 25 neither marks: "
                "drop-tail vs drop-front."))

        # 8. in general mark-front is fairer (all multi-flow scenarios), incl. limited buffer
        pairs, wins, per = 0, 0, []
        for scn in ("2", "3", "4", "5", "6", "7", "8"):
            tt = [t for t in ts if have(scn, t)]
            w = sum(mean_of(runs, key(scn, "mark_front", t), unfairness)
                    < mean_of(runs, key(scn, "mark_tail", t), unfairness) for t in tt)
            mt = np.mean([mean_of(runs, key(scn, "mark_tail", t), unfairness) for t in tt]) if tt else np.nan
            mf = np.mean([mean_of(runs, key(scn, "mark_front", t), unfairness) for t in tt]) if tt else np.nan
            pairs += len(tt)
            wins += w
            per.append(f"S{scn}: {w}/{len(tt)} (mean {mt:.3f} vs {mf:.3f})")
        claims.append(Claim(
            "In general mark-front is fairer than mark-tail (Fig. 5; counted over every "
            "multi-connection scenario 2–8 and T)",
            pairs > 0 and wins > pairs / 2,
            f"mark-front has the lower mean unfairness in {wins}/{pairs} (scenario, T) pairs: "
            + "; ".join(per) + " (tail vs front)."))

        # 9. zero loss with ample buffers (the premise of Fig. 3)
        lost = [k for k in runs.experiments
                if runs.experiments[k].labels["scenario"] in LARGE_BUFFER
                and _seeds(runs, k) and np.nanmax(values(runs, k, lambda s: s["bottleneck_drops"])) > 0]
        first_only = all(only_first_packet_drops(runs.get(k, sd))
                         for k in lost for sd in _seeds(runs, k))
        scns = sorted({str(runs.experiments[k].labels["scenario"]) for k in lost})
        claims.append(Claim(
            "With a large buffer ECN alone controls the queue: no packet is lost at r1 "
            "(premise of section 6.2's buffer-requirement metric)",
            not lost,
            ("no drop at r1 in any large-buffer run" if not lost else
             f"{len(lost)} large-buffer experiments lost packets at r1: "
             + ", ".join(sorted(lost))
             + (" — in every one the only drops are connections' first packets (not "
                "ECN-capable, so the ECN rule drops them when the queue is above T as they "
                "arrive: the late connection of scenario 3, or connections starting together "
                "at a small T) and their retransmissions, each costing an initial RTO"
                + (f"; scenarios {', '.join(scns)}" if scns else "")
                + "; see scenario 3's diagnosis" if first_only else
                " — not only first packets: a real loss with a large buffer"))
            + "."))
        return claims

    def _s3_diagnosis(self, runs: Runs, tt: Sequence[int]) -> str:
        """Runs of scenario 3 in which the late connection's first (non-ECT) packet was
        dropped by the ECN rule, and the unfairness without them."""
        parts = []
        for mode in MODES:
            hit, n, clean = 0, 0, []
            for t in tt:
                k = key("3", mode, t)
                for s in _seeds(runs, k):
                    rec = runs.get(k, s)
                    n += 1
                    if late_syn_dropped(rec):
                        hit += 1
                    else:
                        clean.append(unfairness(rec.summary))
            mc = f"{np.mean(clean):.3f}" if clean else "n/a"
            parts.append(f"{MODE_LABEL[mode]}: first packet of the late connection dropped in {hit}/{n} "
                         f"runs, mean unfairness of the other runs {mc}")
        return "diagnosis: " + "; ".join(parts)
