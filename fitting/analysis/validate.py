"""Leave-one-application-out validation of the machine fit (paper section 5: Figs. 2-5 and Table 1).

For each application of a runs CSV, the machine costs are fitted on the runs of all the other
applications (fit.py) and its own runs are predicted from their counts (the CSV holds them) with
prediction intervals (predict.py): the paper's test of whether costs fitted on some programs
generalize to a program the fit never saw.  Its text table, files and plots: ``validate_report``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from perfeq.errors import FitError, UsageError
from perfeq.fitting.costs import COSTS
from perfeq.fitting.regression.costsets import select_costs
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.profile import MachineProfile
from perfeq.fitting.regression.runs import Run


@dataclass(frozen=True)
class HeldOutRun:
    """One run of the held-out application: measured, predicted, the prediction interval, the error."""

    app: str
    params: str
    procs: int
    threads: int
    rep: int
    measured_s: float
    predicted_s: float
    low_s: float | None
    high_s: float | None
    error: float  # (predicted - measured) / measured, the paper's error
    inside: bool | None  # measured time within the prediction interval


@dataclass(frozen=True)
class Summary:
    """Table 1 for one application (or ``all``): accuracy of its predicted runs."""

    app: str
    runs: int
    sigma_s: float  # root mean square of predicted - measured, seconds
    mean_s: float  # mean measured time
    cov: float  # sigma / mean
    average_error: float  # mean |error|
    mean_error: float  # mean signed error (bias)
    max_error: float  # largest |error|
    coverage: float | None  # share of runs inside their prediction interval
    fitted_on: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    between_app_sigma: float | None = None  # between-application error in this app's intervals


@dataclass(frozen=True)
class Floors:
    """In-sample mean |error| of the same costs, i.e. with nothing held out: where the held-out error comes from.

    Over the runs of the applications that were predicted (a fold that could not be fitted leaves
    its application out here too), averaged over runs as the held-out error is.  ``pooled``: one fit
    over all those runs.  A held-out error well above it is the applications' differences: each
    one's costs are not what the others' imply (more calibration applications with the same traits
    help).  ``own``: each application fitted on its own runs alone; None when fewer than half of the
    applications can be (``own_skipped``: those whose runs cannot separate the costs they exercise).
    Between ``own`` and ``pooled`` lie the cost columns (no one set of costs prices every
    application alike) and the per-application fits' extra free costs, which alone make ``own``
    somewhat smaller.  Below ``own``: repetition noise and effects no column follows.
    """

    pooled: float | None
    own: float | None
    own_skipped: tuple[str, ...] = ()


def error_floors(runs: Sequence[Run], costs: Sequence[str] | None, weighting: str, intercept: bool) -> Floors:
    """The in-sample errors of :class:`Floors` for these runs and costs (fitted as the folds are)."""

    def in_sample(subset: Sequence[Run], names: Sequence[str] | None) -> list[float]:
        profile = fit_machine(
            subset, names, weighting=weighting, intercept=intercept, drop_empty=True, between_app=False
        )
        return [abs(run.fitted_s - run.time_s) / run.time_s for run in profile.runs]

    try:
        pooled = float(np.mean(in_sample(runs, costs)))
    except FitError:
        pooled = None
    own, skipped = [], []
    apps = list(dict.fromkeys(run.app for run in runs))
    for app in apps:
        try:  # drop_empty leaves out the costs this application never exercises
            own.extend(in_sample([run for run in runs if run.app == app], costs))
        except FitError:  # fewer runs than costs, or costs its runs cannot separate
            skipped.append(app)
    fitted_enough = own and 2 * len(skipped) <= len(apps)
    return Floors(pooled, float(np.mean(own)) if fitted_enough else None, tuple(skipped))


@dataclass
class Validation:
    """Every held-out run, Table 1 per application and overall, and the applications left out."""

    level: float
    weighting: str
    intercept: bool
    costs: list[str] | None
    runs: list[HeldOutRun]
    summaries: list[Summary]
    overall: Summary
    skipped: dict[str, str] = field(default_factory=dict)
    between_app: bool = True  # prediction intervals include the between-application error
    floors: Floors | None = None  # in-sample errors of the same costs: what the held-out error is above
    chosen: bool = False  # each fold chose its costs (``costs`` is then the set most folds chose)

    def to_dict(self) -> dict:
        return {
            "level": self.level,
            "weighting": self.weighting,
            "intercept": self.intercept,
            "costs": self.costs,
            "costs_chosen_per_fold": self.chosen,
            "between_app": self.between_app,
            "summary": [asdict(s) for s in (*self.summaries, self.overall)],
            "skipped": self.skipped,
            "floors": asdict(self.floors) if self.floors else None,
            "runs": [asdict(r) for r in self.runs],
        }


def cross_validate(
    runs: Sequence[Run],
    costs: Sequence[str] | None = None,
    weighting: str = "relative",
    intercept: bool = False,
    level: float = 0.95,
    between_app: bool = True,
    choose: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Validation:
    """Leave each application out in turn: fit on the others, predict its runs.

    Parameters
    ----------
    runs : sequence of Run
        Measured runs of at least two applications, with their counts.
    costs, weighting, intercept :
        As for :func:`fit_machine`; a cost that is zero in every training run of a fold is left out
        of that fold (and noted).
    level : float
        Level of the prediction intervals; their coverage is reported.
    choose : bool
        Choose the cost set in each fold as ``perfeq fit`` does by default (``costsets.select_costs``)
        from the training applications alone, so the held-out application takes no part in the
        choice either; ``costs`` is then ignored.  The set each fold chose is in its summary's notes.
    progress : callable, optional
        Told, after each fold, which application was predicted (``perfeq.progress.Progress.step``).
    between_app : bool
        Prediction intervals for the held-out application include the between-application error,
        estimated (``fit.between_application_error``) by leaving each *training* application out in
        turn: the held-out application takes no part in it, so the coverage is an honest check.
        False: the fit's own error only (what intervals for a program in the fit would hold).

    Raises
    ------
    UsageError
        Fewer than two applications.
    FitError
        No application could be predicted (every fold's fit failed); the first failure is given.
    """
    apps = _applications(runs, costs)
    held: list[HeldOutRun] = []
    summaries: list[Summary] = []
    skipped: dict[str, str] = {}
    chosen: list[tuple[str, ...]] = []
    for app in apps:
        training = [run for run in runs if run.app != app]
        try:
            fold_costs = select_costs(training, intercept=intercept, weighting=weighting).chosen if choose else costs
            profile = fit_machine(training, fold_costs, weighting=weighting,
                                  intercept=intercept, drop_empty=True, level=level, between_app=between_app)
        except FitError as exc:
            skipped[app] = str(exc)
            if progress:
                progress(f"{app}: not predicted")
            continue
        predicted, notes = _predict_held_out(profile, [run for run in runs if run.app == app], app, level)
        if choose:
            chosen.append(tuple(fold_costs))
            notes.insert(0, f"costs chosen on the other applications: {','.join(fold_costs)}")
        held.extend(predicted)
        others = tuple(a for a in apps if a != app)
        tau = profile.between_app.sigma if between_app and profile.between_app else None
        summaries.append(replace(summarize(app, predicted, others, tuple(notes)), between_app_sigma=tau))
        if progress:
            progress(f"{app}: mean |error| {100 * summaries[-1].average_error:.1f} %")
    if not held:
        first = next(iter(skipped.items()))
        raise FitError(f"no application could be predicted; leaving out {first[0]}: {first[1]}")
    if choose:  # the floors of the set most folds chose
        costs = max(dict.fromkeys(chosen), key=chosen.count)
    floors = error_floors([run for run in runs if run.app not in skipped], costs, weighting, intercept)
    return Validation(level, weighting, intercept, list(costs) if costs else None, held, summaries,
                      summarize("all", held), skipped, between_app, floors, chosen=choose)


def _applications(runs: Sequence[Run], costs: Sequence[str] | None) -> list[str]:
    """The applications of ``runs`` in order, after checking the cost names; at least two."""
    unknown = [name for name in costs or () if name not in COSTS]
    if unknown:
        raise FitError(f"unknown cost '{unknown[0]}'; accepted: {', '.join(COSTS)}")
    apps = list(dict.fromkeys(run.app for run in runs))
    if len(apps) < 2:
        raise UsageError(
            f"validate needs runs of at least two applications (found {', '.join(apps) or 'none'}): "
            "each one is predicted from a fit on the others"
        )
    return apps


def _predict_held_out(
    profile: MachineProfile, mine: Sequence[Run], app: str, level: float
) -> tuple[list[HeldOutRun], list[str]]:
    """The runs of held-out ``app`` predicted by a fit on the others, and the fit's and predictions' notes."""
    notes = list(dict.fromkeys(profile.warnings))
    predicted = []
    for run in mine:
        priced = {name: run.counts[name] for name in profile.names if name in run.counts}
        prediction = predict(profile, priced, level=level, application=app)
        notes.extend(note for note in prediction.warnings if note not in notes)
        low, high = prediction.prediction_interval or (None, None)
        inside = None if low is None else bool(low <= run.time_s <= high)
        predicted.append(
            HeldOutRun(
                run.app,
                run.params,
                run.procs,
                run.threads,
                run.rep,
                run.time_s,
                prediction.time_s,
                low,
                high,
                (prediction.time_s - run.time_s) / run.time_s,
                inside,
            )
        )
    return predicted, notes


def summarize(
    app: str, runs: Sequence[HeldOutRun], fitted_on: tuple[str, ...] = (), warnings: tuple[str, ...] = ()
) -> Summary:
    """Table 1's columns for ``runs``.

    sigma is sqrt(SSE / n) of the errors in seconds.  The paper divides by n - 3 (its three fitted
    costs); held-out runs took no part in the fit, so no degrees of freedom are lost to it.
    """
    measured = np.array([r.measured_s for r in runs])
    errors = np.array([r.error for r in runs])
    residuals = np.array([r.predicted_s - r.measured_s for r in runs])
    sigma = float(np.sqrt(np.mean(residuals**2)))
    mean = float(measured.mean())
    inside = [r.inside for r in runs if r.inside is not None]
    return Summary(
        app,
        len(runs),
        sigma,
        mean,
        sigma / mean,
        float(np.mean(np.abs(errors))),
        float(np.mean(errors)),
        float(np.max(np.abs(errors))),
        float(np.mean(inside)) if inside else None,
        fitted_on,
        warnings,
    )
