"""Why each metric pair of the linux stack's ns-3 table (aqmsim.ns3netlinux) misses:
(case, metric) -> the cause, as traced (docs/ns3-network-linux.md says how)."""

# Short labels for the table; docs/ns3-network-linux.md explains each under its heading.
_CUBIC = "[ns-3's NextSeg resends data in flight](#cubic-on-the-100-ms-path-ns-3s-nextseg-resends-data-in-flight-reproduced-with-ns3_quirks)"

_BBR_DEFAULT = "[ns-3's departures, not aqmsim's default](#bbr-ns-337s-tcpbbr-starves-all-but-one-flow-reproduced-with-ns3_quirks)"

MISSES = {
    # DCTCP's two delays left this list when the bottleneck got ns-3's 1-packet device queue
    # (device_queue = 1); the CUBIC qdelay_mean_ms pairs when timestamps went on by default.
    # CUBIC on the 100 ms path at aqmsim's defaults: ns-3's NextSeg rule (3) resends segments
    # merely in flight, reproduced only under ns3_quirks (the cubic-*-20f-100ms-quirks cases
    # agree on every pair)
    ("cubic-codel-20f-100ms", "qdelay_mean_ms"): _CUBIC,
    ("cubic-codel-20f-100ms", "drops"): _CUBIC,
    ("cubic-pie-20f-100ms", "drops"): _CUBIC,
    # BBR v1 at aqmsim's defaults: ns-3's collapse is two ns-3 departures from RFC 6675 and
    # Linux, reproduced only under ns3_quirks (the bbr-codel case): without them the flows
    # share the link
    **{("bbr-codel-default", m): _BBR_DEFAULT for m in ("utilisation", "qdelay_mean_ms", "qdelay_p99_ms",
                                                        "drops", "goodput_g0_mbps", "jain")},
}
