"""Synthetic calibration runs with known machine costs, for tests, demos and checking a fit's coverage.

Counts are drawn log-uniformly over realistic ranges; times are chi @ beta (+ const) with
multiplicative noise, the error model that ``weighting="relative"`` assumes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from perfeq.fitting.regression.runs import Run

# A plausible cluster: 1 ns per operation, 5 us per message, 1 ns per byte.
TRUE_COSTS: dict[str, float] = {"ops": 1e-9, "startup": 5e-6, "bytes": 1e-9}
COUNT_RANGES: dict[str, tuple[float, float]] = {
    "ops": (1e6, 1e10),
    "startup": (10.0, 1e5),
    "bytes": (1e3, 1e9),
}
# Cost mixes of whole applications: operations dominate, messages and bytes take 5-30 % of the time
# (a program whose time is all start-ups is nothing like the ones a fit was calibrated on).
APP_COUNT_RANGES: dict[str, tuple[float, float]] = {
    "ops": (1e9, 4e9),
    "startup": (2e4, 1e5),
    "bytes": (1e8, 5e8),
}


def draw_counts(ranges: Mapping[str, tuple[float, float]], rng: np.random.Generator) -> dict[str, float]:
    """One set of whole-number counts, each log-uniform in its ``(low, high)`` range."""
    return {
        name: float(np.round(10 ** rng.uniform(np.log10(low), np.log10(high))))
        for name, (low, high) in ranges.items()
    }


def true_time(costs: Mapping[str, float], counts: Mapping[str, float], const: float = 0.0) -> float:
    """The noise-free time chi @ beta + const."""
    return const + sum(costs[name] * counts[name] for name in costs)


def synthetic_runs(
    n_runs: int,
    rng: np.random.Generator,
    costs: Mapping[str, float] = TRUE_COSTS,
    ranges: Mapping[str, tuple[float, float]] = COUNT_RANGES,
    noise: float = 0.03,
    const: float = 0.0,
) -> tuple[Run, ...]:
    """``n_runs`` runs whose times are ``true_time * (1 + noise * z)``, z standard normal.

    Parameters
    ----------
    n_runs : int
        Number of runs.
    rng : numpy.random.Generator
        Source of randomness (pass a seeded one for reproducible tests).
    costs, ranges : mappings
        True cost per count (seconds) and the ``(low, high)`` range of each count; same keys.
    noise : float
        Relative standard deviation of the run time (0.03 = 3 %).
    const : float
        True fixed start-up time per run, seconds.
    """
    runs = []
    for index in range(n_runs):
        counts = draw_counts(ranges, rng)
        time_s = true_time(costs, counts, const) * (1.0 + noise * rng.standard_normal())
        runs.append(
            Run(
                app="synthetic",
                params=f"case={index}",
                procs=1 + index % 16,
                time_s=max(time_s, 1e-9),
                counts=counts,
                host="synthetic",
            )
        )
    return tuple(runs)


def synthetic_applications(
    n_apps: int,
    runs_per_app: int,
    rng: np.random.Generator,
    app_sigma: float = 0.15,
    costs: Mapping[str, float] = TRUE_COSTS,
    ranges: Mapping[str, tuple[float, float]] = APP_COUNT_RANGES,
    noise: float = 0.03,
    spread: float = 30.0,
) -> tuple[tuple[Run, ...], dict[str, float]]:
    """Runs of ``n_apps`` applications, each with a cost mix and a bias of its own.

    Application k (named ``app0``, ``app1``, ...) draws one set of counts (``draw_counts`` over
    ``ranges``, by default ``APP_COUNT_RANGES``); each of
    its runs scales that set by a factor log-uniform in ``[1, spread]`` and each count by a further
    factor log-uniform in ``[1/2, 2]``, so an application's runs share a cost mix, as the runs of a
    real program at several sizes do.  Its times are ``true_time * (1 + a_k) * (1 + noise * z)``
    with the application's bias ``a_k`` drawn once from N(0, app_sigma^2) and z standard normal per
    run: the costs fit every application only up to a bias of its own.

    Returns the runs and the bias of each application.
    """
    runs = []
    biases = {}
    for k in range(n_apps):
        app = f"app{k}"
        biases[app] = float(app_sigma * rng.standard_normal())
        base = draw_counts(ranges, rng)
        for index in range(runs_per_app):
            size = 10 ** rng.uniform(0.0, np.log10(spread))
            counts = {
                name: float(np.round(value * size * 2 ** rng.uniform(-1.0, 1.0)))
                for name, value in base.items()
            }
            time_s = true_time(costs, counts) * (1.0 + biases[app]) * (1.0 + noise * rng.standard_normal())
            runs.append(
                Run(
                    app=app,
                    params=f"case={index}",
                    procs=1 + index % 16,
                    time_s=max(time_s, 1e-9),
                    counts=counts,
                    host="synthetic",
                )
            )
    return tuple(runs), biases
