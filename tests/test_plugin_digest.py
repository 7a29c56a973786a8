"""A store keys a run of a scenario with Python plug-ins by their code
(aqmsim.plugin.portable.plugin_code_digest): the plug-in's own file and the helper modules of
its own tree that it imports, followed through the helpers' imports, read from the source
without running it. Installed packages and the standard library do not count."""

from __future__ import annotations

import hashlib
import shutil
import textwrap
from pathlib import Path

from aqmsim.plugin.portable import plugin_code_digest


def _scenario(spec: str) -> dict:
    return {"dumbbell": {"bottleneck": {"queue": {"kind": "python", "class": spec}}}}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def _tree(root: Path) -> Path:
    """plug/aqm.py imports a sibling module, a package module and the standard library;
    the sibling imports another; one file of the directory is imported by nothing."""
    _write(root / "plug" / "aqm.py", """\
        import math, json
        import helpers
        from tools.fit import slope
        class A:
            pass
        """)
    _write(root / "plug" / "helpers.py", "from consts import K\n")
    _write(root / "plug" / "consts.py", "K = 3\n")
    _write(root / "plug" / "tools" / "__init__.py", "")
    _write(root / "plug" / "tools" / "fit.py", "def slope(x):\n    return x\n")
    _write(root / "plug" / "unused.py", "X = 1\n")
    return root / "plug" / "aqm.py"


def test_a_plugin_without_helpers_hashes_as_before(tmp_path: Path):
    f = _write(tmp_path / "alone.py", "import math\nclass A:\n    pass\n")
    spec = f"{f}:A"
    file_hash = hashlib.sha256(f.read_bytes()).hexdigest()
    old = hashlib.sha256(f"{spec}\0{file_hash}\0".encode("utf-8")).hexdigest()
    assert plugin_code_digest(_scenario(spec)) == old
    assert plugin_code_digest({"dumbbell": {}}) == ""


def test_editing_a_helper_it_imports_changes_the_digest(tmp_path: Path):
    f = _tree(tmp_path)
    spec = f"{f}:A"
    before = plugin_code_digest(_scenario(spec))
    # a file nothing imports: the same digest
    (tmp_path / "plug" / "unused.py").write_text("X = 2\n")
    assert plugin_code_digest(_scenario(spec)) == before
    # each imported file, directly, through a helper, or a package's module: a new digest
    for rel, text in (("helpers.py", "from consts import K\nY = 1\n"), ("consts.py", "K = 4\n"),
                      ("tools/fit.py", "def slope(x):\n    return 2 * x\n"), ("tools/__init__.py", "# x\n")):
        (tmp_path / "plug" / rel).write_text(text)
        now = plugin_code_digest(_scenario(spec))
        assert now != before, rel
        before = now


def test_moving_the_whole_tree_keeps_the_digest(tmp_path: Path, monkeypatch):
    """A helper is named by its path from the plug-in's directory, not by where the tree
    lies: the same relative spec in two copies of the tree hashes the same."""
    _tree(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    digests = []
    for copy in ("a", "b"):
        monkeypatch.chdir(tmp_path / copy)
        digests.append(plugin_code_digest(_scenario("plug/aqm.py:A")))
    assert digests[0] == digests[1]


def test_a_module_plugin_counts_its_package(tmp_path: Path, monkeypatch):
    """``pkg.aqm:A`` on sys.path: a relative import and an absolute import of its own
    package both count; an installed package does not."""
    _write(tmp_path / "pkg" / "__init__.py", "")
    _write(tmp_path / "pkg" / "aqm.py", """\
        import numpy
        from . import util
        import pkg.other
        class A:
            pass
        """)
    _write(tmp_path / "pkg" / "util.py", "U = 1\n")
    _write(tmp_path / "pkg" / "other.py", "O = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = "pkg.aqm:A"
    before = plugin_code_digest(_scenario(spec))
    for rel in ("util.py", "other.py"):
        (tmp_path / "pkg" / rel).write_text("# edited\n")
        now = plugin_code_digest(_scenario(spec))
        assert now != before, rel
        before = now


def test_installed_code_is_never_a_helper():
    """A class of the standard library or of an installed package (site-packages): its
    package's other modules, which it imports, are not counted (an upgrade is not an edit
    of the plug-in's own code)."""
    from aqmsim.plugin.portable import _local_sources, _source_file

    for spec in ("json.decoder:JSONDecoder", "numpy.linalg:LinAlgError"):
        assert _local_sources(spec, _source_file(spec)) == [], spec
