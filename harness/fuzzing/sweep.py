"""The exhaustive code-point sweep (``python -m harness sweep``, ``nox -s sweep``).

Every template of harness/fuzzing/templates.py gets every code point U+0000..U+10FFFF (lone
surrogates included; one template takes every high-low pair of lone surrogates), and each instance is
sent to every implementation in batches. Work is cut into chunks of :data:`CHUNK` values:

* worker processes (one per core by default), each with its own implementations, run the chunks;
* every finished chunk is appended to a checkpoint (JSON lines), so an interrupted sweep resumes
  where it stopped; a checkpoint made with other settings is refused, naming the difference;
* ``--shard K/N`` runs every N-th chunk, so machines or CI jobs can split a sweep; their reports are
  merged with ``python -m harness sweep --merge A.json B.json``;
* an input an implementation's host cannot express (two lone surrogates that a UTF-16 host reads as
  one valid pair) is not sent to it, and is counted per implementation and template.

Disagreements are grouped into classes by :mod:`harness.fuzzing.classes`; each class is reported once.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from harness.differential.outcomes import agreeing
from harness.fuzzing import classes, pools
from harness.fuzzing.progress import Progress
from harness.fuzzing.templates import BY_NAME, SURROGATE_PAIRS, Template
from harness.testees import impls
from harness.testees.command import BATCH as LINE_BATCH
from harness.testees.fanout import answer_each, harvest
from harness.testees.findings import Findings
from harness.testees.testee import Testee

CHUNK = 4096
CHECKPOINT_SCHEMA = "sweep-checkpoint-v1"


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

    def header(self) -> dict[str, Any]:
        return {"schema": CHECKPOINT_SCHEMA, "impls": list(self.impls), "templates": list(self.templates),
                "range": [self.first, self.last], "shard": f"{self.shard[0]}/{self.shard[1]}", "chunk": CHUNK}


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected K/N, e.g. 1/4") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


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
    return {name: impls.get_impl(name) for name in names}


def _init_worker(names: tuple[str, ...], out: Any) -> None:
    _WORKER["impls"] = _open(names)
    _WORKER["out"] = out


def run_chunk(chunk: Chunk, opened: dict[str, Testee] | None = None, out: Any = None) -> dict[str, Any]:
    """Send the chunk's instances to every implementation still in the run (``out``: one flag per
    implementation, set by the driver when one is taken out); the disagreeing ones with every response."""
    opened = opened if opened is not None else _WORKER["impls"]
    out = out if out is not None else _WORKER.get("out")
    names = list(opened)
    opened = {name: impl for number, (name, impl) in enumerate(opened.items())
              if not (out is not None and out[number]) and not getattr(impl, "taken_out", None)}
    template: Template = BY_NAME[chunk.template]
    indexes = range(chunk.start, chunk.stop)
    all_args = [template.args(i) for i in indexes]
    answers, inexpressible = answer_each(opened, template.op, all_args)
    groups: dict[tuple[Any, ...], list[tuple[str, int, int]]] = {}
    compared = 0
    for j, index in enumerate(indexes):
        responses = {name: column[j] for name, column in answers.items() if column[j] is not None}
        if len(responses) < 2:
            continue
        compared += 1
        if not agreeing(template.op, responses):
            classes.add_run(groups.setdefault(classes.group_key(template.name, index, responses), []),
                            template.name, index)
    got = harvest(opened)
    return {"chunk": chunk.key, "values": len(all_args), "compared": compared, "inexpressible": inexpressible,
            "findings": got.findings, "out": [names.index(name) for name in got.taken_out],
            "groups": [[list(names), [list(kind) for kind in kinds], hint, [list(run) for run in runs]]
                       for (names, kinds, hint), runs in groups.items()]}


# ---- the driver ----------------------------------------------------------------------------------


@dataclass
class SweepRun:
    settings: Settings
    results: list[dict[str, Any]] = field(default_factory=list)  # one per chunk (resumed ones included)
    seconds: float = 0.0
    resumed: int = 0  # chunks taken from the checkpoint
    interrupted: bool = False
    taken_out: list[str] = field(default_factory=list)  # implementations taken out for their faults

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
    """How many inputs of a chunk's result disagree."""
    return sum(last - first + 1 for group in result["groups"] for _, first, last in group[3])


def groups(run: SweepRun) -> dict[tuple[Any, ...], list[tuple[str, int, int]]]:
    """Every chunk's groups joined: (op, implementations, outcome kinds, hint) -> member runs."""
    out: dict[tuple[Any, ...], list[tuple[str, int, int]]] = {}
    for result in run.results:
        op = BY_NAME[result["chunk"].split(":")[0]].op
        for names, kinds, hint, runs in result["groups"]:
            key = (op, tuple(names), tuple(tuple(kind) for kind in kinds), hint)
            out.setdefault(key, []).extend(tuple(run) for run in runs)
    return out


def _read_checkpoint(path: Path, settings: Settings) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="ascii").splitlines()
    if not lines:
        return []
    try:
        header = json.loads(lines[0])
    except ValueError:
        raise ValueError(f"{path}: not a sweep checkpoint (first line is not JSON); "
                         "remove it or pass --fresh") from None
    wanted = settings.header()
    if header != wanted:
        different = [key for key in wanted if header.get(key) != wanted[key]]
        raise ValueError(f"{path}: a checkpoint of a sweep with other settings ({', '.join(different) or 'schema'} "
                         f"differ: {', '.join(f'{k}={header.get(k)!r}' for k in different)}); pass --fresh to "
                         "discard it, or --checkpoint PATH for another file")
    results = []
    for number, line in enumerate(lines[1:], 2):
        try:
            results.append(json.loads(line))
        except ValueError:
            if number == len(lines):  # a last line cut by an interruption: that chunk runs again
                break
            raise ValueError(f"{path}:{number}: a damaged checkpoint line; pass --fresh to start over") from None
    return results


def _progress_text(progress: Progress, done: int, fresh: int, divergent: int, per_value: int) -> str:
    elapsed = time.monotonic() - progress.start
    rate = fresh / elapsed if elapsed > 0 else 0.0
    eta = (progress.total - done) / rate if rate > 0 else float("inf")
    eta_text = f"{eta:,.0f}s" if eta != float("inf") else "?"
    return (f"{done:,}/{progress.total:,} values ({100 * done / max(progress.total, 1):5.1f}%)  "
            f"{rate:,.0f} values/s ({rate * per_value:,.0f} requests/s)  ETA {eta_text}  "
            f"disagreeing inputs: {divergent:,}")


def run(settings: Settings, checkpoint: Path, fresh: bool = False, workers: int | None = None,
        stream: TextIO = sys.stderr) -> SweepRun:
    """Run (or resume) the sweep; every finished chunk is in ``checkpoint`` before this returns."""
    chunks = plan(settings)
    sweep = SweepRun(settings)
    if checkpoint.exists() and not fresh:
        sweep.results = _read_checkpoint(checkpoint, settings)
    else:
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        checkpoint.write_text(json.dumps(settings.header()) + "\n", encoding="ascii")
    finished = {result["chunk"] for result in sweep.results}
    sweep.results = [r for r in sweep.results if r["chunk"] in {c.key for c in chunks}]
    sweep.resumed = len(sweep.results)
    pending = [chunk for chunk in chunks if chunk.key not in finished]
    total = sum(c.stop - c.start for c in chunks)
    done = sum(r["values"] for r in sweep.results)
    divergent = sum(disagreeing(r) for r in sweep.results)
    if sweep.resumed:
        stream.write(f"[sweep] resuming {checkpoint}: {sweep.resumed:,} of {len(chunks):,} chunks already done\n")
    progress = Progress(stream, "sweep", total)
    started = time.monotonic()
    fresh_values = 0
    with checkpoint.open("a", encoding="ascii") as handle:
        try:
            out = multiprocessing.get_context(_START_METHOD).Array("b", len(settings.impls))
            for result in _results(pending, settings.impls, workers, out):
                handle.write(json.dumps(result, ensure_ascii=True, separators=(",", ":")) + "\n")
                handle.flush()
                sweep.results.append(result)
                done += result["values"]
                fresh_values += result["values"]
                divergent += disagreeing(result)
                progress.update(done, _progress_text(progress, done, fresh_values, divergent, len(settings.impls)))
                if not _take_out(sweep, result, out, stream):
                    stream.write("[sweep] fewer than two implementations left: the sweep stops with its findings "
                                 "(run it again to resume the rest)\n")
                    break
        except KeyboardInterrupt:
            sweep.interrupted = True
        finally:
            os.fsync(handle.fileno())
    progress.update(done, _progress_text(progress, done, fresh_values, divergent, len(settings.impls)), force=True)
    progress.done()
    sweep.seconds = time.monotonic() - started
    return sweep


_START_METHOD = "fork" if sys.platform.startswith("linux") else "spawn"


def _take_out(sweep: SweepRun, result: dict[str, Any], out: Any, stream: TextIO) -> bool:
    """Take out of the rest of the sweep (every worker) each implementation a chunk's worker took out;
    whether at least two are left."""
    for number in result.get("out", []):
        name = sweep.settings.impls[number]
        out[number] = 1
        if name not in sweep.taken_out:
            sweep.taken_out.append(name)
            stream.write(f"\n[sweep] {name} taken out of the rest of the sweep: too many faults in a row "
                         "(see its findings)\n")
    return len(sweep.settings.impls) - sum(out[:]) >= 2


def _results(pending: list[Chunk], names: tuple[str, ...], workers: int | None, out: Any) -> Iterator[dict[str, Any]]:
    """Each pending chunk's result, from a pool of worker processes (or in this process for one)."""
    if not pending:
        return
    count = min(workers or os.cpu_count() or 1, len(pending))
    if count <= 1:
        opened = _open(names)
        try:
            for chunk in pending:
                yield run_chunk(chunk, opened, out)
        finally:
            for impl in opened.values():
                impl.close()
        return
    with pools.ending(_START_METHOD, count, _init_worker, (names, out)) as pool:
        yield from pool.imap_unordered(run_chunk, pending)
