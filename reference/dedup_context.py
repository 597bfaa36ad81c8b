"""build_dedup_context: docs/contract.md §7, steps ctx.topical_json .. ctx.pin_note."""

from __future__ import annotations

from . import strict_json
from .errors import ContractError
from .host import require_cap
from .steps import note, traced
from .unicode_data import LINE_BREAK, WHITE_SPACE_CHARS

HEADER = (
    "Existing memories (use these for dedup \u2014 classify as UPDATE/DELETE/NOOP "
    "if they conflict or overlap):"
)
PIN_NOTE = (
    "Pinned memories are read-only: never target them with UPDATE or DELETE. "
    "If a new fact adds to or changes a pinned memory, ADD it as a new memory."
)
PINNED_MARK = "[pinned, read-only] "

Item = tuple[str, str]  # (id, text) as given, missing/null already turned into ""


def parse_section(section_json: object, name: str) -> list[Item]:
    """ctx.<section>_json, then ctx.<section>: ``name`` is the parameter ("topical_json", ...)."""
    step = "ctx." + name.removesuffix("_json")
    value = strict_json.loads(section_json, name, step + "_json")
    note(step + "_json", value)
    if value is None:
        note(step, [])
        return []
    if not isinstance(value, list):
        raise ContractError("invalid_shape", f"{name} must be null or an array of objects", step)
    items = []
    for index, element in enumerate(value):
        if not isinstance(element, dict):
            raise ContractError("invalid_shape", f"{name}[{index}] is not an object", step)
        fields = []
        for key in ("id", "text"):
            field = element.get(key)
            if field is None:
                field = ""
            elif not isinstance(field, str):
                raise ContractError("invalid_shape", f"{name}[{index}].{key} must be a string or null", step)
            fields.append(field)
        items.append((fields[0], fields[1]))
    note(step, items)
    return items


def collapse(value: str) -> str:
    """Put a value on one line: split on line breaks, trim each piece (White_Space only: str.strip with exactly
    those characters), drop empty ones, join with ' '."""
    pieces = LINE_BREAK.split(value)
    note("ctx.split", pieces)
    trimmed = [piece.strip(WHITE_SPACE_CHARS) for piece in pieces]
    note("ctx.trim", trimmed)
    joined = " ".join(piece for piece in trimmed if piece)
    note("ctx.join", joined)
    return joined


def render(topical: list[Item], pinned: list[Item], recent: list[Item], cap: int) -> str:
    lines: list[str] = []
    seen: set[str] = set()
    any_pinned = False
    sections: list[tuple[list[Item], bool]] = [(pinned, True), (topical, False), (recent, False)]
    ordered = [(raw_id, raw_text, is_pinned) for items, is_pinned in sections for raw_id, raw_text in items]
    note("ctx.order", [list(item) for item in ordered])
    for raw_id, raw_text, is_pinned in ordered:
        if len(lines) >= cap:
            note("ctx.cap_limit", len(lines))
            break
        item_id, text = collapse(raw_id), collapse(raw_text)
        if not item_id or not text:
            note("ctx.skip_empty", [item_id, text])
            continue
        if "[" in item_id or "]" in item_id:
            note("ctx.skip_bracket", item_id)
            continue
        if item_id in seen:
            note("ctx.skip_duplicate", item_id)
            continue
        seen.add(item_id)
        lines.append(f"[ID: {item_id}] {PINNED_MARK if is_pinned else ''}{text}")
        note("ctx.line", lines[-1])
        any_pinned = any_pinned or is_pinned
    if not lines:
        note("ctx.output", "")
        return ""
    out = HEADER + "\n" + "\n".join(lines)
    note("ctx.output", out)
    if any_pinned:
        out += "\n" + PIN_NOTE
        note("ctx.pin_note", out)
    return out


@traced
def build_dedup_context(topical_json: object, pinned_json: object, recent_json: object, cap: object = 30) -> str:
    """Validate in signature order (topical, pinned, recent, cap) and render the block."""
    topical = parse_section(topical_json, "topical_json")
    pinned = parse_section(pinned_json, "pinned_json")
    recent = parse_section(recent_json, "recent_json")
    valid_cap = require_cap(cap)
    note("ctx.cap", valid_cap)
    return render(topical, pinned, recent, valid_cap)


__all__ = ["HEADER", "PIN_NOTE", "build_dedup_context", "collapse", "render"]
