"""Dynamic scheduling of phase-type task times, exactly, as a Markov chain (GIANT's Markov analysis).

A task time that is a positive mixture of Erlang densities (exponential, Erlang, the mixed-Erlang and
hyperexponential fits) is phase-type: a walk through exponential phases.  n such tasks scheduled
dynamically on p processors form a Markov chain whose state is the number of tasks still queued and
how many busy processors are in each phase; its mean and second moment of the time to absorption are
solved layer by layer (one sparse factorisation per layer shape), exactly up to rounding.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse import linalg as sparse_linalg

from perfeq.fitting.variability.distributions import TaskTime

MAX_STATES = 20_000  # states of one layer (multisets of p phases); beyond it the chain is not built
MAX_WORK = 50_000_000  # states times queued tasks


@dataclass(frozen=True, eq=False)
class PhaseType:
    """Initial probabilities ``alpha`` over phases and the sub-generator ``rates`` (k x k)."""

    alpha: np.ndarray
    rates: np.ndarray

    @property
    def exits(self) -> np.ndarray:
        return -self.rates.sum(axis=1)

    @property
    def phases(self) -> int:
        return len(self.alpha)


def phase_type(task: TaskTime) -> PhaseType | None:
    """The task time as a phase-type distribution, or None if it is not a positive Erlang mixture
    starting at 0 (no deterministic part, no atoms, no truncation)."""
    components = task.erlang_mixture
    if components is None or task.truncation is not None or any(c[1] == 0 or c[3] != 0 for c in components):
        return None
    size = sum(shape for _, shape, _, _ in components)
    alpha, rates = np.zeros(size), np.zeros((size, size))
    start = 0
    for weight, shape, rate, _ in components:
        alpha[start] = weight
        for phase in range(start, start + shape):
            rates[phase, phase] = -rate
            if phase + 1 < start + shape:
                rates[phase, phase + 1] = rate
        start += shape
    return PhaseType(alpha=alpha / alpha.sum(), rates=rates)


def phase_series(*parts: PhaseType) -> PhaseType:
    """The phase-type distribution of the sum: each part's exits lead into the next part's start."""
    size = sum(part.phases for part in parts)
    alpha, rates = np.zeros(size), np.zeros((size, size))
    alpha[: parts[0].phases] = parts[0].alpha
    start = 0
    for index, part in enumerate(parts):
        block = slice(start, start + part.phases)
        rates[block, block] = part.rates
        if index + 1 < len(parts):
            following = slice(start + part.phases, start + part.phases + parts[index + 1].phases)
            rates[block, following] = np.outer(part.exits, parts[index + 1].alpha)
        start += part.phases
    return PhaseType(alpha=alpha, rates=rates)


def layer_size(phases: int, busy: int) -> int:
    return math.comb(busy + phases - 1, phases - 1)


def _states(phases: int, busy: int) -> list[tuple[int, ...]]:
    return [tuple(np.bincount(combo, minlength=phases)) for combo in
            itertools.combinations_with_replacement(range(phases), busy)]


def dynamic_markov(task: PhaseType, tasks: int, procs: int) -> tuple[float, float] | None:
    """Mean and variance of the makespan of ``tasks`` phase-type tasks scheduled dynamically on ``procs``
    processors, exactly; None when the chain would be too large (``MAX_STATES``, ``MAX_WORK``).

    For the time T to absorption of a chain with sub-generator Q: -Q m1 = 1 and -Q m2 = 2 m1.  A layer
    is the set of states with one queue length (all p busy) or, once the queue is empty, with one
    number of busy processors; phase moves stay in the layer, completions go to the next one.
    """
    phases, start_busy = task.phases, min(tasks, procs)
    if layer_size(phases, start_busy) > MAX_STATES or layer_size(phases, start_busy) * tasks > MAX_WORK:
        return None
    exits, moves = task.exits, task.rates.copy()
    np.fill_diagonal(moves, 0.0)
    layers = {busy: _states(phases, busy) for busy in range(1, start_busy + 1)}
    index = {busy: {state: i for i, state in enumerate(states)} for busy, states in layers.items()}

    def within(busy: int) -> sparse_linalg.SuperLU:
        rows, cols, values = [], [], []
        for i, state in enumerate(layers[busy]):
            total = 0.0
            for phase, count in enumerate(state):
                if not count:
                    continue
                total += count * -task.rates[phase, phase]
                for target in np.nonzero(moves[phase])[0]:
                    moved = list(state)
                    moved[phase] -= 1
                    moved[target] += 1
                    rows.append(i)
                    cols.append(index[busy][tuple(moved)])
                    values.append(-count * moves[phase, target])
            rows.append(i)
            cols.append(i)
            values.append(total)
        size = len(layers[busy])
        return sparse_linalg.splu(sparse.csc_matrix((values, (rows, cols)), shape=(size, size)))

    def completions(busy: int, restart: bool) -> sparse.csr_matrix:
        target_busy = busy if restart else busy - 1
        rows, cols, values = [], [], []
        for i, state in enumerate(layers[busy]):
            for phase, count in enumerate(state):
                if not count or exits[phase] <= 0:
                    continue
                left = list(state)
                left[phase] -= 1
                if restart:
                    for entry in np.nonzero(task.alpha)[0]:
                        new = list(left)
                        new[entry] += 1
                        rows.append(i)
                        cols.append(index[target_busy][tuple(new)])
                        values.append(count * exits[phase] * task.alpha[entry])
                elif target_busy > 0:
                    rows.append(i)
                    cols.append(index[target_busy][tuple(left)])
                    values.append(count * exits[phase])
        width = len(layers[target_busy]) if target_busy > 0 else 1
        return sparse.csr_matrix((values, (rows, cols)), shape=(len(layers[busy]), width))

    first = np.zeros(1)
    second = np.zeros(1)
    for busy in range(1, start_busy + 1):  # the queue is empty: processors finish one by one
        solver = within(busy)
        draining = completions(busy, restart=False)
        first_next, second_next = draining @ first, draining @ second
        first = solver.solve(1.0 + first_next)
        second = solver.solve(2.0 * first + second_next)
    if tasks > procs:  # all p busy with tasks queued: each completion starts the next task
        solver, restarting = within(procs), completions(procs, restart=True)
        for _ in range(tasks - procs):
            first_next, second_next = restarting @ first, restarting @ second
            first = solver.solve(1.0 + first_next)
            second = solver.solve(2.0 * first + second_next)
    start = np.array([_multinomial(state, task.alpha) for state in layers[start_busy]])
    mean = float(start @ first)
    return mean, max(float(start @ second) - mean * mean, 0.0)


def _multinomial(counts: tuple[int, ...], alpha: np.ndarray) -> float:
    log_p = math.lgamma(sum(counts) + 1)
    for count, probability in zip(counts, alpha, strict=True):
        if count:
            if probability <= 0:
                return 0.0
            log_p += count * math.log(probability) - math.lgamma(count + 1)
    return math.exp(log_p)
