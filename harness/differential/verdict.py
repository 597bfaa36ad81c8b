"""The reproduction gate: a content divergence is classified only if it comes again.

A disagreement seen inside a batch is sent again, alone, to every implementation involved. Each
implementation must answer as it did (the same outcome): then the divergence is real, and the alone
answers are what is classified. An implementation that answers otherwise alone is sent the input again
at the same position of a fresh batch of plain fillers (the op's ``plain`` arguments of the registry):

* it answers there as it first did: a ``batch_context`` finding (its answer depends on the batch around it);
* neither: ``nondeterministic``, with both observations.

Either way it is a finding about that testee (harness/testees/findings.py), never a divergence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.differential.explain import Responses, divergent, observe, same_outcome
from harness.model import hostvalues
from harness.model.registry import get_op
from harness.testees.errors import answered
from harness.testees.findings import Findings
from harness.testees.testee import Testee


@dataclass
class Verdict:
    reproduced: bool
    responses: Responses  # the alone answers (what is classified when it reproduced)


def _shown(response: dict[str, Any] | None) -> str:
    return json.dumps(hostvalues.encode(response) if response is not None else None, ensure_ascii=True)[:300]


def gate(impls: dict[str, Testee], op: str, args: dict[str, Any], seen: Responses, findings: Findings,
         positions: dict[str, int] | None = None) -> Verdict:
    """Send ``args`` again alone to every implementation in ``seen`` (the answers seen in a batch); see
    the module docstring. ``positions``: where the input was in the batch each implementation got."""
    involved = {name: impls[name] for name in seen if name in impls}
    alone = observe(involved, op, args)
    moved = [name for name in seen if name in alone and not same_outcome(op, seen[name], alone[name])]
    if not moved and all(name in alone for name in seen):
        return Verdict(True, alone)
    encoded = json.dumps(hostvalues.encode_args(args), ensure_ascii=True)[:300]
    plain = dict(get_op(op).plain)
    for name in moved:
        position = (positions or {}).get(name, 0)
        again = impls[name].call_batch([(op, plain)] * position + [(op, args)])[position]
        if answered(again) and same_outcome(op, seen[name], again):
            findings.add(name, "batch_context",
                         f"{op}: answered otherwise alone than at position {position} of a batch", request=encoded,
                         inBatch=_shown(seen[name]), alone=_shown(alone[name]), position=position)
        else:
            findings.add(name, "nondeterministic", f"{op}: the same request answered differently when sent again",
                         request=encoded, first=_shown(seen[name]), again=_shown(alone[name]),
                         third=_shown(again))
    return Verdict(False, alone)


def outcome_kinds(responses: dict[str, dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """Each implementation's outcome kind: ok, or error:<code>."""
    return tuple(sorted((name, "ok" if "ok" in r else f"error:{r['error']['code']}") for name, r in responses.items()))


def shape(op: str, responses: Responses) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """What a sweep keeps of a disagreement: the implementations that disagree and the outcome kinds."""
    return tuple(divergent(op, responses)), outcome_kinds(responses)


def gate_shape(impls: dict[str, Testee], op: str, args: dict[str, Any],
               seen: tuple[tuple[str, ...], tuple[tuple[str, str], ...]], findings: Findings,
               position: int = 0) -> Verdict:
    """The gate where only the shape of the batch's disagreement was kept (the sweep): alone, the same
    implementations must disagree with the same outcome kinds. If not, each implementation whose part
    moved is sent the input at ``position`` of a fresh batch of fillers: a batch_context finding when
    the shape comes back there, else nondeterministic."""
    names = [name for name, _ in seen[1]]
    involved = {name: impls[name] for name in names if name in impls}
    alone = observe(involved, op, args)
    if len(alone) == len(names) and shape(op, alone) == seen:
        return Verdict(True, alone)
    if len(alone) < len(names):
        return Verdict(False, alone)  # no answer now: the client has the finding
    kinds = dict(seen[1])
    suspects = [name for name in names if name in set(seen[0]) ^ set(divergent(op, alone))
                or outcome_kinds({name: alone[name]})[0][1] != kinds[name]]
    plain = dict(get_op(op).plain)
    encoded = json.dumps(hostvalues.encode_args(args), ensure_ascii=True)[:300]
    for name in suspects:
        again = impls[name].call_batch([(op, plain)] * position + [(op, args)])[position]
        trial = {**alone, name: again} if answered(again) else alone
        if answered(again) and shape(op, trial) == seen:
            findings.add(name, "batch_context", f"{op}: answered otherwise alone than at position {position} of a batch",
                         request=encoded, alone=_shown(alone[name]), inBatch=_shown(again), position=position)
        else:
            findings.add(name, "nondeterministic", f"{op}: the same request answered differently when sent again",
                         request=encoded, firstKinds=json.dumps(seen[1]), again=_shown(alone[name]), third=_shown(again))
    return Verdict(False, alone)
