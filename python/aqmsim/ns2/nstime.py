"""ns-2's event times recomputed the way ns-2 computes them, from its trace.

ns-2 2.35 prints times with 6 decimals, so two events it printed at the same instant may
differ in the last bits of their doubles. This replays a trace (``trace-all`` lines, in
order) with ns-2's own arithmetic (``link/delay.{h,cc}``, ``common/scheduler.cc``):

* ``LinkDelay::txtime`` = ``8. * size / bandwidth_``;
* ``LinkDelay::recv`` schedules the arrival at the far end (``r``) with delay
  ``txt + delay_`` and the queue's resume with delay ``txt``; ``Scheduler::schedule`` sets
  ``time_ = clock_ + delay`` (one double addition on the clock of the event that scheduled it);
* a queue sends a packet (``-``) at its arrival (``+``) when the link is idle, else when the
  link's previous transmission ends (the resume: previous ``-`` + txt), i.e. the later of the
  two;
* a node forwards a received packet at once (``+`` = its ``r``), and an agent answers at the
  instant it receives (a new packet's ``+`` = the last ``r`` at that node printed at that
  time). A packet sent at neither (a flow's start, a retransmission timer) takes its
  printed time, known exactly only when it is a flow's start (``starts``); every time
  computed from an inexact one is flagged unknown.

With ``exact=True`` the same sums are done in rationals on the decimal values of the links'
rates and delays: the times the model means. Two events printed at the same time with equal
rational times but unequal doubles are a tie that only ns-2's rounding breaks
(docs/ns2-gaps.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Mapping, Sequence, Tuple, Union

__all__ = ["event_times"]

Num = Union[float, Fraction]


def event_times(lines: Sequence[str], links: Mapping[Tuple[int, int], Tuple[float, float]],
                exact: bool = False, starts: Sequence[float] = (0.0,)
                ) -> Tuple[List[Num], List[bool]]:
    """The time of each trace line as ns-2 computed it (doubles), or as exact rationals,
    and whether it is known (not derived from a printed time other than a flow's start).
    ``links`` maps (from node, to node) to (rate in bit/s, delay in s), the values of the
    script (``aqmsim.ns2.export``); ``starts`` the flows' start times."""
    def num(x: Union[str, float, int]) -> Num:
        if exact:
            return Fraction(repr(x) if isinstance(x, float) else str(x))
        return float(x)

    lk = {k: (num(r), num(d)) for k, (r, d) in links.items()}
    ok: Dict[object, bool] = {}  # the same keys as the times below -> known
    enq: Dict[Tuple[str, Tuple[int, int]], Num] = {}
    deq: Dict[Tuple[str, Tuple[int, int]], Num] = {}
    resume: Dict[Tuple[int, int], Num] = {}
    recv: Dict[str, Tuple[int, Num]] = {}  # uid -> (node, time) of its last receive
    last_recv: Dict[int, Tuple[str, Num]] = {}  # node -> (printed time, time)
    out: List[Num] = []
    known: List[bool] = []
    for ln in lines:
        f = ln.split()
        ev, tp, a, b, size, uid = f[0], f[1], int(f[2]), int(f[3]), int(f[5]), f[11]
        link = (a, b)
        rate, delay = lk[link]
        txt = num(8) * size / rate  # 8. * size / bandwidth_, left to right
        if ev == "+":
            r = recv.get(uid)
            if r is not None and r[0] == a:
                t, k = r[1], ok[("r", uid)]
            elif a in last_recv and last_recv[a][0] == tp:
                t, k = last_recv[a][1], ok[("n", a)]
            else:
                s0 = next((x for x in starts if abs(float(tp) - x) <= 5e-7), None)
                t, k = (num(s0), True) if s0 is not None else (num(tp), False)
            enq[(uid, link)] = t
            ok[("+", uid, link)] = k
        elif ev == "-":
            e = enq.get((uid, link), num(tp))
            ke = ok.get(("+", uid, link), False)
            free = resume.get(link)
            if free is None or e > free:  # the link idle: sent at once
                # (certainly idle if the arrival is later by more than a printed time's error)
                t, k = e, ke and (free is None or ok[("q", link)] or float(e - free) > 1e-6)
            else:
                t, k = free, ok[("q", link)] and ke
            resume[link] = t + txt
            deq[(uid, link)] = t
            ok[("q", link)] = ok[("-", uid, link)] = k
        elif ev == "r":
            t = deq[(uid, link)] + (txt + delay)
            k = ok[("-", uid, link)]
            recv[uid] = (b, t)
            last_recv[b] = (tp, t)
            ok[("r", uid)] = ok[("n", b)] = k
        else:  # "d": dropped on arrival (or later, for a forced RED drop): its arrival time
            t = enq.get((uid, link), num(tp))
            k = ok.get(("+", uid, link), False)
        out.append(t)
        known.append(k)
    return out, known
