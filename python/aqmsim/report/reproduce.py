"""The core of ``aqmsim reproduce``: for each paper run its experiments over seeds (with a
progress bar), analyse the runs into ``out/<name>/``, write the report, print the headline
numbers; a paper that fails is recorded and the others still run.

It takes :class:`~aqmsim.papers.base.Paper` objects (not names), so tests and notebooks can
hand it papers of their own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                           TextColumn, TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table as RichTable
from rich.text import Text

from ..papers.base import Paper, Report
from . import _format as F
from . import page_dir, write
from .outcome import Failure, Outcome, name_of, title_of

__all__ = ["reproduce_papers", "run_and_analyse", "headline_tables", "print_outcome",
           "Reproduced", "HEADLINE_ROWS", "paper_store"]

#: At most this many compared numbers per paper in the terminal table (all are in the report).
HEADLINE_ROWS = 40


@dataclass
class Reproduced:
    """What :func:`reproduce_papers` did."""

    outcomes: List[Outcome] = field(default_factory=list)
    paths: Dict[str, Any] = field(default_factory=dict)

    @property
    def failures(self) -> List[Failure]:
        return [o for o in self.outcomes if isinstance(o, Failure)]

    @property
    def exit_code(self) -> int:
        """0 when every paper was reproduced, 1 when one failed."""
        return 1 if self.failures else 0


def _progress(console: Console) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs · {task.fields[left]} left ·"),
        TimeElapsedColumn(),
        TextColumn("· ETA"),
        TimeRemainingColumn(),
        console=console,
    )


def _close_figures() -> None:
    import sys

    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close("all")


def paper_store(out: Path, name: str, store: Optional[Union[str, Path]] = None) -> Path:
    """Where ``aqmsim reproduce`` keeps the runs of paper ``name``: ``STORE/<name>`` when a
    store directory is given, else ``OUT/<name>/store`` beside the paper's report page."""
    if store is not None:
        return Path(store) / page_dir(name)
    return Path(out) / page_dir(name) / "store"


def _failed_runs_text(failures: Sequence[Any], limit: int = 3) -> str:
    first = "; ".join(f"{f.key} seed {f.seed}: {f.error}" for f in failures[:limit])
    more = f"; … and {len(failures) - limit} more" if len(failures) > limit else ""
    return f"{len(failures)} run{'s' if len(failures) != 1 else ''} failed ({first}{more})"


def select_variants(paper: Paper, readings: Optional[Sequence[str]] = None) -> List[Any]:
    """The variants of ``paper``'s readings to run: all of them (``readings`` None or
    ``["all"]``), only the primary (``["primary"]``), or the primary plus the named ones
    (variant names, or ``choice=reading[,choice=reading]``). An unknown name raises
    :class:`~aqmsim.papers.readings.ReadingError` naming ``--readings`` and the choices."""
    from ..papers.readings import PRIMARY, variant_named, variants

    choices = list(paper.readings())
    every = variants(choices)
    if readings is None or list(readings) == ["all"]:
        return every
    chosen = [every[0]]
    for name in readings:
        if name in ("all", PRIMARY):
            if name == "all":
                return every
            continue
        v = variant_named(choices, name)
        if v.name not in {c.name for c in chosen}:
            chosen.append(v)
    return chosen


def run_and_analyse(paper: Paper, out: Path, seeds: Optional[int] = None,
                    workers: Optional[int] = None,
                    progress_console: Optional[Console] = None, *,
                    store: Optional[Union[str, Path]] = None, fresh: bool = False,
                    scheduler: Optional[str] = None, pool: Any = None,
                    readings: Optional[Sequence[str]] = None, ns2: bool = True) -> Outcome:
    """One paper: its runs over seeds 1..N under every variant of its readings (through
    the store :func:`paper_store`, so runs already there are not simulated again), then
    ``paper.analyse(runs, out/<name>)`` for the primary reading and, figures off, for
    every alternative; the readings' sensitivity and claim labels go on the report.
    Returns the Report (seeds, wall time, run counts and failed runs filled in) or a
    Failure — never raises for an error of the paper (KeyboardInterrupt still stops
    everything). A failed run is left out and listed; the paper fails only if its
    analysis cannot do without it.

    With ``ns2`` (and ``ns`` installed), once the primary reading is analysed, the
    experiments behind its cells computed from each run (``Cell.source``: a summary metric,
    or a function of the run's record reading its flows table) that ns-2 can run also run
    in ns-2 (:mod:`aqmsim.ns2.column`: same pool, seeds 1..min(N,
    ``paper.ns2_seeds``), kept in ``<store>/ns2``), and those cells get ns-2's value
    beside ours (``Cell.ns2``; ``report.ns2`` says what ran). The ns-2 column never
    fails the paper."""
    from ..papers.readings import (PRIMARY, RULE, analysis_options, apply_variant,
                                   check_variant)
    from ..papers.runner import run_groups
    from ..papers.sensitivity import analyse_readings, tornado_figure

    name = str(paper.name)
    n = int(seeds or getattr(paper, "default_seeds", 0) or 1)
    seed_list = list(range(1, n + 1))
    alt_n = min(n, int(getattr(paper, "reading_seeds", None) or n))
    alt_seeds = list(range(1, alt_n + 1))
    where = paper_store(out, name, store)
    t0 = time.perf_counter()
    try:
        choices = list(paper.readings())
        chosen = select_variants(paper, readings)
        base = paper.experiments()
        groups: Dict[str, Any] = {}
        for v in chosen:
            exps = apply_variant(base, choices, v)
            if v.name != PRIMARY:
                check_variant(exps, v)
            groups[v.name] = (exps, seed_list if v.name == PRIMARY else alt_seeds)
    except Exception as exc:  # noqa: BLE001 - reported, the other papers go on
        return Failure.from_exception(name, "reading", exc, paper, seed_list,
                                      time.perf_counter() - t0)
    try:
        with _progress(progress_console or Console(stderr=True)) as prog:
            task = prog.add_task(name, total=None, left="?")

            def tick(done: int, total: int) -> None:
                prog.update(task, completed=done, total=total, left=total - done)

            by_variant = run_groups(paper, groups, workers, tick, store=where, fresh=fresh,
                                    scheduler=scheduler, pool=pool)
    except Exception as exc:  # noqa: BLE001 - reported, the other papers go on
        return Failure.from_exception(name, "running", exc, paper, seed_list,
                                      time.perf_counter() - t0)
    for v in chosen:
        by_variant[v.name].options = analysis_options(choices, v)
    runs = by_variant[PRIMARY]
    paper_out = out / page_dir(name)
    reports: Dict[str, Report] = {}
    try:
        paper_out.mkdir(parents=True, exist_ok=True)
        for v in chosen:
            if v.name == PRIMARY:
                report = paper.analyse(runs, paper_out)
                if ns2 and isinstance(report, Report):
                    _ns2_column(paper, report, groups[PRIMARY][0], seed_list, where, workers,
                                progress_console or Console(stderr=True),
                                scheduler=scheduler, pool=pool)
            else:
                report = _analyse_quietly(paper, by_variant[v.name], paper_out / "readings")
            if not isinstance(report, Report):
                raise TypeError(f"{type(paper).__name__}.analyse returned "
                                f"{type(report).__name__}, not a Report")
            reports[v.name] = report
        report = reports[PRIMARY]
        if choices:
            report.readings = analyse_readings(
                choices, chosen, reports, RULE,
                {v.name: list(groups[v.name][1]) for v in chosen})
            if len(chosen) > 1:
                fig = tornado_figure(report.readings, paper_out)
                if fig:
                    report.readings.figures.append(fig)
    except Exception as exc:  # noqa: BLE001
        failure = Failure.from_exception(name, "analysis", exc, paper, seed_list,
                                         time.perf_counter() - t0)
        if runs.failures:
            failure.error = f"{_failed_runs_text(runs.failures)}; then {failure.error}"
        return failure
    finally:
        _close_figures()
    if not report.seeds:
        report.seeds = seed_list
    c = runs.counts
    if c is not None:
        report.runs = {"total": c.total, "stored": c.skipped, "ran": c.total - c.skipped,
                       "failed": c.failed}
        if c.stale:  # (only when some were: it is news)
            report.runs["stale"] = c.stale
    report.failed_runs = [f for v in chosen for f in by_variant[v.name].failures]
    report.store = str(where)
    # the wall-clock time of the whole reproduction (runs + analysis), as the command saw it
    report.wall_seconds = time.perf_counter() - t0
    return report


def _ns2_column(paper: Paper, report: Report, experiments: Sequence[Any],
                seeds: Sequence[int], where: Path, workers: Optional[int],
                console: Console, **kw: Any) -> None:
    """Run in ns-2 the experiments behind the report's cells that remember their source
    (those ns-2 can run), then give those cells ns-2's values; ``report.ns2`` says what
    was done. A missing ``ns`` or an error of the ns-2 stage as a whole is recorded
    there, never raised (KeyboardInterrupt still stops everything)."""
    from ..ns2.column import (MISSING_LINE, Ns2Column, exportable, fill, measures_wanted,
                              run_column, tables_wanted)
    from ..ns2.crosscheck import ns_available

    if not ns_available():
        report.ns2 = Ns2Column("missing", note=MISSING_LINE)
        return
    cap = getattr(paper, "ns2_seeds", None)
    ns2_seeds = list(seeds)[:max(1, int(cap))] if cap else list(seeds)
    need = tables_wanted(report.cells())  # key -> the tables ns-2's runs must keep
    wanted = set(need)
    try:
        ok, cannot = exportable([e for e in experiments if e.key in wanted])
        col, runs = Ns2Column("ran", seeds=ns2_seeds, cannot=cannot), None
        if ok:
            with _progress(console) as prog:
                task = prog.add_task(f"{paper.name} · ns-2", total=None, left="?")

                def tick(done: int, total: int) -> None:
                    prog.update(task, completed=done, total=total, left=total - done)

                col, runs = run_column(paper, ok, ns2_seeds, where, workers, tick,
                                       tables=need, measure=measures_wanted(report.cells()),
                                       **kw)
            col.cannot = {**cannot, **col.cannot}
        report.ns2 = col
        fill(report, col, runs)
    except Exception as exc:  # noqa: BLE001 - the paper goes on without the column
        for c in report.cells():
            c.ns2, c.ns2_note = None, ""
        report.ns2 = Ns2Column("error", seeds=ns2_seeds,
                               note=f"{type(exc).__name__}: {exc}".strip())


def _analyse_quietly(paper: Paper, runs: Any, out: Path) -> Report:
    """``paper.analyse`` with its figures off (into a scratch directory, for papers that
    write files regardless)."""
    import tempfile

    with paper.figures_off(), tempfile.TemporaryDirectory(prefix="aqmsim-reading-") as tmp:
        return paper.analyse(runs, Path(tmp))


def headline_tables(report: Report, limit: int = HEADLINE_ROWS) -> List[RichTable]:
    """The compared numbers as rich tables, one per table of the paper (titled with it),
    at most ``limit`` rows in all; empty when the paper published no numbers."""
    rows = F.compared(report)
    with_ns2 = F.has_ns2(report)
    tables: List[RichTable] = []
    current: Optional[str] = None
    for r in rows[:limit]:
        if r.table != current:
            current = r.table
            t = RichTable(title=r.table, title_justify="left", title_style="bold",
                          show_edge=False)
            cols = ((("row", "left"), ("column", "left"), ("published", "right"),
                     ("ns-2 ± 95 % CI", "right"), ("aqmsim ± 95 % CI", "right"),
                     ("diff", "right")) if with_ns2 else
                    (("row", "left"), ("column", "left"), ("ours ± 95 % CI", "right"),
                     ("published", "right"), ("diff", "right")))
            for col, just in cols:
                t.add_column(col, justify=just)  # type: ignore[arg-type]
            tables.append(t)
        style = "green" if r.cell.within10 else "bold red"
        if with_ns2:
            n2 = Text(F.ns2(r.cell), style="bold magenta"
                      if F.ns2_status(r.cell) == "differs" else "")
            tables[-1].add_row(r.row, r.column, F.published(r.cell), n2, F.ours(r.cell),
                               Text(F.diff(r.cell), style=style))
            continue
        tables[-1].add_row(r.row, r.column, F.ours(r.cell), F.published(r.cell),
                           Text(F.diff(r.cell), style=style))
    if len(rows) > limit:
        tables[-1].caption = f"… and {len(rows) - limit} more in the report"
        tables[-1].caption_justify = "left"
    if with_ns2 and tables:
        note = (f"{F.NS2_MARK}: ns-2 and aqmsim differ (exactly where ± 0, else Welch's "
                "t-test at 5 %); "
                "— : no ns-2 number (ns-2 cannot run it, or its runs do not give it)")
        cap = tables[-1].caption
        tables[-1].caption = f"{cap}\n{note}" if cap else note
        tables[-1].caption_justify = "left"
    return tables


def _print_verdicts(o: Report, console: Console) -> None:
    """The verdicts' counts (the rule: docs/reproducing.md and the report), the ns-2 flags
    against chance and what the simulator check covers."""
    from . import verdicts as V

    vs = V.verdicts(o)
    for head, text in (("verdicts: ", V.counts_text(vs)),
                       ("verdicts of inputs (row by row): ", V.counts_text(vs, inputs=True)),
                       ("", V.chance_text(V.chance(o))), ("", V.coverage_text(o))):
        if text:
            console.print(Text(head + text))


def print_outcome(o: Outcome, console: Console) -> None:
    """Per paper: the headline numbers beside the published ones, and the counts."""
    if isinstance(o, Failure):
        console.print(Text.assemble(("✗ ", "bold red"), (o.name, "bold"),
                                    (f" failed while {o.stage}: {o.error}", "red")))
        return
    tables = headline_tables(o)
    console.print(Text.assemble((f"{o.paper.name} — {title_of(o)}", "bold cyan"),
                                "" if tables else ": no published numbers to compare"))
    for t in tables:
        console.print(t)
    k, n = o.published_count()
    c, m = o.claims_count()
    extra = F.inputs_text(o)
    console.print(Text.assemble(
        (f"{k} of {n}", "bold green" if n and k == n else "bold"),
        " published numbers within 10 %" + (f" ({extra})" if extra else "") + " · ",
        (f"{c} of {m}", "bold green" if m and c == m else "bold"),
        f" claims hold · seeds {F.seeds_text(o.seeds)} · {F.duration(o.wall_seconds)}"
        + (f" · {F.runs_text(o.runs)}" if o.runs else "")))
    col = getattr(o, "ns2", None)
    if col is not None and col.status != "missing":  # (a missing ns: said once, before)
        from ..ns2.column import agreement_text

        k2, n2 = o.ns2_count()
        console.print(Text(agreement_text(o), style="bold" if n2 and k2 == n2 else ""))
    _print_verdicts(o, console)
    if o.failed_runs:
        console.print(Text(f"warning: {_failed_runs_text(o.failed_runs)}: left out of the "
                           "analysis", style="yellow"))
    sens = getattr(o, "readings", None)
    labels = {c.text: c for c in sens.claims} if sens is not None else {}
    if sens is not None and len(sens.variant_names) > 1:
        console.print(Text("within 10 % under each reading: " + " · ".join(
            f"{v} {sens.counts[v][0]}/{sens.counts[v][1]}" for v in sens.variant_names)))
    style = {"robust": "green", "fragile": "yellow", "fails": "red"}
    for cl in o.claims:
        lab = labels.get(cl.text)
        tag = (lab.label, style[lab.label]) if lab is not None else ("", "")
        where = ""
        if lab is not None and lab.label == "fragile":
            names = lab.fails_under if cl.holds else lab.holds_under
            more = f" and {len(names) - 4} more" if len(names) > 4 else ""
            where = (f" ({'fails' if cl.holds else 'holds'} under "
                     f"{', '.join(names[:4])}{more})")
        console.print(Text.assemble(("  ✓ " if cl.holds else "  ✗ ",
                                     "green" if cl.holds else "red"),
                                    (f"{tag[0]:<8}" if lab is not None else "", tag[1]),
                                    cl.text, (where, "dim")))


def reproduce_papers(papers: Sequence[Union[Paper, Failure]], out: Union[str, Path],
                     seeds: Optional[int] = None, workers: Optional[int] = None,
                     console: Optional[Console] = None,
                     progress_console: Optional[Console] = None, *,
                     scheduler: Optional[str] = None,
                     store: Optional[Union[str, Path]] = None,
                     fresh: bool = False,
                     readings: Optional[Sequence[str]] = None,
                     ns2: bool = True) -> Reproduced:
    """Reproduce ``papers`` one after the other into ``out`` and write the report there.

    ``papers`` may hold :class:`Failure` entries (a paper whose module could not even be
    loaded): they appear in the report as failed. ``seeds`` is N for seeds 1..N (default:
    each paper's ``default_seeds``). Runs go to one pool shared by every paper, started
    when a paper first needs to simulate: ``workers`` local processes (default: one per
    CPU) or the Dask cluster at ``scheduler``. Each paper keeps its runs in its own store
    (:func:`paper_store`: ``out/<name>/store``, or ``store/<name>``); runs found there
    are not simulated again, unless ``fresh`` (the store is emptied first). The report is
    rewritten after every paper, so an interrupted ``all`` still leaves the finished
    papers readable.

    ``ns2`` (default on) adds the ns-2 column (:func:`run_and_analyse`); when ``ns`` is
    not installed one line says so and the reports go without it.
    """
    from ..sweep import SharedPool

    out = Path(out)
    console = console or Console()
    progress_console = progress_console or Console(stderr=True)
    done = Reproduced()
    if ns2:
        from ..ns2.column import MISSING_LINE
        from ..ns2.crosscheck import ns_available

        if not ns_available():
            # once here; each report says "no ns-2 column: ns-2 (`ns`) was not found"
            console.print(Text(f"warning: {MISSING_LINE}", style="yellow"))
    with SharedPool(workers=workers, scheduler=scheduler) as pool:
        for p in papers:
            _reproduce_one(p, done, out, seeds, workers, console, progress_console,
                           store=store, fresh=fresh, scheduler=scheduler, pool=pool,
                           readings=_known_to(p, readings), ns2=ns2)
    if not done.paths:
        done.paths = write(done.outcomes, out)
    for f in done.failures:
        console.print(Text(f"{f.name}: the error and its traceback are on "
                           f"{done.paths['pages'][f.name]}", style="red"))
    console.print(Text.assemble(("report:  ", "bold"), str(done.paths["index"])))
    console.print(Text.assemble(("summary: ", "bold"), str(done.paths["summary"])))
    return done


def _known_to(p: Any, readings: Optional[Sequence[str]]) -> Optional[Sequence[str]]:
    """The names of ``readings`` that paper ``p`` knows (``aqmsim reproduce all
    --readings X`` runs X where a paper has it)."""
    if readings is None or isinstance(p, Failure):
        return readings
    from ..papers.readings import ReadingError, variant_named

    keep = []
    for name in readings:
        try:
            if name not in ("all", "primary"):
                variant_named(list(p.readings()), name)
            keep.append(name)
        except ReadingError:
            continue
    return keep or ["primary"]


def _reproduce_one(p: Union[Paper, Failure], done: Reproduced, out: Path,
                   seeds: Optional[int], workers: Optional[int], console: Console,
                   progress_console: Console, **kw: Any) -> None:
    o = p if isinstance(p, Failure) else run_and_analyse(p, out, seeds, workers,
                                                         progress_console, **kw)
    done.outcomes.append(o)
    try:
        done.paths = write(done.outcomes, out)
    except Exception as exc:  # noqa: BLE001 - e.g. a Report the writer cannot show
        done.outcomes[-1] = Failure.from_exception(
            name_of(o), "writing the report", exc, getattr(o, "paper", None),
            list(getattr(o, "seeds", []) or []), float(getattr(o, "wall_seconds", 0.0)))
        done.paths = write(done.outcomes, out)
    print_outcome(done.outcomes[-1], console)
    for name, path in done.paths.get("missing_figures", []):
        if name == name_of(o):
            console.print(Text(f"warning: {name}: figure {path} was not written under "
                               f"{out / page_dir(name)}", style="yellow"))
    console.print()
