"""Fixture generators: one module per fixture version. Expectations come from the reference only."""

from __future__ import annotations

from .dedup_context_v1 import SPEC as DEDUP_CONTEXT_V1
from .framework import FixtureSpec
from .write_gate_v1 import SPEC as WRITE_GATE_V1

FIXTURES: dict[str, FixtureSpec] = {spec.name: spec for spec in (WRITE_GATE_V1, DEDUP_CONTEXT_V1)}
