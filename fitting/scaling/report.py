"""Tables, JSON and plots of a :class:`perfeq.fitting.scaling.ScalingReport`.

Builds the paper's tables as DataFrames once (Table 1 run counts, Table 2 per-pair models, Table 3
totals, Table 4 joint models, Table 5 joint parameters) and prints them as text, CSV or JSON; draws
per-pair fits and the residuals-vs-predicted plot (Fig. 1).  Every file is written atomically.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from perfeq.files import write_atomic
from perfeq.fitting.scaling.analysis import ScalingReport
from perfeq.fitting.scaling.joint import JointFit

FORMAT = "perfeq-scaling"
VERSION = 1
DETAILED_JOINT_MODELS = 3  # the paper details its best three joint models (Table 5)
MAX_PAIR_PANELS = 36


# --------------------------------------------------------------------------------------------------
# Tables


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


# --------------------------------------------------------------------------------------------------
# Text


_REMOVED_COLUMNS = {
    "code": ("code", "{}"), "system": ("system", "{}"), "p": ("p", "{:g}"), "n": ("n", "{:g}"),
    "time": ("time", "{:.4g}"), "ratio": ("ratio", "{:.3g}"), "line": ("line", "{}"),
}  # fmt: skip
_TOTALS_COLUMNS = {
    "model": ("model", "{}"), "pairs": ("pairs", "{}"), "parameters": ("params", "{:.0f}"),
    "sse": ("SSE", "{:.4g}"), "r_squared": ("R^2", "{:.5f}"),
}  # fmt: skip
_JOINT_COLUMNS = {
    "model": ("model", "{}"), "parameters": ("params", "{}"), "sse": ("SSE", "{:.4g}"),
    "r_squared": ("R^2", "{:.5f}"), "individual_parameters": ("indiv. params", "{:.0f}"),
    "individual_sse": ("indiv. SSE", "{:.4g}"), "max_relative_error": ("max rel.err", "{:.1%}"),
    "mean_relative_error": ("mean rel.err", "{:.1%}"),
}  # fmt: skip


def format_text(report: ScalingReport, *, top: int = 5) -> str:
    """The human-readable report: the paper's tables, ``top`` rows per ranking."""
    obs = report.observations
    frame = obs.frame
    transform = ["t"] + ["* p"] * obs.p_scaling + ["/ W_c"] * obs.work_given + ["* r_peak"] * obs.peak_given
    weighting = "; relative weighting" if obs.weighting == "relative" else ""
    out = [
        f"perfeq scaling: {obs.source}: {len(frame)} runs, {frame['code'].nunique()} code(s) x "
        f"{frame['system'].nunique()} system(s); fitted value t' = {' '.join(transform)}{weighting}",
        "functions: " + ", ".join(f.label for f in report.functions),
        "",
        "Runs per code and system (Table 1)",
        _indent(counts_table(report).to_string(index=False)),
    ]
    if len(obs.removed):
        out += ["", "Removed as outliers (t' ratio to the pair median)"]
        out.append(_indent(_text_table(removed_table(report), _REMOVED_COLUMNS)))
    if report.individual is not None:
        out.extend(_individual_text(report, top))
    if report.joint:
        out.extend(_joint_text(report, top))
    if report.notes:
        out += ["", "Notes"] + [f"  - {note}" for note in report.notes]
    return "\n".join(out) + "\n"


def _individual_text(report: ScalingReport, top: int) -> list[str]:
    individual = report.individual
    out = ["", f"Individual models per code and system (Table 2: kept models, best {top})"]
    for pair in individual.pairs:
        out.append(
            f"  {pair.code} on {pair.system}: {pair.n_obs} runs, SST {pair.sst:.6g}, best {pair.best.label}"
        )
        rows = [
            {
                "model": fit.label,
                "SSE": f"{fit.sse:.4g}",
                "R^2": f"{fit.r_squared:.5f}",
                "s^2": f"{fit.residual_mean_square:.4g}",
                "delta ± se": "   ".join(
                    f"{d:.4g} ± {e:.2g}" for d, e in zip(fit.delta, fit.stderr, strict=True)
                ),
            }
            for fit in pair.kept()[:top]
        ]
        out.append(_indent(pd.DataFrame(rows).to_string(index=False), 4))
    totals = totals_table(report)
    out += ["", f"Models fitted to every pair, SST {individual.sst:.6g} (Table 3: best {top} kept)"]
    out.append(
        _indent(_text_table(totals[totals["kept"] & totals["complete"]].head(top + 1), _TOTALS_COLUMNS))
    )
    return out


def _joint_text(report: ScalingReport, top: int) -> list[str]:
    out = ["", f"Joint product models t = sum_i w_i[code] / r_i[system] u_i (Table 4: best {top})"]
    out.append(_indent(_text_table(joint_table(report).head(top), _JOINT_COLUMNS)))
    for fit in report.joint[: min(top, DETAILED_JOINT_MODELS)]:
        out += [
            "",
            f"  Parameters of {fit.label} (Table 5; r = 1 on {fit.reference_system}; "
            f"SSE {fit.sse:.4g}, R^2 {fit.r_squared:.5f})",
        ]
        rows = [
            {
                "parameter": parameter.symbol,
                "u": parameter.function,
                "value ± se": f"{parameter.value:.4g}"
                + ("" if parameter.fixed else f" ± {parameter.stderr:.2g}"),
            }
            for parameter in fit.parameters()
        ]
        out.append(_indent(pd.DataFrame(rows).to_string(index=False), 4))
    return out


def _text_table(frame: pd.DataFrame, columns: dict[str, tuple[str, str]]) -> str:
    """The chosen columns of a table, each formatted with its pattern and renamed, as aligned text."""
    shown = pd.DataFrame(
        {
            header: [_format_value(pattern, value) for value in frame[column]]
            for column, (header, pattern) in columns.items()
        }
    )
    return shown.to_string(index=False)


def _format_value(pattern: str, value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return pattern.format(value)


def _indent(text: str, spaces: int = 2) -> str:
    return "\n".join(" " * spaces + line for line in text.splitlines())


# --------------------------------------------------------------------------------------------------
# JSON


def to_json(report: ScalingReport) -> dict:
    """Everything in one JSON-ready dict (format ``perfeq-scaling`` version 1; NaN becomes null)."""
    obs = report.observations
    individual = report.individual
    document = {
        "format": FORMAT,
        "version": VERSION,
        "source": obs.source,
        "options": {
            "max_terms": report.options.max_terms,
            "p_scaling": obs.p_scaling,
            "outlier_factor": report.options.outlier_factor,
            "aggregate": report.options.aggregate,
            "weighting": obs.weighting,
            "skip_sparse": report.options.skip_sparse,
            "joint": report.options.joint,
        },
        "transformation": {
            "p_scaling": obs.p_scaling,
            "work": obs.frame.groupby("code")["work"].first().to_dict() if obs.work_given else None,
            "peak": obs.frame.groupby("system")["peak"].first().to_dict() if obs.peak_given else None,
        },
        "functions": [
            {
                "label": f.label,
                "expression": f.expression,
                "normalisation": f.normalisation,
                "uses_size": f.uses_size,
            }
            for f in report.functions
        ],
        "observations": {
            "runs": len(obs.frame),
            "codes": obs.codes,
            "systems": obs.systems,
            "counts": obs.frame.groupby(["code", "system"])
            .size()
            .rename("runs")
            .reset_index()
            .to_dict("records"),
            "removed": removed_table(report).to_dict("records"),
        },
        "individual": None,
        "joint": [_joint_json(fit) for fit in report.joint],
        "notes": list(report.notes),
    }
    if individual is not None:
        document["individual"] = {
            "sst": individual.sst,
            "best": {
                "sse": individual.best_sse,
                "r_squared": individual.best_r_squared,
                "parameters": individual.best_parameters,
            },
            "pairs": [
                {
                    "code": pair.code,
                    "system": pair.system,
                    "runs": pair.n_obs,
                    "sst": pair.sst,
                    "best": list(pair.best.functions),
                    "models": [
                        _fit_json(fit) for fit in sorted(pair.fits, key=lambda f: f.residual_mean_square)
                    ],
                }
                for pair in individual.pairs
            ],
            "totals": [
                {
                    "functions": list(t.functions),
                    "sse": t.sse,
                    "r_squared": t.r_squared,
                    "residual_mean_square": t.residual_mean_square,
                    "pairs": t.n_pairs,
                    "parameters": t.n_parameters,
                    "complete": t.complete,
                    "kept": t.kept,
                }
                for t in individual.totals
            ],
        }
    return _clean(document)


def dumps(report: ScalingReport) -> str:
    return json.dumps(to_json(report), indent=2, allow_nan=False) + "\n"


def _fit_json(fit) -> dict:
    return {
        "functions": list(fit.functions),
        "delta": list(fit.delta),
        "stderr": list(fit.stderr),
        "sse": fit.sse,
        "r_squared": fit.r_squared,
        "residual_mean_square": fit.residual_mean_square,
        "kept": fit.kept,
    }


def _joint_json(fit: JointFit) -> dict:
    return {
        "functions": list(fit.functions),
        "reference_system": fit.reference_system,
        "runs": fit.n_obs,
        "parameters_count": fit.n_parameters,
        "sse": fit.sse,
        "sst": fit.sst,
        "r_squared": fit.r_squared,
        "individual_sse": fit.individual_sse,
        "individual_parameters": fit.individual_parameters,
        "max_relative_error": fit.max_relative_error,
        "mean_relative_error": fit.mean_relative_error,
        "identifiable": fit.identifiable,
        "converged": fit.converged,
        "parameters": [
            {
                "kind": p.kind,
                "name": p.name,
                "function": p.function,
                "index": p.index,
                "value": p.value,
                "stderr": p.stderr,
                "fixed": p.fixed,
            }
            for p in fit.parameters()
        ],
    }


def _clean(value):
    """Make a structure JSON-safe: numpy scalars to Python, NaN and infinities to None."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.bool_):
        return bool(value)
    return value


# --------------------------------------------------------------------------------------------------
# Plots


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


# --------------------------------------------------------------------------------------------------
# Files


def write_csv_tables(report: ScalingReport, directory: str | Path) -> list[Path]:
    """Write every non-empty table as ``<name>.csv`` into ``directory``."""
    written = []
    for name, table in tables(report).items():
        if len(table.columns):
            written.append(write_atomic(Path(directory) / f"{name}.csv", table.to_csv(index=False)))
    return written


def write_plots(report: ScalingReport, directory: str | Path) -> list[Path]:
    """``pairs.png`` and ``joint-<model>.png`` for the best joint models."""
    written = []
    figure = pair_figure(report)
    if figure is not None:
        written.append(_save(figure, Path(directory) / "pairs.png"))
    for fit in report.joint[:DETAILED_JOINT_MODELS]:
        written.append(_save(residual_figure(fit), Path(directory) / f"joint-{slug(fit.functions)}.png"))
    return written


def slug(functions: Iterable[str]) -> str:
    """A file-name-safe name for a model: ``1/p + 1/sqrt(p)`` -> ``1-p+1-sqrt-p``."""
    return "+".join(re.sub(r"[^A-Za-z0-9.]+", "-", label).strip("-") or "f" for label in functions)


def _save(figure: Figure, path: Path) -> Path:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    return write_atomic(path, buffer.getvalue())
