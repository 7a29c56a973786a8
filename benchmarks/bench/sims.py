"""The simulators the benchmark times: aqmsim's engine and ns-2 (ns-3 is in ns3.py).

Each :class:`Simulator` prepares a run of a scenario in a work directory and returns a
callable that runs it once in a child process and reports an :class:`Outcome`.
"""

from __future__ import annotations

import abc
import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

from .child import AQMSIM_CHILD, run_child
from .config import AQMSIM, NS2, flat_error

__all__ = ["Outcome", "Unsupported", "Simulator", "Aqmsim", "Ns2", "stamped", "stamp_of", "unwrap_int32",
           "tcp_tables"]


@dataclass
class Outcome:
    """What one run of one simulator reports."""

    wall: float
    max_rss_mib: float
    packets: Optional[int] = None  # bottleneck departures
    arrivals: Optional[int] = None
    drops: Optional[int] = None
    utilisation: Optional[float] = None
    events: Optional[int] = None
    inner: Dict[str, float] = field(default_factory=dict)  # the simulator's own timings
    extra: Dict[str, Any] = field(default_factory=dict)
    error: Optional[str] = None
    timed_out: bool = False


class Unsupported(Exception):
    """The simulator cannot run this scenario (the message says why)."""


class Simulator(abc.ABC):
    name: str = ""

    def available(self) -> Tuple[bool, str]:
        return True, ""

    @abc.abstractmethod
    def prepare(self, sc: Dict[str, Any], seed: int, workdir: Path) -> Callable[[float], Outcome]:
        """Set up one run; the returned callable runs it (with a time budget) and measures it."""


class Aqmsim(Simulator):
    name = AQMSIM

    #: The compiled engine every run loads: a copy taken when the bench starts
    #: (:func:`snapshot_engine`), so that a rebuild meanwhile cannot change it mid-run.
    engine: Optional[str] = None

    def __init__(self, sizes: bool = False) -> None:
        self.sizes = sizes  # also measure the results handed to Python (memory check)

    def prepare(self, sc, seed, workdir):
        so = Aqmsim.engine
        if so is None:
            from aqmsim import _core

            so = _core.__file__
        path = workdir / "scenario.json"
        path.write_text(json.dumps(sc))
        out = workdir / "aqmsim-summary.json"

        def run(timeout: float) -> Outcome:
            if out.exists():
                out.unlink()
            # -I -S: isolated, without site-packages (the child needs only the standard
            # library and the engine)
            argv = [sys.executable, "-I", "-S", "-c", AQMSIM_CHILD, so, str(path), str(seed), str(out)]
            c = run_child(argv + (["sizes"] if self.sizes else []), timeout=timeout)
            o = Outcome(c.wall, c.max_rss_mib, timed_out=c.timed_out)
            if c.returncode != 0 or not out.exists():
                o.error = "timed out" if c.timed_out else f"exit {c.returncode}: {flat_error(c.stderr)}"
                return o
            res = ast.literal_eval(out.read_text())
            s = res["summary"]
            o.packets = int(s["bottleneck_departures"])
            o.arrivals = int(s["bottleneck_arrivals"])
            o.drops = int(s["bottleneck_drops"])
            o.utilisation = float(s["utilisation"])
            o.events = int(s["events"]) if "events" in s else None
            o.inner = {"engine": float(res["engine_s"])}
            if "results_bytes" in res:
                o.extra = {"results_mib": res["results_bytes"] / 2**20, "rows": res["rows"],
                           "mapped_mib": res.get("mapped_bytes", 0) / 2**20}
            return o

        return run


class Ns2(Simulator):
    """``ns`` on the script aqmsim's exporter writes (:mod:`aqmsim.ns2.export`): manual
    routes on a dumbbell, as ns-2's own many-flow examples do (ns-2 at its best), and only
    the QueueMonitor summary at the end (no trace, no samples).

    Set-up and simulation are timed apart in every run: the script prints the wall clock
    (Tcl's ``clock microseconds``) from an event at simulated time 0, after ``$ns run`` has
    done its own set-up (routes, resets); set-up is that stamp minus the moment the bench
    spawned ``ns``, simulation the rest of the wall time (events, ``finish``, exit). The
    event touches no packet.
    """

    name = NS2

    def available(self):
        from aqmsim.ns2.crosscheck import ns_binary

        return (True, "") if ns_binary() else (False, "ns-2 is not installed (`make ns2`)")

    def prepare(self, sc, seed, workdir):
        from aqmsim.ns2.crosscheck import ns_binary, parse_summary, result_of
        from aqmsim.ns2.export import Ns2ExportError, build_plan, render_tcl

        ns = ns_binary()
        if any(str((t or {}).get("stack", "ns2")).lower() != "ns2" for t in tcp_tables(sc)):
            raise Unsupported('ns-2 has only its own TCP (tcp.stack = "ns2")')
        try:
            plan = build_plan(sc, seed)
        except Ns2ExportError as exc:  # e.g. CoDel, PIE, FQ-CoDel: not in ns-2 2.35
            raise Unsupported(str(exc)) from None
        tcp = plan.flows[0].tcp if plan.flows and plan.flows[0].tcp else {"packet_size": 1000, "header": 40}
        wire_size = int(tcp["packet_size"]) + int(tcp["header"])
        d = (workdir / "ns2").resolve()
        d.mkdir(parents=True, exist_ok=True)
        script = d / "script.tcl"
        script.write_text(stamped(render_tcl(plan, str(d), full_trace=False, samples=False)))
        summary = d / "summary.txt"

        def run(timeout: float) -> Outcome:
            if summary.exists():
                summary.unlink()
            c = run_child([ns, str(script)], cwd=d, timeout=timeout)
            o = Outcome(c.wall, c.max_rss_mib, timed_out=c.timed_out)
            if c.returncode != 0 or not summary.exists():
                o.error = "timed out" if c.timed_out else f"exit {c.returncode}: {flat_error(c.stderr or c.stdout)}"
                return o
            t0 = stamp_of(c.stderr)
            if t0 is not None:
                setup = min(max(t0 - c.spawned_at, 0.0), c.wall)
                o.inner = {"setup": setup, "run": c.wall - setup}
            r = result_of(plan, parse_summary(summary))
            o.packets = int(r["bottleneck_departures"])
            o.arrivals = int(r["bottleneck_arrivals"])
            o.drops = int(r["bottleneck_drops"])
            o.utilisation = float(r["utilisation"])
            q = r["queues"][r["bottleneck"]]
            sent = unwrap_int32(int(q["departure_bytes"]), o.packets * wire_size)
            if sent != int(q["departure_bytes"]):
                o.utilisation = sent * 8.0 / (q["rate_bps"] * plan.duration)
                o.extra["bytes_wrapped"] = True
            return o

        return run


def tcp_tables(sc: Dict[str, Any]) -> list:
    """Every TCP table of a scenario: the top level's, each dumbbell group's, each flow's."""
    groups = list((sc.get("dumbbell") or {}).get("groups") or []) + list(sc.get("flows") or [])
    return [sc.get("tcp")] + [g.get("tcp") for g in groups]


#: What the stamped script prints at simulated time 0 (then the wall clock, in µs).
STAMP = "aqmsim-bench: simulation starts at"


def stamped(tcl: str) -> str:
    """The script with an event at simulated time 0 printing the wall clock to stderr:
    scheduled last before ``$ns run``, it runs once ``$ns run``'s own set-up is done."""
    marker = "\n$ns run\n"
    if tcl.count(marker) != 1:
        raise ValueError("the exported script has no single `$ns run` line")
    event = f'$ns at 0 {{puts stderr "{STAMP} [clock microseconds]"}}'
    return tcl.replace(marker, f"\n{event}\n$ns run\n")


def stamp_of(stderr: str) -> Optional[float]:
    """The wall clock (s since the epoch) a stamped script printed, if it did."""
    for line in stderr.splitlines():
        if line.startswith(STAMP):
            try:
                return int(line[len(STAMP):].strip()) / 1e6
            except ValueError:
                return None
    return None


def unwrap_int32(value: int, approx: float) -> int:
    """A byte count ns-2 kept in a 32-bit ``int`` (QueueMonitor ``bdepartures_`` and the
    like wrap past 2 GiB: 1 Gb/s for 60 s sends 7.5 GB), unwrapped to the value nearest
    ``approx`` (packets × their size)."""
    low = value % 2**32
    return low + 2**32 * round((approx - low) / 2**32)

