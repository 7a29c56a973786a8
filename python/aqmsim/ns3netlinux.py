"""The linux TCP stack against ns-3.37 at network level (issue 24, point 3).

Several dumbbells, each run by aqmsim with ``tcp.stack = "linux"`` and by ns-3.37's
``benchmarks/ns3/dumbbell.cc --ns3Defaults=1`` (ns-3's own TCP defaults: PRR, DelAckCount 2,
MinRto 1 s, InitialCwnd 10, SACK, timestamps, 128 KiB buffers), with no alignment by hand:
aqmsim keeps its linux defaults too. Both run the same flows from the same instants over the
same links (the starts are aqmsim's draws for the seed, handed to ns-3 in a flow file), and
five seeds give each metric a mean and a standard error.

* :data:`CASES`: the dumbbells (name -> :class:`Case`);
* :func:`compare` runs one case, both simulators, and returns one row per metric pair;
* ``python -m aqmsim.ns3netlinux [--write docs/ns3-network-linux.md]`` runs every case and
  prints (or writes) the generated table.

ns-3's results are kept in ``benchmarks/ns3/cache/network_linux.json`` (committed), keyed by
dumbbell.cc's source, ns-3's version and the run's options and flows: ns-3 runs again only
for a run whose key is missing (about 0.6 s a run, BBR 1.5 s), and its result is added.

Agreement (the issue's rule): aqmsim's 5-seed mean within 10 % of ns-3's, or within two
combined standard errors (sqrt(SE_a^2 + SE_b^2)). Only the standard library is imported
here; the scenario code is imported when a case runs.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import ns3ref

__all__ = ["Case", "CASES", "CACHE", "SEEDS", "compare", "agrees", "aqmsim_run", "ns3_run", "table_markdown"]

SEEDS = (1, 2, 3, 4, 5)
DURATION = 20.0
REL_TOL = 0.10
FIFO = {"kind": "droptail", "limit": 1000}


@dataclass(frozen=True)
class Case:
    """One dumbbell: a congestion control over a bottleneck queue; ``groups`` are (flow
    count, one-way access delay = egress delay in s), each group a goodput metric."""

    variant: str  # the linux stack's variant, also ns-3's --tcp
    queue: Dict[str, Any]
    rate: str = "10Mb"
    delay: str = "10ms"
    groups: Tuple[Tuple[int, float], ...] = ((10, 0.001),)
    ecn: bool = False
    note: str = ""
    extra_tcp: Dict[str, Any] = field(default_factory=dict)


#: ns-3's bottleneck device holds one packet below the disc (dumbbell.cc: TxQueue MaxSize
#: 1p, no BQL): aqmsim's bottleneck gets the same device queue in every case.
NS3_DEVICE_QUEUE = 1
RED = {"kind": "gentle", "min_th": 20, "max_th": 60, "max_p": 0.1, "w_q": 0.002, "limit": 300}
CASES: Dict[str, Case] = {
    "newreno-codel": Case("newreno", {"kind": "codel", "limit": 1000}),
    "newreno-fq_codel": Case("newreno", {"kind": "fq_codel"}),
    "newreno-pie": Case("newreno", {"kind": "pie", "limit": 1000}),
    "newreno-gentle_red": Case("newreno", RED),
    # two RTT groups, 20 and 80 ms: 2 x (access + 5 ms + egress)
    "cubic-ecn-fq_codel-2rtt": Case("cubic", {"kind": "fq_codel", "ecn": True}, delay="5ms",
                                    groups=((5, 0.0025), (5, 0.0175)), ecn=True),
    "dctcp-codel-ce1ms": Case("dctcp", {"kind": "codel", "limit": 1000, "ecn": True,
                                        "ce_threshold": "1ms"}, ecn=True),
    # more flows on a longer, faster path: 20 flows, 20 Mb/s, RTT 100 ms (2 x (2.5 + 45 + 2.5))
    "newreno-codel-20f-100ms": Case("newreno", {"kind": "codel", "limit": 1000}, rate="20Mb",
                                    delay="45ms", groups=((20, 0.0025),)),
    "cubic-codel-20f-100ms": Case("cubic", {"kind": "codel", "limit": 1000}, rate="20Mb",
                                  delay="45ms", groups=((20, 0.0025),)),
    "cubic-pie-20f-100ms": Case("cubic", {"kind": "pie", "limit": 1000}, rate="20Mb",
                                delay="45ms", groups=((20, 0.0025),)),
    # BBR v1 on a longer, faster path: 20 Mb/s, RTT 84 ms. With ns3_quirks: ns-3's TcpBbr
    # collapses through two of its departures (NextSeg's rule 3 above the highest SACK once
    # the 128 KiB buffer stops new data; the rate sample's ACK phase from a prior time of 0),
    # which aqmsim reproduces only under ns3_quirks (docs/tcp/bbr.md)
    "bbr-codel": Case("bbr", {"kind": "codel", "limit": 1000}, rate="20Mb", delay="40ms",
                      extra_tcp={"ns3_quirks": True}),
    "bbr-fq_codel": Case("bbr", {"kind": "fq_codel"}, rate="20Mb", delay="40ms",
                         extra_tcp={"ns3_quirks": True}),
    # the same dumbbell at aqmsim's defaults (RFC 6675's NextSeg, Linux's rate sampler): what
    # a user gets without ns3_quirks, shown beside ns-3 so the choice is visible
    "bbr-codel-default": Case("bbr", {"kind": "codel", "limit": 1000}, rate="20Mb", delay="40ms"),
}
# the two CUBIC dumbbells of the 100 ms path again with ns3_quirks: ns-3's NextSeg resends
# segments merely in flight once its 128 KiB buffer stops new data (rule 3 without RFC
# 6675's (1.b)), which in the first slow start's losses on this path adds 400-1000 spurious
# retransmissions a run; reproduced, CUBIC agrees on every pair (the defaults' three misses
# are that). The ns-3 runs are the base cases' (same options and flows: the same cached
# results)
for _base in ("cubic-codel-20f-100ms", "cubic-pie-20f-100ms"):
    CASES[f"{_base}-quirks"] = replace(CASES[_base], extra_tcp={"ns3_quirks": True})


def scenario_dict(name: str, seed: int) -> Dict[str, Any]:
    """aqmsim's scenario for case ``name``: every TCP field at the linux stack's default."""
    c = CASES[name]
    groups = []
    for count, d in c.groups:
        edge = {"rate": "100Mb", "delay": f"{d!r}s", "queue": FIFO, "reverse_queue": FIFO}
        groups.append({"count": count, "start": {"uniform": [0.0, 1.0]}, "access": edge,
                       "egress": edge})
    tcp = {"stack": "linux", "variant": c.variant, **({"ecn": True} if c.ecn else {}), **c.extra_tcp}
    return {"name": f"ns3net-{name}", "duration": f"{DURATION}s", "seed": int(seed), "tcp": tcp,
            "dumbbell": {"bottleneck": {"rate": c.rate, "delay": c.delay, "queue": {**c.queue, "device_queue": NS3_DEVICE_QUEUE},
                                        "reverse_queue": FIFO},
                         "groups": groups},
            "monitor": {"queues": ["R1->R2"], "delays": True}}


def _jain(xs: Sequence[float]) -> float:
    s2 = sum(x * x for x in xs)
    return 1.0 if not xs or s2 == 0 else sum(xs) ** 2 / (len(xs) * s2)


def _metrics(c: Case, util: float, qmean: float, qp99: float, drops: int, marks: int,
             goodputs: Sequence[float]) -> Dict[str, float]:
    out = {"utilisation": util, "qdelay_mean_ms": qmean * 1e3, "qdelay_p99_ms": qp99 * 1e3,
           "drops": float(drops), "marks": float(marks)}
    i = 0
    for g, (count, d) in enumerate(c.groups):
        out[f"goodput_g{g}_mbps"] = statistics.fmean(goodputs[i:i + count]) / 1e6
        i += count
    out["jain"] = _jain(goodputs)
    return out


def aqmsim_run(name: str, seed: int) -> Dict[str, float]:
    from .scenario import Scenario

    r = Scenario.from_dict(scenario_dict(name, seed)).run()
    s = r.summary
    good = [float(x) for x in r.flows.sort_values("flow")["goodput_bps"]]
    return _metrics(CASES[name], s["utilisation"], s["mean_queueing_delay_s"], s["qdelay_p99_s"],
                    s["bottleneck_drops"], s["marks"], good)


def ns3_plan(name: str, seed: int) -> Tuple[Dict[str, Any], List[str]]:
    """ns-3's options and flow-file lines for case ``name``: the links, disc and flow starts
    of aqmsim's resolved scenario; TCP left at ns-3's defaults."""
    from .scenario import Scenario
    from .suite.ns3_anchor import _bps, _queue_args

    c = CASES[name]
    r = Scenario.from_dict(scenario_dict(name, seed)).validate()
    links = {(ln["from"], ln["to"]): ln for ln in r["links"]}
    bn = links[("R1", "R2")]
    q = bn["queue"]
    lines = []
    for j, f in enumerate(r["flows"]):
        acc, egr = links[(f"S{j}", "R1")], links[("R2", f"D{j}")]
        # the initial window is ns-3's (10) under --ns3Defaults: the field is not read
        lines.append(f"tcp {f['start']!r} {DURATION!r} {acc['delay']!r} {egr['delay']!r} {c.variant} 10")
    qd = {**q, "ecn": False} if q["kind"] in ("red", "gentle") else q  # ECN: --ecn below
    opts: Dict[str, Any] = {"bottleneck": _bps(bn["rate"]), "bottleneckDelay": f"{bn['delay']!r}s",
                            "access": "100000000bps", "duration": DURATION, "seed": int(seed),
                            "warmup": 0, "ns3Defaults": True, "segment": 1000, "tcp": c.variant,
                            "ecn": bool(c.ecn)}
    opts.update(_queue_args(qd))
    if q.get("ce_threshold") is not None:
        opts["ceThreshold"] = f"{q['ce_threshold']!r}s"
    return opts, lines


CACHE = ns3ref.REPO / "benchmarks" / "ns3" / "cache" / "network_linux.json"
_lock = threading.Lock()


def _key(opts: Dict[str, Any], lines: Sequence[str]) -> str:
    """What ns-3 was asked to run: the program's source, ns-3's version, options, flows."""
    from .suite.ns3_anchor import _ns3_version

    h = hashlib.sha256(Path(ns3ref.REPO / "benchmarks" / "ns3" / "dumbbell.cc").read_bytes())
    h.update(json.dumps({"opts": opts, "flows": list(lines), "ns3": _ns3_version()},
                        sort_keys=True).encode())
    return h.hexdigest()[:32]


def _load_cache() -> Dict[str, Any]:
    try:
        return json.loads(CACHE.read_text())
    except (OSError, ValueError):
        return {}


def ns3_run(name: str, seed: int, cache: bool = True) -> Dict[str, float]:
    """ns-3's metrics for case ``name`` and ``seed``; kept in :data:`CACHE` (committed)
    keyed by :func:`_key`, so ns-3 runs again only when the program, ns-3 or the run's
    options or flows change."""
    opts, lines = ns3_plan(name, seed)
    key = _key(opts, lines)
    if cache:
        with _lock:
            hit = _load_cache().get(key)
        if hit is not None:
            return hit["metrics"]
    with tempfile.TemporaryDirectory(prefix="ns3net-") as d:
        ff = Path(d) / "flows.txt"
        ff.write_text("".join(line + "\n" for line in lines))
        args = {k.replace("::", "__") if k.startswith("ns3::") else k: v for k, v in opts.items()}
        b = ns3ref.dumbbell(flowFile=str(ff), timeout=600, **args)
    m = _metrics(CASES[name], b["utilisation"], b["txdelay_mean_s"], b["txdelay_p99_s"],
                 b["bottleneck_drops"], b["bottleneck_marks"], b["flows"])
    if cache:
        with _lock:
            data = _load_cache()
            data[key] = {"case": name, "seed": int(seed), "metrics": m}
            CACHE.parent.mkdir(parents=True, exist_ok=True)
            tmp = CACHE.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            os.replace(tmp, CACHE)
    return m


def _mean_se(xs: Sequence[float]) -> Tuple[float, float]:
    m = statistics.fmean(xs)
    return m, (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0)


def agrees(a: float, se_a: float, b: float, se_b: float) -> bool:
    """The issue's rule: within 10 % of ns-3's mean, or within 2 combined standard errors."""
    d = abs(a - b)
    return d <= REL_TOL * abs(b) + 1e-12 or d <= 2 * math.hypot(se_a, se_b)


def compare(name: str, seeds: Sequence[int] = SEEDS, workers: int = 2) -> List[Dict[str, Any]]:
    """Both simulators on case ``name`` over ``seeds``: one row per metric (metrics that are
    zero in every run of both, e.g. marks without ECN, are left out)."""
    cached = _load_cache()
    if any(_key(*ns3_plan(name, s)) not in cached for s in seeds):
        ns3ref.build("dumbbell")  # once, before two runs at once would each build it
    with ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
        theirs = list(ex.map(lambda s: ns3_run(name, s), seeds))
    ours = [aqmsim_run(name, s) for s in seeds]
    rows = []
    for metric in ours[0]:
        a = [r[metric] for r in ours]
        b = [r[metric] for r in theirs]
        if not any(a) and not any(b):
            continue
        (ma, sa), (mb, sb) = _mean_se(a), _mean_se(b)
        rows.append({"case": name, "metric": metric, "aqmsim": ma, "aqmsim_se": sa, "ns3": mb,
                     "ns3_se": sb, "ratio": ma / mb if mb else math.inf, "pass": agrees(ma, sa, mb, sb)})
    return rows


def _fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def table_markdown(rows: Sequence[Dict[str, Any]], reasons: Optional[Dict[Tuple[str, str], str]] = None) -> str:
    """The rows as a markdown table; ``reasons`` explains each miss by (case, metric)."""
    reasons = reasons or {}
    out = ["| case | metric | ns-3 ± SE | aqmsim ± SE | ratio | agrees | why not |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        why = "" if r["pass"] else reasons.get((r["case"], r["metric"]), "not explained yet")
        out.append(f"| {r['case']} | {r['metric']} | {_fmt(r['ns3'])} ± {_fmt(r['ns3_se'])} | "
                   f"{_fmt(r['aqmsim'])} ± {_fmt(r['aqmsim_se'])} | {r['ratio']:.2f} | "
                   f"{'yes' if r['pass'] else '**no**'} | {why} |")
    return "\n".join(out) + "\n"


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def main(argv: Optional[Sequence[str]] = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m aqmsim.ns3netlinux", description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", help=f"case names (default: all of {', '.join(CASES)})")
    p.add_argument("--write", metavar="PATH", help="write the table between the markers in this markdown file")
    a = p.parse_args(argv)
    bad = [c for c in a.cases if c not in CASES]
    if bad:
        print(f"aqmsim.ns3netlinux: unknown case {bad[0]!r}: expected one of {', '.join(CASES)}",
              file=sys.stderr)
        return 2
    if a.write and "<!-- table:start -->" not in _read(a.write):
        print(f"aqmsim.ns3netlinux: --write {a.write}: no '<!-- table:start -->' marker in it",
              file=sys.stderr)
        return 2
    rows = [r for c in (a.cases or CASES) for r in compare(c)]
    if not a.cases:  # a full run: drop the entries no case asks for any more
        keep = {_key(*ns3_plan(c, s)) for c in CASES for s in SEEDS}
        data = {k: v for k, v in _load_cache().items() if k in keep}
        CACHE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    from .ns3netlinux_misses import MISSES

    text = table_markdown(rows, MISSES)
    if a.write:
        path = Path(a.write)
        doc = path.read_text()
        head, _, rest = doc.partition("<!-- table:start -->")
        _, _, tail = rest.partition("<!-- table:end -->")
        path.write_text(f"{head}<!-- table:start -->\n{text}<!-- table:end -->{tail}")
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
