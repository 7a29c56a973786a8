"""Readings (aqmsim.papers.readings) and their sensitivity (aqmsim.papers.sensitivity):
the primary-reading rule (from the readings' tags and the paper's text, never from the
published numbers), the variants run, bad reading names and readings that make a scenario
invalid, the robust / fragile / fails labels computed from runs, and the report's readings
section. The papers' own readings are checked here too: the rule's independence from their
published values, and that the scenario files hold the primary reading."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any, List

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

import aqmsim.papers as papers_mod
from aqmsim.cli import app
from aqmsim.papers.base import Report, Runs
from aqmsim.papers.readings import (PRIMARY, Choice, Reading, ReadingError, apply_variant,
                                    check_variant, red_queues, variant_named, variants)
from aqmsim.papers.runner import run_one, tasks_of
from aqmsim.papers.sensitivity import analyse_readings, label_claims
from aqmsim.report import reproduce_papers

from test_report import KEYS, FakePaper

runner = CliRunner()


def _gentle(v: bool):
    def f(data: Any, e: Any) -> None:
        for _, q in red_queues(data):
            q["gentle"] = v
    return f


GENTLE = Choice("gentle", "Is RED gentle?", (
    Reading("on", "gentle_ true", "ns2", "ns-2.35 default", apply=_gentle(True)),
    Reading("off", "gentle_ false", "textbook", "Floyd & Jacobson 1993", apply=_gentle(False)),
))
WQ = Choice("w_q", "The queue weight", (
    Reading("w0.01", "w_q = 0.01", "text", "a reading the text allows",
            set={"dumbbell.bottleneck.queue.w_q": 0.01}),
    Reading("auto", "ns-2 automatic w_q", "ns2", "ns-2.35 q_weight_ -1",
            set={"dumbbell.bottleneck.queue.w_q": "auto"}),
    Reading("w0.002", "w_q = 0.002", "textbook", "Floyd & Jacobson 1993",
            set={"dumbbell.bottleneck.queue.w_q": 0.002}),
))


class ReadingPaper(FakePaper):
    """The fake paper of test_report.py with two open choices."""

    def __init__(self, *a: Any, choices: Any = None, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self._choices = [GENTLE, WQ] if choices is None else choices

    def readings(self) -> List[Choice]:
        return list(self._choices)


# --------------------------------------------------------------------------- the rule
def test_rule_ranks_sources_and_skips_readings_the_text_excludes() -> None:
    assert GENTLE.primary.name == "on"
    assert WQ.primary.name == "auto"  # ns2 beats textbook and text, whatever the order
    derived = Reading("d", "derived", "derived", "from Table 2", arithmetic="1 + 1 = 2")
    c = Choice("x", "?", WQ.readings + (derived,))
    assert c.primary.name == "d"
    excl = dataclasses.replace(WQ.readings[1], excluded="“we used w_q = 0.002”")
    c = Choice("w_q", "?", (WQ.readings[0], excl, WQ.readings[2]))
    assert c.primary.name == "w0.002"


def test_variants_are_primary_then_one_at_a_time_then_the_profiles() -> None:
    vs = variants([GENTLE, WQ])
    names = [v.name for v in vs]
    assert names[0] == PRIMARY
    assert names[1:4] == ["gentle=off", "w_q=w0.01", "w_q=w0.002"]
    # every choice by ns-2 is the primary here: not listed twice; textbook moves both
    assert "ns2-as-typed" not in names
    tb = vs[names.index("textbook")]
    assert tb.picks == {"gentle": "off", "w_q": "w0.002"} and set(tb.moved) == {"gentle", "w_q"}
    for v in vs[1:4]:
        assert len(v.moved) == 1


def test_unknown_reading_names_name_the_choices() -> None:
    with pytest.raises(ReadingError, match=r"--readings.*gentle, w_q"):
        variant_named([GENTLE, WQ], "bogus")
    with pytest.raises(ReadingError, match=r"unknown choice 'queue'.*gentle, w_q"):
        variant_named([GENTLE, WQ], "queue=bytes")
    with pytest.raises(ReadingError, match=r"w_q=fast.*expected one of: w0.01, auto, w0.002"):
        variant_named([GENTLE, WQ], "w_q=fast")
    v = variant_named([GENTLE, WQ], "gentle=off+w_q=w0.002")
    assert v.picks == {"gentle": "off", "w_q": "w0.002"}


def test_a_reading_that_sets_an_invalid_parameter_names_the_field() -> None:
    bad = Choice("max_p", "?", (
        Reading("paper", "0.1", "ns2", "x", set={"dumbbell.bottleneck.queue.max_p": 0.1}),
        Reading("huge", "1.5", "text", "x", set={"dumbbell.bottleneck.queue.max_p": 1.5}),
    ))
    p = ReadingPaper(choices=[bad])
    v = variant_named([bad], "max_p=huge")
    exps = apply_variant(p.experiments(), [bad], v)
    with pytest.raises(ReadingError, match=r"max_p=huge.*dumbbell\.bottleneck\.queue\.max_p"):
        check_variant(exps, v)
    # and through the command: one line, exit status 1 for the paper that failed
    done = reproduce_papers([p], _tmp(),
                            seeds=1, console=_console(), progress_console=_console(),
                            readings=["max_p=huge"])
    (o,) = done.outcomes
    assert o.stage == "reading" and "dumbbell.bottleneck.queue.max_p" in o.error


def _tmp() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="aqmsim-readings-test-"))


def _console() -> Console:
    return Console(file=io.StringIO(), width=200, soft_wrap=True, highlight=False)


def test_applying_the_readings_edits_the_scenarios() -> None:
    p = ReadingPaper()
    v = variant_named(p.readings(), PRIMARY)
    exps = apply_variant(p.experiments(), p.readings(), v)
    for e in exps:
        q = e.scenario.to_dict()["dumbbell"]["bottleneck"]["queue"]
        assert q["gentle"] is True and q["w_q"] == "auto"
    base = p.experiments()
    assert [e.key for e in exps] == [e.key for e in base]
    # the paper's own experiments are not touched
    assert base[0].scenario.to_dict()["dumbbell"]["bottleneck"]["queue"]["gentle"] is False


# --------------------------------------------------------------------------- labels from runs
def _out(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _runs(paper: ReadingPaper, variant: str, seeds=(1, 2)) -> Runs:
    v = variant_named(paper.readings(), variant)
    exps = apply_variant(paper.experiments(), paper.readings(), v)
    return Runs(exps, [run_one(t) for t in tasks_of(exps, list(seeds))])


def test_claim_labels_follow_the_runs(tmp_path: Path) -> None:
    p = ReadingPaper()
    runs = {v: _runs(p, v) for v in (PRIMARY, "gentle=off")}
    reps = {v: p.analyse(r, _out(tmp_path / v.replace("=", "_"))) for v, r in runs.items()}
    labels = {c.text: c for c in label_claims(reps)}
    acc = labels["Every packet at the bottleneck is departed, dropped or still queued"]
    assert acc.label == "robust" and acc.fails_under == []
    smaller = labels["A smaller max_p gives a shorter queue"]
    before = smaller.label
    # make the max_p 0.02 runs of one variant show a long queue: the claim now fails there
    for (k, s), rec in runs["gentle=off"].records.items():
        if k == KEYS[1]:
            rec.summary["time_avg_queue_pkts"] = 1e6
    reps["gentle=off"] = p.analyse(runs["gentle=off"], _out(tmp_path / "again"))
    after = {c.text: c for c in label_claims(reps)}["A smaller max_p gives a shorter queue"]
    assert after.holds["gentle=off"] is False
    assert after.label == ("fragile" if smaller.holds[PRIMARY] else "fails")
    assert after.label != before or before != "robust"
    # and under every variant: fails
    for (k, s), rec in runs[PRIMARY].records.items():
        if k == KEYS[1]:
            rec.summary["time_avg_queue_pkts"] = 1e6
    reps[PRIMARY] = p.analyse(runs[PRIMARY], _out(tmp_path / "again2"))
    assert {c.text: c for c in label_claims(reps)}[
        "A smaller max_p gives a shorter queue"].label == "fails"


def test_sensitivity_lines_cells_up_and_counts_per_variant(tmp_path: Path) -> None:
    p = ReadingPaper()
    vs = [variant_named(p.readings(), n) for n in (PRIMARY, "gentle=off", "w_q=w0.002")]
    reps = {v.name: p.analyse(_runs(p, v.name, (1,)), _out(tmp_path / str(i)))
            for i, v in enumerate(vs)}
    sens = analyse_readings(p.readings(), vs, reps, "rule")
    assert set(sens.counts) == {v.name for v in vs}
    assert all(set(r.cells) == {v.name for v in vs} for r in sens.rows)
    shifts = {(s.choice, s.column): s for s in sens.shifts}
    s = shifts[("w_q", "Ave Q (pkts)")]
    rows = [r for r in sens.rows if r.column == "Ave Q (pkts)"]
    rel = sorted((r.cells["w_q=w0.002"].mean - r.cells[PRIMARY].mean) / abs(r.cells[PRIMARY].mean)
                 for r in rows)
    assert s.by_reading["w0.002"] == pytest.approx(float(np.median(rel)))


# --------------------------------------------------------------------------- end to end
def test_reproduce_runs_every_reading_and_reports_them(tmp_path: Path) -> None:
    p = ReadingPaper()
    done = reproduce_papers([p], tmp_path, seeds=2, console=_console(),
                            progress_console=_console())
    (o,) = done.outcomes
    assert not done.failures, getattr(o, "error", "")
    sens = o.readings
    assert sens.variant_names == [v.name for v in variants(p.readings())]
    # runs the variants share are simulated once: gentle=off and textbook differ from
    # the primary; w_q variants too: 2 experiments x (2 primary seeds + 4 variants x 2)
    assert o.runs["total"] == 2 * 2 * 5
    page = (tmp_path / "fake" / "index.html").read_text()
    assert 'id="readings"' in page and "Rule for the primary reading" in page
    assert (tmp_path / "fake" / "readings-tornado.png").is_file()
    for c in sens.claims:
        assert c.label in ("robust", "fragile", "fails")
        assert f'class="badge {c.label}"' in page
    md = (tmp_path / "summary.md").read_text()
    assert "### Readings" in md and "| `textbook` |" in md
    index = (tmp_path / "index.html").read_text()
    assert "Within 10 % under each reading" in index
    # again: nothing is simulated
    again = reproduce_papers([p], tmp_path, seeds=2, console=_console(),
                             progress_console=_console())
    assert again.outcomes[0].runs["ran"] == 0
    # only the primary reading
    prim = reproduce_papers([p], tmp_path / "p", seeds=2, console=_console(),
                            progress_console=_console(), readings=["primary"])
    assert prim.outcomes[0].readings.variant_names == [PRIMARY]


def test_cli_refuses_an_unknown_reading_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    r = runner.invoke(app, ["reproduce", "rtred", "--readings", "no-such-reading",
                            "--out", str(tmp_path)])
    assert r.exit_code == 2
    assert "--readings" in r.output and "no-such-reading" in r.output
    assert "Traceback" not in r.output


# --------------------------------------------------------------------------- the papers' own
def _perturbed(paper: Any, factor: float):
    pub = type(paper).published(paper)
    rng = np.random.default_rng(7)

    def published() -> pd.DataFrame:
        df = pub.copy()
        col = "value" if "value" in df.columns else df.columns[-1]
        vals = pd.to_numeric(df[col], errors="coerce")
        scale = factor * rng.uniform(0.5, 1.5, len(df))
        df[col] = np.where(vals.notna(), vals * scale, df[col])
        return df

    return published


@pytest.mark.parametrize("name", list(papers_mod.PAPERS))
def test_primary_readings_do_not_depend_on_published_numbers(name: str) -> None:
    paper = papers_mod.get(name)
    choices = paper.readings()
    before = {c.name: c.primary.name for c in choices}
    for factor in (0.5, 3.0):
        p = type(paper)()
        p.published = _perturbed(paper, factor)  # type: ignore[method-assign]
        after = {c.name: c.primary.name for c in p.readings()}
        assert after == before, f"{name}: the primary reading moved with the published numbers"


@pytest.mark.parametrize("name", list(papers_mod.PAPERS))
def test_scenario_files_hold_the_primary_reading(name: str) -> None:
    paper = papers_mod.get(name)
    choices = paper.readings()
    exps = paper.experiments()
    prim = apply_variant(exps, choices, variants(choices)[0])
    for a, b in zip(exps, prim):
        assert a.scenario.to_dict() == b.scenario.to_dict(), (
            f"{name}/{a.key}: the scenario file is not the primary reading")


class OptionPaper(ReadingPaper):
    """The reading paper with a choice of how a number is computed (an analysis option):
    it records the options each analysis saw."""

    def __init__(self) -> None:
        metric = Choice("metric", "Which definition of the number?", (
            Reading("a", "definition a", "ns2", "x", analysis={"metric": "a"}),
            Reading("b", "definition b", "text", "y", analysis={"metric": "b"}),
        ))
        super().__init__(choices=[GENTLE, metric])
        self.seen: List[Any] = []

    def analyse(self, runs: Runs, out: Path) -> Report:
        self.seen.append(dict(runs.options))
        return super().analyse(runs, out)


def test_an_analysis_only_reading_runs_nothing_new(tmp_path: Path) -> None:
    p = OptionPaper()
    done = reproduce_papers([p], tmp_path, seeds=1, console=_console(),
                            progress_console=_console(), ns2=False)
    (o,) = done.outcomes
    assert not done.failures, getattr(o, "error", "")
    # primary, gentle=off, metric=b, textbook (= gentle=off): metric=b adds no run
    assert o.runs["total"] == 2 * 2
    assert {"metric": "a"} in p.seen and {"metric": "b"} in p.seen
    assert o.readings.variant_names == [PRIMARY, "gentle=off", "metric=b"]


@pytest.mark.parametrize("name", list(papers_mod.PAPERS))
def test_every_paper_states_its_readings(name: str) -> None:
    """Each open choice has two or more readings, each with a label and its source's
    reasoning; a derived reading shows its arithmetic; an excluded one quotes the text."""
    for c in papers_mod.get(name).readings():
        assert c.question.strip() and len(c.readings) >= 2, c.name
        for r in c.readings:
            assert r.why.strip() and r.label.strip(), (c.name, r.name)
            if r.source == "derived":
                assert r.arithmetic or r.analysis, (c.name, r.name)


@pytest.mark.parametrize("name", list(papers_mod.PAPERS))
def test_every_variant_of_every_paper_validates(name: str) -> None:
    paper = papers_mod.get(name)
    choices = paper.readings()
    for v in variants(choices)[1:]:
        check_variant(apply_variant(paper.experiments(), choices, v), v)
