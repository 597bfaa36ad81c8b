"""check's reproduction gate (``python -m harness check``): a failing fixture case is asked again alone on a
fresh process of the testee, as fuzz's gate asks a divergence (harness/differential/verdict.py); an answer that
does not come again is a finding about the testee, not a failure of the case (docs/reports.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.differential.outcomes import FAILURES, same_outcome
from harness.differential.verdict import judge
from harness.fixtures.runner import not_reproduced
from harness.model import hostvalues
from harness.model.status import CommandError
from harness.testees.command import BATCH
from harness.testees.errors import answered

REASK_CAP = 200  # failing cases the gate asks again (the rest stay failures, a line says so)


def keep_findings(testee: Any, found: Any) -> None:
    """A command testee's findings (its client's verdicts) into ``found``; an in-process one has none."""
    if getattr(testee, "findings", None) is not None:
        found.merge(testee.findings.to_json())


def gate(name: str, results: list[Any], found: Any, open_fresh: Callable[[], Any]) -> tuple[list[Any], list[str]]:
    """check's reproduction gate, fuzz's (harness/differential/verdict.py): each failing case that got an answer
    (the first REASK_CAP of them) is asked again alone, on a fresh process of the testee. The same outcome
    again: it stays a failing case. Another: not a failure of the case but a finding about the testee
    (verdict.judge: nondeterministic, or batch_context when it moves only inside a batch; both answers as
    evidence), and the case is not judged (runner.not_reproduced). A case whose answer was a crash or a hang
    is not asked again: the client already asked it alone on a fresh process. ``open_fresh`` starts the fresh
    process (a CommandError when it cannot: a restart_failed finding). Returns (results, lines to print)."""

    def shown(response: dict[str, Any]) -> str:
        return json.dumps(hostvalues.encode(response), ensure_ascii=True)[:300]

    failing = [index for index, result in enumerate(results)
               if result.state == "fail" and result.response is not None and answered(result.response)
               and result.response.get("error", {}).get("code") not in FAILURES]
    if not failing:
        return results, []
    asked, beyond = failing[:REASK_CAP], failing[REASK_CAP:]
    notes = [f"{name}: {len(beyond)} failing case(s) beyond the first {REASK_CAP} not asked again: they stay "
             "failures, their reproduction not checked"] if beyond else []
    try:
        fresh = open_fresh()
    except CommandError as exc:
        found.add(name, "restart_failed", f"a fresh process to ask the failing cases again could not be started: "
                  f"{str(exc)[:300]}")
        return results, [f"{name}: {len(failing)} failing case(s) not asked again (no fresh process): they stay "
                         "failures, their reproduction not checked", *notes]
    results = list(results)
    try:
        for done, index in enumerate(asked):
            if getattr(fresh, "taken_out", None):
                notes.insert(0, f"{name}: taken out of the run while failing cases were asked again: "
                             f"{len(asked) - done} of them stay failures, their reproduction not checked")
                break
            result = results[index]
            case = result.case
            alone = fresh.call(case.op, case.args)
            if not answered(alone) or same_outcome(case.op, result.response, alone):
                continue  # the same outcome again (or no answer now: the client has the finding): a failure
            kind = judge(fresh, name, case.op, case.args, alone, result.position % BATCH, found,
                         inBatch=shown(result.response), case=f"{case.fixture}/{case.id}")
            if kind == "no_answer":  # answered otherwise alone, then no answer at all: the first two differ
                kind = "nondeterministic"
                found.add(name, kind, f"{case.op}: the same request answered differently when sent again",
                          request=json.dumps(hostvalues.encode_args(case.args), ensure_ascii=True)[:300],
                          inBatch=shown(result.response), alone=shown(alone), case=f"{case.fixture}/{case.id}")
            results[index] = not_reproduced(result, kind)
    finally:
        fresh.close()
        keep_findings(fresh, found)
    return results, notes
