"""Readings: the choices a paper leaves open, the candidate answers to each, and the rule
that picks the one a reproduction reports first.

A paper rarely states everything its numbers depend on (queue units, gentle, w_q, run
length, delayed ACKs, …). Each such open question is a :class:`Choice`; each candidate
answer is a :class:`Reading`, tagged with where it comes from:

``derived``
    a quantity the paper's own published numbers determine (a run length from the packets
    sent at a known bottleneck rate): its arithmetic is printed on the page;
``ns2``
    what the authors' own tool would have done had they typed only what the paper states:
    the defaults of the ns-2 release of the paper's time, with the paper's numbers entered
    the way that ns-2 takes them;
``textbook``
    the reading of the literature the paper cites (Floyd & Jacobson 1993, the RFCs);
``text``
    any other reading the paper's text supports.

The **primary reading** of a choice is chosen by :data:`RULE`, from these tags and from
the paper's text alone (a reading the text contradicts carries the quotation in
``excluded``) — never from how well a reading matches the published numbers. A test
perturbs every published number and checks that no primary reading changes.

A :class:`Variant` assigns one reading to every choice. :func:`variants` lists the ones a
reproduction runs: the primary variant, then one variant per alternative reading of each
choice (every other choice at its primary reading: a one-at-a-time sensitivity design, as
in a tornado diagram), then the two coherent profiles "every choice as ns-2 takes it" and
"every choice by the textbook" where they differ from the variants already listed.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ..errors import ScenarioError
from ..scenario import Scenario, _set_path
from ..results import RED_FAMILY
from ..store import get_path

__all__ = ["Reading", "Choice", "Variant", "RULE", "SOURCES", "PRIMARY", "variants",
           "variant_named", "apply_variant", "analysis_options", "set_path", "get_path", "delayed_ack_choice", "queues", "red_queues",
           "ReadingError", "check_choices"]

#: Where a reading comes from, in the order the rule prefers them.
SOURCES: Tuple[str, ...] = ("derived", "ns2", "textbook", "text")
SOURCE_TEXT: Dict[str, str] = {
    "derived": "derived from the paper's published numbers",
    "ns2": "ns-2 as the authors would have typed it",
    "textbook": "textbook reading",
    "text": "another reading the paper's text supports",
}

#: The rule that picks the primary reading of every choice (printed on every paper page).
RULE = (
    "For every open choice the primary reading is the first of these that the paper's text "
    "does not contradict: (1) a value the paper's own published numbers determine, derived "
    "with the arithmetic shown; (2) what the authors' own tool, ns-2 of the paper's time, "
    "would have done had they typed only what the paper states (the release's defaults, the "
    "paper's numbers entered the way ns-2 takes them), since a paper that names its "
    "simulator and lists its parameters most plausibly left the rest at the defaults; "
    "(3) the textbook reading; (4) any other reading the text supports. Within a tier the "
    "first listed wins. The rule reads the tags and the paper's text only, never the "
    "published results: a test perturbs every published number and checks that no primary "
    "reading moves."
)

#: Name of the variant with every choice at its primary reading.
PRIMARY = "primary"

Apply = Callable[[Dict[str, Any], Any], None]


class ReadingError(ScenarioError):
    """A reading that is unknown, or that makes a scenario invalid."""


@dataclass(frozen=True)
class Reading:
    """One candidate answer to an open choice.

    ``apply(data, experiment)`` edits a scenario dict in place (a deep copy: edit freely)
    for one experiment of the paper; ``set`` is the simple form, dotted paths set on every
    experiment's scenario (``None`` removes a field). ``excluded``, when not empty, quotes
    the paper's text that rules this reading out as the primary one (it is still run as an
    alternative). ``arithmetic`` shows how a ``derived`` value follows from the published
    numbers; ``uses`` names those numbers; ``analysis`` sets options of the paper's
    analysis instead of the scenario (:func:`analysis_options`)."""

    name: str
    label: str
    source: str
    why: str
    set: Mapping[str, Any] = field(default_factory=dict)
    apply: Optional[Apply] = None
    excluded: str = ""
    arithmetic: str = ""
    uses: Tuple[str, ...] = ()
    #: Options of the paper's analysis (how a number is computed from the runs, e.g.
    #: which definition of a metric): they reach ``analyse`` as ``runs.options`` and
    #: change no scenario, so a reading made of them alone runs nothing new.
    analysis: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"reading {self.name!r}: source must be one of "
                             f"{', '.join(SOURCES)}, got {self.source!r}")
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", self.name):
            raise ValueError(f"reading {self.name!r}: use letters, digits and _ . - only")

    def edit(self, data: Dict[str, Any], experiment: Any) -> None:
        for path, value in self.set.items():
            set_path(data, path, copy.deepcopy(value))
        if self.apply is not None:
            self.apply(data, experiment)


@dataclass(frozen=True)
class Choice:
    """An open question of a paper and its candidate readings (two or more)."""

    name: str
    question: str
    readings: Tuple[Reading, ...]

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_\-]+", self.name):
            raise ValueError(f"choice {self.name!r}: use letters, digits, _ and - only")
        names = [r.name for r in self.readings]
        if len(names) < 2:
            raise ValueError(f"choice {self.name!r}: needs two or more readings")
        if len(set(names)) != len(names):
            raise ValueError(f"choice {self.name!r}: two readings share a name")

    @property
    def primary(self) -> Reading:
        """The reading :data:`RULE` picks: the first of the best-ranked source tier that the
        text does not exclude (if the text excludes all, the first of the best tier)."""
        return primary_of(self.readings)

    def reading(self, name: str) -> Reading:
        for r in self.readings:
            if r.name == name:
                return r
        raise ReadingError(f"reading {self.name}={name}: unknown reading of choice "
                           f"{self.name!r} (expected one of: "
                           f"{', '.join(r.name for r in self.readings)})")

    def by_source(self, source: str) -> Optional[Reading]:
        return next((r for r in self.readings if r.source == source), None)


def primary_of(readings: Sequence[Reading]) -> Reading:
    rank = {s: i for i, s in enumerate(SOURCES)}
    allowed = [r for r in readings if not r.excluded] or list(readings)
    return min(allowed, key=lambda r: (rank[r.source], readings.index(r)))


@dataclass(frozen=True)
class Variant:
    """One reading per choice: ``picks`` maps choice name -> reading name. ``name`` is
    ``primary``, ``choice=reading`` (one choice moved off its primary), ``ns2-as-typed``
    or ``textbook``; ``moved`` lists the choices not at their primary reading."""

    name: str
    picks: Mapping[str, str]
    moved: Tuple[str, ...] = ()
    description: str = ""


def variants(choices: Sequence[Choice]) -> List[Variant]:
    """The primary variant, each alternative reading one at a time, then the coherent
    ns-2 and textbook profiles (where they are not already in the list)."""
    prim = {c.name: c.primary.name for c in choices}
    out = [Variant(PRIMARY, dict(prim), (), "every choice at its primary reading")]
    for c in choices:
        for r in c.readings:
            if r.name == prim[c.name]:
                continue
            picks = dict(prim)
            picks[c.name] = r.name
            out.append(Variant(f"{c.name}={r.name}", picks, (c.name,),
                               f"{c.name}: {r.label} (every other choice primary)"))
    seen = {tuple(sorted(v.picks.items())) for v in out}
    for vname, source in PROFILES.items():
        text = PROFILE_TEXT[vname]
        picks = profile(choices, source)
        k = tuple(sorted(picks.items()))
        if k in seen:
            continue
        seen.add(k)
        moved = tuple(c.name for c in choices if picks[c.name] != prim[c.name])
        out.append(Variant(vname, picks, moved, text))
    return out


#: The coherent profiles: every choice at its reading of one source (where it has one).
PROFILES: Dict[str, str] = {"ns2-as-typed": "ns2", "textbook": "textbook"}
PROFILE_TEXT: Dict[str, str] = {"ns2-as-typed": "every choice as ns-2 takes it",
                                "textbook": "every choice by the textbook"}


def profile(choices: Sequence[Choice], source: str) -> Dict[str, str]:
    """Every choice at its first reading of ``source``, the others at their primary."""
    picks = {c.name: c.primary.name for c in choices}
    for c in choices:
        r = c.by_source(source)
        if r is not None:
            picks[c.name] = r.name
    return picks


def variant_named(choices: Sequence[Choice], name: str) -> Variant:
    """The variant called ``name`` (:func:`variants`), or one given as
    ``choice=reading[+choice=reading…]``; ReadingError naming the choices otherwise."""
    every = variants(choices)
    known = {v.name: v for v in every}
    if name in known:
        return known[name]
    if name in PROFILES:  # a profile equal to a variant listed under another name
        picks = profile(choices, PROFILES[name])
        return next(v for v in every if dict(v.picks) == picks)
    by_name = {c.name: c for c in choices}
    picks = {c.name: c.primary.name for c in choices}
    moved = []
    for part in name.split("+"):
        if "=" not in part:
            raise ReadingError(
                f"--readings: unknown reading {name!r} (expected one of: "
                f"{', '.join(known)}, or choice=reading with a choice of: "
                f"{', '.join(by_name) or 'none: this paper has no open choices'})")
        c, r = part.split("=", 1)
        if c not in by_name:
            raise ReadingError(f"--readings: {part!r}: unknown choice {c!r} (expected one "
                               f"of: {', '.join(by_name) or 'none'})")
        picks[c] = by_name[c].reading(r).name
        moved.append(c)
    return Variant(name, picks, tuple(moved), name)


def apply_variant(experiments: Sequence[Any], choices: Sequence[Choice],
                  variant: Variant) -> List[Any]:
    """The experiments with every choice's reading applied to their scenarios; each
    resulting scenario is checked, and a bad one raises :class:`ReadingError` naming the
    variant and the field."""
    from dataclasses import replace

    readings = [c.reading(variant.picks[c.name]) for c in choices]
    out = []
    for e in experiments:
        data = e.scenario.to_dict()
        for r in readings:
            try:
                r.edit(data, e)
            except ScenarioError as exc:
                raise ReadingError(f"reading {variant.name!r} ({r.name}) on {e.key}: "
                                   f"{exc}") from None
        sc = Scenario(data, path=e.scenario.path)
        out.append(replace(e, scenario=sc))
    return out


def analysis_options(choices: Sequence[Choice], variant: Variant) -> Dict[str, Any]:
    """The analysis options of a variant: every picked reading's ``analysis``, merged in
    the order of the choices."""
    out: Dict[str, Any] = {}
    for c in choices:
        out.update(c.reading(variant.picks[c.name]).analysis)
    return out


def check_variant(experiments: Sequence[Any], variant: Variant) -> None:
    """Validate every scenario of a variant with the engine: ReadingError names the
    variant, the experiment and the field."""
    for e in experiments:
        try:
            e.scenario.validate()
        except ScenarioError as exc:
            raise ReadingError(f"reading {variant.name!r} on {e.key}: {exc}") from None


def check_choices(choices: Sequence[Choice]) -> None:
    names = [c.name for c in choices]
    if len(set(names)) != len(names):
        raise ValueError("two choices share a name")


# --------------------------------------------------------------------------- edit helpers
def set_path(data: Dict[str, Any], path: str, value: Any) -> None:
    """Set dotted ``path`` in a scenario dict (``None`` removes the field)."""
    _set_path(data, path, value)


def delayed_ack_choice(ns2_why: str, name: str = "delayed_ack",
                       question: str = "Does the receiver delay its ACKs?") -> Choice:
    """The choice most papers leave open the same way: ns-2's Agent/TCPSink, an ACK for
    every packet (``off``, ns2: ``ns2_why`` names the release), or delayed ACKs, one for
    every second full-sized segment and at most 100 ms late (``on``, textbook)."""
    return Choice(name, question, (
        Reading("off", "an ACK for every packet", "ns2",
                f"{ns2_why} Agent/TCPSink acknowledges every packet (the DelAck sink must "
                "be asked for).",
                set={"tcp.delayed_ack": False, "tcp.delack_interval": 0.1}),
        Reading("on", "delayed ACKs, 100 ms", "textbook",
                "RFC 1122 §4.2.3.2 and RFC 2581/5681 §4.2: an ACK for at least every second "
                "full-sized segment; 100 ms as ns-2's Agent/TCPSink/DelAck interval_.",
                set={"tcp.delayed_ack": True, "tcp.delack_interval": 0.1}),
    ))


def queues(data: Dict[str, Any]) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """Every queue table of a scenario, with its dotted path: the dumbbell's bottleneck
    (both directions), its egress and access queues, and the queues of explicit links."""
    db = data.get("dumbbell")
    if isinstance(db, dict):
        for side in ("bottleneck", "egress"):
            link = db.get(side)
            if isinstance(link, dict):
                for q in ("queue", "reverse_queue"):
                    if isinstance(link.get(q), dict):
                        yield f"dumbbell.{side}.{q}", link[q]
        for i, g in enumerate(db.get("groups") or []):
            acc = g.get("access") if isinstance(g, dict) else None
            if isinstance(acc, dict):
                for q in ("queue", "reverse_queue"):
                    if isinstance(acc.get(q), dict):
                        yield f"dumbbell.groups.{i}.access.{q}", acc[q]
    links = data.get("links")
    if isinstance(links, list):
        for i, lk in enumerate(links):
            if isinstance(lk, dict):
                for q in ("queue", "reverse_queue"):
                    if isinstance(lk.get(q), dict):
                        yield f"links.{i}.{q}", lk[q]


#: Discipline kinds of the RED family (those with min_th / max_th / w_q …).
RED_KINDS = RED_FAMILY


def red_queues(data: Dict[str, Any]) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """The queue tables of the RED family (see :data:`RED_KINDS`)."""
    for path, q in queues(data):
        if str(q.get("kind", "")).lower() in RED_KINDS:
            yield path, q
