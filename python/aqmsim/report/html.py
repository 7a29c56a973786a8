"""The HTML report: ``index.html`` (every paper at a glance) and one page per paper
(``<name>/index.html``: tables beside the published numbers, figures, claims,
assumptions).

Plain HTML with the CSS in a ``<style>`` element: no JavaScript, no fonts, images or
style sheets from elsewhere, so the report opens offline and from a copied directory.
Figures are referenced by relative paths inside the paper's directory.
"""

from __future__ import annotations

import html
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence
from urllib.parse import quote

from ..papers.base import Cell, Figure, Table
from . import _format as F
from . import readings_html as R
from .outcome import Failure, Outcome, citation_of, name_of, title_of

__all__ = ["index_page", "paper_page", "figure_src", "HOW_TO_READ"]

CSS = """
:root { --ok: #1a7f37; --off: #b42318; --offbg: #fdecea; --okbg: #eef8f0; --mute: #5f6b7a;
        --line: #d8dee6; --head: #f3f5f8; }
* { box-sizing: border-box; }
body { font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #1d2530; margin: 0 auto; padding: 1.5rem 2rem 4rem; max-width: 1200px; }
h1 { font-size: 1.6rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 .6rem; border-bottom: 1px solid var(--line);
     padding-bottom: .25rem; }
h3 { font-size: 1.05rem; margin: 1.6rem 0 .4rem; }
a { color: #0b5cad; }
.mute, .citation { color: var(--mute); }
.citation { font-style: italic; margin: 0 0 .8rem; }
.crumb { font-size: .9rem; margin-bottom: .8rem; }
.facts { display: flex; flex-wrap: wrap; gap: .5rem 1.6rem; margin: .6rem 0 1rem;
         padding: 0; list-style: none; }
.facts li b { display: block; font-size: .75rem; text-transform: uppercase;
              letter-spacing: .04em; color: var(--mute); font-weight: 600; }
.note { background: #f6f8fa; border-left: 4px solid #8aa4c2; padding: .7rem 1rem;
        margin: 1rem 0 1.4rem; font-size: .92rem; }
.note p { margin: .3rem 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .9rem 1.2rem;
        margin: 1rem 0; }
.card h2 { border: 0; margin: 0 0 .2rem; padding: 0; }
.card.failed { border-color: #f1b5ae; background: #fffafa; }
.meter { display: inline-block; width: 120px; height: .6rem; background: var(--offbg);
         border-radius: 3px; vertical-align: middle; margin-left: .5rem; overflow: hidden; }
.meter span { display: block; height: 100%; background: var(--ok); }
.meter.empty { background: #eceff3; }
table.data { border-collapse: collapse; margin: .4rem 0 .3rem; font-size: .9rem; }
table.data th, table.data td { border: 1px solid var(--line); padding: .3rem .55rem;
                               vertical-align: top; }
table.data thead th { background: var(--head); text-align: left; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data td.cell { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.cell .sep { color: #aab3bf; padding: 0 .3rem; }
td.cell .pub { color: var(--mute); }
td.cell.off { background: var(--offbg); }
td.cell.off .diff { color: var(--off); font-weight: 600; }
td.cell.ok .diff { color: var(--ok); }
td.cell.none .pub, td.cell.none .diff { color: #aab3bf; }
td.cell .ns2.none { color: #aab3bf; }
td.cell .ns2.differs { background: #fff1c2; color: #7a4d00; font-weight: 600;
                       padding: 0 .2rem; border-radius: 3px; }
.tablenote { font-size: .85rem; color: var(--mute); margin: .2rem 0 1rem; max-width: 60rem; }
.legend { font-size: .85rem; color: var(--mute); margin: .2rem 0 .8rem; }
.legend .sw { display: inline-block; width: .9rem; height: .9rem; vertical-align: -2px;
              border: 1px solid var(--line); margin: 0 .25rem 0 .6rem; }
.scroll { overflow-x: auto; }
figure { margin: 1.2rem 0 1.8rem; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { font-size: .9rem; color: #38434f; margin-top: .3rem; max-width: 60rem; }
.missing { color: var(--off); border: 1px dashed var(--off); padding: .6rem; }
ul.claims { list-style: none; padding: 0; }
ul.claims li { margin: .5rem 0; padding: .45rem .8rem; border-radius: 6px;
               border: 1px solid var(--line); }
ul.claims li.holds { background: var(--okbg); }
ul.claims li.fails { background: var(--offbg); }
ul.claims .mark { font-weight: 700; margin-right: .4rem; }
ul.claims li.holds .mark { color: var(--ok); }
ul.claims li.fails .mark { color: var(--off); }
ul.claims .evidence { display: block; font-size: .88rem; color: #38434f;
                      white-space: pre-wrap; margin-top: .2rem; }
.error { background: var(--offbg); border: 1px solid #f1b5ae; border-radius: 6px;
         padding: .7rem 1rem; }
.error pre { white-space: pre-wrap; font-size: .8rem; overflow-x: auto; }
.toc { font-size: .9rem; }
.toc a { margin-right: 1rem; }
footer { margin-top: 3rem; font-size: .8rem; color: var(--mute); }
"""

HOW_TO_READ = [
    "Each paper was re-run in aqmsim over several independent seeds. A number in a table "
    "reads <b>ours ± CI | published | diff</b>: our mean over the seeds with the half-width "
    "of its 95 % confidence interval (Student t), the value the paper printed, and the "
    "relative difference (ours − published) / |published|.",
    "A number more than 10 % away from the published one is <span class=\"offtxt\" "
    "style=\"background:#fdecea;color:#b42318;padding:0 .2rem\">highlighted</span>; "
    "“—” means the paper gives no number to compare with (we report ours anyway). "
    "“N of M published numbers within 10 %” counts only numbers the paper published.",
    "A claim is a qualitative statement of the paper (“RTRED keeps the queue shorter "
    "than RED”) checked on our runs: ✓ holds, ✗ does not, with the numbers that decided it.",
    "Where ns-2 (2.35) is installed, the experiments it can run are run in ns-2 too, from "
    "the same scenarios over the same seeds, and a number reads <b>published | ns-2 | "
    "aqmsim | diff</b>, so a gap can be told apart: ours alone, or the paper's against both "
    "simulators. An ns-2 value that differs from ours by more than the two confidence "
    "intervals together (|ns-2 − aqmsim| > √(h<sub>ns-2</sub>² + h<sub>aqmsim</sub>²)) is "
    "<span style=\"background:#fff1c2;color:#7a4d00;padding:0 .2rem\">marked ≠</span>; "
    "“—” in the ns-2 place: ns-2 cannot run that experiment (RTRED, QRTRED, …), ns-2's "
    "runs do not measure the number, or the number is not computed from each run.",
    "Where a paper leaves a parameter open, every candidate reading is run: the tables show "
    "the primary one, picked by a rule written on each page (never by how well it matches); "
    "the page's <i>Readings</i> shows the others, how far each choice moves each number, "
    "and labels each claim <b>robust</b> (holds under every reading), <b>fragile</b> or "
    "<b>fails</b>. Figures are redrawn from our runs (the first seed for time series).",
]


def e(x: Any) -> str:
    """Escape for HTML text and attribute values."""
    return html.escape(str(x), quote=True)


def _doc(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{e(title)}</title>\n<style>{CSS}{R.CSS}</style>\n</head>\n<body>\n{body}\n"
        "</body>\n</html>\n"
    )


def _meter(k: int, n: int) -> str:
    if n <= 0:
        return '<span class="meter empty"></span>'
    return f'<span class="meter"><span style="width:{100.0 * k / n:.1f}%"></span></span>'


def _counts(o: Outcome) -> Dict[str, str]:
    """The two headline counts as HTML."""
    if isinstance(o, Failure):
        return {"published": "—", "claims": "—"}
    k, n = o.published_count()
    c, m = o.claims_count()
    pub = (f"{k} of {n} published numbers within 10 %{_meter(k, n)}" if n
           else "no published numbers to compare")
    cl = f"{c} of {m} claims hold{_meter(c, m)}" if m else "no claims checked"
    return {"published": pub, "claims": cl}


def _facts(o: Outcome, page_link: Optional[str] = None) -> str:
    seeds = o.seeds if not isinstance(o, Failure) else o.seeds
    c = _counts(o)
    items = [
        ("seeds", e(F.seeds_text(list(seeds)))),
        ("wall time", e(F.duration(o.wall_seconds))),
    ]
    if isinstance(o, Failure):
        items.append(("status", f'<span style="color:#b42318">failed while {e(o.stage)}</span>'))
    else:
        items += [("published numbers", c["published"]), ("claims", c["claims"])]
        if getattr(o, "runs", None):
            items.append(("runs", e(F.runs_text(o.runs))))
        if getattr(o, "ns2", None) is not None:
            items.append(("ns-2", _ns2_fact(o)))
    lis = "".join(f"<li><b>{k}</b>{v}</li>" for k, v in items)
    return f'<ul class="facts">{lis}</ul>'


def _ns2_fact(o: Any) -> str:
    """The ns-2 column in one line: how many numbers agree, or why there is none."""
    from ..ns2.column import agreement_text

    k, n = o.ns2_count()
    text = agreement_text(o)
    if text.startswith("ns-2 column: "):
        text = text[len("ns-2 column: "):]
    return e(text) + (_meter(k, n) if n else "")


# --------------------------------------------------------------------------- index
def index_page(outcomes: Sequence[Outcome], pages: Dict[str, str], version: str = "",
               generated: Optional[datetime] = None) -> str:
    """``index.html``: per paper its title, citation, seeds, wall time, the two counts
    and a link to its page (``pages[name]``, relative to the index)."""
    generated = generated or datetime.now()
    total_k = total_n = total_c = total_m = 0
    ns2_k = ns2_n = 0
    failed = 0
    cards: List[str] = []
    for o in outcomes:
        name = name_of(o)
        href = pages[name]
        if isinstance(o, Failure):
            failed += 1
        else:
            k, n = o.published_count()
            c, m = o.claims_count()
            total_k, total_n, total_c, total_m = total_k + k, total_n + n, total_c + c, total_m + m
            if getattr(o, "ns2", None) is not None:
                a, b = o.ns2_count()
                ns2_k, ns2_n = ns2_k + a, ns2_n + b
        cls = "card failed" if isinstance(o, Failure) else "card"
        err = ""
        if isinstance(o, Failure):
            err = (f'<p class="error"><b>Failed while {e(o.stage)}:</b> {e(o.error)} '
                   f'— <a href="{e(href)}">details</a></p>')
        cite = citation_of(o)
        cards.append(
            f'<section class="{cls}" id="{e(name)}">'
            f'<h2><a href="{e(href)}">{e(title_of(o))}</a></h2>'
            f'<div class="mute"><code>aqmsim reproduce {e(name)}</code></div>'
            + (f'<p class="citation">{e(cite)}</p>' if cite else "")
            + _facts(o) + err
            + ("" if isinstance(o, Failure) else R.index_line(getattr(o, "readings", None)))
            + f'<p><a href="{e(href)}">Tables, figures, claims and assumptions →</a></p>'
            "</section>"
        )
    total = ""
    if outcomes:
        parts = []
        if total_n:
            parts.append(f"{total_k} of {total_n} published numbers within 10 %")
        if total_m:
            parts.append(f"{total_c} of {total_m} claims hold")
        if ns2_n:
            parts.append(f"ns-2 agrees with aqmsim on {ns2_k} of {ns2_n} numbers within "
                         "the CIs")
        if failed:
            parts.append(f'<span style="color:#b42318">{failed} paper'
                         f'{"s" if failed != 1 else ""} failed</span>')
        total = f"<p><b>Overall:</b> {'; '.join(parts) or 'nothing to compare'}.</p>"
    how = "".join(f"<p>{p}</p>" for p in HOW_TO_READ)
    body = (
        "<h1>aqmsim — reproduced papers</h1>"
        f'<p class="mute">{len(outcomes)} paper{"s" if len(outcomes) != 1 else ""} · '
        f"generated {e(generated.strftime('%Y-%m-%d %H:%M'))}"
        + (f" · aqmsim {e(version)}" if version else "") + "</p>"
        + total
        + f'<div class="note"><p><b>How to read this.</b></p>{how}'
          '<p>The same numbers, as Markdown for pasting into a paper or an issue: '
          '<a href="summary.md">summary.md</a>.</p></div>'
        + "".join(cards)
        + "<footer>Written by <code>aqmsim reproduce</code>. Plain HTML, no scripts: "
          "the directory can be copied and opened anywhere.</footer>"
    )
    return _doc("aqmsim — reproduced papers", body)


# --------------------------------------------------------------------------- paper page
_NS2_TIP = {"agree": "ns-2 and aqmsim agree within their 95 % confidence intervals",
            "differs": "ns-2 and aqmsim differ by more than their 95 % confidence intervals"}


def _td(x: Any, ns2: bool = False) -> str:
    if isinstance(x, Cell):
        st = F.status(x)
        tip = {"ok": "within 10 % of the published value",
               "off": "more than 10 % away from the published value",
               "none": "no published value"}[st]
        if getattr(x, "input", False):
            tip = ("a published number the reproduction used as an input (to derive a "
                   "quantity of the scenario): shown, not counted as a check")
        if ns2:
            n2 = F.ns2_status(x)
            n2tip = _NS2_TIP.get(n2) or (getattr(x, "ns2_note", "") or
                                        ("no ns-2 value: not computed from each run"
                                         if x.ns2 is None else "ns-2: no confidence interval"))
            return (f'<td class="cell {st} ns2-{n2}" title="{e(tip)}">'
                    f'<span class="pub">{e(F.published(x))}</span>'
                    f'<span class="sep">|</span><span class="ns2 {n2}" title="{e(n2tip)}">'
                    f'{e(F.ns2(x))}</span>'
                    f'<span class="sep">|</span><span class="ours">{e(F.ours(x))}</span>'
                    f'<span class="sep">|</span><span class="diff">{e(F.diff(x))}</span></td>')
        return (f'<td class="cell {st}" title="{e(tip)}"><span class="ours">{e(F.ours(x))}</span>'
                f'<span class="sep">|</span><span class="pub">{e(F.published(x))}</span>'
                f'<span class="sep">|</span><span class="diff">{e(F.diff(x))}</span></td>')
    if x is None:
        return "<td></td>"
    if isinstance(x, str):
        return f"<td>{e(x)}</td>"
    return f'<td class="num">{e(F.num(x))}</td>'


def table_html(t: Table, number: int, ns2: bool = False) -> str:
    """One table; with ``ns2`` its cells read published | ns-2 | aqmsim | diff."""
    head = "".join(f"<th>{e(c)}</th>" for c in t.columns)
    width = max([len(t.columns)] + [len(r) for r in t.rows])
    head += "<th></th>" * (width - len(t.columns))
    rows = []
    for r in t.rows:
        cells = "".join(_td(x, ns2) for x in r) + "<td></td>" * (width - len(r))
        rows.append(f"<tr>{cells}</tr>")
    if not rows:
        rows.append(f'<tr><td colspan="{max(width, 1)}" class="mute">(no rows)</td></tr>')
    has_cells = any(isinstance(x, Cell) for r in t.rows for x in r)
    legend = ""
    if has_cells and ns2:
        legend = ('<div class="legend">published | ns-2 ± 95 % CI | aqmsim ± 95 % CI | '
                  'difference (aqmsim − published)'
                  '<span class="sw" style="background:#fdecea"></span>aqmsim more than 10 % '
                  'off the published value'
                  '<span class="sw" style="background:#fff1c2"></span>≠ ns-2 and aqmsim '
                  "differ beyond their CIs</div>")
    elif has_cells:
        legend = ('<div class="legend">ours ± 95 % CI | published | difference'
                  '<span class="sw" style="background:#fdecea"></span>more than 10 % off'
                  '<span class="sw" style="background:#fff"></span>within 10 % or no '
                  "published value (—)</div>")
    note = f'<p class="tablenote">{e(t.note)}</p>' if t.note else ""
    if any(isinstance(x, Cell) and x.input for r in t.rows for x in r):
        note += ('<p class="tablenote">“input”: a published number this reproduction used to '
                 "derive a quantity of its scenarios (see Readings: the derived readings and "
                 "their arithmetic), so it is shown but not counted as a check.</p>")
    if has_cells and ns2:
        note += _ns2_table_note(t)
    return (f'<section id="table-{number}"><h3>{e(t.title)}</h3>'
            f'<div class="scroll"><table class="data"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>{legend}{note}</section>")


def _ns2_table_note(t: Table) -> str:
    """Why some cells of the table have no ns-2 value ("ns-2 cannot run this", …)."""
    why: Dict[str, int] = {}
    for r in t.rows:
        for x in r:
            if isinstance(x, Cell) and x.ns2 is None:
                reason = (getattr(x, "ns2_note", "") or
                          "no ns-2 value: not computed from each run")
                why[reason] = why.get(reason, 0) + 1
    if not why:
        return ""
    text = "; ".join(f"{r} ({n} number{'s' if n != 1 else ''})" for r, n in why.items())
    return f'<p class="tablenote">ns-2 “—”: {e(text)}.</p>'


def _ns2_note(o: Any) -> str:
    """Under the Tables heading: what the ns-2 column holds, and what ns-2 cannot run."""
    col = getattr(o, "ns2", None)
    if col is None:
        return ""
    from ..ns2.column import agreement_text

    lines = [f"<p><b>{e(agreement_text(o))}.</b></p>"]
    if col.status == "ran" and col.experiments:
        lines.append(f"<p>ns-2 ran the {len(col.experiments)} experiment"
                     f"{'s' if len(col.experiments) != 1 else ''} of the primary reading "
                     "behind these numbers, exported by <code>aqmsim.ns2</code>, over seeds "
                     f"{e(F.seeds_text(col.seeds))}"
                     + (f": {e(F.runs_text(col.runs))}" if col.runs else "")
                     + ". Its numbers are computed from each ns-2 run as ours are from each of "
                     "ours, read off ns-2's own counters (queue and flow monitors, TCP "
                     "agents, sinks).</p>")
        unmeasured = sorted({c.ns2_note[len("ns-2 does not measure "):] for c in o.cells()
                             if c.ns2_note.startswith("ns-2 does not measure ")})
        if unmeasured:
            lines.append(f"<p>Not measured in ns-2 (no counter for it; a packet trace would "
                         f"be needed): <code>{e(', '.join(unmeasured))}</code>.</p>")
    for why, keys in col.cannot_groups():
        more = f" … ({len(keys)} in all)" if len(keys) > 12 else ""
        lines.append(f"<p>ns-2 cannot run this: <code>{e(', '.join(keys[:12]))}</code>{more} "
                     f"— {e(why)}</p>")
    if col.failed:
        lines.append("<p>Failed ns-2 runs (left out): "
                     + "; ".join(f"<code>{e(str(f.key))}</code> seed {int(f.seed)}: "
                                 f"{e(str(f.error))[:300]}" for f in col.failed[:5])
                     + (f"; … and {len(col.failed) - 5} more" if len(col.failed) > 5 else "")
                     + "</p>")
    return f'<div class="note" id="ns2">{"".join(lines)}</div>'


def figure_src(fig: Figure, paper_dir: Path) -> Optional[str]:
    """The figure's path relative to the paper's page, or None when the file is missing.
    A figure written outside the paper's directory is copied into ``figures/`` there so
    that the report stays self-contained."""
    p = Path(fig.path)
    if p.is_absolute():
        try:
            rel = p.resolve().relative_to(paper_dir.resolve())
        except ValueError:
            if not p.is_file():
                return None
            dest = paper_dir / "figures" / p.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
            rel = dest.relative_to(paper_dir)
        p = rel
    if not (paper_dir / p).is_file():
        return None
    return quote(p.as_posix(), safe="/")


def _error_html(f: Failure) -> str:
    return (f'<section class="error"><h2 style="margin-top:0;border:0">Failed while '
            f"{e(f.stage)}</h2><p>{e(f.error)}</p>"
            + (f"<details open><summary>Traceback</summary><pre>{e(f.traceback)}</pre>"
               "</details>" if f.traceback else "")
            + "</section>")


def paper_page(o: Outcome, paper_dir: Path, index_href: str = "../index.html") -> str:
    """The page of one paper; ``paper_dir`` is where it lives (its figures are there)."""
    name, title = name_of(o), title_of(o)
    cite = citation_of(o)
    parts = [f'<div class="crumb"><a href="{e(index_href)}">← all papers</a></div>',
             f"<h1>{e(title)}</h1>",
             f'<div class="mute"><code>aqmsim reproduce {e(name)}</code>'
             + (f" · seed file {e(o.paper.number)}" if not isinstance(o, Failure)
                and getattr(o.paper, "number", "") else "") + "</div>"]
    if cite:
        parts.append(f'<p class="citation">{e(cite)}</p>')
    parts.append(_facts(o))
    if isinstance(o, Failure):
        parts.append(_error_html(o))
        return _doc(f"{title} — aqmsim", "".join(parts))

    sens = getattr(o, "readings", None)
    toc = [("tables", f"Tables ({len(o.tables)})"), ("figures", f"Figures ({len(o.figures)})"),
           ("claims", f"Claims ({len(o.claims)})")]
    if sens is not None:
        toc.append(("readings", f"Readings ({len(sens.choices)} open choices)"))
    toc.append(("assumptions", f"Assumptions ({len(o.assumptions)})"))
    parts.append('<nav class="toc">' + "".join(f'<a href="#{a}">{e(t)}</a>' for a, t in toc)
                 + "</nav>")

    parts.append('<h2 id="tables">Tables</h2>')
    parts.append(_ns2_note(o))
    with_ns2 = F.has_ns2(o)
    if o.tables:
        parts += [table_html(t, i + 1, with_ns2) for i, t in enumerate(o.tables)]
    else:
        parts.append('<p class="mute">This paper has no tables to compare.</p>')

    parts.append('<h2 id="figures">Figures</h2>')
    if not o.figures:
        parts.append('<p class="mute">No figures.</p>')
    for i, fig in enumerate(o.figures):
        src = figure_src(fig, paper_dir)
        cap = f"<figcaption><b>Figure {i + 1}.</b> {e(fig.caption)}</figcaption>"
        if src is None:
            parts.append(f'<figure id="figure-{i + 1}"><div class="missing">Figure file '
                         f"missing: {e(fig.path)}</div>{cap}</figure>")
        else:
            parts.append(f'<figure id="figure-{i + 1}"><img src="{e(src)}" '
                         f'alt="{e(fig.caption)}" loading="eager">{cap}</figure>')

    parts.append('<h2 id="claims">Claims</h2>')
    if o.claims:
        labels = {c.text: c for c in sens.claims} if sens is not None else {}
        if labels:
            parts.append('<p class="mute">✓/✗: under the primary reading. Label: over every '
                         "reading run — <b>robust</b> holds under all, <b>fragile</b> fails "
                         "under the readings named, <b>fails</b> under all.</p>")
        items = []
        for c in o.claims:
            cls, mark = ("holds", "✓") if c.holds else ("fails", "✗")
            lab = labels.get(c.text)
            badge = R.claim_badge(lab.label) if lab else ""
            under = ""
            if lab is not None and lab.label == "fragile":
                under = (f'<span class="evidence"><b>Fails under:</b> '
                         f'{e(", ".join(lab.fails_under))}; <b>holds under:</b> '
                         f'{e(", ".join(lab.holds_under))}</span>')
            items.append(f'<li class="{cls}"><span class="mark">{mark}</span>{badge}{e(c.text)}'
                         f'<span class="evidence">{e(c.evidence)}</span>{under}'
                         f"{R.claim_details(lab)}</li>")
        parts.append(f'<ul class="claims">{"".join(items)}</ul>')
    else:
        parts.append('<p class="mute">No claims checked.</p>')

    if sens is not None:
        parts.append(R.readings_section(o, lambda name: figure_src(Figure(name, ""), paper_dir)))

    failed = list(getattr(o, "failed_runs", []) or [])
    if failed:
        parts.append('<h2 id="failed-runs">Failed runs</h2>')
        parts.append(f'<p class="mute">{len(failed)} run{"s" if len(failed) != 1 else ""} '
                     "failed (after a retry) and {} left out of the tables, figures and "
                     "claims above.</p><ul>".format("is" if len(failed) == 1 else "are")
                     + "".join(f"<li><code>{e(str(f.key))}</code> seed {int(f.seed)}: "
                               f"{e(str(f.error))}</li>" for f in failed[:50])
                     + (f"<li>… and {len(failed) - 50} more</li>" if len(failed) > 50 else "")
                     + "</ul>")

    parts.append('<h2 id="assumptions">Assumptions</h2>')
    if o.assumptions:
        parts.append('<p class="mute">Choices made where the paper is silent (from the '
                     "notes of its scenario files and the analysis).</p><ul>"
                     + "".join(f"<li>{e(a)}</li>" for a in o.assumptions) + "</ul>")
    else:
        parts.append('<p class="mute">None listed.</p>')
    parts.append("<footer>Written by <code>aqmsim reproduce</code>.</footer>")
    return _doc(f"{title} — aqmsim", "".join(parts))
