"""The figures of one `aqmsim run --out` say only what the run has (issue 23): no empty
drop-probability figure for a discipline without one, drop reasons in the discipline's
own words, the utilisation figure's mean equal to the summary's (or both given, and why)
with a rate schedule drawn, and the TCP figure saying which flows of how many it draws."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from aqmsim import Scenario, plot, run_output  # noqa: E402
from aqmsim.cli import summary_table  # noqa: E402

from conftest import EXAMPLES  # noqa: E402


def _run(name: str, seed: int = 1, **overrides):
    sc = Scenario.from_toml(EXAMPLES / f"{name}.toml")
    return sc.with_overrides(**{"duration": 5, **overrides}).run(seed=seed)


@pytest.mark.parametrize("example, has", [
    ("dumbbell-droptail", False), ("dumbbell-codel", False), ("dumbbell-fq-codel", False),
    ("dumbbell-red", True), ("dumbbell-pie", True)])
def test_drop_probability_figure_only_where_there_is_one(core, example, has) -> None:
    res = _run(example)
    assert ("drop_probability" in run_output.figure_names(res)) == has
    if not has:  # asked for anyway: one line, naming the discipline
        with pytest.raises(ValueError, match="keeps none"):
            res.plot_drop_probability()
        return
    labels = [t.get_text() for t in res.plot_drop_probability().axes[0].get_legend().get_texts()]
    # PIE has no max_p: no max_p line or legend entry for it
    assert labels == (["p (drop probability)"] + (["max_p"] if "red" in example else []))


def test_drop_reasons_in_the_disciplines_words(core) -> None:
    import io

    from rich.console import Console

    from aqmsim.results import drop_reason_labels

    def printed(res) -> str:
        console = Console(width=120, file=io.StringIO())
        console.print(summary_table(res.summary, labels=drop_reason_labels(res.queue_params())))
        return console.file.getvalue()

    codel = printed(_run("dumbbell-codel"))
    assert "control law (at dequeue)" in codel and "forced (none in CoDel)" in codel
    assert "early (random)" not in codel and "forced (forced)" not in codel
    red = printed(_run("dumbbell-red"))
    assert "early (random)" in red and "forced (avg ≥ max_th)" in red
    assert drop_reason_labels({"kind": "fq_codel"})["drops_overflow"] == \
        "  overflow (buffer full: the longest flow's head)"
    assert drop_reason_labels({"kind": "droptail"})["drops_early"] == "  early (none in DropTail)"
    assert drop_reason_labels({"kind": "gentle"})["drops_forced"] == \
        "  forced (avg ≥ 2·max_th, gentle)"


def test_ecn_codepoint_rows_only_when_ecn_capable_packets_arrived(core) -> None:
    """The four rows by ECN codepoint are zeros in a run without ECN: the printed summary
    leaves them out (the summary keeps them); a run with ECN-capable packets shows them."""
    import io

    from rich.console import Console

    def printed(summary) -> str:
        console = Console(width=120, file=io.StringIO())
        console.print(summary_table(summary))
        return console.file.getvalue()

    plain = _run("dumbbell-droptail").summary
    assert plain["arrivals_ect0"] == plain["arrivals_ect1"] == 0
    text = printed(plain)
    assert "ECT(0) arrivals" not in text and "ECT(1) marks departed" not in text
    assert "bottleneck utilisation" in text
    ecn = _run("red-ecn").summary
    assert ecn["arrivals_ect0"] > 0
    text = printed(ecn)
    assert "ECT(0) arrivals" in text and "ECT(1) arrivals" in text


def test_utilisation_mean_is_the_summarys_and_the_rate_schedule_is_drawn(core) -> None:
    """dumbbell-web's bottleneck runs at 5 Mb/s from 10 to 20 s: the plain mean of its bins
    was 0.892 against the summary's 88.6 %. The figure's mean weighs each bin by its
    capacity, which is the summary's definition."""
    res = _run("dumbbell-web", duration=30)
    link = "R1->R2"
    u = res.columns("links")["utilisation"]
    summary = res.summary["utilisation"]
    assert abs(float(np.nanmean(u)) - summary) > 0.005  # the plain mean: not the summary's
    assert plot.bins_mean(res, link) == pytest.approx(summary, abs=1e-5)
    fig = res.plot_utilisation()
    ax, right = fig.axes
    legend = [t.get_text() for t in right.get_legend().get_texts()] if right.get_legend() \
        else [t.get_text() for t in ax.get_legend().get_texts()]
    want = f"{summary:.1%}".replace("%", " %")
    assert f"{link} whole-run mean {want} (the summary's)" in legend
    assert f"{link} rate (right axis)" in legend
    assert right.get_ylabel() == "link rate (Mb/s)"
    (rate,) = right.get_lines()
    assert list(rate.get_xdata()) == [0.0, 10.0, 20.0, 30.0]
    assert list(rate.get_ydata()) == [10.0, 5.0, 10.0, 10.0]
    mean_line = [line for line in ax.get_lines() if line.get_linestyle() == ":"][0]
    assert mean_line.get_ydata()[0] == pytest.approx(summary * 100, abs=1e-3)


def test_utilisation_says_why_when_a_rate_change_falls_inside_a_bin(core) -> None:
    res = _run("dumbbell-droptail", duration=30, **{"dumbbell.bottleneck.rate_schedule": [
        ["0s", "10Mb"], ["0.25s", "1Mb"], ["5.55s", "10Mb"], ["15s", "1Mb"]]})
    summary, mean = res.summary["utilisation"], plot.bins_mean(res, "R1->R2")
    assert f"{summary:.1%}" != f"{mean:.1%}"
    fig = res.plot_utilisation()
    text = " ".join(t.get_text() for ax in fig.axes if ax.get_legend()
                    for t in ax.get_legend().get_texts())
    assert f"mean of the bins {mean:.1%}".replace("%", " %") in text
    assert f"summary {summary:.1%}".replace("%", " %") in text
    assert "rate change" in text and "inside a bin" in text
    # one rate throughout: no right axis, the mean is the summary's
    plain = _run("dumbbell-red", duration=7.77)
    assert plot.bins_mean(plain, "R1->R2") == pytest.approx(plain.summary["utilisation"],
                                                            rel=1e-12)
    assert len(plain.plot_utilisation().axes) == 1
    assert math.isnan(plot.bins_mean(plain, "no->link"))


def test_tcp_figure_says_which_flows_of_how_many(core) -> None:
    res = _run("dumbbell-codel", **{"monitor.tcp_flows": "all"})
    fig = res.plot_tcp()
    top = fig.axes[0]
    assert top.get_title().endswith("— 8 of 20 traced flows")
    assert top.get_legend().get_title().get_text() == "flows 0–7 of 0–19;\nall in tcp.csv"
    assert len(top.get_lines()) == 8
    # every traced flow drawn (asked for): nothing to say
    few = _run("dumbbell-codel", **{"monitor.tcp_flows": [0, 3]}).plot_tcp()
    assert "traced flows" not in few.axes[0].get_title()
    assert few.axes[0].get_legend().get_title().get_text() == ""


def test_dualpi2_figures_name_its_probabilities_and_draw_no_average_queue(core) -> None:
    """DualPI2 keeps p = p_C = p'^2, max_p = p_CL = min(k p', 1) and avg = p' in its queue
    samples: the drop-probability figure names the two as the RFC does, and the queue
    figure draws no "average queue" (p' in packets was a flat line at 0)."""
    res = _run("dumbbell-l4s", duration=3)
    labels = [t.get_text() for t in res.plot_drop_probability().axes[0].get_legend().get_texts()]
    assert labels == ["p_C = p'² (Classic drop/mark)", "p_CL = min(k·p', 1) (L4S mark, coupled)"]
    lines = [ln.get_label() for ln in res.plot_queue().axes[0].get_lines()]
    assert "average queue" not in lines and "queue (instantaneous)" in lines


def test_tcp_figure_names_each_flows_group_when_there_are_several(core) -> None:
    res = _run("dumbbell-l4s", duration=3, **{"monitor.tcp_flows": "all"})
    labels = [ln.get_label() for ln in res.plot_tcp().axes[0].get_lines()]
    assert labels == ["flow 0 (prague)", "flow 1 (cubic)"]
