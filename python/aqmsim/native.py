"""The compiled engine, ``aqmsim._core``, imported on first use: the module, or an
ImportError that says how to build it (a source checkout without ``make build``)."""

from __future__ import annotations

from .errors import CORE_IMPORT_ERROR


def _core():
    """The native module, or a clear ImportError when it has not been built."""
    if CORE_IMPORT_ERROR is not None:
        raise ImportError(
            "aqmsim's native extension (aqmsim._core) is not built; run `make build` "
            f"(maturin develop) first ({CORE_IMPORT_ERROR})"
        ) from CORE_IMPORT_ERROR
    from . import _core as core

    return core
