"""NewReno as a Python congestion control: RFC 5681 with appropriate byte counting
(RFC 3465, L = 1 SMSS), as ns-3.37's ``TcpNewReno`` and the built-in ``variant =
"newreno"`` of the linux stack. Use it as ``cc_class = "aqmsim.plugin.examples.newreno:NewReno"``;
``NewRenoNs2`` is ns-2's arithmetic, for ``stack = "ns2"``.
Windows are in bytes (linux stack)."""

from aqmsim.plugin import CongestionControl


class NewReno(CongestionControl):
    def on_ack(self, tcp, acked):
        # slow start: one MSS per ACK that acknowledges anything
        if tcp.cwnd < tcp.ssthresh and acked >= 1:
            tcp.cwnd += tcp.mss
            acked -= 1
        # congestion avoidance: MSS*MSS/cwnd bytes per ACK (at least one byte)
        if tcp.cwnd >= tcp.ssthresh and acked > 0:
            tcp.cwnd += max(1, int(tcp.mss * tcp.mss / tcp.cwnd))

    def ssthresh(self, tcp):
        # half the bytes in flight, at least two segments
        return max(2 * tcp.mss, tcp.in_flight // 2)


class NewRenoNs2(CongestionControl):
    """NewReno's window arithmetic as ns-2's ``Agent/TCP/Newreno`` does it (``stack =
    "ns2"``: windows in packets; the agent keeps its recovery and ``dupwnd``)."""

    def on_ack(self, tcp, acked):
        # ns-2's opencwnd: one packet per new ACK in slow start, 1/cwnd in avoidance
        if tcp.cwnd < tcp.ssthresh:
            tcp.cwnd += 1
        else:
            tcp.cwnd += 1 / tcp.cwnd

    def ssthresh(self, tcp):
        # half the window in use (ns-2's halfwin: min(cwnd + dupwnd, window) / 2)
        return tcp.in_flight / 2
