"""``aqmsim sweep``: a sweep file run with a progress bar, and what it did in a few lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import ScenarioError
from . import driver
from .cluster import check_scheduler_address
from .spec import Sweep
from .tasks import Counts, RunOutcome

__all__ = ["cli_sweep", "progress_bar", "print_failures"]


def cli_sweep(file: Path, workers: Optional[int], scheduler: Optional[str],
              store: Optional[Path], retry_failed: bool, out: Any, err: Any,
              timeout: Optional[float] = None, fresh: bool = False) -> int:
    """``aqmsim sweep``: the sweep with a rich progress bar; returns the exit status
    (0 every run ok, 1 some failed). Errors in the sweep file raise ScenarioError; a
    malformed ``scheduler`` address a :class:`SchedulerAddressError` (a ConnectionError).
    ``timeout``: a run's limit in seconds (default: the sweep file's ``timeout``).
    ``fresh``: run every run again, ignoring the store's (``--fresh``)."""
    if workers is not None and scheduler is not None:
        raise ScenarioError("--workers and --scheduler: give one or the other")
    if scheduler is not None:
        scheduler = check_scheduler_address(scheduler)
    if timeout is not None and not (timeout > 0):
        raise ScenarioError(f"--timeout: expected seconds > 0, got {timeout:g}")
    sweep = Sweep.from_toml(file)
    path = Path(store) if store is not None else sweep.default_store()
    n_points = len(sweep.points())
    total = n_points * len(sweep.seeds)
    out.print(f"[bold]{sweep.name}[/]: {n_points} point{'s' if n_points != 1 else ''} × "
              f"{len(sweep.seeds)} seed{'s' if len(sweep.seeds) != 1 else ''} = {total} runs "
              f"→ store {path}")
    for names in sweep.alike_points():
        out.print(f"[yellow]warning:[/] points {', '.join(names)} resolve to the same scenario: "
                  "their runs will not differ (a varied field that no flow or link takes? a "
                  "group's own tcp table wins over \\[tcp])", markup=True)
    bar, progress, on_pool = progress_bar(err)

    with bar:
        # (through the module: tests replace driver.run_sweep to see what it is given)
        result = driver.run_sweep(sweep, path, workers=workers, scheduler=scheduler,
                                  retry_failed=retry_failed, progress=progress,
                                  on_pool=on_pool, timeout=timeout, fresh=fresh)
    c = result.counts
    ran = c.total - c.skipped
    line = (f"{c.total} runs: [green]{c.ok} ok[/], "
            + (f"[red]{c.failed} failed[/]" if c.failed else "0 failed")
            + f"; {c.skipped} already in the store, {ran} run now in {result.seconds:.1f} s")
    if ran and result.run_seconds > 0:
        line += f" ({ran / result.run_seconds:.1f} runs/s)"
    out.print(line)
    if result.unknown_metrics:
        out.print("[yellow]warning:[/] not summary keys, so not kept: "
                  + ", ".join(result.unknown_metrics))
    if c.failed:
        print_failures(out, result.failures, path)
    out.print(f"results: {path / 'runs.duckdb'} (aqmsim.store.open({str(path)!r}, "
              f"sweep={sweep.name!r}); report: aqmsim report {file}"
              + (f" --store {path}" if store is not None else ""))
    return 1 if c.failed else 0


def progress_bar(err: Any) -> Tuple[Any, Callable[[Counts], None], Callable[[str], None]]:
    """A rich progress bar on ``err`` for a run of tasks, with the ``progress`` and
    ``on_pool`` callbacks :func:`aqmsim.sweep.run_tasks` takes (use the bar as a context)."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                               TextColumn, TimeElapsedColumn, TimeRemainingColumn)

    bar = Progress(
        SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[green]{task.fields[ok]} ok[/] · [red]{task.fields[failed]} failed[/] · "
                   "{task.fields[left]} left{task.fields[retry]}"),
        TextColumn("· ETA"), TimeRemainingColumn(), TextColumn("·"), TimeElapsedColumn(),
        console=err, transient=False, refresh_per_second=4,
    )
    state: Dict[str, Any] = {"task": None}

    def progress(c: Counts) -> None:
        retry = f" · {c.retrying} retrying" if c.retrying else ""
        if state["task"] is None:
            state["task"] = bar.add_task("runs", total=c.total, completed=c.done, ok=c.ok,
                                         failed=c.failed, left=c.left, retry=retry)
        else:
            bar.update(state["task"], completed=c.done, ok=c.ok, failed=c.failed,
                       left=c.left, retry=retry)

    def on_pool(desc: str) -> None:
        bar.console.print(f"running on: {desc}")

    return bar, progress, on_pool


def print_failures(out: Any, failures: Sequence[RunOutcome], store: Path) -> None:
    """The failed runs, grouped by message: one invalid corner of a grid fails once per
    seed alike."""
    from rich.markup import escape as _escape

    by_error: Dict[str, List[RunOutcome]] = {}
    for o in failures:
        by_error.setdefault(str(o.error or o.error_kind or "?"), []).append(o)
    out.print("[bold red]failed runs[/], by error:")
    for msg, runs in list(by_error.items())[:20]:
        first = runs[0]
        out.print(f"  {len(runs)} run{'s' if len(runs) > 1 else ''} (first: {first.key}, "
                  f"seed {first.seed}): [red]{_escape(msg)}[/]")
    if len(by_error) > 20:
        out.print(f"… and {len(by_error) - 20} more errors: "
                  f"aqmsim.store.open({str(store)!r}) lists every run")
