"""Benchmark weights, predicted run times and machine rankings, after Chen, Khalili, Campbell, Carrington,
Tikir and Snavely, "Performance Prediction and Ranking of Supercomputers" (§3, §5, §7).

Side branch of stage 4 (fitting): takes a BenchmarkTable and a RuntimeTable (read by ``rank_tables``), fits
weights w with M w ~ P for each application case (least squares, basis reduction, linear programming),
ranks machines, and scores predictions (cross-validated relative error, Eq. 2) and rankings (thresholded
inversions, §3.4).  Nothing here reads files or prints; ``rank_commands`` does.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

from perfeq.errors import RankError
from perfeq.fitting.ranking.tables import BenchmarkTable, RuntimeCase, RuntimeTable, profile_costs

METHODS = ("lsq", "reduced", "lp")
METHOD_NAMES = {
    "lsq": "least squares, full basis (Eq. 3)",
    "reduced": "least squares after basis reduction (§5.2)",
    "lp": "linear programming, non-negative weights (Eqs. 5-6)",
}
DEFAULT_ALPHA = 0.01  # run-time variance: differences up to 1 % are insignificant (§3.4.2)
DEFAULT_BETA = 0.001  # benchmark / prediction variance: up to 0.1 %
DEFAULT_CORRELATION = 0.8  # |r| above which two benchmarks are redundant (§5.2)
DEFAULT_SUBSET_SIZE = 5  # machines ranked per random draw (Tables 4 and 6)
# Relative weights tried for the second and later terms of a combined metric (the first term has weight 1;
# scaling every weight leaves a ranking and its thresholded inversions unchanged).
COMBINATION_WEIGHTS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


# --- Thresholded inversions (§3.4.2) -----------------------------------------------------------------

def check_thresholds(alpha: float, beta: float) -> None:
    """Raise a RankError unless 0 <= alpha, beta <= 1 (the paper's range)."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 <= value <= 1.0:
            raise RankError(f"{name} = {value} is outside [0, 1]; it is the relative difference below which "
                            "two times count as equal")


def _measured_slower_pairs(measured: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j) where machine i was measured slower than j by more than alpha: RT_i > (1 + alpha) RT_j."""
    slower = measured[:, None] > (1 + alpha) * measured[None, :]
    return np.nonzero(slower)


def thresholded_inversions_many(scores: np.ndarray, measured: np.ndarray, *, alpha: float = DEFAULT_ALPHA,
                                beta: float = DEFAULT_BETA) -> np.ndarray:
    """Thresholded inversions of several rankings of the same machines at once.

    Parameters
    ----------
    scores
        ``(n, c)``: for each of ``c`` rankings, a predicted time (or any smaller-is-faster score) per machine.
    measured
        ``(n,)`` measured run times (positive).
    alpha, beta
        Relative thresholds on measured run times and on scores.

    Returns
    -------
    numpy.ndarray
        ``(c,)`` integer counts.  Pair (A, B) is an inversion when A is ranked better by more than beta,
        ``score_B > (1 + beta) score_A``, and measured slower by more than alpha, ``RT_A > (1 + alpha) RT_B``.
        For a negative ``score_A`` (least squares can predict one) the threshold is ``score_A + beta
        |score_A|``, i.e. ``(1 - beta) score_A``, so that a larger score is still required.
    """
    scores = np.asarray(scores, dtype=float)
    measured = np.asarray(measured, dtype=float)
    if scores.ndim != 2 or measured.ndim != 1 or scores.shape[0] != measured.shape[0]:
        raise ValueError(f"scores {scores.shape} and measured {measured.shape} do not match")
    slower, faster = _measured_slower_pairs(measured, alpha)  # A = slower, B = faster as measured
    score_a, score_b = scores[slower], scores[faster]
    threshold = np.where(score_a >= 0, (1 + beta) * score_a, (1 - beta) * score_a)
    return (score_b > threshold).sum(axis=0)


def thresholded_inversions(predicted: Sequence[float], measured: Sequence[float], *,
                           alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> int:
    """Number of machine pairs a prediction orders wrongly, ignoring differences within the thresholds.

    ``predicted`` and ``measured`` give one time per machine, in the same order.  At most ``n (n - 1) / 2``;
    adding a machine never lowers the count (it only adds pairs), which is why the metric copes with
    incomplete run-time data (§3.4.2).  See :func:`thresholded_inversions_many` for the exact rule.
    """
    predicted = np.asarray(predicted, dtype=float)
    if predicted.shape != np.shape(measured) or predicted.ndim != 1:
        raise ValueError(f"predicted {predicted.shape} and measured {np.shape(measured)} do not match")
    return int(thresholded_inversions_many(predicted[:, None], np.asarray(measured, dtype=float),
                                           alpha=alpha, beta=beta)[0])


# --- Preprocessing (§5) --------------------------------------------------------------------------------

def normalize_columns(times: np.ndarray) -> np.ndarray:
    """Scale each column so that its largest entry is 1 (§5: weights of very different costs compare)."""
    return times / times.max(axis=0)


@dataclass(frozen=True)
class DroppedBenchmark:
    """A benchmark left out by basis reduction, with the kept one it correlates with."""

    name: str
    partner: str
    correlation: float


@dataclass(frozen=True)
class BasisReduction:
    """The outcome of basis reduction: benchmarks kept, and those dropped as redundant."""

    threshold: float
    kept: tuple[str, ...]
    dropped: tuple[DroppedBenchmark, ...]


def reduce_basis(times: np.ndarray, columns: Sequence[str], *, threshold: float = DEFAULT_CORRELATION,
                 keep: Iterable[str] = ()) -> BasisReduction:
    """Drop one benchmark of each pair whose correlation across machines exceeds ``threshold`` in size.

    Parameters
    ----------
    times
        Time-form benchmarks (rates already inverted, not yet normalized: the paper's order), machines x b.
    columns
        Names of the b benchmarks.
    threshold
        Pairs with ``|r| > threshold`` are redundant.
    keep
        Benchmarks never dropped; in a pair of two of them both stay.

    Returns
    -------
    BasisReduction
        Pairs are visited in column order ``(i, j), i < j``; as in §5.2 the first of a redundant pair (``i``)
        is dropped unless it is in ``keep``, and a dropped benchmark takes part in no later pair.  Column
        order therefore decides: put the benchmark you prefer later, or name it in ``keep``.  A constant
        column has no correlation and is never dropped.
    """
    if not 0.0 < threshold <= 1.0:
        raise RankError(f"correlation threshold {threshold} is outside (0, 1]")
    keep = set(keep)
    for name in keep:
        if name not in columns:
            raise RankError(f"--keep {name!r} is not a benchmark column; the columns are {', '.join(columns)}")
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.corrcoef(times, rowvar=False) if times.shape[0] > 1 else np.full((1, 1), np.nan)
    correlation = np.atleast_2d(correlation)
    alive = [True] * len(columns)
    dropped = []
    for i, j in itertools.combinations(range(len(columns)), 2):
        r = correlation[i, j]
        if not (alive[i] and alive[j]) or not np.isfinite(r) or abs(r) <= threshold:
            continue
        if columns[i] not in keep:
            drop, partner = i, j
        elif columns[j] not in keep:
            drop, partner = j, i
        else:
            continue
        alive[drop] = False
        dropped.append(DroppedBenchmark(columns[drop], columns[partner], float(r)))
    kept = tuple(name for name, live in zip(columns, alive, strict=True) if live)
    return BasisReduction(threshold, kept, tuple(dropped))


@dataclass(frozen=True, eq=False)
class RankingDesign:
    """The preprocessed benchmark matrix M of one method, for every machine of the benchmark table."""

    method: str
    machines: tuple[str, ...]
    columns: tuple[str, ...]
    matrix: np.ndarray  # time form, basis-reduced for "reduced", each column scaled to a largest entry of 1
    reduction: BasisReduction | None = None

    def rows(self, machines: Sequence[str]) -> np.ndarray:
        index = {machine: i for i, machine in enumerate(self.machines)}
        return self.matrix[[index[machine] for machine in machines]]


def build_design(table: BenchmarkTable, method: str, *, threshold: float = DEFAULT_CORRELATION,
                 keep: Iterable[str] = ()) -> RankingDesign:
    """Preprocess a benchmark table for ``method``: invert rates, reduce the basis (``reduced``), normalize.

    Reduction and normalization use every machine of the table, as the paper does (§5.2.1): the benchmarks
    of machines without run times are known, and weights of different cases stay comparable.
    """
    if method not in METHODS:
        raise RankError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    times = table.times()
    columns, reduction = table.columns, None
    if method == "reduced":
        reduction = reduce_basis(times, columns, threshold=threshold, keep=keep)
        times = times[:, [columns.index(name) for name in reduction.kept]]
        columns = reduction.kept
    matrix = normalize_columns(times)
    matrix.setflags(write=False)
    return RankingDesign(method, table.machines, tuple(columns), matrix, reduction)


# --- Fitting weights (Eq. 3, Eqs. 5-6) -------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class WeightFit:
    """Weights w of the normalized benchmarks fitted to the run times of some machines."""

    method: str
    columns: tuple[str, ...]
    weights: np.ndarray
    machines: tuple[str, ...]  # the machines fitted
    gamma: float | None = None  # linear programming: the largest |Mw - P| / P on those machines

    def predict(self, rows: np.ndarray) -> np.ndarray:
        return rows @ self.weights


def least_squares_weights(matrix: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """w minimizing ``||P - M w||_2`` (Eq. 3); M must have full column rank (checked by the caller)."""
    weights, *_ = np.linalg.lstsq(matrix, seconds, rcond=None)
    return weights


def _gamma_program(relative: np.ndarray) -> tuple[np.ndarray, float]:
    """Stage 1: minimize gamma with ``1 - gamma <= A w <= 1 + gamma``, w >= 0 (A = M / P row-wise)."""
    n, b = relative.shape
    cost = np.r_[np.zeros(b), 1.0]
    bound = np.block([[relative, -np.ones((n, 1))], [-relative, -np.ones((n, 1))]])
    limit = np.r_[np.ones(n), -np.ones(n)]
    result = linprog(cost, A_ub=bound, b_ub=limit, bounds=(0, None), method="highs")
    if result.status != 0:
        raise RankError(f"the linear program failed: {result.message}")
    return result.x[:b], float(result.x[b])


def linear_program_gamma(matrix: np.ndarray, seconds: np.ndarray) -> float:
    """The smallest tolerance gamma for which non-negative weights meet Eqs. 5-6 on every machine."""
    scale = seconds.max()
    return _gamma_program(matrix / (seconds / scale)[:, None])[1]


def linear_program_weights(matrix: np.ndarray, seconds: np.ndarray) -> tuple[np.ndarray, float]:
    """Non-negative w with ``P (1 - gamma) <= M w <= P (1 + gamma)`` for the smallest gamma (Eqs. 5-6).

    The paper prints the two inequalities with their directions swapped (as printed they contradict each
    other for gamma > 0); this is the intended band.  The minimal gamma rarely fixes w, so a second program
    picks, among the weights that reach it, those with the smallest sum of relative errors.

    Returns
    -------
    (weights, gamma)
        gamma is the largest relative error of the returned weights.
    """
    scale = seconds.max()
    relative = matrix / (seconds / scale)[:, None]
    weights, gamma = _gamma_program(relative)
    n, b = relative.shape
    cost = np.r_[np.zeros(b), np.ones(n)]
    bound = np.block([[relative, -np.eye(n)], [-relative, -np.eye(n)]])
    limit = np.r_[np.ones(n), -np.ones(n)]
    bounds = [(0, None)] * b + [(0, gamma * (1 + 1e-7) + 1e-9)] * n
    second = linprog(cost, A_ub=bound, b_ub=limit, bounds=bounds, method="highs")
    if second.status == 0:
        weights = second.x[:b]
    weights = weights * scale
    gamma = float(np.max(np.abs(matrix @ weights - seconds) / seconds))
    return weights, gamma


def fit_weights(design: RankingDesign, machines: Sequence[str], seconds: np.ndarray, *,
                location: str | None = None, what: str = "") -> WeightFit:
    """Fit the weights of ``design.method`` to the run times of ``machines``.

    Raises
    ------
    RankError
        Fewer machines than benchmarks (the paper's ``n >= b``), or, for least squares, benchmarks that are
        linearly dependent on these machines (least squares would silently return one of many solutions).
    """
    rows = design.rows(machines)
    n, b = rows.shape
    what = f"{what}: " if what else ""
    if n < b:
        raise RankError(
            f"{what}{n} machine{'s' if n != 1 else ''} with run times for {b} benchmarks "
            f"({', '.join(design.columns)}); fitting weights needs at least as many machines as benchmarks "
            "(n >= b): add run times, choose fewer --columns, or use --method reduced", location=location)
    if design.method == "lp":
        weights, gamma = linear_program_weights(rows, seconds)
        return WeightFit(design.method, design.columns, weights, tuple(machines), gamma)
    rank = np.linalg.matrix_rank(rows)
    if rank < b:
        raise RankError(f"{what}the {b} benchmarks are linearly dependent on these {n} machines (rank {rank}); "
                        "use --method reduced or choose fewer --columns", location=location)
    return WeightFit(design.method, design.columns, least_squares_weights(rows, seconds), tuple(machines))


# --- Evaluating predictions and rankings (§3.3, §3.4) -------------------------------------------------

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


# --- Application-independent rankings (§7) -------------------------------------------------------------

@dataclass(frozen=True)
class CaseInversions:
    """Thresholded inversions of one ranking against the measured run times of one case."""

    application: str
    processors: int
    machines: int
    inversions: int

    @property
    def max_inversions(self) -> int:
        return self.machines * (self.machines - 1) // 2


@dataclass(frozen=True)
class MetricScore:
    """A machine metric (one benchmark or a weighted sum of normalized ones) scored on every case."""

    name: str
    weights: dict[str, float]
    cases: tuple[CaseInversions, ...]

    @property
    def total(self) -> int:
        return sum(case.inversions for case in self.cases)

    @property
    def per_application(self) -> dict[str, int]:
        """Inversions summed over processor counts, per application (the rows of Table 11)."""
        sums: dict[str, int] = {}
        for case in self.cases:
            sums[case.application] = sums.get(case.application, 0) + case.inversions
        return sums


def metric_weights(table: BenchmarkTable, metric: str | Mapping[str, float]) -> np.ndarray:
    """Weight vector over the table's columns for one column name or a ``{column: weight}`` mapping."""
    weights = np.zeros(len(table.columns))
    items = {metric: 1.0} if isinstance(metric, str) else metric
    for name, weight in items.items():
        if weight < 0:
            raise RankError(f"weight of {name!r} is negative; a metric combines non-negative weights")
        weights[table.column_index(name)] = weight
    if not weights.any():
        raise RankError("a metric needs at least one positive weight")
    return weights


def metric_ranking(table: BenchmarkTable, metric: str | Mapping[str, float]) -> tuple[tuple[str, ...], np.ndarray]:
    """Machines fastest first by a metric, with their scores (time form; for one column, rates inverted).

    A rate column ranks the highest rate first, a time column the smallest time first.  A mapping combines
    normalized time-form columns: ``sum(weight * times / max(times))`` (§7.2, Eq. 8 with columns scaled).
    """
    if isinstance(metric, str):
        scores = table.times()[:, table.column_index(metric)]
    else:
        scores = normalize_columns(table.times()) @ metric_weights(table, metric)
    order = np.argsort(scores, kind="stable")
    return tuple(table.machines[i] for i in order), scores


def _score_candidates(table: BenchmarkTable, runtimes: RuntimeTable, weights: np.ndarray, *,
                      alpha: float, beta: float) -> list[list[CaseInversions]]:
    """Inversions of every candidate (columns of ``weights``, b x c) on every case."""
    times = normalize_columns(table.times())
    index = {machine: i for i, machine in enumerate(table.machines)}
    per_candidate: list[list[CaseInversions]] = [[] for _ in range(weights.shape[1])]
    for case in runtimes.cases:
        scores = times[[index[machine] for machine in case.machines]] @ weights
        counts = thresholded_inversions_many(scores, case.seconds, alpha=alpha, beta=beta)
        for candidate, count in enumerate(counts):
            per_candidate[candidate].append(
                CaseInversions(case.application, case.processors, len(case.machines), int(count)))
    return per_candidate


def score_metrics(table: BenchmarkTable, runtimes: RuntimeTable, metrics: Sequence[str | Mapping[str, float]],
                  *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> list[MetricScore]:
    """Table 11: thresholded inversions of the ranking by each metric, per case, against measured times."""
    check_thresholds(alpha, beta)
    runtimes.check_machines(table.machines, table.source)
    if not metrics:
        return []
    weights = np.column_stack([metric_weights(table, metric) for metric in metrics])
    scored = _score_candidates(table, runtimes, weights, alpha=alpha, beta=beta)
    return [MetricScore(metric if isinstance(metric, str) else _metric_name(metric),
                        {table.columns[i]: float(w) for i, w in enumerate(weights[:, k]) if w > 0},
                        tuple(cases))
            for k, (metric, cases) in enumerate(zip(metrics, scored, strict=True))]


def _metric_name(weights: Mapping[str, float]) -> str:
    return " + ".join(f"{weight:g}*{name}" if weight != 1 else name for name, weight in weights.items())


def combined_metric_candidates(columns: Sequence[str], max_terms: int = 2) -> list[dict[str, float]]:
    """Single benchmarks, and sums of up to ``max_terms`` normalized benchmarks with relative weights.

    The first term of a sum has weight 1 and each later term a weight from :data:`COMBINATION_WEIGHTS`
    (0.01 to 100), so that a sum can lean on either term; normalized columns span very different ranges.
    """
    if max_terms < 1:
        raise RankError(f"--search-terms {max_terms} must be at least 1")
    candidates: list[dict[str, float]] = [{name: 1.0} for name in columns]
    for terms in range(2, min(max_terms, len(columns)) + 1):
        for names in itertools.combinations(columns, terms):
            for rest in itertools.product(COMBINATION_WEIGHTS, repeat=terms - 1):
                candidates.append(dict(zip(names, (1.0, *rest), strict=True)))
    return candidates


def search_combined_metric(table: BenchmarkTable, runtimes: RuntimeTable, *, max_terms: int = 2,
                           alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA,
                           representative: bool = True, top: int = 10) -> list[MetricScore]:
    """Search for the application-independent metric with the fewest thresholded inversions (§7).

    Candidates are :func:`combined_metric_candidates` and, if ``representative``, the non-negative linear
    programming weights of each case fitted on all its machines: one application's weights used to rank
    the machines for every application, like the representative application of §7.2 (that application's
    own cases are then scored in sample).

    Returns
    -------
    list of MetricScore
        The ``top`` best, fewest total inversions first (ties: fewer terms, then candidate order).
    """
    check_thresholds(alpha, beta)
    runtimes.check_machines(table.machines, table.source)
    candidates: list[tuple[str, dict[str, float]]] = [
        (_metric_name(weights), weights) for weights in combined_metric_candidates(table.columns, max_terms)]
    if representative:
        design = build_design(table, "lp")
        for case in runtimes.cases:
            try:
                fit = fit_weights(design, case.machines, case.seconds)
            except RankError:
                continue
            weights = {name: float(w) for name, w in zip(design.columns, fit.weights, strict=True) if w > 1e-12}
            if weights:
                candidates.append((f"lp weights of {case.label}", weights))
    matrix = np.column_stack([metric_weights(table, weights) for _, weights in candidates])
    scored = _score_candidates(table, runtimes, matrix, alpha=alpha, beta=beta)
    results = [MetricScore(name, weights, tuple(cases)) for (name, weights), cases in zip(candidates, scored, strict=True)]
    order = sorted(range(len(results)), key=lambda k: (results[k].total, len(results[k].weights), k))
    return [results[k] for k in order[:top]]


# --- Machine profiles of perfeq as benchmarks ---------------------------------------------------------

@dataclass(frozen=True)
class ProfileRanking:
    """Machines ranked by the time perfeq's cost model predicts for one application's counts."""

    machines: tuple[str, ...]  # fastest first
    predicted: tuple[float, ...]  # seconds, sum over costs of count * seconds per unit
    cases: tuple[CaseInversions, ...] = ()
    unmatched: tuple[str, ...] = ()  # machines with run times but no profile
    terms: dict[str, dict[str, float]] = field(default_factory=dict)  # machine -> cost -> seconds

    @property
    def total(self) -> int:
        return sum(case.inversions for case in self.cases)


def rank_profiles(profiles: Mapping[str, Mapping], counts: Mapping[str, float], *,
                  runtimes: RuntimeTable | None = None, alpha: float = DEFAULT_ALPHA,
                  beta: float = DEFAULT_BETA) -> ProfileRanking:
    """Rank machines by predicted time ``sum(counts[c] * costs[c]["value"])`` and score the ranking.

    Parameters
    ----------
    profiles
        Machine name -> parsed ``perfeq-machine`` version 1 profile; only ``format``, ``version`` and
        ``costs[name]["value"]`` (seconds per unit) are read.
    counts
        Cost name -> predicted count of the application (``ops``, ``par``, ``l1``, ``l2``, ``page``,
        ``startup``, ``bytes``, or any cost the profiles have).  A zero count needs no cost.
    runtimes
        Optional measured run times: each case is scored on the machines that have a profile.

    Returns
    -------
    ProfileRanking
    """
    check_thresholds(alpha, beta)
    if not profiles:
        raise RankError("no machine profiles given")
    if not counts:
        raise RankError("no counts given")
    predicted, terms = {}, {}
    for machine, profile in profiles.items():
        costs = profile_costs(machine, profile)
        machine_terms = {}
        for cost, count in counts.items():
            if count == 0:
                continue
            if cost not in costs:
                raise RankError(f"the counts use cost {cost!r}, which this profile lacks; its costs are "
                                f"{', '.join(costs)}", location=machine)
            machine_terms[cost] = count * costs[cost]
        terms[machine] = machine_terms
        predicted[machine] = sum(machine_terms.values())
    names = list(predicted)
    order = sorted(range(len(names)), key=lambda i: (predicted[names[i]], i))
    cases, unmatched = [], []
    if runtimes is not None:
        for case in runtimes.cases:
            keep = [i for i, machine in enumerate(case.machines) if machine in predicted]
            unmatched.extend(machine for machine in case.machines if machine not in predicted)
            if len(keep) < 2:
                continue
            scores = [predicted[case.machines[i]] for i in keep]
            count = thresholded_inversions(scores, case.seconds[keep], alpha=alpha, beta=beta)
            cases.append(CaseInversions(case.application, case.processors, len(keep), count))
    return ProfileRanking(tuple(names[i] for i in order), tuple(predicted[names[i]] for i in order),
                          tuple(cases), tuple(dict.fromkeys(unmatched)), terms)
