"""Static and dynamic scheduling against Monte Carlo: the issue's Done-when checks and the paper's Fig. 10/12.

Erlang-2 (rate 1) tasks on 10 processors, n = 10 ... 1000, 10^5 draws each: the model within 1 % of
the simulated mean; dynamic below static without communication (Fig. 10), above it with (Fig. 12).
"""

from __future__ import annotations

import math

import pytest

from perfeq.fitting.variability.distributions import (
    Communication,
    deterministic,
    erlang,
    exponential,
    fit_moments,
    uniform,
)
from perfeq.fitting.variability.extremes import expected_maximum
from perfeq.fitting.variability.montecarlo import simulate_dynamic, simulate_static
from perfeq.fitting.variability.phasetype import dynamic_markov, phase_type
from perfeq.fitting.variability.scheduling import (
    column_time,
    dynamic_schedule,
    equation_7,
    exponential_dynamic,
    omp_loop,
    renewal_approximation,
    static_schedule,
)

TASKS = (10, 20, 50, 100, 200, 500, 1000)
PROCS = 10
ERLANG_2 = erlang(2, 1.0)


@pytest.fixture(scope="module")
def figure_10():
    """(model, Monte Carlo) per schedule and n: the numbers behind Fig. 10."""
    rows = {}
    for schedule, model, simulate in (("static", static_schedule, simulate_static),
                                      ("dynamic", dynamic_schedule, simulate_dynamic)):
        for tasks in TASKS:
            rows[schedule, tasks] = (model(ERLANG_2, tasks, PROCS),
                                     simulate(ERLANG_2, tasks, PROCS, draws=100_000, seed=tasks))
    return rows


@pytest.mark.parametrize("schedule", ["static", "dynamic"])
@pytest.mark.parametrize("tasks", TASKS)
def test_model_within_one_percent_of_monte_carlo(figure_10, schedule, tasks):
    estimate, check = figure_10[schedule, tasks]
    assert check.draws >= 100_000
    assert estimate.mean == pytest.approx(check.mean, rel=0.01)
    # far tighter in fact: within four standard errors of the simulation
    assert abs(estimate.mean - check.mean) < 4 * check.standard_error + 1e-9
    assert estimate.variance == pytest.approx(check.variance, rel=0.05)
    assert estimate.method.startswith("exact")


def test_figure_10_dynamic_below_static_and_both_linear(figure_10):
    for tasks in TASKS:
        static, dynamic = figure_10["static", tasks][0], figure_10["dynamic", tasks][0]
        if tasks == PROCS:  # one task each: both are the maximum of 10 task times
            assert dynamic.mean == pytest.approx(static.mean, rel=1e-12)
        else:
            assert dynamic.mean < static.mean
            assert figure_10["dynamic", tasks][1].mean < figure_10["static", tasks][1].mean
    # the mean grows by about mu/p per task (the first bullet under Fig. 10): dynamic exactly so,
    # static plus the sqrt(n/p) sigma term of eq. (7)
    slopes = {schedule: (figure_10[schedule, 1000][0].mean - figure_10[schedule, 500][0].mean) / 500
              for schedule in ("static", "dynamic")}
    assert slopes["dynamic"] == pytest.approx(ERLANG_2.mean / PROCS, rel=1e-6)
    assert slopes["static"] == pytest.approx(ERLANG_2.mean / PROCS, rel=0.1)
    # variances: dynamic grows like n sigma^2/p^2, static like n sigma^2/(p ln p) (second bullet)
    dynamic_growth = (figure_10["dynamic", 1000][0].variance - figure_10["dynamic", 500][0].variance) / 500
    static_growth = (figure_10["static", 1000][0].variance - figure_10["static", 500][0].variance) / 500
    assert dynamic_growth == pytest.approx(ERLANG_2.variance / PROCS**2, rel=0.02)
    assert static_growth == pytest.approx(ERLANG_2.variance / PROCS / math.log(PROCS), rel=0.5)


def test_paper_formulas_approach_the_model_as_n_grows(figure_10):
    """Eq. (7) and mu_dyn are asymptotic: several % off at n = 10-20, within 0.5 % at n = 1000."""
    errors = {schedule: [abs(figure_10[schedule, n][0].approximation_mean / figure_10[schedule, n][1].mean - 1)
                         for n in TASKS] for schedule in ("static", "dynamic")}
    assert errors["static"][0] > 0.05 and errors["static"][-1] < 0.005
    assert errors["dynamic"][0] > 0.1 and errors["dynamic"][-1] < 0.005
    for tasks in TASKS[1:]:  # the paper's bounds hold
        dynamic, check = figure_10["dynamic", tasks]
        assert dynamic.lower_mean < check.mean < dynamic.upper_mean


def test_figure_12_static_wins_with_communication():
    """Section 4.3: a dynamic scheduler waits for each task's K1 and K0, a static one overlaps them."""
    link = exponential(2.0)
    communication = Communication(before=link, after=link)
    for tasks in (50, 200):
        static = static_schedule(ERLANG_2, tasks, PROCS, communication)
        dynamic = dynamic_schedule(ERLANG_2, tasks, PROCS, communication)
        assert static.mean < dynamic.mean
        for estimate, simulate in ((static, simulate_static), (dynamic, simulate_dynamic)):
            check = simulate(ERLANG_2, tasks, PROCS, draws=20_000, seed=3, communication=communication)
            assert estimate.mean == pytest.approx(check.mean, rel=0.01)


def test_exponential_tasks_exact_formula_and_markov_chain_agree():
    for tasks in (5, 10, 37, 200):
        formula = exponential_dynamic(1.5, tasks, 8)
        chain = dynamic_markov(phase_type(exponential(1.5)), tasks, 8)
        assert chain == pytest.approx(formula, rel=1e-10)
        assert renewal_approximation(exponential(1.5), tasks, 8)[0] == pytest.approx(formula[0], rel=1e-9) or tasks < 8
    check = simulate_dynamic(exponential(1.5), 37, 8, draws=50_000, seed=5)
    assert formula_mean_close(exponential_dynamic(1.5, 37, 8)[0], check)


def formula_mean_close(mean: float, check) -> bool:
    return abs(mean - check.mean) < 4 * check.standard_error


@pytest.mark.parametrize("task", [uniform(1.0, 3.0), deterministic(2.0), fit_moments(2.0, 0.1, stages=2),
                                  erlang(2, 1.0).truncate(4.0), fit_moments(2.0, 16.0)],
                         ids=["uniform", "deterministic", "shifted-erlang", "truncated", "hyperexponential"])
def test_other_task_times_against_monte_carlo(task):
    """Static is exact for every task time (closed form or lattice); dynamic is exact for phase-type
    and deterministic tasks and the renewal approximation otherwise, which needs n >> p."""
    for tasks in (20, 100):
        static = static_schedule(task, tasks, PROCS)
        check = simulate_static(task, tasks, PROCS, draws=20_000, seed=tasks)
        assert abs(static.mean - check.mean) < 4 * check.standard_error + 1e-12
    dynamic = dynamic_schedule(task, 100, PROCS)
    check = simulate_dynamic(task, 100, PROCS, draws=20_000, seed=7)
    assert dynamic.mean == pytest.approx(check.mean, rel=0.005)


def test_renewal_approximation_warns_when_n_is_not_much_larger_than_p():
    estimate = dynamic_schedule(fit_moments(2.0, 0.1, stages=2), 20, PROCS)
    assert estimate.method.startswith("approximate")
    assert any("n >> p" in warning for warning in estimate.warnings)


def test_uniform_columns_move_to_the_lattice_and_agree_with_closed_form():
    task = uniform(1.0, 3.0)
    small, large = column_time(task, 3), column_time(task, 60)
    assert type(small).__name__ == "TaskTime" and type(large).__name__ == "LatticeTime"
    assert large.mean == pytest.approx(120.0, rel=1e-9)
    assert large.variance == pytest.approx(60 / 3, rel=1e-3)


def test_equation_7_by_hand():
    """p = 10: sqrt(2 ln p) = 2.14597, ln ln p = 0.83403, ln 4 pi = 2.53102, the bracket 2.14597 - 0.78404
    + 0.26898 = 1.63091 (E[max of 10 standard normals] is 1.53875); Erlang-2 (mu 2, sigma^2 2), n = 100."""
    mean, variance = equation_7(2.0, 2.0, 100, 10)
    assert mean == pytest.approx(20 + math.sqrt(20) * 1.63091, rel=1e-5)
    assert variance == pytest.approx(math.pi**2 / 12 * 100 * 2 / (10 * math.log(10)), rel=1e-12)
    assert equation_7(2.0, 2.0, 100, 1) == (200.0, 200.0)


def test_openmp_loops():
    iteration = erlang(2, 4.0)
    static = omp_loop("static", 1000, 8, iteration)
    assert static.mean == pytest.approx(static_schedule(iteration, 1000, 8).mean)
    chunked = omp_loop("dynamic", 1000, 8, iteration, chunk=10)
    assert chunked.tasks == 100  # chunks of Erlang-20: too many phases for the chain, renewal instead
    check = simulate_dynamic(erlang(20, 4.0), 100, 8, draws=20_000, seed=1)
    assert chunked.mean == pytest.approx(check.mean, rel=0.005)
    single = omp_loop("dynamic", 1000, 8, iteration)
    assert single.method.startswith("exact") and single.mean < chunked.mean  # bigger chunks, worse balance
    with pytest.raises(ValueError, match="guided"):
        omp_loop("guided", 10, 2, iteration)


def test_unlimited_processors_is_the_maximum():
    estimate = static_schedule(ERLANG_2, 8, 16)
    assert estimate.mean == pytest.approx(expected_maximum(ERLANG_2, 8).mean, rel=1e-12)
