"""Issue 13 (part 2): pcap traces that Wireshark and tshark decode. A lossy run traced on a
sender's access link (both directions: data out, ACKs back) reads with no malformed packet,
and tshark's count of TCP retransmissions equals aqmsim's retransmission counter."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app
from test_ns2_exact import scenario as exact_scenario

runner = CliRunner()


def _tshark() -> str:
    path = shutil.which("tshark")
    assert path, "tshark is not installed: `make tshark` installs it (make test does)"
    return path


def _fields(tshark: str, pcap: Path, filt: str, *fields: str) -> list:
    args = [tshark, "-r", str(pcap), "-Y", filt, "-T", "fields"]
    for f in fields:
        args += ["-e", f]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return [line.split("\t") for line in p.stdout.splitlines() if line]


@pytest.mark.parametrize("variant", ["reno", "sack"])
def test_tshark_reads_the_capture_and_counts_our_retransmissions(core, tmp_path: Path, variant):
    tshark = _tshark()
    d = exact_scenario(variant, 4)
    d["duration"] = 20
    d["trace"] = {"links": ["S0->R1", "S1->R1"], "format": "pcap", "path": str(tmp_path)}
    r = Scenario.from_dict(d).run(seed=1)
    for flow, name in ((0, "S0-R1.pcap"), (1, "S1-R1.pcap")):
        pcap = tmp_path / name
        assert pcap.stat().st_size > 10_000
        bad = _fields(tshark, pcap, "_ws.malformed || _ws.expert.severity >= error || !tcp",
                      "frame.number")
        assert not bad, f"{name}: {len(bad)} malformed or non-TCP frames, first {bad[0]}"
        rtx = _fields(tshark, pcap, "tcp.analysis.retransmission", "frame.number")
        ours = int(r.flows["retransmitted"][flow])
        assert ours > 0 and len(rtx) == ours, f"{name}: tshark {len(rtx)}, aqmsim {ours}"
        acks = _fields(tshark, pcap, "tcp.flags.ack == 1 && tcp.len == 0", "frame.number")
        assert acks, "the ACKs coming back are in the capture"


def test_cli_trace_pcap(core, tmp_path: Path):
    _tshark()
    toml = tmp_path / "s.toml"
    d = exact_scenario("reno", 2)
    d["duration"] = 3
    toml.write_text(Scenario.from_dict(d).to_toml())
    res = runner.invoke(app, ["run", str(toml), "--trace", "pcap", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "pcap" / "R1-R2.pcap").stat().st_size > 1000
    res = runner.invoke(app, ["run", str(toml), "--trace", "ns2", "--out", str(tmp_path / "n")])
    assert res.exit_code == 0 and (tmp_path / "n" / "trace.tr").stat().st_size > 1000
    res = runner.invoke(app, ["run", str(toml), "--trace", "pcap"])
    assert res.exit_code == 2 and "--trace needs --out" in res.output
