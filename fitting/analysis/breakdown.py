"""Where the predicted time goes: the share of each cost and of each basic block over N and P (paper Fig. 6).

Prices the model with pricing.TimeEquation at every grid point, on the slowest rank: per cost,
beta_k chi_k; per block (and per MPI call site, loop header, parallel region), its counts priced
the same way.  Cache and page misses are counted per loop nest, so they are blocks of their own.
The K blocks with the largest share anywhere on the grid are kept, the rest is summed as "other".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from perfeq.fitting.analysis.figures import new_figure, save_figure
from perfeq.fitting.analysis.pricing import CONST_LABEL, Grid, TimeEquation
from perfeq.fitting.costs import INTERCEPT, cost_spec
from perfeq.fitting.regression.profile import MachineProfile
from perfeq.symbolic.machine import Machine
from perfeq.symbolic.model import CostModel

OTHER = "other"
DEFAULT_TOP = 6
LINE_LIMIT = 200.0  # percent: the y range of line plots (negative costs) is cut here


@dataclass
class Breakdown:
    """Seconds per cost and per block over sizes x procs (arrays of shape (procs, sizes))."""

    program: str
    parameter: str | None
    sizes: list[float]
    procs: list[int]
    fixed: dict[str, float]
    time: np.ndarray
    by_cost: dict[str, np.ndarray]
    by_block: dict[str, np.ndarray]  # the top blocks, then "other"
    notes: list[str] = field(default_factory=list)

    def shares(self, kind: str) -> dict[str, np.ndarray]:
        """Percent of the predicted time per cost (``kind="cost"``) or block (``"block"``); NaN at t <= 0."""
        parts = self.by_cost if kind == "cost" else self.by_block
        with np.errstate(divide="ignore", invalid="ignore"):
            return {
                name: np.where(self.time > 0, 100.0 * seconds / self.time, np.nan)
                for name, seconds in parts.items()
            }

    def to_dict(self) -> dict:
        def listed(array):
            return [[None if not np.isfinite(v) else float(v) for v in row] for row in array]

        return {
            "program": self.program,
            "parameter": self.parameter,
            "sizes": self.sizes,
            "procs": self.procs,
            "fixed": self.fixed,
            "time_s": listed(self.time),
            "notes": self.notes,
            "cost_seconds": {k: listed(v) for k, v in self.by_cost.items()},
            "cost_percent": {k: listed(v) for k, v in self.shares("cost").items()},
            "block_seconds": {k: listed(v) for k, v in self.by_block.items()},
            "block_percent": {k: listed(v) for k, v in self.shares("block").items()},
        }


def breakdown(
    model: CostModel, profile: MachineProfile, machine: Machine, grid: Grid, top: int = DEFAULT_TOP
) -> Breakdown:
    """The predicted time over ``grid`` split by cost and by block (the ``top`` largest, then "other")."""
    equation = TimeEquation(model, profile, machine, grid.threads)
    shape = (len(grid.procs), len(grid.sizes))
    time = np.zeros(shape)
    costs: dict[str, np.ndarray] = {}
    blocks: dict[str, np.ndarray] = {}
    for i, p in enumerate(grid.procs):
        for j, size in enumerate(grid.sizes):
            values = grid.values(size)
            for name, seconds in equation.cost_seconds(values, p).items():
                costs.setdefault(name, np.zeros(shape))[i, j] = seconds
            for name, seconds in equation.block_seconds(values, p).items():
                blocks.setdefault(name, np.zeros(shape))[i, j] = seconds
            time[i, j] = sum(costs[name][i, j] for name in costs)
    notes = []
    if np.any(time <= 0):
        notes.append(
            "the predicted time is not positive at some points (check the profile's costs): no shares there"
        )
    negative = [name for name, value in profile.values.items() if value < 0]
    if negative:
        notes.append(
            f"negative cost(s) {', '.join(negative)} in the profile: shares are drawn as lines, "
            f"not stacked, and may be negative (the y axis is cut at +-{LINE_LIMIT:g} %)"
        )
    return Breakdown(
        Path(model.program).name,
        grid.parameter,
        list(grid.sizes),
        list(grid.procs),
        dict(grid.fixed),
        time,
        costs,
        _top_blocks(blocks, time, top),
        notes,
    )


def _top_blocks(blocks: dict[str, np.ndarray], time: np.ndarray, top: int) -> dict[str, np.ndarray]:
    """The ``top`` blocks by their largest |share| on the grid, in that order, then "other"."""
    with np.errstate(divide="ignore", invalid="ignore"):
        score = {
            name: float(np.nanmax(np.where(time > 0, np.abs(seconds) / time, np.abs(seconds)), initial=0.0))
            for name, seconds in blocks.items()
        }
    ranked = sorted(blocks, key=lambda name: -score[name])
    kept = {name: blocks[name] for name in ranked[:top] if score[name] > 0}
    rest = [blocks[name] for name in blocks if name not in kept]
    if rest:
        kept[OTHER] = np.sum(rest, axis=0)
    return kept


def format_breakdown(result: Breakdown) -> str:
    """Plain text: the share of each cost at every grid point, and of the top blocks at the largest size."""
    costs = list(result.by_cost)
    cost_shares = result.shares("cost")
    name = result.parameter or ""
    lines = [
        f"{result.program}: share of the predicted time per cost (%), slowest rank"
        + (f"; fixed {', '.join(f'{k}={v:g}' for k, v in result.fixed.items())}" if result.fixed else "")
    ]
    lines.append(f"  {'P':>5} {name:>10} {'time (s)':>11}" + "".join(f"{c:>9}" for c in costs))
    for i, p in enumerate(result.procs):
        for j, size in enumerate(result.sizes):
            shares = "".join(f"{_percent(cost_shares[c][i, j]):>9}" for c in costs)
            lines.append(f"  {p:>5} {size:>10g} {result.time[i, j]:>11.4g}{shares}")
    block_shares = result.shares("block")
    last = len(result.sizes) - 1
    where = f"{name} = {result.sizes[last]:g}" if result.parameter else "the given size"
    lines.append(f"share per block at {where} (%)")
    lines.append("  " + "".join(f"{'P=' + str(p):>8}" for p in result.procs) + "  block")
    for block, shares in block_shares.items():
        lines.append(
            "  " + "".join(f"{_percent(shares[i, last]):>8}" for i in range(len(result.procs))) + f"  {block}"
        )
    lines.extend(f"note: {note}" for note in result.notes)
    return "\n".join(lines)


def _percent(value: float) -> str:
    return f"{value:.1f}" if np.isfinite(value) else "-"


def plot_breakdown(result: Breakdown, path: str | Path, title: str | None = None) -> Path:
    """Write :func:`breakdown_figure` as PNG (SVG for ``.svg``)."""
    return save_figure(breakdown_figure(result, title), path)


def breakdown_figure(result: Breakdown, title: str | None = None) -> Figure:
    """Fig. 6 for every cost and the top blocks: share of time against problem size, one panel per P.

    Two rows of panels, by cost and by block; stacked areas when every part is >= 0, lines otherwise.
    With a single problem size, one panel per row with P on the x axis.
    """
    along_procs = len(result.sizes) == 1
    columns = 1 if along_procs else len(result.procs)
    figure = new_figure(width=min(2.9 * columns, 20.0) + 3.8, height=7.4)
    axes = figure.subplots(2, columns, squeeze=False, sharey="row")
    for row, kind in enumerate(("cost", "block")):
        shares = _fixed_first(result.shares(kind))
        colors = _colors(shares)
        stacked = all(np.all(np.nan_to_num(v) >= 0) for v in shares.values())
        for column in range(columns):
            ax = axes[row, column]
            if along_procs:
                x = np.array(result.procs, dtype=float)
                series = {name: values[:, 0] for name, values in shares.items()}
                ax.set_xscale("log", base=2)
                ax.set_xlabel("MPI processes P")
            else:
                x = np.array(result.sizes, dtype=float)
                series = {name: values[column] for name, values in shares.items()}
                ax.set_xscale("log")
                ax.set_xlabel(f"problem size {result.parameter}")
                ax.set_title(f"P = {result.procs[column]}", fontsize="medium")
            labels = [_legend_label(name, kind) for name in series]
            if stacked:
                ax.stackplot(
                    x, *[np.nan_to_num(v) for v in series.values()], labels=labels, colors=colors, alpha=0.85
                )
                ax.set_ylim(0, 100)
            else:
                for label, values, color in zip(labels, series.values(), colors, strict=True):
                    ax.plot(x, values, marker="o", markersize=3, label=label, color=color)
                ax.axhline(0, color="grey", linewidth=0.8)
                low, high = ax.get_ylim()
                ax.set_ylim(max(low, -LINE_LIMIT), min(high, LINE_LIMIT))  # t near 0 makes shares explode
            ax.set_axisbelow(True)
            ax.grid(True, which="major", alpha=0.3)
            ax.margins(x=0)
            ax.xaxis.set_minor_formatter(NullFormatter())
        axes[row, 0].set_ylabel(f"share of predicted time per {kind} (%)")
        handles, labels = axes[row, -1].get_legend_handles_labels()
        axes[row, -1].legend(
            handles[::-1],
            labels[::-1],
            loc="center left",
            bbox_to_anchor=(1.02, 0.5),
            fontsize="small",
            frameon=False,
        )
    figure.suptitle(title or f"{result.program}: where the predicted time goes (slowest rank)")
    return figure


def _fixed_first(shares: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The fixed per-run time at the bottom of the stack, in both rows."""
    fixed = [name for name in shares if name in (INTERCEPT, CONST_LABEL)]
    return {name: shares[name] for name in (*fixed, *(n for n in shares if n not in fixed))}


def _colors(shares: dict[str, np.ndarray]) -> list[str]:
    """Grey for the fixed time and for "other", the colour cycle for the rest."""
    cycle = iter(f"C{i % 10}" for i in range(len(shares)))
    return [
        "0.72" if name in (INTERCEPT, CONST_LABEL) else "0.88" if name == OTHER else next(cycle)
        for name in shares
    ]


def _legend_label(name: str, kind: str) -> str:
    if kind == "cost":
        return f"{name}: {cost_spec(name).description.removeprefix('seconds per ')}"
    return name if len(name) <= 60 else name[:57] + "..."
