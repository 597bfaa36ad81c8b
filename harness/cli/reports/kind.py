"""The row a report kind's module declares (harness/cli/reports/): ``ReportKind`` and its page ``Section``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.classes import rundiff
from harness.classes.kinds import Kind
from harness.cli.html import PageContext
from harness.cli.views import Part


@dataclass(frozen=True)
class Section:
    """A kind's section of the page: its anchor, its name in the page's navigation, and how it is made."""

    ident: str
    title: str
    render: Callable[[PageContext], str]


@dataclass(frozen=True)
class ReportKind:
    kind: Kind
    part: Callable[[str, dict[str, Any]], Part]  # its part in a run's verdict (path, document)
    view: Callable[[dict[str, Any], str, str], str]  # report show: (document, fmt, show)
    diff: Callable[[dict[str, Any], dict[str, Any]], rundiff.RunDiff] | None = None  # report diff, --baseline
    section: Section | None = None  # its section of the page (None: shown in another kind's)
