"""Recompute the counts of kept runs CSVs with this code's models (the measured times are kept).

The counts of a run are model output: when the symbolic stage changes, a campaign measured earlier
can be re-priced without timing anything again.  Models are built as ``perfeq calibrate`` builds
them (one instrumented run of each example at its small size on 2 processes).

    python benchmarks/recount_runs.py OUT_FOLDER RUNS.csv [RUNS.csv ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from perfeq.fitting.costs import COSTS
from perfeq.fitting.runs import parse_params, read_runs, write_runs
from perfeq.pipeline import build_instrumented, load_catalog, run_small
from perfeq.symbolic.linearize import Machine
from perfeq.symbolic.model import build_model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="folder for the recounted CSVs (same file names)")
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args(argv)
    campaigns = {path: read_runs(path) for path in args.runs}
    apps = {run.app for runs in campaigns.values() for run in runs}
    examples = {e.name: e for e in load_catalog(None) if e.name in apps}
    machine = Machine.detect()
    models, counts = {}, {}
    with tempfile.TemporaryDirectory(prefix="perfeq-recount-") as tmp:
        for name, example in examples.items():
            binary = build_instrumented(example, Path(tmp))
            models[name] = build_model([run_small(example, binary, example.small, 2, Path(tmp) / f"{name}.trace")])
    args.output.mkdir(parents=True, exist_ok=True)
    for path, runs in campaigns.items():
        new = []
        for run in runs:
            key = (run.app, run.params, run.procs)
            if key not in counts:
                values = {k: float(v) for k, v in parse_params(run.params).items()}
                slowest = models[run.app].counts(values, run.procs, 1, machine)["slowest"]
                counts[key] = {cost: float(slowest.get(cost, 0.0)) for cost in COSTS}
            new.append(dataclasses.replace(run, counts=counts[key]))
        write_runs(args.output / path.name, new)
        print(f"{args.output / path.name}: {len(new)} runs recounted", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
