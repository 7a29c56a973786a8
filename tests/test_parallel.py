"""A linux-stack run may take two threads (crates/aqmsim-core/src/sim/parallel.rs): its
results are those of the same run on one, file for file. `AQMSIM_THREADS` chooses (1: one
thread; 2: two whenever the scenario can split; unset: by the run's size and the machine's
load). The engine's own tests (tests/it/parallel.rs) compare every table of many scenarios;
here, what a user sees: `aqmsim run --out` with every output on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run(example: Path, out: Path, threads: str) -> None:
    env = dict(os.environ, AQMSIM_THREADS=threads)
    proc = subprocess.run([sys.executable, "-m", "aqmsim", "run", str(example), "--out", str(out),
                           "--tcp", "all", "--set", "duration=20s"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("example", ["dumbbell-bbr.toml", "dumbbell-l4s.toml"])
def test_aqmsim_run_writes_the_same_files_on_one_thread_and_on_two(examples_dir, tmp_path, example):
    one, two = tmp_path / "one", tmp_path / "two"
    _run(examples_dir / example, one, "1")
    _run(examples_dir / example, two, "2")
    names = sorted(p.relative_to(one).as_posix() for p in one.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(two).as_posix() for p in two.rglob("*") if p.is_file())
    assert {"drops.csv", "tcp.csv", "rtt.csv", "queue.csv", "flows.csv", "delay_cdf.csv"} <= set(names)
    for name in names:
        if name == "provenance.json":
            continue  # when and how long
        a, b = (one / name).read_bytes(), (two / name).read_bytes()
        if name == "summary.json":
            a, b = ({k: v for k, v in json.loads(x).items() if k != "wall_seconds"} for x in (a, b))
        assert a == b, f"{name} differs between one thread and two"


def test_a_bad_thread_count_is_ignored_not_fatal(examples_dir, tmp_path):
    """AQMSIM_THREADS that is not a number leaves the choice to the engine."""
    _run(examples_dir / "dumbbell-bbr.toml", tmp_path / "out", "lots")
    assert (tmp_path / "out" / "summary.json").is_file()
