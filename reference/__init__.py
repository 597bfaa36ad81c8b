"""Independent Python reference for contract v1 (write gate and dedup context).

Written from the specification (``docs/contract.md``), never from the Rust core. The four public
functions have exactly the contract's binding-level signatures (§2); every contract error names the step
that failed (``ContractError.step``, the step ids of §5-§7). ``trace(op, args)``, a diagnostic outside the
contract, shows what each step of one call produced (``reference/tracing.py``).
"""

from .dedup_context import build_dedup_context
from .errors import CODES, ContractError
from .normalize import normalize_fact_text, unicode_nfc
from .tracing import TRACED, trace
from .unicode_data import unicode_versions
from .write_gate import decide_write

__all__ = [
    "CODES",
    "TRACED",
    "ContractError",
    "build_dedup_context",
    "decide_write",
    "normalize_fact_text",
    "trace",
    "unicode_nfc",
    "unicode_versions",
]
