"""Python queue disciplines: the base class and how the engine calls it (to be written)."""

from __future__ import annotations

from typing import Any, Dict

from ..errors import ScenarioError


def build(factory: Any, table: Dict[str, Any], path: str, rate_bps: float, delay_s: float) -> Any:
    raise ScenarioError(f"{path}: Python disciplines are not built yet")
