"""Paper 000's quantities: its scenarios, strategies and drop areas, the queue's unit under
each reading, and the drop-area counts (used by the analysis, its figures and its claims)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np
import pandas as pd


#: Table I scenarios.
SCENARIOS: Tuple[int, ...] = (1, 2, 3)
#: The paper's three strategies (Table II order), then our extra one.
PAPER_STRATEGIES: Tuple[str, ...] = ("red", "ared", "rtred")
STRATEGIES: Tuple[str, ...] = PAPER_STRATEGIES + ("ared_feng",)
LABEL: Dict[str, str] = {
    "red": "RED",
    "ared": "Adaptive",
    "rtred": "RTRED",
    "ared_feng": "Adaptive (Feng 1999) [extra, not in paper]",
}
SHORT: Dict[str, str] = {"red": "RED", "ared": "ARED (ns-2 adaptive_)", "rtred": "RTRED",
                         "ared_feng": "ARED Feng 1999 (extra)"}
COLOR: Dict[str, str] = {"red": "tab:red", "ared": "tab:blue", "rtred": "tab:green",
                         "ared_feng": "tab:gray"}
#: The four drop areas of the paper (Fig. 2, Fig. 4–5), by the actual queue length.
AREAS: Tuple[str, ...] = ("unfair", "normal", "safe", "timeout")
AREA_TEXT: Dict[str, str] = {
    "unfair": "unfair [0, min_th)", "normal": "normal [min_th, max_th)",
    "safe": "safe [max_th, risk_th)", "timeout": "timeout [risk_th, buffer]",
}
ROMAN = {1: "I", 2: "II", 3: "III"}
#: Figure numbers of the paper: (drop probability, queue) per scenario.
FIGNUM = {1: (6, 7), 2: (8, 9), 3: (10, 11)}
#: Table II columns: (our summary metric, scale, published metric name).
TABLE2 = (
    ("time_avg_queue_pkts", 1.0, "avg_queue_pkts"),
    ("mean_e2e_delay_s", 1000.0, "avg_delay_ms"),
    ("bottleneck_drops", 1.0, "packets_lost"),
    ("packets_sent", 1.0, "packets_sent"),
)
#: Seconds before which the queue statistics of the claims ignore the run (flows start
#: in [0, 7] s).
WARMUP = 7.0
#: "A few packets have been dropped in the unfair area": we read "a few" as at most 10 %.
FEW = 0.10


def key(scenario: int, strategy: str) -> str:
    return f"s{scenario}-{strategy}"


@dataclass(frozen=True)
class QueueUnit:
    """The unit a bottleneck counts its queue, thresholds and buffer in.

    Packet mode: packets (``mean_pktsize`` None, ``per_packet`` 1). Byte mode (ns-2
    ``queue_in_bytes_``): units of ``mean_pktsize`` bytes, the thresholds typed in packets
    times mean_pktsize against the queue in bytes; ``per_packet`` is one data packet (its
    wire size) in those units, the factor that turns a count of waiting data packets into
    the queue's units (only data packets reach the forward bottleneck, apart from each
    connection's one 40-byte SYN at its start)."""

    mean_pktsize: Optional[float]
    wire_bytes: int
    per_packet: float

    @property
    def byte_mode(self) -> bool:
        return self.mean_pktsize is not None

    @property
    def name(self) -> str:
        """Short name for axes and tables: "packets" or "units of 500 B"."""
        return f"units of {self.mean_pktsize:g} B" if self.byte_mode else "packets"

    @property
    def text(self) -> str:
        """What the unit is, for the page."""
        if not self.byte_mode:
            return "packets (packet mode: the queue, its average and the thresholds count packets)"
        return (f"units of mean_pktsize = {self.mean_pktsize:g} bytes (byte mode: the queue "
                f"in bytes / {self.mean_pktsize:g}, as ns-2's RED compares its thresholds and "
                f"buffer typed in packets; a {self.wire_bytes}-byte data packet is "
                f"{self.per_packet:.4g} units)")

    def actual(self, q: pd.DataFrame) -> pd.Series:
        """The sampled actual queue (queue table) in this unit."""
        if self.byte_mode:
            return q["len_bytes"].astype(float) / float(self.mean_pktsize)
        return q["len_pkts"].astype(float)


def queue_unit(scenario: Dict[str, object]) -> QueueUnit:
    """The unit of the bottleneck queue of a scenario dict (``Scenario.to_dict()``)."""
    tcp = scenario.get("tcp") or {}
    wire = int(tcp.get("packet_size", 552)) + int(tcp.get("header", 40))
    q = ((scenario.get("dumbbell") or {}).get("bottleneck") or {}).get("queue") or {}
    if q.get("queue_in_bytes"):
        mps = float(q.get("mean_pktsize", 500))
        return QueueUnit(mps, wire, wire / mps)
    return QueueUnit(None, wire, 1.0)


def area_shares(drops: pd.DataFrame, min_th: float, max_th: float, risk_th: float,
                link: str = "R1->R2", per_packet: float = 1.0) -> Dict[str, float]:
    """Counts of the bottleneck's drops in each drop area (by the actual queue length the
    dropped packet saw, ``qlen_pkts``, times ``per_packet``: the thresholds' units per
    waiting packet, 1 in packet mode, wire size / mean_pktsize in byte mode), plus
    ``total``."""
    d = drops
    if len(d):
        d = d[(d["link"] == link) & (d["action"] == "drop")]
    q = d["qlen_pkts"].to_numpy(dtype=float) * per_packet if len(d) else np.zeros(0)
    out = {
        "unfair": int(np.sum(q < min_th)),
        "normal": int(np.sum((q >= min_th) & (q < max_th))),
        "safe": int(np.sum((q >= max_th) & (q < risk_th))),
        "timeout": int(np.sum(q >= risk_th)),
    }
    out["total"] = int(len(q))
    return out


def _new_fig(w: float, h: float, rows: int = 1, cols: int = 1, **kw):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False, **kw)
    return fig, axes


def _fmt(x: float, nd: int = 3) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "nan"
    if abs(x) >= 10 ** nd:
        return f"{x:.0f}"
    return f"{x:.{nd}g}"
