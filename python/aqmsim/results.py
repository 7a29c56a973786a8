"""Results of one run: a summary dict and pandas tables, with plots and saving.

The engine returns columns (lists or numpy arrays); each table is built on first use.
What every column means is fixed in DESIGN.md ("What the words mean"):

========  ===============================================================================
table     columns
========  ===============================================================================
queue     t [s], link, len_pkts, len_bytes, avg (the discipline's EWMA), p (current drop
          probability), max_p, min_th, max_th, delay [s] (the delay CoDel or PIE acts on;
          0 for the RED family), count (CoDel's drop count) — one row per sample of a
          monitored queue
drops     t [s], link, flow, reason (early|forced|overflow), action (drop|mark), qlen_pkts
flows     flow, src, dst, app, variant, start, stop, sent, retransmitted, timeouts,
          received, delivered, throughput_bps, goodput_bps, mean_delay_s, queue_arrivals,
          queue_drops, queue_marks (marks made), queue_marks_departed (left with CE:
          ns-2's pmarks_) — the flow's packets at the first monitored queue;
          delay_p50_s, delay_p90_s, delay_p99_s, delay_max_s, jitter_s (end-to-end, with
          ``monitor.delays``; NaN otherwise); size_bytes, fct_s [s] (web transfers: size,
          completion time, NaN when not done; 0 and NaN for other flows)
links     t [s] (bin start), link, utilisation (bits sent / (rate x bin))
tcp       t [s], flow, cwnd, ssthresh (packets), srtt, rttvar, rto [s], outstanding
          (packets sent, not yet acknowledged), state (slow_start | congestion_avoidance |
          fast_recovery | timeout), pacing_rate [bit/s] (0: not paced), bbr_bw [bit/s],
          bbr_min_rtt [s] (BBR's model; 0 for other senders) — the flows of
          ``monitor.tcp_flows``, one row per change
          (or per ``monitor.tcp_interval``)
rtt       t [s], flow, rtt [s] — every RTT sample those flows took
delay_cdf what ("queue <link>" | "end-to-end"), q, delay_s — with ``monitor.delays``: the
          delay at each quantile level q (every percent, 0.995, 0.999, 1 = the maximum),
          within 1 % (DDSketch)
phases    t [s], flow, cc (bbr | bbr3), phase — every BBR flow's phase changes: BBR v1's
          modes (STARTUP, DRAIN, PROBE_BW, PROBE_RTT), BBR v3's states (STARTUP, DRAIN,
          PROBE_BW_DOWN, PROBE_BW_CRUISE, PROBE_BW_REFILL, PROBE_BW_UP, PROBE_RTT); empty
          without BBR flows
========  ===============================================================================
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union

# the tables' schemas and how an engine column becomes a DataFrame or Arrow column (the
# public ones are exported from here too)
from .results_tables import (  # noqa: F401
    SCHEMAS, TABLES, TRACE_TABLES, _arrow_column, _column, _frame, _unmapped, frame_from_arrow,
    read_parquet,
)

if TYPE_CHECKING:
    # numpy and pandas are imported where a table is built, not here: `import aqmsim` and
    # `aqmsim run` without --out (the summary only) never load them (~0.3 s, ~70 MiB)
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .run_view import ScenarioView

__all__ = ["Results", "TABLES", "SCHEMAS", "frame_from_arrow", "read_parquet"]


# summary entries that are counts: the engine may report them as floats; shown as ints
INT_SUMMARY_KEYS = frozenset({
    "seed", "events", "bottleneck_arrivals", "bottleneck_departures", "bottleneck_drops",
    "drops_early", "drops_forced", "drops_overflow", "marks", "marks_departed", "max_queue_pkts",
    "arrivals_ect0", "arrivals_ect1", "marks_departed_ect0", "marks_departed_ect1", "accecn_ce_packets",
    "bottleneck_queued_end", "final_queue_pkts", "packets_sent", "packets_retransmitted",
    "timeouts", "transfers", "transfers_done",
    "rack_tlp_probes", "rack_tlp_recoveries", "rack_marked_lost",
    "bbr_mode_changes", "bbr3_state_changes", "prague_classic_flows",
})


class Results:
    """What one :meth:`Scenario.run` produced.

    ``summary`` is a dict of scalars; ``queue``, ``drops``, ``flows`` and ``links`` are
    pandas DataFrames; ``resolved`` is the scenario that actually ran, every default and
    "auto" filled in.
    """

    def __init__(
        self,
        raw: Mapping[str, Any],
        scenario: Optional["ScenarioView"] = None,
        seed: Optional[int] = None,
    ) -> None:
        self._raw = dict(raw)
        self.scenario = scenario
        self.seed = seed
        self._frames: Dict[str, pd.DataFrame] = {}
        self._cols: Dict[str, Dict[str, Any]] = {}  # tables decoded without pandas
        summary = self._raw.get("summary") or {}
        self._summary: Dict[str, Any] = {
            k: _count(v) if k in INT_SUMMARY_KEYS else _scalar(v) for k, v in dict(summary).items()
        }
        resolved = self._raw.get("resolved")
        if isinstance(resolved, str):
            resolved = json.loads(resolved) if resolved else {}
        self._resolved: Dict[str, Any] = dict(resolved or {})
        #: Why the packet trace (``[trace]``) stopped before the end of the run (a full
        #: disk), or None: the run itself went on, and every other result is complete.
        self.trace_error: Optional[str] = self._raw.get("trace_error")
        if self.trace_error:
            import warnings

            warnings.warn(f"packet trace incomplete: {self.trace_error}", RuntimeWarning,
                          stacklevel=3)

    def __getstate__(self) -> Dict[str, Any]:
        # A long run's drop log arrives as maps of the engine's files: pickle (to another
        # process) the bytes, not the maps.
        state = dict(self.__dict__)
        state["_raw"] = {k: _unmapped(v) for k, v in self._raw.items()}
        state["_cols"] = {}  # (decoded again where needed: no second copy on the wire)
        return state

    # ---------------------------------------------------------------- data
    @property
    def summary(self) -> Dict[str, Any]:
        """Scalar metrics of the run (see DESIGN.md for every definition)."""
        return self._summary

    @property
    def resolved(self) -> Dict[str, Any]:
        """The resolved scenario (every default and "auto" replaced by its value)."""
        return self._resolved

    def _table(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = _frame(name, self._raw.get(name))
        return self._frames[name]

    def columns(self, name: str) -> Dict[str, Any]:
        """Table ``name`` as {column: numpy array}: the DataFrame's columns, dtypes and
        values (text as object arrays of str), decoded from the engine's columns without
        building the DataFrame or importing pandas when they allow it (what ``aqmsim run
        --out`` writes and draws from); a table already built is read from its DataFrame."""
        if name in self._cols:
            return self._cols[name]
        if name not in self._frames:
            cols = self._light(name)
            if cols is not None:
                return self._cols.setdefault(name, cols)
        df = self._table(name)
        return {str(c): df[c].to_numpy() for c in df.columns}

    def _light(self, name: str) -> Optional[Dict[str, Any]]:
        """Table ``name`` decoded without pandas, or None where only pandas converts it
        as the DataFrame has it (:func:`aqmsim.light_tables.decode`)."""
        from .light_tables import decode

        return decode(self._raw.get(name), SCHEMAS.get(name, {}))

    def has_rows(self, name: str) -> bool:
        """Whether table ``name`` has a row, told from the engine's columns without
        building the table (nor importing pandas)."""
        if name in self._frames:
            return not self._frames[name].empty
        raw = self._raw.get(name)
        if isinstance(raw, Mapping):
            from .light_tables import column_rows

            return any(column_rows(v) for v in raw.values())
        return bool(raw is not None and len(raw))

    @property
    def queue(self) -> pd.DataFrame:
        """Queue samples of every monitored link."""
        return self._table("queue")

    @property
    def drops(self) -> pd.DataFrame:
        """Every drop and ECN mark at monitored queues, with its reason."""
        return self._table("drops")

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow: counters, throughput, goodput, delay."""
        return self._table("flows")

    @property
    def links(self) -> pd.DataFrame:
        """Utilisation of each monitored link per bin."""
        return self._table("links")

    @property
    def tcp(self) -> pd.DataFrame:
        """The state of the senders of ``monitor.tcp_flows`` over time: cwnd, ssthresh,
        srtt, rttvar, rto, packets outstanding, the phase, the pacing rate (bit/s, 0 for
        a sender that does not pace) and BBR's model (bbr_bw, bit/s; bbr_min_rtt, s; 0 for
        other senders), one row per change (or per
        ``monitor.tcp_interval``). Empty unless the scenario traces flows."""
        return self._table("tcp")

    @property
    def rtt(self) -> pd.DataFrame:
        """Every RTT sample the traced senders took (t, flow, rtt in s)."""
        return self._table("rtt")

    @property
    def delay_cdf(self) -> pd.DataFrame:
        """With ``monitor.delays``: the queueing delay of each monitored queue and the
        end-to-end delay of all flows at quantile levels ``q`` (what, q, delay_s)."""
        return self._table("delay_cdf")

    @property
    def phases(self) -> pd.DataFrame:
        """Every BBR flow's phase changes, in time order (t in s, flow, cc, phase): BBR v1's
        modes, BBR v3's states. Empty without BBR flows. (The summary keeps the counts,
        ``bbr_mode_changes`` and ``bbr3_state_changes``.)"""
        return self._table("phases")

    def arrow(self, name: str) -> Any:
        """Table ``name`` as a pyarrow Table, straight from the engine's columns when they
        allow it (no pandas DataFrame is built: what a sweep worker keeps as Parquet),
        typed as the DataFrame is; :func:`frame_from_arrow` turns it back into exactly
        that DataFrame. Columns beyond the documented ones, or values of another type, go
        through the DataFrame (and pandas' metadata)."""
        import pyarrow as pa

        raw = self._raw.get(name)
        schema = SCHEMAS.get(name, {})
        if name not in self._frames and isinstance(raw, Mapping) and raw \
                and all(k in schema for k in raw):
            try:
                cols = {k: _column(v) for k, v in dict(raw).items()}
                if len({len(v) for v in cols.values()}) == 1 and len(next(iter(cols.values()))):
                    return pa.table({k: _arrow_column(name, k, v) for k, v in cols.items()})
            except (TypeError, ValueError, pa.ArrowException):
                pass  # unusual columns: as the DataFrame has them
        return pa.Table.from_pandas(self._table(name), preserve_index=False)

    @property
    def monitored_links(self) -> List[str]:
        """Links that have queue samples, in order of first appearance."""
        q = self.columns("queue")
        if "link" not in q:
            return []
        return list(dict.fromkeys(q["link"].tolist()))

    def queue_params(self, link: Optional[str] = None) -> Dict[str, Any]:
        """The resolved queue table of ``link`` ("A->B"; default: the first monitored link,
        the summary's bottleneck), every default filled in; {} if it is not in the run."""
        if link is None:
            links = self._resolved.get("monitor", {}).get("queues") or self.monitored_links
            if not links:
                return {}
            link = links[0]
        for lk in self._resolved.get("links", []):
            a, b = lk.get("from"), lk.get("to")
            if link == f"{a}->{b}":
                return dict(lk.get("queue") or {})
            if link == f"{b}->{a}":
                return dict(lk.get("reverse_queue") or {})
        return {}

    def __repr__(self) -> str:
        name = self.scenario.name if self.scenario is not None else ""
        s = self._summary
        bits = [f"{k}={s[k]:.4g}" if isinstance(s[k], float) else f"{k}={s[k]}"
                for k in ("duration", "seed", "bottleneck_drops", "utilisation") if k in s]
        return f"Results({name!r}, " + ", ".join(bits) + ")"

    # ---------------------------------------------------------------- saving
    def save(self, directory: Union[str, Path], fmt: str = "csv") -> List[Path]:
        """Write ``summary.json``, ``resolved.json`` and the four tables
        (``queue``, ``flows``, ``drops``, ``links``; and ``tcp``, ``rtt``, ``delay_cdf`` and
        ``phases`` when they have rows) as CSV or Parquet into ``directory`` (created if needed). Returns the
        paths written.

        Parquet needs pyarrow (``pip install pyarrow``)."""
        if fmt not in ("csv", "parquet"):
            raise ValueError(f"fmt: must be 'csv' or 'parquet', got {fmt!r}")
        if fmt == "parquet" and importlib.util.find_spec("pyarrow") is None:
            raise ImportError(
                "saving as parquet needs the pyarrow package (pip install pyarrow); "
                "use fmt='csv' otherwise"
            )
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written: List[Path] = []
        summary = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                   for k, v in self._summary.items()}
        p = out / "summary.json"
        p.write_text(json.dumps(summary, indent=2, default=_json_default) + "\n")
        written.append(p)
        p = out / "resolved.json"
        p.write_text(json.dumps(self._resolved, indent=2) + "\n")
        written.append(p)
        traced = [n for n in TRACE_TABLES if self.has_rows(n)]
        for name in (*TABLES, *traced):
            p = out / f"{name}.{fmt}"
            if fmt == "csv":
                self._save_csv(name, p)
            else:
                self._table(name).to_parquet(p, index=False)
            written.append(p)
        return written

    def _save_csv(self, name: str, path: Path) -> None:
        """Table ``name`` as CSV: a small one from its numpy columns (no pandas: see
        :mod:`aqmsim.light_tables`), a large one by pandas, byte for byte alike."""
        from .light_tables import CSV_CELLS_LIGHT, column_rows, write_csv

        raw = self._raw.get(name)
        if name not in self._frames:
            # the size from the engine's columns: a large table is not decoded for nothing
            cells = len(raw) * column_rows(next(iter(raw.values()))) \
                if isinstance(raw, Mapping) and raw else 0
            if cells <= CSV_CELLS_LIGHT:
                cols = self._cols.get(name) or self._light(name)
                if cols is not None:  # (None: only pandas writes it as to_csv does)
                    write_csv(path, cols)
                    return
        self._table(name).to_csv(path, index=False)

    # ---------------------------------------------------------------- plots
    def plot_queue(self, link: Optional[str] = None, ax: Optional["Axes"] = None) -> "Figure":
        """Instantaneous and average queue against time, thresholds dashed."""
        from . import plot

        return plot.plot_queue(self, link=link, ax=ax)

    def plot_drop_probability(
        self, link: Optional[str] = None, ax: Optional["Axes"] = None
    ) -> "Figure":
        """The discipline's current drop probability p and its max_p against time."""
        from . import plot

        return plot.plot_drop_probability(self, link=link, ax=ax)

    def plot_monitored(self, link: Optional[str] = None, ax: Optional["Axes"] = None) -> "Figure":
        """A plug-in discipline's own monitored variables against time."""
        from .plot_plugin import plot_monitored

        return plot_monitored(self, link=link, ax=ax)

    def plot_utilisation(
        self, link: Optional[str] = None, ax: Optional["Axes"] = None
    ) -> "Figure":
        """Per-bin utilisation of the monitored links."""
        from . import plot

        return plot.plot_utilisation(self, link=link, ax=ax)

    def plot_tcp(self, flows: Optional[Sequence[int]] = None,
                 link: Optional[str] = None) -> "Figure":
        """cwnd of the traced flows (default: all of them, at most 8) above the queue of
        ``link`` (default: the first monitored one) on one shared time axis."""
        from .plot_tcp import plot_tcp

        return plot_tcp(self, flows=flows, link=link)

    def plot_delay_cdf(self, ax: Optional["Axes"] = None) -> "Figure":
        """CDFs of the queueing delay at each monitored queue and of the end-to-end delay
        (``monitor.delays``), on a log time axis."""
        from . import plot

        return plot.plot_delay_cdf(self, ax=ax)


def _scalar(v: Any) -> Any:
    if hasattr(v, "item") and getattr(v, "shape", None) == ():
        return v.item()
    return v


def _count(v: Any) -> Any:
    v = _scalar(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _json_default(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    raise TypeError(f"not JSON serialisable: {type(v).__name__}")


# (kept here too: what the summary's drop reasons mean, by discipline)
from .drop_reasons import RED_FAMILY, drop_reason_labels, forced_drop_rule  # noqa: E402,F401
