"""Scenario data that names plug-ins, made runnable in any process and directory.

A scenario names a plug-in by ``"module:Class"`` (imported by name: the module must be on
``sys.path`` — PYTHONPATH — in every process that runs it) or by ``"path/file.py:Class"``
(a file, relative to the scenario file). A sweep or a suite hands plain scenario dicts to
worker processes that start elsewhere (spawned processes, Dask workers), where a relative
file would be looked up from their own working directory: :func:`absolute_plugin_paths`
rewrites each such file as an absolute path first, from the directory it was relative to.
:func:`plugin_code_digest` is what a store adds to such a scenario's key: its plug-ins' code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["absolute_spec", "absolute_plugin_paths", "plugin_code_digest", "check_shippable"]


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


# --------------------------------------------------------------------------- code digest
_SOURCES: Dict[Tuple[str, int, int], str] = {}


def _plugin_specs(data: Any) -> List[str]:
    """Every plug-in class string ``data`` names (see :func:`absolute_plugin_paths`)."""
    out: List[str] = []
    if isinstance(data, dict):
        if _is_plugin_table(data):
            out += [v for k, v in data.items()
                    if isinstance(k, str) and k.endswith("class") and isinstance(v, str)]
        for v in data.values():
            out += _plugin_specs(v)
    elif isinstance(data, list):
        for v in data:
            out += _plugin_specs(v)
    return out


def _source_file(spec: str) -> Optional[Path]:
    """The file that defines the class ``spec`` names, found without running it (a
    module's parent packages are imported, as ``importlib.util.find_spec`` does)."""
    mod = spec.rpartition(":")[0]
    if mod.endswith(".py"):
        return Path(mod)
    try:
        import importlib.util

        found = importlib.util.find_spec(mod)
    except (ImportError, ValueError, AttributeError):
        return None
    origin = getattr(found, "origin", None) if found is not None else None
    return Path(origin) if origin and origin not in ("built-in", "frozen") else None


def _file_digest(path: Optional[Path]) -> str:
    try:
        st = path.stat() if path is not None else None
    except OSError:
        st = None
    if path is None or st is None:
        return "missing"
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    got = _SOURCES.get(key)
    if got is None:
        try:
            got = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            got = "unreadable"
        _SOURCES[key] = got
    return got


def plugin_code_digest(data: Any) -> str:
    """``""`` for a scenario without plug-ins; else a sha256 of the source file of each
    plug-in class it names. A store keys a run by its scenario's hash: with this folded in
    (:func:`aqmsim.store.scenario_hash`), editing a plug-in's file makes its runs new runs
    instead of reusing the old code's. Only the file that defines the class counts (not
    the modules it imports)."""
    specs = sorted(set(_plugin_specs(data)))
    if not specs:
        return ""
    h = hashlib.sha256()
    for spec in specs:
        h.update(f"{spec}\0{_file_digest(_source_file(spec))}\0".encode("utf-8"))
    return h.hexdigest()


def _specs_at(data: Any, where: str) -> List[Tuple[str, str]]:
    """``(field path, class string)`` of every plug-in class ``data`` names."""
    out: List[Tuple[str, str]] = []
    if isinstance(data, dict):
        plug = _is_plugin_table(data)
        for k, v in data.items():
            at = f"{where}.{k}" if where else str(k)
            if plug and isinstance(k, str) and k.endswith("class") and isinstance(v, str):
                out.append((at, v))
            else:
                out += _specs_at(v, at)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _specs_at(v, f"{where}[{i}]")
    return out


def check_shippable(data: Any) -> None:
    """Refuse, before any run, a plug-in class that other processes cannot import: one
    defined in ``__main__`` (a notebook cell, an interactive session or the script being
    run), which the Python API records as ``"__main__:Class"``. A sweep's workers — the
    local pool's spawned processes, a Dask cluster's — import the class by that name and
    would find their own ``__main__`` instead."""
    from ..errors import ScenarioError

    for at, spec in _specs_at(data, ""):
        if spec.rpartition(":")[0] == "__main__":
            cls = spec.rpartition(":")[2]
            raise ScenarioError(
                f"{at}: {spec!r} is defined in __main__ (a notebook, an interactive session or "
                f"the script itself), which a sweep's worker processes cannot import; put "
                f"{cls} in a module on PYTHONPATH (\"module:{cls}\") or in a file "
                f"(\"path/file.py:{cls}\")")
