"""Synthetic calibration runs with known machine costs, for tests, demos and checking a fit's coverage.

Counts are drawn log-uniformly over realistic ranges; times are chi @ beta (+ const) with
multiplicative noise, the error model that ``weighting="relative"`` assumes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .runs import Run

# A plausible cluster: 1 ns per operation, 5 us per message, 1 ns per byte.
TRUE_COSTS: dict[str, float] = {"ops": 1e-9, "startup": 5e-6, "bytes": 1e-9}
COUNT_RANGES: dict[str, tuple[float, float]] = {
    "ops": (1e6, 1e10),
    "startup": (10.0, 1e5),
    "bytes": (1e3, 1e9),
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
