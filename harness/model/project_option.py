"""The leading options of every command: ``--project DIR`` (the project the harness checks,
harness/model/paths.py), ``--oracle NAME`` (the implementation the others are compared with in this run,
harness/testees/impls.py ``oracle``) and ``--context NAMES`` (implementations whose answers are shown beside
a witness and never judged: ``impls.context``).

The paths of the project are set when ``harness.model.paths`` is first imported, so the entry points (``python -m
harness``, ``memgate-parity``) take the leading options (``--project DIR`` or ``--project=DIR``, the same for the
others, in any order) off the command line and put them in the environment (``PARITY_PROJECT``, ``PARITY_ORACLE``,
``PARITY_CONTEXT``) before they import anything that reads one; worker processes inherit them. This module imports
nothing of the harness for that reason.
"""

from __future__ import annotations

import os

ENV = "PARITY_PROJECT"  # the same name as paths.ENV (this module must not import paths)
ORACLE_ENV = "PARITY_ORACLE"  # the same name as impls.ORACLE_ENV
CONTEXT_ENV = "PARITY_CONTEXT"  # the same name as impls.CONTEXT_ENV
OPTIONS = {"--project": ENV, "--oracle": ORACLE_ENV, "--context": CONTEXT_ENV}


QUIET = ("-q", "--quiet")  # may come among the leading options (`-q --project DIR fuzz`): kept, in front


def take_project(argv: list[str]) -> list[str]:
    """``argv`` without its leading ``--project DIR``, ``--oracle NAME`` and ``--context NAMES``; each value goes into
    its environment variable. A ``-q`` among them stays, in front of what is left. An option with nothing after it
    is left in place, for argparse to name."""
    quiet: list[str] = []
    while argv:
        if argv[0] in QUIET:
            quiet.append(argv[0])
            argv = argv[1:]
            continue
        option, equals, value = argv[0].partition("=")
        if option not in OPTIONS:
            break
        if equals:
            os.environ[OPTIONS[option]] = value
            argv = argv[1:]
        elif len(argv) >= 2:
            os.environ[OPTIONS[option]] = argv[1]
            argv = argv[2:]
        else:
            break
    return quiet + argv
