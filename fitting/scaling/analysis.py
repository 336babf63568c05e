"""Statistical scaling models of measured run times (Strohmaier 1997, "Statistical Performance Modeling").

For every (code, system) pair, fits every model t = sum_i delta_i u_i(p) built from one to
``max_terms`` characteristic functions, keeps the models that beat the smaller models they contain
(the paper's Table 2), totals each model over all pairs against the best individual choice
(Table 3) and, on request, fits the joint product model of :mod:`perfeq.fitting.scaling.joint`
(Tables 4-5).  Input is a pandas DataFrame (:func:`analyse_scaling`), so calibration runs can be
analysed without going through a file; :mod:`perfeq.fitting.scaling.report` prints the result.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from perfeq.errors import FitError, UsageError
from perfeq.fitting.scaling.data import ScalingObservations, location, prepare_observations
from perfeq.fitting.scaling.functions import CharacteristicFunction, model_label, parse_functions
from perfeq.fitting.scaling.joint import JointFit, fit_joint_models

# Relative singular-value threshold under which a design is treated as rank deficient.
RANK_TOLERANCE = 1e-10


@dataclass(frozen=True)
class ScalingOptions:
    """What to fit; the defaults follow the paper (two-function models, times scaled by p)."""

    functions: str | tuple[str, ...] | None = None
    max_terms: int = 2
    p_scaling: bool = True
    outlier_factor: float = 10.0
    aggregate: str = "none"
    weighting: str = "none"
    codes: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None
    skip_sparse: bool = False
    joint: bool = False
    reference_system: str | None = None


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


@dataclass(frozen=True, eq=False)
class ScalingReport:
    """Everything the scaling analysis found, ready for :mod:`perfeq.fitting.scaling.report`."""

    observations: ScalingObservations
    functions: tuple[CharacteristicFunction, ...]
    options: ScalingOptions
    individual: IndividualAnalysis | None
    joint: tuple[JointFit, ...] = ()
    notes: tuple[str, ...] = field(default=())


def analyse_scaling(
    frame: pd.DataFrame,
    options: ScalingOptions = ScalingOptions(),
    *,
    work: Mapping[str, float] | None = None,
    peak: Mapping[str, float] | None = None,
    source: str = "<data>",
) -> ScalingReport:
    """Run the whole analysis on a DataFrame of runs.

    Parameters
    ----------
    frame
        Columns ``code, system, p, time`` (seconds), optionally ``n`` (problem size), ``work``,
        ``peak`` and ``line``.  Build it from a runs table with
        :func:`perfeq.fitting.scaling.data.scaling_frame_from_runs`.
    options
        Functions, number of terms, transformations, joint model.
    work, peak
        Operation count per code and peak rate per system for the scale transformation (Eq. 11).
    source
        Name used in error messages (a file name).

    Returns
    -------
    ScalingReport
    """
    observations = prepare_observations(
        frame,
        work=work,
        peak=peak,
        codes=options.codes,
        systems=options.systems,
        p_scaling=options.p_scaling,
        outlier_factor=options.outlier_factor,
        aggregate=options.aggregate,
        weighting=options.weighting,
        source=source,
    )
    return analyse_observations(observations, options)


def analyse_observations(
    observations: ScalingObservations, options: ScalingOptions = ScalingOptions()
) -> ScalingReport:
    """Fit individual (and joint) models to prepared observations."""
    functions = parse_functions(options.functions, with_size=observations.has_size)
    if not 1 <= options.max_terms <= 3:
        raise UsageError(f"--max-terms {options.max_terms}: give 1, 2 or 3")
    notes = list(observations.notes)
    if observations.has_size and not any(f.uses_size for f in functions):
        notes.append("the runs have several problem sizes but no function uses n")
    design = design_matrix(observations, functions)
    pairs_to_fit, pair_notes = check_pairs(
        observations, min(options.max_terms, len(functions)), options.skip_sparse
    )
    notes.extend(pair_notes)
    if not pairs_to_fit and not options.joint:
        raise FitError(
            f"{observations.source}: no (code, system) pair has enough runs for individual fits; "
            "add runs or fit only the joint model (--joint)"
        )
    individual = (
        fit_individual_models(observations, design, pairs_to_fit, options.max_terms) if pairs_to_fit else None
    )
    joint: tuple[JointFit, ...] = ()
    if options.joint:
        joint = fit_joint_models(
            observations,
            design,
            functions,
            terms=min(options.max_terms, len(functions)),
            reference_system=options.reference_system,
            individual_totals=_totals_by_functions(individual),
        )
        notes.extend(note for fit in joint for note in fit.notes)
    return ScalingReport(
        observations=observations,
        functions=functions,
        options=options,
        individual=individual,
        joint=joint,
        notes=tuple(notes),
    )


def design_matrix(
    observations: ScalingObservations, functions: Sequence[CharacteristicFunction]
) -> pd.DataFrame:
    """One column per function: u_i(p, n) * p_factor, labelled by the function's text."""
    frame = observations.frame
    p = frame["p"].to_numpy(dtype=float)
    n = frame["n"].to_numpy(dtype=float)
    columns = {}
    for function in functions:
        if function.uses_size and not observations.has_size:
            raise UsageError(
                f"--functions: '{function.label}' uses n, but the runs have no problem size; "
                "pass --size-param NAME (runs CSV) or give an n column (results table)"
            )
        values = function(p, n) * frame["p_factor"].to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = frame.loc[bad].iloc[0]
            size = f", n={row['n']:g}" if function.uses_size else ""
            raise UsageError(
                f"{location(observations.source, row['line'])}: --functions: '{function.label}' "
                f"is not finite at p={row['p']:g}{size}"
            )
        columns[function.label] = values
    return pd.DataFrame(columns, index=frame.index)


def check_pairs(
    observations: ScalingObservations, terms: int, skip_sparse: bool
) -> tuple[list[tuple[str, str]], list[str]]:
    """The (code, system) pairs that support individual fits of ``terms`` functions.

    Raises FitError for all-equal times, and for pairs with one processor count or too few runs
    unless ``skip_sparse`` (then those pairs are left to the joint model and named in the notes).
    """
    frame = observations.frame
    source = observations.source
    if frame["time"].nunique() == 1 and len(frame) > 1:
        raise FitError(
            f"{source}: all {len(frame)} times are equal ({frame['time'].iloc[0]:g} s); "
            "a scaling fit needs times that change with p"
        )
    needed = terms + 1
    pairs, notes = [], []
    for (code, system), group in frame.groupby(["code", "system"], sort=True):
        where = f"{location(source, group['line'].iloc[0])}: {code} on {system}"
        points = group[["p", "n"]].drop_duplicates()
        problem, advice = None, "add runs, lower --max-terms, or pass --skip-sparse"
        if len(points) < 2:
            problem = (
                f"all {len(group)} run(s) use p={group['p'].iloc[0]:g}; fitting how time scales "
                "needs at least two processor counts"
            )
            advice = "add runs with another processor count, or pass --skip-sparse"
        elif len(group) < needed:
            problem = (
                f"{len(group)} runs are fewer than the {needed} needed to fit {terms}-function "
                "models with an error estimate"
            )
        elif group["time"].nunique() == 1:
            raise FitError(
                f"{where}: all {len(group)} times are equal ({group['time'].iloc[0]:g} s); "
                "leave the pair out with --codes/--systems"
            )
        if problem is None:
            pairs.append((code, system))
        elif skip_sparse:
            notes.append(f"{code} on {system}: no individual fits ({problem})")
        else:
            raise FitError(f"{where}: {problem}; {advice}")
    return pairs, notes


def fit_individual_models(
    observations: ScalingObservations,
    design: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    max_terms: int,
) -> IndividualAnalysis:
    """Fit every model of 1..max_terms functions to every pair; build Tables 2 and 3."""
    frame = observations.frame
    labels = list(design.columns)
    models = [
        combo
        for k in range(1, min(max_terms, len(labels)) + 1)
        for combo in itertools.combinations(labels, k)
    ]
    analyses = []
    for code, system in pairs:
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
        analyses.append(
            PairAnalysis(
                code=code, system=system, n_obs=len(y), sst=sst, fits=tuple(fits.values()), best=best
            )
        )
    sst = sum(pair.sst for pair in analyses)
    totals = {}
    for functions in models:
        fitted = [fit for pair in analyses for fit in pair.fits if fit.functions == functions]
        sse = sum(fit.sse for fit in fitted)
        dof = sum(fit.n_obs - len(functions) for fit in fitted)
        totals[functions] = ModelTotal(
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


def _totals_by_functions(individual: IndividualAnalysis | None) -> dict[tuple[str, ...], tuple[float, int]]:
    if individual is None:
        return {}
    return {total.functions: (total.sse, total.n_parameters) for total in individual.totals if total.complete}
