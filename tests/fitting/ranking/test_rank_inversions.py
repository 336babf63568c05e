"""Thresholded inversions (Chen et al. §3.4.2): hand-counted examples and the monotonicity property."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeq.errors import RankError
from perfeq.fitting.ranking.inversions import (
    check_thresholds,
    thresholded_inversions,
    thresholded_inversions_many,
)


def paper_inversions(predicted, measured, alpha, beta):
    """The definition as the paper words it, pair by pair: A ranked better (predicted faster by more than
    beta) but measured slower by more than alpha.  Written independently of the vectorized version."""
    count = 0
    for a, b in itertools.permutations(range(len(predicted)), 2):
        ranked_better = predicted[b] > (1 + beta) * predicted[a]
        measured_slower = measured[a] > (1 + alpha) * measured[b]
        count += ranked_better and measured_slower
    return count


def test_reversed_ranking_inverts_every_pair():
    # predicted order a < b < c, measured c < b < a: pairs (a,b), (a,c), (b,c) all inverted.
    assert thresholded_inversions([1, 2, 3], [3, 2, 1], alpha=0, beta=0) == 3


def test_perfect_ranking_has_none():
    assert thresholded_inversions([1, 2, 3, 4], [10, 20, 30, 40], alpha=0, beta=0) == 0


def test_alpha_suppresses_a_small_runtime_difference():
    # A predicted faster (100 < 200) but measured 101 vs 100: an inversion only if 101 > (1 + alpha) 100.
    assert thresholded_inversions([100, 200], [101, 100], alpha=0.01, beta=0.001) == 0  # 101 > 101 is false
    assert thresholded_inversions([100, 200], [101, 100], alpha=0.005, beta=0.001) == 1  # 101 > 100.5


def test_beta_suppresses_a_small_predicted_difference():
    # A measured much slower (150 vs 100), predicted faster only by 0.05 %: counts only if 100.05 > (1 + beta) 100.
    assert thresholded_inversions([100, 100.05], [150, 100], alpha=0.01, beta=0.001) == 0  # 100.05 > 100.1 false
    assert thresholded_inversions([100, 100.05], [150, 100], alpha=0.01, beta=0.0001) == 1  # 100.05 > 100.01


def test_four_machines_counted_by_hand():
    predicted = [1.0, 2.0, 3.0, 4.0]  # w, x, y, z: predicted order w < x < y < z
    measured = [10.05, 10.0, 9.0, 12.0]
    # alpha 0.01: (w,x) 10.05 > 10.1? no; (w,y) 10.05 > 9.09 yes; (x,y) 10 > 9.09 yes; pairs with z: z is
    # slowest as predicted.  Two inversions.
    assert thresholded_inversions(predicted, measured, alpha=0.01, beta=0.001) == 2
    # alpha 0: (w,x) 10.05 > 10 now counts too.
    assert thresholded_inversions(predicted, measured, alpha=0.0, beta=0.001) == 3
    # beta 0.5: (x,y) needs 3 > 1.5 * 2 = 3, false, so only (w,y) remains ((w,x): 2 > 1.5 yes but alpha says no).
    assert thresholded_inversions(predicted, measured, alpha=0.01, beta=0.5) == 1


def test_tied_predictions_rank_neither_first():
    assert thresholded_inversions([5, 5], [1, 2], alpha=0, beta=0) == 0


def test_many_rankings_at_once_match_one_at_a_time():
    rng = np.random.default_rng(3)
    scores, measured = rng.uniform(1, 2, (7, 5)), rng.uniform(1, 2, 7)
    many = thresholded_inversions_many(scores, measured, alpha=0.01, beta=0.001)
    single = [thresholded_inversions(scores[:, k], measured, alpha=0.01, beta=0.001) for k in range(5)]
    assert many.tolist() == single


def test_thresholds_outside_zero_one_are_user_errors():
    with pytest.raises(RankError, match="alpha = 1.5"):
        check_thresholds(1.5, 0.001)
    with pytest.raises(RankError, match="beta = -0.1"):
        check_thresholds(0.01, -0.1)


times = st.floats(min_value=0.01, max_value=1e4, allow_nan=False, allow_infinity=False)
machines = st.lists(st.tuples(times, times), min_size=1, max_size=9)
thresholds = st.sampled_from([0.0, 0.001, 0.01, 0.1, 0.5])


@settings(max_examples=200, deadline=None)
@given(machines, st.tuples(times, times), thresholds, thresholds)
def test_adding_a_machine_never_decreases_the_count(pairs, extra, alpha, beta):
    predicted, measured = map(list, zip(*pairs, strict=True))
    before = thresholded_inversions(predicted, measured, alpha=alpha, beta=beta)
    after = thresholded_inversions(predicted + [extra[0]], measured + [extra[1]], alpha=alpha, beta=beta)
    assert after >= before
    n = len(pairs) + 1
    assert after <= n * (n - 1) // 2


@settings(max_examples=200, deadline=None)
@given(machines, thresholds, thresholds)
def test_vectorized_count_matches_the_paper_wording(pairs, alpha, beta):
    predicted, measured = map(list, zip(*pairs, strict=True))
    assert thresholded_inversions(predicted, measured, alpha=alpha, beta=beta) == \
        paper_inversions(predicted, measured, alpha, beta)
