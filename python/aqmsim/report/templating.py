"""The Jinja2 environment of aqmsim's HTML pages: templates are package data
(``aqmsim/report/templates/*.html.j2``), autoescape on, and an undefined name is an error
rather than an empty string, so a renamed field cannot silently vanish from a page."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["render", "template_module"]


@lru_cache(maxsize=1)
def _env() -> Any:
    import jinja2  # (lazily: `import aqmsim` stays light)

    return jinja2.Environment(
        loader=jinja2.PackageLoader("aqmsim.report", "templates"),
        autoescape=True,  # every template is HTML, whatever its suffix (.html.j2)
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, **context: Any) -> str:
    """``templates/<template>`` rendered with ``context``."""
    return _env().get_template(template).render(**context)


def template_module(template: str) -> Any:
    """The macros of ``templates/<template>``, callable from Python (they return Markup)."""
    return _env().get_template(template).module
