"""Strohmaier's statistical scaling models on this machine's own runs, against the instrumented model.

Runs a small calibration campaign here (``perfeq calibrate`` with a benchmark catalog: three sizes
per application with its second parameter fixed, so that n alone is the problem size; P = 1, 2; one
"system" per build configuration, by default -O0, -O2 and -O3; one pass over all points per
repetition, the repetitions combined by their minimum), then

1. prints ``perfeq scaling`` on all the runs (size as a second variable, relative weighting,
   individual models: Tables 1-3; joint product model: Tables 4-5);
2. lists the best individual model of every (application, build) next to the work term the
   algorithm does (n^3/p for gauss and matmul, n^2/p for the fixed-step grid codes);
3. holds out the largest size of every application and predicts its runs from the runs at the two
   smaller sizes, four ways:
     indiv.   Strohmaier individual model: per (application, build) the best kept model of the
              training runs (picked on them alone);
     joint    Strohmaier joint model: the joint model (K functions) with the lowest SSE on the
              training runs;
     instr.   perfeq's instrumented model on the same training runs: beta (ops, bytes, const)
              fitted per build on the training runs of every application, times the counts;
     LOAO     perfeq's instrumented model as ``perfeq validate`` uses it: beta fitted per build on
              the other applications' runs only (no timing of the application itself);
   and prints the mean |relative error| per application and overall and their ratios.

Timings on a shared small machine are noisy; rerun to see the spread.

    python benchmarks/scaling_on_runs.py [--reps 2] [--build O0=-O0 --build O3=-O3 ...]
                                         [--aggregate min|median|none] [--runs runs.csv] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from perfeq.cli import main as perfeq
from perfeq.examples.catalog import examples_dir
from perfeq.fitting.analysis.validate import cross_validate
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.runs import parse_params, read_runs, write_runs
from perfeq.fitting.scaling.analysis import ScalingOptions, analyse_scaling
from perfeq.fitting.scaling.data import read_scaling_csv

# Benchmark sizes: n grows 1 : 1.5 : 2 with the second parameter fixed; at the largest size a run
# takes about 1-1.5 s at -O0 and 0.2-0.5 s at -O2 here (of which about 0.1 s is mpiexec and MPI_Init).
SIZES = {
    "gauss": {"n": [440, 660, 880]},
    "matmul": {"n": [320, 480, 640], "steps": [1, 1, 1]},
    "shallow": {"n": [192, 288, 384], "steps": [100, 100, 100]},
    "ocean": {"n": [192, 288, 384], "steps": [600, 600, 600]},
    "cg": {"n": [192, 288, 384], "iters": [200, 200, 200]},
    "omp_stencil": {"n": [256, 384, 512], "steps": [300, 300, 300]},
}
# The work term each algorithm does (the physically sensible leading function).
EXPECTED = {"gauss": "n^3/p", "matmul": "n^3/p"}
GRID_TERM = "n^2/p"
DEFAULT_BUILDS = ("O0=-O0", "O2=-O2", "O3=-O3")
COSTS = ("ops", "bytes")


def write_catalog(folder: Path, apps: list[str]) -> None:
    """The bundled catalog restricted to ``apps``, with the benchmark sizes, and its sources."""
    source = examples_dir()
    catalog = json.loads((source / "catalog.json").read_text())
    entries = []
    for entry in catalog["examples"]:
        if entry["name"] not in apps:
            continue
        for param in entry["params"]:
            param["calibration"] = SIZES[entry["name"]][param["name"]]
        shutil.copy(source / entry["source"], folder / entry["source"])
        entries.append(entry)
    (folder / "catalog.json").write_text(json.dumps({**catalog, "examples": entries}, indent=1))


def campaign(folder: Path, builds: list[str], reps: int, procs: str, apps: list[str]) -> Path:
    apps_dir = folder / "apps"
    apps_dir.mkdir(exist_ok=True)
    write_catalog(apps_dir, apps)
    runs = folder / "runs.csv"
    # One pass over every point per repetition (a rerun adds the next repetition), so the repetitions
    # of a point are minutes apart and a burst of other work on the machine rarely hits all of them.
    start = time.perf_counter()
    for rep in range(1, reps + 1):
        args = [
            "calibrate",
            "--apps",
            str(apps_dir),
            "--all",
            "--procs",
            procs,
            "--reps",
            str(rep),
            "-o",
            str(runs),
        ]
        for build in builds:
            args += ["--build", build]
        status = perfeq(args)
        if status:
            raise SystemExit(status)
    print(f"campaign: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return runs


def size_of(params: str) -> float:
    return float(parse_params(params)["n"])


def app_of(code: str) -> str:
    return code.split("[", 1)[0]


def strohmaier_predictions(frame: pd.DataFrame, test: pd.DataFrame, terms: int) -> pd.DataFrame:
    """Fit on ``frame`` (training runs), predict every row of ``test``: individual and joint."""
    options = ScalingOptions(weighting="relative", max_terms=terms, joint=True)
    report = analyse_scaling(frame, options, source="training runs")
    by_label = {function.label: function for function in report.functions}
    best = {(pair.code, pair.system): pair.best for pair in report.individual.pairs}
    joint = report.joint[0]
    individual, combined, models = [], [], []
    for row in test.itertuples():
        fit = best[row.code, row.system]
        individual.append(
            sum(d * float(by_label[f](row.p, row.n)) for d, f in zip(fit.delta, fit.functions, strict=True))
        )
        combined.append(float(joint.predict_time(row.code, row.system, row.p, row.n)))
        models.append(fit.label)
    flags = "" if joint.converged and joint.identifiable else " (not converged or not identifiable)"
    print(f"joint model picked on the training runs: {joint.label}{flags}")
    return test.assign(indiv=individual, joint=combined, indiv_model=models)


def instrumented_predictions(runs_path: Path, test: pd.DataFrame) -> pd.DataFrame:
    """beta per build from the training runs (same split), and leave-one-application-out."""
    runs = read_runs(runs_path)
    largest = {}
    for run in runs:
        largest[run.app] = max(largest.get(run.app, 0.0), size_of(run.params))
    same: dict[tuple, float] = {}
    loao: dict[tuple, float] = {}
    for build in sorted({run.build for run in runs}):
        mine = [run for run in runs if run.build == build]
        training = [run for run in mine if size_of(run.params) < largest[run.app]]
        profile = fit_machine(training, list(COSTS), intercept=True, drop_empty=True)
        for run in mine:
            if size_of(run.params) == largest[run.app]:
                priced = {name: run.counts[name] for name in profile.names if name in run.counts}
                same[run.app, run.params, run.procs, run.rep, build] = predict(profile, priced).time_s
        validation = cross_validate(mine, list(COSTS), intercept=True)
        for held in validation.runs:
            loao[held.app, held.params, held.procs, held.rep, build] = held.predicted_s
    keys = [(r.app, r.params, int(r.procs), int(r.rep), r.system) for r in test.itertuples()]
    return test.assign(instr=[same.get(k, np.nan) for k in keys], loao=[loao.get(k, np.nan) for k in keys])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2, help="repetitions per point (default 2)")
    parser.add_argument(
        "--aggregate",
        choices=("min", "median", "none"),
        default="min",
        help="combine the repetitions of a point before any fit (default min: the run "
        "least disturbed by other work on the machine)",
    )
    parser.add_argument(
        "--procs", default="1,2", help="process counts (default 1,2: this machine has 2 cores)"
    )
    parser.add_argument(
        "--build",
        action="append",
        dest="builds",
        metavar="NAME=FLAGS",
        help=f"build configurations (default {' '.join(DEFAULT_BUILDS)})",
    )
    parser.add_argument("--apps", default=",".join(SIZES), help="applications (default: all six)")
    parser.add_argument("--terms", type=int, default=2, help="functions per scaling model (default 2)")
    parser.add_argument(
        "--runs", type=Path, help="analyse this runs CSV (from an earlier --keep) instead of timing"
    )
    parser.add_argument("--keep", type=Path, help="keep runs.csv and the benchmark catalog here")
    args = parser.parse_args(argv)
    apps = [name for name in args.apps.split(",") if name]
    unknown = sorted(set(apps) - set(SIZES))
    if unknown:
        parser.error(f"--apps: no benchmark sizes for {', '.join(unknown)}; have {', '.join(SIZES)}")
    with tempfile.TemporaryDirectory(prefix="perfeq-scaling-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        runs_path = args.runs or campaign(
            folder, args.builds or list(DEFAULT_BUILDS), args.reps, args.procs, apps
        )
        if args.aggregate != "none":
            runs_path = combine_repetitions(runs_path, folder / f"runs-{args.aggregate}.csv", args.aggregate)
        return analyse(runs_path, args.terms)


def combine_repetitions(source: Path, target: Path, how: str) -> Path:
    """One run per (app, params, procs, threads, build): the min or median time of its repetitions."""
    groups: dict[tuple, list] = {}
    for run in read_runs(source):
        groups.setdefault((run.app, run.params, run.procs, run.threads, run.build), []).append(run)
    combine = np.min if how == "min" else np.median
    write_runs(
        target,
        [
            replace(runs[0], rep=0, time_s=float(combine([r.time_s for r in runs])))
            for runs in groups.values()
        ],
    )
    print(f"{how} of the repetitions of each point: {target}", file=sys.stderr)
    return target


def analyse(runs_path: Path, terms: int) -> int:
    # 1. perfeq scaling on all runs, as a user would run it.
    print(f"$ perfeq scaling {runs_path} --size-param n --weighting relative --joint --top 3\n")
    status = perfeq(
        [
            "scaling",
            str(runs_path),
            "--size-param",
            "n",
            "--weighting",
            "relative",
            "--joint",
            "--max-terms",
            str(terms),
            "--top",
            "3",
        ]
    )
    if status:
        return status
    frame = read_scaling_csv(runs_path, size_param="n")
    runs = pd.read_csv(runs_path, comment="#", dtype={"params": str, "build": str})
    frame = frame.assign(
        app=runs["app"].to_numpy(),
        params=runs["params"].to_numpy(),
        procs=runs["procs"].to_numpy(),
        rep=runs["rep"].to_numpy(),
    )

    # 2. Best individual model per pair on all runs, next to the expected work term.
    report = analyse_scaling(
        frame, ScalingOptions(weighting="relative", max_terms=terms), source=str(runs_path)
    )
    print("\nbest individual model per (application, build) on all runs, and the algorithm's work term")
    sensible = 0
    for pair in report.individual.pairs:
        expected = EXPECTED.get(app_of(pair.code), GRID_TERM)
        ok = expected in pair.best.functions
        sensible += ok
        print(
            f"  {pair.code:<22} {pair.system:<6} {pair.best.label:<22} expected {expected:<6} "
            f"{'yes' if ok else 'no'}"
        )
    print(f"  work term in the best model: {sensible} of {len(report.individual.pairs)} pairs")

    # 3. Largest size held out.
    largest = frame.groupby("code")["n"].transform("max")
    training, test = frame[frame["n"] < largest], frame[frame["n"] == largest]
    print(
        f"\nheld out: the largest size of each application ({len(test)} runs), predicted from the "
        f"{len(training)} runs at the two smaller sizes"
    )
    test = strohmaier_predictions(training, test, terms)
    test = instrumented_predictions(runs_path, test)
    methods = ("indiv", "joint", "instr", "loao")
    for method in methods:
        test[f"{method}_err"] = (test[method] - test["time"]) / test["time"]
    print("\nmean |relative error| of the held-out runs (bias = mean signed error)")
    header = f"  {'application':<12} {'runs':>4} {'mean t(s)':>9}" + "".join(f" {m:>8}" for m in methods)
    print(header + "   bias: " + " ".join(f"{m:>6}" for m in methods))
    groups = [*test.groupby("app"), ("all", test)]
    for name, rows in groups:
        cells = "".join(f" {100 * rows[f'{m}_err'].abs().mean():>7.1f}%" for m in methods)
        bias = " ".join(f"{100 * rows[f'{m}_err'].mean():>+5.0f}%" for m in methods)
        print(f"  {name:<12} {len(rows):>4} {rows['time'].mean():>9.3f}{cells}   bias: {bias}")
    print("  by build:")
    for name, rows in test.groupby("system"):
        cells = "".join(f" {100 * rows[f'{m}_err'].abs().mean():>7.1f}%" for m in methods)
        print(f"  {name:<12} {len(rows):>4} {rows['time'].mean():>9.3f}{cells}")
    mean = {m: test[f"{m}_err"].abs().mean() for m in methods}
    print("\nratios of mean |error| (Strohmaier / instrumented):")
    for strohmaier in ("indiv", "joint"):
        print(
            f"  {strohmaier} / instr = {mean[strohmaier] / mean['instr']:.2f}   "
            f"{strohmaier} / LOAO = {mean[strohmaier] / mean['loao']:.2f}"
        )
    wins = (test["indiv_err"].abs() < test["instr_err"].abs()).mean()
    print(f"  held-out runs where the individual model is closer than instr.: {100 * wins:.0f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
