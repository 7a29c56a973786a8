"""The figure of a plug-in discipline's own monitored variables (``monitor = (...)`` on an
``aqmsim.plugin.QueueDiscipline``): the queue-sample columns beyond the engine's, against
time, at one link. Drawn in a run's figures (``monitored``) when a run has any."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Mapping, Optional

import numpy as np

from .plot import _finish, _finite, _pick_link, _table, new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .run_view import RunView

__all__ = ["extra_queue_columns", "plot_monitored", "ENGINE_QUEUE_COLUMNS"]

#: the engine's own queue-sample columns (``results.SCHEMAS["queue"]``, which this module
#: cannot import: results imports it)
ENGINE_QUEUE_COLUMNS = ("t", "link", "len_pkts", "len_bytes", "avg", "p", "max_p", "min_th",
                        "max_th", "delay", "count")


def extra_queue_columns(res: "RunView") -> List[str]:
    """Names of the queue-sample columns a plug-in added (none: []), from the engine's
    columns (no table built)."""
    raw = res._raw.get("queue")
    cols = list(raw) if isinstance(raw, Mapping) else [str(c) for c in res.queue.columns]
    return [c for c in cols if c not in ENGINE_QUEUE_COLUMNS]


def plot_monitored(res: "RunView", link: Optional[str] = None,
                   ax: Optional["Axes"] = None) -> "Figure":
    """Each monitored variable of a plug-in discipline against time at ``link`` (default:
    the first monitored link). ValueError when the link has none."""
    names = extra_queue_columns(res)
    link, q = _pick_link(_table(res, "queue"), link, "queue samples")
    shown = [n for n in names if np.isfinite(_finite(q[n])).any()]
    if not shown:
        raise ValueError(f"no plug-in variables at {link}: its discipline monitors none")
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    t = _finite(q["t"])
    for n in shown:
        ax.plot(t, _finite(q[n]), lw=0.9, label=n)
    _finish(ax, res, link, "plug-in variables", "value")
    ax.set_ylim(bottom=min(0.0, float(np.nanmin([np.nanmin(_finite(q[n])) for n in shown]))))
    return fig
