"""Scenario loading, overriding, TOML writing, and the engine's error messages."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aqmsim
from aqmsim import Scenario, ScenarioError
from aqmsim.scenario import dumps_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))
RED = EXAMPLES / "dumbbell-red.toml"
EXPLICIT = EXAMPLES / "explicit-topology.toml"


# --------------------------------------------------------------------------- loading
def test_examples_exist():
    names = {p.name for p in EXAMPLE_FILES}
    assert {"dumbbell-droptail.toml", "dumbbell-red.toml", "red-ecn.toml",
            "explicit-topology.toml"} <= names


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_load_example(path: Path):
    sc = Scenario.from_toml(path)
    assert sc.path == path
    assert sc.name == path.stem
    d = sc.to_dict()
    assert d["duration"]
    assert isinstance(d["notes"], dict) and d["notes"], "every example explains its choices"


def test_red_example_states_every_red_parameter():
    q = Scenario.from_toml(RED)["dumbbell.bottleneck.queue"]
    assert q == {
        "kind": "red", "limit": 50, "min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.002,
        "gentle": False, "wait": True, "ecn": False, "mark_p": 0.1, "bytes": False,
        "queue_in_bytes": False, "mean_pktsize": 1000, "target_delay": 0.005,
    }


def test_missing_file_is_file_not_found(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        Scenario.from_toml(tmp_path / "nope.toml")


def test_toml_syntax_error_names_file_and_line(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nduration = 5\nthis is not toml\n')
    with pytest.raises(ScenarioError) as info:
        Scenario.from_toml(bad)
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    assert str(bad) in msg
    assert "line 3" in msg


def test_duplicate_key_is_syntax_error(tmp_path: Path):
    bad = tmp_path / "dup.toml"
    bad.write_text("duration = 5\nduration = 6\n")
    with pytest.raises(ScenarioError, match="line 2"):
        Scenario.from_toml(bad)


def test_dates_are_refused():
    with pytest.raises(ScenarioError, match="start"):
        Scenario.from_toml_string("duration = 5\nstart = 1979-05-27\n")


def test_from_dict_copies():
    d = {"duration": 5, "dumbbell": {"bottleneck": {"rate": "1Mb"}}}
    sc = Scenario.from_dict(d)
    d["dumbbell"]["bottleneck"]["rate"] = "2Mb"
    assert sc["dumbbell.bottleneck.rate"] == "1Mb"
    out = sc.to_dict()
    out["duration"] = 99
    assert sc["duration"] == 5
    assert sc.path is None and sc.name == ""


def test_from_dict_rejects_non_mapping():
    with pytest.raises(ScenarioError):
        Scenario.from_dict([1, 2, 3])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- overrides
def test_with_overrides():
    sc = Scenario.from_toml(RED)
    sc2 = sc.with_overrides(**{
        "dumbbell.bottleneck.queue.max_p": 0.05,
        "duration": 5,
        "dumbbell.groups.0.count": 3,
        "monitor.new_table.x": 1,   # intermediate tables are created
    })
    assert sc2["dumbbell.bottleneck.queue.max_p"] == 0.05
    assert sc2["duration"] == 5
    assert sc2["dumbbell.groups.0.count"] == 3
    assert sc2["monitor.new_table"] == {"x": 1}
    # the original is untouched, the path is kept
    assert sc["dumbbell.bottleneck.queue.max_p"] == 0.1
    assert sc2.path == sc.path
    assert sc2 != sc


def test_with_overrides_none_removes_field():
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.w_q": None})
    assert "w_q" not in sc["dumbbell.bottleneck.queue"]


@pytest.mark.parametrize("key", ["", "a..b", "dumbbell.groups.7.count", "dumbbell.groups.x",
                                 "duration.x"])
def test_with_overrides_bad_paths(key: str):
    with pytest.raises(ScenarioError):
        Scenario.from_toml(RED).with_overrides(**{key: 1})


# --------------------------------------------------------------------------- TOML writer
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_to_toml_round_trip_exact(path: Path):
    sc = Scenario.from_toml(path)
    assert tomllib.loads(sc.to_toml()) == sc.to_dict()
    assert Scenario.from_toml_string(sc.to_toml()) == sc


def test_to_toml_awkward_values():
    d = {
        "name": 'quote " backslash \\ tab \t newline \n bell \x07 del \x7f é ☃',
        "weird key": {"a.b": 1, "": 2, "0\n": [], "x\n": {}},
        "floats": [1e-05, 1e300, 0.1, -0.0, 3.0, 2.5e-300],
        "ints": [0, -1, 2**62],
        "bools": [True, False],
        "empty_list": [],
        "empty_table": {},
        "nested": [[1, 2], ["a"]],
        "aot": [{"x": 1, "sub": {"y": 2, "deep": {"z": [1]}}, "inner": [{"k": 1}, {"k": 2}]},
                {"x": 2}],
        "inline": {"uniform": [0, 1]},
        "mixed": [{"a": 1}, 2],
    }
    assert tomllib.loads(dumps_toml(d)) == d


_keys = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
_scalars = (st.booleans() | st.integers(-(2**63), 2**63 - 1)
            | st.floats(allow_nan=False) | st.text(st.characters(blacklist_categories=("Cs",)),
                                                   max_size=12))
_values = st.recursive(
    _scalars,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_keys, kids, max_size=3),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_keys, _values, max_size=5))
def test_to_toml_round_trip_property(d):
    assert tomllib.loads(dumps_toml(d)) == d


# --------------------------------------------------------------------------- engine: validate
def _no_auto(x) -> bool:
    if isinstance(x, dict):
        return all(_no_auto(v) for v in x.values())
    if isinstance(x, list):
        return all(_no_auto(v) for v in x)
    return x != "auto"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_validate_examples(core, path: Path):
    resolved = Scenario.from_toml(path).validate()
    assert isinstance(resolved, dict)
    assert _no_auto(resolved)


def test_validate_resolves_auto(core):
    sc = Scenario.from_toml(RED).with_overrides(**{
        "dumbbell.bottleneck.queue.min_th": "auto",
        "dumbbell.bottleneck.queue.max_th": "auto",
        "dumbbell.bottleneck.queue.w_q": "auto",
    })
    resolved = sc.validate()
    assert _no_auto(resolved)
    assert not _no_auto(sc.to_dict())


def test_resolved_scenario_validates_to_itself(core):
    """What results save as resolved.json can be fed back and means the same."""
    resolved = Scenario.from_toml(RED).validate()
    assert Scenario.from_dict(resolved).validate() == resolved


def test_validate_json_matches_python(core):
    sc = Scenario.from_toml(RED)
    assert json.loads(aqmsim.validate_json(sc.to_json())) == sc.validate()


# --------------------------------------------------------------------------- error messages
def _error(sc: Scenario) -> str:
    with pytest.raises(ScenarioError) as info:
        sc.validate()
    exc = info.value
    assert isinstance(exc, ValueError)
    assert type(exc) is ScenarioError or isinstance(exc, ScenarioError)
    msg = str(exc)
    assert "\n" not in msg.strip() or len(msg) < 2000
    return msg


def _path_re(*parts: str) -> str:
    """A field path with list indexes written either as groups[0] or groups.0."""
    out = []
    for p in parts:
        if p.isdigit():
            out.append(rf"(\[{p}\]|\.{p})")
        else:
            out.append(("" if not out else r"\.") + re.escape(p))
    return "".join(out)


def test_error_unknown_field(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.min_thresh": 5})
    msg = _error(sc)
    assert "dumbbell.bottleneck.queue" in msg
    assert "min_thresh" in msg
    assert msg.startswith(str(RED)), "errors of a file scenario name the file"


def test_error_unknown_top_level_field(core):
    msg = _error(Scenario.from_toml(RED).with_overrides(durration=3))
    assert "durration" in msg
    assert "column" not in msg, "no positions in the JSON the user never wrote"


def test_error_wrong_type(core):
    msg = _error(Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.limit": "fifty"}))
    assert "dumbbell.bottleneck.queue.limit" in msg


def test_error_wrong_type_bool(core):
    msg = _error(Scenario.from_toml(RED).with_overrides(**{"tcp.window": True}))
    assert "tcp.window" in msg


@pytest.mark.parametrize("min_th,max_th", [(15, 15), (20, 15)])
def test_error_min_th_not_below_max_th(core, min_th, max_th):
    sc = Scenario.from_toml(RED).with_overrides(**{
        "dumbbell.bottleneck.queue.min_th": min_th,
        "dumbbell.bottleneck.queue.max_th": max_th,
    })
    msg = _error(sc)
    assert re.search(r"dumbbell\.bottleneck\.queue\.(min_th|max_th)", msg), msg


@pytest.mark.parametrize("max_p", [1.5, 0, 0.0, -0.1])
def test_error_max_p_out_of_range(core, max_p):
    msg = _error(Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.max_p": max_p}))
    assert "dumbbell.bottleneck.queue.max_p" in msg


def test_max_p_one_is_valid(core):
    Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.max_p": 1.0}).validate()


@pytest.mark.parametrize("rate", [-1, -1.5e6, "-10Mb", "fast"])
def test_error_bad_rate(core, rate):
    msg = _error(Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.rate": rate}))
    assert "dumbbell.bottleneck.rate" in msg


def test_error_negative_access_rate(core):
    msg = _error(Scenario.from_toml(RED).with_overrides(**{"dumbbell.groups.0.access.rate": -5}))
    assert re.search(_path_re("dumbbell", "groups", "0", "access", "rate"), msg), msg


def test_error_flow_stop_before_start(core):
    sc = Scenario.from_toml(EXPLICIT).with_overrides(**{"flows.2.start": 10.0, "flows.2.stop": 5.0})
    msg = _error(sc)
    assert re.search(_path_re("flows", "2"), msg), msg
    assert "stop" in msg or "start" in msg


def test_error_group_stop_before_start(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.groups.0.start": 3.0,
                                                    "dumbbell.groups.0.stop": 1.0})
    msg = _error(sc)
    assert re.search(_path_re("dumbbell", "groups", "0"), msg), msg


def test_error_unknown_node_in_flow(core):
    msg = _error(Scenario.from_toml(EXPLICIT).with_overrides(**{"flows.0.dst": "nowhere"}))
    assert "nowhere" in msg
    assert re.search(_path_re("flows", "0", "dst"), msg), msg


def test_error_unknown_node_in_link(core):
    msg = _error(Scenario.from_toml(EXPLICIT).with_overrides(**{"links.0.to": "atlantis"}))
    assert "atlantis" in msg
    assert re.search(_path_re("links", "0", "to"), msg), msg


def test_error_zero_duration(core):
    msg = _error(Scenario.from_toml(RED).with_overrides(duration=0))
    assert "duration" in msg


def test_error_from_run_is_scenario_error(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.max_p": 2.0})
    with pytest.raises(ScenarioError, match=r"dumbbell\.bottleneck\.queue\.max_p"):
        sc.run(seed=1)


def test_error_from_dict_has_no_file_prefix(core):
    d = Scenario.from_toml(RED).to_dict()
    d["dumbbell"]["bottleneck"]["queue"]["max_p"] = 1.5
    msg = _error(Scenario.from_dict(d))
    assert msg.startswith("dumbbell.bottleneck.queue.max_p"), msg


def test_native_error_classes_are_the_exported_ones(core):
    assert aqmsim.ScenarioError is core.ScenarioError
    assert aqmsim.SimulationError is core.SimulationError
    assert issubclass(core.ScenarioError, ValueError)
    assert issubclass(core.SimulationError, RuntimeError)
    with pytest.raises(core.ScenarioError):
        core.validate("{ this is not json")


@pytest.mark.parametrize("seed", [-1, True, 1.5, "3"])
def test_bad_seed(seed):
    with pytest.raises(ScenarioError, match="seed"):
        Scenario.from_toml(RED).run(seed=seed)


# --------------------------------------------------------------------------- round trips
def test_round_trips_validate_identically(core, tmp_path: Path):
    sc = Scenario.from_toml(EXPLICIT)
    want = sc.validate()
    assert Scenario.from_dict(sc.to_dict()).validate() == want
    f = tmp_path / "rt.toml"
    f.write_text(sc.to_toml())
    assert Scenario.from_toml(f).validate() == want


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    max_p=st.floats(min_value=1e-3, max_value=1.0),
    w_q=st.floats(min_value=1e-4, max_value=1.0),
    min_th=st.integers(min_value=1, max_value=20),
    gap=st.floats(min_value=0.5, max_value=30.0),
    limit=st.integers(min_value=60, max_value=500),
    gentle=st.booleans(),
    rate_mb=st.floats(min_value=0.1, max_value=100.0),
    delay_ms=st.floats(min_value=0.0, max_value=200.0),
    count=st.integers(min_value=1, max_value=20),
)
def test_round_trip_property(core, max_p, w_q, min_th, gap, limit, gentle, rate_mb, delay_ms,
                             count):
    sc = Scenario.from_toml(RED).with_overrides(**{
        "dumbbell.bottleneck.queue.max_p": max_p,
        "dumbbell.bottleneck.queue.w_q": w_q,
        "dumbbell.bottleneck.queue.min_th": min_th,
        "dumbbell.bottleneck.queue.max_th": min_th + gap,
        "dumbbell.bottleneck.queue.limit": limit,
        "dumbbell.bottleneck.queue.gentle": gentle,
        "dumbbell.bottleneck.rate": rate_mb * 1e6,
        "dumbbell.bottleneck.delay": f"{delay_ms}ms",
        "dumbbell.groups.0.count": count,
    })
    want = sc.validate()
    assert Scenario.from_dict(sc.to_dict()).validate() == want
    assert Scenario.from_toml_string(sc.to_toml()).validate() == want
    q = _find_queue(want, max_p)
    assert q is not None, "the resolved scenario keeps the RED parameters"


def _find_queue(resolved, max_p):
    """Any RED queue table in the resolved scenario carrying this max_p."""
    stack = [resolved]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if x.get("kind") == "red" and isinstance(x.get("max_p"), float) and math.isclose(
                x["max_p"], max_p, rel_tol=1e-12
            ):
                return x
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return None
