"""The page of ``aqmsim compare``: ``index.html``, self-contained (the PNG figures
embedded as data URIs, the CSS inline, no scripts), with a table of the runs — label,
source, key numbers and provenance — and a warning row when the runs were made by
different builds of the engine."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .figures import FigureFile, _colours
from .labels import difference_text, differences
from .sources import SavedRun

__all__ = ["write_page", "engine_warning", "run_row"]


def _num(v: Any, scale: float, fmt: str) -> str:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v:
        return format(float(v) * scale, fmt)
    return "—"


def _engine_text(prov: Dict[str, Any]) -> str:
    engine = prov.get("engine") or {}
    h = prov.get("engine_hash") or engine.get("source_hash")
    commit = engine.get("git_commit")
    if not h:
        return "unknown"
    return f"{h}" + (f" ({commit})" if commit else "")


def _host_text(prov: Dict[str, Any]) -> str:
    host = prov.get("host") or {}
    if not isinstance(host, dict) or not host:
        return "unknown"
    bits = [host.get("hostname"), host.get("platform"),
            f"Python {host['python']}" if host.get("python") else None]
    return ", ".join(str(b) for b in bits if b)


def run_row(run: SavedRun, label: str, colour: str) -> Dict[str, str]:
    """A row of the runs table."""
    s, p = run.summary, run.provenance
    seed = s.get("seed", (run.scenario or {}).get("seed", "—"))
    return {"label": label, "colour": colour, "source": run.source,
            "seed": str(int(seed)) if isinstance(seed, float) and seed.is_integer() else str(seed),
            "goodput": _num(s.get("goodput_bps"), 1e-6, ".3f"),
            "delay": _num(s.get("mean_queueing_delay_s"), 1e3, ".2f"),
            "utilisation": _num(s.get("utilisation"), 100, ".1f"),
            "version": str(p.get("version") or "unknown"), "engine": _engine_text(p),
            "command": str(p.get("command") or "unknown"), "host": _host_text(p),
            "started": str(p.get("started_at") or "—"),
            "finished": str(p.get("finished_at") or "unknown")}


def engine_warning(runs: Sequence[SavedRun], labels: Sequence[str]) -> Optional[str]:
    """The warning when the runs were made by different engine builds (or some by an
    unknown one), else None."""
    hashes = [r.provenance.get("engine_hash") or (r.provenance.get("engine") or {}).get(
        "source_hash") for r in runs]
    known = {h for h in hashes if h}
    if len(known) <= 1 and (not known or all(hashes)):
        return None
    by: Dict[str, List[str]] = {}
    for h, lab in zip(hashes, labels):
        by.setdefault(h or "unknown", []).append(lab)
    parts = "; ".join(f"{h}: {', '.join(labs)}" for h, labs in by.items())
    return (f"these runs were made by {len(by)} different engine builds ({parts}): a "
            "difference between them may be the engine's, not the scenario's.")


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def write_page(out: Path, runs: Sequence[SavedRun], labels: Sequence[str],
               figures: Sequence[FigureFile], command: Optional[str] = None) -> Path:
    """``out/index.html``; returns its path."""
    from ..provenance import aqmsim_version, command_line, utc_text
    from ..report.templating import render

    diffs = differences(runs) if len(runs) > 1 else []
    keys = list(dict.fromkeys(k for d in diffs for k in d))
    colours = _colours(len(runs))
    figs = [{"name": f.name, "title": f.title, "caption": f.caption, "notes": f.notes,
             "src": _data_uri(f.png) if f.png is not None else "",
             "png": f.png.name if f.png else "", "svg": f.svg.name if f.svg else ""}
            for f in figures]
    full = difference_text(runs)
    rows = [run_row(r, lab, c) for r, lab, c in zip(runs, labels, colours)]
    for row, text in zip(rows, full):
        row["differs"] = text if text != row["label"] else ""
    title = "Comparison of " + (f"{len(runs)} runs" if len(runs) != 1 else labels[0])
    html = render("compare.html.j2", title=title, runs=rows,
        show_differs=any(row["differs"] for row in rows),
        engine_warning=engine_warning(runs, labels), differences=keys, figures=figs,
        generated=utc_text(), version=aqmsim_version(),
        command=command if command is not None else command_line())
    page = out / "index.html"
    page.write_text(html, encoding="utf-8")
    return page
