"""Tests of predictions from a machine profile (fitting/regression/predict.py): intervals, breakdowns, warnings."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import stats

from perfeq.errors import FitError
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import NO_INTERVALS, predict
from perfeq.fitting.regression.profile import manual_profile
from perfeq.fitting.regression.report import format_prediction
from perfeq.fitting.regression.synthetic import (
    COUNT_RANGES,
    TRUE_COSTS,
    draw_counts,
    synthetic_applications,
    synthetic_runs,
    true_time,
)

COSTS = tuple(TRUE_COSTS)
COUNTS = {"ops": 2e9, "startup": 4e3, "bytes": 3e8}


@pytest.fixture(scope="module")
def runs():
    return synthetic_runs(30, np.random.default_rng(42))


@pytest.fixture(scope="module")
def profile(runs):
    return fit_machine(runs)


@pytest.mark.parametrize("weighting", ["relative", "none"])
def test_intervals_match_statsmodels_get_prediction(runs, weighting):
    profile = fit_machine(runs, weighting=weighting)
    x = np.array([[run.counts[c] for c in COSTS] for run in runs])
    t = np.array([run.time_s for run in runs])
    if weighting == "relative":
        first = sm.WLS(t, x, weights=1.0 / t**2).fit()
        result = sm.WLS(t, x, weights=1.0 / (x @ first.params) ** 2).fit()
    else:
        result = sm.OLS(t, x).fit()
    x_new = np.array([[COUNTS[c] for c in COSTS]])
    t_hat = float((x_new @ result.params)[0])
    weights = [1.0 / t_hat**2] if weighting == "relative" else [1.0]
    frame = result.get_prediction(x_new, weights=weights).summary_frame(alpha=0.10)

    prediction = predict(profile, COUNTS, level=0.90)
    assert_allclose(prediction.time_s, frame["mean"].iloc[0], rtol=1e-9)
    mean_ci = frame[["mean_ci_lower", "mean_ci_upper"]].iloc[0].to_numpy()
    obs_ci = frame[["obs_ci_lower", "obs_ci_upper"]].iloc[0].to_numpy()
    if weighting == "relative":
        # a relative error is multiplicative: statsmodels' half-width, relative to t, on a log scale
        mean_ci = t_hat * np.exp(np.array([-1, 1]) * (mean_ci[1] - t_hat) / t_hat)
        obs_ci = t_hat * np.exp(np.array([-1, 1]) * (obs_ci[1] - t_hat) / t_hat)
    assert_allclose(prediction.mean_interval, mean_ci, rtol=1e-8)
    assert_allclose(prediction.prediction_interval, obs_ci, rtol=1e-8)
    assert prediction.df_resid == 27 and prediction.intervals_note is None


def test_relative_intervals_stay_positive():
    """With a large relative error the interval is wide but never below zero (t exp(-q s), t exp(q s))."""
    rng = np.random.default_rng(7)
    noisy = [replace(run, time_s=run.time_s * float(np.exp(0.6 * rng.standard_normal())))
             for run in synthetic_runs(30, rng)]
    prediction = predict(fit_machine(noisy), COUNTS)
    low, high = prediction.prediction_interval
    assert 0 < low < prediction.time_s < high
    assert low * high == pytest.approx(prediction.time_s**2, rel=1e-9)


def test_prediction_intervals_cover_new_runs_at_their_level():
    rng = np.random.default_rng(99)
    draws, covered = 200, 0
    for _ in range(draws):
        profile = fit_machine(synthetic_runs(30, rng))
        counts = draw_counts(COUNT_RANGES, rng)
        new_run = true_time(TRUE_COSTS, counts) * (1.0 + 0.03 * rng.standard_normal())
        low, high = predict(profile, counts).prediction_interval
        covered += low <= new_run <= high
    low, high = stats.binom.interval(0.999, draws, 0.95)
    assert low <= covered <= high, f"{covered}/{draws} prediction intervals hold the new run"


def test_contributions_add_up(profile):
    prediction = predict(profile, COUNTS)
    assert [part.name for part in prediction.contributions] == list(COSTS)
    assert_allclose(sum(part.seconds for part in prediction.contributions), prediction.time_s, rtol=1e-12)
    assert_allclose(sum(part.percent for part in prediction.contributions), 100.0, rtol=1e-9)
    ops = prediction.contributions[0]
    assert_allclose(ops.seconds, profile.costs["ops"].value * COUNTS["ops"], rtol=1e-12)
    low, high = prediction.mean_interval
    assert low < prediction.time_s < high
    assert prediction.prediction_interval[0] < low and high < prediction.prediction_interval[1]


def test_blocks_are_priced_and_checked_against_the_whole(profile):
    blocks = {"compute": {"ops": 2e9}, "halo": {"startup": 4e3, "bytes": 3e8}}
    prediction = predict(profile, COUNTS, blocks=blocks)
    assert [part.name for part in prediction.blocks] == ["compute", "halo"]
    assert_allclose(sum(part.seconds for part in prediction.blocks), prediction.time_s, rtol=1e-12)
    assert prediction.warnings == ()
    partial = predict(profile, COUNTS, blocks={"compute": {"ops": 2e9}})
    assert any("blocks account for" in note for note in partial.warnings)
    assert "by block (largest first, 1 of 1;" in format_prediction(partial)


def test_blocks_of_a_program_without_mpi_add_up_without_the_start_up_term():
    """The start-up term (the calibration runs' launch) is not charged to a program that does not
    initialise MPI: its blocks are the whole prediction, and no "blocks account for 195 %" warning
    (the term's seconds were subtracted from the total anyway)."""
    profile = manual_profile({"ops": 1e-9, "const": 0.075})
    blocks = {"init": {"ops": 1e8}, "sum": {"ops": 5e7}}
    without_mpi = predict(profile, {"ops": 1.5e8, "const": 0.0}, blocks=blocks)
    assert without_mpi.time_s == pytest.approx(0.15)
    assert not any("blocks account" in note for note in without_mpi.warnings), without_mpi.warnings
    assert any("is not charged" in note for note in without_mpi.warnings)
    with_mpi = predict(profile, {"ops": 1.5e8, "const": 1.0}, blocks=blocks)
    assert with_mpi.time_s == pytest.approx(0.225)
    assert not any("blocks account" in note for note in with_mpi.warnings), with_mpi.warnings
    short = predict(profile, {"ops": 1.5e8, "const": 0.0}, blocks={"init": {"ops": 1e8}})
    assert any("blocks account for 66.7 %" in note for note in short.warnings), short.warnings


def test_manual_profile_predicts_without_intervals_and_says_so():
    profile = manual_profile({"ops": 1e-9, "startup": 5e-6, "bytes": 1e-9})
    prediction = predict(profile, COUNTS)
    assert_allclose(prediction.time_s, 2.0 + 0.02 + 0.3, rtol=1e-12)
    assert prediction.mean_interval is None and prediction.prediction_interval is None
    assert prediction.intervals_note == NO_INTERVALS
    assert "manual" in format_prediction(prediction)
    assert json.loads(json.dumps(prediction.to_dict()))["intervals_note"] == NO_INTERVALS


def test_extrapolation_is_flagged_for_dominant_counts_only(profile):
    largest = profile.calibration_range["ops"][1]
    far = predict(profile, {**COUNTS, "ops": 50 * largest})
    assert far.extrapolation is not None and "'ops' count" in far.extrapolation
    assert predict(profile, COUNTS).extrapolation is None
    # 40x beyond the calibration range but under 1 % of the time: not flagged
    narrow = replace(profile, calibration_range={**profile.calibration_range, "startup": (10.0, 100.0)})
    prediction = predict(narrow, COUNTS)
    assert prediction.contributions[1].percent < 1.0
    assert prediction.extrapolation is None


def test_counts_are_checked(profile):
    with pytest.raises(FitError, match="no 'bytes' count"):
        predict(profile, {"ops": 1e9, "startup": 10})
    with pytest.raises(FitError, match="unknown count 'megaflops'"):
        predict(profile, {**COUNTS, "megaflops": 1})
    with pytest.raises(FitError, match="'ops' is -1"):
        predict(profile, {**COUNTS, "ops": -1})
    with pytest.raises(FitError, match="between 0 and 1"):
        predict(profile, COUNTS, level=95)
    unpriced = predict(profile, {**COUNTS, "page": 1e4})
    assert any("'page'" in note and "no 'page' cost" in note for note in unpriced.warnings)


def test_intercept_counts_once_per_run():
    runs = synthetic_runs(30, np.random.default_rng(5), const=0.05)
    profile = fit_machine(runs, intercept=True)
    prediction = predict(profile, COUNTS)
    assert prediction.contributions[-1].name == "const"
    assert_allclose(prediction.contributions[-1].seconds, profile.costs["const"].value, rtol=1e-12)
    with pytest.raises(FitError, match="once per run"):
        predict(profile, {**COUNTS, "const": 2})


@pytest.fixture(scope="module")
def applications():
    runs, _ = synthetic_applications(6, 10, np.random.default_rng(17), app_sigma=0.15)
    return fit_machine(runs)


def test_a_new_application_adds_the_between_application_error(applications):
    profile = applications
    tau, df = profile.between_app.sigma, profile.between_app.df
    assert tau > 0 and df == 5
    new = predict(profile, COUNTS, level=0.95)
    known = predict(profile, COUNTS, level=0.95, application="app2")
    assert new.mean_interval == known.mean_interval  # the confidence interval of the mean is unchanged
    assert known.between_app_sigma is None and known.prediction_df == profile.df_resid
    assert "one of the fitted applications" in known.prediction_note
    assert_allclose(new.run_stderr**2 - known.run_stderr**2, (tau * new.time_s) ** 2, rtol=1e-9)
    within = known.run_stderr**2
    added = (tau * new.time_s) ** 2
    df_expected = (within + added) ** 2 / (within**2 / profile.df_resid + added**2 / df)
    assert_allclose(new.prediction_df, df_expected, rtol=1e-12)
    assert df < new.prediction_df < profile.df_resid
    q = stats.t.ppf(0.975, new.prediction_df)
    half = q * new.run_stderr / new.time_s  # relative weighting: a log-scale interval
    assert_allclose(new.prediction_interval, (new.time_s * np.exp(-half), new.time_s * np.exp(half)))
    assert new.prediction_interval[0] < known.prediction_interval[0]
    assert "between-application error" in new.prediction_note
    assert new.prediction_note in format_prediction(new)
    unnamed = predict(profile, COUNTS, application="my_program")
    assert unnamed.prediction_interval == new.prediction_interval


def test_a_profile_without_a_between_application_error_says_so(profile):
    prediction = predict(profile, COUNTS)
    assert prediction.between_app_sigma is None
    assert "no between-application error" in prediction.prediction_note


def test_prediction_intervals_cover_runs_of_an_application_the_fit_never_saw():
    """Applications with biases of their own (sd 15 %): fit on six, predict a seventh."""
    rng = np.random.default_rng(2024)
    with_between, within_only = [], []
    for _ in range(80):
        runs, _ = synthetic_applications(7, 8, rng, app_sigma=0.15)
        profile = fit_machine([run for run in runs if run.app != "app6"])
        new = [run for run in runs if run.app == "app6"]
        for fitted, share in ((profile, with_between), (replace(profile, between_app=None), within_only)):
            inside = [
                low <= run.time_s <= high
                for run in new
                for low, high in [predict(fitted, run.counts).prediction_interval]
            ]
            share.append(np.mean(inside))
    assert 0.88 <= np.mean(with_between) <= 0.99, np.mean(with_between)
    assert np.mean(within_only) < 0.88 and np.mean(with_between) - np.mean(within_only) > 0.05


def test_a_prediction_says_where_it_leaves_the_calibrated_box(profile):
    """Beyond the calibrated P (synthetic runs: 1-16 processes) and T (1), and messages the profile
    does not price: each a warning, kept in the JSON; inside the box, none."""
    from perfeq.fitting.regression.profile import manual_profile

    inside = predict(profile, COUNTS, procs=16, threads=1, all_counts=COUNTS)
    assert not [w for w in inside.warnings if "beyond the calibrated" in w or "not priced" in w]
    outside = predict(profile, COUNTS, procs=64, threads=4, all_counts=COUNTS)
    assert "P=64 is beyond the calibrated processes (at most 16)" in outside.warnings[0]
    assert "T=4 is beyond the calibrated threads (at most 1)" in outside.warnings[1]
    assert json.loads(json.dumps(outside.to_dict()))["warnings"] == list(outside.warnings)
    ops_only = manual_profile({"ops": 1e-9})
    unpriced = predict(ops_only, {"ops": 2e9}, procs=64, all_counts={**COUNTS, "bytes": 0.0})
    assert unpriced.warnings[0] == ("the costs come from a hand-written profile (perfeq machine-profile), not from "
                                    "runs measured on the machine: nothing says how far this prediction can be trusted")
    assert unpriced.warnings[1].startswith("MESSAGES NOT PRICED: the slowest rank's 4,000 messages on the critical "
                                           "path ('startup') count as 0 s") and len(unpriced.warnings) == 2
    assert unpriced.unpriced == {"startup": 4000.0}


def test_a_working_set_beyond_the_calibrated_cache_levels_is_said():
    """Issue 20 item 3: calibration runs whose working sets never left the last-level cache (l2 = 0,
    a few L1 misses); a prediction where a quarter of the loads miss it says so, one inside does not."""
    import dataclasses

    from perfeq.fitting.regression.fit import fit_machine

    base = synthetic_runs(30, np.random.default_rng(2), costs={"ops": 1e-9, "startup": 5e-6, "bytes": 1e-9})
    runs = [dataclasses.replace(r, counts={**r.counts, "loads": r.counts["ops"] / 3, "l1": r.counts["ops"] / 60,
                                           "l2": 0.0}) for r in base]
    profile = fit_machine(runs, ["ops", "startup", "bytes"])
    assert profile.miss_shares == pytest.approx({"l1": 0.05, "l2": 0.0})
    inside = {**COUNTS, "loads": 6e8, "l1": 3e7, "l2": 0.0}
    assert not [w for w in predict(profile, COUNTS, all_counts=inside).warnings if "working set" in w]
    beyond = predict(profile, COUNTS, all_counts={**inside, "l2": 1.5e8})
    (note,) = [w for w in beyond.warnings if "working set" in w]
    assert note.startswith("the working set goes beyond the last-level cache: 25 % of the loads miss it (l2), "
                           "no calibration run's working set left it") and "does not price 'l2'" in note
    again = dataclasses.replace(profile)
    from perfeq.fitting.regression.profile import MachineProfile

    assert MachineProfile.from_dict(json.loads(json.dumps(again.to_dict()))).miss_shares == profile.miss_shares


def test_a_wide_interval_says_what_widens_it_and_what_would_tighten_it():
    """Issue 20 item 5: over WIDE (2x) the prediction names the parts of its variance, largest first,
    with advice for each large one; a narrow interval says nothing."""
    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.report import interval_advice
    from perfeq.fitting.regression.synthetic import synthetic_applications

    noisy, _ = synthetic_applications(6, 8, np.random.default_rng(4), app_sigma=0.3, noise=0.3)
    wide = predict(fit_machine(noisy), COUNTS, application="new")
    assert sum(wide.variance_shares.values()) == pytest.approx(1.0)
    lines = interval_advice(wide)
    assert re.match(r"the 95% prediction interval is \d+\.\dx wide \(high / low\); its variance comes from: "
                    r"(runs|applications|costs) \d+ %", lines[0])
    assert any(line.startswith("to tighten it (runs)") for line in lines)
    assert lines[0] in format_prediction(wide)
    quiet, _ = synthetic_applications(6, 8, np.random.default_rng(4), app_sigma=0.01, noise=0.01)
    narrow = predict(fit_machine(quiet), COUNTS, application="new")
    assert narrow.prediction_interval[1] / narrow.prediction_interval[0] < 2 and interval_advice(narrow) == []


def test_an_absurdly_wide_relative_interval_stays_finite():
    """A t quantile at ~1 degree of freedom (a between-application error from two applications) once
    made exp() overflow inside perfeq validate; the interval is capped, finite and absurd."""
    from perfeq.fitting.regression.predict import _log_interval

    low, high = _log_interval(2.0, 1e4)
    assert 0 < low < 1e-300 and 1e300 < high < math.inf
