"""Texts made safe to print: every text that came from a testee or a report (a message, a stderr tail, a value,
evidence, an explanation) goes through here before it reaches a terminal, a Markdown summary or the page.

A terminal obeys the control characters it is sent: ESC starts a sequence that can clear the screen, move the
cursor, retitle the window or rewrite what was printed before; BEL rings, BS and a lone CR overwrite; the C1
controls (U+0080-U+009F, U+009B is CSI) act as ESC sequences on some terminals; the bidi controls (U+061C,
U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) reorder the rest of a line, so that a message reads otherwise
than it is. A lone surrogate (a JSON string may hold one) cannot be written to a UTF-8 stream at all, and one
decoded with surrogateescape would reach the terminal as the raw byte it stands for.

Each of those is shown as its escape instead, the way ``harness/cli/views.show_char`` shows a value's
characters (``\\u001B``, four hexadecimal digits, upper case): readable, and harmless. Everything else is
left as it is; in particular a backslash is not doubled, so a message that holds the six characters
``\\u001B`` reads like one that held ESC (the point is that nothing reaches the terminal raw, not a lossless
encoding; a value, where the difference matters, is shown by ``views.show_value``).

Newlines are a decision of the caller:

- ``printable``: one line (a table cell, a message, a FINDING line): a newline is made visible too;
- ``printable_lines`` / ``printable_block``: several lines (a stderr tail): split at LF and CRLF only, each
  line made printable; a lone CR and every other line break (VT, FF, U+0085, U+2028, U+2029, ...) stay
  visible inside their line.
"""

from __future__ import annotations

import re

# The bidi formatting characters: ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI.
BIDI_CONTROLS = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
LINE_SEPARATORS = frozenset({0x2028, 0x2029})  # line breaks to some readers (Python's splitlines among them)
ELLIPSIS = "..."

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
_LINE_BREAK = re.compile("\r?\n")


def unsafe(char: str) -> bool:
    """Whether one code point is shown as its escape: C0 controls (newline and tab included), DEL, C1 controls,
    bidi controls, U+2028 and U+2029, lone surrogates."""
    return _UNSAFE.fullmatch(char) is not None


def escape_char(char: str) -> str:
    """One code point as an escape: ``\\uXXXX`` in the BMP, ``\\U+XXXXX`` outside it (one code point, never
    a surrogate pair); views.show_char's form."""
    point = ord(char)
    return f"\\U+{point:05X}" if point > 0xFFFF else f"\\u{point:04X}"


def _escaped(match: re.Match[str]) -> str:
    return escape_char(match.group())


def printable(text: str, limit: int | None = None) -> str:
    """``text`` as one line that is safe to print: every character of ``unsafe`` (a newline included) as its
    escape. With ``limit``: at most that many characters, cut between two characters (never inside an
    escape) and ended with an ellipsis."""
    shown = _UNSAFE.sub(_escaped, text)
    if limit is None or len(shown) <= limit:
        return shown
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    room = max(limit - len(ELLIPSIS), 0)
    out, used = [], 0
    for char in text:
        piece = escape_char(char) if unsafe(char) else char
        if used + len(piece) > room:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out) + ELLIPSIS


def printable_lines(text: str) -> list[str]:
    """``text`` as lines that are safe to print: split at LF and CRLF only, each line by ``printable`` (a lone
    CR, a VT, a U+2028 stay inside their line, visible)."""
    return [printable(line) for line in _LINE_BREAK.split(text)]


def printable_block(text: str, indent: str = "", limit: int | None = None) -> str:
    """Several lines (``printable_lines``) joined with a newline and ``indent`` before every line but the
    first (the caller places the first). With ``limit``: at most that many characters of the lines' own (the
    indents not counted), cut between two characters and ended with an ellipsis."""
    raw = _LINE_BREAK.split(text)
    if limit is None:
        return ("\n" + indent).join(map(printable, raw))
    lines: list[str] = []
    room = limit
    for line in raw:
        shown = printable(line)
        if len(shown) > room:
            lines.append(_cut(line, room) if room > len(ELLIPSIS) else ELLIPSIS)
            break
        lines.append(shown)
        room -= len(shown)
    return ("\n" + indent).join(lines)
