"""The one write (harness/model/files.py): atomic, and, where the writer names the kinds it replaces, never
over a file that is not a document of that kind (status 2, the file named, the file left as it was)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.model.files import NotADocument, atomic_write
from harness.model.status import USAGE

KINDS = ("expected-divergences-v2", "expected-divergences-v1")
NEW = json.dumps({"schema": "expected-divergences-v2", "implementation": "x", "entries": []}) + "\n"

NOT_DOCUMENTS = {  # what is at the path -> what the refusal says
    "a README": (b"# My project\n\nNot JSON at all.\n", "not JSON"),
    "an empty file": (b"", "not JSON"),
    "a JSON array": (b"[1, 2]\n", "an array where an object is due"),
    "another kind": (json.dumps({"schema": "divergence-report-v2", "ok": True}).encode(),
                     'a document of schema "divergence-report-v2"'),
    "no schema": (json.dumps({"entries": []}).encode(), 'a JSON object with no "schema"'),
    "a schema that is not a string": (json.dumps({"schema": ["expected-divergences-v2"]}).encode(),
                                      "a document of schema"),
    "deep JSON": (b"[" * 100_000 + b"]" * 100_000, "nesting deeper"),
    "NaN": (b'{"schema": "expected-divergences-v2", "x": NaN}', "the token NaN"),
    "not UTF-8": (b'{"schema": "expected-divergences-v2", "x": "\xff"}', "not UTF-8"),
}


@pytest.mark.parametrize("kind", list(NOT_DOCUMENTS))
def test_a_write_that_replaces_documents_refuses_any_other_file(tmp_path: Path, kind: str) -> None:
    data, said = NOT_DOCUMENTS[kind]
    path = tmp_path / "list.json"
    path.write_bytes(data)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    with pytest.raises(NotADocument) as refused:
        atomic_write(path, NEW, replaces=KINDS, what="list of expected divergences")
    message = str(refused.value)
    assert refused.value.status == USAGE and message.startswith(f"{path}: "), message
    assert said in message and "list of expected divergences" in message, message
    assert path.read_bytes() == data and path.stat().st_mtime_ns == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["list.json"]  # no temporary file left
    atomic_write(path, NEW)  # without `replaces`, the one write is as before: over whatever is there
    assert path.read_text() == NEW


def test_a_write_that_replaces_documents_writes_a_new_file_or_over_its_kind(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "list.json"
    atomic_write(path, NEW, replaces=KINDS)  # nothing there: written (its folder made)
    assert path.read_text() == NEW
    older = json.dumps({"schema": "expected-divergences-v1", "implementation": "x", "entries": []})
    path.write_text(older)
    atomic_write(path, NEW, replaces=KINDS)  # a document of a kind it replaces
    assert path.read_text() == NEW


def test_a_link_is_judged_by_what_it_points_at(tmp_path: Path) -> None:
    outside = tmp_path / "README.md"
    outside.write_text("# not a list\n")
    link = tmp_path / "list.json"
    link.symlink_to(outside)
    with pytest.raises(NotADocument, match="not JSON"):
        atomic_write(link, NEW, replaces=KINDS)
    dangling = tmp_path / "gone.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(NotADocument, match="a symbolic link to nothing"):
        atomic_write(dangling, NEW, replaces=KINDS)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(NotADocument, match="not a file"):
        atomic_write(folder, NEW, replaces=KINDS)
    assert outside.read_text() == "# not a list\n" and link.is_symlink() and dangling.is_symlink()
    assert not (tmp_path / "nowhere.json").exists() and folder.is_dir()


# -- the commands' own outputs: written only over their own kind ---------------------------------------------

FOREIGN = "# a README somebody keeps here\n"


def test_a_divergence_report_is_never_written_over_another_file(tmp_path: Path) -> None:
    from harness.classes.report import write

    out = tmp_path / "README.md"
    out.write_text(FOREIGN, encoding="utf-8")
    with pytest.raises(NotADocument):  # every divergence report (diff, fuzz, sweep) is written through it
        write(out, {"schema": "divergence-report-v2"})
    assert out.read_text(encoding="utf-8") == FOREIGN
    other = tmp_path / "list.json"
    other.write_text('{"schema": "expected-divergences-v2"}\n', encoding="utf-8")
    with pytest.raises(NotADocument):
        write(other, {"schema": "divergence-report-v2"})
    write(tmp_path / "new.json", {"schema": "divergence-report-v2"})
    write(tmp_path / "new.json", {"schema": "divergence-report-v2", "again": True})  # over its own kind


def test_the_page_is_written_only_over_a_page_of_its_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main as cli

    reports = [tmp_path / "check-reference.json"]
    assert cli.main(["check", "--impl", "reference", "--results", str(reports[0])]) == 0
    out = tmp_path / "site"
    assert cli.main(["report", "html", *map(str, reports), "--out", str(out)]) in (0, 1)
    assert cli.main(["report", "html", *map(str, reports), "--out", str(out)]) in (0, 1)  # over its own page
    (out / "index.html").write_text("<html>somebody's page</html>\n", encoding="utf-8")
    assert cli.main(["report", "html", *map(str, reports), "--out", str(out)]) == USAGE
    assert (out / "index.html").read_text(encoding="utf-8") == "<html>somebody's page</html>\n"
    assert "not a page this project wrote" in capsys.readouterr().err


def test_a_bench_report_is_never_written_over_another_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.checks import bench

    out = tmp_path / "notes.json"
    out.write_text('{"schema": "expected-divergences-v2"}\n', encoding="utf-8")
    monkeypatch.setattr(bench, "bench", lambda seconds: {"schema": "bench-report-v1", "python": "x", "machine": "y",
                                                         "cores": 2})
    monkeypatch.setattr(bench, "table", lambda report: "")
    with pytest.raises(NotADocument):
        bench.main(out, 0.1)
    assert out.read_text(encoding="utf-8") == '{"schema": "expected-divergences-v2"}\n'


@pytest.mark.parametrize("argv", [
    ("fuzz", "--seconds", "30", "--impls", "reference,pyo3", "--report", "{out}"),
    ("sweep", "--templates", "alone", "--range", "U+0041..U+0042", "--impls", "reference,pyo3", "--report", "{out}",
     "--checkpoint", "{checkpoint}"),
    ("tracecheck", "--examples", "5", "--impls", "reference", "--json", "{out}"),
], ids=lambda argv: argv[0])
def test_a_report_path_that_names_another_file_stops_the_run_before_it_starts(
        argv: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main as cli

    out = tmp_path / "README.md"
    out.write_text(FOREIGN, encoding="utf-8")
    filled = [part.format(out=out, checkpoint=tmp_path / "cp.jsonl") for part in argv]
    assert cli.main(filled) == USAGE
    err = capsys.readouterr().err
    assert str(out) in err and ("not a divergence report" in err or "not a tracecheck report" in err), err
    assert "fuzzing" not in err and "sweeping" not in err and "traced" not in err  # nothing ran: no run is lost
    assert out.read_text(encoding="utf-8") == FOREIGN and not (tmp_path / "cp.jsonl").exists()


# -- a long file: judged by its head where the head decides (a big sweep's report is megabytes) -----------------

def _long(head: str, *, filler: str = "a", tail: str = "}\n") -> bytes:
    """``head`` then a member long enough to take the file past files.KIND_HEAD_BYTES, then ``tail``."""
    from harness.model.files import KIND_HEAD_BYTES

    text = head + '"padding": "' + filler * (2 * KIND_HEAD_BYTES // len(filler.encode())) + '"' + tail
    return text.encode("utf-8", "surrogateescape")  # "\udcff": the byte 0xff, not UTF-8


LONG_KIND = '{\n  "schema": "expected-divergences-v2",\n  "run": {"command": "x", "n": [1, 2.5, null, true]},\n  '


@pytest.mark.parametrize("shift", [0, 1])
def test_a_long_document_of_its_kind_is_judged_by_its_head_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 shift: int) -> None:
    """The kind is its "schema" member, read from the first bytes; nothing past them is read or parsed (a
    character cut at the end of the head, a two-byte é at either parity, is no refusal)."""
    from harness.model import untrusted

    def whole(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole file was read to learn its kind")

    monkeypatch.setattr(untrusted, "read_document", whole)
    path = tmp_path / "list.json"
    path.write_bytes(_long(LONG_KIND + " " * shift, filler="\u00e9"))
    atomic_write(path, NEW, replaces=KINDS)
    assert path.read_text() == NEW


def test_a_long_document_of_another_kind_is_refused_by_its_head(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.model import untrusted

    monkeypatch.setattr(untrusted, "read_document", lambda *args, **kwargs: pytest.fail("read whole"))
    path = tmp_path / "list.json"
    data = _long('{"schema": "divergence-report-v2", ')
    path.write_bytes(data)
    with pytest.raises(NotADocument, match=f'^{path}: a document of schema "divergence-report-v2", not a list'):
        atomic_write(path, NEW, replaces=KINDS, what="list of expected divergences")
    assert path.read_bytes() == data


LONG_NOT_DOCUMENTS = {  # a long file whose head does not show its kind (read whole then), or shows it is none
    "a README": (b"# My project\n\n" + b"Not JSON at all.\n" * 10_000, "not JSON"),
    "a JSON array": (b"[" + b"1, " * 50_000 + b"2]", "an array where an object is due"),
    "no schema": (_long("{"), 'a JSON object with no "schema"'),
    "another kind past the head": (_long("{", tail=', "schema": "divergence-report-v2"}'),
                                   'a document of schema "divergence-report-v2"'),
    "NaN before the schema": (_long('{"x": NaN, "schema": "expected-divergences-v2", '), "the token NaN"),
    "deep JSON before the schema": (_long('{"x": ' + "[" * 300 + "]" * 300 + ', "schema": "expected-divergences-v2", '),
                                    "levels of nested arrays"),
    "not UTF-8 in the head": (_long('{"schema": "expected-divergences-v2", "x": "\udcff", '), "not UTF-8"),
    "a byte order mark": (b"\xef\xbb\xbf" + _long('{"schema": "expected-divergences-v2", '), "byte order mark"),
    "a schema that is not a string": (_long('{"schema": ["expected-divergences-v2"], '), "a document of schema"),
}


@pytest.mark.parametrize("kind", list(LONG_NOT_DOCUMENTS))
def test_a_long_file_keeps_every_refusal(tmp_path: Path, kind: str) -> None:
    data, said = LONG_NOT_DOCUMENTS[kind]
    path = tmp_path / "list.json"
    path.write_bytes(data)
    with pytest.raises(NotADocument) as refused:
        atomic_write(path, NEW, replaces=KINDS, what="list of expected divergences")
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and said in message and "list of expected divergences" in message, message
    assert path.read_bytes() == data and sorted(p.name for p in tmp_path.iterdir()) == ["list.json"]


def test_a_long_document_whose_kind_is_past_its_head_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_bytes(_long("{", tail=', "schema": "expected-divergences-v1"}'))
    atomic_write(path, NEW, replaces=KINDS)
    assert path.read_text() == NEW
