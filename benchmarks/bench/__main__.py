"""``python -m bench`` (from ``benchmarks/``, or with it on ``PYTHONPATH``): ``make bench``."""

import sys

from .cli import main

sys.exit(main())
