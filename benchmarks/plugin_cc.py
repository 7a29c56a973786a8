"""Per-ACK cost of a Python congestion control (docs/plugins/cc.md, "Cost"): 20 flows for
60 s through RED on the linux stack (and on the ns-2 stack), the built-in NewReno against
the Python one (aqmsim.plugin.examples.newreno), whole-run wall time, best of 3.

    PYTHONPATH=python python benchmarks/plugin_cc.py
"""

from __future__ import annotations

import time

from aqmsim import Scenario
from aqmsim.plugin.examples.newreno import NewReno, NewRenoNs2

TEXT = """
name = "bench-cc-plugin"
duration = "60s"
seed = 1
[tcp]
stack = "{stack}"
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


class CountingNs2(NewRenoNs2):
    def on_ack(self, tcp, acked):
        Counting.calls += 1
        super().on_ack(tcp, acked)


def main() -> None:
    for stack, rate in [("linux", "10Mb"), ("linux", "100Mb"), ("ns2", "10Mb"), ("ns2", "100Mb")]:
        s = Scenario.from_toml_string(TEXT.format(rate=rate, stack=stack))
        cls = "NewReno" if stack == "linux" else "NewRenoNs2"
        s = s.with_overrides(**{"tcp.variant": "newreno"})
        py = s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": f"aqmsim.plugin.examples.newreno:{cls}"})
        built, plug = [], []
        for _ in range(3):
            t = time.perf_counter()
            a = s.run()
            built.append(time.perf_counter() - t)
            t = time.perf_counter()
            py.run()
            plug.append(time.perf_counter() - t)
        Counting.calls = 0
        counting = "Counting" if stack == "linux" else "CountingNs2"
        s.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": f"{__name__}:{counting}"}).run()
        b, p, n = min(built), min(plug), Counting.calls
        sent = a.summary["packets_sent"]
        print(f"{stack} {rate}: built-in {b:.3f} s, Python {p:.3f} s, on_ack calls {n}, "
              f"overhead {(p - b) / n * 1e6:.2f} us per on_ack; data packets/s {sent / b:.0f} vs {sent / p:.0f}")


if __name__ == "__main__":
    main()
