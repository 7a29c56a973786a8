"""Run a scenario in ns-2 and compare with aqmsim.

:func:`run_ns2` exports the scenario (:func:`aqmsim.ns2.export.to_tcl`), runs ``ns`` on
it and returns a dict whose keys match aqmsim's summary where the quantity is the same:

================================  ============================================================
key                               ns-2 source
================================  ============================================================
bottleneck_arrivals               QueueMonitor ``parrivals_`` (every packet reaching the queue,
                                  dropped ones included; SYNs and ACKs included)
bottleneck_departures             ``pdepartures_`` (dequeued = transmission started)
bottleneck_drops                  ``pdrops_`` (early, forced and overflow alike)
marks_departed                    ``pmarks_`` (departing packets with CE and ECT). ns-2 has
                                  no count of marks when made: aqmsim's ``marks`` also counts
                                  marked packets still waiting at the end
bottleneck_queued_end             ``pkts_`` at the end (waiting, not in transmission)
time_avg_queue_pkts               pkts integrator ``sum_`` / duration (waiting packets)
time_avg_queue_bytes              bytes integrator ``sum_`` / duration
utilisation                       ``bdepartures_`` · 8 / (rate · duration)
throughput_bps                    Σ over flows of every byte reaching the sink agent
                                  (headers and duplicate retransmissions included) · 8 / duration
goodput_bps                       Σ over flows of new in-order payload bytes · 8 / duration
mean_queueing_delay_s             mean waiting time (enqueue to start of transmission) of the
                                  dequeued packets: the QueueMonitor's delay ``Samples``
                                  (printed by ns-2 with 6 significant digits)
bottleneck_rate_bps               the bottleneck link's rate
loss_ratio                        ``pdrops_ / parrivals_`` (0 with no arrivals)
packets_sent                      Σ over TCP flows of ``ndatapack_`` (data packets sent,
                                  retransmissions included)
packets_retransmitted             Σ over TCP flows of ``nrexmitpack_``
timeouts                          Σ over TCP flows of ``nrexmit_`` (retransmission timeouts)
packets_received                  Σ over flows of the packets reaching the sink agent
                                  (duplicates included; aqmsim: Σ of ``Results.flows.received``)
mean_max_p                        mean over the queue samples (every ``sample_interval``) of
                                  RED's ``cur_max_p_`` (only with ``samples``; it moves only
                                  under Adaptive RED)
max_queue_pkts                    only with ``max_queue``: the largest number of packets waiting
                                  after an arrival, read off the link's queue trace
                                  (:func:`aqmsim.ns2.trace.max_queue`; aqmsim's definition)
================================  ============================================================

Not measured (no cheap ns-2 counter): ``mean_e2e_delay_s`` (needs a packet trace at
every sink), ``drops_early``/``drops_forced``/``drops_overflow``; ``max_queue_pkts`` only
when asked for (``max_queue=True``, or ``ns2.measure = ["max_queue_pkts"]`` in the
scenario): it needs the queue trace of the monitored links, written to a file and read
back, which costs time on long, fast runs.
:func:`ns2_summary` keeps the flat numeric entries: a summary like aqmsim's.

"bottleneck" is the first entry of ``monitor.queues`` (a dumbbell's R1->R2). Per-flow
numbers are in ``result["flows"]`` (a list of dicts; with ``flow_monitor``, also each
flow's ``queue_arrivals``, ``queue_drops``, ``queue_marks_departed`` at the bottleneck from a flow
monitor) and every monitored queue's counters in ``result["queues"]`` (with ``samples``,
also its sample columns under ``"samples"``). :func:`ns2_flows` makes the per-flow numbers
a table like ``Results.flows``.

:func:`compare` runs both simulators for several seeds on the same drawn topology
(:func:`aqmsim.ns2.export.pin_draws`) and returns a DataFrame.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from .export import build_plan, pin_draws, render_tcl
from .ns_output import (NS2_FLOWS_UNMEASURED, ns2_flows, ns2_flows_arrow,  # noqa: F401
                        ns2_summary, parse_summary, read_samples, result_of)

__all__ = [
    "Ns2Error",
    "Ns2NotFoundError",
    "ns_available",
    "ns_binary",
    "run_ns2",
    "ns2_summary",
    "ns2_flows",
    "ns2_flows_arrow",
    "parse_summary",
    "read_samples",
    "compare",
    "DEFAULT_METRICS",
]

#: The metrics :func:`compare` reports by default (keys of both summaries).
DEFAULT_METRICS = (
    "throughput_bps",
    "goodput_bps",
    "utilisation",
    "bottleneck_arrivals",
    "bottleneck_departures",
    "bottleneck_drops",
    "marks_departed",
    "time_avg_queue_pkts",
    "jain_fairness",
)

INSTALL_HINT = (
    "install ns-2.35 with `make ns2` (Debian/Ubuntu: `sudo apt-get install ns2`), "
    "or point AQMSIM_NS at the binary"
)


class Ns2Error(RuntimeError):
    """ns-2 failed on an exported script; the message holds the script path and stderr."""


class Ns2NotFoundError(Ns2Error):
    """The ns-2 binary is not installed."""


def ns_binary() -> Optional[str]:
    """Path of the ns-2 binary: ``$AQMSIM_NS`` if set, else ``ns`` on PATH, else None."""
    env = os.environ.get("AQMSIM_NS")
    if env:
        return env if (os.path.isfile(env) and os.access(env, os.X_OK)) else shutil.which(env)
    return shutil.which("ns")


def ns_available() -> bool:
    """Whether ns-2 can be run (the binary exists; it is not started)."""
    return ns_binary() is not None


def _require_ns() -> str:
    ns = ns_binary()
    if ns is None:
        raise Ns2NotFoundError(f"ns-2 (`ns`) was not found on PATH: {INSTALL_HINT}")
    return ns


def _ends(path: Path, keep: int = 32768) -> str:
    """The first and last ``keep`` bytes of a file ns-2 wrote (all of it when small)."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        if size <= 2 * keep:
            data = f.read()
        else:
            head = f.read(keep)
            f.seek(size - keep)
            data = head + b"\n[...]\n" + f.read()
    return data.decode("utf-8", "replace")


def run_ns2(
    scenario: Mapping[str, Any],
    seed: int,
    workdir: Union[str, Path, None] = None,
    *,
    timeout: Optional[float] = 900.0,
    full_trace: bool = False,
    samples: bool = True,
    flow_monitor: bool = False,
    max_queue: bool = False,
    trace_all: bool = False,
) -> Dict[str, Any]:
    """Export ``scenario`` for ``seed``, run ``ns`` and return the parsed results.

    Files go to ``workdir/ns2-seed<seed>/`` (a new temporary directory when ``workdir`` is
    None): ``script.tcl``, ``summary.txt``, ``queue_<i>.txt`` and, with ``full_trace``,
    ``trace_<i>.tr``. ``result["dir"]`` names it. With ``flow_monitor`` every flow of
    ``result["flows"]`` also has its ``queue_arrivals``, ``queue_drops`` and
    ``queue_marks_departed`` at the bottleneck (a flow monitor there; the other results are the
    same with or without it). Raises :class:`Ns2NotFoundError` when
    ns-2 is missing, :class:`Ns2Error` when it fails or exceeds ``timeout`` seconds, and
    :class:`~aqmsim.ns2.export.Ns2ExportError` when the scenario cannot be exported.
    """
    ns = _require_ns()
    plan = build_plan(scenario, seed)
    base = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="aqmsim-ns2-"))
    out = (base / f"ns2-seed{seed}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    summary = out / "summary.txt"
    if summary.exists():
        summary.unlink()
    script = out / "script.tcl"
    max_queue = max_queue or "max_queue_pkts" in plan.measure
    script.write_text(render_tcl(plan, str(out), full_trace=full_trace, samples=samples,
                                 flow_monitor=flow_monitor, max_queue=max_queue,
                                 trace_all=trace_all))
    # ns writes straight to files (a run with 0-byte headers prints a line per packet:
    # tens of MB that a pipe would make Python read); only their ends are read back
    with open(out / "ns.stdout", "wb") as fo, open(out / "ns.stderr", "wb") as fe:
        try:
            proc = subprocess.run([ns, str(script)], cwd=str(out), stdout=fo, stderr=fe,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            raise Ns2Error(f"ns-2 did not finish {script} within {timeout} s") from exc
    stdout, stderr = _ends(out / "ns.stdout"), _ends(out / "ns.stderr")
    if proc.returncode != 0 or not summary.exists():
        tail = "\n".join((stderr or stdout).strip().splitlines()[-20:])
        raise Ns2Error(f"ns-2 failed on {script} (exit code {proc.returncode}):\n{tail}")
    res = result_of(plan, parse_summary(summary))
    if max_queue:
        from .trace import max_queue as trace_max_queue

        for mi, name in enumerate(plan.monitored):
            res["queues"][name]["max_queue_pkts"] = trace_max_queue(out / f"trace_{mi}.tr")
        if plan.monitored:
            res["max_queue_pkts"] = res["queues"][plan.monitored[0]]["max_queue_pkts"]
    if samples:
        for mi, name in enumerate(plan.monitored):
            cols = read_samples(out / f"queue_{mi}.txt")
            res["queues"][name]["samples"] = cols
            if cols.get("cur_max_p_"):
                res["queues"][name]["mean_max_p"] = sum(cols["cur_max_p_"]) / len(cols["cur_max_p_"])
        if plan.monitored and "mean_max_p" in res["queues"][plan.monitored[0]]:
            res["mean_max_p"] = res["queues"][plan.monitored[0]]["mean_max_p"]
    res["dir"] = str(out)
    res["script"] = str(script)
    res["ns_warnings"] = [ln for ln in (stdout + "\n" + stderr).splitlines()
                          if "warning" in ln.lower()]
    return res


def _rel(a: float, b: float) -> float:
    """(a − b)/|b|; 0 when both are 0; inf when only b is 0."""
    if a is None or b is None:
        return float("nan")
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if b == 0:
        return 0.0 if a == 0 else math.copysign(float("inf"), a)
    return (a - b) / abs(b)


def compare(
    scenario: Mapping[str, Any],
    seeds: Iterable[int],
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    pin: bool = True,
    workdir: Union[str, Path, None] = None,
    timeout: Optional[float] = 900.0,
):
    """aqmsim and ns-2 side by side, for each seed and metric.

    Returns a DataFrame with columns ``seed, metric, aqmsim, ns2, rel_diff`` (rel_diff =
    (aqmsim − ns2)/|ns2|): one row per seed and metric, then one row per metric with
    ``seed == "mean"`` holding the means over seeds and the relative difference of the
    means. Per-seed values differ because the two simulators draw RED's coin from
    different random streams; the mean over seeds is what should agree.

    With ``pin`` (the default) each seed's random access delays and start times are drawn
    once (:func:`~aqmsim.ns2.export.pin_draws`) and both simulators run that same pinned
    scenario, so only the coin differs. Metrics missing from either side are skipped.
    ``mean_max_p`` (RED's max_p averaged over the queue samples of the bottleneck, which
    moves only under Adaptive RED) is computed from both simulators' samples when asked for.
    """
    import pandas as pd

    import aqmsim  # the engine (needs the compiled extension)

    seeds = list(seeds)
    if not seeds:
        raise ValueError("compare: give at least one seed")
    _require_ns()
    own_tmp = workdir is None
    base = Path(tempfile.mkdtemp(prefix="aqmsim-xcheck-")) if workdir is None else Path(workdir)
    rows: List[Dict[str, Any]] = []
    try:
        for s in seeds:
            sc = pin_draws(scenario, s) if pin else dict(scenario)
            need_samples = "mean_max_p" in metrics
            run = aqmsim.Scenario.from_dict(sc).run(seed=s)
            ours = dict(run.summary)
            theirs = run_ns2(sc, s, base, timeout=timeout, samples=need_samples)
            monitored = build_plan(sc, s).monitored
            if need_samples and monitored:
                q = run.queue
                bq = q[q["link"] == monitored[0]]
                if len(bq) and "max_p" in bq:
                    ours["mean_max_p"] = float(bq["max_p"].mean())
            for m in metrics:
                if m not in ours or m not in theirs:
                    continue
                a, b = float(ours[m]), float(theirs[m])
                rows.append({"seed": s, "metric": m, "aqmsim": a, "ns2": b, "rel_diff": _rel(a, b)})
    finally:
        if own_tmp:
            shutil.rmtree(base, ignore_errors=True)
    means: List[Dict[str, Any]] = []
    present = {r["metric"] for r in rows}
    for m in [m for m in metrics if m in present]:
        vals = [r for r in rows if r["metric"] == m]
        a = sum(r["aqmsim"] for r in vals) / len(vals)
        b = sum(r["ns2"] for r in vals) / len(vals)
        means.append({"seed": "mean", "metric": m, "aqmsim": a, "ns2": b, "rel_diff": _rel(a, b)})
    df = pd.DataFrame(rows + means, columns=["seed", "metric", "aqmsim", "ns2", "rel_diff"])
    df["seed"] = df["seed"].astype(object)
    return df
