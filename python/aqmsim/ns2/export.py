"""Scenario -> ns-2.35 Tcl script.

:func:`to_tcl` turns a scenario (the dict a TOML scenario file holds, see
``docs/scenario-reference.md``) into a script that ``ns`` runs as it is. The script builds
the same topology, queues, agents and applications, and at ``duration`` writes what the
cross-check compares (``summary.txt``: ``key value`` lines) into ``trace_dir``.

Rules the exporter keeps (``docs/ns2-faithfulness.md`` explains each):

* **Every parameter is written.** Each queue and each agent gets every parameter that
  matters set on the instance (``$q set thresh_ 5``), so the script does not depend on
  ns-2's class defaults. ``"auto"`` values become ns-2's own sentinels (``thresh_ 0``,
  ``q_weight_ -1``), so ns-2 resolves them itself.
* **Randomness is drawn here.** Uniform access delays and start times are drawn in
  Python from the seed before the script is written, one stream per component
  (:func:`component_rng`), and the script holds the drawn numbers. The only randomness
  left in ns-2 is its default RNG (RED's coin, TCP's ``boot_time_``), which the script
  puts on substream ``seed`` of MRG32k3a seed 1: independent streams per seed.
* **Links are simplex pairs.** Each direction is its own ``simplex-link`` with its own
  queue (what ``duplex-link`` does, but allowing a different discipline per direction).
* **Only what ns-2 2.35 has.** ``droptail``, ``red``, ``gentle`` (``gentle_ true``),
  ``ared`` (``adaptive_ 1``), ``red1``, ``red4`` and ``ecn_threshold`` with mark-tail
  (below) are exported; the other disciplines (:data:`NOT_IN_NS2`), RED's ``ecn_mode =
  "mark_front"`` and ``ecn_threshold``'s ``mark_front`` / ``drop_front`` raise
  :class:`Ns2ExportError` naming the field.
* **Paper 004's threshold ECN.** ``ecn_threshold`` with ``mode = "mark_tail"`` (mark the
  arrival when the packets waiting, counting it, exceed T) becomes ``Queue/RED`` on the
  instantaneous queue: ``q_weight_ 1`` (the average is the queue), ``maxthresh_`` T
  (p = 1 from there: ``gentle_ false``, ``wait_ false``), ``thresh_`` T − 1 (RED takes no
  decision on the first arrival above ``thresh_``; with T − 1 that arrival is one that
  would not be marked anyway), ``setbit_ true``, ``use_mark_p_ true`` with ``mark_p_ 2``
  (no forced drop above ``maxthresh_``: mark), ``limit_`` = ``limit`` (both count waiting
  packets). A packet that is not ECT is dropped where it would be marked, in both. Exact
  for T >= 3; T = 2 misses the arrival finding 2 waiting right after one finding at most
  1 (RED's ``qlen > 1``); T <= 1 is refused (:data:`THRESHOLD_VS_NS2`).
* **TCP without a SYN.** ns-2.35's ``output()`` adds the header to every packet but
  sequence 0; aqmsim's first data packet carries it. With ``syn = false`` and a header,
  the script sets ``packetSize_`` = payload + header and ``useHeaders_ false``, so every
  data packet has aqmsim's wire size (``tcpip_base_hdr_size_`` is still written).
* **The largest queue, on request.** ``max_queue=True`` (or ``ns2 = {measure =
  ["max_queue_pkts"]}`` in the scenario, which only the ns-2 column adds: it is not a field
  of aqmsim's scenarios) traces each monitored queue (``trace_<i>.tr``), from which
  :func:`aqmsim.ns2.trace.max_queue` reads aqmsim's ``max_queue_pkts``.
* **Paper 002's RED_1 and RED_4.** ``red1`` is plain RED with ``bytes_ false``: exported as
  ``Queue/RED`` with every parameter mapped as for ``red`` (its own defaults: ``gentle``,
  ``wait`` and ``queue_in_bytes`` false) — exact. ``max_pktsize`` plays no part in RED_1.
  ``red4`` becomes ns-2's byte-mode RED, ``bytes_ true`` with ``mean_pktsize_`` = M
  (``max_pktsize``, a whole number of bytes): ns-2's ``modify_p`` then takes
  ``count1 = count_bytes / mean_pktsize_`` and multiplies ``p`` by ``size / mean_pktsize_``,
  which is RED_4's law up to how the count is kept (:data:`RED4_VS_NS2`). ns-2's
  ``mean_pktsize_`` also sets RED's packet time constant (idle decay, automatic ``w_q`` and
  ``min_th``) and, with ``queue_in_bytes``, the byte unit of the thresholds and the limit,
  which in aqmsim come from ``mean_pktsize``: so the script sets ``mean_pktsize_`` to the
  scenario's ``mean_pktsize`` for ns-2's ``reset()`` at ``$ns run`` (which computes all of
  those) and switches it to M by an event at time 0, before any packet arrives
  (``limit_`` rescaled with it in byte mode, when limit·mean_pktsize/M is whole; otherwise
  the export is refused). With ``mean_pktsize = M`` no switch is written.
* **Per-flow counts at the bottleneck**, only when asked (``flow_monitor=True``): a flow
  monitor (``$ns makeflowmon Fid``, ``$ns attach-fmon``) on the first monitored link gives
  each flow's ``parrivals_``, ``pdrops_`` and ``pmarks_`` there (Results.flows'
  ``queue_arrivals``, ``queue_drops``, ``queue_marks``). Its snoop queues only count:
  ns-2's other results are the same with or without it.

>>> from aqmsim.ns2.export import to_tcl
>>> tcl = to_tcl(scenario_dict, seed=1, trace_dir="/tmp/run1")   # doctest: +SKIP
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = [
    "Ns2ExportError",
    "parse_rate",
    "parse_time",
    "component_rng",
    "draw",
    "Plan",
    "LinkPlan",
    "FlowPlan",
    "build_plan",
    "pin_draws",
    "to_tcl",
    "render_tcl",
    "TCP_DEFAULTS",
    "TCP_AGENTS",
    "NS2_QUEUE_CLASS",
    "NS2_ON_REQUEST",
    "NOT_IN_NS2",
    "RED4_VS_NS2",
    "THRESHOLD_VS_NS2",
    "normalize_queue",
    "ared_bottom",
]


class Ns2ExportError(ValueError):
    """The scenario cannot be written as an ns-2 script; the message names the field."""


# ---------------------------------------------------------------------------- units
_NUM = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*$")

# Multipliers, the same table as crates/aqmsim-core/src/scenario/units.rs.
_RATE_UNITS = {
    "": 1.0, "b": 1.0, "bps": 1.0, "bit": 1.0,
    "k": 1e3, "K": 1e3, "kb": 1e3, "Kb": 1e3, "kbps": 1e3, "Kbps": 1e3,
    "M": 1e6, "m": 1e6, "Mb": 1e6, "mb": 1e6, "Mbps": 1e6, "mbps": 1e6,
    "G": 1e9, "g": 1e9, "Gb": 1e9, "gb": 1e9, "Gbps": 1e9, "gbps": 1e9,
}
_TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _split(value: Any, what: str, where: str) -> Tuple[float, str]:
    if isinstance(value, bool):
        raise Ns2ExportError(f"{where}: expected a {what}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value), ""
    if isinstance(value, str):
        m = _NUM.match(value)
        if m:
            return float(m.group(1)), m.group(2)
    example = '"10Mb"' if what == "rate" else '"20ms"'
    raise Ns2ExportError(f"{where}: expected a {what} like {example}, got {value!r}")


def parse_rate(value: Any, where: str = "rate") -> float:
    """Bits per second from ``"10Mb"``, ``"1.5Mbps"``, ``"100Kb"``, ``"1Gb"`` or a number.

    k/K = 1e3, M = 1e6, G = 1e9; ``b`` and ``bps`` both mean bit/s (ns-2's ``MB`` = bytes
    is not accepted: scenario rates are always bits).
    """
    n, unit = _split(value, "rate", where)
    if unit not in _RATE_UNITS:
        raise Ns2ExportError(f"{where}: unknown rate unit in {value!r} (use b, Kb, Mb, Gb, e.g. \"10Mb\")")
    v = n * _RATE_UNITS[unit]
    if not (math.isfinite(v) and v > 0):
        raise Ns2ExportError(f"{where}: must be a positive rate, got {value!r}")
    return v


def parse_time(value: Any, where: str = "time") -> float:
    """Seconds from ``"20ms"``, ``"1.5s"``, ``"500us"``, ``"5ns"`` or a number."""
    n, unit = _split(value, "time", where)
    if unit not in _TIME_UNITS:
        raise Ns2ExportError(f"{where}: unknown time unit in {value!r} (use s, ms, us, ns, e.g. \"20ms\")")
    v = n * _TIME_UNITS[unit]
    if not (math.isfinite(v) and v >= 0):
        raise Ns2ExportError(f"{where}: must be a time >= 0, got {value!r}")
    return v


def component_rng(seed: int, component: str) -> random.Random:
    """The random stream of one component (``"access/3"``, ``"start/0"``) for ``seed``.

    Each component has its own stream (a string-seeded ``random.Random``, stable across
    Python runs and machines), so adding a host does not shift anyone else's draws.
    """
    return random.Random(f"aqmsim-ns2/{int(seed)}/{component}")


def draw(dist: Any, rng: random.Random, where: str) -> float:
    """A time from a distribution: a fixed time, or ``{uniform = [lo, hi]}`` (seconds)."""
    if isinstance(dist, Mapping):
        keys = set(dist)
        if keys != {"uniform"}:
            raise Ns2ExportError(f"{where}: a distribution is a time or {{uniform = [lo, hi]}}, got keys {sorted(keys)}")
        bounds = dist["uniform"]
        if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
            raise Ns2ExportError(f"{where}.uniform: expected [lo, hi], got {bounds!r}")
        lo = parse_time(bounds[0], f"{where}.uniform[0]")
        hi = parse_time(bounds[1], f"{where}.uniform[1]")
        if hi < lo:
            raise Ns2ExportError(f"{where}.uniform: hi ({hi}) must be >= lo ({lo})")
        return lo + (hi - lo) * rng.random()
    return parse_time(dist, where)


# ---------------------------------------------------------------------------- TCP
#: ns-2.35's defaults for the scenario's TCP table (printed from the binary).
TCP_DEFAULTS: Dict[str, Any] = {
    "variant": "reno",
    "packet_size": 1000,
    "header": 40,
    "window": 20,
    "window_init": 2,
    "syn": True,
    "delay_growth": True,
    "tick": 0.01,
    "min_rto": 0.2,
    "max_rto": 60.0,
    "rto_init": 3.0,
    "dupacks": 3,
    "max_burst": 0,
    "ecn": False,
    "limited_transmit": True,
    "ack_size": 40,
    "delayed_ack": False,
    "delack_interval": 0.1,
}
_TCP_TIMES = {"tick", "min_rto", "max_rto", "rto_init", "delack_interval"}
_TCP_BOOLS = {"syn", "delay_growth", "ecn", "limited_transmit", "delayed_ack"}

#: variant -> (sender class, sink class, sink class with delayed ACKs)
TCP_AGENTS: Dict[str, Tuple[str, str, str]] = {
    "tahoe": ("Agent/TCP", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "reno": ("Agent/TCP/Reno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1", "Agent/TCPSink/Sack1/DelAck"),
}


def _resolve_tcp(layers: Sequence[Tuple[Optional[Mapping[str, Any]], str]]) -> Dict[str, Any]:
    """Merge TCP tables (ns-2 defaults <- top-level <- group), checking every field."""
    out = dict(TCP_DEFAULTS)
    for table, where in layers:
        if table is None:
            continue
        if not isinstance(table, Mapping):
            raise Ns2ExportError(f"{where}: expected a table, got {table!r}")
        for k, v in table.items():
            w = f"{where}.{k}"
            if k not in TCP_DEFAULTS:
                raise Ns2ExportError(f"{w}: unknown TCP field (known: {', '.join(TCP_DEFAULTS)})")
            if k == "variant":
                if not isinstance(v, str) or v.lower() not in TCP_AGENTS:
                    raise Ns2ExportError(f"{w}: unknown TCP variant {v!r} (expected one of: {', '.join(TCP_AGENTS)})")
                v = v.lower()
            elif k in _TCP_TIMES:
                v = parse_time(v, w)
            elif k in _TCP_BOOLS:
                if not isinstance(v, bool):
                    raise Ns2ExportError(f"{w}: expected true or false, got {v!r}")
            else:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                    raise Ns2ExportError(f"{w}: expected a number >= 0, got {v!r}")
            out[k] = v
    return out


# ---------------------------------------------------------------------------- queues
_DROPTAIL_FIELDS = {"kind", "limit", "limit_bytes", "drop_front"}
_RED_FIELDS = {
    "kind", "limit", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "ecn", "ecn_mode",
    "mark_p", "bytes", "queue_in_bytes", "mean_pktsize", "target_delay",
}
#: Adaptive RED's own fields (ns-2 ``interval_``, ``alpha_``, ``beta_``, ``top_``, ``bottom_``).
_ARED_FIELDS = {"interval", "alpha", "beta", "top", "bottom"}

#: paper 002's RED_1 and RED_4 (``red1``, ``red4``): RED's fields without ``bytes`` (the
#: kind sets it), with ``max_pktsize`` (M).
_RED_K_FIELDS = (_RED_FIELDS - {"bytes"}) | {"max_pktsize"}

#: The disciplines ns-2 2.35 runs, and the ns-2 queue class of each (``red1`` exactly,
#: ``red4`` as the nearest ns-2 law: :data:`RED4_VS_NS2`).
NS2_QUEUE_CLASS: Dict[str, str] = {"droptail": "DropTail", "red": "RED", "gentle": "RED", "ared": "RED",
                                   "red1": "RED", "red4": "RED", "ecn_threshold": "RED"}

#: How ns-2's ``Queue/RED`` with ``bytes_ true`` and ``mean_pktsize_`` = M (the export of
#: ``red4``) differs from RED_4 (``queue/red.cc`` of ns-2.35: ``enque``, ``drop_early``,
#: ``modify_p``). p_b is the same; L the arriving packet's size.
RED4_VS_NS2: Tuple[str, ...] = (
    "count: ns-2 uses count1 = floor(count_bytes / M), an integer division, where count_bytes "
    "is the bytes of the arrivals since the last drop or mark INCLUDING the arriving packet "
    "(enque adds its size before drop_early); RED_4 uses the real sum of L_i/M over the "
    "arrivals kept since then, EXCLUDING the arriving one (added after the decision). After "
    "a drop, ns-2's count1 = floor(RED_4's count + L/M): with every packet of size M ns-2's "
    "count is RED_4's + 1 (ns-2's byte mode is then plain RED), with smaller packets up to "
    "one less than count + L/M",
    "first arrival with avg >= min_th (no decision, no drop in both): ns-2 sets count_bytes = "
    "L of that packet, RED_4 sets count = 1 (a whole M)",
    "the rest is the same: p_a = p_b / (1 - count * p_b) (1 once count * p_b >= 1; wait_'s "
    "uniform rule with wait), then p_a * L/M when p_a < 1, capped at 1; avg >= max_th "
    "(gentle off) drops every arrival; the count is reset by every drop or mark (early, "
    "forced, overflow)",
)

#: aqmsim disciplines that stock ns-2 2.35 does not have, and why.
NOT_IN_NS2: Dict[str, str] = {
    "rtred": "RTRED (paper 000) is not in stock ns-2 2.35",
    "qrtred": "QRTRED (paper 001) is not in stock ns-2 2.35",
    "red2": "RED_2 (paper 002: p_b weighted by L/M before the count correction) is not in "
            "stock ns-2 2.35",
    "red3": "RED_3 (paper 002: p_a weighted by L/M with a packet count) is not in stock ns-2 2.35 "
            "(bytes_ true weights p_a by L/mean_pktsize_ but counts bytes: that is RED_4's law)",
    "red5": "RED_5 (paper 002: weighted by (L/M)^2) is not in stock ns-2 2.35",
    "ared_feng": "aqmsim's Feng ARED is not stock ns-2's feng_adaptive_ 1 (which swaps the roles of "
                 "alpha_ and beta_, starts from an uninitialised status and does not keep max_p in "
                 "[1e-4, 1] as aqmsim does)",
}

#: ``ecn_threshold``'s fields (paper 004).
_THRESHOLD_FIELDS = {"kind", "threshold", "limit", "mode"}

#: How ns-2's ``Queue/RED`` set up as a threshold (the export of ``ecn_threshold`` with
#: ``mode = "mark_tail"``: ``q_weight_ 1``, ``thresh_`` T − 1, ``maxthresh_`` T, ``setbit_
#: true``, ``use_mark_p_ true``, ``mark_p_ 2``, ``gentle_ false``, ``wait_ false``) differs
#: from aqmsim's ``ecn_threshold`` (``queue/red.cc`` of ns-2.35: ``enque``, ``drop_early``).
#: n is the number of packets waiting when a packet arrives (the one on the wire not
#: counted); aqmsim marks the arrival when n + 1 > T.
THRESHOLD_VS_NS2: Tuple[str, ...] = (
    "T >= 3: none. With q_weight_ 1 RED's average is n itself (ave·0 + n); an arrival with "
    "n >= T = maxthresh_ gets p = 1 (gentle_ false), which modify_p keeps at 1 (count >= 1, "
    "wait_ false), so it is marked (ECT; mark_p_ 2 >= p, and use_mark_p_ true skips the forced "
    "drop above maxthresh_) or dropped (not ECT), as in aqmsim. RED decides nothing on the "
    "first arrival of an excursion (count/old: it only sets old = 1), so thresh_ is T − 1: "
    "the arrival that finds n = T − 1 sets old with p = 0 (u <= 0 never holds: ns-2's "
    "uniform is in (0, 1)), and since n grows by at most one per arrival, every arrival "
    "finding n >= T follows one that found n >= T − 1 >= 2 (qlen > 1) with old still 1",
    "T = 2: RED acts only on arrivals that find qlen > 1 waiting, so an arrival finding "
    "n = 2 right after one that found n <= 1 (which resets old) is not marked in ns-2 (aqmsim "
    "marks it); later arrivals with n >= 2 are marked as in aqmsim",
    "T <= 1 is refused (RED never marks an arrival that finds <= 1 packet waiting, and "
    "thresh_ 0 is ns-2's \"automatic\")",
    "a full buffer (n >= limit, RED's limit_ counts waiting packets as aqmsim's limit does) "
    "drops the arrival in both (ns-2 marks it first when n >= T, then drops it: the same "
    "packet is lost); ns-2 counts it a forced drop, aqmsim an overflow",
)


def _auto(v: Any, where: str) -> Optional[float]:
    if v is None or v == "auto":
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Ns2ExportError(f"{where}: must be a number or \"auto\", got {v!r}")
    return float(v)


def _bool(q: Mapping[str, Any], k: str, default: bool, where: str) -> bool:
    v = q.get(k, default)
    if not isinstance(v, bool):
        raise Ns2ExportError(f"{where}.{k}: expected true or false, got {v!r}")
    return v


def _number(q: Mapping[str, Any], k: str, default: float, ok, rule: str, where: str) -> float:
    v = q.get(k, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not ok(float(v)):
        raise Ns2ExportError(f"{where}.{k}: must be {rule}, got {v!r}")
    return float(v)


def _limit(q: Mapping[str, Any], where: str) -> int:
    limit = q.get("limit", 50)
    # a resolved scenario may hold 50.0: accept whole numbers
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit < 1 or float(limit) != int(limit):
        raise Ns2ExportError(f"{where}.limit: must be an integer >= 1 packets, got {limit!r}")
    return int(limit)


def normalize_queue(q: Optional[Mapping[str, Any]], where: str) -> Dict[str, Any]:
    """A queue table with every parameter present (defaults are ns-2 2.35's).

    "auto" values stay ``None`` (the script writes ns-2's sentinel for them), except
    Adaptive RED's ``bottom``, which needs the link rate and is resolved in
    :func:`_queue_tcl`. ``kind`` is one of :data:`NS2_QUEUE_CLASS`; the disciplines of
    :data:`NOT_IN_NS2` and any other kind raise :class:`Ns2ExportError` naming the field.
    """
    if q is None:
        return {"kind": "droptail", "limit": 50, "limit_bytes": None, "drop_front": False}
    if not isinstance(q, Mapping):
        raise Ns2ExportError(f"{where}: expected a queue table, got {q!r}")
    kind = q.get("kind")
    if not isinstance(kind, str):
        raise Ns2ExportError(f"{where}.kind: missing (one of: {', '.join(NS2_QUEUE_CLASS)})")
    kind = kind.lower()
    if kind in NOT_IN_NS2:
        raise Ns2ExportError(
            f"{where}.kind: discipline {kind!r} is not exportable to ns-2: {NOT_IN_NS2[kind]} "
            f"(exportable: {', '.join(NS2_QUEUE_CLASS)})"
        )
    if kind not in NS2_QUEUE_CLASS:
        raise Ns2ExportError(
            f"{where}.kind: discipline {kind!r} has no ns-2 2.35 equivalent the exporter knows "
            f"(exportable: {', '.join(NS2_QUEUE_CLASS)})"
        )
    if kind == "droptail":
        unknown = set(q) - _DROPTAIL_FIELDS
        if unknown:
            raise Ns2ExportError(f"{where}.{sorted(unknown)[0]}: unknown field for droptail")
        if "limit" in q and "limit_bytes" in q and q["limit_bytes"] is not None:
            raise Ns2ExportError(f"{where}.limit_bytes: give either limit or limit_bytes, not both")
        lb = q.get("limit_bytes")
        if lb is not None and (isinstance(lb, bool) or not isinstance(lb, int) or lb < 1):
            raise Ns2ExportError(f"{where}.limit_bytes: must be an integer >= 1, got {lb!r}")
        return {"kind": "droptail", "limit": _limit(q, where), "limit_bytes": lb,
                "drop_front": _bool(q, "drop_front", False, where)}

    if kind == "ecn_threshold":
        return _threshold_queue(q, where)

    # The RED family: red, gentle (red with gentle_ true), ared (red with adaptive_ 1), and
    # paper 002's red1 (red with bytes_ false) and red4 (byte mode with mean_pktsize_ = M).
    red_k = kind in ("red1", "red4")
    allowed = _RED_K_FIELDS if red_k else _RED_FIELDS | (_ARED_FIELDS if kind == "ared" else set())
    unknown = set(q) - allowed
    if unknown:
        k = sorted(unknown)[0]
        owner = " (it is a parameter of ared)" if k in _ARED_FIELDS else ""
        if red_k and k == "bytes":
            owner = " (RED_k's size weighting replaces ns-2's bytes_, as in aqmsim)"
        raise Ns2ExportError(f"{where}.{k}: unknown field for {kind}{owner}")
    limit = _limit(q, where)
    max_p = _number(q, "max_p", 0.1, lambda v: 0 < v <= 1, "in (0, 1]", where)
    # ns-2's mark_p_: mark while p1 < mark_p_; mark_p_ 2 (any value > 1) marks always.
    mark_p = _number(q, "mark_p", 0.1, lambda v: 0 < v < math.inf, "> 0", where)
    mps = q.get("mean_pktsize", 500)
    if isinstance(mps, bool) or not isinstance(mps, (int, float)) or mps <= 0 or float(mps) != int(mps):
        # ns-2 holds mean_pktsize_ in an int.
        raise Ns2ExportError(f"{where}.mean_pktsize: must be a whole number of bytes > 0 for ns-2, got {mps!r}")
    w_q = _auto(q.get("w_q"), f"{where}.w_q")
    if w_q is not None and not 0 < w_q <= 1:
        raise Ns2ExportError(f"{where}.w_q: must be in (0, 1] or \"auto\", got {w_q!r}")
    min_th = _auto(q.get("min_th"), f"{where}.min_th")
    max_th = _auto(q.get("max_th"), f"{where}.max_th")
    if min_th is not None and min_th <= 0:
        raise Ns2ExportError(f"{where}.min_th: must be > 0 packets, got {min_th}")
    if min_th is not None and max_th is not None and max_th <= min_th:
        raise Ns2ExportError(f"{where}.max_th: must be > min_th ({min_th}), got {max_th}")
    ecn_mode = q.get("ecn_mode", "mark_tail")
    if ecn_mode == "mark_front":
        raise Ns2ExportError(
            f"{where}.ecn_mode: \"mark_front\" is not exportable: ns-2 2.35's Queue/RED marks the "
            "arriving packet (REDQueue::pickPacketForECN returns it); only \"mark_tail\" is in ns-2"
        )
    if ecn_mode != "mark_tail":
        raise Ns2ExportError(f"{where}.ecn_mode: unknown ECN mode {ecn_mode!r} (expected mark_tail)")
    if kind == "gentle":
        if q.get("gentle", True) is not True:
            raise Ns2ExportError(
                f"{where}.gentle: kind = \"gentle\" is RED with gentle = true; "
                "use kind = \"red\" for gentle = false"
            )
        gentle = True
    else:
        # red1 … red5 default to the paper's 1993 RED: gentle, wait, queue_in_bytes off
        # (aqmsim's queue_spec.rs, `aqmsim list red1`).
        gentle = _bool(q, "gentle", not red_k, where)
    out: Dict[str, Any] = {
        "kind": kind,
        "limit": limit,
        "min_th": min_th,
        "max_th": max_th,
        "max_p": max_p,
        "w_q": w_q,
        "gentle": gentle,
        "wait": _bool(q, "wait", not red_k, where),
        "ecn": _bool(q, "ecn", False, where),
        "mark_p": mark_p,
        "bytes": (kind == "red4") if red_k else _bool(q, "bytes", True, where),
        "queue_in_bytes": _bool(q, "queue_in_bytes", not red_k, where),
        "mean_pktsize": int(mps),
        "target_delay": parse_time(q.get("target_delay", 0.005), f"{where}.target_delay"),
        "adaptive": kind == "ared",
    }
    if red_k:
        m = q.get("max_pktsize", 1500)
        if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m < math.inf:
            raise Ns2ExportError(f"{where}.max_pktsize: must be > 0 bytes, got {m!r}")
        # (checked as aqmsim checks it; RED_1 does not use M, so its script has no trace of it)
        if kind == "red4":
            if float(m) != int(m):
                # it becomes ns-2's mean_pktsize_, an int
                raise Ns2ExportError(f"{where}.max_pktsize: RED_4 is exported as ns-2's byte mode with "
                                     f"mean_pktsize_ = M, an integer in ns-2: must be a whole number "
                                     f"of bytes, got {m!r}")
            m = int(m)
            # ns-2 reads mean_pktsize_ for the byte-mode limit at every arrival: after the
            # switch to M, limit_ must hold the same bytes (limit·mean_pktsize = limit'·M)
            if out["queue_in_bytes"] and m != out["mean_pktsize"] and (limit * out["mean_pktsize"]) % m:
                raise Ns2ExportError(
                    f"{where}.limit: RED_4 in byte mode is exported with ns-2's one mean_pktsize_ "
                    f"switched to M = {m} at time 0, so its byte limit must be a whole number of "
                    f"M-byte packets: limit·mean_pktsize = {limit * out['mean_pktsize']} is not a "
                    f"multiple of {m} (set mean_pktsize = max_pktsize, or such a limit)")
        out["max_pktsize"] = m
    if kind == "ared":
        # The same defaults and ranges as aqmsim's ared (queue_spec.rs).
        out["interval"] = parse_time(q.get("interval", 0.5), f"{where}.interval")
        if not out["interval"] > 0:
            raise Ns2ExportError(f"{where}.interval: must be > 0 s, got {q.get('interval')!r}")
        out["alpha"] = _number(q, "alpha", 0.01, lambda v: 0 < v < math.inf, "> 0", where)
        out["beta"] = _number(q, "beta", 0.9, lambda v: 0 < v < 1, "in (0, 1)", where)
        out["top"] = _number(q, "top", 0.5, lambda v: 0 < v <= 1, "in (0, 1]", where)
        out["bottom"] = _auto(q.get("bottom"), f"{where}.bottom")
        if out["bottom"] is not None and not 0 < out["bottom"] <= out["top"]:
            raise Ns2ExportError(f"{where}.bottom: must be in (0, top = {out['top']}] or \"auto\", "
                                 f"got {out['bottom']!r}")
    return out


def _threshold_queue(q: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """``ecn_threshold`` (paper 004) with ``mode = "mark_tail"`` as ns-2's ``Queue/RED``
    made a threshold on the instantaneous queue (:data:`THRESHOLD_VS_NS2`): a RED queue
    table whose ``threshold`` entry says where it came from."""
    unknown = set(q) - _THRESHOLD_FIELDS
    if unknown:
        raise Ns2ExportError(f"{where}.{sorted(unknown)[0]}: unknown field for ecn_threshold")
    mode = q.get("mode", "mark_tail")
    mode = {"tail": "mark_tail", "front": "mark_front"}.get(mode, mode)
    if mode == "mark_front":
        raise Ns2ExportError(
            f"{where}.mode: \"mark_front\" is not exportable: ns-2 2.35 has no mark-front "
            "queue (Queue/RED marks the arriving packet: REDQueue::pickPacketForECN returns "
            "it); only mode = \"mark_tail\" is in ns-2, as Queue/RED on the instantaneous queue")
    if mode == "drop_front":
        raise Ns2ExportError(
            f"{where}.mode: \"drop_front\" is not exportable: ns-2 2.35's Queue/RED drops the "
            "arriving packet on an early decision (drop_front_ only picks the victim of forced "
            "drops); only mode = \"mark_tail\" is in ns-2")
    if mode != "mark_tail":
        raise Ns2ExportError(f"{where}.mode: unknown mode {mode!r} (expected mark_tail, "
                             "mark_front or drop_front)")
    t = q.get("threshold")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or float(t) != int(t) or t < 0:
        raise Ns2ExportError(f"{where}.threshold: must be an integer >= 0 packets, got {t!r}")
    t = int(t)
    if t <= 1:
        raise Ns2ExportError(
            f"{where}.threshold: T = {t} is not exportable: ns-2's Queue/RED never marks an "
            "arrival that finds at most one packet waiting (enque's qlen > 1), where "
            f"ecn_threshold marks every arrival finding {t} or more; T >= 2 is exported "
            "(exact from T = 3)")
    return {
        "kind": "ecn_threshold",
        "threshold": t,
        "limit": _limit(q, where),
        # RED's parameters that make it the threshold (THRESHOLD_VS_NS2)
        "min_th": float(t - 1),
        "max_th": float(t),
        "max_p": 1.0,
        "w_q": 1.0,
        "gentle": False,
        "wait": False,
        "ecn": True,
        "mark_p": 2.0,
        "bytes": False,
        "queue_in_bytes": False,
        "mean_pktsize": 1000,
        "target_delay": 0.005,
        "adaptive": False,
    }


# ---------------------------------------------------------------------------- plan
@dataclass
class LinkPlan:
    """One direction of a link: ``src -> dst`` with its own queue."""

    src: str
    dst: str
    rate: float  # bit/s
    delay: float  # s
    queue: Dict[str, Any]
    where: str  # scenario path of the queue table

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"


@dataclass
class FlowPlan:
    index: int
    src: str
    dst: str
    app: str  # "ftp" | "cbr"
    start: float
    stop: float
    group: str
    tcp: Dict[str, Any] = field(default_factory=dict)
    cbr_rate: float = 0.0
    cbr_size: int = 0
    #: aqmsim's label of the flow (Results.flows ``label``): the group's name (``group<i>``
    #: unnamed), an explicit flow's ``label`` (``flows[<i>]`` without one).
    label: str = ""


@dataclass
class Plan:
    """The scenario resolved for ns-2: every default applied, every random value drawn."""

    name: str
    seed: int
    duration: float
    nodes: List[str]
    links: List[LinkPlan]
    flows: List[FlowPlan]
    monitored: List[str]  # link names "a->b"
    sample_interval: float
    draws: Dict[str, float]  # "access_delay/3" -> 0.0021, "start/0" -> 0.41, ...
    #: metrics asked for by the scenario's ``ns2.measure`` (:data:`NS2_ON_REQUEST`)
    measure: Tuple[str, ...] = ()

    def link(self, name: str) -> LinkPlan:
        for lk in self.links:
            if lk.name == name:
                return lk
        raise KeyError(name)


_TOP_FIELDS = {"name", "description", "notes", "duration", "seed", "tcp", "dumbbell", "nodes", "links", "flows", "monitor",
               "ns2"}
#: What the ``ns2`` table of a scenario may ask of the ns-2 run (not a field of aqmsim's
#: scenarios: ``aqmsim reproduce`` adds it to the scenarios it hands to ns-2 only):
#: ``measure`` lists metrics ns-2 gives only on request, :data:`NS2_ON_REQUEST`.
NS2_ON_REQUEST: Tuple[str, ...] = ("max_queue_pkts",)
_GROUP_FIELDS = {"name", "count", "access", "egress", "app", "start", "stop", "tcp", "cbr"}
_FLOW_FIELDS = {"label", "src", "dst", "count", "app", "start", "stop", "tcp", "cbr"}
_ACCESS_FIELDS = {"rate", "delay", "queue", "reverse_queue"}


def _check_fields(table: Any, allowed: set, where: str) -> None:
    if not isinstance(table, Mapping):
        raise Ns2ExportError(f"{where}: expected a table, got {table!r}")
    for k in table:
        if k not in allowed:
            raise Ns2ExportError(f"{where}.{k}: unknown field (known: {', '.join(sorted(allowed))})")


def _count(t: Mapping[str, Any], where: str) -> int:
    c = t.get("count", 1)
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise Ns2ExportError(f"{where}.count: must be an integer >= 1, got {c!r}")
    return c


def _traffic(t: Mapping[str, Any], where: str, top_tcp: Any, duration: float, seed: int,
             index: int, src: str, dst: str, group: str, draws: Dict[str, float]) -> FlowPlan:
    app = t.get("app", "ftp")
    if app not in ("ftp", "cbr"):
        raise Ns2ExportError(f"{where}.app: must be \"ftp\" or \"cbr\", got {app!r}")
    start = draw(t.get("start", 0.0), component_rng(seed, f"start/{index}"), f"{where}.start")
    draws[f"start/{index}"] = start
    stop = parse_time(t["stop"], f"{where}.stop") if "stop" in t else duration
    fp = FlowPlan(index=index, src=src, dst=dst, app=app, start=start, stop=stop, group=group, label=group)
    if app == "ftp":
        fp.tcp = _resolve_tcp([(top_tcp, "tcp"), (t.get("tcp"), f"{where}.tcp")])
    else:
        cbr = t.get("cbr")
        if cbr is None:
            raise Ns2ExportError(f"{where}.cbr: app \"cbr\" needs a cbr table {{rate, packet_size}}")
        _check_fields(cbr, {"rate", "packet_size"}, f"{where}.cbr")
        if "rate" not in cbr:
            raise Ns2ExportError(f"{where}.cbr.rate: missing")
        fp.cbr_rate = parse_rate(cbr["rate"], f"{where}.cbr.rate")
        size = cbr.get("packet_size", 210)
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise Ns2ExportError(f"{where}.cbr.packet_size: must be an integer >= 1 bytes, got {size!r}")
        fp.cbr_size = size
    return fp


def build_plan(scenario: Mapping[str, Any], seed: int) -> Plan:
    """Resolve a scenario for ns-2: defaults applied, random delays and starts drawn."""
    if not isinstance(scenario, Mapping):
        raise Ns2ExportError(f"scenario: expected a table (dict), got {type(scenario).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise Ns2ExportError(f"seed: must be an integer >= 0, got {seed!r}")
    _check_fields(scenario, _TOP_FIELDS, "scenario")
    if "duration" not in scenario:
        raise Ns2ExportError("duration: missing (simulated seconds)")
    duration = parse_time(scenario["duration"], "duration")
    if duration <= 0:
        raise Ns2ExportError(f"duration: must be > 0, got {scenario['duration']!r}")
    top_tcp = scenario.get("tcp")
    nodes: List[str] = []
    links: List[LinkPlan] = []
    flows: List[FlowPlan] = []
    draws: Dict[str, float] = {}

    def add_node(n: str, where: str) -> None:
        if not isinstance(n, str) or not n:
            raise Ns2ExportError(f"{where}: node names are non-empty strings, got {n!r}")
        if n in nodes:
            raise Ns2ExportError(f"{where}: node {n!r} defined twice")
        nodes.append(n)

    def add_duplex(a: str, b: str, rate: float, delay: float, q: Any, rq: Any, where: str,
                   rq_where: str) -> None:
        links.append(LinkPlan(a, b, rate, delay, normalize_queue(q, where), where))
        links.append(LinkPlan(b, a, rate, delay, normalize_queue(rq, rq_where), rq_where))

    db = scenario.get("dumbbell")
    monitored_default: List[str] = []
    if db is not None:
        _check_fields(db, {"bottleneck", "groups"}, "dumbbell")
        bn = db.get("bottleneck")
        _check_fields(bn, {"rate", "delay", "queue", "reverse_queue"}, "dumbbell.bottleneck")
        for f_ in ("rate", "delay"):
            if f_ not in bn:
                raise Ns2ExportError(f"dumbbell.bottleneck.{f_}: missing")
        add_node("R1", "dumbbell")
        add_node("R2", "dumbbell")
        add_duplex("R1", "R2", parse_rate(bn["rate"], "dumbbell.bottleneck.rate"),
                   parse_time(bn["delay"], "dumbbell.bottleneck.delay"),
                   bn.get("queue"), bn.get("reverse_queue"),
                   "dumbbell.bottleneck.queue", "dumbbell.bottleneck.reverse_queue")
        monitored_default = ["R1->R2"]
        groups = db.get("groups")
        if not isinstance(groups, list) or not groups:
            raise Ns2ExportError("dumbbell.groups: expected a non-empty list of group tables")
        k = 0
        for gi, g in enumerate(groups):
            gw = f"dumbbell.groups.{gi}"
            _check_fields(g, _GROUP_FIELDS, gw)
            if "access" not in g:
                raise Ns2ExportError(f"{gw}.access: missing")
            _check_fields(g["access"], _ACCESS_FIELDS, f"{gw}.access")
            if g.get("egress") is not None:
                _check_fields(g["egress"], _ACCESS_FIELDS, f"{gw}.egress")
            gname = g.get("name", "") or f"group{gi}"
            for _ in range(_count(g, gw)):
                s = f"S{k}"
                add_node(s, gw)
                acc = g["access"]
                for f_ in ("rate", "delay"):
                    if f_ not in acc:
                        raise Ns2ExportError(f"{gw}.access.{f_}: missing")
                d_acc = draw(acc["delay"], component_rng(seed, f"access/{k}"), f"{gw}.access.delay")
                draws[f"access_delay/{k}"] = d_acc
                # Access link S<k> -- R1: `queue` is S<k>->R1 (data direction), `reverse_queue` R1->S<k>.
                add_duplex(s, "R1", parse_rate(acc["rate"], f"{gw}.access.rate"), d_acc,
                           acc.get("queue"), acc.get("reverse_queue"),
                           f"{gw}.access.queue", f"{gw}.access.reverse_queue")
                eg = g.get("egress")
                if eg is not None:
                    d = f"D{k}"
                    add_node(d, gw)
                    for f_ in ("rate", "delay"):
                        if f_ not in eg:
                            raise Ns2ExportError(f"{gw}.egress.{f_}: missing")
                    d_eg = draw(eg["delay"], component_rng(seed, f"egress/{k}"), f"{gw}.egress.delay")
                    draws[f"egress_delay/{k}"] = d_eg
                    # Egress link R2 -- D<k>: `queue` is R2->D<k> (data direction).
                    add_duplex("R2", d, parse_rate(eg["rate"], f"{gw}.egress.rate"), d_eg,
                               eg.get("queue"), eg.get("reverse_queue"),
                               f"{gw}.egress.queue", f"{gw}.egress.reverse_queue")
                else:
                    d = "R2"
                flows.append(_traffic(g, gw, top_tcp, duration, seed, len(flows), s, d, gname, draws))
                k += 1

    for i, n in enumerate(scenario.get("nodes", []) or []):
        add_node(n, f"nodes.{i}")
    for i, lk in enumerate(scenario.get("links", []) or []):
        w = f"links.{i}"
        _check_fields(lk, {"from", "to", "rate", "delay", "queue", "reverse_queue"}, w)
        for f_ in ("from", "to", "rate", "delay"):
            if f_ not in lk:
                raise Ns2ExportError(f"{w}.{f_}: missing")
        for end in ("from", "to"):
            if lk[end] not in nodes:
                raise Ns2ExportError(f"{w}.{end}: unknown node {lk[end]!r}")
        q = lk.get("queue")
        rq = lk.get("reverse_queue", q)
        add_duplex(lk["from"], lk["to"], parse_rate(lk["rate"], f"{w}.rate"), parse_time(lk["delay"], f"{w}.delay"),
                   q, rq, f"{w}.queue", f"{w}.reverse_queue" if "reverse_queue" in lk else f"{w}.queue")
    for i, fl in enumerate(scenario.get("flows", []) or []):
        w = f"flows.{i}"
        _check_fields(fl, _FLOW_FIELDS, w)
        for end in ("src", "dst"):
            if end not in fl:
                raise Ns2ExportError(f"{w}.{end}: missing")
            if fl[end] not in nodes:
                raise Ns2ExportError(f"{w}.{end}: unknown node {fl[end]!r}")
        for _ in range(_count(fl, w)):
            label = fl.get("label") or w
            if not isinstance(label, str):
                raise Ns2ExportError(f"{w}.label: expected a string, got {label!r}")
            flows.append(_traffic(fl, w, top_tcp, duration, seed, len(flows), fl["src"], fl["dst"], label, draws))
            flows[-1].label = fl.get("label") or f"flows[{i}]"

    seen = set()
    for lk in links:
        if lk.name in seen:
            raise Ns2ExportError(f"{lk.where}: link {lk.name} defined twice")
        seen.add(lk.name)

    mon = scenario.get("monitor") or {}
    _check_fields(mon, {"queues", "sample_interval", "link_interval"}, "monitor")
    monitored = mon.get("queues", monitored_default)
    if not isinstance(monitored, list):
        raise Ns2ExportError(f"monitor.queues: expected a list of \"a->b\", got {monitored!r}")
    for i, name in enumerate(monitored):
        if name not in seen:
            raise Ns2ExportError(f"monitor.queues.{i}: no link {name!r} (links: {', '.join(sorted(seen))})")
    sample_interval = parse_time(mon.get("sample_interval", 0.01), "monitor.sample_interval")
    opts = scenario.get("ns2") or {}
    _check_fields(opts, {"measure"}, "ns2")
    measure = opts.get("measure", [])
    if not isinstance(measure, (list, tuple)) or any(m not in NS2_ON_REQUEST for m in measure):
        raise Ns2ExportError(f"ns2.measure: expected a list among {', '.join(NS2_ON_REQUEST)}, "
                             f"got {measure!r}")
    name = scenario.get("name", "") or ""
    return Plan(name=str(name), seed=seed, duration=duration, nodes=nodes, links=links, flows=flows,
                monitored=list(monitored), sample_interval=sample_interval, draws=draws,
                measure=tuple(dict.fromkeys(measure)))


def pin_draws(scenario: Mapping[str, Any], seed: int) -> Dict[str, Any]:
    """The scenario with this seed's random values written in as fixed numbers.

    Every dumbbell group with a distribution is split into one group per host, with the
    access/egress delay and start drawn by :func:`build_plan`. Run aqmsim and ns-2 on the
    pinned scenario and both see the very same topology and start times; what remains
    different between them is only the RNG behind RED's coin. Host and flow numbering
    (``S<k>``, flow ``k``) is unchanged. Explicit ``flows`` with a random start are split
    the same way.
    """
    import copy

    plan = build_plan(scenario, seed)
    out = copy.deepcopy(dict(scenario))
    k = 0
    db = out.get("dumbbell")
    if db is not None:
        groups = []
        for gi, g in enumerate(db["groups"]):
            n = int(g.get("count", 1))
            for j in range(n):
                one = copy.deepcopy(g)
                one["count"] = 1
                if n > 1:
                    one["name"] = f"{g.get('name', '') or f'group{gi}'}#{j}"
                one["access"]["delay"] = plan.draws[f"access_delay/{k}"]
                if one.get("egress") is not None:
                    one["egress"]["delay"] = plan.draws[f"egress_delay/{k}"]
                one["start"] = plan.draws[f"start/{k}"]
                groups.append(one)
                k += 1
        db["groups"] = groups
    if out.get("flows"):
        flows = []
        for fl in out["flows"]:
            n = int(fl.get("count", 1))
            for _ in range(n):
                one = copy.deepcopy(fl)
                one["count"] = 1
                one["start"] = plan.draws[f"start/{k}"]
                flows.append(one)
                k += 1
        out["flows"] = flows
    return out


# ---------------------------------------------------------------------------- Tcl
def _num(x: float) -> str:
    """A float as Tcl reads it back exactly (shortest round-trip repr)."""
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int):
        return str(x)
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") and "e" not in r else r


def _tcl_bool(b: bool) -> str:
    return "true" if b else "false"


def _brace(s: str) -> str:
    """A Tcl word that is taken literally (for file paths and labels)."""
    if any(c in s for c in "{}\\\n"):
        raise Ns2ExportError(f"cannot quote {s!r} for Tcl (braces, backslashes or newlines)")
    return "{" + s + "}"


def _comment(s: str) -> str:
    """Text safe inside a Tcl comment, also within a proc body (no braces, brackets,
    quotes, backslashes, dollars or newlines)."""
    return re.sub(r"[\r\n{}\[\]\"\\$]+", "_", str(s))


def ared_bottom(rate_bps: float) -> float:
    """ns-2's automatic ``bottom_`` (``bottom_ 0``): min(0.01, 80000 / bandwidth), computed
    the way ``REDQueue::initialize_params`` does it, so the number is the same double."""
    bottom = 0.01
    bottom1 = 80000.0 / rate_bps
    if bottom1 < bottom:
        bottom = bottom1
    return bottom


def _queue_tcl(lk: LinkPlan) -> List[str]:
    q = lk.queue
    out: List[str] = []
    if q["kind"] == "droptail":
        out.append(f"$q set drop_front_ {_tcl_bool(q['drop_front'])}")
        out.append("$q set summarystats_ false")
        if q["limit_bytes"] is not None:
            # ns-2 byte mode: drop when bytes waiting + arriving size >= limit_ * mean_pktsize_.
            out += ["$q set queue_in_bytes_ true", "$q set mean_pktsize_ 1", f"$q set limit_ {q['limit_bytes']}"]
        else:
            out += ["$q set queue_in_bytes_ false", "$q set mean_pktsize_ 500", f"$q set limit_ {q['limit']}"]
        return out
    # RED (red, gentle, ared): state every parameter; "auto" -> ns-2's own sentinel,
    # resolved by ns-2 itself when the link is attached and at $ns run.
    if q["kind"] == "ecn_threshold":
        t = q["threshold"]
        out += [
            f"# ecn_threshold mark_tail, T = {t}: Queue/RED on the instantaneous queue (q_weight_ 1),",
            f"# every arrival finding >= {t} waiting marked (p = 1 at maxthresh_; use_mark_p_ skips the",
            f"# forced drop) or dropped if not ECT; thresh_ {t - 1} arms RED's count/old one arrival",
            "# before (aqmsim.ns2.export.THRESHOLD_VS_NS2" + ("; T = 2 is inexact" if t == 2 else "") + ")",
        ]
    out += [
        f"$q set limit_ {q['limit']}",
        f"$q set thresh_ {_num(q['min_th']) if q['min_th'] is not None else 0}"
        + ("" if q["min_th"] is not None else "   ;# auto: max(5, targetdelay_*ptc/2)"),
        f"$q set maxthresh_ {_num(q['max_th']) if q['max_th'] is not None else 0}"
        + ("" if q["max_th"] is not None else "   ;# auto: 3*thresh_"),
        f"$q set linterm_ {_num(1.0 / q['max_p'])}   ;# 1/max_p",
        f"$q set q_weight_ {_num(q['w_q']) if q['w_q'] is not None else -1}"
        + ("" if q["w_q"] is not None else "   ;# auto: 1-exp(-1/(10*max(0.1,3*(delay+1/ptc))*ptc))"),
        f"$q set gentle_ {_tcl_bool(q['gentle'])}",
        f"$q set wait_ {_tcl_bool(q['wait'])}",
        f"$q set setbit_ {_tcl_bool(q['ecn'])}",
        f"$q set mark_p_ {_num(q['mark_p'])}",
        "$q set use_mark_p_ true",
        f"$q set bytes_ {_tcl_bool(q['bytes'])}",
        f"$q set queue_in_bytes_ {_tcl_bool(q['queue_in_bytes'])}",
        f"$q set mean_pktsize_ {q['mean_pktsize']}",
        f"$q set targetdelay_ {_num(q['target_delay'])}",
    ]
    if q["kind"] == "red1":
        i = out.index("$q set bytes_ false")
        out[i] += "   ;# red1: RED_1 of paper 002 is plain RED (max_pktsize plays no part)"
    switch = ""
    if q["kind"] == "red4":
        m, mps = q["max_pktsize"], q["mean_pktsize"]
        i = out.index("$q set bytes_ true")
        out[i] += (f"   ;# red4: RED_4 of paper 002 as ns-2's nearest law, byte mode with mean_pktsize_ = M = {m}: "
                   "count1 = count_bytes/M, p *= size/M (aqmsim.ns2.export.RED4_VS_NS2)")
        if m != mps:
            # reset() at `$ns run` computes ptc (idle decay, auto w_q and min_th) and, in byte
            # mode, the byte thresholds from mean_pktsize_ = mean_pktsize, as aqmsim does;
            # then, before any packet arrives, the byte-mode law gets M.
            switch = f"$q set mean_pktsize_ {m}"
            if q["queue_in_bytes"]:
                switch += f"; $q set limit_ {q['limit'] * mps // m}"
            switch = (f"$ns at 0 \"{switch}\"   ;# red4: M for modify_p, once reset() has used "
                      f"mean_pktsize_ {mps} for ptc and the thresholds")
    if q["adaptive"]:
        bottom = q["bottom"] if q["bottom"] is not None else ared_bottom(lk.rate)
        out += [
            # ns-2.35's adaptive_ 1 changes max_p only: REDQueue::estimator calls updateMaxP
            # on an arrival when more than interval_ has passed since max_p last changed.
            # Neither red.cc nor the Tcl library sets thresholds, q_weight_ or gentle_ for
            # adaptive_ (initialize_params ignores it): the values above are the scenario's.
            # The gentle slope keeps v_c, v_d from the initial max_p (computed in reset()).
            "$q set adaptive_ 1   ;# ns-2.35 adapts max_p only: thresh_, maxthresh_, q_weight_, gentle_ are as above",
            f"$q set interval_ {_num(q['interval'])}",
            f"$q set alpha_ {_num(q['alpha'])}",
            f"$q set beta_ {_num(q['beta'])}",
            f"$q set top_ {_num(q['top'])}",
            f"$q set bottom_ {_num(bottom)}"
            + ("" if q["bottom"] is not None else "   ;# auto: min(0.01, 80000/bandwidth), as ns-2's bottom_ 0"),
        ]
    else:
        out.append("$q set adaptive_ 0")
    out += [
        "$q set feng_adaptive_ 0",
        "$q set cautious_ 0",
        "$q set drop_tail_ true",
        "$q set drop_front_ false",
        "$q set drop_rand_ false",
        "$q set ns1_compat_ false",
        "$q set summarystats_ false",
    ]
    if switch:
        out.append(switch)
    return out


def _tcp_tcl(fp: FlowPlan) -> Tuple[List[str], List[str]]:
    """The sender's and the sink's lines for one FTP flow: every TCP parameter stated."""
    t = fp.tcp
    s, d = f"$src({fp.index})", f"$dst({fp.index})"
    sender, sink, delsink = TCP_AGENTS[t["variant"]]
    # ns-2.35's output() adds the header to every packet but sequence 0 (the SYN, or without
    # syn_ the first data packet, which so goes out header-less); aqmsim's first data packet
    # carries it. Without a SYN and with a header, the script gives ns-2 whole wire-size
    # packets instead (packetSize_ = payload + header, useHeaders_ false): every data packet,
    # sequence 0 included, is then packet_size + header bytes, as in aqmsim.
    whole = not t["syn"] and int(t["header"]) > 0
    size = int(t["packet_size"]) + (int(t["header"]) if whole else 0)
    snd = [
        f"set src({fp.index}) [new {sender}]",
        f"{s} set fid_ {fp.index}",
        f"{s} set packetSize_ {size}"
        + (f"   ;# {int(t['packet_size'])} + header {int(t['header'])}: without syn_, ns-2 sends seq 0 "
           "header-less; useHeaders_ false below" if whole else ""),
        f"{s} set tcpip_base_hdr_size_ {int(t['header'])}",
        f"{s} set window_ {_num(t['window'])}",
        f"{s} set windowInit_ {_num(t['window_init'])}",
        f"{s} set windowInitOption_ 1",
        f"{s} set windowOption_ 1",
        f"{s} set maxcwnd_ 0",
        f"{s} set syn_ {_tcl_bool(t['syn'])}",
        f"{s} set delay_growth_ {_tcl_bool(t['delay_growth'])}",
        f"{s} set tcpTick_ {_num(t['tick'])}",
        f"{s} set minrto_ {_num(t['min_rto'])}",
        f"{s} set maxrto_ {_num(t['max_rto'])}",
        f"{s} set rtxcur_init_ {_num(t['rto_init'])}",
        f"{s} set numdupacks_ {int(t['dupacks'])}",
        f"{s} set maxburst_ {int(t['max_burst'])}",
        f"{s} set ecn_ {1 if t['ecn'] else 0}",
        f"{s} set singledup_ {1 if t['limited_transmit'] else 0}",
        f"{s} set overhead_ 0",
        f"{s} set timestamps_ false",
        f"{s} set useHeaders_ {'false' if whole else 'true'}",
    ]
    snk = [
        f"set dst({fp.index}) [new {delsink if t['delayed_ack'] else sink}]",
        f"{d} set packetSize_ {int(t['ack_size'])}",
    ]
    if t["delayed_ack"]:
        snk.append(f"{d} set interval_ {_num(t['delack_interval'])}")
    return snd, snk


def render_tcl(plan: Plan, trace_dir: str, *, full_trace: bool = False, samples: bool = True,
               flow_monitor: bool = False, max_queue: bool = False) -> str:
    """Write the Tcl script for a resolved :class:`Plan` (see :func:`to_tcl`)."""
    import os

    # the largest queue needs each monitored link's queue trace (trace_<i>.tr)
    max_queue = max_queue or "max_queue_pkts" in plan.measure
    traced = full_trace or max_queue

    tdir = str(trace_dir)  # kept as given: a relative path is relative to where `ns` runs
    node_id = {n: i for i, n in enumerate(plan.nodes)}
    L: List[str] = []
    add = L.append
    add(f"# ns-2.35 script written by aqmsim.ns2.export: scenario {_comment(plan.name)!r}, seed {plan.seed}")
    add("# Every random value of the scenario was drawn in Python and is written here as a number;")
    add("# every parameter is set on its object, so no ns-2 class default is relied on.")
    add("set ns [new Simulator]")
    add("")
    add("# ns-2's default RNG (RED's coin, TCP boot_time_): MRG32k3a seed 1, substream <seed>.")
    add("# next-substream gives independent streams; `ns-random N` would give correlated ones.")
    add("$defaultRNG seed 1")
    add(f"for {{set i 0}} {{$i < {plan.seed}}} {{incr i}} {{ $defaultRNG next-substream }}")
    add("")
    add("# Nodes (ns-2 node id = index here)")
    for n, i in node_id.items():
        add(f"set n({i}) [$ns node]   ;# {_comment(n)}")
    add("")
    add("# Links: one simplex link per direction, each with its own queue")
    for lk in plan.links:
        a, b = node_id[lk.src], node_id[lk.dst]
        add(f"# {_comment(lk.name)}: {_num(lk.rate)} bit/s, {_num(lk.delay)} s, {lk.queue['kind']}  ({lk.where})")
        add(f"$ns simplex-link $n({a}) $n({b}) {_num(lk.rate)} {_num(lk.delay)} {NS2_QUEUE_CLASS[lk.queue['kind']]}")
        add(f"set q [[$ns link $n({a}) $n({b})] queue]")
        add(f"set queue({a}:{b}) $q")
        L.extend(_queue_tcl(lk))
    add("")
    add("# Monitored queues: QueueMonitor (arrivals, departures, drops, integral of the queue length)")
    for mi, name in enumerate(plan.monitored):
        lk = plan.link(name)
        a, b = node_id[lk.src], node_id[lk.dst]
        add(f"set qm({mi}) [$ns monitor-queue $n({a}) $n({b}) 0]   ;# {_comment(name)}")
        # waiting time of every dequeued packet (enqueue to start of transmission)
        add(f"set ds({mi}) [new Samples]")
        add(f"$qm({mi}) set-delay-samples $ds({mi})")
        if traced:
            # with max_queue: read by aqmsim.ns2.trace.max_queue for the largest queue
            path = os.path.join(tdir, f"trace_{mi}.tr")
            add(f"set tf({mi}) [open {_brace(path)} w]")
            add(f"$ns trace-queue $n({a}) $n({b}) $tf({mi})")
        if samples:
            path = os.path.join(tdir, f"queue_{mi}.txt")
            add(f"set sf({mi}) [open {_brace(path)} w]")
            red = " ave_ cur_max_p_" if NS2_QUEUE_CLASS[lk.queue["kind"]] == "RED" else ""
            add(f"puts $sf({mi}) {{# t pkts bytes{red}}}")
    fmon = flow_monitor and bool(plan.monitored)
    if fmon:
        lk = plan.link(plan.monitored[0])
        a, b = node_id[lk.src], node_id[lk.dst]
        add(f"# Per-flow counts at {_comment(lk.name)}: a flow monitor classifying by fid_ (its snoop")
        add("# queues count packets in, out and dropped; they change nothing else)")
        add("set fmon [$ns makeflowmon Fid]")
        add(f"$ns attach-fmon [$ns link $n({a}) $n({b})] $fmon")
    add("")
    add("# Flows (flow id = fid_ = index)")
    for fp in plan.flows:
        i = fp.index
        a, b = node_id[fp.src], node_id[fp.dst]
        if fp.app == "ftp":
            add(f"# flow {i}: {_comment(fp.src)} -> {_comment(fp.dst)}, {fp.tcp['variant']} FTP ({_comment(fp.group)})")
            snd, snk = _tcp_tcl(fp)
            L.extend(snd)
            add(f"$ns attach-agent $n({a}) $src({i})")
            L.extend(snk)
            add(f"$ns attach-agent $n({b}) $dst({i})")
            add(f"$ns connect $src({i}) $dst({i})")
            add(f"set app({i}) [new Application/FTP]")
            add(f"$app({i}) attach-agent $src({i})")
        else:
            add(f"# flow {i}: {_comment(fp.src)} -> {_comment(fp.dst)}, CBR over UDP ({_comment(fp.group)})")
            add(f"set src({i}) [new Agent/UDP]")
            add(f"$src({i}) set fid_ {i}")
            add(f"$src({i}) set packetSize_ {fp.cbr_size}")
            add(f"$ns attach-agent $n({a}) $src({i})")
            add(f"set dst({i}) [new Agent/LossMonitor]")
            add(f"$ns attach-agent $n({b}) $dst({i})")
            add(f"$ns connect $src({i}) $dst({i})")
            add(f"set app({i}) [new Application/Traffic/CBR]")
            add(f"$app({i}) set packetSize_ {fp.cbr_size}")
            add(f"$app({i}) set rate_ {_num(fp.cbr_rate)}")
            add(f"$app({i}) set random_ 0")
            add(f"$app({i}) attach-agent $src({i})")
        # Count every packet that reaches the receiving agent (duplicates included): a
        # SnoopQueue/In with its own QueueMonitor between the node's port demux and the agent.
        add(f"set rxm({i}) [new QueueMonitor]")
        add(f"set rxs({i}) [new SnoopQueue/In]")
        add(f"$rxs({i}) set-monitor $rxm({i})")
        add(f"$rxs({i}) target $dst({i})")
        add(f"[$n({b}) set dmux_] install [$dst({i}) set agent_port_] $rxs({i})")
        add(f"$ns at {_num(fp.start)} \"$app({i}) start\"")
        if fp.stop < plan.duration:
            add(f"$ns at {_num(fp.stop)} \"$app({i}) stop\"")
    add("")
    if samples and plan.monitored:
        add(f"# Queue samples every {_num(plan.sample_interval)} s: t, packets and bytes waiting, RED average and max_p")
        add("set nsample 0")
        add("proc sample {} {")
        add("    global ns qm sf queue nsample")
        add("    set now [$ns now]")
        for mi, name in enumerate(plan.monitored):
            lk = plan.link(name)
            a, b = node_id[lk.src], node_id[lk.dst]
            extra = (f" [$queue({a}:{b}) set ave_] [$queue({a}:{b}) set cur_max_p_]"
                     if NS2_QUEUE_CLASS[lk.queue["kind"]] == "RED" else "")
            add(f"    puts $sf({mi}) \"$now [$qm({mi}) set pkts_] [$qm({mi}) set size_]{extra}\"")
        add("    incr nsample")
        add(f"    set next [expr {{$nsample * {_num(plan.sample_interval)}}}]")
        add(f"    if {{$next < {_num(plan.duration)}}} {{ $ns at $next sample }}")
        add("}")
        add("$ns at 0 sample")
        add("")
    add("# At the end: flush the integrators and write `key value` lines")
    add("proc finish {} {")
    add("    global ns qm ds src dst rxm sf tf" + (" fmon" if fmon else ""))
    add("    set now [$ns now]")
    add(f"    set f [open {_brace(os.path.join(tdir, 'summary.txt'))} w]")
    add("    puts $f \"duration $now\"")
    for mi, name in enumerate(plan.monitored):
        lk = plan.link(name)
        add(f"    # queue {mi}: {_comment(name)}")
        add(f"    puts $f \"queue.{mi}.rate {_num(lk.rate)}\"")
        add("    foreach v {parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_ pmarks_ pkts_ size_} {")
        add(f"        puts $f \"queue.{mi}.$v [$qm({mi}) set $v]\"")
        add("    }")
        add(f"    set pi [$qm({mi}) get-pkts-integrator]")
        add("    $pi newpoint $now [$pi set lasty_]")
        add(f"    puts $f \"queue.{mi}.pkts_integral [$pi set sum_]\"")
        add(f"    set bi [$qm({mi}) get-bytes-integrator]")
        add("    $bi newpoint $now [$bi set lasty_]")
        add(f"    puts $f \"queue.{mi}.bytes_integral [$bi set sum_]\"")
        add(f"    puts $f \"queue.{mi}.delay_cnt [$ds({mi}) cnt]\"")
        add(f"    if {{[$ds({mi}) cnt] > 0}} {{ puts $f \"queue.{mi}.delay_mean [$ds({mi}) mean]\" }}")
    if fmon:
        add("    puts $f \"fmon.present 1\"")
        add("    foreach fl [$fmon flows] {")
        add("        set id [$fl set flowid_]")
        add("        foreach v {parrivals_ pdrops_ pmarks_ barrivals_ bdrops_} {")
        add("            puts $f \"fmon.$id.$v [$fl set $v]\"")
        add("        }")
        add("    }")
    for fp in plan.flows:
        i = fp.index
        add(f"    puts $f \"flow.{i}.rx_pkts [$rxm({i}) set parrivals_]\"")
        add(f"    puts $f \"flow.{i}.rx_bytes [$rxm({i}) set barrivals_]\"")
        if fp.app == "ftp":
            add(f"    puts $f \"flow.{i}.delivered_bytes [$dst({i}) set bytes_]\"")
            add("    foreach v {ndatapack_ ndatabytes_ nrexmitpack_ nrexmitbytes_ nrexmit_ ncwndcuts_ nackpack_ cwnd_ ssthresh_ ack_ t_seqno_} {")
            add(f"        puts $f \"flow.{i}.$v [$src({i}) set $v]\"")
            add("    }")
        else:
            add(f"    puts $f \"flow.{i}.delivered_bytes [$dst({i}) set bytes_]\"")
            add(f"    puts $f \"flow.{i}.nlost_ [$dst({i}) set nlost_]\"")
    add("    close $f")
    if samples:
        for mi in range(len(plan.monitored)):
            add(f"    close $sf({mi})")
    if traced:
        for mi in range(len(plan.monitored)):
            add(f"    close $tf({mi})")
    add("    $ns halt")
    add("}")
    add(f"$ns at {_num(plan.duration)} finish")
    add("$ns run")
    add("exit 0")
    return "\n".join(L) + "\n"


def to_tcl(scenario: Mapping[str, Any], seed: int, trace_dir: str, *, full_trace: bool = False,
           samples: bool = True, flow_monitor: bool = False, max_queue: bool = False) -> str:
    """The ns-2 Tcl script for ``scenario`` run with ``seed``.

    ``trace_dir`` is where the script writes ``summary.txt`` (``key value`` lines: the
    monitored queues' QueueMonitor counters and time integrals, per-flow bytes at the
    sinks, TCP counters), ``queue_<i>.txt`` (samples every ``monitor.sample_interval``
    when ``samples``) and, with ``full_trace``, ``trace_<i>.tr`` (``$ns trace-queue`` of
    each monitored link, for :mod:`aqmsim.ns2.trace`). ``<i>`` indexes ``monitor.queues``.
    With ``flow_monitor``, a flow monitor on the first monitored link adds each flow's
    ``fmon.<fid>.parrivals_`` / ``pdrops_`` / ``pmarks_`` / ``barrivals_`` / ``bdrops_``
    there (``fmon.present 1``; a flow that never reached the link has no lines).
    With ``max_queue`` (or ``ns2.measure = ["max_queue_pkts"]`` in the scenario) each
    monitored link's queue is traced to ``trace_<i>.tr`` as with ``full_trace``, for the
    largest queue (:func:`aqmsim.ns2.trace.max_queue`).
    """
    return render_tcl(build_plan(scenario, seed), trace_dir, full_trace=full_trace, samples=samples,
                      flow_monitor=flow_monitor, max_queue=max_queue)
