"""n independent tasks on p processors (Fleischmann et al. 1994, sections 4.2 and 4.3).

Static scheduling: eq. (7) and, exactly, the maximum of the p column sums (a column's time in closed
form, or on a lattice when the closed form loses digits).  Dynamic scheduling: the paper's bounds and
approximation, its exact formula for exponential tasks, and an exact Markov chain for phase-type
tasks.  Communication (section 4.3) adds K1 before and K0 after each task.  ``omp_loop`` maps OpenMP
``schedule(static)`` and ``schedule(dynamic[, chunk])`` loops onto them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from perfeq.fitting.variability.distributions import Communication, TaskTime, convolution_power, series
from perfeq.fitting.variability.extremes import EULER_GAMMA, MASSIVE, maximum_moments
from perfeq.fitting.variability.lattice import LatticeTime, discretise, lattice_step, lattice_sum
from perfeq.fitting.variability.phasetype import dynamic_markov, phase_series, phase_type
from perfeq.fitting.variability.polynomials import ThetaExpPolynomial

SCHEDULES = ("static", "dynamic")
ROUNDING_LIMIT = 1e-9  # largest rounding error of a closed-form column's F (TaskTime.rounding_bound)


@dataclass(frozen=True)
class ScheduleEstimate:
    """The makespan of ``tasks`` tasks on ``procs`` processors: the model's mean and variance
    (``method`` says how they were obtained), the paper's formula beside it, and for dynamic
    scheduling the paper's bounds."""

    schedule: str
    tasks: int
    procs: int
    mean: float
    variance: float
    method: str
    approximation: str
    approximation_mean: float
    approximation_variance: float | None
    lower_mean: float | None = None
    upper_mean: float | None = None
    lower_variance: float | None = None
    upper_variance: float | None = None
    warnings: tuple[str, ...] = field(default=())


def _check(tasks: int, procs: int) -> None:
    if tasks < 1 or procs < 1:
        raise ValueError(f"need at least one task and one processor, not {tasks} and {procs}")


def _extra_moments(communication: Communication | None) -> tuple[float, float]:
    if communication is None:
        return 0.0, 0.0
    parts = (communication.before, communication.after)
    return sum(p.mean for p in parts), sum(p.variance for p in parts)


# --- static scheduling ----------------------------------------------------------------------------------

def equation_7(mean: float, variance: float, tasks: int, procs: int,
               extra: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """Eq. (7): the column sums are normal (central limit) and their maximum Gumbel:
    mu_{n,p} = n/p mu + sqrt(n/p) sigma (sqrt(2 ln p) - (ln ln p + ln 4 pi) / (2 sqrt(2 ln p))
    + gamma / sqrt(2 ln p)) and sigma^2_{n,p} = pi^2/12 n/(p ln p) sigma^2.

    The paper prints sqrt(n/p) sigma^2 in the mean; sigma (a time) is meant.  ``extra`` adds the
    communication K1 + K0 to each column (section 4.3).  With p = 1 the column is the whole sum.
    """
    columns = min(tasks, procs)
    per_column = tasks / columns
    column_mean, column_variance = per_column * mean + extra[0], per_column * variance + extra[1]
    if columns == 1:
        return column_mean, column_variance
    log_p = math.log(columns)
    root = math.sqrt(2 * log_p)
    factor = root - (math.log(log_p) + math.log(4 * math.pi)) / (2 * root) + EULER_GAMMA / root
    return column_mean + math.sqrt(column_variance) * factor, math.pi**2 / 12 * column_variance / log_p


def column_time(task: TaskTime, count: int, communication: Communication | None = None) -> TaskTime | LatticeTime:
    """One processor's time for ``count`` tasks (plus K1 and K0): in closed form when that keeps its
    digits (sums of one-rate Erlang mixtures, deterministic parts), else on a lattice."""
    pieces = [task] if communication is None else [communication.before, task, communication.after]
    if _closed_form_safe(pieces, count):
        column = convolution_power(task, count)
        if communication is not None:
            column = series(communication.before, column, communication.after)
        if _well_conditioned(column, count * task.mean + _extra_moments(communication)[0]):
            return column
    step = min(lattice_step(piece) for piece in pieces)
    parts = [(discretise(task, step), count)]
    if communication is not None:
        parts += [(discretise(communication.before, step), 1), (discretise(communication.after, step), 1)]
    return lattice_sum(parts)


def _closed_form_safe(pieces: list[TaskTime], count: int) -> bool:
    """Worth trying in closed form: few tasks, or sums that stay positive terms of one rate."""
    if count <= 4:
        return True
    rates = {term[3] for piece in pieces for term in piece.density.terms}
    positive = all(term[0] > 0 for piece in pieces for term in piece.density.terms)
    return positive and len(rates) <= 1 and all(piece.truncation is None for piece in pieces)


def _well_conditioned(column: TaskTime, expected_mean: float) -> bool:
    """The closed form keeps its digits: it has its known mean, and a small rounding bound."""
    if len(column.density) > 5000 or abs(column.mean - expected_mean) > 1e-9 * max(abs(expected_mean), 1e-300):
        return False
    return column.rounding_bound() < ROUNDING_LIMIT


def static_schedule(task: TaskTime, tasks: int, procs: int,
                    communication: Communication | None = None) -> ScheduleEstimate:
    """``tasks`` tasks dealt out before the run, ceil or floor(n/p) to each processor (section 4.2.1)."""
    _check(tasks, procs)
    quotient, remainder = divmod(tasks, procs)
    warnings: list[str] = []
    if tasks <= procs:
        parts = [(column_time(task, 1, communication), tasks)]
    else:
        parts = [(column_time(task, quotient + 1, communication), remainder)] if remainder else []
        parts.append((column_time(task, quotient, communication), procs - remainder))
    mean, variance = maximum_moments(parts)
    cells = [len(part.masses) for part, _ in parts if isinstance(part, LatticeTime)]
    how = f"on a lattice of {max(cells)} cells" if cells else "closed form"
    method = f"exact: maximum of {min(tasks, procs)} independent column sums ({how})"
    approximation = equation_7(task.mean, task.variance, tasks, procs, _extra_moments(communication))
    columns = min(tasks, procs)
    if columns > MASSIVE:
        warnings.append(f"{columns} processors: eq. (7) assumes unbounded column times, and for p >> 100 the "
                        "right end-point of the task times decides the maximum (section 4.1.2)")
    return ScheduleEstimate(schedule="static", tasks=tasks, procs=procs, mean=mean, variance=variance,
                            method=method, approximation="eq. (7)" + (" with K1 + K0" if communication else ""),
                            approximation_mean=approximation[0], approximation_variance=approximation[1],
                            warnings=tuple(warnings))


# --- dynamic scheduling ---------------------------------------------------------------------------------

def exponential_dynamic(rate: float, tasks: int, procs: int) -> tuple[float, float]:
    """Section 4.2.2, exact for exponential tasks: X_dyn = sum of n - p minima of p + max of p:
    mu = ((n - p)/p + sum_{i<=p} 1/i)/lambda, sigma^2 = ((n - p)/p^2 + sum_{i<=p} 1/i^2)/lambda^2."""
    busy = min(tasks, procs)
    queued = tasks - busy
    harmonic = sum(1.0 / i for i in range(1, busy + 1))
    harmonic2 = sum(1.0 / i**2 for i in range(1, busy + 1))
    return (queued / procs + harmonic) / rate, (queued / procs**2 + harmonic2) / rate**2


def _exponential_rate(task: TaskTime) -> float | None:
    terms = task.density.terms
    if task.atoms or task.truncation or len(terms) != 1 or terms[0][2] != 0 or terms[0][4] != 0:
        return None
    return terms[0][3] if terms[0][3] > 0 else None


Job = TaskTime | LatticeTime


def dynamic_bounds(job: Job, tasks: int, procs: int) -> tuple[float, float, float, float]:
    """Section 4.2.2: X_lower = sum X_i / p <= X_dyn <= X_upper = sum X_i / p + max of p - 1 tasks;
    means and variances (the paper's sigma^2_upper lacks the sigma^2 in n sigma^2/p^2)."""
    lower_mean, lower_variance = tasks * job.mean / procs, tasks * job.variance / procs**2
    if procs == 1:
        return lower_mean, lower_mean, lower_variance, lower_variance
    top_mean, top_variance = maximum_moments([(job, procs - 1)])
    return lower_mean, lower_mean + top_mean, lower_variance, lower_variance + top_variance


def dynamic_approximation(job: Job, tasks: int, procs: int) -> float:
    """Section 4.2.2: at X_ideal half the processors are done and the rest halfway through their last
    task: mu_dyn = n mu / p + E[max{X_1/2, ..., X_[(p-1)/2]/2}]."""
    half = (procs - 1) // 2
    tail = maximum_moments([(job, half)])[0] / 2 if half >= 1 else 0.0
    return tasks * job.mean / procs + tail


def excess_distribution(job: Job) -> Job:
    """The equilibrium excess (residual life) distribution, density (1 - F(t)) / mu for t >= 0."""
    if isinstance(job, TaskTime):
        survival = ThetaExpPolynomial.step(0.0) - job.cdf_function
        return TaskTime(density=survival.scaled(1.0 / job.mean), left_end=0.0, right_end=job.right_end,
                        name=f"excess of {job.label}")
    points = job.step * np.arange(int(math.ceil(job.right_end / job.step)) + 1)
    masses = job.sf(points)
    return LatticeTime(origin=0.0, step=job.step, masses=masses / masses.sum(), name=f"excess of {job.label}")


def renewal_approximation(job: Job, tasks: int, procs: int) -> tuple[float, float]:
    """For n >> p: when the last task starts, the other p - 1 processors are in equilibrium, their
    remaining times R drawn from the excess distribution F_e(t) = integral_0^t (1 - F)/mu.  With M the
    maximum of the last task and the p - 1 residues, all work W = sum X_i over p processors gives
    E[T] = n mu/p + E[M] - mu/p - (p - 1)/p E[R]; Var[T] ~ n sigma^2/p^2 + Var[M].  Exact for
    exponential tasks; not from the paper."""
    if procs == 1:
        return tasks * job.mean, tasks * job.variance
    excess = excess_distribution(job)
    top_mean, top_variance = maximum_moments([(job, 1), (excess, procs - 1)])
    mean = tasks * job.mean / procs + top_mean - job.mean / procs - (procs - 1) / procs * excess.mean
    return mean, tasks * job.variance / procs**2 + top_variance


def dynamic_schedule(task: TaskTime, tasks: int, procs: int,
                     communication: Communication | None = None) -> ScheduleEstimate:
    """Each task to the processor that becomes free first (section 4.2.2); with communication the
    processor waits for K1 and K0 of each task (section 4.3), so a task costs K1 + X + K0."""
    _check(tasks, procs)
    job = column_time(task, 1, communication)  # K1 + X + K0, closed form or on a lattice
    warnings: list[str] = []
    lower_mean, upper_mean, lower_variance, upper_variance = dynamic_bounds(job, tasks, procs)
    approximation_mean = dynamic_approximation(job, tasks, procs)
    label = "section 4.2.2's mu_dyn" + (" of K1 + X + K0" if communication else "")
    rate = _exponential_rate(job) if isinstance(job, TaskTime) else None
    job_phases = None
    if communication is None:
        job_phases = phase_type(task)
    else:
        parts = [phase_type(p) for p in (communication.before, task, communication.after)]
        job_phases = phase_series(*parts) if all(p is not None for p in parts) else None
    if tasks <= procs:
        mean, variance = maximum_moments([(job, tasks)])
        method = f"exact: all {tasks} tasks start at once (maximum)"
    elif rate is not None:
        mean, variance = exponential_dynamic(rate, tasks, procs)
        method = "exact: exponential tasks (section 4.2.2)"
    elif isinstance(job, TaskTime) and not job.density.terms and len(job.atoms) == 1:
        mean, variance = math.ceil(tasks / procs) * job.atoms[0][0], 0.0
        method = "exact: deterministic tasks, ceil(n/p) of them on the busiest processor"
    elif job_phases is not None and (solved := dynamic_markov(job_phases, tasks, procs)) is not None:
        mean, variance = solved
        method = f"exact: Markov chain over {job_phases.phases} phases (phase-type task time)"
    else:
        mean, variance = renewal_approximation(job, tasks, procs)
        method = "approximate: renewal at the last task (n >> p), not from the paper"
        if tasks < 5 * procs:
            warnings.append(f"{tasks} tasks on {procs} processors: the renewal approximation assumes n >> p; "
                            "compare with the Monte Carlo check")
    pieces = [task] if communication is None else [communication.before, task, communication.after]
    if min(tasks, procs) > MASSIVE and not all(math.isfinite(piece.right_end) for piece in pieces):
        warnings.append("more than 100 processors with an unbounded task time: the end of the run depends on "
                        "the right end-point x0 of the task times (section 4.1.2)")
    return ScheduleEstimate(schedule="dynamic", tasks=tasks, procs=procs, mean=mean, variance=variance,
                            method=method, approximation=label, approximation_mean=approximation_mean,
                            approximation_variance=None, lower_mean=lower_mean, upper_mean=upper_mean,
                            lower_variance=lower_variance, upper_variance=upper_variance, warnings=tuple(warnings))


def schedule(kind: str, task: TaskTime, tasks: int, procs: int,
             communication: Communication | None = None) -> ScheduleEstimate:
    if kind == "static":
        return static_schedule(task, tasks, procs, communication)
    if kind == "dynamic":
        return dynamic_schedule(task, tasks, procs, communication)
    raise ValueError(f"schedule {kind!r}: expected one of {', '.join(SCHEDULES)}")


def omp_loop(kind: str, iterations: int, threads: int, iteration: TaskTime, chunk: int | None = None) -> ScheduleEstimate:
    """An OpenMP ``schedule(kind[, chunk])`` loop of independent iterations with time ``iteration``.

    ``static`` without a chunk gives each thread a block of ceil or floor(n/p) iterations (the column
    model of eq. (7)); with a chunk, or ``dynamic``, a task is a chunk of iterations (default chunk 1
    for dynamic), its time the chunk-fold convolution.  The last chunk may be shorter: it is counted
    as a whole one (an upper estimate of at most one chunk's time).
    """
    if chunk is not None and chunk < 1:
        raise ValueError("the chunk size must be at least 1")
    if kind == "static" and chunk is None:
        return static_schedule(iteration, iterations, threads)
    size = chunk or 1
    task = convolution_power(iteration, size) if size > 1 else iteration
    tasks = math.ceil(iterations / size)
    if kind == "static":  # round-robin chunks: thread j gets chunks j, j + p, ...
        return static_schedule(task, tasks, threads)
    if kind == "dynamic":
        return dynamic_schedule(task, tasks, threads)
    raise ValueError(f"OpenMP schedule {kind!r}: expected static or dynamic")

