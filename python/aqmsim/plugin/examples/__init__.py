"""Example plug-ins written against the public API only (tutorial models, and the
reference side of the equality tests): ``red.py`` (a queue discipline), ``newreno.py``
(a congestion control)."""
