"""The benchmark's results as Markdown (the table ``docs/performance.md`` holds)."""

from __future__ import annotations

import math
import re
import statistics
from pathlib import Path
from typing import Any, List, Mapping, Optional

from .config import AQMSIM, DOC, DOC_BEGIN, DOC_END, NS2, NS3, STACK_PAIRS
from .plugin import render_plugin
from .suite import render_suite
from .usercost import ratio

__all__ = ["render", "write_docs"]


def _fmt_int(x: Optional[float]) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{int(x):,}"


def _fmt(x: Optional[float], spec: str) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def render(res: Mapping[str, Any]) -> str:
    """The results as Markdown: machine, the table, notes, memory check, sweep."""
    L: List[str] = []
    cfg = res["config"]
    argv = " ".join(cfg.get("argv") or (["--quick"] if cfg["quick"] else []))
    L.append(f"Run {res['started']} ({res['elapsed_s'] / 60:.1f} min"
             f"{', --quick' if cfg['quick'] else ''}): `make bench"
             f"{f' BENCH_ARGS={argv!r}' if argv else ''}`, {cfg['reps']} rounds, seed {cfg['seed']}.")
    L.append("")
    L.append("| machine | |")
    L.append("|---|---|")
    for k, v in res["machine"].items():
        L.append(f"| {k} | {v} |")
    L.append("")
    L.append("| scenario | simulator | runs | wall s, median (min–max) | set-up + simulation s | bottleneck pkts "
             "| pkts / wall s | speed vs ns-2 | speed vs ns-3 | utilisation | drops | peak RSS MiB |")
    L.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
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
                L.append(f"| {label} | {name} | 0 | {s['note'] or 'failed'} | | | | | | | | |")
                label = ""
                continue
            walls = [o["wall"] for o in ok]
            last = ok[-1]
            speed = s["pkts_per_s"] / ns2_rate if ns2_rate and not math.isnan(ns2_rate) else math.nan
            speed3 = s["pkts_per_s"] / ns3_rate if ns3_rate and not math.isnan(ns3_rate) else math.nan
            runs = f"{len(ok)}" + ("*" if s["note"] else "")
            L.append(
                f"| {label} | {name} | {runs} | {statistics.median(walls):.2f} ({min(walls):.2f}–{max(walls):.2f}) "
                f"| {_split(name, s)} | {_fmt_int(last['packets'])} | {_fmt_int(s['pkts_per_s'])} "
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
            if last.get("extra", {}).get("equivalent"):
                notes.append(f"{sc['name']}, {name}: ran {last['extra']['equivalent']}.")
            if any(o.get("extra", {}).get("bytes_wrapped") for o in ok):
                notes.append(f"{sc['name']}, {name}: ns-2's QueueMonitor counts bytes in a 32-bit int, which "
                             f"wrapped; the utilisation is computed from the unwrapped count.")
    L.append("")
    L.append("Wall time: spawning the simulator's process to reaping it (the median over the runs). "
             "Set-up + simulation: medians of the wall time before and after the first simulated "
             "instant — aqmsim: the engine's `run` (simulation) and the rest of its process (Python "
             "start-up, scenario parsing, results); ns-2: an event at simulated time 0 prints the wall "
             "clock, after ns-2 has built the topology in Tcl and set up its routes (the exported script "
             "routes a dumbbell by hand, as ns-2's own many-flow examples do: ns-2 at its best); ns-3: the "
             "program's own timers. Bottleneck packets: packets that left the bottleneck queue for the wire. "
             "Speed vs ns-2: packets per wall second over ns-2's (whole processes). Peak RSS: the largest "
             "resident set of one run's process. * fewer runs than rounds (see the notes).")
    if notes:
        L.append("")
        for n in notes:
            L.append(f"- {n}")
    L.extend(_stack_section(res))
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
    else:
        L.append("not measured.")
    L.extend(_user_section(res.get("user")))
    L.extend(render_suite(res.get("suite")))
    if "plugin" in res:  # (results written before issue 26 have none)
        L.extend(render_plugin(res["plugin"]))
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


#: Issue 24's bounds: the linux stack's cost per packet over the ns2 stack's, and aqmsim's
#: speed over ns-3's on the linux stack's CUBIC and BBR scenarios.
STACK_COST_MAX, NS3_SPEED_MIN = 1.3, 100.0


def _stack_section(res: Mapping[str, Any]) -> List[str]:
    """The linux TCP stack beside the ns2 stack (STACK_PAIRS: the same dumbbell) and beside
    ns-3, as issue 24 bounds them; nothing when no pair and no linux scenario ran."""
    by = {sc["name"]: sc for sc in res["scenarios"]}
    rows, fast = [], []
    for lin, ns2 in STACK_PAIRS:
        a, b = (by.get(n, {}).get("sims", {}).get(AQMSIM) for n in (lin, ns2))
        if not a or not b or not a["runs"] or not b["runs"]:
            continue
        pa, pb = (next((o["packets"] for o in s["runs"] if o["error"] is None), None) for s in (a, b))
        ea, eb = (s["median_inner_s"].get("engine") for s in (a, b))
        if not pa or not pb:
            continue
        wall = (a["median_wall_s"] / pa) / (b["median_wall_s"] / pb)
        eng = (ea / pa) / (eb / pb) if ea and eb else math.nan
        # the fastest run of each: on a shared machine, the least disturbed
        best = [min((o["inner"].get("engine", math.nan) for o in s["runs"] if o["error"] is None), default=math.nan)
                for s in (a, b)]
        eng_best = (best[0] / pa) / (best[1] / pb) if best[1] else math.nan
        rows.append(f"| {lin} | {ns2} | {a['median_wall_s']:.3f} / {b['median_wall_s']:.3f} "
                    f"| {_fmt(ea, '.3f')} / {_fmt(eb, '.3f')} | {_fmt_int(pa)} / {_fmt_int(pb)} "
                    f"| {_fmt_int(1e9 * ea / pa if ea else None)} / {_fmt_int(1e9 * eb / pb if eb else None)} "
                    f"| **{wall:.2f}×** | {_fmt(eng, '.2f')}× | {_fmt(eng_best, '.2f')}× |")
    for sc in res["scenarios"]:
        a, b = sc["sims"].get(AQMSIM), sc["sims"].get(NS3)
        if "-linux-" in sc["name"] and a and b and b.get("pkts_per_s") and not math.isnan(b["pkts_per_s"]):
            fast.append(f"{sc['name']} {a['pkts_per_s'] / b['pkts_per_s']:.0f}×{_paired_range(a, b)}")
    if not rows and not fast:
        return []
    L = ["", f"**The linux TCP stack** (issue 24: at most {STACK_COST_MAX:g}× the ns2 stack's cost on the same "
         f"scenario; CUBIC and BBR at least {NS3_SPEED_MIN:g}× faster than ns-3's whole process):", ""]
    if rows:
        L.append("| linux stack | ns2 stack, same dumbbell | wall s (linux / ns2) | engine s | bottleneck pkts "
                 "| engine ns per pkt | cost per pkt, whole process | cost per pkt, engine | engine, fastest runs |")
        L.append("|---|---|--:|--:|--:|--:|--:|--:|--:|")
        L.extend(rows)
        L.append("")
        L.append("Cost per packet: wall (or engine) seconds per bottleneck packet of the linux-stack run over "
                 "those of the ns2-stack run (medians), so that a different packet count does not bias it; "
                 "fastest runs: the same with each side's fastest engine run (on a shared machine, the least "
                 "disturbed).")
    if fast:
        L.append("")
        L.append("aqmsim over ns-3 on the linux stack (packets per wall second, whole processes; medians, "
                 "and the spread of the rounds run in turn): " + ", ".join(fast) + ".")
    return L


def _paired_range(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    """The spread of a speed ratio over the bench's rounds: round i of aqmsim against round i
    of ns-3 (they run in turn, so a pair shares the machine's state), " (rounds: lo–hi×)",
    or nothing with fewer than two pairs."""
    pairs = [(x, y) for x, y in zip(a.get("runs", []), b.get("runs", []))
             if x.get("error") is None and y.get("error") is None and x.get("wall") and y.get("wall")
             and x.get("packets") and y.get("packets")]
    if len(pairs) < 2:
        return ""
    r = sorted((x["packets"] / x["wall"]) / (y["packets"] / y["wall"]) for x, y in pairs)
    return f" (rounds paired: {r[0]:.0f}–{r[-1]:.0f}×, {len(r)} pairs)"


def _split(name: str, s: Mapping[str, Any]) -> str:
    """A simulator's median set-up and simulation time, ``a + b``, or a dash."""
    inner = s.get("median_inner_s") or {}
    if name == AQMSIM and "engine" in inner:
        return f"{s['median_wall_s'] - inner['engine']:.2f} + {inner['engine']:.2f}"
    if "setup" in inner and "run" in inner:
        return f"{inner['setup']:.2f} + {inner['run']:.2f}"
    return "—"


def _user_section(user: Optional[Mapping[str, Any]]) -> List[str]:
    """What a user waits for (usercost.py): one row per command, and aqmsim's CLI beside ns-2."""
    L = ["", "**What a user waits for** (whole processes, as typed in a shell; "
         + (f"median of {user['reps']} runs):" if user else "not measured):"), ""]
    if not user:
        return L[:-1] + ["(`--no-user`.)"]
    L.append("| command | runs | wall s, median (min–max) | peak RSS MiB |")
    L.append("|---|--:|--:|--:|")
    for r in user["rows"]:
        if r["error"] or not r["walls"]:
            L.append(f"| `{r['command']}` | {r['runs']} | failed: {r['error'] or 'no run'} | |")
            continue
        w = r["walls"]
        L.append(f"| `{r['command']}` | {r['runs']} | {r['median_wall_s']:.3f} ({min(w):.3f}–{max(w):.3f}) "
                 f"| {r['max_rss_mib']:.1f} |")
    ns2, k = user.get("ns2"), ratio(user)
    L.append("")
    if ns2 and k is not None:
        setup = ns2.get("median_setup_s")
        L.append(f"ns-2 on the same work ({user['scenario']}, {user.get('duration', math.nan):g} simulated s, "
                 "whole process, the scenario table's runs): "
                 f"{ns2['median_wall_s']:.2f} s"
                 + (f" ({setup:.2f} s of it set-up)" if setup is not None else "")
                 + f", peak RSS {ns2['max_rss_mib']:.1f} MiB; `{user['cli']} run` is **{k:.1f}× faster** "
                 "than ns-2, the whole of both processes counted.")
    else:
        L.append(f"(ns-2 did not run {user['scenario']} in this bench: no ratio.)")
    return L


def write_docs(text: str, path: Path = DOC) -> None:
    """Replace the numbers section of docs/performance.md (between the bench markers)."""
    doc = path.read_text() if path.exists() else ""
    block = f"{DOC_BEGIN}\n{text.rstrip()}\n{DOC_END}"
    # the begin marker by its opening only: its wording (which command writes it) may change
    m = re.search(r"<!-- bench:begin[^\n]*-->", doc)
    if m and DOC_END in doc[m.end():]:
        _, tail = doc[m.end():].split(DOC_END, 1)
        doc = doc[:m.start()] + block + tail
    else:
        doc = (doc.rstrip() + "\n\n## Latest numbers\n\n" if doc else "# Performance\n\n## Latest numbers\n\n") + block + "\n"
    path.write_text(doc)

