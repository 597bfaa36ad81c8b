"""One batch of calls on several implementations at once: the out-of-process ones (command testees) in
threads, so their processes work while the in-process ones run here. Every answer still comes back
through the one call path (``Testee.call_batch``)."""

from __future__ import annotations

import threading
from typing import Any

from harness.testees.impls import InProcess
from harness.testees.testee import Response, Testee

Calls = list[tuple[str, dict[str, Any]]]


def call_all(opened: dict[str, Testee], calls: dict[str, Calls]) -> dict[str, list[Response]]:
    """``calls[name]`` on ``opened[name]`` for every name in ``calls``; answers by name, in order."""
    answers: dict[str, list[Response]] = {}
    failures: dict[str, BaseException] = {}

    def run(name: str) -> None:
        try:
            answers[name] = opened[name].call_batch(calls[name])
        except BaseException as exc:  # noqa: BLE001 - re-raised below, in the caller's thread
            failures[name] = exc

    threads = [threading.Thread(target=run, args=(name,), name=f"call-{name}", daemon=True)
               for name in calls if not isinstance(opened[name], InProcess)]
    for thread in threads:
        thread.start()
    for name in calls:
        if isinstance(opened[name], InProcess):
            run(name)
    for thread in threads:
        thread.join()
    if failures:
        raise next(iter(failures.values()))
    return {name: answers[name] for name in calls}
