"""The plug-in tutorial (docs/plugins/tutorial.ipynb) runs from start to end in a fresh
kernel, as a reader runs it: in an empty folder holding only a copy of the example
scenarios. It writes a Python AQM into that folder, checks it against a hand-computed
replay sequence and against the built-in drop-tail (asserts in the notebook), runs it on a
dumbbell beside built-in disciplines, and characterises it with a piece of the RFC 7928
suite (one scenario, one seed) — in well under a minute."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "plugins" / "tutorial.ipynb"

# jupyter_core's directory layout (else a DeprecationWarning, an error here)
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")

import nbformat  # noqa: E402 - a docs dependency: make venv installs DOCS_DEPS


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    dirty = [i for i, c in enumerate(code) if c.outputs or c.execution_count is not None]
    assert code and not dirty, f"code cells {dirty} keep outputs: clear them before committing"


def test_notebook_runs_in_a_fresh_kernel(tmp_path, examples_dir):
    from nbclient import NotebookClient

    shutil.copytree(examples_dir, tmp_path / "examples")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                     for o in outputs)
    # the plug-in was written where the reader runs the notebook
    assert (tmp_path / "my_aqm.py").is_file()
    # the two checks ran (each cell asserts; these are their closing lines)
    assert "enq 1000000 2 3 d" in text
    assert "the same" in text and "drops and the same" in text
    # the queue figure and the report's delay-goodput figure
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= 2, f"{len(figures)} figures"
    # the suite ran every run of 3 disciplines x 3 variants x 1 seed, and its report
    counts = [t for t in text.split("\n") if "Counts(" in t]
    assert counts and "ok=9" in counts[0] and "failed=0" in counts[0], counts
    assert (tmp_path / "out" / "suite-delaymarker" / "index.html").is_file()
