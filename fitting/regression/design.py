"""The labelled design matrix chi (one row per run, one column per cost) and its sanity checks.

Built from the runs CSV and used by fit.py.  statsmodels fits singular designs through the
pseudo-inverse and only warns, so too few runs, empty columns and exact collinearity are refused here.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.stats.outliers_influence import variance_inflation_factor

from perfeq.errors import FitError
from perfeq.fitting.costs import COSTS, INTERCEPT, canonical_order
from perfeq.fitting.regression.runs import Run

# Thresholds for collinearity warnings (Belsley, Kuh & Welsch: a scaled condition number above
# ~30 shows a strong dependency; VIF above 10 is the usual rule of thumb).
CONDITION_WARNING = 100.0
VIF_WARNING = 10.0
_RANK_TOLERANCE = 1e-10  # smallest/largest singular value of the column-scaled design


@dataclass(frozen=True)
class Design:
    """The regression inputs: ``matrix`` (runs x costs, labelled) and the measured ``time_s``."""

    matrix: pd.DataFrame  # columns in the project's cost order, then "const" when requested
    time_s: pd.Series
    runs: tuple[Run, ...]
    dropped: tuple[str, ...]  # all-zero cost columns left out (only with drop_empty=True)
    warnings: tuple[str, ...]

    @property
    def costs(self) -> tuple[str, ...]:
        return tuple(self.matrix.columns)


def build_design(
    runs: Sequence[Run],
    costs: Sequence[str] | None = None,
    *,
    intercept: bool = False,
    drop_empty: bool = False,
) -> Design:
    """Build and check the design matrix.

    Parameters
    ----------
    runs : sequence of Run
        The calibration runs; all must have counts for every requested cost.
    costs : sequence of str, optional
        Cost columns to fit, a subset of ``COSTS``.  Default: every count column the runs have.
    intercept : bool
        Add the ``const`` column (1 per run), a fixed per-run start-up cost.  Never added otherwise.
    drop_empty : bool
        Leave out cost columns that are zero in every run (with a warning) instead of refusing.

    Raises
    ------
    FitError
        Unknown or missing cost, an all-zero column, not more runs than costs, or columns that are
        exactly linearly dependent.
    """
    runs = tuple(runs)
    if not runs:
        raise FitError("no runs to fit")
    available = tuple(runs[0].counts)
    chosen = _choose_costs(available, costs)
    for run in runs:
        missing = [cost for cost in chosen if cost not in run.counts]
        if missing:
            raise FitError(f"run {run.label} has no '{missing[0]}' count", location=run.where or None)
    matrix = pd.DataFrame(
        [[run.counts[cost] for cost in chosen] for run in runs], columns=list(chosen), dtype=float
    )
    notes: list[str] = []
    empty = [cost for cost in chosen if not matrix[cost].any()]
    if empty and not drop_empty:
        raise FitError(
            f"cost column '{empty[0]}' is zero in every run, so its cost cannot be estimated; "
            f"leave it out with --costs or pass --drop-empty"
        )
    if empty:
        matrix = matrix.drop(columns=empty)
        notes.append(f"dropped cost column(s) {', '.join(empty)}: zero in every run")
    if intercept:
        matrix[INTERCEPT] = 1.0
    if matrix.shape[1] == 0:
        raise FitError("no cost column left to fit")
    if len(runs) <= matrix.shape[1]:
        raise FitError(
            f"{len(runs)} runs for {matrix.shape[1]} costs ({', '.join(matrix.columns)}); need at least "
            f"{matrix.shape[1] + 1} runs to estimate the costs and their error (several per cost is better)"
        )
    _check_rank(matrix)
    time_s = pd.Series([run.time_s for run in runs], name="time_s", dtype=float)
    return Design(matrix=matrix, time_s=time_s, runs=runs, dropped=tuple(empty), warnings=tuple(notes))


def collinearity(matrix: pd.DataFrame, weights: np.ndarray | None = None) -> tuple[float, dict[str, float]]:
    """Condition number and variance inflation factors of the (weighted) design.

    Both are computed on the matrix the regression actually solves, ``sqrt(w) * chi``, with columns
    scaled to unit length: unscaled, the condition number would mostly measure units (counts ~1e9
    next to transitions ~10), not collinearity.  Without a ``const`` column the VIFs are uncentered
    (the design has no intercept), which is the right measure for a regression through the origin.
    """
    values = matrix.to_numpy(dtype=float)
    if weights is not None:
        values = values * np.sqrt(np.asarray(weights, dtype=float))[:, None]
    scaled = values / np.linalg.norm(values, axis=0)
    condition = float(np.linalg.cond(scaled))
    if scaled.shape[1] == 1:
        return condition, {matrix.columns[0]: 1.0}
    with np.errstate(divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns about conditioning; we report it ourselves
        vif = {name: _vif(scaled, i) for i, name in enumerate(matrix.columns)}
    return condition, vif


def _vif(scaled: np.ndarray, index: int) -> float:
    """Uncentered VIF of one column.  statsmodels >= 0.15 centers columns unless told not to; centering
    is wrong here: under relative weighting the weighted columns sum (times beta) to almost exactly 1,
    so centered they look collinear when they are not."""
    try:
        value = variance_inflation_factor(scaled, index, standardize=False)
    except TypeError:  # statsmodels 0.14: no standardize argument, never centers
        value = variance_inflation_factor(scaled, index)
    return float(value)


def collinearity_warnings(condition: float, vif: dict[str, float]) -> list[str]:
    """One-line warnings for a large condition number and large VIFs."""
    notes = []
    if condition > CONDITION_WARNING:
        notes.append(
            f"condition number {condition:.3g} > {CONDITION_WARNING:g}: cost columns are nearly collinear; "
            "vary problem size and process count more independently, or fit fewer costs"
        )
    high = [f"{name} ({value:.3g})" for name, value in vif.items() if value > VIF_WARNING]
    if high:
        notes.append(
            f"variance inflation factor > {VIF_WARNING:g} for {', '.join(high)}: their costs are poorly separated"
        )
    return notes


def _choose_costs(available: tuple[str, ...], costs: Sequence[str] | None) -> tuple[str, ...]:
    if costs is None:
        return canonical_order(available)
    for cost in costs:
        if cost == INTERCEPT:
            raise FitError(
                "'const' is not a count column; ask for the start-up term with intercept (--intercept)"
            )
        if cost not in COSTS:
            raise FitError(f"unknown cost '{cost}'; accepted: {', '.join(COSTS)}")
        if cost not in available:
            raise FitError(
                f"the runs have no '{cost}' counts; their count columns are {', '.join(available)}"
            )
    if len(set(costs)) != len(costs):
        raise FitError("a cost is named twice in the cost list")
    if not costs:
        raise FitError("empty cost list; name at least one of " + ", ".join(available))
    return canonical_order(list(costs))


def _check_rank(matrix: pd.DataFrame) -> None:
    values = matrix.to_numpy(dtype=float)
    scaled = values / np.linalg.norm(values, axis=0)
    _, singular, vt = np.linalg.svd(scaled, full_matrices=False)
    if singular[-1] > _RANK_TOLERANCE * singular[0]:
        return
    null_vector = vt[-1]
    involved = [name for name, weight in zip(matrix.columns, null_vector, strict=True) if abs(weight) > 1e-6]
    raise FitError(
        f"cost columns {', '.join(involved)} are linearly dependent in these runs (one is a fixed "
        "combination of the others), so their costs cannot be separated; fit fewer costs with --costs "
        "or add runs where they vary independently"
    )
