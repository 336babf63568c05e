"""Costs from a probe file: the one owner of "what a probe says an access, an operation or a message
costs" (fitting/convolution, Snavely et al.'s machine profile).

Reads a ``perfeq-probes`` file (runtime/probes/document.py) and answers, at one statistic of the
repetitions (``median``, or the quartiles ``q1``/``q3`` for the band):

* memory: seconds per access of a pattern at a working set, for k processes on one node (the
  MAPS-like curves ``read``, ``update``, ``stride``, interpolated log-log in the working set);
* the cache levels of the probed machine (L1, the middle levels when the file lists them, the last
  level shared by the node's processes) and the level a working set falls in;
* compute: seconds per independent and chained addition, integer operation and mispredicted branch;
* network: seconds per message of a size (ping-pong within a node) and per call of a collective on
  P processes (bcast, allreduce, alltoall, barrier) when the file has that P.

Each answer says which curve it came from, so a prediction can say where its costs came from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from perfeq.errors import UsageError
from perfeq.runtime.probes.curves import Curve
from perfeq.runtime.probes.document import FORMAT, ProbeResults, load_probes

STATISTICS = ("median", "q1", "q3")
# The statistic of each curve that makes things slower: rates (B/s) at q1, times (s) at q3.
SLOWER = {"B/s": "q1", "s": "q3"}
FASTER = {"B/s": "q3", "s": "q1"}
# MPI calls with a collective curve of their own
COLLECTIVE_CURVES = {"MPI_Bcast": "bcast", "MPI_Allreduce": "allreduce", "MPI_Alltoall": "alltoall",
                     "MPI_Barrier": "barrier"}
WORD = 8  # bytes per access the read and stride probes count


@dataclass(frozen=True)
class CacheLevel:
    name: str  # L1, L2, L3, memory
    bytes: float  # capacity available to one process (a shared last level divided by the node's processes)
    sets: int = 0  # sets of the whole cache (0: associativity not known, or memory)
    ways: int = 0
    page_lines: int = 0  # lines per page: the set bits a program's addresses fix (0: all of them)

    def conflict(self, step_lines: int) -> int:
        """How many times fewer sets than the cache has a stream of addresses ``step_lines`` lines
        apart maps to (its lines go to sets s, s + step, ... mod sets): gcd(sets, step), 1 for an odd
        step or an unknown associativity.  Such a stream can keep 1/conflict of the cache.  A cache
        with more sets than a page has lines is indexed by physical addresses beyond the page, which
        scatter over the sets: only the page's lines are fixed, gcd(page lines, step) at most."""
        if not self.sets or step_lines <= 0:
            return 1
        fixed = min(self.sets, self.page_lines) if self.page_lines else self.sets
        return math.gcd(fixed, step_lines)


def is_probe_file(path) -> bool:
    """Whether ``path`` is a ``perfeq-probes`` file (by its ``format`` field; anything else: False)."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


class ProbeCosts:
    """The costs a probe file gives, at one statistic (``median``, ``q1``, ``q3``) or at the bound
    that makes everything slower (``slow``) or faster (``fast``)."""

    def __init__(self, results: ProbeResults, statistic: str = "median", source: str = ""):
        if statistic not in (*STATISTICS, "slow", "fast"):
            raise ValueError(statistic)
        self.results = results
        self.statistic = statistic
        self.source = source
        self.machine = results.machine

    @classmethod
    def load(cls, path, statistic: str = "median") -> ProbeCosts:
        return cls(load_probes(path), statistic, str(path))

    def at(self, statistic: str) -> ProbeCosts:
        return ProbeCosts(self.results, statistic, self.source)

    # ---- curves ---------------------------------------------------------------------------------
    def _values(self, curve: Curve) -> np.ndarray:
        kind = self.statistic
        if kind == "slow":
            kind = SLOWER[curve.spec.unit]
        elif kind == "fast":
            kind = FASTER[curve.spec.unit]
        return _statistic(curve, kind)

    def memory_curve(self, name: str, procs: int) -> Curve:
        """The curve ``name`` measured with the most processes at once not above ``procs`` (the
        fewest measured when ``procs`` is below them all)."""
        counts = self.results.procs_of(name)
        if not counts:
            raise UsageError(f"{self.source}: the probe file has no '{name}' curve (run perfeq probe again)")
        below = [k for k in counts if k <= procs]
        return self.results.curve(name, max(below) if below else min(counts))

    def memory_rate(self, name: str, procs: int, working_set):
        """The rate of memory curve ``name`` (B/s per process) at ``working_set`` bytes (a number or
        an array), ``procs`` processes at once, interpolated log-log between the measured working
        sets (the ends held)."""
        curve = self.memory_curve(name, procs)
        x = np.log(np.asarray(curve.x, dtype=float))
        y = np.log(self._values(curve))
        where = np.log(np.maximum(np.asarray(working_set, dtype=float), curve.x[0]))
        return np.exp(np.interp(where, x, y))

    def levels(self, procs_on_node: int) -> list[CacheLevel]:
        """The probed machine's cache levels, smallest first, then memory.  The last level is
        shared by the node's processes: each gets its share.  Middle levels come from the file's
        ``machine.caches`` (level -> bytes) when it has it."""
        machine = self.machine
        l1, last = float(machine.get("l1_bytes", 32 << 10)), float(machine.get("l2_bytes", 8 << 20))
        caches = {int(k): float(v) for k, v in (machine.get("caches") or {}).items()}
        ways = {int(k): int(v) for k, v in (machine.get("ways") or {}).items()}  # (absent before session 23)
        line = float(machine.get("line_bytes", 64))

        page = int(float(machine.get("page_bytes", 4096)) // line)

        def sets(level: int, size: float) -> int:
            return int(size // (ways[level] * line)) if ways.get(level) else 0

        found = [CacheLevel("L1", l1, sets(1, l1), ways.get(1, 0), page)]
        for level in sorted(caches):
            if 1 < level and caches[level] < last:
                found.append(CacheLevel(f"L{level}", caches[level], sets(level, caches[level]), ways.get(level, 0), page))
        name = f"L{max(caches)}" if caches and max(caches) > 1 else "LLC"  # (a file without machine.caches)
        top = max(caches) if caches else 0
        found.append(CacheLevel(name, last / max(procs_on_node, 1), sets(top, last), ways.get(top, 0), page))
        found.append(CacheLevel("memory", math.inf))
        return found

    # ---- compute --------------------------------------------------------------------------------
    def compute(self, name: str) -> float:
        """Seconds per operation of compute curve ``name`` (0 when the file lacks it)."""
        curve = self.results.curve(name)
        return float(self._values(curve)[0]) if curve is not None else 0.0

    def misprediction(self) -> float:
        """Seconds per mispredicted branch: twice ``branch_difference`` (about half the random
        branches mispredict), never below zero."""
        return max(2.0 * self.compute("branch_difference"), 0.0)

    # ---- network --------------------------------------------------------------------------------
    def message(self, size: float, across: bool = False) -> tuple[float, str]:
        """Seconds per point-to-point message of ``size`` bytes: half a ping-pong round trip at that
        size (interpolated; above the largest size, that time plus the rest at the largest size's
        bandwidth), within a node, or across two nodes with ``across`` when the file has that curve
        (else within a node, and the source says so)."""
        inter = self.results.curve("pingpong_inter") if across else None
        curve = inter if inter is not None else self.results.curve("pingpong_intra")
        if curve is None:
            raise UsageError(f"{self.source}: the probe file has no ping-pong curve (it was run on one "
                             "core): messages cannot be priced")
        name = curve.name + (" (no ping-pong across nodes probed)" if across and inter is None else "")
        return _along(curve.x, self._values(curve), size), name

    def launch(self, procs: int) -> tuple[float, str] | None:
        """Seconds to start and end an MPI job of ``procs`` processes (the ``launch`` curve: the
        launcher, MPI_Init, MPI_Finalize), interpolated over the process counts probed; beyond the
        largest, its time (said in the source); None when the file has no such curve (written
        before it)."""
        curve = self.results.curve("launch")
        if curve is None:
            return None
        values = self._values(curve)
        if procs > curve.x[-1]:
            return float(values[-1]), f"launch (P={curve.x[-1]:g}, the most probed)"
        return _along(curve.x, values, procs), f"launch (P={procs})"

    def collective(self, call: str, procs: int, size: float) -> tuple[float, str] | None:
        """Seconds per call of collective ``call`` on ``procs`` processes with ``size`` bytes, from its
        curve on exactly that many processes; None when the file has none."""
        name = COLLECTIVE_CURVES.get(call)
        if name is None:
            return None
        if name == "barrier":
            curve = self.results.curve("barrier")
            if curve is None or float(procs) not in curve.x:
                return None
            return float(self._values(curve)[list(curve.x).index(float(procs))]), "barrier"
        curve = self.results.curve(name, procs)
        if curve is None:
            return None
        return _along(curve.x, self._values(curve), size), f"{name} (P={procs})"


def _along(xs, values, size: float) -> float:
    """A time against message size: linear interpolation in log2(1 + size); beyond the largest size,
    its time plus the extra bytes at the slope of the last two points."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(values, dtype=float)
    if size <= x[-1] or len(x) < 2:
        return float(np.interp(math.log2(1 + max(size, 0.0)), np.log2(1 + x), y))
    slope = max((y[-1] - y[-2]) / (x[-1] - x[-2]), 0.0)
    return float(y[-1] + slope * (size - x[-1]))


@lru_cache(maxsize=256)
def _cached(curve: Curve, kind: str) -> tuple[float, ...]:
    return tuple(curve.statistic(kind))


def _statistic(curve: Curve, kind: str) -> np.ndarray:
    return np.asarray(_cached(curve, kind), dtype=float)
