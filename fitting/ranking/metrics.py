"""Application-independent machine rankings (Chen et al. §7): machines ranked by one benchmark or a
weighted sum of normalized benchmarks, scored by thresholded inversions on every case (Table 11),
and the search for the combined metric with the fewest.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from perfeq.errors import RankError
from perfeq.fitting.ranking.inversions import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    CaseInversions,
    check_thresholds,
    thresholded_inversions_many,
)
from perfeq.fitting.ranking.tables import BenchmarkTable, RuntimeTable
from perfeq.fitting.ranking.weights import build_design, fit_weights, normalize_columns

# Relative weights tried for the second and later terms of a combined metric (the first term has weight 1;
# scaling every weight leaves a ranking and its thresholded inversions unchanged).
COMBINATION_WEIGHTS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


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
