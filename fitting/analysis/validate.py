"""Leave-one-application-out validation of the machine fit (paper section 5: Figs. 2-5 and Table 1).

For each application of a runs CSV, the machine costs are fitted on the runs of all the other
applications (fit.py) and its own runs are predicted from their counts (the CSV holds them) with
prediction intervals (predict.py): the paper's test of whether costs fitted on some programs
generalize to a program the fit never saw.  Writes a text table, CSVs, JSON and plots.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from perfeq.errors import FitError, UsageError
from perfeq.files import write_atomic
from perfeq.fitting.analysis.figures import new_figure, save_figure
from perfeq.fitting.costs import COSTS
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.profile import error_text
from perfeq.fitting.regression.runs import Run

ERROR_MARKS = (20.0, 40.0, 60.0)  # the paper: over 90 % of runs within 40 % error, all within 60 %


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

    def to_dict(self) -> dict:
        return {
            "level": self.level,
            "weighting": self.weighting,
            "intercept": self.intercept,
            "costs": self.costs,
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
    unknown = [name for name in costs or () if name not in COSTS]
    if unknown:
        raise FitError(f"unknown cost '{unknown[0]}'; accepted: {', '.join(COSTS)}")
    apps = list(dict.fromkeys(run.app for run in runs))
    if len(apps) < 2:
        raise UsageError(
            f"validate needs runs of at least two applications (found {', '.join(apps) or 'none'}): "
            "each one is predicted from a fit on the others"
        )
    held: list[HeldOutRun] = []
    summaries: list[Summary] = []
    skipped: dict[str, str] = {}
    for app in apps:
        training = [run for run in runs if run.app != app]
        try:
            profile = fit_machine(
                training,
                costs,
                weighting=weighting,
                intercept=intercept,
                drop_empty=True,
                level=level,
                between_app=between_app,
            )
        except FitError as exc:
            skipped[app] = str(exc)
            continue
        notes = list(dict.fromkeys(profile.warnings))
        predicted = []
        for run in (run for run in runs if run.app == app):
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
        held.extend(predicted)
        others = tuple(a for a in apps if a != app)
        tau = profile.between_app.sigma if between_app and profile.between_app else None
        summaries.append(replace(summarize(app, predicted, others, tuple(notes)), between_app_sigma=tau))
    if not held:
        first = next(iter(skipped.items()))
        raise FitError(f"no application could be predicted; leaving out {first[0]}: {first[1]}")
    return Validation(
        level,
        weighting,
        intercept,
        list(costs) if costs else None,
        held,
        summaries,
        summarize("all", held),
        skipped,
        between_app,
        error_floors([run for run in runs if run.app not in skipped], costs, weighting, intercept),
    )


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


# ---- printing ---------------------------------------------------------------------------------------
def format_validation(result: Validation) -> str:
    """Table 1 as text, with the coverage of the prediction intervals and the skipped applications."""
    percent = f"{100 * result.level:g}%"
    lines = [
        f"leave-one-application-out validation ({result.weighting} weighting"
        f"{', with const' if result.intercept else ''}"
        f"{', costs ' + ','.join(result.costs) if result.costs else ''}): each application predicted "
        "from a fit on the others"
    ]
    if result.between_app:
        lines.append(
            f"{percent} prediction intervals for a new application: the fit's own error plus the "
            "between-application error, estimated by leaving each training application out in turn"
        )
    else:
        lines.append(
            f"{percent} prediction intervals: the fit's own error only (no between-application error)"
        )
    lines.append(
        f"{'application':<14} {'runs':>5} {'sigma (s)':>10} {'mean t (s)':>11} {'C.O.V.':>7} "
        f"{'avg |error|':>11} {'bias':>7} {'max |error|':>11} {'in ' + percent + ' PI':>10}"
    )
    for row in (*result.summaries, result.overall):
        coverage = "-" if row.coverage is None else f"{100 * row.coverage:.0f} %"
        lines.append(
            f"{row.app:<14} {row.runs:>5} {row.sigma_s:>10.4g} {row.mean_s:>11.4g} {row.cov:>7.3f} "
            f"{100 * row.average_error:>9.1f} % {100 * row.mean_error:>+5.0f} % "
            f"{100 * row.max_error:>9.1f} % {coverage:>10}"
        )
    errors = np.abs([r.error for r in result.runs]) * 100
    lines.append(
        "runs within " + ", ".join(f"{m:g} % error: {np.mean(errors <= m):.0%}" for m in ERROR_MARKS)
    )
    lines.extend(f"not predicted: {app}: {reason}" for app, reason in result.skipped.items())
    floors = result.floors
    if floors and floors.pooled is not None:
        if floors.own is None:
            own = "; fitted to each application alone: not available, too few applications' runs separate their costs"
        else:
            left = f", {', '.join(floors.own_skipped)} could not be" if floors.own_skipped else ""
            own = f" and {100 * floors.own:.1f} % (each application fitted alone{left})"
        lines.append(
            f"with nothing held out the same costs leave {100 * floors.pooled:.1f} % (one fit over every "
            f"predicted application){own}: held-out error above the first is the applications' differences "
            "(more calibration applications with the same traits help), between the two the cost columns "
            "and the per-application fits' extra costs, below the second noise"
        )
    if result.between_app:
        taus = [
            f"{row.app} {error_text(row.between_app_sigma, result.weighting)}"
            for row in result.summaries
            if row.between_app_sigma is not None
        ]
        if taus:
            lines.append("between-application error in each application's intervals: " + ", ".join(taus))
    for row in result.summaries:
        lines.extend(f"note: {row.app}: {note}" for note in row.warnings)
    return "\n".join(lines)


# ---- files ------------------------------------------------------------------------------------------
def write_validation(result: Validation, folder: str | Path) -> list[Path]:
    """``table1.txt``, ``table1.csv``, ``predictions.csv``, ``validation.json``, ``errors.png`` (Fig. 5)
    and ``app-NAME.png`` per application (Figs. 2-4) in ``folder`` (created)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        ("table1.txt", format_validation(result) + "\n"),
        ("table1.csv", _summary_csv(result)),
        ("predictions.csv", _runs_csv(result)),
        ("validation.json", json.dumps(result.to_dict(), indent=1) + "\n"),
    ):
        write_atomic(out / name, text)
        written.append(out / name)
    for summary in result.summaries:
        written.append(plot_application(result, summary.app, out / f"app-{_slug(summary.app)}.png"))
    written.append(plot_errors(result, out / "errors.png"))
    return written


def _summary_csv(result: Validation) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        (
            "app",
            "runs",
            "sigma_s",
            "mean_s",
            "cov",
            "average_error_percent",
            "mean_error_percent",
            "max_error_percent",
            "coverage_percent",
            "fitted_on",
        )
    )
    for row in (*result.summaries, result.overall):
        writer.writerow(
            (
                row.app,
                row.runs,
                _g(row.sigma_s),
                _g(row.mean_s),
                _g(row.cov),
                _g(100 * row.average_error),
                _g(100 * row.mean_error),
                _g(100 * row.max_error),
                "" if row.coverage is None else _g(100 * row.coverage),
                ";".join(row.fitted_on),
            )
        )
    return buffer.getvalue()


def _runs_csv(result: Validation) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        (
            "app",
            "params",
            "procs",
            "threads",
            "rep",
            "measured_s",
            "predicted_s",
            "pi_low_s",
            "pi_high_s",
            "error_percent",
            "inside",
        )
    )
    for r in result.runs:
        writer.writerow(
            (
                r.app,
                r.params,
                r.procs,
                r.threads,
                r.rep,
                _g(r.measured_s),
                _g(r.predicted_s),
                "" if r.low_s is None else _g(r.low_s),
                "" if r.high_s is None else _g(r.high_s),
                _g(100 * r.error),
                "" if r.inside is None else int(r.inside),
            )
        )
    return buffer.getvalue()


def _g(value: float) -> str:
    return f"{value:.6g}"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "app"


# ---- plots ------------------------------------------------------------------------------------------
def plot_application(result: Validation, app: str, path: str | Path) -> Path:
    """Figs. 2-4: predicted (with prediction intervals) and measured time against P, per problem size."""
    runs = [r for r in result.runs if r.app == app]
    figure = new_figure(width=7.0, height=4.8)
    ax = figure.add_subplot()
    groups = list(dict.fromkeys(r.params for r in runs))
    colors = [f"C{i % 10}" for i in range(len(groups))]
    for params, color in zip(groups, colors, strict=True):
        mine = [r for r in runs if r.params == params]
        ax.scatter(
            [r.procs for r in mine],
            [r.measured_s for r in mine],
            color=color,
            marker="o",
            s=22,
            label=f"{params}: measured",
        )
        procs = sorted({r.procs for r in mine})
        first = [next(r for r in mine if r.procs == p) for p in procs]
        shifted = np.array(procs, dtype=float) * 1.06
        predicted = np.array([r.predicted_s for r in first])
        if all(r.low_s is not None for r in first):
            errors = np.array(
                [[r.predicted_s - r.low_s for r in first], [r.high_s - r.predicted_s for r in first]]
            )
            ax.errorbar(
                shifted,
                predicted,
                yerr=errors,
                color=color,
                fmt="s--",
                markersize=5,
                capsize=4,
                markerfacecolor="white",
                linewidth=1,
                label=f"{params}: predicted, {100 * result.level:g}% PI",
            )
        else:
            ax.plot(
                shifted, predicted, "s--", color=color, markerfacecolor="white", label=f"{params}: predicted"
            )
    times = [t for r in runs for t in (r.measured_s, r.predicted_s)]
    if min(times) > 0 and max(times) / min(times) > 30:
        ax.set_yscale("log")
    procs = sorted({r.procs for r in runs})
    ax.set_xscale("log", base=2)
    ax.set_xticks(procs, [str(p) for p in procs])
    ax.set_xlabel("MPI processes P")
    ax.set_ylabel("run time (s)")
    summary = next(s for s in result.summaries if s.app == app)
    ax.set_title(
        f"{app}: predicted from a fit on {len(summary.fitted_on)} other applications\n"
        f"average |error| {100 * summary.average_error:.0f} %, C.O.V. {summary.cov:.2f}",
        fontsize="medium",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="x-small", loc="best")
    return save_figure(figure, path)


def plot_errors(result: Validation, path: str | Path) -> Path:
    """Fig. 5: histogram of the relative errors per application, and the share of runs within an error."""
    figure = new_figure(width=11.0, height=4.4)
    left, right = figure.subplots(1, 2)
    apps = [s.app for s in result.summaries]
    errors = {app: [100 * r.error for r in result.runs if r.app == app] for app in apps}
    everything = np.concatenate([np.asarray(e) for e in errors.values()])
    span = max(10.0, float(np.nanmax(np.abs(everything))))
    edges = (
        np.linspace(-span, span, 25)
        if span <= 200
        else np.linspace(np.min(everything), np.max(everything), 25)
    )
    left.hist([errors[app] for app in apps], bins=edges, stacked=True, label=apps)
    left.axvline(0, color="grey", linewidth=0.8)
    left.set_xlabel("relative error (predicted - measured) / measured (%)")
    left.set_ylabel("runs")
    left.set_title("relative error of each held-out run", fontsize="medium")
    left.legend(fontsize="small")
    magnitude = np.sort(np.abs(everything))
    right.step(magnitude, np.arange(1, len(magnitude) + 1) / len(magnitude) * 100, where="post")
    for mark in ERROR_MARKS:
        share = 100 * float(np.mean(magnitude <= mark))
        right.axvline(mark, color="grey", linestyle=":", linewidth=0.8)
        right.annotate(
            f"{share:.0f} % within {mark:g} %",
            (mark, share),
            textcoords="offset points",
            xytext=(4, -12),
            fontsize="small",
        )
    right.set_xlabel("|relative error| (%)")
    right.set_ylabel("runs with at most this error (%)")
    right.set_ylim(0, 102)
    right.set_xlim(
        0, max(ERROR_MARKS[-1] * 1.1, float(magnitude[-1]) * 1.05 if math.isfinite(magnitude[-1]) else 0)
    )
    right.set_title("cumulative share of runs", fontsize="medium")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    figure.suptitle(
        f"Prediction errors, {len(everything)} runs of {len(apps)} applications "
        "(each predicted from a fit on the others)"
    )
    return save_figure(figure, path)
