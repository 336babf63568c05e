"""The workflows' subcommands: ``perfeq calibrate`` (the measurement campaign, paper section 3.3),
``perfeq tour`` (the whole pipeline on the bundled examples) and ``perfeq probe`` (the machine's
memory, compute and network curves from small C probes).

Registered by perfeq/cli.py; handlers return the exit status and raise perfeq errors for the CLI to print.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

from perfeq.errors import FitError, Interrupted, UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    from perfeq.workflows.calibrate import ORDERS

    c = subparsers.add_parser(
        "calibrate",
        help="time the calibration applications at several sizes and process counts (runs CSV)",
        description="Measurement campaign: model each application from one small instrumented run, "
        "time the plain program at each calibration point, and store its predicted counts beside "
        "its time. Rerunning skips points already in the output.",
    )
    c.add_argument("--apps", type=Path, help="folder with catalog.json and the C sources (default: bundled)")
    c.add_argument("--only", help="comma-separated application names")
    c.add_argument("--all", action="store_true",
                   help="also applications the catalog marks as not fit for calibration (poorly modeled)")
    c.add_argument("--procs", default="1,2", help="process counts, e.g. 1,2,4 (default 1,2)")
    c.add_argument("--reps", type=int, default=3, help="repetitions per point (default 3)")
    c.add_argument("--order", choices=ORDERS, default="shuffled",
                   help="run order: shuffled (default; a machine's slow drifts spread over all applications) "
                   "or grouped (application by application)")
    c.add_argument("--seed", type=int, default=0, help="seed of the shuffled order (default 0)")
    c.add_argument("--build", action="append", metavar="NAME=FLAGS", dest="builds",
                   help="time every point once per build configuration: FLAGS replace -O2 "
                   "(e.g. --build O0=-O0 --build O3='-O3 -march=native'); NAME goes into the runs' build column")
    c.add_argument("--launcher", help="launch template, default 'mpiexec -n {P} {cmd}' (Slurm: 'srun -n {P} {cmd}'); "
                   "its words are passed as they are, not expanded by a shell (also in a --slurm script)")
    c.add_argument("--workdir", type=Path, help="where binaries, traces and models go (default: a temp folder; with --slurm, SCRIPT.d, "
                   "since the script runs the binaries later)")
    c.add_argument("--slurm", type=Path, metavar="SCRIPT", help="write a Slurm batch script instead of running")
    c.add_argument("--import-times", type=Path, metavar="CSV", help="read times measured by a --slurm script")
    c.add_argument("--levels", action="store_true",
                   help="add, for each application and process count, a size per level of this machine's memory "
                   "hierarchy (its loop nests' working set in L1, each cache, and memory), the other parameters "
                   "lowered to keep runs under --max-seconds (timed by --machine PROFILE, or at 0.3 ns per operation)")
    c.add_argument("-o", "--output", type=Path, required=True, help="runs CSV (appended to; resumable)")
    target = c.add_argument_group(
        "the runs one prediction needs (docs/calibration-design.md)",
        "perfeq calibrate --for MODEL N=.. P=.. --machine PROFILE -o RUNS: among the applications at their "
        "catalog sizes and at one size per cache level of this machine, time the runs that tighten the "
        "interval of that prediction most per second (a c-optimal sequential design; --criterion D: "
        "D-optimal), then refit")
    target.add_argument("--for", dest="target", type=Path, metavar="MODEL", help="the model of the program to predict")
    target.add_argument("at", nargs="*", metavar="NAME=VALUE", help="with --for: where, e.g. n=64000 P=64")
    target.add_argument("--machine", type=Path, metavar="PROFILE", help="with --for: the fitted profile "
                        "(of earlier runs) whose prediction to tighten; with --levels: what times the runs")
    target.add_argument("--budget", type=float, default=120.0, help="with --for: seconds of runs at most (default 120)")
    target.add_argument("--max-runs", type=int, default=12, help="with --for: runs at most (default 12)")
    target.add_argument("--max-seconds", type=float, default=20.0,
                        help="with --for or --levels: leave out runs predicted to take longer (default 20)")
    target.add_argument("--criterion", choices=("target", "D"), default="target",
                        help="with --for: target (default: the prediction's variance) or D (every cost's)")
    target.add_argument("--dry-run", action="store_true", help="with --for: print the chosen runs, run nothing")
    c.set_defaults(func=run_calibrate)

    t = subparsers.add_parser(
        "tour",
        help="run the whole pipeline on the bundled examples (instrument, model, calibrate, predict)",
        description="The tour: instrument an example, run it small, model it, calibrate this machine "
        "on the other examples, check a prediction against a real run, predict at a much larger "
        "size with intervals, and plot the sensitivity to message startup. Message costs come from "
        "quick probes (runs on 1-2 processes cannot identify them). Resumable.",
    )
    t.add_argument("-o", "--output", type=Path, default=Path("tour"), help="output folder (default tour/)")
    t.add_argument("--example", default="gauss", help="the example to predict (default gauss)")
    t.add_argument("--reps", type=int, default=2, help="calibration repetitions (default 2)")
    t.add_argument("--procs", default="1,2", help="calibration process counts (default 1,2)")
    t.add_argument("--probes", type=Path, metavar="PROBES.json", help="take the message costs from this probe "
                   "file (default: run perfeq probe --quick into the output folder, about 10 s)")
    t.set_defaults(func=_tour)

    p = subparsers.add_parser(
        "probe",
        help="measure this machine with small C probes: memory, compute and network curves (perfeq-probes)",
        description="Compile small C/MPI probes with your mpicc and run them: memory rates against the working "
        "set (4 KiB to 4x the last-level cache; unit stride, a large stride, a random chase; 1 to all cores at "
        "once), the cost of additions (independent, chained), integer operations and a mispredicted branch, "
        "MPI ping-pong and collectives against message size and P. Writes a versioned JSON file "
        "(docs/probes.md) and PNG plots beside it.",
    )
    p.add_argument("-o", "--output", type=Path, default=Path("probes.json"), help="the results (default probes.json)")
    p.add_argument("--quick", action="store_true", help="fewer sizes and repetitions (under a minute on a small machine)")
    p.add_argument("--procs", help="process counts of the collectives, e.g. 2,4,8 (default 2, 4, ... all cores)")
    p.add_argument("--cores", type=int, help="run the memory probe on up to this many processes at once "
                   "(default: this node's physical cores)")
    p.add_argument("--launcher", help="launch template of the collectives, default 'mpiexec -n {P} {cmd}' "
                   "(Slurm: 'srun -n {P} {cmd}')")
    p.add_argument("--node-launcher", help="launch template of what stays on one node: memory, compute, the "
                   "ping-pong within a node (default: --launcher; Slurm: 'srun -N 1 -n {P} {cmd}')")
    p.add_argument("--across-launcher", help="launch template of the ping-pong across nodes, 2 processes on 2 nodes "
                   "(Slurm: 'srun -N 2 -n 2 --ntasks-per-node=1 {cmd}'); without it that ping-pong is not run")
    p.add_argument("--plots", type=Path, metavar="DIR", help="folder of the PNG plots (default: OUTPUT without "
                   ".json, plus .plots)")
    p.add_argument("--workdir", type=Path, help="where the probes are compiled (default: a temp folder)")
    p.add_argument("--json", action="store_true", help="print the headline numbers as JSON on stdout")
    p.add_argument("--slurm", type=Path, metavar="SCRIPT",
                   help="write a Slurm batch script that runs this command in the job with srun, instead of running")
    p.add_argument("--nodes", type=int, default=1, help="with --slurm: nodes of the job (2 or more: the ping-pong "
                   "across nodes too; default 1)")
    p.add_argument("--srun", default="srun", help="with --slurm: the srun command, e.g. 'srun --mpi=pmi2' (default srun)")
    p.add_argument("--time", default="00:30:00", help="with --slurm: the job's time limit (default 00:30:00)")
    p.set_defaults(func=run_probe)


def _examples(args: argparse.Namespace):
    from perfeq.examples.catalog import load_catalog

    examples = load_catalog(args.apps)
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {e.name for e in examples}
        if unknown:
            raise UsageError(f"--only: no application named {', '.join(sorted(unknown))}")
        examples = [e for e in examples if e.name in names]
    elif not getattr(args, "all", False):
        for e in examples:
            if not e.calibrate:
                print(f"calibrate: leaving out {e.name}: {e.calibrate_note} (--all includes it)", file=sys.stderr)
        examples = [e for e in examples if e.calibrate]
    return examples


def _builds(texts: list[str] | None) -> dict[str, tuple[str, ...]] | None:
    """``["O0=-O0", "O3=-O3 -funroll-loops"]`` -> ``{"O0": ("-O0",), "O3": ("-O3", "-funroll-loops")}``."""
    import re
    import shlex

    if not texts:
        return None
    builds: dict[str, tuple[str, ...]] = {}
    for text in texts:
        name, sep, flags = text.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*", name):
            raise UsageError(f"--build {text}: expected NAME=FLAGS with a name of letters, digits, _ . + -, "
                             "e.g. --build O3=-O3")
        if name in builds:
            raise UsageError(f"--build {name} is given twice")
        try:
            builds[name] = tuple(shlex.split(flags))
        except ValueError as exc:
            raise UsageError(f"--build {text}: {exc}") from None
    return builds


def run_calibrate(args: argparse.Namespace) -> int:
    from perfeq.workflows.calibrate import parse_procs, plan, run_campaign, write_slurm_script

    examples = _examples(args)
    procs = parse_procs(args.procs)
    builds = _builds(args.builds)
    _check_target_options(args)
    if args.target:
        return _calibrate_for(args, examples, procs)
    if args.reps < 1:
        raise UsageError("--reps must be at least 1")
    if (builds or args.levels) and (args.slurm or args.import_times):
        raise UsageError("--build and --levels work with campaigns run here; --slurm and --import-times take the "
                         "default build and the catalog's sizes")
    with tempfile.TemporaryDirectory(prefix="perfeq-calibrate-") as tmp:
        workdir = args.workdir or Path(tmp)
        if args.slurm:
            from perfeq.workflows.pipeline import build_plain, build_size_probe

            # the script runs the binaries after perfeq has exited: they cannot live in a temp folder
            workdir = (args.workdir or Path(f"{args.slurm}.d")).resolve()
            binaries = {e.name: build_plain(e, workdir / "plain") for e in examples}
            times = args.output.with_suffix(".times.csv")
            write_slurm_script(plan(examples, procs, args.reps, order=args.order, seed=args.seed), binaries, args.slurm,
                               times, args.launcher or "srun -n {P} {cmd}", probe=build_size_probe(workdir),
                               import_command=_import_command(args, times, absolute=True))
            print(f"wrote {args.slurm}: sbatch it, then {_import_command(args, times)}", file=sys.stderr)
            return 0
        if args.import_times:
            return _import_times(args, examples, workdir)
        kept = _runs_in(args.output)
        models, extra = _level_sizes(examples, procs, workdir, args.max_seconds, args.machine) if args.levels \
            else (None, None)
        try:
            runs = run_campaign(examples, args.output, workdir, procs, args.reps, args.launcher, builds=builds,
                                order=args.order, seed=args.seed, models=models, extra=extra)
        except KeyboardInterrupt:
            now = _runs_in(args.output)
            raise Interrupted(f"interrupted: {now - kept} new runs kept in {args.output} ({now} in all); run the "
                              "same command again to time the rest") from None
    print(f"calibrate: {len(runs)} new runs in {args.output}", file=sys.stderr)
    return 0


def _level_sizes(examples, procs: list[int], workdir: Path, max_seconds: float, machine: Path | None):
    """``calibrate --levels``: the example models and each one's sizes per level of this machine, their
    times predicted by the profile ``machine`` (or roughly, without one)."""
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.symbolic.machine import Machine, cache_levels
    from perfeq.workflows.calibrate import example_models
    from perfeq.workflows.targeted import Pricer, WorkingSet, rough_seconds, spanning_sizes

    seconds = Pricer(load_profile(machine), Machine.detect()).seconds if machine else rough_seconds
    models = example_models(examples, workdir, _say)
    extra, notes = spanning_sizes(examples, {name: WorkingSet(model) for name, model in models.items()}, procs,
                                  cache_levels(), seconds, max_seconds)
    for note in notes:
        print(f"calibrate: {note}", file=sys.stderr)
    for (name, p), sizes in extra.items():
        if sizes:
            print(f"calibrate: {name} P={p}: adds " + "; ".join(" ".join(f"{k}={v}" for k, v in values.items())
                                                           for values in sizes), file=sys.stderr)
    return models, extra


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _check_target_options(args: argparse.Namespace) -> None:
    given = [name for name, value in (("NAME=VALUE", args.at), ("--machine", args.machine and not args.levels),
                                      ("--dry-run", args.dry_run)) if value]
    if not args.target:
        if given:
            raise UsageError(f"{given[0]} is for calibrate --for MODEL (the runs one prediction needs)")
        return
    if args.slurm or args.import_times or args.builds or args.levels:
        raise UsageError("calibrate --for runs its choice here; --slurm, --import-times, --build and --levels are "
                         "for campaigns")
    if not args.machine:
        raise UsageError("calibrate --for needs --machine PROFILE: the profile fitted from earlier runs whose "
                         "prediction to tighten (perfeq calibrate -o runs.csv; perfeq fit runs.csv -o PROFILE)")
    if not args.at:
        raise UsageError("calibrate --for MODEL needs where to predict, e.g. n=64000 P=64")
    if args.budget <= 0 or args.max_runs < 1 or args.max_seconds <= 0:
        raise UsageError("--budget and --max-seconds must be positive and --max-runs at least 1")


def _calibrate_for(args: argparse.Namespace, examples, procs: list[int]) -> int:
    """``calibrate --for``: choose the runs (perfeq.workflows.targeted), print them, time them."""
    from perfeq.arguments import parse_assignments
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.symbolic.machine import Machine, cache_levels
    from perfeq.symbolic.model import load_model
    from perfeq.workflows import targeted
    from perfeq.workflows.calibrate import done_points, example_models, run_campaign

    values, target_procs, threads = parse_assignments(args.at)
    model, profile = load_model(args.target), load_profile(args.machine)
    if not profile.has_intervals:
        raise UsageError(f"calibrate --for: {args.machine} has no covariance of its costs (written by hand?): "
                         "give a profile fitted from runs (perfeq fit)")
    pricer = targeted.Pricer(profile, Machine.detect())
    target = pricer.counts(model, values, target_procs, threads)
    with tempfile.TemporaryDirectory(prefix="perfeq-calibrate-") as tmp:
        workdir = args.workdir or Path(tmp)
        models = example_models(examples, workdir, _say)
        pool, notes = targeted.candidates(examples, models, pricer, procs, cache_levels(), args.max_seconds)
        for note in notes:
            print(f"calibrate: {note}", file=sys.stderr)
        plan = targeted.plan_runs(profile, target, model.digest, pool, budget=args.budget, max_runs=args.max_runs,
                                  criterion=args.criterion)
        print(targeted.plan_text(plan, " ".join([str(args.target), *args.at])), end="")
        if args.dry_run or not plan.chosen:
            return 0
        points = targeted.numbered(plan, done_points(args.output))
        run_campaign(examples, args.output, workdir, procs, 1, args.launcher, points=points, models=models)
    costs = ",".join(n for n in profile.names if profile.cost_source(n) == "fit" and n != "const")
    print(f"calibrate: {len(points)} new runs in {args.output}; refit with the same costs: perfeq fit {args.output} "
          f"--costs {costs}" + (" --intercept" if "const" in profile.names else "")
          + (" --probes PROBES.json" if any(profile.cost_source(n) == "probe" for n in profile.names) else "")
          + " -o PROFILE", file=sys.stderr)
    return 0


def _import_command(args: argparse.Namespace, times: Path, absolute: bool = False) -> str:
    """The ``perfeq calibrate --import-times`` command that reads the times a --slurm script writes,
    with the options that choose the same applications; ``absolute``: with absolute paths (for the
    script, which may be read anywhere)."""
    import shlex

    def where(path: Path) -> str:
        return str(path.resolve() if absolute else path)

    words = ["perfeq", "calibrate"]
    if args.apps:
        words += ["--apps", where(args.apps)]
    if args.only:
        words += ["--only", args.only]
    if args.all:
        words.append("--all")
    return shlex.join([*words, "--import-times", where(times), "-o", where(args.output)])


def _runs_in(path: Path) -> int:
    """How many runs the runs CSV at ``path`` holds (0 when there is none yet)."""
    from perfeq.fitting.regression.runs import read_runs

    try:
        return len(read_runs(path)) if path.is_file() else 0
    except FitError:  # a header and no run yet
        return 0


def _import_times(args, examples, workdir: Path) -> int:
    from datetime import datetime, timezone

    from perfeq.fitting.regression.runs import Run, append_runs
    from perfeq.symbolic.machine import Machine
    from perfeq.workflows.calibrate import example_model, run_counts

    by_name = {e.name: e for e in examples}
    machine = Machine.detect()
    models = {}
    runs = []
    with open(args.import_times, newline="") as handle:
        for lineno, row in enumerate(csv.reader(handle), start=1):
            if len(row) != 5 or row[0] not in by_name:
                raise UsageError(f"{args.import_times}:{lineno}: expected app,params,procs,rep,seconds")
            app, params, procs, rep, seconds = row
            try:
                procs, rep, seconds = int(procs), int(rep), float(seconds)
            except ValueError:
                raise UsageError(f"{args.import_times}:{lineno}: expected app,params,procs,rep,seconds "
                                 "with whole procs and rep and seconds a number") from None
            if app not in models:
                models[app] = example_model(by_name[app], workdir)
            runs.append(Run(app, params, procs, seconds, run_counts(models[app], params, procs, 1, machine),
                            rep=rep, host=machine.name, digest=models[app].digest,
                            timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds")))
    append_runs(args.output, runs)
    print(f"calibrate: imported {len(runs)} runs into {args.output}", file=sys.stderr)
    return 0


def _tour(args: argparse.Namespace) -> int:
    from perfeq.workflows.tour import run_tour

    return run_tour(args)


def run_probe(args: argparse.Namespace) -> int:
    import json

    from perfeq.workflows.calibrate import parse_procs
    from perfeq.workflows.probe import Launchers, describe, run_probes, write_slurm_script

    procs = parse_procs(args.procs) if args.procs else None
    if procs is not None and min(procs) < 2:
        raise UsageError(f"--procs {args.procs}: the collectives need at least 2 processes")
    if args.cores is not None and args.cores < 1:
        raise UsageError("--cores must be at least 1")
    if args.nodes < 1:
        raise UsageError("--nodes must be at least 1")
    for option in ("launcher", "node_launcher", "across_launcher"):
        template = getattr(args, option)
        if template is not None and "{cmd}" not in template.split():
            raise UsageError(f"--{option.replace('_', '-')} {template}: the template needs the word {{cmd}}, "
                             "e.g. 'srun -n {P} {cmd}'")
    if args.output.suffix.lower() != ".json":
        raise UsageError(f"-o {args.output}: expected a .json file name")
    plots = args.plots or args.output.with_suffix(".plots")
    if args.slurm:
        if any((args.launcher, args.node_launcher, args.across_launcher)):
            raise UsageError("--slurm writes srun launchers into the script; give --srun instead of --launcher")
        command = write_slurm_script(args.slurm, args.output, quick=args.quick, procs=procs, cores=args.cores,
                                     nodes=args.nodes, srun=args.srun, time_limit=args.time, plots=args.plots)
        print(f"wrote {args.slurm}: sbatch it (it runs {command})", file=sys.stderr)
        return 0
    results, written = run_probes(args.output, quick=args.quick, procs=procs, cores=args.cores,
                                  launchers=Launchers(args.launcher, args.node_launcher, args.across_launcher),
                                  workdir=args.workdir, plots=plots)
    for line in describe(results):
        print(f"probe: {line}", file=sys.stderr)
    print(f"probe: wrote {args.output}" + (f" and {len(written)} plots in {plots}/" if written else "")
          + f" ({results.settings['seconds']:.0f} s)", file=sys.stderr)
    if args.json:
        from perfeq.runtime.probes.document import summary

        print(json.dumps(summary(results), indent=1))
    return 0
