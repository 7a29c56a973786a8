"""CAKE (`kind = "cake"`) in scenarios: Linux's defaults resolved, every field ranged with
a one-line error naming it, `aqmsim list` shows it, and a network run shows what CAKE is
for: host isolation (host A with 1 flow and host B with 8 flows share the bottleneck
per host under triple-isolate, per flow under flows) and the shaper (goodput held to
`bandwidth` on a faster link). The scheduler's rules by hand: cake_tests.rs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario, ScenarioError
from aqmsim.cli import app
from test_cli import _one_line_error

runner = CliRunner()

NET = """
name = "cake-hosts"
duration = "{duration}"
seed = 4
nodes = ["hA", "hB", "r1", "r2", "dA", "dB"]
[tcp]
variant = "newreno"
window = 300
packet_size = 1000
[[links]]
from = "hA"
to = "r1"
rate = "100Mb"
delay = "2ms"
[[links]]
from = "hB"
to = "r1"
rate = "100Mb"
delay = "2ms"
[[links]]
from = "r1"
to = "r2"
rate = "10Mb"
delay = "10ms"
queue = {{ kind = "cake"{fields} }}
[[links]]
from = "r2"
to = "dA"
rate = "100Mb"
delay = "2ms"
[[links]]
from = "r2"
to = "dB"
rate = "100Mb"
delay = "2ms"
[[flows]]
src = "hA"
dst = "dA"
count = 1
app = "ftp"
start = 0.0
[[flows]]
src = "hB"
dst = "dB"
count = 8
app = "ftp"
start = {{ uniform = [0.0, 0.5] }}
"""


def net(fields: str = 'isolation = "triple-isolate"', duration: str = "20s") -> Scenario:
    return Scenario.from_toml_string(NET.format(fields=", " + fields if fields else "", duration=duration),
                                     path="cake.toml")


def cake_queue(resolved):
    return next(l["queue"] for l in resolved["links"] if l["queue"]["kind"] == "cake")


def test_defaults_are_linuxs():
    q = cake_queue(net("").validate())
    assert q == {"kind": "cake", "bandwidth": "unlimited", "rtt": 0.1, "target": 0.005,
                 "isolation": "triple-isolate", "ack_filter": False, "memlimit": "auto",
                 "overhead": "none", "mpu": 0, "mtu": 1500, "perturbation": 0}


BAD = [
    ('bandwidth = "100b"', "queue.bandwidth: must be a rate ≥ 512 b/s"),
    ('bandwidth = "fast"', "queue.bandwidth"),
    ('rtt = "0ms"', "queue.rtt: must be in (0, 4.294967295] s"),
    ('target = "9s"', "queue.target: must be in (0, 4.294967295] s"),
    ('isolation = "triple"', 'queue.isolation: unknown mode "triple" (expected one of: flowblind, srchost'),
    ('ack_filter = "yes"', 'queue.ack_filter: must be false, true or "aggressive"'),
    ("memlimit = 0", 'queue.memlimit: must be bytes in [1, 4294967295] or "auto"'),
    ("overhead = 1000", 'queue.overhead: must be bytes in [-64, 256] or "none"'),
    ("mpu = 300", "queue.mpu: must be in [0, 256] bytes"),
    ("mtu = 20", "queue.mtu: must be in [68, 65535] bytes"),
    ("limit = 5", "queue.limit: not a parameter of cake"),
]


@pytest.mark.parametrize("fields, needle", BAD, ids=[b[0].split()[0] for b in BAD])
def test_bad_fields_are_named(fields, needle):
    with pytest.raises(ScenarioError) as info:
        net(fields).validate()
    assert needle in str(info.value), str(info.value)


def test_cli_refuses_in_one_line(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(NET.format(fields=', isolation = "x"', duration="1s"))
    text = _one_line_error(runner.invoke(app, ["run", str(p)]))
    assert "isolation" in text and "triple-isolate" in text


def test_list_shows_cake():
    out = runner.invoke(app, ["list", "cake"])
    assert out.exit_code == 0, out.output
    for field in ("bandwidth", "isolation", "ack_filter", "memlimit", "overhead", "rtt"):
        assert field in out.output


def host_goodputs(fields: str):
    r = net(fields).run()
    g = r.flows["goodput_bps"].tolist()
    return g[0], sum(g[1:]), r


def test_host_isolation_triple_isolate_vs_flows():
    # TCP: per flow under flows (A's one flow of nine gets 1/9); under triple-isolate A's
    # host gets its own share, which one NewReno flow fills to about 0.4 (its sawtooth
    # leaves some of it to B: DRR is work-conserving)
    a, b, _ = host_goodputs('isolation = "triple-isolate"')
    a2, b2, _ = host_goodputs('isolation = "flows"')
    assert 0.09 < a2 / (a2 + b2) < 0.13, (a2, b2)
    assert 0.35 < a / (a + b) < 0.55, (a, b)
    assert a + b > 8.5e6 and a2 + b2 > 8.5e6      # the 10 Mb/s bottleneck stays full


CBR = """
[[flows]]
src = "hA"
dst = "dA"
count = 1
app = "cbr"
start = 0.0
cbr = {{ rate = "8Mb", packet_size = 1000 }}
[[flows]]
src = "hB"
dst = "dB"
count = 8
app = "cbr"
start = 0.0
cbr = {{ rate = "2Mb", packet_size = 1000 }}
"""


def test_host_isolation_with_unresponsive_hosts():
    # both hosts overload the bottleneck (8 Mb/s and 8 x 2 Mb/s into 10 Mb/s): triple
    # isolation splits it per host, whatever the number of flows
    text = NET.split("[[flows]]")[0] + CBR
    r = Scenario.from_toml_string(text.format(fields=', isolation = "triple-isolate"', duration="10s")).run()
    t = r.flows["throughput_bps"].tolist()
    assert 0.47 < t[0] / sum(t) < 0.53, t
    assert max(t[1:]) / min(t[1:]) < 1.05, t   # B's flows share B's half equally


def test_shaper_holds_goodput_to_the_bandwidth():
    a, b, r = host_goodputs('bandwidth = "5Mb"')
    total = a + b
    # 5 Mb/s of 1040-byte packets carry 1000 bytes of payload each
    assert 4.3e6 < total < 5e6 * 1000 / 1040 * 1.01, total
    assert 0.8 < a / b < 1.25, (a, b)
