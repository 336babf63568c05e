"""Individual scaling models (Strohmaier 1997, Tables 2-3): every model t = sum_i delta_i u_i(p) of one
to ``max_terms`` characteristic functions fitted to each (code, system) pair by least squares.

A model is kept when it beats the smaller models it contains; each model is also totalled over all
pairs against the best individual choice.  Called by :func:`perfeq.fitting.scaling.analysis.analyse_observations`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from perfeq.errors import FitError
from perfeq.fitting.scaling.functions import model_label
from perfeq.fitting.scaling.observations import ScalingObservations

# Relative singular-value threshold under which a design is treated as rank deficient.
RANK_TOLERANCE = 1e-10

@dataclass(frozen=True)
class ModelFit:
    """One model fitted to one (code, system) pair on the transformed scale.

    ``delta`` are the paper's delta_i (Eq. 3) in units of time * peak / work; ``sst`` is the
    uncentred total sum of squares sum(y^2) (no-intercept models, as in the paper; with relative
    weighting all sums of squares are of weighted values, so SST is the number of runs), so
    ``r_squared`` = 1 - SSE/SST.  ``kept`` is true when the model's residual mean square
    SSE/(n-k) is below that of every model with one function fewer that it contains.
    """

    code: str
    system: str
    functions: tuple[str, ...]
    n_obs: int
    delta: tuple[float, ...]
    stderr: tuple[float, ...]
    sse: float
    sst: float
    r_squared: float
    residual_mean_square: float
    kept: bool = True

    @property
    def label(self) -> str:
        return model_label(self.functions)


@dataclass(frozen=True)
class PairAnalysis:
    """All models fitted to one (code, system) pair, and the best kept one (lowest SSE/(n-k))."""

    code: str
    system: str
    n_obs: int
    sst: float
    fits: tuple[ModelFit, ...]
    best: ModelFit

    def kept(self) -> list[ModelFit]:
        """Kept models, best first."""
        return sorted((fit for fit in self.fits if fit.kept), key=_rank_key)


@dataclass(frozen=True)
class ModelTotal:
    """One model fitted to every pair separately, summed (a row of the paper's Table 3).

    ``complete`` is false when the model could not be fitted to some pair (its sums then cover
    fewer pairs); ``kept`` needs a complete model whose summed SSE/(n-k) beats its submodels.
    """

    functions: tuple[str, ...]
    sse: float
    sst: float
    r_squared: float
    residual_mean_square: float
    n_pairs: int
    n_parameters: int
    complete: bool
    kept: bool

    @property
    def label(self) -> str:
        return model_label(self.functions)


@dataclass(frozen=True)
class IndividualAnalysis:
    """Tables 2 and 3: per-pair fits, per-model totals and the total of the per-pair best models."""

    pairs: tuple[PairAnalysis, ...]
    totals: tuple[ModelTotal, ...]
    best_sse: float
    best_r_squared: float
    best_parameters: int
    sst: float

    def total(self, functions: Sequence[str]) -> ModelTotal | None:
        for total in self.totals:
            if total.functions == tuple(functions):
                return total
        return None

    def ranked_totals(self) -> list[ModelTotal]:
        """Complete, kept totals, best first (by residual mean square, then SSE)."""
        return sorted((t for t in self.totals if t.complete and t.kept), key=_rank_key)


def fit_individual_models(
    observations: ScalingObservations,
    design: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    max_terms: int,
) -> IndividualAnalysis:
    """Fit every model of 1..max_terms functions to every pair; build Tables 2 and 3."""
    labels = list(design.columns)
    models = [
        combo
        for k in range(1, min(max_terms, len(labels)) + 1)
        for combo in itertools.combinations(labels, k)
    ]
    analyses = [_fit_pair(observations, design, code, system, models) for code, system in pairs]
    sst = sum(pair.sst for pair in analyses)
    totals = {functions: _model_total(analyses, functions, sst) for functions in models}
    kept_totals = _mark_kept({functions: total for functions, total in totals.items() if total.complete})
    best_sse = sum(pair.best.sse for pair in analyses)
    return IndividualAnalysis(
        pairs=tuple(analyses),
        totals=tuple(kept_totals.get(functions, totals[functions]) for functions in models),
        best_sse=best_sse,
        best_r_squared=1.0 - best_sse / sst,
        best_parameters=sum(len(pair.best.functions) for pair in analyses),
        sst=sst,
    )


def _fit_pair(
    observations: ScalingObservations,
    design: pd.DataFrame,
    code: str,
    system: str,
    models: Sequence[tuple[str, ...]],
) -> PairAnalysis:
    """Every model fitted to one (code, system) pair (those with a full-rank design), best kept one marked."""
    frame = observations.frame
    rows = (frame["code"] == code) & (frame["system"] == system)
    weight = frame.loc[rows, "weight"].to_numpy(dtype=float)
    y = frame.loc[rows, "response"].to_numpy(dtype=float) * weight
    sst = float(y @ y)
    fits = {}
    for functions in models:
        fitted = least_squares_fit(
            design.loc[rows, list(functions)].to_numpy(dtype=float) * weight[:, None], y
        )
        if fitted is not None:
            delta, stderr, sse = fitted
            fits[functions] = ModelFit(
                code=code,
                system=system,
                functions=functions,
                n_obs=len(y),
                delta=tuple(map(float, delta)),
                stderr=tuple(map(float, stderr)),
                sse=sse,
                sst=sst,
                r_squared=1.0 - sse / sst,
                residual_mean_square=sse / (len(y) - len(functions)),
            )
    fits = _mark_kept(fits)
    if not fits:
        raise FitError(
            f"{observations.source}: {code} on {system}: no model can be fitted (every design is rank deficient)"
        )
    best = min((fit for fit in fits.values() if fit.kept), key=_rank_key)
    return PairAnalysis(code=code, system=system, n_obs=len(y), sst=sst, fits=tuple(fits.values()), best=best)


def _model_total(analyses: Sequence[PairAnalysis], functions: tuple[str, ...], sst: float) -> ModelTotal:
    """One model's fits to every pair summed (``kept`` is decided by ``_mark_kept`` afterwards)."""
    fitted = [fit for pair in analyses for fit in pair.fits if fit.functions == functions]
    sse = sum(fit.sse for fit in fitted)
    dof = sum(fit.n_obs - len(functions) for fit in fitted)
    return ModelTotal(
        functions=functions,
        sse=sse,
        sst=sst,
        r_squared=1.0 - sse / sst,
        residual_mean_square=sse / dof if dof > 0 else float("nan"),
        n_pairs=len(fitted),
        n_parameters=len(functions) * len(fitted),
        complete=len(fitted) == len(analyses),
        kept=False,
    )


def least_squares_fit(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """OLS without intercept: (coefficients, standard errors, SSE), or None if X is rank deficient.

    Columns are scaled to unit RMS before the SVD so that functions of very different size (n^3/p
    next to 1) do not look singular; needs more rows than columns.
    """
    rows, k = X.shape
    if rows <= k:
        return None
    scale = np.sqrt(np.mean(X**2, axis=0))
    if not np.all(scale > 0):
        return None
    U, singular, Vt = np.linalg.svd(X / scale, full_matrices=False)
    if singular[-1] <= singular[0] * RANK_TOLERANCE:
        return None
    coefficients = Vt.T @ ((U.T @ y) / singular)
    residual = y - (X / scale) @ coefficients
    sse = float(residual @ residual)
    covariance = (Vt.T / singular**2) @ Vt * (sse / (rows - k))
    return coefficients / scale, np.sqrt(np.diag(covariance)) / scale, sse


def _mark_kept(
    items: dict[tuple[str, ...], ModelFit | ModelTotal],
) -> dict[tuple[str, ...], ModelFit | ModelTotal]:
    """Keep a model if its SSE/(n-k) is below that of every fitted model with one function fewer in it."""
    marked = {}
    for functions, item in items.items():
        smaller = [
            items[sub] for sub in itertools.combinations(functions, len(functions) - 1) if sub in items
        ]
        kept = len(functions) == 1 or all(
            item.residual_mean_square < other.residual_mean_square for other in smaller
        )
        marked[functions] = replace(item, kept=kept)
    return marked


def _rank_key(item: ModelFit | ModelTotal) -> tuple[float, int, float]:
    return (item.residual_mean_square, len(item.functions), item.sse)
