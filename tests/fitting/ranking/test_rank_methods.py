"""Weights, basis reduction, linear programming and their evaluation (Chen et al. §5, §7) on synthetic machines."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from perfeq.errors import RankError
from perfeq.fitting import ranking
from perfeq.fitting.ranking.tables import BenchmarkTable, RuntimeCase, RuntimeTable

COLUMNS = ("FLOPS", "L1(s)", "L2(s)", "L3(s)", "MM(s)", "MM(r)", "NW bw", "NW lat")
KINDS = ("rate",) * 7 + ("time",)
# True weights of the normalized benchmarks; the near-copies L2(s) and L3(s) carry none.
TRUE_WEIGHTS = np.array([200, 100, 0, 0, 500, 80, 60, 30.0])


def synthetic_machines(seed: int, n: int = 14, near: float = 0.02) -> BenchmarkTable:
    """Machines in the shape of the paper's Table 2: L2(s) is nearly a multiple of L1(s) and L3(s) of MM(s)
    (relative spread ``near``), as the paper found on its machines; the others are independent."""
    rng = np.random.default_rng(seed)
    flops, l1, mm = rng.uniform(2, 12, n), rng.uniform(8, 40, n), rng.uniform(1, 6, n)
    mmr, bandwidth, latency = rng.uniform(0.05, 0.4, n), rng.uniform(200, 2000, n), rng.uniform(2, 20, n)
    l2 = l1 * 0.5 * rng.uniform(1 - near, 1 + near, n)
    l3 = mm * 1.5 * rng.uniform(1 - near, 1 + near, n)
    values = np.column_stack([flops, l1, l2, l3, mm, mmr, bandwidth, latency])
    return BenchmarkTable("synthetic", tuple(f"m{i:02d}" for i in range(n)), COLUMNS, KINDS, values)


def runtimes_of(table: BenchmarkTable, weights: np.ndarray, noise: float = 0.0, seed: int = 0) -> RuntimeCase:
    """Run times that are the weighted sum of the normalized time-form benchmarks, times lognormal noise."""
    exact = ranking.normalize_columns(table.times()) @ weights
    noisy = exact * np.exp(np.random.default_rng(seed + 1000).normal(0, noise, len(exact)))
    return RuntimeCase("app", 16, table.machines, noisy, tuple(range(1, len(exact) + 1)))


def independent_machines(n: int = 10) -> BenchmarkTable:
    rng = np.random.default_rng(7)
    values = rng.uniform(1, 10, (n, 4))
    return BenchmarkTable("independent", tuple(f"m{i}" for i in range(n)), ("FLOPS", "MM(s)", "NW bw", "NW lat"),
                          ("rate", "rate", "rate", "time"), values)


# --- Preprocessing -----------------------------------------------------------------------------------

def test_rates_are_inverted_and_columns_scaled_to_one():
    table = BenchmarkTable("t", ("a", "b"), ("FLOPS", "lat"), ("rate", "time"), np.array([[2.0, 3.0], [4.0, 6.0]]))
    design = ranking.build_design(table, "lsq")
    # FLOPS 2, 4 -> times 0.5, 0.25 -> scaled 1, 0.5; latency 3, 6 -> 0.5, 1.
    assert_allclose(design.matrix, [[1.0, 0.5], [0.5, 1.0]], rtol=1e-12)


def test_basis_reduction_drops_the_first_of_a_correlated_pair():
    times = np.array([[1.0, 2.0, 5.0], [2.0, 4.1, 1.0], [3.0, 5.9, 4.0], [4.0, 8.0, 2.0]])
    reduction = ranking.reduce_basis(times, ("a", "b", "c"))
    assert reduction.kept == ("b", "c")
    assert [(d.name, d.partner) for d in reduction.dropped] == [("a", "b")]
    assert reduction.dropped[0].correlation == pytest.approx(1.0, abs=0.01)
    assert ranking.reduce_basis(times, ("a", "b", "c"), keep=["a"]).kept == ("a", "c")
    assert ranking.reduce_basis(times, ("a", "b", "c"), threshold=1.0).kept == ("a", "b", "c")


def test_basis_reduction_reproduces_the_papers_drops_on_paper_like_machines():
    reduction = ranking.build_design(synthetic_machines(0), "reduced").reduction
    assert reduction is not None
    assert {d.name for d in reduction.dropped} == {"L1(s)", "L3(s)"}


# --- Exact data: every method recovers the weights ---------------------------------------------------

@pytest.mark.parametrize("method", ranking.METHODS)
def test_exact_weighted_sums_are_recovered(method):
    table = independent_machines()
    weights = np.array([3.0, 1.0, 0.5, 2.0])
    case = runtimes_of(table, weights)
    design = ranking.build_design(table, method)
    assert design.columns == table.columns  # nothing correlated, nothing dropped
    fit = ranking.fit_weights(design, case.machines, case.seconds)
    assert_allclose(fit.weights, weights, rtol=1e-6)
    validation = ranking.cross_validate(design, case)
    assert_allclose(validation.errors, 0.0, atol=1e-6)
    subsets = ranking.rank_random_subsets(design, case, subset_size=4, draws=20)
    assert subsets.mean_inversions == 0


def test_reduced_basis_recovers_the_weights_it_keeps():
    table = synthetic_machines(1)
    case = runtimes_of(table, TRUE_WEIGHTS)
    design = ranking.build_design(table, "reduced")
    fit = ranking.fit_weights(design, case.machines, case.seconds)
    # The dropped L1(s) is replaced by its near-copy L2(s); L3(s) carried no weight.  Predictions stay
    # close, and the weights of the independent benchmarks come back nearly exactly.
    kept = {name: w for name, w in zip(design.columns, fit.weights, strict=True)}
    for name in ("FLOPS", "MM(s)", "MM(r)", "NW bw", "NW lat"):
        assert kept[name] == pytest.approx(TRUE_WEIGHTS[COLUMNS.index(name)], rel=0.1)
    assert_allclose(fit.predict(design.matrix), case.seconds, rtol=0.01)


def test_lp_weights_are_non_negative_and_gamma_is_the_max_relative_error():
    table = synthetic_machines(2)
    case = runtimes_of(table, TRUE_WEIGHTS, noise=0.05)
    design = ranking.build_design(table, "lp")
    fit = ranking.fit_weights(design, case.machines, case.seconds)
    assert (fit.weights >= 0).all()
    relative = np.abs(fit.predict(design.matrix) - case.seconds) / case.seconds
    assert fit.gamma == pytest.approx(relative.max(), rel=1e-9)


def test_lp_gamma_by_hand():
    # One benchmark equal to 1 on both machines, run times 1 and 3: the weight w that minimizes
    # max(|w - 1| / 1, |w - 3| / 3) solves w - 1 = 1 - w / 3, so w = 1.5 and gamma = 0.5.
    # (The second program may use a relative slack of 1e-7 on gamma, hence rtol 1e-6.)
    weights, gamma = ranking.linear_program_weights(np.ones((2, 1)), np.array([1.0, 3.0]))
    assert_allclose(weights, [1.5], rtol=1e-6)
    assert gamma == pytest.approx(0.5, rel=1e-6)


# --- Noisy data: the paper's findings relative to plain least squares ---------------------------------

def test_basis_reduction_beats_plain_least_squares_on_correlated_benchmarks():
    """Paper §5.2: dropping one of each highly correlated pair gives better cross-validated predictions
    and rankings than least squares on the full basis.

    Robustness: near-copies of benchmarks inflate the variance of least squares, and reduction removes
    exactly that, so the effect is systematic, not a property of one draw.  Single data sets can go the
    other way (about 15 % of seeds for the error), so the assertion is on the mean over 8 data sets with
    fixed seeds.  In a sweep of seeds 0-39 in windows of 8, every window showed both effects, with mean
    errors about 0.075 (full) vs 0.06 (reduced) and inversions about 0.7 vs 0.45 of at most 6.
    """
    errors = {"lsq": [], "reduced": []}
    inversions = {"lsq": [], "reduced": []}
    for seed in range(8):
        table = synthetic_machines(seed)
        case = runtimes_of(table, TRUE_WEIGHTS, noise=0.05, seed=seed)
        for method in errors:
            design = ranking.build_design(table, method)
            errors[method].append(ranking.cross_validate(design, case).mean_error)
            inversions[method].append(ranking.rank_random_subsets(design, case, subset_size=4, draws=100,
                                                                  seed=seed).mean_inversions)
    assert np.mean(errors["reduced"]) < 0.9 * np.mean(errors["lsq"])
    assert np.mean(inversions["reduced"]) < 0.85 * np.mean(inversions["lsq"])


@pytest.mark.parametrize("seed", range(4))
def test_lp_names_a_corrupted_run_time_and_predicts_well_once_it_is_removed(seed):
    """Paper §5.3: LP uses no more data than least squares, but by naming the constraints hardest to satisfy it
    lets an expert remove suspect measurements, after which its predictions are far better than least squares.

    Robustness: one run time is multiplied by 2.5 while the others carry 2 % noise, so leaving that machine
    out lowers gamma from about 0.4 to the noise level and no other removal comes close.  Over seeds 0-39 the
    corrupted machine was the top suspect every time, and the error ratio below was at most 0.13.
    """
    table = synthetic_machines(seed)
    clean = runtimes_of(table, TRUE_WEIGHTS, noise=0.02, seed=seed)
    bad = (3 * seed + 1) % len(clean.machines)
    seconds = clean.seconds.copy()
    seconds[bad] *= 2.5
    corrupted = RuntimeCase("app", 16, clean.machines, seconds, clean.lines)
    design = ranking.build_design(table, "lp")
    fit = ranking.fit_weights(design, corrupted.machines, corrupted.seconds)
    suspects = ranking.linear_program_suspects(design, corrupted, fit)
    assert suspects[0].machine == clean.machines[bad]
    assert suspects[0].gamma_without < 0.5 * fit.gamma

    keep = [i for i in range(len(seconds)) if i != bad]
    cleaned = RuntimeCase("app", 16, tuple(clean.machines[i] for i in keep), seconds[keep],
                          tuple(clean.lines[i] for i in keep))
    lp_after = ranking.cross_validate(design, cleaned).mean_error
    lsq_with = ranking.cross_validate(ranking.build_design(table, "lsq"), corrupted).mean_error
    assert lp_after < 0.3 * lsq_with


# --- Too few machines (the paper's n >= b) -----------------------------------------------------------

def test_fewer_machines_than_benchmarks_is_a_rank_error():
    table = synthetic_machines(0)
    case = runtimes_of(table, TRUE_WEIGHTS)
    design = ranking.build_design(table, "lsq")
    with pytest.raises(RankError, match=r"5 machines with run times for 8 benchmarks .*n >= b"):
        ranking.fit_weights(design, case.machines[:5], case.seconds[:5], location="times.csv:3", what="app/16")


def test_linearly_dependent_benchmarks_are_refused_by_least_squares():
    values = independent_machines().values
    table = BenchmarkTable("dup", tuple(f"m{i}" for i in range(10)), ("a", "b", "a2"), ("time",) * 3,
                           np.column_stack([values[:, 0], values[:, 1], 2 * values[:, 0]]))
    case = runtimes_of(table, np.array([1.0, 1.0, 0.0]))
    with pytest.raises(RankError, match="linearly dependent"):
        ranking.fit_weights(ranking.build_design(table, "lsq"), case.machines, case.seconds)
    fit = ranking.fit_weights(ranking.build_design(table, "reduced"), case.machines, case.seconds)
    assert fit.columns == ("a2", "b") or fit.columns == ("b", "a2")


def test_evaluate_cases_keeps_unfittable_cases_as_problems_and_raises_when_none_fits():
    table = synthetic_machines(0)
    full = runtimes_of(table, TRUE_WEIGHTS, noise=0.01)
    small = RuntimeCase("small", 8, full.machines[:4], full.seconds[:4], (20, 21, 22, 23))
    runtimes = RuntimeTable("times.csv", (full, small))
    _, results = ranking.evaluate_cases(table, runtimes, ["lsq"], draws=10)
    by_case = {result.case.label: result for result in results}
    assert by_case["app/16"].fit is not None
    assert by_case["small/8"].fit is None
    assert "times.csv:20: small/8: 4 machines with run times for 8 benchmarks" in by_case["small/8"].problems[0]
    with pytest.raises(RankError, match="n >= b"):
        ranking.evaluate_cases(table, RuntimeTable("times.csv", (small,)), ["lsq"], draws=10)


# --- Application-independent rankings (§7) -----------------------------------------------------------

def test_single_metric_rankings_scored_by_hand():
    table = BenchmarkTable("t", ("a", "b", "c"), ("FLOPS", "NW lat"), ("rate", "time"),
                           np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
    runtimes = RuntimeTable("r", (RuntimeCase("app", 4, ("a", "b", "c"), np.array([3.0, 2.0, 1.0]), (1, 2, 3)),))
    order, _ = ranking.metric_ranking(table, "FLOPS")
    assert order == ("c", "b", "a")  # the highest rate first
    assert ranking.metric_ranking(table, "NW lat")[0] == ("a", "b", "c")  # the smallest time first
    flops, latency = ranking.score_metrics(table, runtimes, ["FLOPS", "NW lat"])
    assert (flops.total, latency.total) == (0, 3)
    assert latency.per_application == {"app": 3}


def test_search_finds_a_combined_metric_when_no_single_benchmark_ranks_perfectly():
    table = synthetic_machines(3)
    truth = {"MM(s)": 1.0, "MM(r)": 0.3}
    weights = ranking.metric_weights(table, truth)
    cases = tuple(RuntimeCase(f"app{k}", 16, table.machines, runtimes_of(table, weights).seconds * (k + 1),
                              tuple(range(len(table.machines)))) for k in range(2))
    runtimes = RuntimeTable("r", cases)
    assert min(score.total for score in ranking.score_metrics(table, runtimes, list(COLUMNS))) > 0
    assert ranking.score_metrics(table, runtimes, [truth])[0].total == 0
    best = ranking.search_combined_metric(table, runtimes, representative=False, top=3)
    # The generating metric and its twin with the near-copy L3(s) for MM(s) both rank without inversions.
    assert best[0].total == 0
    assert best[0].weights in ({"MM(s)": 1.0, "MM(r)": 0.3}, {"L3(s)": 1.0, "MM(r)": 0.3})
