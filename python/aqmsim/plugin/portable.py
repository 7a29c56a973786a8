"""Scenario data that names plug-ins, made runnable in any process and directory.

A scenario names a plug-in by ``"module:Class"`` (imported by name: the module must be on
``sys.path`` — PYTHONPATH — in every process that runs it) or by ``"path/file.py:Class"``
(a file, relative to the scenario file). A sweep or a suite hands plain scenario dicts to
worker processes that start elsewhere (spawned processes, Dask workers), where a relative
file would be looked up from their own working directory: :func:`absolute_plugin_paths`
rewrites each such file as an absolute path first, from the directory it was relative to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

__all__ = ["absolute_spec", "absolute_plugin_paths"]


def absolute_spec(spec: str, base_dir: Optional[Path] = None) -> str:
    """``"plugins/x.py:C"`` → ``"/abs/plugins/x.py:C"`` (relative to ``base_dir``, else the
    working directory); a ``module:Class`` name, or an absolute file, stays as it is."""
    mod, sep, attr = spec.rpartition(":")
    if not sep or not mod.endswith(".py"):
        return spec
    p = Path(mod)
    if p.is_absolute():
        return spec
    p = (base_dir if base_dir is not None else Path.cwd()) / p
    return f"{p.resolve()}{sep}{attr}"


def _is_plugin_table(d: dict) -> bool:
    kind, variant = d.get("kind"), d.get("variant")
    return ((isinstance(kind, str) and kind.lower() == "python")
            or (isinstance(variant, str) and variant.lower() == "python"))


def absolute_plugin_paths(data: Any, base_dir: Optional[Path] = None) -> Any:
    """``data`` (a scenario dict, or any part of one) with every plug-in class given as a
    relative ``file.py:Class`` made absolute from ``base_dir`` (else the working
    directory): in a queue table with ``kind = "python"`` or a ``tcp`` table with
    ``variant = "python"``, each string field whose name ends in ``class``. Returns a new
    structure when something changed (the input is not modified)."""
    if isinstance(data, dict):
        out = {k: absolute_plugin_paths(v, base_dir) for k, v in data.items()}
        if _is_plugin_table(data):
            for k, v in out.items():
                if isinstance(k, str) and k.endswith("class") and isinstance(v, str):
                    out[k] = absolute_spec(v, base_dir)
        return out
    if isinstance(data, list):
        return [absolute_plugin_paths(v, base_dir) for v in data]
    return data
