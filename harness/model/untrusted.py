"""The one reader of untrusted JSON: testee lines, reports, declarations, expected lists, checkpoints,
fixtures. Everything a testee or a file sends goes through ``loads`` (or ``read_document``), which is

* bounded: at most ``MAX_DEPTH`` levels of nested arrays and objects (the depth rule of the contract's
  own JSON arguments, docs/contract.md section 4) in a value, ``DOCUMENT_DEPTH`` in a document the harness
  writes (a report holds values a testee sent, ``clip``ped to ``VALUE_DEPTH``, inside its own structure),
  and at most ``max_bytes`` of text;
* strict: the ``NaN``, ``Infinity`` and ``-Infinity`` tokens Python's json module takes are refused (they
  are not JSON), and so are duplicate keys where the caller asks (files: ``unique_keys``);
* shaped: ``want=dict`` refuses anything but an object at the top.

Every file is opened by ``open_regular`` (behind ``read_bounded``, ``read_document``, ``read_lines``): a
regular file only, never waited on (a named pipe, a device, a socket, a folder or a link to one is refused
unopened, and what was opened is looked at again), and no bigger than its kind's limit (``LIMITS``, looked at
before anything is read; the read stops one byte past it).

What it refuses is a ``Refused`` (a ValueError) naming the problem and its kind; the caller turns it
into the verdict of its place: a finding for a testee's line, status 2 naming the file for a file
(``read_document`` raises ``BadDocument``, a UsageError, itself). A nesting too deep for Python's
parser (its recursion limit) is caught here too, never a RecursionError reaching a caller.

Pure standard library: the protocol's server side imports it inside Pyodide.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from harness.model.status import UsageError

MAX_DEPTH = 100  # levels of nested arrays and objects
VALUE_DEPTH = MAX_DEPTH + 1  # a testee's value kept in a document: one level past the contract's limit shows it broken
DOCUMENT_DEPTH = 2 * MAX_DEPTH  # a document: its own structure around values of at most VALUE_DEPTH
MAX_FILE_BYTES = 1 << 30  # the most text ``loads`` takes from a file already read within its kind's limit

MiB = 1 << 20
# kind (the ``what`` a reader names) -> the largest file of it read, in bytes; a bigger one is refused by its
# size alone, unread. README.md ("Files the harness reads and writes") lists them.
LIMITS = {
    "declaration": 1 * MiB,  # a few hundred bytes
    "family file": 4 * MiB,
    "contract": 4 * MiB,  # an op family's specification (docs/contract.md: about 60 KB)
    "fixture schema": 4 * MiB,
    "fixture": 64 * MiB,
    "list of expected divergences": 16 * MiB,
    "run summary": 16 * MiB,  # a few KB per hundred classes
    "Unicode table": 64 * MiB,  # about 90 KB each
    "normalization test file": 16 * MiB,  # bz2, about 400 KB
    "report": 256 * MiB,  # a sweep report of every code point is far below
    "JUnit XML file": 256 * MiB,  # a parity run's is a few MB
    "sweep checkpoint": 256 * MiB,
    "document": 256 * MiB,  # any other kind (a document about to be replaced, a tool's input)
}

# kind -> what it means (a testee line refused with one of these is the finding `not_json`, except
# `not_object`/`wrong_type`, which the client names `malformed_answer`).
KINDS = {
    "not_json": "not JSON text",
    "not_utf8": "bytes that are not UTF-8",
    "constant": "a NaN, Infinity or -Infinity token (not JSON)",
    "too_deep": f"more than {MAX_DEPTH} levels of nested arrays and objects",
    "too_big": "more bytes than the limit",
    "duplicate_key": "an object with the same key twice",
    "not_object": "JSON, but not an object where an object is due",
    "bom": "a byte order mark before the JSON text",
}


class Refused(ValueError):
    """Untrusted JSON refused: ``kind`` (a key of KINDS) and a message that says what and where."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class BadDocument(UsageError, ValueError):
    """A file the harness reads as a document that is not one (status 2, the file and the problem named)."""


def _constant(name: str) -> Any:
    raise Refused("constant", f"the token {name} (not JSON)")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise Refused("duplicate_key", f"the key {json.dumps(key)[:80]} twice in one object")
        result[key] = value
    return result


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a parsed value nests more than ``limit`` arrays and objects (iteratively: no recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in (item.values() if isinstance(item, dict) else item):
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def clip(value: Any, limit: int = VALUE_DEPTH) -> Any:
    """``value`` with every array or object below ``limit`` levels replaced by a string saying what was cut:
    a testee's value put into a document the harness writes stays within what its readers take
    (``DOCUMENT_DEPTH``). Recursion is bounded by ``limit``."""
    if not isinstance(value, (dict, list)):
        return value
    if limit <= 0:
        return f"(cut: {type_name(value)} nested deeper than the harness keeps)"
    if isinstance(value, dict):
        return {key: clip(child, limit - 1) for key, child in value.items()}
    return [clip(child, limit - 1) for child in value]


def _brackets(text: str) -> int:
    return text.count("[") + text.count("{")


def loads(text: str | bytes, *, want: type | None = None, max_bytes: int | None = None,
          unique_keys: bool = False, max_depth: int | None = MAX_DEPTH) -> Any:
    """The value of one untrusted JSON text, or Refused. ``want=dict``: an object at the top.
    ``max_depth=None`` leaves the depth to the caller's shape checks (a testee's answer lines, whose every
    field the client checks against the protocol): only what Python's parser cannot hold is refused."""
    if max_bytes is not None and len(text) > max_bytes:
        raise Refused("too_big", f"{len(text):,} bytes, more than the limit of {max_bytes:,}")
    if isinstance(text, bytes):  # UTF-8 only (json.loads would guess UTF-16 and -32, and skip a BOM)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused("not_utf8", f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if text[:1] == "\ufeff":
        raise Refused("bom", "a byte order mark (U+FEFF) before the JSON text")
    try:
        value = json.loads(text, parse_constant=_constant, object_pairs_hook=_unique if unique_keys else None)
    except Refused:
        raise
    except RecursionError:
        raise Refused("too_deep", "nesting deeper than the parser's limit "
                      f"(more than {max_depth or MAX_DEPTH} levels)") from None
    except ValueError as exc:
        raise Refused("not_json", f"not JSON ({exc})") from None
    if max_depth is not None and _brackets(text) > max_depth and too_deep(value, max_depth):
        raise Refused("too_deep", f"more than {max_depth} levels of nested arrays and objects")
    if want is not None and not isinstance(value, want):
        raise Refused("not_object", f"JSON, but {type_name(value)} where {type_name(want())} is due")
    return value


def brief(value: Any, limit: int = 200) -> str:
    """The first characters of a parsed value's JSON, for evidence; never raises (a value too deep to
    write, or not JSON, is said so)."""
    try:
        return json.dumps(value, ensure_ascii=True)[:limit]
    except (RecursionError, ValueError, TypeError):
        return f"({type_name(value)} too deep or too odd to show)"


def type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def limit_of(what: str) -> int:
    """The largest file of kind ``what`` the harness reads (``LIMITS``; any other kind: a ``document``'s)."""
    return LIMITS.get(what, LIMITS["document"])


def _file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, said in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return said
    return "not a regular file"


def _not_regular(path: Path, what: str, mode: int) -> BadDocument:
    link = ""
    if os.path.islink(path):
        link = f"a symbolic link to {os.path.realpath(path)}, "
    return BadDocument(f"{path}: not a {what}: {link}{_file_kind(mode)}, not a regular file; the harness reads a "
                       f"{what} only from a regular file")


def open_regular(path: Path, what: str, max_bytes: int | None = None) -> BinaryIO:
    """``path`` opened for reading (unbuffered), refused (BadDocument, status 2, naming the file and what it is)
    unless it is a regular file of at most ``max_bytes`` (default: the limit of its kind, ``limit_of``). Never
    blocks: a named pipe, a device, a socket, a folder or a link to one is refused before it is opened (stat)
    and again after (fstat of what was opened, against a swap in between; the open itself does not wait,
    O_NONBLOCK, which is cleared once it is known to be a regular file). The size is looked at, never read."""
    limit = limit_of(what) if max_bytes is None else max_bytes
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise BadDocument(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise _not_regular(path, what, mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise BadDocument(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise _not_regular(path, what, found.st_mode)
        if found.st_size > limit:
            raise BadDocument(f"{path}: not a {what}: {found.st_size:,} bytes, more than the limit of {limit:,} "
                              f"for a {what}")
        try:
            os.set_blocking(fd, True)
        except (OSError, AttributeError):  # a regular file never waits anyway
            pass
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: Path, what: str, max_bytes: int | None = None) -> bytes:
    """A regular file's bytes (``open_regular``), refused (BadDocument naming the file and what it should be)
    when it cannot be read, is no regular file or holds more than ``max_bytes`` (default: the limit of its
    kind, ``LIMITS``): the size is looked at before anything is read, and the read stops one byte past the
    limit (a file that grew since is refused too)."""
    limit = limit_of(what) if max_bytes is None else max_bytes
    with open_regular(path, what, limit) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            chunks: list[bytes] = []
            got, want = 0, min(size, limit) + 1  # one read of what fstat said (plus one byte), then 1 MiB at a time
            while got <= limit:
                chunk = handle.read(min(want, limit + 1 - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
                want = 1 << 20
        except OSError as exc:
            raise BadDocument(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    if got > limit:
        raise BadDocument(f"{path}: not a {what}: more than the limit of {limit:,} bytes for a {what}")
    return b"".join(chunks)


def read_document(path: Path, what: str = "document", *, unique_keys: bool = False,
                  max_bytes: int | None = None, max_depth: int = DOCUMENT_DEPTH) -> dict[str, Any]:
    """A file that must hold one JSON object, read through ``loads``; BadDocument names the file, what it
    should be and the problem (unreadable, not UTF-8, not JSON, too deep, not an object)."""
    data = read_bounded(path, what, max_bytes)
    try:
        return loads(data, want=dict, unique_keys=unique_keys, max_depth=max_depth)
    except Refused as exc:
        raise BadDocument(f"{path}: not a {what}: {exc}") from None


def read_lines(path: Path, what: str, max_bytes: int | None = None) -> list[tuple[int, str, dict[str, Any] | Refused]]:
    """A JSON-lines file (read as ``read_bounded`` reads): each non-empty line as (number, text, its object or
    why it was refused)."""
    data = read_bounded(path, what, max_bytes)
    out: list[tuple[int, str, dict[str, Any] | Refused]] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        text = raw.decode("utf-8", "replace")
        try:
            out.append((number, text, loads(raw, want=dict, max_depth=DOCUMENT_DEPTH)))
        except Refused as exc:
            out.append((number, text, exc))
    return out
