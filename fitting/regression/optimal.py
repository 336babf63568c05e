"""Which calibration runs to add: sequential optimal design for one prediction (``perfeq calibrate --for``).

The fitted costs beta have covariance C (the profile's); a run with counts x and predicted time t adds
x x' w to the information C^-1, with w = 1 / (sigma^2 t^2) under the fit's relative weighting (WLS with
weights 1/t^2, fit.py) and w = 1 / sigma^2 unweighted.  The variance of the predicted mean at the
target counts x0 is x0' C x0.  Two criteria choose among candidate runs, one run at a time (greedy,
with Sherman-Morrison updates of C; the same candidate may be chosen again: a repetition):

* ``target`` (c-optimality, the default): the run that lowers x0' C x0 most for what it costs
  (its seconds and one of the places: :func:`choose_runs`).
  This tightens the interval of that one prediction, and nothing else.
* ``D`` (D-optimality): the run that raises log det C^-1 most for what it costs (the volume of the
  costs' joint confidence ellipsoid shrinks most): good for every prediction alike, best for none.

Both are locally optimal designs: w needs t, which comes from the current profile, so they are
meant to be used in turn with fits (calibrate, fit, calibrate --for, fit, ...).  Costs the profile
holds from probes are not fitted from runs: they are left out of C here, and their variance stays.
The run-to-run error (sigma) and the between-application error of a new program are floors no
choice of runs lowers; :func:`choose_runs` reports what it can lower.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CRITERIA = ("target", "D")


@dataclass(frozen=True)
class Chosen:
    """One chosen run: the candidate's index, and the target's variance (x0' C x0) once it is added."""

    index: int
    seconds: float
    variance: float


def choose_runs(cov: np.ndarray, candidates: np.ndarray, weights: np.ndarray, seconds: np.ndarray,
                target: np.ndarray, *, budget: float, max_runs: int, criterion: str = "target",
                min_gain: float = 1e-3, per_run: float | None = None) -> list[Chosen]:
    """Runs chosen greedily among ``candidates`` (rows of counts, the columns of ``cov``).

    ``weights`` are each candidate's w (see the module), ``seconds`` what each costs to run; the
    chosen runs' seconds add up to at most ``budget``, and there are at most ``max_runs``.  The choice
    stops early when the best run would lower the target's variance by less than ``min_gain`` of what
    it was at the start (``target``), or raise log det C^-1 by less than ``min_gain`` (``D``).

    A run is charged its seconds plus ``per_run`` (default ``budget / max_runs``), the price of one of
    the ``max_runs`` places: by seconds alone the cheapest run (milliseconds, mostly start-up) would
    fill every place and leave the budget unspent; by places alone the longest would spend it.
    """
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}")
    scale = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    scale[scale == 0] = 1.0
    c = cov / np.outer(scale, scale)  # in units of each cost's standard error: well scaled
    x = candidates * scale
    x0 = target * scale
    start = float(x0 @ c @ x0)
    chosen: list[Chosen] = []
    left = float(budget)
    charge = seconds + (budget / max_runs if per_run is None else per_run)
    while len(chosen) < max_runs:
        u = x @ c  # rows: C x_i
        leverage = np.einsum("ij,ij->i", u, x)  # x_i' C x_i
        denominator = 1.0 + weights * leverage
        if criterion == "target":
            gain = weights * (u @ x0) ** 2 / denominator  # the drop of x0' C x0 (Sherman-Morrison)
            enough = min_gain * start
        else:
            gain = np.log(denominator)  # the rise of log det C^-1 (matrix determinant lemma)
            enough = min_gain
        affordable = seconds <= left
        if not affordable.any():
            break
        score = np.where(affordable, gain / np.maximum(charge, 1e-9), -np.inf)
        best = int(np.argmax(score))
        if gain[best] <= enough:
            break
        ub = u[best]
        c = c - np.outer(ub, ub) * (weights[best] / denominator[best])
        left -= float(seconds[best])
        chosen.append(Chosen(best, float(seconds[best]), float(x0 @ c @ x0)))
    return chosen


def target_variance(cov: np.ndarray, target: np.ndarray) -> float:
    """x0' C x0: the variance of the predicted mean at counts ``target``."""
    return max(float(target @ cov @ target), 0.0)

