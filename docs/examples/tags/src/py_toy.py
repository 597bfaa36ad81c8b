"""The example family's Python toy (docs/examples/tags): tag_normalize written the way Python code is
usually written, with ``str.split()`` for White_Space, under its own name (``normalize_tag``: its declaration
maps the op to it in "functions"). Python's ``str.split()`` splits on U+001C..U+001F too, which are not
White_Space: the known difference this example shows (one class); everything else agrees with the reference.
"""

from __future__ import annotations

from typing import Any


def normalize_tag(text: Any) -> str:
    if not isinstance(text, str):
        raise ValueError(f"invalid_text: text must be a string, not {type(text).__name__}")
    joined = "-".join(text.split())
    return "".join(chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch for ch in joined.strip("-"))
