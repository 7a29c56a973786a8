"""The characterisation suite's scenarios and disciplines, read from the package's files.

``Suite.load("rfc7928")`` reads ``aqmsim/suite/rfc7928/``: one TOML file per scenario of
RFC 7928 (name = file stem) and ``disciplines.toml`` (the queue table of each discipline
the suite compares). Every file is checked field by field (an unknown or missing field is
a :class:`ScenarioError` naming the file and the field), and, unless ``validate=False``,
every run's scenario (scenario x variant x discipline) is checked by the engine, so a bad
value fails when the suite is loaded, not half-way through a run of it.

A scenario file holds what the RFC asks (``section``, ``title``, ``asks``), how we read
what it leaves open (``reading``), the metrics it is about (``focus``), its variants
(``variant_axis``, ``[[variants]]`` with ``label``, ``value`` and ``set``: dotted-key
overrides, as :meth:`aqmsim.Scenario.with_overrides`), the parameter-sensitivity table
(``[sensitivity]``: only that scenario), ``ecn = true`` (a scenario about ECN: each
discipline's ``marking`` fields turn its marking on) and the aqmsim scenario itself
(``[base]``, or ``base = "file.toml"`` beside it). The base's bottleneck queue table gives the buffer
(``limit``); each discipline's table replaces the rest of it. docs/suite-rfc7928.md
describes every scenario.

The files are read by :mod:`aqmsim.suite.reader` into the data classes of
:mod:`aqmsim.suite.model` (the classes re-exported here). No pandas here: the CLI lists and checks
the suite without importing it.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import ScenarioError
from ..scenario import Scenario
from .model import Discipline, SuiteScenario, SuiteTask, Variant, run_key
from .reader import DISCIPLINES_FILE, parse, read_disciplines, read_scenario, section_key
from .sections import RFC7928_SECTIONS

__all__ = ["Discipline", "Variant", "SuiteScenario", "SuiteTask", "Suite", "SUITES",
           "RFC7928_SECTIONS"]

#: The suites shipped in the package: name -> title.
SUITES: Dict[str, str] = {
    "rfc7928": "RFC 7928: characterisation guidelines for active queue management",
}


class Suite:
    """A characterisation suite: its scenarios and the disciplines it compares."""

    def __init__(self, name: str, title: str, scenarios: List[SuiteScenario],
                 disciplines: Dict[str, Discipline], rule: str = "") -> None:
        self.name = name
        self.title = title
        self.scenarios = scenarios
        self.disciplines = disciplines
        #: how every discipline's parameters were chosen (disciplines.toml's ``rule``)
        self.rule = rule

    def __repr__(self) -> str:
        return (f"Suite({self.name!r}: {len(self.scenarios)} scenarios, "
                f"{len(self.disciplines)} disciplines)")

    @classmethod
    def load(cls, name: str = "rfc7928", validate: bool = True) -> "Suite":
        """Read and check the suite ``name`` shipped in the package. With ``validate``
        every run's scenario is also checked by the engine (a few hundred ms)."""
        if name not in SUITES:
            raise ScenarioError(f"suite: unknown suite {name!r} (allowed: {', '.join(SUITES)})")
        from importlib.resources import files

        root = files("aqmsim.suite") / name
        texts = {p.name: p.read_text(encoding="utf-8") for p in root.iterdir()
                 if p.name.endswith(".toml")}
        suite = cls.from_texts(name, texts)
        if validate:
            suite.validate()
        return suite

    @classmethod
    def from_texts(cls, name: str, texts: Mapping[str, str]) -> "Suite":
        """The suite from its files' texts (file name -> TOML text): what :meth:`load`
        reads, without the engine's check."""
        where = f"{name}/{DISCIPLINES_FILE}"
        if DISCIPLINES_FILE not in texts:
            raise ScenarioError(f"{where}: missing (every suite lists its disciplines)")
        rule, disciplines = read_disciplines(where, parse(where, texts[DISCIPLINES_FILE]))
        scenarios = []
        for fname in sorted(texts):
            if fname == DISCIPLINES_FILE or fname.startswith("_"):
                continue  # "_*.toml": base files that scenario files name
            scenarios.append(read_scenario(name, fname, texts, disciplines))
        scenarios.sort(key=lambda s: (section_key(s.section), s.name))
        return cls(name, SUITES.get(name, name), scenarios, disciplines, rule)

    # ------------------------------------------------------------------ lookups
    def scenario(self, name: str) -> SuiteScenario:
        for s in self.scenarios:
            if s.name == name:
                return s
        raise ScenarioError(f"scenarios: unknown scenario {name!r} (allowed: "
                            f"{', '.join(s.name for s in self.scenarios)})")

    def validate(self) -> None:
        """Check every run's scenario with the engine; the first bad one raises a
        ScenarioError naming the scenario, variant and discipline."""
        for s in self.scenarios:
            for d in self.disciplines.values():
                for v in s.variants_for(d.name):
                    try:
                        Scenario(s.scenario(v, d)).validate()
                    except ScenarioError as exc:
                        raise ScenarioError(
                            f"{self.name}/{s.name}.toml ({run_key(s.name, v.label, d.name)}): {exc}"
                        ) from None

    def tasks(self, aqms: Sequence[str], seeds: Sequence[int],
              scenarios: Optional[Sequence[str]] = None) -> List[SuiteTask]:
        """Every run: scenario -> variant -> discipline -> seed, in the suite's order."""
        aqms = list(aqms)
        for a in aqms:
            if a not in self.disciplines:
                raise ScenarioError(f"aqm: unknown discipline {a!r} (allowed: "
                                    f"{', '.join(self.disciplines)})")
        if not aqms:
            raise ScenarioError(f"aqm: no discipline given (allowed: {', '.join(self.disciplines)})")
        seeds = list(seeds)
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**64:
                raise ScenarioError(f"seeds: each seed must be an integer in [0, 2^64), got {s!r}")
        if not seeds:
            raise ScenarioError("seeds: no seed given (at least one)")
        chosen = self.scenarios if scenarios is None else [self.scenario(n) for n in scenarios]
        out = []
        for s in chosen:
            for a in aqms:
                d = self.disciplines[a]
                for v in s.variants_for(a):
                    data = s.scenario(v, d)
                    out.extend(SuiteTask(s.name, s.section, v.label, a, seed, data,
                                         v.value, s.series) for seed in seeds)
        # scenario -> variant -> aqm: the order a reader expects; stable within
        order = {s.name: i for i, s in enumerate(chosen)}
        vorder: Dict[Tuple[str, str], int] = {}
        for t in out:
            vorder.setdefault((t.scenario, t.variant), len(vorder))
        aorder = {a: i for i, a in enumerate(aqms)}
        out.sort(key=lambda t: (order[t.scenario], vorder[(t.scenario, t.variant)],
                                aorder[t.aqm], seeds.index(t.seed)))
        return out
