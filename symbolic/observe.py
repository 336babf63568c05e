"""What one instrumentation run measured, arranged for the symbolic stage.

A :class:`RunObservation` holds the parameter values of the run, the process and thread counts, and
the call-graph contexts with their counters per rank.  It is built from a trace by
:func:`from_trace` (perfeq.runtime reads the trace); tests can build one by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfeq.errors import ModelError


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

    def counter(self, rank: int, slot: int | None) -> int:
        if slot is None:
            return self.calls.get(rank, 0)
        return self.counters.get(rank, {}).get(slot, 0)

    def path(self) -> tuple:
        node, parts = self, []
        while node is not None:
            parts.append((Path(node.unit).name, node.function, node.site))
            node = node.parent
        return tuple(reversed(parts))


@dataclass
class RunObservation:
    source: str  # the trace it came from
    params: dict[str, float]  # program variable -> value recorded by PERFEQ_PARAM
    nranks: int
    threads: int
    units: dict[str, dict]  # descriptor path -> descriptor JSON
    roots: list[ContextObservation]

    def contexts(self):
        stack = list(self.roots)
        while stack:
            node = stack.pop(0)
            yield node
            stack[0:0] = node.children


def load_descriptors(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ModelError(f"{path}: descriptor file not found (was the program instrumented here?)") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    if data.get("format") != "perfeq-descriptors" or data.get("version") != 1:
        raise ModelError(f"{path}: not a perfeq-descriptors version 1 file")
    return data


def from_trace(path: str | Path) -> RunObservation:
    """Read a (merged) trace and arrange it per call-graph context, merging ranks and threads.

    Contexts are matched across ranks and threads by their call path: the chain of (descriptor
    file, function, call site) from main.
    """
    from perfeq.runtime.trace import read_trace

    trace = read_trace(path)
    if not trace.ranks:
        raise ModelError(f"{path}: the trace holds no rank")
    units: dict[str, dict] = {}
    by_path: dict[tuple, ContextObservation] = {}
    roots: list[ContextObservation] = []
    params: dict[str, float] = {}
    threads = 1
    for rank_no in sorted(trace.ranks):
        rank = trace.ranks[rank_no]
        threads = max(threads, int(rank.header.get("nthreads") or 1))
        for name, value in rank.params.items():
            if value is not None:
                params.setdefault(name, value)
        unit_paths: dict[int, str] = {}
        for uid, unit in rank.units.items():
            if unit.descriptors:
                unit_paths[uid] = unit.descriptors
                if unit.descriptors not in units:
                    units[unit.descriptors] = load_descriptors(unit.descriptors)
        paths: dict[int, tuple] = {}
        for cid in sorted(rank.contexts):
            ctx = rank.contexts[cid]
            if ctx.unit not in unit_paths:
                continue
            parent_path = paths.get(ctx.parent) if ctx.parent is not None else ()
            if parent_path is None:
                continue
            key = (*parent_path, (unit_paths[ctx.unit], ctx.func, ctx.site))
            paths[cid] = key
            node = by_path.get(key)
            if node is None:
                parent = by_path.get(parent_path) if parent_path else None
                node = ContextObservation(unit_paths[ctx.unit], ctx.func, ctx.site if parent else None, parent)
                by_path[key] = node
                (parent.children if parent else roots).append(node)
            node.calls[rank_no] = node.calls.get(rank_no, 0) + ctx.calls  # every thread's invocations
            counters = node.counters.setdefault(rank_no, {})
            for slot, count in ctx.counters.items():
                counters[slot] = counters.get(slot, 0) + count
            values = node.values.setdefault(rank_no, {})
            for slot, stat in ctx.values.items():
                values[slot] = values[slot].merge(stat) if slot in values else stat
            sites = node.mpi.setdefault(rank_no, {})
            for record in ctx.mpi:
                if record.site is None:
                    continue
                sites.setdefault(record.site, []).append(record)
    return RunObservation(str(path), params, trace.nranks, threads, units, roots)
