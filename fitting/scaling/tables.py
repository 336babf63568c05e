"""The scaling analysis as the paper's tables: pandas DataFrames built once from a ScalingReport.

Table 1 run counts, Table 2 per-pair models, Table 3 totals, Table 4 joint models, Table 5 joint
parameters, and the observations; :mod:`perfeq.fitting.scaling.report` prints them and writes them as CSV.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfeq.fitting.scaling.analysis import ScalingReport


def counts_table(report: ScalingReport) -> pd.DataFrame:
    """Runs per code (rows) and system (columns) with totals (Table 1)."""
    frame = report.observations.frame
    table = pd.crosstab(frame["code"], frame["system"], margins=True, margins_name="Total")
    table.index.name = "code"
    table.columns.name = None
    return table.reset_index()


def removed_table(report: ScalingReport) -> pd.DataFrame:
    """The points the outlier screening removed, with their ratio to the pair median t'."""
    removed = report.observations.removed
    return removed[["code", "system", "p", "n", "time", "ratio", "line"]].copy()


def individual_table(report: ScalingReport) -> pd.DataFrame:
    """Every model fitted to every pair (Table 2 is the rows with kept = True)."""
    rows = []
    individual = report.individual
    max_terms = (
        max((len(fit.functions) for pair in individual.pairs for fit in pair.fits), default=0)
        if individual
        else 0
    )
    for pair in individual.pairs if individual else ():
        for fit in sorted(pair.fits, key=lambda f: (not f.kept, f.residual_mean_square)):
            row = {
                "code": pair.code,
                "system": pair.system,
                "model": fit.label,
                "terms": len(fit.functions),
                "runs": fit.n_obs,
                "sse": fit.sse,
                "sst": fit.sst,
                "r_squared": fit.r_squared,
                "residual_mean_square": fit.residual_mean_square,
                "kept": fit.kept,
                "best": fit is pair.best,
            }
            for i in range(max_terms):
                present = i < len(fit.functions)
                row[f"u{i + 1}"] = fit.functions[i] if present else ""
                row[f"delta{i + 1}"] = fit.delta[i] if present else np.nan
                row[f"se{i + 1}"] = fit.stderr[i] if present else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def totals_table(report: ScalingReport) -> pd.DataFrame:
    """Each model summed over all pairs, and the per-pair best models (Table 3); best first."""
    individual = report.individual
    if individual is None:
        return pd.DataFrame()
    rows = [
        {
            "model": "best (per pair)",
            "terms": np.nan,
            "pairs": len(individual.pairs),
            "parameters": individual.best_parameters,
            "sse": individual.best_sse,
            "r_squared": individual.best_r_squared,
            "residual_mean_square": np.nan,
            "kept": True,
            "complete": True,
        }
    ]
    ranked = individual.ranked_totals()
    others = [t for t in individual.totals if t not in ranked]
    for total in ranked + sorted(others, key=lambda t: t.sse):
        rows.append(
            {
                "model": total.label,
                "terms": len(total.functions),
                "pairs": total.n_pairs,
                "parameters": total.n_parameters,
                "sse": total.sse,
                "r_squared": total.r_squared,
                "residual_mean_square": total.residual_mean_square,
                "kept": total.kept,
                "complete": total.complete,
            }
        )
    return pd.DataFrame(rows)


def joint_table(report: ScalingReport) -> pd.DataFrame:
    """Joint models against the individual fits with the same functions (Table 4); best first."""
    return pd.DataFrame(
        [
            {
                "model": fit.label,
                "parameters": fit.n_parameters,
                "sse": fit.sse,
                "r_squared": fit.r_squared,
                "individual_parameters": fit.individual_parameters,
                "individual_sse": fit.individual_sse,
                "individual_r_squared": fit.individual_r_squared,
                "max_relative_error": fit.max_relative_error,
                "mean_relative_error": fit.mean_relative_error,
                "reference_system": fit.reference_system,
                "identifiable": fit.identifiable,
                "converged": fit.converged,
            }
            for fit in report.joint
        ]
    )


def joint_parameters_table(report: ScalingReport) -> pd.DataFrame:
    """Work and power parameters with standard errors of every joint model (Table 5)."""
    return pd.DataFrame(
        [
            {
                "model": fit.label,
                "parameter": parameter.symbol,
                "kind": parameter.kind,
                "name": parameter.name,
                "function": parameter.function,
                "value": parameter.value,
                "stderr": parameter.stderr,
                "fixed": parameter.fixed,
            }
            for fit in report.joint
            for parameter in fit.parameters()
        ]
    )


def joint_points_table(report: ScalingReport) -> pd.DataFrame:
    """Observed and predicted values of every run under every joint model."""
    if not report.joint:
        return pd.DataFrame()
    return pd.concat([fit.points.assign(model=fit.label) for fit in report.joint], ignore_index=True)


def tables(report: ScalingReport) -> dict[str, pd.DataFrame]:
    """All tables by file stem, in the order they are written."""
    return {
        "counts": counts_table(report),
        "observations": report.observations.frame,
        "removed": removed_table(report),
        "individual": individual_table(report),
        "totals": totals_table(report),
        "joint": joint_table(report),
        "joint_parameters": joint_parameters_table(report),
        "joint_points": joint_points_table(report),
    }
