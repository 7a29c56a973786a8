"""Scenario -> ns-2.35 Tcl script.

:func:`to_tcl` turns a scenario (the dict a TOML scenario file holds, see
``docs/scenario-reference.md``) into a script that ``ns`` runs as it is. The script builds
the same topology, queues, agents and applications, and at ``duration`` writes what the
cross-check compares (``summary.txt``: ``key value`` lines) into ``trace_dir``.

Rules the exporter keeps (``docs/ns2-faithfulness.md`` explains each):

* **Every parameter is written.** Each queue and each agent gets every parameter that
  matters set on the instance (``$q set thresh_ 5``), so the script does not depend on
  ns-2's class defaults. ``"auto"`` values become ns-2's own sentinels (``thresh_ 0``,
  ``q_weight_ -1``), so ns-2 resolves them itself.
* **Randomness is drawn here.** Uniform access delays and start times are drawn in
  Python from the seed before the script is written, one stream per component
  (:func:`component_rng`), and the script holds the drawn numbers. The only randomness
  left in ns-2 is its default RNG (RED's coin, TCP's ``boot_time_``), which the script
  puts on substream ``seed`` of MRG32k3a seed 1: independent streams per seed; and each
  on/off source's bursts and idle times, drawn from an RNG of its own (the next stream of
  seed 1, made before any queue, on substream ``seed``, ``$app use-rng``), so that its
  pattern is the same whatever discipline draws RED's coins beside it.
* **Traffic.** FTP over TCP, CBR, and on/off sources whose periods are both exponential
  (``Application/Traffic/Exponential``) or both Pareto of one shape (``/Pareto``): the same
  semantics as aqmsim's (ns-2's ``expoo.cc``/``pareto.cc``), ns-2's own draws. Web
  transfers, bursty CBR, fixed on/off periods and ``rate_schedule`` raise
  :class:`Ns2ExportError` naming the field.
* **Links are simplex pairs.** Each direction is its own ``simplex-link`` with its own
  queue (what ``duplex-link`` does, but allowing a different discipline per direction).
* **Routes by hand where there is one path.** A forest of duplex links (every dumbbell)
  is routed with ``$ns rtproto Manual`` and ``add-route-to-adj-node``, as ns-2's many-flow
  examples do (:mod:`aqmsim.ns2.routes`): the same paths and packets, without the
  all-pairs route computation of ns-2's static routing at ``$ns run``; other topologies
  keep it (and ``static_routes=True`` asks for it anywhere).
* **Only what ns-2 2.35 has.** ``droptail``, ``red``, ``gentle`` (``gentle_ true``),
  ``ared`` (``adaptive_ 1``), ``red1``, ``red4`` and ``ecn_threshold`` with mark-tail
  (below) are exported; the other disciplines (:data:`NOT_IN_NS2`), RED's ``ecn_mode =
  "mark_front"`` and ``ecn_threshold``'s ``mark_front`` / ``drop_front`` raise
  :class:`Ns2ExportError` naming the field. The RED family's ``gentle_``, ``wait_``,
  ``bytes_`` and ``queue_in_bytes_`` are always written, resolved as aqmsim resolves them
  (each kind's paper defaults: false, ``gentle_`` true for ``gentle`` and ``ared``; all four
  true with ``defaults = "ns2"``), so ns-2's own defaults never decide a run.
* **Paper 004's threshold ECN.** ``ecn_threshold`` with ``mode = "mark_tail"`` (mark the
  arrival when the packets waiting, counting it, exceed T) becomes ``Queue/RED`` on the
  instantaneous queue: ``q_weight_ 1`` (the average is the queue), ``maxthresh_`` T
  (p = 1 from there: ``gentle_ false``, ``wait_ false``), ``thresh_`` T − 1 (RED takes no
  decision on the first arrival above ``thresh_``; with T − 1 that arrival is one that
  would not be marked anyway), ``setbit_ true``, ``use_mark_p_ true`` with ``mark_p_ 2``
  (no forced drop above ``maxthresh_``: mark), ``limit_`` = ``limit`` (both count waiting
  packets). A packet that is not ECT is dropped where it would be marked, in both. Exact
  for T >= 3; counted in packets T = 2 misses the arrival finding 2 waiting right after
  one finding at most 1 (RED's ``qlen > 1``), so it is counted in bytes where every packet
  reaching the queue is one size, which is exact (:mod:`aqmsim.ns2.threshold2`); T <= 1 is
  refused (:data:`THRESHOLD_VS_NS2`).
* **Packet sizes.** ``packet_size``, ``header`` and ``use_headers`` are ns-2's
  ``packetSize_``, ``tcpip_base_hdr_size_`` and ``useHeaders_``, and aqmsim sizes packets
  as ns-2.35's ``output()`` does (sequence 0 never gets the header: without a SYN the first
  data packet is ``packet_size`` bytes), so they are written as typed.
* **The largest queue, on request.** ``max_queue=True`` (or ``ns2 = {measure =
  ["max_queue_pkts"]}`` in the scenario, which only the ns-2 column adds: it is not a field
  of aqmsim's scenarios) traces each monitored queue (``trace_<i>.tr``), from which
  :func:`aqmsim.ns2.trace.max_queue` reads aqmsim's ``max_queue_pkts``.
* **Paper 002's RED_1 and RED_4.** ``red1`` is plain RED with ``bytes_ false``: exported as
  ``Queue/RED`` with every parameter mapped as for ``red`` (the defaults: ``gentle``,
  ``wait`` and ``queue_in_bytes`` false) — exact. ``max_pktsize`` plays no part in RED_1.
  ``red4`` becomes ns-2's byte-mode RED, ``bytes_ true`` with ``mean_pktsize_`` = M
  (``max_pktsize``, a whole number of bytes): ns-2's ``modify_p`` then takes
  ``count1 = count_bytes / mean_pktsize_`` and multiplies ``p`` by ``size / mean_pktsize_``,
  which is RED_4's law up to how the count is kept (:data:`RED4_VS_NS2`). ns-2's
  ``mean_pktsize_`` also sets RED's packet time constant (idle decay, automatic ``w_q`` and
  ``min_th``) and, with ``queue_in_bytes``, the byte unit of the thresholds and the limit,
  which in aqmsim come from ``mean_pktsize``: so the script sets ``mean_pktsize_`` to the
  scenario's ``mean_pktsize`` for ns-2's ``reset()`` at ``$ns run`` (which computes all of
  those) and switches it to M by an event at time 0, before any packet arrives
  (``limit_`` rescaled with it in byte mode, when limit·mean_pktsize/M is whole; otherwise
  the export is refused). With ``mean_pktsize = M`` no switch is written.
* **Per-flow counts at the bottleneck**, only when asked (``flow_monitor=True``): a flow
  monitor (``$ns makeflowmon Fid``, ``$ns attach-fmon``) on the first monitored link gives
  each flow's ``parrivals_``, ``pdrops_`` and ``pmarks_`` there (Results.flows'
  ``queue_arrivals``, ``queue_drops``, ``queue_marks_departed``). Its snoop queues only count:
  ns-2's other results are the same with or without it.

>>> from aqmsim.ns2.export import to_tcl
>>> tcl = to_tcl(scenario_dict, seed=1, trace_dir="/tmp/run1")   # doctest: +SKIP
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .queues import (NOT_IN_NS2, NS2_QUEUE_CLASS, RED4_VS_NS2, THRESHOLD_VS_NS2,  # noqa: F401
                     ared_bottom, normalize_queue, queue_tcl)
from .routes import manual_routes, routes_tcl
from .threshold2 import t2_in_bytes
from .tcl import (Ns2ExportError, _brace, _comment, _num, _tcl_bool, parse_rate,  # noqa: F401
                  parse_time)

__all__ = [
    "Ns2ExportError",
    "parse_rate",
    "parse_time",
    "component_rng",
    "draw",
    "Plan",
    "LinkPlan",
    "FlowPlan",
    "build_plan",
    "pin_draws",
    "to_tcl",
    "render_tcl",
    "TCP_DEFAULTS",
    "TCP_AGENTS",
    "NS2_QUEUE_CLASS",
    "NS2_ON_REQUEST",
    "NOT_IN_NS2",
    "RED4_VS_NS2",
    "THRESHOLD_VS_NS2",
    "normalize_queue",
    "ared_bottom",
]


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


# ---------------------------------------------------------------------------- plan
@dataclass
class LinkPlan:
    """One direction of a link: ``src -> dst`` with its own queue."""

    src: str
    dst: str
    rate: float  # bit/s
    delay: float  # s
    queue: Dict[str, Any]
    where: str  # scenario path of the queue table

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"


@dataclass
class FlowPlan:
    index: int
    src: str
    dst: str
    app: str  # "ftp" | "cbr" | "onoff"
    start: float
    stop: float
    group: str
    tcp: Dict[str, Any] = field(default_factory=dict)
    cbr_rate: float = 0.0
    cbr_size: int = 0
    #: app "onoff": ns-2's class (Exponential | Pareto), burst_time_, idle_time_, shape_
    #: (Pareto); the rate and packet size are cbr_rate and cbr_size.
    onoff: Dict[str, Any] = field(default_factory=dict)
    #: aqmsim's label of the flow (Results.flows ``label``): the group's name (``group<i>``
    #: unnamed), an explicit flow's ``label`` (``flows[<i>]`` without one).
    label: str = ""


@dataclass
class Plan:
    """The scenario resolved for ns-2: every default applied, every random value drawn."""

    name: str
    seed: int
    duration: float
    nodes: List[str]
    links: List[LinkPlan]
    flows: List[FlowPlan]
    monitored: List[str]  # link names "a->b"
    sample_interval: float
    draws: Dict[str, float]  # "access_delay/3" -> 0.0021, "start/0" -> 0.41, ...
    #: metrics asked for by the scenario's ``ns2.measure`` (:data:`NS2_ON_REQUEST`)
    measure: Tuple[str, ...] = ()

    def link(self, name: str) -> LinkPlan:
        for lk in self.links:
            if lk.name == name:
                return lk
        raise KeyError(name)


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


def _udp_rate_size(t: Mapping[str, Any], where: str, fp: "FlowPlan", default_size: int) -> None:
    """A UDP source's rate and packet size (a cbr or an onoff table) into ``fp``."""
    fp.cbr_rate = parse_rate(t["rate"], f"{where}.rate")
    size = t.get("packet_size", default_size)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise Ns2ExportError(f"{where}.packet_size: must be an integer >= 1 bytes, got {size!r}")
    fp.cbr_size = size


def _onoff(o: Any, where: str, fp: "FlowPlan") -> None:
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


# ---------------------------------------------------------------------------- Tcl
def _udp_app_tcl(fp: FlowPlan, a: int, b: int, cls: str) -> List[str]:
    """A UDP agent from node ``a`` to a LossMonitor at ``b`` and its traffic generator
    ``app(i)`` of class ``Application/Traffic/<cls>`` with the flow's size and rate (CBR and
    on/off alike; the caller adds the class's own fields and attaches it)."""
    i = fp.index
    return [
        f"set src({i}) [new Agent/UDP]",
        f"$src({i}) set fid_ {i}",
        f"$src({i}) set packetSize_ {fp.cbr_size}",
        f"$ns attach-agent $n({a}) $src({i})",
        f"set dst({i}) [new Agent/LossMonitor]",
        f"$ns attach-agent $n({b}) $dst({i})",
        f"$ns connect $src({i}) $dst({i})",
        f"set app({i}) [new Application/Traffic/{cls}]",
        f"$app({i}) set packetSize_ {fp.cbr_size}",
        f"$app({i}) set rate_ {_num(fp.cbr_rate)}",
    ]


def _tcp_tcl(fp: FlowPlan) -> Tuple[List[str], List[str]]:
    """The sender's and the sink's lines for one FTP flow: every TCP parameter stated."""
    t = fp.tcp
    s, d = f"$src({fp.index})", f"$dst({fp.index})"
    sender, sink, delsink = TCP_AGENTS[t["variant"]]
    snd = [
        f"set src({fp.index}) [new {sender}]",
        f"{s} set fid_ {fp.index}",
        f"{s} set packetSize_ {int(t['packet_size'])}",
        f"{s} set tcpip_base_hdr_size_ {int(t['header'])}",
        f"{s} set window_ {_num(t['window'])}",
        f"{s} set windowInit_ {_num(t['window_init'])}",
        f"{s} set windowInitOption_ 1",
        f"{s} set windowOption_ 1",
        f"{s} set maxcwnd_ 0",
        f"{s} set syn_ {_tcl_bool(t['syn'])}",
        f"{s} set delay_growth_ {_tcl_bool(t['delay_growth'])}",
        f"{s} set tcpTick_ {_num(t['tick'])}",
        f"{s} set minrto_ {_num(t['min_rto'])}",
        f"{s} set maxrto_ {_num(t['max_rto'])}",
        f"{s} set rtxcur_init_ {_num(t['rto_init'])}",
        f"{s} set numdupacks_ {int(t['dupacks'])}",
        f"{s} set maxburst_ {int(t['max_burst'])}",
        f"{s} set ecn_ {1 if t['ecn'] else 0}",
        f"{s} set singledup_ {1 if t['limited_transmit'] else 0}",
        f"{s} set overhead_ 0",
        f"{s} set timestamps_ false",
        f"{s} set useHeaders_ {_tcl_bool(t['use_headers'])}",
    ]
    snk = [
        f"set dst({fp.index}) [new {delsink if t['delayed_ack'] else sink}]",
        f"{d} set packetSize_ {int(t['ack_size'])}",
    ]
    if t["delayed_ack"]:
        snk.append(f"{d} set interval_ {_num(t['delack_interval'])}")
    return snd, snk


def render_tcl(plan: Plan, trace_dir: str, *, full_trace: bool = False, samples: bool = True,
               flow_monitor: bool = False, max_queue: bool = False, trace_all: bool = False,
               static_routes: bool = False, note: Optional[Sequence[str]] = None,
               preamble: Sequence[str] = (), epilogue: Sequence[str] = ()) -> str:
    """Write the Tcl script for a resolved :class:`Plan` (see :func:`to_tcl`).

    A forest of duplex links (every dumbbell) is routed by hand (:mod:`aqmsim.ns2.routes`:
    the same paths, without ns-2's all-pairs route computation at start-up);
    ``static_routes`` keeps ns-2's own computation, as for every other topology.
    ``note`` replaces the header's lines on where the random values come from;
    ``preamble`` lines come right after ``new Simulator`` (before any node or link),
    ``epilogue`` lines in ``finish`` before ``$ns halt`` (:mod:`aqmsim.ns2.cli_export`)."""
    import os

    # the largest queue needs each monitored link's queue trace (trace_<i>.tr)
    max_queue = max_queue or "max_queue_pkts" in plan.measure
    traced = full_trace or max_queue

    tdir = str(trace_dir)  # kept as given: a relative path is relative to where `ns` runs
    node_id = {n: i for i, n in enumerate(plan.nodes)}
    L: List[str] = []
    add = L.append
    add(f"# ns-2.35 script written by aqmsim.ns2.export: scenario {_comment(plan.name)!r}, seed {plan.seed}")
    if note is None:
        add("# Every random value of the scenario was drawn in Python and is written here as a number;")
        add("# every parameter is set on its object, so no ns-2 class default is relied on.")
    else:
        L.extend(note)
    add("set ns [new Simulator]")
    L.extend(preamble)
    if trace_all:
        # every link's + - r d lines (before the links are made), for aqmsim's ns-2 trace
        add(f"set tall [open {_brace(os.path.join(tdir, 'trace_all.tr'))} w]")
        add("$ns trace-all $tall")
    add("")
    add("# ns-2's default RNG (RED's coin, TCP boot_time_): MRG32k3a seed 1, substream <seed>.")
    add("# next-substream gives independent streams; `ns-random N` would give correlated ones.")
    add("$defaultRNG seed 1")
    add(f"for {{set i 0}} {{$i < {plan.seed}}} {{incr i}} {{ $defaultRNG next-substream }}")
    onoff = [fp.index for fp in plan.flows if fp.app == "onoff"]
    if onoff:
        # made here, before any queue or agent, so that what the script makes later (another
        # discipline) cannot move them: each `new RNG` is the next stream of seed 1
        add("# Each on/off source's own RNG (its bursts and idle times, apart from RED's coin),")
        add("# the next MRG32k3a stream of seed 1, on substream <seed>.")
        for i in onoff:
            add(f"set rng({i}) [new RNG]")
            add(f"for {{set k 0}} {{$k < {plan.seed}}} {{incr k}} {{ $rng({i}) next-substream }}")
    add("")
    routes = None if static_routes else manual_routes(plan)
    if routes is not None:
        add("$ns rtproto Manual   ;# before the nodes: each gets a Manual routing module")
    add("# Nodes (ns-2 node id = index here)")
    for n, i in node_id.items():
        add(f"set n({i}) [$ns node]   ;# {_comment(n)}")
    add("")
    add("# Links: one simplex link per direction, each with its own queue")
    for lk in plan.links:
        a, b = node_id[lk.src], node_id[lk.dst]
        add(f"# {_comment(lk.name)}: {_num(lk.rate)} bit/s, {_num(lk.delay)} s, {lk.queue['kind']}  ({lk.where})")
        add(f"$ns simplex-link $n({a}) $n({b}) {_num(lk.rate)} {_num(lk.delay)} {NS2_QUEUE_CLASS[lk.queue['kind']]}")
        add(f"set q [[$ns link $n({a}) $n({b})] queue]")
        add(f"set queue({a}:{b}) $q")
        L.extend(queue_tcl(lk))
    add("")
    if routes is not None:
        L.extend(routes_tcl(routes))
        add("")
    add("# Monitored queues: QueueMonitor (arrivals, departures, drops, integral of the queue length)")
    for mi, name in enumerate(plan.monitored):
        lk = plan.link(name)
        a, b = node_id[lk.src], node_id[lk.dst]
        add(f"set qm({mi}) [$ns monitor-queue $n({a}) $n({b}) 0]   ;# {_comment(name)}")
        # waiting time of every dequeued packet (enqueue to start of transmission)
        add(f"set ds({mi}) [new Samples]")
        add(f"$qm({mi}) set-delay-samples $ds({mi})")
        if traced:
            # with max_queue: read by aqmsim.ns2.trace.max_queue for the largest queue
            path = os.path.join(tdir, f"trace_{mi}.tr")
            add(f"set tf({mi}) [open {_brace(path)} w]")
            add(f"$ns trace-queue $n({a}) $n({b}) $tf({mi})")
        if samples:
            path = os.path.join(tdir, f"queue_{mi}.txt")
            add(f"set sf({mi}) [open {_brace(path)} w]")
            red = " ave_ cur_max_p_" if NS2_QUEUE_CLASS[lk.queue["kind"]] == "RED" else ""
            add(f"puts $sf({mi}) {{# t pkts bytes{red}}}")
    fmon = flow_monitor and bool(plan.monitored)
    if fmon:
        lk = plan.link(plan.monitored[0])
        a, b = node_id[lk.src], node_id[lk.dst]
        add(f"# Per-flow counts at {_comment(lk.name)}: a flow monitor classifying by fid_ (its snoop")
        add("# queues count packets in, out and dropped; they change nothing else)")
        add("set fmon [$ns makeflowmon Fid]")
        add(f"$ns attach-fmon [$ns link $n({a}) $n({b})] $fmon")
    add("")
    add("# Flows (flow id = fid_ = index)")
    for fp in plan.flows:
        i = fp.index
        a, b = node_id[fp.src], node_id[fp.dst]
        if fp.app == "ftp":
            add(f"# flow {i}: {_comment(fp.src)} -> {_comment(fp.dst)}, {fp.tcp['variant']} FTP ({_comment(fp.group)})")
            snd, snk = _tcp_tcl(fp)
            L.extend(snd)
            add(f"$ns attach-agent $n({a}) $src({i})")
            L.extend(snk)
            add(f"$ns attach-agent $n({b}) $dst({i})")
            add(f"$ns connect $src({i}) $dst({i})")
            add(f"set app({i}) [new Application/FTP]")
            add(f"$app({i}) attach-agent $src({i})")
        elif fp.app == "onoff":
            o = fp.onoff
            add(f"# flow {i}: {_comment(fp.src)} -> {_comment(fp.dst)}, on/off ({o['class']}) over UDP ({_comment(fp.group)})")
            L.extend(_udp_app_tcl(fp, a, b, o["class"]))
            add(f"$app({i}) set burst_time_ {_num(o['burst_time_'])}")
            add(f"$app({i}) set idle_time_ {_num(o['idle_time_'])}")
            if o["shape_"] is not None:
                add(f"$app({i}) set shape_ {_num(o['shape_'])}")
            add(f"$app({i}) use-rng $rng({i})")
            add(f"$app({i}) attach-agent $src({i})")
        else:
            add(f"# flow {i}: {_comment(fp.src)} -> {_comment(fp.dst)}, CBR over UDP ({_comment(fp.group)})")
            L.extend(_udp_app_tcl(fp, a, b, "CBR"))
            add(f"$app({i}) set random_ 0")
            add(f"$app({i}) attach-agent $src({i})")
        # Count every packet that reaches the receiving agent (duplicates included): a
        # SnoopQueue/In with its own QueueMonitor between the node's port demux and the agent.
        add(f"set rxm({i}) [new QueueMonitor]")
        add(f"set rxs({i}) [new SnoopQueue/In]")
        add(f"$rxs({i}) set-monitor $rxm({i})")
        add(f"$rxs({i}) target $dst({i})")
        add(f"[$n({b}) set dmux_] install [$dst({i}) set agent_port_] $rxs({i})")
        add(f"$ns at {_num(fp.start)} \"$app({i}) start\"")
        if fp.stop < plan.duration:
            add(f"$ns at {_num(fp.stop)} \"$app({i}) stop\"")
    add("")
    if samples and plan.monitored:
        add(f"# Queue samples every {_num(plan.sample_interval)} s: t, packets and bytes waiting, RED average and max_p")
        add("set nsample 0")
        add("proc sample {} {")
        add("    global ns qm sf queue nsample")
        add("    set now [$ns now]")
        for mi, name in enumerate(plan.monitored):
            lk = plan.link(name)
            a, b = node_id[lk.src], node_id[lk.dst]
            extra = (f" [$queue({a}:{b}) set ave_] [$queue({a}:{b}) set cur_max_p_]"
                     if NS2_QUEUE_CLASS[lk.queue["kind"]] == "RED" else "")
            add(f"    puts $sf({mi}) \"$now [$qm({mi}) set pkts_] [$qm({mi}) set size_]{extra}\"")
        add("    incr nsample")
        add(f"    set next [expr {{$nsample * {_num(plan.sample_interval)}}}]")
        add(f"    if {{$next < {_num(plan.duration)}}} {{ $ns at $next sample }}")
        add("}")
        add("$ns at 0 sample")
        add("")
    add("# At the end: flush the integrators and write `key value` lines")
    add("proc finish {} {")
    add("    global ns qm ds src dst rxm sf tf" + (" fmon" if fmon else "") + (" tall" if trace_all else ""))
    add("    set now [$ns now]")
    add(f"    set f [open {_brace(os.path.join(tdir, 'summary.txt'))} w]")
    add("    puts $f \"duration $now\"")
    for mi, name in enumerate(plan.monitored):
        lk = plan.link(name)
        add(f"    # queue {mi}: {_comment(name)}")
        add(f"    puts $f \"queue.{mi}.rate {_num(lk.rate)}\"")
        add("    foreach v {parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_ pmarks_ pkts_ size_} {")
        add(f"        puts $f \"queue.{mi}.$v [$qm({mi}) set $v]\"")
        add("    }")
        add(f"    set pi [$qm({mi}) get-pkts-integrator]")
        add("    $pi newpoint $now [$pi set lasty_]")
        add(f"    puts $f \"queue.{mi}.pkts_integral [$pi set sum_]\"")
        add(f"    set bi [$qm({mi}) get-bytes-integrator]")
        add("    $bi newpoint $now [$bi set lasty_]")
        add(f"    puts $f \"queue.{mi}.bytes_integral [$bi set sum_]\"")
        add(f"    puts $f \"queue.{mi}.delay_cnt [$ds({mi}) cnt]\"")
        add(f"    if {{[$ds({mi}) cnt] > 0}} {{ puts $f \"queue.{mi}.delay_mean [$ds({mi}) mean]\" }}")
    if fmon:
        add("    puts $f \"fmon.present 1\"")
        add("    foreach fl [$fmon flows] {")
        add("        set id [$fl set flowid_]")
        add("        foreach v {parrivals_ pdrops_ pmarks_ barrivals_ bdrops_} {")
        add("            puts $f \"fmon.$id.$v [$fl set $v]\"")
        add("        }")
        add("    }")
    for fp in plan.flows:
        i = fp.index
        add(f"    puts $f \"flow.{i}.rx_pkts [$rxm({i}) set parrivals_]\"")
        add(f"    puts $f \"flow.{i}.rx_bytes [$rxm({i}) set barrivals_]\"")
        if fp.app == "ftp":
            add(f"    puts $f \"flow.{i}.delivered_bytes [$dst({i}) set bytes_]\"")
            add("    foreach v {ndatapack_ ndatabytes_ nrexmitpack_ nrexmitbytes_ nrexmit_ ncwndcuts_ nackpack_ cwnd_ ssthresh_ ack_ t_seqno_} {")
            add(f"        puts $f \"flow.{i}.$v [$src({i}) set $v]\"")
            add("    }")
        else:
            add(f"    puts $f \"flow.{i}.delivered_bytes [$dst({i}) set bytes_]\"")
            add(f"    puts $f \"flow.{i}.nlost_ [$dst({i}) set nlost_]\"")
    add("    close $f")
    if samples:
        for mi in range(len(plan.monitored)):
            add(f"    close $sf({mi})")
    if traced:
        for mi in range(len(plan.monitored)):
            add(f"    close $tf({mi})")
    if trace_all:
        add("    $ns flush-trace")
        add("    close $tall")
    L.extend(epilogue)
    add("    $ns halt")
    add("}")
    add(f"$ns at {_num(plan.duration)} finish")
    add("$ns run")
    add("exit 0")
    return "\n".join(L) + "\n"


def to_tcl(scenario: Mapping[str, Any], seed: int, trace_dir: str, *, full_trace: bool = False,
           samples: bool = True, flow_monitor: bool = False, max_queue: bool = False,
           trace_all: bool = False, static_routes: bool = False) -> str:
    """The ns-2 Tcl script for ``scenario`` run with ``seed``.

    ``trace_dir`` is where the script writes ``summary.txt`` (``key value`` lines: the
    monitored queues' QueueMonitor counters and time integrals, per-flow bytes at the
    sinks, TCP counters), ``queue_<i>.txt`` (samples every ``monitor.sample_interval``
    when ``samples``) and, with ``full_trace``, ``trace_<i>.tr`` (``$ns trace-queue`` of
    each monitored link, for :mod:`aqmsim.ns2.trace`). ``<i>`` indexes ``monitor.queues``.
    With ``flow_monitor``, a flow monitor on the first monitored link adds each flow's
    ``fmon.<fid>.parrivals_`` / ``pdrops_`` / ``pmarks_`` / ``barrivals_`` / ``bdrops_``
    there (``fmon.present 1``; a flow that never reached the link has no lines).
    With ``max_queue`` (or ``ns2.measure = ["max_queue_pkts"]`` in the scenario) each
    monitored link's queue is traced to ``trace_<i>.tr`` as with ``full_trace``, for the
    largest queue (:func:`aqmsim.ns2.trace.max_queue`). With ``trace_all``, ``$ns
    trace-all`` writes every link's events to ``trace_all.tr`` (what aqmsim's ``[trace]``
    with ``links = "all"`` and ``format = "ns2"`` writes). With ``static_routes``, ns-2
    computes every route itself when ``$ns run`` starts, as it does for a topology with a
    cycle; otherwise a forest (every dumbbell) is routed by hand (:mod:`aqmsim.ns2.routes`),
    which gives the same paths without that computation.
    """
    return render_tcl(build_plan(scenario, seed), trace_dir, full_trace=full_trace, samples=samples,
                      flow_monitor=flow_monitor, max_queue=max_queue, trace_all=trace_all,
                      static_routes=static_routes)
