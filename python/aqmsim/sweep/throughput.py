"""Sweep throughput on the local pool (``python -m aqmsim.sweep``; ``make bench``)."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..store import Store
from .driver import run_sweep
from .spec import Sweep

__all__ = ["bench_throughput", "BENCH_BASE"]


#: The benchmark's base scenario: 100 Reno flows over a 100 Mb/s RED bottleneck for 20
#: simulated seconds (~200 000 packets at the bottleneck, ~0.1-0.2 s of simulation): runs
#: of the size a real sweep has, so that the measurement is one of parallel simulation,
#: not of the driver's per-run costs.
BENCH_BASE: Dict[str, Any] = {
    "name": "bench-sweep",
    "duration": 20.0,
    "dumbbell": {
        "bottleneck": {
            "rate": "100Mb", "delay": "20ms",
            "queue": {"kind": "red", "limit": 400, "min_th": 50, "max_th": 150,
                      "max_p": 0.1, "w_q": 0.002, "defaults": "ns2"},
        },
        "groups": [{
            "name": "reno", "count": 100, "app": "ftp", "start": {"uniform": [0.0, 2.0]},
            "access": {"rate": "1Gb", "delay": {"uniform": ["1ms", "20ms"]}},
            "egress": {"rate": "1Gb", "delay": "1ms"},
        }],
    },
    "monitor": {"queues": ["R1->R2"]},
}


def bench_throughput(workers_list: Sequence[Optional[int]] = (1, 2, None),
                     runs: int = 96) -> List[Dict[str, Any]]:
    """Sweep throughput on the local pool: a fixed sweep (:data:`BENCH_BASE`: 100 Reno flows
    over a 100 Mb/s RED bottleneck, 20 simulated seconds; max_p × seeds, summaries only)
    into a fresh temporary store for each worker count (None: one per CPU). Returns one
    dict per count: ``workers``, ``runs``, ``seconds`` (with the workers up), ``startup_s``
    (spawning and stopping them), ``runs_per_s``, ``run_s`` (mean simulation time of a run, in its
    worker), ``speedup`` (runs/s over those of the first count, scaled to one worker when
    the first is not 1) and ``efficiency`` (speedup / workers: 1.0 is linear scaling)."""
    max_ps = [0.02, 0.05, 0.1, 0.2]
    seeds = max(1, math.ceil(runs / len(max_ps)))
    sweep = Sweep.from_dict({
        "name": "bench", "base": BENCH_BASE, "seeds": seeds,
        "vary": {"dumbbell.bottleneck.queue.max_p": max_ps},
    })
    out: List[Dict[str, Any]] = []
    for w in workers_list:
        n = w or os.cpu_count() or 1
        with tempfile.TemporaryDirectory(prefix="aqmsim-bench-") as tmp:
            res = run_sweep(sweep, Path(tmp) / "store", workers=n)
            with Store(Path(tmp) / "store", read_only=True) as st:
                walls = [w_ for (w_,) in st.con.execute(
                    "SELECT wall_s FROM runs WHERE wall_s IS NOT NULL").fetchall()]
        if res.failed:
            raise RuntimeError(f"bench sweep: {res.failed} runs failed: "
                               f"{res.failures[0].error}")
        rate = res.ran / res.run_seconds if res.run_seconds else math.nan
        out.append({"workers": n, "runs": res.ran, "seconds": res.run_seconds,
                    "startup_s": res.seconds - res.run_seconds, "runs_per_s": rate,
                    "run_s": sum(walls) / len(walls) if walls else math.nan})
    if out:
        base = out[0]["runs_per_s"] / out[0]["workers"]  # per worker, at the first count
        for row in out:
            row["speedup"] = row["runs_per_s"] / base if base else math.nan
            row["efficiency"] = row["speedup"] / row["workers"]
    return out
