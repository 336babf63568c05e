"""Recompute the counts of kept runs CSVs with this code's models (the measured times are kept).

The counts of a run are model output: when the symbolic stage changes, a campaign measured earlier
can be re-priced without timing anything again.  Models are built as ``perfeq calibrate`` builds
them (one instrumented run of each example at its small size on 2 processes); the cache counts use
this machine's caches unless ``--caches`` gives the description of the machine the runs were on.

    python benchmarks/recount_runs.py OUT_FOLDER RUNS.csv [RUNS.csv ...] [--caches machine.yaml]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from perfeq.examples.catalog import load_catalog
from perfeq.fitting.regression.runs import read_runs, write_runs
from perfeq.symbolic.machine import Machine
from perfeq.workflows.calibrate import example_model, run_counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="folder for the recounted CSVs (same file names)")
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--caches", type=Path, help="cache description (perfeq machine -o); default: this machine")
    args = parser.parse_args(argv)
    campaigns = {path: read_runs(path, recount=True) for path in args.runs}
    apps = {run.app for runs in campaigns.values() for run in runs}
    examples = {e.name: e for e in load_catalog(None) if e.name in apps}
    if apps - set(examples):
        print(f"recount_runs: not bundled examples: {', '.join(sorted(apps - set(examples)))}", file=sys.stderr)
        return 2
    machine = Machine.load(args.caches) if args.caches else Machine.detect()
    with tempfile.TemporaryDirectory(prefix="perfeq-recount-") as tmp:
        models = {name: example_model(example, Path(tmp)) for name, example in examples.items()}
    args.output.mkdir(parents=True, exist_ok=True)
    counts: dict[tuple, dict[str, float]] = {}
    for path, runs in campaigns.items():
        new = []
        for run in runs:
            key = (run.app, run.params, run.procs, run.threads)
            if key not in counts:
                counts[key] = run_counts(models[run.app], run.params, run.procs, run.threads, machine)
            new.append(dataclasses.replace(run, counts=counts[key]))
        write_runs(args.output / path.name, new)
        print(f"{args.output / path.name}: {len(new)} runs recounted", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
