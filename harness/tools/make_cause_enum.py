"""Make the cause enum of schemas/expected-divergences-v2.schema.json: every cause a rule of either classifier can
name, and no other.

An expected list's entry names the cause of the divergence it excuses; a cause no rule can name would excuse
nothing, and a cause a rule names but the schema refuses could not be excused at all. So the enum is not written
by hand: it is made here from the rules themselves (the counterfactual classifier's, harness/differential/
counterfactual/, then the trace classifier's, harness/differential/causes/, each in its ``ORDER``; a cause once),
and suites/tools/test_op_table.py checks that the committed schema is what this makes. The rest of the schema is
kept as it is.

    python -m harness.tools.make_cause_enum [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from harness.model.files import atomic_write
from harness.model.paths import SCHEMAS

OUT = SCHEMAS / "expected-divergences-v2.schema.json"


def rule_causes() -> tuple[str, ...]:
    """Every cause a rule of either classifier names, in the rules' order."""
    from harness.differential import causes, counterfactual

    rules = (*counterfactual.RULES, *causes.RULES)
    return tuple(dict.fromkeys(cause for rule in rules for cause in rule.causes))


def cause_property(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema's ``cause`` of an entry (where the enum lives)."""
    entry: dict[str, Any] = schema["properties"]["entries"]["items"]
    cause: dict[str, Any] = entry["properties"]["cause"]
    return cause


def made(current: str) -> str:
    """The schema's text with its cause enum made from the rules."""
    schema = json.loads(current)
    cause_property(schema)["enum"] = list(rule_causes())
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.make_cause_enum",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed schema is not what is made")
    args = parser.parse_args(argv)
    current = OUT.read_text(encoding="utf-8")
    text = made(current)
    if args.check:
        same = current == text
        print(f"{OUT}: {'up to date' if same else 'its cause enum differs from the rules: run this tool'}")
        return 0 if same else 1
    atomic_write(OUT, text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
