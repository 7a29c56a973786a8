"""ns-3's nearest equivalent of an L4S dumbbell (issue 25, point 8): ns-3.37 has neither
DualPI2 nor TCP Prague, so a scenario with a ``dualpi2`` bottleneck runs in
``benchmarks/ns3/dumbbell.cc`` as the same dumbbell and the same flows with

* each Prague flow (or DCTCP flow sending ECT(1)) as ``TcpDctcp`` with ``UseEct0 = false``
  (ECT(1); ns-3's DCTCP answers a CE fraction as Prague does, without Prague's pacing,
  AccECN or RTT independence);
* each CUBIC flow without ECN as ``TcpCubic`` (``TcpSocketBase::UseEcn = Off``: DCTCP turns
  ECN on for its own sockets, and the sinks, built as DCTCP, accept it);
* the bottleneck as ``FqPieQueueDisc`` in L4S mode: ``UseL4s = true``, ``CeThreshold`` =
  DualPI2's ``step_thresh``, ``MaxSize`` = its ``limit``. Classic packets meet PIE (a PI
  controller on queueing delay, 15 ms target: DualPI2's base), ECT(1) packets skip it and
  are CE-marked above a 1 ms sojourn (DualPI2's L-queue step), each flow in its own queue
  (so L4S packets do not wait behind Classic ones, as in DualPI2's L queue). There is no
  coupling (p_CL = k p') and no dual queue: it is the nearest, not the same.

The flows start when aqmsim starts them (the resolved scenario's draws, in a flow file),
over the same links. Nothing here is timed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

from .ns3_tcp import linux_tcp_arguments
from .sims import Unsupported

__all__ = ["ns3_l4s_plan", "is_l4s", "SHARED_TCP"]

#: TCP fields every flow of the dumbbell must share: ns-3 sets them once for all sockets.
SHARED_TCP = ("packet_size", "header", "window", "window_init", "delayed_ack", "delack_count",
              "delack_interval", "min_rto", "rto_init", "max_rto", "dupacks", "timestamps", "sack")


def is_l4s(sc: Mapping[str, Any]) -> bool:
    """Whether the scenario's dumbbell bottleneck is DualPI2 (ns-3 runs the equivalent)."""
    q = ((sc.get("dumbbell") or {}).get("bottleneck") or {}).get("queue") or {}
    return isinstance(q, Mapping) and str(q.get("kind", "")).lower() == "dualpi2"


def _ns3_cc(tcp: Mapping[str, Any], label: str) -> str:
    variant = str(tcp["variant"]).lower()
    if tcp.get("stack") != "linux":
        raise Unsupported(f"the ns-3 L4S equivalent runs the linux stack only (flow {label})")
    if variant == "prague" or (variant == "dctcp" and tcp.get("ect") == "ect1"):
        return "dctcp"
    if variant == "cubic" and not tcp.get("ecn"):
        return "cubic"
    raise Unsupported(f"the ns-3 L4S equivalent has Prague (or DCTCP with ECT(1)) and CUBIC without ECN, "
                      f"not {variant!r} (ecn = {bool(tcp.get('ecn'))}) (flow {label})")


def ns3_l4s_plan(sc: Mapping[str, Any], seed: int) -> Tuple[List[str], List[str]]:
    """dumbbell.cc's arguments and flow-file lines for a DualPI2 dumbbell, or
    :class:`Unsupported`. The caller writes the lines to a file and adds ``--flowFile``."""
    from aqmsim.scenario import Scenario

    if not is_l4s(sc) or sc.get("flows") or sc.get("links"):
        raise Unsupported("the ns-3 L4S equivalent builds a dumbbell with a DualPI2 bottleneck only")
    r = Scenario.from_dict(dict(sc, seed=seed)).validate()
    links = {(ln["from"], ln["to"]): ln for ln in r["links"]}
    bn = links[("R1", "R2")]
    q = bn["queue"]
    if "step_thresh" not in q:
        raise Unsupported("the ns-3 L4S equivalent needs DualPI2's step_thresh as a time (ns-3's CeThreshold)")
    duration = float(r["duration"])
    lines: List[str] = []
    rates, others, shared, hystart = set(), set(), set(), set()
    for j, f in enumerate(r["flows"]):
        tcp = f["tcp"]
        if f.get("app") != "ftp" or f["src"] != f"S{j}" or f["dst"] != f"D{j}":
            raise Unsupported("the ns-3 L4S equivalent runs FTP flows, one per source, to their own sinks")
        cc = _ns3_cc(tcp, f"{j}, {f.get('label', '')}")
        if cc == "cubic":
            hystart.add(bool(tcp.get("hystart", True)))
        if float(f["stop"]) < duration:
            raise Unsupported("the ns-3 program runs the flows to the end")
        acc, eg = links[(f"S{j}", "R1")], links[("R2", f"D{j}")]
        rates.update((acc["rate"], eg["rate"]))
        for ln in (acc, eg):
            for side in ("queue", "reverse_queue"):
                others.add(int(ln[side].get("limit") or 1000))
        shared.add(tuple((k, tcp.get(k)) for k in SHARED_TCP))
        lines.append(f"tcp {float(f['start'])!r} {float(f['stop'])!r} {float(acc['delay'])!r} "
                     f"{float(eg['delay'])!r} {cc} {int(tcp['window_init'])}")
    others.add(int(bn["reverse_queue"].get("limit") or 1000))
    for what, vals in (("one rate for every access and egress link", rates),
                       ("one limit for every queue but the bottleneck's", others),
                       (f"the flows to share {', '.join(SHARED_TCP)}", shared),
                       ("one HyStart setting for the CUBIC flows", hystart)):
        if len(vals) > 1:
            raise Unsupported(f"the ns-3 L4S equivalent needs {what}")
    tcp: Dict[str, Any] = dict(next(iter(shared)), variant="cubic", pacing=False)
    args = [
        # = the flow file's lines: dumbbell.cc parses its command line again after reading the
        # file (for the --ns3:: attributes), so a different --flows would index past the file
        f"--flows={len(lines)}",
        f"--bottleneck={float(bn['rate']):.0f}bps",
        f"--bottleneckDelay={float(bn['delay'])!r}s",
        f"--access={float(next(iter(rates))):.0f}bps",
        f"--duration={duration!r}",
        f"--seed={seed}",
        f"--segment={int(tcp['packet_size'])}",
        f"--window={int(tcp['window'])}",
        f"--otherQueue={next(iter(others))}",
        "--tcp=dctcp",  # the sinks' congestion control: DCTCP's receiver echoes CE per packet
        "--ecn=1",
        f"--hystart={'true' if (hystart or {True}).pop() else 'false'}",
        "--queue=fq_pie",
        f"--limit={int(q['limit'])}",
        "--ns3::FqPieQueueDisc::UseL4s=true",
        f"--ns3::FqPieQueueDisc::CeThreshold={float(q['step_thresh'])!r}s",
        "--ns3::TcpDctcp::UseEct0=false",
        "--ns3::TcpSocketBase::UseEcn=Off",  # CUBIC: Not-ECT; TcpDctcp::Init turns it on for DCTCP
    ]
    return args + linux_tcp_arguments(tcp), lines
