"""The GitHub Actions workflow (.github/workflows/parity.yml): it passes its checker, the checker fails on
errors planted in a copy of it, and it says what the README and the nox sessions say (the same set-up
commands, one shard job per shard, merges that fail only on a new class)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.tools import actionlint

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "parity.yml"
UPLOAD = "uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0"
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1"
IMAGE = "debian:bookworm-20260918@sha256:f37a335e82bca302e955fa39f9dfe28f1be618f016f8a2b56318e5a5111afc26"
SETUP_PYTHON = ("      - uses: actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97  # v7.0.0\n"
                "        with:\n          python-version: ${{ matrix.python }}\n")


def _planted(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = WORKFLOW.read_text(encoding="utf-8")
    assert old in text, old
    (folder / "parity.yml").write_text(text.replace(old, new, 1), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # actionlint finds a project by its .git
    return folder


@pytest.fixture(scope="module")
def linter() -> Path:
    found = actionlint.actionlint()
    if found is None:
        why = "no actionlint: Go is missing, or `go install` failed (harness/tools/actionlint.py says which)"
        if os.environ.get("CI") == "true" and shutil.which("go"):
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return found


def test_the_workflow_passes_actionlint(linter: Path) -> None:
    assert actionlint.main([str(WORKFLOW.parent)]) == 0


@pytest.mark.parametrize("old, new", [
    ("${{ matrix.shard }}/${{ env.SWEEP_SHARDS }}", "${{ matrix.shardd }}/${{ env.SWEEP_SHARDS }}"),  # no such key
    ("needs: sweep", "needs: sweeps"),  # no such job
    (UPLOAD, UPLOAD + "\n        with2: {}"),  # no such key
])
def test_actionlint_fails_a_planted_error(linter: Path, tmp_path: Path, old: str, new: str) -> None:
    assert actionlint.main([str(_planted(tmp_path, old, new))]) == 1


def test_the_fallback_schema_check_passes_the_workflow_and_fails_a_broken_shape(tmp_path: Path) -> None:
    import sys

    if shutil.which("check-jsonschema") is None and not (Path(sys.executable).parent / "check-jsonschema").is_file():
        pytest.skip("no check-jsonschema (the test extra installs it)")
    assert actionlint.main([str(WORKFLOW.parent)], use_actionlint=False) == 0
    broken = _planted(tmp_path, f"    container: {IMAGE}\n    timeout-minutes: 60\n",
                      "    timeout-minutes: sixty\n")
    assert actionlint.main([str(broken)], use_actionlint=False) == 1


def _readme_block(heading: str) -> list[str]:
    done = subprocess.run(["bash", str(ROOT / ".ci" / "readme-commands"), heading], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip().splitlines()


def test_the_workflow_sets_up_and_tests_as_the_readme_says() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    for line in _readme_block("Set up"):
        assert f"          {line}\n" in text, line
    assert "run: .tools/bin/nox -s parity" in text and "run: .tools/bin/nox -s tests" in text
    assert ".tools/bin/nox -s lint" in text


def test_one_shard_job_per_shard_and_merges_that_fail_only_on_a_new_class() -> None:
    import re

    text = WORKFLOW.read_text(encoding="utf-8")
    for kind, env in (("sweep", "SWEEP_SHARDS"), ("fuzz", "FUZZ_SHARDS")):
        count = int(re.search(rf'{env}: "(\d+)"', text).group(1))
        block = text[text.index(f"\n  {kind}:\n"):]
        shards = re.search(r"shard: \[([0-9, ]+)\]", block).group(1)
        assert [int(s) for s in shards.split(",")] == list(range(1, count + 1)), kind
        assert f"--merge shards/{kind}-report-*.json" in text
    # A shard's own status 1 (something new) is left to the merge, any other status fails the shard; the
    # merge's status fails its job.
    assert text.count("|| status=$?") == 2 and text.count('[ "$status" -le 1 ] || exit "$status"') == 2


# --- the project's own rules (harness/tools/workflow_rules.py) and zizmor ----------------------------

def test_the_workflow_keeps_the_projects_rules() -> None:
    from harness.tools import workflow_rules

    assert workflow_rules.problems(workflow_rules.load(WORKFLOW)) == []
    assert workflow_rules.main([str(WORKFLOW)]) == 0


@pytest.mark.parametrize("old, new, rule", [
    (CHECKOUT, "actions/checkout@v4", "pinned-actions"),  # a tag, not a commit
    (CHECKOUT, CHECKOUT.split("  #")[0], "pinned-actions"),  # a commit without its release named
    ("FUZZ_SEED: ${{ github.event.inputs.fuzz_seed || github.run_id }}", 'FUZZ_SEED: "20261202"', "fuzz-seed"),
    ('--seed "$FUZZ_SEED"', "", "fuzz-seed"),  # shards that would not share one campaign
    ("if: ${{ !cancelled() && needs.sweep.result != 'skipped' }}", "if: needs.sweep.result != 'skipped'",
     "merges-always-run"),
    ("persist-credentials: false", "persist-credentials: true", "checkout-credentials"),
    (f"container: {IMAGE}", "container: debian:bookworm", "image-digest"),
    ("          retention-days: 3\n", "", "shards-expire"),
    ("cancel-in-progress: ${{ github.event_name == 'pull_request' }}", "cancel-in-progress: true",
     "main-never-cancelled"),
    # Issue 52: setup-python's Pythons (built for Ubuntu 24.04, glibc 2.38) in the Debian 12 container.
    ("      - &setup\n", SETUP_PYTHON + "      - &setup\n", "no-setup-python-in-container"),
    # Node: one version, named once, a supported LTS.
    ('NODE_VERSION: "24"', 'NODE_VERSION: "20"', "node-lts-once"),  # past its end of life (April 2026)
    ('NODE_VERSION: "24"', 'NODE_VERSION: "25"', "node-lts-once"),  # not an LTS line
    ("node-version: ${{ env.NODE_VERSION }}", 'node-version: "24"', "node-lts-once"),  # a second literal
    ("node-version: ${{ env.NODE_VERSION }}", "node-version: ${{ env.NODE }}", "node-lts-once"),
    ("    timeout-minutes: 20\n    steps:", "    timeout-minutes: 20\n    env:\n      NODE_VERSION: \"22\"\n"
     "    steps:", "node-lts-once"),  # set again in a job
    ("      - name: nox -s parity-node (", "      - name: nox -s parity-node on Node 22 (", "node-lts-once"),
])
def test_each_rule_fails_its_planted_fault(tmp_path: Path, old: str, new: str, rule: str) -> None:
    from harness.tools import workflow_rules

    planted = _planted(tmp_path, old, new) / "parity.yml"
    found = workflow_rules.problems(workflow_rules.load(planted))
    assert {name for name, _ in found} == {rule}, found
    assert workflow_rules.main([str(planted)]) == 1


def test_setup_python_is_refused_in_a_container_job_at_any_ref_and_kept_outside_one(tmp_path: Path) -> None:
    from harness.tools import workflow_rules

    for ref in ("v5", "main", "5fda3b95a4ea91299a34e894583c3862153e4b97"):
        planted = _planted(tmp_path / ref, "      - &setup\n", SETUP_PYTHON.replace(
            "5fda3b95a4ea91299a34e894583c3862153e4b97  # v7.0.0", ref) + "      - &setup\n") / "parity.yml"
        found = workflow_rules.problems(workflow_rules.load(planted))
        assert "no-setup-python-in-container" in {name for name, _ in found}, (ref, found)
        assert any("parity: `uses: actions/setup-python@" in problem for _, problem in found), found
    # The sweep-needed job runs on the runner itself (no container): setup-python is its business there.
    outside = _planted(tmp_path / "outside", "    steps:\n      - name: Was this commit swept already?\n",
                       "    steps:\n" + SETUP_PYTHON + "      - name: Was this commit swept already?\n") / "parity.yml"
    assert workflow_rules.problems(workflow_rules.load(outside)) == []


def test_the_node_version_is_judged_against_its_lines_end_of_life() -> None:
    from datetime import date

    from harness.tools import workflow_rules

    flow = workflow_rules.load(WORKFLOW)
    assert list(workflow_rules._node_lts_once(flow, today=date(2028, 4, 30))) == []
    late = list(workflow_rules._node_lts_once(flow, today=date(2028, 5, 1)))
    assert len(late) == 1 and "Node 24 reached its end of life on 2028-04-30" in late[0], late


def test_a_file_that_is_not_a_workflow_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.tools import workflow_rules

    for text in ("jobs: [1, 2", "name: no jobs\n"):
        path = tmp_path / "broken.yml"
        path.write_text(text, encoding="utf-8")
        assert workflow_rules.main([str(path)]) == 2
        assert "broken.yml" in capsys.readouterr().err


def _zizmor() -> str:
    import sys

    beside = Path(sys.executable).parent / "zizmor"
    found = str(beside) if beside.is_file() else shutil.which("zizmor")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no zizmor: the test extra installs it (pyproject.toml)", pytrace=False)
        pytest.skip("no zizmor (the test extra installs it)")
    return found


def test_zizmor_passes_the_workflow_and_fails_an_unpinned_action(tmp_path: Path) -> None:
    zizmor = _zizmor()
    clean = subprocess.run([zizmor, "--offline", "--persona", "pedantic", str(WORKFLOW)], capture_output=True,
                           text=True, check=False)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    planted = _planted(tmp_path, CHECKOUT, "actions/checkout@v4") / "parity.yml"
    found = subprocess.run([zizmor, "--offline", str(planted)], capture_output=True, text=True, check=False)
    assert found.returncode != 0 and "unpinned-uses" in found.stdout + found.stderr


def test_the_dependabot_config_proposes_action_updates() -> None:
    from ruamel.yaml import YAML

    config = YAML(typ="safe", pure=True).load((ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    assert config["version"] == 2
    assert any(u["package-ecosystem"] == "github-actions" and u["directory"] == "/" for u in config["updates"])
    import sys

    checker = Path(sys.executable).parent / "check-jsonschema"
    if checker.is_file():  # the schema Dependabot's own docs publish, vendored in check-jsonschema
        done = subprocess.run([str(checker), "--builtin-schema", "vendor.dependabot",
                               str(ROOT / ".github" / "dependabot.yml")], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


# --- the baseline's lookup (harness/tools/last_run.py), against a local server -------------------------

def _serve(tmp_path: Path, body: bytes) -> tuple[str, object]:
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        seen: list[str] = []

        def do_GET(self) -> None:
            Handler.seen.append(self.path + " " + str(self.headers.get("Authorization")))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", (server, Handler)


@pytest.mark.parametrize("runs, want", [
    ([{"id": 41, "html_url": "https://github.com/o/r/actions/runs/41"}], (41, "https://github.com/o/r/actions/runs/41")),
    # The current run is never its own baseline; ids that are not positive integers and pages that are not
    # https URLs are skipped.
    ([{"id": 99, "html_url": "https://x/99"}, {"id": True, "html_url": "https://x/t"},
      {"id": "7", "html_url": "https://x/7"}, {"id": 8, "html_url": "javascript:alert(1)"},
      {"id": 40, "html_url": "https://x/40"}], (40, "https://x/40")),
    ([], "no successful run"),
    ("not a list", "no successful run"),
])
def test_the_last_successful_run_is_found_or_said_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          runs: object, want: object) -> None:
    import json

    from harness.tools import last_run

    api, (server, handler) = _serve(tmp_path, json.dumps({"workflow_runs": runs}).encode())
    try:
        found = last_run.last_success(api, "o/r", "parity.yml", "main", "TOKEN", exclude=99)
    finally:
        server.shutdown()
    if isinstance(want, str):
        assert isinstance(found, str) and want in found
    else:
        assert found == want
    assert "branch=main" in handler.seen[0] and "status=success" in handler.seen[0]
    assert handler.seen[0].endswith("Bearer TOKEN")


def test_no_baseline_is_status_0_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from harness.tools import last_run

    api, (server, _) = _serve(tmp_path, b"{not json")
    try:
        assert last_run.main(["--api", api, "--repo", "o/r", "--workflow", "parity.yml", "--branch", "main"]) == 0
    finally:
        server.shutdown()
    captured = capsys.readouterr()
    assert captured.out == "" and "no baseline: the API's answer is not a list of workflow runs" in captured.err
    assert last_run.main(["--api", "http://127.0.0.1:9", "--repo", "o/r", "--workflow", "p.yml",
                          "--branch", "main"]) == 0
    assert "the API did not answer" in capsys.readouterr().err


def test_the_workflow_runs_every_check_ci_run_runs() -> None:
    """Issue 36: the README said the workflow runs .ci/run's commands, and five of its checks were missing.
    Every nox session .ci/run names (and its README blocks: set-up, main job, tests) is a step of the workflow,
    and so is the reports check."""
    import re

    session = re.compile(r"nox -s ([a-z][a-z0-9-]*)")
    ci = set(session.findall((ROOT / ".ci" / "run").read_text(encoding="utf-8")))
    for heading in ("Set up", "Main job", "Tests"):
        ci |= set(session.findall("\n".join(_readme_block(heading))))
    workflow = WORKFLOW.read_text(encoding="utf-8")
    ran = set(session.findall(workflow))
    if 'nox -s "parity-$PYTHON"' in workflow:  # nox -s parity is its three sessions, one per job of the matrix
        ran.add("parity")
    assert ci and ci <= ran, sorted(ci - ran)
    assert "harness.tools.reports_check reports" in workflow
