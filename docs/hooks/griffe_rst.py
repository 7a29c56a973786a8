"""Griffe extension for the API pages: the docstrings of python/aqmsim are written for
Sphinx-style readers (``:class:`Store```, ``Example::`` before an indented block), while
mkdocstrings renders them as Markdown. Without this, a reader sees ``:meth:`run``` raw.

- ``:role:`target``` (``:class:``, ``:meth:``, ``:func:``, ``:mod:``, ``:data:``, ``:attr:``,
  ``:exc:``, ``:obj:``) becomes the code span ``target`` — ``~pkg.mod.Name`` shows ``Name`` as
  Sphinx does. No link: a cross-reference to an object the site does not render would be
  an error under ``mkdocs build --strict``.
- A paragraph ending in ``::`` ends in ``:``; the indented block after it is already a
  code block in Markdown.
"""

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|data|attr|exc|obj):`(~?)([^`]+)`")
LITERAL_INTRO = re.compile(r"(\S)::[ \t]*$", re.MULTILINE)


def _role(m: "re.Match[str]") -> str:
    target = m.group(2).strip()
    if m.group(1):  # ~a.b.C shows the last part only
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown(text: str) -> str:
    return LITERAL_INTRO.sub(r"\1:", ROLE.sub(_role, text))


class RstToMarkdown(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
