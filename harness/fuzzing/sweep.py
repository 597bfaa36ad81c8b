"""The exhaustive code-point sweep (``python -m harness sweep``, ``nox -s sweep``).

Every template of harness/fuzzing/templates.py gets every code point U+0000..U+10FFFF (lone
surrogates included; one template takes every high-low pair of lone surrogates), and each instance is
sent to every implementation in batches. Work is cut into chunks of :data:`CHUNK` values:

* worker processes (one per core by default), each with its own implementations, run the chunks;
* every finished chunk is appended to a checkpoint (JSON lines), so an interrupted sweep resumes
  where it stopped; its header names the run (``Settings.header``: a digest of the settings and of each
  implementation's build as it describes itself), and each line is sealed (``_sealed``): it carries that
  identity and a digest chain (its digest covers the previous line's and its own content). A checkpoint
  of other settings or other builds is refused, naming the difference; a chunk result whose seal does
  not hold (edited, inserted, moved, from another sweep) is refused, naming the line; a damaged line
  (the last one cut by a kill, or any other that is not a chunk result: each is read as untrusted JSON
  and checked for its shape) costs its chunk alone, which runs again, and the file is rewritten without
  it (``_read_checkpoint``). The chain guards against accidents and casual edits, not against someone
  who recomputes it (no key);
* ``--shard K/N`` runs every N-th chunk, so machines or CI jobs can split a sweep; their reports are
  merged with ``python -m harness sweep --merge A.json B.json``;
* an input an implementation's host cannot express (two lone surrogates that a UTF-16 host reads as
  one valid pair) is not sent to it, and is counted per implementation and template.

Disagreements are grouped into classes by :mod:`harness.fuzzing.classes`; each class is reported once.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from harness.differential.outcomes import divergent
from harness.fuzzing import classes, pools
from harness.fuzzing.progress import Progress
from harness.fuzzing.templates import BY_NAME, SURROGATE_PAIRS, Template
from harness.model import settings, untrusted
from harness.model.files import WRITE_ERRORS, WriteFailed, atomic_write
from harness.model.ledger import Ledger, Tally
from harness.model.registry import get_op
from harness.model.status import UsageError
from harness.testees import impls
from harness.testees.command import BATCH as LINE_BATCH
from harness.testees.fanout import answer_each, harvest
from harness.testees.findings import KINDS as FINDING_KINDS
from harness.testees.findings import Findings
from harness.testees.impls import context
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Testee

CHUNK = 4096
CHECKPOINT_SCHEMA = "sweep-checkpoint-v2"  # v2: the run's identity in the header and a sealed line per chunk
_OLDER_SCHEMAS = ("sweep-checkpoint-v1",)  # no identity, no seals: refused (nothing in it can be checked)
_SEAL = ("run", "prev", "chain")  # a checkpoint line's fields besides its chunk result (``_sealed``)
_BUILD = ("name", "version", "unicode")  # what of a self-description names an implementation's build
GROUPING = 3  # how a chunk groups its disagreeing inputs (2: split by outcome shape, character class, age, width;
#               3: the same groups, each one's runs flat: first, last, first, ... of the chunk's one template)
TALLY = tuple(Tally().to_json())  # a chunk's tally of one implementation's requests: these counts


@dataclass(frozen=True)
class Chunk:
    template: str
    start: int
    stop: int

    @property
    def key(self) -> str:
        return f"{self.template}:{self.start:x}"


@dataclass(frozen=True)
class Settings:
    impls: tuple[str, ...]
    templates: tuple[str, ...]
    first: int  # code point range, inclusive
    last: int
    shard: tuple[int, int]  # (K, N), 1-based

    def header(self, described: dict[str, Any] | None = None) -> dict[str, Any]:
        """The checkpoint's first line: the settings, each implementation's build (``described``: name ->
        self-description, as harness/model/envelope.py ``descriptions`` gives them; name, version and
        unicode of each are kept) and ``identity``, the digest of both, which every line carries."""
        builds = {}
        for name in self.impls:
            description = (described or {}).get(name)
            builds[name] = ({key: description.get(key) for key in _BUILD} if isinstance(description, dict)
                            else None)
        named = {"command": "sweep", "impls": list(self.impls), "templates": list(self.templates),
                 "range": [self.first, self.last], "shard": f"{self.shard[0]}/{self.shard[1]}", "chunk": CHUNK,
                 "grouping": GROUPING,
                 "builds": json.loads(json.dumps(builds))}  # as a resume reads it back (a tuple as a list)
        return {"schema": CHECKPOINT_SCHEMA, **named, "identity": _digest(named)}


def _digest(value: Any) -> str:
    """The SHA-256 of a JSON value's canonical text (keys sorted, no spaces, ASCII)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _sealed(result: dict[str, Any], identity: str, prev: str) -> tuple[str, str]:
    """A chunk result's checkpoint line and its digest: the result with the run's ``identity``, ``prev``
    (the digest of the line before it, the identity for the first) and ``chain``, the digest of all that
    (as JSON reads it back: what a resume recomputes)."""
    line = json.loads(json.dumps({**result, "run": identity, "prev": prev}))
    line["chain"] = _digest(line)
    return json.dumps(line, ensure_ascii=True, separators=(",", ":")), line["chain"]


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected K/N, e.g. 1/4") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


def missing_shards(shards: list[str]) -> list[str]:
    """The shares K/N of one split that ``shards`` (each a K/N) lack; ValueError when they split in different
    numbers of shares or one is given twice (a merge of them would count its work twice)."""
    shares = [parse_shard(shard) for shard in shards]
    sizes = {n for _, n in shares}
    if len(sizes) > 1:
        raise ValueError(f"the reports split the stream in different numbers of shares: {sorted(sizes)}")
    taken = [k for k, _ in shares]
    if len(set(taken)) < len(taken):
        raise ValueError(f"a shard is given twice: {', '.join(sorted(shards))}")
    (total,) = sizes or {1}
    return [f"{k}/{total}" for k in range(1, total + 1) if k not in taken]


def parse_range(text: str) -> tuple[int, int]:
    """``U+0000..U+FFFF``, ``0-ffff`` or one code point ``U+1C89``."""
    def point(part: str) -> int:
        part = part.strip().upper().removeprefix("U+").removeprefix("0X")
        value = int(part, 16)
        if not 0 <= value <= 0x10FFFF:
            raise ValueError
        return value

    try:
        parts = text.replace("..", "-").split("-")
        if len(parts) == 1:
            return point(parts[0]), point(parts[0])
        first, last = point(parts[0]), point(parts[1])
    except ValueError:
        raise ValueError(f"--range {text!r}: expected U+XXXX..U+YYYY (hex code points up to U+10FFFF)") from None
    if first > last:
        raise ValueError(f"--range {text!r}: the first code point is after the last")
    return first, last


def _template_start(settings: Settings, template: Template) -> int:
    if template.size == SURROGATE_PAIRS:
        return (max(settings.first, 0xD800) - 0xD800) << 10
    return settings.first


def position_in_batch(settings: Settings, template: str, index: int) -> int:
    """Where an input was in the batch line its implementations got (chunks are sent as batch lines of
    up to harness.testees.command.BATCH requests)."""
    return (index - _template_start(settings, BY_NAME[template])) % CHUNK % LINE_BATCH


def plan(settings: Settings) -> list[Chunk]:
    """Every chunk of the settings' templates and range, then this shard's share (every N-th)."""
    chunks = []
    for name in settings.templates:
        template = BY_NAME[name]
        if template.size == SURROGATE_PAIRS:  # the range filters the high surrogate
            low, high = max(settings.first, 0xD800), min(settings.last, 0xDBFF)
            if low > high:
                continue
            start, stop = (low - 0xD800) << 10, (high - 0xD800 + 1) << 10
        else:
            start, stop = settings.first, settings.last + 1
        chunks += [Chunk(name, s, min(stop, s + CHUNK)) for s in range(start, stop, CHUNK)]
    k, n = settings.shard
    return [chunk for index, chunk in enumerate(chunks) if index % n == k - 1]


# ---- one chunk, in a worker ------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _open(names: tuple[str, ...]) -> dict[str, Testee]:
    """The named testees, started at once (``impls.start_each``); the first that cannot start is raised (the
    others closed)."""
    started = impls.start_each(list(names))
    failed = next((error for error in started.values() if isinstance(error, Exception)), None)
    if failed is not None:
        for testee in started.values():
            if not isinstance(testee, Exception):
                testee.close()
        raise failed
    return {name: testee for name, testee in started.items() if not isinstance(testee, Exception)}


def _init_worker(names: tuple[str, ...], out: Any, starts: pools.Starts | None = None, running: Any = None) -> None:
    """A worker's testees; their processes are killed when it ends (harness/fuzzing/pools.py). ``starts``: where
    it says it is up, or which implementation did not come up and why (it does not raise: the pool would start it
    again and again, each time with a traceback). ``running``: chunk number -> the pid of the worker that took it
    (``_run_numbered``), so that the driver can send again a chunk whose worker died with it."""
    _WORKER.update(impls={}, out=out, failed=None, restarts={}, running=running)
    pools.at_end(lambda: pools.kill_testees(_WORKER["impls"]))
    try:
        _WORKER["impls"].update(_open(names))
    except (impls.ImplementationUnavailable, impls.DeclarationError) as exc:
        if starts is None:
            raise
        _WORKER["failed"] = f"an implementation did not come up in a worker: {str(exc)[:1500]}"
        starts.failed(_WORKER["failed"])
        return
    if starts is not None:
        starts.came_up()


def _worker_restarts() -> dict[str, int]:
    """In a worker: the testee processes restarted since its last chunk (CommandTestee.restarts), per name."""
    seen = _WORKER.setdefault("restarts", {})
    out = {}
    for name, impl in _WORKER["impls"].items():
        count = getattr(impl, "restarts", 0)
        if count != seen.get(name, 0):
            out[name], seen[name] = count - seen.get(name, 0), count
    return out


def _run_numbered(number: int, chunk: Chunk) -> tuple[int, dict[str, Any]]:
    """In a worker: chunk ``number`` of the driver's list, its taker's pid noted first (``_init_worker``)."""
    running = _WORKER.get("running")
    if running is not None:
        running[number] = os.getpid()
    return number, run_chunk(chunk)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, but not ours to signal
    return True


RESENDS = 2  # a chunk lost with its worker is sent again at most this often
LOST_SLICE = 0.25  # seconds: how often the driver, no result coming, looks for a chunk lost with its worker


def run_chunk(chunk: Chunk, opened: dict[str, Testee] | None = None, out: Any = None) -> dict[str, Any]:
    """Send the chunk's instances to every implementation still in the run (``out``: one flag per
    implementation, set by the driver when one is taken out); the disagreeing ones in groups (``classes.group_key``),
    each group's members as runs of indexes (first, last, first, last, ...: the chunk has one template)."""
    worker = opened is None
    if worker and _WORKER.get("failed"):  # a worker started again (one died) whose testees did not come up
        return {"chunk": chunk.key, "unavailable": _WORKER["failed"]}
    opened = opened if opened is not None else _WORKER["impls"]
    out = out if out is not None else _WORKER.get("out")
    names = list(opened)
    opened = {name: impl for number, (name, impl) in enumerate(opened.items())
              if not (out is not None and out[number]) and not getattr(impl, "taken_out", None)}
    template: Template = BY_NAME[chunk.template]
    indexes = range(chunk.start, chunk.stop)
    all_args = [template.args(i) for i in indexes]
    ledger = Ledger("sweep", planned=0)
    answers, inexpressible = answer_each(opened, template.op, all_args, ledger)
    groups: dict[tuple[Any, ...], list[int]] = {}  # group key -> its members' runs, flat: first, last, first, ...
    compared = 0
    answering = list(answers)
    versions = classes.versions_in_play(opened)
    text = get_op(template.op).result_kind != "json"
    oracle, shown = oracle_name(template.op), context()  # read once a chunk, not once an input
    split: list[tuple[str, ...]] | None = None
    # A text op whose answers are all strings: the inputs that differ the same way (the same implementations, each
    # one's text longer, shorter or as long as the oracle's) on characters of the same properties are one group, its
    # key made once (``group_key``) and found again by those (``memo``), not made again for each input.
    at = answering.index(oracle) if text and oracle in answering and len(answering) > 1 else -1
    judged = [k for k, name in enumerate(answering) if name != oracle and name not in shown]
    memo: dict[tuple[Any, ...], list[int]] = {}
    for offset, row in enumerate(zip(*answers.values(), strict=True)):
        first = row[0]
        if len(row) > 1 and first is not None and row.count(first) == len(row) and type(first.get("ok")) is str:
            compared += 1  # every one answered, with the same string: agreeing's own first test, without its calls
            continue
        index = chunk.start + offset
        if at >= 0 and None not in row and all(type(response.get("ok")) is str for response in row):
            compared += 1  # what _differing's text path and outcome_shape say of strings, from the strings
            want = row[at]["ok"]
            size = len(want)
            differs = tuple((k, (len(row[k]["ok"]) > size) - (len(row[k]["ok"]) < size)) for k in judged
                            if row[k]["ok"] != want)
            if not differs:
                continue
            if split is None:  # the chunk's characters' properties, once it has a disagreeing input
                split = classes.chunk_split(template.name, chunk.start, chunk.stop, versions)
            runs = memo.get((differs, split[offset]))
            if runs is None:
                runs = memo[(differs, split[offset])] = groups.setdefault(classes.group_key(
                    template.name, index, dict(zip(answering, row, strict=True)), versions,
                    [answering[k] for k, _ in differs], oracle, split[offset]), [])
        else:
            responses = {name: response for name, response in zip(answering, row, strict=True)
                         if response is not None}
            if len(responses) < 2:
                continue
            compared += 1
            names = _differing(template.op, responses, oracle, shown, text)
            if not names:
                continue
            if split is None:
                split = classes.chunk_split(template.name, chunk.start, chunk.stop, versions)
            runs = groups.setdefault(classes.group_key(template.name, index, responses, versions, names, oracle,
                                                       split[offset]), [])
        if runs and runs[-1] == index - 1:
            runs[-1] = index
        else:
            runs += (index, index)
    got = harvest(opened)
    return {"chunk": chunk.key, "values": len(all_args), "compared": compared, "inexpressible": inexpressible,
            "findings": got.findings, "out": [names.index(name) for name in got.taken_out],
            "tallies": {name: tally.to_json() for name, tally in ledger.impls.items()},
            **({"restarts": restarted} if worker and (restarted := _worker_restarts()) else {}),
            "groups": [[list(names), [list(kind) for kind in kinds], hint, list(split), runs]
                       for (names, kinds, hint, split), runs in groups.items()]}


def _differing(op: str, responses: dict[str, dict[str, Any]], oracle: str, shown: frozenset[str] | Any,
               text: bool) -> list[str]:
    """The implementations whose outcome differs from the oracle's (harness.differential.outcomes.divergent):
    for a text op whose answers are all strings, by the strings themselves (what same_outcome compares them by);
    else by ``divergent``."""
    if text and oracle in responses and all(type(r.get("ok")) is str for r in responses.values()):
        want = responses[oracle]["ok"]
        return [name for name, r in responses.items() if name != oracle and name not in shown and r["ok"] != want]
    return divergent(op, responses)


# ---- the driver ----------------------------------------------------------------------------------


@dataclass
class SweepRun:
    settings: Settings
    results: list[dict[str, Any]] = field(default_factory=list)  # one per chunk (resumed ones included)
    seconds: float = 0.0
    resumed: int = 0  # chunks taken from the checkpoint
    interrupted: bool = False
    taken_out: list[str] = field(default_factory=list)  # implementations taken out for their faults
    planned: int | None = None  # values of the plan (this shard's chunks)
    stopped: str | None = None  # why the sweep ended before its plan, where it did
    startup: float = 0.0  # seconds until every worker's implementations were up (not in the rate)
    unavailable: str | None = None  # why an implementation never came up in a worker: the sweep's verdict
    worker_restarts: int = 0  # workers the pool started again (one died)
    testee_restarts: dict[str, int] = field(default_factory=dict)  # implementation -> processes restarted

    def ledger(self) -> Ledger:
        """The sweep's account of its work from its chunks (resumed ones included): the classes' build adds what
        became of each disagreeing input (harness/fuzzing/classes.py build)."""
        ledger = Ledger("sweep", planned=self.planned, inputs=self.values,
                        compared=sum(r["compared"] for r in self.results),
                        disagreeing=sum(disagreeing(r) for r in self.results), interrupted=self.interrupted,
                        stopped=self.stopped, restarts=dict(self.testee_restarts),
                        # none when nothing came up (never up, or every chunk resumed): not "0.0 s until up"
                        startup=self.startup if self.startup and not self.unavailable else None,
                        worker_restarts=self.worker_restarts)
        for result in self.results:
            for name, row in result.get("tallies", {}).items():
                ledger.tally(name).add(Tally.from_json(row))
        return ledger

    @property
    def values(self) -> int:
        return sum(r["values"] for r in self.results)

    def findings(self) -> Findings:
        """The findings about testees the chunks' workers made (kept in the checkpoint with each chunk)."""
        book = Findings()
        for result in self.results:
            book.merge(result.get("findings", []))
        return book

    def inexpressible(self) -> dict[str, dict[str, int]]:
        """implementation -> template -> how many inputs its host could not express."""
        out: dict[str, dict[str, int]] = {}
        for result in self.results:
            template = result["chunk"].split(":")[0]
            for name, count in result["inexpressible"].items():
                per = out.setdefault(name, {})
                per[template] = per.get(template, 0) + count
        return out


def disagreeing(result: dict[str, Any]) -> int:
    """How many inputs of a chunk's result disagree (each group's runs: first, last, first, last, ...)."""
    return sum(sum(runs[1::2]) - sum(runs[0::2]) + len(runs) // 2 for *_, runs in result["groups"])


def groups(run: SweepRun) -> dict[tuple[Any, ...], list[tuple[str, int, int]]]:
    """Every chunk's groups joined: (op, implementations, outcome kinds, hint, what differs) -> member runs
    (template, first, last), in the templates' order and each template's by index (the chunks in plan order)."""
    out: dict[tuple[Any, ...], list[tuple[str, int, int]]] = {}
    order = {name: number for number, name in enumerate(BY_NAME)}

    def place(result: dict[str, Any]) -> tuple[int, int]:
        template, start = result["chunk"].split(":")
        return order[template], int(start, 16)

    for result in sorted(run.results, key=place):
        template = result["chunk"].split(":")[0]
        op = BY_NAME[template].op
        for names, kinds, hint, split, runs in result["groups"]:
            key = (op, tuple(names), tuple(tuple(kind) for kind in kinds), hint, tuple(split))
            out.setdefault(key, []).extend(zip([template] * (len(runs) // 2), runs[0::2], runs[1::2], strict=True))
    return out


class CheckpointError(UsageError, ValueError):
    """A checkpoint that cannot be resumed: its header is damaged, of other settings or builds, or of an older
    harness; or a line's seal does not hold (status 2)."""


_FIELDS = ("chunk", "values", "compared", "inexpressible", "findings", "out", "tallies", "groups")  # run_chunk's
_OPTIONAL = ("findings", "out", "tallies")  # lines of checkpoints written before findings, taking out and ledgers


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _finding_problem(item: Any, names: tuple[str, ...]) -> str | None:
    if not isinstance(item, dict):
        return f"a finding is {_kind(item)}, not an object"
    if item.get("impl") not in names or item.get("kind") not in FINDING_KINDS:
        return "a finding of no implementation of this sweep, or of no known kind"
    if not isinstance(item.get("message"), str) or not (_count(item.get("count")) and item["count"] >= 1):
        return "a finding without its message or count"
    if not isinstance(item.get("evidence", {}), dict):
        return "a finding whose evidence is not an object"
    return None


def _group_problem(group: Any, chunk: Chunk, names: tuple[str, ...]) -> str | None:
    if not (isinstance(group, list) and len(group) == 5):
        return "a group that is not [implementations, outcome kinds, hint, what differs, runs]"
    disagreeing, kinds, hint, split, runs = group
    if not (isinstance(split, list) and len(split) == 4 and all(isinstance(part, str) for part in split)):
        return "a group whose split (outcome shapes, character class, age, width) is not four strings"
    if not (isinstance(disagreeing, list) and disagreeing and all(name in names for name in disagreeing)
            and len(set(disagreeing)) == len(disagreeing)):
        return "a group whose implementations are not this sweep's"
    if not (isinstance(kinds, list) and all(isinstance(kind, list) and len(kind) == 2 and kind[0] in names
                                            and isinstance(kind[1], str) for kind in kinds)):
        return "a group whose outcome kinds are not [implementation, kind] pairs"
    if not isinstance(hint, str):
        return "a group whose hint is not a string"
    if not (isinstance(runs, list) and runs):
        return "a group without its runs of inputs"
    if not (len(runs) % 2 == 0 and all(_count(index) for index in runs) and chunk.start <= runs[0]
            and runs[-1] < chunk.stop and all(a <= b for a, b in zip(runs[0::2], runs[1::2], strict=True))
            and all(a < b for a, b in zip(runs[1::2], runs[2::2], strict=False))):
        return ("runs of inputs that are not first, last, first, last, ... in order inside the chunk (indexes "
                f"{chunk.start:,} to {chunk.stop - 1:,})")
    return None


def chunk_problem(result: dict[str, Any], plan_by_key: dict[str, Chunk], names: tuple[str, ...]) -> str | None:
    """What is wrong with one checkpoint line's chunk result for this sweep (None: nothing). Its shape is
    what run_chunk returns, checked field by field: the report reads every field of it unchecked."""
    missing = [key for key in _FIELDS if key not in result and key not in _OPTIONAL]
    if missing:
        return f"no {', '.join(missing)}"
    unknown = sorted(set(result) - set(_FIELDS))
    if unknown:
        return f"fields no chunk result has: {', '.join(repr(key)[:40] for key in unknown[:3])}"
    key = result["chunk"]
    chunk = plan_by_key.get(key) if isinstance(key, str) else None
    if chunk is None:
        return f"its chunk is {_kind(key)} that names no chunk of this sweep"
    size = chunk.stop - chunk.start
    if result["values"] != size or not _count(result["values"]):
        return f"values is not the chunk's {size:,}"
    if not (_count(result["compared"]) and result["compared"] <= size):
        return f"compared is not a count of at most {size:,}"
    inexpressible = result["inexpressible"]
    if not (isinstance(inexpressible, dict) and all(name in names and _count(count) and count <= size
                                                    for name, count in inexpressible.items())):
        return "inexpressible is not implementation -> count"
    findings = result.get("findings", [])
    if not isinstance(findings, list):
        return f"findings is {_kind(findings)}, not an array"
    out = result.get("out", [])
    if not (isinstance(out, list) and all(_count(number) and number < len(names) for number in out)):
        return "out is not a list of this sweep's implementation numbers"
    tallies = result.get("tallies", {})
    if not (isinstance(tallies, dict) and all(name in names and isinstance(row, dict) and set(row) == set(TALLY)
                                              and all(_count(v) and v <= size for v in row.values())
                                              for name, row in tallies.items())):
        return "tallies is not implementation -> its requests' counts"
    if not isinstance(result["groups"], list):
        return f"groups is {_kind(result['groups'])}, not an array"
    for problem in (*(_finding_problem(item, names) for item in findings),
                    *(_group_problem(group, chunk, names) for group in result["groups"])):
        if problem is not None:
            return problem
    return None


def _ends_whole(path: Path) -> bool:
    """Whether the file's last line has its newline (a write cut by a kill leaves a part of a line)."""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _rewrite(path: Path, lines: list[str]) -> None:
    """The checkpoint made of ``lines`` (its header first), atomically: a kill now leaves the old file
    or the new one, and appending after it starts on a line of its own."""
    atomic_write(path, "".join(line + "\n" for line in lines))


def _seal_problem(line: dict[str, Any], identity: str, prev: str | None) -> str | None:
    """What does not match in a chunk result's seal (None: it holds): its run identity, its own digest, the
    digest of the line before it (``prev``; None: that line was dropped, so the one this line names is taken)."""
    missing = [key for key in _SEAL if key not in line]
    if missing:
        return f"a chunk result without its {', '.join(missing)} (not sealed by a sweep)"
    if line["run"] != identity:
        return (f"a line of another sweep (its run identity {repr(line['run'])[:24]}..., this checkpoint's "
                f"{identity[:22]}...): copied from another checkpoint")
    if line["chain"] != _digest({key: value for key, value in line.items() if key != "chain"}):
        return "its content does not match its chain digest: the line was changed after the sweep wrote it"
    if prev is not None and line["prev"] != prev:
        return ("it does not follow the line before it (its chain names another one): a line inserted, removed "
                "or moved")
    if not (isinstance(line["prev"], str) and len(line["prev"]) == 64):
        return "its prev is not a digest"
    return None


def _header_problem(header: dict[str, Any], wanted: dict[str, Any]) -> str | None:
    """Why a checkpoint's header is not this run's (None: it is)."""
    if header.get("schema") in _OLDER_SCHEMAS:
        return ("written by an older harness (no run identity: its lines cannot be checked); run with --fresh "
                "to start over")
    different = [key for key in wanted if key not in ("builds", "identity") and header.get(key) != wanted[key]]
    if different:
        return (f"a checkpoint of a sweep with other settings ({', '.join(different)} differ: "
                f"{', '.join(f'{k}={repr(header.get(k))[:80]}' for k in different)}); pass --fresh to discard it, "
                "or --checkpoint PATH for another file")
    builds = header.get("builds") if isinstance(header.get("builds"), dict) else {}
    changed = []
    for name, now in wanted["builds"].items():
        then = builds.get(name)
        if then == now:
            continue
        if isinstance(then, dict) and isinstance(now, dict):
            changed += [f"{name} {key} {repr(then.get(key))[:60]} -> {repr(now.get(key))[:60]}"
                        for key in _BUILD if then.get(key) != now.get(key)]
        else:
            changed.append(f"{name} {repr(then)[:60]} -> {repr(now)[:60]}")
    if changed or set(builds) != set(wanted["builds"]):
        return (f"written with other builds of the implementations ({'; '.join(changed)}): its results are not "
                "theirs; run with --fresh to start over")
    if header != wanted:
        return (f"its run identity {repr(header.get('identity'))[:24]}... is not its settings' digest, or it has "
                "fields no header has: the header was edited; run with --fresh to start over")
    return None


def _read_checkpoint(path: Path, settings: Settings, stream: TextIO = sys.stderr,
                     described: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], str]:
    """The chunk results of a checkpoint of this sweep and the digest its next line follows. Each line is
    read as untrusted JSON (harness/model/untrusted.py) and checked for its shape (``chunk_problem``): a
    damaged line, the last one cut by a kill while it was written or any other that is not a chunk result,
    costs its chunk alone (it runs again; the line and why are said on ``stream``), and the file is
    rewritten without it, its later lines sealed again, before anything is appended. A chunk result is
    kept only if its seal holds (``_seal_problem``: this run's identity, its own digest, the previous line's
    digest; after a dropped line the digest it names is taken); one whose seal does not hold, or any line
    with a seal that does not hold, is a CheckpointError (status 2) naming the line. So is a damaged header,
    one of other settings or other builds of the implementations (``described``), or one of an older
    harness."""
    wanted = settings.header(described)
    identity = wanted["identity"]
    lines = untrusted.read_lines(path, "sweep checkpoint")  # BadDocument (status 2): the file is unreadable
    if not lines:  # nothing was written yet (a kill before the header): a sweep of these settings starts
        _rewrite(path, [json.dumps(wanted)])
        return [], identity
    number, header_text, header = lines[0]
    if number != 1 or isinstance(header, untrusted.Refused):
        why = f"its first line: {header}" if number == 1 else "its first line is empty"
        raise CheckpointError(f"{path}: not a sweep checkpoint ({why}); remove it or pass --fresh")
    problem = _header_problem(header, wanted)
    if problem is not None:
        raise CheckpointError(f"{path}: {problem}")
    whole = _ends_whole(path)
    plan_by_key = {chunk.key: chunk for chunk in plan(settings)}
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    prev: str | None = identity  # the digest the next line follows (None: the line before it was dropped)
    for number, text, value in lines[1:]:
        result = None
        if isinstance(value, untrusted.Refused):
            problem = str(value)
            if number == lines[-1][0] and not whole:
                problem = f"cut short, the sweep stopped while writing it ({problem})"
        elif not text.isascii():
            problem = "bytes that are not ASCII (a sweep writes ASCII)"
        else:
            result = {key: item for key, item in value.items() if key not in _SEAL}
            problem = chunk_problem(result, plan_by_key, settings.impls)
            if problem is None or any(key in value for key in _SEAL):  # a chunk result, or a line with a seal
                broken = _seal_problem(value, identity, prev)
                if broken is not None:
                    raise CheckpointError(f"{path}:{number}: {broken}; its results cannot be trusted: run with "
                                          "--fresh to start over")
            if problem is None and value["chunk"] in seen:
                problem = f"its chunk again (line {seen[value['chunk']]} has it)"
        if problem is None and result is not None:
            results.append(result)
            seen[value["chunk"]] = number
            prev = value["chain"]
            continue
        prev = None
        key = value.get("chunk") if isinstance(value, dict) else None
        which = f"chunk {key}" if isinstance(key, str) and key in plan_by_key else "its chunk"
        stream.write(f"[sweep] {path}:{number}: a damaged checkpoint line dropped: {problem}; {which} runs again\n")
    if len(results) + 1 < len(lines) or not whole:
        kept, prev = [json.dumps(wanted)], identity
        for result in results:  # sealed again: a line after a dropped one named that one
            line, prev = _sealed(result, identity, prev)
            kept.append(line)
        _rewrite(path, kept)
    assert prev is not None  # a dropped line rewrote the file, its lines sealed again
    return results, prev


def _progress_text(progress: Progress, done: int, fresh: int, divergent: int, per_value: int) -> str:
    elapsed = time.monotonic() - progress.start
    rate = fresh / elapsed if elapsed > 0 else 0.0
    eta = (progress.total - done) / rate if rate > 0 else float("inf")
    eta_text = f"{eta:,.0f}s" if eta != float("inf") else "?"
    return (f"{done:,}/{progress.total:,} values ({100 * done / max(progress.total, 1):5.1f}%)  "
            f"{rate:,.0f} values/s ({rate * per_value:,.0f} requests/s)  ETA {eta_text}  "
            f"disagreeing inputs: {divergent:,}")


def run(settings: Settings, checkpoint: Path, fresh: bool = False, workers: int | None = None,
        stream: TextIO = sys.stderr, described: dict[str, Any] | None = None) -> SweepRun:
    """Run (or resume) the sweep; every finished chunk is in ``checkpoint`` before this returns, sealed with
    the run's identity (its settings and ``described``, each implementation's self-description)."""
    chunks = plan(settings)
    identity = settings.header(described)["identity"]
    sweep = SweepRun(settings)
    if checkpoint.exists() and not fresh:  # only whole lines of this plan's chunks, their seals holding
        sweep.results, prev = _read_checkpoint(checkpoint, settings, stream, described)
    else:
        header = settings.header(described)
        atomic_write(checkpoint, json.dumps(header) + "\n")
        prev = header["identity"]
    finished = {result["chunk"] for result in sweep.results}
    sweep.resumed = len(sweep.results)
    pending = [chunk for chunk in chunks if chunk.key not in finished]
    total = sum(c.stop - c.start for c in chunks)
    sweep.planned = total
    if sweep.resumed:
        stream.write(f"[sweep] resuming {checkpoint}: {sweep.resumed:,} of {len(chunks):,} chunks already done\n")
    progress = Progress(stream, "sweep", total)
    started = time.monotonic()
    try:
        _sweep_into(checkpoint, settings, pending, workers, identity, prev, sweep, progress, stream)
    except OSError as exc:  # a full or read-only disk: the chunks appended before it are whole; a part is resumed past
        if exc.errno not in WRITE_ERRORS:
            raise
        raise WriteFailed(f"{checkpoint}: cannot append to the sweep's checkpoint: {exc.strerror or exc} "
                          f"({errno.errorcode.get(exc.errno or 0, exc.errno)}); the chunks before it are kept: free "
                          "the space and run the same command again to resume") from None
    sweep.seconds = time.monotonic() - started
    return sweep


def _sweep_into(checkpoint: Path, settings: Settings, pending: list[Chunk], workers: int | None, identity: str,
                prev: str, sweep: SweepRun, progress: Progress, stream: TextIO) -> None:
    """Run the pending chunks, each result appended to ``checkpoint`` (sealed) as it comes."""
    done = sum(r["values"] for r in sweep.results)
    divergent = sum(disagreeing(r) for r in sweep.results)
    fresh_values = 0
    preparing: list[threading.Thread] = []
    with checkpoint.open("a", encoding="ascii") as handle:
        try:
            method = pools.start_method()  # the flags are shared with the pool's workers: made the same way
            out = pools.context(method).Array("b", len(settings.impls))
            starts: dict[str, Any] = {}
            for result in _results(pending, settings.impls, workers, out, method, starts):
                if "startup" in starts and not sweep.startup:
                    sweep.startup = starts["startup"]
                    progress.start = starts["up"]  # the rate counts from then
                    stream.write(f"[sweep] every implementation up in every worker after {sweep.startup:.1f}s of "
                                 "start-up (not in the rate)\n")
                if "unavailable" in result:
                    sweep.unavailable = result["unavailable"]
                    sweep.stopped = (sweep.unavailable if result.get("lost")
                                     else f"an implementation did not come up again: {sweep.unavailable}")
                    stream.write(f"\n[sweep] {sweep.unavailable}: the sweep stops (run it again to resume)\n")
                    break
                for name, count in result.get("restarts", {}).items():
                    sweep.testee_restarts[name] = sweep.testee_restarts.get(name, 0) + count
                    stream.write(f"\n[sweep] {name}: {count} testee process(es) restarted in a worker (a crash, a "
                                 "hang or faults)\n")
                if starts.get("restarts", 0) > sweep.worker_restarts:
                    stream.write(f"\n[sweep] {starts['restarts'] - sweep.worker_restarts} worker(s) started again "
                                 "(one ended)\n")
                    sweep.worker_restarts = starts["restarts"]
                line, prev = _sealed(result, identity, prev)
                handle.write(line + "\n")
                handle.flush()
                sweep.results.append(result)
                done += result["values"]
                fresh_values += result["values"]
                divergent += disagreeing(result)
                if divergent and not preparing:  # the classifier's tables, built while the chunks run
                    preparing.append(threading.Thread(target=classes.prepare, name="sweep-prepare", daemon=True))
                    preparing[0].start()
                progress.update(done, _progress_text(progress, done, fresh_values, divergent, len(settings.impls)))
                if not _take_out(sweep, result, out, stream):
                    sweep.stopped = "fewer than two implementations were left"
                    stream.write("[sweep] fewer than two implementations left: the sweep stops with its findings "
                                 "(run it again to resume the rest)\n")
                    break
        except pools.StartFailed as exc:  # an implementation never came up: the sweep's verdict, not a traceback
            sweep.unavailable = str(exc)
            sweep.stopped = f"an implementation never came up: {exc}"
            stream.write(f"\n[sweep] {exc}: the sweep stops before its first chunk\n")
        except KeyboardInterrupt:
            sweep.interrupted = True
        finally:
            os.fsync(handle.fileno())
    progress.update(done, _progress_text(progress, done, fresh_values, divergent, len(settings.impls)), force=True)
    progress.done()


def _take_out(sweep: SweepRun, result: dict[str, Any], out: Any, stream: TextIO) -> bool:
    """Take out of the rest of the sweep (every worker) each implementation a chunk's worker took out;
    whether at least two are left."""
    for number in result.get("out", []):
        name = sweep.settings.impls[number]
        out[number] = 1
        if name not in sweep.taken_out:
            sweep.taken_out.append(name)
            stream.write(f"\n[sweep] {name} taken out of the rest of the sweep: too many faults, crashes or hangs "
                         "in a row (see its findings)\n")
    return len(sweep.settings.impls) - sum(out[:]) >= 2


def _results(pending: list[Chunk], names: tuple[str, ...], workers: int | None, out: Any,
             method: str, starts: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Each pending chunk's result, from a pool of worker processes started by ``method`` (or in this
    process for one). No chunk is sent before every worker's implementations are up (within the start-up
    allowance: pools.StartFailed else); ``starts`` gets ``up`` (when), ``startup`` (seconds) and ``restarts``
    (workers started again since)."""
    starts = starts if starts is not None else {}
    if not pending:
        return
    count = min(workers or os.cpu_count() or 1, len(pending))
    began = time.monotonic()
    if count <= 1:
        try:
            opened = _open(names)
        except (impls.ImplementationUnavailable, impls.DeclarationError) as exc:  # the sweep's verdict
            raise pools.StartFailed(f"an implementation did not come up: {str(exc)[:1500]}") from None
        starts["up"] = time.monotonic()
        starts["startup"] = starts["up"] - began
        try:
            for chunk in pending:
                yield run_chunk(chunk, opened, out)
        finally:
            for impl in opened.values():
                impl.close()
        return
    ctx = pools.context(method)
    shared = pools.Starts(ctx)
    running = ctx.Array("i", len(pending), lock=False)  # chunk number -> its taker's pid (0: not taken yet)
    with pools.ending(method, count, _init_worker, (names, out, shared, running)) as pool:
        starts["up"] = shared.wait(count, _allowance(names))
        starts["startup"] = starts["up"] - began
        done: queue.SimpleQueue[tuple[int, dict[str, Any]] | BaseException] = queue.SimpleQueue()

        def send(number: int) -> None:
            running[number] = 0
            pool.apply_async(_run_numbered, (number, pending[number]), callback=done.put, error_callback=done.put)

        outstanding = set(range(len(pending)))
        lost: dict[int, int] = {}  # chunk number -> how often its worker died with it
        for number in range(len(pending)):
            send(number)
        while outstanding:
            if shared.failure.value:  # a worker started again whose testees did not come up: the sweep stops (as fuzz)
                yield {"chunk": None, "unavailable": shared.failure_text()}
                return
            try:
                got = done.get(timeout=LOST_SLICE)
            except queue.Empty:
                # A worker that died (killed, out of memory) took its chunk with it, and a pool never sends a task
                # again: the driver does, once the pool has replaced the worker (the sweep is deterministic).
                starts["restarts"] = shared.restarts(count)
                for number in sorted(outstanding):
                    if running[number] and not _alive(running[number]):
                        lost[number] = lost.get(number, 0) + 1
                        if lost[number] > RESENDS:  # a chunk that ends every worker that takes it: the verdict
                            yield {"chunk": pending[number].key, "lost": True, "unavailable": (
                                f"a sweep worker died on chunk {pending[number].key} {lost[number]} times (killed "
                                "from outside, out of memory, or a testee that takes its worker down)")}
                            return
                        send(number)
                continue
            if isinstance(got, BaseException):
                raise got
            number, result = got
            if number not in outstanding:
                continue  # sent again, and the first one came back after all: counted once
            outstanding.discard(number)
            starts["restarts"] = shared.restarts(count)
            yield result


def _allowance(names: tuple[str, ...]) -> float:
    """The workers' start-up allowance (pools.startup_allowance) from the implementations' effective start-up
    deadlines: what each command testee's client will wait for its start (impls.get_impl: the declared deadline,
    unless PARITY_STARTUP_TIMEOUT overrides every one), as fuzz's allowance is made from its opened testees'
    ``startup_timeout``. An in-process one has none."""
    deadlines = []
    for name in names:
        try:
            declared = impls.declaration(name)
        except (impls.ImplementationUnavailable, impls.DeclarationError):
            continue
        if declared is not None and not declared.in_process:
            deadlines.append(startup_deadline_of(declared.startup_deadline))
    return pools.startup_allowance(deadlines)


def startup_deadline_of(declared: float) -> float:
    """A command testee's start-up deadline as its client enforces it: ``declared``, unless
    PARITY_STARTUP_TIMEOUT (or the project's pyproject.toml) overrides it (harness/testees/impls.py, _override)."""
    value = settings.value("PARITY_STARTUP_TIMEOUT")
    return declared if value is None else float(value)
