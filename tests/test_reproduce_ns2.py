"""`aqmsim reproduce` with the ns-2 column: the experiments ns-2 can run also run in ns-2
(aqmsim.ns2.column through the sweep machinery: same pool, same seeds, a store of their
own), and every cell read off a summary metric shows ns-2's number beside ours.

A tiny paper (a RED and a DropTail dumbbell of 3 s, plus an RTRED one ns-2 cannot run),
2 seeds: its cells' ns-2 values are what run_ns2 itself gives for those seeds; a second
reproduction takes the ns-2 runs from the store; --no-ns2 and a missing `ns` give no
column (a missing `ns`: one line on the console); the highlight rule on hand-made cells.
"""

from __future__ import annotations

import io
import stat
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

import aqmsim.papers
from aqmsim import Scenario
from aqmsim.cli import app
from aqmsim.ns2.column import CANNOT, Ns2Column, execute_ns2, ns2_store
from aqmsim.ns2.crosscheck import ns2_summary, ns_available, ns_binary, run_ns2
from aqmsim.papers.base import Cell, Claim, Experiment, Paper, Report, Runs, Table, mean_ci
from aqmsim.report import _format as F
from aqmsim.report import reproduce_papers
from aqmsim.report.html import _td, table_html
from aqmsim.report.markdown import summary_markdown

from conftest import EXAMPLES, shortened

runner = CliRunner()
needs_ns = pytest.mark.usefixtures("ns2_binary")  # fails, never skips, without ns-2

#: (cell metric, scale) of the table: the last one ns-2 does not measure.
METRICS = (("time_avg_queue_pkts", 1.0), ("bottleneck_drops", 1.0), ("utilisation", 100.0),
           ("packets_sent", 1.0), ("mean_queueing_delay_s", 1000.0),
           ("mean_e2e_delay_s", 1000.0))


def _scenarios() -> dict:
    base = shortened(Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").to_dict(), 3.0)
    red = Scenario.from_dict(base)
    dt = red.with_overrides(**{"dumbbell.bottleneck.queue": {"kind": "droptail", "limit": 20}})
    rt = red.with_overrides(**{"dumbbell.bottleneck.queue.kind": "rtred",
                               "dumbbell.bottleneck.queue.risk_th": 18})
    return {"red": red, "droptail": dt, "rtred": rt}


class Ns2Paper(Paper):
    """Three 3-second dumbbells (RED, DropTail, RTRED) and one table of summary metrics
    (``runs.cell``), one computed cell (no source) and one claim."""

    name = "nsfake"
    number = "998"
    title = "A fake paper run in two simulators"
    default_seeds = 2

    def __init__(self, name: str = "nsfake") -> None:
        self.name = name

    def experiments(self) -> List[Experiment]:
        return [Experiment(k, sc, {"queue": k}, keep=(), keep_first=())
                for k, sc in _scenarios().items()]

    def analyse(self, runs: Runs, out: Path) -> Report:
        rows: List[List[Any]] = []
        for k in runs.experiments:
            row: List[Any] = [k]
            for m, scale in METRICS:
                row.append(runs.cell(k, m, published=1.0, scale=scale))
            d = runs.values(k, "bottleneck_drops") / np.maximum(
                runs.values(k, "bottleneck_arrivals"), 1)
            row.append(Cell(*mean_ci(d)))  # computed here: no source, no ns-2 value
            rows.append(row)
        t = Table("Table 1", ["queue"] + [m for m, _ in METRICS] + ["drop ratio"], rows)
        return Report(self, [t], [], [Claim("runs ran", bool(runs.records), "")], [],
                      seeds=sorted({s for (_, s) in runs.records}))


def _console() -> Console:
    return Console(file=io.StringIO(), width=220, soft_wrap=True, highlight=False)


def _one(paper: Any, out: Path, **kw: Any) -> Any:
    console = _console()
    done = reproduce_papers([paper], out, seeds=2, workers=2, console=console,
                            progress_console=_console(), **kw)
    (report,) = done.outcomes
    assert not done.failures, getattr(report, "error", "")
    return report, console.file.getvalue()


def _cells(report: Any) -> dict:
    (t,) = report.tables
    return {(row[0], t.columns[j]): c for row in t.rows for j, c in enumerate(row)
            if isinstance(c, Cell)}


# ----------------------------------------------------------------------------- the column
@needs_ns
def test_ns2_column_is_run_ns2s_own_numbers_and_comes_from_the_store(core, tmp_path: Path):
    out = tmp_path / "rep"
    report, text = _one(Ns2Paper(), out)
    assert report.runs == {"total": 6, "stored": 0, "ran": 6, "failed": 0}  # ours only
    col = report.ns2
    assert isinstance(col, Ns2Column) and col.status == "ran"
    assert col.seeds == [1, 2] and col.experiments == ["red", "droptail"]
    assert list(col.cannot) == ["rtred"] and "rtred" in col.cannot["rtred"]
    assert col.runs == {"total": 4, "stored": 0, "ran": 4, "failed": 0} and not col.failed
    assert col.store == str(ns2_store(out / "nsfake" / "store"))
    assert (Path(col.store) / "runs.duckdb").is_file()

    # ns-2's own results for those seeds, run here in this process
    cells = _cells(report)
    for key in ("red", "droptail"):
        sc = _scenarios()[key].to_dict()
        with tempfile.TemporaryDirectory() as tmp:
            own = [ns2_summary(run_ns2(sc, s, tmp, samples=False)) for s in (1, 2)]
        for m, scale in METRICS[:-1]:
            c = cells[(key, m)]
            want = mean_ci(np.array([r[m] for r in own], dtype=float) * scale)
            assert c.ns2 is not None and c.ns2_note == "", (key, m)
            assert c.ns2.mean == pytest.approx(want[0], rel=1e-12, abs=1e-12), (key, m)
            assert c.ns2.half == pytest.approx(want[1], rel=1e-9, abs=1e-12), (key, m)
        e2e = cells[(key, "mean_e2e_delay_s")]
        assert e2e.ns2 is None and e2e.ns2_note == "ns-2 does not measure mean_e2e_delay_s"
        assert cells[(key, "drop ratio")].ns2 is None          # no source: no ns-2 value
    for m, _ in METRICS:                                      # the experiment ns-2 cannot run
        assert cells[("rtred", m)].ns2 is None and cells[("rtred", m)].ns2_note == CANNOT
    k, n = report.ns2_count()
    assert n > 0 and f"ns-2 column: {k} of {n} numbers agree with aqmsim (" in text

    page = (out / "nsfake" / "index.html").read_text(encoding="utf-8")
    assert 'class="ns2 ' in page and "published | ns-2 ± 95 % CI | aqmsim ± 95 % CI" in page
    assert "ns-2 cannot run this" in page and "<code>rtred</code>" in page
    assert f"{k} of {n} numbers agree" in (out / "index.html").read_text(encoding="utf-8")
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "| published | ns-2 (± 95 % CI) | aqmsim (± 95 % CI) | diff |" in md
    assert f"{k} of {n} numbers agree" in md

    # again: every ns-2 run from the store, the same numbers
    again, _ = _one(Ns2Paper(), out)
    assert again.runs["ran"] == 0
    assert again.ns2.runs == {"total": 4, "stored": 4, "ran": 0, "failed": 0}
    assert_same_ns2_values(_cells(again), cells)


def assert_same_ns2_values(cells: Dict[Any, Any], first: Dict[Any, Any]) -> None:
    """Every cell has the ns-2 value (or note) it had the first time."""
    for where, c in cells.items():
        f = first[where]
        assert (c.ns2 is None) == (f.ns2 is None) and c.ns2_note == f.ns2_note, where
        if c.ns2 is not None:
            assert (c.ns2.mean, c.ns2.half) == (f.ns2.mean, f.ns2.half), where


@needs_ns
def test_execute_dispatches_ns2_tasks_and_leaves_no_files(core, tmp_path: Path,
                                                           monkeypatch):
    from aqmsim.sweep import execute

    work = tmp_path / "tmp"
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))
    sc = _scenarios()["droptail"].to_dict()
    res = execute({"scenario": sc, "seed": 3, "series": [], "engine": "ns2"})
    assert res["status"] == "ok" and res["series"] == {} and res["engine"] == "ns2"
    assert list(work.iterdir()) == []                    # its working files are gone
    own = ns2_summary(run_ns2(sc, 3, tmp_path / "own", samples=False))
    assert res["summary"] == own
    bad = execute_ns2({"scenario": _scenarios()["rtred"].to_dict(), "seed": 1})
    assert bad["status"] == "failed" and bad["error_kind"] == "scenario"
    assert bad["error"].startswith(CANNOT)


@needs_ns
def test_run_tasks_engine_ns2_runs_in_ns2_through_the_pool(core, tmp_path: Path):
    from aqmsim import store as store_mod
    from aqmsim.sweep import run_tasks

    sc = _scenarios()["red"].to_dict()
    res = run_tasks([("red", sc, 1), ("red", sc, 2)], tmp_path / "st", workers=1,
                    engine="ns2")
    assert res.counts.ok == 2 and res.counts.failed == 0
    again = run_tasks([("red", sc, 1), ("red", sc, 2)], tmp_path / "st", workers=1,
                      engine="ns2")
    assert again.counts.skipped == 2                      # from the store, none run again
    with store_mod.Store(tmp_path / "st") as st:
        for seed in (1, 2):
            got = st.summary(res.outcomes[seed - 1].hash, seed)
            own = ns2_summary(run_ns2(sc, seed, tmp_path / "own", samples=False))
            assert got == own


@needs_ns
def test_failed_ns2_runs_are_listed_not_fatal(core, tmp_path: Path, monkeypatch):
    """A fake `ns` that fails on seed 2 (and runs the real one otherwise): the seed-2 runs
    are listed, the cells hold seed 1 alone (no CI: not compared), the paper succeeds."""
    real = ns_binary()
    fake = tmp_path / "bin" / "ns"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\ncase "$1" in *ns2-seed2*) echo "boom" >&2; exit 3;; esac\n'
                    f'exec {real} "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("AQMSIM_NS", str(fake))
    report, text = _one(Ns2Paper(), tmp_path / "rep")
    col = report.ns2
    assert col.status == "ran" and col.runs["failed"] == 2
    assert sorted((f.key, f.seed) for f in col.failed) == [("droptail", 2), ("red", 2)]
    assert all(f.error_kind == "simulation" and "boom" in f.error for f in col.failed)
    c = _cells(report)[("red", "bottleneck_drops")]
    assert c.ns2 is not None and np.isnan(c.ns2.half) and c.ns2_agrees is None
    assert report.ns2_count() == (0, 0)
    assert "2 ns-2 runs failed" in text
    assert report.failed_runs == []                             # ours all ran


# ----------------------------------------------------------------------------- no column
@pytest.fixture
def fake_registry(monkeypatch):
    monkeypatch.setattr(aqmsim.papers, "names", lambda: ["nsfake"])
    monkeypatch.setattr(aqmsim.papers, "get", lambda name: Ns2Paper())


def test_no_ns2_option_gives_no_column(core, tmp_path: Path, fake_registry):
    out = tmp_path / "cmd"
    res = runner.invoke(app, ["reproduce", "nsfake", "--seeds", "2", "--workers", "2",
                              "--out", str(out), "--no-ns2"])
    assert res.exit_code == 0, res.output
    assert "ns-2" not in res.output
    page = (out / "nsfake" / "index.html").read_text(encoding="utf-8")
    assert 'class="ns2' not in page and "ns-2 column" not in page and 'id="ns2"' not in page
    assert "ns-2" not in (out / "summary.md").read_text(encoding="utf-8")
    assert not (out / "nsfake" / "store" / "ns2").exists()


def test_missing_ns_is_one_line_and_no_column(core, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AQMSIM_NS", str(tmp_path / "no-such-ns"))  # (`ns` on PATH or not)
    assert not ns_available()
    out = tmp_path / "rep"
    console = _console()
    done = reproduce_papers([Ns2Paper("one"), Ns2Paper("two")], out, seeds=2, workers=2,
                            console=console, progress_console=_console())
    assert done.exit_code == 0 and not done.failures
    text = console.file.getvalue()
    assert "Traceback" not in text
    lines = [ln for ln in text.splitlines() if "ns-2" in ln]
    assert len(lines) == 1 and "was not found" in lines[0], lines
    for o in done.outcomes:
        assert o.ns2.status == "missing" and not F.has_ns2(o)
        assert all(c.ns2 is None for c in o.cells())
        page = (out / o.paper.name / "index.html").read_text(encoding="utf-8")
        assert 'class="ns2' not in page and "not found" in page
    assert "ns-2 (± 95 % CI)" not in (out / "summary.md").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- highlight
def test_highlight_rule_beyond_and_within_the_cis():
    # |12 − 10| = 2 > √(1² + 1²) = 1.41: beyond; |11 − 10| = 1 ≤ 1.41: within
    beyond = Cell(10.0, 1.0, 9.0, ns2=Cell(12.0, 1.0))
    within = Cell(10.0, 1.0, 9.0, ns2=Cell(11.0, 1.0))
    edge = Cell(0.0, 3.0, ns2=Cell(5.0, 4.0))                  # |5| = √(9 + 16): within
    assert beyond.ns2_agrees is False and within.ns2_agrees is True and edge.ns2_agrees
    assert Cell(10.0, 1.0).ns2_agrees is None                   # no ns-2 value
    assert Cell(10.0, float("nan"), ns2=Cell(10.0, 1.0)).ns2_agrees is None  # one seed
    assert F.ns2(beyond) == f"12 ± 1.0 {F.NS2_MARK}" and F.ns2(within) == "11 ± 1.0"
    assert F.ns2(Cell(1.0)) == F.DASH

    assert 'class="ns2 differs"' in _td(beyond, ns2=True)
    assert 'class="ns2 agree"' in _td(within, ns2=True)
    assert "differs" not in _td(beyond)                          # no ns-2 column: as before
    html = table_html(Table("T", ["x", "a", "b"], [["r", beyond, within]]), 1, ns2=True)
    assert html.index(">9<") < html.index("12 ± 1.0") < html.index(">10 ± 1.0<")

    class P:
        name, title, citation, number = "hand", "Hand-made", "", ""

    rep = Report(P(), [Table("T", ["x", "a", "b"], [["r", beyond, within]])], [], [], [],
                 seeds=[1, 2])
    rep.ns2 = Ns2Column("ran", seeds=[1, 2], experiments=["r"])
    assert rep.ns2_count() == (1, 2)
    md = summary_markdown([rep], {"hand": "hand/index.html"})
    assert f"**12 ± 1.0 {F.NS2_MARK}**" in md and "| 11 ± 1.0 |" in md
    assert "1 of 2 numbers agree with aqmsim (" in md
