"""What the commands print: a table first (one row per class, case or implementation), then details;
as text on a terminal (at most 120 columns unless a terminal says otherwise; values wrapped at spaces, never a
word cut: ``text_table``) or as Markdown for a CI job summary (``--format markdown``). Every function here
reads report documents (the JSON the commands write), so a table of a report read back is the table of the run.

Every text of a report (a cell, a detail line, a message, an explanation, a finding) is printed safe: its
control characters made visible as escapes (harness/model/printable.py), never sent raw to the terminal."""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.classes import rundiff
from harness.classes.kinds import Kind
from harness.model import hostvalues, wrapping
from harness.model.printable import escape_char, printable

# The one wrapping helper (harness/model/wrapping.py, where the layers below the command line reach it too):
# MAX_WIDTH columns without a terminal to say otherwise (a CI log, a pipe); ``wrapped`` wraps a cell at spaces,
# ``hanging`` one line of a view, its continuation lines indented under it.
MAX_WIDTH = wrapping.MAX_WIDTH
wrapped = wrapping.wrapped
hanging = wrapping.hanging
_wrapped = wrapped  # its old name (harness/cli/trace_view.py)


def colour() -> bool:
    """Whether tables are coloured: on a terminal, unless NO_COLOR is set (https://no-color.org) or TERM is
    dumb; never in a pipe, a file or a CI log."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


# A status cell's style by its first word (the columns STYLED name): what is new red, what is known yellow,
# what is gone or passes green. Only the style changes; the words are the same with colour or without.
STYLED = {"status", "change"}
STYLES = {"new": "bold red", "failed": "bold red", "appeared": "bold red", "expected": "yellow",
          "changed": "yellow", "gone": "green", "fixed": "green", "passed": "green"}


def width() -> int:
    """The columns to render into: the terminal's when stdout is one, else MAX_WIDTH (wrapping.columns)."""
    return wrapping.columns()


def show_char(char: str, readable: bool = False) -> str:
    """One code point as it can be read and told apart: printable ASCII as itself, the backslash and the
    quote escaped, other BMP characters and lone surrogates as \\uXXXX, characters outside the BMP as
    \\U+XXXXX (one code point, never a surrogate pair). ``readable``: letters, digits, punctuation and symbols
    outside ASCII as themselves too (a trace's "σίσυφος"); marks, format and control characters, separators
    other than the space, unassigned and private-use code points stay escapes, so what hides stays shown."""
    point = ord(char)
    if char in '\\"':
        return "\\" + char
    if 0x20 <= point < 0x7F:
        return char
    if readable and unicodedata.category(char)[0] in "LNPS":
        return char
    return escape_char(char)


def show_text(text: str, limit: int | None = None, readable: bool = False) -> str:
    """A string as it can be read and told apart (``show_char``), quoted; cut to ``limit`` with an ellipsis."""
    pieces = [show_char(ch, readable) for ch in text]
    shown = '"' + "".join(pieces) + '"'
    if limit is not None and len(shown) > limit:  # cut between characters, never inside an escape
        kept, room = '"', max(limit - 3, 1)
        for piece in pieces:
            if len(kept) + len(piece) > room:
                break
            kept += piece
        return kept + "..."
    return shown


def show_value(value: Any, limit: int | None = None, readable: bool = False) -> str:
    """A host value (decoded) for a table: strings by show_text, lists and the rest as compact JSON whose
    strings are shown the same way."""
    if isinstance(value, str):
        return show_text(value, limit, readable)
    if isinstance(value, list | tuple):
        shown = "[" + ", ".join(show_value(item, readable=readable) for item in value) + "]"
    elif isinstance(value, dict):
        shown = "{" + ", ".join(f"{show_text(k, readable=readable)}: {show_value(v, readable=readable)}"
                                for k, v in value.items()) + "}"
    else:
        shown = json.dumps(hostvalues.encode(value))
    return shown if limit is None or len(shown) <= limit else shown[: max(limit - 3, 1)] + "..."


def witness(args: dict[str, Any], limit: int = 48) -> str:
    """A witness's arguments (their JSON form, as a report holds them), shortest first."""
    decoded = hostvalues.decode_args(args)
    if len(decoded) == 1:
        return show_value(next(iter(decoded.values())), limit)
    shown = ", ".join(f"{name}={show_value(value, 24)}" for name, value in decoded.items())
    if len(shown) <= limit:
        return shown
    kept = ""  # whole arguments while they fit, then "..." (never a silent cut)
    for name, value in decoded.items():
        piece = (", " if kept else "") + f"{name}={show_value(value, 24)}"
        if len(kept) + len(piece) > limit - 3:
            break
        kept += piece
    return kept + "..."












ONE_LINE = {"#", "op", "step", "change", "kind", "fixture", "pass", "fail", "skip", "passed", "failed", "skipped",
            "outcome"}  # never wrapped
MIN_WIDTH = {"cause": 20, "witness": 10, "status": 14}  # narrowed to this first, then to the longest word
# A column's width at most (before any narrowing): wider values wrap at spaces. Never below the column's longest
# word: a value's words are never cut (an expected entry's id, a witness, a cause are one word each).
WRAP = {"cause": 22, "witness": 16, "status": 18, "extent": 12, "mismatch": 60, "before": 40, "after": 40,
        "what": 40, "available": 30, "unicode": 36, "runs": 30, "language": 24, "test": 50, "message": 50}
CODE = {"witness"}  # Markdown: shown as code (a witness's escapes read as written)
HEADER_MIN = 4  # a header is abbreviated to its column's width ("implementations" -> "imp."), never below this
BELOW_INDENT = "    "  # a column moved below its row: "    header: value"
GAP = "  "  # between two columns
ANSI = {"bold red": "1;31", "yellow": "33", "green": "32"}


def _words(cell: str) -> list[str]:
    return cell.split()


def _longest_word(cell: str) -> int:
    return max((len(word) for word in _words(cell)), default=0)


def _header_width(header: str, limit: int) -> int:
    """A column's width for a value ``limit`` wide: its header, abbreviated, needs no more than HEADER_MIN."""
    return max(limit, min(len(header), HEADER_MIN))


def abbreviated(header: str, shown: int) -> str:
    """A header in ``shown`` columns: itself, or its start and a full stop (a header may be abbreviated; a
    value never is)."""
    return header if len(header) <= shown else header[:max(shown - 1, 1)] + "."


@dataclass(frozen=True)
class Layout:
    widths: dict[str, int]  # each column in the table, its width
    below: tuple[str, ...]  # columns shown under each row as "header: value" lines, in the headers' order


def _total(inside: list[str], limits: dict[str, int]) -> int:
    return 1 + sum(_header_width(h, limits[h]) for h in inside) + len(GAP) * (len(inside) - 1)


def _fitted(headers: Sequence[str], cells: list[list[str]], columns: int) -> Layout | None:
    """The table's layout within ``columns``, every word of every value whole: each column at most its WRAP
    width, narrowed (the widest first) to its MIN_WIDTH and then to its longest word, never further; a header
    wider than its column is abbreviated. When that does not fit, a column is moved under each row (the rightmost
    of those whose longest word is at least half the widest's; a status last), and so on; None when no column is
    left to move (shown as records)."""
    index = {header: i for i, header in enumerate(headers)}
    longest = {h: max(len(line) for row in cells for line in (row[index[h]].splitlines() or [""])) for h in headers}
    floor = {h: longest[h] if h in ONE_LINE else max((_longest_word(row[index[h]]) for row in cells), default=0)
             for h in headers}
    below: list[str] = []
    while True:
        inside = [h for h in headers if h not in below]
        limits = {h: max(floor[h], min(longest[h], WRAP.get(h, longest[h]))) for h in inside}
        for least in (lambda h: max(floor[h], min(MIN_WIDTH.get(h, 0), longest[h])), lambda h: floor[h]):
            while _total(inside, limits) > columns:
                narrowable = [h for h in inside if h not in ONE_LINE and limits[h] > least(h)]
                if not narrowable:
                    break
                limits[max(narrowable, key=lambda h: limits[h])] -= 1
        if _total(inside, limits) <= columns:
            for h in inside:  # a header abbreviated only where its whole word does not fit
                while limits[h] < len(h) and _total(inside, limits) < columns:
                    limits[h] += 1
            return Layout({h: _header_width(h, limits[h]) for h in inside}, tuple(below))
        movable = [h for h in inside if h not in ONE_LINE]
        if len(inside) <= 1 or not movable:
            return None
        # The rightmost of the wide ones (a word at least half the widest's), a status last: a trace keeps its
        # oracle's column, a class table its op and cause before its witness.
        pool = [h for h in movable if h not in STYLED] or movable
        widest = max(floor[h] for h in pool)
        below.append(max((h for h in pool if 2 * floor[h] >= widest), key=index.__getitem__))
        below.sort(key=index.__getitem__)


def _paint(text: str, style: str | None) -> str:
    return f"\x1b[{ANSI[style]}m{text}\x1b[0m" if style and text else text


def _style(cell: str, header: str, coloured: bool) -> str | None:
    """A status cell's style by its first word (``STYLES``) where colour is on; the words are the same."""
    words = cell.split()
    return STYLES.get(words[0].rstrip(":").split("(")[0]) if coloured and header in STYLED and words else None


def _lead_lines(lead: str, cell: str, columns: int, style: str | None) -> list[str]:
    """``lead`` then the value wrapped at spaces in what is left of the line, continued under its start."""
    room = max(columns - len(lead), HEADER_MIN)
    lines = _wrapped(cell, room, break_words=True).splitlines() or [""]
    return [(lead if number == 0 else " " * len(lead)) + _paint(line, style) for number, line in enumerate(lines)]


def _records(headers: Sequence[str], cells: list[list[str]], title: str | None, columns: int,
             coloured: bool) -> str:
    """A table too wide for ``columns`` with every word whole, as one block per row ("header: value" lines,
    wrapped at spaces): nothing of any cell is lost, the status included."""
    out = [title] if title else []
    for row in cells:
        out.append("")
        for header, cell in zip(headers, row, strict=True):
            out += _lead_lines(f"{header}: ", cell, columns, _style(cell, header, coloured))
    return "\n".join(line.rstrip() for line in out).strip("\n")


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None,
               columns: int | None = None) -> str:
    """The table as text within ``columns`` (default: width()); no trailing blanks. Every word of every value
    is shown whole, values wrapped only at spaces (``_fitted``: columns never narrower than their longest word,
    a header abbreviated instead); columns that do not fit go under each row ("header: value"), and a table
    where no column fits is shown as records (``_records``). Nothing is cut at the edge."""
    columns = columns or width()
    cells = [[printable(cell) for cell in row] for row in rows]
    coloured = colour()
    layout = _fitted(headers, cells, columns)
    if layout is None:
        return _records(headers, cells, title, columns, coloured)
    inside = [h for h in headers if h not in layout.below]
    out = ([title] if title else []) + [""]
    out.append(" " + GAP.join(abbreviated(h, layout.widths[h]).ljust(layout.widths[h]) for h in inside))
    out.append(" " + "─" * (sum(layout.widths.values()) + len(GAP) * (len(inside) - 1)))
    for row in cells:
        values = dict(zip(headers, row, strict=True))
        wrapped = {h: _wrapped(values[h], None if h in ONE_LINE else layout.widths[h]).splitlines() or [""]
                   for h in inside}
        styles = {h: _style(values[h], h, coloured) for h in headers}
        for number in range(max(len(lines) for lines in wrapped.values())):
            parts = []
            for h in inside:
                text = wrapped[h][number] if number < len(wrapped[h]) else ""
                parts.append(_paint(text, styles[h]) + " " * (layout.widths[h] - len(text)))
            out.append(" " + GAP.join(parts))
        for h in layout.below:
            out += _lead_lines(f"{BELOW_INDENT}{h}: ", values[h], columns, styles[h])
    return "\n".join(line.rstrip() for line in out)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """GitHub-flavoured Markdown: control characters and newlines made visible (one line per row), pipes
    escaped, Markdown's own characters escaped, witnesses as code."""
    def cell(text: str, header: str) -> str:
        text = printable(text)
        if header in CODE and text not in ("", "-"):
            return "`" + text.replace("`", "'").replace("|", "\\|") + "`"
        text = "".join("\\" + ch if ch in "\\`*[]<>|#" else ch for ch in text)
        return text or " "

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(c, h) for c, h in zip(row, headers, strict=True)) + " |" for row in rows]
    return "\n".join(lines)


def fenced(text: str) -> str:
    """``text`` as a Markdown code block whose fence is longer than any run of backticks in it: no line of a
    report's text can end the block (and turn the rest into Markdown)."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, title: str | None = None) -> str:
    if fmt == "markdown":
        return (f"**{title}**\n\n" if title else "") + markdown_table(headers, rows)
    return text_table(headers, rows, title)










DIFF_HEADERS = ("change", "kind", "implementations", "what", "before", "after", "witness")
CHANGE_ORDER = rundiff.CHANGE_ORDER  # how a diff's rows are sorted


def diff_view(found: Any, fmt: str = "text") -> str:
    """A report diff (rundiff.RunDiff): the table of what changed, the implementations whose description
    changed, one line of counts."""
    lines = []
    for line in found.implementations:
        lines.append(printable(f"implementation changed: {line}"))
    order = CHANGE_ORDER
    changes = sorted(found.changes, key=lambda c: (order[c.change], c.kind, c.subject))
    if changes:
        rows = [[c.change + (" (blocking)" if c.blocking else ""), c.kind, ", ".join(c.impls), c.subject,
                 c.before or "-", c.after or "-",  # in full: the table wraps them (WRAP)
                 "-" if c.witness is None else witness(json.loads(c.witness), 32)] for c in changes]
        lines.append(table(DIFF_HEADERS, rows, fmt, title=f"changes since the baseline ({found.kind})"))
    per_impl: dict[str, dict[str, int]] = {}
    for change in found.changes:
        for impl in change.impls:
            per_impl.setdefault(impl, dict.fromkeys(order, 0))[change.change] += 1
    if per_impl:
        counted = [f"{impl}: " + ", ".join(f"{count} {name}" for name, count in counts_of.items() if count)
                   for impl, counts_of in sorted(per_impl.items())]
        lines.append("\n".join(map(printable, counted)))
    counts = {name: sum(c.change == name for c in found.changes) for name in order}
    summary = ", ".join(f"{count} {name}" for name, count in counts.items()) + f", {found.unchanged} unchanged"
    lines.append(("nothing changed: " if not found.changes else "") + summary)
    return "\n\n".join(lines)






IMPL_HEADERS = ("implementation", "language", "runs", "contracts", "available", "unicode")


def impls_view(rows: list[list[str]], fmt: str = "text") -> str:
    return table(IMPL_HEADERS, rows, fmt, title="declared implementations")


# -- the verdict of a run: every report of it, each with what it rests on ---------------------------------------

UNITS = ("example", "swept input", "input", "fixture case", "test")  # the order a verdict names its evidence


def counted(number: int, unit: str) -> str:
    """``1 input``, ``12,000 examples``."""
    return f"{number:,} {unit}" + ("" if number == 1 else "s")


def amount(evidence: dict[str, int]) -> str:
    """What a verdict rests on, in words: ``12,000 examples, 40 fixture cases and 812 tests``; ``nothing``."""
    parts = [counted(evidence[unit], unit) for unit in UNITS if evidence.get(unit)]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def on(evidence: dict[str, int]) -> str:
    """``on 1 input``, ``in 12,000 examples``: the evidence with its preposition."""
    first = next((unit for unit in UNITS if evidence.get(unit)), "example")
    return ("in " if first in ("example", "swept input") else "on ") + amount(evidence)


def divergence_evidence(document: dict[str, Any]) -> dict[str, int]:
    """What a divergence report checked: a diff's inputs, a sweep's swept inputs, a fuzz run's examples; a
    parity report (profile ``ci``) counts none (its tests are the evidence: the run's JUnit file)."""
    examples = int(document.get("examples") or 0)
    unit = {"diff": "input", "sweep": "swept input"}.get(document.get("profile") or "", "example")
    return {unit: examples} if examples else {}


@dataclass
class Part:
    """One report of a run in its verdict: what it checked (``evidence``: unit -> count), what in it is red
    (each naming its count), and, for a report that counts nothing itself (a parity report: its tests do),
    ``uncounted``."""

    path: str
    what: str
    evidence: dict[str, int]
    red: list[str] = field(default_factory=list)
    uncounted: bool = False
    not_run: list[str] = field(default_factory=list)  # Pythons of the parity matrix asked for and not run (X.Y)

    @property
    def empty(self) -> bool:
        return not self.uncounted and not any(self.evidence.values())














@dataclass
class Verdict:
    """The verdict of a run from every report of it: red when any part is red or the run lacks a report it
    always writes (``problems``); "nothing checked" when a part checked nothing (or only parity reports, which
    count nothing themselves, and no test); else "partial matrix" when a Python of the parity matrix was asked for
    and not run (no interpreter found: its part checked nothing); else "all agree", on the evidence named. A
    partial matrix is named in every headline, red or not."""

    parts: list[Part]
    problems: list[str] = field(default_factory=list)

    @property
    def red(self) -> list[str]:
        return [*self.problems, *(f"{part.path}: {reason}" for part in self.parts for reason in part.red)]

    @property
    def evidence(self) -> dict[str, int]:
        """Every part's evidence summed; tests from the JUnit files when there are any (the parity-ran counts
        are some of the same tests)."""
        total: dict[str, int] = {}
        junit = any(part.what == Kind.JUNIT.label for part in self.parts)
        for part in self.parts:
            if junit and part.what == Kind.RAN.label:
                continue
            for unit, number in part.evidence.items():
                total[unit] = total.get(unit, 0) + number
        return total

    @property
    def empty(self) -> list[str]:
        """What checked nothing: each empty part, and the parity reports when no test was counted."""
        out = [f"{part.path}: nothing checked ({part.what}: {amount(part.evidence)})"
               for part in self.parts if part.empty]
        if any(part.uncounted for part in self.parts) and not self.evidence.get("test"):
            out += [f"{part.path}: a parity report counts no examples, and no test of its run was read"
                    for part in self.parts if part.uncounted]
        if not self.parts:
            out.append("no report")
        return out

    @property
    def not_run(self) -> list[str]:
        """The Pythons of the parity matrix some part's run asked for and did not run, each once, in order."""
        versions = {version for part in self.parts for version in part.not_run}
        return sorted(versions, key=lambda version: tuple(int(n) if n.isdigit() else 0 for n in version.split(".")))

    @property
    def state(self) -> str:
        """``red``, ``empty``, ``partial`` or ``agree``."""
        return "red" if self.red else "empty" if self.empty else "partial" if self.not_run else "agree"

    @property
    def status(self) -> int:
        """0 all agree; 1 something new or nothing checked; 3 a partial matrix (its Pythons' implementations
        were asked for and never started: "a requested implementation could not be built or started")."""
        from harness.model.status import AGREE, FOUND, UNAVAILABLE

        return {"agree": AGREE, "partial": UNAVAILABLE}.get(self.state, FOUND)

    @property
    def partial(self) -> str:
        """``partial matrix: 3.12, 3.13 not run``, or "" for a whole one."""
        return f"partial matrix: {', '.join(self.not_run)} not run" if self.not_run else ""

    @property
    def headline(self) -> str:
        """``all agree on 1 input``, ``something new``, ``nothing checked``, ``partial matrix: 3.12 not run; the
        rest agree on ...`` (a red or empty one names a partial matrix too)."""
        if self.state == "agree":
            return "all agree " + on(self.evidence)
        if self.state == "partial":
            return f"{self.partial}; the rest agree " + on(self.evidence)
        head = "something new" if self.state == "red" else "nothing checked"
        return f"{head}; {self.partial}" if self.partial else head

    @property
    def reasons(self) -> list[str]:
        reasons = self.red if self.state == "red" else self.empty if self.state == "empty" else []
        return reasons + [f"{part.path}: Python {version} of the parity matrix was asked for and not run (no "
                          "interpreter found; its session was skipped)"
                          for part in self.parts for version in part.not_run]

    def line(self, fmt: str = "text") -> str:
        """The verdict as one line (Markdown: the headline bold), then its reasons, each made printable."""
        head = f"**verdict: {self.headline}**" if fmt == "markdown" else f"verdict: {self.headline}"
        tail = f" (from {counted(len(self.parts), 'report')})"
        if self.state not in ("agree", "partial"):  # a partial one's headline names what the rest agree on
            tail = f"; checked {amount(self.evidence)} (from {counted(len(self.parts), 'report')})"
        lines = [printable(head + tail)]
        lines += [printable(("- " if fmt == "markdown" else "  - ") + reason) for reason in self.reasons]
        return "\n".join(lines)












def part_line(part: Part) -> str:
    """One report's part in a line: what it is, what it checked, what in it is red."""
    checked = "counts no examples (its run's tests do)" if part.uncounted else f"checked {amount(part.evidence)}"
    return printable(f"{part.what}: {checked}; " + ("; ".join(part.red) if part.red else "nothing red"))


# Each kind of report: its part in the verdict and its view in report show (harness/classes/kinds.py).
