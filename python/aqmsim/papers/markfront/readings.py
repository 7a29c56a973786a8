"""The open choices of paper 004 (Liu & Jain, mark-front) and their candidate readings.

The paper (HTML dated 2000-04-23, ICCT 2000) ran "the ns simulator [11]", cited at its
Berkeley address (www-mash.cs.berkeley.edu/ns): a release of 1999–2000, ns-2.1b5 (16 March
1999) or ns-2.1b6 (18 January 2000); ns-2.1b7 came out on 16 October 2000, after the paper.
We read that era's defaults from ns-2.1b8a's ``tcl/lib/ns-default.tcl`` (CVS 1.242, 27 May
2001), whose comments date every default changed since (``windowInit_`` 1 -> 2 on 2001/5/26,
``syn_`` and ``delay_growth_`` false -> true on 2001/5/17, ``minrto_`` added on 2001/05/10,
``timerfix_`` on 2001/05/11, ``singledup_`` 1 "will become the new default"), and from its
CHANGES.html (release dates; "Changed some defaults for TCP and RED", 27 May 2001). What
ns-2.1b6 would have done had the authors typed only what the paper states:

* ``Agent/TCP``: ``window_`` 20, ``windowInit_`` 1, no SYN (one-way TCP opened with a full data
  packet), ``tcpTick_`` 0.1 s, no ``minrto_`` (``rtt_timeout()`` floors the RTO at two ticks,
  0.2 s), ``rtxcur_init_`` 6 s, ``maxrto_`` 100000 s, ``singledup_`` 0 (no limited transmit),
  ``packetSize_`` 1000 — and the one-way TCP of that time put ``packetSize_`` bytes on the wire:
  ``TcpAgent::output`` adds the 40-byte ``tcpip_base_hdr_size_`` only to a SYN (ns-2.35's
  ``useHeaders_``, which adds it to every packet, came later).
* ``Agent/TCPSink``: an ACK of 40 bytes for every packet (no delayed ACKs, the paper's own
  assumption 4 too); ECN-Echo on every ACK until a packet with CWR arrives (since May 1998,
  as RFC 2481 asks).
* ``Queue`` ``limit_`` 50; ``Queue/DropTail`` enqueues and then drops while
  ``length() >= limit_``, so it holds ``limit_ − 1`` packets waiting (the one on the wire apart).

Choices, each with its readings (the primary is picked by :data:`aqmsim.papers.readings.RULE`:
derived > ns2 > textbook > text, skipping readings the text contradicts):

``window``      the advertised window: the text's "large enough" (10000) | ns-2's 20
                (excluded by assumption 1).
``opening``     how a connection opens: no SYN, initial window 1 (ns-2.1b6) | SYN then one
                segment (RFC 793 + RFC 2001) | SYN then 2 (ns-2.35; excluded: "the congestion
                window grows from one").
``recovery``    the retransmission timer and limited transmit: ns-2.1b6 (tick 0.1 s, RTO
                floor 0.2 s, initial 6 s, no limited transmit) | RFC 2988 (minimum 1 s,
                initial 3 s) | ns-2.35 (tick 0.01 s, minimum 0.2 s, initial 3 s, limited
                transmit).
``packet``      "the data packet size is 1000 bytes": 1000 bytes on the wire (ns-2.1b6) |
                1000 bytes of payload + 40 of header (ns-2.35's ``useHeaders_``).
``delays``      the access/egress delays, unstated: those that make the fixed RTT exactly
                the stated 59 ms (derived) | whole milliseconds, 3 ms (as one types them).
``start``       "start at 0 second": exactly at the stated times (ns-2 as typed) | plus a
                random offset of up to one bottleneck packet time (the text's "not
                deterministic").
``buffer``      the buffer of the scenarios not "limited to 25 packets": large (1000) |
                ns-2's default ``limit_`` 50 (excluded).
``limit25``     "limited to 25 packets": ns-2 DropTail's 24 waiting + 1 on the wire | 25
                waiting (RED's and aqmsim's count).

Settled by the text, so not open: TCP Reno with ECN; 40-byte ACKs; an ACK per packet (no
delayed ACKs: assumption 4, also ns-2's TCPSink); 1.5 Mb/s and 10 Mb/s links, the 20 ms
(40 ms) r1–r2 delay; 10-second runs (0–10 s; 0–9 s and 1–10 s in scenario 3).

Open but not run as readings (the engine has no switch for them, or they are analysis
definitions): whether the connection's first packet is ECN-capable in ns-2.1b6 and whether the
authors' queue dropped a non-ECT packet it would have marked (aqmsim drops it, as RFC 3168 and
ns-2's RED with ``setbit_`` do; this is what makes scenario 3's late connection lose its first
packet); whether the queue compared with T counts the packet concerned; the metric
definitions (maximum queue without the packet on the wire; efficiency from packets delivered
rather than acknowledged at the source).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Tuple

from ..readings import Choice, Reading, get_path, set_path

__all__ = ["CHOICES", "choices", "seconds", "bits_per_second", "base_rtt", "wire_bytes",
           "bottleneck_pps", "fmt_ms", "derived_access_delay", "R_PAPER", "STATED_START",
           "LARGE_BUFFER", "LIMITED_BUFFER"]

#: The fixed RTT the paper states for its basic configuration (§6.1), seconds.
R_PAPER = 0.059
#: The stated start time of each group (by name): the late connection of scenario 3 starts at
#: 1 s, every other connection at 0.
STATED_START = {"second": 1.0}
LARGE_BUFFER = ("1", "2", "3", "4", "6", "7", "1r99")
LIMITED_BUFFER = ("5", "8")

_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_RATES = {"b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9}


def seconds(v: Any) -> float:
    """A time of a scenario dict ("2.5ms", "1s", or a number of seconds) in seconds."""
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-z]*)\s*", str(v))
    if not m or m.group(2) not in _UNITS:
        raise ValueError(f"not a time: {v!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def bits_per_second(v: Any) -> float:
    """A rate of a scenario dict ("1.5Mb", "10Mb", or a number of b/s) in b/s."""
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z]*)\s*", str(v))
    unit = m.group(2).lower() if m else ""
    if unit.endswith("ps"):
        unit = unit[:-2] + "b"
    if not m or unit not in _RATES:
        raise ValueError(f"not a rate: {v!r}")
    return float(m.group(1)) * _RATES[unit]


def fmt_ms(s: float) -> str:
    """Seconds as a millisecond string to the nanosecond ("2.947333ms")."""
    ns = int(round(s * 1e9))
    txt = f"{ns / 1e6:.6f}".rstrip("0").rstrip(".")
    return f"{txt}ms"


def wire_bytes(data: Dict[str, Any]) -> int:
    """Bytes of a data packet on the wire (payload, + header with ``use_headers``)."""
    tcp = data.get("tcp", {})
    header = int(tcp.get("header", 40)) if tcp.get("use_headers", True) else 0
    return int(tcp.get("packet_size", 1000)) + header


def bottleneck_pps(data: Dict[str, Any]) -> float:
    """d: the bottleneck's rate in data packets per second."""
    return bits_per_second(get_path(data, "dumbbell.bottleneck.rate")) / (8 * wire_bytes(data))


def _serialisation(data: Dict[str, Any]) -> float:
    """Transmission time of one data packet and one ACK on the three hops, seconds."""
    db = data["dumbbell"]
    g = db["groups"][0]
    rates = [bits_per_second(g["access"]["rate"]), bits_per_second(db["bottleneck"]["rate"]),
             bits_per_second(g["egress"]["rate"])]
    ack = int(data.get("tcp", {}).get("ack_size", 40))
    return sum(8 * wire_bytes(data) / c + 8 * ack / c for c in rates)


def base_rtt(data: Dict[str, Any], group: int = 0) -> float:
    """The paper's fixed RTT r of one group: propagation both ways plus the serialisation of a
    data packet and its ACK on each hop (no queueing), seconds."""
    db = data["dumbbell"]
    g = db["groups"][group]
    prop = seconds(g["access"]["delay"]) + seconds(db["bottleneck"]["delay"]) + \
        seconds(g["egress"]["delay"])
    return 2 * prop + _serialisation(data)


def derived_access_delay(data: Dict[str, Any]) -> float:
    """The access (= egress) delay that makes the basic configuration's fixed RTT exactly
    59 ms with this scenario's packet sizes, seconds: (r − 2·20 ms − serialisation) / 4."""
    return (R_PAPER - 2 * 0.020 - _serialisation(data)) / 4


def _rtt_offsets(data: Dict[str, Any]) -> List[float]:
    """Per group, the extra one-way delay of its source's access link over its egress link
    (0 for the 59 ms connections; (R − 59 ms)/2 for a connection of RTT R)."""
    return [seconds(g["access"]["delay"]) - seconds(g["egress"]["delay"])
            for g in data["dumbbell"]["groups"]]


def _set_edge_delays(data: Dict[str, Any], base: float) -> None:
    offsets = _rtt_offsets(data)
    for g, off in zip(data["dumbbell"]["groups"], offsets):
        g["egress"]["delay"] = fmt_ms(base)
        g["access"]["delay"] = fmt_ms(base + round(off * 1e6) / 1e6)


# ------------------------------------------------------------------------ applies
def _delays_derived(data: Dict[str, Any], _e: Any) -> None:
    _set_edge_delays(data, derived_access_delay(data))


def _delays_int3(data: Dict[str, Any], _e: Any) -> None:
    _set_edge_delays(data, 0.003)


def _start(jitter: bool):
    def apply(data: Dict[str, Any], _e: Any) -> None:
        width = 8 * wire_bytes(data) / bits_per_second(get_path(data, "dumbbell.bottleneck.rate"))
        for g in data["dumbbell"]["groups"]:
            s = STATED_START.get(g.get("name", ""), 0.0)
            if jitter:
                g["start"] = {"uniform": [fmt_ms(s), fmt_ms(s + width)]}
            else:
                g["start"] = f"{s:g}s"
    return apply


def _limit(scenarios: Tuple[str, ...], limit: int):
    def apply(data: Dict[str, Any], e: Any) -> None:
        if str(e.labels.get("scenario")) in scenarios:
            set_path(data, "dumbbell.bottleneck.queue.limit", limit)
    return apply


# ------------------------------------------------------------------------ the choices
_NS2 = ("ns-2.1b6 (18 Jan 2000; the paper, dated 23 Apr 2000, cites ns at its Berkeley "
        "address), defaults as dated in ns-2.1b8a's tcl/lib/ns-default.tcl (CVS 1.242)")

WINDOW = Choice("window", "The advertised (receiver) window, in packets; ns-2's Agent/TCP "
                "window_ defaults to 20.", (
    Reading("large", "window 10000 (large enough)", "text",
            "§2 assumption (1): 'Receiver windows are large enough so the bottleneck is in "
            "the network'; 10000 packets never binds in 10 s at 1.5 Mb/s.",
            set={"tcp.window": 10000}),
    Reading("ns2-20", "window_ 20 (ns-2 default)", "ns2",
            f"{_NS2}: Agent/TCP set window_ 20. With rd ≈ 11 a single connection could then "
            "queue at most about 9 packets.",
            set={"tcp.window": 20},
            excluded="'(1) Receiver windows are large enough so the bottleneck is in the "
                     "network.' (§2)"),
))

OPENING = Choice("opening", "How a connection opens: a SYN or not, and the initial window.", (
    Reading("nosyn-iw1", "no SYN, initial window 1 (ns-2.1b6)", "ns2",
            f"{_NS2}: 'Agent/TCP set windowInit_ 1' (2 only from 2001/5/26), 'syn_ false' and "
            "'delay_growth_ false' (true from 2001/5/17): the one-way TCP sends a full data "
            "packet first. (As in ns-2.1b8 and 2.35, aqmsim sends that first packet as not "
            "ECN-capable, with ECN-Echo set, to negotiate ECN.)",
            set={"tcp.syn": False, "tcp.delay_growth": False, "tcp.window_init": 1}),
    Reading("syn-iw1", "SYN, then one segment (RFC 793, RFC 2001)", "textbook",
            "RFC 2001 (the paper's [1]): the congestion window is initialised to one segment "
            "when a connection is established, after RFC 793's three-way handshake (a 40-byte "
            "SYN; the window is held at 1 until it is acknowledged).",
            set={"tcp.syn": True, "tcp.delay_growth": True, "tcp.window_init": 1}),
    Reading("syn-iw2", "SYN, then 2 (ns-2.35)", "text",
            "ns-2.35's defaults (syn_ true, delay_growth_ true, windowInit_ 2), what the paper's "
            "'ns simulator [11]' gives today; the reading of aqmsim's other reproductions.",
            set={"tcp.syn": True, "tcp.delay_growth": True, "tcp.window_init": 2},
            excluded="'In the slow start phase, the congestion window grows from one' (§6.2)"),
))

RECOVERY = Choice("recovery", "The retransmission timer (clock tick, RTO floor, initial and "
                  "largest RTO) and limited transmit: the paper names none.", (
    Reading("ns2-2.1b6", "tick 0.1 s, RTO ≥ 0.2 s, initial 6 s, no limited transmit", "ns2",
            f"{_NS2}: tcpTick_ 0.1, no minrto_ ('Set to 0 to give old behavior'; "
            "TcpAgent::rtt_timeout floors the RTO at 2·tcpTick_ = 0.2 s), rtxcur_init_ 6.0, "
            "maxrto_ 100000, singledup_ 0 (limited transmit, RFC 3042, is of 2001).",
            set={"tcp.tick": 0.1, "tcp.min_rto": 0.0, "tcp.rto_init": 6.0,
                 "tcp.max_rto": 100000.0, "tcp.limited_transmit": False}),
    Reading("rfc2988", "RFC 2988: RTO ≥ 1 s, initial 3 s, at most 60 s", "textbook",
            "RFC 2988 (Nov. 2000, writing down the practice of the time): minimum RTO 1 s, "
            "initial RTO 3 s, maximum at least 60 s; clock granularity ≤ 100 ms recommended "
            "(0.1 s kept); no limited transmit (RFC 2581, the paper's era).",
            set={"tcp.tick": 0.1, "tcp.min_rto": 1.0, "tcp.rto_init": 3.0,
                 "tcp.max_rto": 60.0, "tcp.limited_transmit": False}),
    Reading("ns235", "ns-2.35: tick 0.01 s, RTO ≥ 0.2 s, initial 3 s, limited transmit",
            "text",
            "ns-2.35's defaults (tcpTick_ 0.01, minrto_ 0.2, rtxcur_init_ 3, maxrto_ 60, "
            "singledup_ 1): the 'ns simulator [11]' of today, as aqmsim's other reproductions "
            "read it.",
            set={"tcp.tick": 0.01, "tcp.min_rto": 0.2, "tcp.rto_init": 3.0,
                 "tcp.max_rto": 60.0, "tcp.limited_transmit": True}),
))

PACKET = Choice("packet", "'The data packet size is 1000 bytes': on the wire, or payload "
                "before a 40-byte TCP/IP header?", (
    Reading("wire1000", "1000 bytes on the wire (d = 187.5 packets/s)", "ns2",
            f"{_NS2}: packetSize_ 1000 is the size on the wire — TcpAgent::output (tcp.cc) "
            "adds tcpip_base_hdr_size_ only to a SYN; written here as packet_size 1000 with "
            "use_headers false (ns-2.35's useHeaders_ false), header 40 so that a SYN "
            "would still be 40 bytes. Also the plain reading of a 'packet size'.",
            set={"tcp.packet_size": 1000, "tcp.header": 40, "tcp.use_headers": False,
                 "tcp.ack_size": 40}),
    Reading("payload1000", "1000 bytes + 40-byte header = 1040 (ns-2.35)", "text",
            "ns-2.35 adds tcpip_base_hdr_size_ 40 to packetSize_ on every packet "
            "(useHeaders_ true): 1040 bytes on the wire, d = 180.3 packets/s.",
            set={"tcp.packet_size": 1000, "tcp.header": 40, "tcp.use_headers": True,
                 "tcp.ack_size": 40}),
))

DELAYS = Choice("delays", "The access and egress link delays, which the paper does not give: "
                "it gives the fixed RTT (59 ms, 'including the propagation time and the "
                "processing time at the routers') and the r1–r2 delay (20 ms).", (
    Reading("r59", "delays that make r exactly 59 ms", "derived",
            "The stated RTTs (59, 67, 137, 157, 257 ms; 99 ms with a 40 ms r1–r2 delay) fix "
            "the delays once the 'processing time' is read as the serialisation of a data "
            "packet and its ACK on each hop (ns-2 has no other per-hop time); access = egress.",
            apply=_delays_derived,
            arithmetic=("with 1000-byte packets on the wire and 40-byte ACKs, serialisation "
                        "= 2×8000/10e6 + 8000/1.5e6 = 6.933 ms (data) + 2×320/10e6 + "
                        "320/1.5e6 = 0.277 ms (ACK) = 7.211 ms; propagation = 59 − 7.211 = "
                        "51.789 ms round trip, minus 2×20 ms on r1–r2 = 11.789 ms over two "
                        "access and two egress hops: 2.947333 ms each (with 1040-byte packets: "
                        "7.488 ms, 2.878 ms). A connection of RTT R adds (R − 59)/2 ms to its "
                        "source's access link: +4, +39, +49, +99 ms for 67, 137, 157, 257 ms. "
                        "rd = 0.059 × 1.5e6/8000 = 11.06 packets (10.64 with 1040 bytes)."),
            uses=("r = 59 ms (§6.1)", "RTTs 67, 137, 157, 257 ms (§6.1)")),
    Reading("int3ms", "3 ms access and egress (whole milliseconds)", "ns2",
            "Delays as one types them into ns-2, in whole milliseconds: 3 + 20 + 3 ms each way "
            "is the integer split nearest to 59 ms (r = 52 ms + 7.21 ms serialisation = "
            "59.21 ms, which the paper would round to 59); the other RTTs then need access "
            "delays of 7, 42, 52 and 102 ms, all whole.",
            apply=_delays_int3),
))

START = Choice("start", "'All connections ... start at 0 second': exactly, or with a small "
               "random offset?", (
    Reading("exact", "exactly at the stated times", "ns2",
            "ns-2 as typed ('$ns at 0.0 \"$ftp start\"'): deterministic; our seeds then differ "
            "only in each TCP's clock phase (ns-2's boot_time_, drawn from its RNG).",
            apply=_start(False)),
    Reading("jitter", "plus U[0, one bottleneck packet time]", "text",
            "§6.3: 'Which connection receives more packets than the other is not "
            "deterministic, so the unfairness index seems random': each start gets a uniform "
            "offset of up to one packet time on r1–r2 (5.333 ms; 5.547 ms with 1040-byte "
            "packets), so that seeds sample the flows' relative phase.",
            apply=_start(True)),
))

BUFFER = Choice("buffer", "The buffer at r1 in the scenarios whose buffer is not 'limited to "
                "25 packets' (1, 2, 3, 4, 6, 7 and the 99 ms variant).", (
    Reading("large", "1000 packets (never full)", "text",
            "§6.1 limits the buffer to 25 packets in scenarios 5 and 8 only, so the others are "
            "not limited; §4: 'If routers have enough buffer space ...'; §6.2's buffer "
            "requirement is measured where nothing is lost.",
            apply=_limit(LARGE_BUFFER, 1000)),
    Reading("ns2-50", "ns-2's default limit_ 50 (49 waiting)", "ns2",
            f"{_NS2}: 'Queue set limit_ 50', and DropTail holds limit_ − 1 waiting.",
            apply=_limit(LARGE_BUFFER, 49),
            excluded="'Two connections with same RTT, but the buffer size at the congested "
                     "router is limited to 25 packets' (§6.1: only scenarios 5 and 8 are "
                     "limited)"),
))

LIMIT25 = Choice("limit25", "'The buffer size at the congested router is limited to 25 "
                 "packets' (scenarios 5 and 8): how many wait?", (
    Reading("droptail24", "ns-2 DropTail: 24 waiting + 1 on the wire", "ns2",
            f"{_NS2}: '$ns queue-limit $r1 $r2 25' on ns-2's DropTail-based queues, whose "
            "enque() drops while length() ≥ limit_: 24 packets wait, the 25th is on the wire.",
            apply=_limit(LIMITED_BUFFER, 24)),
    Reading("wait25", "25 waiting (+1 on the wire)", "text",
            "25 packets of buffer, the packet being sent apart (ns-2's RED and aqmsim's queues "
            "count so).",
            apply=_limit(LIMITED_BUFFER, 25)),
))

#: The choices, in the order their readings are applied (packet before delays and start:
#: those two compute from the packet size).
CHOICES: Tuple[Choice, ...] = (WINDOW, OPENING, RECOVERY, PACKET, DELAYS, START, BUFFER,
                               LIMIT25)


def choices() -> List[Choice]:
    return list(CHOICES)
