"""One ns-2 run in a sweep worker (:func:`execute_ns2`): what :func:`aqmsim.sweep.execute`
runs for a task whose payload has ``"engine": "ns2"``."""

from __future__ import annotations

import tempfile
import time
from typing import Any, Dict, Mapping, Tuple

from ..sweep.outcome import _failure, identity

__all__ = ["execute_ns2", "NS2_BUILD", "NS2_TABLES"]

#: The engine identity of ns-2 runs in the store (its ``engine_hash``): ns-2 runs are kept
#: apart (``<paper store>/ns2``) and reused whatever aqmsim's engine build.
NS2_BUILD: Dict[str, Any] = {"version": "ns-2", "source_hash": "ns-2"}

#: The Results tables an ns-2 run can keep (beside its summary): the flows table.
NS2_TABLES: Tuple[str, ...] = ("flows",)

def execute_ns2(payload: Mapping[str, Any]) -> Dict[str, Any]:
    """One ns-2 run in a worker, answered like :func:`aqmsim.sweep.execute`: ``status``,
    ``summary`` (:func:`~aqmsim.ns2.crosscheck.ns2_summary`), ``series`` (Parquet bytes of
    the asked-for tables ns-2 gives, :data:`NS2_TABLES`: ``flows``, with a flow monitor on
    the bottleneck for its per-flow counts; other names are not produced), ``error``,
    ``error_kind`` (``scenario`` when the exporter refuses it, ``simulation`` when ns-2
    fails, ``error`` otherwise), ``wall``, ``worker``, ``version``, ``build`` (:data:`NS2_BUILD`), ``host``. Never
    raises."""
    t0 = time.perf_counter()
    ident = {**identity(NS2_BUILD), "engine": "ns2"}
    try:
        from .crosscheck import Ns2Error, ns2_flows_arrow, ns2_summary, run_ns2
        from .export import Ns2ExportError

        want = [n for n in (payload.get("series") or ()) if n in NS2_TABLES]
        try:
            with tempfile.TemporaryDirectory(prefix="aqmsim-ns2-") as tmp:
                res = run_ns2(payload["scenario"], int(payload["seed"]), tmp, samples=False,
                              flow_monitor="flows" in want)
            series: Dict[str, bytes] = {}
            if "flows" in want:
                import io

                import pyarrow.parquet as pq

                buf = io.BytesIO()
                pq.write_table(ns2_flows_arrow(res), buf)
                series["flows"] = buf.getvalue()
            return {"status": "ok", "summary": ns2_summary(res), "series": series,
                    "wall": time.perf_counter() - t0, **ident}
        except Ns2ExportError as exc:
            return _failure("scenario", f"ns-2 cannot run this: {exc}",
                            wall=time.perf_counter() - t0, **ident)
        except Ns2Error as exc:
            return _failure("simulation", str(exc), wall=time.perf_counter() - t0, **ident)
    except Exception as exc:  # noqa: BLE001 - reported, the sweep goes on
        return _failure("error", f"{type(exc).__name__}: {exc}",
                        wall=time.perf_counter() - t0, **ident)
