"""Independent Python reference for contract v1 (write gate and dedup context).

Written from the contract (``../shared/contract-v1.md`` and ``docs/contract.md``), never from the
Rust core. The four public functions have exactly the contract's binding-level signatures.
"""

from .dedup_context import build_dedup_context
from .errors import CODES, ContractError
from .normalize import normalize_fact_text, unicode_nfc
from .unicode_data import unicode_versions
from .write_gate import decide_write

__all__ = [
    "CODES",
    "ContractError",
    "build_dedup_context",
    "decide_write",
    "normalize_fact_text",
    "unicode_nfc",
    "unicode_versions",
]
