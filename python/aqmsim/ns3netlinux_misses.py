"""Why each metric pair of the linux stack's ns-3 table (aqmsim.ns3netlinux) misses:
(case, metric) -> the cause, as traced (docs/ns3-network-linux.md)."""

MISSES = {}
