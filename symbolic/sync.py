"""The synchronising MPI call sites of a model and their measured compute bursts (symbolic stage).

Part of perfeq stage 3 (symbolic/).  For each call site whose MPI call waits for other ranks (a
collective: ``global``; a blocking point-to-point call: ``local``; runtime/mpi/calls.py), the model
keeps how often a rank calls it (a count expression, like an item's) and, per training trace and
rank, the moments of the compute bursts before the call and of the time inside it, as the runtime
measured them (trace version 2).  The fitting stage turns them into the synchronisation term
(perfeq.fitting.regression.synchronisation).  Traces without times (version 1) give sites without
runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from perfeq.runtime.mpi.calls import MPI_CALLS
from perfeq.runtime.trace import TimeStats

# n, sum, sum2, min, max (seconds), and sdiff2 (sum of squared consecutive differences; -1: unknown)
Moments = tuple[int, float, float, float, float, float]


@dataclass(frozen=True)
class SiteRun:
    """One training trace's measurements of one site: per rank the moments of its compute bursts
    and of its time inside the call, and the log2 histogram of the bursts of all ranks."""

    trace: int  # index in the model's traces
    procs: int
    params: dict
    burst: tuple[Moments, ...]
    inside: tuple[Moments, ...]
    bins: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict:
        return {"trace": self.trace, "P": self.procs, "params": self.params, "burst": [list(m) for m in self.burst],
                "inside": [list(m) for m in self.inside], "bins": [list(b) for b in self.bins]}

    @classmethod
    def from_dict(cls, data: dict) -> SiteRun:
        return cls(int(data["trace"]), int(data["P"]), dict(data.get("params", {})),
                   tuple(_moments(m) for m in data["burst"]), tuple(_moments(m) for m in data["inside"]),
                   tuple((int(k), int(c)) for k, c in data.get("bins", [])))


@dataclass
class SyncSite:
    """A synchronising MPI call site in one call-graph context."""

    unit: str
    id: int
    line: int
    function: str
    context: str
    call: str
    synchronisation: str  # "global" or "local"
    calls: sp.Expr  # calls per rank (in the parameters, P, T and the rank)
    runs: list[SiteRun] = field(default_factory=list)

    @property
    def label(self) -> str:
        from pathlib import Path

        return f"{Path(self.unit).name}:{self.line} {self.call} [{self.context}]"


def _moments(item) -> Moments:
    n, total, squares, low, high, *rest = item
    return int(n), float(total), float(squares), float(low), float(high), float(rest[0]) if rest else -1.0


def _row(stats: TimeStats) -> Moments:
    return (stats.n, stats.sum, stats.sum2, stats.min, stats.max, -1.0 if stats.sdiff2 is None else stats.sdiff2)


def _stats(records) -> TimeStats | None:
    merged = None
    for stats in records:
        if stats is not None and stats.n:
            merged = stats if merged is None else merged.merge(stats)
    return merged


def measured_run(trace: int, procs: int, params: dict, by_rank: dict[int, list]) -> SiteRun | None:
    """A site's measurements in one run from its MPI records by rank (None without times)."""
    burst, inside, bins = [], [], {}
    for rank in sorted(by_rank):
        b = _stats(record.burst for record in by_rank[rank])
        i = _stats(record.inside for record in by_rank[rank])
        if b is None or i is None:
            continue
        burst.append(_row(b))
        inside.append(_row(i))
        for k, count in b.bins:
            bins[k] = bins.get(k, 0) + count
    if not burst:
        return None
    return SiteRun(trace, procs, params, tuple(burst), tuple(inside), tuple(sorted(bins.items())))


def synchronising(call: str) -> str | None:
    spec = MPI_CALLS.get(call)
    return None if spec is None else spec.synchronisation
