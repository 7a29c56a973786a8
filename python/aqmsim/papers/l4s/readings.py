"""The open choice of the L4S reproduction (RFC 9332 §2.1's coupling claim) and its readings.

RFC 9332 derives the coupling factor from DCTCP's response function (r_L = 2/(R p_L)) and
Reno's (r_C = 1.22/(R sqrt(p_C))); it names TCP Prague as the Scalable control meant for the
Internet. Which Scalable sender the claim is checked with is open:

``scalable``
    DCTCP sending ECT(1) (textbook: the response function the RFC's arithmetic uses, and
    what the PI2 and DualPI2 papers ran), or TCP Prague (text: RFC 9332 §1 and RFC 9331
    name it; aqmsim's follows the L4S team's tcp_prague.c, docs/tcp/prague.md, with its
    25 ms RTT target, so below a 25 ms RTT it does not keep the 2/(R p) response).
``flows``
    One flow per class (textbook: the claim is about a flow's rate) or five (text: several
    flows keep the C queue at the PI controller's target, the regime the coupling assumes).
"""

from __future__ import annotations

from typing import Any, Dict, List

from ..readings import Choice, Reading

__all__ = ["choices", "SCALABLE", "FLOWS"]


def _scalable(variant: str):
    """Set the L group's TCP to ``variant`` (ECT(1): DCTCP asks for it, Prague forces it)."""

    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for g in data["dumbbell"]["groups"]:
            if g["name"] == "scalable":
                g["tcp"] = {"variant": variant, "ect": "ect1"}
    return edit


SCALABLE = Choice("scalable", "Which Scalable (L4S) sender is checked against the RFC's claim?", (
    Reading("dctcp", "DCTCP, ECT(1)", "textbook",
            "RFC 9332 §2.1 derives k from DCTCP's response r_L = 2/(R p_L); the PI2 "
            "(CoNEXT 2016) and DualPI2 (Netdev 0x13) papers ran DCTCP with ECT(1)",
            apply=_scalable("dctcp")),
    Reading("prague", "TCP Prague", "text",
            "RFC 9332 §1 and RFC 9331 name TCP Prague as the Scalable control for the "
            "Internet (docs/tcp/prague.md: the L4S team's tcp_prague.c, 25 ms RTT target)",
            apply=_scalable("prague")),
))


def _flows(n: int):
    def edit(data: Dict[str, Any], experiment: Any) -> None:
        for g in data["dumbbell"]["groups"]:
            g["count"] = n
    return edit


FLOWS = Choice("flows", "How many long-running flows of each class share the bottleneck?", (
    Reading("1", "one flow per class", "textbook",
            "RFC 9332 §2.1's claim is about one Scalable and one Classic flow's rates",
            apply=_flows(1)),
    Reading("5", "five flows per class", "text",
            "RFC 9332 §2.1 speaks of 'flows' in the plural, and the coupling's premise is a "
            "C queue the PI controller holds at its target, which one Reno flow at a long "
            "RTT does not do (its sawtooth empties the queue); rates are per-flow means",
            apply=_flows(5)),
))


def choices() -> List[Choice]:
    return [SCALABLE, FLOWS]
