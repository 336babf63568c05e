"""perfeq.fitting.ranking: benchmark-weighted prediction and machine ranking (Chen et al.), ``perfeq rank``.

``tables`` reads benchmark, run-time and profile tables; ``weights`` fits benchmark weights per method,
``evaluation`` scores them per case, ``inversions`` counts thresholded inversions, ``metrics`` ranks by
application-independent metrics and ``profiles`` by perfeq's machine profiles; ``commands`` is the
subcommand and ``text`` its tables.  The public functions are importable from this package.
Self-contained: imports no other part of fitting.
"""

from perfeq.fitting.ranking.evaluation import (
    DEFAULT_SUBSET_SIZE,
    CaseResult,
    CrossValidation,
    SubsetRanking,
    Suspect,
    cross_validate,
    evaluate_case,
    evaluate_cases,
    linear_program_suspects,
    rank_random_subsets,
    subset_draws,
)
from perfeq.fitting.ranking.inversions import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    CaseInversions,
    check_thresholds,
    thresholded_inversions,
    thresholded_inversions_many,
)
from perfeq.fitting.ranking.metrics import (
    COMBINATION_WEIGHTS,
    MetricScore,
    combined_metric_candidates,
    metric_ranking,
    metric_weights,
    score_metrics,
    search_combined_metric,
)
from perfeq.fitting.ranking.profiles import ProfileRanking, rank_profiles
from perfeq.fitting.ranking.weights import (
    DEFAULT_CORRELATION,
    METHOD_NAMES,
    METHODS,
    BasisReduction,
    DroppedBenchmark,
    RankingDesign,
    WeightFit,
    build_design,
    fit_weights,
    least_squares_weights,
    linear_program_gamma,
    linear_program_weights,
    normalize_columns,
    reduce_basis,
)

__all__ = [
    "COMBINATION_WEIGHTS",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_CORRELATION",
    "DEFAULT_SUBSET_SIZE",
    "METHODS",
    "METHOD_NAMES",
    "BasisReduction",
    "CaseInversions",
    "CaseResult",
    "CrossValidation",
    "DroppedBenchmark",
    "MetricScore",
    "ProfileRanking",
    "RankingDesign",
    "SubsetRanking",
    "Suspect",
    "WeightFit",
    "build_design",
    "check_thresholds",
    "combined_metric_candidates",
    "cross_validate",
    "evaluate_case",
    "evaluate_cases",
    "fit_weights",
    "least_squares_weights",
    "linear_program_gamma",
    "linear_program_suspects",
    "linear_program_weights",
    "metric_ranking",
    "metric_weights",
    "normalize_columns",
    "rank_profiles",
    "rank_random_subsets",
    "reduce_basis",
    "score_metrics",
    "search_combined_metric",
    "subset_draws",
    "thresholded_inversions",
    "thresholded_inversions_many",
]
