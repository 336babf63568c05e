"""Text tables of ``perfeq rank``: the JSON-ready documents of ``commands`` printed for a reader.

One function per mode (weights, metrics, profiles); each takes the document ``--json`` would print,
so text and JSON always say the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


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


def weights_text(document: dict[str, Any]) -> str:
    """Rankings, weights, evaluation and lp suspects of a ``weights`` document."""
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


def metrics_text(document: dict[str, Any]) -> str:
    """Rankings by metric, their inversions and the search results of a ``metrics`` document."""
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


def profiles_text(document: dict[str, Any]) -> str:
    """The ranking by predicted time and its inversions of a ``profiles`` document."""
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
