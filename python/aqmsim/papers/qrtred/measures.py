"""Paper 001's set-up (the three disciplines, the load periods) and its per-run measures:
utilisation and drops per window of the run, the bottleneck queue and its unit."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from ..base import Runs


#: experiment key -> (scenario file, label used in tables and legends)
DISCIPLINES: Dict[str, Tuple[str, str]] = {
    "red_5_15": ("red_5_15.toml", "RED (min_th 5, max_th 15)"),
    "red_10_40": ("red_10_40.toml", "RED (min_th 10, max_th 40)"),
    "qrtred": ("qrtred.toml", "QRTRED"),
}


#: Table 1's row names, as the paper writes them
PAPER_ROW = {
    "red_5_15": "RED with default value (5, 15)",
    "red_10_40": "RED with min_th=10, max_th=40",
    "qrtred": "Proposed RED (QRTRED)",
}


COLOURS = {"red_5_15": "tab:red", "red_10_40": "tab:blue", "qrtred": "tab:green"}


#: load periods of the scenario: (start, end, active flows)
PERIODS: List[Tuple[float, float, int]] = [
    (0, 20, 1), (20, 40, 2), (40, 50, 3), (50, 60, 1), (60, 80, 6), (80, 100, 20)]


#: the light-load (one-flow) periods the paper singles out
LIGHT: List[Tuple[float, float]] = [(0, 20), (50, 60)]


EPS = 1e-9


def _in_windows(t: np.ndarray, windows: Sequence[Tuple[float, float]]) -> np.ndarray:
    t = np.asarray(t, dtype=float)
    m = np.zeros(len(t), dtype=bool)
    for a, b in windows:
        m |= (t >= a - EPS) & (t < b - EPS)
    return m


class RunSeries:
    """One run's bottleneck utilisation bins and drop times as arrays, read once (the
    per-period numbers ask for many windows of the same run)."""

    def __init__(self, links: pd.DataFrame, drops: pd.DataFrame, link: str = "R1->R2"):
        m = (links["link"] == link).to_numpy()
        self.t = links["t"].to_numpy(dtype=float)[m]
        self.util = links["utilisation"].to_numpy(dtype=float)[m]
        md = ((drops["link"] == link) & (drops["action"] == "drop")).to_numpy()
        self.drop_t = drops["t"].to_numpy(dtype=float)[md]

    def utilisation(self, windows: Sequence[Tuple[float, float]]) -> float:
        """Mean utilisation over the bins that start inside ``windows`` (bins are equal in
        length, so the mean of bins is the utilisation of the union)."""
        m = _in_windows(self.t, windows)
        return float(self.util[m].mean()) if m.any() else float("nan")

    def drops(self, windows: Sequence[Tuple[float, float]]) -> int:
        return int(_in_windows(self.drop_t, windows).sum())


def window_utilisation(links: pd.DataFrame, windows: Sequence[Tuple[float, float]],
                       link: str = "R1->R2") -> float:
    """Mean bottleneck utilisation over the bins that start inside ``windows``."""
    empty = pd.DataFrame({"t": [], "link": [], "action": []})
    return RunSeries(links, empty, link).utilisation(windows)


def window_drops(drops: pd.DataFrame, windows: Sequence[Tuple[float, float]],
                 link: str = "R1->R2") -> int:
    empty = pd.DataFrame({"t": [], "link": [], "utilisation": []})
    return RunSeries(empty, drops, link).drops(windows)


def per_seed(runs: Runs, key: str, fn) -> np.ndarray:
    """``fn(record)`` for every seed of experiment ``key``."""
    return np.array([float(fn(runs.get(key, s))) for s in runs.seeds(key)])


def bottleneck_queue(runs: Runs, key: str) -> Dict[str, object]:
    """The bottleneck queue's table of experiment ``key``'s scenario."""
    return runs.experiments[key].scenario.to_dict()["dumbbell"]["bottleneck"]["queue"]


def queue_unit(runs: Runs, key: str) -> str:
    """The unit RED's average and thresholds are in: packets, or mean_pktsize bytes."""
    q = bottleneck_queue(runs, key)
    if q.get("queue_in_bytes"):
        return f"units of {q.get('mean_pktsize', 500):g} bytes (ns-2 byte mode)"
    return "packets"
