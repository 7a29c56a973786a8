"""Per-ACK cost of a Python congestion control (docs/plugins/cc.md, "Cost"): 20 flows for
60 s through RED on the linux stack, the built-in NewReno against the Python one
(aqmsim.plugin.examples.newreno), whole-run wall time, best of 3.

    PYTHONPATH=python python benchmarks/plugin_cc.py
"""

from __future__ import annotations

import time

from aqmsim import Scenario
from aqmsim.plugin.examples.newreno import NewReno

TEXT = """
name = "bench-cc-plugin"
duration = "60s"
seed = 1
[tcp]
stack = "linux"
[dumbbell.bottleneck]
rate = "{rate}"
delay = "20ms"
queue = {{ kind = "red", limit = 100, min_th = 20, max_th = 60 }}
[[dumbbell.groups]]
name = "g"
count = 20
app = "ftp"
start = {{ uniform = [0.0, 1.0] }}
stop = "60s"
access = {{ rate = "1Gb", delay = "1ms" }}
"""


class Counting(NewReno):
    calls = 0

    def on_ack(self, tcp, acked):
        Counting.calls += 1
        super().on_ack(tcp, acked)


def main() -> None:
    for rate in ["10Mb", "100Mb"]:
        s = Scenario.from_toml_string(TEXT.format(rate=rate))
        py = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": "aqmsim.plugin.examples.newreno:NewReno"})
        built, plug = [], []
        for _ in range(3):
            t = time.perf_counter()
            a = s.run()
            built.append(time.perf_counter() - t)
            t = time.perf_counter()
            py.run()
            plug.append(time.perf_counter() - t)
        Counting.calls = 0
        s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": f"{__name__}:Counting"}).run()
        b, p, n = min(built), min(plug), Counting.calls
        sent = a.summary["packets_sent"]
        print(f"{rate}: built-in {b:.3f} s, Python {p:.3f} s, on_ack calls {n}, "
              f"overhead {(p - b) / n * 1e6:.2f} us per on_ack; data packets/s {sent / b:.0f} vs {sent / p:.0f}")


if __name__ == "__main__":
    main()
