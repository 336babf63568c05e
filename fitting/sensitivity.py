"""Sensitivity of the predicted time to a machine cost (the paper's section 5, Fig. 7).

With t = sum_k chi_k(N, P) beta_k, the derivative dt/dbeta_k is chi_k itself: the increase in
seconds per unit increase of that cost.  It is evaluated over a grid of the first problem-size
parameter and P (slowest rank), also as an elasticity (beta_k chi_k / t, the share of time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from perfeq.errors import UsageError

STEP_UNITS = {"startup": (1e-5, "10 us"), "bytes": (1e-9, "1 ns/byte"), "ops": (1e-9, "1 ns/op"),
              "par": (1e-6, "1 us"), "l1": (1e-9, "1 ns"), "l2": (1e-8, "10 ns"), "page": (1e-6, "1 us")}


@dataclass
class SensitivityGrid:
    cost: str
    parameter: str
    sizes: list[float]
    procs: list[int]
    increase: np.ndarray  # seconds added per STEP of the cost, shape (procs, sizes)
    elasticity: np.ndarray | None  # share of the predicted time, same shape (None without a profile)
    step: float
    step_label: str
    expression: str

    def to_dict(self) -> dict:
        return {
            "cost": self.cost, "parameter": self.parameter, "sizes": self.sizes, "procs": self.procs,
            "step": self.step, "step_label": self.step_label, "expression": self.expression,
            "increase_s": self.increase.tolist(),
            "elasticity": None if self.elasticity is None else self.elasticity.tolist(),
        }


def parse_range(text: str) -> list[float]:
    """``1000:64000`` (8 geometric points), ``1000:64000:12`` or ``1,2,4,8``."""
    try:
        if ":" in text:
            parts = text.split(":")
            lo, hi = float(parts[0]), float(parts[1])
            count = int(parts[2]) if len(parts) > 2 else 8
            if lo <= 0 or hi < lo or count < 1:
                raise ValueError
            return [float(v) for v in np.unique(np.round(np.geomspace(lo, hi, count)))]
        return [float(v) for v in text.split(",") if v]
    except ValueError:
        raise UsageError(f"{text}: expected LOW:HIGH[:COUNT] or a list like 1,2,4") from None


def sensitivity(model, cost: str, parameter: str, sizes: list[float], procs: list[int],
                fixed: dict[str, float], profile=None, machine=None, threads: int = 1) -> SensitivityGrid:
    """dt/dbeta_cost over sizes x procs (slowest rank), scaled to one STEP of the cost."""
    if cost not in STEP_UNITS:
        raise UsageError(f"--wrt {cost}: expected one of {', '.join(STEP_UNITS)}")
    step, label = STEP_UNITS[cost]
    increase = np.zeros((len(procs), len(sizes)))
    share = np.zeros_like(increase) if profile is not None else None
    for i, p in enumerate(procs):
        for j, n in enumerate(sizes):
            values = {**fixed, parameter: n}
            counts = model.counts(values, int(p), threads, machine)["slowest"]
            increase[i, j] = step * counts.get(cost, 0.0)
            if profile is not None:
                costs = profile.values
                total = sum(costs.get(k, 0.0) * counts.get(k, 0.0) for k in costs if k != "const") + costs.get("const", 0)
                share[i, j] = costs.get(cost, 0.0) * counts.get(cost, 0.0) / total if total > 0 else np.nan
    expression = str(sp.factor(model.totals().get(cost, 0))) if cost not in ("l1", "l2", "page") else \
        "from loop-nest footprints and the cache sizes"
    return SensitivityGrid(cost, parameter, list(sizes), [int(p) for p in procs], increase, share, step, label,
                           expression)


def plot_sensitivity(grid: SensitivityGrid, path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    for i, p in enumerate(grid.procs):
        ax.plot(grid.sizes, grid.increase[i], marker="o", label=f"P = {p}")
    ax.set_xscale("log")
    ax.set_xlabel(f"problem size {grid.parameter}")
    ax.set_ylabel(f"increase in run time per {grid.step_label} of {grid.cost} (s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
