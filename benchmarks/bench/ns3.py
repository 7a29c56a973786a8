"""ns-3 in the benchmark: ``benchmarks/ns3/dumbbell.cc`` (built once by
``benchmarks/ns3/build.sh`` under ``target/``), with the scenario's numbers as arguments.
It builds one shape: a dumbbell with one group of FTP flows."""

from __future__ import annotations

import subprocess
from typing import Any, Dict, List, Mapping, Optional

from .child import run_child
from .config import NS3, NS3_BUILD, flat_error
from .ns3_tcp import linux_tcp_arguments
from .sims import Outcome, Simulator, Unsupported

__all__ = ["Ns3", "ns3_arguments", "linux_tcp_arguments", "NS3_MODERN", "LINUX_TCP_DEFAULTS"]


def ns3_arguments(sc: Mapping[str, Any], seed: int) -> List[str]:
    """benchmarks/ns3/dumbbell.cc's arguments for a scenario, or :class:`Unsupported`.

    The ns-3 program builds one shape: a dumbbell with one group of FTP flows, fixed access
    and egress delays, RED (packet mode, no ECN) at the bottleneck and FIFOs elsewhere.
    A group on ``tcp.stack = "linux"`` runs ns-3's TCP defaults (PRR, initial window 10,
    delayed ACKs, 1 s minimum RTO; :func:`linux_tcp_arguments`), BBR as ``TcpBbr``.
    """
    from aqmsim.ns2.export import TCP_DEFAULTS, normalize_queue, parse_rate, parse_time

    db = sc.get("dumbbell")
    if not db or sc.get("flows") or sc.get("links"):
        raise Unsupported("the ns-3 program builds a dumbbell only")
    groups = db.get("groups") or []
    if len(groups) != 1:
        raise Unsupported("the ns-3 program takes one dumbbell group")
    g = groups[0]
    if g.get("app", "ftp") != "ftp" or not g.get("egress"):
        raise Unsupported("the ns-3 program runs FTP flows to their own sinks (egress links)")
    acc, eg, bn = g["access"], g["egress"], db["bottleneck"]
    for link, w in ((acc, "access"), (eg, "egress")):
        if isinstance(link.get("delay"), Mapping):
            raise Unsupported(f"the ns-3 program needs a fixed {w} delay")
    if parse_rate(acc["rate"]) != parse_rate(eg["rate"]) or parse_time(acc["delay"]) != parse_time(eg["delay"]):
        raise Unsupported("the ns-3 program uses one rate and delay for access and egress links")
    bq = dict(bn.get("queue") or {})
    modern = str(bq.get("kind", "")).lower() in NS3_MODERN
    q = _ns3_modern_queue(bq) if modern else normalize_queue(bn.get("queue"), "dumbbell.bottleneck.queue")
    if not modern and (q["kind"] not in ("red", "gentle") or q["bytes"] or q["queue_in_bytes"] or q["ecn"]):
        raise Unsupported("the ns-3 program has RED in packet mode without ECN, CoDel, PIE or FQ-CoDel at the bottleneck")
    if not modern and (q["min_th"] is None or q["max_th"] is None or q["w_q"] is None):
        raise Unsupported("the ns-3 program needs explicit RED thresholds and w_q")
    start = g.get("start", 0.0)
    if isinstance(start, Mapping):
        lo, hi = (parse_time(x) for x in start["uniform"])
    else:
        lo = hi = parse_time(start)
    stack = str((g.get("tcp") or {}).get("stack", (sc.get("tcp") or {}).get("stack", "ns2"))).lower()
    tcp = dict(LINUX_TCP_DEFAULTS if stack == "linux" else TCP_DEFAULTS)
    tcp.update(sc.get("tcp") or {})
    tcp.update(g.get("tcp") or {})
    if stack == "linux" and "window" not in tcp:
        tcp["window"] = LINUX_RCVBUF / int(tcp["packet_size"])
    variant = str(tcp.get("variant", "reno")).lower()
    ns3_tcp = {"reno": "newreno", "newreno": "newreno", "sack": "newreno", "cubic": "cubic", "dctcp": "dctcp",
               "bbr": "bbr"}.get(variant)
    if ns3_tcp is None:
        raise Unsupported(f"the ns-3 program has no TCP {variant!r} (newreno, cubic, dctcp, bbr)")
    if tcp.get("delayed_ack") and stack != "linux":
        raise Unsupported("the ns-3 program ACKs every packet")
    if variant == "cubic" and tcp.get("tcp_friendliness", True):
        raise Unsupported("ns-3.37's TcpCubic has no Reno-friendly region: set tcp_friendliness = false")
    if tcp.get("ecn") and not modern:
        raise Unsupported("the ns-3 program runs RED without ECN")
    other = normalize_queue(acc.get("queue"), "access.queue")
    duration = parse_time(sc["duration"])
    stop = parse_time(g["stop"]) if "stop" in g else duration
    if stop < duration:
        raise Unsupported("the ns-3 program runs the flows to the end")
    common = [
        f"--flows={int(g.get('count', 1))}",
        f"--bottleneck={parse_rate(bn['rate']):.0f}bps",
        f"--bottleneckDelay={parse_time(bn['delay'])!r}s",
        f"--access={parse_rate(acc['rate']):.0f}bps",
        f"--accessDelay={parse_time(acc['delay'])!r}s",
        f"--duration={duration!r}",
        f"--seed={seed}",
        f"--segment={int(tcp['packet_size'])}",
        f"--window={int(tcp['window'])}",
        f"--startMin={lo!r}",
        f"--startMax={hi!r}",
        f"--otherQueue={int(other.get('limit') or 1000)}",
        f"--tcp={ns3_tcp}",
        f"--ecn={1 if tcp.get('ecn') else 0}",
        f"--hystart={'true' if tcp.get('hystart', True) else 'false'}",
    ]
    if stack == "linux":
        common += linux_tcp_arguments(tcp)
    if modern:
        return common + q["args"]
    return common + [
        f"--minTh={q['min_th']!r}",
        f"--maxTh={q['max_th']!r}",
        f"--maxP={q['max_p']!r}",
        f"--qw={q['w_q']!r}",
        f"--limit={int(q['limit'])}",
        f"--meanPktSize={int(q['mean_pktsize'])}",
        f"--gentle={'true' if q['gentle'] else 'false'}",
        f"--wait={'true' if q['wait'] else 'false'}",
    ]


#: The linux stack's defaults (crates/aqmsim-core: TcpParams::linux(), docs/tcp/stack-linux.md),
#: which are ns-3.37's; ``window`` when unset is ``LINUX_RCVBUF`` / ``packet_size`` segments.
LINUX_TCP_DEFAULTS: Dict[str, Any] = {
    "variant": "newreno", "packet_size": 1000, "header": 40, "window_init": 10, "delayed_ack": True,
    "delack_count": 2, "delack_interval": 0.2, "min_rto": 1.0, "rto_init": 1.0, "max_rto": 60.0, "dupacks": 3,
    "ecn": False, "sack": True, "pacing": False, "hystart": True, "tcp_friendliness": False,
    "timestamps": True,
}
LINUX_RCVBUF = 131072  # bytes: ns-3's TcpSocket::RcvBufSize


#: Disciplines dumbbell.cc builds besides RED: each table field as an ns-3 attribute of the
#: disc (a time in s, a number or a bool), or as a value ns-3 cannot change there.
NS3_MODERN: Dict[str, Dict[str, Any]] = {
    "codel": {"target": "Target", "interval": "Interval", "min_bytes": "MinBytes", "ecn": "UseEcn"},
    "pie": {"ecn": "UseEcn"},
    "fq_codel": {"target": "Target", "interval": "Interval", "ecn": "UseEcn", "flows": "Flows",
                 "drop_batch": "DropBatchSize", "perturbation": "Perturbation",
                 "min_bytes": ("ns3::CoDelQueueDisc::MinBytes",), "quantum": 1500, "classify": "hash"},
}
_NS3_DISC = {"codel": "CoDelQueueDisc", "pie": "PieQueueDisc", "fq_codel": "FqCoDelQueueDisc"}


def _ns3_modern_queue(q: Mapping[str, Any]) -> Dict[str, Any]:
    """dumbbell.cc's arguments for a CoDel, PIE or FQ-CoDel bottleneck, or
    :class:`Unsupported` (other fields stay at ns-3's defaults, which are aqmsim's)."""
    from aqmsim.ns2.export import parse_time
    kind = str(q["kind"]).lower()
    args = [f"--queue={kind}"]
    for key, value in q.items():
        if key == "kind":
            continue
        if key == "limit":
            args.append(f"--limit={int(value)}")
            continue
        if key == "ce_threshold" and kind != "pie":
            args.append(f"--ceThreshold={parse_time(value)!r}s")
            continue
        how = NS3_MODERN[kind].get(key)
        if how is None:
            raise Unsupported(f"the ns-3 program cannot set {kind}.{key}")
        if not isinstance(how, (str, tuple)) or (isinstance(how, str) and key == "classify"):
            if value != how:
                raise Unsupported(f"the ns-3 program runs {kind} with {key} = {how!r} only")
            continue
        attr = how[0] if isinstance(how, tuple) else f"ns3::{_NS3_DISC[kind]}::{how}"
        if key in ("target", "interval"):
            text = f"{parse_time(value)!r}s"
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(int(value))
        args.append(f"--{attr}={text}")
    return {"kind": kind, "args": args}


#: What the report says ns-3 ran instead of a DualPI2 dumbbell (bench/ns3_l4s.py).
EQUIVALENT_L4S = ("its nearest equivalent of the DualPI2 dumbbell (ns-3.37 has no DualPI2 and no Prague): "
                  "FqPieQueueDisc in L4S mode (UseL4s, CeThreshold = step_thresh, MaxSize = limit), "
                  "TcpDctcp sending ECT(1) for the Prague flows, TcpCubic without ECN (bench/ns3_l4s.py)")


class Ns3(Simulator):
    name = NS3

    def __init__(self) -> None:
        self._binary: Optional[str] = None
        self._why = ""

    def available(self):
        if self._binary is None and not self._why:
            if not NS3_BUILD.exists():
                self._why = f"{NS3_BUILD} is missing"
            else:
                p = subprocess.run(["bash", str(NS3_BUILD)], capture_output=True, text=True,
                                   stdin=subprocess.DEVNULL)
                if p.returncode == 0 and p.stdout.strip():
                    self._binary = p.stdout.strip().splitlines()[-1]
                elif p.returncode == 3:
                    self._why = "ns-3 is not installed (`make ns3`: Debian's libns3-dev)"
                else:
                    self._why = f"building the ns-3 program failed: {flat_error(p.stderr, 4)}"
        return (self._binary is not None), self._why

    def prepare(self, sc, seed, workdir):
        from .ns3_l4s import is_l4s, ns3_l4s_plan

        if is_l4s(sc):  # DualPI2: ns-3's nearest equivalent, flows in a file (ns3_l4s.py)
            args, lines = ns3_l4s_plan(sc, seed)
            flow_file = workdir / "flows.txt"
            flow_file.write_text("".join(ln + "\n" for ln in lines))
            args.append(f"--flowFile={flow_file.resolve()}")
            equivalent = EQUIVALENT_L4S
        else:
            equivalent = ""
            args = ns3_arguments(sc, seed)
        binary = self._binary

        def run(timeout: float) -> Outcome:
            c = run_child([binary, *args], cwd=workdir, timeout=timeout)
            o = Outcome(c.wall, c.max_rss_mib, timed_out=c.timed_out)
            kv: Dict[str, str] = {}
            for line in c.stdout.splitlines():
                k, _, v = line.partition(" ")
                kv[k] = v.strip()
            if c.returncode != 0 or "bottleneck_departures" not in kv:
                o.error = "timed out" if c.timed_out else f"exit {c.returncode}: {flat_error(c.stderr)}"
                return o
            o.packets = int(kv["bottleneck_departures"])
            o.arrivals = int(kv["bottleneck_arrivals"])
            o.drops = int(kv["bottleneck_drops"])
            o.utilisation = float(kv["utilisation"])
            o.events = int(kv["events"])
            o.inner = {"setup": float(kv["setup_wall_s"]), "run": float(kv["run_wall_s"])}
            if equivalent:
                o.extra["equivalent"] = equivalent
            return o

        run.args = args  # type: ignore[attr-defined]
        return run


