"""A divergence and its cause: run one input on several implementations and, when some disagree, name why.

The cause is read off the step traces where the oracle and every implementation that disagrees with it serve
them (harness/differential/causes/, the first step where the traces part); the counterfactual classifier
(harness/differential/counterfactual/) runs beside it and names the cause everywhere else. ``CAUSES`` is every
cause a report may carry: those the two classifiers' rules name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from harness.differential import causes, counterfactual
from harness.differential.causes import Stats as CauseStats
from harness.differential.causes import cause_from_traces
from harness.differential.causes.facts import DIVERGENT_ONLY, ORACLE_ONLY
from harness.differential.counterfactual import classify, skew
from harness.differential.counterfactual import length as counterfactual_length
from harness.differential.counterfactual.characters import acted_on, named_characters
from harness.differential.counterfactual.probe import Probe
from harness.differential.counterfactual.rewrite import all_strings
from harness.differential.outcomes import FAILURES, Responses, divergent, observe, oracle_of
from harness.differential.rule import Verdict
from harness.model import hostvalues, unicode_tables, untrusted
from harness.model.json_features import MAX_DEPTH, bracket_depth, string_brackets_made_letters
from harness.model.registry import OPS, Op
from harness.model.traces import parse as parse_trace
from harness.model.traces import parting_entries
from harness.model.unicode_info import CharInfo, describe, interesting
from harness.testees.fanout import serves
from harness.testees.impls import check_platforms, described_unicode
from harness.testees.testee import Testee
from harness.testees.traces import problems, request_trace, traced_ops

CAUSES: tuple[str, ...] = tuple(dict.fromkeys((*counterfactual.CAUSES, *causes.CAUSES)))


def code_points(args: dict[str, Any], versions: dict[str, dict[str, str]]) -> list[CharInfo]:
    seen: list[int] = []
    for text in all_strings(args):
        for ch in text:
            cp = ord(ch)
            if interesting(cp) and cp not in seen:
                seen.append(cp)
    return [describe(cp, versions) for cp in seen[:40]]


@dataclass(frozen=True)
class Found:
    """A divergence's cause: from the step traces where every side serves them, else from counterfactuals."""

    cause: str
    explanation: str
    detail: str | None
    step: str | None = None  # where the traces part (None: counterfactuals named it)
    rule: str | None = None  # the rule of harness/differential/causes that named it
    fallback: tuple[str, str | None] | None = None  # the counterfactual classifier's (cause, detail), run beside
    chars: tuple[str, ...] = ()  # the characters the cause is about (the step treated them differently)
    # Traces: each implementation's entry where its trace parts from the oracle's (the oracle's too), as
    # harness/model/traces.parting_entries gives it; what a report and the page show of the step.
    trace_at: dict[str, dict[str, Any]] | None = None

    @property
    def named(self) -> tuple[str, str, str | None]:
        return self.cause, self.explanation, self.detail


def _traces(impls: dict[str, Testee], op_name: str, args: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    """Every named implementation's trace of the call (checked: harness/testees/traces.py), or None when one
    of them serves none or gives one that fails its checks (then counterfactuals name the cause). A testee
    whose claim to trace the op was shown false in this run (a refused or malformed trace: a handshake_lie,
    harness/testees/command.py keeps it in ``untraced``) serves none: it is not asked again."""
    found = {}
    for name in names:
        if op_name not in traced_ops(impls[name]) or op_name in (getattr(impls[name], "untraced", None) or {}):
            return None
        response = request_trace(impls[name], op_name, args)
        if problems(op_name, response, None, validate=False):
            return None
        found[name] = parse_trace(response["ok"])
    return found


@dataclass(frozen=True)
class Share:
    """The implementations of one divergence whose traces part from the oracle's at one step for one cause:
    one bug. A witness can show two at once (a version skew on one implementation riding along with a bug
    of another); each is its own share, so neither hides nor splits the other's class."""

    impls: tuple[str, ...]
    found: Found


def name_shares(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
                versions: dict[str, dict[str, str]] | None = None, fallback: bool = True,
                stats: CauseStats | None = None) -> list[Share]:
    """The causes of a divergence, one share per cause (``_shares``), a JSON refusal's depth read by its
    counterfactual (``_depth_in_play``)."""
    shares = _shares(impls, op_name, args, responses, versions, fallback, stats)
    if not shares:
        return shares
    oracle = oracle_of(op_name, responses)
    return [_depth_in_play(impls, op_name, args, oracle, share) for share in shares]


def _depth_in_play(impls: dict[str, Testee], op_name: str, args: dict[str, Any], oracle: str, share: Share) -> Share:
    """A json_strictness share whose texts break no strict rule (no detail) but nest past the limit counted
    inside their strings: where the brackets in those strings made letters settle it, the depth rule is what
    the refusal is about (a scan that ends a string at an escaped quote, or does not skip strings, counts them),
    and the share's detail is ``depth``, the class of that bug's other face (a text really too deep taken).
    A text refused for something else (a large integer) beside a string of brackets stays as it was."""
    found = share.found
    if found.cause != "json_strictness" or found.detail is not None or oracle not in impls:
        return share
    texts = [p.name for p in OPS[op_name].params if p.error_code == "invalid_json"
             and isinstance(args.get(p.name), str) and bracket_depth(args[p.name]) > MAX_DEPTH]
    if not texts:
        return share
    lettered = {**args, **{name: string_brackets_made_letters(args[name]) for name in texts}}
    part = {name: impls[name] for name in (oracle, *share.impls) if name in impls}
    if divergent(op_name, observe(part, op_name, lettered)):
        return share
    return replace(share, found=replace(found, detail="depth", explanation=found.explanation + " (depth: with the "
                                        "brackets inside its strings made letters, the sides agree)"))


def _shares(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
            versions: dict[str, dict[str, str]] | None = None, fallback: bool = True,
            stats: CauseStats | None = None, depth: int = 0) -> list[Share]:
    """The causes of a divergence, one share per cause. Where the oracle and every implementation that
    disagrees with it serve traces (and none crashed), each disagreeing one's trace is compared with the
    oracle's (harness/differential/causes); those that part at the same step for the same cause are one
    share. The counterfactual classifier (``classify``) runs beside it on each share's implementations
    (``fallback``), and names the cause of the whole divergence everywhere else (one share)."""
    versions = versions or {}
    names = divergent(op_name, responses)
    if not names:
        return []
    crashed = any("error" in r and r["error"].get("code") in FAILURES for r in responses.values())
    oracle = oracle_of(op_name, responses)  # the oracle as divergent() takes it
    traced = None if crashed else _traces(impls, op_name, args, [oracle, *names])
    firsts = {} if traced is None else {
        name: cause_from_traces(op_name, traced[oracle], traced[name], args, versions.get(oracle, {}),
                                versions.get(name, {}),
                                confirm=_confirmer(impls, op_name, args, responses, versions, oracle, name))
        for name in names}
    if traced is None or any(first is None for first in firsts.values()):
        # No traces, or traces that agree where the outputs do not (a trace hiding a step: checked, so rare).
        cause, why, detail = classify(impls, op_name, args, responses, versions, stats)
        if len(names) > 1 and cause != skew.SKEW:
            # Each disagreeing implementation's own share (a skew has its own: own_details), by its traces
            # where it and the oracle serve them and by counterfactuals where not: a black box is blamed only
            # for what it does itself, never for a difference another implementation brings to the witness.
            return _joined([share for name in names for share in _shares(
                {oracle: impls[oracle], name: impls[name]}, op_name, args,
                {oracle: responses[oracle], name: responses[name]}, versions, fallback, stats, depth)],
                names, versions)
        kept = acted_on(op_name, args, responses)[1] if detail in (ORACLE_ONLY, DIVERGENT_ONLY) else ()
        # a skew's step: the one step that reads its property's data, where the op declares one (skew.declared_step)
        step = skew.declared_step(op_name, detail) if cause == skew.SKEW else None
        return [Share(tuple(names), Found(cause, why, detail, step,
                                          chars=named_characters(cause, args, versions, kept)))]
    for name in names:
        seen = skew.behind_a_skew(impls, op_name, args, oracle, name, traced, versions)
        if seen is not None:
            firsts[name] = seen
    # A version skew is one per version pair: implementations that read a step with other data of the same
    # Unicode version share it; one of another version is a skew of its own (its own expected entry).
    groups = _bugs([(name, (first.step, first.cause, first.detail,
                            skew.version_pair(first.cause, first.detail, versions.get(name, {}))), first.chars)
                    for name, first in firsts.items() if first is not None])
    shares: list[Share] = []
    for members in groups:
        first = firsts[members[0]]
        assert first is not None
        part = {oracle: impls[oracle], **{name: impls[name] for name in members}}
        if first.cause == skew.SKEW and depth < 2:
            # A skew where the traces part first may ride along with a bug further on (two differences at
            # once): with the characters whose data differs between these sides' versions replaced, a
            # divergence that remains is the one they are reported under.
            left = skew.left_after_peeling(part, op_name, args,
                                           skew.skewed_at(first.detail, op_name, args, oracle, members, versions),
                                           versions)
            still = divergent(op_name, left[1]) if left else []
            if left and still:
                peeled, after = left
                # Their trace entries are read again off this witness's traces (the peeled input's are not
                # the witness a report shows).
                shares += [replace(share, found=replace(share.found, trace_at=_trace_at(
                    share.found.step, traced, oracle, list(share.impls)) if share.found.step else None))
                    for share in _shares(part, op_name, peeled, after, versions, fallback, stats, depth + 1)]
                members = [name for name in members if name not in still]
                if not members:
                    continue
        if stats is not None:
            stats.fired[first.rule] += 1
        other = classify(part, op_name, args, {name: responses[name] for name in part}, versions, stats) \
            if fallback else None
        shares.append(Share(tuple(members), Found(first.cause, first.why, first.detail, first.step, first.rule,
                                                  None if other is None else (other[0], other[2]), first.chars,
                                                  _trace_at(first.step, traced, oracle, members))))
    order = {name: number for number, name in enumerate(names)}
    return sorted(shares, key=lambda share: order[share.impls[0]])


def _confirmer(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
               versions: dict[str, dict[str, str]], oracle: str, name: str) -> Callable[[], bool]:
    """The means a trace rule that one observation cannot settle (causes.length.CONFIRMED) is confirmed by:
    the counterfactual length rule on the oracle and ``name`` alone (re-run only when asked)."""
    def confirm() -> bool:
        pair = {oracle: impls[oracle], name: impls[name]}
        probe = Probe(pair, op_name, args, {key: responses[key] for key in pair}, versions, deeper=False)
        return any(isinstance(rule.fires(probe), Verdict) for rule in counterfactual_length.RULES)
    return confirm


def _bugs(found: list[tuple[str, tuple[Any, ...], tuple[str, ...]]]) -> list[list[str]]:
    """Implementations grouped into bugs: (name, what its share is known by, the characters it is about) in
    order; one group per key and set of characters that meet. Two implementations whose rules part from the
    oracle's at one step, for one cause and in one direction, but on characters that never meet (U+FEFF for
    one, U+001C for the other) have two bugs; a shared bug shows a character in common whatever else either
    witness holds (characters are not compared for a skew: its version pair says it)."""
    groups: list[tuple[tuple[Any, ...], set[str], list[str]]] = []
    for name, key, chars in found:
        home = next((group for group in groups if group[0] == key and (
            key[1] == skew.SKEW or (not group[1] and not chars) or group[1] & set(chars))), None)
        if home is None:
            groups.append((key, set(chars), [name]))
        else:
            home[1].update(chars)
            home[2].append(name)
    return [members for _, _, members in groups]


def _joined(shares: list[Share], names: list[str], versions: dict[str, dict[str, str]]) -> list[Share]:
    """Shares of one implementation each joined where they are one bug (``_bugs``: one cause, detail and step,
    for a skew one version pair, characters that meet), in the order of ``names``."""
    groups = _bugs([(str(number), (share.found.step, share.found.cause, share.found.detail, skew.version_pair(
        share.found.cause, share.found.detail, versions.get(share.impls[0], {}))), share.found.chars)
        for number, share in enumerate(shares)])
    out = []
    for members in groups:
        chosen = [shares[int(number)] for number in members]
        founds = [share.found for share in chosen]
        trace_at = {key: value for found in founds for key, value in (found.trace_at or {}).items()} or None
        chars = tuple(dict.fromkeys(ch for found in founds for ch in found.chars))
        impls = tuple(dict.fromkeys(name for share in chosen for name in share.impls))
        out.append(Share(impls, replace(founds[0], trace_at=trace_at, chars=chars)))
    order = {name: number for number, name in enumerate(names)}
    joined = (replace(share, impls=tuple(sorted(share.impls, key=order.__getitem__))) for share in out)
    return sorted(joined, key=lambda share: order[share.impls[0]])


def _trace_at(step: str, traced: dict[str, Any], oracle: str, members: list[str]) -> dict[str, dict[str, Any]]:
    """Each member's trace entry where it parts from the oracle's at ``step``, and the oracle's entry there
    (where the first member parts; a member that parts at another entry is compared with the oracle's there
    by whoever reads it, the page only where the indexes agree)."""
    out: dict[str, dict[str, Any]] = {}
    for name in members:
        if name not in traced:
            continue
        found = parting_entries(step, traced[oracle], traced[name])
        if found is not None:  # clipped: a testee's value nested past the contract's depth stays readable
            out.setdefault(oracle, untrusted.clip(found[0]))
            out[name] = untrusted.clip(found[1])
    return out


def name_cause(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
               versions: dict[str, dict[str, str]] | None = None, fallback: bool = True,
               stats: CauseStats | None = None) -> Found:
    """The cause of a divergence's first share (``name_shares``)."""
    return name_shares(impls, op_name, args, responses, versions, fallback, stats)[0].found


def code_point_runs(points: Any) -> list[list[int]]:
    """Sorted code points as [first, last] runs."""
    out: list[list[int]] = []
    for cp in sorted(set(points)):
        if out and cp == out[-1][1] + 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def char_ranges(points: Any) -> list[str]:
    """Code points as sorted ranges: "U+0041" for one, "U+1C89..U+1C8A" for a run."""
    return [f"U+{a:04X}" if a == b else f"U+{a:04X}..U+{b:04X}" for a, b in code_point_runs(points)]


def parse_char_ranges(ranges: list[str]) -> frozenset[int]:
    """The code points of ``char_ranges``' strings (ValueError naming the one that is not a range)."""
    points: set[int] = set()
    for item in ranges:
        first, _, last = item.partition("..")
        try:
            low, high = (int(part.removeprefix("U+"), 16) for part in (first, last or first))
        except ValueError:
            raise ValueError(f"not a code point or range: {item!r} (U+XXXX or U+XXXX..U+YYYY)") from None
        if not (first.startswith("U+") and (not last or last.startswith("U+")) and 0 <= low <= high <= 0x10FFFF):
            raise ValueError(f"not a code point or range: {item!r} (U+XXXX or U+XXXX..U+YYYY)")
        points.update(range(low, high + 1))
    return frozenset(points)


def encode_response(response: dict[str, Any]) -> dict[str, Any]:
    if "ok" in response:
        return {"ok": hostvalues.encode(response["ok"])}
    return {"error": response["error"]}


def unicode_versions_of(impls: dict[str, Testee]) -> dict[str, dict[str, str]]:
    """Each implementation's Unicode version per property: its unicode_versions answer where it serves that op
    (memgate's), else its self-description's ``unicode`` (a command testee's start answer, an in-process module's
    UNICODE_VERSIONS, the declaration's for a property neither gives: impls.described_unicode)."""
    out = {}
    for name, impl in impls.items():
        if not serves(name, "unicode_versions"):
            out[name] = described_unicode(impl)
            continue
        response = impl.call("unicode_versions", {})
        try:  # a testee's answer: the untrusted reader (an object, bounded, no NaN)
            out[name] = untrusted.loads(response["ok"], want=dict) if "ok" in response else {}
        except (ValueError, TypeError):
            out[name] = {}
    unicode_tables.require(out)  # a version with no table: status 2 before anything is compared
    check_platforms(out)  # a platform an implementation does not declare: status 2 too
    return out


def differential_ops() -> list[Op]:
    return [op for op in OPS.values() if op.differential]
