"""The reproduction report: HTML pages and a Markdown summary of reproduced papers.

>>> from aqmsim.report import write
>>> paths = write([report_rtred, report_gentle], Path("out/reproduce"))   # doctest: +SKIP
>>> paths["index"], paths["summary"]                                     # doctest: +SKIP

``write`` lays the directory out as::

    out/index.html            every paper: title, citation, seeds, wall time,
                              "N of M published numbers within 10 %", "K of L claims hold"
    out/summary.md            the same with the compared numbers and claims, in Markdown
    out/<name>/index.html     one paper: its tables (ours ± CI | published | diff),
                              figures, claims with evidence, assumptions
    out/<name>/*.png          the figures the paper's ``analyse(runs, out/<name>)`` wrote

The pages are plain HTML with inline CSS — no scripts, nothing fetched from elsewhere —
so the directory opens offline and can be copied as a whole.

:func:`reproduce_papers` is the core of ``aqmsim reproduce``: run, analyse, write, print.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple, Union
from urllib.parse import quote

from .html import figure_src, index_page, paper_page
from .markdown import summary_markdown
from .outcome import Failure, Outcome, name_of

__all__ = ["write", "Failure", "Outcome", "page_dir", "reproduce_papers"]


def page_dir(name: str) -> str:
    """The directory (under the report's root) of the paper called ``name``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip(".") or "paper"


def _version() -> str:
    try:
        from .. import __version__

        return str(__version__)
    except ImportError:  # pragma: no cover
        return ""


def write(reports: Sequence[Outcome], out: Union[str, Path]) -> Dict[str, Any]:
    """Write the report of ``reports`` (each a paper's :class:`~aqmsim.papers.base.Report`
    or a :class:`Failure`) into ``out``.

    Each paper's figures are expected under ``out/<name>/`` (where ``aqmsim reproduce``
    has ``analyse`` write them; ``Figure.path`` is relative to that directory). Returns
    ``{"index": Path, "summary": Path, "pages": {name: Path}, "missing_figures":
    [(name, figure path), ...]}``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    version = _version()
    hrefs: Dict[str, str] = {}
    pages: Dict[str, Path] = {}
    missing: List[Tuple[str, str]] = []
    for o in reports:
        name = name_of(o)
        d = out / page_dir(name)
        d.mkdir(parents=True, exist_ok=True)
        if not isinstance(o, Failure):
            missing += [(name, f.path) for f in o.figures if figure_src(f, d) is None]
        page = d / "index.html"
        page.write_text(paper_page(o, d), encoding="utf-8")
        pages[name] = page
        hrefs[name] = quote(page_dir(name)) + "/index.html"
    index = out / "index.html"
    index.write_text(index_page(reports, hrefs, version=version), encoding="utf-8")
    summary = out / "summary.md"
    summary.write_text(summary_markdown(reports, hrefs, version=version), encoding="utf-8")
    return {"index": index, "summary": summary, "pages": pages, "missing_figures": missing}


def __getattr__(name: str) -> Any:  # the command's core pulls in rich and the runner: lazily
    if name == "reproduce_papers":
        from .reproduce import reproduce_papers

        return reproduce_papers
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
