"""The open choices of paper 003 (Hamadneh, Al-Kasassbeh, Obiedat & BaniKhalaf 2019,
*Revisiting the Gentle Parameter of RED*) and their readings.

The paper names its tool: NS2, "the current version 2.35" (§III). ns-2.35's defaults (its
``tcl/lib/ns-default.tcl``, and the installed ``ns``: ``puts [Queue/RED set gentle_]`` …):
Queue/RED ``bytes_ true``, ``queue_in_bytes_ true``, ``mean_pktsize_ 500``, ``linterm_ 10``
(max_p 0.1), ``wait_ true``, ``gentle_ true``, ``adaptive_ 0`` (Adaptive RED: ``adaptive_
1`` with ``interval_ 0.5``, ``alpha_ 0.01``, ``beta_ 0.9``, ``top_ 0.5``, ``bottom_ 0``);
Agent/TCP (Tahoe) ``window_ 20``, ``windowInit_ 2``, ``packetSize_ 1000`` (+40-byte
header); Agent/TCPSink acknowledges every packet. In byte mode red.cc takes ``limit_`` and
the thresholds in packets and multiplies them by ``mean_pktsize_``.

The paper configures its scenarios through dialog boxes (Figs. 3-4) and its scenario 2 is,
apart from the bottleneck, the defaults of the NSG2 script generator (duplex links 100 Mb/s
10 ms, TCP agents ``Agent/TCP`` with ``packetSize_ 1500``, applications starting at 1.0 s):
where that matters it is said in the readings.

What the paper states: Table II (min_th, max_th, weight 0.002, packet size), Table III
(link rates and delays, FTP start and stop, the bottleneck's "Max_q length" in packets), the
feeding links' DropTail queue of 20 packets (Fig. 3), three FTP/TCP agents from n0 and n1 to
sinks on n4 and n5, RED with and without gentle, ARED, DropTail. Open:

``units``
    ns-2.35's byte mode (ns2) or packets (Floyd & Jacobson 1993, textbook), for the RED
    family (DropTail counts packets in ns-2 either way).
``packet_size``
    Table II's "Packet size" (500, 1500): RED's ``mean_pktsize_`` and the TCP agents'
    ``packetSize_`` (ns2: the four columns of Table II are ns-2's four Queue/RED values
    thresh_, maxthresh_, q_weight_, mean_pktsize_, and it is the only packet size the
    paper gives), the TCP packet size only (RED's ``mean_pktsize_`` at 500: text), or RED's
    ``mean_pktsize_`` only (the TCP agents at ns-2's ``packetSize_ 1000``: text).
``ared_gentle``
    ARED left at ns-2's ``gentle_ true`` (ns2; excluded as primary by §V-A: "Here ARED
    reacted same as RED by dropping every arriving packet with probability one") or ARED
    without the gentle region (text). The RED and GRED rows set gentle explicitly: not open.
``max_p``
    ns-2's ``linterm_ 10`` (0.1, ns2) or Floyd & Jacobson's 1/50 (textbook; the paper's
    scenario 1 thresholds and weight, 5, 15 and 0.002, are theirs) for RED and GRED; ARED
    starts at 0.1 in both.
``tcp``
    ``Agent/TCP``, Tahoe (ns2; also NSG2's "TCP" agent) or Reno (RFC 2581, textbook).
``window``
    ns-2's ``window_ 20`` (ns2) or a window that never binds, 8000 as ns-2 tutorials set it
    (text: §V-B's queues that "alternated between the full queue and idle cases very
    frequently", which 60 packets in flight cannot cause in scenario 2).
``delayed_ack``
    Agent/TCPSink (ns2) or delayed ACKs (RFC 1122, RFC 2581; ns-2's DelAck 100 ms:
    textbook).
``sink_links``
    n3 -> n4 and n3 -> n5 are not given: the feeding links' configuration (text: Fig. 3's
    dialog read as the non-bottleneck links'), or NSG2's default duplex link, 100 Mb/s
    10 ms DropTail 50 (text: the generator the dialogs come from). ns-2 has no default link.

No published number here determines a parameter, so no reading is ``derived`` and no
published number is an input. Tables IV-V's counts cannot be per-packet counts of the
stated topology (scenario 1's 12 367 packets in 9.98 s would need 5.35 Mb/s of 540-byte
packets on the 2 Mb/s bottleneck — as it happens, 12 367 x 500 x 8 / 9.98 s = 4.96 Mb/s, the
feeding links' rate, with 500-byte packets; scenario 2's 9 173 packets of 1 540 bytes in 9 s
need 12.6 Mb/s on a 10 Mb/s bottleneck), and end-to-end minus processing time is the same
in every row of a table (20.70 ms, 8.08 ms): we found no reading of the metrics that makes
them consistent with Table III, so the metrics are not a choice here; the report says why.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ..readings import Choice, Reading, delayed_ack_choice, red_queues

__all__ = ["CHOICES", "choices", "PACKET_SIZE_BY_SCENARIO"]

#: Table II's "Packet size" per scenario.
PACKET_SIZE_BY_SCENARIO = {1: 500, 2: 1500}
#: ns-2.35's Agent/TCP packetSize_ default.
NS2_TCP_PACKET_SIZE = 1000

NS2 = "ns-2.35 (the paper's tool, §III: 'the current version 2.35')"
FJ93 = "Floyd & Jacobson 1993"
ARED_TEXT = ("§V-A on ARED (Fig. 5): \"The average queue size had been increased from the "
             "beginning of the simulation until it hit the maximum threshold. Here ARED "
             "reacted same as RED by dropping every arriving packet with probability one\".")


def _scenario(experiment: Any) -> int:
    return int(experiment.labels.get("scenario", 1))


def _red(**fields: Any):
    """An edit setting ``fields`` on every RED-family queue."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            q.update(fields)

    return edit


def _packet_size(tcp_from_table: bool, red_from_table: bool):
    def edit(data: Dict[str, Any], experiment: Any) -> None:
        size = PACKET_SIZE_BY_SCENARIO[_scenario(experiment)]
        data["tcp"]["packet_size"] = size if tcp_from_table else NS2_TCP_PACKET_SIZE
        data["tcp"]["header"] = 40
        for _, q in red_queues(data):
            q["mean_pktsize"] = size if red_from_table else 500

    return edit


def _ared(**fields: Any):
    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            if str(q.get("kind")) == "ared":
                q.update(fields)

    return edit


def _max_p(value: float):
    """max_p of RED and GRED; ARED starts at ns-2's 0.1 under every reading."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            q["max_p"] = 0.1 if str(q.get("kind")) == "ared" else value

    return edit


def _sink_links(nsg2: bool):
    """n3 -> n4 and n3 -> n5: the feeding link's rate, delay and 20-packet DropTail, or
    NSG2's default 100 Mb/s, 10 ms, DropTail 50."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        links = data["links"]
        feed = links[0]
        for lk in links:
            if lk.get("from") == "n3" and lk.get("to") in ("n4", "n5"):
                if nsg2:
                    lk["rate"], lk["delay"] = "100Mb", "10ms"
                    lk["queue"] = {"kind": "droptail", "limit": 50, "drop_front": False}
                else:
                    lk["rate"], lk["delay"] = feed["rate"], feed["delay"]
                    lk["queue"] = {"kind": "droptail", "limit": 20, "drop_front": False}
                lk["reverse_queue"] = {"kind": "droptail", "limit": 50, "drop_front": False}

    return edit


UNITS = Choice("units", "In what units do RED, GRED and ARED count the queue, buffer and "
               "thresholds?", (
    Reading("ns2-bytes", "byte mode: thresholds and buffer × mean_pktsize bytes", "ns2",
            f"{NS2} Queue/RED bytes_ true, queue_in_bytes_ true: red.cc multiplies limit_ "
            "and the thresholds typed in packets by mean_pktsize_.",
            apply=_red(bytes=True, queue_in_bytes=True)),
    Reading("packets", "packet mode", "textbook",
            f"{FJ93}: the queue, its average and the thresholds in packets (ns-2 bytes_ "
            "false, queue_in_bytes_ false); Table III gives the buffer 'in (packets)'.",
            apply=_red(bytes=False, queue_in_bytes=False)),
))

PACKET_SIZE = Choice("packet_size", "What is Table II's 'Packet size' (500, 1500)?", (
    Reading("tcp-and-red", "RED's mean_pktsize_ and the TCP packetSize_", "ns2",
            "Table II ('the main parameters of RED') has the four values ns-2's Queue/RED "
            "takes: thresh_, maxthresh_, q_weight_ and mean_pktsize_; it is also the only "
            "packet size the paper gives, so the TCP agents' packetSize_ (540 and 1540 bytes "
            "on the wire; 1500 is also NSG2's default agent packet size).",
            apply=_packet_size(True, True)),
    Reading("tcp-only", "the TCP packetSize_ only; RED's mean_pktsize_ 500", "text",
            "'Packet size' as the size of the packets the agents send (set in the agent's "
            "dialog, Fig. 4), RED's mean_pktsize_ left at ns-2's 500: in byte mode scenario "
            "2's 14-packet buffer then holds 7 000 bytes, 4 packets of 1 540 bytes.",
            apply=_packet_size(True, False)),
    Reading("red-only", "RED's mean_pktsize_ only; TCP packetSize_ 1000", "text",
            "'Packet size' as one of RED's parameters only (Table II's title), the TCP "
            f"agents at ns-2's packetSize_ {NS2_TCP_PACKET_SIZE} (1040 bytes on the wire).",
            apply=_packet_size(False, True)),
))

ARED_GENTLE = Choice("ared_gentle", "Does ARED keep ns-2's gentle region?", (
    Reading("on", "gentle_ true (ns-2's default)", "ns2",
            f"{NS2} Queue/RED gentle_ true, which adaptive_ 1 leaves on (Floyd, Gummadi & "
            "Shenker 2001 run Adaptive RED gentle too).",
            apply=_ared(gentle=True), excluded=ARED_TEXT),
    Reading("off", "no gentle region: p = 1 above max_th", "text",
            f"{ARED_TEXT} The paper also proposes the adaptive parameter as the replacement "
            "of the gentle one (§VI).", apply=_ared(gentle=False)),
))

MAX_P = Choice("max_p", "RED's and GRED's max_p (the paper gives none)", (
    Reading("0.1", "max_p 0.1", "ns2", f"{NS2} Queue/RED linterm_ 10.", apply=_max_p(0.1)),
    Reading("0.02", "max_p 1/50", "textbook",
            f"{FJ93}: max_p = 1/50 with min_th 5, max_th 15, w_q 0.002, the values of the "
            "paper's scenario 1.", apply=_max_p(0.02)),
))

TCP = Choice("tcp", "Which TCP do the agents run (the paper says 'TCP agent')?", (
    Reading("tahoe", "Agent/TCP (Tahoe)", "ns2",
            f"{NS2}: a plain TCP agent is `new Agent/TCP`, Tahoe; NSG2's 'TCP' agent writes "
            "the same.", set={"tcp.variant": "tahoe"}),
    Reading("reno", "TCP Reno", "textbook",
            "RFC 2581 (TCP congestion control: slow start, congestion avoidance, fast "
            "retransmit and fast recovery).", set={"tcp.variant": "reno"}),
))

WINDOW = Choice("window", "The agents' advertised window (the paper gives none)", (
    Reading("20", "window_ 20 packets", "ns2", f"{NS2} Agent/TCP window_ 20.",
            set={"tcp.window": 20}),
    Reading("8000", "window_ 8000 (never binding)", "text",
            "§V-B: 'The queues had been alternated between the full queue and idle cases "
            "very frequently and the majority of the drops were caused by the full queue "
            "problem' — in scenario 2 three windows of 20 packets barely exceed the path's "
            "~51-packet bandwidth-delay product and cannot overrun the buffer; 8000 is the "
            "value ns-2 tutorials set for a window that never binds.",
            set={"tcp.window": 8000}),
))

DELAYED_ACK = delayed_ack_choice(f"{NS2} (NSG2's 'TCPSink'):",
                                 question="Do the sinks delay their ACKs?")

SINK_LINKS = Choice("sink_links", "Rate, delay and queue of the links n3 -> n4, n3 -> n5 "
                    "(not given)", (
    Reading("feeding", "as the feeding links (5 Mb/s 2 ms; 100 Mb/s 10 ms), DropTail 20",
            "text",
            "Fig. 3's link dialog, the only one the paper shows, read as the configuration "
            "of every link but the bottleneck.", apply=_sink_links(False)),
    Reading("nsg2", "NSG2's default link: 100 Mb/s 10 ms, DropTail 50", "text",
            "The dialogs of Figs. 3-4 are those of the NSG2 generator, whose untouched "
            "duplex link is 100 Mb/s, 10 ms, DropTail with queue-limit 50 (scenario 2's "
            "feeding links are exactly that).", apply=_sink_links(True)),
))

#: The choices in the order their edits are applied.
CHOICES: List[Choice] = [UNITS, PACKET_SIZE, ARED_GENTLE, MAX_P, TCP, WINDOW, DELAYED_ACK,
                         SINK_LINKS]


def choices() -> List[Choice]:
    return list(CHOICES)
