"""The HTML report: ``index.html`` (every paper at a glance) and one page per paper
(``<name>/index.html``: tables beside the published numbers, figures, claims,
assumptions).

Plain HTML with the CSS in a ``<style>`` element: no JavaScript, no fonts, images or
style sheets from elsewhere, so the report opens offline and from a copied directory.
Figures are referenced by relative paths inside the paper's directory. The markup is in
the Jinja2 templates ``templates/{index,paper,_report,_readings}.html.j2`` (autoescaped);
this module turns reports into what they show.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import quote

from ..papers.base import Cell, Figure, Table
from . import _format as F
from . import readings_html as R
from . import verdicts as V
from .outcome import Failure, Outcome, citation_of, name_of, title_of
from .templating import render, template_module

__all__ = ["index_page", "paper_page", "figure_src", "table_html", "HOW_TO_READ"]

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
    "simulators. An ns-2 value that differs from ours (the test is in the verdict rule "
    "below) is <span style=\"background:#fff1c2;color:#7a4d00;padding:0 .2rem\">marked "
    "≠</span>; “—” in the ns-2 place: ns-2 cannot run that experiment (RTRED, QRTRED, …), "
    "ns-2's runs do not measure the number, or the number is not computed from each run.",
    "Where a paper leaves a parameter open, every candidate reading is run: the tables show "
    "the primary one, picked by a rule written on each page (never by how well it matches); "
    "the page's <i>Readings</i> shows the others, how far each choice moves each number, "
    "and labels each claim <b>robust</b> (holds under every reading), <b>fragile</b> or "
    "<b>fails</b>. Figures are redrawn from our runs (the first seed for time series).",
]



def _rule_html() -> List[str]:
    """The verdict rule as paragraphs of the index's “How to read this”."""
    from markupsafe import escape

    return [f"<b>Verdicts: whose gap is it.</b> {escape(V.RULE[0])}"] + [
        str(escape(p)) for p in V.RULE[1:]]


def _meter(k: int, n: int) -> str:
    return str(template_module("_report.html.j2").meter(k, n))


def _fact(label: str, text: str, meter: Optional[Tuple[int, int]] = None) -> Tuple[str, Any]:
    from markupsafe import Markup, escape

    return label, escape(text) + (Markup(_meter(*meter)) if meter else "")


def _facts(o: Outcome) -> List[Tuple[str, Any]]:
    """The facts line of a paper: seeds, wall time, the two counts, runs, ns-2."""
    from markupsafe import Markup, escape

    items = [_fact("seeds", F.seeds_text(list(o.seeds))),
             _fact("wall time", F.duration(o.wall_seconds))]
    if isinstance(o, Failure):
        items.append(("status", Markup('<span style="color:#b42318">failed while %s</span>')
                      % o.stage))
        return items
    k, n = o.published_count()
    c, m = o.claims_count()
    items.append(_fact("published numbers", F.published_text(o), (k, n) if n else None))
    items.append(_fact("claims", f"{c} of {m} claims hold", (c, m)) if m
                 else _fact("claims", "no claims checked"))
    if getattr(o, "runs", None):
        items.append(_fact("runs", F.runs_text(o.runs)))
    if getattr(o, "ns2", None) is not None:
        from ..ns2.column import agreement_text

        a, b = o.ns2_count()
        text = agreement_text(o)
        if text.startswith("ns-2 column: "):
            text = text[len("ns-2 column: "):]
        items.append(_fact("ns-2", text, (a, b) if b else None))
        ch = V.chance_text(V.chance(o))
        if ch:
            items.append(_fact("ns-2 vs chance", ch))
        cov = V.coverage_text(o)
        if cov:
            items.append(_fact("simulator check", cov))
    vs = V.verdicts(o)
    if vs:
        items.append(_fact("verdicts", V.counts_text(vs) or "—"))
        if any(v.input for v in vs):
            items.append(_fact("verdicts of inputs", V.counts_text(vs, inputs=True)))
    return items


# --------------------------------------------------------------------------- index
def index_page(outcomes: Sequence[Outcome], pages: Dict[str, str], version: str = "",
               generated: Optional[datetime] = None) -> str:
    """``index.html``: per paper its title, citation, seeds, wall time, the two counts
    and a link to its page (``pages[name]``, relative to the index)."""
    generated = generated or datetime.now()
    total_k = total_n = total_c = total_m = ns2_k = ns2_n = failed = 0
    judged: List[Any] = []
    chances: List[Any] = []
    cards = []
    for o in outcomes:
        name = name_of(o)
        if isinstance(o, Failure):
            failed += 1
        else:
            k, n = o.published_count()
            c, m = o.claims_count()
            total_k, total_n, total_c, total_m = total_k + k, total_n + n, total_c + c, total_m + m
            if getattr(o, "ns2", None) is not None:
                a, b = o.ns2_count()
                ns2_k, ns2_n = ns2_k + a, ns2_n + b
            judged += V.verdicts(o)
            ch = V.chance(o)
            if ch is not None:
                chances.append(ch)
        cards.append({"name": name, "href": pages[name], "title": title_of(o),
                      "citation": citation_of(o), "facts": _facts(o),
                      "failure": o if isinstance(o, Failure) else None,
                      "readings": None if isinstance(o, Failure)
                      else R.index_view(getattr(o, "readings", None))})
    overall = []
    if total_n:
        overall.append({"text": f"{total_k} of {total_n} published numbers within 10 %", "failed": False})
    if total_m:
        overall.append({"text": f"{total_c} of {total_m} claims hold", "failed": False})
    if ns2_n:
        overall.append({"text": f"ns-2 agrees with aqmsim on {ns2_k} of {ns2_n} numbers "
                                "(the test: see the verdict rule)", "failed": False})
    if chances:
        total = V.Chance(chances[0].alpha, *(sum(getattr(c, f) for c in chances) for f in (
            "random", "flagged", "deterministic", "det_flagged")))
        overall.append({"text": "over all papers, " + V.chance_text(total), "failed": False})
    if V.counts_text(judged):
        overall.append({"text": "verdicts (rule below): " + V.counts_text(judged),
                        "failed": False})
    if V.counts_text(judged, inputs=True):
        overall.append({"text": "published numbers used as inputs, judged row by row: "
                                + V.counts_text(judged, inputs=True), "failed": False})
    if failed:
        overall.append({"text": f"{failed} paper{'s' if failed != 1 else ''} failed",
                        "failed": True})
    return render("index.html.j2", title="aqmsim — reproduced papers", outcomes=outcomes,
                  generated=generated.strftime("%Y-%m-%d %H:%M"), version=version,
                  overall=overall, how=HOW_TO_READ + _rule_html(),
                  cards=cards)


# --------------------------------------------------------------------------- paper page
_NS2_TIP = {"agree": "ns-2 and aqmsim agree (exactly where the number does not vary over "
                     "seeds, else Welch's t-test at 5 %)",
            "differs": "ns-2 and aqmsim differ (not the same deterministic number, or "
                       "Welch's t-test p < 0.05)"}



def _cell(x: Any, ns2: bool = False) -> Dict[str, Any]:
    """What one table entry shows (see the ``td`` macro of ``_report.html.j2``)."""
    if isinstance(x, Cell):
        st = F.status(x)
        tip = {"ok": "within 10 % of the published value",
               "off": "more than 10 % away from the published value",
               "none": "no published value"}[st]
        if getattr(x, "input", False):
            tip = ("a published number the reproduction used as an input (to derive a "
                   "quantity of the scenario): shown, not counted as a check")
        out = {"kind": "cell", "ns2": ns2, "status": st, "tip": tip, "ours": F.ours(x),
               "published": F.published(x), "diff": F.diff(x)}
        if ns2:
            n2 = F.ns2_status(x)
            out.update(ns2_status=n2, ns2_text=F.ns2(x), ns2_tip=_NS2_TIP.get(n2) or (
                getattr(x, "ns2_note", "") or ("no ns-2 value: not computed from each run"
                                               if x.ns2 is None else
                                               "ns-2: no confidence interval")))
        return out
    if x is None:
        return {"kind": "empty"}
    if isinstance(x, str):
        return {"kind": "text", "text": x}
    return {"kind": "num", "text": F.num(x)}


def _td(x: Any, ns2: bool = False) -> str:
    """One table entry as a ``<td>``."""
    return str(template_module("_report.html.j2").td(_cell(x, ns2)))


def _judged(c: Dict[str, Any], v: Any) -> Dict[str, Any]:
    """A table entry's view with its verdict (in the tooltip) and its documented
    modelling choice (a † with the note), if any."""
    if v is None:
        return c
    c = dict(c, verdict=v.verdict, note=v.note)
    c["tip"] = f"{c['tip']} — verdict: {v.verdict} ({v.why})"
    return c


def _table_view(t: Table, number: int, ns2: bool = False,
                judged: Optional[Dict[Tuple[str, str, str], Any]] = None,
                notes: Sequence[Tuple[str, str, str, str]] = ()) -> Dict[str, Any]:
    """A table's view; ``notes`` (the paper's modelling.csv) also mark the ns-2 ≠ aqmsim
    numbers without a published value (no verdict) with their † note."""
    width = max([len(t.columns)] + [len(r) for r in t.rows])
    judged = judged or {}
    rows = []
    for i, r in enumerate(t.rows):
        label = F.row_label(t, r) or f"row {i + 1}"
        row = []
        for j, x in enumerate(r):
            if not isinstance(x, Cell):
                row.append(_cell(x, ns2))
                continue
            key = (t.title, label, str(t.columns[j]) if j < len(t.columns) else f"column {j + 1}")
            view = _judged(_cell(x, ns2), judged.get(key))
            if key not in judged and x.ns2_agrees is False and notes:
                note = V.note_for(notes, *key)
                view = dict(view, note=note) if note else view
            row.append(view)
        rows.append(row + [{"kind": "empty"}] * (width - len(r)))
    has_cells = any(isinstance(x, Cell) for r in t.rows for x in r)
    notes = [t.note] if t.note else []
    if any(isinstance(x, Cell) and x.input for r in t.rows for x in r):
        notes.append("“input”: a published number this reproduction used to derive a "
                     "quantity of its scenarios (see Readings: the derived readings and their "
                     "arithmetic), so it is shown but not counted as a check.")
    if has_cells and ns2:
        why: Dict[str, int] = {}
        for r in t.rows:
            for x in r:
                if isinstance(x, Cell) and x.ns2 is None:
                    reason = (getattr(x, "ns2_note", "") or
                              "no ns-2 value: not computed from each run")
                    why[reason] = why.get(reason, 0) + 1
        if why:
            notes.append("ns-2 “—”: " + "; ".join(
                f"{r} ({n} number{'s' if n != 1 else ''})" for r, n in why.items()) + ".")
    return {"number": number, "title": t.title,
            "head": list(t.columns) + [""] * (width - len(t.columns)), "rows": rows,
            "width": max(width, 1), "notes": notes,
            "legend": ("ns2" if ns2 else "ours") if has_cells else ""}


def table_html(t: Table, number: int, ns2: bool = False) -> str:
    """One table; with ``ns2`` its cells read published | ns-2 | aqmsim | diff."""
    return str(template_module("_report.html.j2").table(_table_view(t, number, ns2)))


def _ns2_view(o: Any) -> Optional[Dict[str, Any]]:
    """Under the Tables heading: what the ns-2 column holds, and what ns-2 cannot run."""
    col = getattr(o, "ns2", None)
    if col is None:
        return None
    from ..ns2.column import agreement_text

    view: Dict[str, Any] = {"agreement": agreement_text(o), "ran": None, "unmeasured": "",
                            "failed": [], "failed_more": 0}
    if col.status == "ran" and col.experiments:
        view["ran"] = {"n": len(col.experiments), "seeds": F.seeds_text(col.seeds),
                       "runs": F.runs_text(col.runs) if col.runs else ""}
        prefix = "ns-2 does not measure "
        view["unmeasured"] = ", ".join(sorted({c.ns2_note[len(prefix):] for c in o.cells()
                                               if c.ns2_note.startswith(prefix)}))
    view["cannot"] = [(", ".join(keys[:12]), f" … ({len(keys)} in all)" if len(keys) > 12
                       else "", why) for why, keys in col.cannot_groups()]
    if col.failed:
        view["failed"] = [(str(f.key), int(f.seed), str(f.error)[:300]) for f in col.failed[:5]]
        view["failed_more"] = max(len(col.failed) - 5, 0)
    return view


def _verdicts_view(o: Any, vs: List[Any], with_ns2: bool) -> Optional[Dict[str, Any]]:
    """The Verdicts section: the rule, the counts, the ns-2 flags against chance, what the
    simulator check covers, and every compared number with its verdict and, beside a
    number ns-2 and aqmsim differ on, its documented modelling choice."""
    if not vs:
        return None
    rows = [{"table": v.table, "row": v.row, "column": v.column,
             "published": F.published(v.cell), "ns2": F.ns2(v.cell) if with_ns2 else "",
             "ours": F.ours(v.cell), "verdict": v.verdict, "why": v.why,
             "input": v.input, "note": v.note,
             "cls": "v-" + v.verdict.replace("the ", "").replace("'s", "")}
            for v in vs]
    return {"rule": V.RULE, "counts": V.counts_text(vs),
            "inputs": V.counts_text(vs, inputs=True), "with_ns2": with_ns2,
            "chance": V.chance_text(V.chance(o)), "coverage": V.coverage_text(o),
            "modelling": V.MODELLING_FILE, "rows": rows}


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


def paper_page(o: Outcome, paper_dir: Path, index_href: str = "../index.html") -> str:
    """The page of one paper; ``paper_dir`` is where it lives (its figures are there)."""
    title = title_of(o)
    ctx: Dict[str, Any] = {
        "title": f"{title} — aqmsim", "paper_title": title, "name": name_of(o),
        "index_href": index_href, "citation": citation_of(o), "fact_items": _facts(o),
        "number": "" if isinstance(o, Failure) else getattr(o.paper, "number", ""),
        "failure": o if isinstance(o, Failure) else None}
    if isinstance(o, Failure):
        return render("paper.html.j2", **ctx)
    sens = getattr(o, "readings", None)
    toc = [("tables", f"Tables ({len(o.tables)})"), ("figures", f"Figures ({len(o.figures)})"),
           ("claims", f"Claims ({len(o.claims)})")]
    if sens is not None:
        toc.append(("readings", f"Readings ({len(sens.choices)} open choices)"))
    toc.append(("assumptions", f"Assumptions ({len(o.assumptions)})"))
    with_ns2 = F.has_ns2(o)
    vs = V.verdicts(o)
    judged = {(v.table, v.row, v.column): v for v in vs}
    if vs:
        toc.insert(1, ("verdicts", f"Verdicts ({len(vs)})"))
    labels = {c.text: c for c in sens.claims} if sens is not None else {}
    claims = [{"holds": c.holds, "text": c.text, "evidence": c.evidence,
               "label": labels.get(c.text),
               "tip": R.LABEL_TEXT.get(getattr(labels.get(c.text), "label", ""), "")}
              for c in o.claims]
    failed = list(getattr(o, "failed_runs", []) or [])
    ctx.update(
        toc=toc, ns2=_ns2_view(o),
        tables=[_table_view(t, i + 1, with_ns2, judged,
                            V.modelling_notes(getattr(o, "paper", None)) if with_ns2 else ())
                for i, t in enumerate(o.tables)],
        verdicts=_verdicts_view(o, vs, with_ns2),
        figures=[{"src": figure_src(f, paper_dir), "path": f.path, "caption": f.caption}
                 for f in o.figures],
        claims=claims, labelled=bool(labels),
        readings=R.readings_view(o, lambda name: figure_src(Figure(name, ""), paper_dir)),
        failed_runs=[(str(f.key), int(f.seed), str(f.error)) for f in failed[:50]],
        failed_count=len(failed), assumptions=list(o.assumptions))
    return render("paper.html.j2", **ctx)
