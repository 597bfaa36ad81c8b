"""Which steps of the contract a fixture case pins (docs/contract.md; the ids are the op registry's).

A case pins:

* when the reference answers an error: the step that failed, as the reference itself names it
  (``ContractError.step``), and for ``invalid_json`` the strictness rules the argument breaks, as the
  harness's own scan finds them (``harness/model/json_features.py``, never an implementation's parser);
* when it answers a result: the steps its flags stand for (the fixture's ``flag_steps`` table);
* in both cases, the steps the case declares itself (``steps=`` in the generator).

Every id must be a step of the case's op (or a JSON rule, for an op with a JSON argument), and every case
must pin at least one step. The ids come out in the op's step order, so the list is deterministic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.model.json_features import features
from harness.model.registry import JSON_RULES, get_op

if TYPE_CHECKING:
    from .cases import Case

_RULES = tuple(rule.id for rule in JSON_RULES)


def json_rules_broken(text: object) -> tuple[str, ...]:
    """The JSON rules a text breaks, in the document's order (empty for a text that is not a string)."""
    if not isinstance(text, str):
        return ()
    found = {f"json.{name}" for name in features(text)}
    return tuple(rule for rule in _RULES if rule in found)


def pinned_steps(case: Case, failed_step: str | None,
                 flag_steps: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], list[str]]:
    """(the steps `case` pins in the op's order, the problems found: unknown ids or none at all)."""
    op = get_op(case.op)
    order = op.step_ids()
    wanted: list[str] = list(case.steps)
    if failed_step is not None:
        wanted.append(failed_step)
        prefix = failed_step.split(".", 1)[0] + "."
        param = failed_step.removeprefix(prefix)
        if param.endswith("_json") and param in case.args:
            wanted.extend(json_rules_broken(case.args[param]))
    else:
        for flag in case.flags:
            wanted.extend(flag_steps.get(flag, ()))
    problems = [f"{case.id}: step {step!r} is not a step of {case.op} (its steps: {', '.join(order)})"
                for step in dict.fromkeys(wanted) if step not in order]
    chosen = tuple(step for step in order if step in wanted)
    if not chosen and not problems:
        problems.append(f"{case.id}: pins no step of {case.op}: give it steps=(...) or a flag in the fixture's "
                        "flag_steps table (docs/fixtures.md, 'Steps')")
    return chosen, problems
