"""Every planted bug in harness/tools/mutants.py is caught by the fixture cases it names."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from harness.tools.mutants import REFERENCE_MUTATIONS, Mutation, apply, caught, run_mutation


@pytest.mark.parametrize("mutation", REFERENCE_MUTATIONS, ids=[m.name for m in REFERENCE_MUTATIONS])
def test_reference_mutation_caught(mutation: Mutation) -> None:
    missing = [name for name in mutation.needs if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (the `mutants` extra, which nox -s mutants installs and runs it with)")
    failing, output = run_mutation(mutation)
    assert caught(mutation, failing), f"{mutation.name}: failing cases {failing}, required {mutation.must_fail}\n" \
        f"{output[-3000:]}"


def test_caught_requires_every_named_case() -> None:
    mutation = REFERENCE_MUTATIONS[0]
    assert caught(mutation, list(mutation.must_fail) + ["other"])
    assert not caught(mutation, [])
    assert not caught(mutation, list(mutation.must_fail)[1:] + ["other"])
    assert not caught(mutation, list(mutation.must_fail), [])  # a second suite that saw nothing
    assert caught(mutation, None, list(mutation.must_fail))  # None: that suite cannot see it


def test_every_planted_edit_applies_once_to_todays_sources() -> None:
    """A mutation or plant whose text no longer occurs exactly once would fail only in `nox -s mutants` or a
    plants run; this keeps them in step with every edit of the code they plant into."""
    from harness.model.paths import ROOT
    from harness.tools.mutants import RUST_MUTATIONS, WASM_MUTATIONS
    from harness.tools.plants import PLANTS

    edits = [*RUST_MUTATIONS, *WASM_MUTATIONS, *REFERENCE_MUTATIONS,
             *(plant.mutation for plant in PLANTS if plant.mutation is not None)]
    assert len(edits) > 60
    stale = [f"{m.name}: {m.file}: {old[:60]!r} occurs {(ROOT / m.file).read_text().count(old)} times"
             for m in edits for old, _ in ((m.old, m.new), *m.more)
             if (ROOT / m.file).read_text().count(old) != 1]
    assert not stale, "\n".join(stale)


def test_the_trace_plants_verdict_fails_each_way_it_can() -> None:
    from harness.tools.trace_plants import PLANTS, verdicts

    def result(parting: str | None, problems: list[str], untouched: str | None = None) -> dict[str, object]:
        return {"witness": {"parting": parting, "problems": problems},
                "untouched": {"parting": untouched, "problems": []}}

    good = [result(plant.step, []) for plant in PLANTS]
    assert all(line.startswith("ok") for line in verdicts(good))
    for broken, words in [(result("ctx.output", []), "part at ctx.output"),
                          (result(None, []), "part at None"),
                          (None, "the planted trace: x"),
                          (result(PLANTS[0].step, [], untouched="norm.nfc"), "does not reach parts at norm.nfc")]:
        bad = list(good)
        bad[0] = broken if broken is not None else result(PLANTS[0].step, ["x"])
        line = verdicts(bad)[0]
        assert line.startswith("FAIL") and words in line, line


def test_a_planted_build_never_rides_along_into_the_next(tmp_path: Path) -> None:
    """Planted builds share cargo target folders. A scratch copy of rust_core/ keeping its files' times looks
    older than the last planted build, so cargo kept that build's planted file: a CI plant run showed one
    plant's bug in the next plant's build. copy_rust_core stamps the copy; the old copy is shown stale here."""
    import os
    import shutil
    import subprocess

    from harness.tools.mutants import ROOT, RUST_MUTATIONS, copy_rust_core, link_rust_core_reads

    if shutil.which("cargo") is None:
        pytest.skip("cargo is not on PATH (nox -s rust and the mutants session have it)")
    mutation = next(m for m in RUST_MUTATIONS if m.name == "white-space-accepts-u001c-u001f")
    target = tmp_path / "target"

    def white_space_test(copy: Any, planted: bool, name: str) -> bool:
        tree = tmp_path / name
        copy(tree / "rust_core")
        if planted:
            apply(mutation, tree)
        proc = subprocess.run(["cargo", "test", "-q", "--manifest-path", str(tree / "rust_core" / "Cargo.toml"),
                               "-p", "memgate-core", "--lib", "white_space_set"], capture_output=True, text=True,
                              env=dict(os.environ, CARGO_TARGET_DIR=str(target)), timeout=600, check=False)
        # A failure must be the planted test's, never a copy that does not compile (it would pass every
        # `assert not` below for the wrong reason).
        assert "could not compile" not in proc.stderr, proc.stderr[-3000:]
        return proc.returncode == 0

    def keeping_times(dest: Path) -> None:
        shutil.copytree(ROOT / "rust_core", dest, ignore=shutil.ignore_patterns("target"))
        link_rust_core_reads(dest)

    assert not white_space_test(keeping_times, True, "a")
    assert not white_space_test(keeping_times, False, "b")  # stale: the planted build again
    assert not white_space_test(copy_rust_core, True, "c")
    assert white_space_test(copy_rust_core, False, "d")  # rebuilt from the clean copy
