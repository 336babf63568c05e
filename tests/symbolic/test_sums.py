"""Exact sums of summands that switch form inside the range (symbolic/counts/sums.py), held to
brute-force sums over the integers."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeq.symbolic.counts.sums import closed_sum

N = sp.Symbol("n", positive=True, integer=True)
B = sp.Symbol("B", positive=True, integer=True)
W = sp.Symbol("w", integer=True)  # a function parameter: sign unknown to sympy
T = sp.Symbol("t", integer=True, nonnegative=True)
IDX = sp.Symbol("i", integer=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.integers(1, 40))
def test_the_tile_loop_sums_to_the_extent_whatever_the_remainder(n, b):
    total = closed_sum(sp.Min(N, B * T + B) - B * T, (T, 0, sp.ceiling(N / B) - 1))
    assert total.subs({N: n, B: b}) == n


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 20))
def test_a_triangle_under_a_clamped_upper_bound(n, b):
    """``hi = lo + B < n ? lo + B : n``; ``for (i = lo; i < hi; i++) for (j = 0; j <= i; j++)``."""
    hi = sp.Piecewise((B * T + B, B * T + B < N), (N, True))
    inner = sp.summation(IDX + 1, (IDX, B * T, hi - 1))
    total = closed_sum(inner, (T, 0, sp.ceiling(N / B) - 1))
    assert total.subs({N: n, B: b}) == sum(i + 1 for i in range(n))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 200), st.integers(1, 16), st.integers(0, 50))
def test_a_max_on_a_falling_slope_and_a_width_of_unknown_sign(n, w, shift):
    """max(0, n - w t - shift) summed over t: the slope's sign comes from the caller's probe."""
    summand = sp.Max(0, N - W * T - shift)
    total = closed_sum(summand, (T, 0, N), sign=lambda e: 1 if e.subs(W, w) > 0 else -1)
    assert total.subs({N: n, W: w}) == sum(max(0, n - w * t - shift) for t in range(n + 1))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 40), st.integers(0, 12), st.integers(-5, 5))
def test_the_owner_of_a_block_of_the_loop_variable(n, b, c, a):
    """``if (mycol == (k + a) / nb)`` over k in [0, n): the k of block ``mycol``, clipped to the range."""
    owner = sp.Piecewise((1, sp.Eq(sp.Symbol("c", integer=True, nonnegative=True), sp.floor((T + a) / B))), (0, True))
    total = closed_sum(owner, (T, 0, N - 1))
    assert total is not None
    assert total.subs({N: n, B: b, sp.Symbol("c", integer=True, nonnegative=True): c}) \
        == sum(1 for k in range(n) if (k + a) // b == c)


def test_a_condition_on_something_else_than_the_variable_stays_a_piecewise():
    total = closed_sum(sp.Piecewise((T, N > 10), (1, True)), (T, 0, N - 1))
    assert total.subs(N, 20) == sum(range(20)) and total.subs(N, 5) == 5


def test_a_condition_it_cannot_cut_the_range_by_is_left_to_the_caller():
    assert closed_sum(sp.Piecewise((1, T**2 < N), (0, True)), (T, 0, N - 1)) is None
    assert closed_sum(sp.Piecewise((T, sp.Eq(sp.Mod(T, 3), 0)), (0, True)), (T, 0, N - 1)) is None


@pytest.mark.parametrize("cond, test", [
    (sp.Eq(T, 0) | sp.Eq(T, N - 1), lambda t, n: t == 0 or t == n - 1),  # a boundary: if (i == 0 || i == n - 1)
    (sp.Eq(sp.Mod(T, 4), 0), lambda t, n: t % 4 == 0),  # PolyBench's print_array: if (i % 20 == 0)
    (sp.Ne(sp.Mod(T, 3), 1), lambda t, n: t % 3 != 1),
    ((T >= 2) & (T < N - 2), lambda t, n: 2 <= t < n - 2),  # an interior
    (sp.Eq(T, N // 2), lambda t, n: t == n // 2),
    (sp.Ne(T, N - 1), lambda t, n: t != n - 1),  # LLNL mpi_heat2D's prtdat: if (ix != nx - 1)
])
def test_points_intervals_and_residues_of_the_loop_variable(cond, test):
    """Conditions on the loop variable the counts of if statements need, exact at every size."""
    total = closed_sum(sp.Piecewise((2, cond), (1, True)), (T, 0, N - 1))
    for n in (1, 2, 3, 4, 7, 10, 101):
        assert total.subs(N, n) == sum(2 if test(t, n) else 1 for t in range(n)), n


def test_a_cyclic_share_sums_over_the_team_by_hermites_identity():
    """The trips of ``for (i = id; i < n; i += nt)`` over the team's numbers, and the other three
    floor and ceiling forms with a slope of +-1/T in the number, against the sum itself."""
    from perfeq.symbolic.counts.trips import _cyclic_share
    from perfeq.symbolic.symbols import TID, T

    n = sp.Symbol("n", integer=True, nonnegative=True)
    for term in (5 * sp.ceiling((n - TID) / T), 3 * sp.floor((n + TID) / T), sp.ceiling((n + TID) / T),
                 sp.floor((n - TID) / T), sp.ceiling((n - TID - 1) / T)):
        total = _cyclic_share(term)
        for size in range(0, 30):
            for team in range(1, 6):
                expected = sum(int(term.subs({n: size, T: team, TID: k})) for k in range(team))
                assert total.subs({n: size, T: team}) == expected, (term, size, team)
    assert _cyclic_share(sp.floor(n * TID / T)) is None  # a block bound: relaxed and checked instead


def test_the_slowest_rank_of_counts_without_a_number_is_no_crash():
    """A count that evaluates to nan on every rank (a ratio over a thread's condition, PRK Synch_p2p
    before it was refused) made ``max()`` of an empty selection an internal error in perfeq counts."""
    from perfeq.symbolic.model import _slowest

    assert _slowest({"ops": [float("nan"), float("nan")]}) == 0
    assert _slowest({"ops": [float("nan"), 3.0, 2.0]}) == 1
    assert _slowest({"ops": [2.0, 2.0], "startup": [1.0, 2.0], "bytes": [0.0, 0.0]}) == 1


def test_a_count_without_a_number_fails_the_self_check():
    """A modelled count that is nan compared within tolerance (abs(nan) > 1 % is false): PRK
    Synch_p2p's nan model passed its self-check as 'worst: 0'.  Now it is off, by inf."""
    from perfeq.symbolic.fidelity import Fidelity, KeyCheck

    check = KeyCheck("a.trace", "ops", 100.0, float("nan"))
    assert check.off and check.error == float("inf")
    fidelity = Fidelity(checks=[check])
    assert fidelity.worst() == float("inf") and fidelity.warnings()


M = sp.Symbol("m", positive=True, integer=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 24), st.integers(1, 2), st.integers(1, 3))
def test_a_stride_loop_meets_an_equality_only_where_the_point_is_whole(m, first, stride):
    """``for (l = first; l <= m; l += stride) if (l == m) ...``, counted as l = first + stride t:
    the equality holds once when stride divides m - first, never otherwise (NPB FT's ``if (l == m)
    break;`` in its Stockham stage loop); sympy writes 2 t + 1 == m as t == (m - 1) / 2."""
    level = first + stride * T
    hit = sp.Piecewise((5, sp.Eq(level, M)), (1, True))
    trips = sp.floor((M - first) / stride) + 1
    total = closed_sum(hit, (T, 0, trips - 1))
    assert total is not None
    assert total.subs(M, m) == sum(5 if level == m else 1 for level in range(first, m + 1, stride))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.integers(1, 2))
def test_a_product_of_two_equalities_on_the_variable(m, first):
    """The Stockham stage's ``li = l == m ? 1 : 2^(m - l)`` times ``lk = l == 1 ? 1 : 2^(l - 1)``
    over l = first, first + 2, ... m: two ?: whose conditions, folded into one, are a conjunction."""
    level = first + 2 * T
    li = sp.Piecewise((1, sp.Eq(level, M)), (2 * 2 ** (M - level - 1), True))
    lk = sp.Piecewise((1, sp.Eq(level, 1)), (2 * 2 ** (level - 2), True))
    total = closed_sum(li * lk, (T, 0, sp.floor((M - first) / 2)))
    assert total is not None
    expected = sum((1 if k == m else 2 ** (m - k)) * (1 if k == 1 else 2 ** (k - 1)) for k in range(first, m + 1, 2))
    assert total.subs(M, m) == expected
