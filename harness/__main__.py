"""``python -m harness``: the command line (harness/cli/main.py). A leading ``--project DIR`` names the
project to check; it is taken first, before anything reads a path (harness/model/project_option.py)."""

import sys

from harness.model.project_option import take_project

ARGV = take_project(sys.argv[1:])

from harness.cli.main import main  # noqa: E402 - after --project is taken
from harness.model.status import exit_with  # noqa: E402

exit_with(lambda: main(ARGV))
