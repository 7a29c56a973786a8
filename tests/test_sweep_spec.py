"""Sweep files (grid expansion, ranges, errors), run keys (scenario hash) and the store's
schema — no worker processes here."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict

import duckdb
import pytest

import aqmsim
from aqmsim import store as store_mod
from aqmsim.store import Entry, Store, canonical_json, scenario_hash
from aqmsim.sweep import Sweep, expand_values, short_labels

from conftest import EXAMPLES

RED = EXAMPLES / "dumbbell-red.toml"
Q = "dumbbell.bottleneck.queue."


def _sweep(**kw) -> Sweep:
    d = {"name": "t", "base": str(RED), "seeds": 2,
         "set": {"duration": 1, "dumbbell.groups.0.stop": 1}}
    d.update(kw)
    return Sweep.from_dict(d)


# ----------------------------------------------------------------------------- values
def test_range_is_exact_decimal_and_includes_stop():
    assert expand_values({"start": 0.1, "stop": 0.5, "step": 0.1}) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert expand_values({"start": 5, "stop": 15, "step": 5}) == [5, 10, 15]
    assert expand_values({"start": 5, "stop": 14, "step": 5}) == [5, 10]
    assert expand_values({"start": 1.0, "stop": 0.0, "step": -0.25}) == [1.0, 0.75, 0.5, 0.25, 0.0]
    assert all(isinstance(v, int) for v in expand_values({"start": 1, "stop": 9, "step": 2}))


def test_linspace_and_log():
    assert expand_values({"start": 0.05, "stop": 0.2, "num": 4}) == [0.05, 0.1, 0.15, 0.2]
    assert expand_values({"start": 5, "stop": 15, "num": 3}) == [5, 10, 15]
    assert expand_values({"start": 0.001, "stop": 0.1, "num": 3, "log": True}) == [0.001, 0.01, 0.1]
    assert expand_values({"start": 2, "stop": 3, "num": 1}) == [2]


@pytest.mark.parametrize("spec, words", [
    ([], "empty list"),
    ({"start": 1, "stop": 2}, "exactly one of step"),
    ({"start": 1, "stop": 2, "step": 1, "num": 3}, "exactly one of step"),
    ({"start": 1, "stop": 2, "step": 0}, "non-zero"),
    ({"start": 2, "stop": 1, "step": 1}, "never goes"),
    ({"start": 0, "stop": 1, "num": 3, "log": True}, "> 0"),
    ({"begin": 1}, "expected a list of values"),
    (0.5, "expected a list of values"),
])
def test_bad_values(spec, words):
    with pytest.raises(aqmsim.ScenarioError, match=words):
        expand_values(spec, "vary.x")


# ----------------------------------------------------------------------------- grid
def test_groups_cross_and_zip():
    sw = _sweep(vary=[
        {Q + "max_p": [0.05, 0.1, 0.2]},
        {"mode": "zip", Q + "min_th": [5, 10], Q + "max_th": [15, 30]},
    ])
    pts = sw.points()
    assert len(pts) == 6 and len(sw) == 12
    assert pts[0] == {Q + "max_p": 0.05, Q + "min_th": 5, Q + "max_th": 15}
    assert pts[1] == {Q + "max_p": 0.05, Q + "min_th": 10, Q + "max_th": 30}
    assert {(p[Q + "min_th"], p[Q + "max_th"]) for p in pts} == {(5, 15), (10, 30)}
    tasks = sw.tasks()
    assert len(tasks) == 12
    key, data, seed, series = tasks[0]
    assert key == "max_p=0.05 min_th=5 max_th=15" and seed == 1 and series == ()
    assert data["dumbbell"]["bottleneck"]["queue"]["max_p"] == 0.05
    assert data["duration"] == 1  # [set] applied


def test_cross_within_a_group_and_seed_list():
    sw = _sweep(vary={Q + "max_p": [0.05, 0.1], Q + "w_q": [0.001, 0.002]}, seeds=[3, 9])
    assert len(sw.points()) == 4
    assert [t[2] for t in sw.tasks()][:2] == [3, 9]


def test_sweep_file_relative_base(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.toml").write_text(RED.read_text())
    f = tmp_path / "s.toml"
    f.write_text('base = "sub/base.toml"\nseeds = 1\n[[vary]]\n'
                 '"dumbbell.bottleneck.queue.max_p" = [0.1, 0.2]\n')
    sw = Sweep.from_toml(f)
    assert sw.name == "s" and len(sw) == 2
    # the default store is beside the sweep file, not in the working directory (issue 23)
    assert sw.default_store() == tmp_path / "out" / "sweeps" / "s"
    f.write_text(f.read_text().replace("seeds = 1", 'seeds = 1\nstore = "sub/st"'))
    assert Sweep.from_toml(f).default_store() == tmp_path / "sub" / "st"
    # a sweep without a file: the working directory, as before
    assert _sweep().default_store() == Path("out/sweeps/t")


def test_inline_base_table():
    base = aqmsim.Scenario.from_toml(RED).to_dict()
    sw = Sweep.from_dict({"base": base, "vary": {"duration": [1, 2]}})
    assert [t[1]["duration"] for t in sw.tasks()] == [1, 2]


@pytest.mark.parametrize("extra, words", [
    ({"vary": {Q + "max_pp": [0.1]}}, "max_pp: not a parameter of red"),
    ({"vary": [{"mode": "zip", Q + "min_th": [1, 2], Q + "max_th": [30]}]}, "equal length"),
    ({"vary": [{"mode": "diagonal", Q + "min_th": [1]}]}, "cross"),
    ({"vary": [{Q + "max_p": [0.1]}, {Q + "max_p": [0.2]}]}, "already varied"),
    ({"seeds": 0}, "seeds"),
    ({"seeds": [1, 1]}, "twice"),
    ({"series": ["nope"]}, "series"),
    ({"colour": "red"}, "colour: unknown field"),
    ({"base": "no/such.toml"}, "no such file"),
])
def test_sweep_file_errors(extra, words):
    with pytest.raises(aqmsim.ScenarioError, match=words):
        _sweep(**extra)


# ----------------------------------------------------------------------------- every point checked
def test_every_grid_point_is_validated_before_anything_runs():
    """Varying queue.kind on a RED scenario: the CoDel point cannot take RED's fields.
    The sweep stops at parse time with one line naming the point and the field (it used
    to start, and fail half its runs at run time)."""
    with pytest.raises(aqmsim.ScenarioError) as exc:
        _sweep(vary={Q + "kind": ["red", "codel"], Q + "max_p": [0.1, 0.2]})
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith("sweep: 2 of the 4 grid points are invalid, so nothing was run; "
                          "the first, kind=codel max_p=0.1: dumbbell.bottleneck.queue."), msg
    assert "not a parameter of codel" in msg
    # a corner of a grid: only (min_th 10, max_th 8) is invalid
    with pytest.raises(aqmsim.ScenarioError) as exc:
        _sweep(vary={Q + "min_th": [5, 10], Q + "max_th": [8, 15]})
    assert str(exc.value) == (
        "sweep: 1 of the 4 grid points is invalid, so nothing was run; the first, "
        f"min_th=10 max_th=8: {Q}max_th: must be > min_th (10), got 8")
    # a bad fixed value: every point, said so
    with pytest.raises(aqmsim.ScenarioError, match="every one of the 2 grid points is "
                       "invalid.*first, max_p=0.1: .*w_q"):
        _sweep(set={"duration": 1, Q + "w_q": 7}, vary={Q + "max_p": [0.1, 0.2]})


def _queues():
    red = aqmsim.Scenario.from_toml(RED)["dumbbell.bottleneck.queue"]
    return [dict(red, max_p=0.1), dict(red, max_p=0.2), {"kind": "codel"},
            {"kind": "pie", "target": "15ms"}, {"kind": "pie", "target": "20ms"}]


def test_a_whole_queue_table_varied_reads_as_its_discipline():
    """The clean pattern (each value a whole queue table): every point valid, and each
    value named by its discipline and the fields that tell it from the others of its
    kind — in the point names and value labels, not as JSON."""
    sw = _sweep(vary={"dumbbell.bottleneck.queue": _queues()})
    names = ["RED (max_p=0.1)", "RED (max_p=0.2)", "CoDel", "PIE (target=15 ms)",
             "PIE (target=20 ms)"]
    assert [t[0] for t in sw.tasks()][::2] == [f"queue={n}" for n in names]
    assert [sw.value_label("dumbbell.bottleneck.queue", q) for q in _queues()] == names


def test_value_labels():
    from aqmsim.sweep.labels import value_labels

    assert value_labels([0.1, 0.2]) == ["0.1", "0.2"]
    # a field one table leaves out reads as its default; identical tables get a number
    assert value_labels([{"kind": "red", "gentle": True}, {"kind": "red"}]) == [
        "RED (gentle=true)", "RED (gentle=default)"]
    assert value_labels([{"kind": "codel"}, {"kind": "codel"}]) == ["CoDel #1", "CoDel #2"]
    # tables without a kind: the fields that differ
    assert value_labels([{"rate": "10Mb", "delay": "5ms"}, {"rate": "1Gb", "delay": "5ms"}]) \
        == ["rate=10 Mb", "rate=1 Gb"]


def test_short_labels():
    assert short_labels([Q + "max_p", "duration"]) == {Q + "max_p": "max_p", "duration": "duration"}
    lab = short_labels(["dumbbell.bottleneck.queue.limit", "dumbbell.bottleneck.reverse_queue.limit"])
    assert lab == {"dumbbell.bottleneck.queue.limit": "queue.limit",
                   "dumbbell.bottleneck.reverse_queue.limit": "reverse_queue.limit"}


def test_example_sweep_parses():
    sw = Sweep.from_toml(EXAMPLES / "sweeps" / "red.toml")
    assert len(sw.points()) == 3 * 4 * 2 and sw.seeds == [1, 2, 3, 4, 5]


def test_example_disciplines_sweep_names_its_queue_tables():
    sw = Sweep.from_toml(EXAMPLES / "sweeps" / "disciplines.toml")
    assert len(sw) == 5 * 2 * 5
    assert [t[0] for t in sw.tasks()][::10] == [
        f"queue={n} count=5" for n in
        ("RED (max_p=0.05)", "RED (max_p=0.1)", "CoDel", "PIE", "FQ-CoDel")]
    assert sw.default_store() == EXAMPLES / "sweeps" / "out" / "sweeps" / "disciplines"


# ----------------------------------------------------------------------------- hashing
def test_scenario_hash_is_canonical_and_stable():
    a = {"duration": 2, "seed": 7, "dumbbell": {"bottleneck": {"rate": "1Mb", "delay": "1ms"}}}
    b = {"dumbbell": {"bottleneck": {"delay": "1ms", "rate": "1Mb"}}, "duration": 2}
    # key order and the top-level seed (replaced by the run's seed) do not matter
    assert scenario_hash(a) == scenario_hash(b)
    assert scenario_hash(a) != scenario_hash({**b, "duration": 3})
    # the documented definition: sha256 of json.dumps(sort_keys=True, compact), seed removed
    import hashlib

    text = json.dumps(b, sort_keys=True, separators=(",", ":"))
    assert scenario_hash(a) == hashlib.sha256(text.encode()).hexdigest()
    # and it never changes between versions (stores stay valid)
    assert scenario_hash(a) == "a02c140a1b8b485bec1b61415dd209cd7053074acb991c68508a7fd586afff1e"


# ----------------------------------------------------------------------------- store
def test_store_schema_and_sql(tmp_path: Path):
    sc = {"duration": 1, "dumbbell": {"bottleneck": {"queue": {"max_p": 0.1}}}}
    h = scenario_hash(sc)
    with Store(tmp_path / "st") as st:
        st.register_sweep("s", {"x": 1}, [Q + "max_p"], None, [], [(h, 1, sc), (h, 2, sc)])
        st.ensure_params({Q + "max_p": [0.1]})
        ok = {"status": "ok", "summary": {"utilisation": 0.5, "seed": 1, "duration": 1.0},
              "series": {}, "wall": 0.01, "worker": "w:1", "version": "0"}
        st.record(h, 1, sc, ok, attempts=1, sweep="s", replace=False)
        st.record(h, 2, sc, {"status": "failed", "error": "boom", "error_kind": "simulation"},
                  attempts=1, sweep="s", replace=False)
        st.record(h, 2, sc, ok, attempts=2, sweep="s")     # failed, then ok: one ok row
    con = duckdb.connect(str(tmp_path / "st" / "runs.duckdb"), read_only=True)
    rows = con.execute(
        f'SELECT seed, status, error, attempts, utilisation, "{Q}max_p" FROM runs '
        "JOIN sweep_runs USING (hash, seed) WHERE sweep = 's' ORDER BY seed").fetchall()
    assert rows == [(1, "ok", None, 1, 0.5, 0.1), (2, "ok", None, 2, 0.5, 0.1)]
    cols = [r[0] for r in con.execute("DESCRIBE runs").fetchall()]
    assert "seed" in cols and "duration" not in cols  # inputs are not metric columns
    assert json.loads(con.execute("SELECT scenario FROM scenarios").fetchone()[0]) == sc
    con.close()
    df = store_mod.open(tmp_path / "st", sweep="s")
    assert list(df.columns[:5]) == [Q + "max_p", "seed", "status", "error", "utilisation"]
    assert len(df) == 2 and set(df["status"]) == {"ok"}


def test_store_record_many_one_transaction(tmp_path: Path):
    """A batch (what the driver received at once): files, then every row in one INSERT —
    new rows, a failure, and a replacement of a stored row; params, metrics, NaN kept."""
    a = {"duration": 1, "dumbbell": {"bottleneck": {"queue": {"max_p": 0.1}}}}
    b = {"duration": 1, "dumbbell": {"bottleneck": {"queue": {"max_p": 0.2}}}}
    ha, hb = scenario_hash(a), scenario_hash(b)

    def ok(u: float) -> Dict[str, Any]:
        return {"status": "ok", "summary": {"utilisation": u, "jain_fairness": float("nan"),
                                            "bottleneck_drops": 7, "seed": 1},
                "series": {"queue": b"PAR1 not really PAR1"}, "wall": 0.25,
                "worker": "w:1", "version": "0"}

    with Store(tmp_path / "st") as st:
        st.ensure_params({Q + "max_p": [0.1, 0.2]})
        st.record(ha, 3, a, {"status": "failed", "error": "boom", "error_kind": "worker"},
                  attempts=1)
        st.record_many([
            Entry(ha, 1, a, ok(0.5), 1, replace=False),
            Entry(hb, 1, b, ok(0.25), 1, replace=False),
            Entry(hb, 2, b, {"status": "failed", "error": "bad", "error_kind": "scenario"}, 2,
                  replace=False),
            Entry(ha, 3, a, ok(0.75), 2, replace=True),       # the failed row, now ok
        ], sweep="s")
        rows = st.con.execute(
            f'SELECT hash, seed, status, error, attempts, written_by, utilisation, '
            f'jain_fairness, bottleneck_drops, "{Q}max_p", series FROM runs '
            "ORDER BY \"" + Q + "max_p\", seed").fetchall()
        assert st.con.execute("SELECT count(*) FROM scenarios").fetchone() == (2,)
        assert st.summary(hb, 1)["utilisation"] == 0.25
        assert st.summary(ha, 1)["jain_fairness"] is None          # JSON has no NaN ...
    assert [r[:7] for r in rows] == [
        (ha, 1, "ok", None, 1, "s", 0.5), (ha, 3, "ok", None, 2, "s", 0.75),
        (hb, 1, "ok", None, 1, "s", 0.25), (hb, 2, "failed", "bad", 2, "s", None)]
    assert math.isnan(rows[0][7]) and rows[0][8] == 7.0            # ... its column does
    assert [r[9] for r in rows] == [0.1, 0.1, 0.2, 0.2]
    rel = json.loads(rows[0][10])["queue"]
    assert (tmp_path / "st" / rel).read_bytes() == b"PAR1 not really PAR1"
    assert not [p for p in (tmp_path / "st").rglob("*") if ".tmp-" in p.name]


def test_store_open_while_locked_reads_a_snapshot(tmp_path: Path):
    sc = {"duration": 1}
    h = scenario_hash(sc)
    st = Store(tmp_path / "st")
    try:
        st.record(h, 1, sc, {"status": "ok", "summary": {"utilisation": 1.0}}, attempts=1,
                  replace=False)
        df = store_mod.open(tmp_path / "st")  # the writer holds DuckDB's lock
        assert len(df) == 1
    finally:
        st.close()


def test_canonical_json():
    assert canonical_json({"b": 1, "a": [1.5, "é"]}) == '{"a":[1.5,"é"],"b":1}'


def test_field_valid_only_in_some_points_stops_the_sweep():
    # risk_th is a parameter of rtred only: with kind varied, the red point cannot run,
    # and the sweep stops before it starts (it used to run and fail the red points)
    with pytest.raises(aqmsim.ScenarioError,
                       match="1 of the 2 grid points is invalid.*kind=red risk_th=30: "
                             ".*risk_th: not a parameter of red"):
        _sweep(vary=[{Q + "kind": ["red", "rtred"]}, {Q + "risk_th": [30]}])
    # the clean way: whole queue tables
    sw = _sweep(vary={Q[:-1]: [{"kind": "red"}, {"kind": "rtred", "risk_th": 30}]})
    assert [t[0] for t in sw.tasks()][::2] == ["queue=RED", "queue=RTRED"]
    with pytest.raises(aqmsim.ScenarioError, match="risk_th: not a parameter of red"):
        _sweep(vary={Q + "risk_th": [30]})
    with pytest.raises(aqmsim.ScenarioError, match="sweep: base and set: "
                       "dumbbell.bottleneck.queue.max_pp: not a parameter"):
        _sweep(set={Q + "max_pp": 0.1})


def test_points_that_resolve_alike_are_found_and_the_cli_warns(tmp_path: Path):
    """Varying [tcp] variant on the BBR example, whose groups name their own variants,
    changes no flow: the two points resolve alike and `aqmsim sweep` says so before it
    runs them (they used to run as if different). A grid whose points differ has none."""
    from typer.testing import CliRunner

    from aqmsim.cli import app

    bbr = EXAMPLES / "dumbbell-bbr.toml"
    sw = Sweep.from_dict({"name": "idle", "base": str(bbr), "set": {"duration": 1},
                          "vary": {"tcp.variant": ["bbr", "bbr3"]}})
    assert sw.alike_points() == [["variant=bbr", "variant=bbr3"]]
    assert _sweep(vary={Q + "max_p": [0.1, 0.2]}).alike_points() == []
    f = tmp_path / "idle.toml"
    f.write_text(f'name = "idle"\nbase = "{bbr}"\nseeds = 1\n[set]\nduration = 1.5\n'
                 '[[vary]]\n"tcp.variant" = ["bbr", "bbr3"]\n')
    result = CliRunner().invoke(app, ["sweep", str(f), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "warning: points variant=bbr, variant=bbr3 resolve to the same scenario" in result.output
