"""The page's HTML helpers and its sources (``Source``: one report the page is made from), below the page and
the report kinds' modules (harness/cli/reports/): escaping (every text a report brings goes through ``escape``),
values as tokens so that the characters that differ can be marked, tables, badges, sections and data blocks."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path
from typing import Any

from harness.classes import history, rundiff
from harness.classes.kinds import Kind
from harness.cli import views
from harness.cli.views import printable
from harness.model import hostvalues


def escape(text: str, quote: bool = True) -> str:
    """A text for the page: its control characters (C0, DEL, C1, bidi controls, newlines too) made visible
    as ``report show`` prints them (harness/model/printable.py), then HTML-escaped; every text a report
    brings goes through here."""
    return html_escape(printable(text), quote)


@dataclass(frozen=True)
class Source:
    """One report the page is made from."""

    path: Path
    document: dict[str, Any]

    @property
    def kind(self) -> Kind:
        return rundiff.kind_of(self.document)

    @property
    def run(self) -> dict[str, Any]:
        if self.kind == Kind.JUNIT:  # a JUnit file has no envelope: its testsuite properties and start
            properties = self.document.get("properties") or {}
            return {"session": properties.get("session"), "project": {"commit": properties.get("commit")},
                    "ended": self.document.get("timestamp")}
        return self.document.get("run") or {}

    @property
    def label(self) -> str:
        if self.kind == Kind.DIVERGENCES:
            return f"{self.document.get('profile', '?')} run"
        return self.kind.label


VALUE_LIMIT = 4000  # characters of one shown value (an output, an argument, a trace value)


def text_tokens(text: str) -> list[str]:
    """A string as views.show_text shows it, one token per code point (an escape is one token, marked whole)."""
    return [views.show_char(char) for char in text]


def tokens(value: Any) -> list[str]:
    """A decoded host value as the tables show it (views.show_value), in tokens (``text_tokens``), so that two
    values compared token by token are marked where they differ."""
    if isinstance(value, str):
        return ['"', *text_tokens(value), '"']
    if isinstance(value, list | tuple):
        out = ["["]
        for number, item in enumerate(value):
            out += ([", "] if number else []) + tokens(item)
        return out + ["]"]
    if isinstance(value, dict):
        out = ["{"]
        for number, (key, item) in enumerate(value.items()):
            out += ([", "] if number else []) + tokens(str(key)) + [": "] + tokens(item)
        return out + ["}"]
    return list(json.dumps(hostvalues.encode(value)))  # as views.show_value has it (ASCII JSON)


def output_tokens(output: dict[str, Any]) -> list[str]:
    """A report's output of one implementation (``{"ok": host value}`` or ``{"error": {code, message}}``)."""
    if "ok" in output:
        return tokens(hostvalues.decode(output["ok"]))
    error = output.get("error") or {}
    return text_tokens(f"error {error.get('code')}: ") + tokens(str(error.get("message", "")))


@dataclass
class Differs:
    """Where one side of a comparison differs from the other: its tokens that differ (``spans``, [first,
    last) pairs), and the places where the other side has tokens this one lacks (``gaps``: index -> whether
    the missing tokens are letters or digits, a part of a word)."""

    spans: list[tuple[int, int]]
    gaps: dict[int, bool]


def _wordy(token: str) -> bool:
    return len(token) == 1 and token.isascii() and token.isalnum()


def compare(oracle: list[str], other: list[str]) -> tuple[Differs, Differs]:
    """Where ``other`` and ``oracle`` differ, token by token (difflib): (the oracle's side, the other's)."""
    mine, theirs = Differs([], {}), Differs([], {})
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, oracle, other, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            mine.spans.append((i1, i2))
        else:
            mine.gaps[i1] = any(map(_wordy, other[j1:j2]))
        if j2 > j1:
            theirs.spans.append((j1, j2))
        else:
            theirs.gaps[j1] = any(map(_wordy, oracle[i1:i2]))
    return mine, theirs


def marked(mine: list[str], differs: Differs | None = None) -> str:
    """HTML of ``mine`` with the tokens that differ inside <mark>, and an empty gap mark where the other side
    has more; cut at VALUE_LIMIT characters. A word (a run of ASCII letters and digits) that differs in part
    is marked whole, on both sides: "store" against "skip", "stor" against "store", never "s" kept and "tore"
    marked; a gap between two characters that are not a word's own letters stays a gap ("a" and "b" around
    the U+001C the other side has)."""
    differs = differs or Differs([], {})
    inside: set[int] = set()
    for first, last in differs.spans:
        inside.update(range(first, last))
    gaps = dict(differs.gaps)
    for first, last in _words(mine):
        touched = inside.intersection(range(first, last)) or any(
            wordy for at, wordy in differs.gaps.items() if first <= at <= last)
        if touched:
            inside.update(range(first, last))
            for at in range(first, last + 1):
                if gaps.get(at):
                    del gaps[at]  # the word is marked whole instead
    out, length, open_ = [], 0, False
    gap = '<mark class="gap" title="the other side has more here"></mark>'
    for index, token in enumerate(mine):
        if index in gaps:
            out.append(gap)
        if index in inside and not open_:
            out.append("<mark>")
            open_ = True
        elif index not in inside and open_:
            out.append("</mark>")
            open_ = False
        out.append(escape(token))
        length += len(token)
        if length > VALUE_LIMIT:
            out.append(("</mark>" if open_ else "") + '<span class="cut">... (cut)</span>')
            return "".join(out)
    if open_:
        out.append("</mark>")
    if len(mine) in gaps:
        out.append(gap)
    return "".join(out)


def _words(shown: list[str]) -> list[tuple[int, int]]:
    """The runs of tokens that are single ASCII letters or digits, as [first, last) index pairs."""
    runs: list[tuple[int, int]] = []
    start = None
    for index, token in enumerate([*shown, ""]):
        if _wordy(token) and start is None:
            start = index
        elif not _wordy(token) and start is not None:
            runs.append((start, index))
            start = None
    return runs


def side_by_side(values: dict[str, list[str]], oracle: str, share: Sequence[str] = (),
                 comparable: Sequence[str] | None = None) -> dict[str, str]:
    """Each implementation's shown value as HTML, where it differs from the oracle's marked (whether or not it
    is of the class's ``share``: another share's difference shows too), and the oracle's side marked against
    the first of the share that differs (else the first that does: one comparison, never two mixed).
    ``comparable``: the implementations whose value may be compared with the oracle's (default: all)."""
    shown: dict[str, str] = {}
    base = values.get(oracle)
    oracle_side: Differs | None = None
    order = sorted(values, key=lambda name: name not in share)  # the share first, each group in its order
    for name in order:
        value = values[name]
        if name == oracle or base is None or value == base or (comparable is not None and name not in comparable):
            continue
        mine, theirs = compare(base, value)
        shown[name] = marked(value, theirs)
        oracle_side = oracle_side or mine
    for name, value in values.items():
        if name not in shown:
            shown[name] = marked(value, oracle_side if name == oracle else None)
    return {name: shown[name] for name in values}


def attrs(**values: Any) -> str:
    """HTML attributes, escaped: ``data_impl="x"`` -> ` data-impl="x"`; None and False are left out."""
    out = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        out.append(f' {key}="{escape(str(value), quote=True)}"')
    return "".join(out)


def html_table(headers: Sequence[str], rows: Iterable[Sequence[str]], **table_attrs: Any) -> str:
    """A table whose cells are HTML already (escape them before)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table{attrs(**table_attrs)}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def badge(text: str, kind: str) -> str:
    return f'<span class="badge {escape(kind)}">{escape(text)}</span>'


def slug(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "_" for ch in part) for part in parts)


def section(ident: str, title: str, body: str) -> str:
    return f"<section id='{ident}'><h2>{escape(title)}</h2>{body}</section>"


def data_block(ident: str, value: Any) -> str:
    """A JSON value the page carries as data (never run as a script): every "<" escaped (``\\u003c``, the same
    text to JSON; a "<" can only be inside a JSON string), so that no text in it can end the block or open
    a comment, whatever a browser makes of "<" there."""
    text = json.dumps(value, ensure_ascii=True).replace("<", "\\u003c")
    return f"<script type='application/json' id='{ident}'>{text}</script>"


def select_html(ident: str, label: str, options: Sequence[str]) -> str:
    opts = "".join(f"<option{attrs(value=option)}>{escape(option)}</option>" for option in options)
    return f"<label>{escape(label)} <select id='{ident}'><option value=''>all</option>{opts}</select></label>"


def counts_html(counts: dict[str, int]) -> str:
    return (f"<span class='counts'>{counts['pass']} pass"
            + (f", <b class='fail'>{counts['fail']} fail</b>" if counts["fail"] else "")
            + (f", {counts['skip']} skip" if counts["skip"] else "") + "</span>")


@dataclass(frozen=True)
class PageContext:
    """What every section of the page is made from: the reports, the fixture results merged (the newest run of
    each implementation), the implementations (the oracle first), the covering entries' notes (IMPL/ID ->
    entry), the runs' own notes and the history."""

    sources: Sequence[Source]
    merged: dict[str, Any] | None
    impls: Sequence[str]
    oracle: str
    entries: dict[str, dict[str, Any]]
    run_notes: Sequence[str] = ()
    past: history.Past | None = None
