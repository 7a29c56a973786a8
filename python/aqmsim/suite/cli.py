"""``aqmsim suite NAME``: a suite's runs with a progress bar, then its report, and what it
did in a few lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

from ..errors import ScenarioError

__all__ = ["cli_suite", "split_names"]


def split_names(text: Optional[str], option: str) -> Optional[List[str]]:
    """``"red, codel"`` → ``["red", "codel"]``; None stays None; an empty list is an error."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ScenarioError(f"{option}: expected a comma-separated list of names, got {text!r}")
    return names


def cli_suite(name: str, aqm: Optional[str], seeds: int, scenarios: Optional[str],
              out_dir: Optional[Path], workers: Optional[int], scheduler: Optional[str],
              ns3: bool, fresh: bool, out: Any, err: Any) -> int:
    """Run the suite and write its report; the exit status (0: every run ok, 1: some
    failed — the report lists them)."""
    from ..sweep.cli import print_failures, progress_bar
    from ..sweep.cluster import check_scheduler_address
    from .run import default_out, run_suite, write_suite_report
    from .spec import Suite

    if workers is not None and scheduler is not None:
        raise ScenarioError("--workers and --scheduler: give one or the other")
    if scheduler is not None:
        scheduler = check_scheduler_address(scheduler)
    aqms = split_names(aqm, "--aqm")
    only = split_names(scenarios, "--scenarios")
    if ns3:
        from .. import ns3ref

        if not ns3ref.available():
            raise ScenarioError(f"--ns3: {ns3ref.MISSING}")
    suite = Suite.load(name)
    if aqms:  # plug-ins ("module:Class"): checked, and built once, before any run
        from .plugins import with_plugins

        try:
            suite = with_plugins(suite, aqms, only)
        except ScenarioError as exc:
            msg = str(exc)
            raise ScenarioError(f"--{msg}" if msg.startswith(("aqm: ", "scenarios: ")) else msg) from None
    path = out_dir if out_dir is not None else default_out(name)
    if not 1 <= seeds <= 1000:
        raise ScenarioError(f"--seeds: expected a number of seeds in [1, 1000], got {seeds}")
    try:
        n = len(suite.tasks(aqms or list(suite.disciplines), list(range(1, seeds + 1)), only))
    except ScenarioError as exc:  # the API's parameters (aqm, scenarios) named as the options
        msg = str(exc)
        if msg.startswith(("aqm: ", "scenarios: ")):
            raise ScenarioError(f"--{msg}") from None
        raise
    out.print(f"[bold]{suite.title}[/]: {n} runs "
              f"({len(only or suite.scenarios)} scenarios × their variants × "
              f"{len(aqms or suite.disciplines)} disciplines × {seeds} seeds) → {path}")
    bar, progress, on_pool = progress_bar(err)
    with bar:
        got = run_suite(name, aqms=aqms, seeds=seeds, scenarios=only, out=path,
                        workers=workers, scheduler=scheduler, ns3=ns3, fresh=fresh,
                        progress=progress, on_pool=on_pool, report=False, suite=suite)
    write_suite_report(got)  # after the bar: with no thread left, figures draw in parallel
    c = got.counts
    ran = c.total - c.skipped
    line = (f"{c.total} runs: [green]{c.ok} ok[/], "
            + (f"[red]{c.failed} failed[/]" if c.failed else "0 failed")
            + f"; {c.skipped} already in the store, {ran} run now in {got.seconds:.1f} s")
    if c.stale:
        line += f" ({c.stale} re-run: stored by another build of the engine)"
    out.print(line)
    if c.failed:
        print_failures(out, got.failures, got.store)
    if ns3:
        k = 0 if got.ns3 is None else len(got.ns3)
        out.print(f"ns-3: {k} anchor runs; {len(got.ns3_skipped)} scenario/discipline pairs "
                  "it cannot run (the report says why)")
    out.print(f"report: {got.index} (and summary.md) in {got.report_seconds:.1f} s; "
              f"total {got.total_seconds:.1f} s")
    return 1 if c.failed else 0
