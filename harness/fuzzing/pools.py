"""The worker pools of the fuzzer and the sweep, ended within a bound.

``Pool.terminate`` joins every worker, and a worker the pool forked to replace one that ended while the
pool was being torn down waits for ever on the task queue's lock, which the terminating pool holds: the
join never returns (a test session once hung there, in the fuzzer's rate of ``nox -s bench``'s test).
``ending`` terminates the pool from a helper thread and, when that has not finished within ``grace``
seconds, kills every child process left, which lets the joins return."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

GRACE = 10.0


def end(pool: Any, grace: float = GRACE) -> None:
    """``pool.terminate()``, bounded: after ``grace`` seconds every child process still alive is killed."""
    ender = threading.Thread(target=pool.terminate, name="pool-terminate", daemon=True)
    ender.start()
    ender.join(grace)
    if ender.is_alive():
        for child in multiprocessing.active_children():
            child.kill()
        ender.join(grace)


@contextmanager
def ending(start_method: str, workers: int, initializer: Callable[..., Any],
           initargs: tuple[Any, ...]) -> Iterator[Any]:
    """A pool of ``workers`` processes that ``end`` ends, however the block is left."""
    pool = multiprocessing.get_context(start_method).Pool(workers, initializer=initializer, initargs=initargs)
    try:
        yield pool
    finally:
        end(pool)
