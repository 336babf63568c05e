"""Held-out accuracy of the fit-free convolution (probes + signature) against real runs, beside the regression.

For every bundled example: build its model from the two small instrumentation runs (as perfeq
calibrate does), then at each of its calibration sizes and at a larger one (the main parameter
times --scale), on P = 1 and 2, time the plain program (median of --reps) and predict it

* from the probe file alone (``perfeq predict MODEL --machine probes.json``: no fit, no run of it);
* from a regression fitted on a kept calibration campaign without this application's runs
  (``--runs``, costs ``--costs`` with an intercept: held out), when ``--runs`` is given;
* from both: the same regression with the message costs taken from the probe file (``perfeq fit
  --probes``: startup and bytes from the ping-pong, the other costs fitted beside them).

Prints predicted / measured per example, size and P with the level of the largest nest's footprint
(in cache or out of cache, against the probed last-level cache), and per group the mean |error| and,
for the two regressions, how many runs fall inside the 95 % prediction interval.  The
time of an empty MPI job (start-up, not priced by the probes) is printed beside.

    python benchmarks/convolution_accuracy.py [--probes probes.json] [--runs benchmarks/data/X.runs.csv]
        [--reps 3] [--scale 2] [--examples gauss,cg] [--overlap max] [--max-seconds 20]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import sympy as sp

from perfeq.examples.catalog import load_catalog
from perfeq.fitting.convolution.convolve import convolve
from perfeq.fitting.convolution.probecosts import ProbeCosts
from perfeq.fitting.regression.predict import predict_model
from perfeq.fitting.regression.probed import probed_costs
from perfeq.symbolic.machine import Machine
from perfeq.workflows.pipeline import (
    build_instrumented,
    build_plain,
    build_size_probe,
    model_example,
    time_run,
)


def sizes(example, scale: int) -> list[dict[str, float]]:
    """The example's calibration sizes, and the largest with its main parameter times ``scale``."""
    points = [{p["name"]: float(p["calibration"][i]) for p in example.params} for i in range(3)]
    big = dict(points[-1])
    big[example.params[0]["name"]] *= scale
    return [*points, big]


def footprint(model, values, procs) -> float:
    """The largest nest footprint of the slowest rank (bytes)."""
    args = [float(values[name]) for name in model.parameters] + [procs, 1, np.arange(procs)]
    return max((float(np.max(np.broadcast_to(sp.lambdify(model.arguments, nest["footprint"], "numpy")(*args),
                                             (procs,)))) for nest in model.nests), default=0.0)


def regression(runs_csv: Path | None, app: str, costs: str, fixed=None):
    """A machine profile fitted without ``app``'s runs (None without a runs file); ``fixed``: costs
    taken from the probes (perfeq fit --probes)."""
    if runs_csv is None:
        return None
    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.runs import read_runs

    others = [run for run in read_runs(runs_csv) if run.app != app]
    return fit_machine(others, costs.split(","), intercept=True, fixed=fixed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=Path, help="probe file (default: perfeq probe --quick now)")
    parser.add_argument("--runs", type=Path, help="a calibration campaign (runs CSV) for the regression column")
    parser.add_argument("--costs", default="loads,stores,branch,chain,shared")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--scale", type=int, default=2)
    parser.add_argument("--examples", help="comma-separated names (default: all)")
    parser.add_argument("--overlap", default="max", choices=("max", "sum"))
    parser.add_argument("--max-seconds", type=float, default=20.0, help="skip points predicted slower than this")
    args = parser.parse_args(argv)
    chosen = set(args.examples.split(",")) if args.examples else None
    with tempfile.TemporaryDirectory(prefix="perfeq-convolution-") as tmp:
        folder = Path(tmp)
        probes = args.probes
        if probes is None:
            probes = folder / "probes.json"
            subprocess.run([sys.executable, "-m", "perfeq", "probe", "--quick", "-o", str(probes)], check=True,
                           cwd=folder)
        costs = ProbeCosts.load(probes)
        probed = probed_costs(costs)
        last = costs.levels(1)[-2].bytes
        empty = build_size_probe(folder / "size")
        startup = {p: statistics.median(time_run(empty, [], p) for _ in range(3)) for p in (1, 2)}
        print(f"probe file {probes}; last-level cache {last / 2**20:.0f} MiB; empty MPI job "
              + ", ".join(f"P={p}: {s:.3f} s" for p, s in startup.items()) + " (not priced)")
        print(f"{'example':11s} {'params':22s} {'P':>2s} {'footprint':>10s} {'where':>12s} {'measured':>9s} "
              f"{'conv':>8s} {'conv/m':>7s} {'band':>15s} {'regr':>8s} {'regr/m':>7s} {'both':>8s} {'both/m':>7s}")
        errors: dict[tuple[str, str], list[float]] = {}
        inside: dict[tuple[str, str], list[bool]] = {}
        for example in load_catalog():
            if chosen and example.name not in chosen:
                continue
            binary = build_instrumented(example, folder / example.name)
            model = model_example(example, binary, folder / example.name)
            plain = build_plain(example, folder / example.name)
            profiles = {"regr": regression(args.runs, example.name, args.costs),
                        "both": regression(args.runs, example.name, args.costs, probed)}
            for values in sizes(example, args.scale):
                for procs in (1, 2):
                    result = convolve(model, costs, values, procs, overlap=args.overlap)
                    if result.seconds > args.max_seconds:
                        print(f"{example.name:11s} {_params(values):22s} {procs:2d} skipped: predicted {result.seconds:.1f} s")
                        continue
                    measured = statistics.median(time_run(plain, example.argv(values), procs) for _ in range(args.reps))
                    where = "out of cache" if footprint(model, values, procs) > last / procs else "in cache"
                    line = (f"{example.name:11s} {_params(values):22s} {procs:2d} "
                            f"{footprint(model, values, procs) / 2**20:8.1f}Mi {where:>12s} {measured:9.3f} "
                            f"{result.seconds:8.3f} {result.seconds / measured:7.3f} "
                            f"{result.band[0]:7.3f}-{result.band[1]:<7.3f}")
                    errors.setdefault(("conv", where), []).append(abs(result.seconds / measured - 1))
                    for kind, profile in profiles.items():
                        if profile is None:
                            continue
                        predicted, _, _ = predict_model(model, profile, values, procs, 1, Machine.detect())
                        line += f" {predicted.time_s:8.3f} {predicted.time_s / measured:7.3f}"
                        errors.setdefault((kind, where), []).append(abs(predicted.time_s / measured - 1))
                        low, high = predicted.prediction_interval
                        inside.setdefault((kind, where), []).append(low <= measured <= high)
                    print(line, flush=True)
        print()
        names = {"conv": "probes + convolution", "regr": "regression (held out)",
                 "both": "regression + probes (held out)"}
        for (kind, where), found in sorted(errors.items()):
            held = inside.get((kind, where))
            coverage = f", inside the 95 % PI {sum(held)}/{len(held)}" if held else ""
            print(f"{names[kind]:31s} {where:12s} mean |error| {100 * statistics.mean(found):5.1f} % over "
                  f"{len(found)} runs{coverage}")
    return 0


def _params(values: dict[str, float]) -> str:
    return ";".join(f"{k}={v:g}" for k, v in values.items())


if __name__ == "__main__":
    sys.exit(main())
