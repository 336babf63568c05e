"""Monte Carlo checks of the variability models: n tasks on p processors simulated draw by draw.

Vectorised over draws (numpy), in chunks that keep memory near ``CHUNK_VALUES`` numbers.  The
schedulers are simulated literally (static: task i on processor i mod p; dynamic: each task to the
processor that is free first), independent of the formulas in :mod:`scheduling`, which they check.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perfeq.fitting.variability.distributions import Communication, TaskTime

CHUNK_VALUES = 4_000_000
DEFAULT_DRAWS = 100_000


@dataclass(frozen=True)
class MonteCarlo:
    """Mean and variance of simulated makespans, with the standard error of the mean."""

    mean: float
    variance: float
    draws: int
    seed: int

    @property
    def standard_error(self) -> float:
        return math.sqrt(self.variance / self.draws)


def _summarise(makespans: Callable[[np.random.Generator, int], np.ndarray], draws: int, seed: int,
               per_draw: int) -> MonteCarlo:
    rng = np.random.default_rng(seed)
    chunk = max(1, min(draws, CHUNK_VALUES // max(per_draw, 1)))
    total, count, mean, m2 = 0, 0, 0.0, 0.0
    while total < draws:
        size = min(chunk, draws - total)
        values = makespans(rng, size)
        # Chan et al.'s parallel update of mean and sum of squared deviations
        chunk_mean, chunk_m2 = float(values.mean()), float(((values - values.mean()) ** 2).sum())
        delta = chunk_mean - mean
        count_new = count + size
        mean += delta * size / count_new
        m2 += chunk_m2 + delta * delta * count * size / count_new
        count = count_new
        total += size
    return MonteCarlo(mean=mean, variance=m2 / max(count - 1, 1), draws=draws, seed=seed)


def simulate_static(task: TaskTime, tasks: int, procs: int, *, draws: int = DEFAULT_DRAWS, seed: int = 0,
                    communication: Communication | None = None) -> MonteCarlo:
    """Static scheduling: task i runs on processor i mod p; the makespan is the latest processor's end.
    With communication every processor adds one K1 before and one K0 after its tasks (section 4.3)."""
    used = min(tasks, procs)
    rows = math.ceil(tasks / procs)

    def makespans(rng: np.random.Generator, size: int) -> np.ndarray:
        times = np.zeros((size, rows * procs))
        times[:, :tasks] = task.sample(rng, (size, tasks))
        columns = times.reshape(size, rows, procs).sum(axis=1)[:, :used]
        if communication is not None:
            columns += communication.before.sample(rng, (size, used)) + communication.after.sample(rng, (size, used))
        return columns.max(axis=1)

    return _summarise(makespans, draws, seed, rows * procs)


def simulate_dynamic(task: TaskTime, tasks: int, procs: int, *, draws: int = DEFAULT_DRAWS, seed: int = 0,
                     communication: Communication | None = None) -> MonteCarlo:
    """Dynamic scheduling: the next task goes to the processor that is free first.  With communication
    the processor waits for each task's K1 and K0 (the scheduler cannot start them earlier, 4.3)."""
    used = min(tasks, procs)

    def makespans(rng: np.random.Generator, size: int) -> np.ndarray:
        times = task.sample(rng, (size, tasks))
        if communication is not None:
            times = times + communication.before.sample(rng, (size, tasks)) + communication.after.sample(rng, (size, tasks))
        free = np.zeros((size, procs))
        free[:, :used] = times[:, :used]
        rows = np.arange(size)
        for index in range(used, tasks):
            first = free.argmin(axis=1)
            free[rows, first] += times[:, index]
        return free.max(axis=1)

    return _summarise(makespans, draws, seed, tasks + procs)


def simulate_maximum(task: TaskTime, count: int, *, draws: int = DEFAULT_DRAWS, seed: int = 0) -> MonteCarlo:
    """The maximum of ``count`` independent task times (enough processors for all, section 4.1)."""
    return _summarise(lambda rng, size: task.sample(rng, (size, count)).max(axis=1), draws, seed, count)
