"""Time decide_write with 50 candidates x 768 dimensions through each in-process implementation.

Inputs: random floats in [-1, 1] written with 17 significant digits (seeded, so every run sends the same
bytes). Prints the median of several timed rounds per implementation, in ms per call.

    python harness/tools/bench_decide_write.py [--candidates 50] [--dims 768] [--calls 200]
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import time


def inputs(candidates: int, dims: int, seed: int = 768) -> tuple[str, str, str]:
    rng = random.Random(seed)

    def vector() -> str:
        return "[" + ",".join(format(rng.uniform(-1.0, 1.0), ".17g") for _ in range(dims)) + "]"

    cands = ",".join(
        f'{{"id":"c{i}","text":{json.dumps(f"stored fact {i}")},"embedding":{vector()},"pinned":false}}'
        for i in range(candidates)
    )
    return "a new fact", vector(), f"[{cands}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--candidates", type=int, default=50)
    parser.add_argument("--dims", type=int, default=768)
    parser.add_argument("--calls", type=int, default=200, help="calls per round (5 rounds)")
    parser.add_argument("--impls", default="memgate_rs,reference.write_gate")
    args = parser.parse_args()
    text, embedding, candidates = inputs(args.candidates, args.dims)
    print(f"decide_write: {args.candidates} candidates x {args.dims} dims, "
          f"{len(candidates) + len(embedding):,} bytes of JSON per call")
    for name in args.impls.split(","):
        module = importlib.import_module(name)
        module.decide_write(text, embedding, candidates)  # warm-up, and it must not raise
        rounds = []
        calls = max(1, args.calls if name == "memgate_rs" else args.calls // 20)
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(calls):
                module.decide_write(text, embedding, candidates)
            rounds.append((time.perf_counter() - started) / calls * 1000)
        print(f"  {name:24} {statistics.median(rounds):8.3f} ms per call (median of 5 rounds of {calls})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
