"""The JSON grammar's texts (harness/model/json_grammar.py): each is what its feature says (strict JSON or not, by
the harness's own scan), and they reach the shapes the listed cases missed (issue 35): an escaped quote before
deep nesting, runs of brackets in strings, a duplicate key past 16 and 32 members."""

from __future__ import annotations

import json
import random
import re

from harness.model import json_grammar
from harness.model.json_features import features


def test_every_text_is_what_its_feature_says() -> None:
    rng = random.Random(7)
    seen = set()
    for _ in range(3000):
        feature = json_grammar.feature(rng)
        text = json_grammar.build(feature, rng)
        json_grammar.check(feature, text)  # the grammar and the duplicates, by Python's own reader
        assert (not features(text)) == feature.valid, (feature.slug, sorted(features(text)), text[:200])
        seen.add((feature.depth > json_grammar.LIMIT, feature.duplicate_at is not None, feature.gap))
    assert len(seen) >= 10  # the combinations are drawn, not one kind


def _depth_ending_strings_at_any_quote(text: str) -> int:
    """A depth scan that ends a string at an escaped quote (the reference's bug the issue planted)."""
    depth = deepest = 0
    for ch in re.sub(r'"[^"]*"', '""', text):
        depth += ch in "[{"
        depth -= ch in "]}"
        deepest = max(deepest, depth)
    return deepest


def test_the_pinned_combinations_reach_what_a_wrong_scan_misreads() -> None:
    texts = {f.slug: json_grammar.build(f, random.Random(f.slug)) for f in json_grammar.combinations()}
    misread = [slug for slug, text in texts.items()
               if (_depth_ending_strings_at_any_quote(text) > json_grammar.LIMIT) != ("depth" in features(text))]
    assert misread, "no pinned text tells a scan that ends strings at an escaped quote from a right one"
    wide = [f for f in json_grammar.combinations() if f.duplicate_at is not None and f.duplicate_at >= 16]
    assert {f.members for f in wide} >= {17, 33, 257}  # past the thresholds a duplicate scan may switch at



def test_brackets_inside_strings_are_counted_apart_and_made_letters_alone() -> None:
    """``bracket_depth`` counts what a scan that does not skip strings sees; ``string_brackets_made_letters`` is
    its counterfactual: the brackets inside strings (an escaped quote does not end one) made letters, every
    other character kept, so the text breaks the same rules as before."""
    from harness.model.json_features import bracket_depth, string_brackets_made_letters

    shallow = json.dumps({"s": "[" * 101, "q": 'a"[{'})
    assert features(shallow) == set() and bracket_depth(shallow) > 101
    lettered = string_brackets_made_letters(shallow)
    assert json.loads(lettered) == {"s": "x" * 101, "q": 'a"xx'} and bracket_depth(lettered) == 1
    assert string_brackets_made_letters('[1,{"a":[2]}]') == '[1,{"a":[2]}]'
    duplicate = '{"a":"[","a":"]"}'
    assert features(string_brackets_made_letters(duplicate)) == features(duplicate) == {"duplicate_key"}
