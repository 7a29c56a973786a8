"""Why each metric pair of the linux stack's ns-3 table (aqmsim.ns3netlinux) misses:
(case, metric) -> the cause, as traced (docs/ns3-network-linux.md says how)."""

# Short labels for the table; docs/ns3-network-linux.md explains each under its heading.
_DEVICE = "[ns-3's device queue](#dctcp-ns-3s-one-packet-device-queue)"
_CUBIC = "[CUBIC's windows, not traced](#cubic-on-the-100-ms-path-larger-windows-in-ns-3-cause-not-found)"
_BBR = "[ns-3's BBR collapses](#bbr-ns-337s-tcpbbr-starves-all-but-one-flow)"

MISSES = {
    ("dctcp-codel-ce1ms", "qdelay_mean_ms"): _DEVICE,
    ("dctcp-codel-ce1ms", "qdelay_p99_ms"): _DEVICE,
    # the two CUBIC qdelay_mean_ms pairs left this list when the linux stack's timestamps
    # went on by default, as ns-3's: 0.88 and 0.89 of ns-3's became 0.92 and 0.91
    ("cubic-pie-20f-100ms", "drops"): _CUBIC,
    **{("bbr-codel", m): _BBR for m in ("utilisation", "qdelay_mean_ms", "qdelay_p99_ms", "drops",
                                          "goodput_g0_mbps", "jain")},
    **{("bbr-fq_codel", m): _BBR for m in ("utilisation", "qdelay_mean_ms", "qdelay_p99_ms", "drops",
                                             "goodput_g0_mbps", "jain")},
}
