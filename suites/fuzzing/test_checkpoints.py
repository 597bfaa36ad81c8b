"""Sweep checkpoints that survive a cut (issue 31, part 7): a resume reads every line as untrusted JSON
and checks its shape; a damaged line, the last one cut by a kill while it was written or any other, costs
its chunk alone (it runs again, and stderr says which line and why), and the file is rewritten from the
lines kept before anything is appended. A damaged header, or one of other settings, stays status 2.

Checkpoints that name their run (issue 49, item 10): the header holds the run's identity (the settings and
each implementation's build: name, version, unicode), every line carries it and a digest chain; a well-formed
line that was edited, moved, inserted or copied from another sweep is status 2 naming it, and so is a
checkpoint of other builds or of an older harness (with the --fresh hint).

The sweeps here run in this process on two in-process implementations (the reference, and a copy whose
normalize_fact_text also strips, a bug at U+001C..U+001F): four chunks in well under a second."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from harness.fuzzing import sweep
from harness.model.status import UsageError
from harness.testees.inprocess import InProcess
from suites.fake_impl import declare, run

SETTINGS = sweep.Settings(("reference", "fake"), ("alone", "leading-edge"), 0, 0x1FFF, (1, 1))
CHUNKS = len(sweep.plan(SETTINGS))  # 4
DESCRIBED = {"reference": {"name": "reference", "version": "1.0", "unicode": {"python": "15.1.0"}, "language": "x"},
             "fake": {"name": "fake", "version": "1", "unicode": {"python": "15.1.0"}}}


def _fake(op: Any) -> Any:
    if op.name == "normalize_fact_text":
        return lambda text: op.reference(text).strip()
    return op.reference


@pytest.fixture(autouse=True)
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep, "_open", lambda names: {
        "reference": InProcess("reference", lambda op: op.reference), "fake": InProcess("fake", _fake)})


def _resume(path: Path, fresh: bool = False, settings: sweep.Settings = SETTINGS,
            described: dict[str, Any] = DESCRIBED) -> tuple[sweep.SweepRun, str]:
    stream = io.StringIO()
    done = sweep.run(settings, path, fresh=fresh, workers=1, stream=stream, described=described)
    return done, stream.getvalue()


def _by_chunk(results: list[dict[str, Any]]) -> dict[str, str]:
    return {result["chunk"]: json.dumps(result, sort_keys=True) for result in results}


def _whole_lines(path: Path) -> list[dict[str, Any]]:
    """The checkpoint as it must be after a resume: whole lines, each a JSON object."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), data[-200:]
    lines = []
    for line in data.decode("ascii").splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"a damaged line in {path}: {line[:200]}") from None
    return lines


@pytest.fixture
def full(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A finished sweep's checkpoint and its results by chunk."""
    path = tmp_path / "checkpoint.jsonl"
    done, _ = _resume(path, fresh=True)
    assert done.resumed == 0 and len(done.results) == CHUNKS
    assert any(result["groups"] for result in done.results)  # the planted bug is in the results
    return path, _by_chunk(done.results)


def _cut_and_resume_twice(path: Path, before: dict[str, str]) -> None:
    """The last line cut in its middle (a kill while it was written), then two resumes: the first runs that
    chunk again and says so, the second finds every chunk done; nothing lost, nothing changed."""
    data = path.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: last + (len(data) - last) // 2])
    first, said = _resume(path)
    assert f"{path}:{CHUNKS + 1}: a damaged checkpoint line dropped: cut short" in said, said
    assert first.resumed == CHUNKS - 1 and _by_chunk(first.results) == before
    assert len(_whole_lines(path)) == CHUNKS + 1
    second, said = _resume(path)
    assert "line dropped" not in said and f"{CHUNKS:,} of {CHUNKS:,} chunks already done" in said, said
    assert second.resumed == CHUNKS and _by_chunk(second.results) == before


def test_a_checkpoint_cut_mid_line_resumes_and_resumes_again_with_nothing_lost(full: tuple[Path, dict[str, str]]
                                                                               ) -> None:
    _cut_and_resume_twice(*full)


def test_the_old_append_after_the_cut_fails_that_test(full: tuple[Path, dict[str, str]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the resume appends after the cut bytes (the file is never rewritten), so the cut line ends
    up in the middle, joined to the next; the test above sees the chunks run again on the second resume."""
    monkeypatch.setattr(sweep, "_rewrite", lambda path, lines: None)
    with pytest.raises(AssertionError):
        _cut_and_resume_twice(*full)


DAMAGE = {
    "not JSON": (b'{"chunk":"alone:1000","val', "not JSON"),
    # a RecursionError in Python's parser: refused, never raised
    "deep JSON": (b"[" * 100_000, "nesting deeper than the parser's limit"),
    # a line the harness writes holds its own structure around values of at most 101 levels: 200 (DOCUMENT_DEPTH)
    "deep but whole": (b"[" * 250 + b"]" * 250, "more than 200 levels"),
    "an array": (b"[1,2]", "an array where an object is due"),
    "NaN": (b'{"chunk":"alone:1000","values":NaN}', "NaN"),
    "not UTF-8": (b'{"chunk":"alone:1000","x":"\xff"}', "not UTF-8"),
    "not ASCII": ('{"chunk":"alone:1000","x":"\u00e9"}'.encode(), "not ASCII"),
    "no fields": (b'{"chunk":"alone:1000"}', "no values, compared, inexpressible, groups"),
    "another chunk": (b'{"chunk":"alone:5000","values":4096,"compared":0,"inexpressible":{},"groups":[]}',
                      "names no chunk of this sweep"),
    "values of a string": (b'{"chunk":"alone:1000","values":"4096","compared":0,"inexpressible":{},"groups":[]}',
                           "values is not the chunk's 4,096"),
    "a bad group": (b'{"chunk":"alone:1000","values":4096,"compared":0,"inexpressible":{},"groups":[[1,2]]}',
                    "a group that is not"),
    "a run outside the chunk": (b'{"chunk":"alone:1000","values":4096,"compared":0,"inexpressible":{},"groups":'
                                b'[[["fake"],[["fake","ok"],["reference","ok"]],"none",["longer","L","-","1"],[0,3]]]}',
                                "inside the chunk"),
    "a finding of nobody": (b'{"chunk":"alone:1000","values":4096,"compared":0,"inexpressible":{},"groups":[],'
                            b'"findings":[{"impl":"x","kind":"crash","message":"m","count":1}]}',
                            "a finding of no implementation"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_middle_line_costs_its_chunk_alone(full: tuple[Path, dict[str, str]], damage: str) -> None:
    path, before = full
    text, why = DAMAGE[damage]
    lines = path.read_bytes().split(b"\n")
    lines[2] = text  # the second chunk's line (line 3)
    path.write_bytes(b"\n".join(lines))
    again, said = _resume(path)
    assert f"{path}:3: a damaged checkpoint line dropped: " in said and why in said, said
    assert "runs again" in said and said.count("line dropped") == 1
    assert again.resumed == CHUNKS - 1 and _by_chunk(again.results) == before
    assert len(_whole_lines(path)) == CHUNKS + 1  # rewritten without it, its chunk appended again
    last, said = _resume(path)
    assert "line dropped" not in said and last.resumed == CHUNKS and _by_chunk(last.results) == before


def test_a_chunk_given_twice_is_kept_once_after_a_damaged_line(full: tuple[Path, dict[str, str]]) -> None:
    """After a dropped line the digest the next line names is taken: a copy of line 3 there passes its seal,
    and is dropped as its chunk again (a copy right after a whole line is refused: see the chain tests)."""
    path, before = full
    lines = path.read_text(encoding="ascii").splitlines()
    path.write_text("\n".join([*lines, "[1]", lines[2]]) + "\n", encoding="ascii")
    again, said = _resume(path)
    assert f":{CHUNKS + 3}: a damaged checkpoint line dropped: its chunk again (line 3 has it)" in said, said
    assert again.resumed == CHUNKS and _by_chunk(again.results) == before and len(_whole_lines(path)) == CHUNKS + 1


def test_a_last_line_cut_just_before_its_newline_is_kept(full: tuple[Path, dict[str, str]]) -> None:
    path, before = full
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    again, said = _resume(path)
    assert "line dropped" not in said and again.resumed == CHUNKS and _by_chunk(again.results) == before
    assert len(_whole_lines(path)) == CHUNKS + 1


def test_an_empty_checkpoint_is_a_sweep_not_begun(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.jsonl"
    path.write_bytes(b"")
    done, _ = _resume(path)
    assert done.resumed == 0 and len(done.results) == CHUNKS
    assert _whole_lines(path)[0] == SETTINGS.header(DESCRIBED) and len(_whole_lines(path)) == CHUNKS + 1


HEADERS = {
    "not JSON": (b'{"schema": "sweep-chec', "not a sweep checkpoint (its first line: not JSON"),
    "an array": (b"[1,2]", "not a sweep checkpoint (its first line: JSON, but an array"),
    "deep JSON": (b"[" * 100_000, "not a sweep checkpoint (its first line: nesting deeper"),
    "an empty first line": (b"", "not a sweep checkpoint (its first line is empty)"),
    "other settings": (json.dumps({**SETTINGS.header(DESCRIBED), "chunk": 7}).encode(), "other settings (chunk differ"),
    "an older harness's": (json.dumps({"schema": "sweep-checkpoint-v1", "impls": ["reference", "fake"],
                                       "templates": ["alone", "leading-edge"], "range": [0, 0x1FFF], "shard": "1/1",
                                       "chunk": 4096}).encode(), "written by an older harness"),
    "another build": (json.dumps(SETTINGS.header({**DESCRIBED, "fake": {**DESCRIBED["fake"], "version": "2"}})
                                 ).encode(), "other builds of the implementations (fake version '2' -> '1')"),
    "no build": (json.dumps(SETTINGS.header({})).encode(), "other builds of the implementations (reference None"),
    "an edited identity": (json.dumps({**SETTINGS.header(DESCRIBED), "identity": "0" * 64}).encode(),
                           "is not its settings' digest"),
    "no identity": (json.dumps({k: v for k, v in SETTINGS.header(DESCRIBED).items() if k != "identity"}).encode(),
                    "is not its settings' digest"),
}


@pytest.mark.parametrize("header", HEADERS)
def test_a_damaged_header_is_a_usage_error(full: tuple[Path, dict[str, str]], header: str) -> None:
    path, _ = full
    text, message = HEADERS[header]
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([text, *lines[1:]]))
    kept = path.read_bytes()
    with pytest.raises(UsageError, match="--fresh") as refused:
        _resume(path)
    assert isinstance(refused.value, ValueError)  # cmd_sweep's path to status 2 as well
    assert message in str(refused.value)
    assert path.read_bytes() == kept  # nothing rewritten


def test_the_command_line_resumes_a_cut_checkpoint_and_refuses_a_bad_header(tmp_path: Path) -> None:
    """Through ``python -m harness sweep`` with a declared command testee: a cut last line is said and its
    chunk run again (the same report, status 1 for the planted bug); a header that is an array is status 2,
    with no traceback."""
    declare(tmp_path / "impls", bug="strip")
    checkpoint, report = tmp_path / "checkpoint.jsonl", tmp_path / "report.json"
    command = ["-m", "harness", "sweep", "--impls", "fake", "--templates", "alone,leading-edge", "--range",
               "U+0000..U+1FFF", "--checkpoint", str(checkpoint), "--report", str(report)]
    first = run(tmp_path / "impls", *command)
    assert first.returncode == 1, first.stderr[-2000:]
    classes = json.loads(report.read_text())["divergences"]
    data = checkpoint.read_bytes()
    checkpoint.write_bytes(data[:-40])
    again = run(tmp_path / "impls", *command)
    assert again.returncode == 1 and "a damaged checkpoint line dropped: cut short" in again.stderr, again.stderr
    assert f"{CHUNKS - 1} of {CHUNKS} chunks already done" in again.stderr
    assert json.loads(report.read_text())["divergences"] == classes
    checkpoint.write_bytes(b"[1,2]\n" + checkpoint.read_bytes().split(b"\n", 1)[1])
    refused = run(tmp_path / "impls", *command)
    assert refused.returncode == 2 and "error:" in refused.stderr and "not a sweep checkpoint" in refused.stderr
    assert "Traceback" not in refused.stderr, refused.stderr


# ---- checkpoints that name their run (issue 49, item 10) ----------------------------------------------


def _refused(path: Path, **resume: Any) -> str:
    """The resume's CheckpointError message; the file untouched."""
    kept = path.read_bytes()
    with pytest.raises(sweep.CheckpointError) as refused:
        _resume(path, **resume)
    assert isinstance(refused.value, UsageError)  # status 2
    assert path.read_bytes() == kept
    message = str(refused.value)
    assert "--fresh" in message, message
    return message


def _edit(path: Path, change: Any) -> None:
    lines = path.read_text(encoding="ascii").splitlines()
    change(lines)
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def _forge(index: int, **fields: Any) -> Any:
    def change(lines: list[str]) -> None:
        line = json.loads(lines[index])
        line.update({key: value(line) for key, value in fields.items()})
        lines[index] = json.dumps({key: value for key, value in line.items() if value is not None},
                                  separators=(",", ":"))
    return change


FORGED = {  # line 2 is chunk alone:0, where the fake's bug is (U+001C..U+001F disagree)
    "a count changed": (_forge(1, compared=lambda line: line["compared"] - 1),
                        "2: its content does not match its chain digest"),
    "its disagreements taken out": (_forge(1, groups=lambda line: []), "2: its content does not match its chain"),
    "its seal taken off": (_forge(1, run=lambda line: None, prev=lambda line: None, chain=lambda line: None),
                           "2: a chunk result without its run, prev, chain"),
    "a chain of its own": (_forge(2, chain=lambda line: "0" * 64), "3: its content does not match its chain"),
}


@pytest.mark.parametrize("forgery", FORGED)
def test_a_forged_well_formed_line_is_refused_naming_it(full: tuple[Path, dict[str, str]], forgery: str) -> None:
    path, _ = full
    change, message = FORGED[forgery]
    _edit(path, change)
    assert f"{path}:{message}" in _refused(path)


@pytest.mark.parametrize("other", [(0, 0xFFF), (0x2000, 0x3FFF)], ids=["its chunk in both", "its chunk not in ours"])
def test_a_line_copied_from_another_sweep_is_refused(full: tuple[Path, dict[str, str]], tmp_path: Path,
                                                     other: tuple[int, int]) -> None:
    """The first line of a sweep of another range (alone:0, the same values and results as ours, or alone:2000)
    in place of ours."""
    path, _ = full
    theirs = tmp_path / "other.jsonl"
    _resume(theirs, fresh=True, settings=sweep.Settings(SETTINGS.impls, SETTINGS.templates, *other, (1, 1)))
    copied = theirs.read_text(encoding="ascii").splitlines()[1]

    def change(lines: list[str]) -> None:
        lines[1] = copied
    _edit(path, change)
    assert f"{path}:2: a line of another sweep (its run identity" in _refused(path)


def _swap(lines: list[str]) -> None:
    lines[1], lines[2] = lines[2], lines[1]


MOVED = {
    "two lines swapped": (_swap, 2),
    "a line removed": (lambda lines: lines.pop(2), 3),
    "a line inserted again": (lambda lines: lines.insert(3, lines[1]), 4),
    "a line appended again": (lambda lines: lines.append(lines[2]), CHUNKS + 2),
    "the last line first": (lambda lines: lines.insert(1, lines.pop()), 2),
}


@pytest.mark.parametrize("move", MOVED)
def test_lines_moved_inserted_or_removed_are_refused(full: tuple[Path, dict[str, str]], move: str) -> None:
    path, _ = full
    change, number = MOVED[move]
    _edit(path, change)
    assert f"{path}:{number}: it does not follow the line before it" in _refused(path)


def test_a_checkpoint_of_another_build_is_refused_with_the_fresh_hint(full: tuple[Path, dict[str, str]]) -> None:
    """The testee rebuilt (another version, other Unicode data): its results are not theirs. What else it says of
    itself (its language) is no part of its build."""
    path, before = full
    rebuilt = {**DESCRIBED, "fake": {**DESCRIBED["fake"], "version": "2"}}
    assert "other builds of the implementations (fake version '1' -> '2')" in _refused(path, described=rebuilt)
    newer = {**DESCRIBED, "reference": {**DESCRIBED["reference"], "unicode": {"python": "16.0.0"}}}
    assert "reference unicode {'python': '15.1.0'} -> {'python': '16.0.0'}" in _refused(path, described=newer)
    assert "fake {'name': 'fake'" in _refused(path, described={"reference": DESCRIBED["reference"]})
    talked = {**DESCRIBED, "reference": {**DESCRIBED["reference"], "language": "y", "unicode": {"python": "15.1.0"}},
              "fake": {**DESCRIBED["fake"], "version": "1", "name": "fake"}}  # equal builds, other dicts
    again, said = _resume(path, described=talked)
    assert again.resumed == CHUNKS and _by_chunk(again.results) == before, said
    started, _ = _resume(path, fresh=True, described=rebuilt)
    assert started.resumed == 0 and _whole_lines(path)[0] == SETTINGS.header(rebuilt)


def test_a_build_described_with_a_tuple_resumes(tmp_path: Path) -> None:
    """A self-description made in this process (a tuple where JSON has an array) is the build it reads back."""
    described = {**DESCRIBED, "reference": {**DESCRIBED["reference"], "unicode": {"python": ("15.1.0",)}}}
    path = tmp_path / "checkpoint.jsonl"
    _resume(path, fresh=True, described=described)
    again, said = _resume(path, described=described)
    assert again.resumed == CHUNKS, said


def _report_data(done: sweep.SweepRun) -> Any:
    """What a sweep's report is made of."""
    return (sorted((repr(key), sorted(runs)) for key, runs in sweep.groups(done).items()), done.ledger().to_json(),
            done.findings().to_json(), done.inexpressible(), done.values, done.taken_out)


def test_a_genuine_checkpoint_resumes_to_a_fresh_runs_report(full: tuple[Path, dict[str, str]],
                                                             tmp_path: Path) -> None:
    """Cut between two lines (a kill after a chunk was written), the sweep resumes its two chunks, runs the two
    others, and ends with a fresh run's results and the same checkpoint, byte for byte."""
    path, before = full
    _edit(path, lambda lines: lines.__delitem__(slice(3, None)))
    again, said = _resume(path)
    assert f"2 of {CHUNKS} chunks already done" in said and "dropped" not in said, said
    fresh, _ = _resume(tmp_path / "fresh.jsonl", fresh=True)
    assert again.resumed == 2 and _by_chunk(again.results) == before
    assert _report_data(again) == _report_data(fresh)
    assert path.read_bytes() == (tmp_path / "fresh.jsonl").read_bytes()


def test_the_command_line_refuses_a_forged_line_and_another_build(tmp_path: Path) -> None:
    """Through ``python -m harness sweep``: a forged count is status 2 naming the line; the fake testee rebuilt
    (FAKE_BUG is its version) is status 2 with the --fresh hint, and --fresh starts over."""
    declare(tmp_path / "impls", bug="strip")
    checkpoint, report = tmp_path / "checkpoint.jsonl", tmp_path / "report.json"
    command = ["-m", "harness", "sweep", "--impls", "fake", "--templates", "alone", "--range", "U+0000..U+0FFF",
               "--checkpoint", str(checkpoint), "--report", str(report)]
    first = run(tmp_path / "impls", *command)
    assert first.returncode == 1, first.stderr[-2000:]
    genuine = checkpoint.read_bytes()
    _edit(checkpoint, _forge(1, compared=lambda line: line["compared"] - 1))
    forged = run(tmp_path / "impls", *command)
    assert forged.returncode == 2 and f"error: {checkpoint}:2: its content does not match" in forged.stderr, \
        forged.stderr[-2000:]
    assert "Traceback" not in forged.stderr
    checkpoint.write_bytes(genuine)
    declare(tmp_path / "impls", bug="")
    rebuilt = run(tmp_path / "impls", *command)
    assert rebuilt.returncode == 2 and "fake version 'strip' -> 'faithful'" in rebuilt.stderr, rebuilt.stderr[-2000:]
    assert "run with --fresh" in rebuilt.stderr and "Traceback" not in rebuilt.stderr
    started = run(tmp_path / "impls", *command, "--fresh")
    assert started.returncode == 0, started.stderr[-2000:]


def test_a_full_disk_while_appending_is_a_usage_error_and_the_sweep_resumes(full: tuple[Path, dict[str, str]],
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC while a chunk's line is appended: status 2 naming the checkpoint and the system's reason (it was an
    internal error, status 5); the lines before it are kept, and the same sweep run again finishes it."""
    import errno

    from harness.model.files import WriteFailed

    path, before = full
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]))  # the header and one chunk done
    real = sweep._sweep_into

    def full_disk(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sweep, "_sweep_into", full_disk)
    with pytest.raises(WriteFailed, match=r"checkpoint\.jsonl: cannot append to the sweep's checkpoint: No space "
                                          r"left on device \(ENOSPC\); the chunks before it are kept"):
        _resume(path)
    monkeypatch.setattr(sweep, "_sweep_into", real)
    done, said = _resume(path)
    assert f"1 of {CHUNKS:,} chunks already done" in said and _by_chunk(done.results) == before
