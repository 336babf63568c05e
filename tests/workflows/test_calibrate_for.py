"""``perfeq calibrate --for MODEL N=.. P=..`` (the runs one prediction needs) and ``--levels`` (a size per
level of the memory hierarchy), on real programs: cg and ocean at tiny sizes, compiled, run and timed,
fitted, and the choice held to what the profile's covariance says."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import one_line_error, tiny_calibration_apps

from perfeq.cli import main
from perfeq.examples.catalog import load_catalog
from perfeq.fitting.regression.profile import load_profile
from perfeq.fitting.regression.runs import read_runs
from perfeq.symbolic.machine import Machine, cache_levels
from perfeq.symbolic.model import load_model
from perfeq.workflows.targeted import Pricer, WorkingSet, level_name, levels_of

MEAN = re.compile(r"its mean, 95 %: \+-([0-9.]+) % now, \+-([0-9.]+) % with the (\d+) runs below")
ROW = re.compile(r"^\s+(\d+)\s+(\w+)\s+((?:\w+=\d+ ?)+?)\s+(\d+)\s+(L\d|memory)\s")


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A campaign of cg and ocean at sizes of 0.1-0.3 s (where their loads and stores show beside the
    start-up), its fit, and the models the campaign made."""
    folder = tmp_path_factory.mktemp("for")
    apps = tiny_calibration_apps(folder / "apps", {"cg": ([200, 300, 600], [100, 100, 100]),
                                                   "ocean": ([128, 256, 400], [500, 500, 500])})
    runs, work = folder / "runs.csv", folder / "work"
    assert main(["calibrate", "--apps", str(apps), "--procs", "1,2", "--reps", "2", "--workdir", str(work),
                 "-o", str(runs)]) == 0
    profile = folder / "machine.json"
    assert main(["fit", str(runs), "--costs", "loads,stores", "--intercept", "-o", str(profile)]) == 0
    return apps, runs, profile, work / "ocean.model.json"


def _plan(out: str) -> tuple[tuple[float, float, int], list[tuple]]:
    """The plan's half-widths and number of runs, and its runs (one per repetition) in order."""
    mean = MEAN.search(out)
    assert mean, out
    rows = [(m[2], dict(kv.split("=") for kv in m[3].split()), int(m[4]), m[5])
            for m in (ROW.match(line) for line in out.splitlines()) if m for _ in range(int(m[1]))]
    return (float(mean[1]), float(mean[2]), int(mean[3])), rows


def test_the_chosen_runs_tighten_the_prediction_as_the_covariance_says(fitted, tmp_path, capsys):
    apps, runs, profile, model = fitted
    out = tmp_path / "runs.csv"
    out.write_bytes(runs.read_bytes())
    target = ["n=2000", "steps=500", "P=4"]
    assert main(["calibrate", "--apps", str(apps), "--for", str(model), *target, "--machine", str(profile),
                 "--max-seconds", "1", "--budget", "4", "--max-runs", "4", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    (now, after, count), rows = _plan(captured.out)
    assert count == len(rows) and 1 <= count <= 4
    assert after < now
    # the mean's half-width now is the profile's own: 1.96 sqrt(x0' C x0) / t0
    fit = load_profile(profile)
    pricer = Pricer(fit, Machine.detect())
    x0 = pricer.counts(load_model(model), {"n": 2000, "steps": 500}, 4)
    t0 = float(fit.beta @ x0)
    assert now == pytest.approx(100 * 1.96 * np.sqrt(x0 @ fit.covariance_matrix() @ x0) / t0, abs=0.06)
    # the runs listed are the runs timed and appended, and the level printed is the working set's
    new = read_runs(out)[len(read_runs(runs)):]
    assert [(r.app, r.procs) for r in new] == [(app, procs) for app, _, procs, _ in rows]
    caches = cache_levels()
    examples = {e.name: e for e in load_catalog(apps)}
    for run, (app, values, procs, level) in zip(new, rows, strict=True):
        assert run.params == ";".join(f"{k}={v}" for k, v in values.items())
        assert run.time_s > 0 and set(values) == set(examples[app].param_names)
        work_model = load_model(model.parent / f"{app}.model.json")
        volume = float(WorkingSet(work_model)({k: float(v) for k, v in values.items()}, procs))
        assert level_name(levels_of(caches, procs), volume) == level
    assert "refit with the same costs: perfeq fit" in captured.err and "--costs loads,stores --intercept" in captured.err


def test_a_dry_run_times_nothing_and_the_d_criterion_also_plans(fitted, tmp_path, capsys):
    apps, runs, profile, model = fitted
    out = tmp_path / "runs.csv"
    for criterion in ("target", "D"):
        assert main(["calibrate", "--apps", str(apps), "--for", str(model), "n=2000", "steps=500", "P=4",
                     "--machine", str(profile), "--criterion", criterion, "--max-seconds", "1", "--dry-run",
                     "-o", str(out)]) == 0
        (now, after, count), rows = _plan(capsys.readouterr().out)
        assert count == len(rows) >= 1 and after <= now
    assert not out.exists()


def test_levels_adds_a_size_per_level_each_in_its_level(fitted, tmp_path, capsys):
    apps, _, profile, _ = fitted
    out, work = tmp_path / "runs.csv", tmp_path / "work"
    assert main(["calibrate", "--apps", str(apps), "--levels", "--machine", str(profile), "--procs", "1",
                 "--reps", "1", "--max-seconds", "1", "--workdir", str(work), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    caches, runs = cache_levels(), read_runs(out)
    levels = levels_of(caches, 1)
    for example in load_catalog(apps):
        added = re.search(rf"calibrate: {example.name} P=1: adds (.*)", err)
        assert added, err
        sizes = [dict(kv.split("=") for kv in text.split()) for text in added[1].split("; ")]
        working_set = WorkingSet(load_model(work / f"{example.name}.model.json"))
        found = [level_name(levels, float(working_set({k: float(v) for k, v in s.items()}, 1))) for s in sizes]
        assert len(set(found)) == len(found) >= 3, (example.name, sizes, found)  # distinct levels, L1 to L3 at least
        timed = {run.params for run in runs if run.app == example.name}
        assert {";".join(f"{k}={v}" for k, v in s.items()) for s in sizes} <= timed


@pytest.mark.parametrize("words, expected", [
    (["--for", "MODEL", "n=4"], "needs --machine PROFILE"),
    (["--for", "MODEL", "--machine", "PROFILE"], "needs where to predict"),
    (["n=4"], "NAME=VALUE is for calibrate --for"),
    (["--for", "MODEL", "n=4", "--machine", "PROFILE", "--levels"], "--levels are for campaigns"),
    (["--for", "MODEL", "n=4", "--machine", "PROFILE", "--budget", "0"], "must be positive"),
])
def test_wrong_options_are_one_line(words, expected, fitted, tmp_path, capsys):
    apps, _, profile, model = fitted
    words = [str(model) if w == "MODEL" else str(profile) if w == "PROFILE" else w for w in words]
    assert main(["calibrate", "--apps", str(apps), *words, "-o", str(tmp_path / "r.csv")]) == 2
    assert expected in one_line_error(capsys)


def test_a_hand_written_profile_has_no_covariance_to_tighten(fitted, tmp_path, capsys):
    apps, _, _, model = fitted
    manual = tmp_path / "manual.json"
    manual.write_text('{"format": "perfeq-machine", "version": 2, "source": "manual", '
                      '"costs": {"loads": {"value": 1e-9}, "stores": {"value": 1e-9}}}')
    assert main(["calibrate", "--apps", str(apps), "--for", str(model), "n=64", "steps=5", "--machine", str(manual),
                 "--dry-run", "-o", str(tmp_path / "r.csv")]) == 2
    assert "no covariance" in one_line_error(capsys)

