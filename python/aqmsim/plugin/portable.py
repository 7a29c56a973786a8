"""Scenario data that names plug-ins, made runnable in any process and directory.

A scenario names a plug-in by ``"module:Class"`` (imported by name: the module must be on
``sys.path`` — PYTHONPATH — in every process that runs it) or by ``"path/file.py:Class"``
(a file, relative to the scenario file). A sweep or a suite hands plain scenario dicts to
worker processes that start elsewhere (spawned processes, Dask workers), where a relative
file would be looked up from their own working directory: :func:`absolute_plugin_paths`
rewrites each such file as an absolute path first, from the directory it was relative to.
:func:`plugin_code_digest` is what a store adds to such a scenario's key: its plug-ins' code,
with the helper modules of their own that they import.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

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


#: The most local modules followed from one plug-in (a guard against a huge tree).
MAX_LOCAL_MODULES = 200
_IMPORTS: Dict[Tuple[str, int, int, Tuple[str, ...]], List[Path]] = {}


def _module_file(base: Path, dotted: str) -> Optional[Path]:
    """``base/a/b.py`` or ``base/a/b/__init__.py`` for ``"a.b"``, if it exists."""
    p = base.joinpath(*dotted.split(".")) if dotted else base
    for cand in (p.with_suffix(".py") if dotted else None, p / "__init__.py"):
        if cand is not None and cand.is_file():
            return cand
    return None


def _imports_of(path: Path, roots: Sequence[Tuple[Path, str]]) -> List[Path]:
    """The files of the modules ``path`` imports that lie in the plug-in's own tree: an
    absolute import found under one of ``roots`` (each a directory and, if not empty, the
    one top-level name allowed there: the plug-in file's directory, any name; for a
    ``module:Class`` plug-in also the directory its top-level package sits in, that
    package's name only), and a relative import (``from .helpers import f``,
    ``from .. import common``); not the standard library or installed packages. Read from
    the source, not run."""
    import ast

    try:
        st = path.stat()
    except OSError:
        return []
    key = (str(path), st.st_mtime_ns, st.st_size, tuple(f"{d}:{top}" for d, top in roots))
    if key in _IMPORTS:  # (a sweep hashes every point's scenario: parse each file once)
        return _IMPORTS[key]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return []
    found: List[Path] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [(d, a.name) for a in node.names for d, top in roots
                       if not top or a.name.split(".")[0] == top]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 0:
                bases = [d for d, top in roots if not top or mod.split(".")[0] == top]
            else:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
                bases = [base]
            # the module itself, and each name that may be a submodule of it
            names = [mod] if mod else []
            names += [f"{mod}.{a.name}" if mod else a.name for a in node.names]
            targets = [(b, n) for b in bases for n in names]
        else:
            continue
        for b, dotted in targets:
            parts = dotted.split(".")
            # a package's __init__ on the way down counts too (it runs on import)
            for k in range(1, len(parts) + 1):
                f = _module_file(b, ".".join(parts[:k]))
                if f is not None:
                    found.append(f)
    _IMPORTS[key] = found
    return found


def _local_sources(spec: str, path: Optional[Path]) -> List[Path]:
    """Every file of the plug-in's own tree that its file ``path`` imports, directly or
    through another such file, sorted (``path`` itself not included)."""
    if path is None or not path.is_file():
        return []
    start = path.resolve()
    roots = [(start.parent, "")]
    mod = spec.rpartition(":")[0]
    if not mod.endswith(".py"):
        # a module plug-in's own package ("pkg.sub.mod", or "pkg" as its __init__): the
        # directory "pkg" sits in, for its absolute self-imports
        depth = mod.count(".") + (start.name == "__init__.py")
        if 1 <= depth < len(start.parents):
            roots.append((start.parents[depth], mod.split(".")[0]))
    installed = _library_dirs()
    seen = {start}
    todo = [start]
    while todo and len(seen) <= MAX_LOCAL_MODULES:
        for f in _imports_of(todo.pop(), roots):
            f = f.resolve()
            if f not in seen and not any(f.is_relative_to(d) for d in installed):
                seen.add(f)
                todo.append(f)
    seen.discard(start)
    return sorted(seen)


@functools.lru_cache(maxsize=1)
def _library_dirs() -> Tuple[Path, ...]:
    """The interpreter's own library directories (the standard library, site-packages):
    what is installed there is never a plug-in's own helper. (Looked up once: a sweep
    hashes every point's scenario.)"""
    import sysconfig

    paths = sysconfig.get_paths()
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(dict.fromkeys(Path(paths[n]).resolve() for n in names if paths.get(n)))


def plugin_code_digest(data: Any) -> str:
    """``""`` for a scenario without plug-ins; else a sha256 of the source file of each
    plug-in class it names and of the local modules that file imports. A store keys a run
    by its scenario's hash: with this folded in (:func:`aqmsim.store.scenario_hash`),
    editing a plug-in's file, or a helper module of its own that it imports (a sibling
    file or package, a relative import, followed through the helpers' own imports), makes
    its runs new runs instead of reusing the old code's. Installed packages and the
    standard library do not count: a new version of numpy does not make new runs."""
    specs = sorted(set(_plugin_specs(data)))
    if not specs:
        return ""
    h = hashlib.sha256()
    for spec in specs:
        src = _source_file(spec)
        h.update(f"{spec}\0{_file_digest(src)}\0".encode("utf-8"))
        # (a plug-in that imports no module of its own hashes as it always did; a helper is
        # named by its path from the plug-in's directory, so moving the whole tree keeps it)
        for dep in _local_sources(spec, src):
            rel = Path(os.path.relpath(dep, src.resolve().parent)).as_posix()  # (src is a file here)
            h.update(f"import {rel}\0{_file_digest(dep)}\0".encode("utf-8"))
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
