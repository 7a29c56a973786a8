"""The sweep report (aqmsim.sweep_report.write_report, `aqmsim report`): figures as a paper
prints them — labels with units from the metric registry, a categorical discipline axis
without lines, intervals inside each metric's range, the delay–goodput plot with confidence
ellipses, 160 dpi PNG + SVG — and the page rendered in headless Chromium (every image
loads, has alt text, and no raw metric key shows as a label)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Dict

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from aqmsim import metrics  # noqa: E402
from aqmsim.cli import app  # noqa: E402
from aqmsim.report.sweep_figures import (Axis, draw_metric, draw_pair,  # noqa: E402
                                         mean_ellipse, new_figure)
from aqmsim.sweep import Sweep, run_sweep  # noqa: E402
from aqmsim.sweep_report import write_report  # noqa: E402

from conftest import EXAMPLES  # noqa: E402
from test_report import run_chromium  # noqa: E402

KIND = "dumbbell.bottleneck.queue.kind"
FLOWS = "dumbbell.groups.0.count"
SWEEP = f"""
name = "disc"
description = "three disciplines x two loads x three seeds"
base = "{(EXAMPLES / 'dumbbell-droptail.toml').as_posix()}"
seeds = 3
store = "store"

[set]
duration = 2
"dumbbell.groups.0.stop" = 2
"monitor.delays" = true

[[vary]]
"{KIND}" = ["droptail", "red", "pie"]

[[vary]]
"{FLOWS}" = [3, 12]

[report]
pairs = [["mean_queueing_delay_s", "goodput_bps"], ["qdelay_p99_s", "loss_ratio"]]
"""


@pytest.fixture(scope="module")
def report(core, tmp_path_factory) -> Dict[str, Any]:
    d = tmp_path_factory.mktemp("sweep")
    f = d / "disc.toml"
    f.write_text(SWEEP)
    sweep = Sweep.from_toml(f)
    run_sweep(sweep, workers=1)
    files = write_report(sweep)
    return {"dir": d, "sweep": sweep, "files": files,
            "html": files.index.read_text(encoding="utf-8")}


def test_every_figure_is_a_160_dpi_png_and_an_svg(report) -> None:
    from PIL import Image

    files = report["files"]
    assert files.runs_in_store == files.runs_expected == 18
    names = sorted(p.name for p in files.figures)
    assert "pair-mean_queueing_delay_s-goodput_bps.png" in names
    assert "pair-qdelay_p99_s-loss_ratio.png" in names
    assert {"discipline-droptail.png", "discipline-red.png", "discipline-pie.png"} <= set(names)
    for png in files.figures:
        with Image.open(png) as im:
            dpi = im.info["dpi"]
        assert min(dpi) >= 150 - 0.5, (png.name, dpi)
        svg = png.with_suffix(".svg").read_text(encoding="utf-8")
        # text stays text (svg.fonttype none), and it is the registry's, not a raw key
        texts = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        assert texts, png.name
        raw = [k for k in metrics.SUMMARY if "_" in k and re.search(rf"\b{k}\b", texts)]
        assert not raw, (png.name, raw)


def test_table_is_fixed_point_in_display_units(report) -> None:
    html = report["html"]
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", html).group(1)
    for key in ("mean_queueing_delay_s", "goodput_bps", "jain_fairness", "utilisation"):
        assert f"<th>{metrics.metric(key).axis_label.replace(chr(39), '&#39;')}</th>" in head
    assert "<th>discipline</th>" in head and "<th>flows</th>" in head
    body = html[html.index("<tbody>"):html.index("</tbody>")]
    cells = re.findall(r'<td class="num">([^<]*)</td>', body)
    assert len(cells) == 6 * (2 + 1 + 6)
    assert not [c for c in cells if re.search(r"\de[+-]?\d", c)], "scientific notation"
    assert all(re.fullmatch(r"[\d\u2009.]+ ± [\d\u2009.]+", c) for c in cells
               if "±" in c)


def test_discipline_axis_is_categorical_and_intervals_stay_in_range() -> None:
    rng = np.random.default_rng(7)
    rows = [{KIND: k, FLOWS: n, "seed": s, "jain_fairness": min(1.0, 0.97 + 0.03 * rng.random()),
             "utilisation": 0.99 + 0.01 * rng.random()}
            for k in ("droptail", "red", "pie") for n in (3, 12) for s in (1, 2, 3)]
    df = pd.DataFrame(rows)
    labels = {KIND: "discipline", FLOWS: "flows"}
    for key, top in (("jain_fairness", 1.0), ("utilisation", 100.0)):
        fig = new_figure(6, 3)
        ax = fig.subplots()
        draw_metric(ax, df, key, Axis((KIND,), "discipline"), [KIND, FLOWS], labels)
        assert ax.get_ylabel() == metrics.metric(key).axis_label
        assert [t.get_text() for t in ax.get_xticklabels()] == ["droptail", "red", "pie"]
        # points with error bars, no line joining the categories
        assert ax.lines and all(line.get_linestyle() == "None" for line in ax.lines)
        tops = [seg[:, 1].max() for c in ax.collections for seg in c.get_segments()]
        assert tops and max(tops) <= top + 1e-9, (key, max(tops))
        assert max(tops) == pytest.approx(top)  # the interval did reach past the range


@pytest.mark.parametrize("names", [
    ["RED (max_p=0.1)", "RED (max_p=0.2)", "CoDel", "PIE"],
    ["RED (max_p=0.05)", "RED (max_p=0.1)", "CoDel", "PIE", "FQ-CoDel"],
    ["RED (max_p=0.05, w_q=0.002)", "RED (max_p=0.1, w_q=0.004)", "CoDel"],
])
def test_named_table_ticks_do_not_overlap(names) -> None:
    """Queue tables named by discipline and parameters make long category ticks: in a
    panel as the report draws it (4.6 in wide) no two ticks overlap — the parameters go
    under the discipline, or the names are slanted."""
    Q = "dumbbell.bottleneck.queue"
    df = pd.DataFrame([{Q: n, "seed": s, "utilisation": 0.9 + 0.01 * s}
                       for n in names for s in (1, 2, 3)])
    fig = new_figure(4.6, 3.6)
    ax = fig.subplots()
    draw_metric(ax, df, "utilisation", Axis((Q,), "queue"), [Q], {Q: "queue"})
    fig.canvas.draw()
    ticks = ax.get_xticklabels()
    assert [t.get_text().replace("\n", " ") for t in ticks] == names
    angle = ticks[0].get_rotation()
    if angle == 0:
        boxes = [t.get_window_extent() for t in ticks]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    else:  # parallel slanted lines: apart by the gap between ticks x sin(angle)
        xs = [ax.transData.transform((x, 0))[0] for x in ax.get_xticks()]
        gap = min(b - a for a, b in zip(xs, xs[1:])) * math.sin(math.radians(angle))
        height = ticks[0].get_fontsize() * fig.dpi / 72
        assert gap >= 1.2 * height, (gap, height)


def test_a_zipped_axis_with_many_series_averages_them_and_says_how_many() -> None:
    """More than MAX_LINES series: the others are averaged per seed; the legend counts the
    combinations averaged, and the zipped partner still labels the ticks."""
    MIN, MAX, P = ("dumbbell.bottleneck.queue.min_th", "dumbbell.bottleneck.queue.max_th",
                   "dumbbell.bottleneck.queue.max_p")
    rows = [{MIN: lo, MAX: 3 * lo, P: p, FLOWS: n, "seed": s, "utilisation": 0.9 + 0.001 * s}
            for lo in (5, 10) for p in (0.05, 0.1, 0.2) for n in (3, 6, 12) for s in (1, 2)]
    fig = new_figure(6, 3)
    ax = fig.subplots()
    draw_metric(ax, pd.DataFrame(rows), "utilisation", Axis((MIN, MAX), "min_th/max_th"),
                [MIN, MAX, P, FLOWS], {MIN: "min_th", MAX: "max_th", P: "max_p", FLOWS: "flows"})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["mean over 9 combinations of the others"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5/15", "10/30"]


def test_mean_ellipse_is_hotellings_contour_of_the_mean() -> None:
    from scipy.stats import f as f_dist

    rng = np.random.default_rng(3)
    x = rng.normal(10.0, 2.0, 8)
    y = 0.5 * x + rng.normal(0.0, 1.0, 8)
    poly = mean_ellipse(x, y)
    centre = np.array([x.mean(), y.mean()])
    inv = np.linalg.inv(np.cov(np.column_stack([x, y]), rowvar=False) / len(x))
    d2 = np.einsum("ij,jk,ik->i", poly - centre, inv, poly - centre)
    assert np.allclose(d2, 2 * 7 / 6 * f_dist.ppf(0.95, 2, 6))
    assert mean_ellipse([1.0, 2.0], [3.0, 4.0]) is None


def test_mean_ellipse_covers_the_true_mean_95_percent_of_the_time_with_5_seeds() -> None:
    """The ellipse is a confidence region: over many 5-seed samples it holds the true mean
    in ~95 % of them (the chi-square radius would give ~80 %)."""
    rng = np.random.default_rng(11)
    cov = np.array([[4.0, 1.5], [1.5, 1.0]])
    hits, trials = 0, 2000
    for _ in range(trials):
        s = rng.multivariate_normal([0.0, 0.0], cov, 5)
        poly = mean_ellipse(s[:, 0], s[:, 1])
        c = s.mean(axis=0)
        inv = np.linalg.inv(np.cov(s, rowvar=False) / 5)
        r2 = float((poly[0] - c) @ inv @ (poly[0] - c))
        hits += float(c @ inv @ c) <= r2
    assert 0.93 <= hits / trials <= 0.97


def test_pair_plot_labels_and_scale() -> None:
    rows = [{KIND: k, FLOWS: n, "seed": s, "mean_queueing_delay_s": d * (1 + 0.1 * s),
             "goodput_bps": 1.2e6 + 1e4 * s}
            for k, d in (("droptail", 0.2), ("red", 0.004)) for n in (3, 12) for s in (1, 2, 3)]
    fig = new_figure(5, 4)
    ax = fig.subplots()
    scale = draw_pair(ax, pd.DataFrame(rows), "mean_queueing_delay_s", "goodput_bps",
                      [KIND, FLOWS], {KIND: "discipline", FLOWS: "flows"})
    assert scale == "log" and ax.get_xscale() == "log"  # delays over two decades
    assert ax.get_xlabel() == "mean queueing delay (ms), log scale"
    assert ax.get_ylabel() == "goodput (Mb/s)"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    # three seeds a point: no ellipse (its 95 % region would be wider than the runs), and
    # the legend names the marks for what they are
    assert legend == ["discipline = droptail", "discipline = red", "mean over seeds",
                      "one run"]
    assert not ax.patches
    assert sorted(t.get_text() for t in ax.texts) == ["12", "12", "3", "3"]


def test_mean_ellipse_only_from_the_runs_where_it_is_narrower_than_their_spread() -> None:
    """The rule: the 95 % ellipse of the mean is drawn when its half-axes r(n)/√n are at
    most 2 sample standard deviations: from 6 runs (5: 2.26 σ; 3: 16.3 σ, the issue's
    ellipse spanning 95 ms of a 100 ms axis). Drawn, it is named so in the legend."""
    from aqmsim.report.sweep_figures import (MEAN_ELLIPSE_NAME, hotelling_radius,
                                             min_runs_mean_ellipse)

    assert min_runs_mean_ellipse() == 6
    assert hotelling_radius(5) / math.sqrt(5) > 2.0 >= hotelling_radius(6) / math.sqrt(6)
    assert hotelling_radius(3) / math.sqrt(3) == pytest.approx(16.3, abs=0.05)
    rng = np.random.default_rng(5)
    for seeds, ellipses in ((5, 0), (6, 2)):
        rows = [{KIND: k, "seed": s, "mean_queueing_delay_s": d + 0.002 * rng.random(),
                 "goodput_bps": 1.2e6 + 1e4 * rng.random()}
                for k, d in (("droptail", 0.05), ("red", 0.01)) for s in range(seeds)]
        fig = new_figure(5, 4)
        ax = fig.subplots()
        draw_pair(ax, pd.DataFrame(rows), "mean_queueing_delay_s", "goodput_bps", [KIND],
                  {KIND: "discipline"})
        assert len(ax.patches) == ellipses, seeds
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert (f"{MEAN_ELLIPSE_NAME} (n ≥ 6 runs)" in legend) == bool(ellipses)


def test_pair_caption_says_why_there_is_no_ellipse(report) -> None:
    html = report["html"]
    assert "no point has an ellipse" in html and "at least 6 runs" in html
    assert "With 3 runs its half-axes would be 16.3 standard deviations" in html


def test_a_delay_percentile_interval_is_never_narrower_than_the_sketch() -> None:
    """Seeds in one DDSketch bucket: the t half-width is 0, the drawn interval is not."""
    rows = [{KIND: "red", "seed": s, "qdelay_p99_s": 0.03725} for s in (1, 2, 3, 4, 5)]
    fig = new_figure(4, 3)
    ax = fig.subplots()
    draw_metric(ax, pd.DataFrame(rows), "qdelay_p99_s", Axis((KIND,), "discipline"), [KIND],
                {KIND: "discipline"})
    seg = ax.collections[0].get_segments()[0]
    assert seg[:, 1].max() - seg[:, 1].min() == pytest.approx(2 * 37.25 * 0.01 / 0.99)


def test_bad_report_table_is_one_line(core, tmp_path: Path) -> None:
    runner = CliRunner()
    for bad, want in (('pairs = [["goodput"]]', "report.pairs: expected a list of [x, y]"),
                      ('pairs = [["delay", "goodput_bps"]]', "'delay' is not a summary key"),
                      ("log_x = 2", "report.log_x: expected true, false or \"auto\""),
                      ("colour = 1", "report.colour: unknown field")):
        f = tmp_path / "bad.toml"
        f.write_text(SWEEP.split("[report]")[0] + "[report]\n" + bad + "\n")
        res = runner.invoke(app, ["report", str(f), "--store", str(tmp_path / "none")])
        assert res.exit_code != 0 and want in res.output, res.output
        assert "Traceback" not in res.output


CHECK_JS = """
window.addEventListener('load', function () {
  var out;
  try {
    var doc = document.getElementById('page').contentDocument;
    var images = Array.prototype.map.call(doc.images, function (im) {
      return {src: im.getAttribute('src'), alt: im.getAttribute('alt') || '',
              loaded: im.complete && im.naturalWidth > 0, width: im.naturalWidth};
    });
    var body = doc.body.cloneNode(true);
    Array.prototype.forEach.call(body.querySelectorAll('pre, code'),
                                 function (n) { n.remove(); });
    out = {images: images, text: body.innerText, title: doc.title};
  } catch (e) { out = {error: String(e)}; }
  document.getElementById('result').textContent = JSON.stringify(out);
});
"""


def test_sweep_report_renders_in_headless_chromium(report, tmp_path: Path) -> None:
    import html as _html

    page = report["files"].index
    wrapper = tmp_path / "wrapper.html"
    wrapper.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        f'<iframe id="page" src="{page.resolve().as_uri()}" width="1280" height="900"></iframe>'
        f'<pre id="result">pending</pre><script>{CHECK_JS}</script></body></html>')
    dom = run_chromium(["--allow-file-access-from-files", "--virtual-time-budget=10000",
                        "--dump-dom", wrapper.resolve().as_uri()], tmp_path / "profile")
    found = json.loads(_html.unescape(re.search(r'<pre id="result">(.*?)</pre>', dom,
                                                re.S).group(1)))
    assert "error" not in found, found
    assert found["title"] == "Sweep disc"
    images = found["images"]
    assert len(images) == len(report["files"].figures) >= 10
    assert all(im["loaded"] and im["width"] > 600 for im in images), images
    assert all(len(im["alt"]) > 20 for im in images), "every figure has alt text"
    # the page's words outside the sweep file (<pre>) and the keys in <code>: no raw key
    raw = [k for k in metrics.SUMMARY if "_" in k and re.search(rf"\b{k}\b", found["text"])]
    assert not raw, raw
    assert "Jain's fairness index" in found["text"] and "goodput (Mb/s)" in found["text"]
    # a broken image is told apart: the same check on a page with a missing figure
    broken = tmp_path / "broken.html"
    broken.write_text('<!DOCTYPE html><html><body><img src="nope.png" alt="x"></body></html>')
    wrapper.write_text(wrapper.read_text().replace(page.resolve().as_uri(),
                                                   broken.resolve().as_uri()))
    dom = run_chromium(["--allow-file-access-from-files", "--virtual-time-budget=10000",
                        "--dump-dom", wrapper.resolve().as_uri()], tmp_path / "profile2")
    found = json.loads(_html.unescape(re.search(r'<pre id="result">(.*?)</pre>', dom,
                                                re.S).group(1)))
    assert [im["loaded"] for im in found["images"]] == [False]
    assert math.isfinite(len(found["text"]))


QUEUES_SWEEP = f"""
name = "queues"
base = "{(EXAMPLES / 'dumbbell-red.toml').as_posix()}"
seeds = 2
metrics = ["utilisation", "mean_queueing_delay_s", "goodput_bps"]

[set]
duration = 1
"dumbbell.groups.0.stop" = 1
"dumbbell.groups.0.count" = 3

[[vary]]                  # the clean way to compare disciplines: whole queue tables
"dumbbell.bottleneck.queue" = [
  {{ kind = "red", max_p = 0.1 }},
  {{ kind = "red", max_p = 0.2 }},
  {{ kind = "codel" }},
]
"""


def test_whole_queue_tables_read_as_disciplines_from_any_directory(
        core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23: a sweep varying whole queue tables, run and reported from two other
    working directories by its absolute path. The store is found beside the sweep file
    (it used to be relative to the working directory, so the report failed), and every
    figure, legend, table and the CSV name each table by its discipline and the
    parameter that differs — never its JSON."""
    d = tmp_path / "study"
    d.mkdir()
    f = d / "queues.toml"
    f.write_text(QUEUES_SWEEP)
    for where in ("a", "b"):
        (tmp_path / where).mkdir()
    runner = CliRunner()
    monkeypatch.chdir(tmp_path / "a")
    res = runner.invoke(app, ["sweep", str(f), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "6 runs: 6 ok, 0 failed" in res.output
    assert not (tmp_path / "a" / "out").exists()
    assert (d / "out" / "sweeps" / "queues" / "runs.duckdb").is_file()
    monkeypatch.chdir(tmp_path / "b")
    res = runner.invoke(app, ["report", str(f)])
    assert res.exit_code == 0, res.output
    assert "6 of 6 runs" in res.output
    out = d / "out" / "sweeps" / "queues" / "report"
    names = ["RED (max_p=0.1)", "RED (max_p=0.2)", "CoDel"]
    rows = (out / "points.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].split(",")[:2] == ["queue", "runs"]
    assert [r.split(",")[0].strip('"') for r in rows[1:]] == names
    assert all(r.split(",")[1] == "2" for r in rows[1:])
    html = (out / "index.html").read_text(encoding="utf-8")
    body = html[html.index("<tbody>"):html.index("</tbody>")]
    assert [n for n in names if f"<td class=\"num\">{n}</td>" in body] == names
    for svg in out.glob("*.svg"):
        text = svg.read_text(encoding="utf-8")
        assert "kind" not in text and "&quot;" not in text, svg.name
    pair = (out / "pair-mean_queueing_delay_s-goodput_bps.svg").read_text(encoding="utf-8")
    assert all(f"queue = {n}" in pair for n in names)          # the legend
    ticks = (out / "utilisation.svg").read_text(encoding="utf-8")
    assert all(t in ticks for t in ("(max_p=0.1)", "(max_p=0.2)", "CoDel"))  # the ticks
    assert "Discipline CoDel: 2 runs" in (out / "discipline-codel.svg").read_text("utf-8")
    # the same names for the store's DataFrame
    import aqmsim.store

    sweep = Sweep.from_toml(f)
    df = sweep.name_values(aqmsim.store.open(sweep.default_store(), sweep="queues"))
    assert list(df["dumbbell.bottleneck.queue"].unique()) == names
