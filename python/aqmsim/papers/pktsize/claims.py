"""Paper 002's claims, checked on the seed means (the part of
:class:`~aqmsim.papers.pktsize.PktSize` that judges)."""

from __future__ import annotations

import math
from typing import List, Sequence

from ..base import Claim
from .measures import CAPACITY_MBPS, DELAYS, GROUPS, Metrics, VARIANTS, vname


class ClaimsMixin:
    """The claim methods of :class:`~aqmsim.papers.pktsize.PktSize`."""

    def _claims(self, m: Metrics) -> List[Claim]:
        mean = lambda d, v, g, c: self._mean(m, d, v, g, c)  # noqa: E731
        G = [g for g, _, _ in GROUPS]

        def per_doubling(d: str, v: str, col: str) -> float:
            a, b = mean(d, v, "mtu375", col), mean(d, v, "mtu1500", col)
            return math.sqrt(b / a) if a > 0 and b >= 0 else float("nan")

        def vals(d: str, v: str, col: str) -> List[float]:
            return [mean(d, v, g, col) for g in G]

        def fmt(xs: Sequence[float], unit: str = "") -> str:
            return "/".join(f"{x:.2f}" for x in xs) + unit

        claims: List[Claim] = []

        # 1. RED_1: PLR about the same for all MTUs.
        ok, ev = True, []
        for d in DELAYS:
            p = vals(d, "red1", "plr")
            r = max(p) / min(p) if min(p) > 0 else float("inf")
            ok &= r <= 1.25
            ev.append(f"{d}: PLR 375/750/1500 = {fmt(p, ' %')}, max/min {r:.2f}")
        claims.append(Claim("RED_1: the loss ratio is about the same for all MTUs "
                            "(max/min ≤ 1.25 at both delays)", bool(ok), "; ".join(ev)))

        # 2. RED_1: goodput roughly doubles when the MTU doubles.
        ok, ev = True, []
        for d in DELAYS:
            gp = vals(d, "red1", "goodput")
            r1 = gp[1] / gp[0] if gp[0] > 0 else float("inf")
            r2 = gp[2] / gp[1] if gp[1] > 0 else float("inf")
            ok &= 1.5 <= r1 <= 2.5 and 1.5 <= r2 <= 2.5
            ev.append(f"{d}: goodput {fmt(gp, ' Mb/s')}, ×{r1:.2f} and ×{r2:.2f} per doubling")
        claims.append(Claim("RED_1: goodput roughly doubles when the MTU doubles (each factor "
                            "in [1.5, 2.5] at both delays)", bool(ok), "; ".join(ev)))

        # 3. RED_2: large MTU has by far the highest PLR.
        ok, ev = True, []
        for d in DELAYS:
            p = vals(d, "red2", "plr")
            nxt = max(p[0], p[1])
            r = p[2] / nxt if nxt > 0 else float("inf")
            ok &= r >= 2.0
            ev.append(f"{d}: PLR 375/750/1500 = {fmt(p, ' %')}, large/next {r:.2f}")
        claims.append(Claim("RED_2: the large-MTU group has by far the highest loss ratio "
                            "(≥ 2× the next group at both delays)", bool(ok), "; ".join(ev)))

        # 4. RED_2: collapse of large-MTU goodput at low delay, less at high delay.
        gl, gh = vals("low", "red2", "goodput"), vals("high", "red2", "goodput")
        ok = gl[2] == min(gl) and gl[2] < CAPACITY_MBPS / 3 / 2 and gh[2] > gl[2]
        claims.append(Claim(
            "RED_2: the large-MTU group's goodput collapses at low delay (lowest group, below "
            "half its 10 Mb/s fair share) and the collapse is less at high delay",
            bool(ok), f"low: {fmt(gl, ' Mb/s')}; high: {fmt(gh, ' Mb/s')} (375/750/1500)"))

        # 5. RED_2 gives the lowest summed goodput at low delay (summary goodput_bps).
        sums = {v: mean("low", v, "all", "goodput") for v in VARIANTS}
        lowest = min(sums, key=lambda v: sums[v])
        sh = {v: mean("high", v, "all", "goodput") for v in VARIANTS}
        claims.append(Claim(
            "RED_2 gives the lowest summed goodput at low delay", lowest == "red2",
            "low delay sums: " + ", ".join(f"{vname(v)} {sums[v]:.2f}" for v in VARIANTS)
            + " Mb/s (high delay: " + ", ".join(f"{vname(v)} {sh[v]:.2f}" for v in VARIANTS)
            + ")"))

        # 6. RED_3/RED_4: PLR roughly doubles when the MTU doubles.
        ok, ev = True, []
        for v in ("red3", "red4"):
            for d in DELAYS:
                f = per_doubling(d, v, "plr")
                ok &= 1.5 <= f <= 2.5
                ev.append(f"{vname(v)} {d}: PLR {fmt(vals(d, v, 'plr'), ' %')}, ×{f:.2f}/doubling")
        claims.append(Claim("RED_3 and RED_4: the loss ratio roughly doubles when the MTU "
                            "doubles (factor per doubling in [1.5, 2.5], both delays)",
                            bool(ok), "; ".join(ev)))

        # 7. RED_3 and RED_4 give comparable PLR and goodput.
        worst, where = 0.0, ""
        for d in DELAYS:
            for g in G:
                for c in ("plr", "goodput"):
                    a, b = mean(d, "red3", g, c), mean(d, "red4", g, c)
                    rel = abs(a - b) / ((a + b) / 2) if a + b > 0 else 0.0
                    if rel > worst:
                        worst, where = rel, f"{c} {g} {d}: RED_3 {a:.2f} vs RED_4 {b:.2f}"
        claims.append(Claim("RED_3 and RED_4 give comparable goodput and loss ratios (every "
                            "group within 25 %)", worst <= 0.25,
                            f"largest relative difference {100 * worst:.0f} % ({where})"))

        # 8. RED_3/RED_4: fairness good at small delay, decreasing at large delay.
        ok, ev = True, []
        for v in ("red3", "red4"):
            jl, jh = mean("low", v, "all", "jain"), mean("high", v, "all", "jain")
            ok &= jl > jh
            ev.append(f"{vname(v)} Jain low {jl:.3f}, high {jh:.3f}")
        claims.append(Claim("RED_3 and RED_4: fairness between MTU groups is better at small "
                            "than at large propagation delay", bool(ok), "; ".join(ev)))

        # 9. RED_5: PLR grows with the square of the MTU.
        ok, ev = True, []
        for d in DELAYS:
            f = per_doubling(d, "red5", "plr")
            ok &= 2.83 <= f <= 5.66
            ev.append(f"{d}: PLR {fmt(vals(d, 'red5', 'plr'), ' %')}, ×{f:.2f}/doubling "
                      f"(square: ×4)")
        claims.append(Claim("RED_5: the loss ratio grows with the square of the MTU (factor per "
                            "doubling in [2.83, 5.66], both delays)", bool(ok), "; ".join(ev)))

        # 10. RED_5 gives the fairest goodput split at large delay.
        jh = {v: mean("high", v, "all", "jain") for v in VARIANTS}
        best = max(jh, key=lambda v: jh[v])
        claims.append(Claim(
            "RED_5 gives the fairest goodput split between the MTU groups at large delay "
            "(highest Jain index over the three groups)", best == "red5",
            "Jain at high delay: " + ", ".join(f"{vname(v)} {jh[v]:.3f}" for v in VARIANTS)))

        # 11. RED_4/RED_5 avoid RED_2's large-MTU goodput degradation.
        g2 = mean("low", "red2", "mtu1500", "goodput")
        g4, g5 = mean("low", "red4", "mtu1500", "goodput"), mean("low", "red5", "mtu1500", "goodput")
        claims.append(Claim(
            "RED_4 and RED_5 do not degrade the large-MTU connections as RED_2 does (large-MTU "
            "goodput at low delay ≥ 2× RED_2's)", g4 >= 2 * g2 and g5 >= 2 * g2,
            f"large-MTU goodput at low delay: RED_2 {g2:.2f}, RED_4 {g4:.2f}, RED_5 {g5:.2f} Mb/s"))
        return claims
