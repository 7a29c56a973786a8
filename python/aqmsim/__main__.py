"""``python -m aqmsim`` — the same as the ``aqmsim`` command."""

from .cli import main

if __name__ == "__main__":
    main()
