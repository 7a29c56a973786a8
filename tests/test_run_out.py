"""`aqmsim validate` and `aqmsim run --out` on what a researcher tries in the first hour
(issue 23): resolved scenarios that write as TOML and read back as themselves, bad --out
and trace paths refused in one line before the run, one trace format a run, a file list
that is the directory's contents, provenance.json, and switching a queue's discipline."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app

from conftest import EXAMPLES, aqmsim_argv

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

runner = CliRunner()
RED = EXAMPLES / "dumbbell-red.toml"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))
SHORT = ["--set", "duration=1", "--set", "dumbbell.groups.0.stop=1"]


def _one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    text = result.output.strip()
    assert "Traceback" not in text, text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:"), text
    return text


# ------------------------------------------------------------------ item 1: resolved as TOML
def _round_trip(resolved: dict) -> None:
    text = Scenario.from_dict(resolved).to_toml()
    back = Scenario.from_toml_string(text)
    assert back.to_dict() == resolved, "the resolved scenario reads back as itself"
    assert back.validate() == resolved, "resolving the resolved scenario changes nothing"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_resolved_example_round_trips_through_toml(core, path: Path):
    sc = Scenario.from_toml(path)
    assert Scenario.from_toml_string(sc.to_toml()) == sc
    _round_trip(sc.validate())


def _disciplines():
    from aqmsim.scenario import _core

    return sorted(_core().disciplines())


#: The fields a discipline requires (`aqmsim list` shows "required").
REQUIRED = {"ecn_threshold": {"threshold": 20}, "rtred": {"risk_th": 40},
            "python": {"class": "aqmsim.plugin.examples.red:Red"}}


@pytest.mark.parametrize("kind", _disciplines())
def test_every_discipline_resolves_to_toml(core, kind: str):
    """Every discipline's resolved table, optional fields unset (ce_threshold,
    active_threshold, limit_bytes): absent, not null, so TOML can hold it."""
    queue = {"kind": kind, **REQUIRED.get(kind, {})}
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue": queue})
    resolved = sc.validate()
    assert "null" not in json.dumps(resolved)
    _round_trip(resolved)


def test_set_optional_values_stay_in_the_resolved_form(core):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.queue": {
        "kind": "codel", "ecn": True, "ce_threshold": "2ms"}})
    resolved = sc.validate()
    assert resolved["links"][0]["queue"]["ce_threshold"] == pytest.approx(0.002)
    _round_trip(resolved)


def test_to_toml_omits_none_in_tables():
    from aqmsim.scenario import dumps_toml

    assert tomllib.loads(dumps_toml({"a": 1, "b": None, "t": {"c": None, "d": 2}})) == \
        {"a": 1, "t": {"d": 2}}


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_cli_validate_prints_the_resolved_toml(core, path: Path):
    result = runner.invoke(app, ["validate", "--full", str(path)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    printed = tomllib.loads(result.output)
    assert printed == Scenario.from_toml(path).validate()


# ------------------------------------------------------------------ item 2: bad paths
@pytest.mark.parametrize("trace", [[], ["--trace", "pcap"], ["--trace", "ns2"]],
                         ids=["no-trace", "pcap", "ns2"])
@pytest.mark.parametrize("out", ["/proc/nope/x", "/dev/null"])
def test_bad_out_is_one_line_before_the_run(core, out: str, trace: list):
    result = runner.invoke(app, ["run", str(RED), *SHORT, "--out", out, *trace])
    text = _one_line_error(result)
    assert f"--out {out}" in text
    assert "bottleneck utilisation" not in result.output, "refused before the run"


def test_out_that_is_a_file(core, tmp_path: Path):
    f = tmp_path / "file"
    f.write_text("x")
    text = _one_line_error(runner.invoke(app, ["run", str(RED), *SHORT, "--out", str(f)]))
    assert "not a directory" in text


@pytest.mark.parametrize("fmt, path, why", [
    ("ns2", "/proc/nope/t.tr", "the directory /proc/nope does not exist"),
    ("ns2", "{tmp}", "is a directory"),
    ("ns2", "{tmp}/a\u0000b.tr", "NUL"),
    ("pcap", "/dev/null", "not a directory"),
    ("pcap", "/proc/nope/x", "not writable"),
])
def test_validate_refuses_a_trace_path_run_would(core, tmp_path: Path, fmt, path, why):
    path = path.replace("{tmp}", str(tmp_path))
    args = ["--set", f"trace.format={fmt}", "--set", f"trace.path={json.dumps(path)}"]
    for cmd in (["validate", str(RED)], ["run", str(RED), *SHORT]):
        text = _one_line_error(runner.invoke(app, [*cmd, *args]))
        assert "trace.path" in text and why in text, text


def test_validate_accepts_a_trace_path_the_run_creates(core, tmp_path: Path):
    for fmt, path in (("ns2", tmp_path / "t.tr"), ("pcap", tmp_path / "new" / "dir")):
        result = runner.invoke(app, ["validate", str(RED), "--set", f"trace.format={fmt}",
                                     "--set", f"trace.path={json.dumps(str(path))}"])
        assert result.exit_code == 0, result.output
        assert not path.exists(), "validate writes nothing"


# ------------------------------------------------------------------ item 3: traces, file list
def test_two_trace_formats_refused(core, tmp_path: Path):
    out = tmp_path / "out"
    text = _one_line_error(runner.invoke(app, ["run", str(RED), *SHORT, "--out", str(out),
                                               "--trace", "ns2", "--trace", "pcap"]))
    assert "--trace" in text and "ns2" in text and "pcap" in text


def _listed(output: str, out: Path) -> list:
    line = [x for x in output.splitlines() if x.startswith("wrote ")][-1]
    head, names = line.split(": ", 1)
    listed = names.split(", ")
    assert head == f"wrote {len(listed)} files to {out}/"
    return listed


def _contents(out: Path) -> list:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


@pytest.mark.parametrize("trace", [[], ["--trace", "ns2"], ["--trace", "pcap"],
                                   ["--trace", "ns2", "--trace", "ns2"]],
                         ids=["none", "ns2", "pcap", "ns2-twice"])
def test_run_out_lists_every_file_it_wrote(core, tmp_path: Path, trace: list):
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(RED), *SHORT, "--out", str(out), *trace])
    assert result.exit_code == 0, result.output
    listed = _listed(result.output, out)
    assert sorted(listed) == _contents(out)
    assert len(set(listed)) == len(listed)
    if "ns2" in trace:
        assert "trace.tr" in listed
    if "pcap" in trace:
        assert "pcap/R1-R2.pcap" in listed


# ------------------------------------------------------------------ item 4: provenance
def test_run_out_writes_provenance(core, tmp_path: Path):
    from aqmsim._core import BUILD
    from aqmsim import __version__
    from aqmsim.store.schema import PROVENANCE_COLUMNS

    out = tmp_path / "out"
    args = ["run", str(RED), *SHORT, "--out", str(out)]
    with aqmsim_argv(args) as command:
        result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    prov = json.loads((out / "provenance.json").read_text())
    assert set(PROVENANCE_COLUMNS) - {"worker"} <= set(prov)
    assert prov["version"] == __version__
    assert prov["engine_hash"] == BUILD["source_hash"] and prov["engine"] == dict(BUILD)
    assert set(prov["host"]) == {"hostname", "platform", "python"}
    assert prov["command"] == command
    assert prov["finished_at"].endswith("Z")


def test_provenance_is_the_stores_code():
    """One copy: the sweep workers' provenance (kept in the store) is aqmsim.provenance's."""
    import aqmsim.provenance as p
    import aqmsim.sweep.outcome as o

    for name in ("engine_build", "engine_hash", "host_info", "command_line"):
        assert getattr(o, name) is getattr(p, name)


# ------------------------------------------------------------------ item 5: switching discipline
@pytest.mark.parametrize("kind", ["codel", "pie", "fq_codel"])
def test_switching_a_red_queue_says_how(core, kind: str):
    bad = runner.invoke(app, ["validate", str(RED), "--set", f"dumbbell.bottleneck.queue.kind={kind}"])
    text = _one_line_error(bad)
    assert "max_p" in text and "min_th" in text, "names the fields the new kind does not take"
    assert "did you mean" not in text
    fix = text.split("--set '", 1)[1].split("'", 1)[0]
    key, value = fix.split("=", 1)
    assert key == "dumbbell.bottleneck.queue"
    good = runner.invoke(app, ["validate", str(RED), "--set", fix, "--json"])
    assert good.exit_code == 0, good.output
    queue = json.loads(good.output)["links"][0]["queue"]
    assert queue["kind"] == kind and queue["limit"] == 50, "the shared fields are kept"


def test_a_typo_keeps_did_you_mean(core):
    text = _one_line_error(runner.invoke(
        app, ["validate", str(RED), "--set", "dumbbell.bottleneck.queue.max_pp=0.1"]))
    assert "did you mean 'max_p'" in text and "replace the whole table" not in text


def test_the_documented_switch_works(core, tmp_path: Path):
    """docs/getting-started.md's `--set` that switches a RED queue to CoDel runs."""
    from conftest import ROOT

    text = (ROOT / "docs" / "getting-started.md").read_text()
    line = next(x for x in text.splitlines() if "queue={ kind" in x)
    fix = line.split("--set '", 1)[1].split("'", 1)[0]
    result = runner.invoke(app, ["validate", str(RED), "--set", fix, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["links"][0]["queue"]["kind"] == "codel"


def test_pcap_list_is_this_runs_files(core, tmp_path: Path):
    """An older .pcap in the directory is not listed as written; every traced link is."""
    out = tmp_path / "out"
    (out / "pcap").mkdir(parents=True)
    (out / "pcap" / "old-run.pcap").write_bytes(b"")
    result = runner.invoke(app, ["run", str(RED), *SHORT, "--out", str(out), "--trace", "pcap",
                                 "--set", 'trace.links="all"'])
    assert result.exit_code == 0, result.output
    listed = _listed(result.output, out)
    assert "pcap/old-run.pcap" not in listed
    assert sorted(listed) == [x for x in _contents(out) if x != "pcap/old-run.pcap"]
    assert sum(x.endswith(".pcap") for x in listed) == 21  # 10 access, 1 bottleneck, 10 egress
