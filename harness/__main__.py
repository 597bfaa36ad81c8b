"""``python -m harness``: the command line (harness/cli/main.py)."""

import sys

from harness.cli.main import main

sys.exit(main())
