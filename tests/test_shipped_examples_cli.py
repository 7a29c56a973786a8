"""`make test` runs the real command line — `python -m aqmsim`, a fresh process, as a
researcher types it — on every shipped example (the package's examples/, which the
repository's examples/ links to): `aqmsim validate` and `aqmsim run --out DIR`, shortened
to 2 s with --set. Each exits 0 with no traceback; validate prints its summary, and
`validate --full` TOML that reads back as the resolved scenario; run --out lists exactly the
files the directory holds."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List

import pytest

from aqmsim import Scenario

from conftest import EXAMPLES, ROOT, fresh_python, shortened

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SHIPPED = sorted({p.resolve() for d in (ROOT / "python" / "aqmsim" / "examples", EXAMPLES)
                  for p in d.glob("*.toml")})


def _short_args(path: Path, duration: float = 2.0) -> List[str]:
    """The --set options that shorten the scenario to ``duration`` seconds (each field
    conftest.shortened changes: duration, the traffic's stop and late starts)."""
    d = Scenario.from_toml(path).to_dict()
    short = shortened(d, duration)
    args = ["--set", f"duration={duration}"]
    for key, old, new in (("flows", d.get("flows"), short.get("flows")),
                          ("dumbbell.groups", d.get("dumbbell", {}).get("groups"),
                           short.get("dumbbell", {}).get("groups"))):
        for i, (a, b) in enumerate(zip(old or [], new or [])):
            for field in ("start", "stop"):
                if a.get(field) != b.get(field):
                    args += ["--set", f"{key}.{i}.{field}={json.dumps(b[field])}"]
    return args


def test_every_example_is_found():
    assert len(SHIPPED) >= 8 and any(p.name == "dumbbell-red.toml" for p in SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_validate_then_run_out(core, tmp_path: Path, path: Path):
    summary = fresh_python(["-m", "aqmsim", "validate", path], tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert "Traceback" not in summary.stdout + summary.stderr
    assert summary.stdout.strip(), "validate says what it validated"
    v = fresh_python(["-m", "aqmsim", "validate", "--full", path], tmp_path)
    assert v.returncode == 0, v.stderr
    assert "Traceback" not in v.stdout + v.stderr
    assert tomllib.loads(v.stdout) == Scenario.from_toml(path).validate()

    out = tmp_path / "out"
    r = fresh_python(["-m", "aqmsim", "run", path, *_short_args(path), "--out", out], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    line = [x for x in r.stdout.splitlines() if x.startswith("wrote ")][-1]
    head, names = line.split(": ", 1)
    listed = names.split(", ")
    assert head == f"wrote {len(listed)} files to {out}/"
    on_disk = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert sorted(listed) == on_disk
    for name in ("summary.json", "resolved.json", "provenance.json", "queue.csv", "flows.csv"):
        assert name in listed, name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["duration"] == pytest.approx(2.0)
