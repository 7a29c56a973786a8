"""What ``aqmsim export-ns2`` adds to :func:`aqmsim.ns2.export.to_tcl`: the draws of
``aqmsim run --seed N`` and switches for ns-2's packet traces.

* **The run's draws.** :func:`run_draws` asks the engine for the resolved scenario of the
  seed (``Scenario.validate(seed=N)``, the very values ``run --seed N`` simulates) and writes
  its start times and access/egress delays into the scenario as fixed numbers, so the
  script starts every flow when ``run --seed N`` does. (The cross-check,
  :func:`aqmsim.ns2.export.pin_draws`, pins draws of its own into the scenario both
  simulators run, and is unchanged.) What cannot be carried over: ns-2 draws RED's coin,
  TCP's ``boot_time_`` and the on/off sources' bursts and idle times from its own
  generator (MRG32k3a, substream N), aqmsim from another, so those agree in distribution
  only; the script's header says so (:data:`NOT_REPRODUCED`).
* **Trace switches.** The script opens ``$ns trace-all`` and/or ``$ns namtrace-all`` files
  given at export time (``--trace-all FILE``, ``--namtrace-all FILE``) or when it is run:
  ``ns script.tcl -trace-all FILE -namtrace-all FILE`` (a run-time file wins).
"""

from __future__ import annotations

import copy
import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .export import build_plan, render_tcl
from .tcl import _brace

#: The header lines on what the script cannot reproduce of ``run --seed N``.
NOT_REPRODUCED = (
    "# Not reproduced: ns-2 draws RED's coin, TCP's boot_time_ and the on/off sources' bursts",
    "# and idle times from its own RNG (MRG32k3a, substream <seed>), aqmsim from another one:",
    "# those agree with `aqmsim run` in distribution, not packet by packet.",
)


def _is_random(v: Any) -> bool:
    return isinstance(v, Mapping)


def _engine_time(s: float) -> float:
    """``s`` seconds as the engine simulates it: the nearest nanosecond (halves away from
    zero, crates/aqmsim-core/src/time.rs), as the double nearest that decimal."""
    return math.floor(float(s) * 1e9 + 0.5) / 1e9 if s > 0 else 0.0


def run_draws(scenario: Any, seed: Optional[int]) -> Tuple[Dict[str, Any], int]:
    """``scenario`` (a :class:`aqmsim.Scenario`) with the start times and access/egress
    delays ``run --seed seed`` draws written in, and the seed used (the scenario's own when
    ``seed`` is None), to the nanosecond as the engine keeps times. A dumbbell group with a random value is split into one group per
    host (host and flow numbers unchanged), as are explicit ``flows`` with a random start;
    nothing else changes."""
    resolved = scenario.validate(seed=seed)
    used = int(resolved["seed"])
    starts = [_engine_time(f["start"]) for f in resolved["flows"]]
    delay = {(lk["from"], lk["to"]): _engine_time(lk["delay"]) for lk in resolved["links"]}
    out = copy.deepcopy(scenario.to_dict())
    k = 0
    db = out.get("dumbbell")
    if db is not None:
        groups: List[Dict[str, Any]] = []
        for gi, g in enumerate(db["groups"]):
            n = int(g.get("count", 1))
            eg = g.get("egress")
            if not (_is_random(g.get("start")) or _is_random(g["access"].get("delay"))
                    or (eg is not None and _is_random(eg.get("delay")))):
                groups.append(g)
                k += n
                continue
            for j in range(n):
                one = copy.deepcopy(g)
                one["count"] = 1
                if n > 1:
                    one["name"] = f"{g.get('name', '') or f'group{gi}'}#{j}"
                one["access"]["delay"] = delay[(f"S{k}", "R1")]
                if eg is not None:
                    one["egress"]["delay"] = delay[("R2", f"D{k}")]
                one["start"] = starts[k]
                groups.append(one)
                k += 1
        db["groups"] = groups
    if out.get("flows"):
        flows: List[Dict[str, Any]] = []
        for fl in out["flows"]:
            n = int(fl.get("count", 1))
            if not _is_random(fl.get("start")):
                flows.append(fl)
                k += n
                continue
            for _ in range(n):
                one = copy.deepcopy(fl)
                one["count"] = 1
                one["start"] = starts[k]
                flows.append(one)
                k += 1
        out["flows"] = flows
    if k != len(starts):  # the engine and the exporter number flows alike
        raise RuntimeError(f"export-ns2: {k} flows in the scenario, {len(starts)} in the engine's run")
    return out, used


def trace_switches(trace_all: Optional[str], namtrace_all: Optional[str]) -> Tuple[List[str], List[str]]:
    """The preamble and ``finish`` lines that open, flush and close the optional traces."""
    pre = [
        "",
        "# Optional packet traces (none unless asked): a file given at export time, or when the",
        "# script is run:  ns <script> [-trace-all FILE] [-namtrace-all FILE]",
        f"set opt(trace-all) {_brace(trace_all or '')}",
        f"set opt(namtrace-all) {_brace(namtrace_all or '')}",
        "foreach {key val} $argv {",
        "    set k [string range $key 1 end]",
        "    if {[string index $key 0] ne \"-\" || ![info exists opt($k)] || $val eq \"\"} {",
        "        puts stderr \"usage: ns <script> \\[-trace-all FILE\\] \\[-namtrace-all FILE\\] (got: $argv)\"",
        "        exit 2",
        "    }",
        "    set opt($k) $val",
        "}",
        "if {$opt(trace-all) ne \"\"} { set alltrace [open $opt(trace-all) w]; $ns trace-all $alltrace }",
        "if {$opt(namtrace-all) ne \"\"} { set namtrace [open $opt(namtrace-all) w]; $ns namtrace-all $namtrace }",
    ]
    post = [
        "    global alltrace namtrace",
        "    if {[info exists alltrace] || [info exists namtrace]} { $ns flush-trace }",
        "    if {[info exists alltrace]} { close $alltrace }",
        "    if {[info exists namtrace]} { close $namtrace }",
    ]
    return pre, post


def export_script(scenario: Any, seed: Optional[int], trace_dir: str, *,
                  trace_all: Optional[str] = None, namtrace_all: Optional[str] = None) -> str:
    """The script ``aqmsim export-ns2`` prints: the scenario with ``run --seed``'s draws,
    the trace switches, a header saying which draws it holds and which it cannot."""
    # ns-2's refusals first, naming the fields as the user wrote them (before any split)
    build_plan(scenario.to_dict(), 1 if seed is None else seed)
    pinned, used = run_draws(scenario, seed)
    note = [
        f"# Start times and access/egress delays are those of `aqmsim run --seed {used}` (the engine's",
        "# draws), written as numbers.",
        *NOT_REPRODUCED,
        "# Every parameter is set on its object, so no ns-2 class default is relied on.",
    ]
    pre, post = trace_switches(trace_all, namtrace_all)
    return render_tcl(build_plan(pinned, used), trace_dir, note=note, preamble=pre, epilogue=post)
