"""Why each metric pair of the linux stack's ns-3 table (aqmsim.ns3netlinux) misses:
(case, metric) -> the cause, as traced (docs/ns3-network-linux.md says how)."""

# Short labels for the table; docs/ns3-network-linux.md explains each under its heading.
_DEVICE = "[ns-3's device queue](#dctcp-ns-3s-one-packet-device-queue)"
_CUBIC = "[CUBIC's windows, not traced](#cubic-on-the-100-ms-path-larger-windows-in-ns-3-cause-not-found)"

MISSES = {
    ("dctcp-codel-ce1ms", "qdelay_mean_ms"): _DEVICE,
    ("dctcp-codel-ce1ms", "qdelay_p99_ms"): _DEVICE,
    ("cubic-codel-20f-100ms", "qdelay_mean_ms"): _CUBIC,
    ("cubic-pie-20f-100ms", "qdelay_mean_ms"): _CUBIC,
    ("cubic-pie-20f-100ms", "drops"): _CUBIC,
}
