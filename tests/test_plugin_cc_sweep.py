"""Sweeps with a Python congestion control (issue 26, plugfinish item 2): a sweep over a
field of the control's ``cc`` table (``tcp.cc.beta``) with ``cc_class = "file.py:Class"``
given relative to the base scenario file, on the local pool and on a Dask cluster (whose
workers import the file); a point whose control raises is one failed run with the
plug-in's one-line message, every other run kept. Each row equals the same scenario run
in this process; the store's key covers the control's code."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import aqmsim
from aqmsim import store as store_mod
from aqmsim.scenario import dumps_toml
from aqmsim.sweep import Sweep, run_sweep

from conftest import DASK_QUIET, EXAMPLES, local_cluster

pytestmark = [
    pytest.mark.usefixtures("core"),
    *DASK_QUIET,
]

B = "tcp.cc.beta"
METRICS = ["utilisation", "time_avg_queue_pkts", "bottleneck_drops", "goodput_bps"]

#: AIMD on the ns-2 stack (windows in packets): +1/cwnd per ACK, cwnd * beta on a loss.
#: beta = 0.3 raises after 1 s (the point that fails).
AIMD = '''
from aqmsim.plugin import CongestionControl


class Aimd(CongestionControl):
    def __init__(self, beta=0.5):
        self.beta = beta

    def on_ack(self, tcp, acked):
        if self.beta == 0.3 and tcp.now > 1.0:
            raise ValueError("beta 0.3 is cursed")
        if tcp.cwnd < tcp.ssthresh:
            tcp.cwnd += 1
        else:
            tcp.cwnd += 1 / tcp.cwnd

    def ssthresh(self, tcp):
        return max(2.0, tcp.in_flight * self.beta)
'''


def _base(cc_class: str) -> dict:
    """The example RED dumbbell, 3 flows, 3 s, every flow with the Python AIMD."""
    sc = aqmsim.Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(**{
        "duration": 3, "dumbbell.groups.0.stop": 3, "dumbbell.groups.0.count": 3,
        "tcp.variant": "python", "tcp.cc_class": cc_class, "tcp.cc": {"beta": 0.5},
    })
    return sc.to_dict()


def _write(tmp: Path, values=(0.5, 0.8)) -> Path:
    """``tmp/plug/aimd.py``; ``tmp/scen/base.toml`` naming it ``../plug/aimd.py:Aimd``
    (relative to scen/); ``tmp/sw/sweep.toml`` with base ../scen/base.toml."""
    (tmp / "plug").mkdir(exist_ok=True)
    (tmp / "plug" / "aimd.py").write_text(AIMD)
    (tmp / "scen").mkdir(exist_ok=True)
    (tmp / "scen" / "base.toml").write_text(dumps_toml(_base("../plug/aimd.py:Aimd")))
    (tmp / "sw").mkdir(exist_ok=True)
    f = tmp / "sw" / "sweep.toml"
    f.write_text(textwrap.dedent(f"""
        name = "ccplug"
        base = "../scen/base.toml"
        seeds = 2
        metrics = {METRICS!r}

        [[vary]]
        "{B}" = {list(values)!r}
        """).replace("'", '"'))
    return f


def _rows(store: Path) -> pd.DataFrame:
    df = store_mod.open(store, sweep="ccplug")
    cols = [B, "seed", "status"] + METRICS
    return df[cols].sort_values([B, "seed"]).reset_index(drop=True)


def _same_as_here(f: Path, rows: pd.DataFrame) -> None:
    for _, data, seed, _ in Sweep.from_toml(f).tasks():
        mine = aqmsim.Scenario.from_dict(data).run(seed=seed).summary
        row = rows[(rows[B] == data["tcp"]["cc"]["beta"]) & (rows["seed"] == seed)].iloc[0]
        for m in METRICS:
            assert row[m] == pytest.approx(mine[m], rel=1e-12), m


def test_sweep_points_name_the_cc_file_from_the_base_files_folder(tmp_path: Path, monkeypatch):
    f = _write(tmp_path)
    monkeypatch.chdir(tmp_path / "plug")
    want = f"{(tmp_path / 'plug' / 'aimd.py').resolve()}:Aimd"
    tasks = list(Sweep.from_toml(f).tasks())
    assert len(tasks) == 4
    for _, data, _, _ in tasks:
        assert data["tcp"]["cc_class"] == want
        assert data["tcp"]["cc"]["beta"] in (0.5, 0.8)


def test_local_sweep_over_a_cc_parameter(tmp_path: Path, monkeypatch):
    f = _write(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    res = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=2)
    assert (res.ok, res.failed) == (4, 0), [o.error for o in res.failures]
    rows = _rows(tmp_path / "store")
    assert list(rows[B]) == [0.5, 0.5, 0.8, 0.8]
    # the parameter reached the control: a gentler decrease keeps a longer queue
    q = rows.groupby(B)["time_avg_queue_pkts"].mean()
    assert q[0.8] != q[0.5]
    _same_as_here(f, rows)


def test_local_sweep_keeps_every_run_but_the_raising_cc(tmp_path: Path, monkeypatch):
    f = _write(tmp_path, values=(0.3, 0.5))
    monkeypatch.chdir(tmp_path)
    res = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=2)
    assert (res.ok, res.failed) == (2, 2)
    line = AIMD.splitlines().index('            raise ValueError("beta 0.3 is cursed")') + 1
    for o in res.failures:
        assert o.key == "beta=0.3" and o.error_kind == "simulation"
        assert "\n" not in o.error.strip()
        assert "Aimd" in o.error and "raised ValueError: beta 0.3 is cursed" in o.error
        assert f'aimd.py:{line}: raise ValueError("beta 0.3 is cursed")' in o.error
    rows = _rows(tmp_path / "store")
    ok = rows[rows["status"] == "ok"]
    assert list(ok[B]) == [0.5, 0.5]


def test_editing_the_cc_makes_its_runs_new_runs(tmp_path: Path, monkeypatch):
    f = _write(tmp_path)
    monkeypatch.chdir(tmp_path)
    first = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=1)
    again = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=1)
    assert (first.ran, again.ran) == (4, 0)
    (tmp_path / "plug" / "aimd.py").write_text(AIMD.replace("tcp.in_flight * self.beta",
                                                            "tcp.in_flight * self.beta / 2"))
    edited = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=1)
    assert edited.ran == 4 and edited.failed == 0


@pytest.fixture(scope="module")
def cluster():
    with local_cluster() as lc:
        yield lc


def test_dask_sweep_over_a_cc_parameter_gives_the_local_rows_and_keeps_the_others(
        cluster, tmp_path: Path, monkeypatch):
    import distributed

    f = _write(tmp_path, values=(0.3, 0.5, 0.8))
    monkeypatch.chdir(tmp_path)
    sw = Sweep.from_toml(f)
    on_dask = run_sweep(sw, tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert on_dask.pool.startswith("Dask cluster")
    local = run_sweep(sw, tmp_path / "local", workers=2)
    assert (on_dask.ok, on_dask.failed) == (local.ok, local.failed) == (4, 2)
    for o in on_dask.failures:
        assert o.key == "beta=0.3" and "beta 0.3 is cursed" in o.error
        assert "\n" not in o.error.strip()
    pd.testing.assert_frame_equal(_rows(tmp_path / "dask"), _rows(tmp_path / "local"))
    da = store_mod.open(tmp_path / "dask", sweep="ccplug")
    with distributed.Client(cluster, set_as_default=False) as client:
        pids = {str(p) for p in client.run(os.getpid).values()}
    assert {w.split(":")[1] for w in da["worker"]} <= pids
