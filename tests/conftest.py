"""Shared fixtures for the Python test suite.

Tests that need the native engine use the ``core`` fixture. Without a built extension
they fail with a message saying to run ``make build``: a broken build never passes as
"all skipped".
"""

from __future__ import annotations

import contextlib
import copy
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Sequence

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


#: Marks that quiet a Dask cluster's own chatter while it starts, restarts a killed worker
#: and stops (for ``pytestmark`` of the modules that run one).
DASK_QUIET = [pytest.mark.filterwarnings(f"ignore::{w}") for w in (
    "ResourceWarning", "DeprecationWarning", "UserWarning", "RuntimeWarning",
    "pytest.PytestUnraisableExceptionWarning")]


@contextlib.contextmanager
def local_cluster():
    """A two-worker Dask cluster of processes on the loopback, for a module's fixture."""
    import distributed

    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as lc:
        yield lc


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every pyplot figure a test leaves open: figures kept by one test must not trip
    matplotlib's "more than 20 figures" warning (an error here) in a later one."""
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


@pytest.fixture(autouse=True)
def _fresh_cli_consoles():
    """Forget the CLI's consoles after each test: rich fixes a console's width (``COLUMNS``)
    when it is made, so a console made by one test must not set the width of the next
    one's output (which test runs first differs between serial and parallel runs)."""
    yield
    common = sys.modules.get("aqmsim.cli.common")
    if common is not None:
        common.out._console = None
        common.err._console = None


@contextlib.contextmanager
def aqmsim_argv(args: Sequence[Any]):
    """``sys.argv`` as the ``aqmsim ARGS`` process would have it, while a test runs the CLI
    in-process (the CLI records its command line from ``sys.argv`` in a result's
    provenance); yields that command line."""
    saved = sys.argv
    sys.argv = ["aqmsim", *map(str, args)]
    try:
        yield shlex.join(sys.argv)
    finally:
        sys.argv = saved


def collapse(t, w):
    """One value per instant (the last), then only the changes: ns-3's trace shows every
    assignment of an ACK (leaving recovery: cwnd = ssthresh, then the avoidance step);
    aqmsim's series holds what an ACK leaves."""
    import numpy as np

    last = np.r_[t[1:] != t[:-1], True]
    t, w = t[last], w[last]
    keep = np.r_[True, w[1:] != w[:-1]]
    return t[keep], w[keep]


def tcp_changes(res, column: str = "cwnd", scale: float = 1000.0):
    """(times, values) of a column of a run's TCP table, each change once, the values times
    ``scale`` as integers (the default: cwnd in bytes of 1000-byte segments)."""
    import numpy as np

    t = res.tcp
    v = np.round(t[column].to_numpy() * scale).astype(np.int64)
    keep = np.r_[True, v[1:] != v[:-1]]
    return t["t"].to_numpy()[keep], v[keep]


def fresh_python(args: Sequence[Any], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python ARGS`` in a new interpreter that imports this checkout's aqmsim (for what
    only a fresh process shows: the modules a command loads, how it exits)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)

try:
    from aqmsim import _core as _CORE  # noqa: F401

    CORE_ERROR = None
except ImportError as exc:  # pragma: no cover
    _CORE = None
    CORE_ERROR = exc


@pytest.fixture(scope="session")
def core():
    """The native module; fails when it is not built."""
    if _CORE is None:
        pytest.fail(f"aqmsim._core is not importable: {CORE_ERROR}; run `make build`")
    return _CORE


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture(scope="session")
def red_example() -> Path:
    return EXAMPLES / "dumbbell-red.toml"


def shortened(d: Dict[str, Any], duration: float) -> Dict[str, Any]:
    """A copy of scenario dict ``d`` running ``duration`` seconds: traffic that would
    stop later stops at the new end (``stop`` may not exceed the run)."""
    d = copy.deepcopy(d)
    d["duration"] = duration
    tables = list(d.get("flows", []))
    tables += list(d.get("dumbbell", {}).get("groups", []))
    for t in tables:
        if "stop" in t:
            t["stop"] = duration
        if isinstance(t.get("start"), (int, float)) and t["start"] >= duration:
            t["start"] = duration / 2
    return d


@pytest.fixture(scope="session")
def ns2_binary() -> str:
    """The ns-2 binary; fails (never skips) when it is missing: `make test` installs it."""
    from aqmsim.ns2.crosscheck import ns_binary

    ns = ns_binary()
    if ns is None:
        pytest.fail("ns-2 (`ns`) is not installed: `make test` installs it (`make ns2`)")
    return ns


@pytest.fixture(scope="module")
def ns3_required() -> None:
    """ns-3 (Debian's libns3-dev 3.37, `make ns3`) must be there: the test is skipped on a
    developer's machine without it, and fails under CI (`CI=true`), where `make test`
    installs it."""
    from aqmsim import ns3ref

    if not ns3ref.available():
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(ns3ref.MISSING)
        pytest.skip(ns3ref.MISSING)


def seed_text(number: str):
    """The text of seed paper ``number`` ("000" … "004") from shared/seeds beside the
    repository (where the project keeps the papers), or None where it is not there."""
    seeds = ROOT.parent / "shared" / "seeds"
    found = sorted(seeds.glob(f"{number}_*.txt")) if seeds.is_dir() else []
    return found[0].read_text() if found else None
