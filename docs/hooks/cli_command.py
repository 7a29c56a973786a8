"""mkdocs hook: the ``aqmsim`` command as a click command, for the mkdocs-click block of
docs/cli.md, so the CLI page is generated from the typer app at every build and cannot
drift from it.

typer builds its click command only on demand (``typer.main.get_command``), while
mkdocs-click imports ``module:attribute``; this hook publishes the built command as
``aqmsim_docs_cli.command``. It puts this checkout's ``python/`` first on ``sys.path`` so the
page documents the code beside it, not some other installed aqmsim.
"""

import sys
import types
from pathlib import Path

MODULE = "aqmsim_docs_cli"


def on_config(config):
    python_dir = str(Path(__file__).resolve().parents[2] / "python")
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    import typer.main

    from aqmsim.cli import app

    module = types.ModuleType(MODULE)
    module.command = typer.main.get_command(app)
    sys.modules[MODULE] = module
    return config
