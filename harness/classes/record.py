"""A divergence class as a report holds it: ``ClassRecord``, made of typed, frozen parts: its key's fields, the
``Witness`` (the one input shown, with what each implementation answered), the ``Extent`` (how much of a run
showed it: a sweep's inputs, code points and templates, a fuzz run's first sighting) and the ``Coverage``
(new or expected, by which entries, each implementation's own share).

``from_json`` and ``to_json`` are the only place the report's camelCase names of a class live
(``schemas/divergence-report-v2.schema.json``, ``divergences``); ``merge`` joins two sightings of one class
(the smaller witness, the stricter coverage, the extents summed): the shard merge and the report diff read
and join classes through it. A sighting is a record at once (``of_sighting``, from what the classifier found,
``explain.Found``): a field the classifier observes of a witness is a field of ``Found`` (the classifier), a
field here (``Witness``, ``of_sighting``, ``to_json``, ``from_json``) and the schema; suites/classes/
test_class_record.py holds the three together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from harness.classes.key import ClassKey
from harness.classes.shrink import size
from harness.differential.explain import Found, char_ranges, code_point_runs, encode_response, parse_char_ranges
from harness.differential.outcomes import Responses, oracle_of, same_outcome
from harness.model import hostvalues
from harness.model.unicode_info import CharInfo, describe

NEW, EXPECTED = "new", "expected"


def char_info_json(info: CharInfo) -> dict[str, Any]:
    return {"codePoint": info.code_point, "name": info.name, "generalCategory": info.general_category,
            "age": info.age, "versions": info.versions}


def char_info_of(data: dict[str, Any]) -> CharInfo:
    return CharInfo(data["codePoint"], data["name"], data["generalCategory"], data.get("age"),
                    data.get("versions", {}))


def _decoded(output: dict[str, Any]) -> dict[str, Any]:
    """An answer as a report holds it (``explain.encode_response``) as the testee gave it."""
    return {"ok": hostvalues.decode(output["ok"])} if "ok" in output else output


@dataclass(frozen=True)
class Witness:
    """The input a class is shown by, as the report holds it (host values encoded), and what goes with it:
    each implementation's answer, the explanation, the characters it holds, the traces where they part and
    the command that runs it again. Replaced whole when a smaller witness is kept."""

    args: dict[str, Any]  # host-value encoded (harness/model/hostvalues.py)
    outputs: dict[str, dict[str, Any]]  # implementation -> {"ok": encoded} or {"error": {code, message}}
    explanation: str
    code_points: tuple[CharInfo, ...] = ()
    trace_at: dict[str, dict[str, Any]] | None = None  # each side's trace entry where they part
    replay: str | None = None
    rule: str | None = None  # the rule of harness/differential/causes that named it (None: counterfactuals)
    fallback: tuple[str, str | None] | None = None  # the counterfactual classifier's (cause, detail)
    oracle: str | None = None  # whose answer the others were judged against (None: a report that predates it)

    @property
    def answers(self) -> dict[str, dict[str, Any]]:
        """Each implementation's answer as the testee gave it (decoded from the report's form)."""
        return {name: _decoded(output) for name, output in self.outputs.items()}

    @property
    def size(self) -> int:
        """How big the witness is (harness/classes/shrink.py's measure): the smaller of two is kept."""
        return size(hostvalues.decode_args(self.args))

    def reaches(self, impls: Any) -> bool:
        """Whether every one of ``impls`` answered it (an input some host cannot hold reaches fewer)."""
        return set(impls) <= set(self.outputs)

    def sides(self, op: str, impls: Any) -> list[list[str]]:
        """The pairwise view: ``impls`` (a class's divergent implementations) grouped by the answer they gave
        on this witness, in their order; one group when they agree with each other (one behaviour, the
        oracle's the odd one out or theirs a shared bug), several when each differs its own way."""
        groups: list[list[str]] = []
        for name in impls:
            if name not in self.outputs:
                continue
            answer = _decoded(self.outputs[name])
            home = next((group for group in groups if same_outcome(op, _decoded(self.outputs[group[0]]), answer)),
                        None)
            if home is None:
                groups.append([name])
            else:
                home.append(name)
        return groups


@dataclass(frozen=True)
class Swept:
    """A sweep class's extent: every swept input of it, as counts, code point runs and templates."""

    inputs: int
    surrogate_pairs: int
    ranges: tuple[tuple[int, int], ...]  # every swept code point, as [first, last] runs
    templates: dict[str, int]  # template -> inputs
    outcome_kinds: dict[str, str]  # implementation -> ok or error:<code>

    @property
    def code_point_count(self) -> int:
        return sum(last - first + 1 for first, last in self.ranges)

    def merge(self, other: Swept) -> Swept:
        points = [cp for first, last in self.ranges + other.ranges for cp in range(first, last + 1)]
        templates = dict(self.templates)
        for template, count in other.templates.items():
            templates[template] = templates.get(template, 0) + count
        return replace(self, inputs=self.inputs + other.inputs,
                       surrogate_pairs=self.surrogate_pairs + other.surrogate_pairs,
                       ranges=tuple((a, b) for a, b in code_point_runs(sorted(set(points)))), templates=templates)


def describe_ranges(runs: Any, limit: int = 40) -> list[dict[str, Any]]:
    """The first runs of code points, with names, for people (a report's ``codePointRanges``)."""
    shown = []
    for first, last in list(runs)[:limit]:
        entry: dict[str, Any] = {"first": f"U+{first:04X}", "last": f"U+{last:04X}", "count": last - first + 1,
                                 "firstName": describe(first, {}).name}
        if last != first:
            entry["lastName"] = describe(last, {}).name
        shown.append(entry)
    return shown


@dataclass(frozen=True)
class Extent:
    """How much of a run showed a class: a fuzz run's first sighting, a sweep's swept inputs."""

    found_after: float | None = None  # seconds into a fuzz run
    swept: Swept | None = None

    def merge(self, other: Extent) -> Extent:
        seen = [t for t in (self.found_after, other.found_after) if t is not None]
        swept = self.swept if other.swept is None else other.swept if self.swept is None else \
            self.swept.merge(other.swept)
        return Extent(min(seen) if seen else None, swept)


@dataclass(frozen=True)
class Coverage:
    """New or expected, and by which entries of the expected lists (``implementation/id``, the first is v1's
    ``expectedEntry``); ``own_details``: each divergent implementation's own share of a version skew."""

    status: str = NEW
    entries: tuple[str, ...] = ()
    own_details: dict[str, str | None] = field(default_factory=dict)

    @property
    def entry(self) -> str | None:
        return self.entries[0] if self.entries else None

    def stricter(self, other: Coverage) -> Coverage:
        """A class new in one sighting is new in the join."""
        return Coverage(NEW, (), self.own_details) if NEW in (self.status, other.status) else self


@dataclass(frozen=True)
class ClassRecord:
    op: str
    divergent: tuple[str, ...]
    cause: str
    detail: str | None
    step: str | None
    witness: Witness
    characters: frozenset[int] = frozenset()  # what the cause is about (a sweep class: every swept code point too)
    extent: Extent = Extent()
    coverage: Coverage = Coverage()

    @property
    def key(self) -> ClassKey:
        return ClassKey.of(self.op, self.divergent, self.cause, self.detail, self.step)

    @property
    def status(self) -> str:
        return self.coverage.status

    @property
    def new(self) -> bool:
        return self.coverage.status == NEW

    @classmethod
    def of_sighting(cls, op: str, args: dict[str, Any], responses: Responses, divergent: Iterable[str], found: Found,
                    code_points: Iterable[CharInfo] = (), own_details: dict[str, str | None] | None = None,
                    extent: Extent = Extent(), coverage: Coverage | None = None,
                    replay: str | None = None) -> ClassRecord:
        """A sighting as a record, at once: one input (``args``, as the testees were given it), what each
        implementation answered, the implementations of one share and what the classifier found of it
        (``Found``: the witness's explanation, rule, counterfactual cause, trace entries; the class's cause,
        detail, step, characters). Everything a classifier observes of a witness reaches the record here and
        nowhere else. ``own_details``: each implementation's own share of a version skew, worked out on this
        input (harness/classes/examine.py); its coverage is then a lookup (harness/classes/expected.py,
        ``cover``)."""
        witness = Witness(hostvalues.encode_args(args), {name: encode_response(r) for name, r in responses.items()},
                          found.explanation, tuple(code_points), found.trace_at or None, replay, found.rule,
                          found.fallback, oracle_of(op, responses))
        if coverage is None:
            coverage = Coverage(own_details=dict(own_details or {}))
        return cls(op, tuple(divergent), found.cause, found.detail, found.step, witness,
                   frozenset(ord(ch) for ch in found.chars), extent, coverage)

    def merge(self, other: ClassRecord) -> ClassRecord:
        """This class joined with another sighting of it: extents summed; the smaller witness kept when it
        reached every implementation this class names (with its characters, but for a sweep class, whose
        characters are every swept code point: united); the stricter coverage."""
        extent = self.extent.merge(other.extent)
        swept = extent.swept is not None
        characters = self.characters | other.characters if swept else self.characters
        witness, coverage = self.witness, self.coverage.stricter(other.coverage)
        if other.witness.size < self.witness.size and other.witness.reaches(self.divergent):
            witness = other.witness
            characters = characters if swept else other.characters
            coverage = replace(coverage, own_details=other.coverage.own_details)  # worked out on its witness
        return replace(self, witness=witness, characters=characters, extent=extent, coverage=coverage)

    def named_by(self, key: ClassKey, witness_from: ClassRecord) -> ClassRecord:
        """The class named by a grown key, shown by a sighting that reached every implementation of it."""
        return replace(self, divergent=key.impls, witness=witness_from.witness,
                       characters=self.characters if self.extent.swept is not None else witness_from.characters,
                       coverage=replace(self.coverage, own_details=witness_from.coverage.own_details))

    # The report's form: the only place its camelCase names of a class live.

    def to_json(self) -> dict[str, Any]:
        witness, coverage = self.witness, self.coverage
        out: dict[str, Any] = {
            "op": self.op,
            "args": witness.args,
            "outputs": witness.outputs,
            "divergent": list(self.divergent),
            "cause": self.cause,
            "detail": self.detail,
            "explanation": witness.explanation,
            "codePoints": [char_info_json(info) for info in witness.code_points],
            "status": coverage.status,
            "expectedEntry": coverage.entry,
            "expectedEntries": list(coverage.entries),
            "foundAfterSeconds": None if self.extent.found_after is None else round(self.extent.found_after, 1),
            "step": self.step,
            "rule": witness.rule,
            "characters": char_ranges(self.characters),
            "fallbackCause": None if witness.fallback is None else {"cause": witness.fallback[0],
                                                                      "detail": witness.fallback[1]},
        }
        if coverage.own_details:
            out["ownDetails"] = coverage.own_details
        if len(self.divergent) > 1:
            out["divergentSides"] = witness.sides(self.op, self.divergent)
        if witness.trace_at:
            out["traceAtStep"] = witness.trace_at
        swept = self.extent.swept
        if swept is not None:
            out.update({"inputs": swept.inputs, "codePointCount": swept.code_point_count,
                        "surrogatePairs": swept.surrogate_pairs, "ranges": [list(run) for run in swept.ranges],
                        "codePointRanges": describe_ranges(swept.ranges), "codePointRangeCount": len(swept.ranges),
                        "templates": swept.templates, "outcomeKinds": swept.outcome_kinds})
        if witness.replay is not None:
            out["replay"] = witness.replay
        if witness.oracle is not None:
            out["oracle"] = witness.oracle
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClassRecord:
        """A class of a report (v1 or v2, validated against its schema before): what a v1 report lacks is
        read as absent."""
        fallback = data.get("fallbackCause")
        witness = Witness(data["args"], data["outputs"], data.get("explanation", ""),
                          tuple(char_info_of(info) for info in data.get("codePoints") or ()),
                          data.get("traceAtStep") or None, data.get("replay"), data.get("rule"),
                          None if fallback is None else (fallback["cause"], fallback.get("detail")),
                          data.get("oracle"))
        swept = None
        if "ranges" in data and "inputs" in data:
            swept = Swept(data["inputs"], data.get("surrogatePairs", 0),
                          tuple((first, last) for first, last in data["ranges"]), dict(data.get("templates", {})),
                          dict(data.get("outcomeKinds", {})))
        entries = tuple(data.get("expectedEntries") or ()) or \
            ((data["expectedEntry"],) if data.get("expectedEntry") else ())
        return cls(data["op"], tuple(data["divergent"]), data["cause"], data.get("detail"), data.get("step"), witness,
                   frozenset(parse_char_ranges(data.get("characters") or [])),
                   Extent(data.get("foundAfterSeconds"), swept),
                   Coverage(data.get("status", NEW), entries, dict(data.get("ownDetails") or {})))
