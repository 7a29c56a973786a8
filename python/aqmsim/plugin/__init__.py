"""Your own queue discipline or congestion control, as a Python class.

A scenario names the class (``kind = "python"``, ``class = "my_aqm:MyRed"`` in a queue
table; ``variant = "python"`` in a ``tcp`` table) and the engine calls it at every packet
or ACK. ``factory.py`` finds the classes and builds one instance per queue or flow; the
base classes and the engine's calling conventions are in ``aqm.py`` and ``cc.py``.
"""

from __future__ import annotations

from .aqm import (ACCEPT, CE, DROP, DROP_FORCED, DROP_HEAD, DROP_HEAD_FORCED, DROP_HEAD_OVERFLOW,
                  DROP_OVERFLOW, ECT0, ECT1, MARK, MARK_FORCED, MARK_OVERFLOW, NOT_ECT, PASS, Link,
                  QueueDiscipline)
from .cc import CongestionControl
from .factory import Factory, find_class, plugin_factory, uses_plugins

__all__ = ["Factory", "find_class", "plugin_factory", "uses_plugins",
           "QueueDiscipline", "Link", "ACCEPT", "PASS", "DROP", "MARK", "DROP_HEAD",
           "DROP_FORCED", "DROP_OVERFLOW", "MARK_FORCED", "MARK_OVERFLOW",
           "DROP_HEAD_FORCED", "DROP_HEAD_OVERFLOW", "NOT_ECT", "ECT1", "ECT0", "CE",
           "CongestionControl"]
