"""Every scenario in examples/ validates and runs (shortened to 2 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmsim import Scenario

from conftest import EXAMPLES, shortened

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_validates_and_runs(core, path: Path):
    sc = Scenario.from_toml(path)
    resolved = sc.validate()
    assert resolved
    short = Scenario(shortened(sc.to_dict(), 2.0), path=path)
    res = short.run(seed=1)
    s = res.summary
    assert s["duration"] == pytest.approx(2.0)
    assert s["events"] > 0
    assert len(res.flows) >= 1
    assert (res.flows["sent"] > 0).any()
    assert not res.queue.empty, "every example monitors its bottleneck"


def test_ecn_example_marks(core):
    sc = Scenario.from_toml(EXAMPLES / "red-ecn.toml")
    res = Scenario(shortened(sc.to_dict(), 10.0), path=sc.path).run(seed=1)
    marks = res.drops[res.drops["action"] == "mark"]
    assert len(marks) > 0, "RED with ECN marks packets"
    assert set(marks["reason"]) <= {"early"}
    if "marks" in res.summary:
        assert res.summary["marks"] == len(marks)
