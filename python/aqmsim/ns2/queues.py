"""Queues in ns-2: which aqmsim disciplines stock ns-2 2.35 runs and how
(:data:`NS2_QUEUE_CLASS`, :data:`NOT_IN_NS2`, :data:`RED4_VS_NS2`,
:data:`THRESHOLD_VS_NS2`), a queue table checked and completed the way the exporter
writes it (:func:`normalize_queue`), and its Tcl lines (:func:`queue_tcl`)."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .tcl import Ns2ExportError, _num, _tcl_bool, parse_time

__all__ = ["NS2_QUEUE_CLASS", "NOT_IN_NS2", "RED4_VS_NS2", "THRESHOLD_VS_NS2",
           "normalize_queue", "ared_bottom", "queue_tcl"]


# ---------------------------------------------------------------------------- queues
_DROPTAIL_FIELDS = {"kind", "limit", "limit_bytes", "drop_front"}
_RED_FIELDS = {
    "kind", "limit", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "ecn", "ecn_mode",
    "mark_p", "bytes", "queue_in_bytes", "mean_pktsize", "target_delay", "defaults",
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
    "codel": "CoDel is not in stock ns-2 2.35 (Debian's ns2 has no Queue/CoDel); aqmsim's CoDel is "
             "checked against ns-3.37 instead (docs/ns3-reference.md)",
    "fq_codel": "FQ-CoDel is not in stock ns-2 2.35; aqmsim's FQ-CoDel is checked against ns-3.37 "
                "instead (docs/ns3-reference.md)",
    "fq_pie": "FQ-PIE is not in stock ns-2 2.35; aqmsim's FQ-PIE is checked against ns-3.37 "
              "instead (docs/aqm/fq-pie.md)",
    "pie": "PIE is not in stock ns-2 2.35 (Debian's ns2 has no Queue/PIE); aqmsim's PIE is checked "
           "against ns-3.37 instead (docs/ns3-reference.md)",
    "dualpi2": "DualPI2 (RFC 9332) is not in stock ns-2 2.35 (nor in ns-3.37); aqmsim's follows "
               "Linux 6.18's sch_dualpi2 (docs/aqm/dualpi2.md)",
    "cobalt": "COBALT is not in stock ns-2 2.35; aqmsim's COBALT is checked against ns-3.37 instead "
              "(docs/ns3-reference.md)",
    "fq_cobalt": "FQ-COBALT is not in stock ns-2 2.35; aqmsim's FQ-COBALT is checked against ns-3.37 "
                 "instead (docs/aqm/fq-cobalt.md)",
    "cake": "CAKE is not in stock ns-2 2.35 (nor in ns-3.37); aqmsim's CAKE follows Linux's sch_cake "
            "(docs/aqm/cake.md)",
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
    "T = 2: RED acts only on arrivals that find qlen > 1 waiting, so counted in packets an "
    "arrival finding n = 2 right after one that found n <= 1 (which resets old) is not marked "
    "in ns-2 (aqmsim marks it). Where every packet reaching the queue has one size S (TCP "
    "without SYN or headers, no ACKs through it) the export counts bytes instead "
    "(queue_in_bytes_ true, mean_pktsize_ S: aqmsim.ns2.threshold2): qlen > 1 then holds with "
    "one packet waiting and T = 2 is exact; otherwise it stays in packets, with that difference",
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
    :func:`queue_tcl`. ``kind`` is one of :data:`NS2_QUEUE_CLASS`; the disciplines of
    :data:`NOT_IN_NS2` and any other kind raise :class:`Ns2ExportError` naming the field.
    """
    if q is None:
        return {"kind": "droptail", "limit": 50, "limit_bytes": None, "drop_front": False}
    if not isinstance(q, Mapping):
        raise Ns2ExportError(f"{where}: expected a queue table, got {q!r}")
    if q.get("device_queue", 0) != 0:
        raise Ns2ExportError(f"{where}.device_queue: ns-2's links have no device queue under the "
                             f"queue; export needs device_queue = 0, got {q['device_queue']!r}")
    q = {k: v for k, v in q.items() if k != "device_queue"}
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
    # Each kind's defaults are its paper's (packet mode, no wait_, gentle only for gentle
    # and ared); defaults = "ns2" is ns-2 2.35's ns-default.tcl (queue_spec.rs,
    # build_red_family). Every one is written to the script, so ns-2 runs what aqmsim resolved.
    profile = q.get("defaults", "paper")
    if profile not in ("paper", "ns2"):
        raise Ns2ExportError(f"{where}.defaults: unknown profile {profile!r} (expected one of: paper, ns2)")
    ns2 = profile == "ns2"
    if kind == "gentle":
        if q.get("gentle", True) is not True:
            raise Ns2ExportError(
                f"{where}.gentle: kind = \"gentle\" is RED with gentle = true; "
                "use kind = \"red\" for gentle = false"
            )
        gentle = True
    else:
        gentle = _bool(q, "gentle", ns2 or kind == "ared", where)
    out: Dict[str, Any] = {
        "kind": kind,
        "limit": limit,
        "min_th": min_th,
        "max_th": max_th,
        "max_p": max_p,
        "w_q": w_q,
        "gentle": gentle,
        "wait": _bool(q, "wait", ns2, where),
        "ecn": _bool(q, "ecn", False, where),
        "mark_p": mark_p,
        "bytes": (kind == "red4") if red_k else _bool(q, "bytes", ns2, where),
        "queue_in_bytes": _bool(q, "queue_in_bytes", ns2, where),
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
            "(exact from T = 3, and at T = 2 where every packet reaching the queue is one size)")
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


def ared_bottom(rate_bps: float) -> float:
    """ns-2's automatic ``bottom_`` (``bottom_ 0``): min(0.01, 80000 / bandwidth), computed
    the way ``REDQueue::initialize_params`` does it, so the number is the same double."""
    bottom = 0.01
    bottom1 = 80000.0 / rate_bps
    if bottom1 < bottom:
        bottom = bottom1
    return bottom


def queue_tcl(lk: Any) -> List[str]:
    """The Tcl lines that build link ``lk``'s queue (a :class:`~aqmsim.ns2.export.LinkPlan`)
    with every parameter stated."""
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
            "# before (aqmsim.ns2.export.THRESHOLD_VS_NS2" + ("; T = 2 is inexact" if t == 2 and not q.get("t2_bytes") else "") + ")",
        ]
        if q.get("t2_bytes"):
            out += [f"# T = 2 counted in bytes (queue_in_bytes_, mean_pktsize_ {q['mean_pktsize']}, every packet here that size):",
                    "# qlen > 1 then holds with one packet waiting, so the arrival finding 1 arms old (aqmsim.ns2.threshold2)"]
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
