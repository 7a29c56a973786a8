"""Issue 23: ``summary["mean_e2e_delay_s"]`` is the mean end-to-end delay over every flow's
delivered packets, as docs/metrics.md says: UDP sources (CBR, on/off) count as TCP ones do
(it used to count TCP packets only, reporting 0.0 for a UDP-only run)."""

from __future__ import annotations

import pytest

from aqmsim import Scenario


def dumbbell(groups: list) -> dict:
    return {
        "duration": 10,
        "dumbbell": {
            "bottleneck": {"rate": "2Mb", "delay": "40ms", "queue": {"kind": "red", "limit": 60}},
            "groups": groups,
        },
    }


ONOFF = {"name": "video", "count": 2, "app": "onoff", "access": {"rate": "100Mb", "delay": "5ms"},
         "onoff": {"rate": "1.5Mb", "on": {"exponential": "0.5s"}, "off": {"exponential": "0.5s"}}}
CBR = {"name": "voice", "app": "cbr", "access": {"rate": "100Mb", "delay": "5ms"},
       "cbr": {"rate": "300kb", "packet_size": 200}}
FTP = {"name": "bulk", "count": 2, "access": {"rate": "100Mb", "delay": "2ms"}}


def weighted_mean(res) -> float:
    """Mean over every delivered packet of every flow, from the flows table."""
    f = res.flows
    return float((f["mean_delay_s"] * f["received"]).sum() / f["received"].sum())


def test_udp_only_run_reports_its_delay(core) -> None:
    res = Scenario.from_dict(dumbbell([ONOFF])).run(seed=3)
    s = res.summary
    assert (res.flows["received"] > 0).all()
    # one-way propagation alone is 45 ms; the packets waited at the bottleneck on top
    assert s["mean_e2e_delay_s"] > 0.045
    assert s["mean_e2e_delay_s"] == pytest.approx(weighted_mean(res), rel=1e-12)


@pytest.mark.parametrize("seed", [1, 2])
def test_mixed_run_averages_over_every_flow(core, seed) -> None:
    res = Scenario.from_dict(dumbbell([FTP, ONOFF, CBR])).run(seed=seed)
    f = res.flows
    assert set(f["app"]) == {"ftp", "onoff", "cbr"}
    assert res.summary["mean_e2e_delay_s"] == pytest.approx(weighted_mean(res), rel=1e-12)
    tcp = f[f["app"] == "ftp"]
    tcp_only = float((tcp["mean_delay_s"] * tcp["received"]).sum() / tcp["received"].sum())
    assert res.summary["mean_e2e_delay_s"] != pytest.approx(tcp_only, rel=1e-9)


def test_tcp_only_run_is_unchanged(core) -> None:
    """No UDP flow: the same number as before (the papers' reproductions use it so)."""
    res = Scenario.from_dict(dumbbell([FTP])).run(seed=1)
    assert res.summary["mean_e2e_delay_s"] == pytest.approx(weighted_mean(res), rel=1e-12)
