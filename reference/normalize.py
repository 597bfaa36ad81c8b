"""normalize_fact_text: docs/contract.md §5, steps norm.text .. norm.edges."""

from __future__ import annotations

from .errors import ContractError
from .steps import note, traced
from .unicode_data import EDGE_CHARS, QUOTE_DASH_MAP, WHITE_SPACE_RUN, has_lone_surrogate, nfc


def require_text(text: object, step: str = "norm.text") -> str:
    """Step 1 (norm.text, and gate.text and nfc.text): a str of Unicode scalar values, else ``invalid_text``."""
    if not isinstance(text, str):
        raise ContractError("invalid_text", f"text must be a string, got {type(text).__name__}", step)
    if has_lone_surrogate(text):
        raise ContractError("invalid_text", "text contains a lone surrogate", step)
    note(step, text)
    return text


def collapse_white_space(text: str) -> str:
    """Step 6: every maximal run of White_Space becomes one U+0020."""
    return WHITE_SPACE_RUN.sub(" ", text)


def strip_edges(text: str) -> str:
    """Step 7: drop leading and trailing White_Space and edge punctuation (str.strip with exactly those
    characters, never its default set)."""
    return text.strip(EDGE_CHARS)


def normalize_valid(text: str) -> str:
    """Steps 2-7 on text already known to be valid."""
    text = nfc(text)  # step 2
    note("norm.nfc", text)
    text = text.translate(QUOTE_DASH_MAP)  # step 3
    note("norm.quote_dash", text)
    text = text.lower()  # step 4: full default lowercase mapping with final sigma
    note("norm.lowercase", text)
    text = nfc(text)  # step 5
    note("norm.nfc_again", text)
    text = collapse_white_space(text)  # step 6
    note("norm.white_space", text)
    text = strip_edges(text)  # step 7
    note("norm.edges", text)
    return text


@traced
def normalize_fact_text(text: object) -> str:
    return normalize_valid(require_text(text))


@traced
def unicode_nfc(text: object) -> str:
    """Diagnostic op (not in contract v1): NFC alone, with the data unicode_versions() reports."""
    result = nfc(require_text(text, "nfc.text"))
    note("nfc.nfc", result)
    return result
