"""The last successful run of a workflow on a branch, for the workflow's baseline (.github/workflows/parity.yml).

    python -m harness.tools.last_run --repo OWNER/NAME --workflow parity.yml --branch main [--api URL]

Asks the GitHub REST API (``GET /repos/{repo}/actions/workflows/{workflow}/runs?branch=&status=success``, with
the token in $GH_TOKEN when set) and prints ``run-id=N`` and ``run-url=URL`` for $GITHUB_OUTPUT. A run
without one (the first run of a branch, the API out of reach, an answer that is not what the API sends) prints
nothing and says why on stderr: no baseline is not a failure, so the status is 0 either way; 2 for bad options.
The answer is read as untrusted: bounded, and only a positive integer id and an https URL are taken.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

LIMIT = 4 << 20  # bytes of an answer read at most
SECONDS = 30


def last_success(api: str, repo: str, workflow: str, branch: str, token: str | None,
                 exclude: int | None = None) -> tuple[int, str] | str:
    """(run id, its page) of the newest successful run, or why there is none."""
    query = urllib.parse.urlencode({"branch": branch, "status": "success", "per_page": "5"})
    url = f"{api.rstrip('/')}/repos/{repo}/actions/workflows/{urllib.parse.quote(workflow)}/runs?{query}"
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.github+json",
                                                   "X-GitHub-Api-Version": "2022-11-28",
                                                   **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=SECONDS) as answer:
            body = answer.read(LIMIT + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"the API did not answer ({exc})"
    if len(body) > LIMIT:
        return f"the API's answer is over {LIMIT} bytes"
    try:
        runs: Any = json.loads(body)["workflow_runs"]
    except (ValueError, KeyError, TypeError):
        return "the API's answer is not a list of workflow runs"
    for run in runs if isinstance(runs, list) else []:
        run_id, page = (run.get("id"), run.get("html_url")) if isinstance(run, dict) else (None, None)
        if isinstance(run_id, int) and not isinstance(run_id, bool) and run_id > 0 and run_id != exclude and \
                isinstance(page, str) and page.startswith("https://") and "\n" not in page:
            return run_id, page
    return f"no successful run of {workflow} on {branch}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.last_run", description=__doc__.splitlines()[0])
    parser.add_argument("--api", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"))
    parser.add_argument("--repo", required=True)
    parser.add_argument("--workflow", required=True)
    parser.add_argument("--branch", required=True)
    args = parser.parse_args(argv)
    current = os.environ.get("GITHUB_RUN_ID", "")
    found = last_success(args.api, args.repo, args.workflow, args.branch, os.environ.get("GH_TOKEN") or None,
                         int(current) if current.isdigit() else None)
    if isinstance(found, str):
        print(f"last_run: no baseline: {found}", file=sys.stderr)
        return 0
    run_id, page = found
    print(f"run-id={run_id}\nrun-url={page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
