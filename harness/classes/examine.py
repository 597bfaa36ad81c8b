"""One input's divergence as records: the classifier (harness/differential/explain.py) names the shares of a
disagreement, typed and frozen (``Share``, ``Found``); here each share becomes a ``ClassRecord`` at once, with
each divergent implementation's own share of a version skew worked out on its witness (``own_details``, which
may ask the implementations again), so that its coverage is then a lookup in the expected lists alone
(harness/classes/expected.py, ``cover``). ``diff``, the expected lists' recheck and migration and the tests
examine an input through here; a fuzz run and a sweep make their records from their own shares
(harness/classes/sightings.py, harness/fuzzing/classes.py) with the same ``worked_out``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.classes.record import ClassRecord
from harness.differential.counterfactual.skew import own_details_at
from harness.differential.explain import code_points, name_shares
from harness.differential.outcomes import observe
from harness.testees.testee import Testee


def worked_out(impls: dict[str, Testee], record: ClassRecord, args: dict[str, Any],
               versions: dict[str, dict[str, str]]) -> ClassRecord:
    """The record with each of its implementations' own share of a version skew (``own_details_at``) in its
    coverage, worked out on ``args`` (its witness, as the testees were given it: never read back from the
    record's encoded form)."""
    own = own_details_at(impls, record.op, args, record.cause, record.detail, record.step, list(record.divergent),
                         versions)
    return replace(record, coverage=replace(record.coverage, own_details=own))


def examine_all(impls: dict[str, Testee], op_name: str, args: dict[str, Any],
                versions: dict[str, dict[str, str]]) -> list[ClassRecord]:
    """Run ``args`` everywhere; one record per share of the disagreement (none when all agree), new until
    covered (harness/classes/expected.py, ``cover``)."""
    responses = observe(impls, op_name, args)
    points = code_points(args, versions)
    return [worked_out(impls, ClassRecord.of_sighting(op_name, args, responses, share.impls, share.found, points),
                       args, versions)
            for share in name_shares(impls, op_name, args, responses, versions)]


def examine(impls: dict[str, Testee], op_name: str, args: dict[str, Any],
            versions: dict[str, dict[str, str]]) -> ClassRecord | None:
    """The first share of ``examine_all``, or None when every implementation agrees."""
    found = examine_all(impls, op_name, args, versions)
    return found[0] if found else None
