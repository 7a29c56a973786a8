"""Issue 13 (part 1): the TCP state series (Results.tcp, Results.rtt), its figure and its
command-line switch; bad selections refused naming the field."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from aqmsim.results import SCHEMAS

from conftest import EXAMPLES

RED = EXAMPLES / "dumbbell-red.toml"
runner = CliRunner()


def red(duration: float = 20.0, **monitor) -> Scenario:
    over = {"duration": duration, "dumbbell.groups.0.stop": duration}
    over.update({f"monitor.{k}": v for k, v in monitor.items()})
    return Scenario.from_toml(RED).with_overrides(**over)


def test_tables_have_the_documented_columns_and_types(core):
    r = red(tcp_flows=[0, 3]).run()
    for name in ("tcp", "rtt"):
        df = getattr(r, name)
        assert list(df.columns) == list(SCHEMAS[name])
        assert {str(t) for t in df.dtypes} <= {"float64", "int64", "object", "category"}
        assert set(df["flow"]) == {0, 3}
    tcp = r.tcp
    assert set(tcp["state"]) <= {"slow_start", "congestion_avoidance", "fast_recovery", "timeout"}
    assert {"congestion_avoidance", "fast_recovery"} <= set(tcp["state"])
    assert (np.diff(tcp["t"].to_numpy()) >= 0).all()
    assert (tcp["cwnd"] >= 1).all() and (tcp["ssthresh"] >= 2).all()
    # srtt follows the RTT samples: within the path's range once measured
    measured = tcp[tcp["srtt"] > 0]
    assert measured["srtt"].between(0.04, 1.0).all()
    assert r.rtt["rtt"].between(0.044, 1.0).all()


def test_untraced_run_has_empty_tables(core):
    r = red(5).run()
    assert r.tcp.empty and r.rtt.empty
    with pytest.raises(ValueError, match="tcp_flows"):
        r.plot_tcp()


def test_labels_and_all_select_flows(core):
    assert set(red(5, tcp_flows="all").run().tcp["flow"]) == set(range(10))
    assert set(red(5, tcp_flows=["reno"]).run().tcp["flow"]) == set(range(10))


def test_periodic_series(core):
    r = red(2, tcp_flows=[1], tcp_interval="0.1s").run()
    assert len(r.tcp) == 20 and np.allclose(r.tcp["t"], np.arange(20) * 0.1)


def test_a_long_series_spills_to_files_and_reads_back(core):
    """Past 65 536 rows the engine writes the series to files as it goes (memory stays
    flat): what comes back is the same series a shorter run gives, continued."""
    long = red(500, tcp_flows="all").run()
    assert len(long.tcp) > 65_536
    short = red(30, tcp_flows="all").run()
    head = long.tcp[long.tcp["t"] < 29.9].reset_index(drop=True)
    cut = short.tcp[short.tcp["t"] < 29.9].reset_index(drop=True)
    assert head.equals(cut)


@pytest.mark.parametrize("value,words", [
    ([10], "monitor.tcp_flows[0]: no flow 10: expected \"all\" or a list of TCP flow indexes (0-9)"),
    (["cubic"], 'monitor.tcp_flows[0]: no TCP flow labelled "cubic"'),
    ("some", 'monitor.tcp_flows: expected "all" or a list'),
    ([1.5], "monitor.tcp_flows[0]: no flow 1.5"),
])
def test_bad_selection_names_the_field(core, value, words):
    with pytest.raises(ScenarioError, match=None) as info:
        red(5, tcp_flows=value).validate()
    assert words in str(info.value)


def test_cbr_flow_cannot_be_traced(core):
    sc = red(5, tcp_flows=[0]).with_overrides(**{
        "dumbbell.groups.0.app": "cbr", "dumbbell.groups.0.cbr": {"rate": "100Kb"}})
    with pytest.raises(ScenarioError, match=r"monitor.tcp_flows\[0\]: flow 0 is not a TCP flow"):
        sc.validate()


def test_too_fine_an_interval_is_refused(core):
    with pytest.raises(ScenarioError, match="monitor.tcp_interval") as info:
        red(1000, tcp_flows="all", tcp_interval="1us").validate()
    assert "traced TCP flow(s)" in str(info.value)


def test_plot_tcp_draws_cwnd_over_the_queue(core):
    r = red(10, tcp_flows=[0, 1, 2]).run()
    fig = r.plot_tcp(flows=[0, 2])
    top, bottom = fig.axes
    assert [ln.get_label() for ln in top.get_lines()] == ["flow 0", "flow 2"]
    assert bottom.get_lines()[0].get_label() == "queue R1->R2"
    assert top.get_shared_x_axes().joined(top, bottom)
    with pytest.raises(ValueError, match=r"\[5\] not traced"):
        r.plot_tcp(flows=[5])


def test_plot_tcp_clips_an_unbounded_window_and_says_so(core):
    """The BBR example, seed 1: flow 0 loses in STARTUP and, as ns-3.37's BBR, takes the
    never-set ssthresh (2^32 - 1 bytes: 2 966 138 packets) as cwnd when that recovery ends.
    The axis stays on the real windows; a note gives the clipped values' count and height.
    Without the clip the axis reached 3e6 and every window was a flat line at 0."""
    r = Scenario.from_toml(EXAMPLES / "dumbbell-bbr.toml").with_overrides(
        **{"duration": 3, "monitor.tcp_flows": "all"}).run()
    cwnd = np.asarray(r.tcp["cwnd"], dtype=float)
    assert cwnd.max() > 2.9e6, "the scenario should have the unbounded window"
    top = r.plot_tcp().axes[0]
    assert top.get_ylim()[1] < 1000
    notes = [t.get_text() for t in top.texts]
    assert len(notes) == 1 and "above the axis, up to 2,966,138 packets" in notes[0], notes
    # an ordinary run: no clip, no note
    top = red(10, tcp_flows=[0, 1]).run().plot_tcp().axes[0]
    assert not top.texts and top.get_ylim()[1] >= float(np.max(top.get_lines()[0].get_ydata()))


def test_plot_tcp_draws_the_pacing_rates_of_paced_flows(core):
    """The BBR example: BBR paces, CUBIC does not. The figure gains a pacing-rate panel
    between cwnd and the queue, one line a drawn flow in the cwnd panel's colours, the
    paced flows' rates in Mb/s, the 4 Gb/s before the first RTT sample left out; the
    unpaced flows' lines are empty. An unpaced run keeps the two panels (above)."""
    r = Scenario.from_toml(EXAMPLES / "dumbbell-bbr.toml").with_overrides(
        **{"duration": 3, "monitor.tcp_flows": "all"}).run()
    fig = r.plot_tcp()
    top, mid, bottom = fig.axes
    assert mid.get_ylabel() == "pacing rate (Mb/s)" and "pacing rate" in top.get_title()
    assert [ln.get_color() for ln in mid.get_lines()] == [ln.get_color() for ln in top.get_lines()]
    tcp = r.tcp
    for f, line in enumerate(mid.get_lines()):
        y = np.asarray(line.get_ydata(), dtype=float)
        paced = tcp.loc[tcp["flow"] == f, "pacing_rate"].to_numpy()
        if (paced == 0).all():  # CUBIC: not paced, nothing drawn
            assert np.isnan(y).all()
            continue
        shown = paced[paced < 4e9] / 1e6
        assert np.isnan(y[:-1][paced >= 4e9]).all() and np.allclose(y[:-1][paced < 4e9], shown)
        assert 0 < np.nanmax(y) < 100  # a 20 Mb/s bottleneck, the 4 Gb/s left out
    assert top.get_shared_x_axes().joined(top, mid)


def test_cli_tcp_writes_series_and_figure(core, tmp_path: Path):
    res = runner.invoke(app, ["run", str(RED), "--set", "duration=5", "--set",
                              "dumbbell.groups.0.stop=5", "--tcp", "0,1", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    for f in ("tcp.csv", "rtt.csv", "tcp.png"):
        assert (tmp_path / f).stat().st_size > 0, f
    res = runner.invoke(app, ["run", str(RED), "--tcp", "0,42"])
    assert res.exit_code == 2 and "monitor.tcp_flows[1]: no flow 42" in res.output
