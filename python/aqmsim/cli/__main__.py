"""``python -m aqmsim.cli`` — the same as the ``aqmsim`` command."""

from . import main

main()
