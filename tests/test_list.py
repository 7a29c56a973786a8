"""`aqmsim list` and the discipline pages in docs/aqm/.

The command prints the engine's own discipline table (`_core.disciplines()`); the docs
tests keep docs/aqm/*.md from rotting: every fenced ```toml block there must be a scenario
that validates, every discipline needs an example and a page that names each of its
parameters.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app

from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

runner = CliRunner()
DOCS = ROOT / "docs" / "aqm"

#: The page that documents each discipline. A new discipline needs a page and a line here.
PAGE = {
    "droptail": "droptail.md",
    "red": "red.md",
    "gentle": "red.md",
    "ared": "ared.md",
    "ared_feng": "ared-feng.md",
    "rtred": "rtred.md",
    "qrtred": "qrtred.md",
    "red1": "red-pktsize.md",
    "red2": "red-pktsize.md",
    "red3": "red-pktsize.md",
    "red4": "red-pktsize.md",
    "red5": "red-pktsize.md",
    "ecn_threshold": "ecn-threshold.md",
    "codel": "codel.md",
    "fq_codel": "fq-codel.md",
    "pie": "pie.md",
    "dualpi2": "dualpi2.md",
    "fq_pie": "fq-pie.md",
    "cobalt": "cobalt.md",
    "cake": "cake.md",
    "fq_cobalt": "fq-cobalt.md",
    "python": "python.md",
}


# --------------------------------------------------------------------------- aqmsim list
def _one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:")
    return text


def test_list_shows_every_discipline(core):
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    table = core.disciplines()
    assert len(table) >= 13
    for name, entry in table.items():
        assert re.search(rf"^{re.escape(name)}\s", result.output, re.M), f"{name} missing"
        # the description's first words, which no wrapping can split from the name line
        first = " ".join(entry["description"].split()[:2])
        assert first in result.output, f"{name}: description missing"


def test_list_one_discipline_shows_its_parameters(core):
    result = runner.invoke(app, ["list", "rtred"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("rtred")
    for field, default, _allowed in core.disciplines()["rtred"]["params"]:
        assert re.search(rf"^\s*{re.escape(field)}\s", out, re.M), field
        assert default in out, (field, default)
    assert "risk_th" in out and "required" in out
    # only rtred: another discipline's own parameter does not appear
    assert "qrt_unit" not in out
    assert not re.search(r"^qrtred\s", out, re.M)


def test_list_name_is_case_insensitive(core):
    result = runner.invoke(app, ["list", "ECN_Threshold"])
    assert result.exit_code == 0, result.output
    assert "threshold" in result.output and "drop_front" in result.output


def test_list_unknown_discipline_is_one_line_exit_2(core):
    msg = _one_line_error(runner.invoke(app, ["list", "gentel"]))
    assert "unknown discipline 'gentel'" in msg
    assert "gentle" in msg and "rtred" in msg  # names the choices


def test_list_in_help(core):
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "list" in result.output


# --------------------------------------------------------------------------- docs/aqm
def _toml_blocks() -> Iterator[Tuple[str, int, str]]:
    for md in sorted(DOCS.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        for i, m in enumerate(re.finditer(r"^```toml[ \t]*\n(.*?)^```", text, re.S | re.M)):
            yield md.name, i, m.group(1)


BLOCKS = list(_toml_blocks())


def _kinds(x: Any) -> Iterator[str]:
    """Every queue `kind` in a scenario structure."""
    if isinstance(x, dict):
        if isinstance(x.get("kind"), str):
            yield x["kind"].lower()
        for v in x.values():
            yield from _kinds(v)
    elif isinstance(x, list):
        for v in x:
            yield from _kinds(v)


def test_docs_have_examples():
    assert DOCS.is_dir()
    assert len(BLOCKS) >= len(set(PAGE.values())), "every page has at least one example"


@pytest.mark.parametrize("page, index, text", BLOCKS, ids=[f"{p}#{i}" for p, i, _ in BLOCKS])
def test_docs_toml_example_validates(core, page: str, index: int, text: str):
    sc = Scenario.from_toml_string(text, path=f"docs/aqm/{page}#{index}")
    resolved = sc.validate()
    assert resolved["duration"] > 0


def test_every_discipline_has_a_page_and_an_example(core):
    names = set(core.disciplines())
    unmapped = names - set(PAGE)
    assert not unmapped, f"document {sorted(unmapped)} in docs/aqm/ and add it to PAGE"
    for page in set(PAGE.values()):
        assert (DOCS / page).is_file(), page
    used = {k for _, _, text in BLOCKS for k in _kinds(tomllib.loads(text))}
    # red1..red5 share one page: one of them with an example is enough
    missing = {n for n in names if n not in used
               and not (PAGE[n] == "red-pktsize.md" and used & {"red1", "red2", "red3", "red4", "red5"})}
    assert not missing, f"no docs/aqm example uses kind = {sorted(missing)}"


def test_every_parameter_is_named_on_its_page(core):
    red_page = (DOCS / "red.md").read_text(encoding="utf-8")
    problems: List[str] = []
    table: Dict[str, Any] = core.disciplines()
    red_params = {p[0] for p in table["red"]["params"]}
    for name, entry in table.items():
        page = (DOCS / PAGE[name]).read_text(encoding="utf-8")
        for field, _default, _allowed in entry["params"]:
            shared = field in red_params and name not in ("droptail", "ecn_threshold")
            if f"`{field}`" not in page and not (shared and f"`{field}`" in red_page):
                problems.append(f"{name}.{field} (docs/aqm/{PAGE[name]})")
    assert not problems, "parameters not documented: " + ", ".join(problems)


def test_readme_indexes_every_page():
    readme = (DOCS / "README.md").read_text(encoding="utf-8")
    for md in DOCS.glob("*.md"):
        if md.name != "README.md":
            assert f"({md.name})" in readme, f"README.md does not link {md.name}"
