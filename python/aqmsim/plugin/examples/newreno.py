"""NewReno as a Python congestion control: RFC 5681 with appropriate byte counting
(RFC 3465, L = 1 SMSS), as ns-3.37's ``TcpNewReno`` and the built-in ``variant =
"newreno"`` of the linux stack. Use it as ``cc_class = "aqmsim.plugin.examples.newreno:NewReno"``.
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
