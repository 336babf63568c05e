"""The counts a run actually performed, per rank and in total: the ground truth of the model.

Part of perfeq stage 3 (symbolic/), the one owner of measured counts.  Two views of one trace:

* :func:`measured_counts`: the chi of a :class:`~perfeq.symbolic.observe.RunObservation`, assembled
  by the same code as the model's counts (perfeq.symbolic.chi), which the model's checks and the
  benchmarks compare predictions with;
* :func:`count_trace`: what ``perfeq counts --trace`` prints (ops, par, startup, bytes, ... per rank
  and per MPI function), and :func:`trace_costs`, the block executions and ops of a call-graph node
  (``perfeq callgraph``), from the descriptor files' block and loop op counts, linked across units
  like the model's (:func:`unit_costs`: one unit's alone).

Messages come from the MPI wrappers' records through the call table's algorithms
(perfeq.symbolic.messages).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from perfeq.errors import TraceError, UsageError
from perfeq.instrument.descriptors import BlockDescriptor, LoopDescriptor, UnitDescriptors, read_descriptors
from perfeq.runtime.mpi.calls import MPI_CALLS
from perfeq.runtime.trace import Context, MPIRecord, RankTrace, Trace, Unit
from perfeq.symbolic import chi as chimod
from perfeq.symbolic.linking import link_units
from perfeq.symbolic.messages import MessageCounts, message_counts, summed_messages
from perfeq.symbolic.observe import RunObservation, called_in_team, calls_in_team


# ---- the chi of a run (the model's ground truth) ---------------------------------------------------
def measured_counts(run: RunObservation) -> dict[str, Any]:
    """Per-rank and total chi of a run: ``{"per_rank": {rank: {key: value}}, "total": {...}}``."""
    per_rank = {rank: {k: float(v) for k, v in chimod.totals(run_items(run, rank)).items()}
                for rank in range(run.nranks)}
    keys = next(iter(per_rank.values())).keys() if per_rank else []
    total = {k: sum(r[k] for r in per_rank.values()) for k in keys}
    return {"per_rank": per_rank, "total": total, "nranks": run.nranks, "threads": run.threads,
            "params": run.params}


def run_items(run: RunObservation, rank: int) -> list[chimod.Item]:
    """The chi items (blocks, loop headers, regions, call sites) one rank of a run performed, per
    context (labelled by function), assembled like the model's."""
    items: list[chimod.Item] = []
    for ctx in run.contexts():
        unit = run.units.get(ctx.unit)
        if unit is None:
            continue
        fn = ctx.function
        label = unit.functions[fn].name
        team = called_in_team(run.units, ctx)
        for block in unit.blocks:
            if block.function == fn:
                items.append(chimod.block_item(unit, block, ctx.counter(rank, block.slot), label, run.threads, team))
        for loop in unit.loops:
            if loop.function == fn and loop.body_block is not None:
                entries = ctx.counter(rank, loop.entry_slot)
                iterations = ctx.counter(rank, unit.blocks[loop.body_block].slot)
                items.append(chimod.loop_item(unit, loop, entries, iterations, label, run.threads, team))
        for region in unit.regions:
            if region.function == fn:
                items.append(chimod.region_item(unit, region, ctx.counter(rank, region.slot), label))
        for comm in unit.comms:
            if comm.function != fn:
                continue
            total = summed_messages(ctx.mpi.get(rank, {}).get(comm.id, []))
            items.append(chimod.comm_item(unit, comm, total.sent, total.bytes_sent, total.critical, label))
    return items


# ---- operations of a call-graph node (perfeq callgraph, perfeq counts --trace) ----------------------
@dataclass(frozen=True)
class OpCounts:
    ops: float        # serial operations plus parallel ones divided by the threads
    ops_total: float  # every thread's operations


def _count(counters: dict[int, int], calls: int, slot: int | None) -> int:
    return calls if slot is None else counters.get(slot, 0)


@dataclass(frozen=True)
class FunctionParts:
    """One function's blocks, and its instrumented loops with the counter slot of their body block."""

    blocks: tuple[BlockDescriptor, ...]
    loops: tuple[tuple[LoopDescriptor, int | None], ...]


@dataclass(frozen=True)
class UnitCosts:
    """What the counters of one unit's functions cost: the call graph's costs provider.

    The operations are chi's (perfeq.symbolic.chi ``block_item`` and ``loop_item``, the same code as
    :func:`measured_counts` and the model): ``ops_total`` is every thread's operations, ``ops``
    divides the parallel ones by the threads that share them.
    """

    path: Path
    unit: UnitDescriptors
    functions: dict[str, FunctionParts]  # by function name

    @property
    def digest(self) -> str | None:
        return self.unit.digest if isinstance(self.unit.digest, str) else None

    def executions(self, function: str, counters: dict[int, int], calls: int) -> int:
        """Basic-block executions of one context of ``function`` (entry blocks: its calls)."""
        parts = self.functions.get(function)
        return 0 if parts is None else sum(_count(counters, calls, b.slot) for b in parts.blocks)

    def ops_total(self, function: str, counters: dict[int, int], calls: int) -> float:
        """Every thread's operations in one context of ``function``."""
        return self.ops(function, counters, calls).ops_total

    def ops(self, function: str, counters: dict[int, int], calls: int, threads: int = 1,
            team: bool = False) -> OpCounts:
        """Operations of one context of ``function`` with these counters and calls (``team``: every
        thread of a parallel region runs it, chi's ``block_item``)."""
        ops = total = 0.0
        for item in self._items(function, counters, calls, max(threads, 1), team):
            total += item.counts["ops_total"]
            ops += item.counts["ops"]
        return OpCounts(ops, total)

    def _items(self, function: str, counters: dict[int, int], calls: int, threads: int,
               team: bool = False) -> list[chimod.Item]:
        parts = self.functions.get(function)
        if parts is None:
            return []
        items = [chimod.block_item(self.unit, block, _count(counters, calls, block.slot), function, threads, team)
                 for block in parts.blocks]
        for loop, body_slot in parts.loops:
            entries, iterations = _count(counters, calls, loop.entry_slot), _count(counters, calls, body_slot)
            items.append(chimod.loop_item(self.unit, loop, entries, iterations, function, threads, team))
        return items


def _check_total(ops: Any, where: str) -> None:
    if not (isinstance(ops, dict) and isinstance(ops.get("total"), (int, float)) and not isinstance(ops["total"], bool)):
        raise UsageError(f"{where}: ops should be an object with a numeric 'total', not {ops!r}")


def _costs(path: Path, unit: UnitDescriptors) -> UnitCosts:
    """The costs of ``unit`` (read from ``path``), its op counts checked: one error line naming the item."""
    names = [f.name for f in unit.functions]
    if not all(isinstance(name, str) for name in names):
        raise UsageError(f"{path}: every function needs a name")
    for kind, records, fields in (("block", unit.blocks, ("ops",)),
                                  ("loop", unit.loops, ("ops_init", "ops_cond", "ops_step"))):
        for record in records:
            where = f"{path}: {kind} {record.id}"
            if record.function not in range(len(names)):
                raise UsageError(f"{where}: no function {record.function!r}")
            if kind == "loop" and record.body_block is None:
                continue
            for name in fields:
                _check_total(getattr(record, name), where)
    slots = {block.id: block.slot for block in unit.blocks}
    parts = {name: FunctionParts(
        blocks=tuple(block for block in unit.blocks if block.function == i),
        loops=tuple((loop, slots.get(loop.body_block)) for loop in unit.loops
                    if loop.function == i and loop.body_block is not None))  # else not instrumented
        for i, name in enumerate(names)}
    return UnitCosts(path=path, unit=unit, functions=parts)


@lru_cache(maxsize=64)
def _load(path: Path, mtime_ns: int) -> UnitCosts:
    return _costs(path, read_descriptors(path))


def load_unit_costs(path: str | Path | None) -> UnitCosts | None:
    """The costs in the descriptor file at ``path``; None when there is no such file."""
    if not path:
        return None
    file = Path(path)
    try:
        mtime = file.stat().st_mtime_ns
    except OSError:
        return None
    return _load(file, mtime)


def unit_costs(unit: Unit) -> UnitCosts | None:
    """The costs of a trace's unit, from its descriptor file alone: a call graph's costs provider
    (``CallGraph.from_trace(trace, costs=unit_costs)``); None without the file.  Calls to
    straight-line functions of other units are not linked: :func:`trace_costs` links them."""
    return load_unit_costs(unit.descriptors)


def trace_costs(trace: Trace) -> Callable[[Unit], UnitCosts | None]:
    """The costs provider for the units of ``trace``, with the operations of straight-line functions
    called from other units added where they are called (symbolic/linking.py), as the model and
    :func:`measured_counts` count them; None for a unit without its descriptor file."""
    paths = {unit.descriptors for rank in trace.ranks.values() for unit in rank.units.values() if unit.descriptors}
    loaded = {path: costs for path in paths if (costs := load_unit_costs(path)) is not None}
    linked = link_units({path: costs.unit for path, costs in loaded.items()})
    by_path = {path: costs if linked[path] is costs.unit else _costs(Path(path), linked[path])
               for path, costs in loaded.items()}
    return lambda unit: by_path.get(unit.descriptors) if unit.descriptors else None


# ---- the counts of a trace (perfeq counts --trace) --------------------------------------------------
@dataclass
class MPICallCounts:
    """One MPI function's calls by one rank (or all): block elements/bytes and messages sent."""

    calls: int = 0
    elements: int = 0
    bytes: int = 0            # sum of this rank's blocks (count * type size) over the calls
    messages: int = 0         # messages sent, by the call's algorithm
    bytes_sent: int = 0
    messages_critical: int = 0

    def add(self, other: MPICallCounts, *, critical_max: bool = False) -> None:
        self.calls += other.calls
        self.elements += other.elements
        self.bytes += other.bytes
        self.messages += other.messages
        self.bytes_sent += other.bytes_sent
        self.messages_critical = (max(self.messages_critical, other.messages_critical) if critical_max
                                  else self.messages_critical + other.messages_critical)


@dataclass
class RunCounts:
    """The counts of one rank, or the total of all ranks.

    ``ops``: operations (blocks and loop headers, executions times their static op counts, as
    perfeq.symbolic.chi counts them: parallel ones divided by the threads); ``ops_total``: every
    thread's operations (both None when a descriptor file is missing); ``par``: parallel-region entries (serial/parallel transitions);
    ``startup``: messages on the critical path, what the start-up cost prices (the total is the
    maximum over ranks); ``bytes``: bytes sent; ``sent``: messages sent; ``calls``: instrumented function calls;
    ``mpi_calls``: MPI calls; ``mpi``: per MPI function.
    """

    ops: float | None = 0.0
    ops_total: float | None = 0.0
    par: int = 0
    startup: int = 0
    bytes: int = 0
    sent: int = 0
    calls: int = 0
    mpi_calls: int = 0
    mpi: dict[str, MPICallCounts] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ops": self.ops, "ops_total": self.ops_total, "par": self.par, "startup": self.startup, "bytes": self.bytes,
                "sent": self.sent, "calls": self.calls,
                "mpi_calls": self.mpi_calls, "mpi": {name: vars(c) for name, c in sorted(self.mpi.items())}}


@dataclass(frozen=True)
class TraceCounts:
    """Counts per rank and in total, with notes on what could not be counted."""

    ranks: dict[int, RunCounts]
    total: RunCounts
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total.as_dict(), "ranks": {str(r): c.as_dict() for r, c in sorted(self.ranks.items())},
                "notes": list(self.notes)}


def _mpi_counts(record: MPIRecord, where: str) -> MPICallCounts:
    if record.call not in MPI_CALLS:
        raise TraceError(f"{where}: unknown MPI call {record.call!r} (this perfeq knows {len(MPI_CALLS)} calls)")
    messages: MessageCounts = message_counts(record.call, calls=record.calls, nbytes=record.bytes,
                                             comm_size=record.comm_size, comm_rank=record.comm_rank,
                                             root=record.root)
    return MPICallCounts(record.calls, record.elements, record.bytes, messages.sent, messages.bytes_sent,
                         messages.critical)


def count_rank(rank: RankTrace, notes: list[str], where: str = "trace",
               provider: Callable[[Unit], UnitCosts | None] = unit_costs) -> RunCounts:
    """The counts of one rank's trace, the units' costs from ``provider``; missing descriptor files
    are reported in ``notes``."""
    counts = RunCounts()
    costs = {}
    threads = rank.threads
    for uid, unit in rank.units.items():
        costs[uid] = provider(unit)
        if costs[uid] is None:
            note = f"no descriptor file {unit.descriptors or '(none)'} for unit {unit.source}: ops not counted"
            if note not in notes:
                notes.append(note)
    records: list[MPIRecord] = list(rank.orphan_mpi)
    for context in rank.contexts.values():
        counts.calls += context.calls
        counts.par += context.regions
        costs_of_unit = costs[context.unit]
        if costs_of_unit is None or counts.ops is None or counts.ops_total is None:
            counts.ops = counts.ops_total = None
        else:
            ops = costs_of_unit.ops(rank.function(context).name, context.counters, context.calls, threads,
                                    threads > 1 and calls_in_team(_call_chain(rank, costs, context)))
            counts.ops += ops.ops
            counts.ops_total += ops.ops_total
        records.extend(context.mpi)
    for record in records:
        item = _mpi_counts(record, where)
        counts.mpi.setdefault(record.call, MPICallCounts()).add(item)
        counts.mpi_calls += item.calls
        counts.startup += item.messages_critical
        counts.bytes += item.bytes_sent
        counts.sent += item.messages
    return counts


def _call_chain(rank: RankTrace, costs: dict[int, UnitCosts | None],
                context: Context | None) -> Iterator[tuple[UnitDescriptors | None, int | None]]:
    """The call sites on the way up from ``context`` (innermost first), as (unit, site)."""
    while context is not None and context.parent is not None:
        caller = costs.get(context.caller_unit) if context.caller_unit is not None else None
        yield (caller.unit if caller is not None else None), context.site
        context = rank.contexts.get(context.parent)


def count_trace(trace: Trace) -> TraceCounts:
    """The counts of every rank of ``trace`` and their total (critical path: the maximum)."""
    notes: list[str] = []
    if trace.incomplete:
        notes.append("the trace is incomplete: a rank crashed or is missing; counts are lower bounds")
    if trace.stopped:
        notes.append("recording stopped early in some rank (see its footer): counts are unreliable")
    provider = trace_costs(trace)
    ranks = {r: count_rank(trace.ranks[r], notes, str(trace.path), provider) for r in sorted(trace.ranks)}
    total = RunCounts()
    for counts in ranks.values():
        total.ops = None if total.ops is None or counts.ops is None else total.ops + counts.ops
        total.ops_total = (None if total.ops_total is None or counts.ops_total is None
                           else total.ops_total + counts.ops_total)
        total.par += counts.par
        total.startup = max(total.startup, counts.startup)
        total.bytes += counts.bytes
        total.sent += counts.sent
        total.calls += counts.calls
        total.mpi_calls += counts.mpi_calls
        for name, item in counts.mpi.items():
            total.mpi.setdefault(name, MPICallCounts()).add(item, critical_max=True)
    return TraceCounts(ranks, total, tuple(notes))
