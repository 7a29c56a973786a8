"""The engine's layout (issue 24 point 6): the Rust modules of `crates/aqmsim-core/src`
depend on each other without a circle, and no file is a catch-all.

Edges are read from the source text: in a file of directory module `D` (`src/D/*.rs`,
or `src/D/S/*.rs` for a submodule directory `S`), a path `super::X`, `crate::D::X` or
`D::X` naming a sibling module `X` of `D` is an edge to it. A file's own children (a
directory module's `mod.rs` declaring them, `sender/ns2.rs` using `sender/mod.rs`) are one
module, not an edge; nor is a module's `mod.rs` re-exporting its children. Comments are
skipped."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Set

import pytest

SRC = Path(__file__).resolve().parents[1] / "crates" / "aqmsim-core" / "src"
#: Directory modules whose submodules must not depend on each other in a circle: the
#: engine's, and the files of the disciplines and of the linux stack, file by file (a
#: discipline's or a sender's methods may be split over files, `impl X` in each, but the
#: file that defines X uses none of them).
CHECKED = ("tcp", "scenario", "sim", "aqm", "tcp/linux")
#: Circles known and left: none. (The queue-table registry `queue_spec` checks a table's
#: fields and calls the discipline's builder; builders depend only on `queue_fields`.)
KNOWN: Set[tuple] = set()
#: "Files stay under ~500 lines": the largest a file of the split directories may hold.
MAX_LINES = 550


def _code(path: Path) -> str:
    """The file without comments (doc comments name files freely)."""
    return "\n".join(line.split("//")[0] for line in path.read_text().splitlines())


def sibling_graph(d: str) -> Dict[str, Set[str]]:
    """{submodule of `d`: the submodules of `d` it uses} (a submodule is a file `X.rs` or
    a directory `X/`; the directory's files are one node)."""
    root = SRC / d
    path = d.replace("/", "::")  # the module path of directory `d`
    nodes = {p.stem for p in root.glob("*.rs") if p.stem != "mod"} | {p.name for p in root.iterdir() if p.is_dir()}
    graph: Dict[str, Set[str]] = {n: set() for n in nodes}
    for n in nodes:
        files = [root / f"{n}.rs"] if (root / f"{n}.rs").exists() else sorted((root / n).rglob("*.rs"))
        for f in files:
            code = _code(f)
            # inside `d/n/` (but its mod.rs): `super::` is `d::n`, `super::super::` is `d`
            nested = f.parent != root and f.name != "mod.rs"
            pats = [rf"\bcrate::{path}::(\w+)", rf"(?<!::)\b{path}::(\w+)"]
            pats.append(r"\bsuper::super::(\w+)" if nested else r"(?<!::)\bsuper::(\w+)")
            for pat in pats:
                for m in re.finditer(pat, code):
                    x = m.group(1)
                    if x in nodes and x != n:
                        graph[n].add(x)
            # `use super::super::{a, b}` / `use super::{a, b}` / `use crate::d::{a::X, b}`
            for m in re.finditer(r"(?:super::super|(?<!::)super|crate::" + path + r")::\{([^}]*)\}", code):
                if m.group(0).startswith("super::") and not m.group(0).startswith("super::super") and nested:
                    continue
                for item in m.group(1).split(","):
                    x = item.strip().split("::")[0]
                    if x in nodes and x != n:
                        graph[n].add(x)
    return graph


def find_cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """One circle of the graph (its nodes, the first repeated at the end), or []."""
    state: Dict[str, int] = {}
    stack: List[str] = []

    def visit(n: str) -> List[str]:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return []

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return []


@pytest.mark.parametrize("d", CHECKED)
def test_no_module_circles(d: str) -> None:
    g = sibling_graph(d)
    for known_dir, pair in KNOWN:
        if known_dir == d:
            a, b = sorted(pair)
            g[a].discard(b)
    cycle = find_cycle(g)
    assert not cycle, f"src/{d}: modules in a circle: {' -> '.join(cycle)}"


def test_tcp_direction() -> None:
    """The shape tcp/mod.rs describes: the sender depends on the congestion controls and
    the scoreboard, they never on it; the trait and the parameters depend on nothing."""
    g = sibling_graph("tcp")
    assert {"cc", "cubic", "dctcp", "scoreboard", "params", "rtt"} <= g["sender"]
    for m in ("cc", "cubic", "dctcp", "scoreboard", "params", "rtt", "sink"):
        assert "sender" not in g[m], m
    assert g["cc"] == set() and g["params"] == set() and g["scoreboard"] == set()
    assert g["cubic"] == {"cc"} and g["dctcp"] == {"cc"}


def test_linux_stack_direction() -> None:
    """The second sender model (`tcp/linux/`) sits beside the ns-2 sender, not on it: it
    uses only the parameters and the counters both senders keep, and nothing else in
    `tcp/` uses it. AccECN's ACE field (`tcp/accecn.rs`) is the wire format the sink writes
    and the sender reads: both use it, it uses neither. The plug-in congestion control's
    trait (`tcp/plugin.rs`) is one both senders call: it uses nothing in `tcp/`."""
    g = sibling_graph("tcp")
    assert g["linux"] <= {"params", "stats", "accecn", "plugin"}, g["linux"]
    assert g["accecn"] == set()
    assert g["plugin"] == set()
    assert [m for m, deps in g.items() if "linux" in deps] == []
    assert g["stats"] == set()


def test_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_files_stay_small() -> None:
    files = [p for d in CHECKED for p in (SRC / d).rglob("*.rs")]
    big = {str(p.relative_to(SRC)): n for p in files if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not big, f"engine files over {MAX_LINES} lines (split them by what they hold): {big}"


def test_split_files_are_small() -> None:
    """`sim/mod.rs` and `scenario/build.rs` held everything (1 200 and 1 010 lines)."""
    for f, most in (("sim/mod.rs", 250), ("scenario/build.rs", 300), ("tcp/mod.rs", 80)):
        n = len((SRC / f).read_text().splitlines())
        assert n <= most, f"{f}: {n} lines"
