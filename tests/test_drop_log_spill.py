"""A long run's drop log goes to files as the run goes (memory stays flat) and comes back
as the same table: the engine keeps at most 65 536 rows in memory and hands Python
read-only maps of its (unlinked) column files."""

import mmap
import pickle

import numpy as np
from aqmsim.scenario import Scenario

# A 100 Mb/s CBR source into a 10 Mb/s DropTail bottleneck: ~11 000 drops per second,
# so 14 s give more than two chunks of 65 536 rows.
OVERLOAD = """
name = "overload"
duration = 14
seed = 3
[dumbbell.bottleneck]
rate = "10Mb"
delay = "5ms"
queue = { kind = "droptail", limit = 20 }
[[dumbbell.groups]]
name = "cbr"
count = 1
app = "cbr"
cbr = { rate = "100Mb", packet_size = 1000 }
access = { rate = "1Gb", delay = "1ms" }
egress = { rate = "1Gb", delay = "1ms" }
"""


def test_a_long_drop_log_comes_back_whole_from_the_files():
    r = Scenario.from_toml_string(OVERLOAD).run()
    raw = r._raw["drops"]
    assert isinstance(raw["t"][1], mmap.mmap), "more than a chunk of drops: the log was spilled"
    d = r.drops
    assert len(d) == r.summary["bottleneck_drops"] > 2 * 65536
    assert d["t"].is_monotonic_increasing
    assert set(d["reason"]) == {"overflow"} and set(d["action"]) == {"drop"}
    assert set(d["link"]) == {"R1->R2"}
    assert d["qlen_pkts"].max() <= 20 and (d["flow"] == 0).all()
    # the same table through pickling (bytes instead of maps) and through Arrow
    back = pickle.loads(pickle.dumps(r))
    assert not isinstance(back._raw["drops"]["t"][1], mmap.mmap)
    assert back.drops.equals(d)
    t = r.arrow("drops")
    assert t.num_rows == len(d)
    assert np.array_equal(t.column("t").to_numpy(), d["t"].to_numpy())


def test_a_short_drop_log_stays_in_memory():
    r = Scenario.from_toml_string(OVERLOAD.replace("duration = 14", "duration = 1")).run()
    assert isinstance(r._raw["drops"]["t"][1], bytes)
    assert 0 < len(r.drops) == r.summary["bottleneck_drops"] < 65536
