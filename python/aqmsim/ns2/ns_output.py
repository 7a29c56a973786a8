"""What ns-2 wrote, read back (:mod:`aqmsim.ns2.crosscheck` runs ``ns`` on the exported
script): its QueueMonitor summary and samples, and the per-flow counts, as aqmsim's summary
and ``Results.flows`` name them, so the two simulators' results compare key by key.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Union

from .plan import Plan

__all__ = ["parse_summary", "read_samples", "result_of", "ns2_summary", "ns2_flows", "ns2_flows_arrow",
           "NS2_FLOWS_UNMEASURED"]


def _value(s: str) -> Union[int, float, str]:
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


def parse_summary(path: Union[str, Path]) -> Dict[str, Any]:
    """The ``key value`` lines the exported script writes at the end, as a flat dict."""
    out: Dict[str, Any] = {}
    with open(path, "r", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            key, _, val = line.partition(" ")
            out[key] = _value(val.strip())
    return out


def read_samples(path: Union[str, Path]) -> Dict[str, List[float]]:
    """A ``queue_<i>.txt`` sample file as columns: ``t``, ``pkts``, ``bytes`` and, for RED
    queues, ``ave_`` and ``cur_max_p_`` (the names of its ``#`` header line)."""
    with open(path, "r", encoding="utf-8") as f:
        header = f.readline().lstrip("#").split()
        cols: Dict[str, List[float]] = {h: [] for h in header}
        for line in f:
            vals = line.split()
            if len(vals) != len(header):
                continue
            for h, v in zip(header, vals):
                cols[h].append(float(v))
    return cols


def _goodput_bytes(fp, delivered: int) -> int:
    """New in-order payload bytes, from TCPSink ``bytes_`` (in-order wire bytes).

    ``bytes_`` counts whole packets as they reach the application in order: sequence 0
    (the ``header``-byte SYN with ``syn_``, else a header-less data packet of packetSize_
    bytes), then data packets of packetSize_ (+ header with ``useHeaders_``) bytes.
    """
    if fp.app != "ftp":
        return delivered
    t = fp.tcp
    size = int(t["packet_size"])
    wire = size + (int(t["header"]) if t["use_headers"] else 0)
    if delivered <= 0:
        return 0
    first = int(t["header"]) if t["syn"] else size
    return (0 if t["syn"] else size) + ((delivered - first) // wire) * size


def _delivered_pkts(fl: Mapping[str, Any], fp: Any) -> int:
    """In-order packets delivered (aqmsim's ``delivered``: the SYN counts as one): the
    new payload / payload size, plus the SYN when ``syn`` and anything was delivered."""
    if fp.app != "ftp":
        return int(fl["received"])
    size = int(fp.tcp["packet_size"])
    data = int(fl["goodput_bytes"]) // size if size > 0 else 0
    return data + (1 if fp.tcp["syn"] and int(fl["delivered_bytes"]) > 0 else 0)


def result_of(plan: Plan, raw: Dict[str, Any]) -> Dict[str, Any]:
    """The run's result (what :func:`aqmsim.ns2.crosscheck.run_ns2` returns) from ``raw``,
    the summary the script printed (:func:`parse_summary`), for the exported ``plan``."""
    D = plan.duration
    res: Dict[str, Any] = {"backend": "ns2", "seed": plan.seed, "duration": D}
    queues: Dict[str, Dict[str, Any]] = {}
    for mi, name in enumerate(plan.monitored):
        p = f"queue.{mi}."
        rate = float(raw[p + "rate"])
        # ns-2's QueueMonitor keeps byte counts in a 32-bit int, which wraps past 2 GiB
        # (1 Gb/s for 18 s). A link sends at most rate·D/8 bytes: the true count is the
        # largest value ≡ the printed one (mod 2^32) not above that.
        cap = rate * D / 8.0
        low = int(raw[p + "bdepartures_"]) % 2**32
        dep_bytes = low + 2**32 * max(0, math.floor((cap - low) / 2**32))
        q = {
            "link": name,
            "rate_bps": rate,
            "arrivals": raw[p + "parrivals_"],
            "departures": raw[p + "pdepartures_"],
            "drops": raw[p + "pdrops_"],
            "marks_departed": raw[p + "pmarks_"],
            "queued_end": raw[p + "pkts_"],
            "arrival_bytes": raw[p + "barrivals_"],
            "departure_bytes": dep_bytes,
            "drop_bytes": raw[p + "bdrops_"],
            "queued_end_bytes": raw[p + "size_"],
            "time_avg_queue_pkts": float(raw[p + "pkts_integral"]) / D,
            "time_avg_queue_bytes": float(raw[p + "bytes_integral"]) / D,
            "utilisation": dep_bytes * 8.0 / (rate * D),
        }
        if p + "delay_cnt" in raw:
            # (no delay_mean line when nothing was dequeued)
            q["mean_queueing_delay_s"] = float(raw.get(p + "delay_mean", 0.0))
        queues[name] = q
    res["queues"] = queues
    if plan.monitored:
        b = queues[plan.monitored[0]]
        res["bottleneck"] = plan.monitored[0]
        res["bottleneck_arrivals"] = b["arrivals"]
        res["bottleneck_departures"] = b["departures"]
        res["bottleneck_drops"] = b["drops"]
        res["bottleneck_queued_end"] = b["queued_end"]
        res["marks_departed"] = b["marks_departed"]
        res["time_avg_queue_pkts"] = b["time_avg_queue_pkts"]
        res["time_avg_queue_bytes"] = b["time_avg_queue_bytes"]
        res["utilisation"] = b["utilisation"]
        res["bottleneck_rate_bps"] = b["rate_bps"]
        res["loss_ratio"] = (b["drops"] / b["arrivals"]) if b["arrivals"] else 0.0
        if "mean_queueing_delay_s" in b:
            res["mean_queueing_delay_s"] = b["mean_queueing_delay_s"]
    flows: List[Dict[str, Any]] = []
    for fp in plan.flows:
        p = f"flow.{fp.index}."
        delivered = int(raw.get(p + "delivered_bytes", 0))
        fl: Dict[str, Any] = {
            "flow": fp.index,
            "src": fp.src,
            "dst": fp.dst,
            "app": fp.app,
            "variant": fp.tcp.get("variant", "udp") if fp.app == "ftp" else fp.app,
            "start": fp.start,
            "stop": fp.stop,
            "received": int(raw[p + "rx_pkts"]),
            "received_bytes": int(raw[p + "rx_bytes"]),
            "delivered_bytes": delivered,
            "goodput_bytes": _goodput_bytes(fp, delivered),
        }
        if fp.app == "ftp":
            fl.update({
                "sent": int(raw[p + "ndatapack_"]),
                "retransmitted": int(raw[p + "nrexmitpack_"]),
                "timeouts": int(raw[p + "nrexmit_"]),
                "cwnd_cuts": int(raw[p + "ncwndcuts_"]),
                "acks_received": int(raw[p + "nackpack_"]),
                "cwnd_end": float(raw[p + "cwnd_"]),
                "ssthresh_end": float(raw[p + "ssthresh_"]),
            })
        else:
            fl["lost"] = int(raw[p + "nlost_"])
        fl["throughput_bps"] = fl["received_bytes"] * 8.0 / D
        fl["goodput_bps"] = fl["goodput_bytes"] * 8.0 / D
        fl["label"] = fp.label
        fl["delivered"] = _delivered_pkts(fl, fp)
        if "fmon.present" in raw:
            # the flow monitor lists only the flows that reached the link
            m = f"fmon.{fp.index}."
            fl["queue_arrivals"] = int(raw.get(m + "parrivals_", 0))
            fl["queue_drops"] = int(raw.get(m + "pdrops_", 0))
            fl["queue_marks_departed"] = int(raw.get(m + "pmarks_", 0))
        flows.append(fl)
    res["flows"] = flows
    res["flow_delivered_bytes"] = [f["delivered_bytes"] for f in flows]
    res["flow_received_bytes"] = [f["received_bytes"] for f in flows]
    res["packets_received"] = sum(f["received"] for f in flows)
    res["throughput_bps"] = sum(f["received_bytes"] for f in flows) * 8.0 / D
    res["goodput_bps"] = sum(f["goodput_bytes"] for f in flows) * 8.0 / D
    tcp = [f for f in flows if f["app"] == "ftp"]
    res["packets_sent"] = sum(f["sent"] for f in tcp)
    res["packets_retransmitted"] = sum(f["retransmitted"] for f in tcp)
    res["timeouts"] = sum(f["timeouts"] for f in tcp)
    # Jain's index over the TCP flows (as aqmsim's summary): (Σx)² / (n·Σx²)
    x = [f["throughput_bps"] for f in flows if f["app"] == "ftp"] or [f["throughput_bps"] for f in flows]
    res["jain_fairness"] = (sum(x) ** 2 / (len(x) * sum(v * v for v in x))) if x and any(x) else float("nan")
    res["draws"] = dict(plan.draws)
    return res


def ns2_summary(result: Mapping[str, Any]) -> Dict[str, float]:
    """The flat numeric entries of a :func:`run_ns2` result (``duration``, ``seed`` and the
    metrics of the table above): what a store keeps as the run's summary, under aqmsim's
    names."""
    out: Dict[str, float] = {}
    for k, v in result.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        out[k] = v
    return out


#: Results.flows columns ns-2 does not measure (no cheap counter): left out of
#: :func:`ns2_flows` (mean_delay_s needs a packet trace at every sink).
#: Results.flows columns ns-2 does not measure: per-packet delays need a trace at every
#: sink; ns-2 counts marked packets when they depart (queue_marks_departed), not marks
#: when made; web transfers (size_bytes, fct_s) are not exported to ns-2.
NS2_FLOWS_UNMEASURED = ("mean_delay_s", "queue_marks", "delay_p50_s", "delay_p90_s",
                        "delay_p99_s", "delay_max_s", "jitter_s", "size_bytes", "fct_s")


def ns2_flows_arrow(result: Mapping[str, Any]):
    """The per-flow results of a :func:`run_ns2` result as a pyarrow Table with the columns
    and types of aqmsim's ``Results.flows`` (:data:`aqmsim.results.SCHEMAS`) where ns-2
    measures them: ``flow``, ``label``, ``src``, ``dst``, ``app``, ``variant``, ``start``,
    ``stop``, ``sent`` (ndatapack_; NaN for CBR, which ns-2 does not count — the column is
    then float64), ``retransmitted``, ``timeouts`` (0 for CBR, as aqmsim), ``received``,
    ``delivered`` (in-order packets, the SYN included), ``throughput_bps``,
    ``goodput_bps`` and, when the run had the flow monitor, ``queue_arrivals``,
    ``queue_drops``, ``queue_marks_departed``. ``mean_delay_s`` and ``queue_marks`` are
    absent (:data:`NS2_FLOWS_UNMEASURED`). Written without pandas metadata, as the engine's
    tables are (:func:`aqmsim.results.frame_from_arrow` reads it back)."""
    import pyarrow as pa

    flows = list(result["flows"])
    cols: Dict[str, Any] = {
        "flow": pa.array([int(f["flow"]) for f in flows], pa.int64()),
        "label": pa.array([str(f.get("label", "")) for f in flows], pa.string()),
        "src": pa.array([str(f["src"]) for f in flows], pa.string()),
        "dst": pa.array([str(f["dst"]) for f in flows], pa.string()),
        "app": pa.array([str(f["app"]) for f in flows], pa.string()),
        "variant": pa.array([str(f["variant"]) if f["app"] == "ftp" else "udp" for f in flows],
                            pa.string()),
        "start": pa.array([float(f["start"]) for f in flows], pa.float64()),
        "stop": pa.array([float(f["stop"]) for f in flows], pa.float64()),
    }
    if all(f["app"] == "ftp" for f in flows):
        cols["sent"] = pa.array([int(f["sent"]) for f in flows], pa.int64())
    else:
        cols["sent"] = pa.array([float(f["sent"]) if f["app"] == "ftp" else math.nan
                                 for f in flows], pa.float64())
    cols["retransmitted"] = pa.array([int(f.get("retransmitted", 0)) for f in flows], pa.int64())
    cols["timeouts"] = pa.array([int(f.get("timeouts", 0)) for f in flows], pa.int64())
    cols["received"] = pa.array([int(f["received"]) for f in flows], pa.int64())
    cols["delivered"] = pa.array([int(f["delivered"]) for f in flows], pa.int64())
    cols["throughput_bps"] = pa.array([float(f["throughput_bps"]) for f in flows], pa.float64())
    cols["goodput_bps"] = pa.array([float(f["goodput_bps"]) for f in flows], pa.float64())
    if flows and all("queue_arrivals" in f for f in flows):
        for c in ("queue_arrivals", "queue_drops", "queue_marks_departed"):
            cols[c] = pa.array([int(f[c]) for f in flows], pa.int64())
    return pa.table(cols)


def ns2_flows(result: Mapping[str, Any]):
    """:func:`ns2_flows_arrow` as the DataFrame ``Results.flows`` would be (same dtypes)."""
    from ..results import frame_from_arrow

    return frame_from_arrow("flows", ns2_flows_arrow(result))
