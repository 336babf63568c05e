"""Plots of the scaling analysis: per-pair fits, and residuals against predicted values of a joint
model (the paper's Fig. 1).  Figures only; :func:`perfeq.fitting.scaling.report.write_plots` writes them.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from perfeq.fitting.scaling.analysis import ScalingReport
from perfeq.fitting.scaling.joint import JointFit

MAX_PAIR_PANELS = 36


def pair_figure(report: ScalingReport) -> Figure | None:
    """One panel per (code, system): fitted values t' against p, and the best individual model."""
    individual = report.individual
    if individual is None:
        return None
    pairs = individual.pairs[:MAX_PAIR_PANELS]
    columns = min(4, len(pairs))
    rows = math.ceil(len(pairs) / columns)
    figure = Figure(figsize=(3.2 * columns, 2.6 * rows), layout="constrained")
    frame = report.observations.frame
    functions = {f.label: f for f in report.functions}
    for index, pair in enumerate(pairs):
        axes = figure.add_subplot(rows, columns, index + 1)
        group = frame[(frame["code"] == pair.code) & (frame["system"] == pair.system)]
        axes.plot(group["p"], group["response"], "o", markersize=3, label="runs")
        for size, sub in group.groupby(group["n"].fillna(-1.0)):
            p = np.geomspace(sub["p"].min(), sub["p"].max(), 60)
            n = None if size < 0 else np.full_like(p, size)
            p_factor = p if report.observations.p_scaling else 1.0
            fitted = sum(
                d * functions[label](p, n) * p_factor
                for d, label in zip(pair.best.delta, pair.best.functions, strict=True)
            )
            axes.plot(p, fitted, "-", linewidth=1)
        axes.set_xscale("log", base=2)
        axes.set_title(f"{pair.code} on {pair.system}\n{pair.best.label}", fontsize=8)
        axes.tick_params(labelsize=7)
    figure.supxlabel("p")
    figure.supylabel("t'")
    return figure


def residual_figure(fit: JointFit) -> Figure:
    """Residuals against predicted values of a joint model (the paper's Fig. 1)."""
    figure = Figure(figsize=(6.4, 4.4), layout="constrained")
    axes = figure.add_subplot()
    markers = "osD^v<>pPX*h"
    points = fit.points
    for c, code in enumerate(fit.codes):
        for s, system in enumerate(fit.systems):
            chosen = (points["code"] == code) & (points["system"] == system)
            if chosen.any():
                axes.scatter(
                    points.loc[chosen, "predicted"],
                    points.loc[chosen, "residual"],
                    s=14,
                    marker=markers[c % len(markers)],
                    color=f"C{s % 10}",
                    label=f"{code} / {system}",
                )
    axes.axhline(0.0, color="0.5", linewidth=0.8)
    axes.set_xlabel("predicted t'")
    axes.set_ylabel("residual t'")
    axes.set_title(
        f"Joint model {fit.label}: SSE {fit.sse:.4g}, R^2 {fit.r_squared:.4f}, "
        f"max rel. error {fit.max_relative_error:.0%}",
        fontsize=9,
    )
    if len(fit.codes) * len(fit.systems) <= 20:
        axes.legend(fontsize=6, ncol=2)
    return figure
