"""Loading fixture files: the one place that knows the file layout (see docs/fixtures.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from . import hostvalues

ROOT = Path(__file__).resolve().parent.parent
FIXTURES_DIR = ROOT / "fixtures"


class FixtureFormatError(Exception):
    """A fixture file that cannot be read as a fixture; the message names the file and the problem."""


@dataclass(frozen=True)
class FixtureCase:
    fixture: str
    id: str
    op: str
    comment: str
    flags: tuple[str, ...]
    raw_args: dict[str, Any]  # JSON form (host-value encoding)
    expect: dict[str, Any]  # {"result": value} or {"error": code}

    @property
    def args(self) -> dict[str, Any]:
        """The Python host values to pass to a binding function."""
        return hostvalues.decode_args(self.raw_args)

    @property
    def full_id(self) -> str:
        return f"{self.fixture}/{self.id}"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise FixtureFormatError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise FixtureFormatError(f"{name} is not JSON")


def read_document(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and its strictly parsed document."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FixtureFormatError(f"{path}: cannot read: {exc}") from None
    try:
        document = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except (ValueError, FixtureFormatError) as exc:
        raise FixtureFormatError(f"{path}: not strict JSON: {exc}") from None
    if not isinstance(document, dict):
        raise FixtureFormatError(f"{path}: the top level must be an object")
    return text, document


def fixture_paths(directory: Path = FIXTURES_DIR) -> list[Path]:
    return sorted(p for p in directory.glob("*-v*.json") if not p.name.endswith(".schema.json"))


def load_cases(path: Path) -> list[FixtureCase]:
    _, document = read_document(path)
    try:
        return [
            FixtureCase(document["fixture"], t["id"], t["op"], t["comment"], tuple(t["flags"]), t["args"], t["expect"])
            for t in document["tests"]
        ]
    except (KeyError, TypeError) as exc:
        raise FixtureFormatError(f"{path}: malformed fixture ({exc!r}); run `python -m harness lint`") from None


def all_cases(directory: Path = FIXTURES_DIR) -> Iterator[FixtureCase]:
    for path in fixture_paths(directory):
        yield from load_cases(path)
