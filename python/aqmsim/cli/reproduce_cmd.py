"""``aqmsim reproduce``: papers run over seeds (and the readings of their open choices),
compared with their published numbers, written as a report."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

from pathlib import Path
from typing import Any, List, Optional, Sequence

import typer

from ..cli_errors import check_out_dir
from .common import _SCHEDULER, _WORKERS, _fail, err, out


def reproduce(
    paper: str = typer.Argument(
        ..., metavar="PAPER|all", help="a paper (rtred, qrtred, pktsize, gentle, markfront, l4s) or all",
        show_default=False,
    ),
    seeds: Optional[int] = typer.Option(
        None, "--seeds", "-n", min=1, help="run seeds 1..N (default: the paper's default_seeds)"
    ),
    out_dir: Path = typer.Option(
        Path("out/reproduce"), "--out", "-o", callback=check_out_dir, help="write the report and figures here"
    ),
    workers: Optional[int] = _WORKERS,
    scheduler: Optional[str] = _SCHEDULER,
    store: Optional[Path] = typer.Option(
        None, "--store", callback=check_out_dir, help="keep each paper's runs in STORE/PAPER (default: OUT/PAPER/store)"
    ),
    fresh: bool = typer.Option(
        False, "--fresh", help="empty the papers' stores first: simulate every run again"
    ),
    readings: str = typer.Option(
        "all", "--readings", "-r",
        help="which readings of the papers' open choices to run: all, primary, or a "
             "comma-separated list of variants (choice=reading, several joined by +, "
             "ns2-as-typed, textbook)",
    ),
    ns2: bool = typer.Option(
        True, "--ns2/--no-ns2",
        help="also run the experiments ns-2 can run in ns-2 (when `ns` is installed): "
             "tables read published | ns-2 | aqmsim",
    ),
) -> None:
    """Reproduce a paper: run it over seeds, compare with its published numbers and
    claims, write an HTML report (index.html) and a Markdown summary (summary.md).

    Where the paper is silent, every candidate reading of each open choice is run
    too (--readings): the report shows how far each choice moves each number and
    labels each claim robust, fragile or fails.

    Every run is kept in the paper's store (as for aqmsim sweep): the same
    command again takes its runs from there instead of simulating them, and
    a reproduction that was interrupted resumes with the runs it lacks.

    Where ns-2 is installed, the primary reading's experiments it can run are run
    in ns-2 too (same seeds, kept in the store's ns2/ directory): each number
    shows the published value, ns-2's and ours (--no-ns2: ours only)."""
    from ..papers import get, names
    from ..report import Failure, reproduce_papers

    if workers is not None and scheduler is not None:
        _fail("--workers and --scheduler: give one or the other")
    choices = names()
    key = paper.strip().lower()
    if key != "all" and key not in choices:
        _fail(f"unknown paper {paper!r} (expected one of: {', '.join(choices)}, all)")
    selected: List[Any] = []
    for name in choices if key == "all" else [key]:
        try:
            selected.append(get(name))
        except Exception as exc:  # noqa: BLE001 - a broken module is reported, others run
            selected.append(Failure.from_exception(name, "loading", exc))
    wanted = _reading_names(readings, selected)
    try:
        done = reproduce_papers(selected, out_dir, seeds=seeds, workers=workers,
                                console=out, progress_console=err, scheduler=scheduler,
                                store=store, fresh=fresh, readings=wanted, ns2=ns2)
    except OSError as exc:
        _fail(f"{out_dir}: could not write the report: {exc}", code=1)
    except (ConnectionError, ImportError, RuntimeError) as exc:
        _fail(str(exc), code=1)
    except KeyboardInterrupt:
        _fail("interrupted: finished runs are in the papers' stores; the same command "
              "resumes with the rest", code=130)
    if done.exit_code:
        raise typer.Exit(done.exit_code)


def _reading_names(spec: str, papers: Sequence[Any]) -> Any:
    """``--readings`` as a list of variant names (None for all); each must be a reading
    of at least one of ``papers`` (a paper that lacks it runs without it)."""
    from ..papers.readings import variant_named

    parts = [x.strip() for x in (spec or "").split(",") if x.strip()]
    if not parts:
        _fail(f"--readings: expected all, primary, or readings separated by commas "
              f"(choice=reading, several joined by +), got {spec!r}")
    if "all" in parts:
        return None
    for name in parts:
        if name == "primary":
            continue
        errors = []
        for p in papers:
            if not hasattr(p, "readings"):
                continue
            try:
                variant_named(list(p.readings()), name)
                break
            except Exception as exc:  # noqa: BLE001 - ReadingError, or readings that cannot load
                errors.append(f"{p.name}: {str(exc).removeprefix('--readings: ')}")
        else:
            _fail("--readings: " + ("; ".join(errors) or f"unknown reading {name!r}"))
    return parts
