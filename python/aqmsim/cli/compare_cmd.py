"""``aqmsim compare DIR...``: saved runs side by side (Flent's comparison of data files):
overlaid figures as PNG + SVG and one self-contained index.html (:mod:`aqmsim.compare`)."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

from pathlib import Path
from typing import Dict, List, Optional

import typer

from ..cli_errors import check_out_dir
from .common import _fail, out


def _labels(items: List[str], dirs: List[str]) -> Dict[str, str]:
    """``--label DIR=TEXT`` pairs: DIR is the longest prefix before an ``=`` that is one
    of the DIR arguments (so TEXT may hold ``=``: ``--label out/a=kind=pie``)."""
    given: Dict[str, str] = {}
    for item in items:
        cuts = [i for i, ch in enumerate(item) if ch == "="]
        hits = [i for i in reversed(cuts) if str(Path(item[:i])) in dirs] if item[:1] else []
        if not hits:
            _fail(f"--label {item}: expected DIR=TEXT with DIR one of the runs compared "
                  f"({', '.join(dirs)})")
        given[str(Path(item[:hits[0]]))] = item[hits[0] + 1:]
    return given


def compare_cmd(
    dirs: List[Path] = typer.Argument(
        ..., metavar="DIR...", show_default=False,
        help="saved runs: `aqmsim run --out` directories, sweep stores (their finished runs), "
             "sweep files (.toml: the runs in their store) or directories of run directories"),
    out_dir: Path = typer.Option(
        Path("out/compare"), "--out", "-o", callback=check_out_dir,
        help="output directory: the figures (PNG + SVG) and index.html"),
    label: Optional[List[str]] = typer.Option(
        None, "--label", "-l", metavar="DIR=TEXT",
        help="name the runs of DIR TEXT instead of by their scenario's differences; "
             "repeatable"),
) -> None:
    """Compare saved runs as Flent does: delay CDFs, per-flow goodput boxes, queue and
    cwnd over time, delay against goodput; each run labelled by how its scenario differs;
    PNG + SVG and one index.html with the runs' provenance."""
    from ..compare import CompareInputError, compare

    args = [str(d) for d in dirs]
    given = _labels(label or [], args)
    try:
        files = compare(args, out_dir, labels=given)
    except CompareInputError as exc:
        _fail(str(exc))
    except (OSError, ImportError) as exc:
        _fail(f"{out_dir}: could not compare: {exc}", code=1)
    out.print(f"compared {len(files.runs)} run{'s' if len(files.runs) != 1 else ''}: "
              + "; ".join(f"[{i}] {lab}" for i, lab in enumerate(files.labels, 1)))
    if files.left_out:
        out.print(f"not drawn (see the page): {', '.join(files.left_out)}")
    names = [p.name for p in files.figures] + [files.page.name]
    out.print(f"wrote {len(names)} files to {out_dir}/: {', '.join(names)}")
    out.print(f"open {files.page}")
