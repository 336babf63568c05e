"""``perfeq tour``: the whole pipeline on the bundled examples, as a user would run it.

Instrument one example, run it small, build its model, calibrate this machine on the other
examples (message costs from quick probes, the rest fitted), check one prediction against a real
run, predict the example at a much larger size with intervals, and write a sensitivity plot, all
into one folder of plain files.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from perfeq.examples.catalog import Example, find_example, load_catalog
from perfeq.fitting.analysis.report import write_report
from perfeq.fitting.analysis.sensitivity import plot_sensitivity, sensitivity
from perfeq.fitting.costs import INTERCEPT, MESSAGE_COSTS
from perfeq.fitting.regression.costsets import fit_selected
from perfeq.fitting.regression.predict import Prediction, predict
from perfeq.fitting.regression.probed import probed_from
from perfeq.fitting.regression.profile import MachineProfile, save_profile
from perfeq.fitting.regression.report import format_profile, interval_advice
from perfeq.fitting.regression.runs import read_runs
from perfeq.symbolic.machine import Machine
from perfeq.symbolic.model import CostModel, build_model
from perfeq.workflows.calibrate import parse_procs, run_campaign
from perfeq.workflows.pipeline import build_instrumented, build_plain, run_small, time_run
from perfeq.workflows.probe import describe, run_probes


def _say(step: str, text: str) -> None:
    print(f"[{step}] {text}", flush=True)


def run_tour(args: argparse.Namespace) -> int:
    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    example = find_example(args.example)
    catalog = load_catalog()
    machine = Machine.detect()
    (out / "caches.json").write_text(machine.to_json())
    model, model_path = _model(example, out)
    profile = _calibrate(args, example, catalog, out)
    check = example.calibration()[0]
    _check(example, check, model, profile, machine, out)
    _predict_large(example, check, model, profile, machine, out)
    _sensitivity(example, check, model, profile, machine, out)
    _say("report", "one HTML page: equations, machine profile, predictions, plots, fallbacks")
    report = write_report(model, profile, machine, out / "report.html", model_path=str(model_path),
                          profile_path=str(out / "machine.json"))
    print(f"    wrote {report}")
    _say("done", f"{time.perf_counter() - started:.0f} s; everything is in {out}/")
    return 0


def _model(example: Example, out: Path) -> tuple[CostModel, Path]:
    """Instrument the example, run it small on 2 processes, and build and save its model."""
    _say("instrument", f"perfeq cc -- mpicc {example.source.name}: instrumented copy and descriptors in {out / 'build'}")
    binary = build_instrumented(example, out / "build")
    _say("run", f"{example.name} at {example.small} on 2 processes (the small instrumentation run)")
    trace = run_small(example, binary, example.small, 2, out / f"{example.name}.trace")
    _say("model", f"symbolic counts chi(N, P) per block from {trace.name}")
    model = build_model([trace])
    model_path = out / f"{example.name}.model.json"
    model.save(model_path)
    totals = model.totals()
    for key in ("ops", *MESSAGE_COSTS):
        print(f"    chi_{key} = {_short(totals.get(key, 0))}")
    for note in model.fallbacks:
        print(f"    note: {note}")
    return model, model_path


def _calibrate(args: argparse.Namespace, example: Example, catalog: list[Example], out: Path) -> MachineProfile:
    """Time the other examples into runs.csv and fit this machine's costs (the set chosen as perfeq fit does)."""
    others = [e for e in catalog if e.name != example.name and e.calibrate]
    left_out = [e for e in catalog if e.name != example.name and not e.calibrate]
    runs_path = out / "runs.csv"
    _say("calibrate", f"timing {len(others)} other examples x 3 sizes x P={args.procs} x {args.reps} reps "
         f"into {runs_path} (resumable)")
    for e in left_out:
        print(f"    leaving out {e.name}: {e.calibrate_note}")
    run_campaign(others, runs_path, out / "work", parse_procs(args.procs), args.reps,
                 progress=lambda text: print(f"    {text}", flush=True))
    runs = read_runs(runs_path)
    probes = _probes(args, out)
    _say("fit", f"t = chi * beta + e by weighted least squares (statsmodels), as perfeq fit runs.csv --intercept "
         f"--probes {probes}")
    fixed = probed_from(probes, lambda text: print(f"    {text}"))
    profile = fit_selected(runs, intercept=True, report=lambda text: print(f"    {text}"), fixed=fixed)
    save_profile(profile, out / "machine.json")
    print("    " + format_profile(profile).replace("\n", "\n    "))
    return profile


def _probes(args: argparse.Namespace, out: Path) -> Path:
    """The probe file the message costs come from: ``--probes``, else quick probes run now."""
    if args.probes is not None:
        _say("probe", f"message costs from {args.probes}")
        return args.probes
    path = out / "probes.json"
    _say("probe", f"perfeq probe --quick -o {path}: ping-pong latency and bandwidth (and the memory and compute "
         "curves), since runs on 1-2 processes of one node cannot identify what a message costs")
    steps = []  # the [k/N] lines of every probe point: kept quiet, the headline numbers are printed
    results, _ = run_probes(path, quick=True, plots=out / "probes.plots",
                            say=lambda text: steps.append(text) if text.startswith("[") else print(f"    {text}"))
    for line in describe(results):
        print(f"    {line}")
    print(f"    {len(steps)} points in {results.settings['seconds']:.0f} s; curves in {path}, plots in "
          f"{out / 'probes.plots'}/")
    return path


def _predict_at(model: CostModel, profile: MachineProfile, machine: Machine, values: dict, procs: int) -> Prediction:
    """The profile's prediction from the model's slowest-rank counts at ``values`` on ``procs``."""
    counts = model.counts({k: float(v) for k, v in values.items()}, procs, 1, machine)["slowest"]
    return predict(profile, {c: counts.get(c, 0.0) for c in profile.names if c != INTERCEPT}, procs=procs,
                   threads=1, all_counts=counts, digest=model.digest)


def _check(example: Example, check: dict, model: CostModel, profile: MachineProfile, machine: Machine,
           out: Path) -> None:
    """One prediction against the faster of two real runs at a calibration size on 2 processes."""
    _say("check", f"{example.name} at {check} on 2 processes: predicted vs a real run")
    plain = build_plain(example, out / "work" / "plain")
    measured = min(time_run(plain, example.argv(check), 2) for _ in range(2))
    checked = _predict_at(model, profile, machine, check, 2)
    print(f"    measured {measured:.3f} s, predicted {checked.time_s:.3f} s "
          f"(95% prediction interval {_interval(checked.prediction_interval)})")


def _predict_large(example: Example, check: dict, model: CostModel, profile: MachineProfile, machine: Machine,
                   out: Path) -> None:
    """The example 8 times larger on 64 processes, with intervals, into prediction.json."""
    first = example.params[0]["name"]
    big = {k: v * 8 for k, v in check.items()} if len(check) == 1 else {**check, first: check[first] * 8}
    _say("predict", f"{example.name} at {big} on 64 processes")
    result = _predict_at(model, profile, machine, big, 64)
    print(f"    predicted {result.time_s:.3f} s, 95% confidence interval {_interval(result.mean_interval)}, "
          f"95% prediction interval {_interval(result.prediction_interval)}")
    for line in interval_advice(result):
        print(f"    {line}")
    for warning in result.warnings:
        print(f"    warning: {warning}")
    (out / "prediction.json").write_text(json.dumps({"values": big, "P": 64, **result.to_dict()}, indent=1) + "\n")


def _sensitivity(example: Example, check: dict, model: CostModel, profile: MachineProfile, machine: Machine,
                 out: Path) -> None:
    """dt/dbeta_startup over the first parameter and P (the paper's Fig. 7), as PNG and JSON."""
    first = example.params[0]["name"]
    fixed = {k: float(v) for k, v in check.items()}
    sizes = [check[first] * f for f in (1, 2, 4, 8, 16, 32, 64)]
    _say("sensitivity", f"dt/dbeta_startup over {first} and P (the paper's Fig. 7)")
    grid = sensitivity(model, "startup", first, sizes, [1, 2, 4, 8, 16, 32, 64], fixed, profile, machine)
    plot_sensitivity(grid, out / "sensitivity-startup.png",
                     f"{example.name}: seconds added per 10 us of message startup")
    (out / "sensitivity-startup.json").write_text(json.dumps(grid.to_dict(), indent=1) + "\n")
    print(f"    wrote {out / 'sensitivity-startup.png'}")


def _interval(pair) -> str:
    if pair is None:
        return "(none: hand-written profile)"
    low, high = pair
    return f"[{low:.3f}, {high:.3f}] s"


def _short(expr) -> str:
    text = str(expr)
    return text if len(text) < 160 else text[:157] + "..."

