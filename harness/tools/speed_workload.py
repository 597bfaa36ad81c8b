"""The speed gate's workload (harness/tools/harness_baseline.py): run by path, under Valgrind's callgrind, with one
tree's harness first on ``PYTHONPATH``; it drives that harness through entry points every tree has (the
``python -m harness`` command line, ``harness.testees.impls.get_impl``, ``Testee.call_batch``) and marks, with
callgrind's client requests, the instructions of each path's own work.

    python harness/tools/speed_workload.py PLAN.json      (PLAN: written by the gate; see ``main``)

Standard library only, and nothing imported from this folder: the harness it measures is the tree's, whichever
tree this file came from. Callgrind starts with instrumentation off (``--instr-atstart=no``), so the start-up
and the imports run at Valgrind's uninstrumented speed and are not counted; collection is off in every thread
until this one turns it on (``--collect-atstart=no``), so what is counted is this thread's work: the client's
I/O threads (bytes moved through pipes, their count set by how the testee's writes happen to arrive) and the
testees (other processes: Valgrind does not follow them) are not. Each path runs once uninstrumented (its lazy
imports and caches warm), then at size N and at size 2N, each counted and dumped apart: the gate takes the
difference, the cost of N units of work with everything fixed (argument parsing, the testees' start, the report)
taken out. In the fuzzer's and the sweep's runs the client's calls are not counted: they run in the fan-out's
threads (harness/testees/fanout.py), never collected, and one made in this thread turns collection off while it
runs (``Uncounted``; today only the fixed unicode_versions calls, but a harness that called a command testee here
would otherwise count the client in the fuzzer's figure): a slower client shows in the client's figure alone.
Threads switch only where they block (``sys.setswitchinterval``) and the cyclic collector is off (collected before
each count): when a collection runs, and in which thread, follows every thread's allocations, so the timing would
set it.

The client requests are the documented Valgrind ABI (valgrind.h, amd64): the four-rotation preamble on %rdi
then ``xchg %rbx,%rbx``, with %rax pointing at the request's words and the default result in %rdx. Outside
Valgrind the sequence does nothing and answers the default (0), so the workload also runs natively (a test).

Exit status: 0 measured; 2 the tree's harness lacks an entry point or a command failed (named on stderr); 3 an
implementation could not start.
"""

from __future__ import annotations

import gc
import json
import os
import runpy
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

HERE = str(Path(__file__).resolve().parent)
if sys.path and os.path.realpath(sys.path[0] or ".") == os.path.realpath(HERE):
    del sys.path[0]  # this folder's modules (coverage.py, browser.py, ...) must not shadow anything imported

import ctypes  # noqa: E402 - after the path is mended (nothing here comes from this folder)
import mmap  # noqa: E402

MISSING, UNAVAILABLE = 2, 3
# valgrind.h: a tool's requests start at ('C', 'T') << 16 for callgrind.
_BASE = (ord("C") << 24) | (ord("T") << 16)
DUMP_AT, ZERO, TOGGLE, START, STOP = _BASE + 3, _BASE + 1, _BASE + 2, _BASE + 4, _BASE + 5
RUNNING_ON_VALGRIND = 0x1001
# mov %rdi,%rax; mov %rsi,%rdx; rol $3,$13,$61,$51 on %rdi (128 bits: %rdi unchanged); xchg %rbx,%rbx;
# mov %rdx,%rax; ret
_CODE = bytes.fromhex("4889f8" "4889f2" "48c1c703" "48c1c70d" "48c1c73d" "48c1c733" "4887db" "4889d0" "c3")


class Failed(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Requests:
    """Callgrind's client requests from Python (x86-64 only: the gate says so when the machine is another)."""

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self._page.write(_CODE)
        address = ctypes.addressof(ctypes.c_char.from_buffer(self._page))
        self._call = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64)(address)
        self._words = (ctypes.c_uint64 * 6)()
        self._labels: list[Any] = []

    def __call__(self, request: int, argument: int = 0) -> int:
        self._words[0], self._words[1] = request, argument
        return int(self._call(ctypes.addressof(self._words), 0))

    def dump(self, label: str) -> None:
        text = ctypes.create_string_buffer(label.encode("ascii"))
        self._labels.append(text)  # alive until callgrind has read it
        self(DUMP_AT, ctypes.addressof(text))


REQUEST = Requests()
MAIN = threading.main_thread()


class Uncounted:
    """``call_batch`` (and ``call``) of the testee class made to run with collection off in the main thread
    while ``active``: the fuzzer's and the sweep's figures leave the client's work out. Other threads are not
    collected anyway (``--collect-atstart=no``)."""

    active = False
    depth = 0

    @classmethod
    def wrap(cls, testee_class: type) -> None:
        for name in ("call_batch", "call"):
            inner = getattr(testee_class, name, None)
            if inner is not None and not getattr(inner, "_speed_gate_uncounted", False):
                setattr(testee_class, name, cls._wrapped(inner))

    @classmethod
    def _wrapped(cls, inner: Any) -> Any:
        def uncounted(*args: Any, **kwargs: Any) -> Any:
            toggles = cls.active and threading.current_thread() is MAIN
            if toggles:
                cls.depth += 1
                if cls.depth == 1:
                    REQUEST(TOGGLE)
            try:
                return inner(*args, **kwargs)
            finally:
                if toggles:
                    cls.depth -= 1
                    if cls.depth == 0:
                        REQUEST(TOGGLE)

        uncounted._speed_gate_uncounted = True  # type: ignore[attr-defined]
        return uncounted


def counted(label: str, work: Any) -> None:
    """``work()`` with instrumentation and this thread's collection on, its cost dumped as ``label``."""
    gc.collect()
    REQUEST(START)
    REQUEST(ZERO)
    REQUEST(TOGGLE)  # on, in this thread
    try:
        work()
    finally:
        REQUEST(TOGGLE)
        REQUEST.dump(label)
        REQUEST(STOP)


def command(argv: list[str], what: str) -> None:
    """``python -m harness ARGV`` in this process; its status 0, or Failed."""
    sys.argv = ["harness", *argv]
    try:
        runpy.run_module("harness", run_name="__main__", alter_sys=True)
        status: Any = 0
    except SystemExit as exc:
        status = exc.code if exc.code is not None else 0
    if status == 0:
        return
    if status == UNAVAILABLE:
        raise Failed(UNAVAILABLE, f"{what}: an implementation could not start (python -m harness {' '.join(argv)})")
    raise Failed(MISSING, f"{what}: python -m harness {' '.join(argv)} ended with status {status}")


def client(plan: dict[str, Any]) -> None:
    try:
        from harness.testees.impls import get_impl
    except ImportError as exc:
        raise Failed(MISSING, f"the client: this tree's harness has no harness.testees.impls.get_impl ({exc})") \
            from None
    try:
        testee = get_impl(plan["double"])
    except Exception as exc:  # noqa: BLE001 - its start failed: named, status 3
        raise Failed(UNAVAILABLE, f"the client: {plan['double']} could not start: {type(exc).__name__}: {exc}") \
            from None
    if not callable(getattr(testee, "call_batch", None)):
        raise Failed(MISSING, f"the client: {type(testee).__name__} has no call_batch")
    calls = [(op, args) for op, args in plan["calls"]]
    size = plan["batch"]
    batches = [calls[at:at + size] for at in range(0, len(calls), size)]

    def passes(count: int) -> None:
        for _ in range(count):
            for batch in batches:
                answers = testee.call_batch(batch)
                if len(answers) != len(batch):
                    raise Failed(MISSING, f"the client: {len(answers)} answers to a batch of {len(batch)}")

    try:
        passes(1)  # warm: lazy imports, caches
        unit = plan["client_passes"]
        counted("client-1", lambda: passes(unit))
        counted("client-2", lambda: passes(2 * unit))
        if getattr(testee, "taken_out", False):
            raise Failed(MISSING, f"the client: {plan['double']} was taken out (its faults): nothing was measured")
    finally:
        testee.close()
    Uncounted.wrap(type(testee))


def runs(name: str, plan: dict[str, Any]) -> None:
    """A command at its warm-up size, then at N and 2N (``plan[name]``: the three argument lists)."""
    warm, one, two = plan[name]
    Uncounted.active = True
    try:
        command(warm, name)
        counted(f"{name}-1", lambda: command(one, name))
        counted(f"{name}-2", lambda: command(two, name))
    finally:
        Uncounted.active = False
    done = [work_done(argv, name) for argv in (one, two)]
    if done[0] is not None and done[1] is not None and not 0 < done[0] < done[1]:
        raise Failed(MISSING, f"{name}: its runs at N and 2N compared {done[0]} and {done[1]} inputs: a count of no "
                              "work, or of the same work twice, is not a measure")


def work_done(argv: list[str], what: str) -> int | None:
    """The inputs a command's run compared, from its report's ledger (``--report``): a run that exited 0 having
    done none of its work is not measured. None: a tree whose reports keep no ledger (older than the ledger)."""
    try:
        report = json.loads(Path(argv[argv.index("--report") + 1]).read_text(encoding="utf-8"))
    except (ValueError, IndexError, OSError) as exc:
        raise Failed(MISSING, f"{what}: its report could not be read ({exc})") from None
    ledger = (report.get("run") or {}).get("ledger") if isinstance(report, dict) else None
    if not isinstance(ledger, dict):
        return None
    if ledger.get("ok") is not True:
        raise Failed(MISSING, f"{what}: its run did not do its planned work: {'; '.join(ledger.get('problems') or [])}")
    compared = ledger.get("compared")
    return compared if isinstance(compared, int) else 0


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python harness/tools/speed_workload.py PLAN.json (written by harness/tools/harness_baseline.py)",
              file=sys.stderr)
        return MISSING
    plan = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    # Threads switch where they block, never on the clock; and no collector, whose runs follow every thread's
    # allocations: which thread a collection lands in, and what it finds, would be set by the timing.
    sys.setswitchinterval(60.0)
    gc.disable()
    try:
        client(plan)
        for name in plan["commands"]:
            runs(name, plan)
    except Failed as exc:
        print(f"speed workload: {exc}", file=sys.stderr)
        return exc.status
    except Exception:  # noqa: BLE001 - the tree's harness failed: its traceback, then the named status
        traceback.print_exc()
        print("speed workload: the tree's harness failed (above)", file=sys.stderr)
        return MISSING
    print(json.dumps({"measured": ["client", *plan["commands"]], "valgrind": bool(REQUEST(RUNNING_ON_VALGRIND))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
