"""The ``perfeq scaling`` subcommand: statistical scaling models of a runs CSV (Strohmaier 1997).

Reads the file (:mod:`perfeq.fitting.scaling.data`), fits (:mod:`perfeq.fitting.scaling.analysis`) and
prints or writes the tables, JSON and plots (:mod:`perfeq.fitting.scaling.report`).
Registered by :mod:`perfeq.cli`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from perfeq.errors import UsageError
from perfeq.files import write_atomic
from perfeq.fitting.scaling.analysis import ScalingOptions, analyse_scaling
from perfeq.fitting.scaling.data import CODE_KEYS, P_FROM, read_rate_table, read_scaling_csv
from perfeq.fitting.scaling.functions import DEFAULT_FUNCTIONS
from perfeq.fitting.scaling.observations import AGGREGATES, WEIGHTINGS
from perfeq.fitting.scaling.report import dumps, format_text, write_csv_tables, write_plots


def register(subparsers: argparse._SubParsersAction) -> None:
    _add_scaling(subparsers)


def _add_scaling(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scaling",
        help="fit statistical scaling models t(p) to runs of several codes on several systems",
        description=(
            "Fit every model t = sum_i delta_i u_i(p) of one to --max-terms characteristic functions to each "
            "(code, system) pair, rank them, and optionally fit the joint model "
            "t = sum_i w_i[code] / r_i[system] u_i(p) (Strohmaier 1997). See docs/scaling.md."
        ),
    )
    parser.add_argument(
        "runs",
        metavar="RUNS.csv",
        help="runs CSV (# perfeq-runs 2) or a results table with code,system,p,time",
    )
    _add_choice(parser.add_argument_group("what to fit"))
    _add_reading(parser.add_argument_group("reading runs"))
    _add_transform(parser.add_argument_group("scale transformations (Eq. 11: t' = t * p / W_c * r_peak)"))
    _add_output(parser.add_argument_group("output"))
    parser.set_defaults(func=run_scaling)


def _add_choice(choose: argparse._ArgumentGroup) -> None:
    choose.add_argument("--codes", type=_names, help="comma-separated codes to keep (default: all)")
    choose.add_argument("--systems", type=_names, help="comma-separated systems to keep (default: all)")
    choose.add_argument(
        "--functions",
        help="comma-separated characteristic functions of p (and n); default "
        f"{','.join(DEFAULT_FUNCTIONS)} (with --size-param: a set in n and p)",
    )
    choose.add_argument(
        "--max-terms",
        type=int,
        default=2,
        metavar="K",
        help="largest number of functions per model, 1 to 3 (default 2, as the paper)",
    )
    choose.add_argument(
        "--joint",
        action="store_true",
        help="also fit the joint product model for every choice of K functions",
    )
    choose.add_argument(
        "--reference-system",
        metavar="NAME",
        help="system whose power parameters are fixed to 1 (default: the one with most runs)",
    )
    choose.add_argument(
        "--skip-sparse",
        action="store_true",
        help="leave pairs with one processor count or too few runs out of the individual fits "
        "instead of stopping",
    )


def _add_reading(mapping: argparse._ArgumentGroup) -> None:
    mapping.add_argument(
        "--code-key",
        choices=CODE_KEYS,
        default="app+params",
        help="one code per app, or per app and params (default; the --size-param is left out)",
    )
    mapping.add_argument(
        "--system-column",
        metavar="NAME",
        help="column naming the system (default: host if present, else one system 'this'; "
        "results tables: system)",
    )
    mapping.add_argument(
        "--p-from",
        choices=P_FROM,
        default="procs*threads",
        help="processor count p of a run (default procs*threads)",
    )
    mapping.add_argument(
        "--size-param",
        metavar="NAME",
        help="param (or results-table column) holding the problem size n; enables functions of n and p",
    )
    mapping.add_argument(
        "--aggregate",
        choices=AGGREGATES,
        default="none",
        help="combine repetitions of the same run (default: keep every repetition)",
    )


def _add_transform(transform: argparse._ArgumentGroup) -> None:
    transform.add_argument("--work", metavar="FILE", help="CSV code,work: operation count W_c per code")
    transform.add_argument("--peak", metavar="FILE", help="CSV system,peak: peak rate per system")
    transform.add_argument("--no-p-scaling", action="store_true", help="fit times as they are, not times * p")
    transform.add_argument(
        "--outlier-factor",
        type=float,
        default=10.0,
        metavar="F",
        help="remove runs whose t' is more than F times off their pair's median (default 10; 0 keeps all)",
    )
    transform.add_argument(
        "--weighting",
        choices=WEIGHTINGS,
        default="none",
        help="least squares on t' (none, the paper) or on relative errors (relative)",
    )


def _add_output(output: argparse._ArgumentGroup) -> None:
    output.add_argument(
        "--top", type=int, default=5, metavar="N", help="rows per ranking in the text (default 5)"
    )
    output.add_argument("--json", action="store_true", help="print JSON instead of text")
    output.add_argument("-o", "--output", metavar="FILE", help="also write the JSON report to FILE")
    output.add_argument("--csv-dir", metavar="DIR", help="write every table as CSV into DIR")
    output.add_argument("--plots", metavar="DIR", help="write PNG plots into DIR")


def run_scaling(args: argparse.Namespace, stdout=None) -> int:
    """Handler of ``perfeq scaling``; returns the exit status."""
    stdout = stdout or sys.stdout
    if args.top < 1:
        raise UsageError(f"--top {args.top}: give a positive number of rows")
    frame = read_scaling_csv(
        args.runs,
        code_key=args.code_key,
        system_column=args.system_column,
        size_param=args.size_param,
        p_from=args.p_from,
    )
    options = ScalingOptions(
        functions=args.functions,
        max_terms=args.max_terms,
        p_scaling=not args.no_p_scaling,
        outlier_factor=args.outlier_factor,
        aggregate=args.aggregate,
        weighting=args.weighting,
        codes=args.codes,
        systems=args.systems,
        skip_sparse=args.skip_sparse,
        joint=args.joint,
        reference_system=args.reference_system,
    )
    work = read_rate_table(args.work, "code", "work") if args.work else None
    peak = read_rate_table(args.peak, "system", "peak") if args.peak else None
    report = analyse_scaling(frame, options, work=work, peak=peak, source=args.runs)
    if frame.attrs.get("systems_from") == "build":
        note = (
            "systems are the build configurations of the runs (column build); --system-column host for hosts"
        )
        report = replace(report, notes=(note, *report.notes))
    if args.output:
        write_atomic(args.output, dumps(report))
    written = []
    if args.csv_dir:
        written += write_csv_tables(report, args.csv_dir)
    if args.plots:
        written += write_plots(report, args.plots)
    if args.json:
        stdout.write(dumps(report))
    else:
        stdout.write(format_text(report, top=args.top))
        for path in ([args.output] if args.output else []) + [str(p) for p in written]:
            stdout.write(f"wrote {path}\n")
    return 0


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())
