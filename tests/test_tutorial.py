"""The tutorial notebook (docs/tutorial.ipynb) runs from start to end in a fresh kernel.

It runs as a reader would run it: the working directory is an empty temporary folder
holding only a copy of the example scenarios (what `aqmsim examples .` gives a pip user),
so the notebook can lean on nothing else in the checkout, and its sweep store lands in
that folder. The notebook is kept in git without outputs; the docs build runs it the same
way (docs/hooks/tutorial_run.py) so the site shows them (tests/test_docs_site.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "tutorial.ipynb"

# jupyter_core warns (DeprecationWarning, an error under this suite's filters) unless told
# which directory layout to use; the new one is the one it moves to.
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")

import nbformat  # a docs dependency: make venv installs DOCS_DEPS


def _read():
    return nbformat.read(NOTEBOOK, as_version=4)


def test_notebook_is_stored_without_outputs():
    nb = _read()
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "the tutorial has no code"
    dirty = [i for i, c in enumerate(code) if c.outputs or c.execution_count is not None]
    assert not dirty, f"code cells {dirty} keep outputs: clear them before committing"


def test_notebook_runs_in_a_fresh_kernel(tmp_path, examples_dir):
    from nbclient import NotebookClient

    shutil.copytree(examples_dir, tmp_path / "examples")
    nb = _read()
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors  # nbclient raises on an error; this also catches allow_errors changes
    # every figure was drawn: the three queues, two cwnd plots, delay against goodput
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= 4, f"{len(figures)} figures drawn"
    # the sweep ran every run of 3 disciplines x 10 seeds into the store in tmp_path
    assert (tmp_path / "out" / "tutorial-store" / "runs.duckdb").is_file()
    counts = [o for o in outputs if "Counts(" in str(o.get("data", {}).get("text/plain", ""))]
    assert counts and "ok=30" in counts[0]["data"]["text/plain"]
    assert "failed=0" in counts[0]["data"]["text/plain"]
