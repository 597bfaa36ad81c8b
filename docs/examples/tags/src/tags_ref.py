"""The reference of the example op family ``tags`` (docs/examples/tags/tags.json): ``tag_normalize(text)``
turns a free-text tag into its key, in four steps, each noted for the step traces:

1. ``tags.text``: the text must be a string (else ``invalid_text``);
2. ``tags.white_space``: every run of Unicode White_Space (the 25 characters below, and nothing else)
   becomes one ``-``;
3. ``tags.edges``: ``-`` is stripped from both ends;
4. ``tags.lowercase``: A-Z become a-z (ASCII only: no Unicode data, so no version skew).

It is written from that specification alone and knows nothing of the harness but the step notes
(``reference.steps``); ``trace``, made by ``reference.tracing.tracer`` from the same function, serves the trace
request of an in-process testee (docs/traces.md): the notes of the call that ships, never a second copy.
"""

from __future__ import annotations

from typing import Any

from reference.steps import note, traced
from reference.tracing import tracer

WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
TRACED = ("tag_normalize",)
__all__ = ["TRACED", "tag_normalize", "trace"]  # its surface: the op, and the trace request


class TagError(ValueError):
    """A contract error: its message starts with its code."""

    def __init__(self, code: str, step: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.step = code, step


@traced
def tag_normalize(text: Any) -> str:
    if not isinstance(text, str):
        raise TagError("invalid_text", "tags.text", f"text must be a string, not {type(text).__name__}")
    note("tags.text", text)
    out: list[str] = []
    for ch in text:
        if ch not in WHITE_SPACE:
            out.append(ch)
        elif not out or out[-1] != "\0-run":
            out.append("\0-run")
    text = "".join("-" if piece == "\0-run" else piece for piece in out)
    note("tags.white_space", text)
    text = text.strip("-")
    note("tags.edges", text)
    text = "".join(chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch for ch in text)
    note("tags.lowercase", text)
    return text


trace = tracer({"tag_normalize": tag_normalize}, "tags_ref")  # the trace request (docs/traces.md)
