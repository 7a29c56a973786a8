"""mkdocs hook: the tutorial notebooks (docs/tutorial.ipynb, about 10 s, and the plug-in
tutorial docs/plugins/tutorial.ipynb: ``NOTEBOOKS``) are run at every build, so their
pages show the figures and tables the code draws.

The notebook is kept in git without outputs (tests/test_tutorial.py holds it to that).
mkdocs-jupyter's own ``execute`` would run it in docs/, where it finds no examples and
would leave its sweep store; here it runs as a reader runs it and as
tests/test_tutorial.py does: a fresh kernel in an empty temporary folder holding only a
copy of the example scenarios. The kernel is this Python (jupyter_client starts the
``python3`` kernel with ``sys.executable``) with this checkout's ``python/`` first on its
``PYTHONPATH``, so it runs the same aqmsim the API and CLI pages document. The executed
copy replaces the notebook as the page's source (mkdocs-jupyter then renders the outputs
it holds, and the site's downloadable tutorial.ipynb has them too); docs/ is left as it
was. A cell that fails stops the build with the cell's error.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

NOTEBOOK = "tutorial.ipynb"
#: Every notebook the site runs (docs/-relative): the tutorial, and the plug-in tutorial
#: (docs/plugins/tutorial.ipynb, ~30 s: it runs a piece of the RFC 7928 suite).
NOTEBOOKS = (NOTEBOOK, "plugins/tutorial.ipynb")
ROOT = Path(__file__).resolve().parents[2]
CELL_TIMEOUT = 600

_tmp: tempfile.TemporaryDirectory | None = None


def kernel_env() -> dict:
    """The environment of the kernel: this one, with this checkout's python/ first on
    PYTHONPATH (as the CLI page's hook puts it first on sys.path)."""
    paths = [str(ROOT / "python"),
             *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys(paths)))
    # jupyter_core's directory layout, as tests/test_tutorial.py sets it (else a warning)
    env.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    return env


def execute(notebook: Path, workdir: Path, examples: Path | None = ROOT / "examples"):
    """Run ``notebook`` in a fresh kernel with ``workdir`` as its working directory (a copy
    of ``examples`` put there first); return the notebook with its outputs (nbformat)."""
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    if examples is not None:
        shutil.copytree(examples, workdir / "examples", dirs_exist_ok=True)
    nb = nbformat.read(notebook, as_version=4)
    # over Unix sockets in workdir, not TCP on localhost: no port to take, and no kernel
    # warning about unencrypted TCP in the build's output
    ipc = Config({"KernelManager": {"transport": "ipc", "ip": str(workdir / ".kernel")}})
    client = NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                            allow_errors=False, config=ipc,
                            resources={"metadata": {"path": str(workdir)}})
    client.execute(env=kernel_env())
    _relative_to(nb, workdir)
    return nb


def _relative_to(nb, workdir: Path) -> None:
    """The temporary folder's path in the outputs written as ``.``, the folder the notebook
    ran in, so that two builds give the same page."""
    prefixes = sorted({str(workdir), str(workdir.resolve())}, key=len, reverse=True)

    def fix(text):
        for prefix in prefixes:
            text = text.replace(prefix, ".")
        return text

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = fix(out["text"])
            for mime, value in out.get("data", {}).items():
                if isinstance(value, str) and mime.startswith("text/"):
                    out["data"][mime] = fix(value)


def on_files(files, config):
    global _tmp
    _cleanup()
    _tmp = tempfile.TemporaryDirectory(prefix="aqmsim-docs-tutorial-")
    for i, name in enumerate(NOTEBOOKS):
        page = files.get_file_from_path(name)
        if page is not None:
            _run_page(page, name, Path(_tmp.name) / str(i))
    return files


def _run_page(page, name: str, tmp: Path) -> None:
    """Run notebook ``name`` (docs/-relative) in ``tmp``/run; the page's source becomes
    the executed copy."""
    from mkdocs.exceptions import PluginError

    workdir = tmp / "run"
    workdir.mkdir(parents=True)
    try:
        import nbformat

        nb = execute(Path(page.abs_src_path), workdir)
    except Exception as exc:  # CellExecutionError, a kernel that does not start, ...
        # the error's last line first (for a cell: the exception it raised), then the rest
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # the traceback's colours
        lines = text.strip().splitlines() or [type(exc).__name__]
        raise PluginError(f"docs/{name} failed while the site was built: {lines[-1]}\n"
                          + "\n".join(lines[:-1])) from None
    out = tmp / Path(name).name  # the same name: mkdocs-jupyter's include pattern matches it
    nbformat.write(nb, out)
    page.abs_src_path = str(out)


def _cleanup():
    global _tmp
    if _tmp is not None:
        _tmp.cleanup()
        _tmp = None


def on_shutdown():
    _cleanup()

