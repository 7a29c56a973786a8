"""The ns-2 column for numbers computed from each run's flows table.

* ns-2's flows table (``aqmsim.ns2.crosscheck.ns2_flows``): Results.flows' columns and
  dtypes where ns-2 measures them; the per-flow bottleneck counts come from a flow monitor
  the script gets only when asked for, which leaves every other result unchanged — and on
  the deterministic DropTail cases of test_ns2_exact.py every per-flow count equals
  aqmsim's.
* ``execute_ns2`` returns that table as a series when the task asks for ``flows``.
* ``Runs.cell_by`` (a cell computed by a function of one run's record): on a tiny paper,
  the ns-2 value of such a cell is the same function applied to ns-2's own runs (their
  summary and flows table), mean ± 95 % CI over the seeds; a column ns-2 does not measure
  gives "ns-2 does not measure …", an experiment it cannot run "ns-2 cannot run this";
  a stored ns-2 run without the flows table is run again when a cell needs it.
* Cells with such sources still pickle and deep-copy (pktsize's use ``functools.partial``).
"""

from __future__ import annotations

import copy
import io
import math
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, List

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from aqmsim import Scenario
from aqmsim.ns2.column import CANNOT, NS2_TABLES, execute_ns2, run_column, tables_wanted
from aqmsim.ns2.crosscheck import NS2_FLOWS_UNMEASURED, ns2_flows, ns2_summary, run_ns2
from aqmsim.ns2.export import to_tcl
from aqmsim.papers.base import (Cell, Claim, Experiment, FromRun, Paper, Report, RunRecord,
                                Runs, Table, mean_ci)
from aqmsim.report import reproduce_papers
from aqmsim.results import SCHEMAS, read_parquet

from conftest import EXAMPLES, shortened

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_ns2_exact import scenario as exact_scenario  # noqa: E402
from test_reproduce_ns2 import assert_same_ns2_values  # noqa: E402

needs_ns = pytest.mark.usefixtures("ns2_binary")  # fails, never skips, without ns-2


# ----------------------------------------------------------------------------- flows table
@needs_ns
@pytest.mark.parametrize("variant,n", [("reno", 2), ("newreno", 8), ("sack", 8)])
def test_flow_monitor_counts_equal_aqmsims_and_change_nothing_else(core, tmp_path, variant, n):
    d = exact_scenario(variant, n)
    plain = run_ns2(d, 1, tmp_path / "plain", samples=False)
    fm = run_ns2(d, 1, tmp_path / "fm", samples=False, flow_monitor=True)
    assert ns2_summary(plain) == ns2_summary(fm)          # the monitor only counts
    assert [{k: v for k, v in f.items() if not k.startswith("queue_")} for f in fm["flows"]] \
        == plain["flows"]
    assert "makeflowmon" in to_tcl(d, 1, "/tmp/x", flow_monitor=True)
    assert "makeflowmon" not in to_tcl(d, 1, "/tmp/x")

    ours = Scenario.from_dict(d).run(seed=1).flows
    theirs = ns2_flows(fm)
    for c in NS2_FLOWS_UNMEASURED:                             # ns-2 does not measure them
        assert c not in theirs.columns
    assert list(theirs.columns) == [c for c in ours.columns if c not in NS2_FLOWS_UNMEASURED]
    for c in theirs.columns:
        assert str(theirs[c].dtype) == SCHEMAS["flows"][c] == str(ours[c].dtype), c
        if c == "start":                                  # ns vs double rounding of 0.3 …
            assert np.allclose(theirs[c], ours[c], rtol=0, atol=1e-9)
        else:                                             # every count: packet for packet
            assert theirs[c].tolist() == ours[c].tolist(), c
    assert theirs["queue_arrivals"].sum() == fm["bottleneck_arrivals"]
    assert theirs["queue_drops"].sum() == fm["bottleneck_drops"]
    # without the monitor there are no per-flow queue counts (absent, not zeros)
    assert "queue_arrivals" not in ns2_flows(plain).columns


@needs_ns
def test_execute_ns2_returns_the_flows_table_when_asked(core, tmp_path):
    d = exact_scenario("sack", 4)
    res = execute_ns2({"scenario": d, "seed": 1, "series": ["flows", "queue"]})
    assert res["status"] == "ok" and set(res["series"]) == {"flows"}   # ns-2 has no queue
    got = read_parquet("flows", io.BytesIO(res["series"]["flows"]))
    want = ns2_flows(run_ns2(d, 1, tmp_path, samples=False, flow_monitor=True))
    pd.testing.assert_frame_equal(got, want)
    plain = execute_ns2({"scenario": d, "seed": 1, "series": []})
    assert plain["series"] == {} and plain["summary"] == res["summary"]
    assert NS2_TABLES == ("flows",)


# ----------------------------------------------------------------------------- cell_by
def drop_pct(rec: RunRecord) -> float:
    """% of the flows' packets dropped at the bottleneck: from the flows table."""
    f = rec.tables["flows"]
    return 100.0 * f["queue_drops"].sum() / f["queue_arrivals"].sum()


def slowest_goodput(rec: RunRecord) -> float:
    """The smallest per-flow goodput (Mb/s) over the flows that started."""
    return float(rec.tables["flows"]["goodput_bps"].min()) / 1e6


def flow_delay(rec: RunRecord) -> float:
    return float(rec.tables["flows"]["mean_delay_s"].mean())


def queue_per_drop(rec: RunRecord) -> float:
    """Summary only: the time-average queue per bottleneck drop."""
    return rec.summary["time_avg_queue_pkts"] / max(rec.summary["bottleneck_drops"], 1)


def _scenarios() -> dict:
    red = Scenario.from_dict(shortened(Scenario.from_toml(EXAMPLES / "dumbbell-red.toml")
                                       .to_dict(), 3.0))
    rt = red.with_overrides(**{"dumbbell.bottleneck.queue.kind": "rtred",
                               "dumbbell.bottleneck.queue.risk_th": 18})
    return {"red": red, "rtred": rt}


#: (column, function, scale, tables)
FNS = (("drop %", drop_pct, 1.0, None), ("slowest Mb/s", slowest_goodput, 1.0, None),
       ("flow delay ms", flow_delay, 1000.0, None),
       ("queue/drop", queue_per_drop, 1.0, ()))


class FlowsPaper(Paper):
    """A RED dumbbell of 3 s and an RTRED one ns-2 cannot run; its cells are functions
    of each run's record (three read the flows table, one the summary)."""

    name = "nsflows"
    number = "997"
    title = "A fake paper whose numbers come from the flows table"
    default_seeds = 2

    def experiments(self) -> List[Experiment]:
        return [Experiment(k, sc, {}, keep=("flows",), keep_first=())
                for k, sc in _scenarios().items()]

    def analyse(self, runs: Runs, out: Path) -> Report:
        rows = []
        for k in runs.experiments:
            rows.append([k] + [runs.cell_by(k, fn, published=1.0, scale=sc, tables=t)
                               for _, fn, sc, t in FNS])
        t = Table("T", ["queue"] + [c for c, *_ in FNS], rows)
        return Report(self, [t], [], [Claim("ran", True, "")], [],
                      seeds=sorted({s for (_, s) in runs.records}))


def _console() -> Console:
    return Console(file=io.StringIO(), width=220, soft_wrap=True, highlight=False)


def _reproduce(out: Path) -> Any:
    done = reproduce_papers([FlowsPaper()], out, seeds=2, workers=2, console=_console(),
                            progress_console=_console())
    (report,) = done.outcomes
    assert not done.failures, getattr(report, "error", "")
    return report


def _cells(report: Any) -> dict:
    (t,) = report.tables
    return {(row[0], t.columns[j]): c for row in t.rows for j, c in enumerate(row)
            if isinstance(c, Cell)}


def test_cell_by_is_the_mean_of_the_function_over_seeds(core):
    exps = [Experiment("red", _scenarios()["red"], {}, keep=("flows",), keep_first=())]
    recs = []
    for s in (1, 2, 3):
        res = exps[0].scenario.run(seed=s)
        recs.append(RunRecord("red", s, dict(res.summary), {"flows": res.flows}))
    runs = Runs(exps, recs)
    c = runs.cell_by("red", drop_pct, published=2.0, scale=10.0)
    want = mean_ci(np.array([drop_pct(r) for r in recs]) * 10.0)
    assert (c.mean, c.half, c.published) == (want[0], want[1], 2.0)
    key, metric, scale = c.source
    assert key == "red" and scale == 10.0 and isinstance(metric, FromRun)
    assert metric.tables == ("flows",) and metric.describe() == "drop_pct"  # keep; fn name
    assert runs.cell_by("red", queue_per_drop, tables=()).source[1].tables == ()
    assert tables_wanted([c, Cell(1.0), runs.cell("red", "goodput_bps")]) == {"red": ("flows",)}


@needs_ns
def test_ns2_value_is_the_same_function_of_ns2s_runs(core, tmp_path: Path):
    out = tmp_path / "rep"
    report = _reproduce(out)
    col = report.ns2
    assert col.status == "ran" and col.experiments == ["red"] and list(col.cannot) == ["rtred"]
    assert col.runs == {"total": 2, "stored": 0, "ran": 2, "failed": 0}
    cells = _cells(report)
    sc = _scenarios()["red"].to_dict()
    own = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in (1, 2):
            r = run_ns2(sc, s, tmp, samples=False, flow_monitor=True)
            own.append(RunRecord("red", s, ns2_summary(r), {"flows": ns2_flows(r)}))
    for name, fn, scale, _ in FNS:
        c = cells[("red", name)]
        if fn is flow_delay:                      # the flows table's mean_delay_s: not in ns-2
            assert c.ns2 is None and c.ns2_note == "ns-2 does not measure flow_delay"
            continue
        want = mean_ci(np.array([fn(r) for r in own]) * scale)
        assert c.ns2 is not None and c.ns2_note == "", name
        assert c.ns2.mean == pytest.approx(want[0], rel=1e-12), name
        assert c.ns2.half == pytest.approx(want[1], rel=1e-9, abs=1e-12), name
        assert cells[("rtred", name)].ns2 is None and cells[("rtred", name)].ns2_note == CANNOT
    # the flows tables were kept in ns-2's store: a second reproduction takes every run there
    again = _reproduce(out)
    assert again.ns2.runs == {"total": 2, "stored": 2, "ran": 0, "failed": 0}
    assert_same_ns2_values(_cells(again), cells)


@needs_ns
def test_a_stored_ns2_run_without_flows_runs_again_when_a_cell_needs_them(core, tmp_path):
    paper = FlowsPaper()
    (red, _) = paper.experiments()
    col, runs = run_column(paper, [red], [1], tmp_path / "store", workers=1)
    assert col.runs["ran"] == 1 and "flows" not in runs.get("red", 1).tables
    col, runs = run_column(paper, [red], [1], tmp_path / "store", workers=1)
    assert col.runs == {"total": 1, "stored": 1, "ran": 0, "failed": 0}
    col, runs = run_column(paper, [red], [1], tmp_path / "store", workers=1,
                           tables={"red": ("flows", "queue")})     # ns-2 gives flows only
    assert col.runs == {"total": 1, "stored": 0, "ran": 1, "failed": 0}
    assert set(runs.get("red", 1).tables) == {"flows"}
    assert "queue_drops" in runs.get("red", 1).tables["flows"].columns


def test_cells_with_sources_pickle_and_copy(core):
    from aqmsim.papers.pktsize import from_run

    c = Cell(1.0, 0.5, 2.0, source=("red4-low", from_run("mtu375", "plr"), 1.0))
    back = pickle.loads(pickle.dumps(c))
    assert back.source[0] == "red4-low" and back.source[1].tables == ("flows",)
    assert back.source[1].describe() == "plr of mtu375"
    rec = RunRecord("k", 1, {}, {"flows": pd.DataFrame({
        "label": ["mtu375", "mtu750"], "queue_arrivals": [100, 50], "queue_drops": [3, 1],
        "goodput_bps": [1e6, 2e6], "timeouts": [0, 1], "sent": [100, 50]})})
    assert back.source[1](rec) == pytest.approx(3.0)
    assert copy.deepcopy(c).source[1](rec) == pytest.approx(3.0)
    with pytest.raises(KeyError):                        # a run without the flows table
        back.source[1](RunRecord("k", 1, {}, {}))
    summary_only = from_run("all", "early_pct")
    assert summary_only.tables == () and summary_only.describe() == "drops_early"
    with pytest.raises(KeyError):                        # ns-2's summary has no drop reasons
        summary_only(RunRecord("k", 1, {"bottleneck_drops": 10}, {}))
    rep = Report(FlowsPaper(), [Table("T", ["a"], [[c]])], [], [], [], [1])
    assert copy.deepcopy(rep).tables[0].rows[0][0].source[1](rec) == pytest.approx(3.0)
    (table,) = pickle.loads(pickle.dumps(rep.tables))
    assert math.isclose(table.rows[0][0].mean, 1.0)
