"""The tokens family's black box as a test double (docs/examples/tokens: a text to the JSON list of its maximal
runs of letters and numbers, tokens over 12 code points dropped), shared by the tests that plant differences in
it (suites/differential/test_black_box_classes.py, test_black_box_cli.py, test_skew_changed_by_peeling.py,
suites/classes/test_split_sightings.py).

``box(bugs, ...)`` is a tokenizer with the differences named in ``bugs`` planted; with none it is the contract
(the oracle). ``Box`` serves one in process (no declaration, no traces); ``tokens_op`` registers the op an
in-process test needs. Run as a script, it is a command testee speaking the protocol:

    python suites/tokens_box.py NAME BUG[,BUG...]

Its bugs:
- ``bytes``: a token's length counted in UTF-8 bytes (the contract counts code points);
- ``marks``: combining marks (Mn) are token characters wherever they stand;
- ``marks-inside``: a combining mark joins the token it follows (never starts one);
- ``old-letters``: General_Category read from this Python's ``unicodedata`` (the contract: ``unicodedata2``).
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

CAP = 12
BUGS = frozenset({"bytes", "marks", "marks-inside", "old-letters"})


def tokens(text: str, letter: Callable[[str], bool], too_long: Callable[[str], bool], *, lower: bool = False,
           joins_inside: Callable[[str], bool] | None = None) -> str:
    """The JSON text of ``text``'s maximal runs of ``letter`` characters (and, once a run is open, of
    ``joins_inside`` ones), the runs ``too_long`` says so of dropped; lowercased first if ``lower``."""
    if not isinstance(text, str):
        raise ValueError(f"invalid_text: text must be a string, not {type(text).__name__}")
    out, run = [], ""
    for ch in (text.lower() if lower else text) + " ":
        if letter(ch) or (run and joins_inside is not None and joins_inside(ch)):
            run += ch
            continue
        if run and not too_long(run):
            out.append(run)
        run = ""
    return json.dumps(out, ensure_ascii=False)


def _contract_category(ch: str) -> str:
    import unicodedata2

    return str(unicodedata2.category(ch))


def box(bugs: Iterable[str] = (), *, category: Callable[[str], str] | None = None, lower: bool = False,
        cap: int = CAP, drop: Callable[[str], bool] | None = None) -> Callable[[str], str]:
    """A tokenizer with ``bugs`` planted (none: the contract). ``category`` gives a character's General_Category
    (default: ``unicodedata2``'s, or this Python's with ``old-letters``); ``drop`` a stop rule of its own."""
    bugs = frozenset(bugs)
    unknown = bugs - BUGS
    if unknown:
        raise ValueError(f"tokens box: no such bug {sorted(unknown)} (known: {sorted(BUGS)})")
    read = category or (unicodedata.category if "old-letters" in bugs else _contract_category)

    def letter(ch: str) -> bool:
        found = read(ch)
        return found[0] in "LN" or ("marks" in bugs and found == "Mn")

    def too_long(token: str) -> bool:
        size = len(token.encode("utf-8")) if "bytes" in bugs else len(token)
        return size > cap or (drop is not None and drop(token))

    inside = (lambda ch: read(ch) == "Mn") if "marks-inside" in bugs else None
    return lambda text: tokens(text, letter, too_long, lower=lower, joins_inside=inside)


class Box:
    """A testee in process: no declaration (it serves every op), no traces (a black box). With ``op`` it asserts
    it is asked that op alone (``answers``: ops it answers with a fixed value, such as unicode_versions)."""

    def __init__(self, name: str, fn: Callable[[str], str], *, op: str | None = None,
                 answers: dict[str, str] | None = None) -> None:
        self.name, self.fn, self.op, self.answers = name, fn, op, dict(answers or {})
        self.description: dict[str, Any] = {}

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        if op_name in self.answers:
            return {"ok": self.answers[op_name]}
        assert self.op is None or op_name == self.op, op_name
        return {"ok": self.fn(args["text"])}

    def call_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        return [self.call(op, args) for op, args in calls]

    def close(self) -> None:
        pass


def pair(prefix: str, oracle: Callable[[str], str], divergent: Callable[[str], str], op: str) -> dict[str, Box]:
    """``{prefix}-oracle`` and ``{prefix}-box`` in process, asked ``op`` alone."""
    return {f"{prefix}-oracle": Box(f"{prefix}-oracle", oracle, op=op),
            f"{prefix}-box": Box(f"{prefix}-box", divergent, op=op)}


def tokens_op(prefix: str, reference: Callable[[str], str], *, lower: bool = False,
              unicode_steps: tuple[str, ...] = (), char_rules: tuple[str, ...] = (),
              split_unicode: str | None = None) -> Any:
    """The op ``{prefix}_tokenize`` of family ``{prefix}-tokens`` (for ``registry.OPS``): a text step, a full
    lowercase if ``lower``, the split (its Unicode step ``split_unicode``) and the 12-code-point cap."""
    from harness.model.registry import Op, Param, Step

    steps = [Step(f"{prefix}.text", "the text is a string", "invalid_text", "host", "text")]
    if lower:
        steps.append(Step(f"{prefix}.lowercase", "full lowercase", None, "lowercase"))
    steps.append(Step(f"{prefix}.split", "maximal runs of L* and N*", None, "rule", unicode=split_unicode))
    steps.append(Step(f"{prefix}.length", "tokens over 12 code points dropped", None, "rule"))
    return Op(name=f"{prefix}_tokenize", js_name=f"{prefix}Tokenize",
              params=(Param("text", "text", "invalid_text", "text"),), reference=reference, result_kind="json",
              fixture=None, unicode_steps=unicode_steps, char_rules=char_rules, plain=(("text", "plain text"),),
              steps=tuple(steps), family=f"{prefix}-tokens")


def serve(name: str, fn: Callable[[str], str], lines: Iterable[str] = sys.stdin) -> None:
    """Answer protocol requests (one JSON object a line) with ``fn`` for every op; no traces, no Unicode version."""
    for line in lines:
        request = json.loads(line)
        if request["op"] == "start":
            answer = {"protocol": 2, "name": name, "version": "1", "language": "Python", "contracts": ["v1"]}
            print(json.dumps({"id": request["id"], "ok": answer}), flush=True)
            continue
        try:
            print(json.dumps({"id": request["id"], "ok": fn(**request["args"])}), flush=True)
        except ValueError as exc:
            error = {"code": str(exc).split(":")[0], "message": str(exc)}
            print(json.dumps({"id": request["id"], "error": error}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python suites/tokens_box.py NAME BUG[,BUG...]")
    serve(sys.argv[1], box(filter(None, sys.argv[2].split(",")), lower=True))
