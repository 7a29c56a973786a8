"""What the commands of ``aqmsim`` share: the typer app, the lazily made consoles, the
one-line failure, loading a scenario file with ``--set`` overrides, the options where the
runs go, and the flag that lets :func:`aqmsim.cli.main` end a finished ``run`` at once."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional

import typer

from ..cli_errors import OneLineGroup, check_scheduler, print_error
from ..errors import ScenarioError

app = typer.Typer(
    name="aqmsim",
    help="Packet-level simulator for active queue management (RED and its variants) under TCP.",
    no_args_is_help=True,
    cls=OneLineGroup,  # usage errors (a bad option value) as one line, exit 2
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class _LazyConsole:
    """A rich Console made on first use. Importing rich costs ~25 ms: `aqmsim --version`
    and `validate` never pay it, and `run` pays it while the engine runs (_simulate)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)

    # dunder methods bypass __getattr__: rich's Live and Progress use `with console:`
    def __enter__(self) -> Any:
        return self.__getattr__("__enter__")()

    def __exit__(self, *exc: Any) -> Any:
        return self.__getattr__("__exit__")(*exc)


# soft_wrap: a long message stays one line (no wrapping at the terminal width)
out: Any = _LazyConsole(soft_wrap=True, highlight=False)
err: Any = _LazyConsole(stderr=True, soft_wrap=True, highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    print_error(message)  # exactly one line
    raise typer.Exit(code)


def _load(file: Path, overrides: Optional[List[str]] = None) -> Any:
    from ..scenario import Scenario

    if not file.exists():
        _fail(f"{file}: no such file")
    if file.is_dir():
        _fail(f"{file}: is a directory, not a scenario file")
    try:
        sc = Scenario.from_toml(file)
        if overrides:
            parsed = _parse_overrides(overrides)
            base, sc = sc, sc.with_overrides(**parsed)
            for key in _idle_overrides(base, sc, parsed):
                err.print(f"warning: --set {key}={_override_text(overrides, key)}: the scenario "
                          f"resolves the same without it (the value it already has, or one no "
                          f"flow or link takes: a group's own tcp table wins over [tcp]); "
                          f"`aqmsim validate --full` shows what runs", style="yellow", markup=False)
    except ScenarioError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{file}: {exc.strerror or exc}")
    except RecursionError:  # the scenario bounds nesting; this is only a last resort
        _fail(f"{file}: nested too deep to read (a scenario nests at most 64 levels)")
    return sc


def _idle_overrides(base: Any, changed: Any, parsed: Dict[str, Any]) -> List[str]:
    """The ``--set`` keys that change nothing in the resolved scenario, given the others
    (the value already there, or a field every flow overrides: ``tcp.variant`` when each
    group names its own): ``changed`` (``base`` with all of them) against ``base`` with all
    but that key. Nothing when the scenario does not resolve: the command reports that
    itself."""
    try:
        after = changed.validate()
    except Exception:  # noqa: BLE001 - the command itself reports what is wrong
        return []
    idle = []
    for key in parsed:
        others = {k: v for k, v in parsed.items() if k != key}
        try:
            if (base.with_overrides(**others) if others else base).validate() == after:
                idle.append(key)
        except Exception:  # noqa: BLE001 - without it the scenario does not resolve: it matters
            continue
    return idle


def _override_text(items: List[str], key: str) -> str:
    """The VALUE the user wrote for ``key`` in ``--set KEY=VALUE`` (the last one given)."""
    for item in reversed(items):
        k, _, v = item.partition("=")
        if k.strip() == key:
            return v.strip()
    return ""


def _parse_overrides(items: List[str]) -> Dict[str, Any]:
    """``KEY=VALUE`` pairs; VALUE is read as a TOML value (5, 0.1, true, "10Mb",
    [1, 2]) and, failing that, taken as a plain string (10Mb)."""
    import sys as _sys

    if _sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    parsed: Dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScenarioError(f"--set {item!r}: expected KEY=VALUE, e.g. duration=10")
        try:
            parsed[key] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            parsed[key] = value.strip()
        except RecursionError:
            from ..scenario import MAX_DEPTH

            raise ScenarioError(
                f"--set {key}: the value nests arrays or inline tables too deep "
                f"(a scenario nests at most {MAX_DEPTH} levels)"
            ) from None
    return parsed


# The option `run` and `validate` share: fields of the scenario replaced.
_SET = typer.Option(None, "--set", help="override a field, KEY=VALUE (dotted path), repeatable")

# The options `reproduce` and `sweep` share: where the runs go.
_WORKERS = typer.Option(None, "--workers", "-w", min=1, help="local worker processes (default: one per CPU)")
_SCHEDULER = typer.Option(None, "--scheduler", callback=check_scheduler,
                          help="run on the Dask cluster of this scheduler, tcp://HOST:PORT")



#: Set by `run` once it has done its work: :func:`aqmsim.cli.main` then ends the process at once.
_QUICK_EXIT = False


def _request_quick_exit() -> None:
    """Let :func:`aqmsim.cli.main` end the process as soon as the command returns."""
    global _QUICK_EXIT
    _QUICK_EXIT = True
