"""Network-level agreement with ns-3.37: one dumbbell, each modern discipline (CoDel, PIE,
FQ-CoDel) under NewReno, CUBIC and DCTCP+ECN, 5 seeds, aqmsim beside ns-3's
``benchmarks/ns3/dumbbell.cc``.

The queue disciplines agree with ns-3 packet for packet (test_ns3_queues.py); the TCPs do
not, by design: ns-3 counts bytes, opens with a three-way handshake, recovers losses by
RFC 6675's SACK scoreboard, and runs its own CUBIC/DCTCP code paths, while aqmsim's
senders count packets and recover like ns-2's Sack1 (docs/ns3-reference.md, "What differs
by design"). So the comparison asks for what those differences must not change — the
bottleneck stays full, the queueing delay the discipline produces, how often it has to
drop or mark, how evenly the flows share — each within a tolerance argued in
docs/ns3-reference.md ("Network-level agreement"): the seed-to-seed spread of the 5-seed
mean plus the systematic difference the TCP models can explain.
"""

from __future__ import annotations

import statistics
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Tuple

import pytest
from aqmsim import Scenario, ns3ref

SEEDS = (1, 2, 3, 4, 5)
FLOWS = 10
DURATION = 20.0


pytestmark = pytest.mark.usefixtures("ns3_required")


# aqmsim's TCP variant for ns-3's (ns-3's NewReno runs with SACK: aqmsim's "sack" is NewReno's
# congestion control with SACK recovery, as ns-2's Sack1).
VARIANT = {"newreno": "sack", "cubic": "cubic", "dctcp": "dctcp"}


#: PIE per queue or for the queue: no CE threshold, drops (not marks) once p ≥ 0.1.
PIES = ("pie", "fq_pie")


def queue_table(kind: str, tcp: str) -> Dict[str, Any]:
    """The bottleneck's table, as dumbbell.cc sets the disc up (its --limit defaults;
    DCTCP: a 1 ms CE threshold for CoDel and FQ-CoDel, PIE marks while p < 0.1)."""
    q: Dict[str, Any] = {"kind": kind}
    if kind in ("codel", "pie"):
        q["limit"] = 1000
    if tcp == "dctcp":
        q["ecn"] = True
        if kind not in PIES:
            q["ce_threshold"] = "1ms"
    return q


def aqmsim_run(kind: str, tcp: str, seed: int) -> Dict[str, float]:
    fifo = {"kind": "droptail", "limit": 1000}
    edge = {"rate": "100Mb", "delay": "1ms", "queue": fifo, "reverse_queue": fifo}
    sc = Scenario.from_dict({
        "name": f"ns3-{kind}-{tcp}", "duration": f"{DURATION}s", "seed": seed,
        "tcp": {"variant": VARIANT[tcp], "packet_size": 1000, "header": 40, "window": 200,
                "window_init": 2, "min_rto": 0.2, "tick": 0.01, **({"ecn": True} if tcp == "dctcp" else {}),
                # ns-3.37's TcpCubic has no Reno-friendly region
                **({"tcp_friendliness": False} if tcp == "cubic" else {})},
        "dumbbell": {
            "bottleneck": {"rate": "10Mb", "delay": "10ms", "queue": queue_table(kind, tcp), "reverse_queue": fifo},
            "groups": [{"count": FLOWS, "start": {"uniform": [0.0, 1.0]}, "access": edge, "egress": edge}],
        },
        "monitor": {"queues": ["R1->R2"], "delays": True},
    })
    r = sc.run()
    s = r.summary
    return {"utilisation": s["utilisation"], "qdelay_mean_ms": s["mean_queueing_delay_s"] * 1e3,
            "qdelay_p99_ms": s["qdelay_p99_s"] * 1e3, "signals": s["bottleneck_drops"] + s["marks"],
            "marks": s["marks"], "jain": s["jain_fairness"]}


def jain(xs: List[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def ns3_run(kind: str, tcp: str, seed: int) -> Dict[str, float]:
    b = ns3ref.dumbbell(flows=FLOWS, bottleneck="10Mbps", bottleneckDelay="10ms", access="100Mbps",
                        accessDelay="1ms", duration=DURATION, warmup=0, seed=seed, queue=kind, tcp=tcp,
                        window=200, startMin=0, startMax=1, ecn=int(tcp == "dctcp"))
    return {"utilisation": b["utilisation"], "qdelay_mean_ms": b["qdelay_mean_s"] * 1e3,
            "qdelay_p99_ms": b["qdelay_p99_s"] * 1e3, "signals": b["bottleneck_drops"] + b["bottleneck_marks"],
            "marks": b["bottleneck_marks"], "jain": jain([f for f in b["flows"]])}


# metric -> (kind of tolerance, value): "abs" in the metric's unit, "rel" a fraction of ns-3's.
# Where the TCP models agree by design (NewReno's congestion control on every discipline;
# DCTCP on CoDel and FQ-CoDel, where every signal is a CE mark and no loss recovery runs),
# everything must agree. Each tolerance is about four standard errors of the 5-seed mean
# difference, plus the set-up difference both sides keep on purpose: ns-3's device queue
# holds one packet below the disc, so its sojourn times leave out one transmission time
# (0.8 ms at 10 Mb/s) and CoDel sees slightly younger heads.
FULL = {
    "utilisation": ("abs", 0.02),
    "qdelay_mean_ms": ("rel", 0.20),
    "qdelay_p99_ms": ("rel", 0.25),
    "signals": ("rel", 0.25),
    "jain": ("abs", 0.03),
}
# CUBIC and DCTCP-with-drops recover losses differently by design (docs/ns3-reference.md):
# ns-3 marks a hole lost only with 3 SACKed segments above it (RFC 6675 IsLost), so with
# windows of 3-7 packets it times out on ~15 % of its recoveries (aqmsim's Sack1: ~3 %), and
# while recovering from a timeout it feeds every ACK below the recovery point to CUBIC's
# uncapped slow start (bursts). That changes how many drops the discipline needs and the
# mean delay; what must still agree is that the bottleneck stays full, the delay tail the
# discipline allows, and (CoDel, FQ-CoDel) how evenly the flows share.
RECOVERY = {
    "utilisation": ("abs", 0.02),
    "qdelay_p99_ms": ("rel", 0.25),
    "jain": ("abs", 0.05),
}
# PIE drops at random at rates near 10 %, so there ns-3's timeouts last the whole run
# (136 timeouts, 7775 drops in 20 s on seed 1): only the delay tail PIE allows is compared,
# and the bottleneck must stay nearly full in both.
PIE_RECOVERY = {
    "utilisation": ("abs", 0.06),
    "qdelay_p99_ms": ("rel", 0.25),
}


def tolerance(kind: str, tcp: str) -> Dict[str, Tuple[str, float]]:
    if tcp == "newreno" or (tcp == "dctcp" and kind not in PIES):
        return FULL
    return PIE_RECOVERY if kind in PIES else RECOVERY


CASES = [(q, t) for q in ("codel", "pie", "fq_codel", "fq_pie") for t in ("newreno", "cubic", "dctcp")]


def both(kind: str, tcp: str) -> Tuple[List[Dict[str, float]], List[Dict[str, float]]]:
    with ThreadPoolExecutor(max_workers=2) as ex:
        theirs = list(ex.map(lambda s: ns3_run(kind, tcp, s), SEEDS))
    ours = [aqmsim_run(kind, tcp, s) for s in SEEDS]
    return ours, theirs


@pytest.mark.parametrize("kind, tcp", CASES, ids=[f"{q}-{t}" for q, t in CASES])
def test_dumbbell_agrees_with_ns3(kind, tcp):
    ours, theirs = both(kind, tcp)
    problems = []
    for metric, (how, tol) in tolerance(kind, tcp).items():
        a = statistics.fmean(r[metric] for r in ours)
        b = statistics.fmean(r[metric] for r in theirs)
        bound = tol if how == "abs" else tol * abs(b)
        if abs(a - b) > bound:
            problems.append(f"{metric}: aqmsim {a:.4g} vs ns-3 {b:.4g} (tolerance {tol} {how})")
    if tcp == "dctcp" and kind not in PIES:
        # every congestion signal is a CE mark, in both
        assert all(r["marks"] == r["signals"] > 0 for r in ours + theirs)
    if tolerance(kind, tcp) is not FULL:
        # the documented direction of the recovery difference: ns-3 needs more drops
        assert statistics.fmean(r["signals"] for r in theirs) > statistics.fmean(r["signals"] for r in ours)
    assert not problems, f"{kind} under {tcp}: " + "; ".join(problems)
