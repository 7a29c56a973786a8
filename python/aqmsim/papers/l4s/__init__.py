"""Paper 005 (L4S): RFC 9332's coupling claim, *DualQ Coupled AQMs for Low Latency, Low
Loss, and Scalable Throughput (L4S)* (De Schepper, Briscoe, White, 2023), §2.1.

The RFC derives its coupling p_C = (p_CL / k)² from Reno's and DCTCP's response functions
and states the rate balance it gives: a Scalable and a Classic flow of equal RTT run at
r_L / r_C = 2 / (1.22 k), 0.82 with the recommended k = 2. That analytic claim is the
"published" number (not a measurement: no figure of the PI2/DualPI2 papers was read as
numbers). We run one Reno and one DCTCP (ECT(1)) flow through Linux's DualPI2 at 40 Mb/s,
sweep the base RTT (5–200 ms) and k (1, 2, 4), and check: the balance at equal RTT, its
1/k scaling, the RFC's response functions at each flow's own RTT, and the drafts' "sub-
millisecond average queuing delay and zero congestion loss" for the L4S flow.
TCP Prague is the second reading of the Scalable sender (``readings.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from ...scenario import Scenario
from ..base import Experiment, Paper, Report, Runs
from . import measures as M
from . import readings as _readings
from .report import claims, figures, tables

__all__ = ["L4SPaper", "PAPER"]


class L4SPaper(Paper):
    name = "l4s"
    number = "005"
    title = ("DualQ Coupled AQMs for Low Latency, Low Loss, and Scalable Throughput (L4S): "
             "the coupling's rate balance (§2.1)")
    citation = ("K. De Schepper, B. Briscoe (Ed.), G. White, RFC 9332, IETF, January 2023, "
                "doi:10.17487/RFC9332, §2.1 (analytic claim); the L4S-flow delay claim from "
                "draft-ietf-tsvwg-aqm-dualq-coupled-10's abstract (2019)")
    # a 60 s run at 40 Mb/s takes ~0.1-0.3 s: 8 experiments x 10 seeds in well under a minute
    default_seeds = 10
    reading_seeds = 5

    def readings(self):
        return _readings.choices()

    def _experiment(self, rtt_ms: int, k: int) -> Experiment:
        d = self.scenario("reno_dctcp.toml").to_dict()
        d["name"] = f"l4s-rtt{rtt_ms}-k{k}"
        d["dumbbell"]["bottleneck"]["delay"] = f"{rtt_ms / 2 - 2:g}ms"
        d["dumbbell"]["bottleneck"]["queue"]["coupling"] = k
        return Experiment(key=f"rtt{rtt_ms}-k{k}", scenario=Scenario.from_dict(d),
                          labels={"rtt_ms": rtt_ms, "k": k},
                          keep=("flows",), keep_first=("queue",))

    def experiments(self) -> List[Experiment]:
        out = [self._experiment(r, 2) for r in M.RTTS_MS]
        out += [self._experiment(M.K_RTT_MS, k) for k in M.K_SWEEP if k != 2]
        return out

    def analyse(self, runs: Runs, out: Path) -> Report:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        seeds = sorted({s for (_, s) in runs.records})
        figs = figures(runs, out) if self.figures else []
        return Report(self, tables(runs, self.published()), figs, claims(runs),
                      self.assumptions(), seeds)


PAPER = L4SPaper()
