"""``make bench``'s command line (``python -m bench`` with ``benchmarks/`` on the path)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

from .config import DEFAULT_SCENARIOS, DOC, REPO, BenchConfig, log
from .measure import run_bench
from .report import render, write_docs

__all__ = ["main"]


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="make bench BENCH_ARGS=...",
        description="aqmsim's speed benchmark: aqmsim beside ns-2 (and ns-3) on benchmarks/scenarios/*.toml.")
    ap.add_argument("scenarios", nargs="*", help=f"scenario names or files (default: {', '.join(DEFAULT_SCENARIOS)})")
    ap.add_argument("--quick", action="store_true",
                    help="development mode: 10 simulated s, 3 rounds, ns-3 budget 60 s, a smaller sweep")
    ap.add_argument("--reps", type=int, help="rounds per scenario (default 5; --quick 3)")
    ap.add_argument("--duration", type=float, help="simulated seconds instead of each scenario's own")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-ns2", action="store_true", help="leave ns-2 out")
    ap.add_argument("--no-ns3", action="store_true", help="leave ns-3 out")
    ap.add_argument("--ns3-budget", type=float, help="ns-3 wall seconds per scenario before it stops repeating (default 600)")
    ap.add_argument("--timeout", type=float, help="limit for any single run, s (default 1800)")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory-against-time check")
    ap.add_argument("--no-sweep", action="store_true", help="skip the sweep throughput")
    ap.add_argument("--no-user", action="store_true",
                    help="skip what a user waits for (import aqmsim, aqmsim --help, aqmsim run as a whole process)")
    ap.add_argument("--no-suite", action="store_true",
                    help="skip the whole RFC 7928 suite (aqmsim suite rfc7928, ~5 min; --quick: one seed)")
    ap.add_argument("--no-plugin", action="store_true",
                    help="skip a Python queue discipline's cost (per decision, and its 60 s run as a whole process)")
    ap.add_argument("--workdir", type=Path, help="keep the scripts and outputs here (default: a temporary directory)")
    ap.add_argument("--json", type=Path, help="also write the raw results as JSON")
    ap.add_argument("--write-docs", action="store_true", help=f"rewrite the numbers section of {DOC.relative_to(REPO)}")
    ap.add_argument("--from-json", type=Path, metavar="JSON",
                    help="run nothing: render the results a previous --json wrote")
    a = ap.parse_args(argv)

    if a.from_json:
        text = render(json.loads(a.from_json.read_text()))
        print(text)
        if a.write_docs:
            write_docs(text)
            log(f"wrote {DOC}")
        return 0

    cfg = BenchConfig.quick_defaults() if a.quick else BenchConfig()
    if a.scenarios:
        cfg.scenarios = a.scenarios
    if a.reps is not None:
        if a.reps < 1:
            ap.error("--reps must be >= 1")
        cfg.reps = a.reps
    if a.duration is not None:
        cfg.duration = a.duration
    cfg.seed = a.seed
    cfg.ns2 = not a.no_ns2
    cfg.ns3 = not a.no_ns3
    if a.ns3_budget is not None:
        cfg.ns3_budget = a.ns3_budget
    if a.timeout is not None:
        cfg.timeout = a.timeout
    cfg.memory_check = not a.no_memory
    cfg.sweep = not a.no_sweep
    cfg.user = not a.no_user
    cfg.suite = not a.no_suite
    cfg.plugin = not a.no_plugin
    cfg.argv = list(sys.argv[1:] if argv is None else argv)
    cfg.workdir = a.workdir

    res = run_bench(cfg)
    text = render(res)
    print(text)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1, default=str))
    if a.write_docs:
        write_docs(text)
        log(f"wrote {DOC}")
    return 0
