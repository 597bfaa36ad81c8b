"""The reference of the example op family ``tags`` (docs/examples/tags/tags.json): ``tag_normalize(text)``
turns a free-text tag into its key, in four steps, each noted for the step traces:

1. ``tags.text``: the text must be a string (else ``invalid_text``);
2. ``tags.white_space``: every run of Unicode White_Space (the 25 characters below, and nothing else)
   becomes one ``-``;
3. ``tags.edges``: ``-`` is stripped from both ends;
4. ``tags.lowercase``: A-Z become a-z (ASCII only: no Unicode data, so no version skew).

It is written from that specification alone and knows nothing of the harness but the step notes
(``reference.steps``); ``trace`` serves the trace request of an in-process testee (docs/traces.md).
"""

from __future__ import annotations

import json
from typing import Any

from reference.steps import note, recording, traced

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


def _view(value: Any) -> Any:
    """A value as a trace writes it: a string holding a surrogate as its code points."""
    if isinstance(value, str) and any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        return {"$codepoints": [ord(ch) for ch in value]}
    if isinstance(value, str) or isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return {"$f64": value.hex()}
    if isinstance(value, int):
        return value
    return {"$type": type(value).__name__}


def trace(op: str, args: dict[str, Any]) -> str:
    """The trace-v1 document of one call (docs/traces.md), from the op's own code path."""
    if op not in TRACED:
        raise ValueError(f"tags_ref traces {', '.join(TRACED)}, not {op!r}")
    steps: list[dict[str, Any]] = [{"step": "args", "value": {name: _view(value) for name, value in args.items()}}]
    with recording() as notes:
        try:
            outcome: dict[str, Any] = {"result": _view(tag_normalize(**args))}
        except TagError as exc:
            outcome = {"error": exc.code, "step": exc.step}
    steps += [{"step": step, "value": _view(value)} for step, value in notes]
    return json.dumps({"schema": "trace-v1", "op": op, "steps": steps, "outcome": outcome}, ensure_ascii=False)
