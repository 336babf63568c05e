"""Accuracy of the symbolic counts: model from small runs vs a real instrumented run at a larger size.

For every bundled example: instrument it, run it at its small size and at twice that on 2
processes, build the model from both traces, then run the instrumented program at SCALE times the small size on 4 processes
(oversubscribed is fine for counting) and print predicted / measured for ops, par, startup, bytes.

    python benchmarks/model_accuracy.py [--scale 8] [--procs 4] [--examples gauss,cg]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from perfeq.examples.catalog import load_catalog
from perfeq.symbolic.measured import measured_counts
from perfeq.symbolic.observe import from_trace
from perfeq.workflows.pipeline import build_instrumented, model_example, run_small

KEYS = ("ops", "par", "startup", "bytes")


def scaled(example, scale: int) -> dict[str, int]:
    """The small size with the first (main size) parameter multiplied by ``scale``."""
    values = dict(example.small)
    first = example.params[0]["name"]
    values[first] = values[first] * scale
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=8)
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--examples", help="comma-separated names (default: all)")
    args = parser.parse_args(argv)
    chosen = set(args.examples.split(",")) if args.examples else None
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="perfeq-accuracy-") as tmp:
        folder = Path(tmp)
        print(f"{'example':12s} {'key':8s} {'measured':>14s} {'predicted':>14s} {'pred/meas':>10s}  model s")
        for example in load_catalog():
            if chosen and example.name not in chosen:
                continue
            binary = build_instrumented(example, folder)
            start = time.perf_counter()
            model = model_example(example, binary, folder)
            build_seconds = time.perf_counter() - start
            values = scaled(example, args.scale)
            big = run_small(example, binary, values, args.procs, folder / f"{example.name}.big.trace")
            measured = measured_counts(from_trace(big))["total"]
            predicted = model.counts({k: float(v) for k, v in values.items()}, args.procs)["total"]
            for key in KEYS:
                m, p = measured[key], predicted[key]
                ratio = p / m if m else (1.0 if p == 0 else float("inf"))
                worst = max(worst, abs(ratio - 1))
                print(f"{example.name:12s} {key:8s} {m:14.6g} {p:14.6g} {ratio:10.4f}  {build_seconds:.2f}")
            for fallback in model.fallbacks:
                print(f"    {fallback}")
    print(f"worst |predicted/measured - 1| = {worst:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
