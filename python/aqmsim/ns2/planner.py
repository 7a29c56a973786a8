"""Resolving a scenario for ns-2 (:mod:`aqmsim.ns2.export` describes the exporter): its
fields checked against what the script can build, every default applied, every random value
drawn from the streams aqmsim's engine uses, into a :class:`~aqmsim.ns2.plan.Plan`.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .plan import FlowPlan, LinkPlan, Plan
from .queues import normalize_queue
from .tcl import Ns2ExportError, parse_rate, parse_time
from .threshold2 import t2_in_bytes

__all__ = ["component_rng", "draw", "build_plan", "pin_draws", "TCP_DEFAULTS", "TCP_AGENTS",
           "NS2_ON_REQUEST"]


def component_rng(seed: int, component: str) -> random.Random:
    """The random stream of one component (``"access/3"``, ``"start/0"``) for ``seed``.

    Each component has its own stream (a string-seeded ``random.Random``, stable across
    Python runs and machines), so adding a host does not shift anyone else's draws.
    """
    return random.Random(f"aqmsim-ns2/{int(seed)}/{component}")


def draw(dist: Any, rng: random.Random, where: str) -> float:
    """A time from a distribution: a fixed time, or ``{uniform = [lo, hi]}`` (seconds)."""
    if isinstance(dist, Mapping):
        keys = set(dist)
        if keys != {"uniform"}:
            raise Ns2ExportError(f"{where}: a distribution is a time or {{uniform = [lo, hi]}}, got keys {sorted(keys)}")
        bounds = dist["uniform"]
        if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
            raise Ns2ExportError(f"{where}.uniform: expected [lo, hi], got {bounds!r}")
        lo = parse_time(bounds[0], f"{where}.uniform[0]")
        hi = parse_time(bounds[1], f"{where}.uniform[1]")
        if hi < lo:
            raise Ns2ExportError(f"{where}.uniform: hi ({hi}) must be >= lo ({lo})")
        return lo + (hi - lo) * rng.random()
    return parse_time(dist, where)


# ---------------------------------------------------------------------------- TCP
#: ns-2.35's defaults for the scenario's TCP table (printed from the binary).
TCP_DEFAULTS: Dict[str, Any] = {
    "variant": "reno",
    "packet_size": 1000,
    "header": 40,
    "use_headers": True,
    "window": 20,
    "window_init": 2,
    "syn": True,
    "delay_growth": True,
    "tick": 0.01,
    "min_rto": 0.2,
    "max_rto": 60.0,
    "rto_init": 3.0,
    "dupacks": 3,
    "max_burst": 0,
    "ecn": False,
    "limited_transmit": True,
    "ack_size": 40,
    "delayed_ack": False,
    "delack_interval": 0.1,
}
_TCP_TIMES = {"tick", "min_rto", "max_rto", "rto_init", "delack_interval"}
_TCP_BOOLS = {"syn", "use_headers", "delay_growth", "ecn", "limited_transmit", "delayed_ack"}

#: variant -> (sender class, sink class, sink class with delayed ACKs)
TCP_AGENTS: Dict[str, Tuple[str, str, str]] = {
    "tahoe": ("Agent/TCP", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "reno": ("Agent/TCP/Reno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1", "Agent/TCPSink/Sack1/DelAck"),
}

#: aqmsim TCP variants stock ns-2 2.35 has no agent for, and why.
TCP_NOT_IN_NS2: Dict[str, str] = {
    "cubic": "CUBIC has no agent in stock ns-2 2.35 (only Agent/TCP/Linux with a kernel congestion "
             "module, a different model); aqmsim's CUBIC is compared with ns-3.37 (docs/ns3-reference.md)",
    "dctcp": "DCTCP has no agent in stock ns-2 2.35; aqmsim's DCTCP is compared with ns-3.37 "
             "(docs/ns3-reference.md)",
}


def _resolve_tcp(layers: Sequence[Tuple[Optional[Mapping[str, Any]], str]]) -> Dict[str, Any]:
    """Merge TCP tables (ns-2 defaults <- top-level <- group), checking every field."""
    out = dict(TCP_DEFAULTS)
    for table, where in layers:
        if table is None:
            continue
        if not isinstance(table, Mapping):
            raise Ns2ExportError(f"{where}: expected a table, got {table!r}")
        for k, v in table.items():
            w = f"{where}.{k}"
            if k not in TCP_DEFAULTS:
                raise Ns2ExportError(f"{w}: unknown TCP field (known: {', '.join(TCP_DEFAULTS)})")
            if k == "variant":
                if isinstance(v, str) and v.lower() in TCP_NOT_IN_NS2:
                    raise Ns2ExportError(f"{w}: {TCP_NOT_IN_NS2[v.lower()]}")
                if not isinstance(v, str) or v.lower() not in TCP_AGENTS:
                    raise Ns2ExportError(f"{w}: unknown TCP variant {v!r} (expected one of: {', '.join(TCP_AGENTS)})")
                v = v.lower()
            elif k in _TCP_TIMES:
                v = parse_time(v, w)
            elif k in _TCP_BOOLS:
                if not isinstance(v, bool):
                    raise Ns2ExportError(f"{w}: expected true or false, got {v!r}")
            else:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                    raise Ns2ExportError(f"{w}: expected a number >= 0, got {v!r}")
            out[k] = v
    return out


#: (``max_events``, aqmsim's guard against a run that never ends, has no ns-2 counterpart:
#: accepted and not written.)
#: (``max_events``, ``max_packets``, ``trace`` and the TCP-state and delay monitors change
#: nothing simulated: the script ignores them; ``trace_all`` asks ns-2 for its own trace)
_TOP_FIELDS = {"name", "description", "notes", "duration", "seed", "tcp", "dumbbell", "nodes",
               "links", "flows", "monitor", "ns2", "max_events", "max_packets", "trace"}
#: What the ``ns2`` table of a scenario may ask of the ns-2 run (not a field of aqmsim's
#: scenarios: ``aqmsim reproduce`` adds it to the scenarios it hands to ns-2 only):
#: ``measure`` lists metrics ns-2 gives only on request, :data:`NS2_ON_REQUEST`.
NS2_ON_REQUEST: Tuple[str, ...] = ("max_queue_pkts",)
_GROUP_FIELDS = {"name", "count", "access", "egress", "app", "start", "stop", "tcp", "cbr", "onoff"}
_FLOW_FIELDS = {"label", "src", "dst", "count", "app", "start", "stop", "tcp", "cbr", "onoff"}
_ACCESS_FIELDS = {"rate", "delay", "queue", "reverse_queue"}


def _check_fields(table: Any, allowed: set, where: str) -> None:
    if not isinstance(table, Mapping):
        raise Ns2ExportError(f"{where}: expected a table, got {table!r}")
    for k in table:
        if k not in allowed:
            raise Ns2ExportError(f"{where}.{k}: unknown field (known: {', '.join(sorted(allowed))})")


def _count(t: Mapping[str, Any], where: str) -> int:
    c = t.get("count", 1)
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise Ns2ExportError(f"{where}.count: must be an integer >= 1, got {c!r}")
    return c


#: The traffic models ns-2's export does not write (RFC 7928's, issue 16), and why.
_NOT_EXPORTED = {
    "web": "app \"web\" (short TCP transfers with completion times) cannot be exported to ns-2",
    "rate_schedule": "a varying link rate (rate_schedule) cannot be exported to ns-2",
    "burst": "bursty CBR (cbr.burst > 1) cannot be exported to ns-2 (its CBR has no bursts)",
}


def _refuse_new_traffic(t: Any, where: str) -> None:
    """One clear line for the traffic models the export does not write."""
    if not isinstance(t, Mapping):
        return
    if t.get("app") == "web":
        raise Ns2ExportError(f"{where}.app: {_NOT_EXPORTED[t['app']]}")
    if "rate_schedule" in t:
        raise Ns2ExportError(f"{where}.rate_schedule: {_NOT_EXPORTED['rate_schedule']}")
    cbr = t.get("cbr")
    if isinstance(cbr, Mapping) and cbr.get("burst", 1) != 1:
        raise Ns2ExportError(f"{where}.cbr.burst: {_NOT_EXPORTED['burst']}")


def _period(v: Any, where: str) -> Tuple[str, float, Optional[float]]:
    """An on/off period: (kind, mean s, shape or None)."""
    if isinstance(v, Mapping) and set(v) == {"exponential"}:
        return "Exponential", parse_time(v["exponential"], f"{where}.exponential"), None
    if isinstance(v, Mapping) and set(v) == {"pareto"} and isinstance(v["pareto"], Mapping):
        p = v["pareto"]
        _check_fields(p, {"mean", "shape"}, f"{where}.pareto")
        if "mean" not in p or "shape" not in p:
            raise Ns2ExportError(f"{where}.pareto: needs mean and shape")
        shape = p["shape"]
        if isinstance(shape, bool) or not isinstance(shape, (int, float)) or not shape > 1:
            raise Ns2ExportError(f"{where}.pareto.shape: must be a number > 1, got {shape!r}")
        return "Pareto", parse_time(p["mean"], f"{where}.pareto.mean"), float(shape)
    raise Ns2ExportError(f"{where}: ns-2's on/off sources draw their periods: "
                         "{ exponential = time } or { pareto = { mean, shape } }, got " f"{v!r}")


def _udp_rate_size(t: Mapping[str, Any], where: str, fp: FlowPlan, default_size: int) -> None:
    """A UDP source's rate and packet size (a cbr or an onoff table) into ``fp``."""
    fp.cbr_rate = parse_rate(t["rate"], f"{where}.rate")
    size = t.get("packet_size", default_size)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise Ns2ExportError(f"{where}.packet_size: must be an integer >= 1 bytes, got {size!r}")
    fp.cbr_size = size


def _onoff(o: Any, where: str, fp: FlowPlan) -> None:
    """app "onoff" as ns-2's Application/Traffic/Exponential or /Pareto: both periods of
    one kind (and one shape), which is all those classes can draw."""
    if o is None:
        raise Ns2ExportError(f"{where}: app \"onoff\" needs an onoff table {{rate, packet_size, on, off}}")
    _check_fields(o, {"rate", "packet_size", "on", "off"}, where)
    for k in ("rate", "on", "off"):
        if k not in o:
            raise Ns2ExportError(f"{where}.{k}: missing")
    _udp_rate_size(o, where, fp, default_size=1000)
    on, off = _period(o["on"], f"{where}.on"), _period(o["off"], f"{where}.off")
    if on[0] != off[0] or on[2] != off[2]:
        raise Ns2ExportError(f"{where}.off: ns-2 draws on and off periods of one kind (and one "
                             f"Pareto shape): on is {on[0]} {on[2] or ''}, off is {off[0]} {off[2] or ''}")
    fp.onoff = {"class": on[0], "burst_time_": on[1], "idle_time_": off[1], "shape_": on[2]}


def _traffic(t: Mapping[str, Any], where: str, top_tcp: Any, duration: float, seed: int,
             index: int, src: str, dst: str, group: str, draws: Dict[str, float]) -> FlowPlan:
    _refuse_new_traffic(t, where)
    app = t.get("app", "ftp")
    if app not in ("ftp", "cbr", "onoff"):
        raise Ns2ExportError(f"{where}.app: must be \"ftp\", \"cbr\" or \"onoff\", got {app!r}")
    start = draw(t.get("start", 0.0), component_rng(seed, f"start/{index}"), f"{where}.start")
    draws[f"start/{index}"] = start
    stop = parse_time(t["stop"], f"{where}.stop") if "stop" in t else duration
    fp = FlowPlan(index=index, src=src, dst=dst, app=app, start=start, stop=stop, group=group, label=group)
    if app == "ftp":
        fp.tcp = _resolve_tcp([(top_tcp, "tcp"), (t.get("tcp"), f"{where}.tcp")])
    elif app == "onoff":
        _onoff(t.get("onoff"), f"{where}.onoff", fp)
    else:
        cbr = t.get("cbr")
        if cbr is None:
            raise Ns2ExportError(f"{where}.cbr: app \"cbr\" needs a cbr table {{rate, packet_size}}")
        _check_fields(cbr, {"rate", "packet_size", "burst"}, f"{where}.cbr")
        if "rate" not in cbr:
            raise Ns2ExportError(f"{where}.cbr.rate: missing")
        _udp_rate_size(cbr, f"{where}.cbr", fp, default_size=210)
    return fp


def build_plan(scenario: Mapping[str, Any], seed: int) -> Plan:
    """Resolve a scenario for ns-2: defaults applied, random delays and starts drawn."""
    if not isinstance(scenario, Mapping):
        raise Ns2ExportError(f"scenario: expected a table (dict), got {type(scenario).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise Ns2ExportError(f"seed: must be an integer >= 0, got {seed!r}")
    _check_fields(scenario, _TOP_FIELDS, "scenario")
    if "duration" not in scenario:
        raise Ns2ExportError("duration: missing (simulated seconds)")
    duration = parse_time(scenario["duration"], "duration")
    if duration <= 0:
        raise Ns2ExportError(f"duration: must be > 0, got {scenario['duration']!r}")
    top_tcp = scenario.get("tcp")
    nodes: List[str] = []
    links: List[LinkPlan] = []
    flows: List[FlowPlan] = []
    draws: Dict[str, float] = {}

    def add_node(n: str, where: str) -> None:
        if not isinstance(n, str) or not n:
            raise Ns2ExportError(f"{where}: node names are non-empty strings, got {n!r}")
        if n in nodes:
            raise Ns2ExportError(f"{where}: node {n!r} defined twice")
        nodes.append(n)

    def add_duplex(a: str, b: str, rate: float, delay: float, q: Any, rq: Any, where: str,
                   rq_where: str) -> None:
        links.append(LinkPlan(a, b, rate, delay, normalize_queue(q, where), where))
        links.append(LinkPlan(b, a, rate, delay, normalize_queue(rq, rq_where), rq_where))

    db = scenario.get("dumbbell")
    monitored_default: List[str] = []
    if db is not None:
        _check_fields(db, {"bottleneck", "groups"}, "dumbbell")
        bn = db.get("bottleneck")
        _refuse_new_traffic(bn, "dumbbell.bottleneck")
        _check_fields(bn, {"rate", "delay", "queue", "reverse_queue"}, "dumbbell.bottleneck")
        for f_ in ("rate", "delay"):
            if f_ not in bn:
                raise Ns2ExportError(f"dumbbell.bottleneck.{f_}: missing")
        add_node("R1", "dumbbell")
        add_node("R2", "dumbbell")
        add_duplex("R1", "R2", parse_rate(bn["rate"], "dumbbell.bottleneck.rate"),
                   parse_time(bn["delay"], "dumbbell.bottleneck.delay"),
                   bn.get("queue"), bn.get("reverse_queue"),
                   "dumbbell.bottleneck.queue", "dumbbell.bottleneck.reverse_queue")
        monitored_default = ["R1->R2"]
        groups = db.get("groups")
        if not isinstance(groups, list) or not groups:
            raise Ns2ExportError("dumbbell.groups: expected a non-empty list of group tables")
        k = 0
        for gi, g in enumerate(groups):
            gw = f"dumbbell.groups.{gi}"
            _refuse_new_traffic(g, gw)
            _check_fields(g, _GROUP_FIELDS, gw)
            if "access" not in g:
                raise Ns2ExportError(f"{gw}.access: missing")
            _check_fields(g["access"], _ACCESS_FIELDS, f"{gw}.access")
            if g.get("egress") is not None:
                _check_fields(g["egress"], _ACCESS_FIELDS, f"{gw}.egress")
            gname = g.get("name", "") or f"group{gi}"
            for _ in range(_count(g, gw)):
                s = f"S{k}"
                add_node(s, gw)
                acc = g["access"]
                for f_ in ("rate", "delay"):
                    if f_ not in acc:
                        raise Ns2ExportError(f"{gw}.access.{f_}: missing")
                d_acc = draw(acc["delay"], component_rng(seed, f"access/{k}"), f"{gw}.access.delay")
                draws[f"access_delay/{k}"] = d_acc
                # Access link S<k> -- R1: `queue` is S<k>->R1 (data direction), `reverse_queue` R1->S<k>.
                add_duplex(s, "R1", parse_rate(acc["rate"], f"{gw}.access.rate"), d_acc,
                           acc.get("queue"), acc.get("reverse_queue"),
                           f"{gw}.access.queue", f"{gw}.access.reverse_queue")
                eg = g.get("egress")
                if eg is not None:
                    d = f"D{k}"
                    add_node(d, gw)
                    for f_ in ("rate", "delay"):
                        if f_ not in eg:
                            raise Ns2ExportError(f"{gw}.egress.{f_}: missing")
                    d_eg = draw(eg["delay"], component_rng(seed, f"egress/{k}"), f"{gw}.egress.delay")
                    draws[f"egress_delay/{k}"] = d_eg
                    # Egress link R2 -- D<k>: `queue` is R2->D<k> (data direction).
                    add_duplex("R2", d, parse_rate(eg["rate"], f"{gw}.egress.rate"), d_eg,
                               eg.get("queue"), eg.get("reverse_queue"),
                               f"{gw}.egress.queue", f"{gw}.egress.reverse_queue")
                else:
                    d = "R2"
                flows.append(_traffic(g, gw, top_tcp, duration, seed, len(flows), s, d, gname, draws))
                k += 1

    for i, n in enumerate(scenario.get("nodes", []) or []):
        add_node(n, f"nodes.{i}")
    for i, lk in enumerate(scenario.get("links", []) or []):
        w = f"links.{i}"
        _refuse_new_traffic(lk, w)
        _check_fields(lk, {"from", "to", "rate", "delay", "queue", "reverse_queue"}, w)
        for f_ in ("from", "to", "rate", "delay"):
            if f_ not in lk:
                raise Ns2ExportError(f"{w}.{f_}: missing")
        for end in ("from", "to"):
            if lk[end] not in nodes:
                raise Ns2ExportError(f"{w}.{end}: unknown node {lk[end]!r}")
        q = lk.get("queue")
        rq = lk.get("reverse_queue", q)
        add_duplex(lk["from"], lk["to"], parse_rate(lk["rate"], f"{w}.rate"), parse_time(lk["delay"], f"{w}.delay"),
                   q, rq, f"{w}.queue", f"{w}.reverse_queue" if "reverse_queue" in lk else f"{w}.queue")
    for i, fl in enumerate(scenario.get("flows", []) or []):
        w = f"flows.{i}"
        _refuse_new_traffic(fl, w)
        _check_fields(fl, _FLOW_FIELDS, w)
        for end in ("src", "dst"):
            if end not in fl:
                raise Ns2ExportError(f"{w}.{end}: missing")
            if fl[end] not in nodes:
                raise Ns2ExportError(f"{w}.{end}: unknown node {fl[end]!r}")
        for _ in range(_count(fl, w)):
            label = fl.get("label") or w
            if not isinstance(label, str):
                raise Ns2ExportError(f"{w}.label: expected a string, got {label!r}")
            flows.append(_traffic(fl, w, top_tcp, duration, seed, len(flows), fl["src"], fl["dst"], label, draws))
            flows[-1].label = fl.get("label") or f"flows[{i}]"

    seen = set()
    for lk in links:
        if lk.name in seen:
            raise Ns2ExportError(f"{lk.where}: link {lk.name} defined twice")
        seen.add(lk.name)

    mon = scenario.get("monitor") or {}
    _check_fields(mon, {"queues", "sample_interval", "link_interval", "tcp_flows", "tcp_interval",
                        "delays"}, "monitor")
    monitored = mon.get("queues", monitored_default)
    if not isinstance(monitored, list):
        raise Ns2ExportError(f"monitor.queues: expected a list of \"a->b\", got {monitored!r}")
    for i, name in enumerate(monitored):
        if name not in seen:
            raise Ns2ExportError(f"monitor.queues.{i}: no link {name!r} (links: {', '.join(sorted(seen))})")
    sample_interval = parse_time(mon.get("sample_interval", 0.01), "monitor.sample_interval")
    opts = scenario.get("ns2") or {}
    _check_fields(opts, {"measure"}, "ns2")
    measure = opts.get("measure", [])
    if not isinstance(measure, (list, tuple)) or any(m not in NS2_ON_REQUEST for m in measure):
        raise Ns2ExportError(f"ns2.measure: expected a list among {', '.join(NS2_ON_REQUEST)}, "
                             f"got {measure!r}")
    name = scenario.get("name", "") or ""
    plan = Plan(name=str(name), seed=seed, duration=duration, nodes=nodes, links=links, flows=flows,
                monitored=list(monitored), sample_interval=sample_interval, draws=draws,
                measure=tuple(dict.fromkeys(measure)))
    t2_in_bytes(plan)  # ecn_threshold T = 2 in bytes where that is exact (aqmsim.ns2.threshold2)
    return plan


def pin_draws(scenario: Mapping[str, Any], seed: int) -> Dict[str, Any]:
    """The scenario with this seed's random values written in as fixed numbers.

    Every dumbbell group with a distribution is split into one group per host, with the
    access/egress delay and start drawn by :func:`build_plan`. Run aqmsim and ns-2 on the
    pinned scenario and both see the very same topology and start times; what remains
    different between them is only the RNG behind RED's coin. Host and flow numbering
    (``S<k>``, flow ``k``) is unchanged. Explicit ``flows`` with a random start are split
    the same way.
    """
    import copy

    plan = build_plan(scenario, seed)
    out = copy.deepcopy(dict(scenario))
    k = 0
    db = out.get("dumbbell")
    if db is not None:
        groups = []
        for gi, g in enumerate(db["groups"]):
            n = int(g.get("count", 1))
            for j in range(n):
                one = copy.deepcopy(g)
                one["count"] = 1
                if n > 1:
                    one["name"] = f"{g.get('name', '') or f'group{gi}'}#{j}"
                one["access"]["delay"] = plan.draws[f"access_delay/{k}"]
                if one.get("egress") is not None:
                    one["egress"]["delay"] = plan.draws[f"egress_delay/{k}"]
                one["start"] = plan.draws[f"start/{k}"]
                groups.append(one)
                k += 1
        db["groups"] = groups
    if out.get("flows"):
        flows = []
        for fl in out["flows"]:
            n = int(fl.get("count", 1))
            for _ in range(n):
                one = copy.deepcopy(fl)
                one["count"] = 1
                one["start"] = plan.draws[f"start/{k}"]
                flows.append(one)
                k += 1
        out["flows"] = flows
    return out
