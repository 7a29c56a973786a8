"""What the summary's drop reasons mean for each discipline (``drops_early``,
``drops_forced``, ``drops_overflow``): the engine records one of three reasons (``Reason``
in crates/aqmsim-core/src/aqm), and what each stands for depends on the discipline."""

from __future__ import annotations

from typing import Any, Dict, Mapping

__all__ = ["RED_FAMILY", "forced_drop_rule", "drop_reason_labels"]

#: The RED family: the disciplines whose forced drops come from the average's hard limit.
RED_FAMILY = frozenset({"red", "gentle", "ared", "ared_feng", "rtred", "qrtred",
                        "red1", "red2", "red3", "red4", "red5"})


def forced_drop_rule(queue: Mapping[str, Any]) -> str:
    """What a forced drop (or mark) means for a resolved queue table: RED drops every
    arrival once the average reaches max_th, or 2·max_th with the gentle region."""
    kind = str(queue.get("kind", ""))
    if kind not in RED_FAMILY:
        return "forced"
    if kind == "gentle" or queue.get("gentle"):
        return "avg ≥ 2·max_th, gentle"
    return "avg ≥ max_th"


#: What each drop reason is for a discipline, as the engine records it (``Reason`` in
#: crates/aqmsim-core/src/aqm): CoDel's and FQ-CoDel's "early" drops are their control
#: law's, at dequeue; FQ-CoDel's overflow drops come from the head of the longest flow
#: queue; a reason a discipline never gives is said to be none.
_REASONS: Dict[str, Dict[str, str]] = {
    "droptail": {"drops_early": "—", "drops_forced": "—"},
    "ecn_threshold": {"drops_early": "early (queue above the threshold)",
                      "drops_forced": "—"},
    "codel": {"drops_early": "control law (at dequeue)",
              "drops_forced": "—"},
    "fq_codel": {"drops_early": "control law (per flow queue)",
                 "drops_forced": "—",
                 "drops_overflow": "overflow (buffer full: the longest flow's head)"},
    "pie": {"drops_early": "early (random, PIE's probability)", "drops_forced": "—"},
    "dualpi2": {"drops_early": "early (PI2: p'² Classic, k·p' L4S, at dequeue)",
                "drops_forced": "step threshold (Not-ECT in the L queue)"},
    "fq_pie": {"drops_early": "early (random, the flow queue's PIE probability)",
               "drops_forced": "—",
               "drops_overflow": "overflow (buffer full: the longest flow's head)"},
    "cobalt": {"drops_early": "control law (at dequeue)", "drops_forced": "BLUE (random, at dequeue)"},
    "fq_cobalt": {"drops_early": "control law (per flow queue, at dequeue)",
                  "drops_forced": "BLUE (random, per flow queue, at dequeue)",
                  "drops_overflow": "overflow (buffer full: the longest flow's head)"},
    "cake": {"drops_early": "COBALT's control law (per flow queue)",
             "drops_forced": "BLUE (random) and the ACK filter",
             "drops_overflow": "overflow (memory limit: the longest queue's head)"},
}
_DISCIPLINE_NAMES = {"droptail": "DropTail", "ecn_threshold": "the threshold queue",
                     "codel": "CoDel", "fq_codel": "FQ-CoDel", "pie": "PIE",
                     "dualpi2": "DualPI2", "fq_pie": "FQ-PIE", "cobalt": "COBALT", "cake": "CAKE",
                     "fq_cobalt": "FQ-COBALT"}


def drop_reason_labels(queue: Mapping[str, Any]) -> Dict[str, str]:
    """The summary's labels of ``drops_early``, ``drops_forced`` and ``drops_overflow`` for
    a resolved queue table: what each reason means for its discipline (a RED's early drops
    are random, its forced ones :func:`forced_drop_rule`; CoDel's early drops are its
    control law's), and "none in <discipline>" for a reason it never gives."""
    kind = str(queue.get("kind", ""))
    if kind in RED_FAMILY or kind not in _REASONS:
        return {"drops_early": "  early (random)",
                "drops_forced": f"  forced ({forced_drop_rule(queue)})"
                if kind in RED_FAMILY else "  forced",
                "drops_overflow": "  overflow (buffer full)"}
    own = _REASONS[kind]
    name = _DISCIPLINE_NAMES.get(kind, kind)
    out = {}
    for key, word in (("drops_early", "early"), ("drops_forced", "forced"),
                      ("drops_overflow", "overflow")):
        text = own.get(key, "overflow (buffer full)" if key == "drops_overflow" else word)
        out[key] = "  " + (f"{word} (none in {name})" if text == "—" else text)
    return out
