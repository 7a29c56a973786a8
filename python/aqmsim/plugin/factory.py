"""Finding a plug-in's class and building its instances for the engine.

The engine (``aqmsim._core.run(..., plugins=factory)``) calls :meth:`Factory.make_aqm`
once per queue whose table says ``kind = "python"`` and :meth:`Factory.make_cc` once per
flow whose ``tcp`` table says ``variant = "python"``; each returns the object the engine
then calls (see ``aqm.py`` and ``cc.py``).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from ..errors import ScenarioError


#: classes given as objects through the Python API in this process, by "module:Qualname"
#: (so that a scenario rebuilt from its plain data still finds them)
REGISTERED: Dict[str, type] = {}


def lift_classes(value: Any, classes: Dict[str, type], depth: int = 0) -> Any:
    """A copy of ``value`` with every class object replaced by its "module:Qualname",
    recorded in ``classes`` (and :data:`REGISTERED`). Below 64 levels it leaves the data
    as it is (the scenario refuses such nesting with its own message)."""
    if isinstance(value, type):
        name = f"{value.__module__}:{value.__qualname__}"
        classes[name] = value
        REGISTERED[name] = value
        return name
    if depth > 64:
        return value
    if isinstance(value, Mapping):
        return {k: lift_classes(v, classes, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [lift_classes(v, classes, depth + 1) for v in value]
    return value


def find_class(spec: Any, where: str, base_dir: Optional[Path] = None,
               objects: Optional[Mapping[str, type]] = None) -> type:
    """The class ``spec`` names: ``"package.module:Class"`` (imported as Python imports it),
    ``"path/to/file.py:Class"`` (relative to ``base_dir``, the scenario file's directory),
    a name registered in ``objects`` (a class object given through the Python API), or a
    class object itself. ``where`` is the scenario field, for the error message."""
    if isinstance(spec, type):
        return spec
    if not isinstance(spec, str) or ":" not in spec:
        raise ScenarioError(f"{where}: must be \"module:Class\" or \"path/file.py:Class\", got {spec!r}")
    if objects and spec in objects:
        return objects[spec]
    if spec in REGISTERED:
        return REGISTERED[spec]
    mod_name, _, attr = spec.rpartition(":")
    if not mod_name or not attr:
        raise ScenarioError(f"{where}: must be \"module:Class\" or \"path/file.py:Class\", got {spec!r}")
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_absolute() and base_dir is not None:
                # beside the scenario file first, else from the working directory (a class
                # given on the command line with --set)
                tried = [base_dir / path, path]
                path = next((p for p in tried if p.is_file()), tried[0])
                if not path.is_file():
                    raise ScenarioError(f"{where}: no file {str(tried[0])!r} (beside the scenario) "
                                        f"or {str(tried[1])!r} (from the working directory) "
                                        f"(from {spec!r})")
            if not path.is_file():
                raise ScenarioError(f"{where}: no file {str(path)!r} (from {spec!r})")
            key = f"aqmsim_plugin_{abs(hash(str(path.resolve())))}"
            module = sys.modules.get(key)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(key, path)
                if loader_spec is None or loader_spec.loader is None:
                    raise ScenarioError(f"{where}: cannot load {str(path)!r} as Python")
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[key] = module
                try:
                    loader_spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[key]
                    raise
        else:
            module = importlib.import_module(mod_name)
    except ScenarioError:
        raise
    except ImportError as exc:
        raise ScenarioError(f"{where}: cannot import {mod_name!r} ({exc}); "
                            + _import_hint(mod_name, attr, base_dir)) from None
    except Exception as exc:  # the user's module failed while importing
        raise ScenarioError(f"{where}: importing {mod_name!r} raised {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ScenarioError(f"{where}: {mod_name!r} has no {attr!r}")
    if not isinstance(obj, type):
        raise ScenarioError(f"{where}: {spec!r} is not a class")
    return obj


def _import_hint(mod_name: str, attr: str, base_dir: Optional[Path]) -> str:
    """What to do about a module that does not import: name the file when there is one
    beside the scenario or in the working directory (the ``aqmsim`` command, unlike
    ``python -m``, does not put the working directory on ``sys.path``)."""
    rel = Path(*mod_name.split(".")).with_suffix(".py")
    file = rel.as_posix()
    if base_dir is not None and (base_dir / rel).is_file():
        return f"there is {file} beside the scenario: give the file, \"{file}:{attr}\""
    if (Path.cwd() / rel).is_file():
        return (f"there is {file} in the working directory: give the file, \"{file}:{attr}\", "
                f"or run with PYTHONPATH=. (the aqmsim command, unlike python -m, does not "
                f"import from the working directory)")
    return f"is it on PYTHONPATH, or give a file: \"path/file.py:{attr}\""


class Factory:
    """Builds one run's plug-ins. ``objects`` maps the names a scenario uses for class
    objects given through the Python API; ``base_dir`` is where relative ``.py`` paths
    start (the scenario file's directory)."""

    def __init__(self, objects: Optional[Mapping[str, type]] = None, base_dir: Optional[Path] = None) -> None:
        self.objects: Dict[str, type] = dict(objects or {})
        self.base_dir = base_dir
        self._watchdog: Any = None

    def find(self, spec: Any, where: str) -> type:
        """The class ``spec`` names (:func:`find_class`, with this run's objects and
        base directory)."""
        return find_class(spec, where, self.base_dir, self.objects)

    def arm(self, limit_s: float) -> None:
        """Start the run's time limit (the engine calls it when it builds a plug-in);
        a second call keeps the first clock."""
        if self._watchdog is None:
            from .watchdog import Watchdog

            self._watchdog = Watchdog(limit_s)

    def disarm(self) -> None:
        """The run is over: stop its time limit (call it in a ``finally``)."""
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None

    def __enter__(self) -> "Factory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.disarm()

    def find_class(self, spec: Any, where: str) -> type:
        """The class ``spec`` names, as :func:`find_class` finds it for this run (``aqm.py``
        and ``cc.py`` call it, so that they need not import this module)."""
        return find_class(spec, where, self.base_dir, self.objects)

    def make_aqm(self, table_json: str, path: str, rate_bps: float, delay_s: float) -> Any:
        from . import aqm

        return aqm.build(self, json.loads(table_json), path, rate_bps, delay_s)

    def make_cc(self, table_json: str, path: str) -> Any:
        from . import cc

        return cc.build(self, json.loads(table_json), path)


def uses_plugins(data: Any) -> bool:
    """Does a scenario's data name a plug-in anywhere (a queue table with
    ``kind = "python"``, a ``tcp`` table with ``variant = "python"``)?"""
    if isinstance(data, dict):
        kind = data.get("kind")
        variant = data.get("variant")
        if (isinstance(kind, str) and kind.lower() == "python") or (isinstance(variant, str) and variant.lower() == "python"):
            return True
        return any(uses_plugins(v) for v in data.values())
    if isinstance(data, list):
        return any(uses_plugins(v) for v in data)
    return False


def plugin_factory(data: Any, objects: Optional[Mapping[str, type]] = None,
                   base_dir: Optional[Path] = None) -> Optional[Factory]:
    """The factory a run of ``data`` needs, or None when it names no plug-in."""
    return Factory(objects, base_dir) if uses_plugins(data) else None
