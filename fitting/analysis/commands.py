"""Subcommands ``perfeq sensitivity``, ``breakdown``, ``validate`` and ``report`` (paper section 5).

What a performance engineer looks at once a model and a machine profile exist: how the time reacts
to a machine cost or the problem size (Fig. 7), where it goes (Fig. 6), how well predictions hold
for programs the fit never saw (Figs. 2-5, Table 1), and all of it on one HTML page.
Handlers parse, call the library (sensitivity.py, breakdown.py, validate.py, report.py), print.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from perfeq.errors import UsageError
from perfeq.fitting.costs import PAPER_COSTS
from perfeq.fitting.regression.profile import WEIGHTINGS


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``sensitivity``, ``breakdown``, ``validate``, ``report``, ``compare``, ``equation``, ``export`` and
    ``variability``."""
    _add_sensitivity(subparsers)
    _add_breakdown(subparsers)
    _add_validate(subparsers)
    _add_report(subparsers)
    _add_compare(subparsers)
    _add_equation(subparsers)
    _add_export(subparsers)
    _add_variability(subparsers)


def _add_variability(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "variability", help="predicted time over P with the wait for the slowest rank (static and dynamic)",
        description="The model's prediction over a range of process counts: deterministic, with every "
        "synchronising MPI call waiting for the slowest rank (static scheduling: perfeq predict's sync "
        "term), and with each rank's compute burst cut into tasks that go to whichever rank is free "
        "(dynamic scheduling; Fleischmann et al. 1994), and the share lost to waiting. Assumes independent, "
        "identically distributed bursts (docs/variability.md).")
    p.add_argument("model", type=Path)
    p.add_argument("assignments", nargs="*", metavar="NAME=VALUE", help="parameter values (and T)")
    p.add_argument("--machine", type=Path, required=True, help="machine profile (perfeq fit or machine-profile)")
    p.add_argument("--over", required=True, metavar="P=1,2,...,1024",
                   help="process counts: a list, or first, second, ..., last (continues the ratio)")
    p.add_argument("--caches", type=Path, help="cache description (perfeq machine -o); default: this machine")
    p.add_argument("--pieces", type=int, default=8, help="tasks per rank and call under dynamic scheduling (8)")
    p.add_argument("--noise", metavar="PROBES", help="the noise the probe file measured (perfeq probe) splits the "
                   "bursts' spread, as perfeq predict --sync --noise does")
    p.add_argument("--level", type=float, default=0.95)
    p.add_argument("-o", "--output", metavar="PLOT.png", help="write the plot (.png or .svg)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_variability)


def run_variability(args: argparse.Namespace) -> int:
    from perfeq.arguments import parse_assignments
    from perfeq.fitting.analysis.figures import check_image_path
    from perfeq.fitting.analysis.waiting import format_rows, parse_over, plot_rows, to_json, variability_rows
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.fitting.regression.synchronisation import noise_from_probes
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model

    if any(item.startswith("P=") for item in args.assignments):
        raise UsageError("P is given by --over, not as an assignment")
    procs = parse_over(args.over)
    values, _, threads = parse_assignments(args.assignments)
    if args.pieces < 1:
        raise UsageError(f"--pieces {args.pieces}: needs at least 1 task per rank")
    plot = check_image_path(args.output) if args.output else None
    model = load_model(args.model)
    profile = load_profile(args.machine)
    hardware = Machine.load(args.caches) if args.caches else Machine.detect()
    noise = noise_from_probes(args.noise) if args.noise else None
    rows, notes = variability_rows(model, profile, values, procs, threads, hardware, pieces=args.pieces,
                                   level=args.level, noise=noise)
    if plot is not None:
        plot_rows(rows, model.program, plot)
    if args.json:
        print(json.dumps(to_json(str(args.model), values, threads, args.pieces, rows, notes), indent=1))
    else:
        print(format_rows(rows, notes, args.pieces))
        if plot is not None:
            print(f"wrote {plot}")
    return 0


def _add_export(subparsers: argparse._SubParsersAction) -> None:
    export = subparsers.add_parser(
        "export", help="write a runs CSV as Extra-P's text input, one experiment per application",
        description="Write the runs of RUNS.csv as Extra-P text files (one per application and build): the "
        "parameters that vary (problem parameters, p, t), and per point the repetitions of time and of every "
        "count. Load them with `extrap --text FILE` to compare Extra-P's empirical models with perfeq's.")
    export.add_argument("--extrap", required=True, metavar="RUNS.csv", help="runs CSV (perfeq calibrate)")
    export.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for the NAME.extrap.txt files")
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from perfeq.fitting.analysis.extrap import extrap_experiments, write_extrap
    from perfeq.fitting.regression.runs import read_runs

    output = Path(args.output)
    if output.exists() and not output.is_dir():
        raise UsageError(f"-o {output}: exists and is not a folder")
    files, notes = extrap_experiments(read_runs(args.extrap), str(args.extrap))
    if not files:
        raise UsageError(f"{args.extrap}: no application can be written: {'; '.join(notes)}")
    for note in notes:
        print(f"perfeq: note: {note}", file=sys.stderr)
    for path, experiment in zip(write_extrap(files, output), files, strict=True):
        print(f"wrote {path} ({', '.join(experiment.parameters)}; {experiment.points} points)")
    return 0


def _add_equation(subparsers: argparse._SubParsersAction) -> None:
    e = subparsers.add_parser("equation", help="print the symbolic counts and the time equation of a model")
    e.add_argument("model", type=Path)
    e.add_argument("--format", choices=("text", "latex", "python", "maple"), default="text")
    e.add_argument("--blocks", action="store_true", help="also print every block's counts")
    e.add_argument("--machine", type=Path, metavar="MACHINE.json",
                   help="write the counts of the costs this machine profile prices, and t with its values")
    e.add_argument("--caches", type=Path, metavar="CACHES.json",
                   help="cache description for l1/l2/page counts (perfeq machine -o); default: this machine")
    e.set_defaults(func=run_equation)


def run_equation(args: argparse.Namespace) -> int:
    import sympy as sp

    from perfeq.fitting.analysis.pricing import TimeEquation
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.symbolic.chi import CHI_KEYS, SOURCE_KEYS
    from perfeq.symbolic.export import FORMATTERS, python_module
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model
    from perfeq.symbolic.symbols import cost_symbol

    model = load_model(args.model)
    profile = load_profile(args.machine) if args.machine else None
    if args.format == "python":
        if args.blocks:
            raise UsageError("--blocks is not written in the python format; use --format text or latex")
        print(python_module(model, profile.values if profile else None, str(args.machine or "")), end="")
        return 0
    fmt = FORMATTERS[args.format]
    # Maple: assignments end in ';' and prose is a comment
    assign, end, note = (" := ", ";", "# ") if args.format == "maple" else (" = ", "", "")
    if profile is None:
        totals = model.totals()
        keys = SOURCE_KEYS
        chi = {key: totals.get(key, sp.Integer(0)) for key in keys}
        for key in keys:
            print(f"chi_{key}{assign}{fmt(chi[key])}{end}")
        print(f"{note}chi_l1, chi_l2, chi_page: from loop-nest footprints and the machine (perfeq counts --caches)")
        print(f"t{assign}{fmt(sum(sp.Symbol(f'chi_{k}') * cost_symbol(k) for k in CHI_KEYS))}{end}")
    else:
        equation = TimeEquation(model, profile, Machine.load(args.caches) if args.caches else Machine.detect())
        keys = equation.priced
        for key in keys:
            print(f"chi_{key}{assign}{fmt(equation.chi[key])}{end}")
        terms = [sp.Symbol(f"chi_{k}") * cost_symbol(k) for k in keys]
        print(f"t{assign}{fmt(sp.Add(*terms) + (cost_symbol('const') if 'const' in profile.costs else 0))}{end}")
        print(f"{note}with the costs of {args.machine} (seconds per count):")
        priced = _priced(equation, keys)  # text: as written, not factored
        print(f"t{assign}{str(priced) if args.format == 'text' else fmt(priced)}{end}")
    if args.blocks:
        for item in model.items:
            shown = ", ".join(f"{k}={fmt(v)}" for k, v in item.counts.items() if k in keys)
            print(f"{note}{item.label} [{item.context}]: {shown}")
    return 0


def _priced(equation, keys):
    """t with the profile's values as numbers and the counts as chi symbols."""
    import sympy as sp

    total = sp.Add(*(sp.Float(equation.betas[k], 4) * sp.Symbol(f"chi_{k}") for k in keys))
    return total + (sp.Float(equation.betas["const"], 4) if "const" in equation.betas else 0)


def _add_compare(subparsers: argparse._SubParsersAction) -> None:
    c = subparsers.add_parser(
        "compare",
        help="two models, runs CSVs, predictions or machine profiles side by side, per cost and per block",
        description="Compare A and B of one kind: two models at one point (counts; priced per cost and per "
        "block with --machine), two runs CSVs (median time per point, per application), two predictions "
        "(perfeq predict --json), or two machine profiles (costs; with --model, the model priced on both).",
    )
    c.add_argument("a", type=Path, metavar="A", help="model, runs CSV, prediction JSON or machine profile")
    c.add_argument("b", type=Path, metavar="B", help="one of the same kind")
    c.add_argument("assignments", nargs="*", metavar="NAME=VALUE",
                   help="the point models are evaluated at: parameter values and P (and T)")
    c.add_argument("--machine", type=Path, metavar="MACHINE.json", help="price two models with this profile")
    c.add_argument("--model", type=Path, metavar="MODEL.json", help="price this model on two machine profiles")
    c.add_argument("--caches", type=Path, metavar="CACHES.json",
                   help="cache description for l1/l2/page counts (perfeq machine -o); default: this machine")
    c.add_argument("--level", type=float, default=0.95, help="level of the prediction intervals (default 0.95)")
    c.add_argument("--top", type=int, default=15, help="rows per section in the table (default 15)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from perfeq.arguments import parse_assignments
    from perfeq.fitting.analysis.compare import compare, format_comparison, load_side
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model

    _check_level(args.level)
    a, b = load_side(args.a), load_side(args.b)
    point = parse_assignments(args.assignments) if args.assignments else None
    values, procs, threads = point if point else (None, 1, 1)
    needs_model = {a.kind, b.kind} <= {"model"} or args.model is not None
    hardware = (Machine.load(args.caches) if args.caches else Machine.detect()) if needs_model else None
    result = compare(a, b, values, procs, threads,
                     profile=load_profile(args.machine) if args.machine else None,
                     model=load_model(args.model) if args.model else None, hardware=hardware, level=args.level)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(format_comparison(result, top=max(1, args.top)))
    return 0


def _add_sensitivity(subparsers: argparse._SubParsersAction) -> None:
    s = subparsers.add_parser(
        "sensitivity",
        help="dt/d(machine cost or parameter) over problem size and P (the paper's Fig. 7)",
        description="Differentiate the predicted time t = sum chi_k beta_k with respect to a machine cost "
        "(dt/dbeta_k = chi_k: seconds added per unit of the cost) or a parameter (dt/dN, dt/dP), "
        "evaluate it over a grid of one problem-size parameter and P, also as an elasticity.",
    )
    _model_arguments(s)
    s.add_argument(
        "--wrt",
        required=True,
        metavar="COST|PARAM",
        help=f"{', '.join(PAPER_COSTS)}, a model parameter (e.g. n) or P",
    )
    _grid_argument(s, required=True)
    s.add_argument("-o", "--output", type=Path, metavar="PLOT.png", help="write the plot (.png or .svg)")
    s.add_argument("--json", action="store_true", help="print the expression and the grid values as JSON")
    s.set_defaults(func=run_sensitivity)


def _add_breakdown(subparsers: argparse._SubParsersAction) -> None:
    b = subparsers.add_parser(
        "breakdown",
        help="share of the predicted time per cost and per block over problem size and P (Fig. 6)",
        description="Split the predicted time (slowest rank) by machine cost and by basic block, MPI call "
        "site and loop nest, over a grid of one problem-size parameter and P; the largest blocks are "
        "kept and the rest summed as 'other'.",
    )
    _model_arguments(b)
    _grid_argument(b, required=True)
    b.add_argument("--top", type=int, default=6, help="blocks shown before 'other' (default 6)")
    b.add_argument("-o", "--output", type=Path, metavar="PLOT.png", help="write the plot (.png or .svg)")
    b.add_argument("--json", action="store_true", help="print seconds and shares as JSON")
    b.set_defaults(func=run_breakdown)


def _add_validate(subparsers: argparse._SubParsersAction) -> None:
    v = subparsers.add_parser(
        "validate",
        help="leave-one-application-out validation of a runs CSV (Figs. 2-5, Table 1)",
        description="For each application in the runs CSV, fit the machine on all the other applications "
        "and predict its runs from their counts: predicted vs measured with prediction intervals, "
        "the error distribution, and Table 1 (runs, sigma, mean time, C.O.V., average error, coverage).",
    )
    v.add_argument("runs", type=Path, metavar="RUNS.csv", help="runs CSV with several applications")
    v.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder for table1.txt/.csv, predictions.csv, validation.json and the plots",
    )
    v.add_argument(
        "--costs", metavar="LIST", help="costs to fit, e.g. ops,startup,bytes, or 'all' for every column "
        "(default: each fold chooses its set from its training applications, as perfeq fit does)"
    )
    v.add_argument(
        "--weighting", choices=WEIGHTINGS, default="relative", help="as for perfeq fit (default relative)"
    )
    v.add_argument("--intercept", action="store_true", help="also fit 'const', a fixed time per run")
    v.add_argument("--build", metavar="NAME", help="validate the runs of this build configuration (needed when "
                   "the file holds several)")
    v.add_argument(
        "--level", type=float, default=0.95, help="level of the prediction intervals (default 0.95)"
    )
    v.add_argument(
        "--within-fit-intervals",
        action="store_true",
        help="prediction intervals without the between-application error (the fit's own error only; "
        "by default they add it, estimated from the training applications alone)",
    )
    v.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    v.set_defaults(func=run_validate)


def _add_report(subparsers: argparse._SubParsersAction) -> None:
    r = subparsers.add_parser(
        "report",
        help="one self-contained HTML page: equations, machine profile, predictions, plots, fallbacks",
        description="Write one HTML page (no external files) with the program's equations, the machine "
        "profile with its intervals, predictions with intervals, the breakdown and sensitivity plots, "
        "and the loops the model fell back to fits or constants for.",
    )
    _model_arguments(r)
    r.add_argument(
        "--at",
        nargs="+",
        action="append",
        metavar="NAME=VALUE",
        help="a prediction point, e.g. --at n=4096 P=64 (repeatable; default: the model's run "
        "size times 1, 8, 64 at P=1, 8, 64)",
    )
    _grid_argument(r, required=False)
    r.add_argument("--level", type=float, default=0.95, help="level of the intervals (default 0.95)")
    r.add_argument("-o", "--output", type=Path, required=True, metavar="REPORT.html")
    r.set_defaults(func=run_report)


def _model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", type=Path, metavar="MODEL.json", help="model file (perfeq model)")
    parser.add_argument(
        "--machine",
        type=Path,
        required=True,
        metavar="MACHINE.json",
        help="machine profile (perfeq fit or perfeq machine-profile)",
    )
    parser.add_argument(
        "--caches",
        type=Path,
        metavar="CACHES.json",
        help="cache description for l1/l2/page counts (perfeq machine -o); default: this machine",
    )


def _grid_argument(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument(
        "--over",
        nargs="+",
        required=required,
        metavar="NAME=SPEC",
        help="grid: one problem-size parameter as LOW:HIGH[:COUNT] (geometric) or a list, other parameters "
        "one value each, P as a list (default 1,2,...,64); e.g. --over n=1000:64000 P=1,2,4,8,16,32"
        + ("" if required else "; default: the model's run size times 1..64"),
    )


def _inputs(args: argparse.Namespace):
    from perfeq.fitting.regression.profile import load_profile
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model

    model = load_model(args.model)
    if not args.machine.exists():
        raise UsageError(f"--machine {args.machine}: no such machine profile")
    profile = load_profile(args.machine)
    machine = Machine.load(args.caches) if args.caches else Machine.detect()
    return model, profile, machine


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise UsageError(f"--level {level}: expected a number between 0 and 1, e.g. 0.95")


def run_sensitivity(args: argparse.Namespace) -> int:
    from perfeq.fitting.analysis.figures import check_image_path
    from perfeq.fitting.analysis.pricing import parse_over
    from perfeq.fitting.analysis.sensitivity import format_sensitivity, plot_sensitivity, sensitivity_over

    if args.output:
        check_image_path(args.output)
    model, profile, machine = _inputs(args)
    grid = sensitivity_over(model, args.wrt, parse_over(model, args.over), profile, machine)
    program = Path(model.program).name
    if args.output:
        what = (
            f"seconds added per {grid.step_label} of {grid.wrt}" if grid.kind == "cost" else f"dt/d{grid.wrt}"
        )
        plot_sensitivity(grid, args.output, f"{program}: {what}")
    if args.json:
        print(json.dumps({"model": str(args.model), "program": model.program, **grid.to_dict()}, indent=1))
    else:
        print(format_sensitivity(grid, program))
    if args.output:
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def run_breakdown(args: argparse.Namespace) -> int:
    from perfeq.fitting.analysis.breakdown import breakdown, format_breakdown, plot_breakdown
    from perfeq.fitting.analysis.figures import check_image_path
    from perfeq.fitting.analysis.pricing import parse_over

    if args.output:
        check_image_path(args.output)
    if args.top < 1:
        raise UsageError(f"--top {args.top}: show at least one block")
    model, profile, machine = _inputs(args)
    result = breakdown(model, profile, machine, parse_over(model, args.over), top=args.top)
    if args.output:
        plot_breakdown(result, args.output)
    if args.json:
        print(json.dumps({"model": str(args.model), **result.to_dict()}, indent=1))
    else:
        print(format_breakdown(result))
    if args.output:
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def run_validate(args: argparse.Namespace) -> int:
    from perfeq.fitting.analysis.validate import cross_validate
    from perfeq.fitting.analysis.validate_report import format_validation, write_validation
    from perfeq.fitting.regression.commands import parse_cost_list
    from perfeq.fitting.regression.runs import read_runs, select_build
    from perfeq.progress import Progress

    _check_level(args.level)
    if args.output.exists() and not args.output.is_dir():
        raise UsageError(f"-o {args.output}: exists and is not a folder")
    runs = select_build(read_runs(args.runs), args.build, str(args.runs))
    given = args.costs is not None and args.costs.strip() != "all"
    folds = len({run.app for run in runs})
    with Progress(folds, "validate", say=lambda _text: None, unit="application") as progress:
        result = cross_validate(
            runs,
            parse_cost_list(args.costs) if given else None,
            weighting=args.weighting,
            intercept=args.intercept,
            level=args.level,
            between_app=not args.within_fit_intervals,
            choose=args.costs is None,
            progress=progress.step,
        )
    written = write_validation(result, args.output)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(format_validation(result))
    print(f"wrote {len(written)} files in {args.output}", file=sys.stderr)
    return 0


def run_report(args: argparse.Namespace) -> int:
    from perfeq.fitting.analysis.pricing import parse_over
    from perfeq.fitting.analysis.report import parse_points, write_report

    _check_level(args.level)
    if args.output.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"-o {args.output}: expected an .html file name")
    model, profile, machine = _inputs(args)
    points = parse_points(model, args.at)
    grid = parse_over(model, args.over) if args.over else None
    write_report(
        model,
        profile,
        machine,
        args.output,
        points=points,
        grid=grid,
        level=args.level,
        model_path=str(args.model),
        profile_path=str(args.machine),
    )
    print(f"wrote {args.output}")
    return 0
