"""Throughput benchmark on the fixture inputs (``nox -s bench`` / ``python -m harness bench``).

Measures requests per second for every declared implementation: in-process ones (the function called
directly) and command testees (one request per round trip, and batches of 1,000). Numbers are
printed as a table and written as JSON; nothing is asserted: speed is measured, not tested.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Any, Callable

from harness.testees import impls
from harness.fixtures.load import all_cases
from harness.model.files import atomic_write
from harness.model.registry import get_op


def _inputs() -> list[tuple[str, dict[str, Any]]]:
    return [(case.op, case.args) for case in all_cases()]


def _rate(run: Callable[[], int], min_seconds: float) -> tuple[float, int]:
    """Requests per second over repeated runs lasting at least ``min_seconds``."""
    done = 0
    start = time.perf_counter()
    while True:
        done += run()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return done / elapsed, done


def bench(min_seconds: float = 2.0, names: list[str] | None = None, batch: int = 1000) -> list[dict[str, Any]]:
    inputs = _inputs()
    rows: list[dict[str, Any]] = []
    for name in names or impls.names():
        try:
            impl = impls.get_impl(name)
        except impls.ImplementationUnavailable as exc:
            rows.append({"implementation": name, "mode": "unavailable", "note": str(exc)})
            continue
        try:
            if not isinstance(impl, impls.InProcess):
                def one_by_one() -> int:
                    for op, args in inputs[:200]:
                        impl.call(op, args)
                    return 200

                requests = [inputs[i % len(inputs)] for i in range(batch)]

                def batched() -> int:
                    impl.call_batch(requests)
                    return batch

                for mode, run in (("testee, 1 request per round trip", one_by_one),
                                  (f"testee, batches of {batch}", batched)):
                    rate, count = _rate(run, min_seconds)
                    rows.append({"implementation": name, "mode": mode, "requestsPerSecond": rate, "requests": count})
            else:
                functions = [(impl.resolve(get_op(op)), args) for op, args in inputs]

                def direct() -> int:
                    for function, args in functions:
                        try:
                            function(**args)
                        except ValueError:
                            pass
                    return len(functions)

                rate, count = _rate(direct, min_seconds)
                rows.append({"implementation": name, "mode": "in process, direct call", "requestsPerSecond": rate,
                             "requests": count})
        finally:
            impl.close()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'implementation':<14} {'mode':<34} {'requests/s':>12}"]
    for row in rows:
        rate = f"{row['requestsPerSecond']:>12,.0f}" if "requestsPerSecond" in row else f"{'-':>12}"
        lines.append(f"{row['implementation']:<14} {row['mode']:<34} {rate}")
    return "\n".join(lines)


def main(out: Path, min_seconds: float) -> int:
    rows = bench(min_seconds)
    print(f"fixture inputs: {len(_inputs())} cases (all ops, errors included); {platform.python_version()} on "
          f"{platform.machine()}")
    print(table(rows))
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, json.dumps({"benchmark": "throughput-v1", "python": platform.python_version(),
                               "rows": rows}, indent=2) + "\n")
    print(f"written {out}")
    return 0
