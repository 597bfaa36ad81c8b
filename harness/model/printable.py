"""Texts made safe to print: every text that came from a testee or a report (a message, a stderr tail, a value,
evidence, an explanation) goes through here before it reaches a terminal, a Markdown summary or the page.

A terminal obeys the control characters it is sent: ESC starts a sequence that can clear the screen, move the
cursor, retitle the window or rewrite what was printed before; BEL rings, BS and a lone CR overwrite; the C1
controls (U+0080-U+009F, U+009B is CSI) act as ESC sequences on some terminals; the bidi controls (U+061C,
U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) reorder the rest of a line, so that a message reads otherwise
than it is. A lone surrogate (a JSON string may hold one) cannot be written to a UTF-8 stream at all, and one
decoded with surrogateescape would reach the terminal as the raw byte it stands for.

The rule is by General_Category, from the harness's own table (harness/model/terminal_table.py, made by
harness/tools/make_terminal_table.py from the pinned unicodedata2, Unicode 18.0.0; never the running interpreter's
unicodedata, whose Unicode differs from one Python to the next): every control (Cc), format character (Cf: the bidi
controls, the soft hyphen U+00AD, the zero-width space U+200B, the BOM U+FEFF, ZWJ, the tags), surrogate (Cs),
private-use character (Co), line or paragraph separator (Zl, Zp) and unassigned code point (Cn) is escaped. Cn
too: what the table does not know has no glyph to show, may be assigned a format character later (U+061C and
U+2066-U+2069, bidi controls, were unassigned before Unicode 6.3), or is a noncharacter (U+FFFE).

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

import bisect
import re

from harness.model import terminal_table

# The bidi formatting characters: ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI (all Cf).
BIDI_CONTROLS = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
LINE_SEPARATORS = frozenset({0x2028, 0x2029})  # line breaks to some readers (Python's splitlines among them)
ESCAPED = ("Cc", "Cf", "Cs", "Co", "Zl", "Zp", "Cn")  # the General_Category values escaped (terminal_table.RANGES)
ELLIPSIS = "..."


def _ranges() -> list[tuple[int, int]]:
    """The code points of ESCAPED, as sorted ranges, adjacent ones joined."""
    joined: list[tuple[int, int]] = []
    for first, last in sorted(pair for name in ESCAPED for pair in terminal_table.RANGES[name]):
        if joined and first <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(last, joined[-1][1]))
        else:
            joined.append((first, last))
    return joined


def _class(ranges: list[tuple[int, int]]) -> str:
    return "[" + "".join(f"\\U{first:08X}-\\U{last:08X}" for first, last in ranges) + "]"


# A regex's character class checks ranges above U+FFFF one by one, after its BMP bitmap, for every character it
# looks at: the astral ranges (hundreds, mostly unassigned) would make every safe character cost hundreds of
# comparisons. So the pattern takes the BMP's unsafe characters and any astral one; an astral one is then judged
# by a binary search of the table (``_escaped``: it stays as it is when safe).
_RANGES = _ranges()
_ASTRAL = [(max(first, 0x10000), last) for first, last in _RANGES if last > 0xFFFF]
_ASTRAL_FIRSTS = [first for first, _ in _ASTRAL]
_UNSAFE = re.compile(_class([(first, min(last, 0xFFFF)) for first, last in _RANGES if first <= 0xFFFF])
                     + "|[\\U00010000-\\U0010FFFF]")
_LINE_BREAK = re.compile("\r?\n")


def unsafe(char: str) -> bool:
    """Whether one code point is shown as its escape: one of the categories ESCAPED by the harness's table (C0 and
    C1 controls, a newline and a tab included, DEL, format characters, the bidi controls among them, surrogates,
    private use, U+2028 and U+2029, unassigned)."""
    point = ord(char)
    if point > 0xFFFF:
        at = bisect.bisect_right(_ASTRAL_FIRSTS, point) - 1
        return at >= 0 and point <= _ASTRAL[at][1]
    return _UNSAFE.fullmatch(char) is not None


def escape_char(char: str) -> str:
    """One code point as an escape: ``\\uXXXX`` in the BMP, ``\\U+XXXXX`` outside it (one code point, never
    a surrogate pair); views.show_char's form."""
    point = ord(char)
    return f"\\U+{point:05X}" if point > 0xFFFF else f"\\u{point:04X}"


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return escape_char(char) if char <= "\uffff" or unsafe(char) else char


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
