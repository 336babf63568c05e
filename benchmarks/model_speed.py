"""Speed of the symbolic stage: model build time per example, and evaluation over a 200 x 200 grid.

    python benchmarks/model_speed.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from perfeq.examples.catalog import load_catalog
from perfeq.workflows.pipeline import build_instrumented, model_example


def main() -> int:
    print(f"{'example':12s} {'build s':>8s} {'200x200 grid s':>15s} {'items':>6s}")
    with tempfile.TemporaryDirectory(prefix="perfeq-speed-") as tmp:
        for example in load_catalog():
            folder = Path(tmp)
            binary = build_instrumented(example, folder)
            start = time.perf_counter()
            model = model_example(example, binary, folder)
            built = time.perf_counter() - start
            first = example.params[0]["name"]
            fixed = {k: float(v) for k, v in example.small.items()}
            sizes = np.geomspace(100, 100_000, 200).round()
            procs = np.unique(np.geomspace(1, 4096, 200).round()).astype(int)
            start = time.perf_counter()
            grid = model.grid("ops", first, sizes, procs, fixed)
            evaluated = time.perf_counter() - start
            assert grid.shape == (len(procs), len(sizes))
            print(f"{example.name:12s} {built:8.2f} {evaluated:15.3f} {len(model.items):6d}  ({len(procs)} P values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
