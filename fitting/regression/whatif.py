"""What-if edits of a machine profile's costs (``perfeq predict --set startup=1us --set bytes=0.5x``).

An edit either sets one cost to a value given by hand (with a unit, as the costs are printed:
``1us``, ``0.5ns``, ``2ms``, ``3e-6s``) or scales it by a factor (``0.5x``).  Every other cost keeps
its value, its standard error and its covariances, so a prediction's intervals still carry their
uncertainty:

* a cost **set** by hand is exact: its standard error and its covariances with the others are 0, its
  source becomes ``manual``, and its calibration range is dropped (a hand value is not extrapolated);
* a cost **scaled** by ``f`` keeps its source; its standard error and interval are scaled by ``f`` and
  its covariances with the others too (``Cov(f b_k, b_j) = f Cov(b_k, b_j)``): the same relative
  uncertainty, the same correlations.

The residual error and the between-application error are the fit's, unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from perfeq.errors import UsageError
from perfeq.fitting.costs import COSTS, INTERCEPT, canonical_order, cost_spec
from perfeq.fitting.regression.profile import CostEstimate, MachineProfile

# seconds per unit of the absolute values an edit takes (the CostSpec display units, and seconds)
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12}
_EDIT_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*([0-9.]+(?:[eE][-+]?\d+)?)\s*(x|[a-zµ]+)\s*$")


@dataclass(frozen=True)
class CostEdit:
    """One edit: cost ``name`` set to ``seconds`` per count, or scaled by ``factor``."""

    name: str
    seconds: float | None = None
    factor: float | None = None

    @property
    def scales(self) -> bool:
        return self.factor is not None


def parse_edit(text: str) -> CostEdit:
    """``startup=1us`` (a value with its unit) or ``bytes=0.5x`` (a factor); UsageError otherwise."""
    match = _EDIT_RE.match(text)
    names = ", ".join((*COSTS, INTERCEPT))
    if not match:
        raise UsageError(f"--set '{text}': expected COST=VALUEUNIT (e.g. startup=1us, bytes=0.5ns) or "
                         f"COST=FACTORx (e.g. bytes=0.5x)")
    name, number, unit = match.groups()
    if name not in (*COSTS, INTERCEPT):
        raise UsageError(f"--set '{text}': unknown cost '{name}'; costs: {names}")
    try:
        value = float(number)
    except ValueError:
        raise UsageError(f"--set '{text}': '{number}' is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"--set '{text}': a cost or a factor is a finite number >= 0")
    if unit == "x":
        return CostEdit(name, factor=value)
    if unit not in UNITS:
        raise UsageError(f"--set '{text}': unknown unit '{unit}'; give one of {', '.join(UNITS)} (e.g. "
                         f"{name}=1{cost_spec(name).unit}, seconds per {cost_spec(name).event}) or a factor (2x)")
    return CostEdit(name, seconds=value * UNITS[unit])


def apply_edits(profile: MachineProfile, edits: Iterable[CostEdit]) -> tuple[MachineProfile, tuple[str, ...]]:
    """``profile`` with ``edits`` applied, and one sentence per edit saying what changed."""
    edits = list(edits)
    seen = [edit.name for edit in edits]
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise UsageError(f"--set: cost '{twice[0]}' edited twice")
    costs = dict(profile.costs)
    factors: dict[str, float] = {}  # covariance factor per cost: f when scaled, 0 when set by hand
    said = []
    for edit in edits:
        spec = cost_spec(edit.name)
        before = costs.get(edit.name)
        if edit.scales:
            if before is None:
                raise UsageError(f"--set {edit.name}={edit.factor:g}x: the machine profile has no '{edit.name}' "
                                 f"cost to scale; set it to a value instead (e.g. {edit.name}=1{spec.unit})")
            costs[edit.name] = _scaled(before, edit.factor)
            factors[edit.name] = edit.factor
            said.append(f"{edit.name} scaled {edit.factor:g}x to {_shown(costs[edit.name].value, spec)} "
                        f"(was {_shown(before.value, spec)}; its standard error and covariances scaled alike)")
        else:
            exact = 0.0 if profile.covariance is not None else None
            costs[edit.name] = CostEstimate(edit.seconds, stderr=exact, ci_low=edit.seconds if exact is not None
                                            else None, ci_high=edit.seconds if exact is not None else None,
                                            source="manual")
            factors[edit.name] = 0.0
            was = "not priced before" if before is None else f"was {_shown(before.value, spec)}"
            said.append(f"{edit.name} set by hand to {_shown(edit.seconds, spec)} ({was}; exact: no uncertainty)")
    ordered = {name: costs[name] for name in canonical_order(list(costs))}
    return replace(profile, costs=ordered, covariance=_covariance(profile, ordered, factors),
                   calibration_range=_ranges(profile, edits)), tuple(said)


def _scaled(estimate: CostEstimate, factor: float) -> CostEstimate:
    def times(value: float | None) -> float | None:
        return None if value is None else value * factor

    return replace(estimate, value=estimate.value * factor, stderr=times(estimate.stderr),
                   ci_low=times(estimate.ci_low), ci_high=times(estimate.ci_high))


def _covariance(profile: MachineProfile, costs: dict[str, CostEstimate], factors: dict[str, float]):
    """The covariance with each row and column scaled by its cost's factor (1 when not edited, 0 when set
    by hand or new); None for a profile without one."""
    if profile.covariance is None:
        return None
    old = profile.covariance

    def entry(row: str, col: str) -> float:
        if row not in old or col not in old:
            return 0.0
        return old[row][col] * factors.get(row, 1.0) * factors.get(col, 1.0)

    return {row: {col: entry(row, col) for col in costs} for row in costs}


def _ranges(profile: MachineProfile, edits: list[CostEdit]):
    if profile.calibration_range is None:
        return None
    exact = {edit.name for edit in edits if not edit.scales}
    return {name: bounds for name, bounds in profile.calibration_range.items() if name not in exact}


def _shown(seconds: float, spec) -> str:
    return f"{seconds / spec.unit_seconds:.4g} {spec.display_unit}"
