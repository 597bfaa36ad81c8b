"""Speed claims measured, not remembered (issue 54 item 4): every speed figure in README.md and docs/*.md names
the command that measured it, its date and the load it was taken at, or sits in a table or paragraph that does.

The rule, as tables of patterns:

* FIGURES: what a speed figure looks like (a duration, a rate).
* UNIT_COLUMNS: a table column of figures, its unit in its header.
* NOT_CLAIMS: figures that are settings, not measurements (a budget given to a command, a deadline, a limit a
  check holds a run to); they are taken out of the text before FIGURES are looked for.
* ATTRIBUTION: what a figure's unit must hold besides it: a command, a date, a load.

A unit is a paragraph, a list item, or a table row (with its table's header and the paragraph just above the
table, its caption). Code is left out (fenced blocks and `inline` spans): commands to type and samples of output.
"""

from __future__ import annotations

import re

import pytest

from harness.model.paths import ROOT

FIGURES: dict[str, str] = {
    "minutes and seconds": r"\b\d+ min \d+ s\b",
    "a change in a cost": r"\b\d+(?:\.\d+)? -> \d+(?:\.\d+)? ?(?:s|ms|us|µs)\b",
    "a rate": r"\b\d[\d,.]*(?: [a-z]+)*/s\b",
    "a duration": r"\b\d+(?:[.,]\d+)? ?(?:min|s|ms|us|µs|seconds|minutes)\b",
}
NOT_CLAIMS: dict[str, str] = {
    "a command's budget": r"--(?:seconds|minutes|margin|stop-after-new)[ =]\S+",
    "a run given a budget (a 15 s fuzz run)": r"\ban? \d+(?:\.\d+)?[ -](?:s|second|minute|min)\b",
    "a limit or deadline": r"\b(?:within|every|deadlines? of|timeout of|allowance of|graces? of|rounds? of|up to|"
                           r"at most|sleeps?|budget is|budget of|plus|per) (?:[A-Z] \+ )*[\d.+ ]*\d ?"
                           r"(?:min|s|ms|us|µs|seconds|minutes)\b",
    "code: a command or a sample of output": r"`[^`]*`",
    "a kill's grace": r"\b\d+(?:\.\d+)? s later(?: \(\d+(?:\.\d+)? s in a worker\))?",
}
ATTRIBUTION: dict[str, str] = {
    "a command": r"`(?:\.tools/bin/)?(?:nox|memgate-parity|python|\.ci/run|bash \.ci/run|npm|cargo|node)\b[^`]*`|"
                 r"\bthe speed gate\b|\bpage[-_]bench\b|\.ci/run",
    "a date": r"\b20\d\d-\d\d-\d\d\b",
    # a load average, or (for a figure taken before loads were kept) the admission that it was not recorded; the
    # bench table's rows carry theirs under its column "load (1 min, start → end)"
    "a load": r"\bload(?: average)?(?: of| at)? \d|\bload not recorded\b|load \(1 min, start → end\)",
}
# a table column of figures: its header names the unit, its cells are the numbers (each such cell is a figure)
UNIT_COLUMNS = r"(?i)^(?:seconds|wall|time|[\w ]*/s|[\w ]*\((?:s|ms|us|µs|seconds|minutes)\))$"
DOCUMENTS = ["README.md", *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "docs").glob("*.md"))]
# files other sessions own, whose figures are still to be attributed (their owners' work; a strict xfail: it
# fails the day they pass, and the entry goes)
NOT_YET: dict[str, str] = {}


def cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def units(text: str) -> list[tuple[int, str, str, list[str]]]:
    """(line number, the unit's text, the text that may attribute it: the unit and, for a table row, its table's
    header and caption, the figures of a table row's unit columns) for every paragraph, list item and table row
    outside code fences."""
    out: list[tuple[int, str, str, list[str]]] = []
    blocks: list[list[tuple[int, str]]] = [[]]
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            blocks.append([])
        elif fenced or not line.strip():
            blocks.append([])
        else:
            blocks[-1].append((number, line.strip()))
    blocks = [block for block in blocks if block]
    for at, block in enumerate(blocks):
        if block[0][1].startswith("|"):
            caption = " ".join(line for _, line in blocks[at - 1]) if at else ""
            header = block[0][1]
            columns = [at for at, cell in enumerate(cells(header)) if re.match(UNIT_COLUMNS, cell)]
            for number, line in block[2:]:
                row = cells(line)
                numbers = [f"{row[at]} ({cells(header)[at]})" for at in columns
                           if at < len(row) and re.search(r"\d", row[at])]
                out.append((number, line, f"{line} {header} {caption}", numbers))
            continue
        items: list[list[tuple[int, str]]] = []
        for number, line in block:
            if re.match(r"([-*]|\d+\.) ", line) or not items:
                items.append([])
            items[-1].append((number, line))
        for item in items:
            joined = " ".join(line for _, line in item)
            out.append((item[0][0], joined, joined, []))
    return out


def figures_in(text: str) -> list[str]:
    """The speed figures of a text, each once (a longer pattern's figure is taken out before a shorter one's)."""
    for pattern in NOT_CLAIMS.values():
        text = re.sub(pattern, " ", text)
    found = []
    for pattern in FIGURES.values():
        found += re.findall(f"(?:{pattern})", text)
        text = re.sub(pattern, " ", text)
    return found


def unattributed(text: str) -> list[str]:
    """Each unit quoting a speed figure without a command, a date and a load: its line, figures and what lacks."""
    found = []
    for number, unit, context, numbers in units(text):
        quoted = figures_in(unit) + numbers
        lacking = [what for what, pattern in ATTRIBUTION.items() if not re.search(pattern, context)]
        if quoted and lacking:
            found.append(f"line {number}: {', '.join(dict.fromkeys(quoted))}: no {', no '.join(lacking)}")
    return found


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[name]))
                                  if name in NOT_YET else name for name in DOCUMENTS])
def test_every_speed_figure_names_its_command_date_and_load(name: str) -> None:
    found = unattributed((ROOT / name).read_text(encoding="utf-8"))
    assert not found, f"{name}: speed figures not attributed (command, date, load):\n" + "\n".join(found)


def test_the_rule_finds_a_planted_figure_and_passes_an_attributed_one() -> None:
    planted = "The sweep takes 8 min 48 s on two cores.\n"
    assert unattributed(planted) == ["line 1: 8 min 48 s: no a command, no a date, no a load"]
    assert unattributed("Fuzzing does 23,000 examples/s.\n")[0].startswith("line 1: 23,000 examples/s")
    assert unattributed("`nox -s sweep` took 8 min 48 s (2026-12-06, load 0.4).\n") == []
    # the date alone is not enough, nor a command and a load without a date
    assert "no a load" in unattributed("`nox -s sweep` took 8 min 48 s (2026-12-06).\n")[0]
    assert "no a date" in unattributed("`nox -s sweep` took 8 min 48 s at load 3.\n")[0]
    # a list item is its own unit: its neighbour's attribution does not cover it
    listed = "- `nox -s tests` 5 min 25 s (2026-12-06, load 1.2)\n- `nox -s sweep` 9 min\n"
    assert unattributed(listed) == ["line 2: 9 min: no a date, no a load"]
    # a table row is covered by its caption; settings and budgets are not claims; code is not prose
    table = ("Measured by `nox -s bench` (2026-12-07, load 2.1):\n\n| figure | value |\n|---|---|\n"
             "| fuzzer | 21,000 examples/s |\n")
    assert unattributed(table) == []
    # a column whose header names the unit holds figures without one
    assert unattributed("Times:\n\n| tests | seconds |\n|---|---|\n| 19 | 104 |\n") == [
        "line 5: 104 (seconds): no a command, no a date, no a load"]
    assert unattributed("Run `fuzz --seconds 15`: a 15 s fuzz run must end within 15 + 10 + 5 s.\n") == []
    assert unattributed("```\nnox -s sweep   # 9 min\n```\n") == []
    assert unattributed("Its last line: `N examples in 15s (after 6.4s of start-up)`.\n") == []
    assert unattributed("A run takes at most S + D + 5 s; the budget is 30 s.\n") == []
    # a figure after "of", "after", "than", "over" is a measurement all the same (only setting words exempt one),
    # and a rate may have several words before its /s
    for claim in ("Pyodide has a start-up of 6.8 s.\n", "The sweep finishes after 9 min.\n",
                  "It is slower than 4 min.\n", "Fuzzing does 52,000 normalize examples/s.\n",
                  "It ran over 70 s.\n"):
        assert unattributed(claim), claim
    assert unattributed("Each request has a deadline of 10 s and the workers a grace of 10 s.\n") == []


def test_the_readme_quotes_the_bench_table_as_bench_prints_it() -> None:
    """The README's speed section holds the table `nox -s bench` prints (harness/checks/bench.py markdown):
    its columns, and each row a figure with its command, date, loads and cores."""
    from harness.checks import bench

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    header = "| " + " | ".join(bench.MARKDOWN_COLUMNS) + " |"
    assert header in text, "README.md: no table of `nox -s bench` (its header as bench.markdown prints it)"
    rows = text.split(header, 1)[1].splitlines()[2:]
    rows = rows[:next((at for at, row in enumerate(rows) if not row.startswith("|")), len(rows))]
    assert rows, "README.md: the bench table has no rows"
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == len(bench.MARKDOWN_COLUMNS), row
        assert bench.DATE.match(cells[3]) and bench.LOADS.match(cells[4]) and cells[5].isdigit(), row
