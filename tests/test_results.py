"""Results of a short RED dumbbell: tables, accounting, determinism, plots, saving."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmsim import Results, Scenario
from aqmsim.results import SCHEMAS

from conftest import EXAMPLES, shortened

DURATION = 5.0
BOTTLENECK = "R1->R2"


def _red(duration: float = DURATION) -> Scenario:
    sc = Scenario.from_toml(EXAMPLES / "dumbbell-red.toml")
    return Scenario(shortened(sc.to_dict(), duration), path=sc.path)


@pytest.fixture(scope="module")
def res(core) -> Results:
    return _red().run(seed=1)


@pytest.fixture(scope="module")
def res_again(core) -> Results:
    return _red().run(seed=1)


@pytest.fixture(scope="module")
def res_other_seed(core) -> Results:
    return _red().run(seed=2)


# --------------------------------------------------------------------------- shape
def test_summary_keys(res: Results):
    s = res.summary
    for key in ("duration", "seed", "events", "bottleneck_arrivals", "bottleneck_departures",
                "bottleneck_drops", "utilisation", "time_avg_queue_pkts"):
        assert key in s, f"summary lacks {key}: {sorted(s)}"
    assert s["seed"] == 1
    assert s["duration"] == pytest.approx(DURATION)
    assert s["events"] > 0
    for key in ("seed", "events", "bottleneck_arrivals", "bottleneck_drops"):
        assert type(s[key]) is int, key
    assert all(isinstance(v, (int, float, str)) for v in s.values())


@pytest.mark.parametrize("table", ["queue", "drops", "flows", "links"])
def test_tables_columns_and_dtypes(res: Results, table: str):
    df = getattr(res, table)
    assert isinstance(df, pd.DataFrame)
    schema = {k: v for k, v in SCHEMAS[table].items() if k != "label"}  # label: optional
    missing = set(schema) - set(df.columns)
    assert not missing, f"{table} lacks columns {missing}"
    for col, dtype in schema.items():
        if dtype == "object":
            assert df[col].dtype == object, (table, col, df[col].dtype)
            assert all(isinstance(x, str) for x in df[col]), (table, col)
        else:
            assert str(df[col].dtype) == dtype, (table, col, df[col].dtype)


def test_queue_samples(res: Results):
    q = res.queue
    assert not q.empty
    assert set(q["link"]) == {BOTTLENECK}
    t = q["t"].to_numpy()
    assert (np.diff(t) > 0).all(), "samples in time order"
    assert t[0] >= 0 and t[-1] <= DURATION + 1e-9
    # sample_interval = 0.01 over 5 s
    assert 0.9 * DURATION / 0.01 <= len(q) <= DURATION / 0.01 + 2
    assert (q["len_pkts"] >= 0).all() and (q["len_pkts"] <= 50).all()
    assert (q["len_bytes"] >= 0).all()
    assert ((q["p"] >= 0) & (q["p"] <= 1)).all()
    assert (q["avg"] >= 0).all()
    assert q["max_p"].iloc[0] == pytest.approx(0.1)
    assert (q["min_th"] == 5).all() and (q["max_th"] == 15).all()
    assert q["len_pkts"].max() > 0, "ten Reno flows build a queue"


def test_flows_table(res: Results):
    f = res.flows
    assert len(f) == 10
    assert sorted(f["flow"]) == list(range(10))
    assert (f["app"] == "ftp").all()
    assert (f["variant"] == "reno").all()
    assert ((f["start"] >= 0) & (f["start"] <= 1)).all()
    assert (f["sent"] > 0).all()
    assert (f["delivered"] <= f["received"]).all()
    assert (f["goodput_bps"] <= f["throughput_bps"] + 1e-9).all()
    assert (f["throughput_bps"] <= 1.5e6 * 1.001).all()


def test_drops_table(res: Results):
    d = res.drops
    assert set(d["reason"]) <= {"early", "forced", "overflow"}
    assert set(d["action"]) <= {"drop", "mark"}
    assert (d["action"] == "drop").all(), "no ECN in this scenario"
    assert set(d["flow"]) <= set(res.flows["flow"])
    if len(d):
        assert (np.diff(d["t"].to_numpy()) >= 0).all()
        assert ((d["t"] >= 0) & (d["t"] <= DURATION)).all()


# --------------------------------------------------------------------------- accounting
def test_every_arrival_accounted_for(res: Results):
    s = res.summary
    arrivals = s["bottleneck_arrivals"]
    departed_or_dropped = s["bottleneck_departures"] + s["bottleneck_drops"]
    assert arrivals > 0
    end = s.get("bottleneck_queued_end", s.get("final_queue_pkts"))
    if end is not None:
        assert arrivals == departed_or_dropped + end
    else:
        # what is still queued at the end lies within the buffer
        assert 0 <= arrivals - departed_or_dropped <= 50


def test_drop_counts_agree(res: Results):
    s = res.summary
    parts = [k for k in ("drops_early", "drops_forced", "drops_overflow") if k in s]
    if len(parts) == 3:
        assert s["bottleneck_drops"] == sum(s[k] for k in parts)
    d = res.drops
    at_bottleneck = d[(d["link"] == BOTTLENECK) & (d["action"] == "drop")]
    assert len(at_bottleneck) == s["bottleneck_drops"]
    for reason in ("early", "forced", "overflow"):
        key = f"drops_{reason}"
        if key in s:
            assert (at_bottleneck["reason"] == reason).sum() == s[key], reason
    if "marks" in s:
        assert s["marks"] == 0


def test_utilisation_in_unit_interval(res: Results):
    u = res.summary["utilisation"]
    assert 0.0 <= u <= 1.0
    assert u > 0.5, "ten Reno flows keep a 1.5 Mb/s link busy"
    links = res.links
    assert not links.empty
    assert set(links["link"]) == {BOTTLENECK}
    assert ((links["utilisation"] >= 0) & (links["utilisation"] <= 1 + 1e-9)).all()
    # bins of link_interval = 0.1 s
    t = links["t"].to_numpy()
    assert np.allclose(np.diff(t), 0.1)
    assert np.mean(links["utilisation"]) == pytest.approx(u, abs=0.02)


def test_jain_fairness_in_range(res: Results):
    j = res.summary["jain_fairness"]
    assert 1 / 10 - 1e-12 <= j <= 1 + 1e-12
    x = res.flows["throughput_bps"].to_numpy()
    assert j == pytest.approx(x.sum() ** 2 / (len(x) * (x ** 2).sum()), rel=1e-6)


def test_resolved_is_a_dict(res: Results):
    r = res.resolved
    assert isinstance(r, dict) and r
    stack = [r]
    while stack:  # no value is still "auto"
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        else:
            assert x != "auto"


# --------------------------------------------------------------------------- determinism
def _without_wall(s: dict) -> dict:
    return {k: v for k, v in s.items() if k != "wall_seconds"}


def test_same_seed_same_results(res: Results, res_again: Results):
    assert _without_wall(res.summary) == _without_wall(res_again.summary)
    for table in ("queue", "drops", "flows", "links"):
        pd.testing.assert_frame_equal(getattr(res, table), getattr(res_again, table))


def test_different_seed_differs(res: Results, res_other_seed: Results):
    assert res_other_seed.summary["seed"] == 2
    assert not res.queue.equals(res_other_seed.queue)
    assert not res.flows["start"].equals(res_other_seed.flows["start"])


def test_scenario_seed_used_by_default(core):
    sc = _red(1.0)
    r = sc.run()
    assert r.summary["seed"] == sc["seed"]


# --------------------------------------------------------------------------- plots
def test_plot_queue(res: Results, tmp_path: Path):
    from matplotlib.figure import Figure

    fig = res.plot_queue()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(ax.get_lines()) >= 2  # instantaneous + average (+ thresholds)
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert any("average" in lab for lab in labels)
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 2, "min_th and max_th"
    fig.savefig(tmp_path / "q.png")
    assert (tmp_path / "q.png").stat().st_size > 1000


def test_plot_queue_into_given_axes(res: Results):
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    assert res.plot_queue(link=BOTTLENECK, ax=ax) is fig
    with pytest.raises(ValueError, match="no-such-link"):
        res.plot_queue(link="no-such-link")


def test_other_plots(res: Results):
    fig = res.plot_drop_probability()
    assert len(fig.axes[0].get_lines()) >= 2
    fig = res.plot_utilisation()
    assert len(fig.axes[0].get_lines()) >= 1


# --------------------------------------------------------------------------- saving
def test_save_csv(res: Results, tmp_path: Path):
    written = res.save(tmp_path / "out")
    names = {p.name for p in written}
    assert {"summary.json", "resolved.json", "queue.csv", "flows.csv", "drops.csv",
            "links.csv"} <= names
    assert all(p.exists() for p in written)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["bottleneck_arrivals"] == res.summary["bottleneck_arrivals"]
    q = pd.read_csv(tmp_path / "out" / "queue.csv")
    assert len(q) == len(res.queue)
    assert list(q.columns) == list(res.queue.columns)
    f = pd.read_csv(tmp_path / "out" / "flows.csv")
    assert f["sent"].tolist() == res.flows["sent"].tolist()


def test_save_bad_format(res: Results, tmp_path: Path):
    with pytest.raises(ValueError, match="fmt"):
        res.save(tmp_path, fmt="xlsx")


def test_save_parquet(res: Results, tmp_path: Path):
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        with pytest.raises(ImportError, match="pyarrow"):
            res.save(tmp_path, fmt="parquet")
    else:  # pragma: no cover - pyarrow is not a dependency
        written = res.save(tmp_path, fmt="parquet")
        assert (tmp_path / "queue.parquet") in written


def test_results_from_plain_dict():
    """Results also accepts the columns as numpy arrays and an empty drop log."""
    raw = {
        "summary": {"duration": 1.0, "seed": np.int64(3)},
        "queue": {"t": np.array([0.0, 0.01]), "link": ["a->b", "a->b"],
                  "len_pkts": [0, 1], "len_bytes": [0, 1040], "avg": [0.0, 0.002],
                  "p": [0.0, 0.0], "max_p": [0.1, 0.1], "min_th": [5.0, 5.0],
                  "max_th": [15.0, 15.0]},
        "drops": {"t": [], "link": [], "flow": [], "reason": [], "action": [], "qlen_pkts": []},
        "flows": {}, "links": {"t": [], "link": [], "utilisation": []},
        "resolved": "{\"duration\": 1.0}",
    }
    r = Results(raw)
    assert r.summary["seed"] == 3 and type(r.summary["seed"]) is int
    assert r.resolved == {"duration": 1.0}
    assert str(r.queue["len_pkts"].dtype) == "int64"
    assert r.drops.empty and str(r.drops["flow"].dtype) == "int64"
    assert r.drops["link"].dtype == object
    assert r.flows.empty and "throughput_bps" in r.flows.columns
    assert r.monitored_links == ["a->b"]
    assert len(r.plot_queue().axes[0].get_lines()) >= 2


@pytest.mark.parametrize("table", ["queue", "drops", "flows", "links"])
def test_arrow_parquet_round_trip(core, res_again: Results, table: str):
    """What a sweep worker keeps (Results.arrow, from the engine's columns, as Parquet)
    reads back (aqmsim.results.read_parquet) as exactly the table: columns, dtypes, values."""
    import io

    import pyarrow.parquet as pq

    from aqmsim.results import read_parquet

    fresh = _red().run(seed=1)  # arrow() before the DataFrame was ever built
    buf = io.BytesIO()
    pq.write_table(fresh.arrow(table), buf)
    back = read_parquet(table, io.BytesIO(buf.getvalue()))
    assert len(back) > 0
    pd.testing.assert_frame_equal(back, getattr(res_again, table), check_exact=True)


def test_arrow_columns_beyond_the_schema_go_through_pandas():
    import io

    import pyarrow.parquet as pq

    from aqmsim.results import read_parquet

    raw = {"flow": [1, 2], "label": ["x", None], "extra": ["a", "b"], "more": [1.5, 2.5]}
    buf = io.BytesIO()
    pq.write_table(Results({"flows": raw}).arrow("flows"), buf)
    back = read_parquet("flows", io.BytesIO(buf.getvalue()))
    pd.testing.assert_frame_equal(back, Results({"flows": raw}).flows, check_exact=True)
