"""Your own queue discipline or congestion control, as a Python class.

A scenario names the class (``kind = "python"``, ``class = "my_aqm:MyRed"`` in a queue
table; ``variant = "python"`` in a ``tcp`` table) and the engine calls it at every packet
or ACK. ``factory.py`` finds the classes and builds one instance per queue or flow; the
base classes and the engine's calling conventions are in ``aqm.py`` and ``cc.py``.
"""

from __future__ import annotations

from .cc import CongestionControl
from .factory import Factory, find_class, plugin_factory, uses_plugins

__all__ = ["CongestionControl", "Factory", "find_class", "plugin_factory", "uses_plugins"]
