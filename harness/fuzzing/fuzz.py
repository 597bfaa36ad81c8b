"""The divergence fuzzer (``python -m harness fuzz`` / ``nox -s fuzz -- --minutes N``): random inputs for
every comparable op of the registry (harness/fuzzing/generate.py), sent in batches to every
implementation by worker processes (one per core), until a time budget is spent.

Each disagreeing input is classified by the counterfactual classifier; the first input of each class
(op, the implementations that disagree, cause, detail) is shrunk to a minimal
witness and reported, new or expected; later ones are counted (which ones are classified: a sample, and the
first of each signature, harness/classes/sightings.py; a batch returns its group's first KEEP_PER_KEY and the first
of each other signature). A class is *expected* when every
implementation that disagrees lists its op, cause and detail in ``expected/<impl>.json``.

Inputs an implementation's host cannot hold (see Implementation.can_express) are not sent to it and
are counted. ``--seed`` makes the batches reproducible (with one worker, the whole run).

Before anything is classified, the verdict stage decides what each answer is: the command client
records protocol faults, crashes and hangs of a testee as findings (harness/testees/findings.py), and a
disagreement is classified only if it comes again alone (the reproduction gate,
harness/differential/verdict.py). Findings travel with the answers out of the worker processes. A
testee taken out for its faults is taken out of every worker by this process.

The budget is a budget: batches run until ``seconds``; the expected-list recheck, classification and
shrinking end at ``hard_deadline`` (``seconds`` plus the largest request deadline, by default), and
whatever was cut is named in ``FuzzResult.cut``.

Ctrl-C stops the run where it is: the workers, which ignore SIGINT (harness/fuzzing/pools.py), are ended,
and the result holds what ran before, ``FuzzResult.interrupted`` set and a cut saying after how many
examples (the command line writes it as the partial report, and exits 4).
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from harness.classes.expected import ExpectedSet, recheck_detailed
from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord
from harness.classes.sightings import CLASSIFIED, NOT_REPRODUCED, Sightings
from harness.classes.signature import signature
from harness.differential.explain import unicode_versions_of
from harness.differential.outcomes import agreeing, divergent
from harness.differential.strategies import comparable_ops
from harness.differential.verdict import outcome_kinds
from harness.fuzzing import pools
from harness.fuzzing.generate import Inputs
from harness.fuzzing.progress import Progress
from harness.model import hostvalues
from harness.model.ledger import Ledger
from harness.model.status import interrupted_by
from harness.testees import impls as implementations
from harness.testees.command import BATCH as LINE_BATCH
from harness.testees.fanout import Harvest, answer_each, expressible, harvest
from harness.testees.findings import Findings
from harness.testees.testee import Testee

BATCH = 1000  # examples per batch (per op)
KEEP_PER_KEY = 3  # disagreeing examples a batch returns per (implementations, outcome kinds)
# and besides, the first of each other signature (harness/classes/signature.py) among the first SIGNED of the group
SIGNED = 100


@dataclass
class FuzzResult:
    divergences: list[ClassRecord] = field(default_factory=list)
    examples: int = 0
    seconds: float = 0.0
    expected_problems: list[str] = field(default_factory=list)
    unexpected_passes: list[dict[str, str]] = field(default_factory=list)
    versions: dict[str, dict[str, str]] = field(default_factory=dict)
    inexpressible: dict[str, int] = field(default_factory=dict)  # implementation -> inputs not sent to it
    seen: dict[ClassKey, int] = field(default_factory=dict)  # class -> disagreeing inputs seen
    workers: int = 1
    findings: Findings = field(default_factory=Findings)  # about testees (the verdict stage)
    cut: list[str] = field(default_factory=list)  # work the budget cut
    taken_out: list[str] = field(default_factory=list)  # implementations taken out of the run
    not_reproduced: int = 0  # disagreements that did not come again alone (findings, not divergences)
    batches_refused: dict[str, int] = field(default_factory=dict)  # testees without batch lines (legitimate)
    seed: int | None = None  # the run's seed: the one asked for, or the one drawn (a replay gives it back)
    shard: tuple[int, int] = (1, 1)  # K/N: the share of the seed's task stream this run ran
    interrupted: bool = False  # stopped by Ctrl-C: a partial run (its report says so)
    ledger: Ledger = field(default_factory=lambda: Ledger("fuzz"))  # the run's account of its work (its verdict)

    @property
    def new(self) -> list[ClassRecord]:
        return [d for d in self.divergences if d.status == "new"]


def _progress_text(progress: Progress, examples: int, new: int, expected: int) -> str:
    elapsed = time.monotonic() - progress.start
    rate = examples / elapsed if elapsed > 0 else 0.0
    return (f"{elapsed:6.1f}s/{progress.total:.0f}s  {examples:,} examples ({rate:,.0f}/s)  "
            f"divergences: {new} new, {expected} expected")


# ---- one batch, in a worker (or in this process) -------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init_worker(names: tuple[str, ...], cutoff: float | None, began: Any = None) -> None:
    """A worker's testees; ended with it (terminated at the budget or interrupted, or its parent gone: its
    testee processes are killed first, since a hung one would outlive it; harness/fuzzing/pools.py).
    ``began``: a count shared by the workers of the batches they began (``run_batch``)."""
    _WORKER["began"] = began
    _WORKER["impls"] = {}
    pools.at_end(lambda: pools.kill_testees(_WORKER["impls"]))
    started = implementations.start_each(list(names), cutoff)
    _WORKER["impls"].update({name: testee for name, testee in started.items() if not isinstance(testee, Exception)})
    failed = next((error for error in started.values() if isinstance(error, Exception)), None)
    if failed is not None:
        raise failed  # the testees that did start are killed with the worker (pools.at_end)


def run_batch(task: tuple[Any, ...], opened: dict[str, Testee] | None = None) -> dict[str, Any]:
    """Generate ``size`` inputs of ``op`` from ``seed``, run them on the ``active`` implementations, return
    the disagreeing ones (per group of implementations and outcome kinds, the first KEEP_PER_KEY and the first of
    each other signature among the group's first SIGNED, each with its position in the batch each implementation
    got, its place in the batch and its signature), the counts and the testees' findings."""
    op, seed, size, active = task
    if opened is None and _WORKER.get("began") is not None:  # in a worker: the driver learns it is at work
        with _WORKER["began"].get_lock():
            _WORKER["began"].value += 1
    opened = opened if opened is not None else _WORKER["impls"]
    opened = {name: opened[name] for name in active}
    batch = Inputs(seed).batch(op, size)
    ledger = Ledger("fuzz", planned=0, inputs=len(batch))  # a part of the run's plan: it adds nothing to it
    columns, inexpressible = answer_each(opened, op, batch, ledger)
    kept: dict[tuple[Any, ...], list[Any]] = {}
    counts: dict[tuple[Any, ...], int] = {}
    signs: dict[tuple[Any, ...], set[Any]] = {}  # group -> the signatures of its kept examples
    for j, args in enumerate(batch):
        responses = {name: column[j] for name, column in columns.items() if column[j] is not None}
        if len(responses) < 2:
            continue
        ledger.compared += 1
        if agreeing(op, responses):
            continue
        names = tuple(divergent(op, responses))
        key = (names, outcome_kinds(responses))
        counts[key] = counts.get(key, 0) + 1
        if counts[key] > SIGNED and len(kept.get(key, ())) >= KEEP_PER_KEY:
            continue  # past the signed ones: one more of the group, counted
        sign = signature(op, args, responses, names)
        if len(kept.setdefault(key, [])) < KEEP_PER_KEY or sign not in signs.setdefault(key, set()):
            signs.setdefault(key, set()).add(sign)
            positions = {name: sum(1 for k in range(j) if expressible(name, batch[k])) % LINE_BATCH
                         for name in responses}
            kept[key].append([hostvalues.encode_args(args), responses, positions, j, sign])
    return {"op": op, "seed": seed, "examples": len(batch), "inexpressible": inexpressible,
            "harvest": asdict(harvest(opened)), "ledger": ledger.to_json(),
            "disagreeing": [[list(names), [list(k) for k in kinds], counts[(names, kinds)], examples]
                            for (names, kinds), examples in kept.items()]}


def account(ledger: Ledger, count: int, fates: list[str]) -> None:
    """A batch's group of ``count`` disagreeing inputs into the ledger, from what became of the examples of it
    that were considered (``fates``, Sightings.consider): the examples themselves as they went; the group's
    other members (not kept: every member of a group shares its implementations and outcome kinds, and
    Sightings samples a group the same way) assigned to its class when one of its examples was classified,
    else not classified."""
    ledger.disagreeing += count
    ledger.not_reproduced += fates.count(NOT_REPRODUCED)
    classified = fates.count(CLASSIFIED)
    ledger.classified += classified + (count - len(fates) if classified else 0)


def _tasks(ops: list[str], seed: int, active: list[str], shard: tuple[int, int] = (1, 1),
           count: int | None = None) -> Iterator[tuple[Any, ...]]:
    """The task stream of ``seed``: task n fuzzes ``ops[n % len(ops)]`` with seed ``seed * 1_000_003 + n``.
    ``shard`` K/N takes the tasks n with n % N == K - 1, so N shards together run the stream once;
    ``count``: only tasks n < count (a run of a fixed number of examples), else for ever."""
    k, n = shard
    numbers = itertools.count(k - 1, n) if count is None else range(k - 1, count, n)
    for number in numbers:
        yield ops[number % len(ops)], seed * 1_000_003 + number, BATCH, tuple(active)


def task_count(max_examples: int | None) -> int | None:
    """The tasks of a run of at most ``max_examples`` examples (whole batches: the first that reaches it)."""
    return None if max_examples is None else max(1, -(-max_examples // BATCH))


def _batches(tasks: Iterator[tuple[Any, ...]], opened: dict[str, Testee], workers: int,
             deadline: float, hard_deadline: float, cutoff: float | None) -> Iterator[dict[str, Any]]:
    """Batch results until the deadline; a pool keeps two tasks per worker in flight. A batch still
    running at the hard deadline is abandoned (its worker terminated, its testees killed)."""
    if workers <= 1:
        for task in tasks:  # a finite stream (a fixed number of examples) ends the run
            if time.monotonic() >= deadline:
                return
            yield run_batch(task, opened)
        return
    method = pools.start_method()
    began = pools.context(method).Value("i", 0)  # batches the workers began
    with pools.ending(method, workers, _init_worker, (tuple(opened), cutoff, began)) as pool:
        flight: deque[Any] = deque(pool.apply_async(run_batch, (task,))
                                   for task in itertools.islice(tasks, 2 * workers))
        returned = 0
        while flight:  # leaving the block ends the pool, a batch still running abandoned (pools.ending)
            try:
                result = flight.popleft().get(timeout=max(0.0, hard_deadline - time.monotonic()))
            except multiprocessing.TimeoutError:
                if not returned and not began.value:  # not one batch back, nor begun: the workers failed
                    raise RuntimeError(f"no batch came back from the {workers} fuzz workers before the run's hard "
                                       "deadline: the worker processes failed (their output is above)") from None
                return  # batches begun, not finished: the testees were slower than the budget (the run's ledger)
            returned += 1
            task = next(tasks, None) if time.monotonic() < deadline else None
            if task is not None:
                flight.append(pool.apply_async(run_batch, (task,)))
            yield result
            if time.monotonic() >= deadline:
                return


def _declared(opened: dict[str, Testee]) -> bool:
    """Whether every implementation can be started again by name (worker processes need that)."""
    try:
        return all(implementations.declaration(name) is not None for name in opened)
    except implementations.ImplementationUnavailable:
        return False


def largest_request_deadline(impls: dict[str, Testee]) -> float:
    """D of the budget: the largest request deadline of the implementations (command testees)."""
    return max([float(getattr(impl, "timeout", 0.0)) for impl in impls.values()] + [0.0])


def fuzz(impls: dict[str, Testee], expected: ExpectedSet, seconds: float, seed: int | None = None,
         ops: list[str] | None = None, stream: TextIO = sys.stderr, workers: int | None = None,
         stop_after_new: float | None = None, max_examples: int | None = None,
         started: float | None = None, hard_deadline: float | None = None,
         shard: tuple[int, int] = (1, 1), campaign: bool = False) -> FuzzResult:
    """Fuzz until ``seconds`` are spent (or ``max_examples`` examples are run: with one worker and a
    seed, a fixed, reproducible set of inputs). ``started``: when the run began (default now; the
    command line passes its own start, so start-up counts); ``hard_deadline``: when everything ends
    (default ``started + seconds`` plus the largest request deadline). ``shard`` K/N: this run's share of
    the seed's task stream (``_tasks``); with ``max_examples``, the share of that run's tasks, so that N
    shards of one seed and one number of examples run, together, what one run would. ``campaign``: which
    disagreeing examples are classified depends on each example's place in the stream alone
    (``sightings.campaign_classifies``), never on what the run saw before, so that N shards classify, together, the
    examples one run classifies (the command line sets it with --max-examples)."""
    started = started if started is not None else time.monotonic()
    deadline = started + seconds
    if hard_deadline is None and seconds != float("inf"):
        hard_deadline = deadline + largest_request_deadline(impls)
    hard = hard_deadline if hard_deadline is not None else float("inf")
    result = FuzzResult(versions=unicode_versions_of(impls))
    checked = recheck_detailed(expected, impls, result.versions)
    result.expected_problems = [message for message, _ in checked]
    result.unexpected_passes = [passed for _, passed in checked if passed]
    ops = ops or comparable_ops()
    if workers is None:
        workers = (os.cpu_count() or 1) if _declared(impls) else 1
    result.workers = workers
    base_seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    result.seed = base_seed
    progress = Progress(stream, "fuzz", seconds)
    progress.start = started
    all_impls = impls
    active = list(impls)
    sightings = Sightings(list(impls), result.versions, expected, result.findings, started, hard)
    result.divergences, result.seen = sightings.divergences, sightings.seen  # filled as the run goes

    def expected_count() -> int:
        return sum(1 for d in result.divergences if d.status == "expected")

    harvested = Harvest()  # what the testees reported, from the workers and from this process

    def absorb(got: Harvest) -> None:
        harvested.add(got)
        take_out(got.taken_out)

    def take_out(names: list[str]) -> None:
        nonlocal impls
        for name in names:
            if name in active:
                active.remove(name)
                result.taken_out.append(name)
                stream.write(f"[fuzz] {name} taken out of the rest of the run: too many faults, crashes or hangs "
                             "in a row (see its findings)\n")
        impls = {name: all_impls[name] for name in active}

    cutoff = hard_deadline
    result.shard = shard
    ledger = result.ledger
    count = task_count(max_examples)
    ledger.planned = None if count is None else len(range(shard[0] - 1, count, shard[1])) * BATCH
    # The end of a time budget may cut the batch each worker has in flight; a plan of fixed size must be run whole.
    ledger.allowance = workers * BATCH if ledger.planned is None else 0
    tasks = _tasks(ops, base_seed, active, shard, task_count(max_examples))
    stopped = "the budget ran out first (give more --minutes)"  # unless the loop says otherwise
    batches = _batches(tasks, impls, workers, deadline, hard, cutoff)
    try:
        for batch in batches:
            result.examples += batch["examples"]
            for name, count in batch["inexpressible"].items():
                result.inexpressible[name] = result.inexpressible.get(name, 0) + count
            absorb(Harvest(**batch["harvest"]))
            number = batch["seed"] - base_seed * 1_000_003  # the task's place in the seed's stream
            ledger.add(Ledger.from_json(batch["ledger"]))
            for _, _, count, examples in batch["disagreeing"]:
                fates = [sightings.consider(impls, batch["op"], hostvalues.decode_args(encoded), responses,
                                            positions, (number, index) if campaign else None, sign,
                                            novel_only=kept >= KEEP_PER_KEY)  # kept for its signature
                         for kept, (encoded, responses, positions, index, sign) in enumerate(examples)]
                account(ledger, count, fates)
            absorb(harvest(impls))
            progress.update(time.monotonic() - progress.start,
                            _progress_text(progress, result.examples, len(result.new), expected_count()))
            if len(active) < 2:
                stream.write(f"[fuzz] fewer than two implementations left ({', '.join(active) or 'none'}): "
                             "the run stops with its findings\n")
                stopped = ledger.stopped = "fewer than two implementations were left"
                break
            if stop_after_new is not None and result.new and \
                    time.monotonic() - started > min(d.extent.found_after or 0.0 for d in result.new) + stop_after_new:
                stopped = f"it stopped {stop_after_new:g} s after its first new divergence (--stop-after-new)"
                break
    except KeyboardInterrupt:  # Ctrl-C: the run stops here and reports what it has (its workers ignore SIGINT)
        result.interrupted = ledger.interrupted = True
        stopped = "it was interrupted"
        stream.write("\n[fuzz] interrupted: the run stops; its report holds the examples run so far\n")
    finally:
        batches.close()  # the pool ended (harness/fuzzing/pools.py), a batch still running abandoned
    if not result.examples and not result.interrupted and not ledger.stopped:
        ledger.stopped = "no batch came back before the run's hard deadline (its testees answered too slowly)"
    if result.interrupted:
        result.cut.append(f"interrupted ({interrupted_by()}) after {result.examples:,} examples: a partial run (a "
                          "class being classified or shrunk at that moment is not in the report)")
    harvested.add(harvest(all_impls))
    result.findings.merge(harvested.findings)
    result.batches_refused = harvested.batches_refused
    for name, count in sorted(harvested.cut.items()):
        result.cut.append(f"{count:,} request(s) to {name} unanswered when the budget ran out (not compared)")
    result.not_reproduced = sightings.not_reproduced
    if sightings.not_classified:
        result.cut.append(f"{sightings.not_classified} disagreeing input(s) not classified: the budget ran out")
    if sightings.shrink_cut:
        result.cut.append(f"the shrinking of {sightings.shrink_cut} witness(es) stopped at the budget")
    share = ledger.planned  # this shard's examples
    if share is not None and result.examples < share:
        result.cut.append(f"{result.examples:,} of this shard's {share:,} examples run: {stopped}")
    progress.update(time.monotonic() - progress.start,
                    _progress_text(progress, result.examples, len(result.new), expected_count()), force=True)
    progress.done()
    result.seconds = time.monotonic() - started
    return result
