"""Evaluating benchmark-weighted predictions and rankings of one application case (Chen et al. §3.3,
§3.4, §5.3): leave-one-machine-out relative errors (Eq. 2), thresholded inversions of random machine
subsets, and the machines whose linear-programming constraints bind.

``evaluate_cases`` is the main computation of ``perfeq rank --runtimes``; weights come from ``weights``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from perfeq.errors import RankError
from perfeq.fitting.ranking.inversions import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    check_thresholds,
    thresholded_inversions,
)
from perfeq.fitting.ranking.tables import BenchmarkTable, RuntimeCase, RuntimeTable
from perfeq.fitting.ranking.weights import (
    DEFAULT_CORRELATION,
    RankingDesign,
    WeightFit,
    build_design,
    fit_weights,
    linear_program_gamma,
)

DEFAULT_SUBSET_SIZE = 5  # machines ranked per random draw (Tables 4 and 6)


@dataclass(frozen=True)
class CrossValidation:
    """Leave-one-machine-out predictions of one case, and their absolute relative errors (Eq. 2)."""

    machines: tuple[str, ...]
    predicted: tuple[float, ...]
    measured: tuple[float, ...]
    errors: tuple[float, ...]

    @property
    def mean_error(self) -> float:
        return float(np.mean(self.errors))


def cross_validate(design: RankingDesign, case: RuntimeCase, *, location: str | None = None) -> CrossValidation:
    """Predict each machine of ``case`` from weights fitted on the others (§3.3)."""
    predicted = []
    for target in range(len(case.machines)):
        train = [i for i in range(len(case.machines)) if i != target]
        fit = fit_weights(design, [case.machines[i] for i in train], case.seconds[train], location=location,
                          what=f"{case.label} without {case.machines[target]}")
        predicted.append(float(fit.predict(design.rows([case.machines[target]]))[0]))
    measured = case.seconds
    errors = np.abs(np.array(predicted) - measured) / measured
    return CrossValidation(case.machines, tuple(predicted), tuple(map(float, measured)), tuple(map(float, errors)))


@dataclass(frozen=True)
class SubsetRanking:
    """Thresholded inversions of rankings of random machine subsets, each predicted from the others (§3.4.1)."""

    subset_size: int
    draws: int
    mean_inversions: float
    max_inversions: int  # k (k - 1) / 2
    skipped: int = 0  # draws whose training machines could not be fitted


def subset_draws(case: RuntimeCase, subset_size: int, draws: int, seed: int) -> np.ndarray:
    """``draws`` random subsets of the case's machines (indices), the same for every method of a run."""
    rng = np.random.default_rng([seed, zlib.crc32(case.label.encode())])
    n = len(case.machines)
    return np.array([rng.choice(n, size=subset_size, replace=False) for _ in range(draws)])


def rank_random_subsets(design: RankingDesign, case: RuntimeCase, *, subset_size: int = DEFAULT_SUBSET_SIZE,
                        draws: int = 1000, seed: int = 0, alpha: float = DEFAULT_ALPHA,
                        beta: float = DEFAULT_BETA, location: str | None = None) -> SubsetRanking:
    """Rank ``subset_size`` random machines by run times predicted from the rest; average the inversions."""
    n, b = len(case.machines), len(design.columns)
    if n - subset_size < b:
        raise RankError(f"{case.label}: ranking {subset_size} of {n} machines leaves {n - subset_size} to fit "
                        f"{b} benchmarks; needs at least {subset_size + b} machines with run times "
                        "(or a smaller --subset)", location=location)
    counts, skipped = [], 0
    for subset in subset_draws(case, subset_size, draws, seed):
        train = np.setdiff1d(np.arange(n), subset)
        try:
            fit = fit_weights(design, [case.machines[i] for i in train], case.seconds[train])
        except RankError:
            skipped += 1
            continue
        predicted = fit.predict(design.rows([case.machines[i] for i in subset]))
        counts.append(thresholded_inversions(predicted, case.seconds[subset], alpha=alpha, beta=beta))
    if not counts:
        raise RankError(f"{case.label}: no random subset could be fitted", location=location)
    return SubsetRanking(subset_size, draws, float(np.mean(counts)), subset_size * (subset_size - 1) // 2,
                         skipped)


@dataclass(frozen=True)
class Suspect:
    """A machine whose linear-programming constraints bind: its run time or benchmarks may be wrong (§5.3)."""

    machine: str
    relative_error: float  # |Mw - P| / P with the weights fitted on every machine of the case
    gamma_without: float  # the smallest gamma once this machine is left out


def linear_program_suspects(design: RankingDesign, case: RuntimeCase, fit: WeightFit) -> tuple[Suspect, ...]:
    """Machines whose removal lowers the LP tolerance gamma, the most helpful removal first.

    These are the constraints hardest to satisfy; the paper leaves it to a human expert to judge whether
    the run time or the benchmarks of such a machine are suspect, and to rerun or drop them.
    """
    if len(case.machines) < 2 or fit.gamma is None:
        return ()
    rows = design.rows(case.machines)
    errors = np.abs(fit.predict(rows) - case.seconds) / case.seconds
    suspects = []
    for i, machine in enumerate(case.machines):
        others = np.arange(len(case.machines)) != i
        gamma = linear_program_gamma(rows[others], case.seconds[others])
        if gamma < fit.gamma * (1 - 1e-6) - 1e-12:
            suspects.append(Suspect(machine, float(errors[i]), gamma))
    return tuple(sorted(suspects, key=lambda suspect: suspect.gamma_without))


@dataclass(frozen=True, eq=False)
class CaseResult:
    """Everything computed for one case (application, processors) with one method."""

    case: RuntimeCase
    method: str
    fit: WeightFit | None = None
    predicted: np.ndarray | None = None  # for every machine of the design, in its order
    cross_validation: CrossValidation | None = None
    subsets: SubsetRanking | None = None
    suspects: tuple[Suspect, ...] = ()
    problems: tuple[str, ...] = ()  # why a part could not be computed (the paper's "-" entries)


def evaluate_case(design: RankingDesign, case: RuntimeCase, *, location: str | None = None,
                  subset_size: int = DEFAULT_SUBSET_SIZE, draws: int = 1000, seed: int = 0,
                  alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, evaluate: bool = True) -> CaseResult:
    """Fit on every machine of the case, predict every machine of the design, and evaluate (unless told not)."""
    problems = []
    fit = predicted = validation = subsets = None
    suspects: tuple[Suspect, ...] = ()
    try:
        fit = fit_weights(design, case.machines, case.seconds, location=location, what=case.label)
        predicted = fit.predict(design.matrix)
        if design.method == "lp":
            suspects = linear_program_suspects(design, case, fit)
    except RankError as exc:
        problems.append(str(exc))
    if evaluate and fit is not None:
        try:
            validation = cross_validate(design, case, location=location)
        except RankError as exc:
            problems.append(str(exc))
        if draws > 0 and len(case.machines) >= subset_size:
            try:
                subsets = rank_random_subsets(design, case, subset_size=subset_size, draws=draws, seed=seed,
                                              alpha=alpha, beta=beta, location=location)
            except RankError as exc:
                problems.append(str(exc))
        elif draws > 0:
            problems.append(f"{location + ': ' if location else ''}{case.label}: only {len(case.machines)} "
                            f"machines, fewer than --subset {subset_size}")
    return CaseResult(case, design.method, fit, predicted, validation, subsets, suspects, tuple(problems))


def evaluate_cases(table: BenchmarkTable, runtimes: RuntimeTable, methods: Sequence[str], *,
                   threshold: float = DEFAULT_CORRELATION, keep: Iterable[str] = (),
                   subset_size: int = DEFAULT_SUBSET_SIZE, draws: int = 1000, seed: int = 0,
                   alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA,
                   evaluate: bool = True) -> tuple[dict[str, RankingDesign], list[CaseResult]]:
    """Evaluate every case of ``runtimes`` with every method; the CLI's main computation.

    A case that cannot be fitted is kept with its reason in ``problems`` (the paper's tables show "-");
    when no case at all can be fitted with a method, that reason is raised as a RankError instead.
    """
    check_thresholds(alpha, beta)
    if subset_size < 2:
        raise RankError(f"--subset {subset_size}: a ranking needs at least 2 machines")
    if draws < 0:
        raise RankError(f"--draws {draws} must not be negative")
    runtimes.check_machines(table.machines, table.source)
    designs = {method: build_design(table, method, threshold=threshold, keep=keep) for method in methods}
    results = []
    for design in designs.values():
        method_results = [evaluate_case(design, case, location=f"{runtimes.source}:{case.lines[0]}",
                                        subset_size=subset_size, draws=draws, seed=seed, alpha=alpha, beta=beta,
                                        evaluate=evaluate)
                          for case in runtimes.cases]
        if all(result.fit is None for result in method_results):
            raise RankError(method_results[0].problems[0])
        results.extend(method_results)
    return designs, results
