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
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from .plan import FlowPlan, LinkPlan, Plan
from .planner import (NS2_ON_REQUEST, TCP_AGENTS, TCP_DEFAULTS, build_plan, component_rng, draw,
                      pin_draws)
from .queues import (NOT_IN_NS2, NS2_QUEUE_CLASS, RED4_VS_NS2, THRESHOLD_VS_NS2,  # noqa: F401
                     ared_bottom, normalize_queue, queue_tcl)
from .routes import manual_routes, routes_tcl
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
