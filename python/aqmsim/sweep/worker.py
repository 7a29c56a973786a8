"""The worker function: one run of a sweep, in whichever process or machine runs it."""

from __future__ import annotations

import io
import time
from typing import Any, Dict, Mapping

from .outcome import _failure, identity

__all__ = ["execute"]


def execute(payload: Mapping[str, Any]) -> Dict[str, Any]:
    """Run one task in a worker: ``{"scenario", "seed", "series"}`` → a plain dict
    (``status`` ok|failed, ``summary``, ``series`` as Parquet bytes, ``error``,
    ``error_kind``, ``wall``, and the provenance: ``worker``, ``version``, ``build`` (the
    engine's ``aqmsim._core.BUILD``), ``host``). It never raises for a failed run:
    exceptions of the native module do not travel between processes. A payload with
    ``"engine": "ns2"`` runs the scenario in ns-2 instead
    (:func:`aqmsim.ns2.worker.execute_ns2`: a summary under aqmsim's names, no series)."""
    if payload.get("engine") == "ns2":
        from ..ns2.worker import execute_ns2

        return execute_ns2(payload)
    t0 = time.perf_counter()
    ident = identity()
    try:
        from ..errors import ScenarioError as _SE
        from ..errors import SimulationError as _SimE
        from ..scenario import Scenario

        try:
            res = Scenario.from_dict(payload["scenario"]).run(seed=int(payload["seed"]))
            series: Dict[str, bytes] = {}
            if payload.get("series"):
                import pyarrow.parquet as pq

                for name in payload["series"]:
                    # straight from the engine's columns, no DataFrame (typed as Results
                    # types it; aqmsim.results.read_parquet reads it back as that DataFrame)
                    buf = io.BytesIO()
                    pq.write_table(res.arrow(name), buf)
                    series[name] = buf.getvalue()
            return {"status": "ok", "summary": dict(res.summary), "series": series,
                    "wall": time.perf_counter() - t0, **ident}
        except _SE as exc:
            return _failure("scenario", str(exc), wall=time.perf_counter() - t0, **ident)
        except _SimE as exc:
            return _failure("simulation", str(exc), wall=time.perf_counter() - t0, **ident)
    except Exception as exc:  # noqa: BLE001 - reported, the sweep goes on
        return _failure("error", f"{type(exc).__name__}: {exc}",
                        wall=time.perf_counter() - t0, **ident)
