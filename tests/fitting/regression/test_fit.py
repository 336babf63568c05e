"""Tests of the machine-cost regression (fitting/regression/design.py, fit.py) on synthetic runs with known costs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import stats

from perfeq.errors import FitError
from perfeq.fitting.regression.design import build_design
from perfeq.fitting.regression.fit import between_application_error, fit_machine
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.runs import Run
from perfeq.fitting.regression.synthetic import (
    COUNT_RANGES,
    TRUE_COSTS,
    synthetic_applications,
    synthetic_runs,
)

COSTS = tuple(TRUE_COSTS)


def _raw(runs: tuple[Run, ...], costs=COSTS) -> tuple[np.ndarray, np.ndarray]:
    return np.array([[run.counts[c] for c in costs] for run in runs]), np.array([run.time_s for run in runs])


@pytest.mark.filterwarnings("error")
def test_recovers_known_costs_within_their_intervals():
    runs = synthetic_runs(40, np.random.default_rng(20240501))
    profile = fit_machine(runs)
    assert profile.source == "fit" and profile.weighting == "relative"
    assert profile.names == COSTS
    for name, truth in TRUE_COSTS.items():
        estimate = profile.costs[name]
        assert estimate.ci_low <= truth <= estimate.ci_high, name
        assert_allclose(estimate.value, truth, rtol=0.1)
        assert estimate.p_value < 1e-6
    assert_allclose(profile.sigma, 0.03, rtol=0.35)
    assert profile.df_resid == 40 - 3
    assert profile.n_runs == 40 and len(profile.runs) == 40
    assert profile.warnings == ()


def test_confidence_intervals_cover_the_truth_at_their_level():
    rng = np.random.default_rng(7)
    draws = 200
    covered = dict.fromkeys(COSTS, 0)
    for _ in range(draws):
        profile = fit_machine(synthetic_runs(30, rng))
        for name, truth in TRUE_COSTS.items():
            covered[name] += profile.costs[name].ci_low <= truth <= profile.costs[name].ci_high
    low, high = stats.binom.interval(0.999, draws, 0.95)
    for name, count in covered.items():
        assert low <= count <= high, f"{name}: {count}/{draws} intervals cover the true cost"


def test_matches_statsmodels_on_unscaled_columns():
    """Column scaling is undone exactly: params, stderr and covariance equal a direct fit."""
    runs = synthetic_runs(25, np.random.default_rng(3))
    x, t = _raw(runs)
    ols = sm.OLS(t, x).fit()
    profile = fit_machine(runs, weighting="none")
    assert_allclose([profile.costs[c].value for c in COSTS], ols.params, rtol=1e-8)
    assert_allclose([profile.costs[c].stderr for c in COSTS], ols.bse, rtol=1e-8)
    cov = np.array([[profile.covariance[r][c] for c in COSTS] for r in COSTS])
    assert_allclose(cov, ols.cov_params(), rtol=1e-8)
    assert_allclose(profile.sigma, np.sqrt(ols.scale), rtol=1e-10)

    first = sm.WLS(t, x, weights=1.0 / t**2).fit()
    wls = sm.WLS(t, x, weights=1.0 / (x @ first.params) ** 2).fit()
    profile = fit_machine(runs, weighting="relative")
    assert_allclose([profile.costs[c].value for c in COSTS], wls.params, rtol=1e-8)
    cov = np.array([[profile.covariance[r][c] for c in COSTS] for r in COSTS])
    assert_allclose(cov, wls.cov_params(), rtol=1e-8)
    ci = wls.conf_int(alpha=0.05)
    assert_allclose([profile.costs[c].ci_low for c in COSTS], ci[:, 0], rtol=1e-8)
    assert_allclose(profile.rsquared, wls.rsquared, rtol=1e-10)
    assert profile.rsquared_kind == "uncentered"


def test_relative_weighting_is_unbiased_under_large_noise():
    """Weights from the fitted time, not the noisy measured time: no ~2 sigma^2 downward bias."""
    rng = np.random.default_rng(11)
    ratios = [
        fit_machine(synthetic_runs(30, rng, noise=0.2)).costs["ops"].value / TRUE_COSTS["ops"]
        for _ in range(60)
    ]
    assert_allclose(np.mean(ratios), 1.0, atol=0.02)


def test_intercept_is_a_visible_cost_and_recovered():
    runs = synthetic_runs(40, np.random.default_rng(5), const=0.05)
    profile = fit_machine(runs, intercept=True)
    assert profile.names == (*COSTS, "const")
    const = profile.costs["const"]
    assert const.ci_low <= 0.05 <= const.ci_high
    assert profile.rsquared_kind == "centered"
    assert "const" not in fit_machine(runs).costs


def test_subset_of_costs():
    runs = synthetic_runs(20, np.random.default_rng(9))
    profile = fit_machine(runs, costs=["bytes", "ops"])
    assert profile.names == ("ops", "bytes")
    assert profile.calibration_range["ops"][1] <= COUNT_RANGES["ops"][1]


def test_too_few_runs_is_refused_naming_both_numbers():
    runs = synthetic_runs(3, np.random.default_rng(1))
    with pytest.raises(FitError, match=r"3 runs for 3 costs .*need at least 4 runs"):
        fit_machine(runs)


def _with_zero_page(runs: tuple[Run, ...]) -> tuple[Run, ...]:
    return tuple(
        Run(run.app, run.params, run.procs, run.time_s, {**run.counts, "page": 0.0}, host=run.host)
        for run in runs
    )


def test_all_zero_column_is_refused_or_dropped_on_request():
    runs = _with_zero_page(synthetic_runs(10, np.random.default_rng(2)))
    with pytest.raises(FitError, match=r"cost column 'page' is zero in every run.*--drop-empty"):
        fit_machine(runs)
    profile = fit_machine(runs, drop_empty=True)
    assert "page" not in profile.costs
    assert any("dropped cost column(s) page" in note for note in profile.warnings)


def test_linearly_dependent_columns_are_refused_naming_them():
    runs = tuple(
        Run(run.app, run.params, run.procs, run.time_s, {**run.counts, "l1": 3 * run.counts["ops"]})
        for run in synthetic_runs(10, np.random.default_rng(4))
    )
    with pytest.raises(FitError, match=r"cost columns ops, l1 are linearly dependent"):
        build_design(runs)


def test_bad_arguments_are_fit_errors():
    runs = synthetic_runs(10, np.random.default_rng(4))
    with pytest.raises(FitError, match="weighting 'log' unknown"):
        fit_machine(runs, weighting="log")
    with pytest.raises(FitError, match="unknown cost 'megaflops'"):
        fit_machine(runs, costs=["megaflops"])
    with pytest.raises(FitError, match="the runs have no 'flops' counts"):
        fit_machine(runs, costs=["flops"])
    with pytest.raises(FitError, match="--intercept"):
        fit_machine(runs, costs=["ops", "const"])
    with pytest.raises(FitError, match="no runs"):
        fit_machine(())


def test_flags_costs_not_significantly_different_from_zero():
    rng = np.random.default_rng(8)
    runs = tuple(
        Run(run.app, run.params, run.procs, run.time_s, {**run.counts, "par": float(rng.integers(1, 50))})
        for run in synthetic_runs(30, rng)
    )
    profile = fit_machine(runs)
    assert any("cost 'par'" in note and "significantly" in note for note in profile.warnings)


def test_design_reports_conditioning_and_vif():
    runs = synthetic_runs(30, np.random.default_rng(6))
    profile = fit_machine(runs)
    assert set(profile.vif) == set(COSTS)
    assert all(1.0 <= value < 10.0 for value in profile.vif.values())
    assert 1.0 <= profile.condition_number < 100.0


def test_one_application_has_no_between_application_error():
    profile = fit_machine(synthetic_runs(30, np.random.default_rng(20240501)))
    assert profile.between_app is None and profile.apps == {"synthetic"}
    estimate, reason = between_application_error(synthetic_runs(30, np.random.default_rng(1)))
    assert estimate is None and "one application" in reason


def test_between_application_error_is_the_held_out_bias_the_fit_does_not_explain():
    """The estimate follows its definition: each application predicted from a fit on the others."""
    runs, _ = synthetic_applications(5, 10, np.random.default_rng(31), app_sigma=0.2)
    profile = fit_machine(runs)
    between = profile.between_app
    assert between.df == 4 and list(between.app_bias) == [f"app{k}" for k in range(5)]
    means, within, fit_var = [], [], []
    for app in between.app_bias:
        fold = fit_machine([run for run in runs if run.app != app], between_app=False)
        predictions = [(predict(fold, run.counts), run.time_s) for run in runs if run.app == app]
        errors = np.array([(p.time_s - t) / p.time_s for p, t in predictions])
        assert_allclose(between.app_bias[app], errors.mean(), rtol=1e-9)
        means.append(errors.mean())
        within.append(np.sum((errors - errors.mean()) ** 2))
        # x'Cx / t_hat^2 is the square of the mean standard error relative to the prediction
        fit_var.append(np.mean([(p.mean_stderr / p.time_s) ** 2 for p, _ in predictions]))
    pooled = sum(within) / (len(runs) - 5)
    tau2 = np.mean(np.square(means) - pooled / 10 - np.array(fit_var))
    assert_allclose(between.sigma, np.sqrt(max(tau2, 0.0)), rtol=1e-9)
    assert 0.05 < between.sigma < 0.6  # biases drawn with sd 20 %


def test_between_application_error_tracks_the_spread_of_application_biases():
    rng = np.random.default_rng(5)
    small = [
        fit_machine(synthetic_applications(6, 8, rng, app_sigma=0.0)[0]).between_app.sigma for _ in range(20)
    ]
    large = [
        fit_machine(synthetic_applications(6, 8, rng, app_sigma=0.25)[0]).between_app.sigma for _ in range(20)
    ]
    assert np.median(small) < 0.03  # 3 % run-to-run noise, no application bias
    assert 0.15 < np.median(large) < 0.6  # sd 25 %, plus the bias the fit carries from the others


def test_flags_costs_outside_what_real_machines_have():
    # 500 ns per byte (2 MB/s) is slower than any interconnect or shared memory: the kind of value a
    # column takes when it absorbs something else; 1 ns per byte is not flagged
    slow = synthetic_runs(40, np.random.default_rng(11), costs={**TRUE_COSTS, "bytes": 5e-7})
    notes = fit_machine(slow).warnings
    assert any("cost 'bytes'" in note and "outside what it costs on real machines" in note for note in notes)
    normal = fit_machine(synthetic_runs(40, np.random.default_rng(11))).warnings
    assert not any("outside what it costs" in note for note in normal)


def test_flags_message_costs_from_runs_on_two_processes_at_most():
    runs = synthetic_runs(40, np.random.default_rng(12))
    assert not any("at most" in note for note in fit_machine(runs).warnings)  # P = 1..16
    few = tuple(replace(run, procs=1 + run.procs % 2) for run in runs)
    notes = fit_machine(few).warnings
    assert any("at most 2 processes" in note and "startup and bytes" in note for note in notes)
    assert not any("at most" in note for note in fit_machine(few, costs=["ops"]).warnings)
