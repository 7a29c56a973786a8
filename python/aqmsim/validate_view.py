"""`aqmsim validate`: every error of a scenario at once, and a summary of a valid one.

**Every error.** The engine stops at the first error it finds. :func:`all_errors` asks it
again with the offending field taken out (so that its default applies), and again, as a
linter goes on after the first finding: each error is reported with its field's path.
A link's required ``rate`` or ``delay``, wrong or missing, is given a stand-in value
instead. It stops where taking a field out cannot tell more: another missing required
field (``duration``, a flow's ``src``), an error of a whole table or list that the
removal itself caused, a path that is not a plain one. A TOML syntax error, or an error of the file's structure that the engine cannot
read past (a table where a list belongs at the top), is still the only one reported.

**Summary.** :func:`summary_lines` gives what a person checks first in the resolved
scenario (its key facts, the monitored queues, the flows counted by kind), a dozen
lines instead of the whole resolved scenario (``--full``: hundreds of lines for ten
flows: every link, every flow, every TCP parameter).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from .errors import ScenarioError

__all__ = ["all_errors", "summary_lines", "summary_text", "MAX_ERRORS"]

#: At most this many errors are listed (a file with more has one mistake made many times).
MAX_ERRORS = 50

# a field left from another discipline after `kind` changed: the first such error of a table
# names them all and how to switch (engine_messages.py's hint), so the others are not repeated
_SWITCHED = re.compile(r"(not a parameter of \w+|ns-2-only fields)(?=.*replace the whole table)")

# a path as the engine prints it: a.b[0].c (a quoted key, a[""], is not taken apart)
_PATH = re.compile(r"^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\d+\])*$")


def _split(message: str, label: str) -> Tuple[str, str]:
    """(field path, the rest) of an engine message, without the file prefix."""
    if label and message.startswith(label + ": "):
        message = message[len(label) + 2:]
    path, sep, _ = message.partition(": ")
    return (path, message) if sep and _PATH.match(path) else ("", message)


def _parts(path: str) -> List[Any]:
    return [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]


#: Required fields a link cannot do without, and a value that lets the check go on past
#: them (a wrong or missing one is reported; the rest of the file is still checked).
_STAND_IN = {"rate": "10Mb", "delay": "1ms"}


def _remove(data: Dict[str, Any], path: str) -> Optional[str]:
    """Take the field at ``path`` out of ``data``: the nearest table key at or above it
    (an error in a list entry drops the whole list); a required link rate or delay is
    replaced by a stand-in instead. Its path, or None if there is nothing to take out."""
    parts = _parts(path)
    while parts and isinstance(parts[-1], int):
        parts.pop()
    if not parts:
        return None
    node: Any = data
    for p in parts[:-1]:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return None
    last = parts[-1]
    if not isinstance(node, dict) or (last not in node and last not in _STAND_IN):
        return None
    if last in _STAND_IN and len(parts) > 1:
        node[last] = _STAND_IN[last]
    else:
        node.pop(last, None)
    return ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in parts).replace(".[", "[")


def _within(path: str, removed: str) -> bool:
    """Is ``path`` the removed field, a table above it, or inside it?"""
    a, b = _parts(path), _parts(removed)
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def all_errors(sc: Any, limit: int = MAX_ERRORS) -> List[str]:
    """Every error of scenario ``sc`` (a :class:`~aqmsim.scenario.Scenario`) as the
    engine words it, the first first; empty when it is valid."""
    from .scenario import Scenario

    data = sc.to_dict()
    label = str(sc.path) if sc.path is not None else ""
    errors: List[str] = []
    removed: List[str] = []
    said: set = set()  # (table, "not a parameter of K"): a discipline switched, said once
    for _ in range(4 * limit):
        if len(errors) >= limit:
            break
        try:
            Scenario(data, path=sc.path).validate()
            break
        except ScenarioError as exc:
            message = str(exc)
        path, rest = _split(message, label)
        if errors and (not path or any(_within(path, r) for r in removed)):
            break  # a consequence of taking a field out, not an error of the file
        switched = _SWITCHED.search(rest)
        key = (path.rpartition(".")[0], switched.group(1)) if switched else None
        if key is None or key not in said:
            errors.append(message)  # a table keeping another kind's fields: its first says all
        if key is not None:
            said.add(key)
        gone = _remove(data, path) if path else None
        if gone is None:
            break
        removed.append(gone)
    return errors


# --------------------------------------------------------------------------- summary
def _num(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _rate(bps: Any) -> str:
    if not isinstance(bps, (int, float)):
        return str(bps)
    for div, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "Kb/s")):
        if bps >= div:
            return f"{bps / div:g} {unit}"
    return f"{bps:g} b/s"


def _time(s: Any) -> str:
    if not isinstance(s, (int, float)):
        return str(s)
    if s != 0 and abs(s) < 1:
        return f"{s * 1e3:.4g} ms"
    return f"{s:.4g} s"


def _queue(q: Any) -> str:
    if not isinstance(q, dict):
        return "-"
    rest = " ".join(f"{k}={_num(v)}" for k, v in q.items() if k != "kind" and v is not None)
    return f"{q.get('kind', '?')}" + (f" ({rest})" if rest else "")


def _flow_kind(f: Dict[str, Any]) -> str:
    app = f.get("app", "?")
    tcp = f.get("tcp")
    if isinstance(tcp, dict) and tcp.get("variant"):
        stack = " (linux stack)" if tcp.get("stack") == "linux" else ""
        return f"{app} over TCP {tcp['variant']}{stack}"
    return f"{app} (UDP)" if app in ("cbr", "onoff") else str(app)


def _span(values: List[float], fmt: Any) -> str:
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return fmt(lo) if lo == hi else f"{fmt(lo)} to {fmt(hi)}"


def summary_lines(resolved: Dict[str, Any]) -> List[Tuple[str, str]]:
    """(label, text) pairs: the resolved scenario's key facts."""
    rows: List[Tuple[str, str]] = []
    name = resolved.get("name") or "(no name)"
    rows.append(("name", str(name)))
    if resolved.get("description"):
        rows.append(("description", str(resolved["description"])))
    rows.append(("duration", f"{_time(resolved.get('duration'))}, seed {resolved.get('seed')}"))
    links = resolved.get("links") or []
    rows.append(("topology", f"{len(resolved.get('nodes') or [])} nodes, {len(links)} links "
                 "(each a queue both ways)"))
    monitor = resolved.get("monitor") or {}
    by_name = {f"{ln.get('from')}->{ln.get('to')}": (ln, "queue") for ln in links}
    by_name.update({f"{ln.get('to')}->{ln.get('from')}": (ln, "reverse_queue") for ln in links})
    for q in monitor.get("queues") or []:
        link, side = by_name.get(q, ({}, "queue"))
        sched = link.get("rate_schedule")
        rate = _rate(link.get("rate")) + (f", {len(sched)}-step rate_schedule" if sched else "")
        rows.append((f"queue {q}", f"{rate}, {_time(link.get('delay'))}: {_queue(link.get(side))}"))
    flows = resolved.get("flows") or []
    kinds = Counter(_flow_kind(f) for f in flows)
    rows.append(("flows", f"{len(flows)}: " + ", ".join(f"{n} {k}" for k, n in kinds.items())
                 if flows else "none"))
    if flows:
        starts = [f["start"] for f in flows if isinstance(f.get("start"), (int, float))]
        stops = [f["stop"] for f in flows if isinstance(f.get("stop"), (int, float))]
        rows.append(("flow starts", f"{_span(starts, _time)}; stops {_span(stops, _time)}"))
        windows = [f["tcp"]["window"] for f in flows if isinstance(f.get("tcp"), dict)
                   and isinstance(f["tcp"].get("window"), (int, float))]
        sizes = [f["tcp"]["packet_size"] for f in flows if isinstance(f.get("tcp"), dict)
                 and isinstance(f["tcp"].get("packet_size"), (int, float))]
        if windows:
            rows.append(("TCP", f"window {_span(windows, _num)} packets, packet_size "
                         f"{_span(sizes, _num)} bytes"))
    watch = [f"queues sampled every {_time(monitor.get('sample_interval'))}",
             f"links every {_time(monitor.get('link_interval'))}"]
    traced = monitor.get("tcp_flows") or []
    if traced:
        watch.append(f"TCP state of {len(traced)} flow(s)")
    if monitor.get("delays"):
        watch.append("delay distributions")
    rows.append(("monitor", ", ".join(watch)))
    trace = resolved.get("trace")
    if isinstance(trace, dict):
        rows.append(("trace", f"{trace.get('format')} of {len(trace.get('links') or [])} "
                     f"link(s) to {trace.get('path')}"))
    return rows


def summary_text(file: Any, resolved: Dict[str, Any]) -> str:
    """What `aqmsim validate FILE` prints of a valid scenario."""
    rows = summary_lines(resolved)
    width = max(len(label) for label, _ in rows)
    return "\n".join([f"{file}: valid"] + [f"  {label.ljust(width)}  {value}" for label, value in rows]
                     + ["(the whole resolved scenario, every default filled in: --full; as JSON: --json)"])
