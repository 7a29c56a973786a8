"""The RFC 7928 suite's report: an HTML page per scenario in the guideline's own forms
(the §2.7 delay–goodput graph with an ellipse per discipline, queueing-delay CDFs, drops
and marks, fairness, flow completion times, a table of means with 95 % intervals, ns-3
beside aqmsim), an index, a Markdown summary and the data behind every figure.

>>> from aqmsim.suite.report import write_report
>>> write_report(suite, runs, Path("out"), series=store.series)   # doctest: +SKIP
"""

from .build import write_report

__all__ = ["write_report"]
