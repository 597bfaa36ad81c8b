"""``python -m harness trace``: every implementation's trace of one call, side by side, for a person reading a
witness. One row per trace entry (``args``, each step, the outcome), one column per implementation; a cell
that shows what the oracle's shows is ``=`` (an outcome as ``traces.same_outcome`` compares it: a JSON result by its
JSON value, as ``diff`` does); the first row where any implementation parts from the oracle
is marked ``>>``. Black boxes (no ``traces`` in their start answer) are listed with the op's own answer.

The table is the other tables' (``views.text_table``): within the terminal's width, every cell wrapped to fit
and none cut. Values are shown as ``views.show_value`` shows them, readable: letters, digits, punctuation and symbols as
themselves, marks and invisible and control characters as escapes (``\u0301``, ``\u001C``), a string in
quotes; every other text a testee sent (a step's name, a
trace problem) is printed safe (harness/model/printable.py).
"""

from __future__ import annotations

from typing import Any

from harness.cli import views
from harness.model.printable import printable
from harness.model.traces import first_difference, same_entry, same_outcome

SAME = "="
MARK = ">>"


def parting_index(documents: dict[str, dict[str, Any]], oracle: str) -> tuple[int | None, list[str]]:
    """The first entry (steps, then the outcome at len(steps)) where any implementation parts from the
    oracle, and which ones part there."""
    base = documents[oracle]
    partings = {name: first_difference(base, doc) for name, doc in documents.items() if name != oracle}
    found = [(p.index, name) for name, p in partings.items() if p is not None]
    if not found:
        return None, []
    index = min(i for i, _ in found)
    return index, [name for i, name in found if i == index]


def side_by_side(op: str, args: dict[str, Any], documents: dict[str, dict[str, Any]], oracle: str,
                 black_boxes: dict[str, Any], problems: dict[str, list[str]], width: int | None = None) -> str:
    """The table (see the module docstring); ``documents``: each tracing implementation's trace, the
    oracle's among them."""
    names = [oracle, *[n for n in documents if n != oracle]]
    rows: list[list[str]] = []  # marker, step, one cell per implementation
    index, parted = parting_index(documents, oracle)
    longest = max(len(doc["steps"]) for doc in documents.values())
    for i in range(longest + 1):
        entries = []
        for name in names:
            steps = documents[name]["steps"]
            if i < len(steps):
                entries.append(steps[i])
            elif i == len(steps):
                entries.append({"step": "outcome", "value": documents[name]["outcome"]})
            else:
                entries.append(None)
        if all(entry is None for entry in entries):
            continue
        base = entries[0]
        label = next(entry["step"] for entry in entries if entry is not None)
        cells = []
        for position, entry in enumerate(entries):
            if entry is None:
                cells.append("")
            elif position > 0 and base is not None and (same_entry(base, entry) if label != "outcome" else
                                                         base["step"] == entry["step"] and
                                                         same_outcome(op, base["value"], entry["value"])):
                cells.append(SAME)
            else:
                shown = views.show_value(entry["value"], readable=True)
                cells.append(shown if entry["step"] == label else f"[{printable(str(entry['step']))}] {shown}")
        rows.append([MARK if i == index else "", printable(str(label)), *cells])
    called = ", ".join(f"{k}={views.show_value(v, readable=True)}" for k, v in args.items())
    columns = width or views.width()
    lines = [printable(f"trace of {op}({called})"), "",
             views.text_table(["", "step", *map(printable, names)], rows, columns=columns)]
    lines.append("")
    if index is None:
        lines.append(f"every trace agrees with {oracle}'s, step for step")
    else:
        where = rows_label(documents[oracle], index)
        lines.append(printable(f"first difference: entry {index} ({where}): {', '.join(parted)} part from {oracle}"))
    for name, answer in black_boxes.items():
        lines.append(printable(f"{name}: a black box (no traces); the op answered {views.show_value(answer, 300)}"))
    for name, found in problems.items():
        for problem in found:
            lines.append(printable(f"{name}: TRACE PROBLEM: {problem}"))
    # The lines around the table wrap at spaces too (a word longer than the whole line alone is broken).
    return "\n".join(views._wrapped(line, columns, break_words=True) for line in lines)


def rows_label(document: dict[str, Any], index: int) -> str:
    steps = document["steps"]
    return steps[index]["step"] if index < len(steps) else "outcome"
