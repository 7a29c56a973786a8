"""`aqmsim compare DIR...` and the provenance of `aqmsim run --out` (issue 26, point 7):
short runs saved with `run --out` (and a tiny sweep) compared — the files, the labels (the
differing fields, exactly), the page naming every run with its provenance, figures left
out with a note when a series was not kept, and bad input as one line with status 2."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from aqmsim.cli import app

from conftest import EXAMPLES, aqmsim_argv

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

runner = CliRunner()
RED = EXAMPLES / "dumbbell-red.toml"
SHORT = ["--set", "duration=1", "--set", "dumbbell.groups.0.stop=1"]
FIGURES = ("delay_cdf", "e2e_delay_cdf", "goodput", "queue", "cwnd", "delay_goodput")


def _run(out: Path, *extra: str) -> None:
    args = ["run", str(RED), *SHORT, "--out", str(out), *extra]
    with aqmsim_argv(args) as command:
        result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "provenance.json").read_text())["command"] == command


@pytest.fixture(scope="module")
def saved(core, tmp_path_factory) -> Path:
    """Three saved runs: RED seed 1 and seed 2, and RED max_p 0.2 seed 1 (all with TCP
    state and delay distributions), and a bare one (seed 1, nothing traced)."""
    root = tmp_path_factory.mktemp("runs")
    _run(root / "a", "--tcp", "all", "--delays")
    _run(root / "b", "--tcp", "all", "--delays", "--seed", "2")
    _run(root / "c", "--tcp", "all", "--delays", "--set", "dumbbell.bottleneck.queue.max_p=0.2")
    _run(root / "bare")
    return root


def _compare(*args: str):
    return runner.invoke(app, ["compare", *args])


def _one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    text = result.output.strip()
    assert "Traceback" not in text, text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:"), text
    return text


# ------------------------------------------------------------------ provenance of run --out
def test_run_out_records_its_provenance_and_scenario(saved: Path):
    from aqmsim import __version__
    from aqmsim._core import BUILD

    prov = json.loads((saved / "b" / "provenance.json").read_text())
    assert prov["version"] == __version__
    assert prov["engine_hash"] == BUILD["source_hash"]
    assert prov["engine"]["git_commit"] == BUILD["git_commit"]
    assert prov["command"].startswith(f"aqmsim run {RED}") and "--seed 2" in prov["command"]
    assert set(prov["host"]) == {"hostname", "platform", "python"}
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
    assert stamp.match(prov["started_at"]) and stamp.match(prov["finished_at"])
    assert prov["started_at"] <= prov["finished_at"]
    # the scenario as run: the overrides applied and the run's seed (--seed 2)
    sc = tomllib.loads((saved / "b" / "scenario.toml").read_text())
    assert sc["seed"] == 2 and sc["duration"] == 1
    assert sc["dumbbell"]["bottleneck"]["queue"]["kind"] == "red"
    assert json.loads((saved / "b" / "summary.json").read_text())["seed"] == 2


def test_scenario_toml_runs_again_to_the_same_summary(saved: Path):
    from aqmsim import Scenario

    again = json.loads(json.dumps(Scenario.from_toml(saved / "c" / "scenario.toml").run()
                                  .summary, default=float))
    first = json.loads((saved / "c" / "summary.json").read_text())
    first.pop("wall_seconds"), again.pop("wall_seconds")
    assert again == first


# ------------------------------------------------------------------ compare
def test_compare_three_runs(saved: Path, tmp_path: Path):
    out = tmp_path / "cmp"
    args = [str(saved / n) for n in ("a", "b", "c")]
    result = _compare(*args, "--out", str(out))
    assert result.exit_code == 0, result.output
    # the labels are exactly the differing fields, in the scenario's order
    labels = ["seed=1, queue.max_p=0.1", "seed=2, queue.max_p=0.1", "seed=1, queue.max_p=0.2"]
    assert ("compared 3 runs: " + "; ".join(f"[{i}] {lab}" for i, lab in
                                            enumerate(labels, 1))) in result.output
    for name in FIGURES:
        assert (out / f"{name}.png").stat().st_size > 1000, name
        assert (out / f"{name}.svg").read_text().lstrip().startswith("<?xml"), name
    html = (out / "index.html").read_text()
    for lab in labels:
        assert lab in html
    for d in args:  # every run, with its provenance
        prov = json.loads((Path(d) / "provenance.json").read_text())
        assert f"<code>{d}</code>" in html
        for key in ("command", "started_at", "finished_at"):
            assert prov[key] in html, key
        assert prov["engine_hash"] in html and prov["engine"]["git_commit"] in html
        assert prov["host"]["hostname"] in html and prov["version"] in html
    assert "different engine builds" not in html
    assert "not drawn" not in html
    # self-contained: every image is embedded; the files beside it are only linked
    srcs = re.findall(r'<img src="([^"]*)"', html)
    assert len(srcs) == len(FIGURES) and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "<script" not in html and "<link" not in html


def test_pacing_figure_when_a_run_traced_a_paced_flow(saved: Path, tmp_path: Path):
    """BBR v1 beside BBR v3 (the BBR example, CUBIC beside each, every flow traced): a
    pacing figure, one panel a run, a line for each of the two BBR flows (the CUBIC flows
    do not pace); beside a RED run (ns-2's senders, which do not pace) that run is named
    in its note. The RED runs alone have no pacing figure and no note of one (above)."""
    bbr = EXAMPLES / "dumbbell-bbr.toml"
    for name, extra in (("v1", []), ("v3", ["--set", 'dumbbell.groups.0.tcp.variant="bbr3"'])):
        args = ["run", str(bbr), "--set", "duration=3", "--tcp", "all", "--out", str(tmp_path / name), *extra]
        assert runner.invoke(app, args).exit_code == 0
    out = tmp_path / "cmp"
    result = _compare(str(tmp_path / "v1"), str(tmp_path / "v3"), str(saved / "a"), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "pacing_rate.png").stat().st_size > 1000
    html = " ".join((out / "index.html").read_text().split())
    assert "Pacing rates" in html and "no paced flow traced" in html
    from aqmsim.compare import figures
    from aqmsim.compare.sources import load_runs
    from matplotlib.figure import Figure

    runs = load_runs([str(tmp_path / "v1"), str(tmp_path / "v3")])
    f = figures.FigureFile("pacing_rate", "Pacing rates", "")
    fig = figures._draw_pacing(runs, ["v1", "v3"], f)
    assert isinstance(fig, Figure) and not f.notes
    axes = [a for a in fig.axes if a.get_lines()]
    assert [len(a.get_lines()) for a in axes] == [2, 2]
    assert all(a.get_title(loc="left").endswith("2 flows") for a in axes)
    ys = np.concatenate([ln.get_ydata() for a in axes for ln in a.get_lines()])
    assert 0 < np.nanmax(ys) < 100  # Mb/s on a 20 Mb/s bottleneck: 4 Gb/s left out


def test_one_run_needs_no_labels(saved: Path, tmp_path: Path):
    result = _compare(str(saved / "a"), "--out", str(tmp_path / "one"))
    assert result.exit_code == 0, result.output
    assert "compared 1 run: [1] a" in result.output
    assert (tmp_path / "one" / "index.html").is_file()


def test_label_option(saved: Path, tmp_path: Path):
    a, b = str(saved / "a"), str(saved / "b")
    result = _compare(a, b, "--label", f"{a}=base=line", "--out", str(tmp_path / "l"))
    assert result.exit_code == 0, result.output
    assert "[1] base=line; [2] seed=2" in result.output


def test_missing_series_leave_a_figure_out_with_a_note(saved: Path, tmp_path: Path):
    """The bare run kept no TCP state and no delay distribution: no cwnd nor end-to-end
    figure (a note says why); its queueing delay comes from the queue samples."""
    out = tmp_path / "bare"
    result = _compare(str(saved / "bare"), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "not drawn (see the page): e2e_delay_cdf, cwnd" in result.output
    assert not (out / "cwnd.png").exists() and not (out / "e2e_delay_cdf.png").exists()
    html = (out / "index.html").read_text()
    assert "Congestion windows: not drawn." in html and "--tcp all" in html
    assert "backlog ÷ bottleneck rate" in html  # the sampled queueing delay, said so
    # beside a run that has them: drawn, the bare run named as left out
    result = _compare(str(saved / "a"), str(saved / "bare"), "--out", str(tmp_path / "mix"))
    assert result.exit_code == 0, result.output
    assert "not drawn" not in result.output
    html = (tmp_path / "mix" / "index.html").read_text()
    assert "Not drawn for bare: no TCP state saved" in html


def test_runs_of_different_engine_builds_are_flagged(saved: Path, tmp_path: Path):
    other = tmp_path / "other"
    shutil.copytree(saved / "b", other)
    prov = json.loads((other / "provenance.json").read_text())
    prov["engine_hash"] = prov["engine"]["source_hash"] = "0123456789abcdef"
    (other / "provenance.json").write_text(json.dumps(prov))
    result = _compare(str(saved / "a"), str(other), "--out", str(tmp_path / "w"))
    assert result.exit_code == 0, result.output
    html = (tmp_path / "w" / "index.html").read_text()
    assert "Warning:" in html and "2 different engine builds" in html
    assert "0123456789abcdef: seed=2" in html


def test_an_older_run_dir_is_labelled_from_resolved(saved: Path, tmp_path: Path):
    """Without scenario.toml (written before it existed): resolved.json, without the
    seed's draws (link delays, flows) — the seed alone tells these two apart."""
    for n in ("a", "b"):
        shutil.copytree(saved / n, tmp_path / n)
        (tmp_path / n / "scenario.toml").unlink()
    result = _compare(str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert "[1] seed=1; [2] seed=2" in result.output


def test_a_directory_of_runs_expands(saved: Path, tmp_path: Path):
    result = _compare(str(saved), "--out", str(tmp_path / "all"))
    assert result.exit_code == 0, result.output
    assert "compared 4 runs" in result.output


@pytest.mark.parametrize("what", ["missing", "file", "empty", "junk", "label"])
def test_bad_input_is_one_line(saved: Path, tmp_path: Path, what: str):
    a = str(saved / "a")
    args = {"missing": [str(tmp_path / "nope")],
            "file": [str(saved / "a" / "queue.csv")],
            "empty": [str(tmp_path)],
            "junk": [str(tmp_path / "junk")],
            "label": [a, "--label", "elsewhere=x"]}[what]
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "summary.json").write_text("[1, 2")
    text = _one_line_error(_compare(*args, "--out", str(tmp_path / "o")))
    if what == "label":
        assert "--label elsewhere=x" in text and a in text
    else:
        assert args[0] in text and "expected an `aqmsim run --out` directory" in text
    assert not (tmp_path / "o" / "index.html").exists()


# ------------------------------------------------------------------ sweeps
def test_a_sweeps_rows_compare(core, tmp_path: Path):
    sweep = tmp_path / "tiny.toml"
    sweep.write_text(
        f'name = "tiny"\nbase = "{RED.as_posix()}"\nseeds = [1]\n'
        'series = ["queue", "flows"]\n'
        '[set]\nduration = 1\n"dumbbell.groups.0.stop" = 1\n'
        '[[vary]]\n"dumbbell.bottleneck.queue.max_p" = [0.1, 0.2]\n')
    # before the sweep: its store holds nothing yet
    text = _one_line_error(_compare(str(sweep), "--out", str(tmp_path / "o")))
    assert "run `aqmsim sweep" in text
    done = runner.invoke(app, ["sweep", str(sweep), "--workers", "1"])
    assert done.exit_code == 0, done.output
    store = tmp_path / "out" / "sweeps" / "tiny"
    for arg in (str(sweep), str(store)):  # the sweep file, or its store
        result = _compare(arg, "--out", str(tmp_path / "o"))
        assert result.exit_code == 0, result.output
        assert "[1] queue.max_p=0.1; [2] queue.max_p=0.2" in result.output
        assert "not drawn (see the page): e2e_delay_cdf, cwnd" in result.output
        html = (tmp_path / "o" / "index.html").read_text()
        import aqmsim.store

        for _, row in aqmsim.store.open(store).iterrows():  # each row's provenance
            assert row["command"] in html and row["engine_hash"] in html
            assert row["host"]["hostname"] in html
        assert (tmp_path / "o" / "goodput.png").is_file()
        assert (tmp_path / "o" / "queue.png").is_file()


def test_goodput_marks_each_flow_group(saved: Path, tmp_path: Path):
    """Flows of several groups (the BBR example: bbr beside cubic) get one marker per group
    in the goodput figure, named in a legend; runs of one group keep plain dots, no legend."""
    from aqmsim.compare.figures import _draw_goodput
    from aqmsim.compare.sources import load_runs

    bbr = EXAMPLES / "dumbbell-bbr.toml"
    for name, seed in (("x", "1"), ("y", "2")):
        result = runner.invoke(app, ["run", str(bbr), "--set", "duration=2", "--seed", seed,
                                     "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output

    class File:
        title, notes = "Goodput per flow", []

    fig = _draw_goodput(load_runs([str(tmp_path / "x"), str(tmp_path / "y")]), ["x", "y"], File())
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["bbr", "cubic"]
    shapes = {len(c.get_paths()[0].vertices) for c in ax.collections if len(c.get_offsets())}
    assert len(shapes) == 2, "a circle and a triangle"
    red = _draw_goodput(load_runs([str(saved / "a"), str(saved / "b")]), ["a", "b"], File())
    assert red.axes[0].get_legend() is None
