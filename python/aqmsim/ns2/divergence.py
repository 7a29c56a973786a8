"""Where an ns-2 run and aqmsim's run of the same deterministic scenario part: the first
divergence of their ns-2-format traces (ns-2's ``trace-all``; aqmsim's ``trace.format =
"ns2"``), classified (docs/ns2-gaps.md).

* ``"tie"``: up to the first instant whose lines differ as a set, the traces differ only in
  the order of lines printed at one instant (two events at the same time run in another
  order: aqmsim keeps an exact tie on its integer clock, ns-2's double sums break it);
* ``"mark"``: the first difference is one packet CE-marked in one trace and not in the other,
  nothing else (the ``ecn_threshold`` T = 2 export in packets: ``Queue/RED`` cannot mark the
  first arrival finding 2 waiting);
* ``"other"``: anything else (a model difference to dig into);
* ``"same"``: no difference.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

__all__ = ["Divergence", "classify", "instants"]


@dataclass
class Divergence:
    kind: str  # "same" | "tie" | "mark" | "other"
    #: the time (as printed) of the first line that differs, and the two lines there
    at: Optional[str] = None
    ns2: str = ""
    ours: str = ""
    #: the instants, before the first set-difference, whose lines differ only in order
    swaps: List[str] = field(default_factory=list)
    #: the first instant whose lines differ as a set, and its first differing lines
    other_at: Optional[str] = None
    other: Tuple[str, str] = ("", "")
    #: when the packet of that first differing line entered that link's queue (ns-2's "+"),
    #: and whether that instant is one of ``swaps`` (the tie decided its fate)
    enqueued_at: Optional[str] = None
    enqueued_at_swap: bool = False


def instants(lines: Sequence[str]) -> List[Tuple[str, List[str]]]:
    """The trace's lines grouped by the time printed (field 2), in order."""
    out: List[Tuple[str, List[str]]] = []
    for ln in lines:
        t = ln.split(None, 2)[1]
        if out and out[-1][0] == t:
            out[-1][1].append(ln)
        else:
            out.append((t, [ln]))
    return out


def _mark_only(a: str, b: str) -> bool:
    """The same trace line but for the E (CE) flag of the flags field."""
    x, y = a.split(), b.split()
    return (len(x) == len(y) > 6 and x[:6] == y[:6] and x[7:] == y[7:]
            and x[6].replace("E", "-") == y[6].replace("E", "-") and x[6] != y[6])


def _unmark_drop(line: str) -> str:
    """A drop line without its E flag: on a full buffer ns-2's Queue/RED may CE-mark the
    arrival before dropping it (aqmsim.ns2.queues.THRESHOLD_VS_NS2); the same packet is lost."""
    if not line.startswith("d "):
        return line
    f = line.split(" ")
    if len(f) > 6:
        f[6] = f[6].replace("E", "-")
    return " ".join(f)


def classify(theirs: Sequence[str], ours: Sequence[str]) -> Divergence:
    """The first divergence of ns-2's trace ``theirs`` and aqmsim's ``ours`` (lists of lines)."""
    d = Divergence("same")
    theirs, ours = [_unmark_drop(x) for x in theirs], [_unmark_drop(x) for x in ours]
    for (ta, la), (tb, lb) in zip(instants(theirs), instants(ours)):
        if ta == tb and la == lb:
            continue
        first = next((i for i, (p, q) in enumerate(zip(la, lb)) if p != q), min(len(la), len(lb)))
        if d.at is None:
            d.at = ta
            d.ns2 = la[first] if first < len(la) else ""
            d.ours = lb[first] if first < len(lb) else ""
        if ta == tb and sorted(la) == sorted(lb):
            d.swaps.append(ta)
            continue
        d.other_at = ta
        if ta == tb:  # the first line of each that the other lacks
            ca, cb = Counter(la), Counter(lb)
            d.other = (next((x for x in la if ca[x] > cb[x]), ""),
                       next((x for x in lb if cb[x] > ca[x]), ""))
        else:
            d.other = (la[0], lb[0])
        line = d.other[0] or d.other[1]
        f = line.split()
        plus = next((ln for ln in theirs if ln.startswith("+ ") and ln.split()[2:4] == f[2:4]
                     and ln.split()[-1] == f[-1]), None)
        if plus is not None:
            d.enqueued_at = plus.split()[1]
            d.enqueued_at_swap = d.enqueued_at in d.swaps
        if d.swaps:
            d.kind = "tie"
        elif ta == tb and len(la) == len(lb) and all(
                p == q or _mark_only(p, q) for p, q in zip(la, lb)) \
                and sum(p != q for p, q in zip(la, lb)) == 1:
            d.kind = "mark"
        else:
            d.kind = "other"
        return d
    if d.swaps:
        d.kind = "tie"
    elif len(theirs) != len(ours):
        d.kind, d.at = "other", "end"
    return d
