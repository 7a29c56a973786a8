"""`self.uniform()` during `dequeue`: the queue's own seeded stream, the same one `enqueue`
draws from (issue 26, plugfinish item 1).

Reference: a droptail queue draws nothing from its stream, so a discipline that draws once
per arrival and one that draws once per departure read the same stream from its start:
their first N draws must be the same numbers. The enqueue side is the one proven against
the built-in RED (tests/test_plugin_red.py), so the dequeue side reads the very stream the
engine gives the queue, not another one.
"""

from __future__ import annotations

from aqmsim import Scenario
from aqmsim.plugin import ACCEPT, DROP, PASS, QueueDiscipline

from conftest import EXAMPLES

DRAWS: dict[str, list[float]] = {}


class AtEnqueue(QueueDiscipline):
    def enqueue(self, pkt, q):
        DRAWS.setdefault("enqueue", []).append(self.uniform())
        return ACCEPT


class AtDequeue(QueueDiscipline):
    def enqueue(self, pkt, q):
        return ACCEPT

    def dequeue(self, pkt, q):
        DRAWS.setdefault("dequeue", []).append(self.uniform())
        return PASS


class HeadRandomDrop(QueueDiscipline):
    """Drops a departing packet with probability p (drawn at dequeue)."""

    def __init__(self, p=0.05):
        self.p = p

    def enqueue(self, pkt, q):
        return ACCEPT

    def dequeue(self, pkt, q):
        return DROP if self.uniform() < self.p else PASS


def _scenario(cls, seed=1):
    return Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").with_overrides(**{
        "duration": 2, "dumbbell.groups.0.stop": 2, "seed": seed,
        "dumbbell.bottleneck.queue": {"kind": "python", "class": cls}})


def test_dequeue_draws_the_queues_stream():
    DRAWS.clear()
    _scenario(AtEnqueue).run()
    _scenario(AtDequeue).run()
    enq, deq = DRAWS["enqueue"], DRAWS["dequeue"]
    n = min(len(enq), len(deq))
    assert n > 300
    assert deq[:n] == enq[:n]
    assert all(0.0 <= x < 1.0 for x in deq)


def test_dequeue_drops_from_draws_are_seeded():
    a = _scenario(HeadRandomDrop).run()
    b = _scenario(HeadRandomDrop).run()
    c = _scenario(HeadRandomDrop, seed=2).run()
    da, db, dc = (r.drops for r in (a, b, c))
    assert len(da) > 10
    assert da.equals(db)
    assert not da.equals(dc)
