"""Confidence intervals (aqmsim.papers.base.t95 / mean_ci): scipy's Student-t quantile,
not a table read at its next row."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aqmsim.papers.base import mean_ci, t95


@pytest.mark.parametrize("n, want", [(2, 12.7062), (5, 2.7764), (10, 2.2622), (22, 2.0796),
                                     (31, 2.0423), (1000, 1.9623)])
def test_t95_is_the_exact_quantile(n: int, want: float) -> None:
    assert t95(n) == pytest.approx(want, abs=1e-4)


def test_t95_between_table_rows_is_not_anti_conservative() -> None:
    # 22 samples (df 21): the old table answered df 25's 2.060, a narrower interval
    assert t95(22) > 2.07
    assert math.isnan(t95(1)) and math.isnan(t95(0))


def test_mean_ci_keeps_its_contract() -> None:
    m, h = mean_ci([1.0, 2.0, 3.0, float("nan")])
    assert m == 2.0 and h == pytest.approx(4.302653 * 1.0 / math.sqrt(3), rel=1e-6)
    assert mean_ci([5.0])[0] == 5.0 and math.isnan(mean_ci([5.0])[1])
    assert all(math.isnan(x) for x in mean_ci([]))
    assert mean_ci(np.array([2.0, 2.0]))[1] == 0.0
