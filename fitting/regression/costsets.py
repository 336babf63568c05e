"""Choosing the cost set of a calibration: the set that best predicts applications the fit never saw.

Fitting policy on top of ``fit.fit_machine``, used by ``perfeq fit`` and ``perfeq validate`` when no
``--costs`` is given, and by ``perfeq tour``.  The candidates are ``costs.COST_SET_LADDER`` (richest
first) restricted to the columns the runs exercise.  A candidate is *admissible* when it can be fitted
on all the runs (no column linearly dependent on the others) and no cost comes out negative (a
negative price is the fit absorbing something else, not a machine cost).  Among the admissible ones
the fit keeps the one with the smallest leave-one-application-out mean |error|: each application's
runs predicted from a fit on the other applications' runs, the error a program the fit never saw
can expect.  With runs of one application there is nothing to hold out, and the first admissible
set of the ladder is kept.  The choice, the criterion and every candidate's held-out error are
recorded in the machine profile (``selection``, docs/machine-profile.md).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from perfeq.errors import FitError
from perfeq.fitting.costs import COST_SET_LADDER
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import count_vector
from perfeq.fitting.regression.profile import (
    HELD_OUT,
    LADDER,
    Candidate,
    CostEstimate,
    MachineProfile,
    Selection,
)
from perfeq.fitting.regression.report import selection_lines
from perfeq.fitting.regression.runs import Run


def candidate_sets(runs: Sequence[Run], ladder: Sequence[Sequence[str]] = COST_SET_LADDER,
                   fixed: Collection[str] = ()) -> list[tuple[str, ...]]:
    """The sets of ``ladder`` whose every cost is a count some run has (non-zero), in ladder order;
    costs in ``fixed`` (known from a probe) are left out of every set, which is then fitted beside them."""
    present = {name for run in runs for name, value in run.counts.items() if value}
    free = (tuple(name for name in costs if name not in fixed) for costs in ladder)
    return [costs for costs in dict.fromkeys(free) if costs and set(costs) <= present]


def select_costs(
    runs: Sequence[Run],
    ladder: Sequence[Sequence[str]] = COST_SET_LADDER,
    *,
    intercept: bool = False,
    weighting: str = "relative",
    fixed: Mapping[str, CostEstimate] | None = None,
) -> Selection:
    """Choose the cost set for ``runs`` (see the module docstring); FitError when none is admissible.
    ``fixed``: costs known from a probe, held in every candidate (``fit.fit_machine``)."""
    sets = candidate_sets(runs, ladder, fixed or {})
    if not sets:
        raise FitError("none of the cost sets perfeq tries has counts in these runs: "
                       f"{'; '.join(','.join(c) for c in ladder)}")
    apps = list(dict.fromkeys(run.app for run in runs))
    judge = len(apps) > 1
    candidates = [_candidate(runs, costs, apps if judge else [], intercept, weighting, fixed) for costs in sets]
    usable = [c for c in candidates if c.admissible]
    if not usable:
        raise FitError("no cost set could be fitted with every cost non-negative: "
                       + "; ".join(f"{','.join(c.costs)}: {c.reason}" for c in candidates))
    if judge:
        return Selection(min(usable, key=_rank_key).costs, HELD_OUT, tuple(candidates), intercept)
    return Selection(usable[0].costs, LADDER, tuple(candidates), intercept)


def fit_selected(
    runs: Sequence[Run],
    ladder: Sequence[Sequence[str]] = COST_SET_LADDER,
    *,
    intercept: bool = False,
    weighting: str = "relative",
    level: float = 0.95,
    report: Callable[[str], None] | None = None,
    fixed: Mapping[str, CostEstimate] | None = None,
) -> MachineProfile:
    """Choose the cost set (``select_costs``), fit it, and keep the choice in the profile.

    ``report`` receives the lines of ``report.selection_lines``; ``fixed`` costs (from a probe) are
    held, not fitted, in every candidate and in the profile.
    """
    selection = select_costs(runs, ladder, intercept=intercept, weighting=weighting, fixed=fixed)
    for line in selection_lines(selection):
        (report or (lambda _text: None))(line)
    profile = fit_machine(runs, list(selection.chosen), weighting=weighting, intercept=intercept, level=level,
                          fixed=fixed)
    return replace(profile, selection=selection)


def _rank_key(candidate: Candidate) -> float:
    return np.inf if candidate.held_out is None else candidate.held_out


def _candidate(runs: Sequence[Run], costs: tuple[str, ...], apps: list[str], intercept: bool,
               weighting: str, fixed: Mapping[str, CostEstimate] | None = None) -> Candidate:
    """``costs`` fitted on every run (admissibility), then held out application by application."""
    try:
        whole = fit_machine(runs, list(costs), weighting=weighting, intercept=intercept, between_app=False,
                            fixed=fixed)
    except FitError as exc:
        return Candidate(costs, reason=str(exc))
    reason = _negative(whole)
    if reason or not apps:
        return Candidate(costs, reason=reason)
    errors: list[float] = []
    for app in apps:
        try:
            fold = fit_machine([r for r in runs if r.app != app], list(costs), weighting=weighting,
                               intercept=intercept, drop_empty=True, between_app=False, fixed=fixed)
        except FitError as exc:
            return Candidate(costs, reason=f"{app} cannot be predicted from the other applications: {exc}")
        mine = [r for r in runs if r.app == app]
        predicted = np.array([count_vector(fold, r.counts) for r in mine]) @ fold.beta
        measured = np.array([r.time_s for r in mine])
        errors.extend(np.abs(predicted - measured) / measured)
    return Candidate(costs, held_out=float(np.mean(errors)))


def _negative(profile: MachineProfile) -> str:
    """Why ``profile`` is not a machine's costs (a negative cost), or ""."""
    negative = [f"{name} = {value:.3g} s" for name, value in profile.values.items() if value < 0]
    return f"negative {', '.join(negative)} (not a machine cost)" if negative else ""
