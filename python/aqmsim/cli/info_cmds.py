"""The commands that check and describe: ``validate`` (a scenario's errors, or its
resolved summary), ``list`` (the queue disciplines and their parameters), ``examples``
(the example files written out), ``version`` and the ``--version`` option."""

# No `from __future__ import annotations` here: typer reads the annotations at run time
# and must work on Python 3.9, so they use typing.Optional/List, not `X | None`.

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import typer

from ..cli_errors import print_error
from ..errors import ScenarioError
from .common import _SET, _fail, _load, err, out

if TYPE_CHECKING:
    from rich.table import Table


def validate(
    file: Path = typer.Argument(..., help="scenario file (TOML)", show_default=False),
    as_json: bool = typer.Option(False, "--json", help="print the whole resolved scenario as JSON"),
    full: bool = typer.Option(False, "--full", help="print the whole resolved scenario (TOML) "
                              "instead of its summary"),
    overrides: Optional[List[str]] = _SET,
) -> None:
    """Check a scenario: list every error (each with its field), or summarise it resolved
    (every default and "auto" filled in; --full or --json: all of it). Exit 0 valid, 2 not."""
    from ..scenario import dumps_toml
    from ..validate_view import all_errors, summary_text

    sc = _load(file, overrides)
    try:
        errors = all_errors(sc)
        resolved = None if errors else sc.validate()
    except ScenarioError as exc:  # pragma: no cover - all_errors has seen it already
        _fail(str(exc))
    except ImportError as exc:
        _fail(str(exc), code=1)
    if errors:
        for message in errors:
            print_error(message)
        if len(errors) > 1:
            err.print(f"{file}: {len(errors)} errors")
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps(resolved, indent=2))
        return
    if full:
        typer.echo(f"# {file}: valid; resolved scenario follows")
        typer.echo(dumps_toml(resolved), nl=False)
        return
    typer.echo(summary_text(file, resolved))


def _disciplines() -> Dict[str, Any]:
    """The engine's discipline table: {name: {"description", "params"}} (see queue_spec.rs)."""
    from ..native import _core

    try:
        return dict(_core().disciplines())
    except ImportError as exc:
        _fail(str(exc), code=1)


def discipline_table(name: str, entry: Dict[str, Any]) -> "Table":
    """One discipline's parameters as a rich table: field, default, allowed values."""
    from rich.table import Table
    from rich.text import Text

    # the note: where the defaults come from, how to get ns-2's, and caveats (queue_spec.rs)
    table = Table(title=Text.assemble((name, "bold cyan"), "  ", entry["description"]),
                  title_justify="left", show_edge=False, expand=False,
                  caption=Text(entry["note"]) if entry.get("note") else None,
                  caption_justify="left")
    table.add_column("parameter", style="bold", no_wrap=True)
    table.add_column("default", no_wrap=True)
    table.add_column("allowed values and meaning (ns-2 name)")
    for field, default, allowed in entry["params"]:
        table.add_row(field, default, allowed)
    return table


def list_disciplines(
    name: Optional[str] = typer.Argument(
        None, metavar="DISCIPLINE", help="one discipline (default: every one)",
        show_default=False,
    ),
) -> None:
    """List the queue disciplines: description, parameters, defaults, allowed ranges."""
    table = _disciplines()
    if name is not None:
        key = name.strip().lower()
        if key not in table and (key in ("tcp", "ns2", "linux") or key in TCP_PAGES):
            _print_tcp(key)  # a TCP name asked of `list`: what it is and where it is described
            return
        if key not in table:
            _fail(f"unknown discipline {name!r} (expected one of: {', '.join(table)}; "
                  "or tcp for the TCP senders)")
        table = {key: table[key]}
    for i, (kind, entry) in enumerate(table.items()):
        if i:
            out.print()
        out.print(discipline_table(kind, entry))
    if name is None:
        out.print('\nChoose one with kind = "<name>" in a queue table; '
                  "docs/aqm/README.md indexes the pages that describe them.")
        _tcp_lines()


#: The page of docs/tcp (or docs/plugins) that describes each TCP variant.
TCP_PAGES = {"tahoe": "tcp/stack-ns2.md", "reno": "tcp/stack-ns2.md", "sack": "tcp/stack-ns2.md",
             "newreno": "tcp/newreno.md", "cubic": "tcp/cubic.md", "dctcp": "tcp/dctcp.md",
             "bbr": "tcp/bbr.md", "bbr3": "tcp/bbr3.md", "ledbat": "tcp/ledbat.md",
             "prague": "tcp/prague.md"}


def _print_tcp(key: str) -> None:
    """``aqmsim list tcp`` (or a variant's or a stack's name): the TCP senders' summary,
    led by what the name asked about is."""
    if key in TCP_PAGES:
        out.print(f'{key} is a TCP congestion control (tcp.variant = "{key}"), not a queue '
                  f"discipline: docs/{TCP_PAGES[key]} describes it and every departure from its "
                  "reference; the TCP table's fields and ranges are in docs/scenario-reference.md.",
                  markup=False)
    else:
        out.print("TCP is chosen per TCP table ([tcp], a group's or a flow's tcp): stack, then "
                  "variant; every field and its range is in docs/scenario-reference.md (the TCP table).",
                  markup=False)
    _tcp_lines()


def _tcp_lines() -> None:
    """The TCP senders, as `aqmsim list` ends."""
    out.print('TCP senders: tcp.stack = "ns2" (the default everywhere: ns-2 2.35\'s agents, '
              'as the papers ran them) or "linux" (Linux/ns-3.37: bytes, SACK recovery, PRR; '
              'newreno, cubic, dctcp, bbr (v1, as ns-3.37), bbr3 (v3, as draft-ietf-ccwg-bbr), ledbat (as ns-3.37), '
              'prague (TCP Prague, L4S: ECT(1), AccECN, as the L4S team\'s tcp_prague.c)); '
              "docs/tcp/stack-linux.md.")
    out.print('Loss detection on the linux stack: tcp.loss_detection = "rfc6675" (the '
              'default, as ns-3.37) or "rack" (RACK-TLP, RFC 8985, Linux\'s default); '
              "docs/tcp/rack.md.")
    out.print("Timestamps on the linux stack: tcp.timestamps = true (the default, as ns-3.37's "
              "Timestamp and Linux) or false; docs/tcp/stack-linux.md#timestamps.")
    out.print("Comparing with ns-3 on the linux stack: tcp.ns3_quirks = true also reproduces "
              "ns-3.37's departures from RFC 6675 and Linux (NextSeg, PRR, BBR's rate sample; "
              "false by default), with which its network table agrees with ns-3 on every pair; "
              "docs/tcp/index.md.")
    out.print('ECN on the linux stack: tcp.ect = "ect0" (default) or "ect1" (the L4S codepoint); '
              "tcp.accecn = true for AccECN feedback (RFC 9768), tcp.sink_accecn = false for an "
              "RFC 3168 receiver; docs/tcp/accecn.md.")
    out.print('Your own congestion control (either stack): tcp.variant = "python", '
              'tcp.cc_class = "module:Class" or "path/file.py:Class" (a subclass of '
              "aqmsim.plugin.CongestionControl), tcp.cc = { its keyword arguments }; "
              "docs/plugins/cc.md.")


def version_text() -> str:
    """aqmsim's version, the engine's build (aqmsim._core.BUILD) and Python's version."""
    from .. import __version__

    lines = [f"aqmsim {__version__}"]
    try:
        from .._core import BUILD
    except ImportError as exc:
        lines.append(f"engine: not built ({exc})")
    else:
        lines.append(f"engine {BUILD.get('version', '?')} (source {BUILD.get('source_hash', '?')}, "
                     f"git {BUILD.get('git_commit', '?')}, {BUILD.get('profile', '?')} build)")
    v = sys.version_info
    lines.append(f"Python {v.major}.{v.minor}.{v.micro} ({sys.implementation.name}, {sys.executable})")
    return "\n".join(lines)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


def _options(
    show_version: bool = typer.Option(
        False, "--version", "-V", is_eager=True, callback=_print_version,
        help="print the versions of aqmsim, its engine build and Python, and exit",
    ),
) -> None:
    # the command's help is the Typer's (above); this only adds --version
    pass


def version() -> None:
    """Print the versions of aqmsim, its engine build and Python (as --version)."""
    typer.echo(version_text())


def examples_cmd(
    directory: Path = typer.Argument(..., metavar="DIR", help="where to write them (created if "
                                     "needed)", show_default=False),
    force: bool = typer.Option(False, "--force", help="overwrite files of the same names"),
) -> None:
    """Write the example scenarios (and an example sweep) into DIR, to run and edit."""
    from ..example_files import write_examples

    try:
        written = write_examples(directory, force=force)
    except (FileExistsError, NotADirectoryError) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{directory}: could not write the examples: {exc.strerror or exc}", code=1)
    out.print(f"wrote {len(written)} files to {directory}/: "
              + ", ".join(str(p.relative_to(directory)) for p in written))
    out.print(f"next: aqmsim run {directory / 'dumbbell-red.toml'}")
