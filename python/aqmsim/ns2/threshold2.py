"""``ecn_threshold`` at T = 2 exported exactly: ``Queue/RED`` counting its queue in bytes.

ns-2's ``Queue/RED`` (``queue/red.cc``, ``REDQueue::enque``) decides on an arrival only when
``qavg >= th_min && qlen > 1``, and the first such arrival of an excursion only arms RED's
count (``old = 1``). Counted in packets, the export of T = 2 (``thresh_ 1``, ``maxthresh_ 2``)
therefore cannot mark the first arrival finding 2 packets waiting: the arrival before it
found at most 1 (``qlen > 1`` false, ``old`` reset). Counted in bytes (``queue_in_bytes_
true``), ``qlen`` is the bytes waiting, so ``qlen > 1`` holds as soon as one packet waits and
the arrival finding 1 packet (n = T − 1) arms ``old``, exactly as ``thresh_`` T − 1 does for
T >= 3. ``thresh_`` and ``maxthresh_`` become bytes through ``mean_pktsize_`` (th_min =
``thresh_`` × ``mean_pktsize_``), as does ``limit_``; with ``mean_pktsize_`` = S and every
packet reaching the queue S bytes, n packets waiting are n·S bytes and every comparison is
the packet comparison. So the byte form is used only when that holds (:func:`t2_in_bytes`):
every flow a TCP sending S-byte packets on the wire (``use_headers`` false, no SYN: ns-2.35
sends sequence 0 without the header, so with headers the sizes differ) and no flow's ACKs
routed through the queue. Otherwise T = 2 stays in packets, with its documented difference
(:data:`aqmsim.ns2.queues.THRESHOLD_VS_NS2`).
"""

from __future__ import annotations

from typing import Optional

from .plan import LinkPlan, Plan
from .routes import manual_routes

__all__ = ["t2_in_bytes"]


def _uniform_size(plan: Plan, lk: LinkPlan) -> Optional[int]:
    """The one wire size of every packet that can reach ``lk``'s queue, or ``None``."""
    sizes = set()
    for fp in plan.flows:
        t = fp.tcp
        if fp.app != "ftp" or not t or t.get("syn") or t.get("use_headers"):
            return None
        sizes.add(int(t["packet_size"]))
    if len(sizes) != 1:
        return None
    routes = manual_routes(plan)
    if routes is None:
        return None
    index = {n: i for i, n in enumerate(plan.nodes)}
    edge = (index[lk.src], index[lk.dst])
    for fp in plan.flows:  # the ACKs' path, sink to sender: it must not use this link
        v, to = index[fp.dst], index[fp.src]
        while v != to:
            default, explicit = routes[v]
            w = dict(explicit).get(to, default)
            if (v, w) == edge:
                return None
            v = w
    return sizes.pop()


def t2_in_bytes(plan: Plan) -> None:
    """Switch every ``ecn_threshold`` queue with T = 2 whose packets are all one size to
    ``Queue/RED`` counting bytes (``queue_in_bytes_ true``, ``mean_pktsize_`` = that size):
    then ns-2 marks every arrival aqmsim marks (the module's docstring)."""
    for lk in plan.links:
        q = lk.queue
        if q.get("kind") == "ecn_threshold" and q.get("threshold") == 2:
            size = _uniform_size(plan, lk)
            if size is not None:
                q.update(queue_in_bytes=True, mean_pktsize=size, t2_bytes=True)
