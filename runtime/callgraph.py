"""The call graph of an instrumented run, built from its trace (all ranks, or one): the one context tree.

Part of perfeq stage 2 (runtime/).  A node is a function context: the path of call sites from
``main``.  Contexts of different threads and ranks with the same path are merged into one node,
which keeps the per-rank counts; the symbolic stage arranges its observation of a run from this
graph (perfeq.symbolic.observe).  What a node's counters cost (block executions, operations) is
not known here: a later stage supplies it (``costs``, perfeq.symbolic.measured.unit_costs).
Exports: a text tree, a JSON dict, and Hatchet's literal format (``GraphFrame.from_literal``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from perfeq.errors import UsageError
from perfeq.runtime.trace import Context, MPIRecord, Trace, Unit, ValueStat

# Identity of a node among its siblings: (unit source, function, caller unit source, call site).
NodeKey = tuple[str, str, str | None, int | None]


class NodeCosts(Protocol):
    """What the counters of a node of one unit's function cost (supplied by a later stage)."""

    def executions(self, function: str, counters: dict[int, int], calls: int) -> int:
        """Basic-block executions."""
        ...

    def ops_total(self, function: str, counters: dict[int, int], calls: int) -> float:
        """Operations, every thread's."""
        ...


# The costs of a trace's unit, or None when unknown: block and op metrics appear only with them.
CostsProvider = Callable[[Unit], "NodeCosts | None"]


@dataclass
class RankCounts:
    """What one rank's contexts of a node counted (every thread's): calls, region entries, counters,
    the values recorded (by value slot) and the MPI records (by call site, in the trace's order)."""

    calls: int = 0
    regions: int = 0
    counters: dict[int, int] = field(default_factory=dict)
    values: dict[int, ValueStat] = field(default_factory=dict)
    mpi: dict[int | None, list[MPIRecord]] = field(default_factory=dict)


@dataclass(eq=False)
class CallNode:
    """One call-graph node: a function reached through one path of call sites."""

    function: str
    source: str
    descriptors: str | None
    site: int | None
    parent: CallNode | None = field(default=None, repr=False)
    children: list[CallNode] = field(default_factory=list, repr=False)
    calls: int = 0
    regions: int = 0
    recursive: bool = False
    counters: dict[int, int] = field(default_factory=dict)
    values: dict[int, ValueStat] = field(default_factory=dict)
    mpi: list[tuple[int, MPIRecord]] = field(default_factory=list, repr=False)  # (rank, record)
    by_rank: dict[int, RankCounts] = field(default_factory=dict, repr=False)
    contexts: list[tuple[int, int]] = field(default_factory=list, repr=False)  # (rank, context id)
    costs: NodeCosts | None = field(default=None, repr=False)
    func: int = -1  # the function's index in its unit
    _index: dict[NodeKey, CallNode] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        """``work @2``: the function and the call site it was reached from."""
        return self.function if self.site is None else f"{self.function} @{self.site}"

    @property
    def path(self) -> tuple[str, ...]:
        node: CallNode | None = self
        labels: list[str] = []
        while node is not None:
            labels.append(node.label)
            node = node.parent
        return tuple(reversed(labels))

    def traverse(self) -> Iterator[CallNode]:
        """This node and its descendants, depth first, parents before children."""
        yield self
        for child in self.children:
            yield from child.traverse()

    @property
    def calls_inclusive(self) -> int:
        return sum(node.calls for node in self.traverse())

    @property
    def block_executions(self) -> int | None:
        """Basic-block executions counted in this node (None without the unit's descriptor file)."""
        return None if self.costs is None else self.costs.executions(self.function, self.counters, self.calls)

    @property
    def block_executions_inclusive(self) -> int | None:
        counts = [node.block_executions for node in self.traverse()]
        return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)

    @property
    def ops(self) -> float | None:
        """Operations executed in this node, by every thread (blocks and loop headers)."""
        return None if self.costs is None else self.costs.ops_total(self.function, self.counters, self.calls)

    @property
    def ops_inclusive(self) -> float | None:
        counts = [node.ops for node in self.traverse()]
        return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)

    def _add(self, context: Context) -> None:
        self.calls += context.calls
        self.regions += context.regions
        self.recursive = self.recursive or context.recursive
        rank = self.by_rank.setdefault(context.rank, RankCounts())
        rank.calls += context.calls
        rank.regions += context.regions
        for slot, count in context.counters.items():
            self.counters[slot] = self.counters.get(slot, 0) + count
            rank.counters[slot] = rank.counters.get(slot, 0) + count
        for slot, stat in context.values.items():
            self.values[slot] = self.values[slot].merge(stat) if slot in self.values else stat
            rank.values[slot] = rank.values[slot].merge(stat) if slot in rank.values else stat
        self.mpi.extend((context.rank, record) for record in context.mpi)
        for record in context.mpi:
            rank.mpi.setdefault(record.site, []).append(record)
        self.contexts.append((context.rank, context.id))

    def metrics(self) -> dict[str, Any]:
        data: dict[str, Any] = {"calls": self.calls, "calls (inc)": self.calls_inclusive,
                                "regions": self.regions, "mpi calls": sum(r.calls for _, r in self.mpi)}
        if self.block_executions_inclusive is not None:
            data.update({"blocks": self.block_executions, "blocks (inc)": self.block_executions_inclusive,
                         "ops": self.ops, "ops (inc)": self.ops_inclusive})
        return data

    def to_dict(self) -> dict[str, Any]:
        """This subtree as JSON-able data."""
        return {
            "function": self.function,
            "source": self.source,
            "descriptors": self.descriptors,
            "site": self.site,
            "calls": self.calls,
            "calls_inclusive": self.calls_inclusive,
            "regions": self.regions,
            "recursive": self.recursive,
            "blocks": self.block_executions,
            "blocks_inclusive": self.block_executions_inclusive,
            "ops": self.ops,
            "ops_inclusive": self.ops_inclusive,
            "counters": {str(slot): count for slot, count in sorted(self.counters.items())},
            "values": {str(slot): vars(stat) for slot, stat in sorted(self.values.items())},
            "mpi": [{"rank": rank, **asdict(record)} for rank, record in self.mpi],
            "by_rank": {str(rank): {"calls": c.calls, "regions": c.regions,
                                    "counters": {str(s): n for s, n in sorted(c.counters.items())}}
                        for rank, c in sorted(self.by_rank.items())},
            "children": [child.to_dict() for child in self.children],
        }


class CallGraph:
    """The call graph of a trace: root nodes (normally ``main``) and the MPI calls outside them."""

    def __init__(self, roots: list[CallNode], ranks: tuple[int, ...], program: str = "",
                 orphan_mpi: list[tuple[int, MPIRecord]] | None = None):
        self.roots = roots
        self.ranks = ranks
        self.program = program
        self.orphan_mpi = orphan_mpi or []

    @classmethod
    def from_trace(cls, trace: Trace, rank: int | None = None, *, costs: CostsProvider | None = None) -> CallGraph:
        """Build the graph of rank ``rank``, or of all ranks merged (None).

        ``costs``: the costs of each unit, for block executions and ops; without it (the default) the
        nodes have no block or op metrics.  The symbolic stage supplies it from the descriptor files:
        ``CallGraph.from_trace(trace, costs=perfeq.symbolic.measured.unit_costs)`` (before the layout
        change of issue 18 the graph read the descriptors itself, by default).
        """
        if rank is not None and rank not in trace.ranks:
            known = ", ".join(str(r) for r in sorted(trace.ranks)) or "none"
            raise UsageError(f"{trace.path}: no rank {rank} in this trace (ranks: {known})")
        ranks = tuple(sorted(trace.ranks)) if rank is None else (rank,)
        roots: list[CallNode] = []
        root_index: dict[NodeKey, CallNode] = {}
        orphans: list[tuple[int, MPIRecord]] = []
        for r in ranks:
            rank_trace = trace.ranks[r]
            unit_costs = {uid: costs(unit) if costs else None for uid, unit in rank_trace.units.items()}
            node_of: dict[int, CallNode] = {}
            for context in rank_trace.contexts.values():  # parents come before children
                unit = rank_trace.units[context.unit]
                function = unit.functions[context.func].name
                caller = None if context.caller_unit is None else rank_trace.units[context.caller_unit].source
                key: NodeKey = (unit.source, function, caller, context.site)
                parent = None if context.parent is None else node_of[context.parent]
                index = root_index if parent is None else parent._index
                node = index.get(key)
                if node is None:
                    node = CallNode(function, unit.source, unit.descriptors, context.site, parent,
                                    costs=unit_costs[context.unit], func=context.func)
                    index[key] = node
                    (roots if parent is None else parent.children).append(node)
                node._add(context)
                node_of[context.id] = node
            orphans.extend((r, record) for record in rank_trace.orphan_mpi)
        return cls(roots, ranks, trace.program, orphans)

    def traverse(self) -> Iterator[CallNode]:
        for root in self.roots:
            yield from root.traverse()

    def find(self, path: str) -> CallNode:
        """The node at ``path``, labels joined by ``/``: ``"main/work @2/scale @3"``."""
        wanted = tuple(part.strip() for part in path.split("/"))
        for node in self.traverse():
            if node.path == wanted:
                return node
        raise KeyError(path)

    def to_dict(self) -> dict[str, Any]:
        return {"program": self.program, "ranks": list(self.ranks),
                "roots": [root.to_dict() for root in self.roots],
                "unattributed_mpi": [{"rank": rank, **asdict(record)} for rank, record in self.orphan_mpi]}

    def to_literal(self) -> list[dict[str, Any]]:
        """Hatchet's literal format: ``hatchet.GraphFrame.from_literal(graph.to_literal())``.

        Every node carries the same metric names; ``(inc)`` marks inclusive metrics.  Block and
        op metrics appear only when every unit's descriptor file was found.
        """
        with_blocks = all(node.costs is not None for node in self.traverse())

        def literal(node: CallNode) -> dict[str, Any]:
            metrics = node.metrics()
            if not with_blocks:
                for name in ("blocks", "blocks (inc)", "ops", "ops (inc)"):
                    metrics.pop(name, None)
            item: dict[str, Any] = {"frame": {"name": node.function, "type": "function"}, "metrics": metrics}
            if node.children:
                item["children"] = [literal(child) for child in node.children]
            return item

        return [literal(root) for root in self.roots]

    def render(self) -> str:
        """The tree as text, one node per line, with its counts."""
        rows: list[tuple[str, CallNode]] = []

        def walk(node: CallNode, prefix: str, last: bool, top: bool) -> None:
            branch = "" if top else ("└─ " if last else "├─ ")
            rows.append((prefix + branch + node.label, node))
            child_prefix = prefix if top else prefix + ("   " if last else "│  ")
            for i, child in enumerate(node.children):
                walk(child, child_prefix, i == len(node.children) - 1, False)

        for root in self.roots:
            walk(root, "", True, True)
        width = max((len(text) for text, _ in rows), default=0)
        ranks = f"{len(self.ranks)} rank{'s' if len(self.ranks) != 1 else ''}"
        lines = [f"{self.program or 'program'}: {ranks}"]
        for text, node in rows:
            parts = [f"calls {node.calls} (inc {node.calls_inclusive})"]
            if node.block_executions is not None:
                parts.append(f"blocks {node.block_executions} (inc {node.block_executions_inclusive})")
            if node.regions:
                parts.append(f"regions {node.regions}")
            if node.recursive:
                parts.append("recursive (folded)")
            mpi: dict[str, int] = {}
            for _, record in node.mpi:
                mpi[record.call] = mpi.get(record.call, 0) + record.calls
            if mpi:
                parts.append("mpi " + " ".join(f"{call}:{n}" for call, n in mpi.items()))
            lines.append(f"{text.ljust(width)}  " + "  ".join(parts))
        if self.orphan_mpi:
            calls = sum(record.calls for _, record in self.orphan_mpi)
            lines.append(f"(MPI calls outside every instrumented function: {calls})")
        return "\n".join(lines)
