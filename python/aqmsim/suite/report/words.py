"""The suite report's words: every label and unit it prints comes from the metric registry
(:mod:`aqmsim.metrics`); the few quantities the report derives itself (a per-packet
queueing delay on a CDF's axis, the goodput of the TCP flows, the UDP flows' delay, the
RTT-fairness goodput ratio, a transfer's size and completion time until the engine
registers them) are defined here once, as
:class:`~aqmsim.metrics.Metric` entries, so that a figure, a table and the Markdown say
the same thing."""

from __future__ import annotations

from typing import Dict

from ...metrics import TABLES, Metric
from ...report.sweep_figures import metric_of

__all__ = ["flow_metric", "metric", "QDELAY", "CDF_FRACTION", "GOODPUT_RATIO", "TCP_GOODPUT",
           "DELAY_FIRST", "DELAY_SECOND", "PAIR_KEYS",
           "RT_DELAY_P99", "DERIVED", "TCP_APPS", "X_KEY", "Y_KEY", "Y_FALLBACK", "TABLE_KEYS",
           "DROP_KEYS"]

#: The delay–goodput graph's axes (RFC 7928 §2.7): queueing delay against the goodput of
#: the TCP flows (the engine's ``goodput_bps`` sums every flow, a UDP sender's included,
#: which would put every discipline at the UDP rate in the unresponsive-sender scenario).
X_KEY, Y_KEY = "mean_queueing_delay_s", "tcp_goodput_bps"
#: The graph's y when no run kept its per-flow table (so the TCP flows are not known).
Y_FALLBACK = "goodput_bps"
#: The ``flows`` table's ``app`` values of TCP flows (the others, ``cbr`` and ``onoff``,
#: are UDP).
TCP_APPS = ("ftp", "web")
#: The per-scenario table's metrics (those the runs have), before the scenario's focus.
TABLE_KEYS = ("mean_queueing_delay_s", "qdelay_p99_s", "goodput_bps", "utilisation",
              "loss_ratio", "jain_fairness")
#: Drop reasons and marks, drawn side by side per discipline.
DROP_KEYS = ("drops_early", "drops_forced", "drops_overflow", "marks")

QDELAY = Metric("queueing_delay", "queueing delay", "ms",
                "The time from a packet entering the bottleneck's queue to the start of its "
                "transmission; the CDF's delay at each quantile level is averaged over the "
                "seeds.", scale=1e3, stored="s", higher_is_better=False)
CDF_FRACTION = Metric("cdf", "fraction of packets ≤ delay", "",
                      "The quantile level q of the bottleneck's queueing-delay distribution.",
                      hi=1.0, decimals=2, stored="ratio")
GOODPUT_RATIO = Metric("goodput_ratio", "goodput ratio, second flow / first flow", "",
                       "The second long-lived TCP flow's goodput divided by the first's "
                       "(1: a fair share; below 1: the second flow gets less — in §6 the one "
                       "whose RTT the variants change, in §4.5 the ECN-capable or L4S one).",
                       decimals=3, stored="ratio")
DELAY_FIRST = Metric("delay_first_s", "mean one-way delay of the first flow", "ms",
                     "The first long-lived TCP flow's mean end-to-end (one-way) delay of its "
                     "data packets: the path's 27 ms plus serialisation plus the queueing it "
                     "meets (in §4.5 the non-ECN or Classic flow; under DualPI2 the C queue).",
                     scale=1e3, stored="s", higher_is_better=False)
DELAY_SECOND = Metric("delay_second_s", "mean one-way delay of the second flow", "ms",
                      "The second long-lived TCP flow's mean end-to-end (one-way) delay "
                      "(in §4.5 the ECN-capable or L4S flow; under DualPI2 the L queue).",
                      scale=1e3, stored="s", higher_is_better=False)

TCP_GOODPUT = Metric("tcp_goodput_bps", "goodput of the TCP flows", "Mb/s",
                     "Σ over the TCP flows (long-lived and web transfers) of the new in-order "
                     "payload bits delivered per second of the run; UDP flows (constant-rate "
                     "and on/off) are left out. Equal to the goodput when every flow is TCP.",
                     scale=1e-6, stored="b/s", higher_is_better=True)
RT_DELAY_P99 = Metric("rt_delay_p99_s", "99th-percentile delay of the UDP flows", "ms",
                      "The largest of the UDP (constant-rate, on/off) flows' 99th-percentile "
                      "end-to-end delays: what a real-time flow sharing the bottleneck sees; "
                      "none in a scenario without UDP flows.", scale=1e3, stored="s",
                      higher_is_better=False)
#: The report's own per-run quantities (computed from a run's ``flows`` table), by key: a
#: scenario's ``focus`` may name them as it names summary metrics.
DERIVED: Dict[str, Metric] = {m.key: m for m in (TCP_GOODPUT, RT_DELAY_P99, GOODPUT_RATIO,
                                                  DELAY_FIRST, DELAY_SECOND)}
#: Per-flow quantities of a pair of long-lived flows, computed only where a scenario's
#: focus names them (as the goodput ratio).
PAIR_KEYS = ("goodput_ratio", "delay_first_s", "delay_second_s")


def metric(key: str) -> Metric:
    """The entry of a per-run key: the report's own (:data:`DERIVED`) or the registry's."""
    return DERIVED.get(key) or metric_of(key)


#: Per-flow columns of web transfers, as the engine's traffic models add them; used when
#: the registry does not (yet) have them.
_FLOW_FALLBACK: Dict[str, Metric] = {
    "fct_s": Metric("fct_s", "flow completion time", "ms",
                    "From the start of a transfer (its SYN) to the ACK of its last byte "
                    "(RFC 7928 §2.1); transfers that did not finish are left out.",
                    scale=1e3, stored="s", higher_is_better=False),
    "size_bytes": Metric("size_bytes", "transfer size", "kB",
                         "Bytes the transfer carries (1 kB = 1000 bytes).", scale=1e-3,
                         stored="bytes", decimals=1),
}


def flow_metric(key: str) -> Metric:
    """The registry's entry of a ``flows`` column, else the suite's own."""
    return TABLES["flows"].get(key) or _FLOW_FALLBACK[key]
