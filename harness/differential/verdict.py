"""The reproduction gate: a content divergence is classified only if it comes again.

A disagreement seen inside a batch is sent again, alone, to every implementation involved. Each
implementation must answer as it did (the same outcome): then the divergence is real, and the alone
answers are what is classified. An implementation that answers otherwise alone is sent the input again
at the same position of a fresh batch of plain fillers (the op's ``plain`` arguments of the registry):

* it answers alone the same way twice, and otherwise inside that batch: a ``batch_context`` finding
  (its answer depends on the batch around it);
* otherwise (two alone answers differ, or the batch answer is the alone one after all):
  ``nondeterministic``, with the observations.

Either way it is a finding about that testee (harness/testees/findings.py), never a divergence.

An answer that comes again alone may still be the testee's history speaking: a host that memoizes by ``==``
(``True == 1 == 1.0`` one key) answers ``force=1`` after ``force=True`` with the cached answer, alone as in the
batch. So the first witness of each candidate class that comes again (the run's first of each (op, the
implementations that disagree, the outcome kinds): the group a fuzz run classifies by) is asked, twice, of a
fresh instance of the oracle and of each implementation that disagrees (``fresh_instance``: a new process of a
command testee, a new in-process instance; ``Fresh`` starts each once per run, when first needed, and asks it
nothing but these witnesses). A fresh instance that answers otherwise than the warm one, the same both times, so
that the disagreement is gone: a ``history_dependent`` finding (the request, the warm and the fresh answers), and
the witness is not classified (not reproduced). A fresh instance whose two answers differ: ``nondeterministic``.
Fresh answers that differ from the warm ones but still disagree: the finding, and the fresh answers are what is
classified. Each later input of a candidate class where implementations were found history-dependent is asked
once of their fresh instances (already running): set aside (counted in the finding) where the fresh answers end
the disagreement, else classified on those fresh answers (a real bug of the same op, implementations and outcome
kinds is not lost, nor blamed on the one that memoizes). A fresh start that could not end before the run's hard
deadline (``hard``: less time left than its start-up deadline) is not tried: the input is not decided
(``Verdict.cut``), and a start cut by the testee's cutoff is no ``restart_failed`` finding. The
sweep's gate (``gate_shape``) does not ask: a sweep sends each input of its templates once, and no two of them
are equal but for their types.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from harness.differential.outcomes import Responses, agreeing, divergent, observe, oracle_of, same_outcome
from harness.model import hostvalues
from harness.model.registry import get_op
from harness.testees.command import CommandTestee
from harness.testees.errors import ImplementationUnavailable, answered
from harness.testees.findings import Findings
from harness.testees.inprocess import InProcess
from harness.testees.testee import Testee


@dataclass
class Verdict:
    reproduced: bool
    responses: Responses  # the alone answers (what is classified when it reproduced)
    cut: bool = False  # not decided: too little time was left before the hard deadline to ask fresh instances


def _shown(response: dict[str, Any] | None) -> str:
    return json.dumps(hostvalues.encode(response) if response is not None else None, ensure_ascii=True)[:300]


def judge(impl: Testee, name: str, op: str, args: dict[str, Any], alone: dict[str, Any], position: int,
          findings: Findings, **seen: Any) -> str:
    """Why an implementation answered alone otherwise than in a batch: the finding's kind, recorded.
    Alone again: an answer that moves is nondeterministic. At ``position`` of a fresh batch of plain
    fillers: an answer other than the (stable) alone one is batch_context; the alone one again is
    nondeterministic (the batch answer did not come back)."""
    encoded = json.dumps(hostvalues.encode_args(args), ensure_ascii=True)[:300]
    second = impl.call(op, args)
    if not answered(second):
        return "no_answer"  # the client has the finding
    if not same_outcome(op, alone, second):
        findings.add(name, "nondeterministic", f"{op}: the same request answered differently when sent again",
                     request=encoded, alone=_shown(alone), aloneAgain=_shown(second), **seen)
        return "nondeterministic"
    plain = dict(get_op(op).plain)
    again = impl.call_batch([(op, plain)] * position + [(op, args)])[position]
    if not answered(again):
        return "no_answer"
    if not same_outcome(op, alone, again):
        findings.add(name, "batch_context", f"{op}: answered otherwise alone than at position {position} of a batch",
                     request=encoded, alone=_shown(alone), inFreshBatch=_shown(again), position=position, **seen)
        return "batch_context"
    findings.add(name, "nondeterministic", f"{op}: answered otherwise once in a batch, never again",
                 request=encoded, alone=_shown(alone), inFreshBatch=_shown(again), position=position, **seen)
    return "nondeterministic"


# ---- history: the first witness of each candidate class asked of fresh instances --------------------------

Candidate = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]  # (op, who disagrees, outcome kinds)
HISTORY_MESSAGE = "{op}: answered otherwise after earlier requests than a fresh instance answers the same request"
Asked = tuple[dict[str, Any], dict[str, Any]]  # a fresh instance's two answers to one witness


class Fresh:
    """One run's fresh instances, and its candidate classes decided with them (``decided``: each one -> the
    implementations found history-dependent on it, whose fresh answers later inputs of it are judged on; empty:
    none was, or none could be asked; ``gone``: those where that ended the first witness's disagreement, whose
    batch members ``set_aside`` counts).

    An implementation's fresh instance is started the first time a candidate class needs it (those needed at once
    in threads: a Pyodide start is seconds, more on a loaded machine) and kept for the run: asked nothing but the
    first witnesses of the candidate classes, twice each, and the later gated inputs of those it was found
    history-dependent on, once each, it is fresh to the run's history (its own few requests are other witnesses),
    for one start per implementation per run. ``starts``:
    the instances started; ``close`` ends them (so does dropping the Fresh, or the end of the process)."""

    def __init__(self) -> None:
        self.decided: dict[Candidate, tuple[str, ...]] = {}
        self.gone: set[Candidate] = set()  # those whose first witness's disagreement the fresh answers ended
        self.instances: dict[str, Testee | None] = {}  # name -> its fresh instance (None: it cannot have one)
        self.starts = 0
        self.ended = False  # closed: an instance whose start ends after that is ended at once (``keep``)
        self._lock = threading.Lock()
        self._close = weakref.finalize(self, _close_all, self.instances)

    @staticmethod
    def of(findings: Findings) -> Fresh:
        """The one kept with a run's findings (a fuzz run's Sightings passes its own findings to every gate)."""
        kept = _FRESH.get(findings)
        if kept is None:
            kept = _FRESH[findings] = Fresh()
        return kept

    def close(self) -> None:
        with self._lock:
            self.ended = True
        self._close()

    def keep(self, name: str, testee: Testee) -> bool:
        """Keep a fresh instance that just started, where ``close`` ends it; one that started after the Fresh was
        closed (a run stopped by Ctrl-C while it started) is ended at once, and False."""
        with self._lock:
            if not self.ended:
                self.instances[name] = testee
                return True
        testee.close()
        return False

    def set_aside(self, op: str, names: Any, kinds: Any, count: int, findings: Findings) -> bool:
        """Whether the candidate class (``op``, the implementations that disagree, the outcome kinds, as a batch
        groups its disagreeing inputs) was found history-dependent; if so, ``count`` more of its inputs (a batch's
        members the run did not keep) are counted in its findings, as the gate counts those it sets aside."""
        candidate = (op, tuple(names), tuple((str(name), str(kind)) for name, kind in kinds))
        dependent = self.decided.get(candidate, ()) if candidate in self.gone else ()
        for name in dependent:
            findings.add(name, "history_dependent", HISTORY_MESSAGE.format(op=op), count=count)
        return bool(dependent) and count > 0

    def ask(self, impls: dict[str, Testee], names: list[str], op: str, args: dict[str, Any],
            findings: Findings, hard: float | None = None) -> dict[str, Asked] | None:
        """``args`` asked twice of the fresh instance of each of ``names`` (started now where it was not yet): name
        -> (first answer, second), for each that has one and answered both times. One that cannot start is a
        ``restart_failed`` finding (not one whose start the testee's cutoff ended); a fresh command testee's own
        findings go to ``findings``. None (nothing asked, nothing started): a start needed could not end before
        ``hard``, the run's hard deadline (less time left than its start-up deadline)."""
        needed = [name for name in names if name not in self.instances]
        if hard is not None and needed:
            left = hard - time.monotonic()
            if any(left <= _startup_of(impls[name]) for name in needed):
                return None

        def start(name: str) -> tuple[Testee | None, str | None]:
            testee, why = _started(impls[name])
            # kept at once: Fresh.close ends it even if the run is stopped meanwhile (Ctrl-C), or ended here when
            # the run was stopped and the Fresh closed before the start ended
            if testee is not None and not self.keep(name, testee):
                return None, None
            return testee, why

        with ThreadPoolExecutor(max_workers=max(1, len(needed)), thread_name_prefix="fresh") as pool:
            started = {name: pool.submit(start, name) for name in needed}
            for name, future in started.items():
                testee, why = future.result()
                self.instances[name] = testee
                self.starts += testee is not None
                if why is not None and not _cut(impls[name]):
                    findings.add(name, "restart_failed", "a fresh instance to ask a witness that came again could "
                                 f"not be started: {why[:300]}")
        answers: dict[str, Asked] = {}
        for name in names:
            testee = self.instances[name]
            if testee is None:
                continue
            first = testee.call(op, args)
            second = testee.call(op, args) if answered(first) else first
            if isinstance(testee, CommandTestee):
                findings.merge(testee.findings.take())
            if answered(first) and answered(second):
                answers[name] = (first, second)
        return answers


_FRESH: weakref.WeakKeyDictionary[Findings, Fresh] = weakref.WeakKeyDictionary()


def _close_all(instances: dict[str, Testee | None]) -> None:
    for testee in instances.values():
        if testee is not None:
            testee.close()
    instances.clear()


def fresh_instance(impl: Testee) -> Testee | None:
    """A new instance of ``impl`` that was asked nothing: an in-process implementation anew (its functions resolved
    again), a command testee a new process of the same command and settings (with findings of its own); None for
    any other kind of testee (a test double), which is not asked. ImplementationUnavailable if it cannot start."""
    if isinstance(impl, InProcess):
        return dataclasses.replace(impl, _functions={})
    if isinstance(impl, CommandTestee):
        return impl.fresh()
    return None


def _startup_of(impl: Testee) -> float:
    """How long a fresh instance of ``impl`` may take to start: for a command testee, three times its last start
    (handshake.start_seconds) and a second, within its start-up deadline (a declared 30 s would leave every class a
    run meets in its last 30 s unclassified, when its starts take 2 s); 0 for any other."""
    if not isinstance(impl, CommandTestee):
        return 0.0
    measured = getattr(impl, "start_seconds", None)
    declared = float(impl.startup_timeout)
    return declared if measured is None else min(declared, 3 * measured + 1.0)


def _cut(impl: Testee) -> bool:
    """Whether ``impl``'s cutoff has come (a start that failed then was cut, not refused)."""
    cutoff = impl.cutoff if isinstance(impl, CommandTestee) else None
    return cutoff is not None and time.monotonic() >= cutoff


def _started(impl: Testee) -> tuple[Testee | None, str | None]:
    try:
        return fresh_instance(impl), None
    except ImplementationUnavailable as exc:
        return None, str(exc)


def fresh_verdict(impls: dict[str, Testee], op: str, args: dict[str, Any], alone: Responses, findings: Findings,
                  fresh: Fresh, hard: float | None = None) -> Verdict:
    """The verdict on answers that came again alone (``alone``), once history is ruled out (the module
    docstring): the candidate class's first such witness asked of fresh instances of the oracle and of each
    implementation that disagrees; a later one asked of the fresh instances of those found history-dependent on
    it. ``hard``: the run's hard deadline (no fresh start that could not end before it)."""
    names = divergent(op, alone)
    candidate: Candidate = (op, tuple(names), outcome_kinds(alone))
    encoded = json.dumps(hostvalues.encode_args(args), ensure_ascii=True)[:300]
    message = HISTORY_MESSAGE.format(op=op)
    if candidate in fresh.decided:
        return _later(impls, op, args, alone, findings, fresh, fresh.decided[candidate], encoded)
    if not names:
        fresh.decided[candidate] = ()
        return Verdict(True, alone)
    answers = fresh.ask(impls, list(dict.fromkeys([oracle_of(op, alone), *names])), op, args, findings, hard)
    if answers is None:
        return Verdict(False, alone, cut=True)  # not decided: a later witness may be asked while there is time
    fresh.decided[candidate] = ()  # decided now, whatever comes of it: asked once per candidate class
    moving = [name for name, (first, second) in answers.items() if not same_outcome(op, first, second)]
    for name in moving:
        first, second = answers[name]
        findings.add(name, "nondeterministic", f"{op}: a fresh instance answered the same request differently "
                     "when sent again", request=encoded, warm=_shown(alone[name]), fresh=_shown(first),
                     freshAgain=_shown(second))
    if moving:
        return Verdict(False, alone)
    changed = {name: first for name, (first, _) in answers.items() if not same_outcome(op, alone[name], first)}
    if not changed:
        return Verdict(True, alone)
    now = {**alone, **changed}
    gone = agreeing(op, now)
    oracle = oracle_of(op, alone)
    for name, answer in changed.items():
        findings.add(name, "history_dependent", message, request=encoded, warm=_shown(alone[name]),
                     fresh=_shown(answer), oracle=f"{oracle}: {_shown(alone[oracle])}",
                     disagreement="gone on the fresh answers" if gone else "still there on the fresh answers")
    fresh.decided[candidate] = tuple(changed)  # their fresh answers are what later inputs of it are judged on
    if gone:
        fresh.gone.add(candidate)
        return Verdict(False, now)
    return Verdict(True, now)  # still a disagreement on the fresh answers: those are classified


def _later(impls: dict[str, Testee], op: str, args: dict[str, Any], alone: Responses, findings: Findings,
           fresh: Fresh, dependent: tuple[str, ...], encoded: str) -> Verdict:
    """A later input of a decided candidate class: asked once of the fresh instance of each implementation found
    history-dependent on it (already running); set aside where their answers end the disagreement (counted in
    the finding), else classified on them."""
    if not dependent:
        return Verdict(True, alone)
    now = dict(alone)
    for name in dependent:
        testee = fresh.instances.get(name)
        if testee is None or name not in now:
            continue
        answer = testee.call(op, args)
        if isinstance(testee, CommandTestee):
            findings.merge(testee.findings.take())
        if not answered(answer):
            return Verdict(False, alone)  # the fresh instance did not answer: its client has the finding
        now[name] = answer
    changed = [name for name in dependent if name in now and not same_outcome(op, alone[name], now[name])]
    gone = agreeing(op, now)
    for name in changed:  # counted in its finding (the first one's evidence kept)
        findings.add(name, "history_dependent", HISTORY_MESSAGE.format(op=op), request=encoded,
                     warm=_shown(alone.get(name)))
    return Verdict(not gone, now)


def gate(impls: dict[str, Testee], op: str, args: dict[str, Any], seen: Responses, findings: Findings,
         positions: dict[str, int] | None = None, fresh: Fresh | None = None, hard: float | None = None) -> Verdict:
    """Send ``args`` again alone to every implementation in ``seen`` (the answers seen in a batch); see
    the module docstring. ``positions``: where the input was in the batch each implementation got. ``fresh``:
    the run's candidate classes asked of fresh instances (default: the one kept with ``findings``, which is
    the run's). ``hard``: the run's hard deadline (``Verdict.cut``: too close to it to start fresh instances)."""
    involved = {name: impls[name] for name in seen if name in impls}
    alone = observe(involved, op, args)
    moved = [name for name in seen if name in alone and not same_outcome(op, seen[name], alone[name])]
    if not moved and all(name in alone for name in seen):
        return fresh_verdict(impls, op, args, alone, findings, fresh if fresh is not None else Fresh.of(findings),
                             hard)
    for name in moved:
        judge(impls[name], name, op, args, alone[name], (positions or {}).get(name, 0), findings,
              inBatch=_shown(seen[name]))
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
    moved is judged (``judge``: batch_context or nondeterministic)."""
    names = {name for name, _ in seen[1]}
    # In the run's order (the oracle first), as the batch had them; compared as sets: which implementations
    # disagree, not in which order they were listed (a sweep once dropped every class where two of them
    # listed out of alphabetical order disagreed, pyodide before wasm, with no finding).
    involved = {name: impl for name, impl in impls.items() if name in names}
    alone = observe(involved, op, args)
    if len(alone) < len(names):
        return Verdict(False, alone)  # no answer now: the client has the finding
    now = shape(op, alone)
    if set(now[0]) == set(seen[0]) and dict(now[1]) == dict(seen[1]):
        return Verdict(True, alone)
    kinds = dict(seen[1])
    suspects = [name for name in involved if name in set(seen[0]) ^ set(now[0])
                or outcome_kinds({name: alone[name]})[0][1] != kinds[name]]
    if not suspects:  # the shape moved and nobody's part did: a harness bug, never a silent drop
        raise RuntimeError(f"gate_shape: {op} {args!r}: the shape {now} differs from {seen} with no part moved")
    for name in suspects:
        judge(impls[name], name, op, args, alone[name], position, findings, inBatchKinds=json.dumps(seen[1]))
    return Verdict(False, alone)
