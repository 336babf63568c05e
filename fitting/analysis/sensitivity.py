"""Sensitivity of the predicted time to a machine cost or a problem parameter (the paper's section 5, Fig. 7).

With t = sum_k chi_k(N, P) beta_k (pricing.py), dt/dbeta_k is chi_k itself: the seconds added per
unit increase of that cost.  dt/dN and dt/dP come from sympy's derivative of t with the profile's
costs; where the counts hold floor()/Mod or MPI message functions (step functions of N or P), sympy
leaves Derivative/Subs terms and the values are finite differences of the predicted time instead.
Each is evaluated over a grid of one problem-size parameter and P, also as an elasticity d ln t / d ln x
(for a cost: its share of the predicted time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sympy as sp
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from perfeq.errors import UsageError
from perfeq.fitting.analysis.figures import new_figure, save_figure
from perfeq.fitting.analysis.pricing import Grid, TimeEquation, match_parameter, parse_range
from perfeq.fitting.costs import COSTS, INTERCEPT, MISS_COSTS, SPLIT_COSTS, cost_spec
from perfeq.fitting.regression.predict import count_vector
from perfeq.fitting.regression.profile import MachineProfile, manual_profile
from perfeq.symbolic.machine import Machine
from perfeq.symbolic.model import CostModel
from perfeq.symbolic.symbols import P, lambdify_numpy, size_symbol

__all__ = [
    "STEP_UNITS",
    "SensitivityGrid",
    "format_sensitivity",
    "parse_range",
    "plot_sensitivity",
    "sensitivity",
    "sensitivity_figure",
    "sensitivity_over",
]

# One "step" of each cost, the increase a figure is drawn for (the paper's Fig. 7: 10 us of startup).
STEP_UNITS = {
    "startup": (1e-5, "10 us"),
    "bytes": (1e-9, "1 ns/byte"),
    "ops": (1e-9, "1 ns/op"),
    "par": (1e-6, "1 us"),
    "l1": (1e-9, "1 ns"),
    "l2": (1e-8, "10 ns"),
    "page": (1e-6, "1 us"),
    "mem": (1e-9, "1 ns"),
    **{kind: (1e-9, "1 ns") for kind in SPLIT_COSTS},
}
RELATIVE_STEP = 0.01  # finite differences in a size parameter: central, step max(1, 1 % of its value)


@dataclass
class SensitivityGrid:
    """dt/dx over sizes x procs (rows: procs, columns: sizes), x a machine cost or a parameter."""

    wrt: str
    kind: str  # "cost" or "parameter"
    parameter: str | None  # the problem-size parameter along the grid's sizes
    sizes: list[float]
    procs: list[int]
    fixed: dict[str, float]
    derivative: np.ndarray  # dt/dx: for a cost, the count chi (s per s/count); for a parameter, s per unit
    increase: np.ndarray  # seconds added per ``step`` of x
    time: np.ndarray | None  # predicted time (None without a profile)
    elasticity: np.ndarray | None  # d ln t / d ln x; for a cost, its share of the predicted time
    step: float
    step_label: str
    expression: str  # sympy's derivative (rank free: numbers are the slowest rank's)
    method: str  # "symbolic" or "finite differences"
    approximation: str | None = None  # derivative with floor()/ceiling() relaxed to their arguments
    notes: list[str] = field(default_factory=list)
    # standard errors from the covariance of the costs (None: a manual profile, or no profile); a
    # cost's increase is its count and has none
    increase_stderr: np.ndarray | None = None
    elasticity_stderr: np.ndarray | None = None
    level: float = 0.95
    quantile: float | None = None  # the t quantile of the bands drawn, at the fit's residual df

    def to_dict(self) -> dict:
        return {
            "wrt": self.wrt,
            "kind": self.kind,
            "parameter": self.parameter,
            "sizes": self.sizes,
            "procs": self.procs,
            "fixed": self.fixed,
            "step": self.step,
            "step_label": self.step_label,
            "expression": self.expression,
            "method": self.method,
            "approximation": self.approximation,
            "notes": self.notes,
            "derivative": _listed(self.derivative),
            "increase_s": _listed(self.increase),
            "time_s": _listed(self.time),
            "elasticity": _listed(self.elasticity),
            "increase_stderr_s": _listed(self.increase_stderr),
            "elasticity_stderr": _listed(self.elasticity_stderr),
            "band_level": self.level if self.quantile is not None else None,
            "band_quantile": self.quantile,
        }


def _listed(array: np.ndarray | None) -> list | None:
    if array is None:
        return None
    return [[None if not np.isfinite(v) else float(v) for v in row] for row in array]


def sensitivity(
    model: CostModel,
    cost: str,
    parameter: str | None,
    sizes: Sequence[float],
    procs: Sequence[int],
    fixed: Mapping[str, float],
    profile: MachineProfile | None = None,
    machine: Machine | None = None,
    threads: int = 1,
) -> SensitivityGrid:
    """dt/d``cost`` over ``sizes`` of ``parameter`` x ``procs`` (slowest rank).

    ``cost`` is a machine cost (``ops``, ``par``, ``l1``, ``l2``, ``page``, ``startup``, ``bytes``), a
    problem-size parameter of the model, or ``P``.  Without a profile only a cost works (its
    derivative chi does not depend on the costs) and no elasticity is given.
    """
    grid = Grid(
        parameter,
        tuple(float(s) for s in sizes),
        tuple(int(p) for p in procs),
        {k: float(v) for k, v in fixed.items() if k != parameter},
        threads,
    )
    return sensitivity_over(model, cost, grid, profile, machine)


def sensitivity_over(
    model: CostModel,
    wrt: str,
    grid: Grid,
    profile: MachineProfile | None = None,
    machine: Machine | None = None,
) -> SensitivityGrid:
    """:func:`sensitivity` on a :class:`Grid` (see pricing.parse_over)."""
    machine = machine or Machine.detect()
    if wrt in STEP_UNITS:
        return _cost_sensitivity(model, wrt, grid, profile, machine)
    if wrt == INTERCEPT:
        raise UsageError("--wrt const: the fixed time per run adds 1 s per s everywhere; pick a count cost")
    try:
        name = match_parameter(model, wrt, "--wrt")
    except UsageError:
        raise UsageError(
            f"--wrt {wrt}: expected a machine cost ({', '.join(COSTS)}) or a parameter "
            f"({', '.join([*model.parameters, 'P'])})"
        ) from None
    if name == "T":
        raise UsageError("--wrt T: threads are not differentiated; give a cost, a size parameter or P")
    if profile is None:
        raise UsageError(f"--wrt {name}: dt/d{name} needs the machine costs; give --machine")
    return _parameter_sensitivity(model, name, grid, profile, machine)


def _cost_sensitivity(model, cost, grid, profile, machine) -> SensitivityGrid:
    step, label = STEP_UNITS[cost]
    equation = TimeEquation(model, profile or manual_profile({cost: 0.0}), machine, grid.threads)
    shape = (len(grid.procs), len(grid.sizes))
    chi, time = np.zeros(shape), np.full(shape, np.nan)
    share_stderr = np.full(shape, np.nan)
    beta = equation.betas.get(cost, 0.0)
    cov = _covariance(profile)
    for i, p in enumerate(grid.procs):
        for j, size in enumerate(grid.sizes):
            values = grid.values(size)
            counts, _ = equation.slowest(values, p)
            chi[i, j] = counts[cost]
            if profile is not None:
                time[i, j] = equation.time(values, p)
                if cov is not None and cost in profile.names and time[i, j] > 0:
                    # share = beta_c chi_c / x'beta: gradient in beta by the delta method
                    x = count_vector(profile, counts)
                    grad = -beta * chi[i, j] * x / time[i, j] ** 2
                    grad[profile.names.index(cost)] += chi[i, j] / time[i, j]
                    share_stderr[i, j] = np.sqrt(max(grad @ cov @ grad, 0.0))
    notes = []
    elasticity = None
    if profile is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            elasticity = np.where(time > 0, beta * chi / time, np.nan)
        if cost not in equation.betas:
            notes.append(f"the machine profile does not price '{cost}': its share of the predicted time is 0")
        if np.any(time <= 0):
            notes.append(
                "the predicted time is not positive at some points (check the profile's costs); "
                "no share is given there"
            )
    if cost == "mem":
        notes.append(
            f"chi_mem is counted from the references' reuse distances and the last-level cache "
            f"({machine.name}): a reference reused beyond the process's share moves its lines from memory"
        )
    elif cost in MISS_COSTS:
        notes.append(
            f"chi_{cost} is counted from loop-nest footprints and the cache description "
            f"({machine.name}): a nest larger than the capacity misses on every access"
        )
    expression = equation.chi[cost]  # = d(sum_k beta_k chi_k)/d beta_cost
    return _with_bands(profile, None, share_stderr if cov is not None and cost in profile.names else None,
                       SensitivityGrid(
        cost,
        "cost",
        grid.parameter,
        list(grid.sizes),
        list(grid.procs),
        dict(grid.fixed),
        chi,
        step * chi,
        None if profile is None else time,
        elasticity,
        step,
        label,
        str(expression),
        "symbolic",
        None,
        notes,
    ))


def _parameter_sensitivity(model, name, grid, profile, machine) -> SensitivityGrid:
    equation = TimeEquation(model, profile, machine, grid.threads)
    symbol = P if name == "P" else size_symbol(name)
    derivative = sp.diff(equation.numeric, symbol)
    # a step (Heaviside, from Min/Max such as the shared-node indicator) is no derivative to
    # evaluate pointwise: numpy's heaviside(0) = 1/2 would add half a jump; finite differences
    closed = not derivative.has(sp.Derivative, sp.Subs, sp.Heaviside, sp.DiracDelta)
    slope, time = _slopes(model, equation, name, grid, derivative if closed else None)
    x = np.array(
        [[float(p) if name == "P" else grid.values(size)[name] for size in grid.sizes] for p in grid.procs]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        elasticity = np.where(time > 0, slope * x / time, np.nan)
    notes = [] if closed else [_finite_difference_note(name)]
    approximation = None if closed else _relaxed_derivative(equation, symbol)
    if np.any(time <= 0):
        notes.append(
            "the predicted time is not positive at some points (check the profile's costs); "
            "no elasticity is given there"
        )
    label = "1 process" if name == "P" else f"1 unit of {name}"
    slope_se, elasticity_se = _slope_stderr(equation, profile, name, grid, slope, time, x)
    return _with_bands(profile, slope_se, elasticity_se, SensitivityGrid(
        name,
        "parameter",
        grid.parameter,
        list(grid.sizes),
        list(grid.procs),
        dict(grid.fixed),
        slope,
        slope,
        time,
        elasticity,
        1.0,
        label,
        str(derivative),
        "symbolic" if closed else "finite differences",
        approximation,
        notes,
    ))


def _covariance(profile: MachineProfile | None) -> np.ndarray | None:
    """The costs' covariance of a fitted profile; None without a profile or with a manual one."""
    return profile.covariance_matrix() if profile is not None and profile.has_intervals else None


def _slope_stderr(equation, profile, name, grid, slope, time, x):
    """Standard errors of dt/d``name`` (= g' beta, g the counts' slopes, by central differences of the
    slowest rank's counts) and of the elasticity slope x / t, from the covariance of the costs."""
    cov = _covariance(profile)
    if cov is None:
        return None, None
    shape = slope.shape
    slope_se, elasticity_se = np.full(shape, np.nan), np.full(shape, np.nan)
    beta = profile.beta
    for i, p in enumerate(grid.procs):
        for j, size in enumerate(grid.sizes):
            values = grid.values(size)
            here = count_vector(profile, equation.slowest(values, p)[0])
            g = _count_slopes(equation, profile, name, values, p)
            slope_se[i, j] = np.sqrt(max(g @ cov @ g, 0.0))
            if time[i, j] > 0:
                grad = x[i, j] * (g / time[i, j] - (g @ beta) * here / time[i, j] ** 2)
                elasticity_se[i, j] = np.sqrt(max(grad @ cov @ grad, 0.0))
    return slope_se, elasticity_se


def _count_slopes(equation, profile, name: str, values: dict[str, float], procs: int) -> np.ndarray:
    """d(count vector)/d``name`` by the differences ``_finite_difference`` takes of the time."""
    return _difference(lambda vals, p: count_vector(profile, equation.slowest(vals, p)[0]), name, values, procs)


def _with_bands(profile, increase_se, elasticity_se, grid: SensitivityGrid) -> SensitivityGrid:
    """``grid`` with its standard errors and the t quantile of the bands at the profile's level."""
    from scipy import stats

    if increase_se is None and elasticity_se is None:
        return grid
    grid.increase_stderr, grid.elasticity_stderr = increase_se, elasticity_se
    grid.level = profile.level
    grid.quantile = float(stats.t.ppf(0.5 + profile.level / 2, profile.df_resid))
    return grid


def _slopes(model, equation: TimeEquation, name: str, grid: Grid, derivative: sp.Expr | None):
    """dt/d``name`` and t over the grid: ``derivative`` evaluated, or finite differences without one."""
    function = lambdify_numpy(model.arguments, derivative) if derivative is not None else None
    shape = (len(grid.procs), len(grid.sizes))
    slope, time = np.zeros(shape), np.zeros(shape)
    for i, p in enumerate(grid.procs):
        for j, size in enumerate(grid.sizes):
            values = grid.values(size)
            time[i, j] = equation.time(values, p)
            if function is not None:
                _, rank = equation.slowest(values, p)
                args = [float(values[k]) for k in model.parameters] + [p, grid.threads, np.array([rank])]
                slope[i, j] = float(np.asarray(function(*args), dtype=float).ravel()[0])
            else:
                slope[i, j] = _finite_difference(equation, name, values, p)
    return slope, time


def _finite_difference_note(name: str) -> str:
    how = (
        "central differences over neighbouring process counts (forward at P = 1)"
        if name == "P"
        else f"central differences with step max(1, {RELATIVE_STEP:.0%} of {name})"
    )
    return (
        f"sympy leaves Derivative/Subs terms (floor(), Mod or MPI message functions are step "
        f"functions of {name}): the values are finite differences of the predicted time, {how}"
    )


def _relaxed_derivative(equation: TimeEquation, symbol: sp.Symbol) -> str | None:
    """The derivative with floor()/ceiling() relaxed to their arguments, when sympy can take it."""
    relaxed = sp.diff(
        equation.numeric.replace(sp.floor, lambda a: a).replace(sp.ceiling, lambda a: a), symbol
    )
    if not relaxed.has(sp.Derivative, sp.Subs):
        return str(sp.expand(relaxed))
    return None


def _finite_difference(equation: TimeEquation, name: str, values: dict[str, float], procs: int) -> float:
    """dt/d``name`` of the predicted time at one point by central (or forward) differences."""
    return _difference(equation.time, name, values, procs)


def _difference(at, name: str, values: dict[str, float], procs: int):
    """d at(values, P)/d``name`` (a number or a vector) by central differences: over the neighbouring
    process counts in P (forward at P = 1), with step max(1, RELATIVE_STEP of it) in a size (forward
    where the step would go below 1)."""
    if name == "P":
        if procs > 1:
            return (at(values, procs + 1) - at(values, procs - 1)) / 2.0
        return at(values, 2) - at(values, 1)
    x = float(values[name])
    h = max(1.0, round(RELATIVE_STEP * x))
    if x - h >= 1:
        return (at({**values, name: x + h}, procs) - at({**values, name: x - h}, procs)) / (2 * h)
    return (at({**values, name: x + h}, procs) - at(values, procs)) / h


def describe(grid: SensitivityGrid) -> str:
    """What the grid's numbers are, in one phrase, for titles and text output."""
    if grid.kind == "cost":
        return f"seconds added per {grid.step_label} of {grid.wrt} (dt/dbeta_{grid.wrt})"
    return f"dt/d{grid.wrt}, seconds per {grid.step_label}"


def format_sensitivity(grid: SensitivityGrid, program: str = "") -> str:
    """Plain-text form: the expression, the method, notes, and the grid as tables (rows P)."""
    lines = [f"{program + ': ' if program else ''}{describe(grid)}"]
    what = f"dt/dbeta_{grid.wrt} = chi_{grid.wrt}" if grid.kind == "cost" else f"dt/d{grid.wrt}"
    lines.append(f"  {what} = {_short(grid.expression)}")
    if grid.approximation:
        lines.append(f"  with floor(x) ~ x: dt/d{grid.wrt} ~ {_short(grid.approximation)}")
    lines.append(
        f"  method: {grid.method}; numbers at the slowest rank"
        + (f"; fixed {', '.join(f'{k}={v:g}' for k, v in grid.fixed.items())}" if grid.fixed else "")
    )
    lines.extend(f"  note: {note}" for note in grid.notes)
    lines.append(_table(grid, grid.increase, f"increase in seconds per {grid.step_label}", "{:.4g}"))
    if grid.elasticity is not None:
        title = "share of the predicted time (%)" if grid.kind == "cost" else "elasticity d ln t / d ln x (%)"
        lines.append(_table(grid, 100 * grid.elasticity, title, "{:.3g}"))
    return "\n".join(lines)


def _table(grid: SensitivityGrid, values: np.ndarray, title: str, fmt: str) -> str:
    corner = "P \\ " + (grid.parameter or "")
    head = f"  {title}\n  {corner:>10}" + "".join(f"{s:>11g}" for s in grid.sizes)
    rows = [
        f"  {p:>10d}" + "".join(f"{fmt.format(v) if np.isfinite(v) else '-':>11}" for v in row)
        for p, row in zip(grid.procs, values, strict=True)
    ]
    return "\n".join([head, *rows])


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plot_sensitivity(grid: SensitivityGrid, path: str | Path, title: str) -> Path:
    """Write :func:`sensitivity_figure` as PNG (SVG for ``.svg``)."""
    return save_figure(sensitivity_figure(grid, title), path)


def sensitivity_figure(grid: SensitivityGrid, title: str) -> Figure:
    """Fig. 7: the increase per step against problem size, one line per P; beside it the elasticity."""
    panels = 2 if grid.elasticity is not None else 1
    figure = new_figure(width=6.0 * panels + 0.5, height=4.6)
    axes = figure.subplots(1, panels, squeeze=False)[0]
    _lines(axes[0], grid, grid.increase, grid.increase_stderr, grid.quantile)
    if grid.kind == "cost":
        axes[0].set_ylabel(f"increase in run time per {grid.step_label} of {grid.wrt} (s)")
    else:
        axes[0].set_ylabel(f"dt/d{grid.wrt} (s per {grid.step_label})")
    if panels == 2:
        _lines(axes[1], grid, 100 * grid.elasticity,
               None if grid.elasticity_stderr is None else 100 * grid.elasticity_stderr, grid.quantile)
        unit = cost_spec(grid.wrt).event if grid.kind == "cost" else grid.wrt
        axes[1].set_ylabel(
            f"share of predicted time spent on {grid.wrt} ({unit}) (%)"
            if grid.kind == "cost"
            else f"elasticity d ln t / d ln {grid.wrt} (%)"
        )
        axes[1].set_title(
            "elasticity: % change of t per 1 % change"
            if grid.kind == "parameter"
            else "share of the predicted time",
            fontsize="medium",
        )
    axes[0].set_title(describe(grid), fontsize="medium")
    figure.suptitle(title)
    return figure


def _lines(axes, grid: SensitivityGrid, values: np.ndarray, stderr: np.ndarray | None = None,
           quantile: float | None = None) -> None:
    """One line per P (or one over P), each with its band of +- quantile standard errors."""
    def band(x, y, se, line):
        if se is not None and quantile is not None:
            axes.fill_between(x, y - quantile * se, y + quantile * se, color=line.get_color(), alpha=0.18,
                              linewidth=0)

    if len(grid.sizes) == 1:
        (line,) = axes.plot(
            grid.procs,
            values[:, 0],
            marker="o",
            label=f"{grid.parameter} = {grid.sizes[0]:g}" if grid.parameter else None,
        )
        band(grid.procs, values[:, 0], None if stderr is None else stderr[:, 0], line)
        axes.set_xscale("log", base=2)
        axes.set_xlabel("MPI processes P")
    else:
        for i, p in enumerate(grid.procs):
            (line,) = axes.plot(grid.sizes, values[i], marker="o", markersize=3, label=f"P = {p}")
            band(grid.sizes, values[i], None if stderr is None else stderr[i], line)
        axes.set_xscale("log")
        axes.set_xlabel(f"problem size {grid.parameter}")
    if stderr is not None and quantile is not None:
        axes.text(0.01, 0.01, f"bands: {100 * grid.level:g} % confidence (costs' covariance)",
                  transform=axes.transAxes, fontsize="x-small", alpha=0.7)
    axes.xaxis.set_minor_formatter(NullFormatter())
    axes.grid(True, which="both", alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize="small")
