"""The open choice of the L4S reproduction (RFC 9332 §2.1's coupling claim) and its readings.

RFC 9332 derives the coupling factor from DCTCP's response function (r_L = 2/(R p_L)) and
Reno's (r_C = 1.22/(R sqrt(p_C))); it names TCP Prague as the Scalable control meant for the
Internet. Which Scalable sender the claim is checked with is open:

``scalable``
    DCTCP sending ECT(1) (textbook: the response function the RFC's arithmetic uses, and
    what the PI2 and DualPI2 papers ran), or TCP Prague (text: RFC 9332 §1 and RFC 9331
    name it; aqmsim's follows the L4S team's tcp_prague.c, docs/tcp/prague.md, with its
    25 ms RTT target, so below a 25 ms RTT it does not keep the 2/(R p) response).
"""

from __future__ import annotations

from typing import Any, Dict, List

from ..readings import Choice, Reading

__all__ = ["choices", "SCALABLE"]


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


def choices() -> List[Choice]:
    return [SCALABLE]
