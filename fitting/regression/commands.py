"""The regression's subcommands: ``perfeq fit`` (runs CSV -> machine profile), ``perfeq machine-profile``
and ``perfeq predict`` (model + machine profile -> time with intervals, paper section 4).

Registered by perfeq/cli.py through :func:`register`; handlers parse, call the library, print, and
return an exit status.  Errors are raised as FitError/UsageError and printed once by ``main``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from perfeq.arguments import parse_assignments
from perfeq.errors import UsageError
from perfeq.fitting.convolution.probecosts import is_probe_file
from perfeq.fitting.costs import COSTS, INTERCEPT
from perfeq.fitting.regression.costsets import fit_selected
from perfeq.fitting.regression.diagnostics import write_residual_plots
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.probed import probed_from
from perfeq.fitting.regression.profile import WEIGHTINGS, manual_profile, save_profile
from perfeq.fitting.regression.report import format_profile
from perfeq.fitting.regression.runs import read_runs, select_build


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``fit``, ``machine-profile`` and ``predict`` to the ``perfeq`` command line."""
    _add_fit(subparsers)
    _add_machine_profile(subparsers)
    _add_predict(subparsers)


def _add_fit(subparsers: argparse._SubParsersAction) -> None:
    fit = subparsers.add_parser(
        "fit",
        help="fit machine costs from measured runs (runs CSV -> machine profile JSON)",
        description="Fit machine costs beta in t = chi @ beta + e by multiple regression of the run times "
        "in RUNS.csv on their counts, and write them with their uncertainty as a machine profile.",
    )
    fit.add_argument("runs", metavar="RUNS.csv", help="runs CSV (format perfeq-runs 2, see docs/runs-csv.md)")
    fit.add_argument("-o", "--output", metavar="MACHINE.json", help="write the machine profile here")
    fit.add_argument(
        "--costs",
        metavar="LIST",
        help=f"comma-separated costs to fit, from {','.join(COSTS)}, or 'all' for every count column of the "
        "CSV (default: the set that best predicts each application from the others' runs, among perfeq's "
        "physically meaningful sets: see docs/machine-profile.md)",
    )
    fit.add_argument(
        "--weighting",
        choices=WEIGHTINGS,
        default="relative",
        help="relative: least squares on relative errors, for times spanning orders of magnitude (default); "
        "none: ordinary least squares",
    )
    fit.add_argument(
        "--intercept", action="store_true", help=f"also fit '{INTERCEPT}', a fixed start-up time per run"
    )
    fit.add_argument(
        "--drop-empty", action="store_true", help="leave out cost columns that are zero in every run"
    )
    fit.add_argument(
        "--level", type=float, default=0.95, help="confidence level of the intervals (default 0.95)"
    )
    fit.add_argument("--build", metavar="NAME", help="fit the runs of this build configuration (needed when "
                     "the file holds several, perfeq calibrate --build)")
    fit.add_argument("--probes", metavar="PROBES.json", help="take the message costs (startup, bytes) from this "
                     "probe file (perfeq probe: ping-pong latency and bandwidth) and fit only the other costs; "
                     "runs on 1-2 processes of one node cannot identify them")
    fit.add_argument("--plots", metavar="DIR", help="write residual plots (PNG) into DIR")
    fit.add_argument("--json", action="store_true", help="print the profile as JSON instead of the table")
    fit.set_defaults(func=run_fit)


def _add_machine_profile(subparsers: argparse._SubParsersAction) -> None:
    manual = subparsers.add_parser(
        "machine-profile",
        help="write a hand-written machine profile (e.g. from vendor figures)",
        description="Write a machine profile from costs given by hand, in seconds per count. Predictions from "
        "it carry no intervals.",
    )
    manual.add_argument(
        "--manual",
        nargs="+",
        required=True,
        metavar="COST=SECONDS",
        help=f"costs in seconds per count, e.g. ops=1e-9 startup=5e-6 bytes=1e-9; names: {', '.join((*COSTS, INTERCEPT))}",
    )
    manual.add_argument(
        "-o", "--output", metavar="MACHINE.json", help="write the profile here (default: print it)"
    )
    manual.add_argument("--host", default="", help="the machine the costs describe")
    manual.set_defaults(func=run_machine_profile)


def _add_predict(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "predict",
        help="predict a program's time with intervals from its model and a machine profile",
        description="t = chi * beta: the model's counts (slowest rank) at the given parameters, "
        "priced by the machine profile, with confidence and prediction intervals and the share of "
        "each cost and each block.",
    )
    p.add_argument("model", type=Path)
    p.add_argument("assignments", nargs="+", metavar="NAME=VALUE", help="parameter values and P (and T)")
    p.add_argument("--machine", type=Path, required=True,
                   help="machine profile (perfeq fit or machine-profile), or a probe file (perfeq probe): a "
                   "fit-free prediction by convolution of the model's signature with the probes")
    p.add_argument("--caches", type=Path, help="cache description (perfeq machine -o); default: this machine")
    p.add_argument("--level", type=float, default=0.95)
    p.add_argument("--application", metavar="NAME",
                   help="the program is this fitted application (only for profiles whose runs carry no "
                   "digest; otherwise the program is recognised by the digest of its sources, whatever "
                   "its name); a program not among them gets the between-application error")
    p.add_argument("--overlap", choices=("max", "sum"), default="max",
                   help="with a probe file: a block's memory and compute time overlap (max, default) or add up "
                   "(sum); docs/convolution.md")
    p.add_argument("--cache-rule", choices=("layer", "footprint"), default="layer",
                   help="with a probe file: the level serving a reference from its reuse distance (layer "
                   "conditions, default) or from its nest's footprint (the paper's rule)")
    p.add_argument("--nodes", type=int, metavar="N", help="with a probe file: the ranks spread over N nodes "
                   "(block placement): memory contention per node, messages across nodes")
    p.add_argument("--ranks-per-node", type=int, metavar="K", help="with a probe file: K ranks on each node "
                   "(default: all on one node)")
    p.add_argument("--set", action="append", default=[], metavar="COST=VALUE",
                   help="what-if: set one cost to a value with its unit (startup=1us, bytes=0.5ns) or scale it "
                   "(bytes=0.5x); repeatable. A cost set by hand is exact, a scaled one keeps its relative "
                   "uncertainty; every other cost keeps its value and covariance (docs/machine-profile.md)")
    p.add_argument("--sync", action="store_true",
                   help="add the synchronisation term: the expected wait for the slowest of P ranks at each "
                   "synchronising MPI call, from the compute bursts the training traces measured (Fleischmann "
                   "et al.; docs/variability.md). Off by default: the fitted costs already hold the waiting of the "
                   "calibration runs")
    p.add_argument("--noise", metavar="PROBES", help="with --sync: the noise the probe file measured (perfeq probe) "
                   "splits the bursts' spread into the process's interruptions, which grow with a burst's length, "
                   "and the work's (docs/variability.md); without it the training bursts' coefficient of variation "
                   "is kept")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_predict)


def run_fit(args: argparse.Namespace) -> int:
    runs = select_build(read_runs(args.runs), args.build, str(args.runs))
    said: list[str] = []
    counted = {name for run in runs for name in run.counts}
    fixed = probed_from(args.probes, said.append, counted) if args.probes else None
    if args.costs is None:
        profile = fit_selected(runs, intercept=args.intercept, weighting=args.weighting, level=args.level,
                               report=said.append, fixed=fixed)
    else:
        costs = None if args.costs.strip() == "all" else parse_cost_list(args.costs)
        profile = fit_machine(runs, costs, weighting=args.weighting, intercept=args.intercept,
                              drop_empty=args.drop_empty, level=args.level, fixed=fixed)
    if said:
        print("\n".join(said), file=sys.stderr if args.json else sys.stdout)
    if args.output:
        save_profile(profile, args.output)
    plots = write_residual_plots(profile, args.plots) if args.plots else ()
    if args.json:
        print(json.dumps(profile.to_dict(), indent=2))
        for note in profile.warnings:
            print(f"perfeq: warning: {note}", file=sys.stderr)
        return 0
    print(format_profile(profile))
    _report_files(args.output, plots)
    return 0


def run_machine_profile(args: argparse.Namespace) -> int:
    profile = manual_profile(_manual_values(args.manual), host=args.host)
    if not args.output:
        print(json.dumps(profile.to_dict(), indent=2))
        return 0
    save_profile(profile, args.output)
    print(format_profile(profile))
    _report_files(args.output, ())
    return 0


def parse_cost_list(text: str) -> list[str]:
    """``--costs a,b,c`` as a list of names (checked by the fit); also used by ``perfeq validate``."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise UsageError(f"--costs '{text}': empty name; give e.g. --costs ops,startup,bytes")
    return names


def _manual_values(items: list[str]) -> dict[str, float]:
    values: dict[str, float] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--manual '{item}': expected COST=SECONDS, e.g. startup=5e-6")
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"--manual '{item}': '{text}' is not a number of seconds, e.g. 5e-6") from None
        if name in values:
            raise UsageError(f"--manual: cost '{name}' given twice")
        values[name] = value
    return values


def _report_files(output: str | None, plots: tuple) -> None:
    if output:
        print(f"wrote {output}")
    for path in plots:
        print(f"wrote {path}")


def run_predict(args: argparse.Namespace) -> int:
    from perfeq.fitting.regression.predict import UNPRICED, predict_model
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.fitting.regression.report import format_prediction
    from perfeq.fitting.regression.synchronisation import noise_from_probes
    from perfeq.fitting.regression.whatif import apply_edits, parse_edit
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model

    model = load_model(args.model)
    if is_probe_file(args.machine):
        if args.set:
            raise UsageError(f"{args.machine}: --set edits the costs of a machine profile (perfeq fit); a probe "
                             "file's curves are not edited")
        if args.sync or args.noise:
            raise UsageError(f"{args.machine}: --sync and --noise add the synchronisation term to a prediction from "
                             "a machine profile (perfeq fit); the fit-free prediction from a probe file has none (give "
                             "the probe file as --noise with a profile as --machine)")
        return _predict_from_probes(args, model)
    if args.nodes is not None or args.ranks_per_node is not None:
        raise UsageError(f"{args.machine}: --nodes and --ranks-per-node place ranks for a probe file's curves "
                         "(perfeq probe); a fitted machine profile has no per-node costs")
    if args.noise and not args.sync:
        raise UsageError("--noise splits the spread of the synchronisation term's bursts: add --sync")
    noise = noise_from_probes(args.noise) if args.noise else None
    profile, edits = apply_edits(load_profile(args.machine), [parse_edit(text) for text in args.set])
    values, procs, threads = parse_assignments(args.assignments)
    hardware = Machine.load(args.caches) if args.caches else Machine.detect()
    prediction, slowest, rank = predict_model(model, profile, values, procs, threads, hardware, level=args.level,
                                              synchronisation=args.sync, noise=noise,
                                              application=args.application)
    # the model's own self-check (perfeq model): a count it did not reproduce at its training runs
    prediction = dataclasses.replace(prediction, edits=edits, warnings=prediction.warnings + tuple(
        _model_notes(args.model, model, values, procs, threads)))
    for note in prediction.warnings:  # loud: also on stderr, where a script reading the output sees it
        if note.startswith(UNPRICED):
            print(f"perfeq: warning: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps({"model": str(args.model), "values": values, "P": procs, "T": threads,
                          "slowest_rank": rank, "counts": slowest, **prediction.to_dict()}, indent=1))
        return 0
    print(f"{model.program} at {', '.join(f'{k}={v:g}' for k, v in values.items())}, P={procs}, T={threads} "
          f"(slowest rank {rank})")
    print(format_prediction(prediction))
    return 0


def _ranks_per_node(args: argparse.Namespace, procs: int) -> int | None:
    """The ranks on one node from ``--ranks-per-node`` or ``--nodes`` (None: all on one node)."""
    if args.nodes is not None and args.ranks_per_node is not None:
        raise UsageError("give --nodes or --ranks-per-node, not both")
    for option, value in (("--nodes", args.nodes), ("--ranks-per-node", args.ranks_per_node)):
        if value is not None and value < 1:
            raise UsageError(f"{option} must be at least 1, not {value}")
    if args.nodes is not None:
        return -(-procs // args.nodes)
    return args.ranks_per_node


def _predict_from_probes(args: argparse.Namespace, model) -> int:
    """``perfeq predict MODEL --machine probes.json ...``: the convolution, fit-free."""
    from perfeq.fitting.convolution.convolve import convolve
    from perfeq.fitting.convolution.probecosts import ProbeCosts
    from perfeq.fitting.convolution.report import format_convolution, to_dict

    if args.caches or args.application:
        raise UsageError("--caches and --application are for machine profiles; a probe file carries its "
                         "machine's caches and prices any program")
    values, procs, threads = parse_assignments(args.assignments)
    result = convolve(model, ProbeCosts.load(args.machine), values, procs, threads, overlap=args.overlap,
                      rule=args.cache_rule, ranks_per_node=_ranks_per_node(args, procs))
    if args.json:
        print(json.dumps({"model": str(args.model), "machine": str(args.machine), **to_dict(result)}, indent=1))
        return 0
    print(f"{model.program} at {', '.join(f'{k}={v:g}' for k, v in values.items())}, P={procs}, T={threads} "
          f"(slowest rank {result.slowest}) on the probed machine {args.machine}")
    print(format_convolution(result))
    for note in _model_notes(args.model, model, values, procs, threads):
        print(f"warning: {note}")
    return 0


def _model_notes(path: Path, model, values: dict[str, float], procs: int, threads: int) -> list[str]:
    """What the model says of itself at this point: the training runs it did not reproduce (its
    self-check) and the fitted or measured counts it extrapolates beyond the training runs."""
    beyond = model.beyond_training(values, procs, threads)
    return [f"{path}: {warning}" for warning in model.self_check.get("warnings", [])] + (
        [f"{path}: {beyond}"] if beyond else [])
