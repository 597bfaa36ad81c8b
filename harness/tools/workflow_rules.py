"""The project's own rules for its GitHub Actions workflow, beside actionlint and zizmor, in `nox -s lint`.

    python -m harness.tools.workflow_rules [WORKFLOW ...]   default: every .github/workflows/*.yml

What a workflow people copy must hold that neither linter checks (or checks only online): each rule is a row
of ``RULES``, with the id a problem is printed under. Exit statuses: 0 the workflows keep every rule, 1 a rule
is broken (each problem printed, named by file, job and rule), 2 a file that is not a workflow (named), 3 no
YAML reader (ruamel.yaml, which the lint session and the test extra bring).
YAML anchors are expanded as GitHub expands them, so a rule sees every step where it runs.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from harness.tools.actionlint import WORKFLOWS

SHA = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")
RELEASE_COMMENT = re.compile(r"uses:\s*(\S+)\s+#\s*v\d+(\.\d+){0,2}\b")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


@dataclass(frozen=True)
class Workflow:
    path: Path
    text: str
    document: dict[str, Any]

    def jobs(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for name, job in (self.document.get("jobs") or {}).items():
            if isinstance(job, dict):
                yield str(name), job

    def steps(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for name, job in self.jobs():
            for step in job.get("steps") or []:
                if isinstance(step, dict):
                    yield name, step


def _pinned(flow: Workflow) -> Iterator[str]:
    for job, step in flow.steps():
        uses = str(step.get("uses", ""))
        if uses and not uses.startswith(("./", "docker://")) and not SHA.match(uses):
            yield f"{job}: `uses: {uses}` is not pinned to a full commit SHA"
    for number, line in enumerate(flow.text.splitlines(), 1):
        if re.match(r"\s*(-\s+)?uses:\s*\S+@[0-9a-f]{40}\s*$", line):
            yield f"line {number}: a pinned action without the release it is (`# vX.Y.Z` after the SHA)"


def _checkout_credentials(flow: Workflow) -> Iterator[str]:
    for job, step in flow.steps():
        if str(step.get("uses", "")).startswith("actions/checkout@") and \
                (step.get("with") or {}).get("persist-credentials") is not False:
            yield f"{job}: a checkout that keeps the token in .git/config (persist-credentials: false)"


def _image_digest(flow: Workflow) -> Iterator[str]:
    for job, spec in flow.jobs():
        container = spec.get("container")
        image = container.get("image") if isinstance(container, dict) else container
        if image is not None and not DIGEST.search(str(image)):
            yield f"{job}: container image `{image}` is not pinned by digest (@sha256:...)"


def _fuzz_seed(flow: Workflow) -> Iterator[str]:
    """A campaign's seed is new each run: a constant one reruns the same inputs every night."""
    for where, env in [("workflow", flow.document.get("env") or {}),
                       *((job, spec.get("env") or {}) for job, spec in flow.jobs())]:
        seed = env.get("FUZZ_SEED")
        if seed is not None and "github.run_id" not in str(seed):
            yield f"{where}: FUZZ_SEED is {seed!r}, not the run's id (github.run_id): every run fuzzes the same inputs"
    for job, step in flow.steps():
        run = str(step.get("run", ""))
        if re.search(r"harness fuzz\b", run) and "--shard" in run and "$FUZZ_SEED" not in run:
            yield f"{job}: a fuzz shard without --seed \"$FUZZ_SEED\": its shards would not share one campaign"


def _merges_always_run(flow: Workflow) -> Iterator[str]:
    """A job that merges a matrix's shards runs when any finished, so one failed shard hides none."""
    matrices = {name for name, job in flow.jobs() if "shard" in ((job.get("strategy") or {}).get("matrix") or {})}
    for name, job in flow.jobs():
        needs = job.get("needs") or []
        needs = [needs] if isinstance(needs, str) else needs
        if any(need in matrices for need in needs) and "!cancelled()" not in str(job.get("if", "")):
            yield f"{name}: merges shards but skips when one failed (if: ${{{{ !cancelled() }}}})"


def _shards_expire(flow: Workflow) -> Iterator[str]:
    for name, job in flow.jobs():
        if "shard" not in ((job.get("strategy") or {}).get("matrix") or {}):
            continue
        for step in job.get("steps") or []:
            if str(step.get("uses", "")).startswith("actions/upload-artifact@") and \
                    "retention-days" not in (step.get("with") or {}):
                yield f"{name}: a shard's artifact without retention-days (kept 90 days)"


def _main_never_cancelled(flow: Workflow) -> Iterator[str]:
    concurrency = flow.document.get("concurrency")
    if not isinstance(concurrency, dict):
        return
    cancel = str(concurrency.get("cancel-in-progress", False))
    if cancel not in ("False", "false", "${{ github.event_name == 'pull_request' }}"):
        yield f"concurrency: cancel-in-progress is {cancel!r}: only a pull request may cancel its own earlier run"
    if cancel != "False" and "github.run_id" not in str(concurrency.get("group", "")):
        yield "concurrency: a group without github.run_id outside pull requests: a run on main waits, then is dropped"


def _no_setup_python_in_container(flow: Workflow) -> Iterator[str]:
    """actions/setup-python installs Pythons built for the runner's own image (Ubuntu 24.04: glibc 2.38): in a
    job's container (Debian 12: glibc 2.36) they do not start. A container job builds its Pythons itself."""
    for name, job in flow.jobs():
        if not job.get("container"):
            continue
        for step in job.get("steps") or []:
            if isinstance(step, dict) and str(step.get("uses", "")).split("@")[0].lower() == "actions/setup-python":
                yield (f"{name}: `uses: {step['uses']}` in a job with a container: its Python is built for the "
                       "runner's Ubuntu, not the container's libc (build it in the job: docs/workflow.md)")


NODE_VERSION = "NODE_VERSION"  # the workflow-level env every setup-node reads
NODE_LTS_END = {22: date(2027, 4, 30), 24: date(2028, 4, 30)}  # Node's release schedule: end of each LTS line
NODE_LITERAL = re.compile(r"\bnode(?:[-_ ]?(?:version|js))?\b\W{0,4}v?(\d{2})\b", re.IGNORECASE)


def _node_lts_once(flow: Workflow, today: date | None = None) -> Iterator[str]:
    """Every setup-node installs the Node the workflow-level env NODE_VERSION names, a Node LTS line not past its
    end; NODE_VERSION is set there only, and no other line names a Node version (a comment neither)."""
    today = today or date.today()
    value = (flow.document.get("env") or {}).get(NODE_VERSION)
    if value is None:
        yield f"workflow: no env {NODE_VERSION}, the one Node version every setup-node installs"
    else:
        major = int(value) if re.fullmatch(r"\d+", str(value)) else None
        end = NODE_LTS_END.get(major) if major is not None else None
        if end is None:
            known = ", ".join(map(str, sorted(NODE_LTS_END)))
            yield f"workflow: {NODE_VERSION} is {value!r}, not the major of a supported Node LTS line ({known})"
        elif end < today:
            yield f"workflow: {NODE_VERSION} is {value!r}: Node {major} reached its end of life on {end.isoformat()}"
    reference = "${{ env." + NODE_VERSION + " }}"
    for name, job in flow.jobs():
        if NODE_VERSION in (job.get("env") or {}):
            yield f"{name}: sets {NODE_VERSION} again (the workflow's env names it once)"
        for step in job.get("steps") or []:
            if not isinstance(step, dict):
                continue
            if NODE_VERSION in (step.get("env") or {}):
                yield f"{name}: a step sets {NODE_VERSION} again (the workflow's env names it once)"
            if str(step.get("uses", "")).split("@")[0].lower() == "actions/setup-node":
                given = (step.get("with") or {}).get("node-version")
                if str(given).strip() != reference:
                    yield f"{name}: setup-node's node-version is {given!r}, not {reference}"
    literals = []
    for number, line in enumerate(flow.text.splitlines(), 1):
        if re.match(rf"\s*{NODE_VERSION}:", line):
            continue
        literals += [f"line {number}: names Node {found} ({line.strip()[:60]!r}): the version is {NODE_VERSION}'s only"
                     for found in NODE_LITERAL.findall(line)]
    yield from literals


@dataclass(frozen=True)
class Rule:
    id: str
    what: str
    check: Callable[[Workflow], Iterator[str]]


RULES: tuple[Rule, ...] = (
    Rule("pinned-actions", "every action at a full commit SHA, with its release in a comment", _pinned),
    Rule("checkout-credentials", "every checkout with persist-credentials: false", _checkout_credentials),
    Rule("image-digest", "every container image by digest", _image_digest),
    Rule("fuzz-seed", "the fuzz campaign's seed is the run's id, one for all shards", _fuzz_seed),
    Rule("merges-always-run", "a shard merge runs when any shard finished", _merges_always_run),
    Rule("shards-expire", "shard artifacts have a retention", _shards_expire),
    Rule("main-never-cancelled", "only pull requests cancel their own runs", _main_never_cancelled),
    Rule("no-setup-python-in-container", "no actions/setup-python in a job with a container",
         _no_setup_python_in_container),
    Rule("node-lts-once", "every setup-node on the one NODE_VERSION, a supported Node LTS, named once",
         _node_lts_once),
)


class NotAWorkflow(Exception):
    pass


class NoReader(Exception):
    pass


def load(path: Path) -> Workflow:
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError
    except ImportError:
        raise NoReader("reading a workflow needs ruamel.yaml (check-jsonschema brings it: the test extra and "
                       "nox -s lint install it)") from None

    try:
        text = path.read_text(encoding="utf-8")
        document = YAML(typ="safe", pure=True).load(text)
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        raise NotAWorkflow(f"{path}: cannot read it as YAML: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("jobs"), dict):
        raise NotAWorkflow(f"{path}: not a workflow (no `jobs:` mapping)")
    return Workflow(path, text, document)


def problems(flow: Workflow) -> list[tuple[str, str]]:
    return [(rule.id, problem) for rule in RULES for problem in rule.check(flow)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.workflow_rules", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="workflow files (default: .github/workflows/*.yml)")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(WORKFLOWS.glob("*.y*ml"))
    found = 0
    for path in paths:
        try:
            flow = load(path)
        except NotAWorkflow as exc:
            print(f"workflow rules: {exc}", file=sys.stderr)
            return 2
        except NoReader as exc:
            print(f"workflow rules: {exc}", file=sys.stderr)
            return 3
        for rule, problem in problems(flow):
            print(f"{path}: [{rule}] {problem}")
            found += 1
    print(f"workflow rules: {len(paths)} file(s), {len(RULES)} rules: "
          + (f"{found} problem(s)" if found else "every rule kept"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
