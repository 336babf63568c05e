"""The output of a leave-one-application-out validation (validate.py): Table 1 as text, the files
``perfeq validate`` writes (table1.txt/.csv, predictions.csv, validation.json) and the plots of the
paper's Figs. 2-5.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import numpy as np

from perfeq.files import write_atomic
from perfeq.fitting.analysis.figures import new_figure, save_figure
from perfeq.fitting.analysis.validate import Validation
from perfeq.fitting.regression.profile import error_text

ERROR_MARKS = (20.0, 40.0, 60.0)  # the paper: over 90 % of runs within 40 % error, all within 60 %


# ---- printing ---------------------------------------------------------------------------------------
def _costs_text(result: Validation) -> str:
    if result.chosen:
        return (", costs chosen in each fold from its training applications (most often "
                f"{','.join(result.costs or ())})")
    return f", costs {','.join(result.costs)}" if result.costs else ""


def format_validation(result: Validation) -> str:
    """Table 1 as text, with the coverage of the prediction intervals and the skipped applications."""
    percent = f"{100 * result.level:g}%"
    lines = [
        f"leave-one-application-out validation ({result.weighting} weighting"
        f"{', with const' if result.intercept else ''}"
        f"{_costs_text(result)}): each application predicted from a fit on the others"
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
