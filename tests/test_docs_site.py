"""The documentation site as built (`make docs`, mkdocs --strict): the tutorial page shows
what its notebook draws, and the CLI page every command's whole help.

The site is built once for the module, into a temporary folder, by the same mkdocs
command `make docs` runs (about 20 s: the tutorial notebook runs in it); under `make test`,
which has just run `make docs`, the site it built (`AQMSIM_BUILT_SITE`) is read instead.
"""

from __future__ import annotations

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "docs" / "hooks"

import mkdocs_jupyter  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)
import nbclient  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)


def _git_status(path: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--ignored", "--", str(path)],
                          cwd=ROOT, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory, core) -> Path:
    built = os.environ.get("AQMSIM_BUILT_SITE")
    if built and (Path(built) / "index.html").is_file():
        # `make test` has just built the site (`make docs`, which also checks that the build
        # wrote nothing into docs/): read that one instead of building it a second time
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    docs_before = _git_status(ROOT / "docs")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=os.pathsep.join(
        [str(ROOT / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    got = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "-d", str(out)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=900)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _git_status(ROOT / "docs") == docs_before, "the build wrote into docs/"
    return out


def _text(page: Path) -> str:
    """The article of a built page as plain text, whitespace collapsed."""
    s = page.read_text(encoding="utf-8")
    s = s[s.find("<article"):s.rfind("</article>")]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", s)).split())


def test_tutorial_page_shows_the_notebooks_figures_and_tables(site: Path):
    page = (site / "tutorial.html").read_text(encoding="utf-8")
    figures = re.findall(r'<img[^>]+src="data:image/png;base64,', page)
    assert len(figures) >= 4, f"{len(figures)} figures on the tutorial page"
    # DataFrames as pandas renders them: the per-flow table, the sweep's CI table, ...
    tables = re.findall(r'<table[^>]*class="dataframe"', page)
    assert len(tables) >= 3, f"{len(tables)} tables on the tutorial page"
    text = _text(site / "tutorial.html")
    # the sweep's counts, and the CI table's rows: numbers the notebook computed
    assert "ok=30" in text and "failed=0" in text
    assert re.search(r"CoDel \d+\.\d{3} ± \d+\.\d{3}", text)
    # nothing of the temporary folder it ran in: the page is the same at every build
    assert "aqmsim-docs-tutorial-" not in page and "PosixPath('./examples')" in page


def test_cli_page_has_every_commands_whole_help(site: Path):
    import typer.main

    from aqmsim.cli import app

    text = _text(site / "cli.html")
    command = typer.main.get_command(app)
    for name, sub in command.commands.items():
        # `code` in a help text is rendered as code on the page: compare the words
        paragraphs = inspect.cleandoc(sub.help).replace("`", "").split("\n\n")
        first = " ".join(paragraphs[0].split())
        assert re.search(rf"{name} ?: {re.escape(first)}", text), \
            f"{name}: cut in the list of subcommands"
        for para in paragraphs:
            assert " ".join(para.split()) in text, f"{name}: {para[:60]!r} not on the page"


def _hook():
    spec = importlib.util.spec_from_file_location("docs_hooks_tutorial_run",
                                                  HOOKS / "tutorial_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_kernel_runs_this_python_and_this_checkouts_aqmsim(tmp_path: Path, monkeypatch):
    """The hook's kernel is the interpreter mkdocs runs in, and imports aqmsim from this
    checkout even when the environment points elsewhere first."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os, sys, aqmsim\nprint(sys.executable)\nprint(aqmsim.__file__)\n"
        "print(os.getcwd())")])
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "elsewhere"))
    (tmp_path / "run").mkdir()
    ran = _hook().execute(path, tmp_path / "run", examples=None)
    lines = ran.cells[0].outputs[0]["text"].split("\n")
    assert Path(lines[0]).resolve() == Path(sys.executable).resolve()
    assert Path(lines[1]).resolve() == (ROOT / "python" / "aqmsim" / "__init__.py").resolve()
    # it ran in the folder given, whose path the outputs show as "." (a page that does
    # not change from one build to the next)
    assert lines[2] == "."


def test_a_failing_cell_stops_the_build_naming_its_error(tmp_path: Path):
    import nbformat
    from mkdocs.exceptions import PluginError

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell("1 / 0")])
    nbformat.write(nb, tmp_path / "tutorial.ipynb")

    class Files:
        def get_file_from_path(self, path):
            return type("F", (), {"abs_src_path": str(tmp_path / path)})()

    hook = _hook()
    try:
        with pytest.raises(PluginError) as err:
            hook.on_files(Files(), {})
    finally:
        hook.on_shutdown()
    first = str(err.value).splitlines()[0]
    assert first.startswith("docs/tutorial.ipynb failed while the site was built: ")
    assert first.endswith("ZeroDivisionError: division by zero")
