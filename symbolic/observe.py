"""What one instrumentation run measured, arranged for the symbolic stage.

Part of perfeq stage 3 (symbolic/).  A :class:`RunObservation` holds the parameter values of the
run, the process and thread counts, the units' descriptors, and the call-graph contexts with their
counters per rank.  It is built by :func:`from_trace` from the one context tree of a trace
(perfeq.runtime.callgraph); tests can build one by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfeq.errors import ModelError
from perfeq.instrument.descriptors import UnitDescriptors, declaring_function, read_descriptors
from perfeq.runtime.callgraph import CallGraph, CallNode
from perfeq.runtime.trace import read_trace
from perfeq.symbolic.linking import link_units


@dataclass
class ContextObservation:
    """One call-graph context: a function of a unit entered from a call site of its parent."""

    unit: str  # descriptor file path (the key into RunObservation.units)
    function: int
    site: int | None  # call site id in the parent's unit; None for main
    parent: ContextObservation | None = None
    children: list[ContextObservation] = field(default_factory=list)
    calls: dict[int, int] = field(default_factory=dict)  # rank -> invocations
    counters: dict[int, dict[int, int]] = field(default_factory=dict)  # rank -> slot -> count
    mpi: dict[int, dict[int, list]] = field(default_factory=dict)  # rank -> comm site -> MPI records
    values: dict[int, dict[int, Any]] = field(default_factory=dict)  # rank -> value slot -> ValueStat
    unsited: dict[int, list] = field(default_factory=dict)  # rank -> MPI records of calls at no known site
    # the unit's source and text digest: what tells it in another run (builds of one file with other
    # -D sizes have descriptor files of their own, NAME-<digest>.perfeq.json, and the same source)
    source: str = ""
    # the contexts of a polling function gathered into one (gather_polling): entered from no one site;
    # team: one of them was called in a parallel region
    polling: bool = False
    team: bool = False
    _path: tuple | None = field(default=None, repr=False, compare=False)  # path(), once the tree is built

    def counter(self, rank: int, slot: int | None) -> int:
        if slot is None:
            return self.calls.get(rank, 0)
        return self.counters.get(rank, {}).get(slot, 0)

    def summed(self, slot: int | None) -> int:
        """A counter (``None``: the invocations) summed over the ranks."""
        if slot is None:
            return sum(self.calls.values())
        return sum(by_slot.get(slot, 0) for by_slot in self.counters.values())

    def path(self) -> tuple:
        """(unit file name, function, site) of each context from the root to this one; kept after
        the first call (the model asks it of every context of every run for every loop: HPGMG-FV's
        model spent 30 % of its time building these paths again)."""
        if self._path is None:
            parent = self.parent.path() if self.parent is not None else ()
            self._path = (*parent, (self.source or Path(self.unit).name, self.function, self.site))
        return self._path


@dataclass
class RunObservation:
    source: str  # the trace it came from
    params: dict[str, float]  # program variable -> value recorded by PERFEQ_PARAM (the first rank's)
    nranks: int
    threads: int
    units: dict[str, UnitDescriptors]  # descriptor path -> its descriptors
    roots: list[ContextObservation]
    rank_params: dict[str, list[float | None]] = field(default_factory=dict)  # variable -> value on each rank
    mpi: bool = True  # the program initialised MPI (a rank's rank_source is "mpi"): it was launched as MPI programs are

    def contexts(self):
        stack = list(self.roots)
        while stack:
            node = stack.pop(0)
            yield node
            stack[0:0] = node.children


def load_descriptors(path: str) -> UnitDescriptors:
    """The descriptors of a unit of the run (perfeq.instrument.descriptors.read_descriptors)."""
    return read_descriptors(path, error=ModelError, missing="descriptor file not found (was the program instrumented here?)")


def from_trace(path: str | Path) -> RunObservation:
    """Read a (merged) trace and arrange it per call-graph context, merging ranks and threads.

    The contexts are the call graph's nodes (perfeq.runtime.callgraph, matched across ranks and
    threads by their call path), without the functions of units that have no descriptor file and
    what they call.
    """
    trace = read_trace(path)
    if not trace.ranks:
        raise ModelError(f"{path}: the trace holds no rank")
    units: dict[str, UnitDescriptors] = {}
    params: dict[str, float] = {}
    rank_params: dict[str, list[float | None]] = {}
    threads = 1
    for index, rank_no in enumerate(sorted(trace.ranks)):
        rank = trace.ranks[rank_no]
        threads = max(threads, rank.threads)
        for name, value in rank.params.items():
            rank_params.setdefault(name, [None] * len(trace.ranks))[index] = value
            if value is not None:
                params.setdefault(name, value)
        for unit in rank.units.values():
            if unit.descriptors and unit.descriptors not in units:
                units[unit.descriptors] = load_descriptors(unit.descriptors)
    for unit in units.values():  # sizes compiled in: the value is the build's (its descriptors)
        for p in unit.params:
            if p.build_value() is not None:
                params.setdefault(p.variable, p.build_value())
    units = link_units(units)
    graph = CallGraph.from_trace(trace)
    sources = {key: f"{Path(unit.source).name}@{(unit.digest or '')[:16]}" for key, unit in units.items()
               if unit.source}  # (hand-written descriptors may have neither: the file's name then)
    roots = [obs for obs in (_observe(node, None, sources) for node in graph.roots) if obs is not None]
    for root in roots:
        gather_polling(root, units)
    mpi = any(rank.header.get("rank_source", "mpi") == "mpi" for rank in trace.ranks.values())
    run = RunObservation(str(path), params, trace.nranks, threads, units, roots, rank_params, mpi)
    for unit in units.values():  # named with --param and recorded by no statement of their own
        for p in unit.params:
            if p.source == "user" and p.variable not in params:
                add_bound_value(run, p.variable)
    return run


def bound_loops(unit: UnitDescriptors, variable: str) -> list:
    """The loops of ``unit`` whose bound is exactly ``variable`` and recorded in a value slot: in the
    function that declares it, or, for a global, in every function that does not hide it."""
    function = declaring_function(unit, variable)
    found = []
    for loop in unit.loops:
        if loop.bound != variable or "bound" not in (loop.values or {}):
            continue
        where = unit.functions[loop.function]
        if loop.function == function if function is not None else \
                variable not in where.locals and variable not in where.params:
            found.append(loop)
    return found


def add_bound_value(run: RunObservation, variable: str) -> bool:
    """Give ``run`` the value of a parameter variable no statement recorded (a size the program
    counts while reading its input, named by the user with --param) where the program reads it as
    a loop bound: the bound's value slot in every context that ran such a loop, on each rank,
    when all of them hold that one value at every entry.  False (nothing added) otherwise."""
    by_rank: dict[int, set[float]] = {}
    for ctx in run.contexts():
        unit = run.units.get(ctx.unit)
        if unit is None:
            continue
        for loop in bound_loops(unit, variable):
            if loop.function != ctx.function:
                continue
            for rank, stats in ctx.values.items():
                stat = stats.get(loop.values["bound"])
                if stat is not None and stat.min is not None:
                    by_rank.setdefault(rank, set()).update({stat.min, stat.max})
    if not by_rank or any(len(values) != 1 for values in by_rank.values()):
        return False
    ranks = sorted(by_rank)
    run.rank_params[variable] = [next(iter(by_rank[r])) for r in ranks]
    run.params[variable] = run.rank_params[variable][0]
    return True


def _observe(node: CallNode, parent: ContextObservation | None, sources: dict[str, str]) -> ContextObservation | None:
    """The observation of a call-graph node and its subtree (None: its unit has no descriptors);
    ``sources`` names each descriptor file's unit by its source and digest (ContextObservation.source)."""
    if not node.descriptors:
        return None
    obs = ContextObservation(node.descriptors, node.func, node.site if parent else None, parent,
                             source=sources.get(node.descriptors, ""))
    for rank, counts in node.by_rank.items():
        obs.calls[rank] = counts.calls  # every thread's invocations
        obs.counters[rank] = dict(counts.counters)
        obs.values[rank] = dict(counts.values)
        obs.mpi[rank] = {site: list(records) for site, records in counts.mpi.items() if site is not None}
        obs.unsited[rank] = list(counts.mpi.get(None, []))
    for child in node.children:
        observed = _observe(child, obs, sources)
        if observed is not None:
            obs.children.append(observed)
    return obs


def gather_polling(root: ContextObservation, units: dict[str, UnitDescriptors]) -> None:
    """Gather the contexts of each polling function under ``root`` into one context of ``root``
    entered from no one call site (site -1, ``polling``), their subtrees merged by call path.

    A polling function tests whether a message has arrived (an ``if`` on the flag of an MPI test or
    probe, CondDescriptor.polled: graph500's ``aml_poll_intra``, ``MPI_Testany(..., &flag, ...); if
    (flag) process_intra(...)``).  It is called from loops that wait (for a send to go, for a
    barrier), and which of them finds a given message is the waiting's timing: each context, fitted
    on its own, had a share of the messages that no form of the size holds, while all of them
    together handle every message the process receives.  Nested polling functions are gathered
    each into their own context."""
    polling = {(path, unit.conds[i].function) for path, unit in units.items() for i in polling_conds(unit)}
    if not polling:
        return
    found: list[ContextObservation] = []
    stack = list(root.children)
    while stack:
        node = stack.pop()
        if (node.unit, node.function) in polling:
            found.append(node)
        stack.extend(node.children)
    if not found:
        return
    team = {id(node): called_in_team(units, node) for node in found}  # (before any is moved)
    for node in found:
        node.parent.children.remove(node)
    gathered: dict[tuple, ContextObservation] = {}
    for node in found:
        key = (node.unit, node.function)
        if key not in gathered:
            gathered[key] = ContextObservation(node.unit, node.function, -1, root, source=node.source, polling=True)
            root.children.append(gathered[key])
        gathered[key].team = gathered[key].team or team[id(node)]
        _merge_into(gathered[key], node)


def polling_conds(unit: UnitDescriptors) -> set[int]:
    """The ids of the unit's ifs on whether a request completed or a message arrived (``polled``)
    whose branches call a function of the program: a message handler (graph500's ``if (flag) {
    ...; process_intra(...); }``), the work that follows the messages, not the polls.  An if that
    only waits or leaves (``if (!flag) MPI_Waitall(...)`` in a halo exchange, ``if (done) break;``)
    is not one: its function's contexts keep their call sites and arguments."""
    found = set()
    for cond in unit.conds:
        if not cond.polled:
            continue
        arms = {block for block in (cond.then_block, cond.else_block) if block is not None}
        for call in unit.calls:
            block = call.block if call.function == cond.function else None
            while block is not None and block not in arms:
                block = unit.blocks[block].anchor
            if block is not None:
                found.add(cond.id)
                break
    return found


def _merge_into(into: ContextObservation, node: ContextObservation) -> None:
    """Add the counts of ``node`` and its subtree to ``into`` (children matched by unit, function
    and call site)."""
    for rank, calls in node.calls.items():
        into.calls[rank] = into.calls.get(rank, 0) + calls
    for rank, counters in node.counters.items():
        mine = into.counters.setdefault(rank, {})
        for slot, count in counters.items():
            mine[slot] = mine.get(slot, 0) + count
    for rank, stats in node.values.items():
        mine = into.values.setdefault(rank, {})
        for slot, stat in stats.items():
            mine[slot] = mine[slot].merge(stat) if slot in mine else stat
    for rank, sites in node.mpi.items():
        mine = into.mpi.setdefault(rank, {})
        for site, records in sites.items():
            mine.setdefault(site, []).extend(records)
    for rank, records in node.unsited.items():
        into.unsited.setdefault(rank, []).extend(records)
    children = {(c.unit, c.function, c.site): c for c in into.children}
    for child in node.children:
        key = (child.unit, child.function, child.site)
        if key not in children:
            children[key] = ContextObservation(child.unit, child.function, child.site, into, source=child.source)
            into.children.append(children[key])
        _merge_into(children[key], child)


def called_in_team(units: dict[str, UnitDescriptors], ctx: ContextObservation) -> bool:
    """Whether a call on the way to context ``ctx`` stands in a parallel region (every thread of a
    team runs the context: NPB EP's ``vranlc`` called in ``omp parallel``)."""
    links, node = [], ctx
    while node.parent is not None and not node.polling:
        links.append((units.get(node.parent.unit), node.site))
        node = node.parent
    return calls_in_team(links) or node.team  # (a gathered polling context: any of its callers')


def calls_in_team(chain: Iterable[tuple[UnitDescriptors | None, int | None]]) -> bool:
    """Whether one of the call sites ``(unit, site)`` on the way up from a context (innermost first)
    stands in a parallel region; an unknown one ends the walk."""
    for unit, site in chain:
        if unit is None or site is None or not 0 <= site < len(unit.calls):
            return False
        block = unit.calls[site].block
        if block is not None and 0 <= block < len(unit.blocks) and unit.blocks[block].in_parallel:
            return True
    return False
