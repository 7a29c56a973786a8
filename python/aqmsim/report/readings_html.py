"""The readings section of a paper page: the rule, every open choice with its candidate
readings, "N of M within 10 %" under each variant, how far each choice moves each column
of compared numbers (table and tornado figure), and every compared number under every
variant. Also the claim labels (robust / fragile / fails) and the index card's line."""

from __future__ import annotations

import html
import math
from typing import Any, Dict, List, Optional

from . import _format as F

__all__ = ["readings_section", "claim_badge", "claim_details", "index_line", "label_counts", "CSS",
           "LABEL_TEXT"]

CSS = """
.badge { display: inline-block; font-size: .72rem; font-weight: 700; letter-spacing: .03em;
         text-transform: uppercase; border-radius: 4px; padding: .05rem .4rem;
         margin-right: .45rem; vertical-align: 1px; }
.badge.robust { background: #d6f0dc; color: #1a7f37; }
.badge.fragile { background: #fff1c2; color: #7a5a00; }
.badge.fails { background: #fbd5d0; color: #b42318; }
.prim { color: #1a7f37; font-weight: 700; }
.src { font-size: .75rem; color: #5f6b7a; border: 1px solid #d8dee6; border-radius: 3px;
       padding: 0 .3rem; margin-left: .3rem; white-space: nowrap; }
ul.readings { margin: .2rem 0; padding-left: 1.1rem; }
ul.readings li { margin: .25rem 0; }
.why { display: block; font-size: .85rem; color: #38434f; }
.arith { display: block; font-size: .85rem; font-family: ui-monospace, monospace;
         background: #f6f8fa; padding: .2rem .4rem; margin-top: .2rem; white-space: pre-wrap; }
td.vcell.off { background: #fdecea; color: #b42318; }
td.vcell.ok { color: #1a7f37; }
td.shift.big { font-weight: 700; }
"""

LABEL_TEXT = {
    "robust": "holds under every reading",
    "fragile": "holds under some readings only",
    "fails": "fails under every reading",
}


def e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def claim_badge(label: str) -> str:
    return f'<span class="badge {e(label)}" title="{e(LABEL_TEXT.get(label, ""))}">{e(label)}</span>'


def claim_details(lab: Any) -> str:
    """The claim's verdict and numbers under every variant, folded ('' without labels)."""
    if lab is None or len(lab.holds) < 2:
        return ""
    rows = "".join(
        f"<tr><td><code>{e(v)}</code></td><td>{'✓' if h else '✗'}</td>"
        f"<td>{e(lab.evidence.get(v, ''))}</td></tr>" for v, h in lab.holds.items())
    return ('<details class="evidence"><summary>under every reading</summary>'
            '<table class="data"><thead><tr><th>variant</th><th></th><th>numbers</th></tr>'
            f"</thead><tbody>{rows}</tbody></table></details>")


def label_counts(sens: Any) -> Dict[str, int]:
    out = {"robust": 0, "fragile": 0, "fails": 0}
    for c in sens.claims:
        out[c.label] = out.get(c.label, 0) + 1
    return out


def index_line(sens: Any) -> str:
    """The index card's facts: N of M under each variant, and the claims' labels."""
    if sens is None:
        return ""
    bits = []
    for v in sens.variant_names:
        k, n = sens.counts.get(v, (0, 0))
        bits.append(f"<code>{e(v)}</code> {k}/{n}")
    lc = label_counts(sens)
    return ('<p class="mute" style="font-size:.88rem"><b>Within 10 % under each reading:</b> '
            + " · ".join(bits) + "<br><b>Claims over every reading:</b> "
            + f"{lc['robust']} robust · {lc['fragile']} fragile · {lc['fails']} fail</p>")


def _pct(x: float) -> str:
    if x is None or not math.isfinite(x):
        return F.DASH
    return f"{100 * x:+.1f} %".replace("-", "−")


def _choices_table(sens: Any) -> str:
    rows = []
    for c in sens.choices:
        prim = c.primary.name
        items = []
        for r in c.readings:
            mark = '<span class="prim" title="primary reading">★ </span>' if r.name == prim else ""
            excl = (f'<span class="why"><i>Not primary, ruled out by the paper\'s text:</i> '
                    f"{e(r.excluded)}</span>" if r.excluded else "")
            arith = f'<span class="arith">{e(r.arithmetic)}</span>' if r.arithmetic else ""
            items.append(f"<li>{mark}<code>{e(r.name)}</code> — {e(r.label)}"
                         f'<span class="src">{e(r.source)}</span>'
                         f'<span class="why">{e(r.why)}</span>{excl}{arith}</li>')
        rows.append(f"<tr><td><code>{e(c.name)}</code></td><td>{e(c.question)}</td>"
                    f'<td><ul class="readings">{"".join(items)}</ul></td></tr>')
    return ('<div class="scroll"><table class="data"><thead><tr><th>choice</th>'
            "<th>open question</th><th>candidate readings (★ primary)</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _variants_table(sens: Any) -> str:
    rows = []
    lc_by: Dict[str, int] = {}
    for v in sens.variant_names:
        rep = sens.reports[v]
        c, m = rep.claims_count()
        lc_by[v] = c
        k, n = sens.counts.get(v, (0, 0))
        seeds = sens.seeds.get(v, [])
        var = sens.variant(v)
        rows.append(f"<tr><td><code>{e(v)}</code></td><td>{e(var.description)}</td>"
                    f'<td class="num">{len(seeds)}</td>'
                    f'<td class="num">{k} of {n}</td><td class="num">{c} of {m}</td></tr>')
    return ('<div class="scroll"><table class="data"><thead><tr><th>variant</th><th>readings</th>'
            "<th>seeds</th><th>published numbers within 10 %</th><th>claims hold</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div>")


def _shifts_table(sens: Any) -> str:
    if not sens.shifts:
        return '<p class="mute">No alternative reading was run.</p>'
    cols: List[str] = []
    for s in sens.shifts:
        if s.column not in cols:
            cols.append(s.column)
    by = {(s.choice, s.column): s for s in sens.shifts}
    rows = []
    for c in sens.choices:
        tds = []
        for col in cols:
            s = by.get((c.name, col))
            if s is None:
                tds.append("<td></td>")
                continue
            txt = "; ".join(f"{e(r)} {_pct(x)}" for r, x in s.by_reading.items())
            big = " big" if max(abs(s.low), abs(s.high)) >= 0.10 else ""
            tds.append(f'<td class="shift{big}">{txt}</td>')
        rows.append(f"<tr><td><code>{e(c.name)}</code></td>{''.join(tds)}</tr>")
    head = "".join(f"<th>{e(col)}</th>" for col in cols)
    return ('<div class="scroll"><table class="data"><thead><tr><th>choice</th>'
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            '<p class="tablenote">Each entry: an alternative reading of the choice (every '
            "other choice at its primary reading) and the median, over the column's compared "
            "numbers, of its relative change from the primary reading. Bold: a change of "
            "10 % or more.</p>")


def _vcell(cell: Any) -> str:
    if cell is None:
        return "<td></td>"
    st = F.status(cell)
    return f'<td class="vcell num {st}" title="{e(F.diff(cell))}">{e(F.num(cell.mean))}</td>'


def _numbers_table(sens: Any, limit: Optional[int] = None) -> str:
    names = sens.variant_names
    head = "".join(f"<th><code>{e(v)}</code></th>" for v in names)
    rows = []
    for r in sens.rows[:limit]:
        tds = "".join(_vcell(r.cells.get(v)) for v in names)
        rows.append(f"<tr><td>{e(r.table)}</td><td>{e(r.row)}</td><td>{e(r.column)}</td>"
                    f'<td class="num">{e(F.num(r.published))}</td>{tds}</tr>')
    return ('<div class="scroll"><table class="data"><thead><tr><th>table</th><th>row</th>'
            f"<th>column</th><th>published</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>"
            '<p class="tablenote">Our mean over the seeds under each variant; red: more than '
            "10 % from the published value (hover for the difference).</p>")


def readings_section(o: Any, figure_src: Any = None) -> str:
    """The ``Readings`` part of a paper page ('' when the paper has no open choices)."""
    sens = getattr(o, "readings", None)
    if sens is None:
        return ""
    parts = ['<h2 id="readings">Readings: what the paper leaves open</h2>',
             f'<div class="note"><p><b>Rule for the primary reading.</b> {e(sens.rule)}</p>'
             "<p>Every other reading runs too (one choice at a time, the rest at their "
             "primary reading; then every choice as ns-2 takes it, and every choice by the "
             "textbook), so each number and claim below shows whether it hangs on a "
             "guess.</p></div>",
             "<h3>Open choices and their candidate readings</h3>", _choices_table(sens),
             "<h3>Published numbers within 10 % under each reading</h3>",
             _variants_table(sens),
             "<h3>How far each choice moves the compared numbers</h3>", _shifts_table(sens)]
    for name in sens.figures:
        src = figure_src(name) if figure_src else name
        if src:
            parts.append(f'<figure><img src="{e(src)}" alt="tornado diagram of the readings">'
                         "<figcaption>Tornado diagram: for each open choice (one bar), the "
                         "range of the median relative change of a column's compared numbers "
                         "over the choice's alternative readings, from the primary reading; "
                         "the longest bar is the choice the column hangs on most."
                         "</figcaption></figure>")
    parts += ["<h3>Every compared number under every reading</h3>", _numbers_table(sens)]
    return "".join(parts)
