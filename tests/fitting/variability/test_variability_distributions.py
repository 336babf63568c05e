"""Theta-exponential polynomials: the families, and the closure operations held to numerical integration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, stats

from perfeq.fitting.variability.distributions import (
    TaskTime,
    convolution_power,
    deterministic,
    erlang,
    exponential,
    fit_moments,
    from_terms,
    maximum_power,
    mixture,
    parallel,
    series,
    uniform,
)
from perfeq.fitting.variability.polynomials import ThetaExpPolynomial

RATES = (0.5, 1.0, 1.5, 2.0, 3.0)  # apart enough that partial fractions keep their digits
hundredths = st.integers(0, 200).map(lambda i: i / 100)


@st.composite
def erlang_mixtures(draw) -> TaskTime:
    """One or two shifted Erlang components: theta-exponential polynomials with positive weights."""
    count = draw(st.integers(1, 2))
    parts = [erlang(draw(st.integers(1, 4)), draw(st.sampled_from(RATES))).shifted(draw(hundredths))
             for _ in range(count)]
    if count == 1:
        return parts[0]
    weight = draw(st.integers(1, 9)) / 10
    return mixture([weight, 1 - weight], parts)


@st.composite
def task_times(draw) -> TaskTime:
    kind = draw(st.sampled_from(["mixture", "uniform", "deterministic", "truncated"]))
    if kind == "mixture":
        return draw(erlang_mixtures())
    if kind == "uniform":
        low = draw(hundredths)
        return uniform(low, low + 0.2 + draw(hundredths))
    if kind == "deterministic":
        return deterministic(draw(hundredths))
    task = draw(erlang_mixtures())
    return task.truncate(task.quantile(draw(st.sampled_from([0.7, 0.9, 0.99]))))


def breakpoints(task: TaskTime) -> list[float]:
    points = [task.left_end, *task.density.shifts, *(at for at, _ in task.atoms)]
    if math.isfinite(task.right_end):
        points.append(task.right_end)
    return sorted(set(points))


def convolution_cdf(first: TaskTime, second: TaskTime, t: float) -> float:
    """P(X + Y <= t) = sum over Y's atoms w F_X(t - y) + integral f_Y(s) F_X(t - s) ds, by quadrature."""
    total = sum(w * float(first.cdf(t - at)) for at, w in second.atoms)
    low, high = second.left_end, min(second.upper_limit(1e-14), t - first.left_end)
    if high > low:
        inside = [p for p in breakpoints(second) + [t - p for p in breakpoints(first)] if low < p < high]
        value, _ = integrate.quad(lambda s: float(second.pdf(s)) * float(first.cdf(t - s)), low, high,
                                  points=inside or None, limit=200, epsabs=1e-11)
        total += value
    return total


def probe_times(task: TaskTime) -> np.ndarray:
    """Six times across the support, just past any atom (a sum of atoms is exact only up to rounding)."""
    return np.linspace(task.left_end, task.upper_limit(1e-9), 7)[1:] + 1e-9


@settings(max_examples=40, deadline=None)
@given(task_times(), task_times())
def test_series_is_the_convolution(first, second):
    total = series(first, second)
    for t in probe_times(total):
        assert float(total.cdf(t)) == pytest.approx(convolution_cdf(first, second, t), abs=1e-7)
    assert total.mean == pytest.approx(first.mean + second.mean, rel=1e-9)
    assert total.variance == pytest.approx(first.variance + second.variance, rel=1e-7, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(task_times(), task_times())
def test_parallel_is_the_maximum_of_independent_times(first, second):
    top = parallel(first, second)
    for t in probe_times(top):
        assert float(top.cdf(t)) == pytest.approx(float(first.cdf(t) * second.cdf(t)), abs=1e-9)
    upper = top.upper_limit(1e-15)
    points = [p for p in breakpoints(first) + breakpoints(second) if 0 < p < upper]
    mean, _ = integrate.quad(lambda t: 1 - float(first.cdf(t) * second.cdf(t)), 0, upper,
                             points=points or None, limit=200, epsabs=1e-11)
    assert top.mean == pytest.approx(mean, rel=1e-7, abs=1e-9)
    assert abs(top.mass - 1) < 1e-9


@settings(max_examples=25, deadline=None)
@given(erlang_mixtures(), st.sampled_from([0.6, 0.9, 0.99]))
def test_truncation_conditions_on_the_end_point(task, level):
    end = task.quantile(level)
    cut = task.truncate(end)
    kept = float(task.cdf(end))
    for t in np.linspace(task.left_end, end, 6)[1:-1]:
        assert float(cut.cdf(t)) == pytest.approx(float(task.cdf(t)) / kept, abs=1e-10)
    assert float(cut.cdf(end + 1.0)) == 1.0 and cut.right_end == end
    inside = [p for p in breakpoints(task) if task.left_end < p < end] or None
    mean, _ = integrate.quad(lambda t: float(task.pdf(t)) * t / kept, task.left_end, end, points=inside,
                             limit=200, epsabs=1e-12)
    assert cut.mean == pytest.approx(mean, rel=1e-8)


@settings(max_examples=20, deadline=None)
@given(task_times(), st.integers(2, 6))
def test_powers_are_repeated_series_and_parallel(task, count):
    top = maximum_power(task, count)
    for t in probe_times(top):
        assert float(top.cdf(t)) == pytest.approx(float(task.cdf(t)) ** count, abs=1e-9)
    total = convolution_power(task, count)
    # Two rates and high stages: partial fractions grow like 1/(rate difference)^(stages) and cancel
    # (a 4-fold sum of Erlang-4 mixtures of rates 1.5 and 2 loses 3e-5 of its mean); the closed form
    # bounds its own rounding error, and scheduling sums such tasks on a lattice instead.
    span = task.upper_limit(1e-12) * count
    assert abs(total.mean - count * task.mean) <= 1e-9 * count * task.mean + total.rounding_bound() * span


def test_rounding_bound_flags_ill_conditioned_sums():
    """Erlang-8 (rate 1.5) + Erlang-8 (rate 2): terms of 1e11 cancel to a density of 0.1."""
    exact = series(erlang(8, 1.5), erlang(8, 2.0))
    assert exact.rounding_bound() > 1e-5
    assert abs(exact.mean - (8 / 1.5 + 8 / 2)) <= exact.rounding_bound() * 40
    assert series(erlang(8, 1.5), erlang(8, 1.5)).rounding_bound() < 1e-13


def test_families_against_scipy():
    t = np.array([0.3, 1.0, 2.5, 6.0])
    assert_allclose(erlang(3, 2.0).cdf(t), stats.gamma(3, scale=0.5).cdf(t), rtol=1e-12)
    assert_allclose(erlang(3, 2.0).pdf(t), stats.gamma(3, scale=0.5).pdf(t), rtol=1e-12)
    assert_allclose(exponential(0.5).sf(t), np.exp(-0.5 * t), rtol=1e-12)
    assert_allclose(uniform(1, 3).cdf(t), stats.uniform(1, 2).cdf(t), atol=1e-15)
    assert (erlang(2, 1.0).mean, erlang(2, 1.0).variance) == (pytest.approx(2.0), pytest.approx(2.0))
    assert deterministic(2.5).cdf(2.5) == 1.0 and deterministic(2.5).cdf(2.4999) == 0.0


def test_an_erlang_200_is_one_term_and_keeps_its_digits():
    """Series of identical Erlang tasks stay one term; its coefficient 1/199! is below a float's range."""
    column = convolution_power(erlang(2, 1.0), 100)
    assert len(column.density) == 1
    assert float(column.cdf(200.0)) == pytest.approx(stats.gamma(200).cdf(200.0), rel=1e-10)
    assert column.variance == pytest.approx(200.0, rel=1e-9)


def test_the_papers_example_maximum_of_two_exponentials():
    """Section 3: F_max = 1 - e^(-l1 t) - e^(-l2 t) + e^(-(l1 + l2) t), as parameter triples."""
    top = parallel(exponential(1.0), exponential(2.0))
    triples = sorted((round(a, 12), k, r) for a, k, r, _ in top.cdf_function.coefficients())
    assert triples == [(-1.0, 0, 1.0), (-1.0, 0, 2.0), (1.0, 0, 0.0), (1.0, 0, 3.0)]


def test_sf_keeps_digits_in_the_far_tail():
    task = erlang(2, 1.0)
    assert float(task.sf(60.0)) == pytest.approx(61 * math.exp(-60), rel=1e-10)


@pytest.mark.parametrize("mean, variance, kwargs", [
    (3.0, 1.0, {}),                      # c2 = 1/9: Erlang-9
    (2.0, 1.5, {}),                      # mixed Erlang 1 and 2
    (2.0, 16.0, {}),                     # hyperexponential
    (5.0, 0.5, {"minimum": 4.0}),        # deterministic part 4
    (5.0, 0.5, {"stages": 2}),           # theta chosen for Erlang-2
    (3.0, 1.0, {"support_end": 5.0}),    # truncated at the support end, moments kept
    (5.0, 0.5, {"minimum": 4.0, "support_end": 7.0}),
])
def test_fit_moments(mean, variance, kwargs):
    fitted = fit_moments(mean, variance, **kwargs)
    assert fitted.mean == pytest.approx(mean, rel=1e-8)
    assert fitted.variance == pytest.approx(variance, rel=1e-7)
    if "minimum" in kwargs:
        assert fitted.left_end == kwargs["minimum"]
    if "support_end" in kwargs:
        assert fitted.right_end == kwargs["support_end"]
    draws = fitted.sample(np.random.default_rng(1), 200_000)
    assert draws.mean() == pytest.approx(mean, rel=0.01)
    assert draws.var() == pytest.approx(variance, rel=0.03)


def test_user_terms_are_checked():
    mixed = from_terms([(0.5, 0, 1.0, 0.0), (2.0, 1, 2.0, 0.5)])
    assert mixed.mean == pytest.approx(0.5 * 1 + 0.5 * (0.5 + 1.0))
    with pytest.raises(ValueError, match="probability 1.5"):
        from_terms([(1.0, 0, 1.0, 0.0), (1.0, 0, 2.0, 0.0)])
    with pytest.raises(ValueError, match="negative"):
        from_terms([(2.0, 0, 1.0, 0.0), (-0.5, 0, 0.5, 0.0)])


def test_polynomial_algebra_by_hand():
    """(t e^-t) * (e^-2t) = e^-t (t - 1) + e^-2t, and its antiderivative, against quadrature."""
    first = ThetaExpPolynomial.from_coefficients([(1.0, 1, 1.0, 0.0)])
    second = ThetaExpPolynomial.from_coefficients([(1.0, 0, 2.0, 0.0)])
    both = first.convolve(second)
    t = np.array([0.5, 2.0, 5.0])
    assert_allclose(both(t), np.exp(-t) * (t - 1) + np.exp(-2 * t), rtol=1e-12)
    assert_allclose(both.antiderivative()(2.0), integrate.quad(lambda s: float(both(s)), 0, 2.0)[0], rtol=1e-10)
