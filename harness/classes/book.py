"""Which class a sighting is, and the one place a class grows: ``ClassBook``.

An input an implementation's host cannot hold (a high and a low lone half, in a UTF-16 host) is not sent
there, and an implementation that reads the witness with other Unicode data may agree only for that
(``counterfactual.skew.masked``): the same bug seen on such an input names fewer implementations. A sighting is a known
class when op, cause, detail and step are the same and the same implementations disagree among those both
reached; the class is then named by the union. ``file`` keeps what a caller holds per class (a sweep's
member runs, a fuzz run's report entry, a merged report's class) and moves it when the class's key grows:
the fuzzer, the sweep and the shard merge all file through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from harness.classes.key import ClassKey

T = TypeVar("T")


class ClassBook(Generic[T]):
    """The classes of one run, each with what its caller holds for it (``held``), in the order first filed."""

    def __init__(self, order: list[str]) -> None:
        self.order = order  # the run's implementations, in the order a grown class names them
        self.absent: dict[ClassKey, frozenset[str]] = {}  # class -> implementations none of its inputs reached
        self.held: dict[ClassKey, T] = {}

    def place(self, key: ClassKey, absent: frozenset[str]) -> tuple[ClassKey, ClassKey | None]:
        """(the class's key, the key it had until now when this sighting made it grow, else None)."""
        for known, known_absent in self.absent.items():
            if (known.op, known.cause, known.detail, known.step) != (key.op, key.cause, key.detail, key.step) or \
                    set(known.impls) - absent != set(key.impls) - known_absent:
                continue
            if not set(known.impls) & set(key.impls):
                # No implementation in common: two shares that agree only vacuously (each one's outside the
                # other's reach: pyo3's and wasm's case skew of 17.0, Pyodide's of 16.0) are two classes.
                continue
            union = set(known.impls) | set(key.impls)
            if union == set(known.impls):
                self.absent[known] = known_absent & absent
                return known, None
            grown = known.named_by(name for name in self.order if name in union)
            self.absent[grown] = self.absent.pop(known) & absent
            return grown, known
        self.absent[key] = absent
        return key, None

    def file(self, key: ClassKey, absent: frozenset[str], new: Callable[[ClassKey], T],
             join: Callable[[T, T], T | None], grow: Callable[[T, ClassKey], T | None],
             moved: Callable[[ClassKey, ClassKey], None] | None = None) -> tuple[ClassKey, T, bool]:
        """File a sighting: (its class's key, what is held for the class, whether the class is new). A class
        whose key grew is moved under the grown key: ``join(into, moved)`` when the grown key is a class held
        already (one class now), else ``grow(held, key)`` renames it; each changes what it is given, or
        returns what is to be held instead (a frozen record). ``moved(old, new)`` tells the caller (to move
        what else it keeps by key). A class not held yet gets ``new(key)``."""
        key, grew_from = self.place(key, absent)
        if grew_from is not None and grew_from in self.held:
            held = self.held.pop(grew_from)
            if key in self.held:
                joined = join(self.held[key], held)
                if joined is not None:
                    self.held[key] = joined
            else:
                grown = grow(held, key)
                self.held[key] = held if grown is None else grown
            if moved is not None:
                moved(grew_from, key)
        if key in self.held:
            return key, self.held[key], False
        self.held[key] = new(key)
        return key, self.held[key], True
