"""What a Python queue discipline costs (issue 26: ≤ 2 µs per packet decision; a 10 Mb/s,
60 s, 20-flow run with a Python AQM under 2 s as a whole process).

Per decision: the scenario ``python-red-10M-n20`` run in this process with a Python
discipline and with the built-in one that gives the very same run — (a) a trivial
plug-in that accepts every packet against ``droptail`` with a buffer it never fills,
(b) the Python RED (the one proved equal to RED, issue 26) against the built-in RED —
each ``reps`` times in turns; the cost is the difference of the median wall times over
the number of decisions (the plug-in's calls: one per arrival at the bottleneck, plus one
per departure when it has a ``dequeue``). The two runs are checked to be the same run
(equal summaries), else the row says so and gives no figure.

Per ACK (a Python congestion control): the same scenario with the built-in RED at the
bottleneck, the flows' built-in NewReno against the Python NewReno of
``aqmsim.plugin.examples.newreno`` (``NewRenoNs2`` on the ns-2 stack, ``NewReno`` on the
linux stack), timed the same way and checked to be the same run; the cost is the
difference over the number of ``on_ack`` calls, counted in one more (untimed) run by a
subclass that counts them (itself checked to be the same run).

Whole process: ``aqmsim run benchmarks/scenarios/python-red-10M-n20.toml``, timed from
spawning to reaping (:func:`~bench.child.run_child`), beside the same command on the
built-in RED's file.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional

from .child import run_child
from .config import BenchConfig, flat_error, load_scenario, log, set_duration

__all__ = ["plugin_cost", "render_plugin", "PLUGIN_SCENARIO", "GOAL_NS", "GOAL_PROCESS_S"]

#: The issue's run: 10 Mb/s, 60 s, 20 flows, the Python RED at the bottleneck.
PLUGIN_SCENARIO = "python-red-10M-n20"
#: Issue 26's goals.
GOAL_NS = 2000.0
GOAL_PROCESS_S = 2.0
#: A plug-in that accepts every packet (its only cost is the call), as a file so that a
#: whole process could import it too.
TRIVIAL = '''from aqmsim.plugin import ACCEPT, QueueDiscipline


class AcceptAll(QueueDiscipline):
    """Accept every arrival: the cost of a plug-in call and nothing else."""

    def __init__(self, limit=50):
        pass

    def enqueue(self, pkt, q):
        return ACCEPT
'''
#: The buffer of the trivial pair: more than the flows' windows can ever fill, so the
#: built-in droptail never drops and the two runs are one.
BIG_BUFFER = 100_000
_Q = ("dumbbell", "bottleneck", "queue")


def _with_queue(sc: Dict[str, Any], queue: Dict[str, Any]) -> Dict[str, Any]:
    import copy

    out = copy.deepcopy(sc)
    out["dumbbell"]["bottleneck"]["queue"] = queue
    return out


def _has_dequeue(spec: str, base_dir: Path) -> bool:
    from aqmsim.plugin.factory import find_class
    from aqmsim.plugin import QueueDiscipline

    cls = find_class(spec, "bench", base_dir=base_dir)
    return getattr(cls, "dequeue", None) is not getattr(QueueDiscipline, "dequeue", None)


def _time_pair(make: Callable[[str], Any], reps: int, seed: int) -> Dict[str, Any]:
    """Run ``make("plugin")`` and ``make("builtin")`` ``reps`` times each, in turns
    (reversed every round); their wall times and their last summaries."""
    walls: Dict[str, List[float]] = {"plugin": [], "builtin": []}
    summary: Dict[str, Dict[str, float]] = {}
    for rep in range(reps):
        for which in (("plugin", "builtin") if rep % 2 == 0 else ("builtin", "plugin")):
            sc = make(which)
            t0 = time.perf_counter()
            res = sc.run(seed=seed)
            walls[which].append(time.perf_counter() - t0)
            summary[which] = dict(res.summary)
    return {"walls": walls, "summary": summary}


def _pair_row(name: str, got: Mapping[str, Any], decisions_of: Callable[[Mapping[str, float]], int]
              ) -> Dict[str, Any]:
    s_p, s_b = got["summary"]["plugin"], got["summary"]["builtin"]
    keys = ("bottleneck_arrivals", "bottleneck_drops", "goodput_bps", "time_avg_queue_pkts")
    same = all(s_p.get(k) == s_b.get(k) for k in keys)
    mp = statistics.median(got["walls"]["plugin"])
    mb = statistics.median(got["walls"]["builtin"])
    n = decisions_of(s_p)
    row = {"name": name, "plugin_s": mp, "builtin_s": mb, "decisions": n, "same_run": same,
           "walls": got["walls"], "arrivals": int(s_p.get("bottleneck_arrivals", 0))}
    row["ns_per_decision"] = (mp - mb) / n * 1e9 if same and n else None
    return row


def plugin_cost(cfg: BenchConfig, workdir: Path) -> Dict[str, Any]:
    """Both measures; never raises (a failure is the row's ``error``)."""
    try:
        return _plugin_cost(cfg, workdir)
    except Exception as exc:  # noqa: BLE001 - the bench goes on, the table says why
        return {"error": f"{type(exc).__name__}: {exc}"}


def _plugin_cost(cfg: BenchConfig, workdir: Path) -> Dict[str, Any]:
    import aqmsim

    reps = max(cfg.reps, 3)
    path, sc = load_scenario(PLUGIN_SCENARIO)
    if cfg.duration is not None:
        sc = set_duration(sc, cfg.duration)
    red_py = sc["dumbbell"]["bottleneck"]["queue"]
    from aqmsim.plugin.portable import absolute_plugin_paths

    red_py = absolute_plugin_paths(red_py, path.parent)
    red_builtin = {k: v for k, v in red_py.items() if k != "class"}
    red_builtin["kind"] = "red"
    wd = workdir / "plugin"
    wd.mkdir(parents=True, exist_ok=True)
    (wd / "accept_all.py").write_text(TRIVIAL)
    trivial = {"kind": "python", "class": f"{wd / 'accept_all.py'}:AcceptAll",
               "limit": BIG_BUFFER}
    pairs = {
        "trivial plug-in (accept all) vs droptail": (trivial, {"kind": "droptail",
                                                                "limit": BIG_BUFFER}),
        "Python RED vs built-in RED": (red_py, red_builtin),
    }
    rows = []
    for name, (plug, builtin) in pairs.items():
        log(f"  plug-in: {name} ...")
        dq = _has_dequeue(plug["class"], path.parent)

        def make(which: str, plug=plug, builtin=builtin) -> Any:
            return aqmsim.Scenario(_with_queue(sc, plug if which == "plugin" else builtin))

        def decisions(s: Mapping[str, float], dq=dq) -> int:
            arrivals = int(s["bottleneck_arrivals"])
            # a dequeue call for every packet that left (arrivals not dropped at arrival)
            return arrivals + (arrivals - int(s["bottleneck_drops"]) if dq else 0)

        row = _pair_row(name, _time_pair(make, reps, cfg.seed), decisions)
        row["dequeue"] = dq
        log(f"    {row['plugin_s']:.3f} s vs {row['builtin_s']:.3f} s over {row['decisions']:,} "
            f"decisions: " + (f"{row['ns_per_decision']:.0f} ns each" if row["ns_per_decision"]
                              is not None else "NOT the same run"))
        rows.append(row)
    return {"reps": reps, "scenario": PLUGIN_SCENARIO, "duration": _duration(sc),
            "pairs": rows, "cc_pairs": _cc_pairs(_with_queue(sc, red_builtin), reps, cfg.seed),
            "process": _process(cfg, path, sc, red_builtin, wd, reps)}


#: The stacks of the congestion-control pairs and the Python NewReno that equals each
#: one's built-in NewReno.
CC_STACKS = (("ns2", "NewRenoNs2"), ("linux", "NewReno"))


def _cc_scenario(sc: Dict[str, Any], stack: str) -> Dict[str, Any]:
    import copy

    out = copy.deepcopy(sc)
    tcp = out["tcp"]
    tcp.update(stack=stack, variant="newreno")
    if stack == "linux":  # ns-3's delayed ACKs (every 2 segments), not ns-2's switch
        tcp.pop("delayed_ack", None)
    return out


def _cc_pairs(sc: Dict[str, Any], reps: int, seed: int) -> List[Dict[str, Any]]:
    """The per-ACK cost of the Python NewReno on each stack (the built-in RED queue)."""
    import aqmsim
    from aqmsim.plugin.examples import newreno

    rows = []
    for stack, cls_name in CC_STACKS:
        name = f"Python NewReno vs built-in NewReno ({stack} stack)"
        log(f"  plug-in: {name} ...")
        base = aqmsim.Scenario(_cc_scenario(sc, stack))
        cls = getattr(newreno, cls_name)
        calls = [0]

        class Counting(cls):  # type: ignore[misc, valid-type]
            def on_ack(self, tcp: Any, acked: int) -> None:
                calls[0] += 1
                super().on_ack(tcp, acked)

        def make(which: str, base=base, cls=cls) -> Any:
            if which == "builtin":
                return base
            return base.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": cls})

        got = _time_pair(make, reps, seed)
        counted = base.with_overrides(**{"tcp.variant": "python", "tcp.cc_class": Counting})
        s_c = dict(counted.run(seed=seed).summary)
        row = _pair_row(name, got, lambda s: calls[0])
        keys = ("bottleneck_arrivals", "bottleneck_drops", "goodput_bps")
        if not all(s_c.get(k) == got["summary"]["builtin"].get(k) for k in keys):
            row["same_run"], row["ns_per_decision"] = False, None
        row["stack"] = stack
        log(f"    {row['plugin_s']:.3f} s vs {row['builtin_s']:.3f} s over {row['decisions']:,} "
            f"on_ack calls: " + (f"{row['ns_per_decision']:.0f} ns each" if row["ns_per_decision"]
                                 is not None else "NOT the same run"))
        rows.append(row)
    return rows


def _duration(sc: Mapping[str, Any]) -> float:
    from aqmsim.ns2.export import parse_time

    return float(parse_time(sc["duration"], "duration"))


def _process(cfg: BenchConfig, path: Path, sc: Dict[str, Any], red_builtin: Dict[str, Any],
             wd: Path, reps: int) -> Dict[str, Any]:
    """``aqmsim run`` of the plug-in's scenario and of the same with the built-in RED, as
    whole processes, in turns."""
    from aqmsim.scenario import dumps_toml

    from .usercost import cli_command

    files = {"python": path, "builtin": wd / "builtin-red.toml"}
    files["builtin"].write_text(dumps_toml(_with_queue(sc, red_builtin)))
    if cfg.duration is not None:  # the plug-in's file with the bench's duration, beside it
        from aqmsim.plugin.portable import absolute_plugin_paths

        files["python"] = wd / path.name
        files["python"].write_text(dumps_toml(absolute_plugin_paths(sc, path.parent)))
    cli = cli_command()
    walls: Dict[str, List[float]] = {k: [] for k in files}
    out: Dict[str, Any] = {"command": f"aqmsim run benchmarks/scenarios/{path.name}"}
    for rep in range(reps):
        for k in (("python", "builtin") if rep % 2 == 0 else ("builtin", "python")):
            c = run_child([*cli, "run", str(files[k]), "--seed", str(cfg.seed)], cwd=wd,
                          timeout=cfg.timeout)
            if c.returncode != 0:
                out["error"] = f"{k}: exit {c.returncode}: {flat_error(c.stderr)}"
                return out
            walls[k].append(c.wall)
            if k == "python":
                out["max_rss_mib"] = max(out.get("max_rss_mib", 0.0), c.max_rss_mib)
    out.update({"walls": walls, "median_s": statistics.median(walls["python"]),
                "builtin_median_s": statistics.median(walls["builtin"])})
    log(f"  plug-in: {out['command']}: {out['median_s']:.2f} s "
        f"(built-in RED {out['builtin_median_s']:.2f} s)")
    return out


def render_plugin(p: Optional[Mapping[str, Any]]) -> List[str]:
    """The plug-in lines of the bench's Markdown."""
    L = ["", "**Python plug-ins** (issue 26: ≤ 2 µs per packet decision; the 10 Mb/s, 60 s, "
         "20-flow run with a Python AQM under 2 s as a whole process):", ""]
    if not p:
        return L[:-1] + ["(`--no-plugin`.)"]
    if p.get("error"):
        return L + [f"failed: {p['error']}"]
    L.append(f"| {p['scenario']} ({p['duration']:g} s), median of {p['reps']} | plug-in s | "
             "built-in s | decisions | ns per decision |")
    L.append("|---|---|---|---|---|")
    for r in p["pairs"]:
        ns = r["ns_per_decision"]
        cell = "not the same run: no figure" if ns is None else (
            f"**{ns:.0f}**" + (" (goal ≤ 2000)" if ns > GOAL_NS else ""))
        L.append(f"| {r['name']}{' (enqueue + dequeue)' if r.get('dequeue') else ''} | "
                 f"{r['plugin_s']:.3f} | {r['builtin_s']:.3f} | {r['decisions']:,} | {cell} |")
    if p.get("cc_pairs"):
        L += ["", f"| Python congestion control, {p['scenario']} with the built-in RED "
              f"({p['duration']:g} s), median of {p['reps']} | plug-in s | built-in s | "
              "on_ack calls | ns per ACK |", "|---|---|---|---|---|"]
        for r in p["cc_pairs"]:
            ns = r["ns_per_decision"]
            cell = "not the same run: no figure" if ns is None else f"**{ns:.0f}**"
            L.append(f"| {r['name']} | {r['plugin_s']:.3f} | {r['builtin_s']:.3f} | "
                     f"{r['decisions']:,} | {cell} |")
    pr = p.get("process") or {}
    L.append("")
    if pr.get("error"):
        L.append(f"`{pr.get('command', 'aqmsim run')}` failed: {pr['error']}")
    elif pr:
        verdict = "under" if pr["median_s"] < GOAL_PROCESS_S else "**over**"
        L.append(f"`{pr['command']}` as a whole process: **{pr['median_s']:.2f} s** "
                 f"({verdict} the 2 s goal; the same run with the built-in RED "
                 f"{pr['builtin_median_s']:.2f} s), peak RSS {pr.get('max_rss_mib', 0):.0f} MiB.")
    return L


if __name__ == "__main__":  # pragma: no cover - python -m bench.plugin: this part alone
    import json
    import tempfile

    cfg = BenchConfig(reps=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    with tempfile.TemporaryDirectory() as d:
        res = plugin_cost(cfg, Path(d))
    print("\n".join(render_plugin(res)))
    print(json.dumps(res, default=str)[:2000], file=sys.stderr)
