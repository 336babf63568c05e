"""Machine costs beta by multiple linear regression of run times on counts (Clement & Quinn, sec. 4).

Takes runs (runs.py), builds the design (design.py), fits with statsmodels OLS/WLS in column-scaled
units and returns a MachineProfile (profile.py) with costs, covariance and fit quality in seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
import statsmodels.api as sm

from perfeq.errors import FitError
from perfeq.fitting.costs import MESSAGE_COSTS, MISS_COSTS, canonical_order, cost_spec
from perfeq.fitting.regression.design import Design, build_design, collinearity, collinearity_warnings
from perfeq.fitting.regression.predict import count_vector
from perfeq.fitting.regression.profile import (
    WEIGHTINGS,
    BetweenApp,
    CostEstimate,
    MachineProfile,
    RunSummary,
    now_iso,
)
from perfeq.fitting.regression.runs import Run

SIGNIFICANCE = 0.05  # costs with a larger p-value are flagged as not significantly different from zero


def fit_machine(
    runs: Sequence[Run],
    costs: Sequence[str] | None = None,
    weighting: str = "relative",
    intercept: bool = False,
    *,
    drop_empty: bool = False,
    level: float = 0.95,
    between_app: bool = True,
    fixed: Mapping[str, CostEstimate] | None = None,
) -> MachineProfile:
    """Fit the machine costs beta in ``t = chi @ beta + e`` from calibration runs.

    Parameters
    ----------
    runs : sequence of Run
        Measured runs with their counts (see ``read_runs``).
    costs : sequence of str, optional
        Costs to fit (names from ``perfeq.fitting.costs.COSTS``); default all count columns.
    weighting : {"relative", "none"}
        ``"none"``: ordinary least squares, every run's error has the same variance sigma^2 (seconds^2).
        ``"relative"``: weighted least squares with weights 1/t^2, i.e. the error of a run is
        proportional to its time, Var(e_i) = sigma^2 t_i^2, and the fit minimises squared *relative*
        errors.  Calibration times span orders of magnitude (ms to minutes); unweighted, the longest
        runs would decide every cost and the short runs (where start-up and per-message costs show)
        would hardly count.  The weights use the fitted time of a first weighted pass, not the
        measured time itself (see ``_relative_weights``).
    intercept : bool
        Add the ``const`` cost (seconds per run, e.g. MPI_Init).  No intercept is ever added otherwise.
    drop_empty : bool
        Drop cost columns that are zero in every run (with a warning) instead of refusing.
    level : float
        Confidence level of the per-cost intervals.
    between_app : bool
        With runs of two or more applications, also estimate the between-application error
        (:func:`between_application_error`), which prediction intervals for an application the fit
        never saw add to the fit's own error.
    fixed : mapping of cost name to CostEstimate, optional
        Costs known from elsewhere (a machine probe: ``perfeq fit --probes``), not fitted: their part
        of every run's time, sum_k chi_k beta_k, is an offset subtracted before the regression, and
        the profile holds them with their own source and standard error (the probes' spread),
        uncorrelated with the fitted costs, so prediction intervals carry both.  A cost both given
        here and in ``costs`` is taken from here.

    Returns
    -------
    MachineProfile
        ``source="fit"``; costs in seconds per count (fitted on scaled columns, see ``_solve``) with
        standard errors, intervals and p-values, their covariance, sigma, degrees of freedom, R^2,
        condition number and VIFs.

    Raises
    ------
    FitError
        Bad weighting or level, or a design the data cannot support (see ``build_design``).
    """
    if weighting not in WEIGHTINGS:
        raise FitError(f"weighting '{weighting}' unknown; accepted: {', '.join(WEIGHTINGS)}")
    if not 0.0 < level < 1.0:
        raise FitError(f"confidence level {level} is not between 0 and 1 (e.g. 0.95)")
    fixed = dict(fixed or {})
    free = costs
    if fixed and runs:  # the costs to fit: those asked for (default every count column), less the fixed
        free = [name for name in (runs[0].counts if costs is None else costs) if name not in fixed]
    design = build_design(runs, free, intercept=intercept, drop_empty=drop_empty)
    time_s = design.time_s.to_numpy()
    offset = _fixed_seconds(design.runs, fixed)
    notes = list(design.warnings)
    weights = (_relative_weights(design, time_s, offset, notes) if weighting == "relative"
               else np.ones_like(time_s))
    result, scale = _solve(design.matrix, time_s - offset, weights)
    profile = _with_fixed(_profile(design, result, scale, weights, weighting, level, notes, offset), fixed)
    if not between_app:
        return profile
    return _with_between_app(profile, runs, costs, weighting, intercept, fixed)


def _fixed_seconds(runs: Sequence[Run], fixed: Mapping[str, CostEstimate]) -> np.ndarray:
    """Seconds of each run priced by the ``fixed`` costs (a count the run lacks counts 0)."""
    return np.array([sum(run.counts.get(name, 0.0) * cost.value for name, cost in fixed.items())
                     for run in runs], dtype=float)


def _with_fixed(profile: MachineProfile, fixed: Mapping[str, CostEstimate]) -> MachineProfile:
    """``profile`` holding the ``fixed`` costs too, in the project's order, their variance their
    standard error squared and no covariance with the fitted costs (they were measured apart)."""
    if not fixed:
        return profile
    costs = {**profile.costs, **fixed}
    names = canonical_order(list(costs))
    variance = {name: (costs[name].stderr or 0.0) ** 2 for name in fixed}
    old = profile.covariance or {}
    covariance = {row: {col: (old[row][col] if row in old and col in old else
                              variance.get(row, 0.0) if row == col else 0.0) for col in names} for row in names}
    return replace(profile, costs={name: costs[name] for name in names}, covariance=covariance)


def _relative_weights(design: Design, time_s: np.ndarray, offset: np.ndarray, notes: list[str]) -> np.ndarray:
    """Weights 1/t_hat^2 from the fitted time t_hat of a first pass weighted by 1/t_measured^2.

    Weighting by the noisy measurement itself biases the costs low by about 2 sigma^2 (8 % at
    sigma = 20 %); weighting by the fitted time does not.  A run fitted <= 0 s keeps its measured time.
    ``offset``: each run's seconds priced by fixed costs (part of t_hat, not fitted).
    """
    first, scale = _solve(design.matrix, time_s - offset, 1.0 / time_s**2)
    fitted = design.matrix.to_numpy() @ (first.params.to_numpy() / scale) + offset
    usable = fitted > 0
    if not usable.all():
        notes.append(
            f"{(~usable).sum()} run(s) fitted <= 0 s in the first pass; weighted by their measured time"
        )
    return 1.0 / np.where(usable, fitted, time_s) ** 2


def _with_between_app(
    profile: MachineProfile, runs: Sequence[Run], costs: Sequence[str] | None, weighting: str, intercept: bool,
    fixed: Mapping[str, CostEstimate] | None = None,
) -> MachineProfile:
    """``profile`` with its between-application error, or with the reason it has none as a warning."""
    estimate, reason = between_application_error(runs, costs, weighting=weighting, intercept=intercept,
                                                 fixed=fixed)
    if estimate is not None:
        return replace(profile, between_app=estimate)
    if len(profile.apps) > 1:  # with one application there is nothing to estimate it from; predict says so
        return replace(profile, warnings=(*profile.warnings, reason))
    return profile


def between_application_error(
    runs: Sequence[Run],
    costs: Sequence[str] | None = None,
    weighting: str = "relative",
    intercept: bool = False,
    fixed: Mapping[str, CostEstimate] | None = None,
) -> tuple[BetweenApp | None, str]:
    """Estimate the error of predicting an application the fit never saw, beyond the fit's intervals.

    Each application k of ``runs`` is left out in turn, the costs are fitted on the others, and k's
    runs are predicted: errors r_kj = (t_hat - t) / t_hat under ``relative`` weighting (seconds,
    t_hat - t, under ``none``; positive when the prediction is too high).  With m_k their mean over
    k's n_k runs, s_w^2 their pooled variance within applications, and v_k the mean variance the
    held-out fit itself attributes to t_hat (x' C x, relative to t_hat^2 under ``relative``):

        tau^2 = max(0, mean over k of (m_k^2 - s_w^2 / n_k - v_k))

    the part of the squared held-out bias that neither run-to-run noise nor the uncertainty of the
    costs explains.  m_k is not centered: a bias shared by all applications is an error too.  With K
    applications, tau^2 is given K - 1 degrees of freedom (the m_k are leave-one-out errors of the
    same runs, not independent draws).  Prediction intervals for a new application use
    Var = x' C x + (sigma^2 + tau^2) t_hat^2 (``relative``), see predict.py.  Each fold drops cost
    columns that are zero in its training runs, as ``cross_validate`` does.

    Returns the estimate, or None and the reason when there are fewer than two applications or fewer
    than two folds could be fitted.  ``fixed`` costs are held in every fold (see ``fit_machine``).
    """
    apps = list(dict.fromkeys(run.app for run in runs))
    if len(apps) < 2:
        return None, (
            f"runs of one application ({', '.join(apps)}): the between-application error cannot be "
            "estimated, so prediction intervals for other programs hold only the fit's own error"
        )
    residuals: dict[str, np.ndarray] = {}
    fit_variance: dict[str, float] = {}
    failed: list[str] = []
    for app in apps:
        try:
            fold = fit_machine(
                [run for run in runs if run.app != app],
                costs,
                weighting=weighting,
                intercept=intercept,
                drop_empty=True,
                between_app=False,
                fixed=fixed,
            )
        except FitError:
            failed.append(app)
            continue
        errors = _held_out_errors(fold, [run for run in runs if run.app == app], weighting == "relative")
        if errors is None:
            failed.append(app)
            continue
        residuals[app], fit_variance[app] = errors
    if len(residuals) < 2:
        return None, (
            f"the between-application error could not be estimated: only {len(residuals)} of {len(apps)} "
            f"applications could be predicted from a fit on the others (failed: {', '.join(failed)})"
        )
    return _between_app_estimate(residuals, fit_variance), ""


def _held_out_errors(
    fold: MachineProfile, mine: Sequence[Run], relative: bool
) -> tuple[np.ndarray, float] | None:
    """The errors r_kj of one held-out application's runs predicted by ``fold``, and its mean v_k.

    None when ``relative`` and no run is predicted a positive time.
    """
    beta, cov = fold.beta, fold.covariance_matrix()
    x = np.array([count_vector(fold, run.counts) for run in mine])
    t_hat = x @ beta
    t = np.array([run.time_s for run in mine])
    var = np.einsum("ij,jk,ik->i", x, cov, x)
    if not relative:
        return t_hat - t, float(np.mean(var))
    usable = t_hat > 0
    if not usable.any():
        return None
    return (t_hat[usable] - t[usable]) / t_hat[usable], float(np.mean(var[usable] / t_hat[usable] ** 2))


def _between_app_estimate(residuals: dict[str, np.ndarray], fit_variance: dict[str, float]) -> BetweenApp:
    """tau from the held-out errors of two or more applications (see ``between_application_error``)."""
    n_runs = sum(len(r) for r in residuals.values())
    means = {app: float(np.mean(r)) for app, r in residuals.items()}
    if n_runs > len(residuals):
        within = sum(float(np.sum((r - r.mean()) ** 2)) for r in residuals.values()) / (
            n_runs - len(residuals)
        )
    else:  # one run per application: the within-application noise is not separable from the bias
        within = 0.0
    excess = [means[app] ** 2 - within / len(r) - fit_variance[app] for app, r in residuals.items()]
    tau2 = max(0.0, float(np.mean(excess)))
    return BetweenApp(sigma=float(np.sqrt(tau2)), df=len(residuals) - 1, app_bias=means)


def _solve(matrix: pd.DataFrame, time_s: np.ndarray, weights: np.ndarray):
    """WLS (OLS when all weights are 1) on columns scaled to unit RMS in the weighted design.

    Counts ~1e9 next to transitions ~10 would otherwise make the normal equations and the
    pseudo-inverse's cut-off meaningless: with chi = Z D, D = diag(s), the fit gives gamma for Z, and
    beta = D^-1 gamma, Cov(beta) = D^-1 Cov(gamma) D^-1 (done by ``_profile``).
    """
    scale = np.sqrt(np.mean(matrix.to_numpy() ** 2 * weights[:, None], axis=0))
    scaled = matrix / scale
    endog = pd.Series(time_s, index=matrix.index, name="time_s")
    model = sm.WLS(endog, scaled, weights=weights, missing="raise")
    return model.fit(), scale


def _profile(
    design: Design,
    result,
    scale: np.ndarray,
    weights: np.ndarray,
    weighting: str,
    level: float,
    notes: list[str],
    offset: np.ndarray,
) -> MachineProfile:
    """The fitted costs as a profile; ``offset``: each run's seconds priced by fixed costs (added
    back to the fitted times)."""
    names = list(design.matrix.columns)
    params = result.params.to_numpy() / scale
    stderr = result.bse.to_numpy() / scale
    interval = result.conf_int(alpha=1.0 - level).to_numpy() / scale[:, None]
    covariance = result.cov_params().to_numpy() / np.outer(scale, scale)
    p_values = result.pvalues.to_numpy()
    condition, vif = collinearity(design.matrix, weights)
    notes.extend(collinearity_warnings(condition, vif))
    notes.extend(filter(None, map(_cost_note, names, params, p_values)))
    notes.extend(_run_notes(design, names))
    hosts = sorted({run.host for run in design.runs if run.host})
    return MachineProfile(
        costs={
            name: CostEstimate(float(v), float(se), float(low), float(high), float(p))
            for name, v, se, (low, high), p in zip(names, params, stderr, interval, p_values, strict=True)
        },
        source="fit",
        host=", ".join(hosts),
        created=now_iso(),
        level=level,
        weighting=weighting,
        covariance={
            row: {col: float(covariance[i, j]) for j, col in enumerate(names)} for i, row in enumerate(names)
        },
        df_resid=int(round(result.df_resid)),
        sigma=float(np.sqrt(result.scale)),
        rsquared=float(result.rsquared),
        rsquared_kind="centered" if result.model.k_constant else "uncentered",
        condition_number=condition,
        vif=vif,
        n_runs=len(design.runs),
        runs=_run_summaries(design, result, weights, offset),
        calibration_range={
            name: (float(design.matrix[name].min()), float(design.matrix[name].max())) for name in names
        },
        miss_shares=_miss_shares(design.runs) or None,
        warnings=tuple(notes),
    )


def _miss_shares(runs) -> dict[str, float]:
    """The largest share of loads that missed each cache level (and of loads that faulted a page)
    over the runs whose CSV has those counts: how far the calibration's working sets went."""
    shares = {}
    for key in MISS_COSTS:
        ratios = [run.counts[key] / run.counts["loads"] for run in runs
                  if key in run.counts and run.counts.get("loads", 0) > 0]
        if ratios:
            shares[key] = float(max(ratios))
    return shares


def _cost_note(name: str, value: float, p_value: float) -> str | None:
    """What is doubtful about one fitted cost: negative, not significant, or implausible; else None."""
    spec = cost_spec(name)
    shown = f"{value / spec.unit_seconds:.4g} {spec.display_unit}"
    if value < 0 and p_value <= SIGNIFICANCE:
        return (
            f"cost '{name}' is significantly negative ({shown}, p = {p_value:.2g}): a machine cost cannot "
            "be; its column is probably collinear with another or its counts are inaccurate"
        )
    if value < 0:
        return (
            f"cost '{name}' is negative ({shown}) but not significantly different from zero "
            f"(p = {p_value:.2g}); the runs do not show this cost, consider leaving it out"
        )
    if p_value > SIGNIFICANCE:
        return (
            f"cost '{name}' ({shown}) is not significantly different from zero (p = {p_value:.2g}); "
            "the runs hardly exercise it"
        )
    if spec.plausible and np.isfinite(value) and not spec.plausible[0] <= value <= spec.plausible[1]:
        low, high = (bound / spec.unit_seconds for bound in spec.plausible)
        return (
            f"cost '{name}' ({shown}) is outside what it costs on real machines ({low:.3g}-{high:.3g} "
            f"{spec.display_unit}): it has probably absorbed another effect that its column follows"
        )
    return None


def _run_notes(design: Design, names: list[str]) -> list[str]:
    """What the runs cannot show: message costs from runs on at most 2 processes, several hosts."""
    notes = []
    messages = [name for name in names if name in MESSAGE_COSTS]
    most = max((run.procs for run in design.runs), default=0)
    if messages and most <= 2:
        notes.append(
            f"the runs use at most {most} processes, so {' and '.join(messages)} rest on runs where messages "
            "and the sharing of one node by busy processes come and go together: they can take up the latter; "
            "calibrate with more processes, across nodes, before predicting communication-bound runs"
        )
    hosts = sorted({run.host for run in design.runs if run.host})
    if len(hosts) > 1:
        notes.append(
            f"runs come from several hosts ({', '.join(hosts)}); a machine profile describes one machine"
        )
    return notes


def _run_summaries(design: Design, result, weights: np.ndarray, offset: np.ndarray) -> tuple[RunSummary, ...]:
    """Fitted time (with the fixed costs' ``offset``) and internally studentized residual
    r_i = sqrt(w_i) e_i / (sigma sqrt(1 - h_ii))."""
    weighted = result.model.wexog
    q, _ = np.linalg.qr(weighted)
    leverage = np.clip(np.sum(q**2, axis=1), 0.0, 1.0 - 1e-12)
    pearson = np.sqrt(weights) * result.resid.to_numpy()
    std_resid = pearson / (np.sqrt(result.scale) * np.sqrt(1.0 - leverage))
    fitted = result.fittedvalues.to_numpy() + offset
    return tuple(
        RunSummary(run.app, run.params, run.procs, run.threads, run.rep, run.time_s, float(fit), float(r),
                   run.digest)
        for run, fit, r in zip(design.runs, fitted, std_resid, strict=True)
    )
