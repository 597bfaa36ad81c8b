"""``python -m harness selftest --impl NAME``: what an implementer runs on a new testee.

It talks to the testee line by line (an in-process implementation through ``python -m harness run``),
validates every line it gets back against the protocol's JSON Schema (schemas/protocol-v2
.schema.json), and checks: the start handshake and self-description; one request per op and a batch,
answered in order with their ids; the trace of each op it lists in ``traces`` (a valid trace that ends in
the op's own answer; an op it does not list refused); bad requests answered ``bad_request``, not a crash; and that the
harness's client survives the testee dying mid-run (the request reports ``crash``, the next one is
answered by a fresh process). The start handshake waits the declared start-up deadline, every other line
the request deadline, as the command client does (PARITY_STARTUP_TIMEOUT / PARITY_REQUEST_TIMEOUT included);
a line past its deadline fails the selftest, named (``startup_deadline``, ``timeout``). Prints one line per
check; exit status 1 if any fails.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from harness.fixtures.load import all_cases
from harness.model import hostvalues, untrusted
from harness.model.paths import SCHEMAS
from harness.model.registry import OPS, RETURN_TYPES
from harness.model.traces import TRACE_OP
from harness.testees.command import (
    BATCH_SECONDS_PER_REQUEST,
    PROTOCOL_VERSION,
    CommandTestee,
    TesteeProcess,
    same_id,
    start_request,
)
from harness.testees.impls import ROOT, Implementation, _override, declaration, get_impl
from harness.testees.traces import problems as trace_problems

SCHEMA = SCHEMAS / "protocol-v2.schema.json"


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    failures: int = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        self.lines.append(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else ""))
        self.failures += 0 if ok else 1
        print(self.lines[-1], flush=True)
        return ok


def _validator(definition: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": f"#/$defs/{definition}"}]})


def _problem(definition: str, message: Any) -> str:
    errors = list(_validator(definition).iter_errors(message))
    return "" if not errors else f"{errors[0].message[:300]} (at {'/'.join(map(str, errors[0].path)) or 'top'})"


def command_of(declared: Implementation) -> list[str]:
    if declared.command is not None:
        return list(declared.command)
    return [sys.executable, "-m", "harness", "run", "--impl", declared.name]


def deadlines_of(declared: Implementation) -> tuple[float, float]:
    """(start-up, request): the declared deadlines as the command client waits them (PARITY_STARTUP_TIMEOUT /
    PARITY_REQUEST_TIMEOUT override every one), an in-process implementation's too (its ``harness run``)."""
    return _override("STARTUP", declared.startup_deadline), _override("REQUEST", declared.request_deadline)


class Late(RuntimeError):
    """No answer within the line's deadline; the message names it as the harness does (``startup_deadline``,
    the finding of a start past its deadline; ``timeout``, the code of a request past its deadline)."""


class _Raw:
    """The testee as a process: one line out, one line back; the start handshake within the start-up deadline,
    every other line within the request deadline, as the command client waits (harness/testees/command.py)."""

    def __init__(self, command: list[str], env: dict[str, str], startup_deadline: float,
                 request_deadline: float) -> None:
        self.startup_deadline = startup_deadline
        self.request_deadline = request_deadline
        self.proc = TesteeProcess(command, env, ROOT)

    def start(self) -> Any:
        """The start handshake's answer, within the start-up deadline."""
        return self._exchange(json.dumps(start_request()), self.startup_deadline, "the start-up deadline",
                              "startup_deadline", shown="the start handshake")

    def ask(self, line: str, batch: int = 0) -> Any:
        """The answer to a request line, within the request deadline (a batch line of ``batch`` requests: plus
        BATCH_SECONDS_PER_REQUEST each, as the command client gives it)."""
        return self._exchange(line, self.request_deadline + BATCH_SECONDS_PER_REQUEST * batch,
                              "the request deadline", "timeout")

    def _exchange(self, line: str, seconds: float, deadline: str, kind: str, shown: str | None = None) -> Any:
        self.proc.send([(line + "\n").encode("utf-8")])
        answer = self.proc.next_line(time.monotonic() + seconds)
        if answer == "timeout":
            raise Late(f"no answer within {seconds:g} s, {deadline} ({kind}), to {shown or line[:200]}")
        if answer is None:
            raise RuntimeError(f"the testee closed its output (exit status {self.proc.exit_status()})"
                               + self.proc.stderr_text())
        assert isinstance(answer, bytes)
        try:  # the untrusted reader: a BOM, NaN, a nesting past the parser's limit are refused, named
            return untrusted.loads(answer, max_depth=None)
        except untrusted.Refused as refused:
            raise ValueError(f"an answer line that is not protocol JSON ({refused}): "
                             f"{untrusted.brief(answer.decode('utf-8', 'replace'), 120)} to {line[:200]}") from None

    def close(self) -> None:
        self.proc.close()


def selftest(name: str) -> Report:
    report = Report()
    declared = declaration(name)
    env = {**os.environ, **declared.env}
    raw = _Raw(command_of(declared), env, *deadlines_of(declared))
    try:
        _protocol_checks(report, declared, raw)
    except (RuntimeError, ValueError, OSError) as exc:
        report.check(False, "the testee kept answering", str(exc))
    finally:
        raw.close()
    if declared.command is not None:
        _crash_check(report, name, probe_request(first_requests(declared)))
    return report


def _protocol_checks(report: Report, declared: Implementation, raw: _Raw) -> None:
    started = time.monotonic()
    deadline = (f"declared start-up deadline {declared.startup_deadline:g} s"
                + ("" if raw.startup_deadline == declared.startup_deadline else
                   f", waited {raw.startup_deadline:g} s (PARITY_STARTUP_TIMEOUT)"))
    try:
        answer = raw.start()
    except Late as late:
        report.check(False, "start answered within the start-up deadline", f"{late}; {deadline}")
        return
    seconds = time.monotonic() - started
    if not report.check(not _problem("startResponse", answer), "start: a valid self-description",
                        _problem("startResponse", answer) or json.dumps(answer.get("ok", {}), sort_keys=True)[:300]):
        return
    report.check(seconds <= raw.startup_deadline, f"start answered in {seconds:.2f} s", deadline)
    served = set(answer["ok"]["contracts"])
    served_traces = answer["ok"].get("traces") or []
    report.check(set(declared.contracts) <= served, "the testee serves the contracts its declaration names",
                 f"declared {sorted(declared.contracts)}, testee says {sorted(served)}")

    first = first_requests(declared)
    answers: dict[str, dict[str, Any]] = {}
    for number, (op_name, (label, args)) in enumerate(first.items()):
        answer = answers[op_name] = raw.ask(json.dumps({"id": number, "op": op_name, "args": args}))
        problem = _problem("response", answer) or ("" if same_id(answer.get("id"), number) else
                                                   f"id {untrusted.brief(answer.get('id'), 80)}, not {number}")
        if not problem and "ok" in answer and not RETURN_TYPES[OPS[op_name].returns](answer["ok"]):
            problem = (f"ok is {untrusted.type_name(answer['ok'])}: {op_name} returns a {OPS[op_name].returns} "
                       "(the op table)")
        report.check(not problem, f"request {label}: a valid response with its id", problem)
    _trace_checks(report, raw, served_traces, first, answers, declared)

    batch = [{"id": f"b{i}", "op": op_name, "args": args} for i, (op_name, (_, args)) in enumerate(first.items())]
    answer = raw.ask(json.dumps({"id": "batch", "batch": batch}), batch=len(batch))
    problem = _problem("batchResponse", answer)
    if not problem and (len(answer["batch"]) != len(batch) or
                        not all(same_id(r.get("id"), q["id"]) for r, q in zip(answer["batch"], batch, strict=False))):
        problem = f"answers out of order or missing: {[r.get('id') for r in answer['batch']]}"
    report.check(not problem, f"a batch of {len(batch)}: answered in order", problem)

    probe, (_, probe_args) = probe_request(first)
    required = [p.name for p in OPS[probe].params if p.required]
    bad = [
        ("not JSON", "{not json"),
        ("an unknown op", json.dumps({"id": 90, "op": "no_such_op", "args": {}})),
        ("an unknown argument", json.dumps({"id": 91, "op": probe, "args": {**probe_args, "no_such_argument": "a"}})),
        *([("a missing argument", json.dumps({"id": 92, "op": probe,
                                              "args": {k: v for k, v in probe_args.items() if k != required[0]}}))]
          if required else []),
        ("args that are not an object", json.dumps({"id": 93, "op": probe, "args": [1]})),
        # A start the testee would take in every other way (the op table and the codes, as the harness sends
        # them): only the version tells it apart, so a testee that ignores the version cannot pass by refusing
        # an incomplete start for another reason.
        ("a start with another protocol version",
         json.dumps({"id": 94, "op": "start",
                     "args": {**start_request()["args"], "protocol": PROTOCOL_VERSION + 1}})),
    ]
    for what, line in bad:
        answer = raw.ask(line)
        problem = _problem("response", answer)
        if not problem and answer.get("error", {}).get("code") != "bad_request":
            problem = f"answered {json.dumps(answer)[:200]}"
        report.check(not problem, f"{what}: answered bad_request", problem)
    answer = raw.ask(json.dumps({"id": 95, "op": probe, "args": probe_args}))
    report.check(not _problem("response", answer) and same_id(answer.get("id"), 95),
                 "still answering after the bad requests", json.dumps(answer)[:200])


def first_requests(declared: Implementation) -> dict[str, tuple[str, dict[str, Any]]]:
    """One request per op it serves (an op it does not serve is never sent to it), in the fixtures' order:
    (a label, the raw args) of its first fixture case with a result (else its first), else its required
    parameters as plain text."""
    cases = [case for case in all_cases() if declared.serves_op(case.op)]
    order = list(dict.fromkeys(case.op for case in cases))  # the ops in the fixtures' order, then the rest
    order += [op for op in OPS if op not in order and declared.serves_op(op)]
    chosen: dict[str, tuple[str, dict[str, Any]]] = {}
    for case in sorted(cases, key=lambda case: "result" not in case.expect):  # a case with a result first
        chosen.setdefault(case.op, (case.full_id, case.raw_args))
    plain = {op.name: (f"{op.name}(plain text)", {p.name: "Abc" for p in op.params if p.required})
             for op in OPS.values()}
    return {op: chosen.get(op, plain[op]) for op in order}


def probe_request(first: dict[str, tuple[str, dict[str, Any]]]) -> tuple[str, tuple[str, dict[str, Any]]]:
    """The request the checks that need one valid call send: of the ops it serves, the first that takes a
    required argument (its first fixture case), else the first op it serves."""
    for op_name, request in first.items():
        if any(p.required for p in OPS[op_name].params):
            return op_name, request
    return next(iter(first.items()))


def _trace_checks(report: Report, raw: _Raw, traced: list[str], first: dict[str, tuple[str, dict[str, Any]]],
                  answers: dict[str, dict[str, Any]], declared: Implementation) -> None:
    """Each op the testee says it traces: one trace request (its first fixture case), a valid response whose
    trace passes harness/testees/traces.py against the op's own answer; an op it does not list is refused."""
    if not traced:
        report.check(True, "traces: none served (a black box; the trace request is optional)", "")
        return
    for number, op_name in enumerate(traced):
        if op_name not in first:
            report.check(False, f"traces lists {op_name!r}, which is not an op of the table" if op_name not in OPS
                         else f"traces lists {op_name!r}, which its declaration does not serve", "")
            continue
        label, args = first[op_name]
        answer = raw.ask(json.dumps({"id": 200 + number, "op": TRACE_OP, "args": {"op": op_name, "args": args}}))
        problem = _problem("response", answer)
        if not problem:
            own = answers.get(op_name, {})
            own_response = {"ok": hostvalues.decode(own["ok"])} if "ok" in own else {"error": own.get("error", {})}
            problem = "; ".join(trace_problems(op_name, answer, own_response))
        report.check(not problem, f"trace of {label}: a valid trace that ends in the op's own answer", problem)
    untraced = next((op for op in declared.ops if op not in traced), None)
    if untraced is not None:
        answer = raw.ask(json.dumps({"id": 299, "op": TRACE_OP, "args": {"op": untraced, "args": {}}}))
        report.check(answer.get("error", {}).get("code") == "bad_request",
                     f"a trace of {untraced}, which it does not list: answered bad_request", json.dumps(answer)[:200])


def _crash_check(report: Report, name: str, probe: tuple[str, tuple[str, dict[str, Any]]]) -> None:
    """The harness's client survives the testee dying: a process killed from outside never gives the
    request it was handling a crash; it is retried alone on a fresh process (a flaky_crash finding)."""
    impl = get_impl(name)
    try:
        assert isinstance(impl, CommandTestee)
        before = impl.findings.to_json()
        if not report.check(not before, "no finding about the testee after its start (handshake, unicode_versions)",
                            "; ".join(f"{f['kind']}: {f['message']}" for f in before)[:500]) or impl._proc is None:
            return
        impl._proc.popen.kill()
        op_name, (_, raw_args) = probe
        args = hostvalues.decode_args(raw_args)
        after = impl.call(op_name, args)
        kinds = [finding["kind"] for finding in impl.findings.to_json()]
        report.check("ok" in after and kinds == ["flaky_crash"],
                     "a testee killed from outside: a fresh process answers that request (a flaky_crash finding)",
                     f"{json.dumps(after)[:200]}, findings {kinds}")
        alive = impl.call(op_name, args)
        report.check("ok" in alive and impl.restarts == 1, "then the same process answers the next one",
                     f"{json.dumps(alive)[:200]}, restarts {impl.restarts}")
    finally:
        impl.close()


def main(name: str) -> int:
    report = selftest(name)
    print(f"selftest {name}: {'FAILED, ' + str(report.failures) + ' check(s)' if report.failures else 'passed'}")
    return 1 if report.failures else 0
