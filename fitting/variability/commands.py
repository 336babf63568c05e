"""The ``perfeq tasks`` subcommand: n tasks of a given time distribution on p processors.

Evaluates the model (:mod:`scheduling`, :mod:`extremes`) and the paper's formulas for a user's
distribution, beside a Monte Carlo check (:mod:`montecarlo`); prints text or JSON.  Registered by
:mod:`perfeq.cli`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from perfeq.errors import UsageError
from perfeq.fitting.variability.distributions import Communication
from perfeq.fitting.variability.extremes import expected_maximum
from perfeq.fitting.variability.montecarlo import DEFAULT_DRAWS, MonteCarlo, simulate_dynamic, simulate_static
from perfeq.fitting.variability.scheduling import SCHEDULES, ScheduleEstimate, schedule
from perfeq.fitting.variability.specs import ACCEPTED, parse_task_time

OUTPUT_FORMAT = "perfeq-tasks"
OUTPUT_VERSION = 1
MAX_SIMULATED = 5_000_000_000  # task times drawn by one Monte Carlo check


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tasks",
        help="run time of n independent tasks on p processors, static or dynamic (Fleischmann et al.)",
        description=(
            "The makespan of --tasks independent tasks with the time distribution --dist on --procs "
            "processors under static or dynamic scheduling (Fleischmann, Gente, Hofmann, Bolch 1994, "
            "sections 4.1-4.3): the model's mean and variance, the paper's formula (eq. (7), or the "
            "bounds and approximation of section 4.2.2), and a Monte Carlo check. See docs/variability.md."
        ),
    )
    parser.add_argument("--dist", required=True, metavar="DIST", help=f"task time: {ACCEPTED}")
    parser.add_argument("--tasks", required=True, type=int, metavar="N", help="number of tasks n")
    parser.add_argument("--procs", required=True, type=int, metavar="P", help="number of processors p")
    parser.add_argument("--schedule", choices=SCHEDULES, default="static",
                        help="static: n/p tasks per processor fixed before the run (default); dynamic: each "
                        "task to the first free processor")
    parser.add_argument("--comm", metavar="DIST",
                        help="communication time before and after each task (K1 and K0 of section 4.3), "
                        "same forms as --dist")
    parser.add_argument("--draws", type=int, default=DEFAULT_DRAWS, metavar="N",
                        help=f"Monte Carlo draws (default {DEFAULT_DRAWS}; 0: no Monte Carlo)")
    parser.add_argument("--seed", type=int, default=0, help="Monte Carlo seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run_tasks)


def run_tasks(args: argparse.Namespace, stdout=None) -> int:
    """Handler of ``perfeq tasks``; returns the exit status."""
    stdout = stdout or sys.stdout
    if args.tasks < 1:
        raise UsageError(f"--tasks {args.tasks}: give at least one task")
    if args.procs < 1:
        raise UsageError(f"--procs {args.procs}: give at least one processor")
    if args.draws < 0:
        raise UsageError(f"--draws {args.draws}: give 0 (no Monte Carlo) or a positive number")
    if args.draws * (args.tasks + args.procs) > MAX_SIMULATED:
        raise UsageError(f"--draws {args.draws} with --tasks {args.tasks}: {args.draws * args.tasks:.3g} task "
                         f"times to draw would take too long; lower --draws")
    task = parse_task_time(args.dist, "--dist")
    communication = None
    if args.comm:
        link = parse_task_time(args.comm, "--comm")
        communication = Communication(before=link, after=link)
    try:
        estimate = schedule(args.schedule, task, args.tasks, args.procs, communication)
        maximum = expected_maximum(task, args.tasks) if args.tasks <= args.procs and communication is None else None
    except ValueError as exc:
        raise UsageError(f"--dist {args.dist}: {exc}") from None
    check = None
    if args.draws:
        simulate = simulate_static if args.schedule == "static" else simulate_dynamic
        check = simulate(task, args.tasks, args.procs, draws=args.draws, seed=args.seed, communication=communication)
    document = _document(args, task, estimate, check, maximum)
    if args.json:
        json.dump(document, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(_text(document))
    return 0


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _relative(value: float | None, reference: float | None) -> float | None:
    if value is None or reference is None or reference == 0:
        return None
    return value / reference - 1.0


def _document(args: argparse.Namespace, task, estimate: ScheduleEstimate, check: MonteCarlo | None,
              maximum) -> dict[str, Any]:
    mc_mean = check.mean if check else None
    document: dict[str, Any] = {
        "format": OUTPUT_FORMAT, "version": OUTPUT_VERSION,
        "dist": args.dist, "task": {"name": task.label, "mean": task.mean, "variance": task.variance,
                                    "right_end": _number(task.right_end)},
        "comm": args.comm, "tasks": args.tasks, "procs": args.procs, "schedule": args.schedule,
        "mean": estimate.mean, "variance": estimate.variance, "method": estimate.method,
        "approximation": {"formula": estimate.approximation, "mean": estimate.approximation_mean,
                          "variance": estimate.approximation_variance,
                          "relative_difference": _relative(estimate.approximation_mean, mc_mean)},
    }
    if estimate.schedule == "dynamic":
        document["bounds"] = {"lower_mean": estimate.lower_mean, "upper_mean": estimate.upper_mean,
                              "lower_variance": estimate.lower_variance, "upper_variance": estimate.upper_variance}
    if maximum is not None:
        document["extremes"] = {"gumbel_mean": maximum.gumbel_mean, "gumbel_variance": maximum.gumbel_variance,
                                "closed_form_mean": maximum.closed_form_mean,
                                "closed_form_variance": maximum.closed_form_variance,
                                "weibull_mean": maximum.weibull_mean, "weibull_variance": maximum.weibull_variance,
                                "david_bound": maximum.david_bound}
    document.update({
        "mc_mean": mc_mean, "mc_variance": check.variance if check else None,
        "mc_draws": check.draws if check else 0, "mc_seed": args.seed,
        "mc_standard_error": check.standard_error if check else None,
        "relative_difference": _relative(estimate.mean, mc_mean),
        "warnings": list(estimate.warnings) + (list(maximum.warnings) if maximum is not None else []),
    })
    return document


def _percent(value: float | None) -> str:
    return "" if value is None else f"  ({value * 100:+.2f} % from Monte Carlo)"


def _text(document: dict[str, Any]) -> str:
    task = document["task"]
    comm = f", communication {document['comm']} before and after each task" if document["comm"] else ""
    lines = [f"{document['tasks']} tasks of {task['name']} (mean {task['mean']:.6g}, variance "
             f"{task['variance']:.6g}) on {document['procs']} processors, {document['schedule']} scheduling{comm}",
             f"  model        mean {document['mean']:<12.6g} variance {document['variance']:<12.6g} "
             f"{document['method']}"]
    approximation = document["approximation"]
    variance = approximation["variance"]
    lines.append(f"  paper        mean {approximation['mean']:<12.6g} variance "
                 f"{'-' if variance is None else format(variance, '.6g'):<12} {approximation['formula']}"
                 f"{_percent(approximation['relative_difference'])}")
    if "bounds" in document:
        bounds = document["bounds"]
        lines.append(f"  bounds       mean in [{bounds['lower_mean']:.6g}, {bounds['upper_mean']:.6g}] "
                     "(section 4.2.2)")
    if "extremes" in document:
        extremes = document["extremes"]
        limit = ("Weibull", extremes["weibull_mean"]) if extremes["weibull_mean"] is not None else (
            "Gumbel, eqs. (1)-(3)", extremes["gumbel_mean"])
        if limit[1] is not None:
            lines.append(f"  limit        mean {limit[1]:<12.6g} {limit[0]}")
    if document["mc_mean"] is not None:
        lines.append(f"  Monte Carlo  mean {document['mc_mean']:<12.6g} variance {document['mc_variance']:<12.6g} "
                     f"{document['mc_draws']} draws, seed {document['mc_seed']}, standard error "
                     f"{document['mc_standard_error']:.3g}")
        lines.append(f"  model vs Monte Carlo: {document['relative_difference'] * 100:+.3f} % of the mean")
    lines += [f"  warning: {warning}" for warning in document["warnings"]]
    return "\n".join(lines) + "\n"
