"""Paper 004's threshold ECN in ns-2: ``ecn_threshold`` with ``mode = "mark_tail"`` is
exported as ns-2.35's Queue/RED on the instantaneous queue (q_weight_ 1, thresh_ T − 1,
maxthresh_ T, use_mark_p_ with mark_p_ 2: aqmsim.ns2.export.THRESHOLD_VS_NS2), mark-front
and drop-front are refused; ns-2 measures the largest queue on request (``max_queue``, from
the queue trace); the deterministic single-connection runs of paper 004 agree exactly; and
a tiny markfront reproduction gets an ns-2 value in every mark-tail cell.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Dict

import pytest

from aqmsim import Scenario
from aqmsim.ns2.column import CANNOT, measures_wanted
from aqmsim.ns2.crosscheck import run_ns2
from aqmsim.ns2.export import (THRESHOLD_VS_NS2, Ns2ExportError, build_plan, normalize_queue,
                               to_tcl)
from aqmsim.ns2.trace import max_queue
from aqmsim.papers.markfront import PAPER as MARKFRONT
from aqmsim.report import reproduce_papers
from test_reproduce_store import SmallMarkFront as _SmallMarkFront, _console  # noqa: E402

needs_ns = pytest.mark.usefixtures("ns2_binary")  # fails, never skips, without ns-2

S1 = Scenario.from_toml(MARKFRONT.directory / "scenarios" / "s1_single.toml").to_dict()


def s1(t: int, mode: str = "mark_tail", duration: float = 10.0) -> Dict[str, Any]:
    """Paper 004's scenario 1 (one ECN Reno connection, primary reading) at threshold t."""
    d = copy.deepcopy(S1)
    d["dumbbell"]["bottleneck"]["queue"].update(threshold=t, mode=mode)
    d["duration"] = duration
    for g in d["dumbbell"]["groups"]:
        g["stop"] = min(float(str(g.get("stop", duration)).rstrip("s")), duration)
    return d


def queue_block(tcl: str) -> str:
    """The bottleneck's lines: from its simplex-link line to the next link's comment."""
    lines = tcl.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("$ns simplex-link $n(0) $n(1)"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("# R2->R1"))
    return "\n".join(lines[start:end])


GOLDEN_T5 = """\
$ns simplex-link $n(0) $n(1) 1500000 0.02 RED
set q [[$ns link $n(0) $n(1)] queue]
set queue(0:1) $q
# ecn_threshold mark_tail, T = 5: Queue/RED on the instantaneous queue (q_weight_ 1),
# every arrival finding >= 5 waiting marked (p = 1 at maxthresh_; use_mark_p_ skips the
# forced drop) or dropped if not ECT; thresh_ 4 arms RED's count/old one arrival
# before (aqmsim.ns2.export.THRESHOLD_VS_NS2)
$q set limit_ 25
$q set thresh_ 4
$q set maxthresh_ 5
$q set linterm_ 1   ;# 1/max_p
$q set q_weight_ 1
$q set gentle_ false
$q set wait_ false
$q set setbit_ true
$q set mark_p_ 2
$q set use_mark_p_ true
$q set bytes_ false
$q set queue_in_bytes_ false
$q set mean_pktsize_ 1000
$q set targetdelay_ 0.005
$q set adaptive_ 0
$q set feng_adaptive_ 0
$q set cautious_ 0
$q set drop_tail_ true
$q set drop_front_ false
$q set drop_rand_ false
$q set ns1_compat_ false
$q set summarystats_ false"""


# ------------------------------------------------------------------ the export
def test_golden_queue_of_a_small_threshold():
    d = s1(5)
    d["dumbbell"]["bottleneck"]["queue"]["limit"] = 25
    assert queue_block(to_tcl(d, 1, "/tmp/x")) == GOLDEN_T5
    # "tail" is the short form of "mark_tail"
    d["dumbbell"]["bottleneck"]["queue"]["mode"] = "tail"
    assert queue_block(to_tcl(d, 1, "/tmp/x")) == GOLDEN_T5


def test_t2_is_exported_in_bytes_where_every_packet_is_one_size():
    """T = 2 counted in packets cannot be exact (Queue/RED's qlen > 1); counted in bytes it
    is, when every packet reaching the queue has one size (aqmsim.ns2.threshold2): paper
    004's primary reading (1000-byte data packets, no SYN, no headers added)."""
    block = queue_block(to_tcl(s1(2), 1, "/tmp/x"))
    assert "$q set thresh_ 1" in block and "$q set maxthresh_ 2" in block
    assert "$q set queue_in_bytes_ true" in block and "$q set mean_pktsize_ 1000" in block
    assert "inexact" not in block
    # T >= 3 stays in packets (GOLDEN_T5)
    assert "$q set queue_in_bytes_ false" in queue_block(to_tcl(s1(3), 1, "/tmp/x"))


@pytest.mark.parametrize("change", ["headers", "syn", "sizes", "acks"])
def test_t2_stays_in_packets_with_its_difference_named(change):
    """Where packets of other sizes can reach the queue, bytes would not count packets:
    T = 2 stays in packets, and the script and THRESHOLD_VS_NS2 say it is inexact."""
    d = s1(2)
    tcp = d.setdefault("tcp", {})
    if change == "headers":
        tcp["use_headers"] = True    # sequence 0 goes out without the header in ns-2.35
    elif change == "syn":
        tcp["syn"] = True            # a 40-byte SYN
    elif change == "sizes":
        g = copy.deepcopy(d["dumbbell"]["groups"][0])
        g.setdefault("tcp", {})["packet_size"] = 500
        d["dumbbell"]["groups"].append(g)
    else:                            # ACKs through the threshold queue
        d["dumbbell"]["bottleneck"]["reverse_queue"] = copy.deepcopy(
            d["dumbbell"]["bottleneck"]["queue"])
    plan = build_plan(d, 1)
    tcl = to_tcl(d, 1, "/tmp/x")
    if change == "acks":
        rev = next(lk for lk in plan.links if lk.name == "R2->R1")
        assert rev.queue["queue_in_bytes"] is False
        fwd = next(lk for lk in plan.links if lk.name == "R1->R2")
        assert fwd.queue["queue_in_bytes"] is True   # no ACK goes R1->R2
        return
    block = queue_block(tcl)
    assert "$q set queue_in_bytes_ false" in block and "T = 2 is inexact" in block
    assert any(line.startswith("T = 2:") for line in THRESHOLD_VS_NS2)


@pytest.mark.parametrize("mode, words", [
    ("mark_front", "ns-2 2.35 has no mark-front queue"),
    ("front", "ns-2 2.35 has no mark-front queue"),
    ("drop_front", "drops the arriving packet on an early decision"),
])
def test_front_modes_are_refused_with_the_reason(mode, words):
    with pytest.raises(Ns2ExportError, match=re.escape("dumbbell.bottleneck.queue.mode")) as err:
        to_tcl(s1(10, mode), 1, "/tmp/x")
    assert words in str(err.value) and "mark_tail" in str(err.value)


@pytest.mark.parametrize("queue, field, words", [
    ({"kind": "ecn_threshold", "threshold": 1}, "threshold", "at most one packet waiting"),
    ({"kind": "ecn_threshold", "threshold": 0}, "threshold", "T = 0 is not exportable"),
    ({"kind": "ecn_threshold"}, "threshold", "integer >= 0"),
    ({"kind": "ecn_threshold", "threshold": 5, "max_p": 0.1}, "max_p", "unknown field"),
])
def test_bad_thresholds_name_the_field(queue, field, words):
    with pytest.raises(Ns2ExportError, match=re.escape(f"q.{field}")) as err:
        normalize_queue(queue, "q")
    assert words in str(err.value)


def test_packet_sizes_are_written_as_typed():
    """packet_size, header and use_headers are ns-2's packetSize_, tcpip_base_hdr_size_ and
    useHeaders_: aqmsim sizes packets as ns-2.35 does, so the script takes them as typed."""
    tcl = to_tcl(s1(10), 1, "/tmp/x")
    assert "$src(0) set packetSize_ 1000\n" in tcl
    assert "$src(0) set useHeaders_ false" in tcl
    assert "$src(0) set tcpip_base_hdr_size_ 40" in tcl
    d = s1(10)
    d["tcp"]["use_headers"] = True
    assert "$src(0) set useHeaders_ true" in to_tcl(d, 1, "/tmp/x")


@needs_ns
@pytest.mark.parametrize("syn", [False, True])
def test_first_packet_size_as_ns2(tmp_path, syn):
    """ns-2.35's output() never adds the header to sequence 0: without a SYN the first data
    packet is packetSize_ bytes (1000), every later one 1040; with a SYN, seq 0 is the
    40-byte SYN. The wire bytes received (throughput), the goodput and the queue agree
    exactly (a 1040-byte first packet moves throughput_bps by 40·8/5 b/s)."""
    d = s1(20, duration=5.0)
    d["tcp"].update(use_headers=True, syn=syn)
    ours = Scenario.from_dict(d).run(seed=1).summary
    theirs = run_ns2(d, 1, tmp_path, samples=False, max_queue=True)
    for m in ("max_queue_pkts", "marks_departed", "bottleneck_arrivals", "throughput_bps",
              "goodput_bps", "packets_sent", "time_avg_queue_pkts"):
        assert float(theirs[m]) == pytest.approx(float(ours[m]), rel=1e-6, abs=0), m


def test_max_queue_is_asked_for_in_the_scenario():
    d = s1(10)
    assert "trace-queue" not in to_tcl(d, 1, "/tmp/x")
    d["ns2"] = {"measure": ["max_queue_pkts"]}
    assert build_plan(d, 1).measure == ("max_queue_pkts",)
    assert "$ns trace-queue $n(0) $n(1) $tf(0)" in to_tcl(d, 1, "/tmp/x")
    d["ns2"] = {"measure": ["mean_e2e_delay_s"]}
    with pytest.raises(Ns2ExportError, match="ns2.measure"):
        build_plan(d, 1)


@pytest.mark.parametrize("lines, expected", [
    ([], 0),
    (["+ 1 0 1 tcp 1000 ------N 0 0.0 1.0 0 0", "- 1 0 1 tcp 1000 ------N 0 0.0 1.0 0 0"], 1),
    (["+ 1 0 1 tcp 1000 ------- 0 0.0 1.0 0 0", "d 1 0 1 tcp 1000 ------- 0 0.0 1.0 0 0"], 0),
    # two wait; a third arrives and is dropped at once (not counted); one leaves
    (["+ 1 0 1 tcp 1000 ------N 0 0.0 1.0 0 0", "- 1 0 1 tcp 1000 ------N 0 0.0 1.0 0 0",
      "+ 1.1 0 1 tcp 1000 ------N 0 0.0 1.0 1 1", "+ 1.2 0 1 tcp 1000 ------N 0 0.0 1.0 2 2",
      "+ 1.3 0 1 tcp 1000 ------N 0 0.0 1.0 3 3", "d 1.3 0 1 tcp 1000 ------N 0 0.0 1.0 3 3",
      "r 1.4 0 1 tcp 1000 ------N 0 0.0 1.0 0 0", "- 1.5 0 1 tcp 1000 ------N 0 0.0 1.0 1 1"], 2),
])
def test_max_queue_of_a_trace(tmp_path, lines, expected):
    p = tmp_path / "t.tr"
    p.write_text("".join(ln + "\n" for ln in lines))
    assert max_queue(p) == expected


# ------------------------------------------------------------------ agreement
@needs_ns
@pytest.mark.parametrize("t", [10, 20])
def test_deterministic_single_connection_agrees_exactly(tmp_path, t):
    """Scenario 1 (one connection, no randomness but TCP's clock phase, which the 0.1 s
    tick absorbs) runs packet for packet the same in both: the largest queue, marks,
    arrivals and goodput are equal. (T = 5 differs by one packet: an arrival and a
    departure at the same instant, ordered differently by ns-2's double arithmetic and
    aqmsim's integer nanoseconds; see docs/aqm/ecn-threshold.md.)"""
    d = s1(t)
    ours = Scenario.from_dict(d).run(seed=1).summary
    theirs = run_ns2(d, 1, tmp_path, samples=False, max_queue=True)
    for m in ("max_queue_pkts", "marks_departed", "bottleneck_arrivals", "bottleneck_drops",
              "goodput_bps", "packets_sent", "timeouts"):
        assert float(theirs[m]) == float(ours[m]), m
    assert ours["max_queue_pkts"] > 2 * t  # the mark-tail overshoot (Theorem 2)


# ------------------------------------------------------------------ the ns-2 column
class SmallMarkFront(_SmallMarkFront):
    """The mark-front paper with two thresholds and 3-second runs."""

    t_grid = (5, 10)



@needs_ns
def test_tiny_markfront_reproduction_has_ns2_values(tmp_path):
    done = reproduce_papers([SmallMarkFront()], tmp_path, seeds=2, console=_console(),
                            progress_console=_console(), readings=["primary"], ns2=True)
    (report,) = done.outcomes
    assert not done.failures
    col = report.ns2
    assert col.status == "ran" and col.seeds == [1, 2]
    assert col.experiments and all("mark_tail" in k for k in col.experiments)
    assert col.cannot and all("mark_front" in k for k in col.cannot)
    assert all("mark_front" in why for why in col.cannot.values())
    sourced = [c for c in report.cells() if c.source]
    tail = [c for c in sourced if "mark_tail" in c.source[0]]
    front = [c for c in sourced if "mark_front" in c.source[0]]
    assert tail and front
    assert all(c.ns2 is not None and c.ns2_note == "" for c in tail)
    assert all(c.ns2 is None and c.ns2_note == CANNOT for c in front)
    # the largest queue (Fig. 3) is measured by ns-2 on request
    maxq = [c for c in tail if c.source[1] == "max_queue_pkts"]
    assert maxq and set(measures_wanted(report.cells())) >= {c.source[0] for c in maxq}
    # T = 10 of scenario 1 is deterministic: the same largest queue in both
    (s1t10,) = [c for c in maxq if c.source[0] == "s1-mark_tail-T10"]
    assert s1t10.ns2.mean == s1t10.mean
    agree, compared = report.ns2_count()
    assert compared == len(tail) and agree >= compared * 3 // 4
