"""Text for a terminal, wrapped at spaces to its columns: the harness's one wrapping helper. harness/cli/views.py's
tables and the lines around them use it (``views.wrapped``, ``views.width``), and so do the layers below the
command line that write lines of their own (harness/fuzzing/sweep_report.py's summary), which may not import it.

A line is broken at spaces only (never at a hyphen: an expected entry's id is one word); a word longer than the
room it has stands alone on its line, over it, unless the caller lets it be broken (a line around a table, a
detail: the terminal would break it anyway). Callers make their text printable first (harness/model/printable.py):
a tab or a CR would otherwise become a space here, unseen."""

from __future__ import annotations

import shutil
import sys
import textwrap

MAX_WIDTH = 120  # without a terminal to say otherwise (a CI log, a pipe)


def columns() -> int:
    """The columns to render into: the terminal's when stdout is one, else MAX_WIDTH."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size((MAX_WIDTH, 24)).columns
    return MAX_WIDTH


def wrapped(cell: str, limit: int | None, break_words: bool = False) -> str:
    """``cell`` wrapped at spaces to ``limit``; its own line breaks kept. A word is never broken: one longer than
    ``limit`` stands alone on its line, over it (a table gives its column that width), except with
    ``break_words``, where that word alone is broken at ``limit``."""
    if limit is None:
        return cell
    out = []
    for line in cell.splitlines() or [""]:
        if len(line) <= limit:
            out.append(line)
        else:
            out += textwrap.wrap(line, limit, break_long_words=break_words, break_on_hyphens=False) or [""]
    return "\n".join(out)


def hanging(line: str, limit: int, more: int = 2) -> list[str]:
    """One line wrapped at spaces to ``limit`` columns, its leading spaces kept and its continuation lines
    indented ``more`` further, so that they read as its own; a word longer than the room is broken there. A line
    that fits is returned as it is (its inner runs of spaces, a column's padding, kept)."""
    if len(line) <= limit:
        return [line]
    indent = line[: len(line) - len(line.lstrip(" "))]
    deeper = indent + " " * more
    if len(deeper) >= limit - 8:  # no room to indent into: continue at the line's own indent, or none
        deeper = indent if len(indent) < limit - 8 else ""
    return textwrap.wrap(line[len(indent):], limit, initial_indent=indent, subsequent_indent=deeper,
                         break_long_words=True, break_on_hyphens=False) or [line[:limit]]
