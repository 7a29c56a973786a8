"""The metric registry: what every number aqmsim reports means, and how to print it.

One entry per summary key (``Results.summary``, a sweep store's metric columns) and per
numeric column of the tables a sweep can keep (``flows``, ``queue``, ``links``): its label,
the unit it is printed in, the factor from the stored SI value to that unit, the range its
values (and so any interval drawn around them) can take, whether higher is better, and its
definition. Figures, tables and ``docs/metrics.md`` take their words from here, so no raw
key reaches a reader and no two places define a metric differently.

>>> from aqmsim.metrics import metric
>>> m = metric("mean_queueing_delay_s")
>>> m.axis_label, m.display(0.0125), m.text(0.0125)
('mean queueing delay (ms)', 12.5, '12.50')

``python -m aqmsim.metrics > docs/metrics.md`` writes the docs page (a test checks that
the checked-in page is what :func:`markdown` gives).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

__all__ = ["Metric", "SUMMARY", "TABLES", "metric", "label", "axis_label", "markdown",
           "SKETCH_ALPHA"]

INF = math.inf


@dataclass(frozen=True)
class Metric:
    """One metric. ``lo``/``hi`` bound the stored (SI) value: a confidence interval drawn
    around a mean is clipped to them (a Jain index of 0.99 ± 0.03 is drawn up to 1)."""

    key: str
    label: str
    #: The unit as printed ("ms", "Mb/s", "%", "packets"; "" for a pure number).
    unit: str
    definition: str
    #: Display value = stored value × scale (s → ms: 1e3; ratio → %: 100).
    scale: float = 1.0
    lo: float = 0.0
    hi: float = INF
    #: True: higher is better; False: lower is better; None: neither (a count, a setting).
    higher_is_better: Optional[bool] = None
    #: Decimals of the fixed-point display value in tables.
    decimals: int = 2
    #: The unit the engine stores it in (SI; "" for counts and ratios).
    stored: str = ""
    #: Relative error of one run's value as the engine estimates it (a DDSketch quantile:
    #: :data:`SKETCH_ALPHA`); 0 for an exact value. See :meth:`half_width`.
    rel_error: float = 0.0

    @property
    def axis_label(self) -> str:
        """``label (unit)``, or the label alone for a pure number."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    def display(self, value: float) -> float:
        """The stored value in display units."""
        return float(value) * self.scale

    @property
    def display_range(self) -> Tuple[float, float]:
        return self.lo * self.scale, self.hi * self.scale

    def clip(self, low: float, high: float) -> Tuple[float, float]:
        """An interval [low, high] (display units) cut to the metric's range."""
        a, b = self.display_range
        return max(low, a), min(high, b)

    def half_width(self, mean: float, half: float) -> float:
        """The half-width of the interval printed or drawn around ``mean`` (stored units):
        ``half`` (the 95 % t interval over seeds) plus the estimator's own resolution,
        ``rel_error / (1 − rel_error) × |mean|``. A DDSketch quantile v is within α of a
        true value x of that rank (|v − x| ≤ α·x, so |v − x| ≤ α/(1 − α)·v), and seeds
        whose values fall in one sketch bucket give a t half-width of 0: the interval is
        never narrower than the sketch can tell (37.25 ± 0.38 ms, not ± 0.00). The two
        are added, not combined in quadrature: the sketch's error need not average out
        over seeds (the same bucket errs the same way). NaN ``half`` stays NaN."""
        if half is None or not math.isfinite(float(half)):
            return math.nan
        if self.rel_error > 0 and mean is not None and math.isfinite(float(mean)):
            return abs(float(half)) + self.rel_error / (1.0 - self.rel_error) * abs(float(mean))
        return abs(float(half))

    def text(self, value: float, half: Optional[float] = None) -> str:
        """The stored value in display units, fixed point (never an exponent); with
        ``half`` (stored units, the half-width of an interval) as ``mean ± half``, widened
        to the estimator's resolution (:meth:`half_width`)."""
        if value is None or not math.isfinite(float(value)):
            return "—"
        out = _fixed(self.display(value), self.decimals)
        if half is not None and math.isfinite(float(half)):
            out += " ± " + _fixed(self.display(self.half_width(value, half)), self.decimals)
        return out


def _fixed(x: float, decimals: int) -> str:
    # Thousands separated by a thin space so 19711125 packets stay readable, never 1.97e+07.
    return f"{x:,.{decimals}f}".replace(",", "\u2009")


def _m(key: str, label: str, unit: str, definition: str, **kw) -> Metric:
    return Metric(key, label, unit, " ".join(definition.split()), **kw)


#: Relative accuracy of the engine's delay quantiles (its DDSketch's α, ALPHA in
#: crates/aqmsim-core/src/monitor/delays.rs).
SKETCH_ALPHA = 0.01
_PKT = dict(decimals=0, stored="count")
_MS = dict(unit="ms", scale=1e3, stored="s", higher_is_better=False)
#: A delay quantile from the DDSketch: its interval carries the sketch's relative error.
_MSQ = dict(_MS, rel_error=SKETCH_ALPHA)
_MBPS = dict(unit="Mb/s", scale=1e-6, stored="b/s")
_PCT = dict(unit="%", scale=100.0, hi=1.0, stored="ratio")

_QUEUE = ("the bottleneck: the first link of `monitor.queues` (a dumbbell's R1->R2)")
_QDELAY = ("The queueing delay of a packet is the time from entering the bottleneck's "
           "queue to the start of its transmission (0 for a packet that found the link "
           "idle).")
_E2E = ("The end-to-end delay of a packet is the time from the sending agent handing it "
        "to the network to its arrival at the receiving agent, retransmissions included.")
_FCT = ("A web transfer's flow completion time (RFC 7928 §2.1) runs from its start (the "
        "SYN, with `tcp.syn`) to the arrival of the ACK of its last packet.")
_FCT_ALL = ("Over every transfer of the run, one not done by the end counted at the time "
            "it ran (the end minus its start), so the value is a lower bound when "
            "transfers_done < transfers: a slow transfer cannot drop out of it. Not a number "
            "when there was no transfer.")
_SKETCH = ("Only with `monitor.delays = true` (0 otherwise); quantiles come from a "
           "DDSketch and are within 1 % of a delay of that rank, the maximum is exact.")

_SUMMARY: List[Metric] = [
    _m("duration", "duration", "s", "Simulated time of the run.", stored="s"),
    _m("seed", "seed", "", "The run's random seed.", decimals=0, stored="count"),
    _m("events", "events", "events", "Events the engine processed (packet arrivals, "
       "transmissions, timers, the probability updates of PIE, FQ-PIE and DualPI2, samples): a measure of the "
       "run's work, and what `max_events` counts.", decimals=0),
    _m("bottleneck_arrivals", "arrivals", "packets", f"Packets that arrived at {_QUEUE}, "
       "dropped ones, SYNs and ACKs included. Every arrival is exactly one of departed, "
       "dropped, or still queued at the end.", **_PKT),
    _m("bottleneck_departures", "departures", "packets", "Packets that left the bottleneck's "
       "queue (their transmission started).", **_PKT),
    _m("bottleneck_drops", "drops", "packets", "Packets the bottleneck dropped, for any "
       "reason (early + forced + overflow).", higher_is_better=False, **_PKT),
    _m("drops_early", "early drops", "packets", "Random drops by the discipline "
       "(RED's probabilistic region; CoDel's and PIE's drop decisions).",
       higher_is_better=False, **_PKT),
    _m("drops_forced", "forced drops", "packets", "Drops because the discipline's average "
       "was above its hard limit (RED: avg above max_th, or above 2·max_th with gentle).",
       higher_is_better=False, **_PKT),
    _m("drops_overflow", "overflow drops", "packets", "Drops because the buffer was full.",
       higher_is_better=False, **_PKT),
    _m("marks", "ECN marks", "packets", "Packets the bottleneck marked (CE) instead of "
       "dropping, counted when marked.", **_PKT),
    _m("marks_departed", "ECN marks departed", "packets", "Marked packets that left the "
       "queue (ns-2's `pmarks_`): `marks` less those still waiting at the end.", **_PKT),
    _m("arrivals_ect0", "ECT(0) arrivals", "packets", "Arrivals at the bottleneck sent ECT(0) "
       "(classic ECN, RFC 3168), a packet CE-marked upstream counted as what it was sent as.",
       **_PKT),
    _m("arrivals_ect1", "ECT(1) arrivals", "packets", "Arrivals at the bottleneck sent ECT(1) "
       "(the L4S identifier, RFC 9331: `ect = \"ect1\"`, TCP Prague).", **_PKT),
    _m("marks_departed_ect0", "ECT(0) marks departed", "packets", "Marked packets that left "
       "the bottleneck and were sent ECT(0) (part of `marks_departed`).", **_PKT),
    _m("accecn_ce_packets", "AccECN CE feedback", "packets", "Segments the senders' AccECN "
       "counters (RFC 9768's ACE field, s.cep) reported CE-marked, all AccECN flows together "
       "(only when a flow negotiated AccECN: `tcp.accecn`).", **_PKT),
    _m("marks_departed_ect1", "ECT(1) marks departed", "packets", "Marked packets that left "
       "the bottleneck and were sent ECT(1) (part of `marks_departed`).", **_PKT),
    _m("bottleneck_queued_end", "queued at end", "packets", "Packets waiting in the "
       "bottleneck's queue at the end of the run (not counting the one on the wire).", **_PKT),
    _m("time_avg_queue_pkts", "time-average queue", "packets", "The integral of the queue "
       "length (packets waiting, not the one on the wire) over the run divided by its "
       "duration: what a paper's \"Ave Q size\" means. Not the discipline's EWMA `avg`.",
       higher_is_better=False, decimals=1),
    _m("time_avg_queue_bytes", "time-average queue", "kB", "The time-average queue in bytes "
       "(1 kB = 1000 bytes).", scale=1e-3, stored="bytes", higher_is_better=False),
    _m("max_queue_pkts", "largest queue", "packets", "The largest queue length reached in "
       "the run (packets waiting after an arrival): paper 004's buffer requirement.",
       higher_is_better=False, **_PKT),
    _m("mean_queueing_delay_s", "mean queueing delay", definition=f"{_QDELAY} Mean over "
       "the packets that departed (0 when none did).", **_MS),
    _m("utilisation", "utilisation", definition="Bits the bottleneck sent during the run "
       "divided by rate × duration: busy time over the run's time (a transmission running "
       "past the end counts up to the end only), so at most 100 %. With a `rate_schedule` "
       "the denominator is the bits the link could have sent, ∫ rate dt over the run.",
       higher_is_better=True, **_PCT),
    _m("utilisation_started", "utilisation (ns-2's)", "%", "ns-2's QueueMonitor "
       "definition: every packet whose transmission started in the run counts whole "
       "(bytes departed · 8 / (rate × duration)), so it can pass 100 % by one packet. With "
       "a `rate_schedule`, rate × duration is ∫ rate dt.",
       scale=100.0, higher_is_better=True, stored="ratio"),
    _m("bottleneck_rate_bps", "bottleneck rate", definition="The bottleneck link's rate "
       "(with a `rate_schedule`, its time average over the run).",
       **_MBPS),
    _m("loss_ratio", "loss ratio", definition="Packets the bottleneck dropped / packets "
       "that arrived at it (0 with no arrivals). ECN marks are not losses.",
       higher_is_better=False, **{**_PCT, "decimals": 3}),
    _m("throughput_bps", "throughput", definition="Σ over flows of the bits delivered to "
       "the sink per second of the run: packets on the wire (headers included), "
       "retransmissions and duplicates included.", higher_is_better=True, **_MBPS),
    _m("goodput_bps", "goodput", definition="Σ over flows of the new (in-order, "
       "first-time) payload bits delivered to the application per second of the run; "
       "for UDP/CBR flows, their throughput.", higher_is_better=True, **_MBPS),
    _m("packets_sent", "packets sent", "packets", "Σ over TCP flows of the data packets "
       "sent, retransmissions included.", **_PKT),
    _m("packets_retransmitted", "retransmissions", "packets", "Σ over TCP flows of the "
       "data packets sent again.", higher_is_better=False, **_PKT),
    _m("packets_received", "packets received", "packets", "(ns-2 runs only.) Σ over flows "
       "of the packets reaching the sink agent, duplicates included.", **_PKT),
    _m("timeouts", "timeouts", "timeouts", "Σ over TCP flows of the retransmission "
       "timeouts.", higher_is_better=False, decimals=0),
    _m("mean_e2e_delay_s", "mean end-to-end delay", definition=f"{_E2E} Mean over every "
       "packet that arrived, of every flow (0 when none did).", **_MS),
    _m("jain_fairness", "Jain's fairness index", "", "Jain's index of the long-lived TCP "
       "flows' throughputs x_i (web transfers, `app = \"web\"`, are not counted): "
       "(Σx)² / (n·Σx²), 1 when all are equal, 1/n when one flow has everything (1 with no "
       "long-lived TCP flow). Unfairness is 1 − fairness.", hi=1.0, stored="ratio",
       higher_is_better=True, decimals=3),
    _m("qdelay_p50_s", "median queueing delay", definition=f"{_QDELAY} {_SKETCH}", **_MSQ),
    _m("qdelay_p90_s", "90th-percentile queueing delay", definition=f"{_QDELAY} {_SKETCH}",
       **_MSQ),
    _m("qdelay_p99_s", "99th-percentile queueing delay", definition=f"{_QDELAY} {_SKETCH}",
       **_MSQ),
    _m("qdelay_max_s", "largest queueing delay", definition=f"{_QDELAY} {_SKETCH}", **_MS),
    _m("delay_p50_s", "median end-to-end delay", definition=f"{_E2E} Over every packet of "
       f"every flow. {_SKETCH}", **_MSQ),
    _m("delay_p90_s", "90th-percentile end-to-end delay", definition=f"{_E2E} Over every "
       f"packet of every flow. {_SKETCH}", **_MSQ),
    _m("delay_p99_s", "99th-percentile end-to-end delay", definition=f"{_E2E} Over every "
       f"packet of every flow. {_SKETCH}", **_MSQ),
    _m("delay_max_s", "largest end-to-end delay", definition=f"{_E2E} {_SKETCH}", **_MS),
    _m("jitter_s", "jitter", definition="The mean absolute difference of consecutive "
       "packets' end-to-end delays (mean |IPDV|, RFC 5481) of each flow, averaged over the "
       "flows with two packets or more. Only with `monitor.delays = true` (0 otherwise).",
       **_MS),
    _m("transfers", "web transfers", "transfers", "Web transfers (`app = \"web\"`) that "
       "the web sources started in the run (every one they drew).", decimals=0,
       stored="count"),
    _m("transfers_done", "web transfers done", "transfers", "Web transfers whose last "
       "packet was acknowledged within the run.", decimals=0, stored="count"),
    _m("fct_mean_s", "mean flow completion time", definition=f"{_FCT} The mean. "
       f"{_FCT_ALL}", **_MS),
    _m("fct_p50_s", "median flow completion time", definition=f"{_FCT} The median (linear "
       f"interpolation between order statistics). {_FCT_ALL}", **_MS),
    _m("fct_p99_s", "99th-percentile flow completion time", definition=f"{_FCT} The 99th "
       f"percentile (linear interpolation between order statistics). {_FCT_ALL}", **_MS),
    _m("rack_tlp_probes", "RACK-TLP loss probes", "packets", "Σ over the flows running "
       "RACK-TLP (`loss_detection = \"rack\"`) of the tail loss probes sent.", **_PKT),
    _m("rack_tlp_recoveries", "losses a probe repaired", "packets", "Σ over the RACK-TLP "
       "flows of the losses a tail loss probe repaired (RFC 8985 §7.4).", **_PKT),
    _m("rack_marked_lost", "RACK marked lost", "packets", "Σ over the RACK-TLP flows of "
       "the segments RACK deemed lost.", **_PKT),
    _m("prague_classic_flows", "Prague flows that met a Classic AQM", "flows", "Among the "
       "TCP Prague flows running the Classic ECN AQM detector (`prague_ecn_fallback` 1 or 2), "
       "those whose score ended at least one round past the L4S region (> 8: where the "
       "fall-back floors α; docs/tcp/prague.md).", decimals=0, stored="count"),
    _m("prague_classic_share", "rounds past the L4S region", definition="Over the same "
       "flows, the share of the rounds their detector scored that ended with the score past "
       "8 (the path taken as a Classic ECN AQM).", **{**_PCT, "decimals": 1}),
    _m("bbr_mode_changes", "BBR v1 mode changes", "changes", "Σ over the BBR v1 flows of "
       "their mode changes (STARTUP, DRAIN, PROBE_BW, PROBE_RTT; the first, entering "
       "STARTUP, included): the rows of the run's `phases` table with cc = bbr.",
       decimals=0, stored="count"),
    _m("bbr3_state_changes", "BBR v3 state changes", "changes", "Σ over the BBR v3 flows "
       "of their state changes (STARTUP … PROBE_BW_UP, PROBE_RTT; the first included): the "
       "rows of the run's `phases` table with cc = bbr3.", decimals=0, stored="count"),
    _m("mean_max_p", "mean max_p", "", "(ns-2 runs only.) Mean over the queue samples of "
       "RED's current max_p (it moves only under Adaptive RED).", hi=1.0, decimals=4,
       stored="ratio"),
    _m("wall_seconds", "wall time", "s", "Wall-clock seconds the engine took for the run "
       "(not simulated time).", stored="s", decimals=3),
]

_FLOWS: List[Metric] = [
    _m("start", "start", "s", "When the flow starts sending.", stored="s"),
    _m("stop", "stop", "s", "When the flow stops sending.", stored="s"),
    _m("sent", "packets sent", "packets", "Data packets the flow sent, retransmissions "
       "included.", **_PKT),
    _m("retransmitted", "retransmissions", "packets", "Data packets sent again.",
       higher_is_better=False, **_PKT),
    _m("timeouts", "timeouts", "timeouts", "Retransmission timeouts.",
       higher_is_better=False, decimals=0),
    _m("received", "packets received", "packets", "Packets reaching the sink, duplicates "
       "included.", **_PKT),
    _m("delivered", "packets delivered", "packets", "Packets delivered in order to the "
       "application (the SYN included).", **_PKT),
    _m("throughput_bps", "throughput", definition="Bits reaching the flow's sink per second "
       "of the run, headers and retransmissions included.", higher_is_better=True, **_MBPS),
    _m("goodput_bps", "goodput", definition="New in-order payload bits delivered per second "
       "of the run.", higher_is_better=True, **_MBPS),
    _m("mean_delay_s", "mean end-to-end delay", definition=f"{_E2E} Mean over the flow's "
       "packets that arrived.", **_MS),
    _m("queue_arrivals", "arrivals at the bottleneck", "packets", "The flow's packets that "
       "arrived at the first monitored queue.", **_PKT),
    _m("queue_drops", "drops at the bottleneck", "packets", "The flow's packets the first "
       "monitored queue dropped.", higher_is_better=False, **_PKT),
    _m("queue_marks", "ECN marks", "packets", "The flow's packets marked there, counted "
       "when marked.", **_PKT),
    _m("queue_marks_departed", "ECN marks departed", "packets", "The flow's marked packets "
       "that left the queue (ns-2's `pmarks_`).", **_PKT),
    _m("delay_p50_s", "median end-to-end delay", definition=f"{_E2E} {_SKETCH} NaN here "
       "without it.", **_MSQ),
    _m("delay_p90_s", "90th-percentile end-to-end delay", definition=f"{_E2E} {_SKETCH}",
       **_MSQ),
    _m("delay_p99_s", "99th-percentile end-to-end delay", definition=f"{_E2E} {_SKETCH}",
       **_MSQ),
    _m("delay_max_s", "largest end-to-end delay", definition=f"{_E2E} {_SKETCH}", **_MS),
    _m("jitter_s", "jitter", definition="Mean |IPDV| of the flow's consecutive packets "
       "(RFC 5481); NaN with fewer than two packets or without `monitor.delays`.", **_MS),
    _m("size_bytes", "transfer size", "kB", "A web transfer's size (it sends "
       "⌈size / packet_size⌉ full packets); 0 for other flows.", scale=1e-3, stored="bytes"),
    _m("fct_s", "flow completion time", definition=f"{_FCT} NaN when the transfer did not "
       "finish within the run, and for flows that are not web transfers.", **_MS),
]

_QUEUE_COLS: List[Metric] = [
    _m("t", "time", "s", "When the sample was taken.", stored="s"),
    _m("len_pkts", "queue length", "packets", "Packets waiting (not counting the one on "
       "the wire).", decimals=0),
    _m("len_bytes", "queue length", "kB", "Bytes waiting (1 kB = 1000 bytes).", scale=1e-3,
       stored="bytes"),
    _m("avg", "average queue (EWMA)", "packets", "The discipline's exponentially weighted "
       "average of the queue length. In byte mode it counts mean-packet-size units "
       "(`mean_pktsize` bytes each), not packets.", decimals=1),
    _m("p", "drop probability", "", "The discipline's current drop (or mark) probability.",
       hi=1.0, decimals=4),
    _m("max_p", "max_p", "", "RED's current max_p (it moves under Adaptive RED).", hi=1.0,
       decimals=4),
    _m("min_th", "min_th", "packets", "RED's lower threshold, in the units of `avg`.",
       decimals=1),
    _m("max_th", "max_th", "packets", "RED's upper threshold, in the units of `avg`.",
       decimals=1),
    _m("delay", "sojourn delay", definition="The delay CoDel or PIE acts on (0 for the RED "
       "family).", **_MS),
    _m("count", "CoDel drop count", "", "CoDel's drop count in the dropping state.",
       decimals=0),
]

_LINKS: List[Metric] = [
    _m("t", "time", "s", "Start of the bin.", stored="s"),
    _m("utilisation", "utilisation", definition="Bits sent in the bin / (rate × bin "
       "length).", higher_is_better=True, **_PCT),
]


def _index(ms: Iterable[Metric]) -> Dict[str, Metric]:
    out: Dict[str, Metric] = {}
    for m in ms:
        assert m.key not in out, m.key
        out[m.key] = m
    return out


#: Every summary key the engine (or an ns-2 run kept in a store) writes.
SUMMARY: Dict[str, Metric] = _index(_SUMMARY)
#: The numeric columns of the Results tables a sweep can keep.
TABLES: Dict[str, Dict[str, Metric]] = {
    "flows": _index(_FLOWS), "queue": _index(_QUEUE_COLS), "links": _index(_LINKS),
}


def metric(key: str, table: str = "summary") -> Metric:
    """The entry of summary key (or ``table`` column) ``key``; KeyError naming the known
    keys otherwise."""
    reg = SUMMARY if table == "summary" else TABLES.get(table)
    if reg is None:
        raise KeyError(f"table {table!r}: expected summary or one of {', '.join(TABLES)}")
    try:
        return reg[key]
    except KeyError:
        raise KeyError(f"{key!r} is not a {table} metric; known: {', '.join(reg)}") from None


def label(key: str, table: str = "summary") -> str:
    """The metric's label, or the key itself for a column the registry does not know
    (a metric a newer engine added: shown rather than lost)."""
    m = (SUMMARY if table == "summary" else TABLES.get(table, {})).get(key)
    return m.label if m is not None else key


def axis_label(key: str, table: str = "summary") -> str:
    """``label (unit)`` for an axis or a table heading; the key for an unknown column."""
    m = (SUMMARY if table == "summary" else TABLES.get(table, {})).get(key)
    return m.axis_label if m is not None else key


def _range_text(m: Metric) -> str:
    lo, hi = m.display_range
    f = (lambda x: "∞" if math.isinf(x) else f"{x:g}")
    return f"[{f(lo)}, {f(hi)}]" if math.isfinite(hi) else f"[{f(lo)}, ∞)"


def _better(m: Metric) -> str:
    return {True: "higher", False: "lower", None: "—"}[m.higher_is_better]


def _section(title: str, intro: str, reg: Dict[str, Metric]) -> List[str]:
    lines = [f"## {title}", "", intro, "",
             "| key | label | unit | stored as | range | better |", "|---|---|---|---|---|---|"]
    for m in reg.values():
        lines.append(f"| `{m.key}` | {m.label} | {m.unit or '—'} | {m.stored or 'number'} | "
                     f"{_range_text(m)} | {_better(m)} |")
    lines.append("")
    for m in reg.values():
        lines += [f"**`{m.key}`** — {m.definition}", ""]
    return lines


def markdown() -> str:
    """``docs/metrics.md``: every metric's label, unit, range and definition."""
    lines = [
        "# Metrics",
        "",
        "<!-- Generated by `python -m aqmsim.metrics > docs/metrics.md` from the registry "
        "in python/aqmsim/metrics.py: edit the registry, not this page. -->",
        "",
        "Every number aqmsim reports, what it means and how it is printed. Figures and "
        "reports label each metric as in the *label* and *unit* columns; the engine stores "
        "SI values (seconds, bits per second, ratios), and the unit column says how they "
        "are shown (s → ms, ratio → %). An interval around a mean is cut to the metric's "
        "range (a Jain index is never drawn above 1). *better*: which direction is an "
        "improvement, where one is.",
        "",
        "**Intervals of delay quantiles.** A median, 90th or 99th percentile delay comes "
        f"from a DDSketch whose relative error is α = {SKETCH_ALPHA:.0%}: the value is within "
        "α of a delay of that rank. Seeds whose quantiles fall in one sketch bucket print "
        "the same value, and their Student-t interval collapses to ± 0. An interval is "
        "never narrower than the estimator's own resolution, so wherever aqmsim prints or "
        "draws *mean ± half-width* of such a quantile (the RFC 7928 suite's tables and "
        "figures, a sweep report), the half-width is the 95 % t half-width over seeds "
        "plus α/(1 − α) × the mean (37.25 ms from five seeds in one bucket prints "
        "37.25 ± 0.38, not 37.25 ± 0.00). The largest delay is exact and gets no such term.",
        "",
        "From Python: `aqmsim.metrics.metric(\"goodput_bps\")` gives the entry "
        "(`.label`, `.unit`, `.scale`, `.definition`, `.text(value)`).",
        "",
        "Words used throughout: the **queue length** counts packets (or bytes) waiting in "
        "the buffer, not the one on the wire; the **average queue** `avg` is the "
        "discipline's EWMA of it, the **time-average queue** its integral over time "
        "divided by the time. A **drop reason** is *early* (the RED family's and PIE's "
        "random drops, the threshold queue's above its threshold; for CoDel and FQ-CoDel "
        "their control law's drops at dequeue, which `aqmsim run` labels so), *forced* "
        "(average above the hard limit: the RED family only) or *overflow* (buffer full; "
        "FQ-CoDel drops from the head of the longest flow queue). The **bottleneck** is the "
        "first link of `monitor.queues`.",
        "",
    ]
    lines += _section("Summary (`Results.summary`)", "One number per run: "
                      "`Results.summary`, `summary.json` of `aqmsim run --out`, and the "
                      "metric columns of a sweep's store.", SUMMARY)
    lines += _section("Per flow (`Results.flows`)", "One row per flow; kept by a sweep "
                      "with `series = [\"flows\"]`. Counts at the bottleneck are at the "
                      "first monitored queue.", TABLES["flows"])
    lines += _section("Queue samples (`Results.queue`)", "One row per sample "
                      "(`monitor.sample_interval`) of each monitored queue.",
                      TABLES["queue"])
    lines += _section("Link bins (`Results.links`)", "One row per bin "
                      "(`monitor.link_interval`) of each monitored link.", TABLES["links"])
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover - `python -m aqmsim.metrics > docs/metrics.md`
    import sys

    sys.stdout.write(markdown())
