"""Benchmark weights of Chen et al. (§5): the benchmark matrix M preprocessed per method, and weights w
with M w ~ P fitted by least squares (Eq. 3), after basis reduction (§5.2), or by linear programming
(Eqs. 5-6).

Takes a BenchmarkTable (``tables``); ``evaluation`` fits and scores these weights per case.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from perfeq.errors import RankError
from perfeq.fitting.ranking.tables import BenchmarkTable

METHODS = ("lsq", "reduced", "lp")
METHOD_NAMES = {
    "lsq": "least squares, full basis (Eq. 3)",
    "reduced": "least squares after basis reduction (§5.2)",
    "lp": "linear programming, non-negative weights (Eqs. 5-6)",
}
DEFAULT_CORRELATION = 0.8  # |r| above which two benchmarks are redundant (§5.2)


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
