"""`aqmsim reproduce` keeps every run in a store per paper (the sweep machinery:
aqmsim.sweep.run_tasks, DuckDB + Parquet): the same command again simulates nothing and
gives the same tables; a reproduction that lost some runs (killed, or run with fewer
seeds) runs only those; a failed run is reported, not fatal; what the analysis gets from
the store is what the runs themselves gave.

Papers: the fake one of test_report.py (2 experiments, 3 simulated seconds) and the
mark-front smoke version of tests/papers/test_markfront.py (36 experiments, 3 s)."""

from __future__ import annotations

import dataclasses
import io
import math
from pathlib import Path
from typing import Any, List

import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

import aqmsim.papers
from aqmsim import store as store_mod
from aqmsim.cli import app
from aqmsim.papers.base import Cell, Experiment
from aqmsim.papers.markfront import PAPER as MARKFRONT
from aqmsim.papers.markfront import MarkFrontPaper
from aqmsim.papers.runner import run_one, run_paper, tasks_of
from aqmsim.report import reproduce_papers
from aqmsim.report.reproduce import paper_store

from conftest import aqmsim_argv
from test_report import FakePaper

runner = CliRunner()


class SmallMarkFront(MarkFrontPaper):
    """The mark-front paper with two thresholds and 3-second runs (as its smoke test)."""

    t_grid = (5, 40)

    @property
    def directory(self) -> Path:
        return MARKFRONT.directory

    def experiments(self):
        return [dataclasses.replace(e, scenario=e.scenario.with_overrides(duration=3))
                for e in super().experiments()]


def _console() -> Console:
    return Console(file=io.StringIO(), width=200, soft_wrap=True, highlight=False)


def _reproduce(paper: Any, out: Path, seeds: int, **kw: Any) -> Any:
    # the store's behaviour, on the primary reading (tests/test_readings.py runs the rest;
    # tests/test_reproduce_ns2.py the ns-2 column)
    kw.setdefault("readings", ["primary"])
    kw.setdefault("ns2", False)
    done = reproduce_papers([paper], out, seeds=seeds, console=_console(),
                            progress_console=_console(), **kw)
    (report,) = done.outcomes
    assert not done.failures, getattr(report, "error", "")
    return report


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _content(report: Any) -> List[Any]:
    """Every number, text and verdict of a Report (not its wall time or run counts)."""
    out: List[Any] = []
    for t in report.tables:
        out.append((t.title, tuple(t.columns), t.note))
        for row in t.rows:
            out.append(tuple(("cell", c.mean, c.half, c.published) if isinstance(c, Cell)
                             else c for c in row))
    out += [(f.path, f.caption) for f in report.figures]
    out += [(c.text, c.holds, c.evidence) for c in report.claims]
    return out + [tuple(report.seeds)]


def _assert_same_content(a: Any, b: Any) -> None:
    ca, cb = _content(a), _content(b)
    assert len(ca) == len(cb)
    for x, y in zip(ca, cb):
        if isinstance(x, tuple) and isinstance(y, tuple):
            assert len(x) == len(y) and all(_same(p, q) for p, q in zip(x, y)), (x, y)
        else:
            assert _same(x, y), (x, y)


# ----------------------------------------------------------------------------- again
def test_second_reproduce_simulates_nothing(core, tmp_path: Path):
    out = tmp_path / "rep"
    first = _reproduce(SmallMarkFront(), out, seeds=2, workers=2)
    n = 36 * 2
    assert first.runs == {"total": n, "stored": 0, "ran": n, "failed": 0}
    store = out / "markfront" / "store"
    assert first.store == str(store) == str(paper_store(out, "markfront"))
    assert (store / "runs.duckdb").is_file()
    rows = store_mod.open(store, sweep="markfront")
    assert len(rows) == n and (rows["status"] == "ok").all()
    stamps = dict(zip(zip(rows["hash"], rows["seed"]), rows["finished_at"]))

    second = _reproduce(SmallMarkFront(), out, seeds=2, workers=2)
    assert second.runs == {"total": n, "stored": n, "ran": 0, "failed": 0}
    _assert_same_content(first, second)
    again = store_mod.open(store, sweep="markfront")
    assert dict(zip(zip(again["hash"], again["seed"]), again["finished_at"])) == stamps


def test_resume_runs_only_the_missing_runs(core, tmp_path: Path):
    out = tmp_path / "rep"
    one = _reproduce(SmallMarkFront(), out, seeds=1, workers=2)    # seed 1 only
    assert one.runs == {"total": 36, "stored": 0, "ran": 36, "failed": 0}

    # as if the reproduction had been killed before writing these runs
    store = out / "markfront" / "store"
    with store_mod.Store(store) as st:
        gone = st.con.execute("SELECT hash, seed FROM runs ORDER BY hash LIMIT 5").fetchall()
        st.con.execute("DELETE FROM runs WHERE hash IN (SELECT hash FROM runs "
                       "ORDER BY hash LIMIT 5)")

    both = _reproduce(SmallMarkFront(), out, seeds=2, workers=2)
    assert both.runs == {"total": 72, "stored": 31, "ran": 41, "failed": 0}
    rows = store_mod.open(store, sweep="markfront")
    assert len(rows) == 72 and (rows["status"] == "ok").all() and (rows["attempts"] == 1).all()
    assert {(h, int(s)) for h, s in gone} <= set(zip(rows["hash"], rows["seed"].astype(int)))
    assert not [p for p in store.rglob("*") if ".tmp-" in p.name]


def test_fresh_and_store_options(core, tmp_path: Path):
    out = tmp_path / "rep"
    shared = tmp_path / "stores"
    a = _reproduce(FakePaper(), out, seeds=2, workers=1, store=shared)
    assert a.store == str(shared / "fake")
    assert (shared / "fake" / "runs.duckdb").is_file() and not (out / "fake" / "store").exists()
    b = _reproduce(FakePaper(), out, seeds=2, workers=1, store=shared)
    assert b.runs["ran"] == 0 and b.runs["stored"] == 4
    c = _reproduce(FakePaper(), out, seeds=2, workers=1, store=shared, fresh=True)
    assert c.runs == {"total": 4, "stored": 0, "ran": 4, "failed": 0}
    _assert_same_content(a, c)


# ----------------------------------------------------------------------------- data
def test_stored_runs_give_the_runs_own_data(core):
    """Summaries (values and types) and every kept table (columns, dtypes, values) as the
    runs themselves give them, whether simulated now or read back from the store."""
    paper = SmallMarkFront()
    seeds = [1, 2]
    exps = [e for e in paper.experiments() if e.key.startswith(("s3-", "s2-"))]
    exps = [Experiment(e.key, e.scenario, e.labels, ("flows", "drops"), ("queue", "links"))
            for e in exps[::2]]
    assert len(exps) == 4
    ref = {(r.key, r.seed): r for r in (run_one(t) for t in tasks_of(exps, seeds))}

    class Few(SmallMarkFront):
        def experiments(self):
            return exps

    runs = run_paper(Few(), seeds, workers=2)
    assert len(ref) == 8 and set(runs.records) == set(ref) and runs.failures == []
    for k, r in ref.items():
        got = runs.records[k]
        want = {m: v for m, v in r.summary.items() if m != "wall_seconds"}
        have = {m: v for m, v in got.summary.items() if m != "wall_seconds"}
        assert have == want
        assert {m: type(v) for m, v in have.items()} == {m: type(v) for m, v in want.items()}
        assert set(got.tables) == set(r.tables)
        for name in r.tables:
            pd.testing.assert_frame_equal(got.tables[name], r.tables[name], check_exact=True)


# ----------------------------------------------------------------------------- failures
class PaperWithABadRun(FakePaper):
    """The fake paper plus an experiment whose thresholds are invalid (max_th < min_th):
    its runs fail; ``needs_it`` makes the analysis use it."""

    def __init__(self, needs_it: bool = False) -> None:
        super().__init__("bad" if needs_it else "fake")
        self.needs_it = needs_it

    def experiments(self):
        exps = super().experiments()
        bad = exps[0].scenario.with_overrides(**{"dumbbell.bottleneck.queue.min_th": 10,
                                                 "dumbbell.bottleneck.queue.max_th": 8})
        return exps + [Experiment("broken", bad, {"max_p": 0.1})]

    def analyse(self, runs, out):
        if self.needs_it:
            runs.first("broken")
        return super().analyse(runs, out)


def test_a_failed_run_is_reported_not_fatal(core, tmp_path: Path):
    out = tmp_path / "rep"
    console = _console()
    done = reproduce_papers([PaperWithABadRun(), PaperWithABadRun(needs_it=True)], out,
                            seeds=2, workers=2, console=console, progress_console=_console())
    ok, bad = done.outcomes
    assert ok.runs == {"total": 6, "stored": 0, "ran": 6, "failed": 2}
    assert [(f.key, f.seed, f.error_kind) for f in ok.failed_runs] == [
        ("broken", 1, "scenario"), ("broken", 2, "scenario")]
    assert "max_th" in ok.failed_runs[0].error
    assert ok.tables and ok.claims                      # drawn from the runs that worked
    text = console.file.getvalue()
    assert "warning: 2 runs failed (broken seed 1:" in text
    page = (out / "fake" / "index.html").read_text(encoding="utf-8")
    assert "Failed runs" in page and "broken" in page
    assert "2 runs failed" in (out / "summary.md").read_text(encoding="utf-8")

    # a paper that cannot be drawn without them fails, saying why
    assert done.failures == [bad] and bad.stage == "analysis"
    assert bad.error.startswith("2 runs failed (broken seed 1:")
    assert done.exit_code == 1


# ----------------------------------------------------------------------------- CLI
@pytest.fixture
def fake_registry(monkeypatch):
    monkeypatch.setattr(aqmsim.papers, "names", lambda: ["fake"])
    monkeypatch.setattr(aqmsim.papers, "get", lambda name: FakePaper())


def test_command_twice_then_fresh(core, tmp_path: Path, fake_registry):
    out = tmp_path / "cmd"
    args = ["reproduce", "fake", "--seeds", "2", "--workers", "2", "--out", str(out)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "4 runs (0 from the store, 4 run now)" in first.output
    second = runner.invoke(app, args)
    assert second.exit_code == 0, second.output
    assert "4 runs (4 from the store, 0 run now)" in second.output
    third = runner.invoke(app, args + ["--fresh"])
    assert third.exit_code == 0, third.output
    assert "4 runs (0 from the store, 4 run now)" in third.output
    assert (out / "fake" / "store" / "runs.duckdb").is_file()
    assert "4 runs (0 from the store, 4 run now)" in \
        (out / "fake" / "index.html").read_text(encoding="utf-8")


def test_runs_of_another_engine_are_run_again_and_said(core, tmp_path: Path, fake_registry):
    """A paper store is aqmsim's own cache: runs another build of the engine made are not
    reused; they are run again and the report says so (issue 15)."""
    out = tmp_path / "cmd"
    args = ["reproduce", "fake", "--seeds", "2", "--workers", "2", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    with store_mod.Store(out / "fake" / "store") as st:
        st.con.execute("UPDATE runs SET engine_hash = 'another-build' WHERE seed = 1")
    with aqmsim_argv(args) as command:
        again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    text = " ".join(again.output.split())
    assert ("4 runs (2 from the store, 2 run now, 2 of them because another build of the "
            "engine had stored them)") in text
    assert "Traceback" not in again.output
    rows = store_mod.open(out / "fake" / "store", sweep="fake")
    from aqmsim import _core
    assert set(rows["engine_hash"]) == {_core.BUILD["source_hash"]}
    assert set(rows.loc[rows["seed"] == 1, "command"]) == {command}  # the runs made again
    third = runner.invoke(app, args)
    assert "4 runs (4 from the store, 0 run now)" in " ".join(third.output.split())


def test_command_options(core, tmp_path: Path):
    res = runner.invoke(app, ["reproduce", "rtred", "--workers", "2", "--scheduler",
                              "tcp://127.0.0.1:1", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "give one or the other" in res.output
    assert not (tmp_path / "r").exists()
    helptext = runner.invoke(app, ["reproduce", "--help"]).output
    for opt in ("--workers", "--scheduler", "--store", "--fresh"):
        assert opt in helptext
