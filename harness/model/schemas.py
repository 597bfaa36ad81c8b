"""The project's JSON schemas (schemas/), one registry: a schema may refer to another by its file name
(every report's ``run`` is ``run-envelope-v1.schema.json``), and a document is validated against the
schema its own ``schema`` field names."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource

from harness.model.paths import SCHEMAS

BASE = "https://parity-harness.invalid/schemas/"


@cache
def _registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        resource = Resource.from_contents(json.loads(path.read_text(encoding="utf-8")))
        resources.append((BASE + path.name, resource))
        if resource.id() and resource.id() != BASE + path.name:  # protocol-v2 names itself by a short id
            resources.append((resource.id(), resource))
    return Registry().with_resources(resources)


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    """The validator of schemas/<name>.schema.json (``name`` as a document's ``schema`` field gives it)."""
    path = SCHEMAS / f"{name}.schema.json"
    if not path.is_file():
        raise KeyError(f"no schema {name!r} in {SCHEMAS}")
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")), registry=_registry(),
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def problems(document: Any, name: str | None = None) -> list[str]:
    """Each way ``document`` breaks its schema (``name``, or the one its ``schema`` field names), with where."""
    if name is None:
        name = document.get("schema") if isinstance(document, dict) else None
        if not isinstance(name, str):
            return ["the document names no schema (its 'schema' field)"]
    try:
        checker = validator(name)
    except KeyError as exc:
        return [str(exc.args[0])]
    return [f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
            for error in checker.iter_errors(document)]


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a draft 2020-12 JSON Schema, or None."""
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return str(exc.message)
    return None
