"""Issue 12: an input the scenario accepts either runs correctly or is refused with a
ScenarioError that names the field and says what is allowed — never a RecursionError,
a crash after validation, or serde's jargon."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from aqmsim.scenario import MAX_DEPTH

#: The engine's limit on the flows of one scenario (crates/.../scenario/model.rs MAX_FLOWS).
MAX_FLOWS = 100_000

from conftest import EXAMPLES

runner = CliRunner()
RED = EXAMPLES / "dumbbell-red.toml"
EXPLICIT = EXAMPLES / "explicit-topology.toml"

from test_cli import _one_line_error  # noqa: E402 - the same one-line check as the CLI tests


def _refused(fn, *needles: str) -> str:
    with pytest.raises(ScenarioError) as info:
        fn()
    msg = str(info.value)
    for n in needles:
        assert n in msg, msg
    return msg


# ------------------------------------------------------------------ 1. nesting and cycles
DEEP_TEXTS = {
    "array 2000": "a = " + "[" * 2000 + "]" * 2000,
    "array 100000": "a = " + "[" * 100_000 + "]" * 100_000,
    "inline table 2000": 'name = "x"\nnotes = ' + "{ b = " * 2000 + "1" + " }" * 2000,
    "dotted key 5000": ".".join(["a"] * 5000) + " = 1",
    "table header 5000": "[" + ".".join(["a"] * 5000) + "]\nx = 1",
    "array 100": "a = " + "[" * 100 + "]" * 100,  # tomllib reads it; we refuse it
}


@pytest.mark.parametrize("name", list(DEEP_TEXTS))
def test_deep_toml_refused(name):
    msg = _refused(lambda: Scenario.from_toml_string(DEEP_TEXTS[name], path="deep.toml"),
                   "deep.toml: ", f"at most {MAX_DEPTH}")
    assert len(msg) < 300, msg  # the path of a 5000-part key is cut short


def test_deep_toml_says_where():
    msg = _refused(lambda: Scenario.from_toml_string("x = 1\n" + DEEP_TEXTS["array 2000"]),
                   "line 2, column 69")
    assert "nested more than 64 levels" in msg


def test_nesting_up_to_the_limit_is_kept():
    v: object = 1
    for _ in range(MAX_DEPTH - 1):
        v = [v]
    sc = Scenario.from_dict({"notes": {"x": v}})  # 64 levels below the top
    assert sc["notes.x"] == v


def test_self_referencing_dict():
    d: dict = {"duration": 1}
    d["notes"] = {"me": d}
    _refused(lambda: Scenario.from_dict(d), "notes.me: contains itself", "without cycles")


def test_self_referencing_list():
    lst: list = [1]
    lst.append(lst)
    _refused(lambda: Scenario.from_dict({"nodes": lst}),
             "nodes.1: contains itself (it is the same object as nodes)")


def test_shared_but_acyclic_data_is_fine():
    shared = {"kind": "droptail", "limit": 10}
    sc = Scenario.from_dict({"a": shared, "b": [shared, shared]})
    assert sc["b.1.limit"] == 10


def test_deep_python_list():
    v: object = 0
    for _ in range(100_000):
        v = [v]
    _refused(lambda: Scenario.from_dict({"nodes": v}), "nodes.0.0.0", "at most 64 levels")


def test_override_with_long_key_or_deep_value():
    sc = Scenario.from_toml(RED)
    _refused(lambda: sc.with_overrides(**{".".join(["a"] * 5000): 1}),
             "a field path has at most 64 parts, this one has 5000")
    d: dict = {}
    d["d"] = d
    _refused(lambda: sc.with_overrides(notes=d), "notes.d: contains itself")


@pytest.mark.parametrize("cmd", ["run", "validate"])
@pytest.mark.parametrize("name", ["array 100000", "inline table 2000", "dotted key 5000"])
def test_cli_deep_file(tmp_path: Path, cmd, name):
    f = tmp_path / "deep.toml"
    f.write_text(DEEP_TEXTS[name] + "\n")
    text = _one_line_error(runner.invoke(app, [cmd, str(f)]))
    assert "at most 64" in text


@pytest.mark.parametrize("setting", [".".join(["a"] * 5000) + "=1",
                                     "notes.x=" + "[" * 3000 + "]" * 3000,
                                     "notes.x=" + "[" * 100 + "]" * 100])
def test_cli_deep_set(setting):
    text = _one_line_error(runner.invoke(app, ["validate", str(RED), "--set", setting]))
    assert "at most 64" in text


# ------------------------------------------------------------------ 2. accepted, then broken
def _with_link(extra: dict) -> Scenario:
    d = Scenario.from_toml(EXPLICIT).with_overrides(duration=1).to_dict()
    d["links"].append(dict(d["links"][3], **extra))
    return Scenario.from_dict(d)


def test_duplicate_link_refused(core):
    sc = _with_link({})
    want = ("links[5]: the link r1 -> r2 is already listed as links[3]",)
    _refused(sc.validate, *want)
    _refused(sc.run, *want)


def test_reversed_duplicate_link_refused(core):
    _refused(_with_link({"from": "r2", "to": "r1"}).validate,
             "links[5]: the link r2 -> r1 is already listed as links[3]", "duplex")


def test_cli_duplicate_link(core, tmp_path: Path):
    f = tmp_path / "dup.toml"
    f.write_text(_with_link({}).to_toml())
    text = _one_line_error(runner.invoke(app, ["run", str(f)]))
    assert "is already listed as links[3]" in text


def test_too_many_flows_dumbbell(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.groups.0.count": 500_000})
    _refused(sc.validate, "dumbbell.groups[0].count", f"[1, {MAX_FLOWS}], got 500000")


def test_too_many_flows_explicit(core):
    d = Scenario.from_toml(EXPLICIT).to_dict()
    d["flows"][0]["count"] = MAX_FLOWS
    _refused(Scenario.from_dict(d).validate, "flows[1].count: makes",
             f"more than {MAX_FLOWS} flows")


def test_flow_between_unconnected_parts_refused(core):
    d = {"duration": 1, "nodes": ["a", "b", "c", "d"],
         "links": [{"from": "a", "to": "b", "rate": "1Mb", "delay": "1ms"},
                   {"from": "c", "to": "d", "rate": "1Mb", "delay": "1ms"}],
         "flows": [{"src": "a", "dst": "b"}, {"src": "b", "dst": "d"}]}
    _refused(Scenario.from_dict(d).validate, "flows[1]: no route between b and d")


# ------------------------------------------------------------------ 3. messages say what is allowed
def test_index_out_of_range_lists_indexes():
    sc = Scenario.from_toml(RED)
    _refused(lambda: sc.with_overrides(**{"dumbbell.groups.5.count": 3}),
             "dumbbell.groups.5.count: index 5 is out of range",
             "dumbbell.groups has 1 item: index 0")
    _refused(lambda: sc["dumbbell.groups.2"], "dumbbell.groups has 1 item: index 0")
    _refused(lambda: sc.with_overrides(**{"dumbbell.groups.x": 3}),
             "dumbbell.groups is a list", "index 0")


def test_engine_path_spelling_works_in_overrides():
    """An error prints ``dumbbell.groups[0].count``; the same path sets the field."""
    sc = Scenario.from_toml(RED)
    assert sc.with_overrides(**{"dumbbell.groups[0].count": 3})["dumbbell.groups.0.count"] == 3
    assert sc["dumbbell.groups[0].count"] == sc["dumbbell.groups.0.count"]
    _refused(lambda: sc.with_overrides(**{"dumbbell.groups[5].count": 3}),
             "index 5 is out of range", "dumbbell.groups has 1 item: index 0")


@pytest.mark.parametrize("where", ["tcp", "dumbbell.groups.0.tcp"])
@pytest.mark.parametrize("field,value,words", [
    ("window", 0, "[1, 16777216] packets"),
    ("packet_size", 2**33, "[1, 65535] bytes, got 8589934592"),
    ("ack_size", 0, "[1, 65535] bytes"),
    ("variant", "cubical", "expected one of: tahoe, reno, newreno, sack"),
    ("tick", 5000, "[1e-6, 1000] s"),
])
def test_tcp_errors_blame_the_table_they_were_written_in(core, where, field, value, words):
    """A bad value in the top-level [tcp] is blamed on tcp.<field>, not on the first flow
    that inherits it; one in a group's own tcp table on that table."""
    sc = Scenario.from_toml(RED).with_overrides(**{f"{where}.{field}": value})
    engine_path = where.replace(".0.", "[0].")
    msg = _refused(sc.validate, f"{engine_path}.{field}:", words)
    assert msg.startswith(f"{engine_path}.{field}:") or f": {engine_path}.{field}:" in msg, msg


def test_scalar_takes_no_sub_keys():
    sc = Scenario.from_toml(RED)
    _refused(lambda: sc.with_overrides(**{"duration.x": 1}),
             'duration.x: duration is a string ("30s")', "takes no sub-keys")
    _refused(lambda: sc["seed.x"], "seed is a number (1)", "takes no sub-keys")


def test_getitem_did_you_mean():
    _refused(lambda: Scenario.from_toml(RED)["dumbbell.botleneck"],
             "dumbbell has no field 'botleneck'", "did you mean 'bottleneck'?")


def test_unknown_top_level_field_did_you_mean(core):
    _refused(Scenario.from_toml(RED).with_overrides(duratoin=3).validate,
             "duratoin: unknown field 'duratoin'", "duration", "did you mean 'duration'?")


def test_unknown_table_field_did_you_mean(core):
    _refused(Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.rat": "1Mb"}).validate,
             "dumbbell.bottleneck.rat: unknown field 'rat'", "did you mean 'rate'?")


def test_not_a_parameter_did_you_mean(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.max_pp": 0.1})
    _refused(sc.validate, "dumbbell.bottleneck.queue.max_pp: not a parameter of red",
             "red takes: kind, limit, min_th", "did you mean 'max_p'?")


@pytest.mark.parametrize("field,value,want", [
    ("dumbbell.bottleneck.rate", [10], 'expected a number or a string with a unit, e.g. "10Mb", got [10]'),
    ("duration", True, 'expected a number or a string with a unit, e.g. "20ms", got true'),
    ("dumbbell.groups.0.access.delay", [1], 'or a range { uniform = ["1ms", "5ms"] }, got [1]'),
    ("dumbbell.bottleneck.queue.min_th", [1], 'expected a number or "auto", got [1]'),
    ("dumbbell.bottleneck.queue.limit", -1, "limit: expected a whole number ≥ 0, got -1"),
    ("tcp.window", "x", 'tcp.window: expected a number, got "x"'),
    ("monitor.queues", "x", 'monitor.queues: expected a list, got "x"'),
    ("dumbbell", 3, "dumbbell: expected a table, got 3"),
    ("dumbbell", [], "dumbbell: expected a table, got []"),
    ("dumbbell.bottleneck", [1, 2], "dumbbell.bottleneck: expected a table, got [1, 2]"),
])
def test_no_serde_jargon(core, field, value, want):
    msg = _refused(Scenario.from_toml(RED).with_overrides(**{field: value}).validate, want)
    for jargon in ("untagged enum", "u32", "f64", "a sequence", "struct ", "invalid length"):
        assert jargon not in msg, msg


def test_cli_serde_jargon_translated(core):
    text = _one_line_error(runner.invoke(
        app, ["validate", str(RED), "--set", "dumbbell.bottleneck.rate=[1]"]))
    assert 'expected a number or a string with a unit, e.g. "10Mb"' in text
    assert "untagged" not in text


def test_nan_names_the_field(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue.max_p": float("nan")})
    _refused(sc.validate, "dumbbell.bottleneck.queue.max_p: expected a finite number, got nan")


@pytest.mark.parametrize("data,where", [
    ({"": float("nan")}, '[""]'),
    ({"duration": 1, "x": {"": float("nan")}}, 'x[""]'),
    ({"duration": 1, "a b": [1, float("-inf")]}, '["a b"][1]'),
])
def test_nan_under_an_odd_key_names_it(data, where):
    """(fuzzing, F3) a non-finite number under an empty or spaced key: a ScenarioError with
    the key quoted, not a KeyError from looking the path up again."""
    msg = _refused(Scenario.from_dict(data).validate, f"{where}: expected a finite number")
    assert msg.startswith(where), msg


def test_results_survive_duplicate_category_names():
    # the engine refuses the known cause (a link listed twice); a table still decodes
    import numpy as np

    from aqmsim.results import _column

    codes = np.array([0, 1, 0], dtype="<u4").tobytes()
    assert list(_column(("category", codes, ["r1->r2", "r1->r2"]))) == ["r1->r2"] * 3
