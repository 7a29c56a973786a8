"""The examples ship inside the package (aqmsim/examples/, one copy in git; the repository's
examples/ is a symlink to it) and `aqmsim examples DIR` writes them out.

The packaged examples are read through importlib.resources, from wherever aqmsim is
imported (a checkout, `maturin develop`, or an installed wheel); the repository's are read
from the files under examples/."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from aqmsim import Scenario
from aqmsim.cli import app
from aqmsim.example_files import example_files, write_examples

from conftest import EXAMPLES, ROOT

runner = CliRunner()


def _repository_examples() -> dict:
    return {p.relative_to(EXAMPLES).as_posix(): p.read_bytes()
            for p in sorted(EXAMPLES.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and "out" not in p.parts}


def test_one_copy_in_git():
    """examples/ is a symlink into the package: one copy of every example."""
    assert (ROOT / "examples").is_symlink()
    assert (ROOT / "examples").resolve() == (ROOT / "python" / "aqmsim" / "examples").resolve()


def test_packaged_examples_are_the_repositorys():
    packaged = dict(example_files())
    repo = _repository_examples()
    assert sorted(packaged) == sorted(repo)
    assert "dumbbell-red.toml" in packaged and "sweeps/red.toml" in packaged
    for name, data in repo.items():
        assert packaged[name] == data, name


def test_cli_writes_the_examples(tmp_path: Path):
    out = tmp_path / "ex"
    result = runner.invoke(app, ["examples", str(out)])
    assert result.exit_code == 0, result.output
    written = {p.relative_to(out).as_posix(): p.read_bytes()
               for p in out.rglob("*") if p.is_file()}
    assert written == _repository_examples()
    assert "dumbbell-red.toml" in result.output
    # what was written is runnable as it stands, the sweep's base found beside it
    assert Scenario.from_toml(out / "dumbbell-red.toml").name
    assert 'base = "../dumbbell-red.toml"' in (out / "sweeps" / "red.toml").read_text()


def test_cli_refuses_to_overwrite(tmp_path: Path):
    (tmp_path / "dumbbell-red.toml").write_text("# mine\n")
    result = runner.invoke(app, ["examples", str(tmp_path)])
    assert result.exit_code == 2
    text = result.output.strip()
    assert len(text.splitlines()) == 1 and "Traceback" not in text
    assert text.startswith("error:") and "--force" in text and "dumbbell-red.toml" in text
    assert (tmp_path / "dumbbell-red.toml").read_text() == "# mine\n"  # untouched
    assert not (tmp_path / "red-ecn.toml").exists()  # nothing written before refusing
    result = runner.invoke(app, ["examples", str(tmp_path), "--force"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "dumbbell-red.toml").read_bytes() == (EXAMPLES / "dumbbell-red.toml").read_bytes()


def test_cli_refuses_a_file(tmp_path: Path):
    f = tmp_path / "file"
    f.write_text("")
    result = runner.invoke(app, ["examples", str(f)])
    assert result.exit_code == 2
    assert result.output.strip().startswith("error:") and "not a directory" in result.output


def test_write_examples_returns_paths(tmp_path: Path):
    paths = write_examples(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == sorted(_repository_examples())
