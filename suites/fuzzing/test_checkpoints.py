"""Sweep checkpoints that survive a cut (issue 31, part 7): a resume reads every line as untrusted JSON
and checks its shape; a damaged line, the last one cut by a kill while it was written or any other, costs
its chunk alone (it runs again, and stderr says which line and why), and the file is rewritten from the
lines kept before anything is appended. A damaged header, or one of other settings, stays status 2.

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


def _fake(op: Any) -> Any:
    if op.name == "normalize_fact_text":
        return lambda text: op.reference(text).strip()
    return op.reference


@pytest.fixture(autouse=True)
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep, "_open", lambda names: {
        "reference": InProcess("reference", lambda op: op.reference), "fake": InProcess("fake", _fake)})


def _resume(path: Path, fresh: bool = False) -> tuple[sweep.SweepRun, str]:
    stream = io.StringIO()
    done = sweep.run(SETTINGS, path, fresh=fresh, workers=1, stream=stream)
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
                                b'[[["fake"],[["fake","ok"],["reference","ok"]],"none",[["alone",0,3]]]]}',
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


def test_a_chunk_given_twice_is_kept_once(full: tuple[Path, dict[str, str]]) -> None:
    path, before = full
    lines = path.read_text(encoding="ascii").splitlines()
    path.write_text("\n".join([*lines, lines[2]]) + "\n", encoding="ascii")
    again, said = _resume(path)
    assert f":{CHUNKS + 2}: a damaged checkpoint line dropped: its chunk again (line 3 has it)" in said, said
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
    assert _whole_lines(path)[0] == SETTINGS.header() and len(_whole_lines(path)) == CHUNKS + 1


HEADERS = {
    "not JSON": (b'{"schema": "sweep-chec', "not a sweep checkpoint (its first line: not JSON"),
    "an array": (b"[1,2]", "not a sweep checkpoint (its first line: JSON, but an array"),
    "deep JSON": (b"[" * 100_000, "not a sweep checkpoint (its first line: nesting deeper"),
    "an empty first line": (b"", "not a sweep checkpoint (its first line is empty)"),
    "other settings": (json.dumps({**SETTINGS.header(), "chunk": 7}).encode(), "other settings (chunk differ"),
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
