"""The open choices of paper 002 (De Cnodder, Elloumi, Pauwels, "Effect of different packet
sizes on RED performance", arXiv cs/0001007, January 2000; ISCC 2000) and their readings.

What the paper states: three groups of 20 TCP connections "supporting selective
acknowledgments", MTUs 1500, 750 and 375 bytes, one 30 Mb/s bottleneck "connecting two
routers" with a propagation delay of 15 ms or 80 ms, a timeout granularity of 200 ms, and
the five drop rules of Tables I-II. Everything else is open.

The simulator
-------------
The paper does not name it. Everything it does state maps one to one onto ns-2 of 1999
(``Agent/TCP/Sack1`` + ``TCPSink/Sack1``, ``tcpTick_ 0.2`` for "the timeout granularity was
set to 200 ms", ``duplex-link R1 R2 30Mb 15ms RED``; the RED_2 rule is the byte mode of
Floyd & Jacobson that ns-2's ``Queue/RED`` carried), and the text was submitted in January
2000, so the "ns2" readings below are the defaults of ns-2 as released in 1999: ns-2.1b5
(March 1999) and ns-2.1b6 (January 2000) have the same values for every parameter used here
and the same ``REDQueue::drop_early`` (read from the ns-2 CVS history: ``tcl/lib/
ns-default.tcl``, ``red.cc``, ``tcp.cc`` at the commits of 1999-03-16 and 2000-02-17 that
moved VERSION past 2.1b5 and 2.1b6; 2.1b5 had no ``gentle_`` yet and did not reset
``count`` after a forced drop, a fix of May 1999). They are:

* ``Queue/RED``: ``thresh_ 5``, ``maxthresh_ 15``, ``linterm_ 10`` (max_p 0.1),
  ``q_weight_ 0.002``, ``wait_ true``, ``gentle_ false`` (the option came in June 1999, off),
  ``bytes_ false``, ``queue_in_bytes_ false``, ``mean_pktsize_ 500``, ``Queue limit_ 50``
  packets; above ``maxthresh_`` every arrival is a forced drop.
* ``Agent/TCP``: ``window_ 20``, ``windowInit_ 1``, ``syn_ false``, ``delay_growth_ false``,
  ``rtxcur_init_ 6.0``, ``maxrto_ 100000``, no ``minrto_`` (the RTO is only kept ≥ 2 ticks),
  ``maxburst_ 0``, no limited transmit (``singledup_`` came in 2001), and ``packetSize_`` is
  the whole packet on the wire: ``tcp.cc`` adds no header (``useHeaders_`` came in November
  2001). ``TCPSink``/``TCPSink/Sack1`` ACK every packet with 40-byte ACKs (delayed ACKs are
  the separate ``DelAck`` classes, interval 100 ms).

The choices
-----------
``mtu``
    ns2 (primary): typed as ``packetSize_`` 375/750/1500, the packets on the wire are
    exactly the MTUs and goodput (acknowledged packets × packetSize_) counts all of each
    packet. Textbook: the MTU is the IP datagram (RFC 791/RFC 879), the TCP payload is
    MTU − 40 and goodput counts payload only. Either way L/M = 1/4, 1/2, 1.
``red_params``
    ns2 (primary): 5 / 15 packets, max_p 0.1, w_q 0.002 (also Floyd's 1997 recommendations).
    Textbook: Floyd & Jacobson 1993's simulations, max_p 1/50 with the same thresholds and
    weight.
``queue_units``
    ns2 (primary): packet mode (``queue_in_bytes_ false``); ``mean_pktsize_`` 500 then only
    sets the idle-time decay of the average. Textbook: Floyd & Jacobson's byte mode, whose
    p_b·L/M rule is RED_2, measures the queue in bytes; the paper keeps the queue measure
    the same for all variants ("the only difference between the two algorithms is the third
    step in RED_2"), so all five run in bytes, thresholds and buffer in units of M = 1500
    bytes (7 500 / 22 500 / 75 000 bytes).
``gentle``
    ns2 (primary): off, as in 1999 and in Floyd & Jacobson. Text: on (ns-2's default from
    2001, ns-2.35's); the paper defines p only between the thresholds, so it is silent on
    what happens above max_th.
``wait``
    ns2: ``wait_ true`` — excluded: Table I's step (4) is p_a = p_b / (1 − count·p_b),
    Floyd & Jacobson's rule without ns-2's wait correction. Textbook (primary): no wait.
``window``
    ns2: ``window_ 20`` packets — excluded: the paper reads its goodputs through the Mathis
    formula (2) ("The obtained throughput is consistent with the TCP goodput estimation
    formula"), and designs RED_5 from it, which describes loss-limited windows; a 20-packet
    cap would make the 375-byte flows window-limited at 80 ms. Textbook (primary): Mathis
    et al. [3], the paper's own model, assume a receiver window that never binds
    (10 000 packets).
``delack``
    ns2 (primary): none (``TCPSink/Sack1``). Textbook: RFC 1122 / RFC 2581 delayed ACKs, one
    ACK per two segments, at most 100 ms late (ns-2's ``DelAck interval_``).
``tcp_start``
    ns2 (primary): the 1999 values above (initial window 1, no SYN, RTO 6 s before the first
    sample, no minimum RTO but two ticks, no maximum in practice). Text: ns-2.35's (initial
    window 2, a 40-byte SYN, RTO 3 s at first, minimum 0.2 s, maximum 60 s). They shape the
    start and recoveries after long outages only.
``M``
    Text (primary): "M is the maximum packet size" — 1500 bytes, the largest MTU. ns2: the
    only size ns-2's RED knows is ``mean_pktsize_`` 500 (its byte mode divides by it) —
    excluded by the same quotation. RED_1 has no M, so its runs do not change.
``access``
    Text (primary): each host on its own 100 Mb/s, 1 ms link (the paper gives none; fast
    edges whose delay is small beside the bottleneck's). Text: "sharing the same network
    path composed of a bottleneck link" read as nothing else on the path: 1 Gb/s links of
    no delay.
``duration``
    Text: 100 s (primary) or 50 s simulated, goodput and PLR over the whole run; the paper
    gives neither a duration nor a warm-up.

No published number determines a parameter (Table III gives ratios and rates, not counts
over a known time), so no reading here is ``derived`` and no cell is an input.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ..readings import Choice, Reading, delayed_ack_choice, red_queues

#: group label -> the paper's MTU (bytes)
MTU_OF = {"mtu375": 375, "mtu750": 750, "mtu1500": 1500}
#: The largest MTU, the paper's M.
M_BYTES = 1500


def _groups(data: Dict[str, Any]) -> List[Dict[str, Any]]:
    return list((data.get("dumbbell") or {}).get("groups") or [])


def _mtu(header: int):
    """Packets of exactly the MTU on the wire, ``header`` bytes of it not counted as payload."""

    def apply(data: Dict[str, Any], experiment: Any) -> None:
        data.setdefault("tcp", {})
        data["tcp"]["header"] = header
        data["tcp"]["packet_size"] = M_BYTES - header
        for g in _groups(data):
            g.setdefault("tcp", {})["packet_size"] = MTU_OF[g["name"]] - header

    return apply


def _red(**values: Any):
    def apply(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            q.update(values)

    return apply


def _max_pktsize(m: int):
    """M on the size-weighted variants only: RED_1 has no M, so its scenario stays as it is
    (and its runs are not repeated)."""

    def apply(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            if str(q.get("kind")) != "red1":
                q["max_pktsize"] = m

    return apply


def _access(rate: str, delay: str):
    def apply(data: Dict[str, Any], experiment: Any) -> None:
        for g in _groups(data):
            for side in ("access", "egress"):
                link = g.get(side)
                if isinstance(link, dict):
                    link["rate"] = rate
                    link["delay"] = delay

    return apply


def _duration(d: str):
    def apply(data: Dict[str, Any], experiment: Any) -> None:
        data["duration"] = d
        for g in _groups(data):
            g["stop"] = d

    return apply


NS2_1999 = ("ns-2.1b5/2.1b6 (1999), tcl/lib/ns-default.tcl")

CHOICES: List[Choice] = [
    Choice("mtu", "Is the MTU the whole packet on the wire, and how much of it is goodput?", (
        Reading("ns2-1999", "packet = MTU on the wire, all of it counted as goodput", "ns2",
                "ns-2 of 1999 (tcp.cc output()): a TCP data packet's size is packetSize_, "
                "no header is added (useHeaders_ came in Nov 2001); typed as packetSize_ "
                "375/750/1500 the packets are exactly the MTUs, and goodput from the "
                "acknowledged packets counts the whole packet.",
                apply=_mtu(0)),
        Reading("ip-mtu", "MTU = IP datagram, payload MTU − 40", "textbook",
                "RFC 791/RFC 879: the MTU bounds the IP datagram; TCP's MSS = MTU − 40 "
                "bytes of TCP/IP header, and goodput counts payload (335/710/1460 bytes "
                "of each 375/750/1500-byte packet).",
                apply=_mtu(40)),
    )),
    Choice("red_params", "RED's thresholds, max_p and queue weight (the paper gives none)", (
        Reading("ns2-1999", "min_th 5, max_th 15, max_p 0.1, w_q 0.002", "ns2",
                f"{NS2_1999}: Queue/RED thresh_ 5, maxthresh_ 15, linterm_ 10, "
                "q_weight_ 0.002 (also Floyd's 1997 recommended settings).",
                apply=_red(min_th=5, max_th=15, max_p=0.1, w_q=0.002)),
        Reading("fj93", "min_th 5, max_th 15, max_p 1/50, w_q 0.002", "textbook",
                "Floyd & Jacobson 1993 (the paper's [1]), the parameters of their "
                "simulations: max_p 1/50, w_q 0.002, max_th = 3·min_th.",
                apply=_red(min_th=5, max_th=15, max_p=0.02, w_q=0.002)),
    )),
    Choice("queue_units", "Is RED's queue measured in packets or in bytes (and in units of "
           "which packet size)?", (
        Reading("packets", "packets (mean_pktsize 500 for the idle decay only)", "ns2",
                f"{NS2_1999}: Queue/RED queue_in_bytes_ false, mean_pktsize_ 500 (which "
                "then only sets the idle-time decay), limit_ 50 packets.",
                apply=_red(queue_in_bytes=False, mean_pktsize=500, limit=50)),
        Reading("bytes-M", "bytes, thresholds and buffer in units of M = 1500 B", "textbook",
                "Floyd & Jacobson 1993 §4: the byte-mode RED whose p_b·L/M rule is RED_2 "
                "measures the queue in bytes; the paper keeps one queue measure for all "
                "variants ('the only difference between the two algorithms is the third "
                "step in RED_2'), so all run in bytes, 5/15/50 packets of M = 1500 bytes.",
                apply=_red(queue_in_bytes=True, mean_pktsize=M_BYTES, limit=50)),
    )),
    Choice("gentle", "Does the drop probability jump to 1 at max_th (or rise gently to 1 at "
           "2·max_th)?", (
        Reading("off", "off: every arrival dropped while avg ≥ max_th", "ns2",
                f"{NS2_1999}: Queue/RED gentle_ false (the option came in June 1999, off "
                "by default), as in Floyd & Jacobson 1993.",
                apply=_red(gentle=False)),
        Reading("on", "on: p from max_p to 1 between max_th and 2·max_th", "text",
                "ns-2's default from 2001 (ns-2.35 gentle_ true); the paper's Tables I-II "
                "define p only between the thresholds, so they do not rule it out.",
                apply=_red(gentle=True)),
    )),
    Choice("wait", "Is the count correction Floyd & Jacobson's or ns-2's wait_ version?", (
        Reading("ns2-wait", "ns-2 wait_: no drop until count·p_b ≥ 1", "ns2",
                f"{NS2_1999}: Queue/RED wait_ true (p = 0 while count·p_b < 1, then "
                "p_b/(2 − count·p_b)).",
                apply=_red(wait=True),
                excluded="Table I, step (4): p_a ← p_b / (1 − count · p_b)"),
        Reading("fj93", "p_a = p_b / (1 − count·p_b)", "textbook",
                "Floyd & Jacobson 1993 and the paper's Tables I-II, step (4).",
                apply=_red(wait=False)),
    )),
    Choice("window", "The receiver's advertised window (the paper gives none)", (
        Reading("ns2-20", "20 packets", "ns2",
                f"{NS2_1999}: Agent/TCP window_ 20 packets.",
                set={"tcp.window": 20},
                excluded="'The obtained throughput is consistent with the TCP goodput "
                         "estimation formula (see equation (2))'; 'in order to achieve "
                         "fairness the following equation needs to be satisfied: p1/MSS1² = "
                         "p2/MSS2²' — the paper explains its goodputs, and designs RED_5, "
                         "by eq. (2), which holds for windows limited by losses only; a "
                         "20-packet window caps the 375-byte flows at 80 ms"),
        Reading("unlimited", "never binding (10 000 packets)", "textbook",
                "Mathis et al. 1997 (the paper's [3], its goodput model, eq. (2)) assume a "
                "window limited by losses only, never by the receiver.",
                set={"tcp.window": 10000}),
    )),
    delayed_ack_choice(f"{NS2_1999}: Agent/TCPSink/Sack1 (no DelAck);", name="delack"),
    Choice("tcp_start", "TCP's start-up and RTO bounds (the paper states only the 200 ms "
           "granularity)", (
        Reading("ns2-1999", "IW 1, no SYN, RTO 6 s before a sample, ≥ 2 ticks, no cap", "ns2",
                f"{NS2_1999}: Agent/TCP windowInit_ 1, syn_ false, delay_growth_ false, "
                "rtxcur_init_ 6.0, maxrto_ 100000, no minrto_ (tcp.cc rtt_timeout() keeps "
                "the RTO ≥ 2·tcpTick_ = 0.4 s only).",
                set={"tcp.window_init": 1, "tcp.syn": False, "tcp.delay_growth": False,
                     "tcp.rto_init": 6.0, "tcp.max_rto": 100000.0, "tcp.min_rto": 0.0}),
        Reading("ns2-2.35", "IW 2, SYN, RTO 3 s before a sample, min 0.2 s, max 60 s", "text",
                "ns-2.35's defaults (windowInit_ 2, syn_ true, delay_growth_ true, "
                "rtxcur_init_ 3, minrto_ 0.2, maxrto_ 60); the paper states none of them.",
                set={"tcp.window_init": 2, "tcp.syn": True, "tcp.delay_growth": True,
                     "tcp.rto_init": 3.0, "tcp.max_rto": 60.0, "tcp.min_rto": 0.2}),
    )),
    Choice("M", "The M of Tables I-II, by which RED_2 … RED_5 weight a packet's size", (
        Reading("ns2-mean-500", "ns-2's mean_pktsize_ 500 bytes", "ns2",
                "ns-2 (1999) red.cc: its byte mode scales by size / mean_pktsize_ (default "
                "500), the only packet size Queue/RED knows.",
                apply=_max_pktsize(500),
                excluded="'L is the size of the incoming packet, M is the maximum packet "
                         "size'"),
        Reading("max-1500", "1500 bytes, the largest MTU", "text",
                "'M is the maximum packet size': the largest packet is 1500 bytes, so "
                "L/M = 1/4, 1/2, 1 for the three groups.",
                apply=_max_pktsize(M_BYTES)),
    )),
    Choice("access", "The hosts' links to the routers (the paper gives none)", (
        Reading("100M-1ms", "100 Mb/s, 1 ms each side", "text",
                "Fast edges whose delay is small beside the bottleneck's, so that the "
                "bottleneck's 15/80 ms sets the RTT.",
                apply=_access("100Mb", "1ms")),
        Reading("direct", "1 Gb/s, no delay", "text",
                "'sharing the same network path composed of a bottleneck link of 30 "
                "Mbits/s connecting two routers': nothing else on the path.",
                apply=_access("1Gb", "0ms")),
    )),
    Choice("duration", "How long each run lasts (the paper gives no duration or warm-up)", (
        Reading("100s", "100 s, measured from the start", "text",
                "Long beside the start-up (a few seconds): goodput and PLR over the whole "
                "run, start included, as the paper gives no warm-up.",
                apply=_duration("100s")),
        Reading("50s", "50 s, measured from the start", "text",
                "Half as long: the start-up weighs twice as much.",
                apply=_duration("50s")),
    )),
]


def choices() -> List[Choice]:
    return list(CHOICES)
