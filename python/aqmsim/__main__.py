"""``python -m aqmsim`` — the same as the ``aqmsim`` command."""

from .cli import app

if __name__ == "__main__":
    app(prog_name="aqmsim")
