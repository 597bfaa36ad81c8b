"""The Rust tests compile the core as it ships: no test crate turns on, through cargo's feature
unification, a feature of the core's dependencies that the PyO3 or the WASM build lacks
(harness/tools/cargo_features.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from harness.tools import cargo_features

ROOT = Path(__file__).resolve().parents[2]

if shutil.which("cargo") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("cargo is not on PATH; CI needs it for the feature-unification check")
    pytest.skip("cargo is not on PATH", allow_module_level=True)


def test_every_test_build_compiles_the_core_as_it_ships() -> None:
    assert cargo_features.problems() == []


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(ROOT / "rust_core", tmp_path / "rust_core", ignore=shutil.ignore_patterns("target")))


def test_a_feature_only_a_test_crate_asks_for_is_named(tmp_path: Path) -> None:
    """The bug of issue 18: float_roundtrip removed from the core, kept by the fixture-test crate for
    itself; every fixture case still passes in `cargo test`, while the shipped builds read numbers
    another way."""
    workspace = _copy(tmp_path)
    manifest = workspace / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace('features = ["float_roundtrip", "raw_value"]',
                                                     'features = ["raw_value"]'))
    tests = workspace / "fixture-tests" / "Cargo.toml"
    tests.write_text(tests.read_text().replace(
        "serde_json.workspace = true", 'serde_json = { version = "1", features = ["float_roundtrip", "raw_value"] }'))
    found = cargo_features.problems(workspace)
    assert found and all("serde_json" in line and "float_roundtrip" in line for line in found), found
    assert any("memgate-rs" in line for line in found) and any("memgate-wasm" in line for line in found)
    assert all("memgate-fixture-tests" in line for line in found)
