"""README.md and the docs site tell one truth: each fact below has one authority and every
page that repeats it is checked against it.

- the example files: what ``aqmsim examples`` ships, each file's own ``description``;
- the example sweep file: ``examples/sweeps/red.toml`` itself, and how its paths resolve
  (the code: ``aqmsim.sweep.Sweep``);
- whether a sweep script needs an ``if __name__ == "__main__":`` guard: the documented
  script is run as a plain script; the one exception (a ``run_fn`` of the script) is
  named wherever the guard is;
- how long ``aqmsim reproduce all`` takes: docs/performance.md alone.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest

from conftest import fresh_python

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SWEEP_FILE = ROOT / "examples" / "sweeps" / "red.toml"
PERFORMANCE = DOCS / "performance.md"


def _pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _prose(path: Path) -> list[str]:
    """The paragraphs (and list items) of a Markdown file outside fenced code, each on
    one line."""
    text = re.sub(r"^```.*?^```[^\n]*$", "", path.read_text(encoding="utf-8"),
                  flags=re.M | re.S)
    parts = re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def _code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.M | re.S)


# --- the example files -------------------------------------------------------------


def _shipped(tmp_path: Path) -> dict[str, str]:
    """``examples/<file>`` -> its description, for every file `aqmsim examples` writes."""
    from aqmsim.example_files import write_examples

    out = tmp_path / "shipped"
    write_examples(out)
    return {f"examples/{p.relative_to(out).as_posix()}":
            tomllib.loads(p.read_text(encoding="utf-8"))["description"]
            for p in sorted(out.rglob("*.toml"))}


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_examples_table_lists_every_shipped_example_by_its_own_description(page, tmp_path):
    shipped = _shipped(tmp_path)
    assert len(shipped) >= 9 and "examples/sweeps/red.toml" in shipped
    text = (ROOT / page).read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `(examples/[^`]+)` \| (.*?) \|$", text, flags=re.M))
    expected = "\n".join(f"| `{f}` | {d} |" for f, d in shipped.items())
    assert listed == shipped, f"{page}: the examples table should read\n{expected}"


# --- the example sweep file and its paths ------------------------------------------


@pytest.mark.parametrize("page", ["README.md", "docs/sweeps.md"])
def test_the_sweep_file_shown_is_the_one_shipped(page):
    """The TOML shown as `examples/sweeps/red.toml` is that file (comments aside): the
    README showed `base = "dumbbell-red.toml"` where the file has "../dumbbell-red.toml"."""
    blocks = [b for b in _code_blocks((ROOT / page).read_text(encoding="utf-8"), "toml")
              if 'name = "red-disciplines"' in b]
    assert len(blocks) == 1, f"{page}: {len(blocks)} blocks of the example sweep"
    assert tomllib.loads(blocks[0]) == tomllib.loads(SWEEP_FILE.read_text(encoding="utf-8"))


RULE = "relative to the sweep file's folder"


@pytest.mark.parametrize("page", ["README.md", "docs/sweeps.md"])
def test_sweep_paths_rule_is_stated(page):
    paragraphs = [p for p in _prose(ROOT / page) if RULE in p]
    assert len(paragraphs) == 1, f"{page}: the rule for a sweep file's paths"
    assert "`base`" in paragraphs[0] and "`store`" in paragraphs[0]
    assert "`out/sweeps/NAME`" in paragraphs[0], "the default store follows the same rule"
    assert "is in the working directory" not in paragraphs[0]


def test_sweep_paths_resolve_as_documented(tmp_path, monkeypatch):
    from aqmsim.sweep import Sweep

    shutil.copytree(ROOT / "examples", tmp_path / "ex")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    sweep_file = tmp_path / "ex" / "sweeps" / "red.toml"
    sweep = Sweep.from_toml(sweep_file)  # base = "../dumbbell-red.toml", from elsewhere
    red = tomllib.loads((tmp_path / "ex" / "dumbbell-red.toml").read_text(encoding="utf-8"))
    assert sweep.base["name"] == red["name"]
    assert sweep.default_store().resolve() == \
        (tmp_path / "ex" / "sweeps" / "out" / "sweeps" / "red-disciplines").resolve()
    sweep_file.write_text('store = "st"\n' + sweep_file.read_text(encoding="utf-8"),
                          encoding="utf-8")
    assert Sweep.from_toml(sweep_file).default_store().resolve() == \
        (tmp_path / "ex" / "sweeps" / "st").resolve()


# --- the main guard ----------------------------------------------------------------

GUARD = 'if __name__ == "__main__":'


def test_guard_is_described_alike_everywhere():
    """docs/sweeps.md said to keep a sweep under the guard, the README that it needs none:
    wherever the guard is mentioned, so is its one exception, a run_fn of the script."""
    mentions = {}
    for page in _pages():
        for para in _prose(page):
            # the main guard, not a class defined in `__main__` (docs/plugins/index.md)
            if "__main__" in para and ("guard" in para or "__name__" in para):
                mentions.setdefault(page.relative_to(ROOT).as_posix(), []).append(para)
    assert {"README.md", "docs/sweeps.md", "docs/sweeps-internals.md"} <= set(mentions)
    for page, paragraphs in mentions.items():
        for para in paragraphs:
            assert "run_fn" in para, f"{page}: {para[:100]!r} does not name the exception"
            assert not re.search(r"\bkeep (the|your) sweep under\b", para), f"{page}: {para!r}"


def test_documented_script_runs_without_a_guard(core, tmp_path):
    """The script of docs/sweeps.md ("From a script") runs as a plain script, through the
    local pool, once (its sweep shortened here to a few seconds of work)."""
    text = (DOCS / "sweeps.md").read_text(encoding="utf-8")
    section = text[text.index("## From a script"):]
    script = _code_blocks(section, "python")[0]
    assert "run_sweep(" in script and "workers=2" in script and "__main__" not in script
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    sweep_file = tmp_path / "examples" / "sweeps" / "red.toml"
    sweep_file.write_text(sweep_file.read_text(encoding="utf-8")
                          .replace("seeds = 5", "seeds = 1")
                          .replace("duration = 20", "duration = 2")
                          .replace('"dumbbell.groups.0.stop" = 20', '"dumbbell.groups.0.stop" = 2'),
                          encoding="utf-8")
    (tmp_path / "script.py").write_text(
        script + "print('RESULT', result.ok, result.failed, len(df))\n", encoding="utf-8")
    got = fresh_python(["script.py"], cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.count("RESULT") == 1 and "RESULT 24 0 24" in got.stdout, got.stdout


# --- how long `aqmsim reproduce all` takes -----------------------------------------

DURATION = re.compile(r"\b\d+(?:[.,]\d+)?\s*(?:s|secs?|seconds?|min|minutes?|h|hours?)\b"
                      r"|\b(?:a|one|two) (?:minute|hour)s?\b")
REPRODUCE_ALL = re.compile(r"reproduce all|papers reproduce|reproduce the (?:five )?papers",
                           re.I)
ANCHOR = "how-long-aqmsim-reproduce-all-takes"


def test_reproduce_all_time_is_given_in_one_place():
    """The README gave "about 40 s" in one place and "2 min 22 s" in another: only
    docs/performance.md gives the time, and the README points there."""
    for page in _pages():
        if page == PERFORMANCE:
            continue
        for para in _prose(page):
            if REPRODUCE_ALL.search(para):
                assert not DURATION.search(para), \
                    f"{page.relative_to(ROOT)}: a time of `reproduce all` outside " \
                    f"docs/performance.md: {para[:160]!r}"
    readme = README.read_text(encoding="utf-8")
    assert f"docs/performance.md#{ANCHOR}" in readme
    section = PERFORMANCE.read_text(encoding="utf-8").split(
        "## How long `aqmsim reproduce all` takes", 1)[1].split("\n## ", 1)[0]
    # one measured time for each way it runs: into an empty store, and from the stores
    assert re.search(r"empty store.*\|\s*\d+ min \d+ s \(\d+ s\)\s*\|", section)
    assert re.search(r"from the stores.*\|\s*\d+ s\s*\|", section)
