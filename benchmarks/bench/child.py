"""Child processes, timed: wall time from spawning to reaping, and the child's own peak
memory; and the aqmsim child, which loads the compiled engine alone."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from .machine import _cmd

__all__ = ["ChildRun", "run_child", "AQMSIM_CHILD"]


@dataclass
class ChildRun:
    wall: float  # s, spawn to reap
    max_rss_mib: float  # the child's own peak resident set
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str
    #: wall clock (``time.time()``) just before spawning: a stamp the child prints from
    #: its own clock, minus this, is the time from spawning to that point
    spawned_at: float = math.nan


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
        spawned_at = time.time()
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
        return ChildRun(wall, rss_kib / 1024, proc.returncode, killed.is_set(), out.read(), err.read(),
                        spawned_at)


# The aqmsim child: load the compiled engine alone (not the aqmsim package, which imports
# pandas), run the scenario JSON, write the summary and the engine's own time, as a Python
# literal (importing the json module would cost the child ~8 ms, 4 % of a 100-flow run).
AQMSIM_CHILD = r"""
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

