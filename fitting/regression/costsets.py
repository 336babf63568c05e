"""Choosing the cost set of a calibration: fit a ladder of cost sets, richest first, and keep the first
whose costs are all admissible (fitted, none negative).

Fitting policy on top of ``fit.fit_machine``; the ladder itself is ``costs.COST_SET_LADDER``.  Used by
``perfeq tour`` after its calibration campaign.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from perfeq.errors import FitError
from perfeq.fitting.costs import COST_SET_LADDER
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.profile import MachineProfile
from perfeq.fitting.regression.runs import Run


def fit_first_admissible(
    runs: Sequence[Run],
    ladder: Sequence[Sequence[str]] = COST_SET_LADDER,
    *,
    intercept: bool = True,
    report: Callable[[str], None] | None = None,
) -> MachineProfile:
    """Fit each cost set of ``ladder`` in turn and return the first fit without a negative cost.

    A set that cannot be fitted is skipped; a set with negative costs is kept as the fallback and the
    next one tried, so when every fitted set has a negative cost the last one fitted is returned.
    ``report`` receives one line per set given up (``costs a,b: why; trying fewer``).  FitError when
    no set can be fitted at all.
    """
    say = report or (lambda _text: None)
    profile = None
    for costs in ladder:
        try:
            candidate = fit_machine(runs, costs=list(costs), intercept=intercept)
        except FitError as exc:
            say(f"costs {','.join(costs)}: {exc}; trying fewer")
            continue
        negative = [name for name, value in candidate.values.items() if value < 0]
        profile = candidate
        if not negative:
            break
        say(f"costs {','.join(costs)}: negative {', '.join(negative)} (not a machine cost); trying fewer")
    if profile is None:
        raise FitError("no set of costs could be fitted from the calibration runs")
    return profile
