"""The command line's usage errors as one line, exit status 2, for every command.

click (under typer) reports a bad option value with a usage line, a hint and a boxed
message (5 lines); :class:`OneLineGroup` replaces that with the line every other error
of aqmsim prints, naming the option and what it allows::

    error: --seeds: expected an integer, got 'abc'
    error: --workers: expected an integer ≥ 1, got 0

and the option callbacks here check, before anything runs, the values that would
otherwise fail later with status 1 (a malformed ``--scheduler``, an ``--out`` under a
file). Nothing here imports rich or click beyond what typer has loaded already.
"""

# no `from __future__ import annotations`: typer reads the callbacks' annotations at run time
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, NoReturn, Optional

import typer
from typer.core import TyperGroup

try:  # typer >= 0.24 runs on its own copy of click: its exceptions are those, not click's
    from typer._click import exceptions as _exc
    from typer._click import types as _types
except ImportError:  # pragma: no cover - older typer, on click itself
    from click import exceptions as _exc  # type: ignore[no-redef]
    from click import types as _types  # type: ignore[no-redef]

_NoArgsIsHelp = getattr(_exc, "NoArgsIsHelpError", ())  # click >= 8.2

__all__ = ["OneLineGroup", "OptionError", "print_error", "usage_line", "check_scheduler",
           "check_out_dir"]


def print_error(message: str) -> None:
    """``error: MESSAGE`` on stderr, in red, as exactly one line."""
    from rich.console import Console
    from rich.text import Text

    line = " ".join(str(message).split())
    Console(stderr=True, soft_wrap=True, highlight=False).print(
        Text.assemble(("error: ", "bold red"), (line, "red")))


class OptionError(_exc.UsageError):
    """A usage error whose message already names the option (printed as it is)."""


def _option_name(param: Any) -> str:
    """``--seeds`` for an option (its long name), ``FILE`` for an argument."""
    if getattr(param, "param_type_name", "") == "option":
        longs = [o for o in param.opts if o.startswith("--")]
        return (longs or param.opts)[0]
    return (param.metavar or param.human_readable_name or "argument").strip("{}").upper()


def _allowed(ptype: Any) -> Optional[str]:
    """What a parameter type accepts, in words; None when click's own words say it."""
    if isinstance(ptype, (_types.IntRange, _types.FloatRange)):
        what = "an integer" if isinstance(ptype, _types.IntRange) else "a number"
        lo, hi = ptype.min, ptype.max
        if lo is not None and hi is not None:
            return (f"{what} in {'(' if ptype.min_open else '['}{lo}, {hi}"
                    f"{')' if ptype.max_open else ']'}")
        if lo is not None:
            return f"{what} {'>' if ptype.min_open else '≥'} {lo}"
        if hi is not None:
            return f"{what} {'<' if ptype.max_open else '≤'} {hi}"
        return what
    if isinstance(ptype, _types.IntParamType):
        return "an integer"
    if isinstance(ptype, _types.FloatParamType):
        return "a number"
    if isinstance(ptype, _types.BoolParamType):
        return "true or false"
    if getattr(ptype, "choices", None):
        return "one of: " + ", ".join(map(str, ptype.choices))
    return None


_NOT_VALID = re.compile(r"^(?P<value>.*?) is not (?:a valid [\w ]+|in the range .*|one of .*)$")


def usage_line(exc: Any) -> str:
    """One line for a click usage error: the option, what it allows, what it got."""
    if isinstance(exc, OptionError):
        return exc.message
    ctx = exc.ctx
    where = ctx.command_path if ctx is not None else "aqmsim"
    param = getattr(exc, "param", None)
    if isinstance(exc, _exc.MissingParameter) and param is not None:
        help_text = getattr(param, "help", None)
        return f"{where}: missing {_option_name(param)}" + (f": {help_text}" if help_text else "")
    if isinstance(exc, _exc.BadParameter) and param is not None:
        message = exc.message.strip().rstrip(".")
        allowed = _allowed(param.type)
        m = _NOT_VALID.match(message)
        if allowed and m:
            message = f"expected {allowed}, got {m.group('value')}"
        elif allowed and allowed not in message:
            message += f" (expected {allowed})"
        return f"{_option_name(param)}: {message}"
    text = exc.format_message().strip()
    if text.startswith("No such command") and hasattr(getattr(ctx, "command", None),
                                                      "list_commands"):
        text = text.rstrip(".?") + ("?" if text.endswith("?") else "")
        text += f" (commands: {', '.join(ctx.command.list_commands(ctx))})"
    return f"{where}: {text[0].lower()}{text[1:]}" if text else where


@contextmanager
def _one_line() -> Iterator[None]:
    try:
        yield
    except _NoArgsIsHelp:
        raise  # the help itself, as click prints it
    except _exc.UsageError as exc:
        print_error(usage_line(exc))
        raise typer.Exit(2) from None


class OneLineGroup(TyperGroup):
    """The typer group of aqmsim's commands: usage errors (of the group or of any
    command: a bad value, a missing argument, an unknown option) as one line, exit 2."""

    def make_context(self, info_name: Optional[str], args: Any, parent: Any = None,
                     **extra: Any) -> Any:
        with _one_line():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_line():
            return super().invoke(ctx)


# --------------------------------------------------------------------------- callbacks
def _fail_option(message: str) -> NoReturn:
    raise OptionError(message)


def check_scheduler(value: Optional[str]) -> Optional[str]:
    """``--scheduler``: an address a Dask scheduler can have (``tcp://HOST:PORT``), checked
    before anything runs (a usage error, status 2); the address as the pools take it."""
    if value is None:
        return None
    from .sweep.cluster import SchedulerAddressError, check_scheduler_address

    try:
        return check_scheduler_address(value)
    except SchedulerAddressError as exc:
        _fail_option(str(exc))


def check_out_dir(ctx: typer.Context, param: typer.CallbackParam,
                  value: Optional[Path]) -> Optional[Path]:
    """An output directory option (``--out``, ``--store``): refused at once when it names
    a file, or lies under one (nothing could be written there), as a usage error."""
    if value is None:
        return None
    name = _option_name(param)
    path = Path(value)
    if path.exists() and not path.is_dir():
        _fail_option(f"{name} {str(value)!r}: is a file; expected a directory (existing or to create)")
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                _fail_option(f"{name} {str(value)!r}: {str(parent)!r} is a file, so no directory "
                             "can be made under it; expected a directory (existing or to create)")
            break
    return value
