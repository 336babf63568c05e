"""Thresholded inversions (Chen et al. §3.4.2): how many machine pairs a ranking orders wrongly.

The score every ranking of :mod:`perfeq.fitting.ranking` is judged by, against measured run times,
ignoring differences within the thresholds alpha (run times) and beta (predictions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfeq.errors import RankError

DEFAULT_ALPHA = 0.01  # run-time variance: differences up to 1 % are insignificant (§3.4.2)
DEFAULT_BETA = 0.001  # benchmark / prediction variance: up to 0.1 %


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
