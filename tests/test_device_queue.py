"""queue.device_queue: an N-packet device FIFO under a link's discipline (ns-3's TxQueue
under its queue disc). The engine's hand-computed sequence is the Rust test
sim::device_queue::tests; here: the field's range and error, the resolved form, 0 leaving a
run bit-identical, and what the monitors count."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app

runner = CliRunner()

BASE = {
    "name": "devq", "duration": "5s", "seed": 3,
    "tcp": {"stack": "linux", "variant": "dctcp", "ecn": True},
    "dumbbell": {"bottleneck": {"rate": "10Mb", "delay": "10ms",
                                "queue": {"kind": "codel", "ecn": True, "ce_threshold": "1ms"}},
                 "groups": [{"count": 4, "start": {"uniform": [0, 0.5]},
                             "access": {"rate": "100Mb", "delay": "2ms"}}]},
    "monitor": {"delays": True},
}


def _with(dq=None, base=BASE):
    d = {**base, "dumbbell": {**base["dumbbell"], "bottleneck": {**base["dumbbell"]["bottleneck"]}}}
    q = dict(d["dumbbell"]["bottleneck"]["queue"])
    if dq is not None:
        q["device_queue"] = dq
    d["dumbbell"]["bottleneck"]["queue"] = q
    return d


@pytest.mark.parametrize("bad", [-1, 1001, 1.5, "1p", True])
def test_bad_device_queue_is_one_line_naming_the_field(core, tmp_path, bad):
    path = tmp_path / "s.toml"
    path.write_text(Scenario.from_dict(_with(0)).to_toml().replace("device_queue = 0", f"device_queue = {bad!r}".replace("'", '"').replace("True", "true")))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert "dumbbell.bottleneck.queue.device_queue" in text and "from 0 to 1000" in text, text


def test_device_queue_0_is_the_run_without_it(core):
    a = Scenario.from_dict(_with(None)).run().summary
    b = Scenario.from_dict(_with(0)).run().summary
    assert {k: v for k, v in a.items() if k != "wall_seconds"} == {k: v for k, v in b.items() if k != "wall_seconds"}
    resolved = Scenario.from_dict(_with(0)).validate()
    assert "device_queue" not in resolved["links"][0]["queue"]  # 0: the resolved form as before


def test_resolved_form_keeps_it_and_round_trips(core):
    resolved = Scenario.from_dict(_with(1)).validate()
    bn = {(ln["from"], ln["to"]): ln for ln in resolved["links"]}[("R1", "R2")]
    assert bn["queue"]["device_queue"] == 1 and "device_queue" not in bn["reverse_queue"]
    back = Scenario.from_toml_string(Scenario.from_dict(resolved).to_toml())
    assert back.validate() == resolved


def test_the_device_queue_shortens_the_discs_sojourn_not_the_wire(core):
    """DCTCP under a 1 ms CE threshold: with one packet of device queue CoDel marks only
    packets that waited over 1 ms *in the disc*, so the queue (disc + device, to the
    transmission start, as the delay monitors count it) runs about one transmission
    (0.83 ms for 1040 bytes at 10 Mb/s) longer, and fewer packets are marked per packet sent."""
    r0 = Scenario.from_dict(_with(0)).run().summary
    r1 = Scenario.from_dict(_with(1)).run().summary
    d0, d1 = r0["mean_queueing_delay_s"], r1["mean_queueing_delay_s"]
    assert 0.5e-3 < d1 - d0 < 1.2e-3, (d0, d1)
    assert r1["qdelay_p99_s"] > r0["qdelay_p99_s"]
    assert r1["utilisation"] >= r0["utilisation"]


def test_the_ns3_anchor_maps_the_device_queue():
    """ns-3's dumbbell has a 1-packet device queue under its disc: without aqmsim's
    device_queue the anchor gives ns-3's disc one packet fewer than aqmsim's limit; with
    device_queue = 1 the whole limit; any other device queue is not anchorable."""
    from aqmsim.suite.ns3_anchor import _NotAnchorable, _queue_args

    q = {"kind": "codel", "limit": 1000, "target": 0.005, "interval": 0.1, "min_bytes": 1500}
    assert _queue_args(q)["limit"] == 999
    assert _queue_args({**q, "device_queue": 1})["limit"] == 1000
    with pytest.raises(_NotAnchorable, match="device queue"):
        _queue_args({**q, "device_queue": 2})
