"""The speed benchmark: aqmsim beside ns-2 (and ns-3) on the same scenarios.

``make bench`` runs ``python -m aqmsim.bench``; ``docs/performance.md`` explains the method
and holds the latest numbers (``--write-docs`` rewrites them).

For each scenario file in ``benchmarks/scenarios/`` it runs

* **aqmsim**: the engine on the scenario (a child Python process that loads only the
  compiled extension and calls its ``run``: interpreter start-up is counted, pandas is
  not);
* **ns-2**: ``ns`` on the Tcl script aqmsim writes from the same file
  (:mod:`aqmsim.ns2.export`), with neither a packet trace nor queue samples: only the
  QueueMonitor summary at the end, read back with the cross-check's parser;
* **ns-3** (when ``libns3-dev`` is installed): ``benchmarks/ns3/dumbbell.cc``, built once
  by ``benchmarks/ns3/build.sh`` under ``target/``, with the scenario's numbers as
  arguments. ns-3 is slow on the large scenarios, so it gets a time budget per scenario
  (fewer runs; the table says how many) and a time limit per run.

Each run is its own child process: the wall time runs from spawning it to reaping it and
the peak memory is that process's own maximum resident set (reported by GNU time, see
:func:`run_child`). Every
simulator runs ``--reps`` times per scenario (the median is reported), the simulators
taking turns in an order that reverses each round, so that drift of the (shared) machine
hits all of them. All runs of a scenario use the same seed: they do the same work, and
the bench checks that they report the same packet counts.

"Bottleneck packets" are packets that left the bottleneck queue for the wire (departures);
"packets per wall second" divides them by the median wall time; "speed vs ns-2" is the
ratio of packets per wall second, so a slightly different packet count does not bias it.

ns-2's set-up (the same script run to 1 ms of simulated time) is timed once per scenario
and reported beside the table, with ns-2's rate without it.

Also measured: aqmsim's peak memory at the 100-flow scenario's duration and at ten
times it (memory should not grow with simulated time), and, when :mod:`aqmsim.sweep`
provides ``bench_throughput``, sweep runs per second for 1, 2 and all CPUs (runs of
realistic size, ~0.1-0.2 s each), with the speedup over one worker and the scaling
efficiency (speedup / workers).

``--quick`` (for development) runs 10 simulated seconds instead of 60, three rounds, and
gives ns-3 a small budget.
"""

from __future__ import annotations

import abc
import argparse
import ast
import datetime as _dt
import inspect
import json
import math
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["main", "run_bench", "machine_info", "DEFAULT_SCENARIOS", "BenchConfig"]

REPO = Path(__file__).resolve().parents[2]
SCENARIO_DIR = REPO / "benchmarks" / "scenarios"
NS3_BUILD = REPO / "benchmarks" / "ns3" / "build.sh"
DOC = REPO / "docs" / "performance.md"
DOC_BEGIN = "<!-- bench:begin (written by `python -m aqmsim.bench --write-docs`; edits here are overwritten) -->"
DOC_END = "<!-- bench:end -->"

#: The canonical scenarios, in table order (files in benchmarks/scenarios/).
DEFAULT_SCENARIOS = ("red-100M-n10", "red-100M-n100", "red-100M-n1000", "red-1G-n100", "codel-100M-n100",
                     "fq_codel-100M-n100")
#: The scenario whose peak memory is compared at its duration and at ten times it.
MEMORY_SCENARIO = "red-100M-n100"

AQMSIM, NS2, NS3 = "aqmsim", "ns-2", "ns-3"


# ------------------------------------------------------------------ configuration
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
    workdir: Optional[Path] = None

    @classmethod
    def quick_defaults(cls) -> "BenchConfig":
        return cls(reps=3, duration=10.0, ns3_budget=60.0, timeout=300.0, sweep_runs=32, quick=True)


# ------------------------------------------------------------------ the machine
def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _cmd(*argv: str) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return (out.stdout or out.stderr).strip()


def machine_info() -> Dict[str, str]:
    """CPU, cores, memory, OS and the versions of everything measured."""
    cpu = ""
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    cpu = cpu or platform.processor() or platform.machine()
    mem = ""
    m = re.search(r"MemTotal:\s+(\d+) kB", _read("/proc/meminfo"))
    if m:
        mem = f"{int(m.group(1)) / 2**20:.1f} GiB"
    os_name = ""
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', _read("/etc/os-release"), re.M)
    if m:
        os_name = m.group(1)
    info = {
        "cpu": cpu,
        "cores": f"{os.cpu_count()} logical CPUs"
                 + (f" (this process may use {len(os.sched_getaffinity(0))})"
                    if hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) != os.cpu_count() else ""),
        "memory": mem,
        "os": f"{os_name or platform.system()} (kernel {platform.release()}, {platform.machine()})",
        "python": platform.python_version(),
    }
    try:
        import aqmsim

        info["aqmsim"] = aqmsim.__version__
    except Exception:  # noqa: BLE001 - informational only
        info["aqmsim"] = "?"
    commit = _cmd("git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD")
    if commit:
        dirty = _cmd("git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no")
        info["aqmsim"] += f" (git {commit}{', with uncommitted changes' if dirty else ''})"
    info["rustc"] = _cmd("rustc", "--version") or "?"
    ns2 = _cmd("dpkg-query", "-W", "-f=${Version}", "ns2")
    info["ns-2"] = f"Debian ns2 {ns2}" if ns2 else ("installed" if shutil.which("ns") else "not installed")
    ns3 = _cmd("pkg-config", "--modversion", "ns3-core")
    ns3deb = _cmd("dpkg-query", "-W", "-f=${Version}", "libns3-dev")
    info["ns-3"] = (f"{ns3} (Debian libns3-dev {ns3deb})" if ns3deb else ns3) if ns3 else "not installed"
    cxx = _cmd("g++", "--version").splitlines()
    info["g++"] = cxx[0] if cxx else "not installed"
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load:
        info["load average at start"] = " ".join(f"{x:.2f}" for x in load)
    return info


# ------------------------------------------------------------------ child processes
@dataclass
class ChildRun:
    wall: float  # s, spawn to reap
    max_rss_mib: float  # the child's own peak resident set
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str


GNU_TIME = "/usr/bin/time"


def _gnu_time() -> Optional[str]:
    """GNU time, if installed: it reports its child's peak RSS."""
    if os.access(GNU_TIME, os.X_OK) and "GNU" in _cmd(GNU_TIME, "--version"):
        return GNU_TIME
    return None


def run_child(argv: Sequence[str], *, cwd: Optional[Path] = None, timeout: Optional[float] = None,
              env: Optional[Mapping[str, str]] = None) -> ChildRun:
    """Run ``argv`` as a child process; its wall time and its own peak RSS.

    Linux keeps a process's peak RSS across ``exec``, so a child forked from this (large)
    Python process would report at least this process's size. The child is therefore
    started by GNU time (``/usr/bin/time``, a small process whose own fork runs ``argv``),
    which writes the child's ``ru_maxrss`` to a file. Without GNU time, ``os.wait4``'s
    figure is used: an upper bound (at least this process's resident set).
    Output goes to temporary files (no pipes to drain while timing). On ``timeout`` the
    child's process group is killed.
    """
    gtime = _gnu_time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rssf:
        cmd = [gtime, "-q", "-f", "%M", "-o", rssf.name, *argv] if gtime else list(argv)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=str(cwd) if cwd else None, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env=dict(env) if env is not None else None)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.daemon = True
            timer.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        # ru_maxrss and GNU time's %M are KiB on Linux (ru_maxrss is bytes on macOS)
        rss_kib = ru.ru_maxrss / (1024 if sys.platform == "darwin" else 1)
        if gtime:
            nums = [ln.strip() for ln in rssf.read().splitlines() if ln.strip().isdigit()]
            rss_kib = float(nums[-1]) if nums else math.nan
        out.seek(0)
        err.seek(0)
        return ChildRun(wall, rss_kib / 1024, proc.returncode, killed.is_set(), out.read(), err.read())


# The aqmsim child: load the compiled engine alone (not the aqmsim package, which imports
# pandas), run the scenario JSON, write the summary and the engine's own time, as a Python
# literal (importing the json module would cost the child ~8 ms, 4 % of a 100-flow run).
_AQMSIM_CHILD = r"""
import os, sys, time
so, scenario, seed, out = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(os.path.abspath(so)))
import _core as core
text = open(scenario, encoding="utf-8").read()
t0 = time.perf_counter()
raw = core.run(text, int(seed))
engine = time.perf_counter() - t0
# (finite numbers and text only: the parent reads the file with ast.literal_eval)
summary = {k: v for k, v in raw["summary"].items()
           if isinstance(v, (int, str)) or (isinstance(v, float) and abs(v) < float("inf"))}
res = {"summary": summary, "engine_s": engine}
if len(sys.argv) > 5 and sys.argv[5] == "sizes":
    # rows of the per-event tables handed to Python and their bytes in memory; a long
    # run's drop log comes as read-only maps of the engine's files (counted apart: they
    # take memory only where read)
    def col_info(c):
        if isinstance(c, tuple) and c and c[0] == "category":
            buf, dt = c[1], (c[3] if len(c) > 3 else "<u4")
        elif isinstance(c, tuple) and len(c) == 2:
            dt, buf = c
        else:
            return len(c), sys.getsizeof(c) + sum(sys.getsizeof(x) for x in c), 0
        n = len(buf) // int(dt[2:])
        if type(buf).__name__ == "mmap":
            return n, 0, len(buf)
        return n, sys.getsizeof(buf), 0
    total, mapped, rows = 0, 0, {}
    for name, table in raw.items():
        if isinstance(table, dict) and name != "summary":
            rows[name] = 0
            for col in table.values():
                n, b, m = col_info(col)
                rows[name] = max(rows[name], n)
                total += b
                mapped += m
    res["results_bytes"] = total
    res["mapped_bytes"] = mapped
    res["rows"] = rows
with open(out, "w", encoding="utf-8") as f:
    f.write(repr(res))
"""


# ------------------------------------------------------------------ the simulators
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


def _set_duration(sc: Dict[str, Any], seconds: float) -> Dict[str, Any]:
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


def _flat_error(text: str, n: int = 6) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])


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
            argv = [sys.executable, "-I", "-S", "-c", _AQMSIM_CHILD, so, str(path), str(seed), str(out)]
            c = run_child(argv + (["sizes"] if self.sizes else []), timeout=timeout)
            o = Outcome(c.wall, c.max_rss_mib, timed_out=c.timed_out)
            if c.returncode != 0 or not out.exists():
                o.error = "timed out" if c.timed_out else f"exit {c.returncode}: {_flat_error(c.stderr)}"
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
    name = NS2

    def available(self):
        from aqmsim.ns2.crosscheck import ns_binary

        return (True, "") if ns_binary() else (False, "ns-2 is not installed (`make ns2`)")

    def prepare(self, sc, seed, workdir):
        from aqmsim.ns2.crosscheck import _result, ns_binary, parse_summary
        from aqmsim.ns2.export import build_plan, render_tcl

        from aqmsim.ns2.export import Ns2ExportError

        ns = ns_binary()
        try:
            plan = build_plan(sc, seed)
        except Ns2ExportError as exc:  # e.g. CoDel, PIE, FQ-CoDel: not in ns-2 2.35
            raise Unsupported(str(exc)) from None
        tcp = plan.flows[0].tcp if plan.flows and plan.flows[0].tcp else {"packet_size": 1000, "header": 40}
        wire_size = int(tcp["packet_size"]) + int(tcp["header"])
        d = (workdir / "ns2").resolve()
        d.mkdir(parents=True, exist_ok=True)
        script = d / "script.tcl"
        # Only the QueueMonitor summary at the end: no packet trace, no queue samples.
        script.write_text(render_tcl(plan, str(d), full_trace=False, samples=False))
        summary = d / "summary.txt"
        # The same script run to 1 ms of simulated time: ns-2's set-up alone (Tcl building
        # the topology, route computation), reported beside the table.
        ds = d / "setup"
        ds.mkdir(exist_ok=True)
        setup_script = ds / "script.tcl"
        setup_script.write_text(render_tcl(build_plan(_set_duration(sc, 1e-3), seed), str(ds),
                                           full_trace=False, samples=False))

        def setup(timeout: float) -> Optional[float]:
            c = run_child([ns, str(setup_script)], cwd=ds, timeout=timeout)
            return c.wall if c.returncode == 0 and (ds / "summary.txt").exists() else None

        def run(timeout: float) -> Outcome:
            if summary.exists():
                summary.unlink()
            c = run_child([ns, str(script)], cwd=d, timeout=timeout)
            o = Outcome(c.wall, c.max_rss_mib, timed_out=c.timed_out)
            if c.returncode != 0 or not summary.exists():
                o.error = "timed out" if c.timed_out else f"exit {c.returncode}: {_flat_error(c.stderr or c.stdout)}"
                return o
            r = _result(plan, parse_summary(summary))
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

        run.setup = setup  # type: ignore[attr-defined]
        return run


def unwrap_int32(value: int, approx: float) -> int:
    """A byte count ns-2 kept in a 32-bit ``int`` (QueueMonitor ``bdepartures_`` and the
    like wrap past 2 GiB: 1 Gb/s for 60 s sends 7.5 GB), unwrapped to the value nearest
    ``approx`` (packets × their size)."""
    low = value % 2**32
    return low + 2**32 * round((approx - low) / 2**32)


def ns3_arguments(sc: Mapping[str, Any], seed: int) -> List[str]:
    """benchmarks/ns3/dumbbell.cc's arguments for a scenario, or :class:`Unsupported`.

    The ns-3 program builds one shape: a dumbbell with one group of FTP flows, fixed access
    and egress delays, RED (packet mode, no ECN) at the bottleneck and FIFOs elsewhere.
    """
    from aqmsim.ns2.export import TCP_DEFAULTS, normalize_queue, parse_rate, parse_time

    db = sc.get("dumbbell")
    if not db or sc.get("flows") or sc.get("links"):
        raise Unsupported("the ns-3 program builds a dumbbell only")
    groups = db.get("groups") or []
    if len(groups) != 1:
        raise Unsupported("the ns-3 program takes one dumbbell group")
    g = groups[0]
    if g.get("app", "ftp") != "ftp" or not g.get("egress"):
        raise Unsupported("the ns-3 program runs FTP flows to their own sinks (egress links)")
    acc, eg, bn = g["access"], g["egress"], db["bottleneck"]
    for link, w in ((acc, "access"), (eg, "egress")):
        if isinstance(link.get("delay"), Mapping):
            raise Unsupported(f"the ns-3 program needs a fixed {w} delay")
    if parse_rate(acc["rate"]) != parse_rate(eg["rate"]) or parse_time(acc["delay"]) != parse_time(eg["delay"]):
        raise Unsupported("the ns-3 program uses one rate and delay for access and egress links")
    bq = dict(bn.get("queue") or {})
    modern = str(bq.get("kind", "")).lower() in NS3_MODERN
    q = _ns3_modern_queue(bq) if modern else normalize_queue(bn.get("queue"), "dumbbell.bottleneck.queue")
    if not modern and (q["kind"] not in ("red", "gentle") or q["bytes"] or q["queue_in_bytes"] or q["ecn"]):
        raise Unsupported("the ns-3 program has RED in packet mode without ECN, CoDel, PIE or FQ-CoDel at the bottleneck")
    if not modern and (q["min_th"] is None or q["max_th"] is None or q["w_q"] is None):
        raise Unsupported("the ns-3 program needs explicit RED thresholds and w_q")
    start = g.get("start", 0.0)
    if isinstance(start, Mapping):
        lo, hi = (parse_time(x) for x in start["uniform"])
    else:
        lo = hi = parse_time(start)
    tcp = dict(TCP_DEFAULTS)
    tcp.update(sc.get("tcp") or {})
    tcp.update(g.get("tcp") or {})
    variant = str(tcp.get("variant", "reno")).lower()
    ns3_tcp = {"reno": "newreno", "newreno": "newreno", "sack": "newreno", "cubic": "cubic", "dctcp": "dctcp"}.get(variant)
    if ns3_tcp is None:
        raise Unsupported(f"the ns-3 program has no TCP {variant!r} (newreno, cubic, dctcp)")
    if tcp.get("delayed_ack"):
        raise Unsupported("the ns-3 program ACKs every packet")
    if variant == "cubic" and tcp.get("tcp_friendliness", True):
        raise Unsupported("ns-3.37's TcpCubic has no Reno-friendly region: set tcp_friendliness = false")
    if tcp.get("ecn") and not modern:
        raise Unsupported("the ns-3 program runs RED without ECN")
    other = normalize_queue(acc.get("queue"), "access.queue")
    duration = parse_time(sc["duration"])
    stop = parse_time(g["stop"]) if "stop" in g else duration
    if stop < duration:
        raise Unsupported("the ns-3 program runs the flows to the end")
    common = [
        f"--flows={int(g.get('count', 1))}",
        f"--bottleneck={parse_rate(bn['rate']):.0f}bps",
        f"--bottleneckDelay={parse_time(bn['delay'])!r}s",
        f"--access={parse_rate(acc['rate']):.0f}bps",
        f"--accessDelay={parse_time(acc['delay'])!r}s",
        f"--duration={duration!r}",
        f"--seed={seed}",
        f"--segment={int(tcp['packet_size'])}",
        f"--window={int(tcp['window'])}",
        f"--startMin={lo!r}",
        f"--startMax={hi!r}",
        f"--otherQueue={int(other.get('limit') or 1000)}",
        f"--tcp={ns3_tcp}",
        f"--ecn={1 if tcp.get('ecn') else 0}",
        f"--hystart={'true' if tcp.get('hystart', True) else 'false'}",
    ]
    if modern:
        return common + q["args"]
    return common + [
        f"--minTh={q['min_th']!r}",
        f"--maxTh={q['max_th']!r}",
        f"--maxP={q['max_p']!r}",
        f"--qw={q['w_q']!r}",
        f"--limit={int(q['limit'])}",
        f"--meanPktSize={int(q['mean_pktsize'])}",
        f"--gentle={'true' if q['gentle'] else 'false'}",
        f"--wait={'true' if q['wait'] else 'false'}",
    ]


#: Disciplines dumbbell.cc builds besides RED: each table field as an ns-3 attribute of the
#: disc (a time in s, a number or a bool), or as a value ns-3 cannot change there.
NS3_MODERN: Dict[str, Dict[str, Any]] = {
    "codel": {"target": "Target", "interval": "Interval", "min_bytes": "MinBytes", "ecn": "UseEcn"},
    "pie": {"ecn": "UseEcn"},
    "fq_codel": {"target": "Target", "interval": "Interval", "ecn": "UseEcn", "flows": "Flows",
                 "drop_batch": "DropBatchSize", "perturbation": "Perturbation",
                 "min_bytes": ("ns3::CoDelQueueDisc::MinBytes",), "quantum": 1500, "classify": "hash"},
}
_NS3_DISC = {"codel": "CoDelQueueDisc", "pie": "PieQueueDisc", "fq_codel": "FqCoDelQueueDisc"}


def _ns3_modern_queue(q: Mapping[str, Any]) -> Dict[str, Any]:
    """dumbbell.cc's arguments for a CoDel, PIE or FQ-CoDel bottleneck, or
    :class:`Unsupported` (other fields stay at ns-3's defaults, which are aqmsim's)."""
    from aqmsim.ns2.export import parse_time
    kind = str(q["kind"]).lower()
    args = [f"--queue={kind}"]
    for key, value in q.items():
        if key == "kind":
            continue
        if key == "limit":
            args.append(f"--limit={int(value)}")
            continue
        if key == "ce_threshold" and kind != "pie":
            args.append(f"--ceThreshold={parse_time(value)!r}s")
            continue
        how = NS3_MODERN[kind].get(key)
        if how is None:
            raise Unsupported(f"the ns-3 program cannot set {kind}.{key}")
        if not isinstance(how, (str, tuple)) or (isinstance(how, str) and key == "classify"):
            if value != how:
                raise Unsupported(f"the ns-3 program runs {kind} with {key} = {how!r} only")
            continue
        attr = how[0] if isinstance(how, tuple) else f"ns3::{_NS3_DISC[kind]}::{how}"
        if key in ("target", "interval"):
            text = f"{parse_time(value)!r}s"
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(int(value))
        args.append(f"--{attr}={text}")
    return {"kind": kind, "args": args}


class Ns3(Simulator):
    name = NS3

    def __init__(self) -> None:
        self._binary: Optional[str] = None
        self._why = ""

    def available(self):
        if self._binary is None and not self._why:
            if not NS3_BUILD.exists():
                self._why = f"{NS3_BUILD} is missing"
            else:
                p = subprocess.run(["bash", str(NS3_BUILD)], capture_output=True, text=True,
                                   stdin=subprocess.DEVNULL)
                if p.returncode == 0 and p.stdout.strip():
                    self._binary = p.stdout.strip().splitlines()[-1]
                elif p.returncode == 3:
                    self._why = "ns-3 is not installed (`make ns3`: Debian's libns3-dev)"
                else:
                    self._why = f"building the ns-3 program failed: {_flat_error(p.stderr, 4)}"
        return (self._binary is not None), self._why

    def prepare(self, sc, seed, workdir):
        args = ns3_arguments(sc, seed)
        binary = self._binary

        def run(timeout: float) -> Outcome:
            c = run_child([binary, *args], cwd=workdir, timeout=timeout)
            o = Outcome(c.wall, c.max_rss_mib, timed_out=c.timed_out)
            kv: Dict[str, str] = {}
            for line in c.stdout.splitlines():
                k, _, v = line.partition(" ")
                kv[k] = v.strip()
            if c.returncode != 0 or "bottleneck_departures" not in kv:
                o.error = "timed out" if c.timed_out else f"exit {c.returncode}: {_flat_error(c.stderr)}"
                return o
            o.packets = int(kv["bottleneck_departures"])
            o.arrivals = int(kv["bottleneck_arrivals"])
            o.drops = int(kv["bottleneck_drops"])
            o.utilisation = float(kv["utilisation"])
            o.events = int(kv["events"])
            o.inner = {"setup": float(kv["setup_wall_s"]), "run": float(kv["run_wall_s"])}
            return o

        run.args = args  # type: ignore[attr-defined]
        return run


# ------------------------------------------------------------------ measuring
@dataclass
class SimResult:
    simulator: str
    runs: List[Outcome] = field(default_factory=list)
    note: str = ""  # why it did not run, or stopped early
    setup_s: Optional[float] = None  # wall time of the same run to 1 ms of simulated time

    @property
    def ok(self) -> List[Outcome]:
        return [r for r in self.runs if r.error is None]

    def median(self, attr: str = "wall") -> float:
        vals = [getattr(r, attr) for r in self.ok]
        return statistics.median(vals) if vals else math.nan

    @property
    def last(self) -> Optional[Outcome]:
        ok = self.ok
        return ok[-1] if ok else None

    @property
    def pkts_per_s(self) -> float:
        o = self.last
        w = self.median()
        return o.packets / w if o and o.packets is not None and w > 0 else math.nan

    def consistent(self) -> bool:
        return len({(r.packets, r.drops) for r in self.ok}) <= 1


@dataclass
class ScenarioResult:
    name: str
    path: str
    description: str
    duration: float
    flows: int
    bottleneck: str
    sims: Dict[str, SimResult] = field(default_factory=dict)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _load(name: str) -> Tuple[Path, Dict[str, Any]]:
    p = Path(name)
    if not p.suffix:
        p = SCENARIO_DIR / f"{name}.toml"
    if not p.exists():
        raise FileNotFoundError(f"no scenario {name!r} ({p} does not exist)")
    with open(p, "rb") as f:
        return p, tomllib.load(f)


def bench_scenario(name: str, sims: Sequence[Simulator], cfg: BenchConfig, workdir: Path) -> ScenarioResult:
    from aqmsim.ns2.export import parse_rate, parse_time

    path, sc = _load(name)
    if cfg.duration is not None:
        sc = _set_duration(sc, cfg.duration)
    db = sc.get("dumbbell") or {}
    flows = sum(int(g.get("count", 1)) for g in db.get("groups") or [])
    rate = parse_rate(db["bottleneck"]["rate"]) if db else math.nan
    res = ScenarioResult(name=path.stem, path=str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
                         description=str(sc.get("description", "")),
                         duration=parse_time(sc["duration"]), flows=flows,
                         bottleneck=(f"{rate / 1e9:g} Gb/s" if rate >= 1e9 else f"{rate / 1e6:g} Mb/s"))
    runners: Dict[str, Callable[[float], Outcome]] = {}
    for sim in sims:
        sr = SimResult(sim.name)
        res.sims[sim.name] = sr
        ok, why = sim.available()
        if not ok:
            sr.note = why
            continue
        d = workdir / res.name / sim.name
        d.mkdir(parents=True, exist_ok=True)
        try:
            runners[sim.name] = sim.prepare(sc, cfg.seed, d)
        except Unsupported as exc:
            sr.note = f"not run: {exc}"
    ns3_spent = 0.0
    stopped: Dict[str, str] = {}
    order = [s.name for s in sims if s.name in runners]
    for rep in range(cfg.reps):
        for sname in (order if rep % 2 == 0 else list(reversed(order))):
            if sname in stopped:
                continue
            sr = res.sims[sname]
            o = runners[sname](cfg.timeout)
            sr.runs.append(o)
            status = (f"{o.wall:8.2f} s  {o.max_rss_mib:7.1f} MiB  {o.packets:,} pkts" if o.error is None
                      else f"FAILED after {o.wall:.1f} s: {o.error}")
            _log(f"  [{rep + 1}/{cfg.reps}] {res.name:<16} {sname:<7} {status}")
            if o.error is not None:
                stopped[sname] = ("timed out" if o.timed_out else "failed") + f" after {o.wall:.0f} s"
                continue
            if sname == NS3:
                ns3_spent += o.wall
                # another run only if it fits the budget (judged by the runs so far)
                if ns3_spent + sr.median() > cfg.ns3_budget and rep + 1 < cfg.reps:
                    stopped[sname] = f"stopped after {len(sr.ok)} run(s): ns-3 budget {cfg.ns3_budget:.0f} s per scenario"
    for sname, why in stopped.items():
        sr = res.sims[sname]
        sr.note = why if not sr.note else f"{sr.note}; {why}"
    for sname, run in runners.items():
        probe = getattr(run, "setup", None)
        if probe is not None and res.sims[sname].ok:
            t = probe(cfg.timeout)
            if t is not None:
                res.sims[sname].setup_s = t
                _log(f"  set-up probe     {res.name:<16} {sname:<7} {t:8.2f} s (1 ms simulated)")
    return res


def memory_check(cfg: BenchConfig, workdir: Path) -> Optional[Dict[str, Any]]:
    """aqmsim's peak RSS on MEMORY_SCENARIO at duration D and at memory_factor × D.

    Each duration runs twice: once for the peak RSS, once more (not timed) to count the
    per-event tables the run hands to Python and their size as Python objects, so that
    growth can be told apart: state of the simulation or records of what happened.
    """
    try:
        _, sc = _load(MEMORY_SCENARIO)
    except FileNotFoundError as exc:
        _log(f"memory check skipped: {exc}")
        return None
    from aqmsim.ns2.export import parse_time

    base = cfg.duration if cfg.duration is not None else parse_time(sc["duration"])
    rows = []
    for d in (base, base * cfg.memory_factor):
        w = workdir / "memory" / f"{d:g}s"
        w.mkdir(parents=True, exist_ok=True)
        scd = _set_duration(sc, d)
        o = Aqmsim().prepare(scd, cfg.seed, w)(cfg.timeout)
        if o.error:
            _log(f"memory check: aqmsim failed at {d:g} s: {o.error}")
            return None
        sz = Aqmsim(sizes=True).prepare(scd, cfg.seed, w)(cfg.timeout)
        extra = sz.extra if sz.error is None else {}
        _log(f"  memory check     aqmsim  {d:6g} simulated s: {o.wall:6.2f} s wall, {o.max_rss_mib:7.1f} MiB"
             f", results {extra.get('results_mib', math.nan):.1f} MiB")
        rows.append({"duration": d, "wall": o.wall, "max_rss_mib": o.max_rss_mib, "packets": o.packets,
                     "drops": o.drops, "results_mib": extra.get("results_mib", math.nan),
                     "mapped_mib": extra.get("mapped_mib", math.nan),
                     "rows": extra.get("rows", {})})
    r0, r1 = rows
    return {"scenario": MEMORY_SCENARIO, "rows": rows,
            "ratio": r1["max_rss_mib"] / r0["max_rss_mib"] if r0["max_rss_mib"] else math.nan,
            "ratio_without_results": ((r1["max_rss_mib"] - r1["results_mib"]) / (r0["max_rss_mib"] - r0["results_mib"])
                                      if r0["max_rss_mib"] > r0["results_mib"] else math.nan)}


def sweep_throughput(cfg: BenchConfig) -> Dict[str, Any]:
    """``aqmsim.sweep.bench_throughput([1, 2, os.cpu_count()])`` if it exists."""
    try:
        from aqmsim import sweep  # noqa: F401
        fn = getattr(sweep, "bench_throughput")
    except (ImportError, AttributeError) as exc:
        return {"skipped": f"aqmsim.sweep.bench_throughput is not available ({exc})"}
    workers: List[int] = []
    for w in (1, 2, os.cpu_count() or 1):
        if w not in workers:
            workers.append(w)
    kwargs: Dict[str, Any] = {}
    if cfg.sweep_runs is not None and "runs" in inspect.signature(fn).parameters:
        kwargs["runs"] = cfg.sweep_runs
    _log(f"  sweep throughput: bench_throughput({workers}{', runs=%d' % cfg.sweep_runs if kwargs else ''}) ...")
    try:
        rows = fn(workers, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a colleague's function: report, do not abort the bench
        return {"skipped": f"bench_throughput failed: {type(exc).__name__}: {exc}"}
    out = []
    for r in rows:
        if isinstance(r, Mapping):
            out.append(dict(r))
        elif isinstance(r, (tuple, list)) and len(r) >= 2:
            out.append({"workers": r[0], "runs_per_s": r[1]})
    if out and "speedup" not in out[0]:
        base = out[0].get("runs_per_s", math.nan) / (out[0].get("workers") or 1)
        for r in out:
            r["speedup"] = r.get("runs_per_s", math.nan) / base if base else math.nan
            r["efficiency"] = r["speedup"] / (r.get("workers") or 1)
    for r in out:
        _log(f"    {r.get('workers')} workers: {r.get('runs_per_s', math.nan):.2f} runs/s, "
             f"speedup {r.get('speedup', math.nan):.2f}, efficiency "
             f"{100 * r.get('efficiency', math.nan):.0f} %")
    return {"rows": out}


def snapshot_engine(workdir: Path) -> Dict[str, str]:
    """Copy the compiled engine into ``workdir`` and make every aqmsim run load the copy."""
    import hashlib

    from aqmsim import _core

    src = Path(_core.__file__)
    dst = workdir / "engine" / src.name
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)
    Aqmsim.engine = str(dst)
    built = _dt.datetime.fromtimestamp(src.stat().st_mtime).astimezone().isoformat(timespec="seconds")
    digest = hashlib.sha256(dst.read_bytes()).hexdigest()[:12]
    return {"engine": f"{src.name} built {built} (sha256 {digest})"}


def run_bench(cfg: BenchConfig) -> Dict[str, Any]:
    """Run everything; returns the results as plain data (see :func:`render`)."""
    info = machine_info()
    sims: List[Simulator] = [Aqmsim()]
    if cfg.ns2:
        sims.append(Ns2())
    if cfg.ns3:
        sims.append(Ns3())
    own = cfg.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="aqmsim-bench-")) if own else Path(cfg.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    info.update(snapshot_engine(workdir))
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    results: List[ScenarioResult] = []
    try:
        for name in cfg.scenarios:
            _log(f"{name}:")
            results.append(bench_scenario(name, sims, cfg, workdir))
        mem = memory_check(cfg, workdir) if cfg.memory_check else None
        sw = sweep_throughput(cfg) if cfg.sweep else {"skipped": "not asked for (--no-sweep)"}
    finally:
        Aqmsim.engine = None
        if own:
            shutil.rmtree(workdir, ignore_errors=True)
    if hasattr(os, "getloadavg"):
        info["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "started": started.isoformat(timespec="seconds"),
        "elapsed_s": time.perf_counter() - t0,
        "config": {"reps": cfg.reps, "duration": cfg.duration, "seed": cfg.seed, "quick": cfg.quick,
                   "ns3_budget_s": cfg.ns3_budget, "timeout_s": cfg.timeout},
        "machine": info,
        "scenarios": [_scenario_dict(r) for r in results],
        "memory": mem,
        "sweep": sw,
    }


def _scenario_dict(r: ScenarioResult) -> Dict[str, Any]:
    d = {k: getattr(r, k) for k in ("name", "path", "description", "duration", "flows", "bottleneck")}
    d["sims"] = {}
    for name, s in r.sims.items():
        d["sims"][name] = {
            "note": s.note,
            "runs": [vars(o) for o in s.runs],
            "median_wall_s": s.median(),
            "median_inner_s": {k: statistics.median([o.inner[k] for o in s.ok])
                               for k in (s.ok[0].inner if s.ok else {})},
            "pkts_per_s": s.pkts_per_s,
            "consistent": s.consistent(),
            "setup_s": s.setup_s,
        }
    return d


# ------------------------------------------------------------------ the report
def _fmt_int(x: Optional[float]) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{int(x):,}"


def _fmt(x: Optional[float], spec: str) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def render(res: Mapping[str, Any]) -> str:
    """The results as Markdown: machine, the table, notes, memory check, sweep."""
    L: List[str] = []
    cfg = res["config"]
    L.append(f"Run {res['started']} ({res['elapsed_s'] / 60:.1f} min"
             f"{', --quick' if cfg['quick'] else ''}): `python -m aqmsim.bench"
             f"{' --quick' if cfg['quick'] else ''}`, {cfg['reps']} rounds, seed {cfg['seed']}.")
    L.append("")
    L.append("| machine | |")
    L.append("|---|---|")
    for k, v in res["machine"].items():
        L.append(f"| {k} | {v} |")
    L.append("")
    L.append("| scenario | simulator | runs | wall s, median (min–max) | bottleneck pkts | pkts / wall s "
             "| speed vs ns-2 | speed vs ns-3 | utilisation | drops | peak RSS MiB |")
    L.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    notes: List[str] = []
    for sc in res["scenarios"]:
        label = f"{sc['name']}<br>{sc['flows']} flows, {sc['bottleneck']}, {sc['duration']:g} s"
        ns2 = sc["sims"].get(NS2)
        ns2_rate = ns2["pkts_per_s"] if ns2 else math.nan
        ns3 = sc["sims"].get(NS3)
        ns3_rate = ns3["pkts_per_s"] if ns3 else math.nan
        for name, s in sc["sims"].items():
            ok = [o for o in s["runs"] if o["error"] is None]
            if not ok:
                L.append(f"| {label} | {name} | 0 | {s['note'] or 'failed'} | | | | | | | |")
                label = ""
                continue
            walls = [o["wall"] for o in ok]
            last = ok[-1]
            speed = s["pkts_per_s"] / ns2_rate if ns2_rate and not math.isnan(ns2_rate) else math.nan
            speed3 = s["pkts_per_s"] / ns3_rate if ns3_rate and not math.isnan(ns3_rate) else math.nan
            runs = f"{len(ok)}" + ("*" if s["note"] else "")
            L.append(
                f"| {label} | {name} | {runs} | {statistics.median(walls):.2f} ({min(walls):.2f}–{max(walls):.2f}) "
                f"| {_fmt_int(last['packets'])} | {_fmt_int(s['pkts_per_s'])} "
                f"| {_fmt(speed, '.2f')}× | {_fmt(speed3, '.1f')}× | {_fmt(last['utilisation'], '.3f')} "
                f"| {_fmt_int(last['drops'])} "
                f"| {max(o['max_rss_mib'] for o in ok):.1f} |"
            )
            label = ""
            if s["note"]:
                notes.append(f"{sc['name']}, {name}: {s['note']}.")
            if not s["consistent"]:
                notes.append(f"{sc['name']}, {name}: the runs did not all report the same packet and drop counts.")
            inner = s["median_inner_s"]
            if name == AQMSIM and "engine" in inner:
                notes.append(f"{sc['name']}, aqmsim: {inner['engine']:.2f} s of the {s['median_wall_s']:.2f} s "
                             f"inside the engine's run (the rest: Python start-up, scenario parsing, results).")
            if s.get("setup_s") is not None:
                steady = (last["packets"] / (s["median_wall_s"] - s["setup_s"])
                          if last["packets"] and s["median_wall_s"] > s["setup_s"] else math.nan)
                ours = sc["sims"].get(AQMSIM, {}).get("pkts_per_s", math.nan)
                share = s["setup_s"] / s["median_wall_s"]
                notes.append(f"{sc['name']}, {name}: the same script run to 1 ms of simulated time takes "
                             f"{s['setup_s']:.2f} s (set-up: building the topology in Tcl, computing routes); "
                             f"without it {_fmt_int(steady)} pkts / s, and aqmsim's speed over that "
                             f"{_fmt(ours / steady if steady else math.nan, '.2f')}×"
                             + (f" (set-up is {share:.0%} of ns-2's time: this rate is the difference of two "
                                f"close, noisy numbers, a rough figure only)." if share > 0.5 else "."))
            if any(o.get("extra", {}).get("bytes_wrapped") for o in ok):
                notes.append(f"{sc['name']}, {name}: ns-2's QueueMonitor counts bytes in a 32-bit int, which "
                             f"wrapped; the utilisation is computed from the unwrapped count.")
            if name == NS3 and "setup" in inner:
                notes.append(f"{sc['name']}, ns-3: set-up {inner['setup']:.2f} s, simulation {inner['run']:.2f} s "
                             f"({_fmt_int(last['events'])} events).")
    L.append("")
    L.append("Wall time: spawning the simulator's process to reaping it (the median over the runs). "
             "Bottleneck packets: packets that left the bottleneck queue for the wire. "
             "Speed vs ns-2: packets per wall second over ns-2's. Peak RSS: the largest resident set "
             "of one run's process. * fewer runs than rounds (see the notes).")
    if notes:
        L.append("")
        for n in notes:
            L.append(f"- {n}")
    mem = res.get("memory")
    L.append("")
    L.append("**Memory against simulated time** (aqmsim, one run each):")
    L.append("")
    if mem:
        L.append("| scenario | simulated s | wall s | bottleneck pkts | drop-log rows | per-event tables in memory, MiB "
                 "| drop log on file, MiB | peak RSS MiB | peak RSS without the tables in memory, MiB |")
        L.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
        for r in mem["rows"]:
            L.append(f"| {mem['scenario']} | {r['duration']:g} | {r['wall']:.2f} | {_fmt_int(r['packets'])} "
                     f"| {_fmt_int(r['rows'].get('drops'))} | {_fmt(r['results_mib'], '.1f')} "
                     f"| {_fmt(r.get('mapped_mib', math.nan), '.1f')} | {r['max_rss_mib']:.1f} "
                     f"| {_fmt(r['max_rss_mib'] - r['results_mib'], '.1f')} |")
        k = mem["rows"][1]["duration"] / mem["rows"][0]["duration"]
        flat = mem["ratio"] <= 1.25
        L.append("")
        L.append(f"{k:g}× the simulated time: {mem['ratio']:.2f}× the peak memory — "
                 + ("flat (within 25 %): the drop log, the one record that grows with time, goes to "
                    "files as the run goes (64 Ki rows at most in memory) and Python maps them." if flat else
                    f"**not flat**; without the per-event tables handed to Python, "
                    f"{_fmt(mem['ratio_without_results'], '.2f')}×."))
    sw = res.get("sweep") or {}
    L.append("")
    L.append("**Sweep throughput** (`aqmsim.sweep.bench_throughput`):")
    L.append("")
    if sw.get("rows"):
        run_s = sw["rows"][0].get("run_s")
        if run_s is not None:
            L.append(f"One run: {_fmt(1e3 * run_s, '.0f')} ms of simulation (mean, in its worker). "
                     "Speedup: runs/s over those of one worker; efficiency: speedup / workers "
                     "(100 % = linear).")
            L.append("")
        L.append("| workers | runs | wall s | worker start-up s | runs / s | speedup | efficiency |")
        L.append("|--:|--:|--:|--:|--:|--:|--:|")
        for r in sw["rows"]:
            eff = r.get("efficiency")
            L.append(f"| {r.get('workers')} | {_fmt_int(r.get('runs'))} | {_fmt(r.get('seconds'), '.2f')} "
                     f"| {_fmt(r.get('startup_s'), '.2f')} | {_fmt(r.get('runs_per_s'), '.2f')} "
                     f"| {_fmt(r.get('speedup'), '.2f')} "
                     f"| {_fmt(None if eff is None else 100 * eff, '.0f')}"
                     f"{'' if eff is None or eff != eff else ' %'} |")
    else:
        L.append(sw.get("skipped", "not measured."))
    return "\n".join(L) + "\n"


def write_docs(text: str, path: Path = DOC) -> None:
    """Replace the numbers section of docs/performance.md (between the bench markers)."""
    doc = path.read_text() if path.exists() else ""
    block = f"{DOC_BEGIN}\n{text.rstrip()}\n{DOC_END}"
    if DOC_BEGIN in doc and DOC_END in doc:
        head, rest = doc.split(DOC_BEGIN, 1)
        _, tail = rest.split(DOC_END, 1)
        doc = head + block + tail
    else:
        doc = (doc.rstrip() + "\n\n## Latest numbers\n\n" if doc else "# Performance\n\n## Latest numbers\n\n") + block + "\n"
    path.write_text(doc)


# ------------------------------------------------------------------ command line
def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m aqmsim.bench",
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
            _log(f"wrote {DOC}")
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
    cfg.workdir = a.workdir

    res = run_bench(cfg)
    text = render(res)
    print(text)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1, default=str))
    if a.write_docs:
        write_docs(text)
        _log(f"wrote {DOC}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
