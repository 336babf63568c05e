"""Leave-one-application-out validation (fitting/analysis/validate.py, ``perfeq validate``): on synthetic runs
with known costs, and once on a real calibration campaign of three bundled examples."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import numpy as np
import pytest
from conftest import one_line_error
from numpy.testing import assert_allclose

from perfeq.cli import main
from perfeq.errors import UsageError
from perfeq.fitting.analysis.validate import cross_validate
from perfeq.fitting.analysis.validate_report import format_validation
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.runs import read_runs, write_runs
from perfeq.fitting.regression.synthetic import TRUE_COSTS, synthetic_applications, synthetic_runs, true_time

APPS = ("alpha", "beta", "gamma", "delta")


@pytest.fixture(scope="module")
def synthetic():
    runs = synthetic_runs(80, np.random.default_rng(7))
    return tuple(replace(run, app=APPS[index % len(APPS)]) for index, run in enumerate(runs))


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    path = tmp_path_factory.mktemp("calibrate") / "runs.csv"
    assert (
        main(["calibrate", "--only", "cg,matmul,ocean", "--reps", "1", "--procs", "1,2", "-o", str(path)])
        == 0
    )
    return path


def test_held_out_applications_are_predicted_from_the_others(synthetic):
    result = cross_validate(synthetic, level=0.95)
    assert [row.app for row in result.summaries] == list(APPS) and not result.skipped
    for row in result.summaries:
        assert set(row.fitted_on) == set(APPS) - {row.app}
        assert row.runs == 20 and row.average_error < 0.06  # 3 % noise, costs known to the fit
    by_label = {(run.params, run.rep): run for run in synthetic}
    for held in result.runs:
        truth = true_time(TRUE_COSTS, by_label[(held.params, held.rep)].counts)
        assert_allclose(held.predicted_s, truth, rtol=0.05)
        assert held.low_s < held.predicted_s < held.high_s
    assert 0.85 <= result.overall.coverage <= 1.0  # 95 % prediction intervals on 80 runs


def test_held_out_intervals_add_a_between_application_error_estimated_without_the_held_out_app():
    """Applications with biases of their own (sd 15 %): the held-out intervals cover at about their level
    over repeated draws only with the between-application error, estimated from the training apps."""
    rng = np.random.default_rng(99)
    with_between, within_only = [], []
    for _ in range(40):
        runs, _ = synthetic_applications(6, 10, rng, app_sigma=0.15)
        result = cross_validate(runs, level=0.95)
        for row in result.summaries:  # each fold's estimate comes from its five training applications
            training = [run for run in runs if run.app != row.app]
            assert_allclose(row.between_app_sigma, fit_machine(training).between_app.sigma, rtol=1e-12)
        with_between.append(result.overall.coverage)
        within_only.append(cross_validate(runs, level=0.95, between_app=False).overall.coverage)
    assert 0.88 <= np.mean(with_between) <= 0.99, np.mean(with_between)
    assert np.mean(within_only) < 0.88 and np.mean(with_between) - np.mean(within_only) > 0.05


def test_table1_columns(synthetic):
    result = cross_validate(synthetic, costs=["ops", "startup", "bytes"], weighting="none")
    for row in (*result.summaries, result.overall):
        mine = [run for run in result.runs if row.app in ("all", run.app)]
        errors = np.array([run.predicted_s - run.measured_s for run in mine])
        measured = np.array([run.measured_s for run in mine])
        assert_allclose(row.sigma_s, np.sqrt(np.mean(errors**2)), rtol=1e-12)
        assert_allclose(row.mean_s, measured.mean(), rtol=1e-12)
        assert_allclose(row.cov, row.sigma_s / row.mean_s, rtol=1e-12)
        assert_allclose(row.average_error, np.mean(np.abs(errors / measured)), rtol=1e-12)
        assert row.coverage == np.mean([run.inside for run in mine])


def test_floors_separate_application_biases_from_noise():
    """With nothing held out, one fit over all applications leaves their biases, a fit per
    application only the run noise; the held-out error is above both."""
    rng = np.random.default_rng(5)
    runs, biases = synthetic_applications(6, 12, rng, app_sigma=0.15, noise=0.03)
    costs = ["ops", "startup", "bytes"]
    result = cross_validate(runs, costs=costs, intercept=True)
    floors = result.floors
    assert floors.own_skipped == () and floors.own < 0.035  # 3 % noise: mean |e| about 0.8 x 3 %
    assert floors.pooled > 2 * floors.own  # the applications' biases (sd 15 %) stay in the pooled fit
    assert result.overall.average_error > floors.pooled

    def in_sample(subset):  # fitted as the folds are: same costs, intercept and weighting
        profile = fit_machine(subset, costs, intercept=True)
        return [abs(run.fitted_s - run.time_s) / run.time_s for run in profile.runs]

    assert_allclose(floors.pooled, np.mean(in_sample(runs)), rtol=1e-9)
    alone = [error for app in biases for error in in_sample([run for run in runs if run.app == app])]
    assert_allclose(floors.own, np.mean(alone), rtol=1e-9)  # averaged over runs, as held-out errors are
    text = format_validation(result)
    assert f"{100 * floors.pooled:.1f} % (one fit over every predicted application)" in text
    assert f"{100 * floors.own:.1f} % (each application fitted alone)" in text
    assert result.to_dict()["floors"]["pooled"] == floors.pooled

    same, _ = synthetic_applications(6, 12, np.random.default_rng(6), app_sigma=0.0, noise=0.03)
    unbiased = cross_validate(same, costs=costs).floors
    # no biases: the pooled fit is nearly as good as one per application (which has more free costs)
    assert unbiased.pooled < 1.4 * unbiased.own


def test_floors_name_applications_that_cannot_be_fitted_alone():
    runs, _ = synthetic_applications(6, 12, np.random.default_rng(8), app_sigma=0.1)
    first = runs[0]  # app0: every run the same cost mix, so its own runs cannot separate the costs
    flat = [replace(run, counts=first.counts) if run.app == "app0" else run for run in runs]
    result = cross_validate(flat, costs=["ops", "startup", "bytes"])
    assert result.floors.own_skipped == ("app0",) and result.floors.own is not None
    assert "app0 could not be" in format_validation(result)
    # most applications not separable alone: no per-application floor, and the line says so
    flat = [replace(run, counts=next(r for r in runs if r.app == run.app).counts) for run in runs]
    result = cross_validate(flat, costs=["ops", "startup", "bytes"])
    assert result.floors.own is None and len(result.floors.own_skipped) == 6
    assert "fitted to each application alone: not available" in format_validation(result)


def test_one_application_is_not_enough(synthetic):
    with pytest.raises(UsageError, match="at least two applications"):
        cross_validate([run for run in synthetic if run.app == "alpha"])


def test_validate_command_on_a_real_campaign(real_runs, tmp_path, capsys):
    folder = tmp_path / "validation"
    assert (
        main(
            [
                "validate",
                str(real_runs),
                "-o",
                str(folder),
                "--costs",
                "ops,startup,bytes",
                "--intercept",
                "--level",
                "0.9",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "C.O.V." in text and "in 90% PI" in text
    assert "plus the between-application error, estimated by leaving each training application out" in text
    apps = {run.app for run in read_runs(real_runs)}
    assert apps == {"cg", "matmul", "ocean"}
    with open(folder / "table1.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [row["app"] for row in table][-1] == "all" and {row["app"] for row in table[:-1]} == apps
    assert int(table[-1]["runs"]) == len(read_runs(real_runs))
    data = json.loads((folder / "validation.json").read_text())
    assert data["level"] == 0.9 and len(data["runs"]) == int(table[-1]["runs"])
    assert all(0.0 <= row["coverage"] <= 1.0 for row in data["summary"])
    for name in [f"app-{app}.png" for app in apps] + ["errors.png"]:
        assert (folder / name).read_bytes().startswith(b"\x89PNG"), name
    assert (folder / "table1.txt").read_text().startswith("leave-one-application-out")
    with open(folder / "predictions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(data["runs"]) and all(float(row["predicted_s"]) != 0 for row in rows)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--level", "95"], "--level 95.0"),
        (["--costs", "ops,,bytes"], "empty name"),
        (["--costs", "ops,megaflops"], "megaflops"),
    ],
)
def test_validate_bad_input(synthetic, tmp_path, capsys, extra, message):
    path = tmp_path / "runs.csv"
    write_runs(path, synthetic)
    assert main(["validate", str(path), "-o", str(tmp_path / "out"), *extra]) == 2
    assert message in one_line_error(capsys)


def test_validate_single_application_file(synthetic, tmp_path, capsys):
    path = tmp_path / "runs.csv"
    write_runs(path, [run for run in synthetic if run.app == "beta"])
    assert main(["validate", str(path), "-o", str(tmp_path / "out")]) == 2
    assert "at least two applications" in one_line_error(capsys)


def test_validate_command_within_fit_intervals(tmp_path, capsys):
    runs, _ = synthetic_applications(4, 8, np.random.default_rng(8), app_sigma=0.15)
    path = tmp_path / "runs.csv"
    write_runs(path, runs)
    assert main(["validate", str(path), "-o", str(tmp_path / "a"), "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["validate", str(path), "-o", str(tmp_path / "b"), "--within-fit-intervals"]) == 0
    assert "the fit's own error only" in capsys.readouterr().out
    narrow = json.loads((tmp_path / "b" / "validation.json").read_text())
    assert default["between_app"] is True and narrow["between_app"] is False
    assert all(row["between_app_sigma"] is None for row in narrow["summary"])
    assert [r["predicted_s"] for r in default["runs"]] == [r["predicted_s"] for r in narrow["runs"]]
    wider = [
        a["high_s"] - a["low_s"] >= b["high_s"] - b["low_s"]
        for a, b in zip(default["runs"], narrow["runs"], strict=True)
    ]
    assert all(wider)
