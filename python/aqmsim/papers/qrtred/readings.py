"""The open choices of paper 001 (Jamali, Alipasandi & Alipasandi 2014, QRTRED) and their
readings.

The paper names its simulator ("we implement it by some modifications on RED module of
NS2 simulator", reference [15]) and was received in December 2013, so the authors' tool is
ns-2.35 (November 2011; ns-2.34's Queue/RED and Agent/TCP defaults are the same). Its
defaults, checked with the installed ``ns`` (``puts [Queue/RED set gentle_]`` …) and in
ns-2.35's ``tcl/lib/ns-default.tcl`` and ``queue/red.cc``: Queue/RED ``bytes_ true``,
``queue_in_bytes_ true``, ``mean_pktsize_ 500``, ``thresh_ 0`` and ``maxthresh_ 0``
(automatic: min_th = max(5, targetdelay_·ptc/2), max_th = 3·min_th), ``q_weight_ -1``
(automatic from the link's rate and delay), ``linterm_ 10`` (max_p 0.1), ``wait_ true``,
``gentle_ true``; Agent/TCP ``window_ 20``, ``windowInit_ 2``, ``packetSize_ 1000`` (plus
the 40-byte ``tcpip_base_hdr_size_``: 1040 bytes on the wire); Agent/TCPSink acknowledges
every packet (no delayed ACKs). In byte mode red.cc takes ``limit_`` and the thresholds in
packets and multiplies them by ``mean_pktsize_`` (``qlim = qlim_ * mean_pktsize``,
``th_min = th_min_pkts * mean_pktsize``).

What the paper states: TCP Reno, FTP sources (1 at 0 s, +1 at 20 s and +1 at 40 s both
stopping at 50 s, +5 at 60 s, +14 at 80 s), 100 s, buffer 100 packets, data packets
"1 kbytes", ACKs 40 bytes, RED "with default value" (min_th 5, max_th 15), RED (10, 40),
QRTRED with τ = 2 cells. Everything else is open:

``pktsize``
    What "the size of data packet is 1 kbytes" means on the wire: ns-2's ``packetSize_
    1000`` is the payload, so 1040 bytes on the wire (ns2), or 1000 bytes on the wire (text).
``queue_units``
    How the bottleneck counts its queue: ns-2.35's byte mode with ``mean_pktsize_ 500``, so
    the "100-packet" buffer is 50 000 bytes and every threshold is in 500-byte units (ns2);
    packets (Floyd & Jacobson 1993, textbook); byte mode with ``mean_pktsize_`` set to the
    data packet's size on the wire, so that the buffer and thresholds count the paper's
    packets (text). QRTRED takes the same mode: its Φ sets thresholds in packets, which the
    RED module scales exactly as it scales a typed threshold.
``gentle``
    ns-2.35's ``gentle_ true`` (ns2) or RED without the gentle region (textbook; also the
    paper's own §2: "If avg was higher than max_th, then drop probability of packets will be
    one", which excludes the ns-2 reading as the primary one).
``wait``
    ns-2's ``wait_ true`` (a uniform gap in [1/p_b, 2/p_b] between drops) or Floyd &
    Jacobson's p_a = p_b / (1 − count·p_b) (textbook).
``w_q``
    ns-2.35's automatic queue weight (``q_weight_ -1``) or Floyd & Jacobson's 0.002.
``max_p``
    ns-2.35's ``linterm_ 10`` (0.1) or Floyd & Jacobson's simulations' 1/50.
``red_default``
    "RED with default value": in ns-2.35, RED left at its defaults has automatic thresholds
    (``thresh_ 0``), which come out at (5, 15) on every bottleneck run here (ns2); or the
    explicit (5, 15) the paper writes (text).
``red2_thresholds``
    The second RED: (10, 40) as §4's set-up and Table 1 say, or (5, 40) as the Fig. 3
    discussion once writes (both text).
``qrt_unit``
    The time unit of QRT (the paper gives none): per second, as a rate computed from ns-2's
    clock (``Scheduler::clock()``, seconds) comes out (ns2); per 0.1 s or per 0.01 s (text).
``tcp_window``
    ns-2's advertised window ``window_ 20`` (ns2) or the largest window without window
    scaling, 65 535 bytes = 65 segments of 1000 bytes (RFC 793 / RFC 1323, textbook).
``delayed_ack``
    ns-2's Agent/TCPSink, an ACK per packet (ns2), or delayed ACKs (RFC 1122 §4.2.3.2 and
    RFC 5681: an ACK for at least every second segment; ns-2's DelAck interval 100 ms)
    (textbook).
``topology``
    Fig. 2 (link rates and delays) is missing from our copy of the paper, and ns-2 has no
    default link: only "text" readings exist. ns-2's own RED validation topology
    (``tcl/test/test-suite-red.tcl``, net2: 10 Mb/s, 2 ms access, 1.5 Mb/s, 20 ms bottleneck)
    or the "NS by Example" topology that many ns-2 users of the time copied
    (``ns-simple.tcl``: 2 Mb/s, 10 ms access, 1.7 Mb/s, 20 ms bottleneck).

No quantity here is determined by the published numbers (the paper states the run length,
100 s; Table 1 gives only utilisations and drop totals, which fix no parameter), so no
reading is ``derived`` and no published number is an input.

Not run as readings (aqmsim's ``qrtred`` fixes them; see ``docs/aqm/qrtred.md``): Φ as
0.15·(T − E) (Fig. 1) or 0.15·T (the prose "15 % total buffer size"); the 14 % cap on 1/QRT;
E counted in packets when the queue works in bytes.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ..readings import Choice, Reading, delayed_ack_choice, red_queues

__all__ = ["CHOICES", "choices", "GROUP_LINKS"]

#: the dumbbell's per-group links
GROUP_LINKS = ("access", "egress")


def _red(**fields: Any):
    """An edit setting ``fields`` on every RED-family queue (RED and QRTRED)."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            q.update(fields)

    return edit


def _kind(kind: str, **fields: Any):
    """An edit setting ``fields`` on the queues of discipline ``kind`` only."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            if str(q.get("kind")) == kind:
                q.update(fields)

    return edit


def _experiment(key: str, **fields: Any):
    """An edit setting ``fields`` on the RED queue of experiment ``key`` only."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        if experiment.key != key:
            return
        for _, q in red_queues(data):
            q.update(fields)

    return edit


def _matched_mean_pktsize(data: Dict[str, Any], experiment: Any) -> None:
    """Byte mode with mean_pktsize = the data packet's size on the wire (payload + header,
    as the ``pktsize`` reading applied before this one left them)."""
    tcp = data.get("tcp") or {}
    size = int(tcp.get("packet_size", 1000)) + int(tcp.get("header", 40))
    for _, q in red_queues(data):
        q.update(bytes=True, queue_in_bytes=True, mean_pktsize=size)


def _topology(bottleneck: tuple, access: tuple):
    """Bottleneck (rate, delay) and every group's access and egress links (rate, delay)."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        db = data["dumbbell"]
        db["bottleneck"]["rate"], db["bottleneck"]["delay"] = bottleneck
        for g in db.get("groups") or []:
            for side in GROUP_LINKS:
                g[side]["rate"], g[side]["delay"] = access

    return edit


NS2 = "ns-2.35 (the paper's tool, received Dec 2013)"
FJ93 = "Floyd & Jacobson 1993 (the paper's [7])"
PARAGRAPH_2 = ("“If avg was higher than max_th, then drop probability of packets will be "
               "one.” (§2, describing the RED it improves on)")

PKTSIZE = Choice("pktsize", "What does 'the size of data packet is 1 kbytes' mean on the wire?", (
    Reading("payload1000", "1000-byte payload + 40-byte header = 1040 bytes", "ns2",
            f"{NS2}: Agent/TCP packetSize_ 1000 is the payload, tcpip_base_hdr_size_ 40 is "
            "added on the wire; the paper's '1 kbytes' typed as packetSize_ 1000.",
            set={"tcp.packet_size": 1000, "tcp.header": 40}),
    Reading("wire1000", "1000 bytes on the wire (960 payload + 40 header)", "text",
            "'the size of data packet is 1 kbytes' read as the packet's size on the wire.",
            set={"tcp.packet_size": 960, "tcp.header": 40}),
))

QUEUE_UNITS = Choice("queue_units", "In what units does the bottleneck count its queue, "
                     "buffer and thresholds?", (
    Reading("bytes500", "byte mode, mean_pktsize 500: limit 100 = 50 000 bytes", "ns2",
            f"{NS2} Queue/RED defaults bytes_ true, queue_in_bytes_ true, mean_pktsize_ 500; "
            "red.cc takes limit_ and thresholds in packets and multiplies them by "
            "mean_pktsize_: the 100-'packet' buffer is 50 000 bytes (50 000 / 1040 = 48.1 "
            "data packets), min_th 5 is 2 500 bytes.",
            apply=_red(bytes=True, queue_in_bytes=True, mean_pktsize=500)),
    Reading("packets", "packet mode: buffer and thresholds in packets", "textbook",
            f"{FJ93}: the queue, its average and the thresholds are counted in packets "
            "(ns-2 bytes_ false, queue_in_bytes_ false; mean_pktsize_ 500 only sets ptc).",
            apply=_red(bytes=False, queue_in_bytes=False, mean_pktsize=500)),
    Reading("bytes-matched", "byte mode, mean_pktsize = the data packet on the wire", "text",
            "'The buffer size of each queue ... is 100 packets, the size of data packet is "
            "1 kbytes': ns-2's byte mode with mean_pktsize_ set to the data packet's size on "
            "the wire, so the buffer and thresholds count the paper's packets.",
            apply=_matched_mean_pktsize),
))

GENTLE = Choice("gentle", "Does RED have the gentle region between max_th and 2 max_th?", (
    Reading("on", "gentle_ true", "ns2",
            f"{NS2} Queue/RED gentle_ true: p rises from max_p to 1 between max_th and "
            "2·max_th.", apply=_red(gentle=True), excluded=PARAGRAPH_2),
    Reading("off", "no gentle region: p = 1 above max_th", "textbook",
            f"{FJ93}; and the paper's §2: 'If avg was higher than max_th, then drop "
            "probability of packets will be one.'", apply=_red(gentle=False)),
))

WAIT = Choice("wait", "How is the gap between early drops spread?", (
    Reading("on", "wait_ true: gap uniform in [1/p_b, 2/p_b]", "ns2",
            f"{NS2} Queue/RED wait_ true (p_a = p_b / (2 − count·p_b)).",
            apply=_red(wait=True)),
    Reading("off", "p_a = p_b / (1 − count·p_b)", "textbook",
            f"{FJ93} §4: the count-corrected probability, gap uniform in [1, 1/p_b].",
            apply=_red(wait=False)),
))

W_Q = Choice("w_q", "RED's queue weight w_q (eq. (1) gives none)", (
    Reading("auto", "automatic, from the link (q_weight_ -1)", "ns2",
            f"{NS2} Queue/RED q_weight_ -1: w_q = 1 − exp(−1/(10·rtt·ptc)), rtt = "
            "max(0.1, 3·(delay + 1/ptc)).", apply=_red(w_q="auto")),
    Reading("0.002", "w_q = 0.002", "textbook", f"{FJ93}: w_q = 0.002 in its simulations.",
            apply=_red(w_q=0.002)),
))

MAX_P = Choice("max_p", "RED's max_p (the paper gives none)", (
    Reading("0.1", "max_p 0.1", "ns2", f"{NS2} Queue/RED linterm_ 10.",
            apply=_red(max_p=0.1)),
    Reading("0.02", "max_p 1/50", "textbook", f"{FJ93}: max_p = 1/50 in its simulations.",
            apply=_red(max_p=0.02)),
))

RED_DEFAULT = Choice("red_default", "The thresholds of 'RED with default value'", (
    Reading("auto", "ns-2's automatic thresholds (thresh_ 0, maxthresh_ 0)", "ns2",
            f"{NS2}: RED left at its defaults has thresh_ 0 and maxthresh_ 0, i.e. min_th = "
            "max(5, targetdelay_·ptc/2) and max_th = 3·min_th: (5, 15) on every bottleneck "
            "run here (ptc ≤ 425 packets/s, so targetdelay_·ptc/2 ≤ 1.1).",
            apply=_experiment("red_5_15", min_th="auto", max_th="auto")),
    Reading("5-15", "min_th 5, max_th 15 as typed", "text",
            "'In original RED algorithm the value of min_th and max_th are 5 and 15' (§2); "
            "Floyd & Jacobson 1993's values, and ns-2's defaults until 12/29/01 (kept as "
            "comments in ns-2.34/2.35's ns-default.tcl: '# Queue/RED set thresh_ 5', "
            "'# Queue/RED set maxthresh_ 15').",
            apply=_experiment("red_5_15", min_th=5, max_th=15)),
))

RED2 = Choice("red2_thresholds", "The thresholds of the second RED", (
    Reading("10-40", "min_th 10, max_th 40", "text",
            "'the RED with min_th=10 and max_th=40' (§4 set-up) and Table 1's row.",
            apply=_experiment("red_10_40", min_th=10, max_th=40)),
    Reading("5-40", "min_th 5, max_th 40", "text",
            "'RED with min_th=5 and max_th=40' (§4, the discussion of Fig. 3).",
            apply=_experiment("red_10_40", min_th=5, max_th=40)),
))

QRT_UNIT = Choice("qrt_unit", "The time unit of QRT (the paper gives none)", (
    Reading("per-s", "cells per second", "ns2",
            f"{NS2}: a rate ΔE/Δt computed in a modified red.cc from Scheduler::clock() "
            "(seconds) is in cells per second.", apply=_kind("qrtred", qrt_unit=1.0)),
    Reading("per-100ms", "cells per 0.1 s", "text",
            "The paper gives QRT no unit; 1/QRT larger by 10, so Φ reaches its 14 % cap more "
            "often.", apply=_kind("qrtred", qrt_unit=0.1)),
    Reading("per-10ms", "cells per 0.01 s", "text",
            "The paper gives QRT no unit; 1/QRT larger by 100: Φ nearly always at its cap.",
            apply=_kind("qrtred", qrt_unit=0.01)),
))

TCP_WINDOW = Choice("tcp_window", "TCP's advertised window (the paper gives none)", (
    Reading("20", "window_ 20 packets", "ns2", f"{NS2} Agent/TCP window_ 20.",
            set={"tcp.window": 20}),
    Reading("65", "65 535 bytes = 65 segments", "textbook",
            "TCP without window scaling (RFC 793, RFC 1323): at most 65 535 bytes "
            "outstanding, 65 segments of 1000 bytes.", set={"tcp.window": 65}),
))

DELAYED_ACK = delayed_ack_choice(f"{NS2}:")

TOPOLOGY = Choice("topology", "Link rates and delays (Fig. 2 is missing from our copy)", (
    Reading("red-suite", "10 Mb/s 2 ms access, 1.5 Mb/s 20 ms bottleneck", "text",
            "ns-2's own RED validation topology (tcl/test/test-suite-red.tcl, net2: "
            "s -- 10Mb 2ms -- r1 -- 1.5Mb 20ms -- r2 -- 10Mb -- d), used for every host pair.",
            apply=_topology(("1.5Mb", "20ms"), ("10Mb", "2ms"))),
    Reading("ns-by-example", "2 Mb/s 10 ms access, 1.7 Mb/s 20 ms bottleneck", "text",
            "The 'NS by Example' script ns-simple.tcl (n0,n1 -- 2Mb 10ms -- n2 -- 1.7Mb "
            "20ms -- n3), the topology many ns-2 studies of the time copied.",
            apply=_topology(("1.7Mb", "20ms"), ("2Mb", "10ms"))),
))

#: The choices, in the order their readings are applied (pktsize before queue_units: the
#: matched mean_pktsize reads the packet size).
CHOICES: List[Choice] = [PKTSIZE, QUEUE_UNITS, GENTLE, WAIT, W_Q, MAX_P, RED_DEFAULT, RED2,
                         QRT_UNIT, TCP_WINDOW, DELAYED_ACK, TOPOLOGY]


def choices() -> List[Choice]:
    return list(CHOICES)
