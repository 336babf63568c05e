"""The maximum of n task times (section 4.1): exact by quadrature, Gumbel and Weibull limits, the warning."""

from __future__ import annotations

import math

import pytest
from scipy import integrate, stats

from perfeq.fitting.variability.distributions import erlang, exponential, uniform
from perfeq.fitting.variability.extremes import (
    closed_form_constants,
    expected_maximum,
    gumbel_constants,
    maximum_moments,
)
from perfeq.fitting.variability.montecarlo import simulate_maximum

ERLANG_2 = erlang(2, 1.0)


def test_exact_maximum_against_quadrature_and_monte_carlo():
    for count in (2, 10, 100):
        reference, _ = integrate.quad(lambda t, n=count: 1 - stats.gamma(2).cdf(t) ** n, 0, 80, limit=200)
        assert expected_maximum(ERLANG_2, count).mean == pytest.approx(reference, rel=1e-9)
    check = simulate_maximum(ERLANG_2, 100, draws=50_000, seed=2)
    estimate = expected_maximum(ERLANG_2, 100)
    assert abs(estimate.mean - check.mean) < 4 * check.standard_error
    assert estimate.variance == pytest.approx(check.variance, rel=0.05)


def test_exponential_maximum_is_the_harmonic_number():
    estimate = expected_maximum(exponential(2.0), 50)
    assert estimate.mean == pytest.approx(sum(1 / i for i in range(1, 51)) / 2, rel=1e-10)
    assert estimate.variance == pytest.approx(sum(1 / i**2 for i in range(1, 51)) / 4, rel=1e-8)
    alpha, beta = closed_form_constants(exponential(2.0), 50)  # eq. (4)
    assert (alpha, beta) == (pytest.approx(0.5), pytest.approx(math.log(50) / 2))


def test_gumbel_approximations_converge():
    """Eq. (1) with alpha_n, beta_n from eqs. (2)-(3) tracks the exact mean (the paper's Fig. 5);
    eq. (5)'s closed form lags but its error shrinks relative to the mean."""
    for count, tolerance in ((100, 0.005), (10_000, 0.002), (10**6, 0.001)):
        estimate = expected_maximum(ERLANG_2, count)
        assert estimate.gumbel_mean == pytest.approx(estimate.mean, rel=tolerance)
        assert estimate.closed_form_mean < estimate.mean
        assert estimate.david_bound >= estimate.mean
    assert expected_maximum(ERLANG_2, 10**6).closed_form_mean == pytest.approx(
        expected_maximum(ERLANG_2, 10**6).mean, rel=0.03)
    alpha, beta = gumbel_constants(ERLANG_2, 1000)
    assert float(ERLANG_2.sf(beta)) == pytest.approx(1e-3, rel=1e-9)
    assert alpha == pytest.approx(float(ERLANG_2.sf(beta) / ERLANG_2.pdf(beta)), rel=1e-12)


def test_truncation_changes_the_maximum_for_large_n():
    """Section 4.1.2 with the paper's numbers: Erlang-2 truncated at 7 keeps F(7) = 0.9927 of it, yet for
    n >> 100 its maximum tends to x0 = 7 with variance 0 while the untruncated one grows like ln n."""
    cut = ERLANG_2.truncate(7.0)
    assert float(ERLANG_2.cdf(7.0)) == pytest.approx(0.9927, abs=5e-5)
    small = (expected_maximum(ERLANG_2, 10).mean, expected_maximum(cut, 10).mean)
    assert small[1] == pytest.approx(small[0], rel=0.07)
    for count in (1000, 10**6):
        truncated, unbounded = expected_maximum(cut, count), expected_maximum(ERLANG_2, count)
        assert truncated.mean < 7.0 < unbounded.mean
        assert truncated.weibull_mean == pytest.approx(truncated.mean, rel=0.005)
        assert truncated.gumbel_mean is None and unbounded.weibull_mean is None
        assert any("x0" in warning for warning in unbounded.warnings)
        assert any("right end-point" in warning for warning in truncated.warnings)
    assert expected_maximum(cut, 10**6).variance < 1e-6
    assert not expected_maximum(ERLANG_2, 100).warnings


def test_maximum_of_uniforms_is_weibull_exactly():
    """Uniform on [0, 1]: E[max] = n/(n + 1); the Weibull limit of index 1 gives 1 - 1/n."""
    estimate = expected_maximum(uniform(0.0, 1.0), 200)
    assert estimate.mean == pytest.approx(200 / 201, rel=1e-10)
    assert estimate.weibull_mean == pytest.approx(1 - 1 / 200, rel=1e-6)


def test_maximum_moments_of_mixed_parts():
    """Columns of unequal length (n not a multiple of p): the product of their distribution functions."""
    mean, _ = maximum_moments([(erlang(4, 1.0), 3), (erlang(2, 1.0), 5)])
    reference, _ = integrate.quad(lambda t: 1 - stats.gamma(4).cdf(t) ** 3 * stats.gamma(2).cdf(t) ** 5, 0, 80)
    assert mean == pytest.approx(reference, rel=1e-9)
