"""The sequential design of ``perfeq calibrate --for`` (fitting/regression/optimal.py) held to explicit
inversions of the information matrix: every greedy step's variance, the first choice of each
criterion, the budget, and the stop when no run helps."""

from __future__ import annotations

import numpy as np
import pytest

from perfeq.fitting.regression.optimal import choose_runs, target_variance


def updated_covariance(cov: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(C^-1 + sum_i w_i x_i x_i')^-1 by inversion: the covariance once ``rows`` are added, computed
    apart from choose_runs' Sherman-Morrison updates."""
    return np.linalg.inv(np.linalg.inv(cov) + (rows * weights[:, None]).T @ rows)


def _problem(seed: int, costs: int = 4, candidates: int = 9):
    rng = np.random.default_rng(seed)
    half = rng.normal(size=(costs, costs))
    cov = half @ half.T + 0.1 * np.eye(costs)
    rows = rng.uniform(0.0, 3.0, size=(candidates, costs))
    weights = rng.uniform(0.5, 2.0, size=candidates)
    seconds = rng.uniform(0.1, 2.0, size=candidates)
    target = rng.uniform(0.0, 5.0, size=costs)
    return cov, rows, weights, seconds, target


@pytest.mark.parametrize("seed", range(5))
def test_each_step_s_variance_is_that_of_the_inverted_information(seed):
    cov, rows, weights, seconds, target = _problem(seed)
    chosen = choose_runs(cov, rows, weights, seconds, target, budget=100.0, max_runs=6, min_gain=0.0)
    assert len(chosen) == 6
    for step in range(1, len(chosen) + 1):
        picked = [c.index for c in chosen[:step]]
        exact = target_variance(updated_covariance(cov, rows[picked], weights[picked]), target)
        assert chosen[step - 1].variance == pytest.approx(exact, rel=1e-9)
    assert all(a.variance > b.variance for a, b in zip(chosen, chosen[1:], strict=False))


@pytest.mark.parametrize("seed", range(5))
def test_the_first_choice_lowers_the_target_variance_most_for_what_it_costs(seed):
    cov, rows, weights, seconds, target = _problem(seed)
    per_run = 0.7
    chosen = choose_runs(cov, rows, weights, seconds, target, budget=100.0, max_runs=1, per_run=per_run)
    start = target_variance(cov, target)
    gains = [(start - target_variance(updated_covariance(cov, rows[[i]], weights[[i]]), target))
             / (seconds[i] + per_run) for i in range(len(rows))]
    assert chosen[0].index == int(np.argmax(gains))


@pytest.mark.parametrize("seed", range(5))
def test_the_d_criterion_s_first_choice_raises_the_determinant_most(seed):
    cov, rows, weights, seconds, target = _problem(seed)
    chosen = choose_runs(cov, rows, weights, seconds, target, budget=100.0, max_runs=1, criterion="D", per_run=0.0)
    gains = [np.log(np.linalg.det(np.linalg.inv(updated_covariance(cov, rows[[i]], weights[[i]])))
                    / np.linalg.det(np.linalg.inv(cov))) / seconds[i] for i in range(len(rows))]
    assert chosen[0].index == int(np.argmax(gains))


def test_the_budget_and_the_number_of_runs_are_kept():
    cov, rows, weights, seconds, target = _problem(7)
    for budget, max_runs in ((1.5, 10), (100.0, 3), (0.05, 10)):
        chosen = choose_runs(cov, rows, weights, seconds, target, budget=budget, max_runs=max_runs)
        assert len(chosen) <= max_runs
        assert sum(c.seconds for c in chosen) <= budget + 1e-12
    assert choose_runs(cov, rows, weights, np.full(len(rows), 1.0), target, budget=0.5, max_runs=3) == []


def test_runs_that_say_nothing_about_the_target_are_not_chosen():
    """Costs independent a priori; the target needs only the second, the candidates only tell the first."""
    cov = np.diag([4.0, 1.0])
    rows = np.array([[1.0, 0.0], [2.0, 0.0]])
    chosen = choose_runs(cov, rows, np.ones(2), np.ones(2), np.array([0.0, 3.0]), budget=10.0, max_runs=5)
    assert chosen == []
    # and the run that tells the second cost is the one chosen, again and again (repetitions)
    rows = np.array([[1.0, 0.0], [0.0, 1.0]])
    chosen = choose_runs(cov, rows, np.ones(2), np.ones(2), np.array([0.0, 3.0]), budget=10.0, max_runs=3)
    assert [c.index for c in chosen] == [1, 1, 1]
    assert chosen[-1].variance == pytest.approx(9.0 / (1.0 + 3.0))  # 9 x (1 + 3 x 1)^-1
