"""What a paper's reproduction produced: its :class:`~aqmsim.papers.base.Report`, or a
:class:`Failure` saying at which stage it stopped and why."""

from __future__ import annotations

import traceback as _tb
from dataclasses import dataclass, field
from typing import Any, List, Optional, Union

from ..papers.base import Report

__all__ = ["Failure", "Outcome", "name_of", "title_of", "citation_of"]


@dataclass
class Failure:
    """A paper that could not be reproduced: loading its module, running its experiments
    or analysing the runs raised. The report shows it (message and traceback) beside the
    papers that did finish."""

    name: str
    stage: str  # "loading", "running", "analysis"
    error: str  # one line: exception type and message
    traceback: str = ""
    title: str = ""
    citation: str = ""
    seeds: List[int] = field(default_factory=list)
    wall_seconds: float = 0.0

    @classmethod
    def from_exception(cls, name: str, stage: str, exc: BaseException,
                       paper: Optional[Any] = None, seeds: Optional[List[int]] = None,
                       wall_seconds: float = 0.0) -> "Failure":
        message = " ".join(str(exc).split())
        error = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
        return cls(
            name=name, stage=stage, error=error,
            traceback="".join(_tb.format_exception(type(exc), exc, exc.__traceback__)),
            title=str(getattr(paper, "title", "") or ""),
            citation=str(getattr(paper, "citation", "") or ""),
            seeds=list(seeds or []), wall_seconds=wall_seconds,
        )


#: One entry of a report: a finished paper or one that failed.
Outcome = Union[Report, Failure]


def name_of(o: Outcome) -> str:
    return o.name if isinstance(o, Failure) else str(o.paper.name)


def title_of(o: Outcome) -> str:
    t = o.title if isinstance(o, Failure) else str(o.paper.title or "")
    return t or name_of(o)


def citation_of(o: Outcome) -> str:
    return o.citation if isinstance(o, Failure) else str(o.paper.citation or "")
