"""Issue 12: every input the scenario accepts runs correctly or is refused with an error
naming the field and the allowed range; never a wrong run, an aborted interpreter or a hang.

Each case runs in a subprocess, so a crash (SIGABRT) or a hang fails the test instead of
killing or stalling the test run.
"""

import copy
import json
import subprocess
import sys

import pytest

CHILD = r"""
import json, sys
import aqmsim
data, action = json.loads(sys.argv[1]), sys.argv[2]
try:
    sc = aqmsim.Scenario.from_dict(data)
    if action == "validate":
        sc.validate()
        print(json.dumps({"ok": True}))
    else:
        r = sc.run()
        f = r.flows
        print(json.dumps({"ok": True, "summary": r.summary,
                          "received": [int(x) for x in f["received"]],
                          "sent": [int(x) for x in f["sent"]]}))
except Exception as e:
    print(json.dumps({"ok": False, "type": type(e).__name__, "msg": str(e)}))
"""

BASE = {
    "duration": 2,
    "dumbbell": {
        "bottleneck": {"rate": "10Mb", "delay": "20ms"},
        "groups": [{"count": 1, "access": {"rate": "100Mb", "delay": "1ms"}}],
    },
}
CBR = {
    "duration": 2,
    "dumbbell": {
        "bottleneck": {"rate": "10Mb", "delay": "20ms"},
        "groups": [{"count": 1, "app": "cbr", "cbr": {"rate": "1Mb"}, "access": {"rate": "100Mb", "delay": "1ms"}}],
    },
}


def with_(base, **fields):
    d = copy.deepcopy(base)
    for path, val in fields.items():
        node = d
        parts = path.split(".")
        for p in parts[:-1]:
            node = node[int(p)] if p.isdigit() else node.setdefault(p, {})
        node[parts[-1]] = val
    return d


def child(data, action="run", timeout=60):
    p = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(data), action],
        capture_output=True, text=True, timeout=timeout,
    )
    assert p.returncode == 0, f"the interpreter died (rc {p.returncode}): {p.stderr[-2000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1])


def refused(data, field, *range_words, action="validate"):
    out = child(data, action)
    assert not out["ok"], f"accepted: {out}"
    assert out["type"] == "ScenarioError", out
    assert field in out["msg"], out["msg"]
    for w in range_words:
        assert w in out["msg"], out["msg"]
    return out["msg"]


G = "dumbbell.groups.0"

TIME_RANGE = "[0, 1e6] s"
RATE_RANGE = "[1 b/s, 1 Tb/s]"

CASES = [
    # 1. integer overflow of times, rates and sizes
    (with_(BASE, **{"dumbbell.bottleneck.delay": 1e12}), "dumbbell.bottleneck.delay", TIME_RANGE),
    (with_(BASE, **{f"{G}.access.delay": 1e12}), "dumbbell.groups[0].access.delay", TIME_RANGE),
    (with_(BASE, **{f"{G}.access.delay": {"uniform": [0, 1e12]}}), "dumbbell.groups[0].access.delay", TIME_RANGE),
    (with_(BASE, **{"dumbbell.bottleneck.rate": 1e-9}), "dumbbell.bottleneck.rate", RATE_RANGE),
    (with_(BASE, **{"dumbbell.bottleneck.rate": "2000Gb"}), "dumbbell.bottleneck.rate", RATE_RANGE),
    (with_(BASE, duration=1e308), "duration", TIME_RANGE),
    (with_(BASE, duration=2**64), "duration", TIME_RANGE),
    (with_(BASE, duration=1e-9), "duration", "[1e-6, 1e6] s"),
    (with_(BASE, **{"tcp.packet_size": 2**32 - 1}), "packet_size", "[1, 65535] bytes"),
    (with_(BASE, **{"tcp.header": 70000}), "header", "[0, 65535] bytes"),
    (with_(BASE, **{"tcp.ack_size": 70000}), "ack_size", "[1, 65535] bytes"),
    (with_(CBR, **{f"{G}.cbr.packet_size": 2**32 - 1}), "cbr.packet_size", "[1, 65535] bytes"),
    (with_(BASE, **{f"{G}.stop": 1e12}), "dumbbell.groups[0].stop", TIME_RANGE),
    (with_(BASE, **{f"{G}.count": 2**32 - 1}), "dumbbell.groups[0].count", "100000"),
    # 2. used to abort the interpreter
    (with_(CBR, **{f"{G}.cbr.rate": 1e-9}), "cbr.rate", RATE_RANGE),
    (with_(BASE, **{"tcp.min_rto": 1e12, "tcp.max_rto": 1e12}), "min_rto", TIME_RANGE),
    (with_(BASE, **{"tcp.max_rto": 1e12}), "max_rto", TIME_RANGE),
    (with_(BASE, **{"tcp.tick": 1e12}), "tick", TIME_RANGE),
    (with_(BASE, **{"tcp.tick": 5000}), "tick", "[1e-6, 1000] s"),
    (with_(BASE, **{"tcp.tick": 1e-12}), "tick", "[1e-6, 1000] s"),
    (with_(BASE, **{"monitor.sample_interval": 1e12}), "monitor.sample_interval", TIME_RANGE),
    (with_(BASE, **{"monitor.sample_interval": 1e-12}), "monitor.sample_interval", "[1e-6, 1e6] s"),
    (with_(CBR, **{f"{G}.cbr.rate": 1e15, f"{G}.cbr.packet_size": 1}), "cbr.rate", RATE_RANGE),
    # 3. used to hang
    (with_(BASE, **{"monitor.link_interval": 1e-12}), "monitor.link_interval", "[1e-6, 1e6] s"),
    (with_(CBR, **{f"{G}.cbr.rate": 1e12, f"{G}.cbr.packet_size": 1}), "cbr.rate", "1e7 packets/s"),
    (with_(BASE, duration=1e5, **{"monitor.sample_interval": 1e-3}), "monitor.sample_interval", "[1e-6, 1e6] s"),
    (with_(BASE, max_events=0), "max_events", "[1, 2^64)"),
    # 4. found later (fuzzing, review)
    (with_(BASE, **{"dumbbell.bottleneck.queue": {"kind": "red", "bytes": True, "queue_in_bytes": True,
                                                  "mean_pktsize": 0.5}}),
     "dumbbell.bottleneck.queue.mean_pktsize", "[1, 65535] bytes"),
    (with_(BASE, **{"dumbbell.bottleneck.queue": {"kind": "red2", "max_pktsize": 1e9}}),
     "dumbbell.bottleneck.queue.max_pktsize", "[1, 65535] bytes"),
    (with_(BASE, **{"tcp.window": 1e300}), "tcp.window", "[1, 16777216] packets"),
    (with_(BASE, **{"tcp.window_init": 2**31}), "tcp.window_init", "[1, 16777216] packets"),
    # a 40-byte ACK would take 0.32 ns at 1 Tb/s: rounded to 0, the link would send without limit
    (with_(BASE, **{"dumbbell.bottleneck.rate": "1Tb"}), "dumbbell.bottleneck.rate",
     "at most 6.4e11 b/s for 40-byte packets"),
]


@pytest.mark.parametrize("data,field,words", [(d, f, w) for d, f, w in CASES], ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_refused_with_field_and_range(data, field, words):
    refused(data, field, words, action="validate")


@pytest.mark.parametrize("i", [0, 3, 14, 17, 21, 23])
def test_run_refuses_too(i):
    data, field, words = CASES[i]
    refused(data, field, words, action="run")


def test_max_events_stops_a_long_run_with_an_error():
    msg = refused(with_(BASE, max_events=1000), "max_events", "raise max_events", action="run")
    assert "1000" in msg


def test_max_events_large_enough_runs():
    out = child(with_(BASE, max_events=10**9))
    assert out["ok"], out


def test_max_packets_stops_a_run_that_would_exhaust_memory():
    # 10 Mb/s of CBR into a 1 Mb/s bottleneck with a 10^7-packet buffer: the queue grows by
    # ~7 700 packets/s; with max_packets = 20 000 the run stops with the guard's message.
    d = with_(CBR, duration=60, max_packets=20_000, **{
        "dumbbell.bottleneck.rate": "1Mb",
        "dumbbell.bottleneck.queue": {"kind": "droptail", "limit": 10_000_000},
        f"{G}.cbr.rate": "10Mb",
    })
    msg = refused(d, "max_packets", "more than max_packets = 20000", "raise max_packets",
                  action="run")
    assert "packets were waiting in queues or on links at once" in msg
    d["max_packets"] = 10**6
    assert child(d)["ok"]


def test_edge_of_range_long_delay_is_honoured():
    # 1 packet/s CBR over a 100 s bottleneck delay: nothing arrives before t = 100 s.
    d = with_(CBR, duration=150, **{
        "dumbbell.bottleneck.delay": 100,
        f"{G}.access.delay": 0,
        f"{G}.cbr.rate": 1000, f"{G}.cbr.packet_size": 125,
    })
    out = child(d)
    assert out["ok"], out
    sent, received = out["sent"][0], out["received"][0]
    assert 149 <= sent <= 151
    # packets sent in [0, ~50 s) arrive by t = 150 s
    assert 48 <= received <= 51, out


def test_edge_of_range_slow_rate_is_honoured():
    # A 1 b/s bottleneck carries 1 byte per 8 s: about 12 in 100 s, never 32 Mb/s.
    d = with_(CBR, duration=100, **{
        "dumbbell.bottleneck.rate": 1,
        f"{G}.cbr.rate": 1, f"{G}.cbr.packet_size": 1,
    })
    out = child(d)
    assert out["ok"], out
    assert out["received"][0] <= 13, out
    assert out["summary"]["throughput_bps"] <= 1.0 + 1e-9, out["summary"]


def test_max_time_is_accepted():
    out = child(with_(BASE, **{"dumbbell.bottleneck.delay": 1e6}), action="validate")
    assert out["ok"], out
