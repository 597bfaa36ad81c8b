"""A small op family written into a test's own folder, outside the harness tree, as a user adds one (the family file
in PARITY_FAMILIES, the declarations in PARITY_IMPLEMENTATIONS, the Python on PYTHONPATH): ``h1fam``, three ops with
a reference (``h1-ref``, the oracle, in process, tracing) and a twin (``h1-twin``, in process, tracing, with its
own trace writer, as another library would have):

* ``h1_chain(text)`` (a text): three steps of role ``rule``; the twin's each does one thing more, on its own
  letter: ``chain.a`` also uppercases ``x``, ``chain.b`` ``y``, ``chain.c`` ``z``. Three real differences of one
  cause (``rule_difference``) at three steps: the witnesses ``"x"``, ``"y"``, ``"z"``.
* ``h1_words(text)`` (a JSON text: the list of the space-separated words): the reference writes it as Python's
  ``json.dumps`` does (``["a", "b"]``, non-ASCII escaped), the twin as Node's ``JSON.stringify`` does (``["a","b"]``,
  characters as they are), and its traces' outcomes indented, by another writer than its answers: the same JSON
  value, three texts. A real difference: the twin drops the word ``q`` (step ``words.split``).
* ``h1_count(text)`` (a JSON text: ``{"count": n, "words": [...]}``): the twin writes the count as a float
  (``2.0``) and its keys in the other order: the same JSON value. A real difference: with a word ``qq`` the twin
  counts one more (its steps agree: they part at the outcome).

Nothing here is the harness's: a test writes it with ``write`` and runs the harness with ``environment``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

FAMILY = "h1fam"
REF, TWIN = "h1-ref", "h1-twin"
IMPLS = f"{REF},{TWIN}"

_TEXT = {"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "text"}


def _host(step: str) -> dict[str, object]:
    return {"id": step, "title": "the text is a string", "code": "invalid_text", "role": "host", "param": "text"}


FAMILY_FILE = {
    "schema": "family-v1",
    "family": FAMILY,
    "description": "A test family written outside the harness (suites/cli/outside_family.py)",
    "reference": {"module": "h1_ref"},
    "ops": [
        {"name": "h1_chain", "js_name": "h1Chain", "params": [_TEXT], "result": "text", "plain": {"text": "plain"},
         "steps": [_host("chain.text"), {"id": "chain.a", "title": "a to A"}, {"id": "chain.b", "title": "b to B"},
                   {"id": "chain.c", "title": "c to C"}]},
        {"name": "h1_words", "js_name": "h1Words", "params": [_TEXT], "result": "json", "plain": {"text": "plain"},
         "steps": [_host("words.text"), {"id": "words.split", "title": "the words between spaces"}]},
        {"name": "h1_count", "js_name": "h1Count", "params": [_TEXT], "result": "json", "plain": {"text": "plain"},
         "steps": [_host("count.text"), {"id": "count.split", "title": "the words between spaces"}]},
    ],
}

_COMMON = '''
from reference.steps import note
from reference.tracing import tracer


class H1Error(ValueError):
    def __init__(self, code, step, message):
        super().__init__(f"{code}: {message}")
        self.code, self.step = code, step


def _text(text, step):
    if not isinstance(text, str):
        raise H1Error("invalid_text", step, f"text must be a string, not {type(text).__name__}")
    note(step, text)
    return text
'''

REFERENCE_SOURCE = '''"""h1fam's reference (suites/cli/outside_family.py)."""
import json
''' + _COMMON + '''

def h1_chain(text):
    text = _text(text, "chain.text")
    for step, letter in (("chain.a", "a"), ("chain.b", "b"), ("chain.c", "c")):
        text = text.replace(letter, letter.upper())
        note(step, text)
    return text


def h1_words(text):
    words = _text(text, "words.text").split(" ")
    note("words.split", words)
    return json.dumps(words)


def h1_count(text):
    words = _text(text, "count.text").split(" ")
    note("count.split", words)
    return json.dumps({"count": len(words), "words": words})


TRACED = ("h1_chain", "h1_words", "h1_count")
trace = tracer({"h1_chain": h1_chain, "h1_words": h1_words, "h1_count": h1_count}, "h1_ref")
__all__ = ["TRACED", "h1_chain", "h1_count", "h1_words", "trace"]
'''

TWIN_SOURCE = '''"""h1fam's twin (suites/cli/outside_family.py): its JSON as JavaScript's JSON.stringify writes it."""
import json
''' + _COMMON + '''

def _stringify(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def h1_chain(text):
    text = _text(text, "chain.text")
    for step, letters in (("chain.a", "ax"), ("chain.b", "by"), ("chain.c", "cz")):
        for letter in letters:
            text = text.replace(letter, letter.upper())
        note(step, text)
    return text


def h1_words(text):
    words = [word for word in _text(text, "words.text").split(" ") if word != "q"]
    note("words.split", words)
    return _stringify(words)


def h1_count(text):
    words = _text(text, "count.text").split(" ")
    note("count.split", words)
    return _stringify({"words": words, "count": float(len(words) + ("qq" in words))})


TRACED = ("h1_chain", "h1_words", "h1_count")
_trace = tracer({"h1_chain": h1_chain, "h1_words": h1_words, "h1_count": h1_count}, "h1_twin")


def trace(op, args):
    """Its traces go through another JSON writer than its answers: the result in a trace is indented."""
    document = json.loads(_trace(op, args))
    if op != "h1_chain" and isinstance(document["outcome"].get("result"), str):  # (not {"$codepoints": ...})
        document["outcome"]["result"] = json.dumps(json.loads(document["outcome"]["result"]), indent=1)
    return json.dumps(document)


__all__ = ["TRACED", "h1_chain", "h1_count", "h1_words", "trace"]
'''


def _declaration(name: str, module: str, oracle: bool) -> dict[str, object]:
    return {"schema": "implementation-v1", "name": name, "description": f"h1fam's {module}", "language": "Python",
            "oracle": oracle, "contracts": ["v1"], "ops": [FAMILY], "start": {"python": module}, "build": [],
            "expected": None if oracle else "{here}/expected/" + name + ".json",
            "deadlines": {"startup": 10, "request": 10}, "hint": "put its src/ on PYTHONPATH"}


def write(folder: Path) -> Path:
    """The family, its two implementations' modules and declarations, under ``folder``; ``folder``."""
    for sub in ("families", "src", "implementations/expected"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "families" / f"{FAMILY}.json").write_text(json.dumps(FAMILY_FILE, indent=1), encoding="utf-8")
    (folder / "src" / "h1_ref.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    (folder / "src" / "h1_twin.py").write_text(TWIN_SOURCE, encoding="utf-8")
    for name, module, oracle in ((REF, "h1_ref", True), (TWIN, "h1_twin", False)):
        declared = _declaration(name, module, oracle)
        (folder / "implementations" / f"{name}.json").write_text(json.dumps(declared, indent=1), encoding="utf-8")
    return folder


def environment(folder: Path) -> dict[str, str]:
    """The environment a user runs the harness with for this family (docs/implementers.md, Adding an op family)."""
    env = dict(os.environ, PARITY_FAMILIES=str(folder / "families"),
               PARITY_IMPLEMENTATIONS=str(folder / "implementations"),
               PYTHONPATH=os.pathsep.join([str(folder / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    for name in ("PARITY_ORACLE", "PARITY_CONTEXT", "PARITY_PROJECT"):
        env.pop(name, None)
    return env
