"""What a user waits for: ``import aqmsim``, ``aqmsim --help``, ``aqmsim run`` of the
100-flow scenario as a whole process (beside ns-2's whole process on the same work), and
``aqmsim run examples/dumbbell-red.toml --out DIR``.

Each command is its own child process, timed from spawning to reaping with its own peak
memory (:func:`~bench.child.run_child`), ``reps`` times; the commands take turns, in an
order that reverses each round, as the simulators do. The CLI is the ``aqmsim`` console
script next to this Python (what ``pip install`` puts on PATH), or ``python -m aqmsim``
where there is none.
"""

from __future__ import annotations

import shutil
import statistics
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .child import run_child
from .config import NS2, REPO, BenchConfig, flat_error, load_scenario, log, set_duration

__all__ = ["user_costs", "cli_command", "USER_SCENARIO", "EXAMPLE"]

#: The scenario whose ``aqmsim run`` is timed as a whole process (issue 15: >= 5x ns-2's).
USER_SCENARIO = "red-100M-n100"
#: The small example whose ``aqmsim run --out`` is timed (issue 15: < 1 s).
EXAMPLE = REPO / "examples" / "dumbbell-red.toml"


def cli_command() -> List[str]:
    """How a user starts aqmsim: the console script beside this interpreter, if any."""
    script = Path(sys.executable).parent / "aqmsim"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "aqmsim"]


def _rel(p: Path) -> str:
    return str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p)


def user_costs(cfg: BenchConfig, workdir: Path, results: Sequence[Any] = ()) -> Dict[str, Any]:
    """Time each command ``max(cfg.reps, 3)`` times; ns-2's figures for the same scenario
    come from ``results`` (the scenario table) when it holds that scenario."""
    reps = max(cfg.reps, 3)
    cli = cli_command()
    shown = "aqmsim" if len(cli) == 1 else "python -m aqmsim"
    wd = workdir / "user"
    wd.mkdir(parents=True, exist_ok=True)
    path, sc = load_scenario(USER_SCENARIO)
    if cfg.duration is not None:  # the table's duration, so ns-2's runs there do the same work
        from aqmsim.scenario import dumps_toml

        path = wd / path.name
        path.write_text(dumps_toml(set_duration(sc, cfg.duration)))
    outs = wd / "out"
    commands: Dict[str, List[str]] = {
        "import aqmsim": [sys.executable, "-c", "import aqmsim"],
        f"{shown} --help": [*cli, "--help"],
        f"{shown} run {USER_SCENARIO}": [*cli, "run", str(path), "--seed", str(cfg.seed)],
        f"{shown} run {_rel(EXAMPLE)} --out DIR": [*cli, "run", str(EXAMPLE), "--out", str(outs)],
    }
    runs: Dict[str, List[Any]] = {k: [] for k in commands}
    errors: Dict[str, str] = {}
    order = list(commands)
    for rep in range(reps):
        for name in (order if rep % 2 == 0 else order[::-1]):
            if name in errors:
                continue
            shutil.rmtree(outs, ignore_errors=True)  # --out into a fresh directory each time
            c = run_child(commands[name], cwd=wd, timeout=cfg.timeout)
            if c.returncode != 0:
                errors[name] = "timed out" if c.timed_out else f"exit {c.returncode}: {flat_error(c.stderr)}"
                log(f"  [{rep + 1}/{reps}] {name:<44} FAILED: {errors[name]}")
                continue
            runs[name].append(c)
            log(f"  [{rep + 1}/{reps}] {name:<44} {c.wall:8.3f} s  {c.max_rss_mib:7.1f} MiB")
    rows = []
    for name, argv in commands.items():
        ok = runs[name]
        rows.append({
            "command": name,
            "argv": [_rel(Path(a)) if a.startswith(str(REPO)) else a for a in argv],
            "runs": len(ok),
            "walls": [c.wall for c in ok],
            "median_wall_s": statistics.median([c.wall for c in ok]) if ok else None,
            "max_rss_mib": max(c.max_rss_mib for c in ok) if ok else None,
            "error": errors.get(name),
        })
    from aqmsim.ns2.export import parse_time

    duration = cfg.duration if cfg.duration is not None else parse_time(sc["duration"])
    return {"reps": reps, "cli": shown, "scenario": USER_SCENARIO, "duration": duration, "rows": rows,
            "ns2": _ns2_of(results, USER_SCENARIO)}


def _ns2_of(results: Sequence[Any], name: str) -> Optional[Dict[str, Any]]:
    """ns-2's median wall time, set-up and peak memory on ``name``, from the scenario table."""
    for r in results:
        if getattr(r, "name", None) != name or NS2 not in r.sims:
            continue
        s = r.sims[NS2]
        if not s.ok:
            return None
        setups = [o.inner["setup"] for o in s.ok if "setup" in o.inner]
        return {"median_wall_s": s.median(), "max_rss_mib": max(o.max_rss_mib for o in s.ok),
                "median_setup_s": statistics.median(setups) if setups else None, "runs": len(s.ok)}
    return None


def ratio(user: Mapping[str, Any]) -> Optional[float]:
    """ns-2's whole process over ``aqmsim run``'s on the same scenario (> 1: aqmsim faster)."""
    ns2 = user.get("ns2")
    row = next((r for r in user.get("rows", []) if r["command"].endswith(f"run {user.get('scenario')}")), None)
    if not ns2 or not row or not row.get("median_wall_s"):
        return None
    return ns2["median_wall_s"] / row["median_wall_s"]
