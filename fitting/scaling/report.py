"""Text, JSON and files of a :class:`perfeq.fitting.scaling.analysis.ScalingReport`.

Prints the paper's tables (built by :mod:`perfeq.fitting.scaling.tables`) as text, writes them as
CSV, turns the report into one JSON document, and writes the plots of
:mod:`perfeq.fitting.scaling.plots`.  Every file is written atomically.
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
from perfeq.fitting.scaling.individual import IndividualAnalysis
from perfeq.fitting.scaling.joint import JointFit
from perfeq.fitting.scaling.plots import pair_figure, residual_figure
from perfeq.fitting.scaling.tables import counts_table, joint_table, removed_table, tables, totals_table

FORMAT = "perfeq-scaling"
VERSION = 1
DETAILED_JOINT_MODELS = 3  # the paper details its best three joint models (Table 5)


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
        "observations": _observations_json(report),
        "individual": None if report.individual is None else _individual_json(report.individual),
        "joint": [_joint_json(fit) for fit in report.joint],
        "notes": list(report.notes),
    }
    return _clean(document)


def _observations_json(report: ScalingReport) -> dict:
    obs = report.observations
    return {
        "runs": len(obs.frame),
        "codes": obs.codes,
        "systems": obs.systems,
        "counts": obs.frame.groupby(["code", "system"]).size().rename("runs").reset_index().to_dict("records"),
        "removed": removed_table(report).to_dict("records"),
    }


def _individual_json(individual: IndividualAnalysis) -> dict:
    return {
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
                "models": [_fit_json(fit) for fit in sorted(pair.fits, key=lambda f: f.residual_mean_square)],
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
