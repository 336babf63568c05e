"""``perfeq report``: one self-contained HTML page about a program on a machine (the end of the pipeline).

Collects what a performance engineer looks at: the model's equations (chi per block and in total,
the time equation with the profile's costs), the machine profile with its intervals, predictions
with intervals at a few sizes, the breakdown (Fig. 6) and sensitivity (Fig. 7) plots embedded as
PNG data URIs, and the loops the model fell back to fits or constants.  Rendered from
templates/report.html.j2; no external files, scripts or style sheets.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2
import sympy as sp

from perfeq import __version__
from perfeq.errors import UsageError
from perfeq.files import write_atomic
from perfeq.fitting.analysis.breakdown import breakdown, breakdown_figure
from perfeq.fitting.analysis.figures import png_data_uri
from perfeq.fitting.analysis.pricing import Grid, TimeEquation, default_grid, match_parameter
from perfeq.fitting.analysis.sensitivity import sensitivity_figure, sensitivity_over
from perfeq.fitting.costs import INTERCEPT, MISS_COSTS, PAPER_COSTS, cost_spec
from perfeq.fitting.regression.predict import Prediction, predict
from perfeq.fitting.regression.profile import MachineProfile
from perfeq.symbolic.machine import Machine
from perfeq.symbolic.model import CostModel

DEFAULT_FACTORS = (1, 8, 64)  # predictions: the model's run size times these ...
DEFAULT_PROCS = (1, 8, 64)  # ... on these process counts
TOP_BLOCKS = 3

_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("perfeq.fitting.analysis", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass(frozen=True)
class Point:
    """Where a prediction is made: parameter values, P and T."""

    values: dict[str, float]
    procs: int
    threads: int = 1

    @property
    def label(self) -> str:
        return ", ".join(
            [*(f"{k}={v:g}" for k, v in self.values.items()), f"P={self.procs}"]
            + ([f"T={self.threads}"] if self.threads != 1 else [])
        )


def parse_points(model: CostModel, groups: Sequence[Sequence[str]] | None) -> list[Point]:
    """``--at n=1000 P=8`` groups as Points; without any, the default sizes (see default_points)."""
    if not groups:
        return default_points(model)
    points = []
    for group in groups:
        values: dict[str, float] = {}
        procs, threads = 1, 1
        for item in group:
            name, sep, text = item.partition("=")
            if not sep:
                raise UsageError(f"--at {item}: expected NAME=VALUE, e.g. n=4096 P=64")
            name = match_parameter(model, name.strip(), "--at")
            try:
                value = float(text)
            except ValueError:
                raise UsageError(f"--at {item}: '{text}' is not a number") from None
            if name in ("P", "T"):
                if value != int(value) or value < 1:
                    raise UsageError(f"--at {item}: {name} must be a whole number >= 1")
                procs, threads = (int(value), threads) if name == "P" else (procs, int(value))
            else:
                values[name] = value
        model.check_values(values)
        points.append(Point(values, procs, threads))
    return points


def default_points(model: CostModel) -> list[Point]:
    """The model's run values with the first parameter times 1, 8 and 64, on 1, 8 and 64 processes."""
    run = {name: float(info.get("value") or 1) for name, info in model.parameters.items()}
    first = next(iter(run), None)
    points = []
    for factor in DEFAULT_FACTORS if first else (1,):
        values = {**run, first: run[first] * factor} if first else {}
        points.extend(Point(values, procs) for procs in DEFAULT_PROCS)
    return points


def build_report(
    model: CostModel,
    profile: MachineProfile,
    machine: Machine,
    *,
    points: Sequence[Point] | None = None,
    grid: Grid | None = None,
    level: float = 0.95,
    model_path: str = "",
    profile_path: str = "",
) -> str:
    """The report as an HTML string (see the module docstring for its sections)."""
    equation = TimeEquation(model, profile, machine)
    grid = grid or default_grid(model)
    points = list(points) if points else default_points(model)
    context = {
        "program": Path(model.program).name,
        "source": model.program,
        "model_path": model_path,
        "profile_path": profile_path,
        "created": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "version": __version__,
        "machine": machine,
        "parameters": [
            {"name": k, "variable": v.get("variable", ""), "value": v.get("value")}
            for k, v in model.parameters.items()
        ],
        "model_runs": model.runs,
        "equations": _equations(model, equation),
        "profile": _profile(profile),
        "predictions": [_prediction(model, equation, point, level) for point in points],
        "level": f"{100 * level:g}%",
        "plots": _plots(model, profile, machine, grid),
        "fallbacks": model.fallbacks,
    }
    return _TEMPLATES.get_template("report.html.j2").render(**context)


def write_report(
    model: CostModel, profile: MachineProfile, machine: Machine, output: str | Path, **options
) -> Path:
    """Render the report and write it to ``output`` (temp file + rename)."""
    target = Path(output)
    if target.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"-o {target}: expected an .html file name")
    text = build_report(model, profile, machine, **options)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, text)
    return target


# ---- sections ---------------------------------------------------------------------------------------
def _equations(model: CostModel, equation: TimeEquation) -> dict:
    shown = [key for key in equation.chi if key in PAPER_COSTS or key in equation.priced]  # paper: even unpriced
    keys = [key for key in shown if key not in MISS_COSTS and any(key in model.item_keys(item) for item in model.items)]
    items = [
        {
            "label": item.label,
            "context": item.context,
            "kind": item.kind,
            "counts": [str(model.item_expression(key, index)) for key in keys],
        }
        for index, item in enumerate(model.items)
    ]
    totals = []
    for key in shown:
        note = (
            (
                "from the references' reuse distances and the last-level cache (Piecewise: a reference "
                "reused beyond the process's share of it moves its lines from memory)"
            )
            if key == "mem"
            else (
                "from the loop nests' footprints and the cache description (Piecewise: a nest larger "
                "than the capacity misses on every access)"
            )
            if key in MISS_COSTS
            else ""
        )
        totals.append(
            {"key": key, "expression": str(equation.chi[key]), "note": note, "priced": key in equation.priced}
        )
    symbols = " + ".join(
        [f"beta_{k}*chi_{k}" for k in equation.priced]
        + ([f"beta_{INTERCEPT}"] if INTERCEPT in equation.betas else [])
    )
    return {
        "columns": keys,
        "blocks": items,
        "totals": totals,
        "symbolic": f"t = {symbols}",
        "numbers": equation.equation_text(),
        "full": _text(equation.numeric),
    }


def _text(expr: sp.Expr) -> str:
    return str(expr.xreplace({f: sp.Float(f, 4) for f in expr.atoms(sp.Float)}))


def _profile(profile: MachineProfile) -> dict:
    rows = []
    for name, estimate in profile.costs.items():
        spec = cost_spec(name)

        def shown(value, unit=spec.unit_seconds):
            return "-" if value is None else f"{value / unit:.4g}"

        vif = (profile.vif or {}).get(name)
        rows.append(
            {
                "name": name,
                "value": shown(estimate.value),
                "unit": spec.display_unit,
                "stderr": shown(estimate.stderr),
                "interval": "-"
                if estimate.ci_low is None
                else f"[{shown(estimate.ci_low)}, {shown(estimate.ci_high)}]",
                "p_value": "-" if estimate.p_value is None else f"{estimate.p_value:.2g}",
                "vif": "-" if vif is None else f"{vif:.3g}",
                "negative": estimate.value < 0,
            }
        )
    if profile.has_intervals:
        sigma = (
            f"{100 * profile.sigma:.3g} % of the run time"
            if profile.weighting == "relative"
            else f"{profile.sigma:.3g} s"
        )
        fit = (
            f"{profile.weighting} weighting, {profile.n_runs} runs, {profile.df_resid} residual df, "
            f"sigma {sigma}, R² ({profile.rsquared_kind}) {profile.rsquared:.4g}, "
            f"condition number {profile.condition_number:.3g}"
        )
    else:
        fit = "costs given by hand (manual profile): no statistics, predictions carry no intervals"
    return {
        "source": profile.source,
        "host": profile.host or "-",
        "created": profile.created or "-",
        "level": f"{100 * profile.level:g}%",
        "fit": fit,
        "rows": rows,
        "warnings": list(profile.warnings),
    }


def _prediction(model: CostModel, equation: TimeEquation, point: Point, level: float) -> dict:
    values = model.check_values(dict(point.values))
    if point.threads != equation.threads:
        equation = TimeEquation(model, equation.profile, equation.machine, point.threads)
    counts, rank = equation.slowest(values, point.procs)
    blocks = equation.block_seconds(values, point.procs)
    result: Prediction = predict(equation.profile, {k: counts[k] for k in equation.priced}, level=level,
                                 digest=model.digest, procs=point.procs, threads=point.threads,
                                 all_counts=counts)
    shares = sorted(blocks.items(), key=lambda item: -abs(item[1]))[:TOP_BLOCKS]
    notes = ([result.extrapolation] if result.extrapolation else []) + list(result.warnings)
    return {
        "point": point.label,
        "rank": rank,
        "time": _seconds(result.time_s),
        "mean": _interval(result.mean_interval),
        "prediction": _interval(result.prediction_interval),
        "costs": ", ".join(
            f"{part.name} {_percent(part.seconds, result.time_s)}" for part in result.contributions
        ),
        "blocks": [f"{name}: {_percent(seconds, result.time_s)}" for name, seconds in shares],
        "notes": notes,
        "bad": result.time_s <= 0,
    }


def _seconds(value: float) -> str:
    return f"{value:.4g} s"


def _interval(pair) -> str:
    return "-" if pair is None else f"[{pair[0]:.4g}, {pair[1]:.4g}] s"


def _percent(seconds: float, total: float) -> str:
    return f"{100 * seconds / total:.1f} %" if total > 0 else f"{seconds:.3g} s"


def _plots(model: CostModel, profile: MachineProfile, machine: Machine, grid: Grid) -> list[dict]:
    """Breakdown (Fig. 6), sensitivity to message startup (Fig. 7) and dt/dN, as PNG data URIs."""
    program = Path(model.program).name
    plots = []
    shares = breakdown(model, profile, machine, grid)
    plots.append(
        {
            "title": "Where the time goes (the paper's Fig. 6)",
            "caption": "Share of the predicted time per machine cost (top) and per block, MPI call site "
            "or loop nest (bottom), on the slowest rank, against problem size; one panel per process "
            "count." + _notes(shares.notes),
            "uri": png_data_uri(breakdown_figure(shares)),
        }
    )
    startup = sensitivity_over(model, "startup", grid, profile, machine)
    plots.append(
        {
            "title": "Sensitivity to message startup (the paper's Fig. 7)",
            "caption": "Seconds the predicted time grows for each 10 us added to the cost of a "
            "message (dt/dbeta_startup = chi_startup), and the share of the time spent on message "
            "startups." + _notes(startup.notes),
            "uri": png_data_uri(sensitivity_figure(startup, f"{program}: sensitivity to message startup")),
        }
    )
    if grid.parameter and len(grid.sizes) > 1:
        slope = sensitivity_over(model, grid.parameter, grid, profile, machine)
        plots.append(
            {
                "title": f"Growth with the problem size: dt/d{grid.parameter}",
                "caption": f"Seconds added per unit of {grid.parameter}, and the elasticity d ln t / d ln "
                f"{grid.parameter} (300 % means t grows like {grid.parameter}³ there)." + _notes(slope.notes),
                "uri": png_data_uri(sensitivity_figure(slope, f"{program}: growth with {grid.parameter}")),
            }
        )
    return plots


def _notes(notes: list[str]) -> str:
    return "".join(f" Note: {note}." for note in notes)
