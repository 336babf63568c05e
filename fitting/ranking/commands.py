"""The ``perfeq rank`` subcommand: machine rankings from benchmark tables, run times or machine profiles.

Glue only: reads the inputs with ``rank_tables``, computes with ``ranking``, then prints text tables or one
JSON document (``--json``).  Registered by :mod:`perfeq.cli` through :func:`register`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from perfeq.errors import RankError
from perfeq.fitting.ranking import methods as ranking
from perfeq.fitting.ranking.tables import (
    BenchmarkTable,
    RuntimeTable,
    benchmark_table_from_profiles,
    read_benchmarks,
    read_counts,
    read_profiles,
    read_runtimes,
)

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
    fitting.add_argument("--method", choices=ranking.METHODS, default="lsq",
                         help="lsq: least squares on every benchmark; reduced: after dropping correlated "
                              "benchmarks; lp: linear program with non-negative weights (default: lsq)")
    fitting.add_argument("--compare", action="store_true",
                         help="evaluate all three methods side by side (rankings and weights use --method)")
    fitting.add_argument("--correlation", type=float, default=ranking.DEFAULT_CORRELATION, metavar="R",
                         help="basis reduction drops one of each pair with |r| > R (default: 0.8)")
    fitting.add_argument("--keep", metavar="NAME", action="append", default=[],
                         help="a benchmark basis reduction never drops (repeatable)")
    fitting.add_argument("--gamma", type=float, metavar="G",
                         help="lp: also list machines whose relative error exceeds the tolerance G")
    evaluation = parser.add_argument_group("evaluation")
    evaluation.add_argument("--alpha", type=float, default=ranking.DEFAULT_ALPHA,
                            help="relative run-time difference that is insignificant (default: 0.01)")
    evaluation.add_argument("--beta", type=float, default=ranking.DEFAULT_BETA,
                            help="relative benchmark/prediction difference that is insignificant "
                                 "(default: 0.001)")
    evaluation.add_argument("--subset", type=int, default=ranking.DEFAULT_SUBSET_SIZE, metavar="K",
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
        text = _profiles_text
    else:
        table = _load_table(args, profiles)
        if args.metric or args.search:
            document = _metrics_document(args, table, runtimes)
            text = _metrics_text
        else:
            if runtimes is None:
                raise RankError("fitting weights needs run times: give --runtimes, or --metric NAME to rank "
                                "by one benchmark")
            document = _weights_document(args, table, runtimes)
            text = _weights_text
    if args.json:
        json.dump(document, sys.stdout, indent=2)
        print()
    else:
        print(text(document), end="")
    return 0


def _header(mode: str, args: argparse.Namespace) -> dict[str, Any]:
    return {"format": OUTPUT_FORMAT, "version": OUTPUT_VERSION, "mode": mode,
            "alpha": args.alpha, "beta": args.beta}


def _cases_json(cases: Sequence[ranking.CaseInversions]) -> list[dict[str, Any]]:
    return [{"application": case.application, "processors": case.processors, "machines": case.machines,
             "inversions": case.inversions, "max_inversions": case.max_inversions} for case in cases]


def _weights_document(args: argparse.Namespace, table: BenchmarkTable, runtimes: RuntimeTable) -> dict[str, Any]:
    methods = list(ranking.METHODS) if args.compare else [args.method]
    methods.remove(args.method)
    methods.insert(0, args.method)
    designs, results = ranking.evaluate_cases(
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
            "description": ranking.METHOD_NAMES[method], "columns": list(design.columns),
            "dropped": None if design.reduction is None else [
                {"benchmark": d.name, "partner": d.partner, "correlation": d.correlation}
                for d in design.reduction.dropped],
            "correlation_threshold": None if design.reduction is None else design.reduction.threshold,
            "average_error": float(np.mean(errors)) if errors else None,
            "average_inversions": float(np.mean(inversions)) if inversions else None,
            "cases": cases}
    return document


def _case_json(result: ranking.CaseResult, design: ranking.RankingDesign, tolerance: float | None) -> dict[str, Any]:
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
        order, scores = ranking.metric_ranking(table, name)
        kind = table.kinds[table.column_index(name)]
        values = table.values[:, table.column_index(name)]
        index = {machine: i for i, machine in enumerate(table.machines)}
        document["rankings"].append({"metric": name, "kind": kind, "machines": [
            {"machine": machine, "value": float(values[index[machine]])} for machine in order]})
    document["runtimes"] = None if runtimes is None else runtimes.source
    document["scores"] = []
    if runtimes is not None and names:
        for score in ranking.score_metrics(table, runtimes, names, alpha=args.alpha, beta=args.beta):
            document["scores"].append(_score_json(score))
    document["search"] = None
    if args.search:
        if runtimes is None:
            raise RankError("--search scores metrics against run times: give --runtimes")
        found = ranking.search_combined_metric(table, runtimes, max_terms=args.search_terms, alpha=args.alpha,
                                               beta=args.beta, top=args.top)
        document["search"] = {"terms": args.search_terms, "results": [_score_json(score) for score in found]}
    return document


def _score_json(score: ranking.MetricScore) -> dict[str, Any]:
    return {"metric": score.name, "weights": score.weights, "total": score.total,
            "per_application": score.per_application, "cases": _cases_json(score.cases)}


def _profiles_document(args: argparse.Namespace, profiles: dict[str, Any],
                       runtimes: RuntimeTable | None) -> dict[str, Any]:
    counts = read_counts(args.counts)
    result = ranking.rank_profiles(profiles, counts, runtimes=runtimes, alpha=args.alpha, beta=args.beta)
    document = _header("profiles", args)
    document.update({
        "profiles": list(args.profiles), "counts": counts,
        "ranking": [{"machine": m, "predicted_seconds": p, "terms": result.terms[m]}
                    for m, p in zip(result.machines, result.predicted, strict=True)],
        "runtimes": None if runtimes is None else runtimes.source,
        "cases": _cases_json(result.cases), "total_inversions": result.total if runtimes else None,
        "unmatched": list(result.unmatched)})
    return document


# --- Text output ---------------------------------------------------------------------------------------

def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], left: int = 1, align: str = "") -> str:
    """A plain text table; the first ``left`` columns left-aligned, the rest right-aligned, unless ``align``
    gives one letter per column (``l`` or ``r``)."""
    cells = [list(map(str, headers))] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(headers))]
    align = align or "l" * left + "r" * (len(headers) - left)
    lines = []
    for row in cells:
        parts = [cell.ljust(w) if align[k] == "l" else cell.rjust(w)
                 for k, (cell, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  " + "  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def _number(value: float | None, form: str = ".4g") -> str:
    return "-" if value is None else format(value, form)


def _weights_text(document: dict[str, Any]) -> str:
    methods = document["methods"]
    primary = document["primary_method"]
    bench, runs = document["benchmarks"], document["runtimes"]
    out = [f"benchmarks {bench['source']}: {len(bench['machines'])} machines, {len(bench['columns'])} benchmarks; "
           f"run times {runs['source']}: {len(runs['cases'])} case{'s' if len(runs['cases']) != 1 else ''}; alpha {document['alpha']:g}, "
           f"beta {document['beta']:g}\n"]
    for method, entry in methods.items():
        line = f"method {method}: {entry['description']}"
        if entry["dropped"] is not None:
            dropped = ", ".join(f"{d['benchmark']} (r = {d['correlation']:+.2f} with {d['partner']})"
                                for d in entry["dropped"]) or "nothing"
            line += f"; |r| > {entry['correlation_threshold']:g} dropped {dropped}"
        out.append(line + "\n")
    main = methods[primary]
    for case in main["cases"]:
        if case["ranking"] is None:
            continue
        title = f"\nranking for {case['application']} on {case['processors']} processors ({primary}, fitted on " \
                f"{case['machines']} machines"
        title += f", gamma {case['gamma']:.3g})\n" if case["gamma"] is not None else ")\n"
        rows = [(rank, item["machine"], _number(item["predicted_seconds"]), _number(item["measured_seconds"]))
                for rank, item in enumerate(case["ranking"], 1)]
        out.append(title + _table(("rank", "machine", "predicted s", "measured s"), rows, left=2))
    fitted = [case for case in main["cases"] if case["weights"] is not None]
    if fitted:
        out.append(f"\nweights ({primary}; seconds per benchmark scaled to a largest value of 1)\n")
        rows = [(f"{c['application']}/{c['processors']}", *(_number(c["weights"][name], ".3g")
                                                             for name in main["columns"])) for c in fitted]
        out.append(_table(("case", *main["columns"]), rows))
    if document["draws"] or any(case["cross_validation"] for m in methods.values() for case in m["cases"]):
        out.append(_evaluation_text(document))
    for method, entry in methods.items():
        if method != "lp":
            continue
        rows = [(f"{c['application']}/{c['processors']}", s["machine"], _number(c["gamma"], ".3g"),
                 _number(s["relative_error"], ".3g"), _number(s["gamma_without"], ".3g"))
                for c in entry["cases"] for s in c["suspects"][:3]]
        if rows:
            out.append("\nhardest lp constraints, up to 3 per case (suspect run time or benchmarks: for a human "
                       "to judge)\n")
            out.append(_table(("case", "machine", "gamma", "|rel. error|", "gamma without it"), rows, left=2))
        outside = [(f"{c['application']}/{c['processors']}", o["machine"], _number(o["relative_error"], ".3g"))
                   for c in entry["cases"] for o in c["outside_tolerance"]]
        if document["gamma_tolerance"] is not None:
            out.append(f"\nmachines outside --gamma {document['gamma_tolerance']:g}:"
                       f"{' none' if not outside else ''}\n")
            if outside:
                out.append(_table(("case", "machine", "|rel. error|"), outside, left=2))
    problems = [(method, p) for method, entry in methods.items() for c in entry["cases"] for p in c["problems"]]
    if problems:
        out.append("\nnot computed (shown as -):\n")
        out.extend(f"  {method}: {problem}\n" for method, problem in problems)
    return "".join(out)


def _evaluation_text(document: dict[str, Any]) -> str:
    methods = document["methods"]
    names = list(methods)
    labels = [f"{c['application']}/{c['processors']}" for c in methods[names[0]]["cases"]]
    out = ["\nleave-one-machine-out |relative error| (Eq. 2), mean over machines, %\n"]
    rows = [(label, *(_number(None if not methods[m]["cases"][k]["cross_validation"] else
                              100 * methods[m]["cases"][k]["cross_validation"]["mean_error"], ".1f")
                      for m in names)) for k, label in enumerate(labels)]
    rows.append(("average", *(_number(None if methods[m]["average_error"] is None
                                      else 100 * methods[m]["average_error"], ".1f") for m in names)))
    out.append(_table(("case", *names), rows))
    if document["draws"]:
        subset = document["subset"]
        out.append(f"\nthresholded inversions ranking {subset} random machines predicted from the others, "
                   f"mean of {document['draws']} draws (at most {subset * (subset - 1) // 2})\n")
        rows = [(label, *(_number(None if not methods[m]["cases"][k]["subsets"] else
                                  methods[m]["cases"][k]["subsets"]["mean_inversions"], ".2f") for m in names))
                for k, label in enumerate(labels)]
        rows.append(("average", *(_number(methods[m]["average_inversions"], ".2f") for m in names)))
        out.append(_table(("case", *names), rows))
    return "".join(out)


def _metrics_text(document: dict[str, Any]) -> str:
    out = []
    rankings = document["rankings"]
    if rankings:
        out.append(f"machines fastest first by each metric ({document['benchmarks']['source']})\n")
        depth = max(len(r["machines"]) for r in rankings)
        rows = [(rank + 1, *(r["machines"][rank]["machine"] for r in rankings)) for rank in range(depth)]
        out.append(_table(("rank", *(r["metric"] for r in rankings)), rows, left=len(rankings) + 1))
    if document["scores"]:
        scores = document["scores"]
        applications = list(scores[0]["per_application"])
        out.append(f"\nthresholded inversions summed over processor counts (alpha {document['alpha']:g}, "
                   f"beta {document['beta']:g}; compare within a row)\n")
        rows = [(app, *(s["per_application"][app] for s in scores)) for app in applications]
        rows.append(("overall sum", *(s["total"] for s in scores)))
        out.append(_table(("application", *(s["metric"] for s in scores)), rows))
    if document["search"]:
        results = document["search"]["results"]
        out.append(f"\nbest metrics found (up to {document['search']['terms']} normalized benchmarks, and each "
                   "case's lp weights), fewest inversions first\n")
        rows = [(k + 1, s["total"], s["metric"]) for k, s in enumerate(results)]
        out.append(_table(("rank", "inversions", "metric"), rows, align="lrl"))
    return "".join(out)


def _profiles_text(document: dict[str, Any]) -> str:
    counts = ", ".join(f"{cost} {count:.4g}" for cost, count in document["counts"].items())
    out = [f"machines ranked by predicted time of the counts ({counts})\n"]
    rows = [(rank, item["machine"], _number(item["predicted_seconds"])) for rank, item in
            enumerate(document["ranking"], 1)]
    out.append(_table(("rank", "machine", "predicted s"), rows, left=2))
    if document["runtimes"]:
        out.append(f"\nthresholded inversions against {document['runtimes']} (alpha {document['alpha']:g}, "
                   f"beta {document['beta']:g})\n")
        rows = [(f"{c['application']}/{c['processors']}", c["machines"], c["inversions"], c["max_inversions"])
                for c in document["cases"]]
        rows.append(("total", "", document["total_inversions"], ""))
        out.append(_table(("case", "machines", "inversions", "at most"), rows))
        if document["unmatched"]:
            out.append(f"run times of machines without a profile were ignored: {', '.join(document['unmatched'])}\n")
    return "".join(out)
