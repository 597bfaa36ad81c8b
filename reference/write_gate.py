"""decide_write: docs/contract.md §6, steps gate.text .. gate.decision.

Arithmetic is spelled out on purpose: every embedding value is rounded to binary32 with
``struct`` (round to nearest, ties to even), widened back to binary64, and the three sums are plain
left-to-right ``+=`` loops from ``+0.0``. ``sum()`` (compensated from Python 3.12), ``math.fsum`` and
numpy's ``dot`` (pairwise/SIMD order) would each give different last bits.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any

from . import strict_json
from .errors import ContractError
from .host import require_force, require_mode, require_threshold
from .normalize import normalize_valid, require_text
from .steps import note, traced

_BINARY32 = struct.Struct("<f")
# Compact JSON, characters as they are: json.dumps(result, ensure_ascii=False, separators=(",", ":")), with
# its encoder made once (json.dumps makes one per call for any non-default option).
_RESULT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Candidate:
    id: str
    text: str
    embedding: tuple[float, ...] | None
    pinned: bool


def to_binary32(value: float) -> float:
    """Round a binary64 value to the nearest binary32 (ties to even) and widen it back."""
    try:
        packed = _BINARY32.pack(value)
    except OverflowError:
        raise ContractError("invalid_embedding", f"{value!r} rounds to infinity in binary32", "gate.binary32") from None
    return _BINARY32.unpack(packed)[0]


def _embedding(value: Any, where: str) -> tuple[float, ...] | None:
    """gate.embedding (the new one) or gate.candidate.embedding, then gate.binary32 for each number."""
    step = "gate.embedding" if where == "embedding" else "gate.candidate.embedding"
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise ContractError("invalid_embedding", f"{where} must be null or a non-empty array of numbers", step)
    out = []
    for index, item in enumerate(value):
        # strict_json gives every JSON number as a float; True/False are JSON booleans, not numbers.
        if isinstance(item, bool) or not isinstance(item, float):
            raise ContractError("invalid_embedding", f"{where}[{index}] is not a number", step)
        if not math.isfinite(item):  # cannot come out of strict_json; kept as a guard
            raise ContractError("invalid_embedding", f"{where}[{index}] is not finite", "gate.binary32")
        out.append(to_binary32(item))
    return tuple(out)


def parse_embedding(embedding_json: object) -> tuple[float, ...] | None:
    value = strict_json.loads(embedding_json, "embedding_json", "gate.embedding_json")
    note("gate.embedding_json", value)
    embedding = _embedding(value, "embedding")
    note("gate.embedding", value)
    note("gate.binary32", embedding)
    return embedding


def parse_candidates(candidates_json: object) -> list[Candidate]:
    value = strict_json.loads(candidates_json, "candidates_json", "gate.candidates_json")
    note("gate.candidates_json", value)
    if value is None:
        note("gate.candidates", [])
        return []
    if not isinstance(value, list):
        raise ContractError("invalid_shape", "candidates_json must be null or an array of objects", "gate.candidates")
    note("gate.candidates", value)
    candidates = []
    for index, item in enumerate(value):
        where = f"candidates[{index}]"
        if not isinstance(item, dict):
            raise ContractError("invalid_shape", f"{where} is not an object", "gate.candidate.object")
        note("gate.candidate.object", index)
        cid = item.get("id")
        if not isinstance(cid, str) or cid == "":
            raise ContractError("invalid_shape", f"{where}.id must be a non-empty string", "gate.candidate.id")
        note("gate.candidate.id", cid)
        text = item.get("text")
        if not isinstance(text, str):
            raise ContractError("invalid_shape", f"{where}.text must be a string", "gate.candidate.text")
        note("gate.candidate.text", text)
        pinned = item.get("pinned")
        if pinned is None:
            pinned = False
        elif not isinstance(pinned, bool):
            raise ContractError("invalid_shape", f"{where}.pinned must be a boolean or null", "gate.candidate.pinned")
        note("gate.candidate.pinned", pinned)
        embedding = _embedding(item.get("embedding"), f"{where}.embedding")
        note("gate.candidate.embedding", embedding)
        candidates.append(Candidate(cid, text, embedding, pinned))
    return candidates


def plain_sum_of_products(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """sum(a[i] * b[i]) accumulated from +0.0 by plain binary64 additions, in index order."""
    total = 0.0
    for x, y in zip(a, b, strict=True):
        total += x * y
    return total


def similarity(a: tuple[float, ...], b: tuple[float, ...]) -> float | None:
    """Cosine similarity per the contract, or None when the pair is not compared."""
    if len(a) != len(b):
        return None
    na = plain_sum_of_products(a, a)
    nb = plain_sum_of_products(b, b)
    if na == 0.0 or nb == 0.0:
        return None
    return plain_sum_of_products(a, b) / math.sqrt(na * nb)


def outcomes(mode: str, force: bool) -> tuple[tuple[str, str], tuple[str, str]]:
    """(action, reason) for an exact match and for a near match: the contract's mode table."""
    if mode == "explicit":
        return ("skip", "already_stored"), (("store", "forced") if force else ("confirm", "possible_duplicate"))
    near = ("skip", "near_duplicate") if mode == "auto" else ("store", "near_duplicate_kept")
    return ("skip", "exact_duplicate"), near


def _match(candidate: Candidate, sim: float | None) -> dict[str, Any]:
    return {"id": candidate.id, "text": candidate.text, "similarity": sim, "pinned": candidate.pinned}


def decide(
    text: str,
    embedding: tuple[float, ...] | None,
    candidates: list[Candidate],
    threshold: float,
    mode: str,
    force: bool,
) -> dict[str, Any]:
    """The decision on validated inputs, as a dict."""
    normalized = normalize_valid(text)
    note("gate.normalize", normalized)
    if normalized == "":
        raise ContractError("empty_text", "text is empty after normalization", "gate.empty_text")
    note("gate.empty_text", False)
    exact_outcome, near_outcome = outcomes(mode, force)

    # Each candidate's normalization notes its own norm.* steps (gate.normalize_candidates), then the
    # exact-match rule notes the candidate it found, or None. A candidate is known in the trace by its index
    # and id (ids need not be unique).
    for index, candidate in enumerate(candidates):
        if normalize_valid(candidate.text) == normalized:
            note("gate.exact", {"index": index, "id": candidate.id})
            action, reason = exact_outcome
            return _decided({"action": action, "reason": reason, "match": _match(candidate, None)})
    note("gate.exact", None)

    best: Candidate | None = None
    best_index, best_sim = 0, 0.0
    if embedding is not None:
        for index, candidate in enumerate(candidates):
            if candidate.embedding is None or (mode == "auto" and candidate.pinned):
                continue
            sim = similarity(embedding, candidate.embedding)
            note("gate.similarity", {"index": index, "id": candidate.id, "similarity": sim})
            if sim is None:
                continue
            if best is None or sim > best_sim:
                best, best_index, best_sim = candidate, index, sim
    if best is not None and best_sim >= threshold:
        note("gate.near", {"index": best_index, "id": best.id, "similarity": best_sim, "match": True})
        action, reason = near_outcome
        return _decided({"action": action, "reason": reason, "match": _match(best, best_sim)})
    note("gate.near", None if best is None else
         {"index": best_index, "id": best.id, "similarity": best_sim, "match": False})
    return _decided({"action": "store", "reason": "new", "match": None})


def _decided(result: dict[str, Any]) -> dict[str, Any]:
    note("gate.decision", result)
    return result


@traced
def decide_write(
    text: object,
    embedding_json: object,
    candidates_json: object,
    threshold: object = 0.85,
    mode: object = "auto",
    force: object = False,
) -> str:
    """Validate in signature order, decide, and return the result as compact JSON."""
    valid_text = require_text(text, "gate.text")
    embedding = parse_embedding(embedding_json)
    candidates = parse_candidates(candidates_json)
    valid_threshold = require_threshold(threshold)
    note("gate.threshold", valid_threshold)
    valid_mode = require_mode(mode)
    note("gate.mode", valid_mode)
    valid_force = require_force(force)
    note("gate.force", valid_force)
    result = decide(valid_text, embedding, candidates, valid_threshold, valid_mode, valid_force)
    return _RESULT_JSON.encode(result)
