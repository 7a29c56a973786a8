"""Measuring: each scenario on each simulator, in rounds; aqmsim's memory against
simulated time; sweep throughput; everything as plain data for report.py."""

from __future__ import annotations

import datetime as _dt
import inspect
import math
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from .config import (MEMORY_SCENARIO, NS3, REPO, BenchConfig, load_scenario, log, set_duration)
from .machine import machine_info
from .ns3 import Ns3
from .sims import Aqmsim, Ns2, Outcome, Simulator, Unsupported
from .plugin import plugin_cost
from .suite import suite_time
from .usercost import user_costs

__all__ = ["run_bench", "bench_scenario", "SimResult", "ScenarioResult"]


@dataclass
class SimResult:
    simulator: str
    runs: List[Outcome] = field(default_factory=list)
    note: str = ""  # why it did not run, or stopped early

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



def bench_scenario(name: str, sims: Sequence[Simulator], cfg: BenchConfig, workdir: Path) -> ScenarioResult:
    from aqmsim.ns2.export import parse_rate, parse_time

    path, sc = load_scenario(name)
    if cfg.duration is not None:
        sc = set_duration(sc, cfg.duration)
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
            log(f"  [{rep + 1}/{cfg.reps}] {res.name:<16} {sname:<7} {status}")
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
    return res


def memory_check(cfg: BenchConfig, workdir: Path) -> Optional[Dict[str, Any]]:
    """aqmsim's peak RSS on MEMORY_SCENARIO at duration D and at memory_factor × D.

    Each duration runs twice: once for the peak RSS, once more (not timed) to count the
    per-event tables the run hands to Python and their size as Python objects, so that
    growth can be told apart: state of the simulation or records of what happened.
    """
    try:
        _, sc = load_scenario(MEMORY_SCENARIO)
    except FileNotFoundError as exc:
        log(f"memory check skipped: {exc}")
        return None
    from aqmsim.ns2.export import parse_time

    base = cfg.duration if cfg.duration is not None else parse_time(sc["duration"])
    rows = []
    for d in (base, base * cfg.memory_factor):
        w = workdir / "memory" / f"{d:g}s"
        w.mkdir(parents=True, exist_ok=True)
        scd = set_duration(sc, d)
        o = Aqmsim().prepare(scd, cfg.seed, w)(cfg.timeout)
        if o.error:
            log(f"memory check: aqmsim failed at {d:g} s: {o.error}")
            return None
        sz = Aqmsim(sizes=True).prepare(scd, cfg.seed, w)(cfg.timeout)
        extra = sz.extra if sz.error is None else {}
        log(f"  memory check     aqmsim  {d:6g} simulated s: {o.wall:6.2f} s wall, {o.max_rss_mib:7.1f} MiB"
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
    log(f"  sweep throughput: bench_throughput({workers}{', runs=%d' % cfg.sweep_runs if kwargs else ''}) ...")
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
        log(f"    {r.get('workers')} workers: {r.get('runs_per_s', math.nan):.2f} runs/s, "
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
            log(f"{name}:")
            results.append(bench_scenario(name, sims, cfg, workdir))
        mem = memory_check(cfg, workdir) if cfg.memory_check else None
        sw = sweep_throughput(cfg) if cfg.sweep else {"skipped": "not asked for (--no-sweep)"}
        user = user_costs(cfg, workdir, results) if cfg.user else None
        suite = suite_time(cfg, workdir) if cfg.suite else None
        plugin = plugin_cost(cfg, workdir) if cfg.plugin else None
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
                   "ns3_budget_s": cfg.ns3_budget, "timeout_s": cfg.timeout, "argv": cfg.argv},
        "machine": info,
        "scenarios": [_scenario_dict(r) for r in results],
        "memory": mem,
        "sweep": sw,
        "user": user,
        "suite": suite,
        "plugin": plugin,
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
                               for k in (s.ok[0].inner if s.ok else {}) if all(k in o.inner for o in s.ok)},
            "pkts_per_s": s.pkts_per_s,
            "consistent": s.consistent(),
        }
    return d

