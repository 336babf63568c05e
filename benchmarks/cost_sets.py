"""Held-out error of several cost sets on kept calibration campaigns, and what limits it.

Re-analyses runs CSVs written by ``prediction_accuracy.py --keep`` (no timing; the bundled
campaigns in benchmarks/data were measured on the 2-core development VM): for each cost set,
leave-one-application-out mean |error| per campaign (perfeq's own cross-validation, relative
weighting, with const) and each application's signed bias; then what no cost set can beat (the
first two are the floors ``perfeq validate`` prints):

* in-sample: each application fitted on its own runs alone (the same cost set), i.e. the error a
  model with per-application costs would still leave (noise, cache and process-count effects);
* pooled: every application in one fit, judged on its own runs: what these columns leave even when
  no application is held out, a floor for the held-out error of the same cost set;
* drift: each application's geometric-mean time in every campaign relative to its time in the first
  one; applications that do not move together show a change of the machine that a fit would read as
  one application's cost;
* repetition noise: how far repeated runs of one point are from each other.

    python benchmarks/cost_sets.py [RUNS.csv ...] [--costs loads,stores,branch --costs ops,branch] [--without gram]

``--without APP`` also prints the held-out error of the other applications alone (APP stays in every
fit): for a calibration kernel such as gram, which is there to price one cost (chain) and is itself
easy to predict from the application that shares its trait.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

from perfeq.fitting.analysis.validate import cross_validate
from perfeq.fitting.regression.runs import read_runs

DATA = Path(__file__).parent / "data"
DEFAULT_COSTS = ("loads,stores,branch,chain,shared", "loads,stores,branch,chain", "loads,stores,branch,shared",
                 "loads,stores,branch", "loads,branch", "ops,branch", "ops,bytes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="runs CSVs (default: benchmarks/data/*.runs.csv)")
    parser.add_argument("--costs", action="append", help="a comma-separated cost set (repeatable)")
    parser.add_argument("--without", action="append", default=[], metavar="APP",
                        help="also report the held-out error of the applications other than APP (repeatable)")
    args = parser.parse_args(argv)
    paths = args.runs or sorted(DATA.glob("*.runs.csv"))
    if not paths:
        print("cost_sets: no runs CSVs given and none in benchmarks/data", file=sys.stderr)
        return 2
    campaigns = {path.name.removesuffix(".runs.csv"): read_runs(path) for path in paths}
    names = list(campaigns)
    print(f"campaigns: {', '.join(names)}")
    for text in args.costs or DEFAULT_COSTS:
        costs = text.split(",")
        overall, bias, floor, pooled, others = [], {}, [], [], []
        for runs in campaigns.values():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = cross_validate(runs, costs=costs, intercept=True, between_app=False)
            floors = result.floors
            floor.append(float("nan") if floors.own is None else floors.own)
            pooled.append(float("nan") if floors.pooled is None else floors.pooled)
            overall.append(result.overall.average_error)
            kept = [summary for summary in result.summaries if summary.app not in args.without]
            others.append(sum(s.average_error * s.runs for s in kept) / sum(s.runs for s in kept))
            for summary in result.summaries:
                bias.setdefault(summary.app, []).append(summary.mean_error)
        print(f"\n{text} (+ const): held-out mean |error| "
              + " ".join(f"{100 * e:5.1f}" for e in overall) + f"   mean {100 * np.mean(overall):.1f} %")
        if args.without:
            print(f"  without {','.join(args.without)}:" + " " * max(1, 34 - len(",".join(args.without)))
                  + " ".join(f"{100 * e:5.1f}" for e in others) + f"   mean {100 * np.mean(others):.1f} %")
        print("  in-sample, each application on its own runs: "
              + " ".join(f"{100 * e:5.1f}" for e in floor) + f"   mean {100 * np.nanmean(floor):.1f} %")
        print("  pooled, all applications in one fit:          "
              + " ".join(f"{100 * e:5.1f}" for e in pooled) + f"   mean {100 * np.mean(pooled):.1f} %")
        for app, values in sorted(bias.items()):
            print(f"  bias {app:12s}" + " ".join(f"{100 * v:+7.1f}" for v in values))
    print("\ndrift: geometric-mean time of each application relative to the first campaign")
    first = campaigns[names[0]]
    for app in sorted({run.app for run in first}):
        ratios = [geometric_mean_time(runs, app) / geometric_mean_time(first, app) for runs in campaigns.values()]
        print(f"  {app:12s}" + " ".join(f"{r:6.2f}" for r in ratios))
    print("\nrepetition noise: mean coefficient of variation of the repeated runs of each point (same build,")
    print("size and P), per campaign: a model exact for each point's mean time would still be off single runs")
    print("by about 0.8 times this on average (the mean |deviation| of a normal variable is 0.80 sigma)")
    print("  all         " + " ".join(f"{100 * repetition_cv(runs):5.1f}" for runs in campaigns.values()) + "  %")
    return 0


def geometric_mean_time(runs, app: str) -> float:
    """Geometric mean of the run times of ``app`` (sizes differ; a ratio of these compares campaigns)."""
    return float(np.exp(np.mean([np.log(run.time_s) for run in runs if run.app == app])))


def repetition_cv(runs) -> float:
    """Mean coefficient of variation of the runs that repeat one point (application, build, sizes, P, T)."""
    points: dict[tuple, list[float]] = {}
    for run in runs:
        points.setdefault((run.app, run.build, run.params, run.procs, run.threads), []).append(run.time_s)
    return float(np.mean([np.std(t, ddof=1) / np.mean(t) for t in points.values() if len(t) > 1]))


if __name__ == "__main__":
    sys.exit(main())
