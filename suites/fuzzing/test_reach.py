"""The sweep's templates are checked per op (harness/fuzzing/reach.py): every character role of an op is
reached by one of its templates, seen in the reference's own step notes; a role no template reaches is
named with the step, the op's templates, templates of other ops that reach it and the family file."""

from __future__ import annotations

from harness.fuzzing import reach
from harness.fuzzing.templates import BY_NAME, TEMPLATES
from harness.model.registry import OPS


def test_every_character_role_of_every_memgate_op_is_reached() -> None:
    assert reach.unreached() == []
    roles = {step.role for step in OPS["normalize_fact_text"].steps if step.role in reach.CHARACTER_ROLES}
    assert roles == {"nfc", "quote_dash", "lowercase", "white_space", "edges"}  # not vacuous
    seen = {role for template in TEMPLATES if template.op == "normalize_fact_text"
            for role, _ in reach.reached(template.name)}
    assert seen == roles


def test_a_template_reaches_what_its_reference_steps_do_to_the_probe() -> None:
    assert reach.first_acting("between-letters", "\u3000") == "norm.white_space"
    assert reach.first_acting("between-letters", "\u0301") == "norm.nfc"  # composes with the a before it
    assert reach.first_acting("alone", "\u0301") is None  # a lone mark: NFC leaves it, the rest too
    assert reach.first_acting("leading-edge", ".") == "norm.edges"
    assert reach.first_acting("dedup-text-line-edges", "\u2028") == "ctx.split"
    assert reach.first_acting("dedup-text-line-edges", "\u3000") == "ctx.trim"
    assert reach.witnesses("after-leading-punctuation")["quote_dash"].startswith("U+00AB")


def test_a_role_no_template_reaches_is_named_with_the_step_and_the_file() -> None:
    kept = tuple(t for t in TEMPLATES if t.op != "normalize_fact_text" or "sigma" in t.name)
    problems = reach.unreached(["normalize_fact_text"], kept)
    assert len(problems) == 2, problems
    assert "its white_space step (norm.white_space)" in problems[0]
    assert "its edges step (norm.edges)" in problems[1]
    assert all("after-capital-sigma, before-capital-sigma" in line and "families/memgate.json" in line
               for line in problems)


def test_a_missing_role_names_templates_of_other_ops_that_reach_it() -> None:
    kept = tuple(t for t in TEMPLATES if t.op != "unicode_nfc")
    (line,) = reach.unreached(["unicode_nfc"], kept)
    assert "op unicode_nfc: no sweep template reaches its nfc step (nfc.nfc)" in line and "(none)" in line
    assert "templates that reach a nfc step: alone (normalize_fact_text)" in line


def test_an_op_whose_reference_notes_nothing_is_said_to_be_unseen(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    op = OPS["unicode_nfc"]
    monkeypatch.setitem(OPS, "unicode_nfc", replace(op, reference=lambda text: text))
    reach._notes.cache_clear()
    reach.reached.cache_clear()
    try:
        (line,) = reach.unreached(["unicode_nfc"])
    finally:
        reach._notes.cache_clear()
        reach.reached.cache_clear()
    assert "its reference notes no step" in line
    assert BY_NAME["nfc-alone"].op == "unicode_nfc"
