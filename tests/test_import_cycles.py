"""aqmsim's modules import each other without a circle (issue 15): module A importing B
and B importing A — even inside a function, where the import was put to dodge the circle
at import time — means the two are one module in two files, and either can break the
other's import the day the import moves to the top. The graph is read from the source
with ``ast`` (every ``import`` anywhere in a module, function bodies included), so the
check costs no import and runs in milliseconds.

Not edges: imports under ``if TYPE_CHECKING:`` (annotations only, never executed), and a
package's lazy re-export of its own submodule from a module-level ``__getattr__``
(PEP 562: the package exposes the submodule, it does not use it)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Optional

import pytest

PKG = Path(__file__).resolve().parents[1] / "python" / "aqmsim"


def modules(root: Path = PKG) -> Dict[str, Path]:
    """{dotted module name: file} of every module of the package (the compiled engine
    ``_core`` too, by its stub, so that ``from . import _core`` is an edge to it)."""
    out: Dict[str, Path] = {}
    for f in sorted(root.rglob("*.py")) + sorted(root.rglob("*.pyi")):
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.setdefault(".".join(parts), f)
    return out


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _lazy_getattr(node: ast.AST, is_pkg: bool) -> bool:
    return is_pkg and isinstance(node, ast.FunctionDef) and node.name == "__getattr__"


def imports_of(name: str, path: Path, mods: Dict[str, Path]) -> Dict[str, int]:
    """{module of the package that ``name`` imports: line of the first such import}."""
    is_pkg = path.name == "__init__.py"
    base = name if is_pkg else name.rpartition(".")[0]
    out: Dict[str, int] = {}

    def visit(node: ast.AST, lazy_reexport: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                for c in child.orelse:
                    visit_one(c, lazy_reexport)
                continue
            visit_one(child, lazy_reexport)

    def visit_one(child: ast.AST, lazy_reexport: bool) -> None:
        lazy = lazy_reexport or (isinstance(node_parent.get(child), ast.Module)
                                 and _lazy_getattr(child, is_pkg))
        targets: List[str] = []
        if isinstance(child, ast.Import):
            targets = [a.name for a in child.names]
        elif isinstance(child, ast.ImportFrom):
            if child.level:
                parts = base.split(".")
                parts = parts[:len(parts) - (child.level - 1)]
                mod = ".".join(parts + ([child.module] if child.module else []))
            else:
                mod = child.module or ""
            subs = [f"{mod}.{a.name}" for a in child.names if f"{mod}.{a.name}" in mods]
            # `from pkg import name`: the submodule pkg.name if it is one, else pkg itself
            targets = subs + ([mod] if len(subs) < len(child.names) else [])
        for t in targets:
            if t in mods and t != name:
                if lazy and t.startswith(name + "."):
                    continue  # the package's own submodule, re-exported on demand
                out.setdefault(t, child.lineno)
        visit(child, lazy)

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    node_parent = {c: tree for c in ast.iter_child_nodes(tree)}
    visit(tree, False)
    return out


def import_graph(root: Path = PKG) -> Dict[str, Dict[str, int]]:
    mods = modules(root)
    return {name: imports_of(name, path, mods) for name, path in mods.items()}


def find_cycle(graph: Dict[str, Dict[str, int]]) -> Optional[List[str]]:
    """A cycle of ``graph`` as [a, b, ..., a], or None (iterative depth-first search)."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path: List[str] = [start]
        its = [iter(sorted(graph[start]))]
        state[start] = 1
        while its:
            nxt = next(its[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                its.pop()
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                its.append(iter(sorted(graph.get(nxt, {}))))
    return None


def test_no_import_cycles():
    graph = import_graph()
    assert len(graph) > 40 and "aqmsim.sweep.driver" in graph and "aqmsim.store" in graph
    cycle = find_cycle(graph)
    if cycle:
        steps = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in zip(cycle, cycle[1:])]
        pytest.fail("import cycle among aqmsim's modules:\n  " + "\n  ".join(steps))


def test_the_checker_sees_a_cycle_in_a_function(tmp_path: Path):
    """The checker itself: an import inside a function closes a cycle; one under
    TYPE_CHECKING does not."""
    pkg = tmp_path / "aqmsim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from .a import x\n")
    assert find_cycle(import_graph(pkg)) is None
    (pkg / "b.py").write_text("def f():\n    from .a import x\n    return x\n")
    assert find_cycle(import_graph(pkg)) in (["aqmsim.a", "aqmsim.b", "aqmsim.a"],
                                             ["aqmsim.b", "aqmsim.a", "aqmsim.b"])
    # a package's lazy re-export of its own submodule is not a use of it
    (pkg / "b.py").write_text("")
    sub = pkg / "sub"
    sub.mkdir()
    (sub / "__init__.py").write_text("def page():\n    pass\n\n"
                                     "def __getattr__(name):\n    from .run import go\n"
                                     "    return go\n")
    (sub / "run.py").write_text("from . import page\n")
    assert find_cycle(import_graph(pkg)) is None
    (sub / "__init__.py").write_text("def page():\n    pass\n\n"
                                     "def other():\n    from .run import go\n    return go\n")
    assert find_cycle(import_graph(pkg)) is not None
