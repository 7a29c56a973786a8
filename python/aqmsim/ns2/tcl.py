"""Small pieces the ns-2 exporter shares: its error, rates and times as the scenario
writes them (the same units as the engine's ``scenario/units.rs``), and numbers, booleans,
words and comments as Tcl reads them."""

from __future__ import annotations

import math
import re
from typing import Any, Tuple

__all__ = ["Ns2ExportError", "parse_rate", "parse_time"]


class Ns2ExportError(ValueError):
    """The scenario cannot be written as an ns-2 script; the message names the field."""


# ---------------------------------------------------------------------------- units
_NUM = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*$")

# Multipliers, the same table as crates/aqmsim-core/src/scenario/units.rs.
_RATE_UNITS = {
    "": 1.0, "b": 1.0, "bps": 1.0, "bit": 1.0,
    "k": 1e3, "K": 1e3, "kb": 1e3, "Kb": 1e3, "kbps": 1e3, "Kbps": 1e3,
    "M": 1e6, "m": 1e6, "Mb": 1e6, "mb": 1e6, "Mbps": 1e6, "mbps": 1e6,
    "G": 1e9, "g": 1e9, "Gb": 1e9, "gb": 1e9, "Gbps": 1e9, "gbps": 1e9,
    "T": 1e12, "t": 1e12, "Tb": 1e12, "tb": 1e12, "Tbps": 1e12, "tbps": 1e12,
}
_TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _split(value: Any, what: str, where: str) -> Tuple[float, str]:
    if isinstance(value, bool):
        raise Ns2ExportError(f"{where}: expected a {what}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value), ""
    if isinstance(value, str):
        m = _NUM.match(value)
        if m:
            return float(m.group(1)), m.group(2)
    example = '"10Mb"' if what == "rate" else '"20ms"'
    raise Ns2ExportError(f"{where}: expected a {what} like {example}, got {value!r}")


def parse_rate(value: Any, where: str = "rate") -> float:
    """Bits per second from ``"10Mb"``, ``"1.5Mbps"``, ``"100Kb"``, ``"1Gb"`` or a number.

    k/K = 1e3, M = 1e6, G = 1e9, T = 1e12; ``b`` and ``bps`` both mean bit/s (ns-2's ``MB`` = bytes
    is not accepted: scenario rates are always bits).
    """
    n, unit = _split(value, "rate", where)
    if unit not in _RATE_UNITS:
        raise Ns2ExportError(f"{where}: unknown rate unit in {value!r} (use b, Kb, Mb, Gb, Tb, e.g. \"10Mb\")")
    v = n * _RATE_UNITS[unit]
    if not (math.isfinite(v) and v > 0):
        raise Ns2ExportError(f"{where}: must be a positive rate, got {value!r}")
    return v


def parse_time(value: Any, where: str = "time") -> float:
    """Seconds from ``"20ms"``, ``"1.5s"``, ``"500us"``, ``"5ns"`` or a number."""
    n, unit = _split(value, "time", where)
    if unit not in _TIME_UNITS:
        raise Ns2ExportError(f"{where}: unknown time unit in {value!r} (use s, ms, us, ns, e.g. \"20ms\")")
    v = n * _TIME_UNITS[unit]
    if not (math.isfinite(v) and v >= 0):
        raise Ns2ExportError(f"{where}: must be a time >= 0, got {value!r}")
    return v


def _num(x: float) -> str:
    """A float as Tcl reads it back exactly (shortest round-trip repr)."""
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int):
        return str(x)
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") and "e" not in r else r


def _tcl_bool(b: bool) -> str:
    return "true" if b else "false"


def _brace(s: str) -> str:
    """A Tcl word that is taken literally (for file paths and labels)."""
    if any(c in s for c in "{}\\\n"):
        raise Ns2ExportError(f"cannot quote {s!r} for Tcl (braces, backslashes or newlines)")
    return "{" + s + "}"


def _comment(s: str) -> str:
    """Text safe inside a Tcl comment, also within a proc body (no braces, brackets,
    quotes, backslashes, dollars or newlines)."""
    return re.sub(r"[\r\n{}\[\]\"\\$]+", "_", str(s))
