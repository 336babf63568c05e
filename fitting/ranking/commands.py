"""The ``perfeq rank`` subcommand: machine rankings from benchmark tables, run times or machine profiles.

Glue only: reads the inputs with ``tables``, computes with ``evaluation``, ``metrics`` and ``profiles``,
builds one JSON-ready document, and prints it as text tables (``text``) or JSON (``--json``).
Registered by :mod:`perfeq.cli` through :func:`register`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from perfeq.errors import RankError
from perfeq.fitting.ranking.evaluation import DEFAULT_SUBSET_SIZE, CaseResult, evaluate_cases
from perfeq.fitting.ranking.inversions import DEFAULT_ALPHA, DEFAULT_BETA, CaseInversions
from perfeq.fitting.ranking.metrics import MetricScore, metric_ranking, score_metrics, search_combined_metric
from perfeq.fitting.ranking.profiles import rank_profiles
from perfeq.fitting.ranking.tables import (
    BenchmarkTable,
    RuntimeTable,
    benchmark_table_from_profiles,
    read_benchmarks,
    read_counts,
    read_profiles,
    read_runtimes,
)
from perfeq.fitting.ranking.text import metrics_text, profiles_text, weights_text
from perfeq.fitting.ranking.weights import DEFAULT_CORRELATION, METHOD_NAMES, METHODS, RankingDesign

OUTPUT_FORMAT = "perfeq-ranking"
OUTPUT_VERSION = 1

DESCRIPTION = """\
Rank machines for an application, or for all applications, from simple benchmark measurements
(Chen et al., "Performance Prediction and Ranking of Supercomputers").  With --runtimes, weights of the
benchmarks are fitted per application and processor count (--method), every machine is ranked by its
predicted time, and predictions and rankings are evaluated by leave-one-machine-out relative error and by
thresholded inversions of random machine subsets.  With --metric, machines are ranked by one benchmark;
--search looks for the combined metric with the fewest inversions.  With --profiles and --counts, perfeq's
own machine profiles rank the machines.  File formats: docs/ranking.md."""

EXAMPLES = """\
examples:
  perfeq rank --benchmarks machines.csv --runtimes app_times.csv --method reduced
  perfeq rank --benchmarks machines.csv --runtimes app_times.csv --compare --draws 5000
  perfeq rank --benchmarks machines.csv --metric "MM(s)"
  perfeq rank --benchmarks machines.csv --runtimes app_times.csv --metric all --search
  perfeq rank --profiles a.json b.json c.json --counts counts.json --runtimes app_times.csv"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rank", help="rank machines from benchmark tables and run times (Chen et al.)",
        description=DESCRIPTION, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("--benchmarks", metavar="CSV", help="benchmark table (format perfeq-benchmarks 1)")
    inputs.add_argument("--profiles", metavar="JSON", nargs="+",
                        help="perfeq machine profiles, named by file stem; a benchmark table of their costs, "
                             "or with --counts a ranking by predicted time")
    inputs.add_argument("--runtimes", metavar="CSV", help="application run times (format perfeq-runtimes 1)")
    inputs.add_argument("--counts", metavar="JSON", help="predicted counts of an application, cost -> count")
    inputs.add_argument("--case", metavar="APP[/PROCS]", action="append", default=[],
                        help="only these cases of --runtimes (repeatable)")
    inputs.add_argument("--columns", metavar="A,B,...",
                        help="only these benchmark columns, comma-separated, in this order")
    fitting = parser.add_argument_group("weights")
    fitting.add_argument("--method", choices=METHODS, default="lsq",
                         help="lsq: least squares on every benchmark; reduced: after dropping correlated "
                              "benchmarks; lp: linear program with non-negative weights (default: lsq)")
    fitting.add_argument("--compare", action="store_true",
                         help="evaluate all three methods side by side (rankings and weights use --method)")
    fitting.add_argument("--correlation", type=float, default=DEFAULT_CORRELATION, metavar="R",
                         help="basis reduction drops one of each pair with |r| > R (default: 0.8)")
    fitting.add_argument("--keep", metavar="NAME", action="append", default=[],
                         help="a benchmark basis reduction never drops (repeatable)")
    fitting.add_argument("--gamma", type=float, metavar="G",
                         help="lp: also list machines whose relative error exceeds the tolerance G")
    evaluation = parser.add_argument_group("evaluation")
    evaluation.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                            help="relative run-time difference that is insignificant (default: 0.01)")
    evaluation.add_argument("--beta", type=float, default=DEFAULT_BETA,
                            help="relative benchmark/prediction difference that is insignificant "
                                 "(default: 0.001)")
    evaluation.add_argument("--subset", type=int, default=DEFAULT_SUBSET_SIZE, metavar="K",
                            help="machines per random ranking (default: 5)")
    evaluation.add_argument("--draws", type=int, default=1000, metavar="N",
                            help="random subsets per case (default: 1000; the paper uses 5000)")
    evaluation.add_argument("--seed", type=int, default=0, help="seed of the random subsets (default: 0)")
    evaluation.add_argument("--no-evaluate", action="store_true",
                            help="only fit and rank, skip cross-validation and random subsets")
    metrics = parser.add_argument_group("application-independent rankings")
    metrics.add_argument("--metric", metavar="NAME", action="append", default=[],
                         help="rank machines by this benchmark; 'all' for every column (repeatable)")
    metrics.add_argument("--search", action="store_true",
                         help="search single and combined metrics for the fewest inversions (needs --runtimes)")
    metrics.add_argument("--search-terms", type=int, default=2, metavar="N",
                         help="benchmarks per combined metric in --search (default: 2)")
    metrics.add_argument("--top", type=int, default=10, metavar="N", help="--search results shown (default: 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text tables")
    parser.set_defaults(func=run_rank)


# --- Gathering inputs ----------------------------------------------------------------------------------

def _load_table(args: argparse.Namespace, profiles: dict[str, Any] | None) -> BenchmarkTable:
    if args.benchmarks:
        table = read_benchmarks(args.benchmarks)
    elif profiles is not None:
        table = benchmark_table_from_profiles(profiles, source="the --profiles")
    else:
        raise RankError("give a benchmark table with --benchmarks (or machine profiles with --profiles)")
    if args.columns:
        table = table.select([name.strip() for name in args.columns.split(",") if name.strip()])
    return table


def run_rank(args: argparse.Namespace) -> int:
    """Handler of ``perfeq rank``; returns the exit status."""
    if args.benchmarks and args.profiles and not args.counts:
        raise RankError("give either --benchmarks or --profiles as the benchmark table, not both")
    if args.counts and not args.profiles:
        raise RankError("--counts ranks machine profiles: give them with --profiles")
    if not (args.benchmarks or args.profiles):
        raise RankError("give a benchmark table with --benchmarks (or machine profiles with --profiles)")
    profiles = read_profiles(args.profiles) if args.profiles else None
    runtimes = read_runtimes(args.runtimes).select(args.case) if args.runtimes else None
    if args.case and runtimes is None:
        raise RankError("--case selects cases of --runtimes, which is not given")
    if args.counts:
        document = _profiles_document(args, profiles or {}, runtimes)
        text = profiles_text
    else:
        table = _load_table(args, profiles)
        if args.metric or args.search:
            document = _metrics_document(args, table, runtimes)
            text = metrics_text
        else:
            if runtimes is None:
                raise RankError("fitting weights needs run times: give --runtimes, or --metric NAME to rank "
                                "by one benchmark")
            document = _weights_document(args, table, runtimes)
            text = weights_text
    if args.json:
        json.dump(document, sys.stdout, indent=2)
        print()
    else:
        print(text(document), end="")
    return 0


def _header(mode: str, args: argparse.Namespace) -> dict[str, Any]:
    return {"format": OUTPUT_FORMAT, "version": OUTPUT_VERSION, "mode": mode,
            "alpha": args.alpha, "beta": args.beta}


def _cases_json(cases: Sequence[CaseInversions]) -> list[dict[str, Any]]:
    return [{"application": case.application, "processors": case.processors, "machines": case.machines,
             "inversions": case.inversions, "max_inversions": case.max_inversions} for case in cases]


def _weights_document(args: argparse.Namespace, table: BenchmarkTable, runtimes: RuntimeTable) -> dict[str, Any]:
    methods = list(METHODS) if args.compare else [args.method]
    methods.remove(args.method)
    methods.insert(0, args.method)
    designs, results = evaluate_cases(
        table, runtimes, methods, threshold=args.correlation, keep=args.keep, subset_size=args.subset,
        draws=args.draws, seed=args.seed, alpha=args.alpha, beta=args.beta, evaluate=not args.no_evaluate)
    document = _header("weights", args)
    document.update({
        "benchmarks": {"source": table.source, "machines": list(table.machines), "columns": list(table.columns),
                       "kinds": list(table.kinds)},
        "runtimes": {"source": runtimes.source, "cases": [case.label for case in runtimes.cases]},
        "primary_method": args.method, "subset": args.subset, "draws": 0 if args.no_evaluate else args.draws,
        "seed": args.seed, "gamma_tolerance": args.gamma, "methods": {}})
    for method, design in designs.items():
        cases = [_case_json(result, design, args.gamma) for result in results if result.method == method]
        errors = [case["cross_validation"]["mean_error"] for case in cases if case["cross_validation"]]
        inversions = [case["subsets"]["mean_inversions"] for case in cases if case["subsets"]]
        document["methods"][method] = {
            "description": METHOD_NAMES[method], "columns": list(design.columns),
            "dropped": None if design.reduction is None else [
                {"benchmark": d.name, "partner": d.partner, "correlation": d.correlation}
                for d in design.reduction.dropped],
            "correlation_threshold": None if design.reduction is None else design.reduction.threshold,
            "average_error": float(np.mean(errors)) if errors else None,
            "average_inversions": float(np.mean(inversions)) if inversions else None,
            "cases": cases}
    return document


def _case_json(result: CaseResult, design: RankingDesign, tolerance: float | None) -> dict[str, Any]:
    case = result.case
    measured = dict(zip(case.machines, map(float, case.seconds), strict=True))
    entry: dict[str, Any] = {"application": case.application, "processors": case.processors,
                             "machines": len(case.machines), "weights": None, "gamma": None, "ranking": None,
                             "cross_validation": None, "subsets": None, "suspects": [],
                             "outside_tolerance": [], "problems": list(result.problems)}
    if result.fit is not None and result.predicted is not None:
        entry["weights"] = dict(zip(design.columns, map(float, result.fit.weights), strict=True))
        entry["gamma"] = result.fit.gamma
        order = np.argsort(result.predicted, kind="stable")
        entry["ranking"] = [{"machine": design.machines[i], "predicted_seconds": float(result.predicted[i]),
                             "measured_seconds": measured.get(design.machines[i])} for i in order]
        if result.fit.gamma is not None and tolerance is not None:
            errors = np.abs(result.fit.predict(design.rows(case.machines)) - case.seconds) / case.seconds
            entry["outside_tolerance"] = [{"machine": m, "relative_error": float(e)}
                                          for m, e in zip(case.machines, errors, strict=True) if e > tolerance]
    if result.cross_validation is not None:
        cv = result.cross_validation
        entry["cross_validation"] = {
            "mean_error": cv.mean_error,
            "machines": [{"machine": m, "predicted_seconds": p, "measured_seconds": a, "error": e}
                         for m, p, a, e in zip(cv.machines, cv.predicted, cv.measured, cv.errors, strict=True)]}
    if result.subsets is not None:
        s = result.subsets
        entry["subsets"] = {"mean_inversions": s.mean_inversions, "max_inversions": s.max_inversions,
                            "subset": s.subset_size, "draws": s.draws, "skipped": s.skipped}
    entry["suspects"] = [{"machine": s.machine, "relative_error": s.relative_error,
                          "gamma_without": s.gamma_without} for s in result.suspects]
    return entry


def _metrics_document(args: argparse.Namespace, table: BenchmarkTable,
                      runtimes: RuntimeTable | None) -> dict[str, Any]:
    names: list[str] = []
    for name in args.metric:
        for column in (table.columns if name == "all" else [name]):
            table.column_index(column)
            if column not in names:
                names.append(column)
    document = _header("metrics", args)
    document["benchmarks"] = {"source": table.source, "machines": list(table.machines),
                              "columns": list(table.columns), "kinds": list(table.kinds)}
    document["rankings"] = []
    for name in names:
        order, scores = metric_ranking(table, name)
        kind = table.kinds[table.column_index(name)]
        values = table.values[:, table.column_index(name)]
        index = {machine: i for i, machine in enumerate(table.machines)}
        document["rankings"].append({"metric": name, "kind": kind, "machines": [
            {"machine": machine, "value": float(values[index[machine]])} for machine in order]})
    document["runtimes"] = None if runtimes is None else runtimes.source
    document["scores"] = []
    if runtimes is not None and names:
        for score in score_metrics(table, runtimes, names, alpha=args.alpha, beta=args.beta):
            document["scores"].append(_score_json(score))
    document["search"] = None
    if args.search:
        if runtimes is None:
            raise RankError("--search scores metrics against run times: give --runtimes")
        found = search_combined_metric(table, runtimes, max_terms=args.search_terms, alpha=args.alpha,
                                               beta=args.beta, top=args.top)
        document["search"] = {"terms": args.search_terms, "results": [_score_json(score) for score in found]}
    return document


def _score_json(score: MetricScore) -> dict[str, Any]:
    return {"metric": score.name, "weights": score.weights, "total": score.total,
            "per_application": score.per_application, "cases": _cases_json(score.cases)}


def _profiles_document(args: argparse.Namespace, profiles: dict[str, Any],
                       runtimes: RuntimeTable | None) -> dict[str, Any]:
    counts = read_counts(args.counts)
    result = rank_profiles(profiles, counts, runtimes=runtimes, alpha=args.alpha, beta=args.beta)
    document = _header("profiles", args)
    document.update({
        "profiles": list(args.profiles), "counts": counts,
        "ranking": [{"machine": m, "predicted_seconds": p, "terms": result.terms[m]}
                    for m, p in zip(result.machines, result.predicted, strict=True)],
        "runtimes": None if runtimes is None else runtimes.source,
        "cases": _cases_json(result.cases), "total_inversions": result.total if runtimes else None,
        "unmatched": list(result.unmatched)})
    return document
