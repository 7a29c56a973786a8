"""The example scenarios that ship inside the package, and ``aqmsim examples DIR``.

The one copy in git is ``python/aqmsim/examples/``: package data, so every wheel and every
``pip install .`` carries it (maturin packs the whole ``python/aqmsim`` directory). The
repository's ``examples/`` is a symlink to it, so the README's and the tests' paths
(``examples/dumbbell-red.toml``) work in a checkout. (The other way round — the files at
the root and a symlink inside the package — would put a symlink into wheels and sdists,
which neither format keeps reliably; maturin's ``include`` cannot place root files inside
the package either: it keeps their path, so they would land in site-packages/examples/.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Tuple, Union

__all__ = ["example_files", "write_examples"]

#: What the examples directory holds that is not an example (bytecode caches; the store
#: of the example sweep run in a checkout, which is kept beside its file).
_SKIP = ("__pycache__", "out")


def _root() -> Any:
    from importlib.resources import files

    return files("aqmsim") / "examples"


def _walk(node: Any, prefix: str) -> List[Tuple[str, Any]]:
    found: List[Tuple[str, Any]] = []
    for child in node.iterdir():
        if child.name in _SKIP or child.name.startswith("."):
            continue
        name = f"{prefix}{child.name}"
        if child.is_dir():
            found += _walk(child, name + "/")
        else:
            found.append((name, child))
    return found


def example_files() -> List[Tuple[str, bytes]]:
    """Every packaged example as (path relative to the examples directory, content),
    sorted by path: ``dumbbell-red.toml``, …, ``sweeps/red.toml``."""
    return [(name, f.read_bytes()) for name, f in sorted(_walk(_root(), ""))]


def write_examples(directory: Union[str, Path], force: bool = False) -> List[Path]:
    """Write every packaged example into ``directory`` (created if needed), keeping the
    sub-directories (the example sweep refers to ``../dumbbell-red.toml``). Refuses with
    FileExistsError, before writing anything, when a file would be overwritten, unless
    ``force``. Returns the paths written."""
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out}: is a file, not a directory")
    items = example_files()
    if not force:
        clash = [name for name, _ in items if (out / name).exists()]
        if clash:
            more = f" (and {len(clash) - 1} more of the examples)" if len(clash) > 1 else ""
            raise FileExistsError(f"{out / clash[0]} exists{more}: pass --force to overwrite")
    written: List[Path] = []
    for name, data in items:
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written
