"""``aqmsim compare``: saved runs side by side, as Flent compares its data files.

    from aqmsim.compare import compare
    files = compare(["out/red", "out/pie", "examples/sweeps/red.toml"], "out/compare")
    files.page          # out/compare/index.html: one self-contained page

Reads ``aqmsim run --out`` directories, sweep stores and sweep files
(:mod:`~aqmsim.compare.sources`), names each run by how its scenario differs from the
others' (:mod:`~aqmsim.compare.labels`), overlays them in figures — delay CDFs, per-flow
goodput boxes, queue, cwnd (and, for paced flows, pacing-rate) time series, a delay–goodput scatter — as PNG + SVG
(:mod:`~aqmsim.compare.figures`), and writes ``index.html`` with the figures embedded and
a table of the runs and their provenance (:mod:`~aqmsim.compare.page`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Union

from .sources import CompareInputError, SavedRun, load_runs

__all__ = ["compare", "CompareFiles", "CompareInputError", "SavedRun", "load_runs"]


@dataclass
class CompareFiles:
    """What :func:`compare` wrote."""

    out_dir: Path
    page: Path
    runs: List[SavedRun]
    labels: List[str]
    #: The figure files written (PNG and SVG of each drawn figure).
    figures: List[Path] = field(default_factory=list)
    #: Figures not drawn, with why.
    left_out: List[str] = field(default_factory=list)


def compare(args: Sequence[Union[str, Path]], out_dir: Union[str, Path],
            labels: Optional[Mapping[str, str]] = None,
            command: Optional[str] = None) -> CompareFiles:
    """Compare the saved runs ``args`` names into ``out_dir`` (created). ``labels`` maps
    an argument (as given) to the label of its runs. Raises :class:`CompareInputError` for
    an argument that is not a saved run, or a label for an argument not given."""
    given = [str(a) for a in args]
    if not given:
        raise CompareInputError("DIR: give at least one saved run to compare")
    for key in labels or {}:
        if key not in given:
            raise CompareInputError(f"--label {key}=…: {key} is not one of the runs compared "
                                    f"({', '.join(given)})")
    runs = load_runs(given)
    from .figures import draw_all
    from .labels import run_labels
    from .page import write_page

    names = run_labels(runs, labels)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = draw_all(runs, names, out)
    page = write_page(out, runs, names, figures, command)
    return CompareFiles(out, page, runs, names,
                        [p for f in figures for p in (f.png, f.svg) if p is not None],
                        [f.name for f in figures if f.png is None])
