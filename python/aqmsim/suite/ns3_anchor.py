"""ns-3's point beside aqmsim's on the RFC 7928 suite's graphs (issue 16, point 5).

A suite scenario that ns-3's dumbbell (``benchmarks/ns3/dumbbell.cc``) can run as aqmsim
runs it — a dumbbell of bulk TCP flows (``sack``, ``newreno``, ``cubic``) and unresponsive
CBR senders, each flow with its own start, stop, access and egress delays and initial
window, through RED, Gentle RED, CoDel, PIE or FQ-CoDel — is translated from aqmsim's
*resolved* scenario (every default filled in, every "auto" computed, every random start and
delay drawn with the run's seed), so both simulators run the same flows from the same
instants over the same links; only the TCP implementations and the simulators' own random
numbers (RED's and PIE's coin flips) differ.

* :func:`reason_not_anchorable` says in one line why a scenario cannot be run that way;
* :func:`run_point` runs ns-3 on one (scenario, seed) and returns aqmsim's summary names;
* :func:`points` runs many, two at a time, cached in a directory as JSON keyed by what ns-3
  was asked to run (its command line, flow file, ns-3 version and the program's source),
  so a second report does not run ns-3 again.

The mapping and what it cannot match are in docs/ns3-reference.md, "The RFC 7928 suite's
anchor".
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import ns3ref
from ..scenario import Scenario

__all__ = ["reason_not_anchorable", "run_point", "points", "SUMMARY_KEYS"]

# The summary keys a point carries (aqmsim's names), besides the per-flow goodputs "flows".
SUMMARY_KEYS = ("mean_queueing_delay_s", "qdelay_p99_s", "goodput_bps", "tcp_goodput_bps",
                "utilisation", "loss_ratio", "jain_fairness")

PROGRAM = ns3ref.REPO / "benchmarks" / "ns3" / "dumbbell.cc"
# UDP (8) + IPv4 (20) header bytes of a CBR packet: ns-3 sends payload, aqmsim wire sizes.
UDP_IP_HEADER = 28
# aqmsim TCP variant -> ns-3 congestion control; "newreno" (ns-2's, no SACK) runs with
# ns-3's SACK off, the others with it on, so they cannot share a run.
CONGESTION_CONTROL = {"sack": "newreno", "newreno": "newreno", "cubic": "cubic"}
SACK = {"sack": True, "cubic": True, "newreno": False}
# What the dumbbell program fixes for every TCP flow (dumbbell.cc's set-up), as aqmsim
# fields: a flow that asks for something else cannot be run there.
TCP_FIXED = {"header": 40, "ack_size": 40, "use_headers": True, "delayed_ack": False,
             "syn": True, "max_burst": 0, "ecn": False}
# Fields that must be the same for every TCP flow (ns-3 sets them for all sockets).
TCP_SHARED = ("packet_size", "window", "min_rto", "tick", "dupacks", "limited_transmit",
              "cubic_beta", "cubic_c", "fast_convergence", "hystart", "tcp_friendliness")
ANCHORED_QUEUES = ("red", "gentle", "codel", "pie", "fq_codel")
GROUP_KEYS = {"name", "count", "access", "egress", "app", "start", "stop", "tcp", "cbr"}
BOTTLENECK_KEYS = {"rate", "delay", "queue", "reverse_queue"}
APP_WORDS = {"web": "web transfers (short TCP connections)", "onoff": "on/off sources"}


class _NotAnchorable(ValueError):
    """One line why ns-3's dumbbell cannot run this scenario faithfully."""


# ---------------------------------------------------------------------- the translation
def _check_raw(data: Mapping[str, Any]) -> None:
    """What the resolved scenario no longer shows: the topology's and traffic's shape."""
    db = data.get("dumbbell")
    if not isinstance(db, Mapping):
        raise _NotAnchorable("not a dumbbell (ns-3's program builds only the dumbbell)")
    if data.get("nodes") or data.get("links") or data.get("flows"):
        raise _NotAnchorable("explicit nodes, links or flows besides the dumbbell's groups")
    extra = sorted(set(db.get("bottleneck", {})) - BOTTLENECK_KEYS)
    if extra:
        raise _NotAnchorable(f"dumbbell.bottleneck.{extra[0]}: ns-3's bottleneck has a fixed "
                             "rate and delay")
    kind = db.get("bottleneck", {}).get("queue", {}).get("kind", "droptail")
    if kind not in ANCHORED_QUEUES:
        raise _NotAnchorable(_queue_refusal(kind))
    for i, g in enumerate(db.get("groups", [])):
        extra = sorted(set(g) - GROUP_KEYS)
        if extra:
            raise _NotAnchorable(f"dumbbell.groups.{i}.{extra[0]}: no counterpart in ns-3's dumbbell")
        app = g.get("app", "ftp")
        if app not in ("ftp", "cbr"):
            raise _NotAnchorable(f"dumbbell.groups.{i}.app = {app!r}: "
                                 f"{APP_WORDS.get(app, app)} are not in ns-3's dumbbell")
        extra = sorted(set(g.get("cbr", {})) - {"rate", "packet_size"})
        if extra:
            raise _NotAnchorable(f"dumbbell.groups.{i}.cbr.{extra[0]}: ns-3's CBR sender is a "
                                 "constant-rate one")


def _queue_args(q: Mapping[str, Any]) -> Dict[str, Any]:
    """The dumbbell's options and disc attributes for aqmsim's resolved bottleneck queue."""
    kind = q["kind"]
    if "limit_bytes" in q and q.get("limit_bytes") is not None:
        raise _NotAnchorable("a byte-limited bottleneck buffer (the anchor maps packet limits)")
    # aqmsim's limit counts the packets waiting; in ns-3 one of them waits in the device's
    # one-packet queue below the disc, so the disc holds one fewer -- unless aqmsim models
    # that device queue too (queue.device_queue = 1), when the two discs match.
    dev = int(q.get("device_queue", 0))
    if dev not in (0, 1):
        raise _NotAnchorable("a device queue other than ns-3's one packet")
    if q["limit"] < 2:
        raise _NotAnchorable("a bottleneck buffer under 2 packets")
    opts: Dict[str, Any] = {"limit": int(q["limit"]) - (1 - dev)}
    if kind in ("red", "gentle"):
        if q["bytes"] or q["queue_in_bytes"] or q["ecn"]:
            raise _NotAnchorable(f"{kind} in byte mode or with ECN (the anchor maps packet-mode RED)")
        opts.update(queue="red", minTh=q["min_th"], maxTh=q["max_th"], maxP=q["max_p"],
                    qw=q["w_q"], gentle=kind == "gentle" or bool(q.get("gentle")),
                    wait=bool(q["wait"]),
                    meanPktSize=int(round(q["mean_pktsize"])))
        return opts
    if kind == "codel":
        a = "ns3::CoDelQueueDisc::"
        opts.update({"queue": "codel", a + "Target": f"{q['target']}s",
                     a + "Interval": f"{q['interval']}s", a + "MinBytes": int(q["min_bytes"])})
        return opts
    if kind == "fq_codel":
        if q["quantum"] != 1500 or q["min_bytes"] != 1500:
            raise _NotAnchorable("fq_codel with a quantum or min_bytes other than 1500 (ns-3.37 "
                                 "takes the quantum from the device MTU and keeps MinBytes 1500)")
        if q.get("classify", "hash") != "hash":
            raise _NotAnchorable("fq_codel classifying by flow number (ns-3 hashes the 5-tuple)")
        a = "ns3::FqCoDelQueueDisc::"
        opts.update({"queue": "fq_codel", a + "Target": f"{q['target']}s",
                     a + "Interval": f"{q['interval']}s", a + "Flows": int(q["flows"]),
                     a + "DropBatchSize": int(q["drop_batch"]),
                     a + "Perturbation": int(q["perturbation"])})
        return opts
    if kind == "pie":
        a = "ns3::PieQueueDisc::"
        opts.update({"queue": "pie", a + "QueueDelayReference": f"{q['target']}s",
                     a + "Tupdate": f"{q['t_update']}s", a + "Supdate": f"{q['s_update']}s",
                     a + "A": q["alpha"], a + "B": q["beta"],
                     a + "MaxBurstAllowance": f"{q['max_burst']}s",
                     a + "UseDequeueRateEstimator": bool(q["dq_rate_estimator"]),
                     a + "DequeueThreshold": int(q["dq_threshold"]),
                     a + "UseCapDropAdjustment": bool(q["cap_drop_adjustment"]),
                     a + "UseDerandomization": bool(q["derandomize"]),
                     a + "MeanPktSize": int(q["mean_pktsize"])})
        if q.get("active_threshold") is not None:
            opts[a + "ActiveThreshold"] = f"{q['active_threshold']}s"
        return opts
    raise _NotAnchorable(_queue_refusal(kind))


def _queue_refusal(kind: str) -> str:
    return (f"bottleneck queue {kind!r}: the anchor runs {', '.join(ANCHORED_QUEUES)} "
            "(ns-3.37's other discs are not aqmsim's)")


def _tcp_args(tcps: List[Mapping[str, Any]]) -> Dict[str, Any]:
    """The options every TCP flow shares, after checking they do share them."""
    for t in tcps:
        if t.get("stack", "ns2") != "ns2":
            raise _NotAnchorable(f"tcp.stack = {t['stack']!r}: the anchor maps aqmsim's ns2 "
                                 "TCP stack onto ns-3's dumbbell, not the linux one")
        if t["variant"] not in CONGESTION_CONTROL:
            raise _NotAnchorable(f"TCP variant {t['variant']!r}: the anchor runs sack, newreno "
                                 "and cubic")
        for k, v in TCP_FIXED.items():
            if k in t and t[k] != v:
                raise _NotAnchorable(f"tcp.{k} = {t[k]!r}: ns-3's dumbbell runs {v!r}")
        if t["variant"] == "cubic" and t["tcp_friendliness"]:
            raise _NotAnchorable("cubic with tcp_friendliness: ns-3.37's TcpCubic has no "
                                 "Reno-friendly region")
    if len({SACK[t["variant"]] for t in tcps}) > 1:
        raise _NotAnchorable("newreno (no SACK) beside sack or cubic: ns-3 turns SACK on or off "
                             "for every socket")
    for k in TCP_SHARED:
        values = {json.dumps(t[k]) for t in tcps if k in t}  # CUBIC's only in cubic flows
        if len(values) > 1:
            raise _NotAnchorable(f"tcp.{k} differs between flows: ns-3 sets it for every socket")
    if not tcps:
        return {}
    t = tcps[0]
    opts: Dict[str, Any] = {"segment": int(t["packet_size"]), "window": int(t["window"]),
                            "ns3::TcpSocketBase::Sack": SACK[t["variant"]],
                            "ns3::TcpSocketBase::MinRto": f"{t['min_rto']}s",
                            "ns3::TcpSocketBase::ClockGranularity": f"{t['tick']}s",
                            "ns3::TcpSocketBase::ReTxThreshold": int(t["dupacks"]),
                            "ns3::TcpSocketBase::LimitedTransmit": bool(t["limited_transmit"])}
    cubic = [x for x in tcps if x["variant"] == "cubic"]
    if cubic:
        c = cubic[0]
        opts.update({"hystart": bool(c["hystart"]), "ns3::TcpCubic::Beta": c["cubic_beta"],
                     "ns3::TcpCubic::C": c["cubic_c"],
                     "ns3::TcpCubic::FastConvergence": bool(c["fast_convergence"])})
    return opts


def _bps(rate: float) -> str:
    # ns-3's DataRate parser takes digits and '.', no exponent
    return f"{rate:.0f}bps" if float(rate).is_integer() else f"{rate:.6f}bps"


def _plan(scenario: Mapping[str, Any], seed: int) -> Tuple[Dict[str, Any], List[str], List[str]]:
    """(the dumbbell's options, the flow file's lines, each flow's kind "tcp"|"cbr") for one
    run; raises _NotAnchorable."""
    _check_raw(scenario)
    data = copy.deepcopy(dict(scenario))
    data["seed"] = int(seed)  # the resolved starts and delays are the run's own draws
    r = Scenario.from_dict(data).validate()
    links = {(ln["from"], ln["to"]): ln for ln in r["links"]}
    bn = links[("R1", "R2")]
    flows = r["flows"]
    rates = set()
    lines, kinds, tcps = [], [], []
    for j, f in enumerate(flows):
        if f["src"] != f"S{j}" or f["dst"] not in (f"D{j}", "R2"):
            raise _NotAnchorable("flows are not one per source from S_k to D_k")
        if f["app"] not in ("ftp", "cbr"):
            raise _NotAnchorable(f"app {f['app']!r}: {APP_WORDS.get(f['app'], f['app'])} are "
                                 "not in ns-3's dumbbell")
        acc = links[(f"S{j}", "R1")]
        egr = links.get(("R2", f"D{j}"))
        rates.add(acc["rate"])
        # Without an egress link aqmsim's flow ends at R2; ns-3 needs a leaf: a 0-delay one.
        egress_delay = egr["delay"] if egr else 0.0
        if egr:
            rates.add(egr["rate"])
        head = f"{f['start']!r} {f['stop']!r} {acc['delay']!r} {egress_delay!r}"
        if f["app"] == "cbr":
            c = f["cbr"]
            if c.get("burst", 1) not in (1, None):
                raise _NotAnchorable("bursty CBR: ns-3's CBR sender is a constant-rate one")
            if c["packet_size"] <= UDP_IP_HEADER:
                raise _NotAnchorable(f"CBR packets of {c['packet_size']} bytes: ns-3 needs more "
                                     f"than its {UDP_IP_HEADER} bytes of UDP/IP header")
            lines.append(f"cbr {head} {c['rate']!r} {int(c['packet_size'])}")
            kinds.append("cbr")
        else:
            t = f["tcp"]
            tcps.append(t)
            cc = CONGESTION_CONTROL.get(t["variant"], t["variant"])
            lines.append(f"tcp {head} {cc} {int(t['window_init'])}")
            kinds.append("tcp")
    if len(rates) > 1:
        raise _NotAnchorable("access or egress links of different rates: ns-3's dumbbell has one")
    opts: Dict[str, Any] = {"bottleneck": _bps(bn["rate"]), "bottleneckDelay": f"{bn['delay']!r}s",
                            "access": _bps(rates.pop()), "duration": r["duration"],
                            "seed": int(seed), "warmup": 0}
    opts.update(_queue_args(bn["queue"]))
    opts.update(_tcp_args(tcps))
    return opts, lines, kinds


def reason_not_anchorable(scenario: Mapping[str, Any]) -> Optional[str]:
    """None when ns-3's dumbbell can run this aqmsim scenario dict as aqmsim runs it, else
    one line saying why not. A scenario aqmsim itself refuses raises its ScenarioError."""
    try:
        _plan(scenario, int(scenario.get("seed", 1)))
    except _NotAnchorable as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------- running
_version: Dict[str, str] = {}


def _ns3_version() -> str:
    if "v" not in _version:
        if not ns3ref.available():
            raise ns3ref.Ns3NotFoundError(ns3ref.MISSING)
        p = subprocess.run(["pkg-config", "--modversion", "ns3-core"], capture_output=True,
                           text=True, check=True)
        _version["v"] = p.stdout.strip()
    return _version["v"]


def _cache_key(opts: Mapping[str, Any], lines: Sequence[str]) -> str:
    """What ns-3 was asked to run: options, flows, ns-3's version, the program's source."""
    h = hashlib.sha256()
    h.update(json.dumps({"opts": opts, "flows": list(lines), "ns3": _ns3_version()},
                        sort_keys=True).encode())
    h.update(PROGRAM.read_bytes())
    return h.hexdigest()[:32]


def _raw(opts: Mapping[str, Any], lines: Sequence[str]) -> Dict[str, Any]:
    """Run the dumbbell with these options and flows: its parsed output."""
    with tempfile.TemporaryDirectory(prefix="ns3anchor-") as d:
        ff = Path(d) / "flows.txt"
        ff.write_text("".join(line + "\n" for line in lines))
        args = {k.replace("::", "__") if k.startswith("ns3::") else k: v for k, v in opts.items()}
        return ns3ref.dumbbell(flowFile=str(ff), **args)


def _jain(xs: Sequence[float]) -> float:
    s2 = sum(x * x for x in xs)
    return 1.0 if not xs or s2 == 0 else sum(xs) ** 2 / (len(xs) * s2)


def _summary(raw: Mapping[str, Any], kinds: Sequence[str], lines: Sequence[str]) -> Dict[str, Any]:
    """aqmsim's summary names from ns-3's output."""
    flows = []
    for bps, kind, line in zip(raw["flows"], kinds, lines):
        if kind == "cbr":  # ns-3's sink counts UDP payload; aqmsim a CBR flow's wire bits
            wire = int(line.split()[-1])
            bps = bps * wire / (wire - UDP_IP_HEADER)
        flows.append(bps)
    arrivals = raw["bottleneck_arrivals"]
    return {
        "mean_queueing_delay_s": raw["txdelay_mean_s"],
        "qdelay_p99_s": raw["txdelay_p99_s"],
        "goodput_bps": sum(flows),
        # the suite report's delay-goodput graph plots the TCP flows' goodput
        "tcp_goodput_bps": sum(b for b, k in zip(flows, kinds) if k == "tcp"),
        "utilisation": raw["utilisation"],
        "loss_ratio": raw["bottleneck_drops"] / arrivals if arrivals else 0.0,
        # aqmsim's is over the TCP flows' throughputs; ns-3's sinks give goodputs
        "jain_fairness": _jain([b for b, k in zip(flows, kinds) if k == "tcp"]),
        "bottleneck_drops": raw["bottleneck_drops"],
        "bottleneck_arrivals": arrivals,
        "flows": flows,
    }


def _run_cached(opts: Dict[str, Any], lines: List[str], cache_dir: Optional[Path]) -> Dict[str, Any]:
    if cache_dir is None:
        return _raw(opts, lines)
    path = Path(cache_dir) / f"{_cache_key(opts, lines)}.json"
    if path.exists():
        return json.loads(path.read_text())["raw"]
    raw = _raw(opts, lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}.{id(raw)}")
    tmp.write_text(json.dumps({"opts": opts, "flows": lines, "raw": raw}, sort_keys=True))
    os.replace(tmp, path)  # whole or absent, even with two reports at once
    return raw


def run_point(scenario: Mapping[str, Any], seed: int, *,
              cache_dir: Optional[Path] = None) -> Dict[str, Any]:
    """Run ns-3's dumbbell on ``scenario`` (an aqmsim scenario dict) with aqmsim's draws for
    ``seed``; aqmsim's summary names (``SUMMARY_KEYS``, plus ``flows``: per-flow goodputs in
    b/s, CBR flows in wire bits as aqmsim counts them). Raises ``ValueError`` naming why the
    scenario cannot be anchored, ``ns3ref.Ns3NotFoundError`` without ns-3."""
    _ns3_version()
    try:
        opts, lines, kinds = _plan(scenario, seed)
    except _NotAnchorable as exc:
        raise ValueError(f"not anchorable in ns-3: {exc}") from None
    return _summary(_run_cached(opts, lines, cache_dir), kinds, lines)


def points(scenarios: Sequence[Tuple[str, Mapping[str, Any]]], seeds: Sequence[int],
           cache_dir: Optional[Path], workers: int = 2):
    """ns-3's points for every anchorable (key, scenario) and seed: a pandas DataFrame, one
    row per (key, seed) with ``SUMMARY_KEYS`` (scenarios ns-3 cannot run are left out:
    :func:`reason_not_anchorable` says why). Runs ``workers`` ns-3 processes at once; each
    result is kept in ``cache_dir`` as JSON, so asking again runs nothing (None: no cache)."""
    import pandas as pd

    _ns3_version()
    jobs = []
    for key, sc in scenarios:
        for seed in seeds:
            try:
                opts, lines, kinds = _plan(sc, seed)
            except _NotAnchorable:
                continue
            jobs.append((key, seed, opts, lines, kinds))
    if jobs:
        ns3ref.build("dumbbell")  # once, before the workers start

    def one(job):
        key, seed, opts, lines, kinds = job
        s = _summary(_run_cached(opts, lines, cache_dir), kinds, lines)
        return {"key": key, "seed": seed, **{k: s[k] for k in SUMMARY_KEYS}}

    with ThreadPoolExecutor(max_workers=max(1, int(workers))) as ex:
        rows = list(ex.map(one, jobs))
    return pd.DataFrame(rows, columns=["key", "seed", *SUMMARY_KEYS])
