"""The TCP figure of one run: the traced senders' congestion windows above the bottleneck's
queue on one time axis (``Results.plot_tcp``, ``tcp.png``), with their pacing rates between
the two when a drawn flow paces (BBR, Prague, ``tcp.pacing``), flows named by their group when
the run mixes several, and windows far above the rest (ns-3's BBR taking an unset,
infinite ssthresh as cwnd) clipped with a note rather than flattening the others."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

import numpy as np

from .plot import _finite, _pick_link, _table, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .run_view import RunView

__all__ = ["plot_tcp", "TCP_PLOT_FLOWS"]


#: Most flows :func:`plot_tcp` draws when none are named.
TCP_PLOT_FLOWS = 8
#: ns-3's ``MaxPacingRate``: a paced linux sender's rate before its first RTT sample.
MAX_PACING_RATE_BPS = 4e9


def pacing_mbps(rate: Any) -> Any:
    """Pacing rates (bit/s, the ``tcp`` table's) in Mb/s as figures draw them: NaN where a
    flow does not pace (0) and before a paced flow's first RTT sample (4 Gb/s, which its
    unpaced initial window does not use)."""
    rate = np.asarray(rate, dtype=float)
    return np.where((rate <= 0) | (rate >= MAX_PACING_RATE_BPS), np.nan, rate) / 1e6


def plot_tcp(res: "RunView", flows: Optional[Sequence[int]] = None,
             link: Optional[str] = None) -> "Figure":
    """The classic figure: cwnd of the chosen traced flows (step lines, one colour each,
    fast retransmits and timeouts visible as the drops of the line) above the queue of the
    bottleneck, on one shared time axis. Without ``flows``, the first
    :data:`TCP_PLOT_FLOWS` traced flows; when more are traced, the title and the legend
    say how many of how many are drawn and which (every one is in the ``tcp`` table).
    When a drawn flow paces (the ``tcp`` table's ``pacing_rate`` above 0), a panel between
    the two draws the pacing rates (BBR's gain cycle shows there); the rate a paced sender
    has before its first RTT sample, ns-3's 4 Gb/s ``MaxPacingRate`` that its unpaced
    initial window does not use, is left out of that panel."""
    tcp = _table(res, "tcp")
    if tcp.empty:
        raise ValueError(
            "no TCP state recorded: list the flows in [monitor] tcp_flows (e.g. "
            "tcp_flows = [0, 1] or \"all\"), or run with `aqmsim run --tcp all`")
    traced = sorted(int(f) for f in np.unique(tcp["flow"]))
    if flows is None:
        flows = traced[:TCP_PLOT_FLOWS]
    missing = [f for f in flows if f not in traced]
    if missing:
        raise ValueError(f"flows: {missing} not traced; the traced flows are {traced}")
    drawn = np.isin(np.asarray(tcp["flow"]), list(flows))
    paced = "pacing_rate" in tcp.columns and bool((np.asarray(tcp["pacing_rate"], dtype=float)[drawn] > 0).any())
    fig, top = new_figure(figsize=(8.0, 7.0 if paced else 5.5))
    top.remove()
    if paced:
        top, mid, bottom = fig.subplots(3, 1, sharex=True, height_ratios=(3, 2, 2))
    else:
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    end = float(res.summary.get("duration", tcp["t"].max()))
    groups = _flow_groups(res, flows)
    for f in flows:
        rows = tcp[tcp["flow"] == f]
        t = np.append(rows["t"], end)
        cwnd = np.append(rows["cwnd"], rows["cwnd"][-1:])
        label = f"flow {f} ({groups[f]})" if groups else f"flow {f}"
        top.plot(t, cwnd, drawstyle="steps-post", lw=0.9, label=label)
        if paced:
            rate = pacing_mbps(rows["pacing_rate"])
            mid.plot(t, np.append(rate, rate[-1:]), drawstyle="steps-post", lw=0.9)
    top.set_ylabel("cwnd (packets)")
    top.set_ylim(bottom=0)
    if paced:
        mid.set_ylabel("pacing rate (Mb/s)")
        mid.set_ylim(bottom=0)
        mid.grid(True, alpha=0.3)
    clipped = _clip_outlying_windows(top, np.asarray(tcp["cwnd"], dtype=float)[drawn])
    top.grid(True, alpha=0.3)
    shown = ""
    if clipped:
        top.text(0.01, 0.97, clipped, transform=top.transAxes, ha="left", va="top", fontsize="x-small",
                 bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
    if len(flows) < len(traced):  # say which flows of how many, never a silent subset
        shown = f" — {len(flows)} of {len(traced)} traced flows"
        top.legend(loc="upper right", fontsize="small", ncol=2, title_fontsize="small",
                   title=f"flows {_ranges(flows)} of {_ranges(traced)};\nall in tcp.csv")
    else:
        top.legend(loc="upper right", fontsize="small", ncol=2)
    top.set_title(f"{res.scenario.name if res.scenario is not None and res.scenario.name else 'run'}"
                  f" — cwnd{', pacing rate' if paced else ''} and queue (seed {res.summary.get('seed', '?')}){shown}",
                  fontsize="medium")
    try:
        qlink, q = _pick_link(_table(res, "queue"), link, "queue samples")
    except ValueError:
        bottom.text(0.5, 0.5, "no queue monitored", ha="center", va="center",
                    transform=bottom.transAxes)
    else:
        bottom.plot(_finite(q["t"]), _finite(q["len_pkts"]), drawstyle="steps-post", lw=0.8,
                    color="tab:blue", label=f"queue {qlink}")
        bottom.legend(loc="upper right", fontsize="small")
    bottom.set_ylabel("queue (packets)")
    bottom.set_xlabel("time (s)")
    bottom.set_xlim(left=0, right=end)
    bottom.set_ylim(bottom=0)
    bottom.grid(True, alpha=0.3)
    return fig


def _flow_groups(res: "RunView", flows: Sequence[int]) -> Dict[int, str]:
    """Flow -> its group's label (the flows table's ``label``), when the drawn flows come
    from more than one group (BBR beside CUBIC); {} otherwise (the legend stays short)."""
    cols = res.columns("flows")
    if "label" not in cols or "flow" not in cols:
        return {}
    by_flow = {int(f): str(lab) for f, lab in zip(cols["flow"], cols["label"])}
    groups = {f: by_flow.get(int(f), "") for f in flows}
    return groups if len(set(groups.values())) > 1 and all(groups.values()) else {}


#: A window this many times the 99th percentile of the drawn ones is an outlier the cwnd
#: axis does not stretch to (see :func:`_clip_outlying_windows`).
CWND_OUTLIER_FACTOR = 20.0


def _clip_outlying_windows(ax: Any, cwnd: Any) -> str:
    """Keep the cwnd axis on the windows that matter: when a few values are far above the
    rest (``CWND_OUTLIER_FACTOR`` × the 99th percentile) — ns-3's BBR, which the linux stack
    follows, sets cwnd to a never-set (infinite) ssthresh when a recovery in STARTUP ends,
    for the few ACKs until BBR's own window takes over — the axis ends above the others and
    the returned note says how high the clipped ones went. "" when nothing is clipped."""
    v = cwnd[np.isfinite(cwnd)]
    if not len(v):
        return ""
    p99 = float(np.percentile(v, 99))
    hi = float(v.max())
    if p99 <= 0 or hi <= CWND_OUTLIER_FACTOR * p99:
        return ""
    kept = v[v <= CWND_OUTLIER_FACTOR * p99]
    ax.set_ylim(0, 1.15 * float(kept.max()))
    n = int((v > CWND_OUTLIER_FACTOR * p99).sum())
    return (f"{n} value{'s' if n != 1 else ''} above the axis, up to {hi:,.0f} packets "
            f"(an unset, infinite ssthresh taken as cwnd: see tcp.csv)")


def _ranges(flows: Sequence[int]) -> str:
    """Flow numbers as runs: [0, 1, 2, 3, 7] → "0–3, 7"."""
    runs: List[List[int]] = []
    for f in sorted(flows):
        if runs and f == runs[-1][-1] + 1:
            runs[-1].append(f)
        else:
            runs.append([f])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
