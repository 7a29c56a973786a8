"""The RFC 7928 suite as a user runs it (issue 16: every discipline × every scenario × 5
seeds in under 10 minutes on the 2-core machine): ``aqmsim suite rfc7928`` as one whole
process into an empty directory, timed from spawning to reaping; the runs' and the
report's shares come from the ``suite.json`` the command writes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

from .child import run_child
from .config import BenchConfig, flat_error, log
from .usercost import cli_command

__all__ = ["suite_time"]


def suite_time(cfg: BenchConfig, workdir: Path) -> Dict[str, Any]:
    """Run the whole suite once (``--quick``: one seed) and say how long it took."""
    seeds = 1 if cfg.quick else 5
    out = workdir / "suite-rfc7928"
    argv = [*cli_command(), "suite", "rfc7928", "--seeds", str(seeds), "--out", str(out)]
    log(f"  suite: {' '.join(argv[-6:])} ...")
    run = run_child(argv, timeout=cfg.timeout)
    res: Dict[str, Any] = {"command": f"aqmsim suite rfc7928 --seeds {seeds}", "seeds": seeds,
                           "cpus": os.cpu_count(), "wall_s": run.wall,
                           "max_rss_mib": run.max_rss_mib}
    info = out / "suite.json"
    if run.returncode not in (0, 1) or not info.is_file():
        res["error"] = flat_error(run.stderr or run.stdout or f"exit {run.returncode}")
        return res
    data = json.loads(info.read_text())
    res.update({k: data.get(k) for k in ("runs", "ok", "failed", "scenarios", "variants",
                                         "aqms", "runs_s", "report_s")})
    log(f"    {res['runs']} runs ({res['failed']} failed) in {run.wall:.0f} s "
        f"(runs {res['runs_s']:.0f} s, report {res['report_s']:.0f} s)")
    return res


def render_suite(s: Any) -> List[str]:
    """The suite's lines in the bench's Markdown."""
    L = ["", "**The RFC 7928 suite** (`aqmsim suite rfc7928`, one whole process, "
         "an empty output directory):", ""]
    if not s:
        return L[:-1] + ["(`--no-suite`.)"]
    if s.get("error"):
        return L + [f"failed: {s['error']}"]
    L.append(f"{s['runs']} runs ({len(s['aqms'])} disciplines × {s['scenarios']} scenarios "
             f"({s['variants']} variants) × {s['seeds']} seeds; {s['failed']} failed) in "
             f"**{s['wall_s'] / 60:.1f} min** on {s['cpus']} CPUs: the runs {s['runs_s']:.0f} s, "
             f"the report {s['report_s']:.0f} s; peak RSS {s['max_rss_mib']:.0f} MiB.")
    return L
