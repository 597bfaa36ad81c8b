"""Which class a sighting is, and the one place a class grows: ``ClassBook``.

An input an implementation's host cannot hold (a high and a low lone half, in a UTF-16 host) is not sent
there, and an implementation that reads the witness with other Unicode data may agree only for that
(``counterfactual.skew.masked``): the same bug seen on such an input names fewer implementations. A sighting is a known
class when op, cause, detail and step are the same and the same implementations disagree among those both
reached; the class is then named by the union. ``file`` holds a record per class and moves it when the class's
key grows: named by the grown key and shown by the sighting that made it grow (``named_by``), or joined with the
class of that key (``merge``) when there is one already. The fuzzer, the sweep and the shard merge all file
through it: the first two their records as a run makes them (the sweep's ``SweepClass``, its members still to
come), the shard merge the reports' ``ClassRecord``s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeVar

from harness.classes.key import ClassKey


class Sighted(Protocol):
    """What a book holds per class: a record of it that knows its key, joins another sighting of its class and
    is renamed by a grown key (``ClassRecord``; a sweep's ``SweepClass``)."""

    @property
    def key(self) -> ClassKey: ...

    def merge(self, other: Self) -> Self: ...

    def named_by(self, key: ClassKey, witness_from: Self) -> Self: ...


R = TypeVar("R", bound=Sighted)


@dataclass(frozen=True)
class Filed(Generic[R]):
    """Where a sighting went: its class's key, the record held for the class, whether the class is new, and
    the key the class had until this sighting made it grow (None: it did not grow)."""

    key: ClassKey
    record: R
    created: bool
    grew_from: ClassKey | None


class ClassBook(Generic[R]):
    """The classes of one run, each with its record (``held``), in the order first filed (a class that grew
    after it is moved under its new key)."""

    def __init__(self, order: list[str]) -> None:
        self.order = order  # the run's implementations, in the order a grown class names them
        self.absent: dict[ClassKey, frozenset[str]] = {}  # class -> implementations none of its inputs reached
        self.held: dict[ClassKey, R] = {}

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

    def file(self, record: R, absent: frozenset[str]) -> Filed[R]:
        """File a sighting (``record``: what it shows, under its own key): its class's key, the record held
        for the class (the one held already, or this one for a new class) and how it got there. A class whose
        key this sighting made grow is moved under the grown key: joined with the class held there
        (``merge``), else named by the grown key and shown by this sighting (``named_by``: it reached every
        implementation the grown class names). Joining a later sighting of a known class is the caller's
        (``join``): a run keeps its class's first witness, a shard merge the smaller of two."""
        key, grew_from = self.place(record.key, absent)
        if grew_from is not None and grew_from in self.held:
            moved = self.held.pop(grew_from)
            self.held[key] = self.held[key].merge(moved) if key in self.held else moved.named_by(key, record)
        if key in self.held:
            return Filed(key, self.held[key], False, grew_from)
        self.held[key] = record
        return Filed(key, record, True, grew_from)

    def join(self, key: ClassKey, record: R) -> R:
        """A later sighting of a held class joined with it (``merge``); the joined record, now held."""
        self.held[key] = self.held[key].merge(record)
        return self.held[key]
