"""The open choices of paper 000 (Hamadneh, Dixon, Cole & Murray 2011, RTRED) and their
readings.

The paper says it used "a NS-2 simulation script" (§VI). It is a 2011 paper, so the authors'
tool is ns-2.34 (June 2009) or ns-2.35 (November 2011); their Queue/RED and Agent/TCP
defaults are the same (ns-2.34's ``tcl/lib/ns-default.tcl`` rev. 1.383 and ns-2.35's, and
the installed ``ns``: ``puts [Queue/RED set gentle_]`` …): Queue/RED ``bytes_ true`` and
``queue_in_bytes_ true`` ("default changed on 10/11/2004"), ``mean_pktsize_ 500``,
``q_weight_ -1`` (automatic, since 12/29/01), ``linterm_ 10``, ``wait_ true``, ``gentle_
true`` (since 23 April 2001); Agent/TCP (Tahoe) ``window_ 20``, ``windowInit_ 2``,
``packetSize_ 1000`` plus the 40-byte ``tcpip_base_hdr_size_``; Agent/TCPSink acknowledges
every packet. In byte mode red.cc takes ``limit_`` and the thresholds in packets and
multiplies them by ``mean_pktsize_``.

§V's topology (six sources, uniform 0-7 s starts, 552-byte packets, 10 Mb/s access links
with uniform 1-5 ms delays, a 0.7 Mb/s, 20 ms bottleneck to the sink) is the one of Altman
& Jiménez's "NS simulator for beginners" scripts (``set packetSize_ 552`` on
``Agent/TCP/Reno``, ``Agent/TCPSink``, ``window_ 8000`` in the DropTail examples, unset in
the variant with random access delays): where that script differs from a bare ns-2 it is a
"text" reading (the paper's own description of its script).

Two published quantities fix parts of the set-up (``derived``):

* Table II's "Average Delay Time (ms)" is, in all nine rows and to 7-9 significant digits,
  the "No. of Propagated Packets" times the transmission time of a 592-byte packet at
  0.7 Mb/s (122.85184 = 18158 x 592 x 8 / 700 000; the unit is in fact seconds). So data
  packets are 592 bytes on the wire: 552 is ns-2's packetSize_ (payload) plus the 40-byte
  header (``packet_size``), and the delay column is not a delay measured per packet
  (``delay_metric``);
* packets sent minus packets lost (the packets that crossed the bottleneck) is 17 448-17 499
  in all nine rows: the bottleneck was busy for the same time in every run, which gives the
  run length (``run_length``).

The choices, in the order their edits are applied (``run_length`` last: it reads the packet
size the ``packet_size`` reading left):

``units``
    ns-2's byte mode with mean_pktsize_ 500 (ns2, the primary reading) or packets (Floyd &
    Jacobson 1993, textbook). In byte mode red.cc keeps the queue and its average in bytes
    and compares them with every threshold typed in packets (and ``limit_``) times
    mean_pktsize_: all of them count units of 500 bytes. The authors built RTRED inside
    ns-2's RED, so its risk threshold, typed in packets like the others, is read the same
    way (risk_th x 500 bytes against the queue in bytes; aqmsim's ``rtred`` does this), and
    the drop areas and queue plots are drawn in that unit. An earlier version excluded this
    reading: a 30-"packet" buffer holds 15 000 bytes = 25 packets of 592 bytes, below
    risk_th 28, so the time-out area "between the risk_th and the buffer limit" (Table I,
    §VI) could not be reached. That argument mixed units, a risk threshold in packets of
    592 bytes against a buffer in units of 500 bytes; in one unit the order of Table I
    holds in every scenario (min_th < max_th < risk_th < Buf.: 14 000-15 000 bytes is the
    time-out area of scenario 1), so the text does not contradict ns-2's byte mode and the
    rule picks it.
``gentle``
    ns-2's gentle_ true (ns2) or none (Floyd & Jacobson 1993, textbook).
``w_q``
    ns-2's automatic weight (ns2) or 0.002 (Floyd & Jacobson 1993, textbook).
``packet_size``
    592 bytes on the wire = packetSize_ 552 + 40 (derived from the delay column) or 552 on
    the wire (text).
``tcp``
    Agent/TCP, i.e. Tahoe (ns2), or Reno (the paper's references [3], [4], RFC 2581/2001;
    §IV-A's "the TCP source algorithm, such as Reno"; the tutorial script: textbook).
``window``
    window_ 20 (ns2) or the tutorial's window_ 8000 (text).
``delayed_ack``
    Agent/TCPSink (ns2) or delayed ACKs (RFC 1122, RFC 2581: textbook).
``between``
    RTRED's max_p where the paper gives no rule (the safe area, or q in [min_th, max_th]
    with avg outside): kept, halved or initial (all text; aqmsim's ``between``).
``delay_metric``
    what "Average Delay Time" is: packets sent x transmission time (derived) or the mean
    end-to-end delay of the packets received (text: "The average delay time is calculated
    for the actual amount of packets queued at the gateway rather than the average queue
    size value"). It changes no simulation: it is an analysis option of the readings
    (``Reading.analysis``), so the alternative re-runs nothing.
``run_length``
    the time the bottleneck needs to carry the packets that crossed it, mean over the nine
    rows of (sent - lost) at the wire size (derived), or the packets sent read as the
    packets the bottleneck carried (derived, the other reading of "propagated").
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ..readings import Choice, Reading, delayed_ack_choice, red_queues

__all__ = ["CHOICES", "choices", "TABLE2_SENT_LOST", "RATE_BPS", "run_length",
           "RUN_LENGTH_KEY", "DELAY_METRIC_KEY"]

#: Table II's (packets sent, packets lost) per (scenario, strategy), the inputs of the run
#: length (kept here so that the arithmetic shown on the page is the one applied).
TABLE2_SENT_LOST: Dict[Tuple[int, str], Tuple[int, int]] = {
    (1, "red"): (18158, 710), (1, "ared"): (18303, 855), (1, "rtred"): (18120, 668),
    (2, "red"): (17639, 151), (2, "ared"): (17646, 147), (2, "rtred"): (17627, 136),
    (3, "red"): (18110, 651), (3, "ared"): (18151, 698), (3, "rtred"): (18005, 548),
}
#: The bottleneck's rate (§V), bits per second.
RATE_BPS = 700_000.0
#: Notes keys the analysis reads to know which reading a run was made under.
RUN_LENGTH_KEY = "run_length"
DELAY_METRIC_KEY = "delay_metric"

NS2 = "ns-2.34/2.35 (the paper's 2011 tool; the same defaults)"
FJ93 = "Floyd & Jacobson 1993 (the paper's [7])"
TUTORIAL = ("the Altman & Jiménez ns-2 tutorial script whose topology §V describes (0.7 Mb/s "
            "20 ms bottleneck, 10 Mb/s access links with uniform 1-5 ms delays, uniform 0-7 s "
            "starts, packetSize_ 552)")


def run_length(wire_bytes: float, mode: str = "delivered") -> float:
    """Seconds the 0.7 Mb/s bottleneck needs for the mean over Table II's nine rows of the
    packets that crossed it (``delivered``: sent - lost) or of the packets sent (``sent``),
    at ``wire_bytes`` per packet, rounded to 0.1 s."""
    vals = [(s - l) if mode == "delivered" else s for s, l in TABLE2_SENT_LOST.values()]
    mean = sum(vals) / len(vals)
    return round(mean * 8.0 * wire_bytes / RATE_BPS, 1)


def _wire(data: Dict[str, Any]) -> int:
    tcp = data.get("tcp") or {}
    return int(tcp.get("packet_size", 552)) + int(tcp.get("header", 40))


def _red(**fields: Any):
    """An edit setting ``fields`` on every RED-family queue."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            q.update(fields)

    return edit


def _gentle_textbook(data: Dict[str, Any], experiment: Any) -> None:
    """gentle off for RED, RTRED and Feng's ARED (Floyd & Jacobson 1993, Feng 1999); on for
    ns-2's Adaptive RED, whose own paper (Floyd, Gummadi & Shenker 2001) runs it gentle."""
    for _, q in red_queues(data):
        q["gentle"] = str(q.get("kind")) == "ared"


def _between(rule: str):
    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for _, q in red_queues(data):
            if str(q.get("kind")) == "rtred":
                q["between"] = rule

    return edit


def _run_length(mode: str):
    def edit(data: Dict[str, Any], experiment: Any) -> None:
        t = run_length(_wire(data), mode)
        data["duration"] = f"{t:g}s"
        for g in data["dumbbell"]["groups"]:
            g["stop"] = f"{t:g}s"
        data.setdefault("notes", {})[RUN_LENGTH_KEY] = mode

    return edit


def _arith(mode: str) -> str:
    rows = TABLE2_SENT_LOST
    if mode == "delivered":
        terms = " + ".join(f"({s} − {l})" for s, l in rows.values())
        vals = [s - l for s, l in rows.values()]
        what = "sent − lost"
    else:
        terms = " + ".join(f"{s}" for s, _ in rows.values())
        vals = [s for s, _ in rows.values()]
        what = "sent"
    mean = sum(vals) / len(vals)
    return (f"mean over Table II's nine rows of {what} = [{terms}] / 9 = {sum(vals)} / 9 = "
            f"{mean:.1f} packets; at 592 bytes on the wire (the packet_size reading "
            f"'derived-592'; the edit uses the wire size of the reading in force) and "
            f"0.7 Mb/s: {mean:.1f} × 592 × 8 / 700 000 = {mean * 592 * 8 / RATE_BPS:.2f} s → "
            f"{run_length(592, mode):g} s (full utilisation from t = 0 assumed); with 552 "
            f"bytes on the wire {run_length(552, mode):g} s.")


UNITS = Choice("units", "In what units does the bottleneck count its queue, buffer and "
               "thresholds (and RTRED its risk threshold)?", (
    Reading("ns2-bytes", "byte mode, mean_pktsize 500: thresholds, risk_th and buffer in "
            "units of 500 bytes", "ns2",
            f"{NS2} Queue/RED bytes_ true, queue_in_bytes_ true, mean_pktsize_ 500: red.cc "
            "keeps the queue and its average in bytes and multiplies limit_ and the "
            "thresholds typed in packets by mean_pktsize_ (scenario 1: min_th 6 000, max_th "
            "12 500, buffer 15 000 bytes), and bytes_ scales the drop probability by "
            "size/500. RTRED was built inside ns-2's RED, so its risk threshold, typed in "
            "packets like the others, is compared the same way (28 x 500 = 14 000 bytes "
            "against the queue in bytes): Table I's order min_th < max_th < risk_th < Buf. "
            "holds in one unit and the time-out area [risk_th, buffer] is 14 000-15 000 "
            "bytes. (Counting risk_th in 592-byte packets against a buffer of 500-byte units, "
            "as an earlier exclusion did, mixes units.)",
            apply=_red(bytes=True, queue_in_bytes=True, mean_pktsize=500)),
    Reading("packets", "packet mode: buffer, thresholds and risk_th in packets", "textbook",
            f"{FJ93}: the queue, its average and the thresholds in packets (ns-2 bytes_ "
            "false, queue_in_bytes_ false; mean_pktsize_ 500 then only sets ptc, for the "
            "automatic w_q and the idle-time decay); the paper's Table I and Table II count "
            "packets.",
            apply=_red(bytes=False, queue_in_bytes=False, mean_pktsize=500)),
))

GENTLE = Choice("gentle", "Does RED have the gentle region between max_th and 2·max_th?", (
    Reading("on", "gentle_ true", "ns2",
            f"{NS2} Queue/RED gentle_ true (changed from false on 23 April 2001): p rises "
            "from max_p to 1 between max_th and 2·max_th. The paper sets nothing else "
            "(§IV-A names Gentle RED as 'an additional strategy' but does not say it was "
            "turned off).", apply=_red(gentle=True)),
    Reading("off", "no gentle region (ns-2's Adaptive RED keeps it)", "textbook",
            f"{FJ93} and Feng et al. 1999 (the paper's [16]): p = 1 above max_th; ns-2's "
            "Adaptive RED row stays gentle as in Floyd, Gummadi & Shenker 2001.",
            apply=_gentle_textbook),
))

W_Q = Choice("w_q", "RED's queue weight w_q (the paper gives none)", (
    Reading("auto", "automatic (q_weight_ -1): 0.0057 here", "ns2",
            f"{NS2} Queue/RED q_weight_ -1: w_q = 1 − exp(−1/(10·rtt·ptc)), rtt = "
            "max(0.1, 3·(delay + 1/ptc)), ptc = 0.7 Mb/s / (8 × 500 B) = 175/s: 0.0057.",
            apply=_red(w_q="auto")),
    Reading("0.002", "w_q = 0.002", "textbook", f"{FJ93}: w_q = 0.002 in its simulations.",
            apply=_red(w_q=0.002)),
))

PACKET_SIZE = Choice("packet_size", "What is '552 bytes packet size' on the wire?", (
    Reading("derived-592", "552-byte payload + 40-byte header = 592 bytes", "derived",
            "Table II's 'Average Delay Time' equals packets sent × 592 × 8 / 700 000 in all "
            "nine rows (to 7-9 digits), so the data packets were 592 bytes at the "
            "bottleneck: ns-2's Agent/TCP packetSize_ 552 (the tutorial script's `set "
            "packetSize_ 552`) plus its 40-byte tcpip_base_hdr_size_.",
            set={"tcp.packet_size": 552, "tcp.header": 40},
            arithmetic=("delay / sent: 122.85184 / 18158 = 0.00676571 = 592 × 8 / 700 000 "
                        "(= 0.00676571); 119.259245 / 17627 = 0.00676571; with 552 bytes on "
                        "the wire it would be 552 × 8 / 700 000 = 0.00630857."),
            uses=("Table II: Average Delay Time and No. of Propagated Packets, nine rows",)),
    Reading("wire-552", "552 bytes on the wire (512 payload + 40 header)", "text",
            "§V: 'with a 552 bytes packet size' read as the packet's size on the wire.",
            set={"tcp.packet_size": 512, "tcp.header": 40}),
))

TCP = Choice("tcp", "Which TCP do the sources run (the paper names none for its runs)?", (
    Reading("tahoe", "Agent/TCP (Tahoe)", "ns2",
            f"{NS2}: a script that asks for a TCP agent and names no variant writes `new "
            "Agent/TCP`, which is Tahoe (no fast recovery).", set={"tcp.variant": "tahoe"}),
    Reading("reno", "TCP Reno", "textbook",
            "The paper's references [3] (Allman, Paxson & Stevens, 'TCP Congestion "
            "Control') and [4] (RFC 2001: slow start, fast retransmit, fast recovery) "
            "describe Reno; §IV-A: 'the TCP source algorithm, such as Reno'; and "
            f"{TUTORIAL} uses Agent/TCP/Reno.", set={"tcp.variant": "reno"}),
))

WINDOW = Choice("window", "The sources' advertised window (the paper gives none)", (
    Reading("20", "window_ 20 packets", "ns2", f"{NS2} Agent/TCP window_ 20.",
            set={"tcp.window": 20}),
    Reading("8000", "window_ 8000 packets (never binding)", "text",
            f"{TUTORIAL}: its DropTail examples set `window_ 8000` on every source (the "
            "variant with random access delays leaves window_ at 20).",
            set={"tcp.window": 8000}),
))

DELAYED_ACK = delayed_ack_choice(f"{NS2}: as in the tutorial script,",
                                 question="Does the sink delay its ACKs?")

BETWEEN = Choice("between", "RTRED's max_p where the paper gives no rule (actual queue in the "
                 "safe area, or in [min_th, max_th] with the average outside)", (
    Reading("keep", "max_p kept as it was", "text",
            "§IV-B gives three rules only (q > risk_th: initial max_p; q < min_th: max_p/5; "
            "q and avg in [min_th, max_th]: max_p/2); keeping max_p elsewhere moves it only "
            "on those rules, as Fig. 6's description ('fluctuates between the initial max_p "
            "parameter and max_p/5').", apply=_between("keep")),
    Reading("half", "max_p/2 there", "text",
            "§VI: RTRED 'checks the average and the actual queue sizes in the normal area, "
            "controlling congestion by reducing max_p to half' read as covering every "
            "case not in the other two rules.", apply=_between("half")),
    Reading("initial", "the initial max_p there", "text",
            "Fig. 2's areas: only the unfair and normal areas lower max_p; elsewhere RED "
            "works with its configured max_p.", apply=_between("initial")),
))

DELAY_METRIC = Choice("delay_metric", "What is Table II's 'Average Delay Time (ms)'?", (
    Reading("tx-time", "packets sent × one packet's transmission time (in s)", "derived",
            "In all nine rows the published value equals the packets sent times the "
            "transmission time of a 592-byte packet at 0.7 Mb/s, in seconds though labelled "
            "ms: it carries no information beyond 'No. of Propagated Packets' (the cells "
            "are shown, but not counted when the packets sent are an input).",
            analysis={DELAY_METRIC_KEY: "tx-time"},
            arithmetic=("18158 × 592 × 8 / 700 000 = 122.85184 (published 122.85184); "
                        "17627 × 592 × 8 / 700 000 = 119.259246 (published 119.259245); "
                        "18005 × 592 × 8 / 700 000 = 121.816686 (published 121.816685)."),
            uses=("Table II: Average Delay Time and No. of Propagated Packets, nine rows",)),
    Reading("e2e", "mean end-to-end delay of the data packets received (ms)", "text",
            "§VI: 'The average delay time is calculated for the actual amount of packets "
            "queued at the gateway rather than the average queue size value': a per-packet "
            "delay, here source to sink. It cannot give the published values: a 55-62 "
            "packet queue alone (scenario 2) waits 370-420 ms at 6.77 ms a packet, yet the "
            "published delays are 119-124 ms in every scenario.",
            analysis={DELAY_METRIC_KEY: "e2e"}),
))

RUN_LENGTH = Choice("run_length", "How long is a run (the paper does not say)?", (
    Reading("delivered", "the time to carry sent − lost at the wire size: 118.2 s",
            "derived",
            "Packets sent minus packets lost (the packets that crossed the bottleneck) is "
            "17 448-17 499 in all nine rows of Table II: the bottleneck carried the same "
            "number in every run, which at 0.7 Mb/s and full utilisation takes the run "
            "length. 'No. of Propagated Packets' and 'Loss Rate' are then inputs, not "
            "checks.", apply=_run_length("delivered"), arithmetic=_arith("delivered"),
            uses=("Table II: No. of Propagated Packets, nine rows",
                  "Table II: Loss Rate (Packet), nine rows")),
    Reading("sent", "the time to carry every packet sent: 121.6 s", "derived",
            "'No. of Propagated Packets' read as the packets the bottleneck transmitted "
            "(every sent packet crossing it): then the packets sent alone give the run "
            "length (less consistent: 17 627-18 303 across the rows).",
            apply=_run_length("sent"), arithmetic=_arith("sent"),
            uses=("Table II: No. of Propagated Packets, nine rows",)),
))

#: The choices in the order their edits are applied.
CHOICES: List[Choice] = [UNITS, GENTLE, W_Q, PACKET_SIZE, TCP, WINDOW, DELAYED_ACK, BETWEEN,
                         DELAY_METRIC, RUN_LENGTH]


def choices() -> List[Choice]:
    return list(CHOICES)
