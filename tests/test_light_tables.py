"""Tables without pandas (aqmsim.light_tables): Results.columns gives the DataFrame's
columns, dtypes and values, and the CSV written from them is byte for byte what
DataFrame.to_csv(index=False) writes — for every example scenario, a traced run, and
hand-made tables with NaN, inf, -0.0, tiny and huge floats and text that needs quoting."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmsim import Results, Scenario
from aqmsim import light_tables
from aqmsim.results import SCHEMAS, TABLES, TRACE_TABLES

from conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))


def _csv_pandas(df: pd.DataFrame, path: Path) -> bytes:
    df.to_csv(path, index=False)
    return path.read_bytes()


def _assert_columns_match(res: Results, name: str) -> None:
    """Results.columns (decoded before any DataFrame exists) against the DataFrame."""
    fresh = Results(res._raw)  # no table built yet
    cols = fresh.columns(name)
    assert "pandas" not in type(cols).__module__
    df = getattr(res, name)
    assert list(cols) == [str(c) for c in df.columns], name
    for col, arr in cols.items():
        want = df[col]
        assert isinstance(arr, np.ndarray), (name, col)
        assert arr.dtype == want.dtype or (arr.dtype == object and want.dtype == object), \
            (name, col, arr.dtype, want.dtype)
        if arr.dtype.kind == "f":
            np.testing.assert_array_equal(arr, want.to_numpy(), err_msg=f"{name}.{col}")
        else:
            assert arr.tolist() == want.tolist(), (name, col)
        if SCHEMAS.get(name, {}).get(col) == "object":
            assert all(isinstance(x, str) for x in arr), (name, col)


def _assert_csv_matches(res: Results, name: str, tmp_path: Path) -> None:
    light = tmp_path / f"{name}.light.csv"
    fresh = Results(res._raw)
    fresh._save_csv(name, light)
    assert name not in fresh._frames, f"{name}: the light path built the DataFrame"
    want = _csv_pandas(getattr(res, name), tmp_path / f"{name}.pandas.csv")
    assert light.read_bytes() == want, f"{name}.csv differs from DataFrame.to_csv"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_table_as_pandas_writes_it(core, path: Path, tmp_path: Path):
    res = Scenario.from_toml(path).run(seed=1)
    for name in (*TABLES, *TRACE_TABLES):
        _assert_columns_match(res, name)
        _assert_csv_matches(res, name, tmp_path)


BBR = """
duration = 4
[tcp]
stack = "linux"
variant = "bbr"
[dumbbell.bottleneck]
rate = "10Mb"
delay = "10ms"
[[dumbbell.groups]]
count = 2
access = { rate = "100Mb", delay = "1ms" }
"""


def test_traced_tables_as_pandas_writes_them(core, tmp_path: Path):
    sc = Scenario.from_toml(EXAMPLES / "dumbbell-codel.toml").with_overrides(
        **{"duration": 4, "dumbbell.groups.0.stop": 4, "monitor.tcp_flows": [0, 3]})
    res = sc.run(seed=2)
    # (phases: only BBR flows have them)
    bbr = Scenario.from_toml_string(BBR).run(seed=2)
    for name in TRACE_TABLES:
        r = bbr if name == "phases" else res
        assert r.has_rows(name), name
        _assert_columns_match(r, name)
        _assert_csv_matches(r, name, tmp_path)


ODD_FLOATS = [0.1, 1e-05, -0.0, math.inf, -math.inf, math.nan, 1e16, 123456789.123456789,
              5e-324, 1.7976931348623157e308, 0.0001, 2.5e-7]


def _odd_results() -> Results:
    """Values that test a CSV writer: NaN (empty cell), infinities, signed zero, the
    switch to exponent notation, and text with a comma, a quote, a newline, non-ASCII."""
    n = len(ODD_FLOATS)
    texts = ["plain", "a,b", 'say "hi"', "two\nlines", "ünï", "", " lead", "x", "y", "z",
             "tab\there", "end,"]
    links = ["R1->R2", "a,b->c"]
    return Results({
        "flows": {"flow": list(range(n)), "label": texts, "src": ["S"] * n, "dst": ["D"] * n,
                  "throughput_bps": ODD_FLOATS, "goodput_bps": ("<f8", np.array(ODD_FLOATS).tobytes()),
                  "sent": ("<u4", np.arange(n, dtype="<u4").tobytes())},
        "drops": {"t": [0.5, 1.5, 2.5], "link": ("category", np.array([1, 0, 1], "<u4").tobytes(), links),
                  "flow": [0, 1, 2], "reason": ("category", b"\x00\x01\x00", ["early", "forced"], "<u1"),
                  "action": ["drop", "mark", "drop"], "qlen_pkts": ("<i4", np.array([3, 2, 1], "<i4").tobytes())},
        "queue": {}, "links": None,
    })


@pytest.mark.parametrize("name", ["flows", "drops", "queue", "links"])
def test_odd_values_as_pandas_writes_them(name: str, tmp_path: Path):
    res = _odd_results()
    _assert_columns_match(res, name)
    _assert_csv_matches(res, name, tmp_path)


def test_a_table_left_to_pandas_is_written_by_pandas(tmp_path: Path):
    """A missing label is only pandas' to convert: the CSV is pandas' (an empty cell), not
    the light writer's over the DataFrame's columns ("nan")."""
    raw = {"flows": {"flow": [0, 1], "label": ["a", None], "throughput_bps": [1.0, 2.0]}}
    out = tmp_path / "flows.csv"
    Results(raw)._save_csv("flows", out)
    want = _csv_pandas(Results(raw).flows, tmp_path / "flows.pandas.csv")
    assert out.read_bytes() == want and b",,2.0" in want


def test_odd_values_read_back(tmp_path: Path):
    """What the CSV holds reads back as the values (quoting and NaN included)."""
    res = _odd_results()
    res.save(tmp_path)
    back = pd.read_csv(tmp_path / "flows.csv", keep_default_na=False, na_values=[""])
    got = back["throughput_bps"].tolist()
    for a, b in zip(got, ODD_FLOATS):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    assert back["label"].fillna("").tolist() == _odd_results().flows["label"].tolist()
    drops = pd.read_csv(tmp_path / "drops.csv")
    assert drops["link"].tolist() == ["a,b->c", "R1->R2", "a,b->c"]


def test_unusual_columns_are_left_to_pandas(tmp_path: Path):
    """Missing text, floats where the schema wants ints, numbers where it wants text: not
    decoded here (None), so Results builds the DataFrame and pandas converts them its way."""
    assert light_tables.decode({"label": ["x", None]}, SCHEMAS["flows"]) is None
    assert light_tables.decode({"flow": [1.0, math.nan]}, SCHEMAS["flows"]) is None
    assert light_tables.decode({"link": [1, 2]}, SCHEMAS["links"]) is None
    assert light_tables.decode({"t": [1.0], "link": ["a", "b"]}, SCHEMAS["links"]) is None
    res = Results({"flows": {"flow": [1, 2], "label": ["x", None], "more": [1.5, 2.5]}})
    cols = res.columns("flows")
    assert "flows" in res._frames and cols["more"].tolist() == [1.5, 2.5]
    res.save(tmp_path)
    assert (tmp_path / "flows.csv").read_bytes() == _csv_pandas(res.flows, tmp_path / "p.csv")


def test_large_tables_go_to_pandas(core, monkeypatch, tmp_path: Path):
    """Above CSV_CELLS_LIGHT cells a table is written by pandas (in chunks), not here."""
    res = Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(
        **{"duration": 2, "dumbbell.groups.0.stop": 2}).run(seed=1)
    monkeypatch.setattr(light_tables, "CSV_CELLS_LIGHT", 10)

    def refuse(*_a, **_k):
        raise AssertionError("a large table written without pandas")

    monkeypatch.setattr(light_tables, "write_csv", refuse)
    res.save(tmp_path)
    assert (tmp_path / "queue.csv").read_bytes() == _csv_pandas(res.queue, tmp_path / "p.csv")
