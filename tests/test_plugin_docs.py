"""The plug-in pages' code is the code that runs: the overview's DelayMarker is the class
the tutorial writes, and the hand-computed replay sequence of "From prototype to engine"
is what that class does through the engine's replay (docs/plugins/)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from aqmsim import _core
from aqmsim.plugin import Factory

DOCS = Path(__file__).resolve().parent.parent / "docs" / "plugins"
pytestmark = pytest.mark.usefixtures("core")


def _blocks(page: str, lang: str):
    return re.findall(rf"```{lang}\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S)


def _delay_marker() -> str:
    (code,) = [b for b in _blocks("index.md", "python") if "class DelayMarker" in b]
    return code.split("\n", 1)[1]          # without the "# my_aqm.py" line


def test_the_tutorial_writes_the_overviews_delay_marker():
    nb = nbformat.read(DOCS / "tutorial.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if c.source.startswith("%%writefile my_aqm.py")]
    assert cell.source.split("\n", 1)[1].strip() == _delay_marker().strip()


def test_the_golden_replay_of_to_rust_is_what_the_prototype_does(tmp_path: Path):
    (tmp_path / "delay_marker.py").write_text(_delay_marker())
    (test,) = [b for b in _blocks("to-rust.md", "python") if "GOLDEN" in b]
    ops = re.search(r'OPS = """(.*?)"""', test, re.S).group(1)
    golden = re.search(r'GOLDEN = """(.*?)"""', test, re.S).group(1)
    table = {"kind": "python", "class": "delay_marker.py:DelayMarker", "threshold": 0.005,
             "limit": 10}
    got = _core.replay_queue(json.dumps(table), ops, 1, plugins=Factory(base_dir=tmp_path))
    assert got.strip() == golden.strip()
