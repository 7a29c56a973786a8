"""The benchmark's settings, paths and scenarios, shared by its modules."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SCENARIO_DIR = REPO / "benchmarks" / "scenarios"
NS3_BUILD = REPO / "benchmarks" / "ns3" / "build.sh"
DOC = REPO / "docs" / "performance.md"
DOC_BEGIN = "<!-- bench:begin (written by `make bench BENCH_ARGS=--write-docs`; edits here are overwritten) -->"
DOC_END = "<!-- bench:end -->"

#: The canonical scenarios, in table order (files in benchmarks/scenarios/).
DEFAULT_SCENARIOS = ("red-100M-n10", "red-100M-n100", "red-100M-n1000", "red-1G-n100", "codel-100M-n100",
                     "fq_codel-100M-n100", "newreno-ns2-100M-n100", "newreno-linux-100M-n100",
                     "cubic-linux-100M-n100", "bbr-linux-100M-n100", "bbr-quirks-linux-100M-n100",
                     "l4s-dualpi2-100M-n100")
#: The linux TCP stack's cost (issue 24: at most 1.3x the ns2 stack's): each scenario on
#: tcp.stack = "linux" and its partner, the same dumbbell on the ns2 stack.
STACK_PAIRS = (("newreno-linux-100M-n100", "newreno-ns2-100M-n100"), ("cubic-linux-100M-n100", "codel-100M-n100"))
#: The scenario whose peak memory is compared at its duration and at ten times it.
MEMORY_SCENARIO = "red-100M-n100"

AQMSIM, NS2, NS3 = "aqmsim", "ns-2", "ns-3"


@dataclass
class BenchConfig:
    scenarios: Sequence[str] = DEFAULT_SCENARIOS
    reps: int = 5
    duration: Optional[float] = None  # None: each scenario's own
    seed: int = 1
    ns2: bool = True
    ns3: bool = True
    ns3_budget: float = 600.0  # s of ns-3 wall time per scenario before it stops repeating
    timeout: float = 1800.0  # s, any single run
    memory_check: bool = True
    memory_factor: float = 10.0
    sweep: bool = True
    sweep_runs: Optional[int] = None  # None: bench_throughput's default
    quick: bool = False
    user: bool = True  # what a user waits for: import, --help, the CLI's run (usercost.py)
    suite: bool = True  # the whole RFC 7928 suite as one process (suite.py)
    plugin: bool = True  # a Python queue discipline's cost (plugin.py)
    workdir: Optional[Path] = None
    argv: Sequence[str] = ()  # the command line, for the report's first line

    @classmethod
    def quick_defaults(cls) -> "BenchConfig":
        return cls(reps=3, duration=10.0, ns3_budget=60.0, timeout=300.0, sweep_runs=32, quick=True)


def log(msg: str) -> None:
    """Progress goes to stderr: stdout carries the table."""
    print(msg, file=sys.stderr, flush=True)


def load_scenario(name: str) -> Tuple[Path, Dict[str, Any]]:
    """A scenario by name (a file in benchmarks/scenarios/) or path, as a dict."""
    p = Path(name)
    if not p.suffix:
        p = SCENARIO_DIR / f"{name}.toml"
    if not p.exists():
        raise FileNotFoundError(f"no scenario {name!r} ({p} does not exist)")
    with open(p, "rb") as f:
        return p, tomllib.load(f)


def set_duration(sc: Dict[str, Any], seconds: float) -> Dict[str, Any]:
    """The scenario with another duration; stop times at the old end move with it."""
    from aqmsim.ns2.export import parse_time

    out = json.loads(json.dumps(sc))
    old = parse_time(out["duration"], "duration")
    out["duration"] = float(seconds)
    tables = list((out.get("dumbbell") or {}).get("groups") or []) + list(out.get("flows") or [])
    for t in tables:
        if "stop" in t and parse_time(t["stop"], "stop") >= old:
            t["stop"] = float(seconds)
    return out


def flat_error(text: str, n: int = 6) -> str:
    """The last lines of a child's error output, on one line for the table's notes."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])

