"""Machines ranked by perfeq's own machine profiles: the time ``sum(counts[c] * costs[c])`` each
profile predicts for one application's counts, scored by thresholded inversions against run times.

The profiles are read by ``tables`` (only format, version and the cost values); ``perfeq rank
--profiles --counts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from perfeq.errors import RankError
from perfeq.fitting.ranking.inversions import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    CaseInversions,
    check_thresholds,
    thresholded_inversions,
)
from perfeq.fitting.ranking.tables import RuntimeTable, profile_costs


@dataclass(frozen=True)
class ProfileRanking:
    """Machines ranked by the time perfeq's cost model predicts for one application's counts."""

    machines: tuple[str, ...]  # fastest first
    predicted: tuple[float, ...]  # seconds, sum over costs of count * seconds per unit
    cases: tuple[CaseInversions, ...] = ()
    unmatched: tuple[str, ...] = ()  # machines with run times but no profile
    terms: dict[str, dict[str, float]] = field(default_factory=dict)  # machine -> cost -> seconds

    @property
    def total(self) -> int:
        return sum(case.inversions for case in self.cases)


def rank_profiles(profiles: Mapping[str, Mapping], counts: Mapping[str, float], *,
                  runtimes: RuntimeTable | None = None, alpha: float = DEFAULT_ALPHA,
                  beta: float = DEFAULT_BETA) -> ProfileRanking:
    """Rank machines by predicted time ``sum(counts[c] * costs[c]["value"])`` and score the ranking.

    Parameters
    ----------
    profiles
        Machine name -> parsed ``perfeq-machine`` version 1 or 2 profile; only ``format``, ``version`` and
        ``costs[name]["value"]`` (seconds per unit) are read.
    counts
        Cost name -> predicted count of the application (``ops``, ``par``, ``l1``, ``l2``, ``page``,
        ``startup``, ``bytes``, or any cost the profiles have).  A zero count needs no cost.
    runtimes
        Optional measured run times: each case is scored on the machines that have a profile.

    Returns
    -------
    ProfileRanking
    """
    check_thresholds(alpha, beta)
    if not profiles:
        raise RankError("no machine profiles given")
    if not counts:
        raise RankError("no counts given")
    predicted, terms = {}, {}
    for machine, profile in profiles.items():
        costs = profile_costs(machine, profile)
        machine_terms = {}
        for cost, count in counts.items():
            if count == 0:
                continue
            if cost not in costs:
                raise RankError(f"the counts use cost {cost!r}, which this profile lacks; its costs are "
                                f"{', '.join(costs)}", location=machine)
            machine_terms[cost] = count * costs[cost]
        terms[machine] = machine_terms
        predicted[machine] = sum(machine_terms.values())
    names = list(predicted)
    order = sorted(range(len(names)), key=lambda i: (predicted[names[i]], i))
    cases, unmatched = [], []
    if runtimes is not None:
        for case in runtimes.cases:
            keep = [i for i, machine in enumerate(case.machines) if machine in predicted]
            unmatched.extend(machine for machine in case.machines if machine not in predicted)
            if len(keep) < 2:
                continue
            scores = [predicted[case.machines[i]] for i in keep]
            count = thresholded_inversions(scores, case.seconds[keep], alpha=alpha, beta=beta)
            cases.append(CaseInversions(case.application, case.processors, len(keep), count))
    return ProfileRanking(tuple(names[i] for i in order), tuple(predicted[names[i]] for i in order),
                          tuple(cases), tuple(dict.fromkeys(unmatched)), terms)
