"""Residual plots of a fitted machine profile: normal QQ plot and residuals against fitted time.

Reads only the profile's per-run summary (profile.py), so the plots can be redrawn from the JSON.
Written as PNG with matplotlib's Agg canvas (no display, no pyplot global state).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from scipy import stats

from perfeq.errors import FitError
from perfeq.fitting.regression.profile import MachineProfile

QQ_NAME = "residuals_qq.png"
FITTED_NAME = "residuals_vs_fitted.png"


def write_residual_plots(profile: MachineProfile, directory: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write the QQ plot and the residuals-vs-fitted plot into ``directory`` (created if missing).

    Returns
    -------
    tuple of Path
        ``(qq_plot, residuals_vs_fitted)``.

    Raises
    ------
    FitError
        The profile was not fitted (a manual profile has no residuals).
    """
    if profile.source != "fit" or not profile.runs:
        raise FitError("no residuals to plot: the machine profile was not fitted from runs")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    return _qq_plot(profile, folder / QQ_NAME), _fitted_plot(profile, folder / FITTED_NAME)


def _qq_plot(profile: MachineProfile, path: Path) -> Path:
    residuals = np.array([run.std_resid for run in profile.runs])
    (theoretical, ordered), (slope, intercept, _) = stats.probplot(residuals, dist="norm")
    figure = Figure(figsize=(5.0, 5.0), layout="constrained")
    axes = figure.add_subplot()
    axes.scatter(theoretical, ordered, s=14)
    line = np.array([theoretical.min(), theoretical.max()])
    axes.plot(line, line, color="grey", linestyle="--", label="N(0, 1): y = x")
    axes.plot(line, intercept + slope * line, color="tab:orange", linewidth=1, label="least-squares line")
    axes.set_xlabel("theoretical quantile of N(0, 1) (dimensionless)")
    axes.set_ylabel("standardized residual (dimensionless)")
    axes.set_title(f"Normal QQ plot, {len(residuals)} runs ({profile.weighting} weighting)")
    axes.legend(loc="upper left")
    _save(figure, path)
    return path


def _fitted_plot(profile: MachineProfile, path: Path) -> Path:
    fitted = np.array([run.fitted_s for run in profile.runs])
    measured = np.array([run.time_s for run in profile.runs])
    figure = Figure(figsize=(6.0, 4.5), layout="constrained")
    axes = figure.add_subplot()
    if profile.weighting == "relative":
        axes.scatter(fitted, 100.0 * (measured - fitted) / fitted, s=14)
        axes.set_ylabel("residual, (measured - fitted) / fitted (%)")
    else:
        axes.scatter(fitted, measured - fitted, s=14)
        axes.set_ylabel("residual, measured - fitted (s)")
    axes.axhline(0.0, color="grey", linestyle="--")
    if fitted.min() > 0 and fitted.max() / fitted.min() > 100:
        axes.set_xscale("log")
    axes.set_xlabel("fitted run time (s)")
    axes.set_title(f"Residuals against fitted time, {len(fitted)} runs")
    _save(figure, path)
    return path


def _save(figure: Figure, path: Path) -> None:
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=120, format="png")
