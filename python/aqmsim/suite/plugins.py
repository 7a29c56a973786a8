"""Python plug-ins in a suite: ``--aqm my_aqm:MyAqm`` (or ``path/file.py:MyAqm``) beside
the suite's own disciplines.

A name with a ``:`` is a plug-in class (:mod:`aqmsim.plugin`). It becomes one more
:class:`~aqmsim.suite.spec.Discipline` of the suite: its queue table is
``{kind = "python", class = <the name>}`` (a relative file made absolute, so that every
worker process, wherever it starts, imports the same file), the suite adds the scenario's
buffer as ``limit`` and, in the scenarios about ECN, ``ecn = true`` — the two keywords the
suite gives every discipline, so the class's ``__init__`` must take them (checked here,
one line, before any run). Its label in the report is the class's ``label`` attribute,
else its name; its note the first paragraph of its docstring.

In the parameter-sensitivity scenario (RFC 7928 §8.3) a plug-in is swept over its
``suite_parameter`` (a class attribute naming one of its keywords; the recommended value
is that keyword's default), by the same factors as every discipline; without one it runs
the "× 1" variant only (the suite's rule for every other discipline).
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import ScenarioError

__all__ = ["is_plugin", "plugin_discipline", "with_plugins"]


def is_plugin(name: str) -> bool:
    """Does an ``--aqm`` name name a plug-in class (``module:Class``, ``file.py:Class``)?"""
    return ":" in name


def _keywords(cls: type) -> Optional[set]:
    """The keywords ``cls(...)`` takes; None when it takes any (``**kwargs``)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # a builtin's signature: cannot tell, let it run
        return None
    names = set()
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            names.add(p.name)
    return names


def _first_paragraph(doc: Optional[str]) -> str:
    text = inspect.cleandoc(doc or "").split("\n\n")[0]
    return " ".join(text.split())


def plugin_discipline(name: str, taken_labels: Sequence[str] = (), ecn: bool = False,
                      base_dir: Optional[Path] = None) -> Tuple[Any, type]:
    """The :class:`~aqmsim.suite.spec.Discipline` of plug-in ``name`` and its class; ``ecn``: the runs
    include a scenario about ECN (so the class must take ``ecn``). Errors are one line
    starting ``aqm: `` (the command shows it as ``--aqm: ...``)."""
    from ..plugin.factory import find_class
    from ..plugin.portable import absolute_spec
    from .spec import Discipline

    spec = absolute_spec(name, base_dir)
    try:
        cls = find_class(spec, f"aqm: {name}", base_dir=base_dir)
    except ScenarioError as exc:
        msg = str(exc)
        raise ScenarioError(msg if msg.startswith("aqm: ") else f"aqm: {name}: {msg}") from None
    kw = _keywords(cls)
    needed = ["limit"] + (["ecn"] if ecn else [])
    for k in needed:
        if kw is not None and k not in kw:
            why = ("the scenario's buffer in packets, as every discipline's" if k == "limit"
                   else "true in the scenarios about ECN (RFC 7928 §4.5), to mark ECN-capable "
                        "packets; leave those out with --scenarios, or")
            raise ScenarioError(
                f"aqm: {name}: {cls.__name__}.__init__ takes no keyword {k!r}, which the suite "
                f"sets ({why}); add a parameter {k}=... to it")
    label = getattr(cls, "label", None)
    if not isinstance(label, str) or not label.strip():
        label = cls.__name__
    if label in taken_labels:
        label = name
    note = _first_paragraph(cls.__doc__)
    note = (f"{note} " if note else "") + f"(Python plug-in {name})"
    return Discipline(name, label, {"kind": "python", "class": spec}, note,
                      marking={"ecn": True}), cls


def _sensitivity(name: str, cls: type) -> Optional[tuple]:
    """``(parameter, recommended value)`` of a plug-in's ``suite_parameter``, or None."""
    param = getattr(cls, "suite_parameter", None)
    if param is None:
        return None
    where = f"aqm: {name}: {cls.__name__}.suite_parameter"
    if not isinstance(param, str) or param == "limit":
        raise ScenarioError(f"{where}: expected the name of one of its keywords (not limit), "
                            f"got {param!r}")
    try:
        default = inspect.signature(cls).parameters[param].default
    except (KeyError, TypeError, ValueError):
        raise ScenarioError(f"{where}: {param!r} is not a keyword of its __init__") from None
    if isinstance(default, bool) or not isinstance(default, (int, float)) or not default > 0:
        raise ScenarioError(f"{where}: the default of {param!r} must be a number > 0 (the "
                            f"recommended value the suite scales), got {default!r}")
    return param, float(default)


def with_plugins(suite: Any, names: Optional[Sequence[str]],
                 scenarios: Optional[Sequence[str]] = None, check: bool = True) -> Any:
    """``suite`` with the plug-ins among ``names`` added to its disciplines (the same
    suite when there is none). With ``check``, every run of each plug-in is validated by
    the engine (which builds the plug-in: a constructor that raises is one line naming
    the field) before anything runs."""
    from .spec import Suite

    plugs = [n for n in (names or []) if is_plugin(n) and n not in suite.disciplines]
    if not plugs:
        return suite
    chosen = suite.scenarios if scenarios is None else [suite.scenario(n) for n in scenarios]
    ecn = any(s.ecn for s in chosen)
    disciplines: Dict[str, Any] = dict(suite.disciplines)
    swept: Dict[str, tuple] = {}
    for name in plugs:
        d, cls = plugin_discipline(name, [x.label for x in disciplines.values()], ecn)
        disciplines[name] = d
        swept[name] = _sensitivity(name, cls) or (None, 1.0)
    out: List[Any] = []
    for s in suite.scenarios:
        if s.sensitivity:
            s = dataclasses.replace(s, sensitivity={**s.sensitivity, **swept})
        out.append(s)
    new = Suite(suite.name, suite.title, out, disciplines, suite.rule)
    if check:
        _check(new, plugs, scenarios)
    return new


def _check(suite: Any, plugs: Sequence[str], scenarios: Optional[Sequence[str]]) -> None:
    """Validate one run of each (scenario, variant) of every plug-in: the engine builds
    the plug-in, so a bad keyword or a constructor that raises stops the suite here."""
    from ..scenario import Scenario

    for t in suite.tasks(list(plugs), [1], scenarios):
        try:
            Scenario(t.data).validate()
        except ScenarioError as exc:
            raise ScenarioError(f"aqm: {t.aqm} in {t.key}: {exc}") from None
