"""`aqmsim reproduce`: the command's errors, and a fake paper (from test_report.py) run
through the command's core (aqmsim.report.reproduce_papers) and through the command
itself with the paper registry swapped for the fake one."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import aqmsim.papers
from aqmsim.cli import app
from aqmsim.report import reproduce_papers

from test_report import FakePaper

runner = CliRunner()


def _console() -> Console:
    return Console(file=io.StringIO(), width=160, soft_wrap=True, highlight=False)


def test_unknown_paper_is_one_line_exit_2(tmp_path: Path):
    result = runner.invoke(app, ["reproduce", "nosuchpaper", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:") and "nosuchpaper" in text
    for name in aqmsim.papers.names() + ["all"]:
        assert name in text
    assert not (tmp_path / "r").exists()


def test_reproduce_papers_writes_the_report(core, tmp_path: Path):
    out = tmp_path / "rep"
    console, progress = _console(), _console()
    done = reproduce_papers([FakePaper()], out, seeds=2, workers=2, console=console,
                            progress_console=progress)
    assert done.exit_code == 0 and done.failures == []
    assert done.paths["index"] == out / "index.html" and (out / "index.html").is_file()
    assert done.paths["summary"] == out / "summary.md" and (out / "summary.md").is_file()
    assert (out / "fake" / "index.html").is_file()
    assert (out / "fake" / "queue.png").is_file()  # analyse wrote into out/<name>
    report = done.outcomes[0]
    assert report.seeds == [1, 2] and report.wall_seconds > 0
    assert "fake/index.html" in (out / "index.html").read_text(encoding="utf-8")
    text = console.file.getvalue()
    k, n = report.published_count()
    assert f"{k} of {n} published numbers within 10 %" in text
    assert "Ave Q (pkts)" in text and "+100.0 %" in text  # the headline table
    assert str(out / "index.html") in text and str(out / "summary.md") in text
    assert "fake" in progress.file.getvalue()  # the progress bar


def test_failing_paper_lets_the_others_finish(core, tmp_path: Path):
    out = tmp_path / "rep"
    console = _console()
    done = reproduce_papers([FakePaper("broken", fail_analysis=True), FakePaper()], out,
                            seeds=1, workers=1, console=console, progress_console=_console())
    assert done.exit_code == 1
    assert [f.name for f in done.failures] == ["broken"]
    assert done.failures[0].stage == "analysis"
    page = (out / "broken" / "index.html").read_text(encoding="utf-8")
    assert "RuntimeError: boom" in page and "Traceback" in page
    assert (out / "fake" / "index.html").is_file()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "broken/index.html" in index and "fake/index.html" in index
    assert "failed while analysis" in (out / "summary.md").read_text(encoding="utf-8")
    assert "broken failed while analysis" in console.file.getvalue()


@pytest.fixture
def fake_registry(monkeypatch):
    """The paper registry holds the fake paper and one whose module cannot be loaded."""
    papers = {"fake": FakePaper()}

    def get(name: str):
        if name == "missing":
            raise ModuleNotFoundError("No module named 'aqmsim.papers.missing'")
        return papers[name]

    monkeypatch.setattr(aqmsim.papers, "names", lambda: ["fake", "missing"])
    monkeypatch.setattr(aqmsim.papers, "get", get)


def test_command_runs_a_paper(core, tmp_path: Path, fake_registry):
    out = tmp_path / "cmd"
    result = runner.invoke(app, ["reproduce", "fake", "--seeds", "2", "--workers", "1",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert (out / "index.html").is_file() and (out / "summary.md").is_file()
    assert (out / "fake" / "index.html").is_file()
    assert str(out / "index.html") in result.output
    assert "published numbers within 10 %" in result.output


def test_command_all_reports_a_paper_that_cannot_load(core, tmp_path: Path, fake_registry):
    out = tmp_path / "all"
    result = runner.invoke(app, ["reproduce", "all", "--seeds", "1", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "missing failed while loading" in result.output
    assert (out / "fake" / "index.html").is_file()
    page = (out / "missing" / "index.html").read_text(encoding="utf-8")
    assert "ModuleNotFoundError" in page
