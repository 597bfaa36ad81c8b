"""``--project DIR``: the project the harness checks, named on the command line (harness/model/paths.py).

The paths of the project are set when ``harness.model.paths`` is first imported, so the entry points
(``python -m harness``, ``memgate-parity``) take a leading ``--project DIR`` (or ``--project=DIR``) off the
command line and put it in ``PARITY_PROJECT`` before they import anything that reads a path. This module
imports nothing of the harness for that reason.
"""

from __future__ import annotations

import os

ENV = "PARITY_PROJECT"  # the same name as paths.ENV (this module must not import paths)
OPTION = "--project"


def take_project(argv: list[str]) -> list[str]:
    """``argv`` without a leading ``--project DIR``; DIR goes into ``PARITY_PROJECT``. A ``--project`` with
    nothing after it is left in place, for argparse to name."""
    if argv[:1] == [OPTION] and len(argv) >= 2:
        os.environ[ENV] = argv[1]
        return argv[2:]
    if argv and argv[0].startswith(OPTION + "="):
        os.environ[ENV] = argv[0].split("=", 1)[1]
        return argv[1:]
    return argv
