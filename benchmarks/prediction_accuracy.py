"""Held-out accuracy of predicted run times on this machine (the paper's Table 1).

Calibrates on the bundled examples (perfeq calibrate), then, leaving each application out in turn,
fits the machine on the others and predicts the left-out one's runs (sizes 8x and more beyond its
instrumentation runs, P = 1 and 2): prints per application runs, sigma, mean time, COV, average
relative error, and the coverage of the 95 % prediction intervals, via perfeq validate: first with
the between-application error in the intervals (perfeq's default for a program the fit never saw),
then the same runs with the fit's own error only (--within-fit-intervals), for comparison.

    python benchmarks/prediction_accuracy.py [--reps 3] [--costs loads,stores,branch,chain,shared] [--seed 0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from perfeq.cli import main as perfeq


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--costs", default="loads,stores,branch,chain,shared",
                        help="costs to fit (default loads,stores,branch,chain,shared: the best held-out error measured here)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the calibration's shuffled run order")
    parser.add_argument("--keep", type=Path, help="keep runs.csv and the validation folder here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="perfeq-accuracy-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        runs = folder / "runs.csv"
        status = perfeq(["calibrate", "--reps", str(args.reps), "--seed", str(args.seed), "-o", str(runs)])
        if status:
            return status
        common = ["validate", str(runs), "--costs", args.costs, "--intercept"]
        status = perfeq([*common, "-o", str(folder / "validation")])
        if status:
            return status
        print()
        return perfeq([*common, "--within-fit-intervals", "-o", str(folder / "validation-within-fit")])


if __name__ == "__main__":
    sys.exit(main())
