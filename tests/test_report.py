"""The reproduction report (aqmsim.report.write): a fake paper in this file is run, analysed
and written; the pages are checked as files and then rendered in headless Chromium.

How the Chromium check works
----------------------------
The report itself has no scripts (it must open offline, anywhere), so the test writes a
*wrapper* page into tmp_path (never into the report) with two iframes:

* ``page``: the report's paper page, by its file:// URL, exactly as written;
* ``control``: a page with one image that exists and one that does not.

A script in the wrapper waits for the wrapper's ``load`` event — which fires only after
both frames, and every image in them, have finished loading or failed — then reads each
frame's document and records, as JSON in a ``<pre>``, for every ``<img>`` whether
``img.complete && img.naturalWidth > 0`` (decoded, not broken) and for every ``<table>``
how many body rows it has. Chromium runs it with ``--dump-dom``, which prints the DOM after
the page has loaded (``--virtual-time-budget`` lets pending work finish first), and
``--allow-file-access-from-files``, which lets a file:// page read the documents of
file:// frames. The control frame proves the check can fail: it must report its missing
image as broken and its present image as loaded, otherwise the check is not measuring
anything (e.g. frames not readable) and the test fails rather than passing vacuously.

Chromium also takes a ``--screenshot`` of the index and of the paper page; the PNGs must
decode and not be blank. A missing Chromium is a failure that says to run
``make chromium`` — never a skip.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Dict, List
from urllib.parse import unquote

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from aqmsim import Scenario  # noqa: E402
from aqmsim.papers.base import (Cell, Claim, Experiment, Figure, Paper, Report,  # noqa: E402
                                Runs, Table)
from aqmsim.papers.runner import run_paper  # noqa: E402
from aqmsim.report import write  # noqa: E402

from conftest import EXAMPLES, shortened  # noqa: E402

KEYS = ("red-0.1", "red-0.02")


class FakePaper(Paper):
    """Two tiny experiments (the RED dumbbell of examples/, 3 simulated seconds, max_p 0.1
    and 0.02), a table with Cells with and without published values, two figures (one in
    a subdirectory, with a space in its name) and two claims."""

    name = "fake"
    number = "999"
    title = "A fake paper: RED's max_p and the queue"
    citation = "A. Tester and B. Checker, “Fake RED”, Proc. of Tests, 2024."
    default_seeds = 2

    def __init__(self, name: str = "fake", fail_analysis: bool = False,
                 duration: float = 3.0) -> None:
        self.name = name
        self.fail_analysis = fail_analysis
        self.duration = duration

    def experiments(self) -> List[Experiment]:
        base = Scenario.from_toml(EXAMPLES / "dumbbell-red.toml").to_dict()
        d = shortened(base, self.duration)
        return [Experiment(k, Scenario.from_dict(d).with_overrides(
                    **{"dumbbell.bottleneck.queue.max_p": p}), {"max_p": p})
                for k, p in zip(KEYS, (0.1, 0.02))]

    def analyse(self, runs: Runs, out: Path) -> Report:
        if self.fail_analysis:
            raise RuntimeError("boom: the analysis of this paper is broken")
        import matplotlib.pyplot as plt

        rows: List[List[Any]] = []
        for k in KEYS:
            q = runs.cell(k, "time_avg_queue_pkts")
            u = runs.cell(k, "utilisation", scale=100)
            d = runs.cell(k, "bottleneck_drops")
            # "published" values chosen around our own means, so that the highlighting is
            # known: queue within 10 % (ok), utilisation half ours (off, +100 %), drops unpublished
            rows.append([k, runs.experiments[k].labels["max_p"],
                         Cell(q.mean, q.half, round(q.mean * 1.04, 3)),
                         Cell(u.mean, u.half, round(u.mean / 2, 3)),
                         Cell(d.mean, d.half)])
        table1 = Table("Table 1. Queue and utilisation",
                       ["experiment", "max_p", "Ave Q (pkts)", "utilisation (%)", "drops"],
                       rows, note="Mean over seeds; published values are made up.")
        table2 = Table("Table 2. Seeds", ["experiment", "seeds"],
                       [[k, len(runs.seeds(k))] for k in KEYS])

        fig, ax = plt.subplots(figsize=(6, 3))
        for k in KEYS:
            qd = runs.first(k).tables["queue"]
            ax.plot(qd["t"], qd["len_pkts"], label=k)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue (pkts)")
        ax.legend()
        fig.savefig(out / "queue.png", dpi=80, bbox_inches="tight")
        plt.close(fig)
        (out / "figs").mkdir(exist_ok=True)
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.bar(list(KEYS), [float(np.mean(runs.values(k, "utilisation"))) for k in KEYS])
        fig.savefig(out / "figs" / "link utilisation.png", dpi=80, bbox_inches="tight")
        plt.close(fig)

        q_hi, q_lo = (float(np.mean(runs.values(k, "time_avg_queue_pkts"))) for k in KEYS)
        acc = all(r.summary["bottleneck_arrivals"] == r.summary["bottleneck_departures"]
                  + r.summary["bottleneck_drops"] + r.summary["bottleneck_queued_end"]
                  for r in runs.records.values())
        claims = [
            Claim("Every packet at the bottleneck is departed, dropped or still queued",
                  acc, f"checked on {len(runs.records)} runs"),
            Claim("A smaller max_p gives a shorter queue", q_lo < q_hi,
                  f"avg queue {q_hi:.2f} pkts at max_p 0.1, {q_lo:.2f} at max_p 0.02"),
        ]
        return Report(self, [table1, table2],
                      [Figure("queue.png", "Instantaneous queue, first seed, both max_p."),
                       Figure("figs/link utilisation.png", "Mean bottleneck utilisation.")],
                      claims, self.assumptions() + ["fake: published values are invented"],
                      seeds=sorted({s for (_, s) in runs.records}))


# --------------------------------------------------------------------------- HTML parsing
class Page(HTMLParser):
    """Links, images, tables (with their body rows), scripts and external references."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.links: List[str] = []
        self.images: List[Dict[str, str]] = []
        self.tables: List[Dict[str, Any]] = []
        self.scripts = 0
        self.external: List[str] = []
        self.cell_classes: List[str] = []
        self.captions: List[str] = []
        self._in_tbody = False
        self._in_caption = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: List[Any]) -> None:
        a = dict(attrs)
        for attr in ("src", "href"):
            v = a.get(attr) or ""
            if re.match(r"^(https?:)?//", v):
                self.external.append(v)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "img":
            self.images.append(a)
        elif tag == "table":
            self.tables.append({"rows": 0, "header": 0, "class": a.get("class") or ""})
        elif tag == "tbody":
            self._in_tbody = True
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows" if self._in_tbody else "header"] += 1
        elif tag == "td" and "cell" in (a.get("class") or "").split():
            self.cell_classes.append(a["class"])
        elif tag in ("script", "link", "iframe", "object", "embed"):
            self.scripts += tag == "script"
            if tag != "script":
                self.external.append(f"<{tag}>")
        elif tag == "figcaption":
            self._in_caption = True
            self.captions.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_tbody = False
        elif tag == "figcaption":
            self._in_caption = False

    def handle_data(self, data: str) -> None:
        if self._in_caption:
            self.captions[-1] += data


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def written(core, tmp_path_factory) -> Dict[str, Any]:
    out = tmp_path_factory.mktemp("report")
    paper = FakePaper()
    runs = run_paper(paper, [1, 2], workers=1)
    (out / paper.name).mkdir()
    report = paper.analyse(runs, out / paper.name)
    report.wall_seconds = 1.3
    paths = write([report], out)
    return {"out": out, "report": report, "paths": paths}


def test_index_links_to_the_paper_page(written):
    out, report, paths = written["out"], written["report"], written["paths"]
    assert paths["index"] == out / "index.html"
    assert paths["summary"] == out / "summary.md"
    text = paths["index"].read_text(encoding="utf-8")
    page = Page(text)
    assert "fake/index.html" in page.links
    assert (out / "fake" / "index.html").is_file()
    assert paths["pages"]["fake"] == out / "fake" / "index.html"
    k, n = report.published_count()
    c, m = report.claims_count()
    assert (k, n) == (2, 4)  # the queue cells are within 10 %, the utilisation cells not
    assert f"{k} of {n} published numbers within 10 %" in text
    assert f"{c} of {m} claims hold" in text
    assert "A fake paper: RED&#39;s max_p and the queue" in text  # (Jinja2's escape of ')
    assert "Proc. of Tests" in text
    assert "1–2 (2 seeds)" in text
    assert "1.3 s" in text  # wall time
    assert "How to read this" in text
    assert page.scripts == 0 and page.external == []


def test_paper_page_tables_figures_claims(written):
    out, report = written["out"], written["report"]
    text = (out / "fake" / "index.html").read_text(encoding="utf-8")
    page = Page(text)
    assert page.scripts == 0 and page.external == [], "must open offline, without scripts"
    assert "../index.html" in page.links
    # every table, in its layout: one header row, every body row
    verdicts = [t for t in page.tables if "verdicts" in t["class"].split()]
    tables = [t for t in page.tables if t not in verdicts]
    assert len(tables) == len(report.tables) == 2
    # and the verdicts: one row per number with a published value
    assert len(verdicts) == 1 and verdicts[0]["rows"] == 4
    assert "Whose gap is it." in text and "2 matched · 2 noise" in text  # (2 seeds: wide)
    for parsed, table in zip(tables, report.tables):
        assert parsed["header"] == 1
        assert parsed["rows"] == len(table.rows) > 0
        assert table.title in text
    # cells: within 10 % (ok), more than 10 % off (highlighted), no published value (—)
    assert sorted(page.cell_classes) == sorted(["cell ok"] * 2 + ["cell off"] * 2
                                               + ["cell none"] * 2)
    cell = report.tables[0].rows[0][3]
    assert cell.within10 is False
    assert re.search(r'<td class="cell off"[^>]*><span class="ours">[^<]+ ± [^<]+</span>'
                     r'<span class="sep">\|</span><span class="pub">[^<]+</span>'
                     r'<span class="sep">\|</span><span class="diff">\+100\.0 %</span>', text)
    assert re.search(r'<td class="cell none"[^>]*>.*?<span class="pub">—</span>', text)
    # every figure: an <img> whose file exists, with its caption
    assert len(page.images) == len(report.figures) == 2
    for img, fig in zip(page.images, report.figures):
        assert (out / "fake" / unquote(img["src"])).is_file(), img["src"]
        assert not Path(img["src"]).is_absolute()
    assert any("Instantaneous queue" in c for c in page.captions)
    # claims with evidence, assumptions
    assert text.count("✓") + text.count("✗") >= len(report.claims)
    for claim in report.claims:
        assert claim.text in text and claim.evidence in text
    assert "fake: published values are invented" in text
    assert "dumbbell" in text.lower()  # an assumption from the scenario's notes


def test_summary_markdown(written):
    report, paths = written["report"], written["paths"]
    md = paths["summary"].read_text(encoding="utf-8")
    k, n = report.published_count()
    c, m = report.claims_count()
    assert f"**{k} of {n}** published numbers within 10 %" in md
    assert f"**{c} of {m}** claims hold" in md
    assert "| table | row | column | ours (± 95 % CI) | published | diff |" in md
    rows = [line for line in md.splitlines() if line.startswith("| Table 1.")]
    assert len(rows) == 4  # the four cells with a published value
    assert any("**+100.0 %**" in r for r in rows)  # more than 10 % off: bold
    assert "2 further numbers without a published value" in md
    for claim in report.claims:
        assert claim.text in md


def test_failure_and_missing_figure_are_shown(written, tmp_path):
    from aqmsim.report import Failure

    report = written["report"]
    broken = Report(report.paper, report.tables, [Figure("nope.png", "never drawn")], [], [],
                    [1])
    try:
        raise ValueError("analysis exploded")
    except ValueError as exc:
        failure = Failure.from_exception("other", "analysis", exc)
    paths = write([broken, failure], tmp_path)
    assert paths["missing_figures"] == [("fake", "nope.png")]
    page = (tmp_path / "fake" / "index.html").read_text(encoding="utf-8")
    assert "Figure file missing: nope.png" in page and "<img" not in page
    other = (tmp_path / "other" / "index.html").read_text(encoding="utf-8")
    assert "ValueError: analysis exploded" in other and "Traceback" in other
    index = paths["index"].read_text(encoding="utf-8")
    assert "other/index.html" in index and "Failed while analysis" in index


# --------------------------------------------------------------------------- Chromium
def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("Chromium is not installed (no `chromium` on PATH): run `make chromium` "
                    "(installs Debian's chromium package); the report tests render the HTML "
                    "report in headless Chromium")
    return exe


def run_chromium(args: List[str], profile: Path, timeout: float = 120) -> str:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}"] + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}"
    return proc.stdout


CHECK_JS = """
window.addEventListener('load', function () {
  function inspect(id) {
    var doc = null;
    try { doc = document.getElementById(id).contentDocument; }
    catch (e) { return {error: String(e)}; }
    if (!doc || !doc.body) { return {error: 'frame document not readable'}; }
    var images = Array.prototype.map.call(doc.images, function (im) {
      return {src: im.getAttribute('src'), loaded: im.complete && im.naturalWidth > 0,
              width: im.naturalWidth, height: im.naturalHeight};
    });
    var tables = Array.prototype.map.call(doc.querySelectorAll('table'), function (t) {
      var n = 0;
      for (var i = 0; i < t.tBodies.length; i++) { n += t.tBodies[i].rows.length; }
      return {rows: n, height: t.getBoundingClientRect().height, cls: t.className};
    });
    return {title: doc.title, images: images, tables: tables};
  }
  document.getElementById('result').textContent =
    JSON.stringify({page: inspect('page'), control: inspect('control')});
});
"""


def render_check(page: Path, good_image: Path, work: Path) -> Dict[str, Any]:
    """Load ``page`` in an iframe of a wrapper page (with a control frame) in headless
    Chromium; return what the wrapper's script found."""
    work.mkdir(parents=True, exist_ok=True)
    control = work / "control.html"
    control.write_text(
        "<!DOCTYPE html><html><body>"
        f'<img src="{good_image.resolve().as_uri()}"><img src="no-such-image.png">'
        "</body></html>", encoding="utf-8")
    wrapper = work / "wrapper.html"
    wrapper.write_text(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>"
        f'<iframe id="page" src="{page.resolve().as_uri()}" width="1280" height="900">'
        "</iframe>"
        f'<iframe id="control" src="{control.resolve().as_uri()}"></iframe>'
        f'<pre id="result">pending</pre><script>{CHECK_JS}</script></body></html>',
        encoding="utf-8")
    dom = run_chromium(["--allow-file-access-from-files", "--virtual-time-budget=10000",
                        "--dump-dom", wrapper.resolve().as_uri()], work / "profile")
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    assert m, f"no result in Chromium's DOM dump:\n{dom[:2000]}"
    raw = m.group(1)
    assert raw != "pending", "the check script did not run (the wrapper never loaded)"
    import html as _html

    return json.loads(_html.unescape(raw))


def assert_screenshot(png: Path) -> None:
    import matplotlib.image as mpimg

    assert png.is_file() and png.stat().st_size > 5000, png
    img = mpimg.imread(png)
    assert img.shape[0] >= 600 and img.shape[1] >= 1000, img.shape
    rgb = img[..., :3].reshape(-1, 3)
    non_white = float(np.mean(rgb.min(axis=1) < 0.9))
    assert non_white > 0.01, f"{png} looks blank ({non_white:.2%} non-white pixels)"
    assert len(np.unique((rgb[::7] * 255).astype(np.uint8), axis=0)) > 20, f"{png}: too few colours"


def test_report_renders_in_headless_chromium(written, tmp_path):
    out, report = written["out"], written["report"]
    page = out / "fake" / "index.html"
    found = render_check(page, out / "fake" / "queue.png", tmp_path / "check")

    control = found["control"]
    assert "error" not in control, control
    assert [im["loaded"] for im in control["images"]] == [True, False], (
        "the control frame must show one loaded and one broken image; otherwise the check "
        f"cannot tell them apart: {control}")

    result = found["page"]
    assert "error" not in result, result
    assert result["title"].startswith(report.paper.title)
    assert len(result["images"]) == len(report.figures)
    broken = [im for im in result["images"] if not im["loaded"]]
    assert not broken, f"images that did not load in Chromium: {broken}"
    verdicts = [t for t in result["tables"] if "verdicts" in t["cls"].split()]
    tables = [t for t in result["tables"] if t not in verdicts]
    assert len(verdicts) == 1 and verdicts[0]["rows"] == 4 and verdicts[0]["height"] > 0
    assert len(tables) == len(report.tables)
    for t, want in zip(tables, report.tables):
        assert t["rows"] == len(want.rows) >= 1 and t["height"] > 0, t

    for name, target in (("index", out / "index.html"), ("paper", page)):
        png = tmp_path / f"{name}.png"
        run_chromium([f"--screenshot={png}", "--window-size=1280,1400",
                      target.resolve().as_uri()], tmp_path / f"profile-{name}")
        assert_screenshot(png)
