"""Slowdown of instrumented runs: instrumented / plain wall time for every bundled example.

Both binaries are built with the same flags (-O2); each is run REPS times at the example's first
calibration size and the fastest run of each is compared, in one run of this script.

    python benchmarks/overhead.py [--reps 3] [--procs 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from perfeq.examples.catalog import load_catalog
from perfeq.workflows.pipeline import build_instrumented, build_plain, time_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--procs", type=int, default=1)
    args = parser.parse_args(argv)
    ratios = []
    with tempfile.TemporaryDirectory(prefix="perfeq-overhead-") as tmp:
        folder = Path(tmp)
        os.environ["PERFEQ_TRACE"] = str(folder / "trace.%r")
        print(f"{'example':12s} {'size':24s} {'plain s':>9s} {'instr. s':>9s} {'ratio':>7s}")
        for example in load_catalog():
            values = example.calibration()[0]
            plain = build_plain(example, folder / "plain")
            inst = build_instrumented(example, folder / "inst")
            argv_ = example.argv(values)
            t_plain = min(time_run(plain, argv_, args.procs) for _ in range(args.reps))
            t_inst = min(time_run(inst, argv_, args.procs) for _ in range(args.reps))
            ratios.append(t_inst / t_plain)
            print(f"{example.name:12s} {str(values):24s} {t_plain:9.3f} {t_inst:9.3f} {t_inst / t_plain:7.2f}")
    print(f"median slowdown {statistics.median(ratios):.2f}x (goal: at most 1.2x), worst {max(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
