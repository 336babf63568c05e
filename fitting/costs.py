"""The machine costs perfeq knows: one declarative table used by every fitting module.

Each cost beta is seconds per counted event; the symbolic stage counts the events (chi), the fit
and hand-written machine profiles price them.  ``const`` is the optional per-run start-up term.
The one owner of cost names: named groups of them and the cost sets a calibration tries are here.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfeq.symbolic.chi import CACHE_KEYS, CHI_KEYS


@dataclass(frozen=True)
class CostSpec:
    """One machine cost: its name, what one count is, and the unit it is displayed in."""

    name: str
    event: str  # what one count of this cost is, e.g. "message"
    unit: str  # display unit of the cost, e.g. "us" (the value is stored in seconds)
    unit_seconds: float  # seconds per display unit, e.g. 1e-6 for "us"
    description: str
    # Seconds per count such a cost has on real machines, laptops to clusters, wide on purpose: a
    # fitted cost outside it has absorbed some other effect its column happens to follow.
    plausible: tuple[float, float] | None = None

    @property
    def display_unit(self) -> str:
        """The unit a value is printed in, e.g. ``"us/message"``."""
        return f"{self.unit}/{self.event}"


# The order is fixed for the project: design-matrix columns, CSV columns and profiles follow it.
COST_SPECS: tuple[CostSpec, ...] = (
    CostSpec("ops", "op", "ns", 1e-9, "seconds per operation", (1e-12, 1e-7)),
    CostSpec("par", "transition", "us", 1e-6, "seconds per serial/parallel transition", (1e-8, 1e-3)),
    CostSpec("l1", "L1 miss", "ns", 1e-9, "seconds per L1 cache miss", (1e-11, 1e-7)),
    CostSpec("l2", "L2 miss", "ns", 1e-9, "seconds per L2/last-level cache miss", (1e-10, 1e-6)),
    CostSpec("page", "fault", "us", 1e-6, "seconds per page fault", (1e-8, 1e-2)),
    # Lines a process moves from (and writes back to) memory beyond its share of the last-level
    # cache, by the references' reuse distances (perfeq.symbolic.traffic): the layer conditions'
    # count where l2 is the footprint rule's.  Priced beyond the loads and stores that also count them.
    CostSpec("mem", "memory line", "ns", 1e-9, "seconds per cache line moved from or to memory",
             (1e-11, 1e-6)),
    CostSpec("startup", "message", "us", 1e-6, "seconds per message on the critical path", (1e-8, 1e-2)),
    CostSpec("bytes", "byte", "ns", 1e-9, "seconds per byte transmitted", (1e-12, 1e-7)),
    # The operations split by kind (their sum is ops_total): for fits where one cost per operation
    # cannot serve programs whose operations the compiler treats differently (vectorised
    # arithmetic vs data-dependent branches).  Use either ops or these, not both.
    CostSpec("flops", "flop", "ns", 1e-9, "seconds per floating-point operation", (1e-12, 1e-7)),
    CostSpec("iops", "int op", "ns", 1e-9, "seconds per integer operation", (1e-12, 1e-7)),
    CostSpec("cmp", "comparison", "ns", 1e-9, "seconds per comparison or logical operation", (1e-12, 1e-7)),
    CostSpec("loads", "load", "ns", 1e-9, "seconds per array element or pointer load", (1e-12, 1e-7)),
    CostSpec("stores", "store", "ns", 1e-9, "seconds per array element or pointer store", (1e-12, 1e-7)),
    CostSpec("calls", "call", "ns", 1e-9, "seconds per function call", (1e-11, 1e-6)),
    # Architectural linearization of control flow: data-dependent conditionals mispredicted at
    # min(r, 1 - r) per evaluation, and data-dependent loop exits (perfeq.symbolic.counts).
    CostSpec("branch", "mispredicted branch", "ns", 1e-9, "seconds per mispredicted branch", (1e-10, 1e-7)),
    # Floating-point operations that extend a loop-carried accumulation (s += x[i] * y[i]): each waits
    # for the one before, so such a loop runs at the latency of the addition, which its loads and
    # flops do not price.  A subset of flops (perfeq.instrument.opcount), not more operations.
    CostSpec("chain", "chained flop", "ns", 1e-9, "seconds per chained floating-point operation (latency)",
             (1e-11, 1e-7)),
    # Loads made while other processes or threads of the program run on the node (loads when
    # P T > 1, else 0: perfeq.symbolic.model.NODE_SHARED): what a load costs beyond ``loads`` when the
    # node's shared cache and memory serve more than one core.  Not a count of its own events.
    CostSpec("shared", "load on a shared node", "ns", 1e-9, "seconds added per load while the node is shared",
             (1e-12, 1e-7)),
)

# The optional fixed start-up term (e.g. MPI_Init): its count is 1 for every run.
INTERCEPT_SPEC = CostSpec("const", "run", "ms", 1e-3, "seconds per run (fixed start-up term)")

COSTS: tuple[str, ...] = tuple(spec.name for spec in COST_SPECS)
INTERCEPT = INTERCEPT_SPEC.name

# Named groups of the costs above, each written out here only; the fitting modules (and the tour)
# import them.
PAPER_COSTS: tuple[str, ...] = CHI_KEYS  # the paper's chi (the symbolic stage owns the keys)
MISS_COSTS: tuple[str, ...] = CACHE_KEYS  # counted from loop nests or references and the caches
MESSAGE_COSTS: tuple[str, ...] = ("startup", "bytes")  # per message on the critical path, per byte sent
# The operations split by kind, and the architectural costs beside them (each priced per 1 ns step).
SPLIT_COSTS: tuple[str, ...] = (
    "flops", "iops", "cmp", "loads", "stores", "calls", "branch", "chain", "shared",
)  # fmt: skip

# Best held-out accuracy on the bundled campaigns (benchmarks/prediction_accuracy.py): memory
# operations, mispredicted branches, chained flops and loads on a shared node.
RECOMMENDED_COSTS: tuple[str, ...] = ("loads", "stores", "branch", "chain", "shared")
# The cost sets a calibration chooses from (perfeq.fitting.regression.costsets), richest first: the
# recommended set with the message costs, then simpler sets, down to the paper's operations alone.
COST_SET_LADDER: tuple[tuple[str, ...], ...] = (
    (*RECOMMENDED_COSTS, *MESSAGE_COSTS),
    (*RECOMMENDED_COSTS, "bytes"),
    RECOMMENDED_COSTS,
    ("loads", "stores", "branch", "chain"),
    ("loads", "stores", "branch"),
    # stores priced with the loads (a store costs what a load does, or nothing beyond its line's load)
    ("loads", "branch", "chain", "shared", "bytes"),
    ("loads", "branch", "chain", "shared"),
    ("loads", "branch", "chain"),
    ("loads", "branch"),
    ("ops", "branch", *MESSAGE_COSTS),
    ("ops", "branch", "bytes"),
    ("ops", *MESSAGE_COSTS),
    ("ops", "branch"),
    ("ops", "bytes"),
    ("ops",),
)

_SPECS = {spec.name: spec for spec in (*COST_SPECS, INTERCEPT_SPEC)}


def cost_spec(name: str) -> CostSpec:
    """The spec of cost ``name`` (a count cost or ``const``); KeyError if unknown."""
    return _SPECS[name]


def canonical_order(names: set[str] | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``names`` in the project's fixed cost order, ``const`` last."""
    order = (*COSTS, INTERCEPT)
    return tuple(name for name in order if name in set(names))
