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

The budget is a budget: batches run until ``seconds``; classification and shrinking end at the hard deadline
(``seconds`` plus the largest request deadline), and whatever was cut is named in ``FuzzResult.cut``. Both count
from the moment every implementation, in every worker, answered its start (``Clock``; docs/fuzzing.md, "How the
budget is counted"): the start-up before it is measured and reported apart (``FuzzResult.startup``), bounded by
its own allowance (harness/fuzzing/pools.py, ``startup_allowance``). An implementation that does not come up in a
worker ends the run with that verdict (``FuzzResult.unavailable``; the command line exits UNAVAILABLE), and a
worker started again, or a testee process restarted in one, is counted and said.

Ctrl-C stops the run where it is: the workers, which ignore SIGINT (harness/fuzzing/pools.py), are ended,
and the result holds what ran before, ``FuzzResult.interrupted`` set and a cut saying after how many
examples (the command line writes it as the partial report, and exits 4).
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
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
from harness.differential.verdict import Fresh, outcome_kinds
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
    startup: float = 0.0  # seconds from the command's start until every implementation was up (not budgeted)
    unavailable: str | None = None  # why an implementation never came up in a worker: the run's verdict
    worker_restarts: int = 0  # workers the pool started again (one died) once all were up
    testee_restarts: dict[str, int] = field(default_factory=dict)  # implementation -> processes restarted

    @property
    def new(self) -> list[ClassRecord]:
        return [d for d in self.divergences if d.status == "new"]


@dataclass
class Clock:
    """The budget's clock: ``began`` when the command began; ``up`` when every implementation (in every worker) had
    answered its start, from which ``seconds`` (``deadline``) and the hard deadline (``deadline`` plus ``slack``,
    the largest request deadline; None: no hard deadline) count."""

    began: float
    seconds: float
    slack: float | None
    up: float | None = None

    def start(self, at: float) -> None:
        self.up = at

    @property
    def deadline(self) -> float:
        return (self.up if self.up is not None else time.monotonic()) + self.seconds

    @property
    def hard(self) -> float:
        return float("inf") if self.slack is None else self.deadline + self.slack

    @property
    def startup(self) -> float:
        """Seconds from the command's start until the implementations were up (until now, while they are not)."""
        return (self.up if self.up is not None else time.monotonic()) - self.began


def _progress_text(progress: Progress, examples: int, new: int, expected: int, aside: str = "") -> str:
    elapsed = time.monotonic() - progress.start
    rate = examples / elapsed if elapsed > 0 else 0.0
    return (f"{elapsed:6.1f}s/{progress.total:.0f}s  {examples:,} examples ({rate:,.0f}/s)  "
            f"divergences: {new} new, {expected} expected{aside}")


# ---- one batch, in a worker (or in this process) -------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init_worker(names: tuple[str, ...], began: Any = None, starts: pools.Starts | None = None,
                 cutoff: Any = None, running: Any = None) -> None:
    """A worker's testees; ended with it (terminated at the budget or interrupted, or its parent gone: its
    testee processes are killed first, since a hung one would outlive it; harness/fuzzing/pools.py).
    ``began``: a count shared by the workers of the batches they began (``run_batch``); ``starts``: where the
    worker says it is up, or which implementation did not come up and why (it does not raise: the pool would
    start it again and again); ``cutoff``: the run's hard deadline, set by the driver once every worker is up
    (0: none), given to the testees at the first batch; ``running``: slot -> the pid of the worker that took the
    batch in that slot (``_run_slotted``), so that the driver can send again a batch lost with its worker."""
    _WORKER.update(began=began, impls={}, failed=None, cutoff=cutoff, restarts={}, running=running)
    pools.at_end(lambda: pools.kill_testees(_WORKER["impls"]))
    started = implementations.start_each(list(names))
    _WORKER["impls"].update({name: testee for name, testee in started.items() if not isinstance(testee, Exception)})
    failed = next(((name, error) for name, error in started.items() if isinstance(error, Exception)), None)
    if failed is None:
        if starts is not None:
            starts.came_up()
        return
    name, error = failed
    text = str(error)
    _WORKER["failed"] = f"{name} did not come up in a worker: " + (text if text.startswith(name) else text)
    pools.kill_testees(_WORKER["impls"])  # the ones that did start: this worker runs no batch
    if starts is None:
        raise error
    starts.failed(_WORKER["failed"])


def _worker_batch() -> dict[str, Any] | None:
    """In a worker, before a batch: its failure to start, as the batch's result; else None, the run's hard deadline
    given to its testees at the first batch (the driver set it once every worker was up)."""
    if _WORKER.get("failed"):
        return {"unavailable": _WORKER["failed"]}
    cutoff = _WORKER.pop("cutoff", None)
    if cutoff is not None:
        for impl in _WORKER["impls"].values():
            if hasattr(impl, "cutoff"):
                impl.cutoff = cutoff.value or None
    return None


def _restarted(opened: dict[str, Testee]) -> dict[str, int]:
    """In a worker: the testee processes restarted since its last batch (CommandTestee.restarts), per name."""
    seen = _WORKER["restarts"]
    out = {}
    for name, impl in opened.items():
        count = getattr(impl, "restarts", 0)
        if count != seen.get(name, 0):
            out[name], seen[name] = count - seen.get(name, 0), count
    return out


def run_batch(task: tuple[Any, ...], opened: dict[str, Testee] | None = None) -> dict[str, Any]:
    """Generate ``size`` inputs of ``op`` from ``seed``, run them on the ``active`` implementations, return
    the disagreeing ones (per group of implementations and outcome kinds, the first KEEP_PER_KEY and the first of
    each other signature among the group's first SIGNED, each with its position in the batch each implementation
    got, its place in the batch and its signature), the counts and the testees' findings."""
    op, seed, size, active = task
    worker = opened is None
    if worker:
        failed = _worker_batch()
        if failed is not None:
            return failed
        if _WORKER.get("began") is not None:  # the driver learns it is at work
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
            "restarts": _restarted(opened) if worker else {},
            "disagreeing": [[list(names), [list(k) for k in kinds], counts[(names, kinds)], examples]
                            for (names, kinds), examples in kept.items()]}


def account(ledger: Ledger, count: int, fates: list[str], aside: bool = False) -> None:
    """A batch's group of ``count`` disagreeing inputs into the ledger, from what became of the examples of it
    that were considered (``fates``, Sightings.consider): the examples themselves as they went; the group's
    other members (not kept: every member of a group shares its implementations and outcome kinds, and
    Sightings samples a group the same way) assigned to its class when one of its examples was classified,
    else not reproduced when the group's candidate class was found history-dependent (``aside``: they are
    counted in that finding, verdict.Fresh.set_aside), else not classified."""
    ledger.disagreeing += count
    ledger.not_reproduced += fates.count(NOT_REPRODUCED) + (count - len(fates) if aside else 0)
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


def _run_slotted(slot: int, task: tuple[Any, ...]) -> dict[str, Any]:
    """In a worker: the batch of ``task``, its taker's pid noted first in the driver's ``slot`` (``_init_worker``)."""
    running = _WORKER.get("running")
    if running is not None:
        running[slot] = os.getpid()
    return run_batch(task)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, but not ours to signal
    return True


WAIT_SLICE = 0.25  # seconds: how often the driver, waiting on a batch, looks whether a replaced worker came up
RESENDS = 2  # a batch lost with its worker is sent again at most this often


class _Flight:
    """A batch in flight: its task, its slot in the shared ``running`` array, the sends of it (the first answer
    counts) and how often a worker died with it."""

    def __init__(self, slot: int, task: tuple[Any, ...]) -> None:
        self.slot, self.task, self.sends, self.lost = slot, task, [], 0

    def send(self, pool: Any, running: Any) -> None:
        running[self.slot] = 0  # not taken yet
        self.sends.append(pool.apply_async(_run_slotted, (self.slot, self.task)))

    def ready(self) -> Any:
        return next((sent for sent in self.sends if sent.ready()), None)


def _batches(tasks: Iterator[tuple[Any, ...]], opened: dict[str, Testee], workers: int, clock: Clock,
             up: Callable[[], None], restarts: list[int]) -> Iterator[dict[str, Any]]:
    """Batch results until the deadline; a pool keeps two tasks per worker in flight. The clock starts (``up``
    called) once every worker's testees answered their start, within the start-up allowance (pools.StartFailed
    else); no task is sent before. A batch still running at the hard deadline is abandoned (its worker
    terminated, its testees killed). ``restarts``: set to the workers started again after that."""
    if workers <= 1:
        up()
        deadline = clock.deadline
        for task in tasks:  # a finite stream (a fixed number of examples) ends the run
            if time.monotonic() >= deadline:
                return
            yield run_batch(task, opened)
        return
    method = pools.start_method()
    ctx = pools.context(method)
    began = ctx.Value("i", 0)  # batches the workers began
    starts = pools.Starts(ctx)
    cutoff = ctx.Value("d", 0.0)  # the hard deadline, once known
    running = ctx.Array("i", 2 * workers, lock=False)  # slot -> the pid of the worker that took its batch (0: none)
    with pools.ending(method, workers, _init_worker, (tuple(opened), began, starts, cutoff, running)) as pool:
        clock.start(starts.wait(workers, pools.startup_allowance(
            getattr(impl, "startup_timeout", 0.0) for impl in opened.values())))
        up()
        deadline, hard_deadline = clock.deadline, clock.hard
        cutoff.value = 0.0 if hard_deadline == float("inf") else hard_deadline
        flight: deque[_Flight] = deque(_Flight(slot, task) for slot, task in enumerate(itertools.islice(tasks,
                                                                                                         2 * workers)))
        for entry in flight:
            entry.send(pool, running)
        returned = 0
        while flight:  # leaving the block ends the pool, a batch still running abandoned (pools.ending)
            restarts[0] = starts.restarts(workers)
            head = flight[0]
            # Waited on in slices: a worker started again (one died, its batch lost with it) whose testees do not
            # come up says so in ``starts`` at once, and the run stops with it (the loop in fuzz()), rather than
            # wait out the lost batch to the hard deadline and end as if the work were done. A batch whose worker
            # died with it is lost to the pool (a pool never sends a task again): the driver sends it again (the
            # task stream is deterministic), at most RESENDS times.
            while head.ready() is None and time.monotonic() < hard_deadline and not starts.failure.value:
                head.sends[-1].wait(min(WAIT_SLICE, max(0.0, hard_deadline - time.monotonic())))
                if head.ready() is not None:
                    break
                for entry in flight:
                    pid = running[entry.slot]
                    if entry.ready() is None and pid and not _alive(pid):
                        entry.lost += 1
                        if entry.lost > RESENDS:  # a batch that ends every worker that takes it: the run stops
                            yield {"lost": f"a fuzz worker died on the batch of {entry.task[0]} with seed "
                                           f"{entry.task[1]} {entry.lost} times (killed from outside, out of "
                                           "memory, or a testee that takes its worker down)"}
                            return
                        entry.send(pool, running)
            if starts.failure.value:
                yield {"unavailable": starts.failure_text()}
                return
            sent = head.ready()
            if sent is None:
                if not returned and not began.value:  # not one batch back, nor begun: the workers failed
                    raise RuntimeError(f"no batch came back from the {workers} fuzz workers before the run's hard "
                                       "deadline: the worker processes failed (their output is above)") from None
                return  # batches begun, not finished: the testees were slower than the budget (the run's ledger)
            flight.popleft()
            result = sent.get(timeout=0)
            returned += 1
            task = next(tasks, None) if time.monotonic() < deadline else None
            if task is not None:
                entry = _Flight(head.slot, task)  # the slot the returned batch leaves
                entry.send(pool, running)
                flight.append(entry)
            yield result
            if time.monotonic() >= deadline:
                return
        restarts[0] = starts.restarts(workers)


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
         started: float | None = None,
         shard: tuple[int, int] = (1, 1), campaign: bool = False) -> FuzzResult:
    """Fuzz until ``seconds`` are spent (or ``max_examples`` examples are run: with one worker and a
    seed, a fixed, reproducible set of inputs), counted from the moment every implementation of every worker is
    up (``Clock``; with one worker, ``impls`` are, as the batches begin); everything ends at the hard deadline,
    that plus the largest request deadline. ``started``: when the command began (default now): the start-up
    until the clock starts is measured from it (``FuzzResult.startup``). ``shard`` K/N: this run's share of
    the seed's task stream (``_tasks``); with ``max_examples``, the share of that run's tasks, so that N
    shards of one seed and one number of examples run, together, what one run would. ``campaign``: which
    disagreeing examples are classified depends on each example's place in the stream alone
    (``sightings.campaign_classifies``), never on what the run saw before, so that N shards classify, together, the
    examples one run classifies (the command line sets it with --max-examples)."""
    clock = Clock(started if started is not None else time.monotonic(), seconds,
                  None if seconds == float("inf") else largest_request_deadline(impls))
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
    all_impls = impls
    active = list(impls)
    sightings = Sightings(list(impls), result.versions, expected, result.findings, clock.began, float("inf"))
    aside = ""  # the progress line's start-up and restarts
    restarts = [0]  # workers started again (_batches)

    def up() -> None:
        """The clock starts (now, with one worker): the deadlines are set where they are read."""
        nonlocal aside
        if clock.up is None:
            clock.start(time.monotonic())
        result.startup = ledger.startup = clock.startup
        sightings.started, sightings.hard = clock.up, clock.hard
        progress.start = clock.up
        for impl in all_impls.values():  # this process's testees: the expected-list recheck, classifying, shrinking
            if hasattr(impl, "cutoff"):
                impl.cutoff = None if clock.hard == float("inf") else clock.hard
        aside = f"  (start-up {clock.startup:.1f}s, not counted)"
        stream.write(f"[fuzz] every implementation up after {clock.startup:.1f}s of start-up (not counted): the "
                     f"{seconds:g} s budget starts now\n")
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

    result.shard = shard
    ledger = result.ledger
    count = task_count(max_examples)
    ledger.planned = None if count is None else len(range(shard[0] - 1, count, shard[1])) * BATCH
    # The end of a time budget may cut the batch each worker has in flight; a plan of fixed size must be run whole.
    ledger.allowance = workers * BATCH if ledger.planned is None else 0
    tasks = _tasks(ops, base_seed, active, shard, task_count(max_examples))
    stopped = "the budget ran out first (give more --minutes)"  # unless the loop says otherwise
    batches = _batches(tasks, impls, workers, clock, up, restarts)
    testee_restarts: dict[str, int] = {}
    try:
        for batch in batches:
            if "unavailable" in batch:  # a worker started again (one died) whose testees did not come up
                result.unavailable = batch["unavailable"]
                stopped = ledger.stopped = f"an implementation did not come up again: {result.unavailable}"
                stream.write(f"\n[fuzz] {result.unavailable}: the run stops\n")
                break
            if "lost" in batch:  # a batch that took down every worker it was sent to
                stopped = ledger.stopped = batch["lost"]
                stream.write(f"\n[fuzz] {batch['lost']}: the run stops\n")
                break
            result.examples += batch["examples"]
            for name, count in batch["restarts"].items():
                testee_restarts[name] = testee_restarts.get(name, 0) + count
                stream.write(f"\n[fuzz] {name}: {count} testee process(es) restarted in a worker (a crash, a hang "
                             "or faults; the time it took is counted in the budget)\n")
            if restarts[0] > result.worker_restarts:
                stream.write(f"\n[fuzz] {restarts[0] - result.worker_restarts} worker(s) started again (one ended); "
                             "its testees' start is counted in the budget\n")
                result.worker_restarts = restarts[0]
                aside = f"  (start-up {clock.startup:.1f}s, not counted; {restarts[0]} worker restart(s))"
            for name, count in batch["inexpressible"].items():
                result.inexpressible[name] = result.inexpressible.get(name, 0) + count
            absorb(Harvest(**batch["harvest"]))
            number = batch["seed"] - base_seed * 1_000_003  # the task's place in the seed's stream
            ledger.add(Ledger.from_json(batch["ledger"]))
            for names, kinds, count, examples in batch["disagreeing"]:
                fates = [sightings.consider(impls, batch["op"], hostvalues.decode_args(encoded), responses,
                                            positions, (number, index) if campaign else None, sign,
                                            novel_only=kept >= KEEP_PER_KEY)  # kept for its signature
                         for kept, (encoded, responses, positions, index, sign) in enumerate(examples)]
                history_dependent = CLASSIFIED not in fates and Fresh.of(result.findings).set_aside(
                    batch["op"], names, kinds, count - len(fates), result.findings)
                account(ledger, count, fates, history_dependent)
            absorb(harvest(impls))
            progress.update(time.monotonic() - progress.start,
                            _progress_text(progress, result.examples, len(result.new), expected_count(), aside))
            if len(active) < 2:
                stream.write(f"[fuzz] fewer than two implementations left ({', '.join(active) or 'none'}): "
                             "the run stops with its findings\n")
                stopped = ledger.stopped = "fewer than two implementations were left"
                break
            if stop_after_new is not None and result.new and \
                    time.monotonic() - sightings.started > min(d.extent.found_after or 0.0
                                                               for d in result.new) + stop_after_new:
                stopped = f"it stopped {stop_after_new:g} s after its first new divergence (--stop-after-new)"
                break
    except pools.StartFailed as exc:  # an implementation never came up: the run's verdict, not a traceback
        result.unavailable = str(exc)
        stopped = ledger.stopped = f"an implementation never came up: {exc}"
        stream.write(f"\n[fuzz] {exc}: the run stops before its budget's clock started "
                     f"(after {clock.startup:.1f}s of start-up)\n")
    except KeyboardInterrupt:  # Ctrl-C: the run stops here and reports what it has (its workers ignore SIGINT)
        result.interrupted = ledger.interrupted = True
        stopped = "it was interrupted"
        stream.write("\n[fuzz] interrupted: the run stops; its report holds the examples run so far\n")
    finally:
        batches.close()  # the pool ended (harness/fuzzing/pools.py), a batch still running abandoned
        Fresh.of(result.findings).close()  # the fresh instances the reproduction gate started, ended with the run
    result.startup = clock.startup
    ledger.startup = clock.startup if clock.up is not None else None  # never up: its stopped line says so
    result.worker_restarts = max(result.worker_restarts, restarts[0])
    for name, impl in all_impls.items():  # this process's own testees (every batch's, with one worker)
        testee_restarts[name] = testee_restarts.get(name, 0) + getattr(impl, "restarts", 0)
    result.testee_restarts = {name: count for name, count in testee_restarts.items() if count}
    ledger.restarts = dict(result.testee_restarts)
    ledger.worker_restarts = result.worker_restarts
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
                    _progress_text(progress, result.examples, len(result.new), expected_count(), aside), force=True)
    progress.done()
    result.seconds = time.monotonic() - clock.up if clock.up is not None else 0.0
    return result
