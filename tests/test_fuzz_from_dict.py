"""Fuzzing ``Scenario.from_dict`` with Hypothesis (issue 12; docs/fuzzing.md).

Valid scenarios are edited at random — a field set to an extreme or ill-typed value (NaN,
1e308, 2^64, bytes, sets, 10 000-character strings, lists 3 000 deep, a table that holds
itself), entries deleted or duplicated, known field names put where they do not belong —
and each result must either be refused with a :class:`ScenarioError` whose message names a
field, or validate and run (shortened, with an event cap) without any other exception and
with sane results.

The short run (part of ``make test``) tries ``AQMSIM_FUZZ_EXAMPLES`` edited scenarios
(default 300, derandomized so every run tries the same ones); a long run:
``AQMSIM_FUZZ_EXAMPLES=20000 .venv/bin/pytest tests/test_fuzz_from_dict.py`` (random,
so each long run explores new cases).
"""

from __future__ import annotations

import copy
import faulthandler
import math
import os
import re
from typing import Any, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aqmsim
from aqmsim import ScenarioError

from conftest import EXAMPLES, shortened

EXAMPLES_N = int(os.environ.get("AQMSIM_FUZZ_EXAMPLES", "300"))
LONG = "AQMSIM_FUZZ_EXAMPLES" in os.environ
SETTINGS = settings(
    max_examples=EXAMPLES_N,
    deadline=None,
    derandomize=not LONG,
    database=None,
    suppress_health_check=list(HealthCheck),
)
# a run cut short so that every case ends quickly whatever it asks for
RUN_DURATION = 1.5
RUN_MAX_EVENTS = 200_000

BASES: List[dict] = [
    {
        "duration": 2,
        "dumbbell": {
            "bottleneck": {"rate": "10Mb", "delay": "20ms", "queue": {"kind": "red", "limit": 30}},
            "groups": [{"count": 2, "access": {"rate": "100Mb", "delay": {"uniform": ["1ms", "5ms"]}}}],
        },
    },
    {
        "duration": 1,
        "tcp": {"variant": "sack", "packet_size": 1460, "ecn": True},
        "dumbbell": {
            "bottleneck": {"rate": "5Mb", "delay": "10ms", "queue": {"kind": "ecn_threshold", "threshold": 5},
                           "drop_seqs": [3, 7]},
            "groups": [
                {"count": 1, "access": {"rate": "50Mb", "delay": "2ms"}, "egress": {"rate": "50Mb", "delay": "1ms"}},
                {"count": 1, "app": "cbr", "cbr": {"rate": "1Mb", "packet_size": 500}, "start": 0.2,
                 "access": {"rate": "50Mb", "delay": "3ms"}},
            ],
        },
        "monitor": {"sample_interval": 0.05, "link_interval": 0.1},
    },
    {
        "duration": 1,
        "nodes": ["a", "b", "r", "d"],
        "links": [
            {"from": "a", "to": "r", "rate": "10Mb", "delay": "1ms"},
            {"from": "b", "to": "r", "rate": "10Mb", "delay": "2ms"},
            {"from": "r", "to": "d", "rate": "2Mb", "delay": "10ms",
             "queue": {"kind": "ared", "limit": 40, "min_th": 5, "max_th": 15}},
        ],
        "flows": [
            {"src": "a", "dst": "d", "count": 2, "tcp": {"variant": "newreno"}},
            {"src": "b", "dst": "d", "app": "cbr", "cbr": {"rate": "500Kb"}},
        ],
        "monitor": {"queues": ["r->d"]},
    },
]
for _f in sorted(EXAMPLES.glob("*.toml")):
    BASES.append(aqmsim.Scenario.from_toml(_f).to_dict())

KEYS = [
    "name", "duration", "seed", "tcp", "dumbbell", "nodes", "links", "flows", "monitor", "max_events", "variant",
    "packet_size", "header", "window", "window_init", "syn", "tick", "min_rto", "max_rto", "rto_init", "dupacks",
    "ack_size", "delack_interval", "bottleneck", "groups", "rate", "delay", "drop_seqs", "queue", "reverse_queue",
    "access", "egress", "count", "app", "start", "stop", "cbr", "from", "to", "src", "dst", "label", "queues",
    "sample_interval", "link_interval", "uniform", "kind", "limit", "limit_bytes", "min_th", "max_th", "max_p",
    "w_q", "gentle", "mean_pktsize", "risk_th", "threshold", "mode", "tau", "max_pktsize", "alpha", "beta",
    "max_packets", "use_headers", "delays", "tcp_flows", "tcp_interval",
]
NUMBERS = [
    0, -1, 1, 0.5, 1e-12, 1e-9, 1e-6, 1e6, 1e12, 1e15, 1e308, -1e308, 2**32 - 1, 2**32, 2**53 + 1, 2**63,
    2**64, 2**64 + 1, -(2**63), 10**400, float("nan"), float("inf"), float("-inf"), 5e-324, -0.0, 65535, 65536,
    100_000, 100_001, True, False,
]
STRINGS = [
    "", "NaN", "inf", "1e12s", "1e-12s", "1e308Mb", "1e-9b", "1e15b", "0ms", "auto", "R1->R2", "10Mb", "20ms",
    "x" * 10_000, "reno", "red", "droptail", "µs", "\x00", "1e6s", "1e6", "-5ms", "5 ms", "1,5Mb", "ftp", "cbr",
]
leaves = st.one_of(
    st.sampled_from(NUMBERS),
    st.sampled_from(STRINGS),
    st.sampled_from(KEYS),
    st.integers(),
    st.floats(),
    st.text(max_size=12),
    st.none(),
    st.binary(max_size=3),
    st.sampled_from([set(), (1, 2), frozenset({1}), 1j, object()]),
)
values = st.recursive(
    leaves,
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), ch, max_size=4),
    max_leaves=10,
)
OPS = ["set", "set", "set", "delete", "insert", "dup", "many", "deep", "cycle", "nonstr_key"]


def _paths(root: Any) -> list:
    """Every path into ``root`` down to depth 12 (edits may make it deep or cyclic)."""
    out: list = []
    stack = [(root, ())]
    seen = set()
    while stack:
        node, here = stack.pop()
        out.append(here)
        if id(node) in seen or len(here) >= 12:
            continue
        if isinstance(node, dict):
            seen.add(id(node))
            stack.extend((v, here + (k,)) for k, v in node.items() if k not in ("notes", "description"))
        elif isinstance(node, list):
            seen.add(id(node))
            stack.extend((v, here + (i,)) for i, v in enumerate(node))
    return out


def _get(root: Any, path: tuple) -> Any:
    for p in path:
        root = root[p]
    return root


def edit(base: dict, edits: list) -> dict:
    d = copy.deepcopy(base)
    for index, op, value in edits:
        paths = _paths(d)
        path = paths[index % len(paths)]
        parent = _get(d, path[:-1]) if path else None
        node = _get(d, path)
        if op == "set" and path:
            parent[path[-1]] = value
        elif op == "delete" and path:
            del parent[path[-1]]
        elif op == "insert" and isinstance(node, dict):
            node[KEYS[index % len(KEYS)]] = value
        elif op == "dup" and isinstance(node, list) and node:
            try:
                node.append(copy.deepcopy(node[index % len(node)]))
            except RecursionError:  # an earlier edit nested it 3 000 deep
                node.append(node[index % len(node)])
        elif op == "many" and path:
            parent[path[-1]] = [100_000, 100_001, 2**31, 2**32 + 1, 50_000][index % 5]
        elif op == "deep" and path:
            deep: Any = value
            for _ in range(3000):
                deep = [deep] if index % 2 else {"queue": deep}
            parent[path[-1]] = deep
        elif op == "cycle" and isinstance(node, dict):
            node["tcp"] = d  # a table that holds the whole scenario, itself included
        elif op == "nonstr_key" and isinstance(node, dict):
            node[index] = value
        elif path:
            parent[path[-1]] = value
    return d


edits = st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(OPS), values), min_size=1, max_size=4)

# "field: what is wrong": a dotted path (or "scenario"/"<string>") before the first ": "
FIELD = re.compile(r"^[^\s:][^:\n]{0,200}: \S")
# or at least a field's name somewhere
ANY_FIELD = re.compile(r"\b(" + "|".join(KEYS + ["scenario", "notes", "description"]) + r")\b")


def _names_field(e: BaseException) -> None:
    msg = str(e)
    assert msg.strip(), f"{type(e).__name__} with an empty message"
    # a quoted key may hold anything, ":" included (`[":"]: expected a finite number`)
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', msg)
    assert FIELD.match(bare) or ANY_FIELD.search(bare), f"message names no field: {msg[:300]!r}"
    assert "\n" not in msg.strip() or len(msg) < 2000, f"a long multi-line message: {msg[:300]!r}"


@pytest.fixture(autouse=True, scope="module")
def _watchdog():
    # a hang here is a finding: dump every thread's stack and end the test process
    # rather than stall `make test` (the cases themselves take well under a second)
    faulthandler.dump_traceback_later(1200 if LONG else 300, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def check(d: Any) -> str:
    """Refused with a field-named ScenarioError, or valid and runs; the outcome."""
    try:
        sc = aqmsim.Scenario.from_dict(d)
        sc.validate()
    except ScenarioError as e:
        _names_field(e)
        return "refused"
    data = sc.to_dict()
    dur = data.get("duration")
    short = shortened(data, RUN_DURATION) if not (isinstance(dur, (int, float)) and dur <= RUN_DURATION) else data
    short["max_events"] = RUN_MAX_EVENTS
    try:
        r = aqmsim.Scenario.from_dict(short).run()
    except ScenarioError as e:
        # shortening may make it invalid (a start after the new end) or hit the event cap
        _names_field(e)
        return "refused-short"
    for k, v in r.summary.items():
        if isinstance(v, (int, float)) and not (k.startswith("fct_") and math.isnan(v)):
            assert math.isfinite(v) and v >= 0, f"summary[{k!r}] = {v}"
    f = r.flows
    assert (f["received"] <= f["sent"]).all()
    return "ran"


@SETTINGS
@given(base=st.sampled_from(BASES), e=edits)
def test_edited_scenarios_are_refused_by_field_or_run(base, e):
    check(edit(base, e))


@SETTINGS
@given(d=values)
def test_arbitrary_values_are_refused_by_field(d):
    """Anything at all: only a table can be a scenario."""
    if isinstance(d, dict):
        check(d)
    else:
        with pytest.raises(ScenarioError) as ei:
            aqmsim.Scenario.from_dict(d)
        _names_field(ei.value)


@pytest.mark.parametrize("i", range(len(BASES)))
def test_bases_run(i):
    assert check(BASES[i]) == "ran"


# fuzz finding F3: NaN under an empty key escaped as KeyError
@pytest.mark.parametrize("d", [{"": float("nan")}, {"duration": 1, "x": {"": float("nan")}}])
def test_f3_nonfinite_under_an_empty_key_is_refused_by_field(d):
    with pytest.raises(ScenarioError) as ei:
        aqmsim.Scenario.from_dict(d).validate()
    _names_field(ei.value)
    assert "nan" in str(ei.value) and "{" not in str(ei.value)
