"""A hostile testee: the reference served faithfully, except for one fault, chosen by HOSTILE_FAULT and
triggered by HOSTILE_AT (the Nth request this process answers, counting the requests inside batch
lines; the count starts again in every process). The table of faults and the verdicts the harness must
give them is ``harness/tools/hostile_faults.py``.

    not_json      the line that holds the Nth answer is replaced by a line that is not JSON
    wrong_id      the Nth answer carries another request's id
    exit          exits with status 0 at the Nth request, without answering
    hang          stops answering at the Nth request, and stays alive
    stderr_flood  writes 200 MB to stderr without a newline at the Nth request, then answers
    long_line     writes 300 MB without a newline before the line of the Nth answer
    bad_utf8      the Nth answer holds bytes that are not UTF-8
    twice         the Nth answer is written twice (a batch: the item twice)
    drop_last     every batch line (from the Nth request on) is answered without its last item
    reverse       every batch line (from the Nth request on) is answered in reverse order
    refuse_op     the Nth request is answered bad_request
    random        every normalize_fact_text answer is a random text (nondeterministic)
    batch_state   inside a batch line, normalize_fact_text answers with the previous item's text
    lie_contracts its start answer says it serves contract v0 only
    lie_unicode   its start answer's unicode versions differ from its unicode_versions answer
    slow_start    sleeps HOSTILE_SLEEP seconds (default 60) before it reads the start request
    lying_trace   lists the reference's traced ops, and every trace of normalize_fact_text ends in another
                  result than the op's (the op itself answers faithfully)
    refuse_trace  lists the reference's traced ops in its start answer's traces, and answers every trace request
                  of the ops HOSTILE_REFUSE names (comma-separated; default all of them) bad_request; the others
                  are traced faithfully (the ops themselves answer faithfully; HOSTILE_QUOTE_BUG=1 plants
                  quote_bug's bug beside it, so that it diverges). HOSTILE_TRACE_ANSWER=malformed answers those
                  trace requests with ok 42 (a trace is a JSON text) instead, =exit exits without answering
    quote_bug     not a fault of the protocol but a bug of the implementation, in its op and its trace alike:
                  U+2019 is not in the quote map (traces served)
    deep_json     the Nth answer is an ok that nests 100,000 arrays ('[' x 100,000, then as many ']')
    wrong_id_array, wrong_id_object, wrong_id_true, wrong_id_null, wrong_id_float, wrong_id_string
                  the Nth answer's id is [id], {"id": id}, true, null, id as a float (57.0), id as a string ("57")
    ok_wrong_type the Nth answer is an ok that is a number (every op returns a string), even where the
                  reference gives an error
    ok_nan        the Nth answer is an ok that is the token NaN
    extra_key     the Nth answer has a key beside id and ok (or error)
    grandchild    at the Nth request starts a child that holds stdout and stderr (it sleeps 60 s), then exits
                  without answering; the child's pid is appended to HOSTILE_STATE/grandchildren
    control_bytes at the Nth request writes ESC, BEL, BS and CSI (U+009B) sequences to stderr and answers
                  bad_request with them in its message
    bom_start     its start answer begins with a UTF-8 byte order mark
    killed_start  kills itself with SIGKILL when it gets its start request, once (HOSTILE_STATE/killed marks it)
    another_self  exits at the Nth request (like exit), and each process describes itself with another version
                  in its start answer (its pid in it), so a restarted one is not the one that started
    killed_restart exits at the Nth request (like exit), and the next process kills itself with SIGKILL when it
                  gets its start request, once
    huge_answer   the first ok answer from the Nth request on, and every later answer to the same request (op and
                  arguments, kept in HOSTILE_STATE/huge), is the right one followed by HOSTILE_HUGE_MIB (default 12)
                  MiB of "z" (a text op's: a content divergence; a JSON op's: not JSON)
    huge_description its start answer's name, version and language are each 4 MiB long

HOSTILE_STARTS, when set, is a file each process appends a line to when it starts (a run's process count).
HOSTILE_STATE is a folder for what outlives one process (markers, pids); harness/tools/hostile_faults.declare sets it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import reference
from harness.testees import protocol
from harness.testees.inprocess import InProcess

FAULT = os.environ.get("HOSTILE_FAULT", "")
AT = int(os.environ.get("HOSTILE_AT", "50"))
OUT = sys.stdout.buffer
STATE = Path(os.environ.get("HOSTILE_STATE") or ".")
DEEP = "[" * 100_000 + "]" * 100_000
DUPLICATE = "\x00hostile-duplicate\x00"  # a key renamed "ok" once the line is encoded: {"id":N,"ok":..,"ok":..}
PLACEHOLDER = "\x00hostile-raw\x00"  # an ok replaced by raw text once the line is encoded (NaN, the deep nest)
ODD_IDS = {"wrong_id_array": lambda i: [i], "wrong_id_object": lambda i: {"id": i}, "wrong_id_true": lambda i: True,
           "wrong_id_null": lambda i: None, "wrong_id_float": lambda i: float(i), "wrong_id_string": str}
CONTROL = "\x1b[2J\x1b]0;owned\x07\x08\x08\u009b31m"  # clear screen, retitle + BEL, backspaces, CSI (C1)


def resolve(op):  # type: ignore[no-untyped-def]
    if FAULT == "random" and op.name == "normalize_fact_text":
        return lambda text: "".join(random.choice("abcdefgh") for _ in range(12))
    return getattr(reference, op.name)


def lying_trace(op: str, args: dict[str, object]) -> str:
    document = json.loads(reference.trace(op, args))
    if op == "normalize_fact_text" and "result" in document["outcome"]:
        document["outcome"]["result"] += "!"
    return json.dumps(document)


if FAULT == "quote_bug" or os.environ.get("HOSTILE_QUOTE_BUG") == "1":  # the quote bug beside a fault
    import reference.normalize

    reference.normalize.QUOTE_DASH_MAP = {k: v for k, v in reference.normalize.QUOTE_DASH_MAP.items() if k != 0x2019}

VERSIONS = json.loads(reference.unicode_versions())
DESCRIPTION = {"protocol": protocol.PROTOCOL_VERSION, "name": "hostile-testee", "version": FAULT or "faithful",
               "language": "Python (a hostile test double)", "unicode": VERSIONS, "contracts": ["v1"]}
if FAULT in ("lying_trace", "quote_bug", "refuse_trace"):
    DESCRIPTION["traces"] = list(reference.TRACED)
REFUSED = [op for op in os.environ.get("HOSTILE_REFUSE", "").split(",") if op] or list(reference.TRACED)
TRACE_ANSWER = os.environ.get("HOSTILE_TRACE_ANSWER", "refuse")  # refuse_trace: refuse, malformed or exit
TRACERS = {"lying_trace": lying_trace, "quote_bug": reference.trace, "refuse_trace": reference.trace}
IMPL = InProcess("hostile", resolve, DESCRIPTION, tracer=TRACERS.get(FAULT))
if FAULT == "lie_contracts":
    DESCRIPTION["contracts"] = ["v0"]
if FAULT == "lie_unicode":
    DESCRIPTION["unicode"] = {**VERSIONS, "case_mapping": "1.0.0"}
if FAULT == "huge_description":  # 4 MiB in each of name, version and language
    for key in ("name", "version", "language"):
        DESCRIPTION[key] = key[0] * (4 << 20)
if FAULT == "another_self":  # each process another build: its own pid in its version
    DESCRIPTION["version"] = f"{DESCRIPTION['version']} (build {os.getpid()})"

count = 0  # requests answered by this process


def write(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def line(message: object) -> bytes:
    return protocol.encode_line(message).encode("ascii")  # type: ignore[arg-type]


def answer_one(request: dict, previous: str | None) -> tuple[dict, bool]:  # type: ignore[type-arg]
    """(the answer, whether this request is the Nth)."""
    global count
    count += 1
    nth = count == AT
    if nth and FAULT in ("exit", "another_self"):
        os._exit(0)
    if nth and FAULT == "hang":
        time.sleep(3600)
    if nth and FAULT == "stderr_flood":
        block = b"x" * (1 << 20)
        for _ in range(200):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.flush()
    if FAULT == "batch_state" and previous is not None and request.get("op") == "normalize_fact_text":
        return {"id": request.get("id"), "ok": previous}, nth
    if nth and FAULT in ("grandchild", "killed_restart"):
        if FAULT == "grandchild":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # holds our pipes
            with (STATE / "grandchildren").open("a", encoding="ascii") as pids:
                pids.write(f"{child.pid}\n")
        else:
            (STATE / "exited").touch()
        os._exit(0)
    if nth and FAULT == "refuse_op":
        return protocol.bad_request(request.get("id"), "not today"), nth
    if (FAULT == "refuse_trace" and request.get("op") == "trace" and isinstance(request.get("args"), dict)
            and request["args"].get("op") in REFUSED):
        if TRACE_ANSWER == "exit":
            os._exit(0)
        if TRACE_ANSWER == "malformed":
            return {"id": request.get("id"), "ok": 42}, nth
        return protocol.bad_request(request.get("id"), f"no trace of {request['args']['op']} today"), nth
    if nth and FAULT == "control_bytes":
        sys.stderr.buffer.write(f"hostile: {CONTROL} on stderr\n".encode())
        sys.stderr.buffer.flush()
        return protocol.bad_request(request.get("id"), f"not today {CONTROL} done"), nth
    response = protocol.handle(IMPL, request)
    if nth and FAULT == "wrong_id":
        response["id"] = request["id"] - 1 if isinstance(request.get("id"), int) else "someone-else"
    if nth and FAULT in ODD_IDS:
        response["id"] = ODD_IDS[FAULT](request.get("id"))
    if nth and FAULT == "ok_wrong_type":  # an error answer too is replaced (the Nth may be one)
        response = {"id": response.get("id"), "ok": 42}
    if nth and FAULT in ("ok_nan", "deep_json"):
        response = {"id": response.get("id"), "ok": PLACEHOLDER}
    if FAULT == "huge_answer" and "ok" in response and huge_request(request, count >= AT):
        response["ok"] += "z" * (int(os.environ.get("HOSTILE_HUGE_MIB", "12")) << 20)
    if nth and FAULT == "extra_key":
        response["note"] = "an extra key"
    if nth and FAULT == "duplicate_key":  # written as a second "ok" once the line is encoded; the last one wrong
        response[DUPLICATE] = "a second ok"
    return response, nth


def huge_request(request: dict, due: bool) -> bool:  # type: ignore[type-arg]
    """huge_answer: whether this request (answered ok) is the chosen one (the first at or after the Nth: ``due``)
    or the chosen one again (its op and arguments; every process knows it from HOSTILE_STATE/huge), so that its
    answer comes again, alone or not, in any process."""
    key = json.dumps([request.get("op"), request.get("args")], sort_keys=True)
    marker = STATE / "huge"
    if due and not marker.exists():
        marker.write_text(key, encoding="utf-8")
    return marker.exists() and marker.read_text(encoding="utf-8") == key


def start_killed() -> bool:
    """Whether this process is the one to die by SIGKILL at its start (killed_start: the first one;
    killed_restart: the first one after a process exited), once."""
    if FAULT not in ("killed_start", "killed_restart") or (STATE / "killed").exists():
        return False
    if FAULT == "killed_restart" and not (STATE / "exited").exists():
        return False
    (STATE / "killed").touch()
    return True


def main() -> int:
    if os.environ.get("HOSTILE_STARTS"):  # a line per process started: what a run cost in processes
        with open(os.environ["HOSTILE_STARTS"], "a", encoding="ascii") as starts:
            starts.write(f"{os.getpid()}\n")
    if FAULT == "slow_start":
        time.sleep(float(os.environ.get("HOSTILE_SLEEP", "60")))
    for raw in sys.stdin.buffer:
        try:
            request = json.loads(raw)
        except ValueError as exc:
            write(line(protocol.bad_request(None, f"not JSON: {exc}")))
            continue
        if not isinstance(request, dict) or not isinstance(request.get("batch", []), list):
            write(line(protocol.handle(IMPL, request)))
            continue
        if request.get("op") == "start":
            if start_killed():
                os.kill(os.getpid(), signal.SIGKILL)
            answer = line(protocol.handle(IMPL, request, DESCRIPTION))
            write(b"\xef\xbb\xbf" + answer if FAULT == "bom_start" else answer)
            continue
        if "batch" in request:
            answers, hit, previous = [], False, None
            for item in request["batch"]:
                response, nth = answer_one(item, previous)
                previous = (item.get("args", {}).get("text") if isinstance(item.get("args", {}).get("text"), str)
                            else None)
                answers.append(response)
                if nth and FAULT == "twice":
                    answers.append(response)
                hit = hit or nth
            if FAULT in ("drop_last", "reverse") and count >= AT:
                answers = answers[:-1] if FAULT == "drop_last" else answers[::-1]
            messages = [{"id": request["id"], "batch": answers}]
        else:
            response, hit = answer_one(request, None)
            messages = [response, response] if hit and FAULT == "twice" else [response]
        data = b"".join(line(m) for m in messages)
        if hit and FAULT in ("ok_nan", "deep_json"):
            raw = "NaN" if FAULT == "ok_nan" else DEEP
            data = data.replace(json.dumps(PLACEHOLDER).encode("ascii"), raw.encode("ascii"))
        if hit and FAULT == "duplicate_key":
            data = data.replace(json.dumps(DUPLICATE).encode("ascii"), b'"ok"')
        if hit and FAULT == "not_json":
            data = b"this is not JSON at all\n"
        if hit and FAULT == "bad_utf8":
            data = data[:-2] + b"\xff\xfe" + data[-2:]
        if hit and FAULT == "long_line":
            block = b"y" * (1 << 20)
            for _ in range(300):
                OUT.write(block)
        write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
