"""Issue 26 point 5 for congestion controls: a Python congestion control that raises or
returns nonsense ends its run with one message naming the field path, the plug-in, the
method, the time and the user's own source line; a bad class string or bad fields are a
ScenarioError naming the field (exit code 2 from the CLI, one line, no traceback).
The failures are the same on both stacks (``test_ns2_stack_failures``)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from aqmsim.errors import SimulationError

from test_cli import _one_line_error

runner = CliRunner()

BASE = """
name = "cc-fail"
duration = "5s"
seed = 1

[tcp]
stack = "linux"
variant = "python"
cc_class = "my_cc.py:{cls}"

[dumbbell.bottleneck]
rate = "10Mb"
delay = "20ms"
queue = {{ kind = "red", limit = 30, min_th = 5, max_th = 15 }}

[[dumbbell.groups]]
name = "g"
count = 3
app = "ftp"
start = 0.0
stop = "5s"
access = {{ rate = "100Mb", delay = "1ms" }}
"""

MY_CC = '''
import math

from aqmsim.plugin import CongestionControl


class Reno(CongestionControl):
    def __init__(self, beta=0.5):
        if not 0 < beta < 1:
            raise ValueError(f"beta must be in (0, 1), got {beta}")
        self.beta = beta

    def on_ack(self, tcp, acked):
        tcp.cwnd += tcp.mss if tcp.cwnd < tcp.ssthresh else tcp.mss * tcp.mss / tcp.cwnd

    def ssthresh(self, tcp):
        return max(2 * tcp.mss, self.beta * tcp.in_flight)


def helper(x):
    return x / 0


class Raises(Reno):
    def on_ack(self, tcp, acked):
        if tcp.now > 1.0:
            tcp.cwnd = helper(tcp.cwnd)
        super().on_ack(tcp, acked)


class SsNone(Reno):
    def ssthresh(self, tcp):
        return None


class SsNan(Reno):
    def ssthresh(self, tcp):
        return math.nan


class SsText(Reno):
    def ssthresh(self, tcp):
        return "half"


class CwndZero(Reno):
    def on_ack(self, tcp, acked):
        tcp.cwnd = 0 if tcp.now > 0.5 else tcp.cwnd + tcp.mss


class CwndNan(Reno):
    def on_ack(self, tcp, acked):
        tcp.cwnd = math.nan


class CwndNone(Reno):
    def on_ack(self, tcp, acked):
        tcp.cwnd = None


class BadRate(Reno):
    def on_ack(self, tcp, acked):
        tcp.pacing_rate = -1.0


class Needs(Reno):
    def __init__(self, gain):
        self.gain = gain


class NoSsthresh(CongestionControl):
    def on_ack(self, tcp, acked):
        pass


class Forever(Reno):
    def on_ack(self, tcp, acked):
        if tcp.now > 1.0:
            while True:
                pass
        super().on_ack(tcp, acked)


class Slow(Reno):
    def on_ack(self, tcp, acked):
        if tcp.now > 1.0:
            import time
            time.sleep(0.01)
        super().on_ack(tcp, acked)


NOT_A_CLASS = 3
'''


@pytest.fixture()
def where(tmp_path: Path) -> Path:
    (tmp_path / "my_cc.py").write_text(textwrap.dedent(MY_CC))
    return tmp_path


def scenario(where: Path, cls: str, **over) -> Scenario:
    path = where / f"s-{abs(hash((cls, repr(over))))}.toml"
    path.write_text(BASE.format(cls=cls))
    s = Scenario.from_toml(path)
    return s.with_overrides(**over) if over else s


def failed(where: Path, cls: str, **over) -> str:
    with pytest.raises(SimulationError) as info:
        scenario(where, cls, **over).run()
    return str(info.value)


def refused(where: Path, cls: str, **over) -> str:
    with pytest.raises(ScenarioError) as info:
        scenario(where, cls, **over).validate()
    return str(info.value)


def test_the_good_class_runs(core, where):
    r = scenario(where, "Reno").run()
    assert r.summary["bottleneck_drops"] > 0 and r.summary["goodput_bps"] > 5e6


@pytest.mark.parametrize("cls", ["Forever", "Slow"])
def test_never_returns_hits_the_time_limit(core, where, cls):
    """A control that never returns (interrupted by the watchdog) or is too slow (the
    engine's check after each call) ends at plugin_time_limit, and the next run is fine."""
    msg = failed(where, cls, plugin_time_limit="1s")
    assert f"tcp: plug-in my_cc.py:{cls}.on_ack was still running when the run reached its time limit" in msg, msg
    assert "plugin_time_limit = 1 s" in msg, msg
    assert scenario(where, "Reno").run().summary["goodput_bps"] > 5e6


def test_an_exception_names_plugin_method_time_and_the_users_line(core, where):
    msg = failed(where, "Raises")
    assert "tcp: plug-in my_cc.py:Raises.on_ack raised ZeroDivisionError: division by zero at t = 1." in msg, msg
    # the innermost frame in the user's file (the helper), with its source
    line = textwrap.dedent(MY_CC).splitlines().index("    return x / 0") + 1
    assert msg.endswith(f"(my_cc.py:{line}: return x / 0)"), msg
    assert "Traceback" not in msg and "\n" not in msg


@pytest.mark.parametrize("cls, shown", [("SsNone", "None"), ("SsNan", "nan"), ("SsText", "'half'")])
def test_ssthresh_nonsense(core, where, cls, shown):
    msg = failed(where, cls)
    assert re.search(rf"tcp: plug-in my_cc.py:{cls}\.ssthresh returned {re.escape(shown)} at t = [0-9.]+ s "
                     r"\(expected a window > 0 bytes\)$", msg), msg


@pytest.mark.parametrize("cls, field, got", [("CwndZero", "cwnd", "0"), ("CwndNan", "cwnd", "NaN"),
                                             ("BadRate", "pacing_rate", "-1")])
def test_window_nonsense(core, where, cls, field, got):
    msg = failed(where, cls)
    assert re.search(rf"tcp: plug-in my_cc.py:{cls}\.on_ack set tcp\.{field} to {got} at t = [0-9.]+ s \(expected ",
                     msg), msg


def test_cwnd_none_is_the_users_line(core, where):
    msg = failed(where, "CwndNone")
    assert "on_ack raised TypeError: tcp.cwnd must be a number, got None" in msg, msg
    assert "(my_cc.py:" in msg and "tcp.cwnd = None)" in msg, msg


def test_the_error_is_a_plugin_error(core, where):
    from aqmsim.errors import PluginError

    with pytest.raises(PluginError, match="SsNone.ssthresh returned None"):
        scenario(where, "SsNone").run()


@pytest.mark.parametrize("spec, needle", [
    ("no_colon", "tcp.cc_class: must be \"module:Class\" or \"path/file.py:Class\", got 'no_colon'"),
    ("no_such_module_xyz:X", "tcp.cc_class: cannot import 'no_such_module_xyz'"),
    ("missing.py:X", "tcp.cc_class: no file"),
    ("my_cc.py:Nope", "tcp.cc_class: 'my_cc.py' has no 'Nope'"),
    ("my_cc.py:NOT_A_CLASS", "is not a class"),
    ("my_cc.py:NoSsthresh", "tcp.cc_class: NoSsthresh must define ssthresh()"),
])
def test_bad_class_strings(core, where, spec, needle):
    msg = refused(where, "Reno", **{"tcp.cc_class": spec})
    assert needle in msg, msg


@pytest.mark.parametrize("over, needle", [
    ({"tcp.cc": {"gamma": 1}}, "tcp.cc.gamma: Reno takes no argument 'gamma' (its arguments: beta)"),
    ({"tcp.cc": {"beta": 2}}, "tcp.cc: Reno(**cc) raised ValueError: beta must be in (0, 1), got 2 (my_cc.py:"),
    ({"tcp.cc_class": "my_cc.py:Needs"}, "tcp.cc: Needs needs 'gain' (give it in the cc table)"),
    ({"tcp.cc": 3}, "tcp.cc"),
    ({"tcp.cc_class": None}, "tcp.cc_class: variant = \"python\" needs cc_class"),
    ({"tcp.variant": "cubic"}, "tcp.cc_class: only used with variant = \"python\" (the variant here is \"cubic\")"),
    ({"tcp": {"variant": "python", "cc_class": "my_cc.py:Reno", "pacing": True}},
     "tcp.pacing: only used with stack = \"linux\" (the stack here is \"ns2\")"),
])
def test_bad_fields(core, where, over, needle):
    msg = refused(where, "Reno", **over)
    assert needle in msg, msg


def test_cli_bad_field_is_one_line_exit_2(core, where):
    path = where / "cli.toml"
    path.write_text(BASE.format(cls="Reno"))
    out = _one_line_error(runner.invoke(app, ["run", str(path), "--set", "tcp.cc={gamma = 1}"]))
    assert "tcp.cc.gamma" in out


def test_cli_failure_is_one_clear_line(core, where):
    path = where / "cli.toml"
    path.write_text(BASE.format(cls="SsNone"))
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code != 0
    text = result.output.strip()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert "plug-in my_cc.py:SsNone.ssthresh returned None" in text, text


@pytest.mark.parametrize("cls, needle", [
    ("SsNone", "tcp: plug-in my_cc.py:SsNone.ssthresh returned None at t = "),
    ("CwndZero", "tcp: plug-in my_cc.py:CwndZero.on_ack set tcp.cwnd to 0 at t = "),
    ("Raises", "tcp: plug-in my_cc.py:Raises.on_ack raised ZeroDivisionError: float division by zero at t = 1."),
])
def test_ns2_stack_failures(core, where, cls, needle):
    msg = failed(where, cls, tcp={"variant": "python", "cc_class": f"my_cc.py:{cls}"})
    assert needle in msg, msg
    assert "packets)" in msg or "my_cc.py:" in msg.rsplit("(", 1)[-1], msg


def test_a_sweep_keeps_every_other_run(core, where, monkeypatch):
    import os
    import shutil

    from conftest import EXAMPLES

    shutil.copy(EXAMPLES / "dumbbell-red.toml", where / "base.toml")
    (where / "sweep.toml").write_text(textwrap.dedent('''
        name = "cc-sweep"
        base = "base.toml"
        seeds = 1
        metrics = ["goodput_bps"]
        [set]
        duration = 3
        "dumbbell.groups.0.stop" = 3
        [[vary]]
        tcp = [{ variant = "newreno" },
               { variant = "python", cc_class = "aqmsim.plugin.examples.newreno:NewRenoNs2" },
               { variant = "python", cc_class = "my_cc:Raises" }]
    '''))
    # the workers import the plug-in's module as the parent does
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.syspath_prepend(str(where))
    result = runner.invoke(app, ["sweep", str(where / "sweep.toml")])
    text = " ".join(result.output.split())
    assert "3 runs: 2 ok, 1 failed" in text, text
    assert "tcp: plug-in my_cc:Raises.on_ack raised ZeroDivisionError" in text and "(my_cc.py:" in text, text
    assert "Traceback" not in text
