"""Issue 23: every message names the field or option and what is allowed; a usage error is
one line and exit status 2 for every command; `aqmsim validate` reports every error of a
file at once, as a linter does, and summarises a valid one (--full: all of it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app

from conftest import EXAMPLES
from test_cli import _one_line_error

runner = CliRunner()
RED = EXAMPLES / "dumbbell-red.toml"
EXPLICIT = EXAMPLES / "explicit-topology.toml"
WEB = EXAMPLES / "dumbbell-web.toml"


def _refused(sc: Scenario) -> str:
    with pytest.raises(ScenarioError) as info:
        sc.validate()
    return str(info.value)


# ----------------------------------------------------------------- missing required fields
@pytest.mark.parametrize("example, key, path, hint", [
    (RED, "duration", "duration", 'duration = "60s"'),
    (RED, "dumbbell.bottleneck.rate", "dumbbell.bottleneck.rate", 'rate = "10Mb"'),
    (RED, "dumbbell.groups.0.access.delay", "dumbbell.groups[0].access.delay", 'delay = "10ms"'),
    (RED, "dumbbell.groups.0.access", "dumbbell.groups[0].access",
     'access = { rate = "100Mb", delay = "1ms" }'),
    (EXPLICIT, "flows.1.src", "flows[1].src", "a node name of nodes"),
    (EXPLICIT, "links.2.delay", "links[2].delay", 'delay = "10ms"'),
])
def test_a_missing_field_is_named_by_its_path_with_what_it_looks_like(core, example, key, path, hint):
    msg = _refused(Scenario.from_toml(example).with_overrides(**{key: None}))
    assert msg.startswith(f"{example}: {path}: missing: a required field (") and hint in msg, msg


def test_validate_names_a_missing_duration(core, tmp_path: Path):
    f = tmp_path / "nodur.toml"
    f.write_text(RED.read_text().replace('duration = "30s"\n', ""))
    msg = _one_line_error(runner.invoke(app, ["validate", str(f)]))
    assert msg == f"error: {f}: duration: missing: a required field (simulated time, e.g. duration = \"60s\")"


# ----------------------------------------------------------------- rate_schedule, tcp_flows
@pytest.mark.parametrize("entry, n", [([0, "5Mb", 3], 3), ([0], 1), ([], 0)])
def test_a_rate_schedule_entry_of_another_length_says_the_form(core, entry, n):
    sc = Scenario.from_toml(RED).with_overrides(**{"dumbbell.bottleneck.rate_schedule": [entry]})
    msg = _refused(sc)
    assert msg.endswith('dumbbell.bottleneck.rate_schedule[0]: expected [time, rate], e.g. '
                        f'["0s", "10Mb"], got a list of {n} value(s)'), msg
    assert "trailing" not in msg and "length" not in msg


def test_tcp_flows_out_of_range_says_the_tcp_flows(core):
    # flows 0-4 TCP (group 0), 5-6 CBR (group 1): only the TCP ones can be recorded
    d = Scenario.from_toml(RED).to_dict()
    d["dumbbell"]["groups"][0]["count"] = 5
    d["dumbbell"]["groups"].append({"name": "video", "count": 2, "app": "cbr",
                                    "cbr": {"rate": "64Kb"},
                                    "access": {"rate": "10Mb", "delay": "1ms"}})
    d["monitor"]["tcp_flows"] = [99]
    sc = Scenario(d, path=RED)
    msg = _refused(sc)
    assert msg.endswith('monitor.tcp_flows[0]: no flow 99: expected "all" or a list of TCP '
                        'flow indexes (0-4) or labels (reno)'), msg


def test_tcp_flows_in_a_scenario_without_tcp(core):
    sc = Scenario.from_toml(RED).with_overrides(**{
        "dumbbell.groups.0.app": "cbr", "dumbbell.groups.0.cbr": {"rate": "64Kb"},
        "monitor.tcp_flows": "some"})
    msg = _refused(sc)
    assert "monitor.tcp_flows: expected nothing: the scenario has no TCP flow to record" in msg


# ----------------------------------------------------------------- option errors: one line, 2
@pytest.mark.parametrize("args, line", [
    (["suite", "rfc7928", "--seeds", "abc"], "error: --seeds: expected an integer, got 'abc'"),
    (["suite", "rfc7928", "--workers", "0"], "error: --workers: expected an integer ≥ 1, got 0"),
    (["reproduce", "rtred", "--seeds", "0"], "error: --seeds: expected an integer ≥ 1, got 0"),
    (["reproduce", "rtred", "--workers", "x"], "error: --workers: expected an integer ≥ 1, got 'x'"),
    (["sweep", "s.toml", "--timeout", "soon"], "error: --timeout: expected a number, got 'soon'"),
    (["run", str(RED), "--seed", "-1"], "error: --seed: expected an integer ≥ 0, got -1"),
    (["crosscheck", str(RED), "--seeds", "x"], "error: --seeds: expected an integer ≥ 1, got 'x'"),
    (["run"], "error: aqmsim run: missing FILE: scenario file (TOML)"),
    (["list", "--bogus"], "error: aqmsim list: no such option: --bogus"),
    (["run", str(RED), "extra"], "error: aqmsim run: got unexpected extra argument(s) (extra)"),
])
def test_option_errors_are_one_line_exit_2(args, line):
    assert _one_line_error(runner.invoke(app, args)) == line


def test_an_unknown_command_lists_the_commands():
    msg = _one_line_error(runner.invoke(app, ["rn"]))
    assert msg.startswith("error: aqmsim: no such command 'rn'. Did you mean 'run'?")
    for name in ("run", "validate", "reproduce", "sweep", "suite"):
        assert name in msg


def test_help_and_no_arguments_still_print_the_help():
    result = runner.invoke(app, ["run", "--help"])
    assert result.exit_code == 0 and "Usage" in result.output
    result = runner.invoke(app, [])
    assert "Usage" in result.output and "error:" not in result.output


# ----------------------------------------------------------------- --scheduler, --out: exit 2
SCHEDULER_COMMANDS = [["sweep", str(EXAMPLES / "sweeps" / "red.toml")], ["suite", "rfc7928"],
                      ["reproduce", "rtred"]]


@pytest.mark.parametrize("cmd", SCHEDULER_COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("addr, words", [("foo", "no port"),
                                         ("http://h:8786", "unknown scheme 'http'")])
def test_a_malformed_scheduler_is_a_usage_error(tmp_path: Path, monkeypatch, cmd, addr, words):
    monkeypatch.chdir(tmp_path)
    msg = _one_line_error(runner.invoke(app, cmd + ["--scheduler", addr]))
    assert msg.startswith(f"error: --scheduler {addr!r}: ") and words in msg
    assert list(tmp_path.iterdir()) == []  # nothing was run or written


@pytest.mark.parametrize("cmd, option", [
    (["reproduce", "rtred"], "--out"), (["reproduce", "rtred"], "--store"),
    (["suite", "rfc7928"], "--out"), (["sweep", str(EXAMPLES / "sweeps" / "red.toml")], "--store"),
    (["report", str(EXAMPLES / "sweeps" / "red.toml")], "--out"),
    (["report", str(EXAMPLES / "sweeps" / "red.toml")], "--store"),
], ids=lambda x: x if isinstance(x, str) else x[0])
def test_an_output_directory_that_is_a_file_is_a_usage_error(tmp_path: Path, cmd, option):
    afile = tmp_path / "afile"
    afile.write_text("x")
    msg = _one_line_error(runner.invoke(app, cmd + [option, str(afile)]))
    assert msg == f"error: {option} {str(afile)!r}: is a file; expected a directory (existing or to create)"
    under = afile / "sub" / "dir"
    msg = _one_line_error(runner.invoke(app, cmd + [option, str(under)]))
    assert msg.startswith(f"error: {option} {str(under)!r}: {str(afile)!r} is a file")


@pytest.mark.parametrize("args, start", [
    (["--aqm", "red,blue"], "error: --aqm: unknown discipline 'blue' (allowed: red, ared,"),
    (["--scenarios", "nope"], "error: --scenarios: unknown scenario 'nope' (allowed: "),
])
def test_suite_selection_errors_name_the_option(tmp_path: Path, args, start):
    msg = _one_line_error(runner.invoke(app, ["suite", "rfc7928", "--out", str(tmp_path / "s")]
                                        + args))
    assert msg.startswith(start), msg
    assert not (tmp_path / "s").exists()


# ----------------------------------------------------------------- --readings
def test_an_unknown_reading_names_readings():
    msg = _one_line_error(runner.invoke(app, ["reproduce", "rtred", "--readings", "units=bogus"]))
    assert msg.startswith("error: --readings: rtred: reading units=bogus: unknown reading of "
                          "choice 'units' (expected one of: "), msg


@pytest.mark.parametrize("spec", ["", " ", ",", " , "])
def test_an_empty_readings_is_refused(tmp_path: Path, spec):
    msg = _one_line_error(runner.invoke(app, ["reproduce", "rtred", "--readings", spec,
                                              "--out", str(tmp_path / "r")]))
    assert msg.startswith("error: --readings: expected all, primary, or readings separated by "
                          f"commas (choice=reading, several joined by +), got {spec!r}")
    assert not (tmp_path / "r").exists()


# ----------------------------------------------------------------- validate: every error
MANY = '''duration = "10s"
[tcp]
window = -5
windw = 3
[dumbbell.bottleneck]
rate = "10Mb"
delay = "10ms"
[dumbbell.bottleneck.queue]
kind = "red"
max_p = 1.5
w_q = 7
[[dumbbell.groups]]
count = 2
access = { rate = "100Mb", delay = "1ms" }
start = -3
[monitor]
tcp_flows = [99]
sample_interval = "-1s"
'''


def test_validate_reports_every_error_of_the_file(core, tmp_path: Path):
    f = tmp_path / "many.toml"
    f.write_text(MANY)
    result = runner.invoke(app, ["validate", str(f)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == f"{f}: 7 errors"
    errors = sorted(ln.split(": ", 3)[2] for ln in lines[:-1])
    assert errors == ["dumbbell.bottleneck.queue.max_p", "dumbbell.bottleneck.queue.w_q",
                      "dumbbell.groups[0].start", "monitor.sample_interval",
                      "monitor.tcp_flows[0]", "tcp.window", "tcp.windw"]
    assert all(ln.startswith(f"error: {f}: ") for ln in lines[:-1])
    assert "unknown field 'windw'" in result.output and "did you mean 'window'" in result.output


def test_validate_stops_at_a_missing_required_field(core, tmp_path: Path):
    # the engine reads the file's structure before its values: with `duration` missing
    # there is nothing to take out and go on with, so max_p = 3 is not reached (a limit)
    f = tmp_path / "two.toml"
    f.write_text(RED.read_text().replace('duration = "30s"\n', "")
                 .replace("max_p = 0.1", "max_p = 3"))
    msg = _one_line_error(runner.invoke(app, ["validate", str(f)]))
    assert msg == f"error: {f}: duration: missing: a required field (simulated time, e.g. duration = \"60s\")"


def test_validate_goes_on_past_a_wrong_or_missing_link_rate(core, tmp_path: Path):
    # taken out, a required rate would only be "missing": a stand-in lets the check go on
    f = tmp_path / "rate.toml"
    f.write_text(RED.read_text().replace('rate = "1.5Mb"', 'rate = "fast"')
                 .replace('delay = "20ms"\n', "").replace("max_p = 0.1", "max_p = 3"))
    result = runner.invoke(app, ["validate", str(f)])
    assert result.exit_code == 2
    paths = [ln.split(": ", 3)[2] for ln in result.output.splitlines() if ln.startswith("error:")]
    assert paths == ["dumbbell.bottleneck.delay", "dumbbell.bottleneck.rate",
                     "dumbbell.bottleneck.queue.max_p"], result.output
    assert "missing: a required field" in result.output and '"fast"' in result.output


def test_validate_summarises_and_full_prints_everything(core):
    result = runner.invoke(app, ["validate", str(RED)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) < 20, result.output  # was 663 lines
    assert lines[0] == f"{RED}: valid"
    text = result.output
    assert "flows         10: 10 ftp over TCP reno" in text
    assert "queue R1->R2  1.5 Mb/s, 20 ms: red (" in text and "max_p=0.1" in text
    assert "--full" in lines[-1]
    # which sender model runs is in the summary (the ns2 stack, the default, goes unsaid)
    bbr = runner.invoke(app, ["validate", str(EXAMPLES / "dumbbell-bbr.toml")]).output
    assert "flows         4: 2 ftp over TCP bbr (linux stack), 2 ftp over TCP cubic (linux stack)" in bbr
    full = runner.invoke(app, ["validate", str(RED), "--full"])
    assert full.exit_code == 0 and len(full.output.splitlines()) > 600
    assert full.output.startswith(f"# {RED}: valid; resolved scenario follows")
    as_json = json.loads(runner.invoke(app, ["validate", str(RED), "--json"]).output)
    assert len(as_json["flows"]) == 10


def test_validate_summary_counts_flows_by_kind(core):
    text = runner.invoke(app, ["validate", str(WEB)]).output
    assert "flows         7: 3 ftp over TCP newreno, 2 web over TCP newreno, 1 onoff (UDP), " \
           "1 cbr (UDP)" in text, text
    assert "3-step rate_schedule" in text
