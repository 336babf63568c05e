"""The counts a run actually performed, per rank and in total, from its trace.

Part of perfeq stage 2 (runtime/).  These are the measured chi values of Clement & Quinn's model
for the instrumented run (``ops``, ``par``, ``startup``, ``bytes``), which the symbolic stage's
predicted counts must reproduce at the measured problem size; ``perfeq counts --trace`` prints
them.  Ops come from the descriptor files (runtime/descriptors.py), messages from the MPI call
table's algorithms (runtime/mpi_spec.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from perfeq.errors import TraceError
from perfeq.runtime.descriptors import load_unit_costs
from perfeq.runtime.mpi.calls import MPI_CALLS
from perfeq.runtime.trace import MPIRecord, RankTrace, Trace
from perfeq.symbolic.messages import MessageCounts, message_counts


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
    ``startup``: messages sent; ``bytes``: bytes sent; ``messages_critical``: messages on the
    critical path (the total is the maximum over ranks); ``calls``: instrumented function calls;
    ``mpi_calls``: MPI calls; ``mpi``: per MPI function.
    """

    ops: float | None = 0.0
    ops_total: float | None = 0.0
    par: int = 0
    startup: int = 0
    bytes: int = 0
    messages_critical: int = 0
    calls: int = 0
    mpi_calls: int = 0
    mpi: dict[str, MPICallCounts] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ops": self.ops, "ops_total": self.ops_total, "par": self.par, "startup": self.startup, "bytes": self.bytes,
                "messages_critical": self.messages_critical, "calls": self.calls,
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


def count_rank(rank: RankTrace, notes: list[str], where: str = "trace") -> RunCounts:
    """The counts of one rank's trace; missing descriptor files are reported in ``notes``."""
    counts = RunCounts()
    costs = {}
    threads = rank.header.get("nthreads")
    threads = threads if type(threads) is int and threads > 0 else 1
    for uid, unit in rank.units.items():
        costs[uid] = load_unit_costs(unit.descriptors)
        if costs[uid] is None:
            note = f"no descriptor file {unit.descriptors or '(none)'} for unit {unit.source}: ops not counted"
            if note not in notes:
                notes.append(note)
    records: list[MPIRecord] = list(rank.orphan_mpi)
    for context in rank.contexts.values():
        counts.calls += context.calls
        counts.par += context.regions
        unit_costs = costs[context.unit]
        if unit_costs is None or counts.ops is None or counts.ops_total is None:
            counts.ops = counts.ops_total = None
        else:
            ops = unit_costs.ops(rank.function(context).name, context.counters, context.calls, threads)
            counts.ops += ops.ops
            counts.ops_total += ops.ops_total
        records.extend(context.mpi)
    for record in records:
        item = _mpi_counts(record, where)
        counts.mpi.setdefault(record.call, MPICallCounts()).add(item)
        counts.mpi_calls += item.calls
        counts.startup += item.messages
        counts.bytes += item.bytes_sent
        counts.messages_critical += item.messages_critical
    return counts


def count_trace(trace: Trace) -> TraceCounts:
    """The counts of every rank of ``trace`` and their total (critical path: the maximum)."""
    notes: list[str] = []
    if trace.incomplete:
        notes.append("the trace is incomplete: a rank crashed or is missing; counts are lower bounds")
    if trace.stopped:
        notes.append("recording stopped early in some rank (see its footer): counts are unreliable")
    ranks = {r: count_rank(trace.ranks[r], notes, str(trace.path)) for r in sorted(trace.ranks)}
    total = RunCounts()
    for counts in ranks.values():
        total.ops = None if total.ops is None or counts.ops is None else total.ops + counts.ops
        total.ops_total = (None if total.ops_total is None or counts.ops_total is None
                           else total.ops_total + counts.ops_total)
        total.par += counts.par
        total.startup += counts.startup
        total.bytes += counts.bytes
        total.messages_critical = max(total.messages_critical, counts.messages_critical)
        total.calls += counts.calls
        total.mpi_calls += counts.mpi_calls
        for name, item in counts.mpi.items():
            total.mpi.setdefault(name, MPICallCounts()).add(item, critical_max=True)
    return TraceCounts(ranks, total, tuple(notes))
