"""``python -m harness``: the command line (harness/cli/main.py)."""

from harness.cli.main import main
from harness.model.status import exit_with

exit_with(main)
