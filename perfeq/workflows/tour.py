"""``perfeq tour``: the whole pipeline on the bundled examples, as a user would run it.

Instrument one example, run it small, build its model, calibrate this machine on the other
examples, check one prediction against a real run, predict the example at a much larger size with
intervals, and write a sensitivity plot, all into one folder of plain files.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from perfeq.errors import FitError


def _say(step: str, text: str) -> None:
    print(f"[{step}] {text}", flush=True)


def run_tour(args: argparse.Namespace) -> int:
    from perfeq.fitting.analysis.sensitivity import plot_sensitivity, sensitivity
    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.predict import predict
    from perfeq.fitting.regression.profile import save_profile
    from perfeq.fitting.regression.report import format_profile
    from perfeq.fitting.regression.runs import read_runs
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import build_model
    from perfeq.workflows.calibrate import parse_procs, run_campaign
    from perfeq.workflows.pipeline import (
        build_instrumented,
        build_plain,
        find_example,
        load_catalog,
        run_small,
        time_run,
    )

    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    example = find_example(args.example)
    catalog = load_catalog()
    others = [e for e in catalog if e.name != example.name and e.calibrate]
    left_out = [e for e in catalog if e.name != example.name and not e.calibrate]
    machine = Machine.detect()
    (out / "caches.json").write_text(machine.to_json())

    _say("instrument", f"perfeq cc -- mpicc {example.source.name}: instrumented copy and descriptors in {out / 'build'}")
    binary = build_instrumented(example, out / "build")
    _say("run", f"{example.name} at {example.small} on 2 processes (the small instrumentation run)")
    trace = run_small(example, binary, example.small, 2, out / f"{example.name}.trace")
    _say("model", f"symbolic counts chi(N, P) per block from {trace.name}")
    model = build_model([trace])
    model_path = out / f"{example.name}.model.json"
    model.save(model_path)
    totals = model.totals()
    for key in ("ops", "startup", "bytes"):
        print(f"    chi_{key} = {_short(totals.get(key, 0))}")
    for note in model.fallbacks:
        print(f"    note: {note}")

    runs_path = out / "runs.csv"
    _say("calibrate", f"timing {len(others)} other examples x 3 sizes x P={args.procs} x {args.reps} reps "
         f"into {runs_path} (resumable)")
    for e in left_out:
        print(f"    leaving out {e.name}: {e.calibrate_note}")
    run_campaign(others, runs_path, out / "work", parse_procs(args.procs), args.reps,
                 progress=lambda text: print(f"    {text}", flush=True))
    runs = read_runs(runs_path)
    _say("fit", "t = chi * beta + e by weighted least squares (statsmodels)")
    profile = None
    # best held-out accuracy first (benchmarks/prediction_accuracy.py): memory operations,
    # mispredicted branches, chained flops and loads on a shared node, with the message costs when
    # the runs pin them down; then simpler sets until no cost comes out negative
    best = ("loads", "stores", "branch", "chain", "shared")
    for costs in ((*best, "startup", "bytes"), (*best, "bytes"), best, ("loads", "stores", "branch", "chain"),
                  ("loads", "stores", "branch"), ("ops", "branch", "bytes"), ("ops", "branch"), ("ops", "bytes"),
                  ("ops",)):
        try:
            candidate = fit_machine(runs, costs=list(costs), intercept=True)
        except FitError as exc:
            print(f"    costs {','.join(costs)}: {exc}; trying fewer")
            continue
        negative = [name for name, value in candidate.values.items() if value < 0]
        profile = candidate
        if not negative:
            break
        print(f"    costs {','.join(costs)}: negative {', '.join(negative)} (not a machine cost); trying fewer")
    if profile is None:
        raise FitError("no set of costs could be fitted from the calibration runs")
    save_profile(profile, out / "machine.json")
    print("    " + format_profile(profile).replace("\n", "\n    "))

    check = example.calibration()[0]
    _say("check", f"{example.name} at {check} on 2 processes: predicted vs a real run")
    plain = build_plain(example, out / "work" / "plain")
    measured = min(time_run(plain, example.argv(check), 2) for _ in range(2))
    counts = model.counts({k: float(v) for k, v in check.items()}, 2, 1, machine)["slowest"]
    checked = predict(profile, {c: counts.get(c, 0.0) for c in profile.names if c != "const"})
    print(f"    measured {measured:.3f} s, predicted {checked.time_s:.3f} s "
          f"(95% prediction interval {_interval(checked.prediction_interval)})")

    big = {k: v * 8 for k, v in check.items()} if len(check) == 1 else {
        **check, example.params[0]["name"]: check[example.params[0]["name"]] * 8}
    _say("predict", f"{example.name} at {big} on 64 processes")
    counts = model.counts({k: float(v) for k, v in big.items()}, 64, 1, machine)["slowest"]
    result = predict(profile, {c: counts.get(c, 0.0) for c in profile.names if c != "const"})
    print(f"    predicted {result.time_s:.3f} s, 95% confidence interval {_interval(result.mean_interval)}, "
          f"95% prediction interval {_interval(result.prediction_interval)}")
    for warning in result.warnings:
        print(f"    warning: {warning}")
    (out / "prediction.json").write_text(json.dumps({"values": big, "P": 64, **result.to_dict()}, indent=1) + "\n")

    first = example.params[0]["name"]
    fixed = {k: float(v) for k, v in check.items()}
    sizes = [check[first] * f for f in (1, 2, 4, 8, 16, 32, 64)]
    _say("sensitivity", f"dt/dbeta_startup over {first} and P (the paper's Fig. 7)")
    grid = sensitivity(model, "startup", first, sizes, [1, 2, 4, 8, 16, 32, 64], fixed, profile, machine)
    plot_sensitivity(grid, out / "sensitivity-startup.png",
                     f"{example.name}: seconds added per 10 us of message startup")
    (out / "sensitivity-startup.json").write_text(json.dumps(grid.to_dict(), indent=1) + "\n")
    print(f"    wrote {out / 'sensitivity-startup.png'}")
    from perfeq.fitting.analysis.report import write_report

    _say("report", "one HTML page: equations, machine profile, predictions, plots, fallbacks")
    report = write_report(model, profile, machine, out / "report.html", model_path=str(model_path),
                          profile_path=str(out / "machine.json"))
    print(f"    wrote {report}")
    _say("done", f"{time.perf_counter() - started:.0f} s; everything is in {out}/")
    return 0


def _interval(pair) -> str:
    if pair is None:
        return "(none: hand-written profile)"
    low, high = pair
    return f"[{low:.3f}, {high:.3f}] s"


def _short(expr) -> str:
    text = str(expr)
    return text if len(text) < 160 else text[:157] + "..."

