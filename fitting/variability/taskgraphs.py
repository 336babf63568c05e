"""Regular task graphs (Fleischmann et al. 1994, section 5): iterative programs, stage after stage.

Stage i + 1's task in column j waits for the tasks of stage i in the columns W(j): all of them under
global synchronisation (a collective, a barrier), the neighbours and itself under local
synchronisation (a halo exchange on a ring or a mesh).  A few stages are simulated until the
increments of mean and variance per stage are stationary, then extrapolated to the full count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfeq.fitting.variability.distributions import TaskTime
from perfeq.fitting.variability.extremes import expected_maximum
from perfeq.fitting.variability.montecarlo import CHUNK_VALUES

DEFAULT_EPSILON = 0.005  # the limit on the relative change of the increments (the paper leaves it open)


@dataclass(frozen=True)
class RegularGraph:
    """``predecessors[j]``: the columns of stage i whose tasks the task of column j in stage i + 1
    waits for (the set W of the paper, read column by column)."""

    name: str
    predecessors: tuple[tuple[int, ...], ...]

    @property
    def columns(self) -> int:
        return len(self.predecessors)

    @property
    def is_global(self) -> bool:
        return all(len(p) == self.columns for p in self.predecessors)


def global_sync(columns: int) -> RegularGraph:
    """Every task waits for all tasks of the previous stage (MPI_Allreduce, a barrier)."""
    return RegularGraph(f"global synchronisation of {columns} columns",
                        tuple(tuple(range(columns)) for _ in range(columns)))


def ring(columns: int) -> RegularGraph:
    """Stripes on a ring: a task waits for its own column and its two neighbours (periodic)."""
    if columns < 3:
        raise ValueError("a ring needs at least 3 columns")
    return RegularGraph(f"ring of {columns} columns",
                        tuple(tuple(sorted({(j - 1) % columns, j, (j + 1) % columns})) for j in range(columns)))


def mesh(rows: int, cols: int) -> RegularGraph:
    """A field on a rows x cols mesh: a task waits for itself and its 2-4 neighbours (no wrap)."""
    if rows < 1 or cols < 1:
        raise ValueError("a mesh needs at least one row and one column")
    predecessors = []
    for r in range(rows):
        for c in range(cols):
            near = [(r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
            predecessors.append(tuple(sorted(a * cols + b for a, b in near if 0 <= a < rows and 0 <= b < cols)))
    return RegularGraph(f"{rows} x {cols} mesh", tuple(predecessors))


@dataclass(frozen=True)
class StageMoments:
    """Mean and variance of the total time of the graph cut after 1, 2, ..., len(means) stages."""

    means: np.ndarray
    variances: np.ndarray
    draws: int


def simulate_stages(graph: RegularGraph, task: TaskTime, stages: int, *, draws: int = 20_000,
                    seed: int = 0) -> StageMoments:
    """Monte Carlo over whole graphs (numpy, vectorised over draws); the same draws give every prefix
    of stages, so increments between stages carry little noise."""
    columns = graph.columns
    width = max(len(p) for p in graph.predecessors)
    # padded with each column itself: the maximum over a repeated predecessor is unchanged
    gather = np.array([list(p) + [p[0]] * (width - len(p)) for p in graph.predecessors])
    rng = np.random.default_rng(seed)
    chunk = max(1, min(draws, CHUNK_VALUES // (columns * width)))
    count, means, squares = 0, np.zeros(stages), np.zeros(stages)
    while count < draws:
        size = min(chunk, draws - count)
        finish = np.zeros((size, columns))
        totals = np.empty((size, stages))
        for stage in range(stages):
            ready = finish.max(axis=1, keepdims=True) if graph.is_global else finish[:, gather].max(axis=2)
            finish = ready + task.sample(rng, (size, columns))
            totals[:, stage] = finish.max(axis=1)
        # Chan et al.'s update of means and sums of squared deviations, chunk by chunk
        chunk_means = totals.mean(axis=0)
        delta = chunk_means - means
        total = count + size
        means = means + delta * size / total
        squares = squares + ((totals - chunk_means) ** 2).sum(axis=0) + delta**2 * count * size / total
        count = total
    return StageMoments(means=means, variances=squares / max(count - 1, 1), draws=draws)


@dataclass(frozen=True)
class Extrapolation:
    """The total time of ``stages`` stages from ``simulated`` simulated ones:
    mean = mu_s + (n - s) delta_mu, variance = sigma^2_s + (n - s) delta_sigma^2."""

    stages: int
    simulated: int
    mean: float
    variance: float
    increment_mean: float
    increment_variance: float
    stationary: bool
    simulated_means: tuple[float, ...]
    simulated_variances: tuple[float, ...]


def _increments(values: np.ndarray) -> tuple[float, float, float]:
    """Per-stage increments over the second half of the stages: (early quarter's mean increment, late
    quarter's mean increment, least-squares slope over the late quarter)."""
    count = len(values)
    half = values[count // 2 - 1:]
    steps = np.diff(half)
    split = len(steps) // 2
    late = half[split:]
    slope = float(np.polyfit(np.arange(len(late), dtype=float), late, 1)[0]) if len(late) > 1 else float(steps[-1])
    return float(steps[:split].mean()) if split else float(steps[0]), float(steps[split:].mean()), slope


def extrapolate(graph: RegularGraph, task: TaskTime, stages: int, *, simulated: int = 10,
                epsilon: float = DEFAULT_EPSILON, max_simulated: int = 160, draws: int = 20_000,
                seed: int = 0) -> Extrapolation:
    """Section 5's stationarity: simulate ``simulated`` stages and compare the mean increment per stage
    early and late in their second half; if they differ by more than ``epsilon`` (relative), double the
    stages simulated, up to ``max_simulated``.  The late increments of mean and variance then carry
    the total to ``stages``."""
    if stages < 1 or simulated < 4:
        raise ValueError("need at least one stage, and at least four simulated stages")
    while True:
        moments = simulate_stages(graph, task, min(simulated, stages), draws=draws, seed=seed)
        count = len(moments.means)
        if count >= stages:
            return Extrapolation(stages=stages, simulated=count, mean=float(moments.means[stages - 1]),
                                 variance=float(moments.variances[stages - 1]), increment_mean=math.nan,
                                 increment_variance=math.nan, stationary=True,
                                 simulated_means=tuple(moments.means), simulated_variances=tuple(moments.variances))
        early, late, increment_mean = _increments(moments.means)
        increment_variance = _increments(moments.variances)[2]
        stationary = abs(late - early) <= epsilon * abs(late)
        if stationary or simulated * 2 > max_simulated:
            remaining = stages - count
            return Extrapolation(stages=stages, simulated=count,
                                 mean=float(moments.means[-1] + remaining * increment_mean),
                                 variance=float(moments.variances[-1] + remaining * increment_variance),
                                 increment_mean=increment_mean, increment_variance=increment_variance,
                                 stationary=stationary, simulated_means=tuple(moments.means),
                                 simulated_variances=tuple(moments.variances))
        simulated *= 2


def global_sync_exact(task: TaskTime, columns: int, stages: int) -> tuple[float, float]:
    """Under global synchronisation the stages are independent maxima: mean and variance add up
    exactly (stage i's maximum of ``columns`` task times, section 4.1, ``stages`` times)."""
    maximum = expected_maximum(task, columns)
    return stages * maximum.mean, stages * maximum.variance
