"""The docs site's own code (docs/hooks/): the docstring translation for the API pages and
the CLI page's command. The site itself is built by `make docs` (part of `make test`)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parent.parent / "docs" / "hooks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_hooks_{name}", HOOKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sphinx_roles_become_code_spans():
    import griffe  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)
    md = _load("griffe_rst").markdown
    assert md("Build one with :meth:`from_toml` or :class:`Scenario`.") == \
        "Build one with `from_toml` or `Scenario`."
    assert md("see :func:`~aqmsim.store.scenario_hash` and :py:mod:`aqmsim.store`") == \
        "see `scenario_hash` and `aqmsim.store`"
    assert md("A sweep file (TOML)::\n\n    name = 1\n") == "A sweep file (TOML):\n\n    name = 1\n"
    # a double colon inside a line, or ``literal`` text, is left alone
    assert md("a::b and ``x``") == "a::b and ``x``"


def test_cli_page_gets_every_command():
    import mkdocs_click  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)
    hook = _load("cli_command")
    try:
        assert hook.on_config({"k": 1}) == {"k": 1}
        command = sys.modules[hook.MODULE].command
    finally:
        sys.modules.pop(hook.MODULE, None)
    from aqmsim.cli import app

    names = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}
    assert names and names <= set(command.commands)
    assert any("--seed" in p.opts for p in command.commands["run"].params)


def _cli_page_markdown():
    """The Markdown mkdocs-click writes for docs/cli.md (its options there), with the
    command the hook publishes, and that command."""
    from mkdocs_click._docs import make_command_docs

    hook = _load("cli_command")
    try:
        hook.on_config({})
        command = sys.modules[hook.MODULE].command
    finally:
        sys.modules.pop(hook.MODULE, None)
    lines = make_command_docs("aqmsim", command, depth=1, style="plain",
                              list_subcommands=True, has_attr_list=True)
    return "\n".join(lines), command


def _words(text: str) -> str:
    return " ".join(text.split())


def test_cli_page_lists_each_command_with_its_whole_first_paragraph():
    """The list of subcommands gave the first line of each docstring, cutting `reproduce`
    and `suite` mid-sentence; it gives the first paragraph, as `aqmsim --help` does."""
    import mkdocs_click  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)
    import inspect

    md, command = _cli_page_markdown()
    listed = dict(re.findall(r"^- \*\[?([\w-]+)\]?(?:\([^)]*\))?\*: (.*)$", md, re.M))
    assert set(listed) == set(command.commands)
    for name, sub in command.commands.items():
        first = _words(inspect.cleandoc(sub.help).split("\n\n")[0])
        assert listed[name] == first, name
        assert first.endswith((".", ")")), f"{name}: the first paragraph is no sentence"
    assert "claims, write an HTML report" in listed["reproduce"]
    assert "then the report." in listed["suite"]


class _Page:
    class file:
        src_path = "x.md"


def test_display_math_in_a_paragraph_and_code_left_alone():
    import latex2mathml  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)
    hook = _load("tex_mathml")
    src = "Average:\n   $$a \\leftarrow\n   b$$\nand `$$x$$` and\n```\n$$y$$\n```\n"
    out = hook.on_page_markdown(src, _Page, None, None)
    assert "$\\displaystyle a \\leftarrow b$" in out
    assert "`$$x$$`" in out and "```\n$$y$$\n```" in out


def test_arithmatex_output_becomes_mathml():
    import latex2mathml  # noqa: F401  (a docs dependency: make venv installs DOCS_DEPS)
    hook = _load("tex_mathml")
    html = ('<p><span class="arithmatex">\\(a &lt; \\texttt{mean\\_pktsize}\\)</span> '
            '<span class="arithmatex">\\(\\displaystyle \\begin{cases} 1 & x \\\\[1ex] 0 & y '
            '\\end{cases}\\)</span></p>')
    out = hook.on_page_content(html, _Page, None, None)
    assert "arithmatex" not in out and out.count("<math") == 2
    assert 'display="block"' in out and "mean_pktsize" in out and "[1ex]" not in out
    assert "&lt;" in out or "&#x0003C;" in out
