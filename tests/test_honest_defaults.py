"""Issue 15, honest defaults: a RED-family kind behaves as its name with defaults (ns-2's
one `defaults = "ns2"` away), ARED's max_p is visible, and the queue figure and summary
say their units and rules."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np
import pytest
from typer.testing import CliRunner

import aqmsim
from aqmsim.cli import app
from aqmsim.results import forced_drop_rule

#: RED's classic thresholds on a buffer that 30 Reno flows keep busy: the average passes
#: max_th, so the gentle region matters.
BASE = {"limit": 40, "min_th": 5, "max_th": 15, "w_q": 0.002}


def scenario(queue: Dict[str, Any], duration: float = 10.0) -> Dict[str, Any]:
    return {
        "name": "honest-defaults", "duration": duration, "seed": 1,
        "tcp": {"variant": "reno", "packet_size": 1000, "window": 20},
        "dumbbell": {
            "bottleneck": {"rate": "1.5Mb", "delay": "20ms", "queue": queue},
            "groups": [{"name": "reno", "count": 30, "app": "ftp", "start": {"uniform": [0.0, 1.0]},
                        "access": {"rate": "10Mb", "delay": "2ms"},
                        "egress": {"rate": "10Mb", "delay": "1ms"}}],
        },
        "monitor": {"queues": ["R1->R2"], "sample_interval": 0.01},
    }


def run(queue: Dict[str, Any], **kw: Any) -> aqmsim.Results:
    return aqmsim.Scenario.from_dict(scenario(queue, **kw)).run(seed=1)


def test_red_and_gentle_red_with_defaults_are_different_runs():
    red, gentle = run(dict(BASE, kind="red")), run(dict(BASE, kind="gentle"))
    assert red.queue["avg"].max() > BASE["max_th"]  # the load reaches the region that differs
    assert red.queue_params()["gentle"] is False
    # plain RED drops every arrival once avg >= max_th; Gentle RED's p only rises towards 1
    assert red.summary["drops_forced"] > 0 and gentle.summary["drops_forced"] == 0
    assert red.summary["drops_early"] != gentle.summary["drops_early"]


def test_the_ns2_profile_is_ns2s_defaults_written_out():
    ns2 = run(dict(BASE, kind="red", defaults="ns2"))
    assert {k: ns2.queue_params()[k] for k in ("gentle", "wait", "bytes", "queue_in_bytes")} == \
        dict.fromkeys(("gentle", "wait", "bytes", "queue_in_bytes"), True)
    explicit = run(dict(BASE, kind="red", gentle=True, wait=True, bytes=True, queue_in_bytes=True))
    assert ns2.summary["bottleneck_drops"] == explicit.summary["bottleneck_drops"]
    assert ns2.queue["avg"].tolist() == explicit.queue["avg"].tolist()
    # a field written wins over the profile
    resolved = aqmsim.Scenario.from_dict(scenario(dict(BASE, kind="red", defaults="ns2", gentle=False))).validate()
    assert resolved["links"][0]["queue"]["gentle"] is False


def test_an_unknown_profile_names_the_field():
    with pytest.raises(aqmsim.ScenarioError, match=r"dumbbell\.bottleneck\.queue\.defaults.*paper, ns2"):
        run(dict(BASE, kind="red", defaults="ns-2"))


def test_ared_max_p_column_is_gentle_red_until_the_first_adaptation():
    """The caveat `aqmsim list ared` states, and the max_p trace that shows it."""
    ared, gentle = run(dict(BASE, kind="ared", max_p=0.02)), run(dict(BASE, kind="gentle", max_p=0.02))
    a, g = ared.queue, gentle.queue
    moved = np.flatnonzero(a["max_p"].to_numpy() != 0.02)
    assert a["max_p"].iloc[0] == 0.02 and len(moved) > 0
    first = moved[0]
    assert a["t"].iloc[first] > 0.5 - 1e-9  # one interval (0.5 s) at least
    assert a["len_pkts"].iloc[:first].tolist() == g["len_pkts"].iloc[:first].tolist()
    assert a["avg"].iloc[:first].tolist() == g["avg"].iloc[:first].tolist()
    assert a["max_p"].nunique() > 3 and (g["max_p"] == 0.02).all()
    assert a["len_pkts"].tolist() != g["len_pkts"].tolist()


def _legend(ax: Any) -> list:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_queue_figure_byte_mode_draws_one_unit_and_gentles_limit():
    res = run(dict(BASE, kind="gentle", queue_in_bytes=True, mean_pktsize=500), duration=3.0)
    fig = res.plot_queue()
    ax = fig.axes[0]
    assert ax.get_ylabel() == "queue (bytes)"
    labels = _legend(ax)
    assert "min_th = 2500" in labels and "max_th = 7500" in labels
    assert "2·max_th (gentle) = 15000" in labels
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    q = res.queue
    assert np.allclose(lines["queue (instantaneous)"].get_ydata(), q["len_bytes"])
    assert np.allclose(lines["average queue"].get_ydata(), q["avg"] * 500)  # avg is kept in 500-byte units


def test_queue_figure_packet_mode_red_has_no_gentle_line_and_ared_shows_max_p():
    ax = run(dict(BASE, kind="red"), duration=2.0).plot_queue().axes[0]
    assert ax.get_ylabel() == "queue (packets)"
    assert {"min_th = 5", "max_th = 15"} <= set(_legend(ax)) and not any("2·max_th" in x for x in _legend(ax))
    fig = run(dict(BASE, kind="ared", max_p=0.02), duration=2.0).plot_queue()
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "max_p"
    assert fig.axes[0].get_legend() is None  # one legend, on top, for both axes
    assert {"max_p (right axis)", "2·max_th (gentle) = 30", "average queue"} <= set(_legend(fig.axes[1]))


@pytest.mark.parametrize("queue, rule", [
    ({"kind": "red", "gentle": False}, "avg ≥ max_th"),
    ({"kind": "red", "gentle": True}, "avg ≥ 2·max_th, gentle"),
    ({"kind": "gentle"}, "avg ≥ 2·max_th, gentle"),
    ({"kind": "codel"}, "forced"),
])
def test_forced_drop_rule(queue, rule):
    assert forced_drop_rule(queue) == rule


def test_run_summary_names_the_forced_rule_of_its_discipline(tmp_path):
    toml = tmp_path / "g.toml"
    toml.write_text(aqmsim.Scenario.from_dict(scenario(dict(BASE, kind="gentle"), duration=1.0)).to_toml())
    out = CliRunner().invoke(app, ["run", str(toml)]).output
    assert "forced (avg ≥ 2·max_th, gentle)" in out


def test_list_says_where_defaults_come_from_and_the_ared_caveat():
    r = CliRunner().invoke(app, ["list", "red"])
    assert r.exit_code == 0
    text = " ".join(r.output.split())
    assert "Floyd & Jacobson 1993" in text and 'defaults = "ns2"' in text
    text = " ".join(CliRunner().invoke(app, ["list", "ared"]).output.split())
    assert "Gentle RED at that max_p until the first adaptation" in text
