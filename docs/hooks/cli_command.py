"""mkdocs hook: the ``aqmsim`` command as a click command, for the mkdocs-click block of
docs/cli.md, so the CLI page is generated from the typer app at every build and cannot
drift from it.

typer builds its click command only on demand (``typer.main.get_command``), while
mkdocs-click imports ``module:attribute``; this hook publishes the built command as
``aqmsim_docs_cli.command``. It puts this checkout's ``python/`` first on ``sys.path`` so the
page documents the code beside it, not some other installed aqmsim.

mkdocs-click lists the subcommands with the first *line* of each one's help, which cuts a
first sentence that wraps in the docstring (``reproduce``, ``suite``); ``aqmsim --help``
shows the whole first paragraph. So each subcommand of the published copy gets that
paragraph, joined onto one line, as its short help (the command the CLI runs is built
anew by typer and keeps its own).
"""

import inspect
import sys
import types
from pathlib import Path

MODULE = "aqmsim_docs_cli"


def first_paragraph(help_text):
    """The first paragraph of a command's help, its lines joined by single spaces (as
    ``aqmsim --help`` shows it in the list of commands)."""
    text = inspect.cleandoc(help_text or "")
    return " ".join(text.split("\n\n", 1)[0].split())


def on_config(config):
    python_dir = str(Path(__file__).resolve().parents[2] / "python")
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    import typer.main

    from aqmsim.cli import app

    command = typer.main.get_command(app)
    for sub in getattr(command, "commands", {}).values():
        if not sub.short_help and sub.help:
            sub.short_help = first_paragraph(sub.help)
    module = types.ModuleType(MODULE)
    module.command = command
    sys.modules[MODULE] = module
    return config
