"""Properties of every run, over random valid scenarios (issue 12; docs/fuzzing.md).

Hypothesis draws dumbbells (with or without egress links) and explicit chains (links
written in either direction), rates from 1 b/s to 640 Gb/s, one-way delays from 0 to 1e6 s,
every queue kind with small or large limits (packets or bytes), packet sizes up to 65 535
bytes, TCP variants, CBR sources, and run lengths, and checks what the results say:

* packets are conserved at the monitored queue (arrivals = departures + drops + queued at
  the end; the per-flow arrivals add up) and along each flow (sent ≥ received + dropped on
  the way, and what is missing fits in the path's queues and wires);
* no queue holds more than its limit (packets or bytes, as configured);
* utilisation (summary and every link bin) is at most 1;
* what the flows through a link receive is at most that link's rate;
* every packet's delay is at least the propagation delay of its path (so a delay of 1e6 s
  delivers nothing in a shorter run), and no count is negative.

These are the checks that the integer time, rate and size overflows of issue 12 broke
(a 1e12 s delay delivering in 0.1 s, 1e-9 b/s carrying 32 Mb/s, 4 GiB packets wrapping).
``AQMSIM_PROPERTY_EXAMPLES=n`` sets the number of scenarios (default 60, derandomized);
a long run: ``AQMSIM_PROPERTY_EXAMPLES=2000 .venv/bin/pytest tests/test_properties.py``.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import aqmsim

N = int(os.environ.get("AQMSIM_PROPERTY_EXAMPLES", "60"))
SETTINGS = settings(
    max_examples=N,
    deadline=None,
    derandomize="AQMSIM_PROPERTY_EXAMPLES" not in os.environ,
    database=None,
    suppress_health_check=list(HealthCheck),
)
EPS = 1e-9
# a run stops (with ScenarioError naming max_events) after this many events; runs are
# sized to stay below it mostly, and one that reaches it is drawn again
MAX_EVENTS = 1_000_000
KINDS = ["droptail", "droptail_bytes", "red", "gentle", "ared", "ared_feng", "rtred", "qrtred",
         "red1", "red2", "red3", "red4", "red5", "ecn_threshold"]


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    # 1 000 steps (Hypothesis draws small integers about evenly, floats near their ends)
    return st.integers(0, 1000).map(lambda k: float(f"{lo * (hi / lo) ** (k / 1000):.6g}"))


# mostly ordinary values (so that packets flow and queues fill), a quarter extreme ones
rates = st.one_of(log_uniform(1e6, 1e9), log_uniform(1e5, 1e9), log_uniform(1e6, 1e8),
                  st.sampled_from([1.0, 8.0, 1e3, 1e10, 1e11, 6.4e11]))
delays = st.one_of(log_uniform(1e-3, 0.1), log_uniform(1e-5, 0.1), st.just(0.0),
                   st.sampled_from([1e-9, 1e-6, 2.0, 1e3, 1e5, 1e6]))
sizes = st.one_of(st.sampled_from([500, 1000, 1460]), st.integers(40, 1500),
                  st.sampled_from([1, 40, 9000, 65535]), st.integers(1, 65535))


# beyond the accepted ranges (the values of issue 12's overflow defects): refused naming
# the field, or, if ever accepted, held to the same invariants
wild_rates = st.one_of(rates, st.sampled_from([1e-9, 0.5, 1e-300, 5e-324]))
wild_delays = st.one_of(delays, st.sampled_from([1e12, 1e7, 1e300, 2.0**64, 1.8e10]))
wild_sizes = st.one_of(sizes, st.sampled_from([65536, 2**32 - 1, 2**32, 2**32 + 1000, 2**64 - 1]))


@st.composite
def queue(draw: Any) -> Dict[str, Any]:
    kind = draw(st.sampled_from(KINDS))
    limit = draw(st.one_of(st.integers(9, 400), st.integers(1, 8), st.just(100_000)))
    if kind == "droptail":
        return {"kind": "droptail", "limit": limit, "drop_front": draw(st.booleans())}
    if kind == "droptail_bytes":
        return {"kind": "droptail", "limit_bytes": draw(st.integers(1, 2_000_000)), "drop_front": draw(st.booleans())}
    if kind == "ecn_threshold":
        return {"kind": kind, "limit": limit, "threshold": draw(st.integers(0, limit)),
                "mode": draw(st.sampled_from(["mark_tail", "mark_front", "drop_front"]))}
    limit = max(limit, 4)
    min_th = draw(st.floats(0.5, max(0.6, limit / 4)))
    max_th = min_th * draw(st.floats(1.5, 3.5))
    q: Dict[str, Any] = {"kind": kind, "limit": limit, "min_th": round(min_th, 3), "max_th": round(max_th, 3),
                         "ecn": draw(st.booleans()), "queue_in_bytes": draw(st.booleans()),
                         "mean_pktsize": draw(st.sampled_from([1, 500, 1000, 65535]))}
    if kind == "qrtred":
        del q["min_th"], q["max_th"]
    if draw(st.booleans()):
        q["w_q"] = draw(st.sampled_from([0.002, 1.0, 1e-9]))
    if kind == "rtred":
        q["risk_th"] = round(max_th, 3) + draw(st.floats(0.5, 10))
        q["limit"] = max(limit, math.ceil(q["risk_th"]))
    if kind in ("red1", "red2", "red3", "red4", "red5"):
        q["max_pktsize"] = draw(st.sampled_from([1500, 65535]))
    return q


@st.composite
def traffic(draw: Any, tcp_sizes: List[int], wild: bool = False) -> Dict[str, Any]:
    sizes_ = wild_sizes if wild else sizes
    if draw(st.integers(0, 3)) == 0:
        size = draw(sizes_)
        tcp_sizes.append(size)
        # at most 1e7 packets/s, and sized by the caller against the event budget
        return {"app": "cbr", "cbr": {"rate": draw(st.one_of(log_uniform(1e5, 1e8), log_uniform(1, 1e9))), "packet_size": size}}
    size, header = draw(sizes_), draw(st.sampled_from([0, 40, 65535]))
    tcp_sizes.extend([size, size + header, max(header, 1)])  # the SYN is `header` bytes
    return {"app": "ftp", "tcp": {
        "variant": draw(st.sampled_from(["tahoe", "reno", "newreno", "sack"])),
        "packet_size": size, "header": header, "syn": draw(st.booleans()),
        "window": draw(st.sampled_from([20, 1000, 64, 2, 1])), "delayed_ack": draw(st.booleans()),
        "ecn": draw(st.booleans()),
    }}


@st.composite
def scenario(draw: Any, wild: bool = False) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """A valid scenario and what the checks need: for each flow, its forward links. With
    `wild`, rates, delays and sizes may lie outside the accepted ranges."""
    rates, delays = (wild_rates, wild_delays) if wild else (globals()["rates"], globals()["delays"])
    n = draw(st.integers(1, 4))
    sizes_used: List[int] = [40]  # ACKs
    bottleneck = {"rate": draw(rates), "delay": draw(delays), "queue": draw(queue())}
    access = [{"rate": draw(rates), "delay": draw(delays), "queue": draw(queue())} for _ in range(n)]
    apps = [draw(traffic(sizes_used, wild)) for _ in range(n)]
    starts = [draw(st.sampled_from([0.0, 0.0, 0.01, 0.5])) for _ in range(n)]
    egress = draw(st.one_of(st.none(), st.fixed_dictionaries({"rate": rates, "delay": delays})))
    explicit = draw(st.booleans())
    d: Dict[str, Any] = {"seed": draw(st.integers(0, 2**64 - 1)), "max_events": MAX_EVENTS,
                         "monitor": {"sample_interval": 0.001, "link_interval": 0.001}}
    flows_paths: List[List[Tuple[str, float, float]]] = []  # (link, delay, rate) forward
    if explicit:
        nodes = [f"s{i}" for i in range(n)] + ["r1", "r2", "d"]
        links = []
        def link(a: str, b: str, spec: Dict[str, Any]) -> None:
            flip = draw(st.booleans())
            one = {"from": b if flip else a, "to": a if flip else b, "rate": spec["rate"], "delay": spec["delay"]}
            if "queue" in spec:
                one["queue" if not flip else "reverse_queue"] = spec["queue"]
            links.append(one)
        for i in range(n):
            link(f"s{i}", "r1", access[i])
        link("r1", "r2", bottleneck)
        last = egress or {"rate": 1e9, "delay": 0.0}
        link("r2", "d", last)
        d.update(nodes=nodes, links=links, flows=[
            dict(apps[i], src=f"s{i}", dst="d", start=starts[i]) for i in range(n)])
        d["monitor"]["queues"] = ["r1->r2"]
        for i in range(n):
            flows_paths.append([(f"s{i}->r1", access[i]["delay"], access[i]["rate"]),
                                ("r1->r2", bottleneck["delay"], bottleneck["rate"]),
                                ("r2->d", last["delay"], last["rate"])])
    else:
        groups = []
        for i in range(n):
            g = dict(apps[i], count=1, access=access[i], start=starts[i])
            if egress:
                g["egress"] = egress
            groups.append(g)
        d["dumbbell"] = {"bottleneck": bottleneck, "groups": groups}
        for i in range(n):
            p = [(f"S{i}->R1", access[i]["delay"], access[i]["rate"]),
                 ("R1->R2", bottleneck["delay"], bottleneck["rate"])]
            if egress:
                p.append((f"R2->D{i}", egress["delay"], egress["rate"]))
            flows_paths.append(p)
    # a transmission must take >= 0.5 ns: keep every rate below what the smallest packet allows
    fastest = min(sizes_used) * 8 / 0.6e-9
    for spec in [bottleneck, egress or {}] + access + [l for l in d.get("links", [])]:
        if "rate" in spec:
            spec["rate"] = min(spec["rate"], fastest)
    for p in flows_paths:
        p[:] = [(name, dl, min(r, fastest)) for name, dl, r in p]
    # the run: long enough to matter, short enough for the event budget (the busiest
    # link sends at most MAX_EVENTS / 10 packets of the smallest size)
    # TCP sends at most what the bottleneck passes (plus what it drops); a run that still
    # reaches max_events is rejected (Hypothesis draws another)
    budget = MAX_EVENTS / 10 * 1000 * 8 / min(bottleneck["rate"], fastest)
    cbr_pps = sum(a["cbr"]["rate"] / (8 * a["cbr"]["packet_size"]) for a in apps if a["app"] == "cbr")
    if cbr_pps:
        budget = min(budget, MAX_EVENTS / 10 / cbr_pps)
    d["duration"] = max(1e-3, min(draw(st.sampled_from([1.0, 3.0, 0.3])), budget))
    for a in apps:
        if a["app"] == "cbr":
            # at most 1e7 packets/s per source
            a["cbr"]["rate"] = min(a["cbr"]["rate"], a["cbr"]["packet_size"] * 8 * 1e7 * 0.99)
    for f in d.get("flows", []) + d.get("dumbbell", {}).get("groups", []):
        f["start"] = min(f["start"], d["duration"] / 2)
    d["monitor"]["sample_interval"] = d["monitor"]["link_interval"] = max(1e-6, d["duration"] / 50)
    return d, {"paths": flows_paths, "sizes": sizes_used}


def _limits(q: Dict[str, Any], largest: int) -> Tuple[float, float]:
    """(packets, bytes) the queue may hold waiting; inf where it sets no bound. RED-like
    queues admit an arrival while below the limit (ns-2), so in bytes they may exceed it
    by less than the largest packet."""
    if q["kind"] == "droptail":
        if "limit_bytes" in q:
            # drop_front (ns-2 drop_front_): a full queue takes the arrival and drops the
            # head, which may be smaller
            return math.inf, q["limit_bytes"] + (largest if q.get("drop_front") else 0)
        return q["limit"] - 1, math.inf  # the limit counts the packet being sent
    if q.get("queue_in_bytes"):
        return math.inf, q["limit"] * q.get("mean_pktsize", 500) + largest
    return q["limit"], math.inf


def _tx_ratio(sizes: List[int], rate: float) -> float:
    """How much faster than `rate` a link may carry packets of these sizes, transmission
    times being rounded to whole nanoseconds."""
    worst = 1.0
    for s in set(sizes):
        exact = s * 8 / rate * 1e9
        if not math.isfinite(exact):  # a rate beyond the accepted range (wild)
            continue
        worst = max(worst, exact / max(1.0, math.floor(exact + 0.5)))
    return worst


def check(d: Dict[str, Any], meta: Dict[str, Any]) -> None:
    try:
        r = aqmsim.Scenario.from_dict(d).run()
    except aqmsim.ScenarioError as e:
        if str(e).startswith("max_events:"):
            reject()
        raise
    s, f = r.summary, r.flows
    dur = d["duration"]
    for k, v in s.items():
        if isinstance(v, (int, float)) and not (k.startswith("fct_") and math.isnan(v)):
            assert math.isfinite(v) and v >= 0, f"summary[{k!r}] = {v}"
    for col in ("sent", "received", "delivered", "retransmitted", "timeouts", "queue_arrivals", "queue_drops"):
        assert (f[col] >= 0).all(), col

    # conservation at the monitored queue
    a, dep, drops, q_end = (s["bottleneck_arrivals"], s["bottleneck_departures"], s["bottleneck_drops"],
                            s["bottleneck_queued_end"])
    assert a == dep + drops + q_end, (a, dep, drops, q_end)
    assert s["drops_early"] + s["drops_forced"] + s["drops_overflow"] == drops
    assert f["queue_arrivals"].sum() == a
    assert f["queue_drops"].sum() == drops

    # the queue limit
    bq = d["dumbbell"]["bottleneck"]["queue"] if "dumbbell" in d else next(
        (l.get("queue") or l.get("reverse_queue")) for l in d["links"] if {l["from"], l["to"]} == {"r1", "r2"})
    lim_p, lim_b = _limits(bq, max(meta["sizes"]))
    assert s["max_queue_pkts"] <= lim_p, (s["max_queue_pkts"], bq)
    qs = r.queue
    mine = qs[qs["link"] == r.monitored_links[0]]
    assert (mine["len_pkts"] <= lim_p).all() and (mine["len_bytes"] <= lim_b).all(), bq

    # utilisation <= 1
    assert s["utilisation"] <= 1 + EPS, s["utilisation"]
    assert (r.links["utilisation"] <= 1 + EPS).all(), r.links["utilisation"].max()
    rate = s["bottleneck_rate_bps"]
    ratio = _tx_ratio(meta["sizes"] + [max(meta["sizes"])], rate)
    started_slack = max(meta["sizes"]) * 8 / rate / dur + EPS  # the last packet, whole
    assert s["utilisation_started"] <= ratio * (1 + started_slack) + EPS, s["utilisation_started"]

    # per-flow: throughput <= each link's rate on the path; delay >= propagation;
    # sent >= received + dropped on the way, the rest in the path's queues and wires
    drops_log = r.drops
    drops_log = drops_log[drops_log["action"] == "drop"]
    total_thr = 0.0
    for i, path in enumerate(meta["paths"]):
        row = f.iloc[i]
        thr = row["throughput_bps"]
        total_thr += thr
        for name, _, lrate in path:
            assert thr <= lrate * _tx_ratio(meta["sizes"], lrate) * (1 + EPS) + EPS, (i, name, thr, lrate)
        prop = sum(dl for _, dl, _ in path)
        if row["received"] > 0:
            # times are rounded to whole nanoseconds, at most 0.5 ns per link
            assert row["mean_delay_s"] >= prop - 1e-9 * len(path), (i, row["mean_delay_s"], prop)
        if prop > dur:
            assert row["received"] == 0, (i, prop, dur, row["received"])
        assert row["received"] <= row["sent"]
        fwd = {name for name, _, _ in path}
        lost = int(((drops_log["flow"] == i) & drops_log["link"].isin(fwd)).sum())
        missing = int(row["sent"]) - int(row["received"]) - lost
        # in flight at the end: what the path's queues and wires can hold
        room = sum(2 + dl * r_ / (8 * 1) for _, dl, r_ in path) + 3 * 100_000
        assert 0 <= missing <= room, (i, row["sent"], row["received"], lost)
    assert total_thr <= rate * ratio * (1 + EPS) + EPS, (total_thr, rate)


@SETTINGS
@given(case=scenario())
def test_random_valid_scenarios_keep_the_invariants(case):
    d, meta = case
    check(d, meta)


@SETTINGS
@given(case=scenario(wild=True))
def test_out_of_range_values_are_refused_or_keep_the_invariants(case):
    """What issue 12 found: a 1e12 s delay, a 1e-9 b/s rate, a 2^32 - 1 byte packet were
    accepted and run wrongly. Now each is refused naming its field, or must run right."""
    d, meta = case
    try:
        aqmsim.Scenario.from_dict(d).validate()
    except aqmsim.ScenarioError as e:
        assert re.match(r"^[^\s:][^:\n]{0,200}: \S", str(e)), str(e)
        return
    check(d, meta)


def test_f4_auto_w_q_of_a_fast_long_link_is_positive():
    """(fuzzing F4) w_q "auto" = 1 − exp(−1/(10·RTT·C)) rounded to 0 for a very fast, very
    long link, and the valid queue was refused naming w_q, a field the user never set."""
    d = {"duration": 1, "dumbbell": {
        "bottleneck": {"rate": 1e10, "delay": 1e6, "queue": {"kind": "red", "mean_pktsize": 1}},
        "groups": [{"access": {"rate": "10Mb", "delay": "1ms"}}]}}
    w_q = aqmsim.Scenario.from_dict(d).validate()["links"][0]["queue"]["w_q"]
    assert 0 < w_q <= 1
