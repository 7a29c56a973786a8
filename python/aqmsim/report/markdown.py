"""``summary.md``: the reproduction in Markdown, for pasting into a paper or an issue.

Per paper: the two counts, a compact table of every number that has a published value
(ours ± 95 % CI, published, difference; more than 10 % off in bold) and the claims.
"""

from __future__ import annotations

from datetime import datetime
from typing import List, Optional, Sequence

from ..papers.base import Report
from . import _format as F
from . import verdicts as V
from .outcome import Failure, Outcome, citation_of, name_of, title_of

__all__ = ["summary_markdown"]


def _md(x: object) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(x).split()).replace("|", "\\|")


def _counts(o: Report) -> str:
    k, n = o.published_count()
    c, m = o.claims_count()
    extra = F.inputs_text(o)
    pub = (f"**{k} of {n}** published numbers within 10 %" + (f" ({extra})" if extra else "")
           if n else "no published numbers")
    cl = f"**{c} of {m}** claims hold" if m else "no claims checked"
    return f"{pub}; {cl}"


def _verdict(judged: dict, r: "F.Compared") -> str:
    v = judged.get((r.table, r.row, r.column))
    if v is None:
        return ""
    return v.verdict + (f" ({v.note})" if v.note else "")


def _paper(o: Outcome, page: str) -> List[str]:
    name = name_of(o)
    lines = [f"## {_md(title_of(o))} (`{name}`)", ""]
    cite = citation_of(o)
    if cite:
        lines += [f"*{' '.join(cite.split())}*", ""]
    if isinstance(o, Failure):
        lines += [f"**Failed while {o.stage}:** `{_md(o.error)}` — see [{page}]({page}).", ""]
        return lines
    runs = f", {F.runs_text(o.runs)}" if getattr(o, "runs", None) else ""
    lines += [f"Seeds {F.seeds_text(o.seeds)}, wall time {F.duration(o.wall_seconds)}{runs}. "
              f"{_counts(o)}. Full page: [{page}]({page}).", ""]
    failed = list(getattr(o, "failed_runs", []) or [])
    if failed:
        lines += [f"**{len(failed)} run{'s' if len(failed) != 1 else ''} failed** and "
                  f"{'is' if len(failed) == 1 else 'are'} left out (first: `{_md(str(failed[0].key))}` "
                  f"seed {int(failed[0].seed)}: {_md(str(failed[0].error))}).", ""]
    if getattr(o, "ns2", None) is not None:
        from ..ns2.column import agreement_text

        lines += [f"*{_md(agreement_text(o))}.*", ""]
    vs = V.verdicts(o)
    judged = {(v.table, v.row, v.column): v for v in vs}
    if vs:
        lines += [f"Verdicts: {V.counts_text(vs)}"
                  + (f"; inputs, row by row: {V.counts_text(vs, inputs=True)}"
                     if V.counts_text(vs, inputs=True) else "") + ".", ""]
        for t in (V.chance_text(V.chance(o)), V.coverage_text(o)):
            if t:
                lines += [f"{_md(t)}.", ""]
    rows = F.compared(o)
    with_ns2 = F.has_ns2(o)
    if rows and with_ns2:
        lines += ["| table | row | column | published | ns-2 (± 95 % CI) | aqmsim (± 95 % CI) "
                  "| diff | verdict |", "|---|---|---|--:|--:|--:|--:|---|"]
        for r in rows:
            d = F.diff(r.cell)
            if r.cell.within10 is False:
                d = f"**{d}**"
            n2 = F.ns2(r.cell)
            if r.cell.ns2_agrees is False:
                n2 = f"**{n2}**"
            lines.append(f"| {_md(r.table)} | {_md(r.row)} | {_md(r.column)} | "
                         f"{_md(F.published(r.cell))} | {_md(n2)} | {_md(F.ours(r.cell))} | "
                         f"{_md(d)} | {_md(_verdict(judged, r))} |")
        lines += ["", f"{F.NS2_MARK} (bold): ns-2 and aqmsim differ (exactly where the number "
                  "does not vary over seeds, else Welch's t-test at 5 %); — in the ns-2 "
                  "column: ns-2 cannot run this experiment, or ns-2's runs do not give the "
                  "number. Verdicts: the rule is on the HTML report and in "
                  "docs/reproducing.md.", ""]
    elif rows:
        lines += ["| table | row | column | ours (± 95 % CI) | published | diff | verdict |",
                  "|---|---|---|--:|--:|--:|---|"]
        for r in rows:
            d = F.diff(r.cell)
            if r.cell.within10 is False:
                d = f"**{d}**"
            lines.append(f"| {_md(r.table)} | {_md(r.row)} | {_md(r.column)} | "
                         f"{_md(F.ours(r.cell))} | {_md(F.published(r.cell))} | {_md(d)} | "
                         f"{_md(_verdict(judged, r))} |")
        lines.append("")
    others = sum(1 for _ in F.cells_of(o, only_published=False)) - len(rows)
    if others:
        lines += [f"{others} further number{'s' if others != 1 else ''} without a "
                  "published value: see the HTML page.", ""]
    sens = getattr(o, "readings", None)
    labels = {c.text: c for c in sens.claims} if sens is not None else {}
    if o.claims:
        lines.append("Claims (✓/✗ under the primary reading; label over every reading: "
                     "*robust* holds under all, *fragile* fails under those named, *fails* "
                     "under all):" if labels else "Claims:")
        lines.append("")
        for c in o.claims:
            mark = "✓" if c.holds else "✗"
            ev = " ".join(str(c.evidence).split())
            lab = labels.get(c.text)
            tag = ""
            if lab is not None:
                tag = f"**{lab.label}** "
                if lab.label == "fragile":
                    tag += f"(fails under: {', '.join(lab.fails_under)}) "
            lines.append(f"- {mark} {tag}{' '.join(str(c.text).split())}"
                         + (f" — {ev}" if ev else ""))
        lines.append("")
    if sens is not None:
        lines += _readings(sens)
    return lines


def _readings(sens) -> List[str]:
    """The readings: the rule, each choice with its readings (primary first), and the
    counts under each variant."""
    lines = ["### Readings", "", f"*Rule:* {' '.join(sens.rule.split())}", ""]
    for c in sens.choices:
        prim = c.primary
        others = ", ".join(f"`{r.name}` ({r.source})" for r in c.readings if r is not prim)
        lines.append(f"- `{c.name}` — {_md(c.question)} Primary: `{prim.name}` "
                     f"({prim.source}: {_md(prim.label)}); also {others}."
                     + (f" Arithmetic: {_md(prim.arithmetic)}" if prim.arithmetic else ""))
    lines += ["", "| variant | readings | seeds | within 10 % | claims hold |",
              "|---|---|--:|--:|--:|"]
    for v in sens.variant_names:
        k, n = sens.counts.get(v, (0, 0))
        c, m = sens.reports[v].claims_count()
        lines.append(f"| `{v}` | {_md(sens.variant(v).description)} | "
                     f"{len(sens.seeds.get(v, []))} | {k} of {n} | {c} of {m} |")
    lines.append("")
    return lines


def _inputs(o: Report) -> str:
    """`` + 27 inputs (25 within 10 % row by row)`` when published numbers were inputs."""
    cs = [c for c in o.cells() if getattr(c, "input", False) and c.row_diff is not None]
    if not cs:
        return ""
    k = sum(1 for c in cs if abs(c.row_diff) <= 0.10)
    return f"; + {len(cs)} inputs, not counted ({k} within 10 % row by row)"


def _ns2_cell(o: Report) -> str:
    """The top table's ns-2 entry: ``K of L`` numbers agreeing, or why there is none."""
    col = getattr(o, "ns2", None)
    if col is None or col.status != "ran":
        return "—"
    k, n = o.ns2_count()
    return f"{k} of {n}" if n else "—"


def summary_markdown(outcomes: Sequence[Outcome], pages: dict, version: str = "",
                     generated: Optional[datetime] = None) -> str:
    generated = generated or datetime.now()
    lines = ["# aqmsim — reproduced papers", "",
             f"Generated {generated.strftime('%Y-%m-%d %H:%M')}"
             + (f" with aqmsim {version}" if version else "")
             + ". Numbers are our mean over the seeds ± the half-width of its 95 % confidence "
             "interval; diff = (ours − published) / |published|; **bold** = more than 10 % off.",
             "",
             "| paper | seeds | wall time | published numbers within 10 % (primary reading; "
             "under each alternative) | claims hold (primary; labels over every reading) |",
             "|---|---|---|---|---|"]
    ns2_col = any(getattr(o, "ns2", None) is not None and o.ns2.status != "missing"
                  for o in outcomes if not isinstance(o, Failure))
    if ns2_col:
        lines[-2] += " ns-2 agrees with aqmsim (exact where ± 0, else Welch t at 5 %) |"
        lines[-1] += "---|"
    for o in outcomes:
        name = name_of(o)
        if isinstance(o, Failure):
            lines.append(f"| `{name}` {_md(title_of(o))} | {F.seeds_text(o.seeds)} | "
                         f"{F.duration(o.wall_seconds)} | failed while {o.stage} | — |"
                         + (" — |" if ns2_col else ""))
            continue
        k, n = o.published_count()
        c, m = o.claims_count()
        sens = getattr(o, "readings", None)
        alt = ""
        if sens is not None:
            alt = " (" + ", ".join(f"{v} {sens.counts[v][0]}" for v in sens.variant_names
                                   if v != "primary") + ")"
            lc = {"robust": 0, "fragile": 0, "fails": 0}
            for cl in sens.claims:
                lc[cl.label] += 1
            claims = (f"{c} of {m}; {lc['robust']} robust, {lc['fragile']} fragile, "
                      f"{lc['fails']} fail")
        else:
            claims = f"{c} of {m}"
        lines.append(f"| `{name}` {_md(title_of(o))} | {F.seeds_text(o.seeds)} | "
                     f"{F.duration(o.wall_seconds)} | {k} of {n}{_md(alt)}{_md(_inputs(o))} | "
                     f"{claims} |"
                     + (f" {_ns2_cell(o)} |" if ns2_col else ""))
    lines.append("")
    for o in outcomes:
        lines += _paper(o, pages[name_of(o)])
    return "\n".join(lines).rstrip() + "\n"
