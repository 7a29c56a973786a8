"""``summary.md``: the suite report's overview and per-scenario tables in Markdown, for
pasting into an issue or a paper (as ``aqmsim reproduce``'s ``summary.md``)."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ...report.markdown import _md

__all__ = ["summary_markdown"]


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], text_cols: int) -> List[str]:
    align = ["---" if i < text_cols else "--:" for i in range(len(head))]
    return (["| " + " | ".join(_md(h) for h in head) + " |", "|" + "|".join(align) + "|"]
            + ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows] + [""])


def _scenario(c: Dict[str, Any]) -> List[str]:
    lines = [f"## §{c['section']} {_md(c['title'])} (`{c['name']}`)", "",
             f"*What the RFC asks:* {_md(c['asks'])}", "", f"*Our reading:* {_md(c['reading'])}",
             ""]
    if not c["runs"]:
        return lines + ["**No runs of this scenario.**", ""]
    failed = c["failed"]
    lines += [f"{c['ok']} of {c['runs']} runs finished"
              + (f", **{len(failed)} failed**" if failed else "")
              + f". Full page: [{c['href']}]({c['href']}).", ""]
    if c["ok"]:
        t = c["table"]
        lines += _table(t["head"], t["rows"], t["text_cols"])
        lines += ["Mean over the seeds ± the half-width of its 95 % confidence interval "
                  "(Student t); a delay percentile's half-width adds the DDSketch's "
                  "resolution, α/(1 − α) × the mean with α = 1 % (never ± 0 because the "
                  "seeds fell in one sketch bucket).", ""]
    if c["ns3"]:
        lines += ["aqmsim against ns-3 (runs in brackets):", ""]
        lines += _table(c["ns3"]["head"], c["ns3"]["rows"], len(c["ns3"]["head"]) - 2)
    if failed:
        lines += ["Failed runs:", ""] + [f"- {_md(v) + ' / ' if v else ''}{_md(a)} seed {s}: "
                                         f"`{_md(e)}`" for v, a, s, e in failed[:50]]
        if len(failed) > 50:
            lines.append(f"- … and {len(failed) - 50} more")
        lines.append("")
    return lines


def summary_markdown(suite: Any, cards: Sequence[Dict[str, Any]],
                     facts: Sequence[Tuple[str, str]], total: Dict[str, Any]) -> str:
    title = suite.title or suite.name
    lines = [f"# aqmsim — {_md(title)}", ""]
    lines += [f"- **{k}:** {_md(v) if k != 'command' else '`' + _md(v) + '`'}"
              for k, v in facts]
    lines += [f"- **outcome:** {total['ok']} of {total['runs']} runs finished, "
              f"{total['failed']} failed, over {total['scenarios']} scenarios; disciplines "
              f"{', '.join(total['disciplines']) or '—'}", "", "## Overview", "",
              "Per scenario, the discipline with the lowest mean queueing delay, the highest "
              "goodput of the TCP flows and the best Jain's fairness index: per discipline "
              "the mean of its per-variant means, over the variants that every discipline "
              "finished; disciplines whose values print the same are named together (“all "
              "equal” when all are).", ""]
    lines += _table(["RFC 7928", "scenario", "runs", "lowest queueing delay",
                     "highest TCP goodput", "best fairness"],
                    [[f"§{c['section']}", f"[{c['title']}]({c['href']})"
                      + (f" ({c['overview']['note']})" if c["overview"].get("note") else ""),
                      f"{c['ok']} of {c['runs']}",
                      c["overview"].get("delay", "—"), c["overview"].get("goodput", "—"),
                      c["overview"].get("fairness", "—")] for c in cards], 6)
    for c in cards:
        lines += _scenario(c)
    return "\n".join(lines).rstrip() + "\n"
