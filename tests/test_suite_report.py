"""The RFC 7928 suite's report (aqmsim.suite.report.write_report) on a small stand-in
suite of the real classes (aqmsim.suite.spec) run for real (three disciplines × three
seeds through aqmsim.sweep.run_tasks, read back by aqmsim.suite.results.load): its
structure (an index section and a page per scenario, every figure kind, alt texts, no raw
metric key), that every figure's data equals what the runs give (the ellipse's centre is
the mean of the runs' (delay, goodput), the CDF the mean of their quantiles, the table the
mean ± 95 % t half-width, the RTT goodput ratio the flows'), failed runs listed, a scenario
without runs said so, ns-3's points on the graph, and every image loading in headless
Chromium."""

from __future__ import annotations

import copy
import html as _html
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Dict

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from aqmsim import metrics  # noqa: E402
from aqmsim.papers.base import mean_ci  # noqa: E402
from aqmsim.store import Store  # noqa: E402
from aqmsim.suite.report import write_report  # noqa: E402
from aqmsim.suite.results import load  # noqa: E402
from aqmsim.suite.run import SERIES  # noqa: E402
from aqmsim.suite.spec import Discipline, Suite, SuiteScenario, SuiteTask, Variant  # noqa: E402
from aqmsim.sweep import run_tasks  # noqa: E402

from conftest import EXAMPLES  # noqa: E402
from test_report import run_chromium  # noqa: E402

SEEDS = (1, 2, 3)
AQMS = ("red", "codel", "pie")


# ------------------------------------------------------------ a small suite of the real classes
def _base(flows: int, two_groups: bool = False, cbr: bool = False) -> Dict[str, Any]:
    with open(EXAMPLES / "dumbbell-droptail.toml", "rb") as f:
        d = tomllib.load(f)
    d["duration"] = "4s"
    g = d["dumbbell"]["groups"][0]
    g["stop"], g["count"] = "4s", flows
    if two_groups:
        g2 = copy.deepcopy(g)
        g2["name"] = "far"
        d["dumbbell"]["groups"].append(g2)
    if cbr:  # an unresponsive sender: its goodput is not the TCP flows'
        g3 = copy.deepcopy(g)
        g3.update(name="udp", count=1, app="cbr", start="0s",
                  cbr={"rate": "2Mb", "packet_size": 1000})
        d["dumbbell"]["groups"].append(g3)
    d["monitor"]["delays"] = True
    return d


def _suite() -> Suite:
    one = (Variant("", None, {}),)
    return Suite("stand-in", "RFC 7928 stand-in suite", [
        SuiteScenario("mix", "5.1", "TCP-friendly senders", "Several long-lived TCP flows "
                      "share the bottleneck with a UDP flow.", "Four Reno flows and a 2 Mb/s "
                      "CBR flow for four seconds.", _base(4, cbr=True), one, "",
                      ("tcp_goodput_bps", "rt_delay_p99_s"), {}),
        SuiteScenario("rtt", "6", "Round-trip-time fairness", "Two flows with "
                      "different RTTs.", "The second flow's access delay is the "
                      "variant.", _base(1, two_groups=True),
                      (Variant("RTT +10 ms", 10, {"dumbbell.groups.1.access.delay": "5ms"}),
                       Variant("RTT +80 ms", 80, {"dumbbell.groups.1.access.delay": "40ms"})),
                      "extra delay of the second flow (ms)",
                      ("jain_fairness", "goodput_ratio"), series=("queue",)),
        SuiteScenario("burst", "7", "Burst absorption", "Bursts.", "Not run here.",
                      _base(2), one, "", (), {}),
    ], {n: Discipline(n, lab, {"kind": n}, "") for n, lab in
        (("red", "RED"), ("codel", "CoDel"), ("pie", "PIE"))})


def _web(flows: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Web transfers appended to a run's flows (the engine's traffic models add them; here
    a fixed stand-in per seed), so the FCT figure has data."""
    rng = np.random.default_rng(seed)
    n = 12
    web = pd.DataFrame({"flow": np.arange(100, 100 + n), "app": "web",
                        "size_bytes": rng.integers(2_000, 400_000, n),
                        "fct_s": np.where(np.arange(n) == 0, np.nan, rng.uniform(0.02, 2.0, n)),
                        "goodput_bps": 1e5, "throughput_bps": 1e5})
    return pd.concat([flows.assign(size_bytes=0, fct_s=np.nan), web], ignore_index=True)


@pytest.fixture(scope="module")
def built(core, tmp_path_factory) -> Dict[str, Any]:
    import time

    suite = _suite()
    tmp = tmp_path_factory.mktemp("suite")
    tasks = [SuiteTask(scen.name, scen.section, v.label, aqm, seed,
                       scen.scenario(v, suite.disciplines[aqm]), v.value, scen.series)
             for scen in suite.scenarios[:2]  # "burst" is left unrun: its page must say so
             for v in scen.variants for aqm in AQMS for seed in SEEDS]
    result = run_tasks([(t.key, t.data, t.seed, SERIES + t.series) for t in tasks],
                       tmp / "store", workers=2)
    runs = load(tmp / "store", tasks)  # the runner's own reading of the store
    st = Store(tmp / "store", read_only=True)
    rows = runs.to_dict("records")
    # a run that failed (as the runner's frame has it): listed, never dropped
    runs = pd.concat([runs, pd.DataFrame([{**rows[0], "seed": 9, "status": "failed",
                                           "error": "simulation: boom",
                                           "mean_queueing_delay_s": np.nan,
                                           "goodput_bps": np.nan}])], ignore_index=True)
    mix_hashes = set(runs.loc[runs["scenario"] == "mix", "hash"])

    def series(h: str, seed: int, name: str) -> pd.DataFrame:
        frame = st.series(h, seed, name)
        return _web(frame, seed) if name == "flows" and h in mix_hashes else frame

    mine = runs[(runs["scenario"] == "mix") & (runs["aqm"] == "codel")
                & (runs["status"] == "ok")]
    ns3 = mine[["scenario", "variant", "aqm", "seed"]].assign(
        mean_queueing_delay_s=mine["mean_queueing_delay_s"] * 1.2,
        goodput_bps=mine["goodput_bps"] * 0.95, loss_ratio=mine["loss_ratio"],
        # (mix has a UDP flow: ns-3 is on the graph only with its TCP flows' goodput)
        tcp_goodput_bps=(mine["goodput_bps"] - 2e6) * 0.95)
    t0 = time.perf_counter()
    index = write_report(suite, runs, tmp / "report", series=series, ns3=ns3, wall_s=12.5,
                         command="aqmsim suite rfc7928 --seeds 3")
    took = time.perf_counter() - t0
    print(f"write_report: {took:.2f} s for {len(runs)} runs, "
          f"{len(list((tmp / 'report' / 'figures').glob('*.png')))} figures")
    assert result.counts.failed == 0
    return {"suite": suite, "runs": runs, "out": tmp / "report", "index": index,
            "store": st, "series": series, "seconds": took}


def _csv(built: Dict[str, Any], name: str) -> pd.DataFrame:
    return pd.read_csv(built["out"] / "data" / f"{name}.csv", keep_default_na=True)


def _ok(built: Dict[str, Any], scenario: str) -> pd.DataFrame:
    r = built["runs"]
    return r[(r["scenario"] == scenario) & (r["status"] == "ok")]


def test_layout_pages_figures_and_data(built) -> None:
    from PIL import Image

    out = built["out"]
    assert built["index"] == out / "index.html"
    assert (out / "summary.md").is_file()
    for name in ("mix", "rtt", "burst"):
        page = (out / f"{name}.html").read_text(encoding="utf-8")
        assert f'<section class="scenario" id="{name}">' in page
    index = built["index"].read_text(encoding="utf-8")
    assert all(f'id="{n}"' in index and f'href="{n}.html"' in index
               for n in ("mix", "rtt", "burst"))
    figs = {p.name for p in (out / "figures").glob("*.png")}
    assert figs == {f"mix-{k}.png" for k in ("delay-goodput", "delay-cdfs", "drops",
                                             "fairness", "fct", "fct-size")} | \
        {f"rtt-{k}.png" for k in ("delay-goodput", "focus-lines", "queue-time", "delay-cdfs",
                                  "drops", "fairness")}
    for png in (out / "figures").glob("*.png"):
        with Image.open(png) as im:
            assert min(im.info["dpi"]) >= 150 - 0.5
        svg = png.with_suffix(".svg").read_text(encoding="utf-8")
        texts = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        assert texts, png.name
        raw = [k for k in metrics.SUMMARY if "_" in k and re.search(rf"\b{k}\b", texts)]
        assert not raw, (png.name, raw)
    # ns-3's points are on the graph with their own legend entry, and in a table
    svg = (out / "figures" / "mix-delay-goodput.svg").read_text(encoding="utf-8")
    assert "ns-3 CoDel" in svg and "ns-3 RED" not in svg
    mix = (out / "mix.html").read_text(encoding="utf-8")
    assert 'id="ns3"' in mix and "ns-3 (runs)" in mix
    assert 'id="ns3"' not in (out / "rtt.html").read_text(encoding="utf-8")  # no ns-3 runs there


def _tcp_goodput(built: Dict[str, Any], run: Any) -> float:
    """Σ goodput of a run's TCP flows, from its flows table (web transfers included)."""
    flows = built["series"](run["hash"], run["seed"], "flows")
    return float(flows.loc[flows["app"].isin(["ftp", "web"]), "goodput_bps"].sum())


def test_ellipse_centres_and_spread_are_the_runs(built) -> None:
    """The graph's y is the TCP flows' goodput: the CBR flow's bits are not in it."""
    pts = _csv(built, "mix-points")
    ell = _csv(built, "mix-ellipses")
    ok = _ok(built, "mix")
    assert len(pts) == len(ok) == len(AQMS) * len(SEEDS)
    for aqm in AQMS:
        runs = ok[ok["aqm"] == aqm].sort_values("seed")
        e = ell[ell["aqm"] == aqm].iloc[0]
        x = runs["mean_queueing_delay_s"].to_numpy()
        y = np.array([_tcp_goodput(built, r) for r in runs.to_dict("records")])
        # the UDP flow's goodput (over 1 Mb/s, which the summary's goodput counts) is out
        for r, tcp in zip(runs.to_dict("records"), y):
            flows = built["series"](r["hash"], r["seed"], "flows")
            udp = flows.loc[flows["app"] == "cbr", "goodput_bps"].sum()
            assert udp > 1e6 and tcp == pytest.approx(flows["goodput_bps"].sum() - udp)
        got = pts[pts["aqm"] == aqm].sort_values("seed")
        assert np.allclose(got["tcp_goodput_bps"], y, rtol=1e-12)
        assert e["centre_mean_queueing_delay_s"] == pytest.approx(x.mean(), rel=1e-12)
        assert e["centre_tcp_goodput_bps"] == pytest.approx(y.mean(), rel=1e-12)
        cov = np.cov(np.column_stack([x, y]), rowvar=False, bias=True)
        assert [e["cov_xx"], e["cov_xy"], e["cov_yy"]] == pytest.approx(
            [cov[0, 0], cov[0, 1], cov[1, 1]], rel=1e-9, abs=1e-15)
    rtt = _csv(built, "rtt-ellipses")
    assert sorted(set(rtt["variant"])) == ["RTT +10 ms", "RTT +80 ms"] and len(rtt) == 6


def test_cdf_is_the_mean_of_the_runs_quantiles(built) -> None:
    cdf = _csv(built, "rtt-cdf")
    ok = _ok(built, "rtt")
    for (variant, aqm), runs in ok.groupby(["variant", "aqm"]):
        curves = []
        for r in runs.itertuples():
            s = built["store"].series(r.hash, r.seed, "delay_cdf")
            curves.append(s[s["what"] == "queue R1->R2"].set_index("q")["delay_s"])
        want = pd.concat(curves, axis=1).mean(axis=1)
        got = cdf[(cdf["variant"] == variant) & (cdf["aqm"] == aqm)].set_index("q")
        assert (got["seeds"] == len(SEEDS)).all()
        assert np.allclose(got["delay_s"].to_numpy(), want.loc[got.index].to_numpy(),
                           rtol=1e-12)
        assert len(got) == len(want) > 50


def test_table_fairness_and_fct_are_the_runs(built) -> None:
    table = _csv(built, "rtt-table")
    ok = _ok(built, "rtt")
    for r in table.itertuples():
        runs = ok[(ok["variant"] == r.variant) & (ok["aqm"] == r.aqm)]
        for key in ("goodput_bps", "loss_ratio", "jain_fairness"):
            mean, half = mean_ci(runs[key].to_numpy(float))
            assert getattr(r, f"{key}_mean") == pytest.approx(mean)
            assert getattr(r, f"{key}_half") == pytest.approx(half, nan_ok=True)
    fair = _csv(built, "rtt-fairness")
    for r in fair.itertuples():
        run = ok[(ok["variant"] == r.variant) & (ok["aqm"] == r.aqm) & (ok["seed"] == r.seed)]
        flows = built["store"].series(run["hash"].iloc[0], r.seed, "flows").sort_values("flow")
        g = flows["goodput_bps"].to_numpy()
        assert r.long_lived_flows == 2 and r.goodput_ratio == pytest.approx(g[1] / g[0])
    fct = _csv(built, "mix-fct")
    mix = _ok(built, "mix")
    assert len(fct) == 12 * len(mix)
    one = mix.iloc[0]
    want = built["series"](one["hash"], one["seed"], "flows")
    want = want[want["size_bytes"] > 0]
    got = fct[(fct["aqm"] == one["aqm"]) & (fct["seed"] == one["seed"])]
    assert np.allclose(got["fct_s"], want["fct_s"], equal_nan=True)


def test_failed_runs_listed_and_empty_scenario_said(built) -> None:
    out = built["out"]
    mix = (out / "mix.html").read_text(encoding="utf-8")
    assert 'id="failed"' in mix and "simulation: boom" in mix
    assert "No runs of this scenario" in (out / "burst.html").read_text(encoding="utf-8")
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "simulation: boom" in md and "**No runs of this scenario.**" in md
    assert "## Overview" in md and "`aqmsim suite rfc7928 --seeds 3`" in md
    for name in ("mix", "rtt"):  # the overview names a discipline for each column
        row = next(line for line in md.splitlines() if f"({name}.html)" in line)
        assert all(any(lab in cell for lab in ("RED", "CoDel", "PIE", "all equal"))
                   for cell in row.split("|")[4:7]), row
    index = built["index"].read_text(encoding="utf-8")
    assert "12.5 s" in index and "aqmsim suite rfc7928 --seeds 3" in index
    assert "engine" in index and "source" in index


CHECK_JS = """
window.addEventListener('load', function () {
  var out = {};
  Array.prototype.forEach.call(document.querySelectorAll('iframe'), function (f) {
    try {
      var doc = f.contentDocument;
      var body = doc.body.cloneNode(true);
      Array.prototype.forEach.call(body.querySelectorAll('pre, code'),
                                   function (n) { n.remove(); });
      out[f.id] = {title: doc.title, text: body.innerText,
        sections: doc.querySelectorAll('section').length,
        images: Array.prototype.map.call(doc.images, function (im) {
          return {src: im.getAttribute('src'), alt: im.getAttribute('alt') || '',
                  loaded: im.complete && im.naturalWidth > 0, width: im.naturalWidth};
        })};
    } catch (e) { out[f.id] = {error: String(e)}; }
  });
  document.getElementById('result').textContent = JSON.stringify(out);
});
"""


def test_report_renders_in_headless_chromium(built, tmp_path: Path) -> None:
    out = built["out"]
    broken = tmp_path / "broken.html"
    broken.write_text('<!DOCTYPE html><html><body><img src="nope.png" alt="x"></body></html>')
    pages = {"index": out / "index.html", "mix": out / "mix.html", "rtt": out / "rtt.html",
             "burst": out / "burst.html", "control": broken}
    frames = "".join(f'<iframe id="{k}" src="{p.resolve().as_uri()}" width="1280" '
                     'height="900"></iframe>' for k, p in pages.items())
    wrapper = tmp_path / "wrapper.html"
    wrapper.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                       f'{frames}<pre id="result">pending</pre><script>{CHECK_JS}</script>'
                       "</body></html>")
    dom = run_chromium(["--allow-file-access-from-files", "--virtual-time-budget=10000",
                        "--dump-dom", wrapper.resolve().as_uri()], tmp_path / "profile")
    found = json.loads(_html.unescape(re.search(r'<pre id="result">(.*?)</pre>', dom,
                                                re.S).group(1)))
    assert [im["loaded"] for im in found["control"]["images"]] == [False], \
        "the check must tell a broken image apart"
    assert found["index"]["sections"] == 3
    for name in ("mix", "rtt"):
        page = found[name]
        assert "error" not in page, page
        want = len(list((out / "figures").glob(f"{name}-*.png")))
        assert len(page["images"]) == want >= 5
        assert all(im["loaded"] and im["width"] > 600 for im in page["images"]), page["images"]
        assert all(len(im["alt"]) > 40 for im in page["images"])
        assert "Jain's fairness index" in page["text"] and "goodput (Mb/s)" in page["text"]
    for name, page in found.items():
        raw = [k for k in metrics.SUMMARY if "_" in k and re.search(rf"\b{k}\b", page["text"])]
        assert not raw, (name, raw)
    assert "No runs of this scenario" in found["burst"]["text"]



def test_missing_series_leave_their_figures_out_and_are_said(built, tmp_path: Path) -> None:
    """Runs whose series were not kept: the graph, drops and fairness stay (they come
    from the summaries), the CDFs go, and the page says which series are missing."""
    def none(h: str, seed: int, name: str) -> pd.DataFrame:
        raise KeyError(f"no {name!r} series stored")

    runs = built["runs"][built["runs"]["scenario"] == "mix"]
    index = write_report(built["suite"], runs, tmp_path / "r", series=none, workers=1)
    figs = sorted(p.name for p in (index.parent / "figures").glob("*.png"))
    assert figs == ["mix-delay-goodput.png", "mix-drops.png", "mix-fairness.png"]
    page = (index.parent / "mix.html").read_text(encoding="utf-8")
    assert "18 kept series missing" in page
    assert "No runs of this scenario" in (index.parent / "rtt.html").read_text(encoding="utf-8")


def test_derived_keys_in_focus_are_in_the_table(built) -> None:
    """A focus naming the report's own keys: the TCP flows' goodput and the UDP flows'
    99th-percentile delay, per run from the flows table, in the table as mean ± half."""
    table = _csv(built, "mix-table")
    ok = _ok(built, "mix")
    for r in table.itertuples():
        runs = ok[ok["aqm"] == r.aqm].to_dict("records")
        tcp = [_tcp_goodput(built, run) for run in runs]
        udp = []
        for run in runs:
            flows = built["series"](run["hash"], run["seed"], "flows")
            udp.append(flows.loc[flows["app"] == "cbr", "delay_p99_s"].max())
        assert r.tcp_goodput_bps_mean == pytest.approx(np.mean(tcp), rel=1e-12)
        assert r.rt_delay_p99_s_mean == pytest.approx(np.mean(udp), rel=1e-12)
        assert r.rt_delay_p99_s_mean > 0
    page = (built["out"] / "mix.html").read_text(encoding="utf-8")
    assert "goodput of the TCP flows (Mb/s)" in page
    assert "99th-percentile delay of the UDP flows (ms)" in page
    assert "goodput_ratio_mean" not in table  # not in mix's focus: no ratio of a pair
    assert "goodput_ratio" not in _csv(built, "mix-fairness")


def test_queue_over_time_is_the_mean_of_the_runs(built) -> None:
    q = _csv(built, "rtt-queue")
    ok = _ok(built, "rtt")
    assert "mix-queue.csv" not in {p.name for p in (built["out"] / "data").iterdir()}
    for (variant, aqm), runs in ok.groupby(["variant", "aqm"]):
        per = []
        for r in runs.itertuples():
            s = built["store"].series(r.hash, r.seed, "queue")
            per.append(s[s["link"] == "R1->R2"].set_index("t")["len_pkts"].astype(float))
        want = pd.concat(per, axis=1)
        got = q[(q["variant"] == variant) & (q["aqm"] == aqm)]
        assert len(got) == len(want) > 300 and (got["seeds"] == len(SEEDS)).all()
        assert np.allclose(got["len_pkts"], want.mean(axis=1).to_numpy(), rtol=1e-12)
        assert np.allclose(got["len_min"], want.min(axis=1).to_numpy())
        assert np.allclose(got["len_max"], want.max(axis=1).to_numpy())
        assert want.max().max() > 0


# ------------------------------------------------ small hand-made frames (no engine runs)
def _scenario(name: str, variants: tuple, focus: tuple = ()) -> SuiteScenario:
    return SuiteScenario(name, "5.1", name, "asks", "reading", {}, variants, "axis", focus,
                         {})


def _frame(rows: list) -> pd.DataFrame:
    """Runs (variant, aqm, seed, delay, goodput, jain) as the runner's frame has them."""
    return pd.DataFrame([{"scenario": "s", "section": "5.1", "variant": v, "variant_value": 0,
                          "aqm": a, "seed": seed, "hash": f"{v}|{a}|{seed}", "status": "ok",
                          "error": None, "mean_queueing_delay_s": d, "goodput_bps": g,
                          "jain_fairness": j, "loss_ratio": 0.01}
                         for v, a, seed, d, g, j in rows])


def _flows(apps: list, fct: list = ()) -> pd.DataFrame:
    n = len(apps) + len(fct)
    return pd.DataFrame({"flow": np.arange(n), "app": list(apps) + ["web"] * len(fct),
                         "goodput_bps": 1e6, "delay_p99_s": 0.05,
                         "size_bytes": [0] * len(apps) + [20_000 * (i + 1)
                                                          for i in range(len(fct))],
                         "fct_s": [np.nan] * len(apps) + list(fct)})


def _data(scen: SuiteScenario, runs: pd.DataFrame, flows: Any):
    from aqmsim.suite.report.data import Style, scenario_data

    suite = Suite("t", "t", [scen], {n: Discipline(n, n.upper(), {"kind": n}, "")
                                     for n in AQMS})
    style = Style.of(suite, runs, None)

    def series(h: str, seed: int, name: str) -> pd.DataFrame:
        if name != "flows":
            raise KeyError(name)
        return flows(h)

    return scenario_data(scen, runs, series, None, style), style


def test_fct_a_panel_per_variant_ending_at_finished_over_started() -> None:
    from aqmsim.suite.report import figures as F

    scen = _scenario("web", (Variant("IW3", 3, {}), Variant("IW10", 10, {})))
    runs = _frame([(v, a, s, 0.01, 5e6, 1.0) for v in ("IW3", "IW10") for a in AQMS[:2]
                   for s in (1, 2)])
    # IW3: 3 of 4 transfers finish in each run; IW10: all 4
    data, style = _data(scen, runs, lambda h: _flows(
        ["ftp"], [0.1, 0.2, np.nan, 0.3] if h.startswith("IW3") else [0.1, 0.2, 0.3, 0.4]))
    assert "fct" in F.kinds(data)
    fig = F.fct(data, style)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["IW3", "IW10"]
    ends = [[line.get_ydata()[-1] for line in ax.get_lines()] for ax in panels]
    assert ends == [[pytest.approx(6 / 8)] * 2, [pytest.approx(1.0)] * 2]


def test_overview_common_variants_and_ties() -> None:
    from aqmsim.suite.report.data import overview

    scen = _scenario("o", (Variant("a", 1, {}), Variant("b", 2, {})))
    # red alone ran "b", where its delay is high: over every run red would look worse
    # (4.5 ms against codel's 3 ms); over the common variant "a" its 1 ms is the lowest
    rows = [("a", "red", s, 0.001, 5e6, 1.0) for s in (1, 2)] + \
           [("a", "codel", s, 0.003, 5e6, 1.0) for s in (1, 2)] + \
           [("b", "red", s, 0.008, 5e6, 1.0) for s in (1, 2)]
    runs = _frame(rows)
    data, style = _data(scen, runs, lambda h: _flows(["ftp", "ftp"]))
    got = overview(data, style)
    assert got["delay"] == "RED (1.00 ms)"
    assert got["fairness"] == "all equal (1.000)"
    assert got["goodput"].startswith("all equal")
    assert "note" not in got
    # no variant in common: "—" and a note
    runs = _frame([("a", "red", 1, 0.001, 5e6, 1.0), ("b", "codel", 1, 0.002, 5e6, 1.0)])
    data, style = _data(scen, runs, lambda h: _flows(["ftp"]))
    got = overview(data, style)
    assert "delay" not in got and "no variant that every discipline finished" in got["note"]


def test_no_fairness_figure_with_one_long_lived_flow_and_no_ratio_unasked() -> None:
    from aqmsim.suite.report import figures as F

    one = (Variant("", None, {}),)
    runs = _frame([("", a, s, 0.01, 5e6, 1.0) for a in AQMS for s in (1, 2)])
    data, _ = _data(_scenario("u", one), runs, lambda h: _flows(["ftp", "cbr"]))
    assert "fairness" not in F.kinds(data) and "delay_goodput" in F.kinds(data)
    assert data.ok["tcp_goodput_bps"].eq(1e6).all()  # the CBR flow left out
    # two long-lived flows: fairness drawn; the ratio only when the focus asks for it
    data, _ = _data(_scenario("p", one), runs, lambda h: _flows(["ftp", "ftp"]))
    assert "fairness" in F.kinds(data) and "goodput_ratio" not in data.fairness
    data, _ = _data(_scenario("p", one, ("goodput_ratio",)), runs,
                    lambda h: _flows(["ftp", "ftp"]))
    assert data.fairness["goodput_ratio"].eq(1.0).all()
    assert "goodput_ratio_mean" in data.table


def test_index_says_what_this_call_ran() -> None:
    from aqmsim.suite.report.build import _runs_fact
    from aqmsim.sweep.tasks import Counts

    assert _runs_fact(None, 12.5) == ("wall time", "12.5 s")
    label, text = _runs_fact(Counts(total=100, ok=100, skipped=70, stale=3), 12.5)
    assert label == "runs"
    assert text == ("100 (30 run by this call in 12.5 s, 70 already in the store; 3 of the "
                    "30 were stored by another engine build)")


def test_only_the_figures_that_failed_in_the_pool_are_drawn_again() -> None:
    """A figure whose drawing process failed is drawn again here, and only that one. In a
    fresh interpreter: the pool forks, which needs a process with no other thread (an
    earlier test's Dask leaves its offload thread running for the life of this one)."""
    import os
    import subprocess
    import sys
    import textwrap

    if not (sys.platform.startswith("linux") and (os.cpu_count() or 1) > 1):
        pytest.skip("no second core: everything is drawn here anyway")
    code = textwrap.dedent("""
        import os
        from aqmsim.run_output import _can_fork
        from aqmsim.suite.report import build

        assert _can_fork()
        parent, here = os.getpid(), []

        def draw(i):
            if os.getpid() == parent:
                here.append(i)
            elif i == 1:
                raise RuntimeError("boom in a drawing process")
            return i, [f"fig{i}.png", f"fig{i}.svg"]

        # pickled by reference to the module's (patched) name, as the real one is
        draw.__module__, draw.__qualname__ = build.__name__, "_draw_one"
        build._draw_one = draw
        got = build._draw_all([None] * 4, workers=2)
        assert got == {i: [f"fig{i}.png", f"fig{i}.svg"] for i in range(4)} and here == [1], (got, here)
        print("drawn again here:", here)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "drawn again here: [1]" in r.stdout, r.stdout + r.stderr


def test_table_interval_of_a_delay_percentile_is_never_narrower_than_the_sketch() -> None:
    """Issue 23: five seeds in one DDSketch bucket printed `37.25 ± 0.00`."""
    from aqmsim.suite.report.build import table_view

    one = (Variant("", None, {}),)
    runs = _frame([("", "red", s, 0.01, 5e6, 1.0) for s in range(1, 6)]).assign(
        qdelay_p99_s=0.03725)
    data, style = _data(_scenario("q", one), runs, lambda h: _flows(["ftp", "ftp"]))
    view = table_view(data, style)
    col = view["head"].index(metrics.metric("qdelay_p99_s").axis_label)
    assert view["rows"][0][col] == "37.25 ± 0.38"
    assert data.table["qdelay_p99_s_half"].iloc[0] == 0.0  # the CSV keeps the t half-width


def test_spread_ellipse_named_and_left_out_below_three_runs() -> None:
    """The suite's ellipse is the runs' 1-σ spread, named so in the legend and the caption
    (not the sweep's 95 % ellipse of the mean); with two runs there is none, and the
    caption says which discipline and why."""
    from aqmsim.report.sweep_figures import SPREAD_ELLIPSE_NAME
    from aqmsim.suite.report import figures as F
    from aqmsim.suite.report.build import _caption

    one = (Variant("", None, {}),)
    rows = [("", "red", s, 0.01 + 0.001 * s, 5e6 + 1e4 * s ** 2, 1.0) for s in (1, 2, 3)] + \
           [("", "codel", s, 0.004 + 0.001 * s, 4e6 + 1e4 * s, 1.0) for s in (1, 2)]
    data, style = _data(_scenario("e", one), _frame(rows), lambda h: _flows(["ftp"]))
    fig = F.delay_goodput(data, style)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert SPREAD_ELLIPSE_NAME in legend
    assert "one run" in legend and "mean of the runs" in legend
    ax = fig.axes[0]
    assert len(ax.patches) == 1  # RED's 3 runs: an ellipse; CoDel's 2: none
    _, caption = _caption("delay_goodput", data)
    assert SPREAD_ELLIPSE_NAME in caption and "not a confidence region" in caption
    assert "1 of 2 disciplines have fewer (as few as 2)" in caption
