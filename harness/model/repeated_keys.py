"""Whether a JSON text may hold a key twice in one object, told cheaply from the text and its parsed value.

Python's parser keeps the last of two equal keys (``{"ok":"a","ok":"b"}`` is ``{"ok": "b"}``); ``untrusted.loads``
with ``unique_keys`` refuses them through a pairs hook, a Python call per object, which costs about as much as the
parse itself on a batch answer line of 1,000 answers. A testee's lines are parsed without it first, and parsed again
with it only when ``may_repeat_keys`` says a key may repeat: the common line is decided by a few passes at C speed.

Pure standard library (a line reader's helper, like harness/model/untrusted.py).
"""

from __future__ import annotations

import itertools
from typing import Any

LEVELS = 4  # the top object, the objects in its values and arrays (a batch's answers), theirs (an error), theirs


def may_repeat_keys(text: str | bytes, value: dict[str, Any]) -> bool:
    """Whether an object of the JSON text ``text`` (``value``: its parse, equal keys merged) may hold a key twice.
    False only when none does (exact, never a guess); True when one does, or when it cannot be told this way.

    Each pair an object's text writes is one colon outside strings: the text's colons are its pairs (S) and the
    colons inside its strings. A key written twice leaves a parsed object with fewer pairs than its text wrote, so
    the parsed value's pairs P are S exactly when no key repeats (P < S otherwise). Counted in ``value`` level by
    level, ``LEVELS`` deep, at C speed: p, the pairs of the top object, of the objects among its values and in its
    arrays, and so on (p <= P); q, the colons in those objects' string values, each written raw in the text unless
    the text may escape a colon (``u003`` in it: then q is not used). colons(text) - q == p gives S <= p <= P <= S."""
    raw = isinstance(text, bytes)
    written = text.count(b":") if raw else text.count(":")  # type: ignore[arg-type]
    pairs = strings = 0
    level: list[dict[str, Any]] = [value]
    for _ in range(LEVELS):
        pairs += sum(map(len, level))
        if written == pairs:
            return False
        values = list(itertools.chain.from_iterable(map(dict.values, level)))
        kinds = set(map(type, values))
        if str in kinds:
            strings += "".join(values if len(kinds) == 1 else filter(str.__instancecheck__, values)).count(":")
            if written - strings == pairs:
                return (b"u003" if raw else "u003") in text  # type: ignore[operator]
        level = [] if dict not in kinds else values if len(kinds) == 1 else list(filter(dict.__instancecheck__, values))
        if list in kinds:
            for array in filter(list.__instancecheck__, values):
                held = set(map(type, array))
                if dict in held:
                    level.extend(array if len(held) == 1 else filter(dict.__instancecheck__, array))
        if not level:
            break
    return True
