"""Fixture lint: schema, ids, counts, flags, canonical bytes, and agreement with a fresh regeneration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from .fixtures import FIXTURES_DIR, FixtureFormatError, fixture_paths, read_document
from .hostvalues import decode


def _canonical(document: Any) -> str:
    # Imported lazily: generators import harness, not the other way round at import time.
    from generators.framework import canonical

    return canonical(document)


def _plain_strings_with_surrogates(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    if isinstance(value, dict):
        return any(_plain_strings_with_surrogates(v) for v in value.values())
    if isinstance(value, list):
        return any(_plain_strings_with_surrogates(v) for v in value)
    return False


def lint_file(path: Path, regenerate: bool = True) -> list[str]:
    """Every problem found in one fixture file (empty list: clean)."""
    try:
        text, document = read_document(path)
    except FixtureFormatError as exc:
        return [str(exc)]
    problems: list[str] = []
    name = path.name
    schema_ref = document.get("schema")
    schema_path = (path.parent / schema_ref) if isinstance(schema_ref, str) else None
    if schema_path is None or not schema_path.is_file():
        problems.append(f"{name}: names schema {schema_ref!r}, which does not exist next to it")
    else:
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        validator = jsonschema.Draft202012Validator(schema)
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            problems.append(f"{name}: schema: at {where}: {error.message[:300]}")
    if problems:
        return problems  # the checks below assume the schema holds

    if document["fixture"] != path.stem:
        problems.append(f"{name}: names itself {document['fixture']!r}; the file name says {path.stem!r}")
    if not document["fixture"].endswith(f"-v{document['version']}"):
        problems.append(f"{name}: version {document['version']} does not match the name {document['fixture']!r}")
    tests = document["tests"]
    if document["numberOfTests"] != len(tests):
        problems.append(f"{name}: numberOfTests is {document['numberOfTests']}, the file has {len(tests)} tests")
    seen: set[str] = set()
    used_flags: set[str] = set()
    for test in tests:
        if test["id"] in seen:
            problems.append(f"{name}: duplicate test id {test['id']!r}")
        seen.add(test["id"])
        for flag in test["flags"]:
            used_flags.add(flag)
            if flag not in document["notes"]:
                problems.append(f"{name}: {test['id']}: flag {flag!r} has no note")
        if _plain_strings_with_surrogates(test["args"]) or _plain_strings_with_surrogates(test["expect"]):
            problems.append(f"{name}: {test['id']}: lone surrogate in a plain string; use the $utf16 form")
        for arg, value in test["args"].items():
            try:
                decode(value)
            except ValueError as exc:
                problems.append(f"{name}: {test['id']}: argument {arg}: {exc}")
    for flag in sorted(set(document["notes"]) - used_flags):
        problems.append(f"{name}: note for flag {flag!r}, which no test uses")
    if not text.isascii():
        problems.append(f"{name}: not ASCII-only (canonical form escapes every non-ASCII character)")
    if _canonical(document) != text:
        problems.append(f"{name}: not in canonical form (regenerate it; never edit fixtures by hand)")

    if regenerate:
        from generators import FIXTURES
        from generators.framework import GeneratorError, render

        spec = FIXTURES.get(document["fixture"])
        if spec is None:
            problems.append(f"{name}: no generator for {document['fixture']!r} in generators.FIXTURES")
        else:
            try:
                if render(spec) != text:
                    problems.append(
                        f"{name}: differs from a fresh regeneration (`python -m generators check {spec.name}` shows the diff)"
                    )
            except GeneratorError as exc:
                problems.append(f"{name}: the generator fails: {exc}")
    return problems


def lint(directory: Path = FIXTURES_DIR, regenerate: bool = True) -> list[str]:
    paths = fixture_paths(directory)
    if not paths:
        return [f"no fixture files in {directory}"]
    problems: list[str] = []
    for path in paths:
        problems += lint_file(path, regenerate=regenerate)
    return problems
