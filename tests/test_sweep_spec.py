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
    assert sw.default_store() == Path("out/sweeps/s")


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


def test_short_labels():
    assert short_labels([Q + "max_p", "duration"]) == {Q + "max_p": "max_p", "duration": "duration"}
    lab = short_labels(["dumbbell.bottleneck.queue.limit", "dumbbell.bottleneck.reverse_queue.limit"])
    assert lab == {"dumbbell.bottleneck.queue.limit": "queue.limit",
                   "dumbbell.bottleneck.reverse_queue.limit": "reverse_queue.limit"}


def test_example_sweep_parses():
    sw = Sweep.from_toml(EXAMPLES / "sweeps" / "red.toml")
    assert len(sw.points()) == 3 * 4 * 2 and sw.seeds == [1, 2, 3, 4, 5]


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


def test_field_valid_only_in_some_points_is_accepted():
    # risk_th is a parameter of rtred only: with kind varied, the red points fail alone
    sw = _sweep(vary=[{Q + "kind": ["red", "rtred"]}, {Q + "risk_th": [30]}])
    assert len(sw.points()) == 2
    with pytest.raises(aqmsim.ScenarioError, match="risk_th: not a parameter of red"):
        _sweep(vary={Q + "risk_th": [30]})
    with pytest.raises(aqmsim.ScenarioError, match="set dumbbell.bottleneck.queue.max_pp"):
        _sweep(set={Q + "max_pp": 0.1})
