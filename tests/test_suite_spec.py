"""The RFC 7928 suite's files and their loader (aqmsim.suite.spec): every file loads, every
run's scenario is one the engine accepts, sections exist, bad files are refused naming the
file and field, task keys are unique, and medium congestion is the ns-3 anchor's scenario."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest
from conftest import fresh_python

from aqmsim import Scenario, ScenarioError
from aqmsim.suite.spec import RFC7928_SECTIONS, Suite, Variant

AQMS = ("red", "ared", "gentle", "rtred", "codel", "pie", "fq_codel", "fq_pie", "dualpi2", "cobalt", "fq_cobalt", "cake")

@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite.load("rfc7928")  # every run checked by the engine too


def _texts():
    root = files("aqmsim.suite") / "rfc7928"
    return {p.name: p.read_text(encoding="utf-8") for p in root.iterdir() if p.name.endswith(".toml")}


def test_every_file_loads(suite):
    names = {s.name for s in suite.scenarios}
    assert len(names) == len(suite.scenarios) == len(_texts()) - 1  # minus disciplines.toml
    assert tuple(suite.disciplines) == AQMS
    for s in suite.scenarios:
        assert s.title and s.asks and s.reading and s.variants
        assert s.base["monitor"]["delays"] is True and s.base["monitor"]["queues"] == ["R1->R2"]
        assert "notes" in s.base and s.base["notes"]
        if len(s.variants) > 1:
            assert s.variant_axis


def test_the_scenarios_the_issue_asks_for(suite):
    sections = {s.section for s in suite.scenarios}
    for needed in ("4.5", "5.1.1", "5.1.2", "5.2", "5.3", "5.4", "6", "7", "8.2", "8.2.5", "8.2.6", "8.3", "9.1"):
        assert needed in sections
    levels = suite.scenario("congestion-level")
    assert [v.label for v in levels.variants] == ["mild", "medium", "heavy"]


def test_sections_cited_exist(suite):
    for s in suite.scenarios:
        assert s.section in RFC7928_SECTIONS
        for cited in re.findall(r"§(\d+(?:\.\d+)*)", s.asks + " " + s.reading):
            assert cited in RFC7928_SECTIONS, f"{s.name} cites §{cited}"


def test_common_rules(suite):
    """TCP is aqmsim's sack (unless the scenario is about another TCP), 1000-byte payloads,
    every group a dumbbell sender with an egress link."""
    for s in suite.scenarios:
        assert s.base["tcp"]["variant"] == "sack"
        assert s.base["tcp"]["packet_size"] == 1000 and s.base["tcp"]["header"] == 40
        for g in s.base["dumbbell"]["groups"]:
            assert "egress" in g
            if g.get("tcp", {}).get("variant", "sack") != "sack":
                assert s.name in ("aggressive-sender", "less-than-best-effort", "ecn-capable",
                                  "ecn-classic-l4s")
    # RED's mean_pktsize is the data packet on the wire in every scenario
    for name in ("red", "ared", "gentle", "rtred"):
        assert suite.disciplines[name].queue["mean_pktsize"] == 1000 + 40


def test_medium_congestion_is_the_anchor_scenario(suite):
    s = suite.scenario("congestion-level")
    medium = next(v for v in s.variants if v.label == "medium")
    data = s.scenario(medium, suite.disciplines["codel"])
    bn = data["dumbbell"]["bottleneck"]
    assert (bn["rate"], bn["delay"], bn["queue"]["limit"]) == ("10Mb", "25ms", 45)
    assert bn["queue"]["kind"] == "codel"
    (g,) = data["dumbbell"]["groups"]
    assert g["count"] == 8 and g["app"] == "ftp" and g["start"] == {"uniform": [0.0, 1.0]}
    for side in ("access", "egress"):
        assert (g[side]["rate"], g[side]["delay"]) == ("100Mb", "1ms")
    assert data["duration"] == "60s"
    resolved = Scenario(data).validate()
    assert resolved["duration"] == 60.0
    assert len(resolved["flows"]) == 8
    assert all(0.0 <= f["start"] <= 1.0 and f["tcp"]["variant"] == "sack" for f in resolved["flows"])


def test_discipline_replaces_the_queue_but_keeps_the_buffer(suite):
    s = suite.scenario("rtt-fairness")
    v = s.variants[0]
    for d in suite.disciplines.values():
        q = s.scenario(v, d)["dumbbell"]["bottleneck"]["queue"]
        # the buffer in packets, or in bytes of data packets on the wire (CAKE's memlimit)
        assert q["kind"] == d.queue["kind"] and q.get("limit", q.get("memlimit", 0) // 1040) == 45
        assert {k: q[k] for k in d.queue} == d.queue
    # RTRED's risk threshold follows the buffer: 0.8 x 45, and x 100 when a variant sets it
    rt = suite.disciplines["rtred"]
    assert s.scenario(v, rt)["dumbbell"]["bottleneck"]["queue"]["risk_th"] == 36
    big = Variant("big", 100, {"dumbbell.bottleneck.queue.limit": 100})
    assert s.scenario(big, rt)["dumbbell"]["bottleneck"]["queue"]["risk_th"] == 80
    # the base itself is not changed
    assert s.base["dumbbell"]["bottleneck"]["queue"] == {"kind": "droptail", "limit": 45}


def test_rtt_fairness_variants_give_the_rtts_they_name(suite):
    s = suite.scenario("rtt-fairness")
    assert [v.value for v in s.variants] == [5, 10, 20, 50, 100, 200, 400, 560]
    assert Scenario(s.base)["dumbbell.bottleneck.delay"] == "1ms"
    # RTT = 2 x (access + bottleneck 1 ms + egress 1 ms)
    for v in s.variants:
        sc = Scenario(s.scenario(v, suite.disciplines["red"]))
        assert sc["dumbbell.groups.1.egress.delay"] == "1ms"
        ms = float(sc["dumbbell.groups.1.access.delay"].rstrip("ms"))
        assert 2 * (ms + 2) == v.value
    assert Scenario(s.base)["dumbbell.groups.0.access.delay"] == "48ms"


def test_sensitivity_expands_per_discipline(suite):
    s = suite.scenario("parameter-sensitivity")
    assert set(s.sensitivity) == set(AQMS)
    codel = s.variants_for("codel")
    assert [v.value for v in codel] == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert codel[0].label == "× 0.25"
    q = s.scenario(codel[0], suite.disciplines["codel"])["dumbbell"]["bottleneck"]["queue"]
    assert q["target"] == 0.00125 and q["limit"] == 45
    # every other scenario: the same variants for every discipline
    other = suite.scenario("congestion-level")
    assert other.variants_for("codel") == other.variants


def _runs(suite):
    return [(s.name, v.label, a) for s in suite.scenarios for a in AQMS for v in s.variants_for(a)]


@pytest.mark.parametrize("scenario", [n for n in sorted(p[:-5] for p in _texts()) if n != "disciplines"])
def test_every_run_is_a_valid_aqmsim_scenario(suite, scenario):
    s = suite.scenario(scenario)
    for a in AQMS:
        d = suite.disciplines[a]
        for v in s.variants_for(a):
            resolved = Scenario(s.scenario(v, d)).validate()
            assert resolved["duration"] > 0


def test_tasks(suite):
    tasks = suite.tasks(list(AQMS), [1, 2, 3, 4, 5])
    keys = {t.key for t in tasks}
    assert len(keys) == len(_runs(suite)) == len(tasks) // 5
    assert len({(t.key, t.seed) for t in tasks}) == len(tasks)
    first = tasks[0]
    assert first.scenario == suite.scenarios[0].name and first.seed == 1
    assert first.key.count(" | ") in (1, 2)
    t = next(t for t in tasks if t.scenario == "rtt-fairness" and t.variant == "RTT 200 ms"
             and t.aqm == "codel")
    assert t.key == "rtt-fairness | RTT 200 ms | codel" and t.section == "6"
    assert t.data["dumbbell"]["bottleneck"]["queue"]["kind"] == "codel"
    some = suite.tasks(["pie"], [7], scenarios=["congestion-level"])
    assert [(t.variant, t.seed) for t in some] == [("mild", 7), ("medium", 7), ("heavy", 7)]


@pytest.mark.parametrize("call, message", [
    (lambda s: s.tasks(["red", "blue"], [1]), r"^aqm: unknown discipline 'blue' \(allowed: red, ared"),
    (lambda s: s.tasks([], [1]), r"^aqm: no discipline"),
    (lambda s: s.tasks(["red"], [1], scenarios=["nope"]), r"^scenarios: unknown scenario 'nope' \(allowed: "),
    (lambda s: s.tasks(["red"], [-1]), r"^seeds: each seed must be an integer"),
    (lambda s: Suite.load("rfc9999"), r"^suite: unknown suite 'rfc9999' \(allowed: rfc7928\)"),
])
def test_bad_names(suite, call, message):
    with pytest.raises(ScenarioError, match=message):
        call(suite)


def _with(fname: str, old: str, new: str):
    texts = _texts()
    assert old in texts[fname]
    texts[fname] = texts[fname].replace(old, new, 1)
    return texts


@pytest.mark.parametrize("fname, old, new, message", [
    ("rtt-fairness.toml", 'title = ', 'colour = "red"\ntitle = ',
     r"^rfc7928/rtt-fairness\.toml: unknown field 'colour' \(allowed: section, "),
    ("rtt-fairness.toml", 'asks = ', 'ask = ', r"^rfc7928/rtt-fairness\.toml: unknown field 'ask'"),
    ("rtt-fairness.toml", 'variant_axis = "RTT of the second flow (ms)"\n', '',
     r"^rfc7928/rtt-fairness\.toml: variant_axis \(needed with several variants\)"),
    ("congestion-level.toml", 'section = "8.2"', 'section = "8.9"',
     r"^rfc7928/congestion-level\.toml: section: '8\.9' is not a section of RFC 7928"),
    ("congestion-level.toml", 'label = "heavy"', 'label = "mild"',
     r"^rfc7928/congestion-level\.toml: variants\[2\]\.label: 'mild' twice"),
    ("congestion-level.toml", 'label = "heavy"\nvalue = 11\n', 'label = "heavy"\nvalue = 11\nseed = 3\n',
     r"^rfc7928/congestion-level\.toml: variants\[2\]: unknown field 'seed' \(allowed: label, value, set\)"),
    ("congestion-level.toml", 'delays = true', 'delays = false',
     r"^rfc7928/congestion-level\.toml: base\.monitor\.delays: must be true"),
    ("congestion-level.toml", 'queue = { kind = "droptail", limit = 45 }', 'queue = { kind = "droptail" }',
     r"^rfc7928/congestion-level\.toml: base\.dumbbell\.bottleneck\.queue\.limit: expected the buffer"),
    ("parameter-sensitivity.toml", 'red = "max_p"', 'blue = "max_p"',
     r"^rfc7928/parameter-sensitivity\.toml: sensitivity\.blue: unknown discipline"),
    ("parameter-sensitivity.toml", "factors = [0.25, 0.5, 1, 2, 4]", "factors = [1, 1]",
     r"^rfc7928/parameter-sensitivity\.toml: sensitivity\.factors: expected a list of distinct"),
    ("parameter-sensitivity.toml", 'pie = "target"\n', "",
     r"^rfc7928/parameter-sensitivity\.toml: sensitivity: every discipline needs its parameter .*missing: pie"),
    ("parameter-sensitivity.toml", 'pie = "target"', 'pie = "derandomize"',
     r"^rfc7928/parameter-sensitivity\.toml: sensitivity\.pie: 'derandomize' is not a positive number"),
    ("varying-capacity.toml", 'series = ["queue"]', 'series = ["tcp"]',
     r"^rfc7928/varying-capacity\.toml: series: expected a list of tables among queue, drops, links"),
    ("disciplines.toml", 'label = "CoDel"', 'name = "CoDel"',
     r"^rfc7928/disciplines\.toml: disciplines\.codel: unknown field 'name' \(allowed: label, note"),
    ("disciplines.toml", 'label = "PIE"\n', '',
     r"^rfc7928/disciplines\.toml: disciplines\.pie\.label: missing: a required field"),
    ("disciplines.toml", 'kind = "codel", ', 'kind = "codel", limit = 100, ',
     r"^rfc7928/disciplines\.toml: disciplines\.codel\.queue: no 'limit' here"),
    ("tcp-friendly-same-iw.toml", 'section = "5.1.1"', 'section = "5.1.1',
     r"^rfc7928/tcp-friendly-same-iw\.toml: TOML syntax error"),
])
def test_bad_files_are_refused_naming_file_and_field(fname, old, new, message):
    with pytest.raises(ScenarioError, match=message):
        Suite.from_texts("rfc7928", _with(fname, old, new))


def test_bad_values_fail_when_the_suite_is_validated():
    texts = _with("aggressive-sender.toml", 'rate = "10Mb"', 'rate = "10Xb"')
    s = Suite.from_texts("rfc7928", texts)
    s.scenarios = [x for x in s.scenarios if x.name == "aggressive-sender"]
    with pytest.raises(ScenarioError, match=r"^rfc7928/aggressive-sender\.toml \(aggressive-sender \| CUBIC \| red\): "
                                            r".*dumbbell\.bottleneck\.rate"):
        s.validate()


def test_spec_does_not_import_pandas(tmp_path):
    code = ("import sys; import aqmsim.suite.spec as s; s.Suite.load(validate=False); "
            "print('pandas' in sys.modules)")
    out = fresh_python(["-c", code], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_the_cli_knows_the_suites_the_package_ships():
    import aqmsim.suite
    import aqmsim.suite.spec

    assert set(aqmsim.suite.SUITES) == set(aqmsim.suite.spec.SUITES)


def test_sensitivity_variants_are_factors_of_each_recommended_value(suite):
    s = suite.scenario("parameter-sensitivity")
    labels = {a: [v.label for v in s.variants_for(a)] for a in AQMS}
    assert all(lab == labels["red"] for lab in labels.values())  # compared variant by variant
    assert s.factors == (0.25, 0.5, 1.0, 2.0, 4.0)
    got = {a: [v.overrides[f"dumbbell.bottleneck.queue.{s.sensitivity[a][0]}"]
               for v in s.variants_for(a)] for a in ("red", "ared", "codel", "pie")}
    assert got == {"red": [0.025, 0.05, 0.1, 0.2, 0.4], "ared": [0.125, 0.25, 0.5, 1.0, 2.0],
                   "codel": [0.00125, 0.0025, 0.005, 0.01, 0.02],
                   "pie": [0.00375, 0.0075, 0.015, 0.03, 0.06]}
    # x 1 is the suite's rule itself: the same run as the medium-congestion base would give
    for a in AQMS:
        (one,) = [v for v in s.variants_for(a) if v.value == 1.0]
        param, rec = s.sensitivity[a]
        assert one.overrides[f"dumbbell.bottleneck.queue.{param}"] == rec


def test_stability_scenarios_keep_the_queue_over_time(suite):
    for name in ("varying-congestion", "varying-capacity"):
        assert suite.scenario(name).series == ("queue",)
        assert all(t.series == ("queue",) for t in suite.tasks(["codel"], [1], [name]))
    assert suite.scenario("congestion-level").series == ()
