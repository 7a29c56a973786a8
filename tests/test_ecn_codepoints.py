"""Issue 25 point 1 (and point 8's rule for a classic AQM): the four ECN codepoints end to end.

A linux-stack sender chooses ECT(0) (`ecn = true`) or ECT(1) (`ect = "ect1"`); every classic
marking discipline treats ECT(1) as ECN-capable exactly as ECT(0) (RFC 3168 §5: routers treat
ECT(0) and ECT(1) as equivalent; RFC 8311 and RFC 9331 §5.4 keep that for a classic AQM, see
docs/tcp/accecn.md); the summary counts arrivals
and marks by codepoint; pcap writes the IP header's two ECN bits as Wireshark reads them."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app
from test_cli import _one_line_error
from test_stack_linux import one_flow

runner = CliRunner()

# the marking configuration of every classic discipline that marks
MARKING = {
    "red": {"kind": "red", "ecn": True, "limit": 60},
    "ared": {"kind": "ared", "ecn": True, "limit": 60},
    "codel": {"kind": "codel", "ecn": True, "limit": 60},
    "pie": {"kind": "pie", "ecn": True, "limit": 60},
    "fq_codel": {"kind": "fq_codel", "ecn": True, "limit": 60},
    "ecn_threshold": {"kind": "ecn_threshold", "threshold": 8, "limit": 60},
}


def _ops(ect: int, seed: int = 3, n: int = 3000) -> str:
    """A random overload: arrivals faster than dequeues; `ect` on every other packet."""
    rng = random.Random(seed)
    lines, t = [], 0
    for i in range(n):
        t += rng.randrange(200_000, 900_000)
        if rng.random() < 0.6:
            lines.append(f"e {t} {rng.randrange(4)} {rng.choice([1040, 1500])} {ect if i % 2 else 0}")
        else:
            lines.append(f"d {t}")
    return "\n".join(lines)


@pytest.mark.parametrize("kind", list(MARKING))
def test_classic_aqm_treats_ect1_as_ect0(core, kind):
    import json

    q = json.dumps(MARKING[kind])
    ect0 = core.replay_queue(q, _ops(1), 7)
    ect1 = core.replay_queue(q, _ops(2), 7)
    assert " m\n" in ect0 or "\nmark " in ect0, f"{kind}: the overload marks nothing"
    assert ect1 == ect0, f"{kind}: ECT(1) is not handled as ECT(0)"


def test_replay_refuses_an_unknown_ect_value(core):
    with pytest.raises(Exception, match=r"ect must be 0 \(Not-ECT\), 1 \(ECT\(0\)\), 2 \(ECT\(1\)\) or 3 \(CE\)"):
        core.replay_queue('{"kind": "codel"}', "e 0 0 1000 4", 1)


CODEL = {"dumbbell.bottleneck.queue": {"kind": "codel", "ecn": True}}


def test_an_ect1_flow_runs_as_an_ect0_one_and_is_counted_as_ect1(core):
    a = one_flow(**{"tcp.ecn": True, **CODEL}).run().summary
    b = one_flow(**{"tcp.ecn": True, "tcp.ect": "ect1", **CODEL}).run().summary
    assert a["marks"] >= 3 and a["bottleneck_drops"] == 0
    assert a["arrivals_ect1"] == 0 == a["marks_departed_ect1"]
    assert b["arrivals_ect0"] == 0 == b["marks_departed_ect0"]
    assert (b["arrivals_ect1"], b["marks_departed_ect1"]) == (a["arrivals_ect0"], a["marks_departed_ect0"])
    # data only: the ACKs (Not-ECT) are in bottleneck_arrivals of the reverse queue, not here
    assert a["arrivals_ect0"] == a["bottleneck_arrivals"]
    assert a["marks_departed_ect0"] == a["marks_departed"]
    swap = {"arrivals_ect0", "arrivals_ect1", "marks_departed_ect0", "marks_departed_ect1", "wall_seconds"}
    assert {k: v for k, v in a.items() if k not in swap} == {k: v for k, v in b.items() if k not in swap}


def test_a_flow_without_ecn_counts_no_ect(core):
    s = one_flow(**{"duration": 2, "dumbbell.groups.0.stop": 2}).run().summary
    assert s["arrivals_ect0"] == s["arrivals_ect1"] == 0 and s["bottleneck_arrivals"] > 0


@pytest.mark.parametrize("over, field, words", [
    ({"tcp.ecn": True, "tcp.ect": "ect2"}, "tcp.ect", "expected one of: ect0, ect1"),
    ({"tcp.ect": "ect1"}, "tcp.ect", "needs ecn = true"),
    ({"tcp.stack": "ns2", "tcp.ecn": True, "tcp.ect": "ect1"}, "tcp.ect", 'only used with stack = "linux"'),
])
def test_bad_ect_is_one_line_naming_the_field(core, tmp_path: Path, over, field, words):
    toml = tmp_path / "s.toml"
    toml.write_text(one_flow().to_toml())
    args = ["run", str(toml)]
    for k, v in over.items():
        args += ["--set", f"{k}={v!r}".replace("'", '"') if isinstance(v, str) else f"{k}={str(v).lower()}"]
    text = _one_line_error(runner.invoke(app, args))
    assert field in text and words in text, text


def test_pcap_ecn_bits_read_by_tshark(core, tmp_path: Path):
    """ECT(0) 10, ECT(1) 01, CE 11 (RFC 3168 §5): tshark's ip.dsfield.ecn reads 2, 1, 3."""
    tshark = shutil.which("tshark")
    assert tshark, "tshark is not installed: `make tshark` installs it (make test does)"
    seen = {}
    for ect in ("ect0", "ect1"):
        out = tmp_path / ect
        sc = one_flow(**{"tcp.ecn": True, "tcp.ect": ect, "duration": 3, "dumbbell.groups.0.stop": 3,
                         "dumbbell.bottleneck.queue": {"kind": "ecn_threshold", "threshold": 5, "limit": 100},
                         "trace": {"links": ["R1->R2"], "format": "pcap", "path": str(out)}})
        s = sc.run().summary
        assert s["marks"] > 0
        p = subprocess.run([tshark, "-r", str(out / "R1-R2.pcap"), "-T", "fields", "-e", "ip.dsfield.ecn"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        vals = [int(v) for v in p.stdout.split()]
        seen[ect] = {v: vals.count(v) for v in set(vals)}
        # marked packets leave the bottleneck as CE (3): as many as the summary's departures
        assert seen[ect].get(3, 0) == s["marks_departed"]
    # the ACKs coming back (Not-ECT, 0) are in the link's capture too
    assert set(seen["ect0"]) == {0, 2, 3} and set(seen["ect1"]) == {0, 1, 3}
    assert seen["ect0"][2] == seen["ect1"][1] and seen["ect0"][0] == seen["ect1"][0]
