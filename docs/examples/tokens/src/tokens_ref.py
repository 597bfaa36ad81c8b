"""The reference of the second example op family ``tokens`` (docs/examples/tokens/contract.md):
``tokenize(text)`` splits a text into its word tokens and returns the JSON text of their list, in three steps,
each noted for the step traces:

1. ``tok.text``: the text must be a string (else ``invalid_text``);
2. ``tok.split``: the tokens are the maximal runs of letters and numbers (General_Category L* or N*);
3. ``tok.length``: a token longer than 12 code points is dropped.

It is written from that specification alone. Step 2 reads General_Category through the PyPI package ``regex``
(``\\p{L}`` and ``\\p{N}``), which is not the harness's: the family file lists it, pinned, in its ``requires``
(docs/implementers.md, "Adding an op family"). ``UNICODE_VERSIONS`` says which Unicode version's
General_Category that release implements, for the harness to name a version skew of step 2
(``regex`` does not say it itself: the pinned release's ``\\p{Assigned}`` is exactly Unicode 18.0.0's assigned
code points, which suites/testees/test_tokens_family.py checks against data/unicode-tables/).

The result is JSON *text*: a library whose function returns a list is served through an adapter like
``tokenize`` here (``json.dumps`` of the list), since every op returns a string (docs/implementers.md).
"""

from __future__ import annotations

import json
from typing import Any

import regex

from reference.steps import note, traced
from reference.tracing import tracer

# The regex releases this reference is known to run on -> the Unicode version of their General_Category.
_UNICODE_OF_RELEASE = {"2026.11.15": "18.0.0"}
if regex.__version__ not in _UNICODE_OF_RELEASE:
    raise ImportError(f"tokens_ref needs regex=={next(iter(_UNICODE_OF_RELEASE))} (the family's requires), not "
                      f"regex {regex.__version__}: pip install 'regex=={next(iter(_UNICODE_OF_RELEASE))}'")
UNICODE_VERSIONS = {"general_category": _UNICODE_OF_RELEASE[regex.__version__]}

MAX_CODE_POINTS = 12
_TOKEN = regex.compile(r"[\p{L}\p{N}]+")
TRACED = ("tokenize",)
__all__ = ["TRACED", "UNICODE_VERSIONS", "tokenize", "trace"]  # its surface: the op, its versions, the trace request


class TokenError(ValueError):
    """A contract error: its message starts with its code."""

    def __init__(self, code: str, step: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.step = code, step


def split(text: str) -> list[str]:
    """The library's own function: a list, not the op's result."""
    return _TOKEN.findall(text)


@traced
def tokenize(text: Any) -> str:
    if not isinstance(text, str):
        raise TokenError("invalid_text", "tok.text", f"text must be a string, not {type(text).__name__}")
    note("tok.text", text)
    tokens = split(text)
    note("tok.split", tokens)
    tokens = [token for token in tokens if len(token) <= MAX_CODE_POINTS]
    note("tok.length", tokens)
    return json.dumps(tokens, ensure_ascii=False, separators=(",", ":"))  # the adapter: a list to its JSON text


trace = tracer({"tokenize": tokenize}, "tokens_ref")  # the trace request (docs/traces.md)
